/*
 * test_probe.c - unit tests of the first-bytes parsers (probe_*.c):
 * ClientHellos captured from openssl s_client and curl (tests/fuzz/probe/),
 * fed whole, in every two-part split and one byte at a time, which must
 * all give the same answer; hellos built here to break every length
 * (the bug classes of sslh's, HAProxy's and nginx's readers); HTTP
 * requests with and without Host; SSH banners, OpenVPN, SOCKS5 and XMPP;
 * the UDP probes' datagrams (WireGuard, OpenVPN, TeamSpeak).
 */
#include "ferryd.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "../kit/probe_run.h"
#include "testlib.h"

/* A seed of tests/fuzz/probe/ into buf (at most size bytes): its length. */
static size_t
read_seed(const char *name, uint8_t *buf, size_t size)
{
	const char	*srcdir = getenv("top_srcdir");
	char		 path[4096];
	FILE		*f;
	size_t		 n;

	snprintf(path, sizeof(path), "%s/tests/fuzz/probe/%s",
	    srcdir != NULL ? srcdir : ".", name);
	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

/*
 * With PROBE_CORPUS_OUT=DIR, every case goes into DIR as a corpus entry
 * of the fuzz harness (tests/fuzz/probe/case-NNN-KIND-DESC.bin), DESC cut
 * short (make dist's tar format keeps no path past 99 bytes), NNN the
 * case's number, so that two cases cut alike stay two.
 */
static void
save_case(const char *kind, const char *desc, const uint8_t *buf,
    size_t len)
{
	static unsigned	 number;
	const char	*dir = getenv("PROBE_CORPUS_OUT");
	char		 path[4096], name[40];
	size_t		 i;
	FILE		*f;

	if (dir == NULL || strstr(desc, ".bin") != NULL)
		return;		/* a seed is in the corpus already */
	for (i = 0; desc[i] != '\0' && i < sizeof(name) - 1; i++)
		name[i] = isalnum((unsigned char)desc[i]) ?
		    (char)tolower((unsigned char)desc[i]) : '-';
	name[i] = '\0';
	snprintf(path, sizeof(path), "%s/case-%03u-%s-%s.bin", dir, ++number,
	    kind, name);
	if ((f = fopen(path, "wb")) != NULL) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
}

/*
 * The verdict of buf whole must be want and, on a match, its results
 * (probe_run.h's describe) results; every two-part split and one byte at
 * a time must agree with the whole.
 */
static void
check_probe(const char *kind, const char *desc, const uint8_t *buf,
    size_t len, enum probe_verdict want, const char *results)
{
	const struct probe_kind	*k = probe_kind(kind);
	static uint8_t		 st_a[sizeof(struct probe_tls)];
	static uint8_t		 st_b[sizeof(struct probe_tls)];
	char			 got[2048], split[2048];
	void			*a = k->state_size > 0 ? st_a : NULL;
	void			*b = k->state_size > 0 ? st_b : NULL;
	enum probe_verdict	 v, w;
	size_t			 i, bad = 0, *cuts;

	save_case(kind, desc, buf, len);
	v = probe_run(k, a, buf, len, NULL, 0);
	got[0] = '\0';
	if (v == PROBE_MATCH && !k->describe(a, got, sizeof(got)))
		snprintf(got, sizeof(got), "(results broken)");
	if (want == PROBE_MATCH)
		check(v == PROBE_MATCH && strcmp(got, results) == 0,
		    "%s %s: match, %s (got %d, %s)", kind, desc, results, v,
		    got);
	else
		check(v == want, "%s %s: verdict %d (got %d)", kind, desc, want,
		    v);
	for (i = 1; i < len; i++) {
		w = probe_run(k, b, buf, len, &i, 1);
		split[0] = '\0';
		if (w == PROBE_MATCH)
			k->describe(b, split, sizeof(split));
		bad += w != v || strcmp(got, split) != 0;
	}
	check(bad == 0, "%s %s: the same in every two-part split (%zu "
	    "differ)", kind, desc, bad);
	if ((cuts = malloc((len + 1) * sizeof(*cuts))) == NULL)
		abort();
	for (i = 0; i < len; i++)
		cuts[i] = i;
	w = probe_run(k, b, buf, len, cuts, len);
	free(cuts);
	split[0] = '\0';
	if (w == PROBE_MATCH)
		k->describe(b, split, sizeof(split));
	check(w == v && strcmp(got, split) == 0,
	    "%s %s: the same one byte at a time", kind, desc);
}

/* check_probe for TLS: sni NULL for none, alpn "" for none. */
static void
check_tls(const char *desc, const uint8_t *buf, size_t len,
    enum probe_verdict want, const char *sni, const char *alpn)
{
	char	results[1024];

	snprintf(results, sizeof(results), "%s %s", sni != NULL ? sni : "-",
	    alpn[0] != '\0' ? alpn : "-");
	check_probe("tls", desc, buf, len, want, results);
}

/* ---- TLS ------------------------------------------------------------ */

static struct probe_tls	tls_a;

/*
 * Seeds captured from real clients (tests/fuzz/probe/README), with what
 * their probe must make of them; every other probe must say no.
 */
static void
test_seeds(void)
{
	static const struct {
		const char	*kind, *file, *results;
	} seeds[] = {
		{ "tls", "tls-openssl-sni-alpn.bin",
		    "www.example.org h2,http/1.1" },
		{ "tls", "tls-openssl-nosni.bin", "- -" },
		{ "tls", "tls-openssl-tls12.bin", "legacy.example.net -" },
		{ "tls", "tls-curl-h2.bin", "api.example.com h2,http/1.1" },
		{ "tls", "tls-curl-http11.bin", "shop.example.com http/1.1" },
		{ "http", "http-curl.bin", "www.example.com" },
		{ "http", "http-curl-10.bin", "127.0.0.1" },
		{ "http", "http-curl-post.bin", "www.example.com" },
		{ "http", "http-curl-ipv6.bin", "[::1]" },
		{ "http", "http-curl-proxy.bin", "proxied.example.org" },
		{ "http", "http-curl-connect.bin", "tunnel.example.org" },
		{ "http", "http-curl-h2c.bin", "-" },
		{ "ssh", "ssh-openssh.bin", "-" },
		{ "openvpn", "openvpn-v2.bin", "-" },
		{ "openvpn", "openvpn-v2-tlsauth.bin", "-" },
		{ "openvpn", "openvpn-v3-tlscryptv2.bin", "-" },
		{ "socks5", "socks5-curl.bin", "-" },
		{ "socks5", "socks5-curl-auth.bin", "-" },
		{ "xmpp", "xmpp-client.bin", "-" },
		{ "xmpp", "xmpp-client-dq.bin", "-" },
	};
	static uint8_t		buf[PROBE_PEEK_MAX], st[sizeof(tls_a)];
	const struct probe_kind	*k;
	size_t			i, j, n;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		n = read_seed(seeds[i].file, buf, sizeof(buf));
		check_probe(seeds[i].kind, seeds[i].file, buf, n, PROBE_MATCH,
		    seeds[i].results);
		for (j = 0; j < nprobe_kinds; j++) {
			k = &probe_kinds[j];
			if (strcmp(k->name, seeds[i].kind) != 0)
				check(probe_run(k, st, buf, n, NULL, 0) ==
				    PROBE_NO, "%s is not %s", seeds[i].file,
				    k->name);
		}
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
	size_t	i, early = 0;
	uint8_t	save;

	/* msg: 4 header, 2 version, 32 random, 1 sid, 2+4 suites, 1+1
	 * compression (off 45), 2 ext length (47), then the extension:
	 * 2 type (49), 2 length (51), 2 list length (53), 1 name type
	 * (55), 2 name length (56), name (58). */
	check(e == 18 && msg[45] == 1 && msg[48] == e && msg[52] == 14 &&
	    msg[54] == 12 && msg[57] == 9 && msg[58] == 'a',
	    "the offsets of the table below");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		save = msg[bad[i].off];
		msg[bad[i].off] = bad[i].byte;
		n = records(wire, msg, m, TLS_MAX_REC);
		check_tls(bad[i].desc, wire, n, PROBE_NO, NULL, "");
		msg[bad[i].off] = save;
		/* Told once the hello is in, as when it was parsed whole. */
		memset(&tls_a, 0, sizeof(tls_a));
		early += probe_tls(&tls_a, wire, n - 1) != PROBE_AGAIN;
	}
	check(early == 0, "a flaw inside the hello: no when its last byte "
	    "is in, not before (%zu told early)", early);
	/*
	 * HAProxy's reader (smp_client_hello_parse) once took a handshake
	 * 4 bytes longer than its record, and read the session id's length
	 * past a hello ending in its random.
	 */
	e = ext_sni(exts, "a.example", 9);
	m = hello_msg(msg, exts, e);
	msg[3] += 4;
	n = records(wire, msg, m, TLS_MAX_REC);
	check_tls("a handshake 4 bytes longer than its record", wire, n,
	    PROBE_AGAIN, NULL, "");
	memcpy(wire + n, "\027\003\003\000\004abcd", 9);
	check_tls("a handshake 4 bytes longer than its record, then data",
	    wire, n + 9, PROBE_NO, NULL, "");
	msg[1] = msg[2] = 0;
	msg[3] = 30;
	n = records(wire, msg, 4 + 30, TLS_MAX_REC);
	check_tls("a hello that ends in its random", wire, n, PROBE_NO, NULL,
	    "");

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
	/* sslh logged the bytes it probed as a format (CVE-2022-4639):
	 * a name is data, kept as sent, for whoever prints it. */
	e = ext_sni(exts, "%s%n%p.example", 14);
	check_exts("format directives in the name, kept as data", e,
	    PROBE_MATCH, "%s%n%p.example", "");
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

/* ---- HTTP ----------------------------------------------------------- */

static void
check_http(const char *desc, const char *text, enum probe_verdict want,
    const char *host)
{
	check_probe("http", desc, (const uint8_t *)text, strlen(text), want,
	    host != NULL ? host : "-");
}

static void
test_http(void)
{
	size_t	i, n;

	check_http("no Host", "GET / HTTP/1.0\r\nAccept: */*\r\n\r\n",
	    PROBE_MATCH, NULL);
	check_http("an empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n",
	    PROBE_MATCH, NULL);
	check_http("bare LF line ends, host: in lower case, tabs",
	    "HEAD /x HTTP/1.1\nhost:\tA.B.example:8443\t\n\n", PROBE_MATCH,
	    "a.b.example");
	check_http("an IPv6 literal without port",
	    "OPTIONS * HTTP/1.1\r\nHost: [2001:DB8::1]\r\n\r\n", PROBE_MATCH,
	    "[2001:db8::1]");
	check_http("the absolute-form target wins over Host",
	    "GET HTTP://Target.example:81/p HTTP/1.1\r\nHost: other.example"
	    "\r\n\r\n", PROBE_MATCH, "target.example");
	check_http("format directives in Host, kept as data (sslh's "
	    "CVE-2022-4639)", "GET / HTTP/1.1\r\nHost: %n%s%x\r\n\r\n",
	    PROBE_MATCH, "%n%s%x");
	check_http("every method", "PATCH / HTTP/1.1\r\nHost: p\r\n\r\n",
	    PROBE_MATCH, "p");
	check_http("a body after the head is not read",
	    "PUT /f HTTP/1.1\r\nHost: up.example\r\nContent-Length: 3\r\n"
	    "\r\nabc", PROBE_MATCH, "up.example");
	check_http("a head not yet ended", "GET / HTTP/1.1\r\nHost: x\r\n",
	    PROBE_AGAIN, NULL);

	static const struct {
		const char	*desc, *text;
	} bad[] = {
		{ "an unknown method", "BREW /pot HTTP/1.1\r\n\r\n" },
		{ "a method in lower case", "get / HTTP/1.1\r\n\r\n" },
		{ "a method without its space", "GETX / HTTP/1.1\r\n\r\n" },
		{ "HTTP/0.9", "GET /\r\n\r\n" },
		{ "HTTP/2.0 in a request line", "GET / HTTP/2.0\r\n\r\n" },
		{ "a version with junk", "GET / HTTP/1.1x\r\n\r\n" },
		{ "two spaces", "GET  / HTTP/1.1\r\n\r\n" },
		{ "a blank line first", "\r\nGET / HTTP/1.1\r\n\r\n" },
		{ "two Host headers",
		    "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n" },
		{ "two Host headers, one empty",
		    "GET / HTTP/1.1\r\nHost:\r\nHost: b\r\n\r\n" },
		{ "a space before the colon",
		    "GET / HTTP/1.1\r\nHost : a\r\n\r\n" },
		{ "a folded line", "GET / HTTP/1.1\r\nX: 1\r\n 2\r\n\r\n" },
		{ "a header without colon",
		    "GET / HTTP/1.1\r\nHost a\r\n\r\n" },
		{ "a CR alone", "GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n" },
		{ "a space in Host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n" },
		{ "a slash in Host", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n" },
		{ "userinfo in Host", "GET / HTTP/1.1\r\nHost: u@a\r\n\r\n" },
		{ "userinfo in the target",
		    "GET http://good@evil/ HTTP/1.1\r\nHost: a\r\n\r\n" },
		{ "a port of letters", "GET / HTTP/1.1\r\nHost: a:b\r\n\r\n" },
		{ "an open bracket", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n" },
		{ "junk after the bracket",
		    "GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n" },
		{ "a name in brackets",
		    "GET / HTTP/1.1\r\nHost: [evil.org]\r\n\r\n" },
		{ "a Host of port only",
		    "GET / HTTP/1.1\r\nHost: :80\r\n\r\n" },
		{ "a broken h2 preface", "PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" },
		{ "TLS", "\026\003\001\002\000\001" },
		{ "SSH", "SSH-2.0-OpenSSH_9.2p1\r\n" },
	};

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_probe("http", bad[i].desc, (const uint8_t *)bad[i].text,
		    strlen(bad[i].text), PROBE_NO, "");
	static const char	nul_host[] =
	    "GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n";
	check_probe("http", "a NUL in Host", (const uint8_t *)nul_host,
	    sizeof(nul_host) - 1, PROBE_NO, "");

	/* A head longer than the peek: a request, but no host trusted. */
	static char	big[PROBE_PEEK_MAX + 1];
	struct probe_http	st;

	n = (size_t)snprintf(big, sizeof(big),
	    "GET / HTTP/1.1\r\nHost: big.example\r\nCookie: ");
	memset(big + n, 'c', sizeof(big) - 1 - n);
	memset(&st, 0, sizeof(st));
	check(probe_http(&st, (uint8_t *)big, PROBE_PEEK_MAX - 1) ==
	    PROBE_AGAIN && probe_http(&st, (uint8_t *)big, PROBE_PEEK_MAX) ==
	    PROBE_MATCH && !st.has_host && st.host[0] == '\0',
	    "a head filling the peek: a match without host");
	memset(big, 'x', sizeof(big));
	memcpy(big, "GET /", 5);
	memset(&st, 0, sizeof(st));
	check(probe_http(&st, (uint8_t *)big, PROBE_PEEK_MAX) == PROBE_NO,
	    "a request line filling the peek: no");
	memset(&st, 0, sizeof(st));
	check(probe_http(&st, (const uint8_t *)"G", 1) == PROBE_AGAIN &&
	    probe_http(&st, (const uint8_t *)"GX", 2) == PROBE_NO,
	    "\"GX\": no at its second byte");
}

/* ---- the stateless probes --------------------------------------------- */

static void
test_stateless(void)
{
	static uint8_t	buf[600];
	size_t		i;

	static const struct {
		const char	*kind, *desc;
		const char	*bytes;
		size_t		 len;
		enum probe_verdict want;
	} cases[] = {
#define C(k, d, s, w)	{ k, d, s, sizeof(s) - 1, w }
		C("ssh", "SSH-1.99-", "SSH-1.99-client\r\n", PROBE_MATCH),
		C("ssh", "SSH-2.0 without dash yet", "SSH-2.0", PROBE_AGAIN),
		C("ssh", "ssh- in lower case", "ssh-2.0-x\r\n", PROBE_NO),
		C("ssh", "SSH-2-", "SSH-2-x\r\n", PROBE_NO),
		C("ssh", "SSH-.2-", "SSH-.2-x\r\n", PROBE_NO),
		C("ssh", "SSH-2.-", "SSH-2.-x\r\n", PROBE_NO),
		C("ssh", "SSH-2.0.1-", "SSH-2.0.1-x\r\n", PROBE_NO),
		C("ssh", "a version too long", "SSH-2.000000000-x", PROBE_NO),
		C("ssh", "a tinc greeting", "0 home 17\n", PROBE_NO),
		C("openvpn", "V2 of 13 bytes", "\000\015\070", PROBE_NO),
		C("openvpn", "V2 of 256 bytes", "\001\000\070", PROBE_NO),
		C("openvpn", "V2 with key id 1", "\000\016\071", PROBE_NO),
		C("openvpn", "V1 (key-method 1, gone since 2.5)",
		    "\000\016\010", PROBE_NO),
		C("openvpn", "P_DATA_V2", "\000\016\110", PROBE_NO),
		C("openvpn", "V3 of 335 bytes", "\001\117\120", PROBE_NO),
		C("openvpn", "V3 of 1279 bytes", "\004\377\120", PROBE_NO),
		C("openvpn", "V2 incomplete", "\000\016\070\001\002",
		    PROBE_AGAIN),
		C("openvpn", "sslh's over-read: length says more than sent",
		    "\377\377\070", PROBE_NO),
		C("socks5", "no method", "\005\000", PROBE_NO),
		C("socks5", "method 0xff offered", "\005\001\377", PROBE_NO),
		C("socks5", "method 0x10", "\005\002\000\020", PROBE_NO),
		C("socks5", "a private method", "\005\001\200", PROBE_MATCH),
		C("socks5", "methods not all in", "\005\003\000\002",
		    PROBE_AGAIN),
		C("socks5", "SOCKS4", "\004\001\000\120\177\000\000\001\000",
		    PROBE_NO),
		C("socks5", "a greeting and a request pipelined",
		    "\005\001\000\005\001\000\001\177\000\000\001\000\120",
		    PROBE_MATCH),
		C("xmpp", "not XML", "jabber:client", PROBE_NO),
		C("xmpp", "XML without jabber yet", "<?xml version='1.0'?>",
		    PROBE_AGAIN),
		C("adb", "CNXN, then host::",
		    "CNXN\001\000\000\001\000\020\000\000\007\000\000\000"
		    "\062\002\000\000\274\261\247\261host::\000",
		    PROBE_MATCH),
		C("adb", "CNXN, 29 bytes: sslh waits for 30",
		    "CNXN\001\000\000\001\000\020\000\000\007\000\000\000"
		    "\062\002\000\000\274\261\247\261host:", PROBE_AGAIN),
		C("adb", "CNXN with another payload",
		    "CNXN\001\000\000\001\000\020\000\000\007\000\000\000"
		    "\062\002\000\000\274\261\247\261device", PROBE_NO),
		C("adb", "adb 26's empty message, then CNXN",
		    "\000\000\000\000\000\000\000\000\000\000\000\000"
		    "\000\000\000\000\000\000\000\000\377\377\377\377"
		    "CNXN\001\000\000\001\000\020\000\000\007\000\000\000"
		    "\062\002\000\000\274\261\247\261host::\000",
		    PROBE_MATCH),
		C("adb", "an empty message alone", "\000\000\000\000",
		    PROBE_AGAIN),
		C("adb", "OPEN", "OPEN", PROBE_NO),
		C("syslog", "RFC 5424", "<34>1 2026-11-28T20:00:00Z host app",
		    PROBE_MATCH),
		C("syslog", "octet counted", "59 <34>1 2026", PROBE_MATCH),
		C("syslog", "the priority not closed yet", "<13", PROBE_AGAIN),
		C("syslog", "a length not followed by a space", "59<34>",
		    PROBE_NO),
		C("syslog", "four digits of priority", "<1234>", PROBE_NO),
		C("syslog", "no priority", "<>", PROBE_NO),
		C("syslog", "HTTP", "GET / HTTP/1.1\r\n", PROBE_NO),
		C("msrdp", "mstsc's X.224 Connection Request",
		    "\003\000\000\023\016\340\000\000\000\000\000\001"
		    "\000\010\000\003\000\000\000", PROBE_MATCH),
		C("msrdp", "a TPKT not all in", "\003\000\000\023\016\340",
		    PROBE_AGAIN),
		C("msrdp", "TPKT version 2", "\002\000\000\023", PROBE_NO),
		C("msrdp", "a length shorter than the header",
		    "\003\000\000\003", PROBE_NO),
#undef C
	};

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_probe(cases[i].kind, cases[i].desc,
		    (const uint8_t *)cases[i].bytes, cases[i].len,
		    cases[i].want, "-");

	/* XMPP: the namespace must come within the stream header's bytes. */
	memset(buf, ' ', 600);
	buf[0] = '<';
	memcpy(buf + 500, "jabber:client", 13);
	check_probe("xmpp", "jabber: at byte 500", buf, 513, PROBE_MATCH,
	    "-");
	memcpy(buf + 500, "             ", 13);
	memcpy(buf + 510, "jabber:client", 13);
	check_probe("xmpp", "jabber: past byte 512", buf, 523, PROBE_NO,
	    "-");
}

/* ---- sslh's probes (probe_sslh.c) ------------------------------------ */

/*
 * sslh's probe kind on buf: whole, its verdict must be want; fed a byte
 * more at a time (each prefix an exact copy, for valgrind and the
 * sanitizers), the verdicts it gives in turn must be bytewise, a letter
 * each (A again, M match, N no), a run written once: "ANM" for an
 * OpenVPN length, which says no until the packet is whole.
 */
static void
check_sslh(const char *kind, const char *desc, const uint8_t *buf,
    size_t len, enum probe_verdict want, const char *bytewise)
{
	const struct probe_kind		*k;
	static const char		 letter[] = { [PROBE_AGAIN] = 'A',
					    [PROBE_MATCH] = 'M',
					    [PROBE_NO] = 'N' };
	char				 seq[16], c, tag[32];
	uint8_t				*copy;
	size_t				 i, n = 0;

	snprintf(tag, sizeof(tag), "sslh-%s", kind);
	k = probe_kind(tag);
	save_case(tag, desc, buf, len);
	check(k->stateless(buf, len) == want, "sslh %s %s: verdict %d (got "
	    "%d)", kind, desc, want, k->stateless(buf, len));
	for (i = 1; i <= len; i++) {
		if ((copy = malloc(i)) == NULL)
			abort();
		memcpy(copy, buf, i);
		c = letter[k->stateless(copy, i)];
		free(copy);
		if ((n == 0 || seq[n - 1] != c) && n < sizeof(seq) - 1)
			seq[n++] = c;
	}
	seq[n] = '\0';
	check(strcmp(seq, bytewise) == 0, "sslh %s %s: byte by byte %s (got "
	    "%s)", kind, desc, bytewise, seq);
}

static void
check_sslh_text(const char *kind, const char *desc, const char *text,
    enum probe_verdict want, const char *bytewise)
{
	check_sslh(kind, desc, (const uint8_t *)text, strlen(text), want,
	    bytewise);
}

/* Where sslh's say otherwise than ferryd's: the inputs. */
static void
test_sslh_text(void)
{
	static const struct {
		const char	*kind, *desc, *text;
		enum probe_verdict want;
		const char	*bytewise;
	} cases[] = {
		{ "ssh", "SSH-2.0 hello", "SSH-2.0 hello\r\n", PROBE_MATCH,
		    "AM" },
		{ "ssh", "lower case", "ssh-2.0-x\r\n", PROBE_NO, "AN" },
		{ "ssh", "3 bytes wait", "SSH", PROBE_AGAIN, "A" },
		{ "http", "a request line without the headers' end",
		    "GET / HTTP/1.1\r\n", PROBE_MATCH, "AM" },
		{ "http", "GET / under 7 bytes waits (OPTIONS)", "GET /",
		    PROBE_AGAIN, "A" },
		{ "http", "a method as a prefix", "GETTER\n", PROBE_MATCH,
		    "AM" },
		{ "http", "HTTP anywhere", "BREW /pot HTTP/1.1\r\n",
		    PROBE_MATCH, "ANM" },
		{ "http", "lower case", "get / http/1.1\r\n", PROBE_NO, "AN" },
		{ "xmpp", "jabber early", "<stream:stream xmlns='jabber:client'"
		    ">", PROBE_MATCH, "AM" },
		{ "xmpp", "short, no jabber: waits", "hello", PROBE_AGAIN,
		    "A" },
		{ "xmpp", "jabber without '<' first", " x jabber", PROBE_MATCH,
		    "AM" },
		{ "syslog", "RFC 5424", "<34>1 2026-11-28T20:00:00Z host",
		    PROBE_MATCH, "NM" },
		{ "syslog", "octet counted", "59 <34>1", PROBE_MATCH, "NM" },
		{ "syslog", "an octet count of 4 digits", "1234 <34>",
		    PROBE_NO, "N" },
		{ "syslog", "four digits of priority", "<1234>", PROBE_NO,
		    "N" },
		{ "syslog", "no priority", "<>", PROBE_NO, "N" },
	};
	static char	xmpp[700];
	size_t		i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_sslh_text(cases[i].kind, cases[i].desc, cases[i].text,
		    cases[i].want, cases[i].bytewise);
	snprintf(xmpp, sizeof(xmpp), "<?xml version='1.0'?><!-- %0520d -->"
	    "<stream:stream xmlns='jabber:client'>", 0);
	check_sslh_text("xmpp", "jabber after 512 bytes", xmpp, PROBE_MATCH,
	    "ANM");
	memset(xmpp, 'x', 60);
	xmpp[60] = '\0';
	check_sslh_text("xmpp", "60 bytes, no jabber", xmpp, PROBE_NO, "AN");
}

/* The binary ones: OpenVPN, ADB, SOCKS5, RDP. */
static void
test_sslh_binary(void)
{
	static const struct {
		const char	*kind, *desc, *bytes;
		size_t		 len;
		enum probe_verdict want;
		const char	*bytewise;
	} cases[] = {
#define C(k, d, s, w, b)	{ k, d, s, sizeof(s) - 1, w, b }
		C("openvpn", "a V1 hard reset: its length is enough",
		    "\000\016\010\001\002\003\004\005\006\007\010\000\000\000"
		    "\000\000", PROBE_MATCH, "ANM"),
		C("openvpn", "a byte more than its length",
		    "\000\002ab!", PROBE_NO, "ANMN"),
		C("openvpn", "one byte waits", "\000", PROBE_AGAIN, "A"),
		C("adb", "CNXN, then host::",
		    "CNXN\001\000\000\001\000\020\000\000\007\000\000\000"
		    "\062\002\000\000\274\261\247\261host::\000",
		    PROBE_MATCH, "AM"),
		C("adb", "anything of 29 bytes waits",
		    "hello there, a line of 29 by.", PROBE_AGAIN, "A"),
		C("adb", "adb 26's empty message, then CNXN",
		    "\000\000\000\000\000\000\000\000\000\000\000\000"
		    "\000\000\000\000\000\000\000\000\377\377\377\377"
		    "CNXN\001\000\000\001\000\020\000\000\007\000\000\000"
		    "\062\002\000\000\274\261\247\261host::\000",
		    PROBE_MATCH, "AM"),
		C("socks5", "one method", "\005\001\000", PROBE_MATCH, "AM"),
		C("socks5", "a private method", "\005\001\200", PROBE_NO,
		    "AN"),
		C("socks5", "11 methods", "\005\013\000", PROBE_NO, "AN"),
		C("socks5", "128 methods (a signed char)", "\005\200\000",
		    PROBE_NO, "AN"),
		C("socks5", "methods not all in", "\005\003\000\002",
		    PROBE_AGAIN, "A"),
		C("msrdp", "mstsc's X.224 Connection Request",
		    "\003\000\000\023\016\340\000\000\000\000\000\001"
		    "\000\010\000\003\000\000\000", PROBE_MATCH, "NM"),
		C("msrdp", "a length's high byte is not looked at",
		    "\003\000\001\023\016\340\000\000\000\000\000\001"
		    "\000\010\000\003\000\000\000", PROBE_MATCH, "NM"),
#undef C
	};
	static uint8_t	rdp[200];
	size_t		i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_sslh(cases[i].kind, cases[i].desc,
		    (const uint8_t *)cases[i].bytes, cases[i].len,
		    cases[i].want, cases[i].bytewise);
	/* 200 bytes: a length byte of 0xc8, negative as sslh reads it. */
	memcpy(rdp, "\003\000\000\310", 4);
	check_sslh("msrdp", "a TPKT of 200 bytes (never, on x86)", rdp,
	    sizeof(rdp), PROBE_NO, "N");
}

/* A hello of exts in records of recsize, record version minor. */
static size_t
sslh_hello(const uint8_t *e, size_t elen, size_t recsize, uint8_t minor)
{
	size_t	m = hello_msg(msg, e, elen), n = records(wire, msg, m,
		    recsize), i;

	for (i = 0; i < n; i += 5 + (size_t)(wire[i + 3] << 8 | wire[i + 4]))
		wire[i + 2] = minor;
	return n;
}

/* TLS: sslh's reader, its first record alone; names as sent. */
static void
test_sslh_tls(void)
{
	static uint8_t	seed[PROBE_PEEK_MAX];
	size_t		e = 0, n;

	n = read_seed("tls-openssl-sni-alpn.bin", seed, sizeof(seed));
	check_sslh("tls", "openssl's hello", seed, n, PROBE_MATCH, "AM");
	check_sslh("tls-sni", "openssl's hello for www.Example.org (as "
	    "sent)", seed, n, PROBE_NO, "AN");
	check_sslh("tls-alpn", "openssl's hello, h2 offered", seed, n,
	    PROBE_MATCH, "AM");
	n = read_seed("tls-stray-byte.bin", seed, sizeof(seed));
	check_sslh("tls-both", "a stray byte after the extensions", seed, n,
	    PROBE_MATCH, "AM");

	e += ext_sni(exts + e, "www.example.org", 15);
	e += ext_alpn(exts + e, "\002h2", 3);
	n = sslh_hello(exts, e, TLS_MAX_REC, 1);
	check_sslh("tls-both", "www.example.org, h2", wire, n, PROBE_MATCH,
	    "AM");
	n = sslh_hello(exts, e, TLS_MAX_REC, 0);
	check_sslh("tls-both", "a record of version 3.0", wire, n,
	    PROBE_MATCH, "AM");
	n = sslh_hello(exts, e, 40, 1);
	check_sslh("tls-sni", "a hello over two records: the first alone",
	    wire, n, PROBE_NO, "AN");
	n = sslh_hello(NULL, 0, TLS_MAX_REC, 0);
	check_sslh("tls", "SSL 3.0 without extensions", wire, n, PROBE_NO,
	    "AN");
	n = sslh_hello(NULL, 0, TLS_MAX_REC, 1);
	check_sslh("tls", "TLS 1.0 without extensions", wire, n, PROBE_NO,
	    "AN");
	check_sslh("tls-sni", "TLS 1.0 without extensions, a name wanted",
	    wire, n, PROBE_NO, "AN");
	/* Flaws ferryd's reader says no to, sslh's does not see. */
	n = sslh_hello(exts, e, TLS_MAX_REC, 1);
	wire[7] ^= 0x40;		/* the handshake's length */
	wire[9] = 0x7f;			/* its version */
	check_sslh("tls-both", "a flawed length and version inside", wire, n,
	    PROBE_MATCH, "AM");
	check_tls("a flawed length and version inside", wire, n, PROBE_NO,
	    NULL, "");
	/* What sslh's reader says no to. */
	n = sslh_hello(exts, e, TLS_MAX_REC, 1);
	wire[1] = 2;
	check_sslh("tls", "a record of major version 2", wire, n, PROBE_NO,
	    "AN");
	wire[1] = 0x83;
	check_sslh("tls", "a record of major version 0x83 (a signed char)",
	    wire, n, PROBE_NO, "AN");
	wire[1] = 3;
	wire[5] = 2;
	check_sslh("tls", "a ServerHello", wire, n, PROBE_NO, "AN");
	e = ext_sni(exts, "www.example.org", 15);
	e += ext(exts + e, 21, "ab", 2);
	exts[e - 3] = 3;		/* the padding's length, past the end */
	n = sslh_hello(exts, e, TLS_MAX_REC, 1);
	check_sslh("tls", "an extension past the block, no name wanted",
	    wire, n, PROBE_MATCH, "AM");
	check_sslh("tls-sni", "an extension past the block after the name",
	    wire, n, PROBE_NO, "AN");
	e = ext_sni(exts, "mail.example.org", 16);
	n = sslh_hello(exts, e, TLS_MAX_REC, 1);
	check_sslh("tls-sni", "another name", wire, n, PROBE_NO, "AN");
	check_sslh("tls-alpn", "no ALPN offered, h2 wanted", wire, n,
	    PROBE_NO, "AN");
}

/* The UDP probes (probe_udp.c): one whole datagram each. */
static void
test_udp(void)
{
	uint8_t	d[160];

	memset(d, 0, sizeof(d));
	d[0] = 1;
	check(probe_wireguard(d, 148) == PROBE_MATCH,
	    "wireguard: a 148-byte initiation");
	check(probe_wireguard(d, 147) == PROBE_NO &&
	    probe_wireguard(d, 149) == PROBE_NO, "wireguard: 148 bytes only");
	d[2] = 1;
	check(probe_wireguard(d, 148) == PROBE_NO,
	    "wireguard: reserved bytes must be zero");
	memset(d, 0, sizeof(d));
	d[0] = 7 << 3;		/* hard reset v2, key id 0 */
	check(probe_udp_openvpn(d, 14) == PROBE_MATCH &&
	    probe_udp_openvpn(d, 13) == PROBE_NO,
	    "openvpn: a hard reset of 14 bytes or more");
	d[29 + 3] = 1;		/* replay packet id 1 after a 20-byte HMAC */
	d[25] = 0xff;		/* not after a 16-byte one */
	check(probe_sslh_udp_openvpn(d, 42) == PROBE_MATCH,
	    "sslh openvpn: packet id 1 after a 20-byte HMAC");
	check(probe_sslh_udp_openvpn(d, 33) == PROBE_NO,
	    "sslh openvpn: the packet id must be followed by more");
	d[0] = 7 << 3 | 1;
	check(probe_udp_openvpn(d, 42) == PROBE_NO &&
	    probe_sslh_udp_openvpn(d, 42) == PROBE_MATCH,
	    "openvpn: key id 1 is sslh's only");
	d[0] = 4 << 3;		/* P_DATA_V1 */
	check(probe_udp_openvpn(d, 42) == PROBE_NO &&
	    probe_sslh_udp_openvpn(d, 42) == PROBE_NO,
	    "openvpn: a data packet is no start");
	memcpy(d, "TS3INIT1\0\x65\x88", 11);
	check(probe_teamspeak(d, 11) == PROBE_MATCH &&
	    probe_sslh_teamspeak(d, 11) == PROBE_MATCH,
	    "teamspeak: TS3INIT1, packet id 101");
	check(probe_teamspeak(d, 8) == PROBE_NO &&
	    probe_sslh_teamspeak(d, 8) == PROBE_MATCH,
	    "teamspeak: TS3INIT1 alone is sslh's only");
	d[8] = 'x';
	check(probe_teamspeak(d, 11) == PROBE_NO &&
	    probe_sslh_teamspeak(d, 11) == PROBE_NO,
	    "teamspeak: a byte not NUL after TS3INIT1");
}

int
main(void)
{
	test_seeds();
	test_tls_records();
	test_tls_hello_fields();
	test_tls_names();
	test_tls_size();
	test_http();
	test_stateless();
	test_sslh_text();
	test_sslh_binary();
	test_sslh_tls();
	test_udp();
	return test_summary();
}
