/*
 * probe_sslh.c - sslh's probes (probe.h), for rules with probes = "sslh",
 * which ferryd --sslh writes: each decides on a client's first bytes as
 * sslh 2.x's probe of the same name does (its probe.c and tls.c, read
 * for their behaviour), so that a converted sslh.cfg sends a client
 * where sslh would.  They are deliberately looser than ferryd's own
 * (probe_ssh.c and the others, probe_tls.c, probe_http.c): a protocol is told
 * by a few bytes, not by its grammar.  Each is stateless and asked
 * again with all the bytes at every look; what a verdict means to the
 * route loop is tcp_peek.c's.  sslh 1.20's probes of these names decide
 * alike; syslog and msrdp are 2.x's.
 */
#include "ferryd.h"

#include <string.h>

#include "probe.h"

static bool
has_prefix(const uint8_t *buf, size_t len, const char *s)
{
	size_t	n = strlen(s);

	return len >= n && memcmp(buf, s, n) == 0;
}

static bool
has_infix(const uint8_t *buf, size_t len, const char *s)
{
	return memmem(buf, len, s, strlen(s)) != NULL;
}

static size_t
be16(const uint8_t *p)
{
	return (size_t)p[0] << 8 | p[1];
}

/* SSH: "SSH-" and nothing more ("SSH-2.0 hello" is SSH to sslh). */
enum probe_verdict
probe_sslh_ssh(const uint8_t *buf, size_t len)
{
	if (len < 4)
		return PROBE_AGAIN;
	return has_prefix(buf, len, "SSH-") ? PROBE_MATCH : PROBE_NO;
}

/*
 * OpenVPN over TCP: a 2-byte length equal to what came after it, in
 * this look; neither opcode nor size is looked at.  One byte more or
 * less is no, and a later look may match again.
 */
enum probe_verdict
probe_sslh_openvpn(const uint8_t *buf, size_t len)
{
	if (len < 2)
		return PROBE_AGAIN;
	return be16(buf) == len - 2 ? PROBE_MATCH : PROBE_NO;
}

/* XMPP: "jabber" anywhere; waits for 50 bytes before it says no. */
#define SSLH_XMPP_WAIT	50

enum probe_verdict
probe_sslh_xmpp(const uint8_t *buf, size_t len)
{
	if (has_infix(buf, len, "jabber"))
		return PROBE_MATCH;
	return len < SSLH_XMPP_WAIT ? PROBE_AGAIN : PROBE_NO;
}

/*
 * HTTP: "HTTP" anywhere (a request line's version, without waiting for
 * the end of the headers), else a request starting with one of these
 * methods, tried in this order: one longer than the bytes so far waits
 * for more, whatever the bytes are, so nothing under 7 bytes ("OPTIONS")
 * is told apart unless it has "HTTP".
 */
static const char *const sslh_methods[] = { "OPTIONS", "GET", "HEAD",
    "POST", "PUT", "DELETE", "TRACE", "CONNECT" };

enum probe_verdict
probe_sslh_http(const uint8_t *buf, size_t len)
{
	size_t	i;

	if (has_infix(buf, len, "HTTP"))
		return PROBE_MATCH;
	for (i = 0; i < sizeof(sslh_methods) / sizeof(sslh_methods[0]); i++) {
		if (len < strlen(sslh_methods[i]))
			return PROBE_AGAIN;
		if (has_prefix(buf, len, sslh_methods[i]))
			return PROBE_MATCH;
	}
	return PROBE_NO;
}

/*
 * ADB: a CNXN message's command and its payload's "host:", judged on 30
 * bytes; failing that, an empty message (adb 26's) then a CNXN, judged
 * on 54.  Anything shorter waits.
 */
#define ADB_HEADER	24
#define ADB_CNXN_MIN	(ADB_HEADER + 6)

static bool
adb_cnxn(const uint8_t *p)
{
	return memcmp(p, "CNXN", 4) == 0 &&
	    memcmp(p + ADB_HEADER, "host:", 5) == 0;
}

enum probe_verdict
probe_sslh_adb(const uint8_t *buf, size_t len)
{
	static const uint8_t empty[ADB_HEADER] = { [20] = 0xff, 0xff, 0xff,
	    0xff };

	if (len < ADB_CNXN_MIN)
		return PROBE_AGAIN;
	if (adb_cnxn(buf))
		return PROBE_MATCH;
	if (len < ADB_HEADER + ADB_CNXN_MIN)
		return PROBE_AGAIN;
	if (memcmp(buf, empty, sizeof(empty)) != 0)
		return PROBE_NO;
	return adb_cnxn(buf + ADB_HEADER) ? PROBE_MATCH : PROBE_NO;
}

/*
 * SOCKS5: version 5, 1 to 10 methods (the count read as a signed char,
 * as sslh on x86 reads it: 128 and up are no), each 0 to 9.
 */
#define SOCKS5_METHODS_MAX	10

enum probe_verdict
probe_sslh_socks5(const uint8_t *buf, size_t len)
{
	size_t	i;

	if (len < 2)
		return PROBE_AGAIN;
	if (buf[0] != 5 || buf[1] < 1 || buf[1] > SOCKS5_METHODS_MAX)
		return PROBE_NO;
	if (len < 2 + (size_t)buf[1])
		return PROBE_AGAIN;
	for (i = 0; i < buf[1]; i++)
		if (buf[2 + i] > 9)
			return PROBE_NO;
	return PROBE_MATCH;
}

/* Up to max digits at buf[*i]: how many (one more if there are more). */
static size_t
digits(const uint8_t *buf, size_t len, size_t *i, size_t max)
{
	size_t	n = 0;

	while (*i < len && n <= max && buf[*i] >= '0' && buf[*i] <= '9') {
		(*i)++;
		n++;
	}
	return n;
}

/*
 * syslog: sslh's pattern, ^([0-9]{1,3} )?<[0-9]{1,3}>, on the bytes up
 * to the first NUL: an octet count of 1 to 3 digits and a space, then
 * the priority.  Never waits: a cut priority is no.
 */
enum probe_verdict
probe_sslh_syslog(const uint8_t *buf, size_t len)
{
	size_t	i = 0, n;

	n = digits(buf, len, &i, 3);
	if (n > 0 && (n > 3 || i == len || buf[i++] != ' '))
		return PROBE_NO;
	if (i == len || buf[i++] != '<')
		return PROBE_NO;
	n = digits(buf, len, &i, 3);
	return n >= 1 && n <= 3 && i < len && buf[i] == '>' ? PROBE_MATCH :
	    PROBE_NO;
}

/*
 * RDP: a TPKT (version 3) judged on 7 bytes or more, none waiting; sslh
 * compares the low byte of its length, read as a signed char (x86), to
 * the bytes so far: a whole packet of under 128 bytes in this look.
 */
#define TPKT_MIN	7

enum probe_verdict
probe_sslh_msrdp(const uint8_t *buf, size_t len)
{
	if (len < TPKT_MIN || buf[0] != 3)
		return PROBE_NO;
	return buf[3] < 0x80 && buf[3] == len ? PROBE_MATCH : PROBE_NO;
}

/*
 * TLS.  sslh's reader looks at the first record alone (a hello over
 * two records is no), at its lengths only as far as it needs them, and
 * at nothing else: the handshake's own length, the version inside, the
 * cipher suites' and compression methods' contents are not checked, and
 * bytes after the extensions are ignored.
 */
#define TLS_HEADER	5
#define TLS_HANDSHAKE	22
#define TLS_HELLO	1
#define TLS_FIXED	38	/* type, length, version, random */
#define TLS_EXT_SNI	0
#define TLS_EXT_ALPN	16

/*
 * A name at p[0..n) to names->match, cut at a NUL; one too long to be a
 * route's name (PROBE_NAME_MAX) is not.
 */
static bool
name_matches(const struct probe_sslh_names *names, bool alpn,
    const uint8_t *p, size_t n)
{
	char	name[PROBE_NAME_MAX + 1];
	const uint8_t *nul = memchr(p, '\0', n);

	if (nul != NULL)
		n = (size_t)(nul - p);
	if (n > PROBE_NAME_MAX)
		return false;
	memcpy(name, p, n);
	name[n] = '\0';
	return names->match(names->ctx, alpn, name);
}

/*
 * A server_name extension's body: its list length skipped, entries
 * walked to the first host_name, which decides.  An entry past the end,
 * or none, is no.
 */
static bool
sni_matches(const struct probe_sslh_names *names, const uint8_t *p,
    size_t n)
{
	size_t	at = 2, len;

	for (; at + 3 < n; at += 3 + len) {
		len = be16(p + at + 1);
		if (at + 3 + len > n)
			return false;
		if (p[at] == 0)
			return len > 0 &&
			    name_matches(names, false, p + at + 3, len);
	}
	return false;
}

/* An ALPN extension's body: the first name on the list decides yes. */
static bool
alpn_matches(const struct probe_sslh_names *names, const uint8_t *p,
    size_t n)
{
	size_t	at = 2, len;

	for (; at + 1 < n; at += 1 + len) {
		len = p[at];
		if (at + 1 + len > n)
			return false;
		if (len > 0 && name_matches(names, true, p + at + 1, len))
			return true;
	}
	return false;
}

/*
 * The extensions block, for a route with names: each extension must fit
 * and the last end the block; a server_name or ALPN extension the route
 * wants must match (a second one of a type must match too).
 */
static enum probe_verdict
extensions(const struct probe_sslh_names *names, const uint8_t *p, size_t n)
{
	size_t	at, len, type;
	bool	sni = false, alpn = false;

	for (at = 0; at + 4 <= n; at += 4 + len) {
		type = be16(p + at);
		len = be16(p + at + 2);
		if (at + 4 + len > n)
			return PROBE_NO;
		if (type == TLS_EXT_SNI && names->sni) {
			if (!sni_matches(names, p + at + 4, len))
				return PROBE_NO;
			sni = true;
		} else if (type == TLS_EXT_ALPN && names->alpn) {
			if (!alpn_matches(names, p + at + 4, len))
				return PROBE_NO;
			alpn = true;
		}
	}
	if (at != n || (names->sni && !sni) || (names->alpn && !alpn))
		return PROBE_NO;
	return PROBE_MATCH;
}

/*
 * A vector at *at of a length field of w bytes, within end: stepped
 * over (it may end past end: the next field's check says no).
 */
static bool
skip_vector(const uint8_t *buf, size_t end, size_t *at, size_t w)
{
	if (*at + w > end)
		return false;
	*at += w + (w == 1 ? buf[*at] : be16(buf + *at));
	return true;
}

enum probe_verdict
probe_sslh_tls(const uint8_t *buf, size_t len,
    const struct probe_sslh_names *names)
{
	size_t	end, at = TLS_HEADER + TLS_FIXED, n;

	if (len < TLS_HEADER)
		return PROBE_AGAIN;
	/* The major version as a signed char: 0x80 and up is under 3. */
	if (buf[0] != TLS_HANDSHAKE || buf[1] < 3 || buf[1] >= 0x80)
		return PROBE_NO;
	end = TLS_HEADER + be16(buf + 3);
	if (len < end)
		return PROBE_AGAIN;
	if (end == TLS_HEADER || buf[TLS_HEADER] != TLS_HELLO ||
	    !skip_vector(buf, end, &at, 1) || !skip_vector(buf, end, &at, 2) ||
	    !skip_vector(buf, end, &at, 1))
		return PROBE_NO;
	/* An SSL 3.0 hello without extensions. */
	if (at == end && buf[1] == 3 && buf[2] == 0)
		return PROBE_NO;
	if (at + 2 > end || at + 2 + (n = be16(buf + at)) > end)
		return PROBE_NO;
	if (names == NULL || (!names->sni && !names->alpn))
		return PROBE_MATCH;
	return extensions(names, buf + at + 2, n);
}
