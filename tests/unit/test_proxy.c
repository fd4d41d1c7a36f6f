/*
 * test_proxy.c - unit tests of the PROXY headers ferryd sends
 * (proxy_proto.c): v1's text for IPv4, IPv6 and IPv4-mapped addresses,
 * v2's bytes for streams and datagrams, and what either says of
 * addresses it cannot carry; and the headers it reads (proxy_parse):
 * what it makes of them whole, that every shorter prefix asks for more,
 * and a table of malformed headers, the bug classes of other parsers.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "proxy_proto.h"
#include "testlib.h"

static void
v4(struct sockaddr_in *sin, const char *addr, unsigned port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &sin->sin_addr);
	sin->sin_port = htons((uint16_t)port);
}

static void
v6(struct sockaddr_in6 *sin6, const char *addr, unsigned port)
{
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, addr, &sin6->sin6_addr);
	sin6->sin6_port = htons((uint16_t)port);
}

/* Every prefix of a whole header asks for more; the whole is its length. */
static void
check_whole(const char *desc, const unsigned char *h, size_t n,
    struct proxy_info *info)
{
	const char	*why;
	size_t		 i;
	int		 rc = 0;

	for (i = 0; i < n && rc == PROXY_PARSE_MORE; i++)
		rc = proxy_parse(h, i, info, &why);
	check(rc == PROXY_PARSE_MORE && proxy_parse(h, n, info, &why) ==
	    (int)n, "%s: every prefix wants more, the whole is %zu bytes",
	    desc, n);
}

static void
test_parse(void)
{
	static const struct {
		const char	*desc;
		const char	*bytes;
		size_t		 len;
	} bad[] = {
#define B(d, s)	{ d, s, sizeof(s) - 1 }
		B("not a header", "GET / HTTP/1.0\r\n"),
		B("lower case", "proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n"),
		B("v1 without CR", "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n"),
		B("v1, CR not before LF", "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX"),
		B("v1, 5 fields", "PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n"),
		B("v1, 7 fields", "PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n"),
		B("v1, two spaces", "PROXY TCP4  1.2.3.4 5.6.7.8 1 2\r\n"),
		B("v1, UDP4", "PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n"),
		B("v1, TCP4 with IPv6", "PROXY TCP4 ::1 ::1 1 2\r\n"),
		B("v1, TCP6 with IPv4", "PROXY TCP6 1.2.3.4 5.6.7.8 1 2\r\n"),
		B("v1, port 65536", "PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n"),
		B("v1, port -1", "PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n"),
		B("v1, port 08", "PROXY TCP4 1.2.3.4 5.6.7.8 08 2\r\n"),
		B("v1, address 1.2.3", "PROXY TCP4 1.2.3 5.6.7.8 1 2\r\n"),
		B("v1, NUL in it", "PROXY TCP4 1.2.3.4\0 5.6.7.8 1 2\r\n"),
		B("v1 of 108 bytes", "PROXY UNKNOWN 0123456789012345678901234"
		    "5678901234567890123456789012345678901234567890123456789012"
		    "3456789012\r\n"),
		B("v2, version 1", "\r\n\r\n\0\r\nQUIT\n\x11\x11\0\x0c"
		    "123456789012"),
		B("v2, command 2", "\r\n\r\n\0\r\nQUIT\n\x22\x11\0\x0c"
		    "123456789012"),
		B("v2, family 4", "\r\n\r\n\0\r\nQUIT\n\x21\x41\0\x0c"
		    "123456789012"),
		B("v2, TCP4 in 11 bytes", "\r\n\r\n\0\r\nQUIT\n\x21\x11\0\x0b"
		    "12345678901"),
		B("v2, TCP6 in 12 bytes", "\r\n\r\n\0\r\nQUIT\n\x21\x21\0\x0c"
		    "123456789012"),
		B("v2, a TLV past the end", "\r\n\r\n\0\r\nQUIT\n\x21\x11\0\x10"
		    "123456789012\x01\0\x05x"),
		B("v2, half a TLV header", "\r\n\r\n\0\r\nQUIT\n\x21\x11\0\x0e"
		    "123456789012\x01\0"),
		B("v2, 513 bytes said", "\r\n\r\n\0\r\nQUIT\n\x21\x11\x02\x01"),
		B("v2, a signature gone wrong", "\r\n\r\n\0\r\nQUIX"),
#undef B
	};
	static const unsigned char local[] = "\r\n\r\n\0\r\nQUIT\n\x20\x00"
	    "\0\0";
	static const unsigned char local_with_junk[] = "\r\n\r\n\0\r\nQUIT"
	    "\n\x20\x11\0\x03" "abc";
	struct proxy_info	 info;
	struct sockaddr_in	 a, b;
	struct sockaddr_in6	 c, d;
	unsigned char		 h[PROXY_HEADER_MAX + 8];
	const char		*why;
	size_t			 n, i;
	int			 rc, wrong = 0;

	v4(&a, "192.0.2.1", 54321);
	v4(&b, "198.51.100.7", 443);
	v6(&c, "2001:db8::1", 1);
	v6(&d, "2001:db8::2", 65535);
	n = proxy_header(PROXY_V1, true, (void *)&a, (void *)&b, h);
	check_whole("v1, IPv4", h, n, &info);
	check(info.version == PROXY_V1 && info.has_addresses &&
	    memcmp(&((struct sockaddr_in *)(void *)&info.src)->sin_addr,
	    &a.sin_addr, 4) == 0 &&
	    ((struct sockaddr_in *)(void *)&info.src)->sin_port == a.sin_port &&
	    ((struct sockaddr_in *)(void *)&info.dst)->sin_port == b.sin_port,
	    "v1, IPv4: the client and where it connected");
	n = proxy_header(PROXY_V2, true, (void *)&c, (void *)&d, h);
	check_whole("v2, IPv6", h, n, &info);
	check(info.version == PROXY_V2 && info.has_addresses &&
	    info.src.ss_family == AF_INET6 &&
	    ((struct sockaddr_in6 *)(void *)&info.dst)->sin6_port ==
	    d.sin6_port, "v2, IPv6: the client and where it connected");
	memcpy(h + n, "payload", 7);
	check(proxy_parse(h, n + 7, &info, &why) == (int)n,
	    "v2 with payload behind it: only the header is taken");
	check_whole("v2 LOCAL", local, 16, &info);
	check(!info.has_addresses, "v2 LOCAL: no addresses, the connection's");
	rc = proxy_parse(local_with_junk, 19, &info, &why);
	check(rc == 19 && !info.has_addresses,
	    "v2 LOCAL with a family and bytes: none of them read as addresses");
	check(proxy_parse((const unsigned char *)"PROXY UNKNOWN ffff::1 x\r\n",
	    25, &info, &why) == 25 && !info.has_addresses,
	    "v1 UNKNOWN: anything up to CRLF, the connection's addresses");
	/* The spec's longest v1 line: 107 bytes with its CRLF. */
	memset(h, 'x', sizeof(h));
	memcpy(h, "PROXY UNKNOWN ", 14);
	memcpy(h + 105, "\r\n", 2);
	check(proxy_parse(h, 107, &info, &why) == 107,
	    "v1 of 107 bytes, CRLF included: whole");
	memcpy(h + 105, "x\r\n", 3);
	check(proxy_parse(h, 108, &info, &why) == PROXY_PARSE_BAD &&
	    proxy_parse(h, 106, &info, &why) == PROXY_PARSE_BAD,
	    "v1 of 108 bytes: refused, as soon as its 106th byte is no CR");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rc = proxy_parse((const unsigned char *)bad[i].bytes, bad[i].len,
		    &info, &why);
		if (rc != PROXY_PARSE_BAD || why == NULL) {
			printf("# %s: %d\n", bad[i].desc, rc);
			wrong++;
		}
	}
	check(wrong == 0, "%zu malformed headers refused, each with a reason",
	    sizeof(bad) / sizeof(bad[0]));
}

/*
 * A Unix client (unnamed, or an abstract name) of a listener at a path:
 * v2's AF_UNIX block, 108 + 108 bytes, each sun_path as it is; v1 has
 * no way to say it; a Unix and an IP address are LOCAL.
 */
static void
test_unix(void)
{
	struct sockaddr_un	cl, ln, ab;
	struct sockaddr_in	ip;
	unsigned char		h[PROXY_HEADER_MAX + 1], zero[108];
	size_t			n;

	memset(&cl, 0, sizeof(cl));
	cl.sun_family = AF_UNIX;
	ln = ab = cl;
	strcpy(ln.sun_path, "/run/app.sock");
	memcpy(ab.sun_path, "\0name", 5);
	memset(zero, 0, sizeof(zero));
	n = proxy_header(PROXY_V2, true, (void *)&cl, (void *)&ln, h);
	check(n == 16 + 216 && h[12] == 0x21 && h[13] == 0x31 &&
	    h[14] == 0 && h[15] == 216 && memcmp(h + 16, zero, 108) == 0 &&
	    memcmp(h + 124, "/run/app.sock", 14) == 0 &&
	    memcmp(h + 138, zero, 108 - 14) == 0,
	    "v2, Unix: UNIX STREAM, 216 bytes, an unnamed source, the "
	    "listener's path NUL-padded");
	n = proxy_header(PROXY_V2, true, (void *)&ab, (void *)&ln, h);
	check(n == 232 && memcmp(h + 16, "\0name\0", 6) == 0,
	    "v2, Unix: an abstract source keeps its leading NUL");
	n = proxy_header(PROXY_V1, true, (void *)&cl, (void *)&ln, h);
	check(n == 15 && memcmp(h, "PROXY UNKNOWN\r\n", 15) == 0,
	    "v1, Unix: UNKNOWN");
	v4(&ip, "192.0.2.1", 80);
	n = proxy_header(PROXY_V2, true, (void *)&cl, (void *)&ip, h);
	check(n == 16 && h[12] == 0x20 && h[13] == 0,
	    "v2, a Unix client to an IP address: LOCAL");
}

/* A route's SNI as PP2_TYPE_AUTHORITY: the header grows by its TLV. */
static void
test_authority(void)
{
	static const char	name[] = "www.example.org";
	struct sockaddr_in	a, b;
	struct proxy_info	info;
	unsigned char		h[PROXY_HEADER_MAX + PROXY_AUTHORITY_MAX];
	const char		*why;
	size_t			n, m;

	v4(&a, "192.0.2.1", 54321);
	v4(&b, "198.51.100.7", 443);
	n = proxy_header(PROXY_V2, true, (void *)&a, (void *)&b, h);
	m = proxy_add_authority(h, n, name);
	check(m == n + 3 + strlen(name) && h[n] == 0x02 && h[n + 1] == 0 &&
	    h[n + 2] == strlen(name) && memcmp(h + n + 3, name,
	    strlen(name)) == 0 && ((size_t)h[14] << 8 | h[15]) == m - 16,
	    "v2 + authority TLV: type 2, length %zu, the header's length "
	    "%zu", strlen(name), m - 16);
	check(proxy_parse(h, m, &info, &why) == (int)m && info.has_addresses,
	    "v2 with the TLV reads back whole, its addresses kept");
	n = proxy_header(PROXY_V1, true, (void *)&a, (void *)&b, h);
	check(proxy_add_authority(h, n, name) == n,
	    "v1 has no TLVs: unchanged");
	n = proxy_header(PROXY_V2, true, (void *)&a, (void *)&b, h);
	check(proxy_add_authority(h, n, "") == n, "no name: no TLV");
}

int
main(void)
{
	static const unsigned char sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00,
	    0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };
	static const unsigned char v2tail[] = { 0x21, 0x11, 0x00, 0x0c,
	    192, 0, 2, 1, 198, 51, 100, 7, 0xd4, 0x31, 0x01, 0xbb };
	struct sockaddr_in	a, b;
	struct sockaddr_in6	c, d, m, mb;
	unsigned char		h[PROXY_HEADER_MAX + 1];
	size_t			n;

	v4(&a, "192.0.2.1", 54321);
	v4(&b, "198.51.100.7", 443);
	v6(&c, "2001:db8::1", 1);
	v6(&d, "2001:db8::2", 65535);
	v6(&m, "::ffff:192.0.2.1", 54321);
	v6(&mb, "::ffff:198.51.100.7", 443);

	n = proxy_header(PROXY_V1, true, (void *)&a, (void *)&b, h);
	h[n] = '\0';
	check(strcmp((char *)h, "PROXY TCP4 192.0.2.1 198.51.100.7 54321 443"
	    "\r\n") == 0, "v1, IPv4: %.*s", (int)n - 2, h);
	n = proxy_header(PROXY_V1, true, (void *)&c, (void *)&d, h);
	h[n] = '\0';
	check(strcmp((char *)h, "PROXY TCP6 2001:db8::1 2001:db8::2 1 65535"
	    "\r\n") == 0, "v1, IPv6: %.*s", (int)n - 2, h);
	n = proxy_header(PROXY_V1, true, (void *)&m, (void *)&b, h);
	h[n] = '\0';
	check(strncmp((char *)h, "PROXY TCP4 192.0.2.1 ", 21) == 0,
	    "v1, an IPv4-mapped client is TCP4 with plain IPv4");
	n = proxy_header(PROXY_V1, true, (void *)&m, (void *)&mb, h);
	h[n] = '\0';
	check(strcmp((char *)h, "PROXY TCP4 192.0.2.1 198.51.100.7 54321 443"
	    "\r\n") == 0, "v1, both IPv4-mapped (a dual-stack listener): TCP4, "
	    "both unwrapped: %.*s", (int)n - 2, h);
	n = proxy_header(PROXY_V1, true, (void *)&a, (void *)&d, h);
	h[n] = '\0';
	check(strcmp((char *)h, "PROXY TCP6 ::ffff:192.0.2.1 2001:db8::2 54321 "
	    "65535\r\n") == 0, "v1, IPv4 and IPv6: both TCP6: %.*s",
	    (int)n - 2, h);
	n = proxy_header(PROXY_V1, true, (void *)&m, (void *)&d, h);
	h[n] = '\0';
	check(strcmp((char *)h, "PROXY TCP6 ::ffff:192.0.2.1 2001:db8::2 54321 "
	    "65535\r\n") == 0, "v1, IPv4-mapped and IPv6: both TCP6: %.*s",
	    (int)n - 2, h);

	n = proxy_header(PROXY_V2, true, (void *)&a, (void *)&b, h);
	check(n == 28 && memcmp(h, sig, 12) == 0 &&
	    memcmp(h + 12, v2tail, sizeof(v2tail)) == 0,
	    "v2, IPv4 stream: signature, PROXY, TCP4, 12 bytes of addresses");
	n = proxy_header(PROXY_V2, false, (void *)&c, (void *)&d, h);
	check(n == 52 && h[12] == 0x21 && h[13] == 0x22 && h[14] == 0 &&
	    h[15] == 36 && h[16] == 0x20 && h[50] == 0xff && h[51] == 0xff,
	    "v2, IPv6 datagram: UDP6, 36 bytes of addresses, ports last");
	n = proxy_header(PROXY_V2, true, (void *)&m, (void *)&b, h);
	check(n == 28 && h[13] == 0x11 && h[16] == 192,
	    "v2, an IPv4-mapped client is TCP4");
	n = proxy_header(PROXY_V2, true, (void *)&m, (void *)&mb, h);
	check(n == 28 && memcmp(h + 12, v2tail, sizeof(v2tail)) == 0,
	    "v2, both IPv4-mapped: TCP4, both unwrapped");
	n = proxy_header(PROXY_V2, true, (void *)&a, (void *)&d, h);
	check(n == 52 && h[12] == 0x21 && h[13] == 0x21 && h[15] == 36 &&
	    memcmp(h + 16, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\0\2\1", 16) == 0 &&
	    memcmp(h + 32, &d.sin6_addr, 16) == 0,
	    "v2, IPv4 and IPv6: TCP6, the IPv4 client mapped");
	n = proxy_header(PROXY_V2, true, (void *)&c, (void *)&b, h);
	check(n == 52 && h[13] == 0x21 &&
	    memcmp(h + 16, &c.sin6_addr, 16) == 0 && h[32 + 10] == 0xff && h[32 + 12] == 198,
	    "v2, IPv6 client to an IPv4 address: TCP6, the address mapped");
	test_unix();
	test_parse();
	test_authority();
	return test_summary();
}
