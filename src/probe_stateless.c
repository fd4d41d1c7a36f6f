/*
 * probe_stateless.c - the probes that need no state: SSH, OpenVPN over
 * TCP, SOCKS5, XMPP, ADB, syslog and RDP.  Each judges the bytes so far afresh; each looks
 * at a bounded prefix (at most XMPP_HEAD_MAX bytes), so calling it again
 * after every read costs little.  Each says PROBE_NO at the first byte
 * that rules its protocol out, so that the probes after it in a route
 * list are not held up.
 */
#include "ferryd.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "probe.h"

/*
 * Whether the len bytes at buf are a prefix of the n bytes at want, or
 * those a prefix of them.
 */
static bool
starts_n(const uint8_t *buf, size_t len, const void *want, size_t n)
{
	return memcmp(buf, want, len < n ? len : n) == 0;
}

/* The same for the string s. */
static bool
starts(const uint8_t *buf, size_t len, const char *s)
{
	return starts_n(buf, len, s, strlen(s));
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

	if (starts_n(buf, len, empty, sizeof(empty))) {
		if (len < sizeof(empty))
			return PROBE_AGAIN;
		buf += sizeof(empty);
		len -= sizeof(empty);
	}
	if (!starts(buf, len, "CNXN") || (len > ADB_HEADER &&
	    !starts(buf + ADB_HEADER, len - ADB_HEADER, "host:")))
		return PROBE_NO;
	return len >= ADB_DECIDE ? PROBE_MATCH : PROBE_AGAIN;
}

/*
 * Syslog over TCP (RFC 6587): a message starts with its priority, "<N>"
 * of 1 to 3 digits (RFC 5424, 3164), after its length and a space where
 * octet counting frames it ("15 <12>..."), as sslh's pattern has it.
 */
enum probe_verdict
probe_syslog(const uint8_t *buf, size_t len)
{
	size_t	i = 0, d;

	/* The octet count: any number of digits (sslh's %d), 10 here. */
	for (d = 0; i < len && isdigit(buf[i]) && d < 10; i++, d++)
		continue;
	if (d > 0) {
		if (i == len)
			return PROBE_AGAIN;
		if (buf[i++] != ' ')
			return PROBE_NO;
	}
	if (i == len)
		return PROBE_AGAIN;
	if (buf[i++] != '<')
		return PROBE_NO;
	for (d = 0; i < len && isdigit(buf[i]) && d < 3; i++, d++)
		continue;
	if (i == len)
		return PROBE_AGAIN;
	return d > 0 && buf[i] == '>' ? PROBE_MATCH : PROBE_NO;
}

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

	if (!starts_n(buf, len, "\x03\x00", 2))
		return PROBE_NO;
	if (len < TPKT_HEADER)
		return PROBE_AGAIN;
	plen = (size_t)buf[2] << 8 | buf[3];
	if (plen < X224_CR_MIN)
		return PROBE_NO;
	return len >= plen ? PROBE_MATCH : PROBE_AGAIN;
}
