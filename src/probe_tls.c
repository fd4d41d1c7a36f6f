/*
 * probe_tls.c - read a TLS ClientHello from a client's first bytes: the
 * server name (SNI) and the protocols offered (ALPN), without holding a
 * key.  Two layers, each resumable:
 *
 *  - the record layer: every record header (type 22, version 3.1 to 3.4,
 *    a length of 1 to 2^14) is checked once, and its body copied once
 *    into st->hello, so that a handshake split over several records and
 *    reads looks whole to the layer above (nginx does the same; HAProxy
 *    and sslh misroute a hello split over two records);
 *  - the handshake: its type and length are checked as soon as their
 *    four bytes are in, the body is parsed once, when it is complete.
 *
 * Each call looks only at the bytes it has not seen (st->pos on): feeding
 * the hello one byte at a time costs what feeding it whole does.  Every
 * length is checked against what is left before it is used.
 *
 * An SSLv2-compatible hello (first byte with the high bit set) is not a
 * handshake record: PROBE_NO.  No client in use sends one any more, and
 * it carries no SNI to route by.
 */
#include "ferryd.h"

#include <string.h>

#include "probe.h"

enum {
	TLS_RECORD = 0,		/* reading a record header */
	TLS_BODY,		/* copying a record's body */
	TLS_MATCH,		/* done: results set */
	TLS_NO			/* done: not a ClientHello */
};

#define TLS_CONTENT_HANDSHAKE	22
#define TLS_HANDSHAKE_HELLO	1
#define TLS_RECORD_MAX		16384	/* plaintext, RFC 8446 5.1 */
#define TLS_EXT_SERVER_NAME	0
#define TLS_EXT_ALPN		16
#define TLS_SNI_HOST_NAME	0

/* A bounded reader over the hello: nothing is read past left. */
struct cursor {
	const uint8_t	*p;
	size_t		 left;
};

static bool
take(struct cursor *c, size_t n, struct cursor *part)
{
	if (n > c->left)
		return false;
	if (part != NULL) {
		part->p = c->p;
		part->left = n;
	}
	c->p += n;
	c->left -= n;
	return true;
}

static bool
take_u8(struct cursor *c, size_t *v)
{
	if (c->left < 1)
		return false;
	*v = c->p[0];
	return take(c, 1, NULL);
}

static bool
take_u16(struct cursor *c, size_t *v)
{
	if (c->left < 2)
		return false;
	*v = (size_t)c->p[0] << 8 | c->p[1];
	return take(c, 2, NULL);
}

/* A vector with a length of 1 or 2 bytes in front: its bytes in part. */
static bool
take_vec(struct cursor *c, int lenbytes, struct cursor *part)
{
	size_t	n;

	if (!(lenbytes == 1 ? take_u8(c, &n) : take_u16(c, &n)))
		return false;
	return take(c, n, part);
}

/* The handshake message's length, once its header is in. */
static size_t
tls_msg_len(const struct probe_tls *st)
{
	return (size_t)st->hello[1] << 16 | (size_t)st->hello[2] << 8 |
	    st->hello[3];
}

/* Bytes of the handshake still missing (of its header, if not yet in). */
static size_t
tls_missing(const struct probe_tls *st)
{
	if (st->hello_len < 4)
		return 4 - st->hello_len;
	return 4 + tls_msg_len(st) - st->hello_len;
}

/*
 * Whether the rest of the hello can still end within PROBE_PEEK_MAX bytes
 * of the stream: its missing bytes, and one more record header if they
 * overflow the current record.  A lower bound until the message's length
 * is known, exact once the last record header is read.
 */
static bool
tls_fits(const struct probe_tls *st)
{
	size_t	missing = tls_missing(st);

	return st->pos + missing + (missing > st->need ? 5 : 0) <=
	    PROBE_PEEK_MAX;
}

/*
 * A server name: 1 to 255 bytes, no NUL, control character or space
 * (none is in a host name, and they would mangle a log line); ASCII
 * lower-cased, other bytes (IDNA names are A-labels) kept as sent.
 */
static bool
tls_sni_name(struct probe_tls *st, const struct cursor *name)
{
	size_t	i;
	uint8_t	ch;

	if (name->left == 0 || name->left > PROBE_NAME_MAX)
		return false;
	for (i = 0; i < name->left; i++) {
		ch = name->p[i];
		if (ch <= 0x20 || ch == 0x7f)
			return false;
		st->sni[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
	}
	st->sni[i] = '\0';
	st->has_sni = true;
	return true;
}

/*
 * server_name (RFC 6066 3): a non-empty list of (type, name); one
 * host_name at most, a second would let two readers route one hello
 * to two places.  Other name types are skipped.
 */
static bool
tls_sni(struct probe_tls *st, struct cursor ext)
{
	struct cursor	list, name;
	size_t		type;

	if (!take_vec(&ext, 2, &list) || ext.left != 0 || list.left == 0)
		return false;
	while (list.left > 0) {
		if (!take_u8(&list, &type) || !take_vec(&list, 2, &name))
			return false;
		if (type != TLS_SNI_HOST_NAME)
			continue;
		if (st->has_sni || !tls_sni_name(st, &name))
			return false;
	}
	return true;
}

/*
 * ALPN (RFC 7301 3.1): a non-empty list of non-empty names.  A name
 * too long for alpn[], past the first PROBE_ALPN_MAX, or holding a NUL
 * (it would compare equal to its prefix) is not kept.
 */
static bool
tls_alpn(struct probe_tls *st, struct cursor ext)
{
	struct cursor	list, name;

	if (!take_vec(&ext, 2, &list) || ext.left != 0 || list.left == 0)
		return false;
	while (list.left > 0) {
		if (!take_vec(&list, 1, &name) || name.left == 0)
			return false;
		if (st->nalpn >= PROBE_ALPN_MAX ||
		    name.left >= PROBE_ALPN_LEN ||
		    memchr(name.p, '\0', name.left) != NULL)
			continue;
		memcpy(st->alpn[st->nalpn], name.p, name.left);
		st->alpn[st->nalpn][name.left] = '\0';
		st->nalpn++;
	}
	return true;
}

/*
 * The extensions block: it must fill the rest of the hello exactly, each
 * extension must fit in it, and server_name or ALPN may come once only
 * (RFC 8446 4.2: no two extensions of one type).
 */
static bool
tls_extensions(struct probe_tls *st, struct cursor c)
{
	struct cursor	exts, ext;
	size_t		type;
	bool		seen_sni = false, seen_alpn = false;

	if (!take_vec(&c, 2, &exts) || c.left != 0)
		return false;
	while (exts.left > 0) {
		if (!take_u16(&exts, &type) || !take_vec(&exts, 2, &ext))
			return false;
		if (type == TLS_EXT_SERVER_NAME) {
			if (seen_sni || !tls_sni(st, ext))
				return false;
			seen_sni = true;
		} else if (type == TLS_EXT_ALPN) {
			if (seen_alpn || !tls_alpn(st, ext))
				return false;
			seen_alpn = true;
		}
	}
	return true;
}

/*
 * The ClientHello's body (RFC 8446 4.1.2, RFC 5246 7.4.1.2): version
 * 3.x, random, session id (32 bytes at most), cipher suites (pairs, at
 * least one), compression methods (at least one), then extensions, which
 * a TLS 1.0 to 1.2 hello may leave out.
 */
static enum probe_verdict
tls_hello(struct probe_tls *st)
{
	struct cursor	c = { st->hello + 4, tls_msg_len(st) };
	struct cursor	part;
	size_t		major, minor;

	st->has_sni = false;
	st->sni[0] = '\0';
	st->nalpn = 0;
	if (!take_u8(&c, &major) || !take_u8(&c, &minor) || major != 3 ||
	    !take(&c, 32, NULL) ||
	    !take_vec(&c, 1, &part) || part.left > 32 ||
	    !take_vec(&c, 2, &part) || part.left < 2 || part.left % 2 != 0 ||
	    !take_vec(&c, 1, &part) || part.left < 1)
		return PROBE_NO;
	if (c.left > 0 && !tls_extensions(st, c))
		return PROBE_NO;
	return PROBE_MATCH;
}

/*
 * A record header: its first three bytes are judged as they come, so
 * that a client that is not speaking TLS is told apart at its first
 * byte; the length once all five are in.
 */
static enum probe_verdict
tls_record(struct probe_tls *st, const uint8_t *buf, size_t len)
{
	const uint8_t	*h = buf + st->pos;
	size_t		 have = len - st->pos;

	if ((have >= 1 && h[0] != TLS_CONTENT_HANDSHAKE) ||
	    (have >= 2 && h[1] != 3) ||
	    (have >= 3 && (h[2] < 1 || h[2] > 4)))
		return PROBE_NO;
	if (have < 5)
		return PROBE_AGAIN;
	st->need = (uint32_t)h[3] << 8 | h[4];
	if (st->need == 0 || st->need > TLS_RECORD_MAX)
		return PROBE_NO;
	st->pos += 5;
	st->stage = TLS_BODY;
	return tls_fits(st) ? PROBE_AGAIN : PROBE_NO;
}

/*
 * Copy what is there of the record's body, up to the end of the hello;
 * judge the handshake's header as soon as it is in.
 */
static enum probe_verdict
tls_body(struct probe_tls *st, const uint8_t *buf, size_t len)
{
	size_t	n = len - st->pos, had = st->hello_len;

	if (n > st->need)
		n = st->need;
	if (n > tls_missing(st))
		n = tls_missing(st);
	memcpy(st->hello + st->hello_len, buf + st->pos, n);
	st->hello_len += n;
	st->pos += n;
	st->need -= (uint32_t)n;
	if (had < 1 && st->hello_len >= 1 &&
	    st->hello[0] != TLS_HANDSHAKE_HELLO)
		return PROBE_NO;
	if (had < 4 && st->hello_len >= 4 && (4 + tls_msg_len(st) >
	    sizeof(st->hello) || !tls_fits(st)))
		return PROBE_NO;
	if (st->hello_len >= 4 && tls_missing(st) == 0)
		return tls_hello(st);
	if (st->need == 0)
		st->stage = TLS_RECORD;
	return PROBE_AGAIN;
}

enum probe_verdict
probe_tls(struct probe_tls *st, const uint8_t *buf, size_t len)
{
	enum probe_verdict	v = PROBE_AGAIN;
	size_t			before;

	if (st->stage == TLS_MATCH)
		return PROBE_MATCH;
	if (st->stage == TLS_NO || len < st->pos) {
		st->stage = TLS_NO;
		return PROBE_NO;
	}
	/* Each turn consumes bytes or ends; none is looked at twice. */
	do {
		before = st->pos;
		if (st->stage == TLS_RECORD)
			v = tls_record(st, buf, len);
		else
			v = tls_body(st, buf, len);
	} while (v == PROBE_AGAIN && st->pos > before);
	if (v != PROBE_AGAIN)
		st->stage = v == PROBE_MATCH ? TLS_MATCH : TLS_NO;
	return v;
}
