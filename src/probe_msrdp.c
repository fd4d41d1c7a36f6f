/*
 * probe_msrdp.c - the Microsoft RDP probe (probe.h): the
 * client's X.224 Connection Request.
 */
#include "ferryd.h"

#include "probe.h"

/*
 * Microsoft RDP: the client opens with an X.224 Connection Request in a
 * TPKT (RFC 1006, RFC 2126): version 3, a reserved 0, the packet's
 * length (big-endian, the 4-byte header included), the request.  As
 * sslh: a match once the whole packet is here.
 */
#define TPKT_HEADER	4
#define X224_CR_MIN	7	/* the TPKT and X.224's fixed part */

enum probe_verdict
probe_msrdp(const uint8_t *buf, size_t len)
{
	size_t	plen;

	if (!probe_starts_n(buf, len, "\x03\x00", 2))
		return PROBE_NO;
	if (len < TPKT_HEADER)
		return PROBE_AGAIN;
	plen = (size_t)buf[2] << 8 | buf[3];
	if (plen < X224_CR_MIN)
		return PROBE_NO;
	return len >= plen ? PROBE_MATCH : PROBE_AGAIN;
}
