/*
 * proxy_proto.c - build PROXY protocol headers.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "proxy_proto.h"

/* v2's first 12 bytes, which no v1 header or plain request starts with. */
static const unsigned char v2_signature[12] = {
	0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a
};

/* An address as the header carries it: IPv4 (mapped too) or IPv6. */
struct endpoint {
	int		family;		/* AF_INET, AF_INET6, or 0: other */
	unsigned char	addr[16];
	uint16_t	port;		/* network order */
};

static void
endpoint(const struct sockaddr *sa, struct endpoint *e)
{
	const struct sockaddr_in	*sin = (const void *)sa;
	const struct sockaddr_in6	*sin6 = (const void *)sa;

	memset(e, 0, sizeof(*e));
	if (sa->sa_family == AF_INET) {
		e->family = AF_INET;
		memcpy(e->addr, &sin->sin_addr, 4);
		e->port = sin->sin_port;
	} else if (sa->sa_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
		e->family = AF_INET;
		memcpy(e->addr, &sin6->sin6_addr.s6_addr[12], 4);
		e->port = sin6->sin6_port;
	} else if (sa->sa_family == AF_INET6) {
		e->family = AF_INET6;
		memcpy(e->addr, &sin6->sin6_addr, 16);
		e->port = sin6->sin6_port;
	}
}

static size_t
header_v1(const struct endpoint *s, const struct endpoint *d,
    unsigned char *buf)
{
	char	sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN];
	int	n;

	if (s->family == 0 || s->family != d->family)
		n = snprintf((char *)buf, PROXY_HEADER_MAX,
		    "PROXY UNKNOWN\r\n");
	else {
		inet_ntop(s->family, s->addr, sa, sizeof(sa));
		inet_ntop(d->family, d->addr, da, sizeof(da));
		n = snprintf((char *)buf, PROXY_HEADER_MAX,
		    "PROXY TCP%c %s %s %u %u\r\n",
		    s->family == AF_INET ? '4' : '6', sa, da,
		    (unsigned)ntohs(s->port), (unsigned)ntohs(d->port));
	}
	return n > 0 && n < PROXY_HEADER_MAX ? (size_t)n : 0;
}

static size_t
header_v2(bool stream, const struct endpoint *s, const struct endpoint *d,
    unsigned char *buf)
{
	size_t		alen = s->family == AF_INET ? 4 : 16, len = 16;
	unsigned char	*p = buf + 16;

	memcpy(buf, v2_signature, sizeof(v2_signature));
	if (s->family == 0 || s->family != d->family) {
		buf[12] = 0x20;		/* version 2, LOCAL */
		buf[13] = 0x00;		/* UNSPEC */
		buf[14] = buf[15] = 0;
		return len;
	}
	buf[12] = 0x21;			/* version 2, PROXY */
	buf[13] = (unsigned char)((s->family == AF_INET ? 0x10 : 0x20) |
	    (stream ? 0x01 : 0x02));
	memcpy(p, s->addr, alen);
	memcpy(p + alen, d->addr, alen);
	memcpy(p + 2 * alen, &s->port, 2);
	memcpy(p + 2 * alen + 2, &d->port, 2);
	len += 2 * alen + 4;
	buf[14] = (unsigned char)((len - 16) >> 8);
	buf[15] = (unsigned char)((len - 16) & 0xff);
	return len;
}

size_t
proxy_header(int version, bool stream, const struct sockaddr *src,
    const struct sockaddr *dst, unsigned char *buf)
{
	struct endpoint	s, d;

	endpoint(src, &s);
	endpoint(dst, &d);
	return version == PROXY_V1 ? header_v1(&s, &d, buf) :
	    header_v2(stream, &s, &d, buf);
}
