/*
 * probe_stateless.c - the probes that need no state: SSH, OpenVPN over
 * TCP, SOCKS5 and XMPP.  Each judges the bytes so far afresh; each looks
 * at a bounded prefix (at most XMPP_HEAD_MAX bytes), so calling it again
 * after every read costs little.  Each says PROBE_NO at the first byte
 * that rules its protocol out, so that the probes after it in a route
 * list are not held up.
 */
#include "ferryd.h"

#include <string.h>

#include "probe.h"

/* Whether buf[0..len) is a prefix of s or s a prefix of it. */
static bool
starts(const uint8_t *buf, size_t len, const char *s)
{
	size_t	n = strlen(s);

	return memcmp(buf, s, len < n ? len : n) == 0;
}

/*
 * SSH (RFC 4253 4.2): the client's identification string starts
 * "SSH-protoversion-"; a match once its version (digits, a dot, digits,
 * at most 8 bytes) and the dash after it are in.
 */
enum probe_verdict
probe_ssh(const uint8_t *buf, size_t len)
{
	size_t	i;
	bool	dot = false;

	if (!starts(buf, len, "SSH-"))
		return PROBE_NO;
	for (i = 4; i < len && i < 4 + 8; i++) {
		if (buf[i] == '-')
			return dot && buf[i - 1] != '.' ? PROBE_MATCH :
			    PROBE_NO;
		if (buf[i] == '.') {
			if (dot || i == 4)
				return PROBE_NO;
			dot = true;
		} else if (buf[i] < '0' || buf[i] > '9')
			return PROBE_NO;
	}
	return i < 4 + 8 ? PROBE_AGAIN : PROBE_NO;
}

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

/*
 * SOCKS5 (RFC 1928 3): version 5, a count of methods (1 or more), then
 * the methods, each one assigned by IANA (0 to 9) or private (0x80 to
 * 0xfe); 0xff means "none acceptable" and is never offered.
 */
enum probe_verdict
probe_socks5(const uint8_t *buf, size_t len)
{
	size_t	i;

	if (len < 1)
		return PROBE_AGAIN;
	if (buf[0] != 5 || (len >= 2 && buf[1] == 0))
		return PROBE_NO;
	for (i = 2; i < len && i < 2 + (size_t)buf[1]; i++)
		if (buf[i] > 9 && (buf[i] < 0x80 || buf[i] == 0xff))
			return PROBE_NO;
	return len >= 2 && len >= 2 + (size_t)buf[1] ? PROBE_MATCH :
	    PROBE_AGAIN;
}

/*
 * XMPP (RFC 6120 4.2): the client opens with an XML stream header,
 * "<?xml ...?><stream:stream ... xmlns='jabber:client' ...>", so its
 * first byte is '<' and the jabber namespace comes within its first
 * few hundred bytes.  (sslh looks for "jabber" anywhere in any bytes.)
 */
#define XMPP_HEAD_MAX	512

enum probe_verdict
probe_xmpp(const uint8_t *buf, size_t len)
{
	size_t	n = len < XMPP_HEAD_MAX ? len : XMPP_HEAD_MAX;

	if (len < 1)
		return PROBE_AGAIN;
	if (buf[0] != '<')
		return PROBE_NO;
	if (memmem(buf, n, "jabber:", 7) != NULL)
		return PROBE_MATCH;
	return len < XMPP_HEAD_MAX ? PROBE_AGAIN : PROBE_NO;
}
