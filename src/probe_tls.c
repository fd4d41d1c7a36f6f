/*
 * probe_tls.c - read a TLS ClientHello from a client's first bytes: the
 * server name (SNI) and the protocols offered (ALPN), without holding a
 * key.  One pass over the stream, each byte looked at once, nothing of
 * the hello kept but the results:
 *
 *  - the record layer: every record header (type 22, version 3.1 to 3.4,
 *    a length of 1 to 2^14) is judged byte by byte as it comes, so that
 *    a client not speaking TLS is told apart at its first byte; a
 *    record's body is handed on to the handshake as it comes, so that a
 *    hello split over several records and reads reads as whole (nginx
 *    does the same; HAProxy and sslh misroute a hello split over two
 *    records);
 *  - the handshake: its type and length are judged as soon as their
 *    four bytes are in, then its body is parsed as it passes, by a small
 *    state machine (st->field) with counters of the bytes left in the
 *    hello, the current extension and the current vector or name, in
 *    the manner of nginx's ngx_stream_ssl_preread_module.  Integers split
 *    over reads or records are gathered in st->acc; runs (a vector
 *    skipped, a name copied) are taken as far as the bytes at hand go.
 *
 * Before it parsed as it went, the probe copied the handshake (up to
 * 16 KiB) into its state and parsed it once whole; what it answers is
 * unchanged, on every input and however it is split: a hello malformed
 * inside is PROBE_NO when its last byte is in (the flaw is noted, the
 * rest counted through unparsed), the record layer's faults and the
 * size limit at once.  Every length is checked against what is left of
 * the part holding it before it is used.
 *
 * An SSLv2-compatible hello (first byte with the high bit set) is not a
 * handshake record: PROBE_NO.  No client in use sends one any more, and
 * it carries no SNI to route by.
 */
#include "ferryd.h"

#include <stddef.h>
#include <string.h>

#include "bug.h"
#include "probe.h"

/* st->stage: the record layer. */
enum {
	TLS_RECORD = 0,		/* reading a record header */
	TLS_BODY,		/* passing a record's body on */
	TLS_MATCH,		/* done: results set */
	TLS_NO			/* done: not a ClientHello */
};

/*
 * st->field: where in the hello's body.  An integer field (width 1 or 2)
 * is gathered in st->acc; a run is st->run bytes skipped or copied.  The
 * fields from F_LIST_LEN on are inside a server_name or ALPN extension
 * (st->ext bytes left of it).
 */
enum {
	F_VERSION = 0,		/* 2: major (3), minor */
	F_RANDOM,		/* run of 32 */
	F_SID_LEN,		/* 1: session id, 32 at most */
	F_SID,			/* run */
	F_SUITES_LEN,		/* 2: cipher suites, pairs, at least one */
	F_SUITES,		/* run */
	F_COMP_LEN,		/* 1: compression methods, at least one */
	F_COMP,			/* run */
	F_EXTS_LEN,		/* 2: the rest of the hello, if any */
	F_EXT_TYPE,		/* 2 */
	F_EXT_LEN,		/* 2 */
	F_EXT_SKIP,		/* run: an extension not read */
	F_LIST_LEN,		/* 2: the rest of the extension */
	F_SNI_TYPE,		/* 1 */
	F_SNI_LEN,		/* 2 */
	F_SNI_NAME,		/* run: a host_name, checked and copied */
	F_SNI_SKIP,		/* run: a name of another type */
	F_ALPN_LEN,		/* 1 */
	F_ALPN_NAME,		/* run: copied if kept */
	F_NFIELDS
};

/* Each field's width: 1 or 2 for an integer, 0 for a run. */
static const uint8_t field_width[F_NFIELDS] = {
	[F_VERSION] = 2, [F_SID_LEN] = 1, [F_SUITES_LEN] = 2,
	[F_COMP_LEN] = 1, [F_EXTS_LEN] = 2, [F_EXT_TYPE] = 2,
	[F_EXT_LEN] = 2, [F_LIST_LEN] = 2, [F_SNI_TYPE] = 1,
	[F_SNI_LEN] = 2, [F_ALPN_LEN] = 1
};

#define TLS_CONTENT_HANDSHAKE	22
#define TLS_HANDSHAKE_HELLO	1
#define TLS_RECORD_MAX		16384	/* plaintext, RFC 8446 5.1 */
#define TLS_EXT_SERVER_NAME	0
#define TLS_EXT_ALPN		16
#define TLS_SNI_HOST_NAME	0

/* Bytes of the handshake still missing (of its header, if not yet in). */
static size_t
tls_missing(const struct probe_tls *st)
{
	if (st->hello_len < 4)
		return 4 - st->hello_len;
	return 4 + (size_t)st->msg_len - st->hello_len;
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

static bool
in_extension(const struct probe_tls *st)
{
	return st->field >= F_LIST_LEN;
}

/* Bytes left of the innermost part being read: extension, or hello. */
static size_t
scope_left(const struct probe_tls *st)
{
	return in_extension(st) ? st->ext : tls_missing(st);
}

static void	run_done(struct probe_tls *);

/*
 * Go on to field f; a run of n bytes when f is one.  A run longer than
 * what holds it is a flaw; an empty one is done at once.
 */
static void
next(struct probe_tls *st, uint8_t f, size_t n)
{
	st->field = f;
	st->got = 0;
	if (field_width[f] != 0 || st->bad)
		return;
	if (n > scope_left(st)) {
		st->bad = true;
		return;
	}
	st->run = (uint16_t)n;
	st->name_len = (uint16_t)n;
	if (n == 0)
		run_done(st);
}

/* After an entry of a server_name or ALPN list: the next, or the end. */
static void
next_entry(struct probe_tls *st, uint8_t f)
{
	next(st, st->ext == 0 ? F_EXT_TYPE : f, 0);
}

static void
run_done(struct probe_tls *st)
{
	switch (st->field) {
	case F_RANDOM:
		next(st, F_SID_LEN, 0);
		break;
	case F_SID:
		next(st, F_SUITES_LEN, 0);
		break;
	case F_SUITES:
		next(st, F_COMP_LEN, 0);
		break;
	case F_COMP:
		next(st, F_EXTS_LEN, 0);
		break;
	case F_EXT_SKIP:
		next(st, F_EXT_TYPE, 0);
		break;
	case F_SNI_NAME:
		st->sni[st->name_len] = '\0';
		st->has_sni = true;
		next_entry(st, F_SNI_TYPE);
		break;
	case F_SNI_SKIP:
		next_entry(st, F_SNI_TYPE);
		break;
	case F_ALPN_NAME:
		if (st->keep) {
			st->alpn[st->nalpn][st->name_len] = '\0';
			st->nalpn++;
		}
		next_entry(st, F_ALPN_LEN);
		break;
	}
}

/*
 * An extension's header is in: server_name and ALPN are read, once each
 * (RFC 8446 4.2: no two extensions of one type); others are skipped.
 */
static void
extension(struct probe_tls *st, size_t len)
{
	bool	*seen = st->ext_type == TLS_EXT_SERVER_NAME ? &st->seen_sni :
	    st->ext_type == TLS_EXT_ALPN ? &st->seen_alpn : NULL;

	if (seen == NULL) {
		next(st, F_EXT_SKIP, len);
		return;
	}
	if (len > tls_missing(st) || *seen) {
		st->bad = true;
		return;
	}
	*seen = true;
	st->ext = (uint16_t)len;
	next(st, F_LIST_LEN, 0);
}

/*
 * Integer field st->field is in (st->acc).  server_name (RFC 6066 3):
 * a non-empty list of (type, name), one host_name at most (a second
 * would let two readers route one hello to two places) of 1 to 255
 * bytes; other name types are skipped.  ALPN (RFC 7301 3.1): a
 * non-empty list of non-empty names; one too long for alpn[] or past
 * the first PROBE_ALPN_MAX is not kept.
 */
static void
field_done(struct probe_tls *st)
{
	size_t	v = st->acc;

	switch (st->field) {
	case F_VERSION:
		if (v >> 8 != 3)
			st->bad = true;
		next(st, F_RANDOM, 32);
		break;
	case F_SID_LEN:
		if (v > 32)
			st->bad = true;
		next(st, F_SID, v);
		break;
	case F_SUITES_LEN:
		if (v < 2 || v % 2 != 0)
			st->bad = true;
		next(st, F_SUITES, v);
		break;
	case F_COMP_LEN:
		if (v < 1)
			st->bad = true;
		next(st, F_COMP, v);
		break;
	case F_EXTS_LEN:
		/* The extensions fill the rest of the hello exactly. */
		if (v != tls_missing(st))
			st->bad = true;
		next(st, F_EXT_TYPE, 0);
		break;
	case F_EXT_TYPE:
		st->ext_type = (uint16_t)v;
		next(st, F_EXT_LEN, 0);
		break;
	case F_EXT_LEN:
		extension(st, v);
		break;
	case F_LIST_LEN:
		/* The list fills the rest of the extension exactly. */
		if (v == 0 || v != st->ext)
			st->bad = true;
		next(st, st->ext_type == TLS_EXT_SERVER_NAME ? F_SNI_TYPE :
		    F_ALPN_LEN, 0);
		break;
	case F_SNI_TYPE:
		st->host_name = v == TLS_SNI_HOST_NAME;
		next(st, F_SNI_LEN, 0);
		break;
	case F_SNI_LEN:
		if (st->host_name && (st->has_sni || v == 0 ||
		    v > PROBE_NAME_MAX))
			st->bad = true;
		next(st, st->host_name ? F_SNI_NAME : F_SNI_SKIP, v);
		break;
	case F_ALPN_LEN:
		if (v == 0)
			st->bad = true;
		st->keep = st->nalpn < PROBE_ALPN_MAX && v < PROBE_ALPN_LEN;
		next(st, F_ALPN_NAME, v);
		break;
	}
}

/* Take n bytes of the hello's body off what is left of each part. */
static void
consumed(struct probe_tls *st, size_t n)
{
	/* never past the part that holds it */
	BUG_ON(n > scope_left(st) || (field_width[st->field] == 0 &&
	    n > st->run));
	st->hello_len += (uint32_t)n;
	if (in_extension(st))
		st->ext -= (uint16_t)n;
	if (field_width[st->field] == 0)
		st->run -= (uint16_t)n;
}

/*
 * The bytes of a run at p[0..n): a host_name's are checked (no NUL,
 * control character or space: none is in a host name, and they would
 * mangle a log line) and copied ASCII lower-cased, other bytes (IDNA
 * names are A-labels) as sent; an ALPN name's copied if kept, and not
 * kept if it holds a NUL (it would compare equal to its prefix).
 */
static void
run_bytes(struct probe_tls *st, const uint8_t *p, size_t n)
{
	size_t	at = (size_t)st->name_len - st->run, i;
	uint8_t	ch;

	if (st->field == F_SNI_NAME) {
		BUG_ON(at + n > PROBE_NAME_MAX);	/* F_SNI_LEN's bound */
		for (i = 0; i < n; i++) {
			ch = p[i];
			if (ch <= 0x20 || ch == 0x7f) {
				st->bad = true;
				return;
			}
			st->sni[at + i] = (char)(ch >= 'A' && ch <= 'Z' ?
			    ch + 32 : ch);
		}
	} else if (st->field == F_ALPN_NAME && st->keep) {
		BUG_ON(st->nalpn >= PROBE_ALPN_MAX ||
		    at + n >= PROBE_ALPN_LEN);	/* F_ALPN_LEN's keep */
		if (memchr(p, '\0', n) != NULL)
			st->keep = false;
		else
			memcpy(st->alpn[st->nalpn] + at, p, n);
	}
}

/*
 * The next n bytes of the hello's body, p[0..n) (n no more than is
 * missing of it).  After a flaw they are only counted.
 */
static void
hello_bytes(struct probe_tls *st, const uint8_t *p, size_t n)
{
	size_t	k, w;

	while (n > 0) {
		if (st->bad) {
			st->hello_len += (uint32_t)n;
			return;
		}
		if (field_width[st->field] == 0) {
			k = n < st->run ? n : st->run;
			run_bytes(st, p, k);
			consumed(st, k);
			if (st->run == 0 && !st->bad)
				run_done(st);
		} else {
			w = field_width[st->field];
			/* An integer that would overflow its part is a flaw. */
			if (st->got == 0 && scope_left(st) < w) {
				st->bad = true;
				continue;
			}
			/* Whole when it is at hand, else a byte at a time. */
			k = st->got == 0 && n >= w ? w : 1;
			st->acc = (uint16_t)(k == 2 ? p[0] << 8 | p[1] :
			    st->got == 0 ? p[0] : st->acc << 8 | p[0]);
			st->got = (uint8_t)(st->got + k);
			consumed(st, k);
			if (st->got == w)
				field_done(st);
		}
		p += k;
		n -= k;
	}
}

/*
 * The whole hello is in: a match if nothing was amiss and it ended
 * between fields where it may: after the compression methods (a TLS 1.0
 * to 1.2 hello may have no extensions) or between extensions.
 */
static enum probe_verdict
tls_hello_end(const struct probe_tls *st)
{
	if (st->bad || st->got != 0 ||
	    (st->field != F_EXTS_LEN && st->field != F_EXT_TYPE))
		return PROBE_NO;
	return PROBE_MATCH;
}

/* A record header's byte i (of 5), judged as it comes. */
static enum probe_verdict
tls_record(struct probe_tls *st, uint8_t ch)
{
	switch (st->rec_got++) {
	case 0:
		return ch == TLS_CONTENT_HANDSHAKE ? PROBE_AGAIN : PROBE_NO;
	case 1:
		return ch == 3 ? PROBE_AGAIN : PROBE_NO;
	case 2:
		return ch >= 1 && ch <= 4 ? PROBE_AGAIN : PROBE_NO;
	case 3:
		st->need = ch;
		return PROBE_AGAIN;
	}
	st->need = st->need << 8 | ch;
	st->rec_got = 0;
	if (st->need == 0 || st->need > TLS_RECORD_MAX)
		return PROBE_NO;
	st->stage = TLS_BODY;
	return tls_fits(st) ? PROBE_AGAIN : PROBE_NO;
}

/*
 * A byte of the handshake's header: its type, then its length, judged
 * once in (with the record layer's counts as they are after it; a
 * message too long for a peek cannot fit, whatever its records).
 */
static enum probe_verdict
tls_header(struct probe_tls *st, uint8_t ch)
{
	if (st->hello_len++ == 0)
		return ch == TLS_HANDSHAKE_HELLO ? PROBE_AGAIN : PROBE_NO;
	st->msg_len = st->msg_len << 8 | ch;
	return st->hello_len < 4 || tls_fits(st) ? PROBE_AGAIN : PROBE_NO;
}

/*
 * What there is of the record's body, up to the end of the hello: the
 * handshake's header byte by byte, its body as a run.
 */
static enum probe_verdict
tls_body(struct probe_tls *st, const uint8_t *buf, size_t len)
{
	size_t			n = len - st->pos;
	enum probe_verdict	v;

	if (n > st->need)
		n = st->need;
	if (n > tls_missing(st))
		n = tls_missing(st);
	if (st->hello_len < 4) {
		if (n > 0) {
			st->pos++;
			st->need--;
			if ((v = tls_header(st, buf[st->pos - 1])) != PROBE_AGAIN)
				return v;
		}
	} else {
		hello_bytes(st, buf + st->pos, n);
		st->pos += n;
		st->need -= (uint32_t)n;
	}
	if (st->hello_len >= 4 && tls_missing(st) == 0)
		return tls_hello_end(st);
	if (st->need == 0)
		st->stage = TLS_RECORD;
	return PROBE_AGAIN;
}

void
probe_tls_start(struct probe_tls *st)
{
	/* Everything before sni: the state, and has_sni. */
	memset(st, 0, offsetof(struct probe_tls, sni));
	st->nalpn = 0;
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
		if (st->stage == TLS_RECORD) {
			if (st->pos < len)
				v = tls_record(st, buf[st->pos++]);
		} else
			v = tls_body(st, buf, len);
	} while (v == PROBE_AGAIN && st->pos > before);
	if (v != PROBE_AGAIN)
		st->stage = v == PROBE_MATCH ? TLS_MATCH : TLS_NO;
	return v;
}

/*
 * A whole handshake message without a record layer around it: QUIC
 * carries the ClientHello in CRYPTO frames (RFC 9001 4), not in records.
 * It is read as the body of one record, by the same parser; a message
 * longer than a record's body could be is refused as the peek refuses it.
 */
enum probe_verdict
probe_tls_hello(struct probe_tls *st, const uint8_t *msg, size_t len)
{
	memset(st, 0, sizeof(*st));
	if (len == 0 || len > TLS_RECORD_MAX)
		return PROBE_NO;
	st->stage = TLS_BODY;
	st->need = (uint32_t)len;
	return probe_tls(st, msg, len);
}
