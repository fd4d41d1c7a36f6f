/*
 * probe_openvpn.c - the OpenVPN-over-TCP probe (probe.h):
 * the client's first packet.
 */
#include "ferryd.h"

#include "probe.h"

/*
 * OpenVPN over TCP: a 2-byte length, then the first packet, which is a
 * P_CONTROL_HARD_RESET_CLIENT_V2 (opcode 7) or _V3 (opcode 10, tls-crypt-v2)
 * with key id 0.  The lengths are OpenVPN's own port-share check (ps.c):
 * 14 to 255 bytes for V2, 336 to 1278 for V3 with its wrapped client key.
 * A match once the whole packet is in; its length is never trusted to
 * read further (sslh's OpenVPN probes read past the buffer twice, and
 * through an unaligned pointer: CVE-2025-46806).
 */
#define OVPN_V2	(7 << 3)
#define OVPN_V3	(10 << 3)

enum probe_verdict
probe_openvpn(const uint8_t *buf, size_t len)
{
	size_t	plen;

	if (len < 3)
		return PROBE_AGAIN;
	plen = (size_t)buf[0] << 8 | buf[1];
	if (buf[2] == OVPN_V2) {
		if (plen < 14 || plen > 255)
			return PROBE_NO;
	} else if (buf[2] == OVPN_V3) {
		if (plen < 336 || plen > 1278)
			return PROBE_NO;
	} else
		return PROBE_NO;
	return len >= 2 + plen ? PROBE_MATCH : PROBE_AGAIN;
}
