/*
 * probe_adb.c - the ADB probe (probe.h): the Android
 * Debug Bridge host's first message.
 */
#include "ferryd.h"

#include "probe.h"

/*
 * ADB (Android Debug Bridge, its protocol.txt): the host's first message
 * is CNXN, a 24-byte header whose command is "CNXN", then a payload that
 * starts with "host:".  Some adb 26 releases send an empty message (all
 * zeros but the magic, 0xffffffff) before it.  As sslh: decided on 30
 * bytes at least (54 with the empty message).
 */
#define ADB_HEADER	24
#define ADB_DECIDE	30

enum probe_verdict
probe_adb(const uint8_t *buf, size_t len)
{
	static const uint8_t empty[ADB_HEADER] = { [20] = 0xff, 0xff, 0xff,
	    0xff };

	if (probe_starts_n(buf, len, empty, sizeof(empty))) {
		if (len < sizeof(empty))
			return PROBE_AGAIN;
		buf += sizeof(empty);
		len -= sizeof(empty);
	}
	if (!probe_starts(buf, len, "CNXN") || (len > ADB_HEADER &&
	    !probe_starts(buf + ADB_HEADER, len - ADB_HEADER, "host:")))
		return PROBE_NO;
	return len >= ADB_DECIDE ? PROBE_MATCH : PROBE_AGAIN;
}
