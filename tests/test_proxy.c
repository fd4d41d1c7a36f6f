/*
 * test_proxy.c - unit tests of the PROXY headers ferryd sends
 * (proxy_proto.c): v1's text for IPv4, IPv6 and IPv4-mapped addresses,
 * v2's bytes for streams and datagrams, and what either says of
 * addresses it cannot carry.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

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

int
main(void)
{
	static const unsigned char sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00,
	    0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };
	static const unsigned char v2tail[] = { 0x21, 0x11, 0x00, 0x0c,
	    192, 0, 2, 1, 198, 51, 100, 7, 0xd4, 0x31, 0x01, 0xbb };
	struct sockaddr_in	a, b;
	struct sockaddr_in6	c, d, m;
	unsigned char		h[PROXY_HEADER_MAX + 1];
	size_t			n;

	v4(&a, "192.0.2.1", 54321);
	v4(&b, "198.51.100.7", 443);
	v6(&c, "2001:db8::1", 1);
	v6(&d, "2001:db8::2", 65535);
	v6(&m, "::ffff:192.0.2.1", 54321);

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
	n = proxy_header(PROXY_V1, true, (void *)&a, (void *)&d, h);
	h[n] = '\0';
	check(strcmp((char *)h, "PROXY UNKNOWN\r\n") == 0,
	    "v1, two families: UNKNOWN");

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
	n = proxy_header(PROXY_V2, true, (void *)&a, (void *)&d, h);
	check(n == 16 && h[12] == 0x20 && h[13] == 0 && h[15] == 0,
	    "v2, two families: LOCAL, no addresses");
	return test_summary();
}
