/*
 * probe_http.c - read an HTTP/1.x request's head from a client's first
 * bytes: a known method, a well-formed request line, and the host the
 * request names (its Host header, or its absolute-form target), once the
 * blank line ends the headers.
 *
 * The method is judged byte by byte, so that a client speaking anything
 * else is told apart at its first byte that no method has.  Then the
 * head is read line by line: st->pos is how far the bytes were searched
 * for an end of line, st->line where the unfinished line starts, so no
 * byte is looked at twice however the client splits its writes.
 *
 * Strict where a lenient reader would let two readers disagree (RFC 9112
 * calls these request smuggling): two Host headers, whitespace before a
 * header's colon, a line folded onto the one before, a CR alone, a NUL
 * or another control character in the head are PROBE_NO, not guesses.
 */
#include "ferryd.h"

#include <stddef.h>
#include <string.h>

#include "probe.h"

enum {
	HTTP_REQUEST = 0,	/* the request line */
	HTTP_HEADERS,		/* header lines, up to the blank one */
	HTTP_MATCH,
	HTTP_NO
};

/* Methods with the space after them: a prefix of none is no request. */
static const char *const http_methods[] = {
	"GET ", "HEAD ", "POST ", "PUT ", "DELETE ", "OPTIONS ", "CONNECT ",
	"TRACE ", "PATCH ", "PRI "
};

/* The HTTP/2 connection preface (RFC 9113 3.4): h2c, prior knowledge. */
static const char http2_preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

static bool
http_method_prefix(const uint8_t *p, size_t n)
{
	size_t	i, m;

	for (i = 0; i < sizeof(http_methods) / sizeof(http_methods[0]); i++) {
		m = strlen(http_methods[i]);
		if (memcmp(p, http_methods[i], n < m ? n : m) == 0)
			return true;
	}
	return false;
}

static uint8_t
lower(uint8_t ch)
{
	return ch >= 'A' && ch <= 'Z' ? (uint8_t)(ch + 32) : ch;
}

/* Whether p[0..n) is s, ASCII case aside. */
static bool
same_word(const uint8_t *p, size_t n, const char *s)
{
	size_t	i;

	if (strlen(s) != n)
		return false;
	for (i = 0; i < n; i++)
		if (lower(p[i]) != (uint8_t)s[i])
			return false;
	return true;
}

/* Whether ch is one of chars (and no NUL, which strchr would find). */
static bool
one_of(uint8_t ch, const char *chars)
{
	return ch != '\0' && strchr(chars, ch) != NULL;
}

/* A header name's characters (RFC 9110 5.6.2, tchar). */
static bool
is_tchar(uint8_t ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	    (ch >= 'A' && ch <= 'Z') ||
	    one_of(ch, "!#$%&'*+-.^_`|~");
}

/* A reg-name's or IPv4 address's characters (RFC 3986 3.2.2). */
static bool
is_regname(uint8_t ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	    (ch >= 'A' && ch <= 'Z') || one_of(ch, "-._~!$&'()*+,;=%");
}

/* The length of "[v6]" at p, brackets included; 0 if it is none. */
static size_t
ipv6_literal(const uint8_t *p, size_t n)
{
	size_t	i;

	for (i = 1; i < n && p[i] != ']'; i++)
		if (!one_of(p[i], "0123456789abcdefABCDEF:."))
			return 0;
	return i < n && i >= 3 ? i + 1 : 0;
}

/*
 * The host of "host", "host:port", "[v6]" or "[v6]:port", with a port of
 * digits only, lower-cased into st->host.
 */
static bool
http_host(struct probe_http *st, const uint8_t *p, size_t n)
{
	size_t	hlen, i;

	if (n > 0 && p[0] == '[') {
		if ((hlen = ipv6_literal(p, n)) == 0)
			return false;
	} else
		for (hlen = 0; hlen < n && p[hlen] != ':'; hlen++)
			if (!is_regname(p[hlen]))
				return false;
	if (hlen < n && p[hlen] != ':')
		return false;
	for (i = hlen + 1; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	if (hlen == 0 || hlen > PROBE_NAME_MAX)
		return false;
	for (i = 0; i < hlen; i++)
		st->host[i] = (char)lower(p[i]);
	st->host[hlen] = '\0';
	st->has_host = true;
	return true;
}

/*
 * The host of an absolute-form target ("http://host:port/path"), which
 * the origin server uses instead of the Host header; none in other forms.
 * Userinfo ("http://a@b/") is refused: readers disagree on which side of
 * the '@' the host is.
 */
static bool
http_target_host(struct probe_http *st, const uint8_t *t, size_t n)
{
	size_t	skip, end;

	if (n >= 7 && same_word(t, 7, "http://"))
		skip = 7;
	else if (n >= 8 && same_word(t, 8, "https://"))
		skip = 8;
	else
		return true;
	for (end = skip; end < n && !one_of(t[end], "/?#"); end++)
		if (t[end] == '@')
			return false;
	return http_host(st, t + skip, end - skip);
}

/*
 * "METHOD SP target SP HTTP/1.x": a target without spaces or control
 * characters (the line holds none: http_line checked), a version 1.x.
 */
static enum probe_verdict
http_request_line(struct probe_http *st, const uint8_t *p, size_t n)
{
	const uint8_t	*sp1, *sp2;

	if ((sp1 = memchr(p, ' ', n)) == NULL ||
	    (sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - p))) == NULL ||
	    sp2 == sp1 + 1)
		return PROBE_NO;
	if ((size_t)(p + n - (sp2 + 1)) != 8 ||
	    memcmp(sp2 + 1, "HTTP/1.", 7) != 0 || sp2[8] < '0' ||
	    sp2[8] > '9')
		return PROBE_NO;
	if (!http_target_host(st, sp1 + 1, (size_t)(sp2 - sp1 - 1)))
		return PROBE_NO;
	st->stage = HTTP_HEADERS;
	return PROBE_AGAIN;
}

/*
 * A header line "name: value"; Host is kept, once, unless the target
 * named the host already.  The blank line ends the head: a match.
 */
static enum probe_verdict
http_header_line(struct probe_http *st, const uint8_t *p, size_t n)
{
	const uint8_t	*colon, *end = p + n;
	size_t		 i, vlen;

	if (n == 0)
		return PROBE_MATCH;
	if ((colon = memchr(p, ':', n)) == NULL || colon == p)
		return PROBE_NO;
	for (i = 0; p + i < colon; i++)
		if (!is_tchar(p[i]))
			return PROBE_NO;	/* obs-fold, space before ':' */
	if (!same_word(p, (size_t)(colon - p), "host"))
		return PROBE_AGAIN;
	if (st->host_seen)
		return PROBE_NO;
	st->host_seen = true;
	p = colon + 1;
	vlen = (size_t)(end - p);
	while (vlen > 0 && (p[0] == ' ' || p[0] == '\t')) {
		p++;
		vlen--;
	}
	while (vlen > 0 && (p[vlen - 1] == ' ' || p[vlen - 1] == '\t'))
		vlen--;
	if (vlen == 0 || st->has_host)
		return PROBE_AGAIN;	/* empty, or the target's host wins */
	return http_host(st, p, vlen) ? PROBE_AGAIN : PROBE_NO;
}

/*
 * A whole line without its LF (and CR): no control character but HT,
 * no CR but the last; then the request line or a header.
 */
static enum probe_verdict
http_line(struct probe_http *st, const uint8_t *p, size_t n)
{
	size_t	i;

	if (n > 0 && p[n - 1] == '\r')
		n--;
	for (i = 0; i < n; i++)
		if ((p[i] < 0x20 && p[i] != '\t') || p[i] == 0x7f)
			return PROBE_NO;
	if (st->stage == HTTP_REQUEST)
		return http_request_line(st, p, n);
	return http_header_line(st, p, n);
}

/* The HTTP/2 preface, whole or the part of it there is. */
static enum probe_verdict
http2_start(const uint8_t *buf, size_t len)
{
	size_t	whole = sizeof(http2_preface) - 1;

	if (memcmp(buf, http2_preface, len < whole ? len : whole) != 0)
		return PROBE_NO;
	return len >= whole ? PROBE_MATCH : PROBE_AGAIN;
}

static enum probe_verdict
http_scan(struct probe_http *st, const uint8_t *buf, size_t len)
{
	enum probe_verdict	 v = PROBE_AGAIN;
	const uint8_t		*lf;

	if (st->stage == HTTP_REQUEST) {
		if (len >= 4 && memcmp(buf, "PRI ", 4) == 0)
			return http2_start(buf, len);
		if (!http_method_prefix(buf, len < 8 ? len : 8))
			return PROBE_NO;
	}
	while (v == PROBE_AGAIN && st->pos < len) {
		lf = memchr(buf + st->pos, '\n', len - st->pos);
		if (lf == NULL) {
			st->pos = len;
			break;
		}
		st->pos = (size_t)(lf - buf) + 1;
		v = http_line(st, buf + st->line, (size_t)(lf - buf) -
		    st->line);
		st->line = st->pos;
	}
	if (v == PROBE_AGAIN && len >= PROBE_PEEK_MAX) {
		/* The head does not fit: a request, but no host to trust. */
		if (st->stage != HTTP_HEADERS)
			return PROBE_NO;
		st->has_host = false;
		return PROBE_MATCH;
	}
	return v;
}

void
probe_http_start(struct probe_http *st)
{
	/* Everything before host: the state, host_seen and has_host. */
	memset(st, 0, offsetof(struct probe_http, host));
}

enum probe_verdict
probe_http(struct probe_http *st, const uint8_t *buf, size_t len)
{
	enum probe_verdict	v;

	if (st->stage == HTTP_MATCH)
		return PROBE_MATCH;
	if (st->stage == HTTP_NO || len < st->pos) {
		st->stage = HTTP_NO;
		return PROBE_NO;
	}
	v = http_scan(st, buf, len);
	if (v == PROBE_MATCH && !st->has_host)
		st->host[0] = '\0';
	if (v != PROBE_AGAIN)
		st->stage = v == PROBE_MATCH ? HTTP_MATCH : HTTP_NO;
	return v;
}
