/*
 * test_probe.c - unit tests of the first-bytes parsers (probe_*.c):
 * ClientHellos captured from openssl s_client and curl (tests/probe/),
 * fed whole, in every two-part split and one byte at a time, which must
 * all give the same answer; hellos built here to break every length
 * (the bug classes of sslh's, HAProxy's and nginx's readers); HTTP
 * requests with and without Host; SSH banners, OpenVPN, SOCKS5 and XMPP.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "testlib.h"

/* A seed file of tests/probe/ into buf (at most size bytes): its length. */
static size_t
read_seed(const char *name, uint8_t *buf, size_t size)
{
	const char	*srcdir = getenv("top_srcdir");
	char		 path[4096];
	FILE		*f;
	size_t		 n;

	snprintf(path, sizeof(path), "%s/tests/probe/%s",
	    srcdir != NULL ? srcdir : ".", name);
	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

/* ---- TLS ------------------------------------------------------------ */

static struct probe_tls	tls_a, tls_b;	/* 16 KiB each: not on the stack */

/*
 * Feed buf to the probe in pieces ending at cuts[0], cuts[1], ... then
 * len, as the peek stage does, stopping at the first final verdict.
 */
static enum probe_verdict
tls_feed(struct probe_tls *st, const uint8_t *buf, size_t len,
    const size_t *cuts, size_t ncuts)
{
	enum probe_verdict	v = PROBE_AGAIN;
	size_t			i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < ncuts && v == PROBE_AGAIN; i++)
		v = probe_tls(st, buf, cuts[i]);
	if (v == PROBE_AGAIN)
		v = probe_tls(st, buf, len);
	return v;
}

/* The ALPN names as "a,b,c". */
static const char *
tls_alpn_list(const struct probe_tls *st)
{
	static char	out[PROBE_ALPN_MAX * PROBE_ALPN_LEN];
	int		i;

	out[0] = '\0';
	for (i = 0; i < st->nalpn; i++) {
		if (i > 0)
			strcat(out, ",");
		strcat(out, st->alpn[i]);
	}
	return out;
}

static bool
tls_same(enum probe_verdict va, const struct probe_tls *a,
    enum probe_verdict vb, const struct probe_tls *b)
{
	if (va != vb)
		return false;
	if (va != PROBE_MATCH)
		return true;
	return a->has_sni == b->has_sni && strcmp(a->sni, b->sni) == 0 &&
	    a->nalpn == b->nalpn &&
	    memcmp(a->alpn, b->alpn, sizeof(a->alpn)) == 0;
}

/*
 * The verdict and results of buf whole must be want, sni (NULL: none)
 * and alpn; every two-part split and one byte at a time must agree.
 */
static void
check_tls(const char *desc, const uint8_t *buf, size_t len,
    enum probe_verdict want, const char *sni, const char *alpn)
{
	enum probe_verdict	 v, w;
	size_t			 k, bad = 0, *cuts;

	v = tls_feed(&tls_a, buf, len, NULL, 0);
	if (want == PROBE_MATCH)
		check(v == PROBE_MATCH && tls_a.has_sni == (sni != NULL) &&
		    strcmp(tls_a.sni, sni != NULL ? sni : "") == 0 &&
		    strcmp(tls_alpn_list(&tls_a), alpn) == 0,
		    "%s: match, sni %s (got %s), alpn %s (got %s)", desc,
		    sni != NULL ? sni : "none",
		    tls_a.has_sni ? tls_a.sni : "none", alpn,
		    tls_alpn_list(&tls_a));
	else
		check(v == want, "%s: verdict %d (got %d)", desc, want, v);
	for (k = 1; k < len; k++) {
		w = tls_feed(&tls_b, buf, len, &k, 1);
		bad += !tls_same(v, &tls_a, w, &tls_b);
	}
	check(bad == 0, "%s: the same in every two-part split (%zu differ)",
	    desc, bad);
	if ((cuts = malloc((len + 1) * sizeof(*cuts))) == NULL)
		abort();
	for (k = 0; k < len; k++)
		cuts[k] = k;
	w = tls_feed(&tls_b, buf, len, cuts, len);
	free(cuts);
	check(tls_same(v, &tls_a, w, &tls_b),
	    "%s: the same one byte at a time", desc);
}

/* Seeds captured from real clients: see tests/probe/README. */
static void
test_tls_seeds(void)
{
	static const struct {
		const char	*file, *sni, *alpn;
	} seeds[] = {
		{ "tls-openssl-sni-alpn.bin", "www.example.org", "h2,http/1.1" },
		{ "tls-openssl-nosni.bin", NULL, "" },
		{ "tls-openssl-tls12.bin", "legacy.example.net", "" },
		{ "tls-curl-h2.bin", "api.example.com", "h2,http/1.1" },
		{ "tls-curl-http11.bin", "shop.example.com", "http/1.1" },
	};
	static uint8_t	buf[PROBE_PEEK_MAX];
	size_t		i, n;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		n = read_seed(seeds[i].file, buf, sizeof(buf));
		check_tls(seeds[i].file, buf, n, PROBE_MATCH, seeds[i].sni,
		    seeds[i].alpn);
	}
}

/* ---- building ClientHellos ------------------------------------------ */

static size_t
put16(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return 2;
}

/* An extension: type, length, data. */
static size_t
ext(uint8_t *p, unsigned type, const void *data, size_t len)
{
	put16(p, type);
	put16(p + 2, len);
	memcpy(p + 4, data, len);
	return 4 + len;
}

/* server_name with one host_name. */
static size_t
ext_sni(uint8_t *p, const char *name, size_t len)
{
	uint8_t	body[600];

	put16(body, len + 3);
	body[2] = 0;
	put16(body + 3, len);
	memcpy(body + 5, name, len);
	return ext(p, 0, body, len + 5);
}

/* ALPN of a "\002h2\010http/1.1"-style list. */
static size_t
ext_alpn(uint8_t *p, const char *list, size_t len)
{
	uint8_t	body[600];

	put16(body, len);
	memcpy(body + 2, list, len);
	return ext(p, 16, body, len + 2);
}

/*
 * A ClientHello handshake message (type 1, 24-bit length) with an empty
 * session id, two cipher suites, null compression and the extensions
 * exts (none when exts is NULL).
 */
static size_t
hello_msg(uint8_t *out, const uint8_t *exts, size_t extlen)
{
	static const uint8_t	fixed[] = { 3, 3 };
	static const uint8_t	after_random[] = {
		0,			/* session id */
		0, 4, 0x13, 0x01, 0x00, 0xff,	/* cipher suites */
		1, 0			/* compression */
	};
	size_t			n = 4;

	out[0] = 1;
	memcpy(out + n, fixed, sizeof(fixed));
	n += sizeof(fixed);
	memset(out + n, 0xab, 32);
	n += 32;
	memcpy(out + n, after_random, sizeof(after_random));
	n += sizeof(after_random);
	if (exts != NULL) {
		n += put16(out + n, extlen);
		memcpy(out + n, exts, extlen);
		n += extlen;
	}
	out[1] = (uint8_t)((n - 4) >> 16);
	out[2] = (uint8_t)((n - 4) >> 8);
	out[3] = (uint8_t)(n - 4);
	return n;
}

/* msg in handshake records of at most recsize bytes each. */
static size_t
records(uint8_t *out, const uint8_t *msg, size_t len, size_t recsize)
{
	size_t	n = 0, part;

	while (len > 0) {
		part = len < recsize ? len : recsize;
		out[n++] = 22;
		out[n++] = 3;
		out[n++] = 1;
		n += put16(out + n, part);
		memcpy(out + n, msg, part);
		n += part;
		msg += part;
		len -= part;
	}
	return n;
}

#define TLS_MAX_REC	16384

static uint8_t	msg[2 * PROBE_PEEK_MAX], wire[3 * PROBE_PEEK_MAX];
static uint8_t	exts[2 * PROBE_PEEK_MAX];

/* The hello of exts in one record, checked as check_tls does. */
static void
check_exts(const char *desc, size_t extlen, enum probe_verdict want,
    const char *sni, const char *alpn)
{
	size_t	m = hello_msg(msg, exts, extlen);

	check_tls(desc, wire, records(wire, msg, m, TLS_MAX_REC), want, sni,
	    alpn);
}

/* Records: split hellos route, a record that is not a handshake does not. */
static void
test_tls_records(void)
{
	size_t	e = 0, m, n;

	e += ext_sni(exts + e, "Split.Example.ORG", 17);
	e += ext_alpn(exts + e, "\002h2\010http/1.1", 12);
	m = hello_msg(msg, exts, e);
	n = records(wire, msg, m, 40);
	check_tls("a hello over two records (40 + rest)", wire, n, PROBE_MATCH,
	    "split.example.org", "h2,http/1.1");
	n = records(wire, msg, m, 3);
	check_tls("a hello in records of 3 bytes, header split", wire, n,
	    PROBE_MATCH, "split.example.org", "h2,http/1.1");
	n = records(wire, msg, m, 1);
	check_tls("a hello in records of 1 byte", wire, n, PROBE_MATCH,
	    "split.example.org", "h2,http/1.1");

	/* Bytes after the hello (early data, garbage) are not looked at. */
	n = records(wire, msg, m, TLS_MAX_REC);
	memcpy(wire + n, "\027\003\003\000\005hello", 10);
	check_tls("a hello followed by an application data record", wire,
	    n + 10, PROBE_MATCH, "split.example.org", "h2,http/1.1");

	/* The second record of a split hello must be a handshake too. */
	n = records(wire, msg, m, 40);
	wire[45] = 23;
	check_tls("a hello's second record of type 23", wire, n, PROBE_NO,
	    NULL, "");
	n = records(wire, msg, m, 40);
	wire[47] = 0;
	check_tls("a hello's second record of version 3.0", wire, n,
	    PROBE_NO, NULL, "");

	/* The record header itself. */
	static const struct {
		const char	*desc;
		uint8_t		 h[5];
	} bad[] = {
		{ "content type 21 (alert)", { 21, 3, 1, 0, 10 } },
		{ "content type 23 (data) first", { 23, 3, 3, 0, 10 } },
		{ "record version 2.0", { 22, 2, 0, 0, 10 } },
		{ "record version 3.0 (SSLv3)", { 22, 3, 0, 0, 10 } },
		{ "record version 3.5", { 22, 3, 5, 0, 10 } },
		{ "a record of length 0", { 22, 3, 1, 0, 0 } },
		{ "a record longer than 2^14", { 22, 3, 1, 0x40, 0x01 } },
		{ "a record of length 65535", { 22, 3, 1, 0xff, 0xff } },
	};
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(wire, bad[i].h, 5);
		memcpy(wire + 5, msg, m);
		check_tls(bad[i].desc, wire, 5 + m, PROBE_NO, NULL, "");
	}
	/* Told apart at the first byte: a plain HTTP request, SSHv2. */
	memset(&tls_a, 0, sizeof(tls_a));
	check(probe_tls(&tls_a, (const uint8_t *)"G", 1) == PROBE_NO,
	    "\"G\" is no TLS at its first byte");
	memset(&tls_a, 0, sizeof(tls_a));
	check(probe_tls(&tls_a, (const uint8_t *)"\026\003", 2) ==
	    PROBE_AGAIN, "22, 3: wants more");
	/* An SSLv2-compatible hello (RFC 5246 E.2): not routed. */
	static const uint8_t	v2[] = { 0x80, 0x2e, 0x01, 0x03, 0x01, 0x00,
	    0x15, 0x00, 0x00, 0x00, 0x10 };
	check_tls("an SSLv2-compatible hello", v2, sizeof(v2), PROBE_NO, NULL,
	    "");
	/* A caller that hands fewer bytes than before is refused. */
	n = records(wire, msg, m, TLS_MAX_REC);
	memset(&tls_a, 0, sizeof(tls_a));
	probe_tls(&tls_a, wire, 20);
	check(probe_tls(&tls_a, wire, 10) == PROBE_NO &&
	    probe_tls(&tls_a, wire, n) == PROBE_NO,
	    "fewer bytes than the last call: no, and no for good");
}

/* The handshake header and the hello's fixed fields. */
static void
test_tls_hello_fields(void)
{
	size_t	e, m, n;

	e = ext_sni(exts, "a.example", 9);
	m = hello_msg(msg, exts, e);

	msg[0] = 2;
	n = records(wire, msg, m, TLS_MAX_REC);
	check_tls("handshake type 2 (server hello)", wire, n, PROBE_NO, NULL,
	    "");
	msg[0] = 1;

	/* A length that can never fit is refused at its fourth byte. */
	memcpy(wire, "\026\003\001\000\004\001\377\377\377", 9);
	memset(&tls_a, 0, sizeof(tls_a));
	check(probe_tls(&tls_a, wire, 9) == PROBE_NO,
	    "a handshake of 16 MiB: no at its header");
	memcpy(wire, "\026\003\001\100\000\001\000\100\000", 9);
	memset(&tls_a, 0, sizeof(tls_a));
	check(probe_tls(&tls_a, wire, 9) == PROBE_NO,
	    "a handshake of 16 KiB in a 16 KiB record: needs a second "
	    "record past the peek: no at its header");

	static const struct {
		const char	*desc;
		size_t		 off;	/* in msg */
		uint8_t		 byte;
	} bad[] = {
		{ "hello version 2.0", 4, 2 },
		{ "a session id of 33 bytes", 38, 33 },
		{ "a session id past the hello", 38, 255 },
		{ "cipher suites of odd length", 40, 3 },
		{ "no cipher suite", 40, 0 },
		{ "cipher suites past the hello", 39, 0xff },
		{ "no compression method", 45, 0 },
		{ "compression methods past the hello", 45, 200 },
		{ "extensions longer than the hello", 47, 0xff },
		{ "extensions shorter than the hello", 48,
		    17 },
		{ "an extension longer than the block", 52, 0xff },
		{ "server_name list longer than the extension", 54, 0xff },
		{ "server_name list shorter than the extension", 54, 0 },
		{ "host_name longer than the list", 57, 0xff },
		{ "a NUL as the name's first byte", 58, 0 },
	};
	size_t	i;
	uint8_t	save;

	/* msg: 4 header, 2 version, 32 random, 1 sid, 2+4 suites, 1+1
	 * compression (off 45), 2 ext length (47), then the extension:
	 * 2 type (49), 2 length (51), 2 list length (53), 1 name type
	 * (55), 2 name length (56), name (58). */
	check(e == 18 && msg[45] == 1 && msg[48] == e && msg[52] == 14 && msg[54] == 12 &&
	    msg[57] == 9 && msg[58] == 'a', "the offsets of the table below");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		save = msg[bad[i].off];
		msg[bad[i].off] = bad[i].byte;
		n = records(wire, msg, m, TLS_MAX_REC);
		check_tls(bad[i].desc, wire, n, PROBE_NO, NULL, "");
		msg[bad[i].off] = save;
	}
	/* A hello without extensions (TLS 1.0 to 1.2 may send one). */
	m = hello_msg(msg, NULL, 0);
	n = records(wire, msg, m, TLS_MAX_REC);
	check_tls("a hello without extensions", wire, n, PROBE_MATCH, NULL,
	    "");
	/* One byte of an extension block length, no more. */
	msg[3]++;
	msg[m] = 0;
	n = records(wire, msg, m + 1, TLS_MAX_REC);
	check_tls("one byte where the extensions' length goes", wire, n,
	    PROBE_NO, NULL, "");
}

/* server_name and ALPN: names kept, refused, and not kept. */
static void
test_tls_names(void)
{
	char	name[300];
	size_t	e;

	e = ext_sni(exts, "WWW.EXAMPLE.Org", 15);
	check_exts("an upper-case SNI, lower-cased", e, PROBE_MATCH,
	    "www.example.org", "");
	e = ext_sni(exts, "xn--bcher-kva.example", 21);
	check_exts("an IDNA name as sent", e, PROBE_MATCH,
	    "xn--bcher-kva.example", "");
	e = ext_sni(exts, "www.example.org.", 16);
	check_exts("a trailing dot is kept as sent", e, PROBE_MATCH,
	    "www.example.org.", "");
	e = ext_sni(exts, "evil.com\0.good.org", 18);
	check_exts("a NUL in the name", e, PROBE_NO, NULL, "");
	e = ext_sni(exts, "", 0);
	check_exts("an empty name", e, PROBE_NO, NULL, "");
	e = ext_sni(exts, "a b", 3);
	check_exts("a space in the name", e, PROBE_NO, NULL, "");
	e = ext_sni(exts, "a\nb", 3);
	check_exts("a newline in the name", e, PROBE_NO, NULL, "");
	memset(name, 'a', sizeof(name));
	e = ext_sni(exts, name, 255);
	name[255] = '\0';
	check_exts("a name of 255 bytes", e, PROBE_MATCH, name, "");
	e = ext_sni(exts, name, 256);
	check_exts("a name of 256 bytes", e, PROBE_NO, NULL, "");

	/* Two names, two ways: sslh took the first, others the last. */
	static const uint8_t	two_names[] = { 0, 14, 0, 0, 4, 'a', '.', 'b',
	    'c', 0, 0, 4, 'x', '.', 'y', 'z' };
	e = ext(exts, 0, two_names, sizeof(two_names));
	check_exts("two host_names in one server_name", e, PROBE_NO, NULL, "");
	e = ext_sni(exts, "one.example", 11);
	e += ext_sni(exts + e, "two.example", 11);
	check_exts("two server_name extensions", e, PROBE_NO, NULL, "");
	static const uint8_t	other_type[] = { 0, 7, 1, 0, 4, 'a', '.', 'b',
	    'c' };
	e = ext(exts, 0, other_type, sizeof(other_type));
	check_exts("a name of an unknown type only: no SNI", e, PROBE_MATCH,
	    NULL, "");
	e = ext(exts, 0, "", 0);
	check_exts("an empty server_name extension", e, PROBE_NO, NULL, "");
	e = ext(exts, 0, "\0\0", 2);
	check_exts("an empty server_name list", e, PROBE_NO, NULL, "");

	/* ALPN. */
	e = ext_alpn(exts, "\010http/1.1\002h2\012acme-tls/1", 23);
	check_exts("ALPN of three, in order", e, PROBE_MATCH, NULL,
	    "http/1.1,h2,acme-tls/1");
	e = ext_alpn(exts, "\002h2\000\010http/1.1", 12);
	check_exts("an empty ALPN name", e, PROBE_NO, NULL, "");
	e = ext_alpn(exts, "\002h2\011http/1.1", 12);
	check_exts("an ALPN name past its list", e, PROBE_NO, NULL, "");
	e = ext_alpn(exts, "", 0);
	check_exts("an empty ALPN list", e, PROBE_NO, NULL, "");
	e = ext_alpn(exts, "\003h\0002\002h2", 7);
	check_exts("an ALPN name with a NUL is not kept", e, PROBE_MATCH,
	    NULL, "h2");
	e = ext_alpn(exts, "\002h2\002h2", 6);
	e += ext_alpn(exts + e, "\002h3", 3);
	check_exts("two ALPN extensions", e, PROBE_NO, NULL, "");

	char	list[600], want[600];
	size_t	n = 0, i;

	list[n++] = 40;
	memset(list + n, 'x', 40);
	n += 40;
	want[0] = '\0';
	for (i = 0; i < PROBE_ALPN_MAX + 4; i++) {
		n += (size_t)sprintf(list + n, "%cp%02zu", 3, i);
		if (i < PROBE_ALPN_MAX)
			sprintf(want + strlen(want), "%sp%02zu",
			    i > 0 ? "," : "", i);
	}
	e = ext_alpn(exts, list, n);
	check_exts("a 40-byte ALPN name and 20 more: the first 16 short "
	    "ones kept", e, PROBE_MATCH, NULL, want);
}

/* How big a hello may be: what fits in PROBE_PEEK_MAX bytes, no more. */
static void
test_tls_size(void)
{
	static const uint8_t	zeros[TLS_MAX_REC];
	size_t			e, m, n, pad;

	/* One record of 2^14 bytes: 5 + 16384 bytes, fits. */
	e = ext_sni(exts, "big.example", 11);
	pad = TLS_MAX_REC - hello_msg(msg, exts, e) - 4;
	e += ext(exts + e, 21, zeros, pad);
	m = hello_msg(msg, exts, e);
	check(m == TLS_MAX_REC, "a hello of 2^14 bytes built (%zu)", m);
	n = records(wire, msg, m, TLS_MAX_REC);
	check_tls("a hello of 2^14 bytes in one record", wire, n,
	    PROBE_MATCH, "big.example", "");
	/* The same over three records: 10 bytes more than a peek holds. */
	n = records(wire, msg, m, 8000);
	check_tls("a hello of 2^14 bytes in three records", wire, n,
	    PROBE_NO, NULL, "");
	/* 4 bytes more: a second record needed, past the peek. */
	e = ext_sni(exts, "big.example", 11);
	pad += 4;
	e += ext(exts + e, 21, zeros, pad);
	m = hello_msg(msg, exts, e);
	n = records(wire, msg, m, TLS_MAX_REC);
	check_tls("a hello of 2^14 + 4 bytes", wire, n, PROBE_NO, NULL, "");
}

int
main(void)
{
	test_tls_seeds();
	test_tls_records();
	test_tls_hello_fields();
	test_tls_names();
	test_tls_size();
	return test_summary();
}
