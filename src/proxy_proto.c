/*
 * proxy_proto.c - build PROXY protocol headers.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "bug.h"
#include "proxy_proto.h"

/* v2's first 12 bytes, which no v1 header or plain request starts with. */
static const unsigned char v2_signature[12] = {
	0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a
};

#define UNIX_PATH_LEN	108	/* the spec's, whatever sun_path's size */

/* An address as the header carries it: IPv4 (mapped too), IPv6, Unix. */
struct endpoint {
	int		family;		/* AF_INET, AF_INET6, AF_UNIX; 0: other */
	unsigned char	addr[16];
	uint16_t	port;		/* network order */
	unsigned char	path[UNIX_PATH_LEN];	/* AF_UNIX: sun_path */
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
	} else if (sa->sa_family == AF_UNIX) {
		const struct sockaddr_un *sun = (const void *)sa;

		e->family = AF_UNIX;
		memcpy(e->path, sun->sun_path, sizeof(sun->sun_path) <
		    UNIX_PATH_LEN ? sizeof(sun->sun_path) : UNIX_PATH_LEN);
	}
}

/* An IPv4 endpoint as IPv6, IPv4-mapped (::ffff:a.b.c.d). */
static void
endpoint_widen(struct endpoint *e)
{
	if (e->family != AF_INET)
		return;
	memmove(e->addr + 12, e->addr, 4);
	memset(e->addr, 0, 10);
	e->addr[10] = e->addr[11] = 0xff;
	e->family = AF_INET6;
}

static size_t
header_v1(const struct endpoint *s, const struct endpoint *d,
    unsigned char *buf)
{
	char	sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN];
	int	n;

	if (s->family == 0 || s->family == AF_UNIX || s->family != d->family)
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
	if (s->family == AF_UNIX) {
		buf[13] = (unsigned char)(0x30 | (stream ? 0x01 : 0x02));
		memcpy(p, s->path, UNIX_PATH_LEN);
		memcpy(p + UNIX_PATH_LEN, d->path, UNIX_PATH_LEN);
		len += 2 * UNIX_PATH_LEN;
		BUG_ON(len > PROXY_HEADER_MAX);
		buf[14] = (unsigned char)((len - 16) >> 8);
		buf[15] = (unsigned char)((len - 16) & 0xff);
		return len;
	}
	buf[13] = (unsigned char)((s->family == AF_INET ? 0x10 : 0x20) |
	    (stream ? 0x01 : 0x02));
	memcpy(p, s->addr, alen);
	memcpy(p + alen, d->addr, alen);
	memcpy(p + 2 * alen, &s->port, 2);
	memcpy(p + 2 * alen + 2, &d->port, 2);
	len += 2 * alen + 4;
	BUG_ON(len > PROXY_HEADER_MAX);
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
	/*
	 * Both IPv4 (mapped ones unwrapped) is TCP4; when only one side
	 * is, both are written as IPv6, the IPv4 one mapped again: the
	 * client is never lost to an UNKNOWN.
	 */
	if ((s.family == AF_INET || s.family == AF_INET6) &&
	    (d.family == AF_INET || d.family == AF_INET6) &&
	    s.family != d.family) {
		endpoint_widen(&s);
		endpoint_widen(&d);
	}
	return version == PROXY_V1 ? header_v1(&s, &d, buf) :
	    header_v2(stream, &s, &d, buf);
}

size_t
proxy_add_authority(unsigned char *buf, size_t len, const char *name)
{
	size_t	n = strlen(name), body;

	if (len < 16 || memcmp(buf, v2_signature, sizeof(v2_signature)) != 0 ||
	    n == 0 || n > 255)
		return len;
	buf[len] = 0x02;	/* PP2_TYPE_AUTHORITY */
	buf[len + 1] = (unsigned char)(n >> 8);
	buf[len + 2] = (unsigned char)(n & 0xff);
	memcpy(buf + len + 3, name, n);
	len += 3 + n;
	body = len - 16;
	buf[14] = (unsigned char)(body >> 8);
	buf[15] = (unsigned char)(body & 0xff);
	return len;
}

/* The bytes so far (n) agree with the start of s (slen): a prefix. */
static bool
prefix_of(const unsigned char *buf, size_t n, const void *s, size_t slen)
{
	return memcmp(buf, s, n < slen ? n : slen) == 0;
}

/* A decimal port, 0..65535, 1 to 5 digits, no sign or leading zero. */
static bool
parse_port(const char *s, size_t len, uint16_t *port)
{
	unsigned long	v = 0;
	size_t		i;

	if (len == 0 || len > 5 || (s[0] == '0' && len > 1))
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > 65535)
		return false;
	*port = htons((uint16_t)v);
	return true;
}

/* One address of family into ss, from len bytes of text. */
static bool
parse_v1_addr(int family, const char *s, size_t len,
    struct sockaddr_storage *ss, socklen_t *sslen)
{
	char	text[INET6_ADDRSTRLEN];

	if (len == 0 || len >= sizeof(text))
		return false;
	memcpy(text, s, len);
	text[len] = '\0';
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)family;
	if (family == AF_INET) {
		*sslen = sizeof(struct sockaddr_in);
		return inet_pton(AF_INET, text,
		    &((struct sockaddr_in *)(void *)ss)->sin_addr) == 1;
	}
	*sslen = sizeof(struct sockaddr_in6);
	return inet_pton(AF_INET6, text,
	    &((struct sockaddr_in6 *)(void *)ss)->sin6_addr) == 1;
}

static void
set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)(void *)ss)->sin_port = port;
	else
		((struct sockaddr_in6 *)(void *)ss)->sin6_port = port;
}

/* "PROXY TCP4 SRC DST SPORT DPORT\r\n", line being the header less CRLF. */
static int
parse_v1_line(const char *line, size_t len, struct proxy_info *info,
    const char **why)
{
	const char	*field[6];
	size_t		 flen[6], n = 0, i, start = 0;
	uint16_t	 sport, dport;
	int		 family;

	/* Fields split by single spaces; no empty one, no tab. */
	for (i = 0; i <= len && n < 6; i++)
		if (i == len || line[i] == ' ') {
			field[n] = line + start;
			flen[n++] = i - start;
			start = i + 1;
		}
	if (n >= 2 && flen[1] == 7 && memcmp(field[1], "UNKNOWN", 7) == 0) {
		info->has_addresses = false;	/* the rest: anything */
		return 0;
	}
	if (n != 6 || i <= len) {
		*why = "a v1 header needs 6 fields";
		return -1;
	}
	for (i = 0; i < 6; i++)
		if (flen[i] == 0) {
			*why = "an empty field in a v1 header";
			return -1;
		}
	if (flen[1] != 4 || memcmp(field[1], "TCP", 3) != 0 ||
	    (field[1][3] != '4' && field[1][3] != '6')) {
		*why = "v1 protocol is not TCP4, TCP6 or UNKNOWN";
		return -1;
	}
	family = field[1][3] == '4' ? AF_INET : AF_INET6;
	if (!parse_v1_addr(family, field[2], flen[2], &info->src,
	    &info->src_len) || !parse_v1_addr(family, field[3], flen[3],
	    &info->dst, &info->dst_len)) {
		*why = "a v1 address is not of its protocol's family";
		return -1;
	}
	if (!parse_port(field[4], flen[4], &sport) ||
	    !parse_port(field[5], flen[5], &dport)) {
		*why = "a v1 port is not 0..65535";
		return -1;
	}
	set_port(&info->src, sport);
	set_port(&info->dst, dport);
	info->has_addresses = true;
	return 0;
}

static int
parse_v1(const unsigned char *buf, size_t len, struct proxy_info *info,
    const char **why)
{
	size_t	i;

	/* CR at PROXY_V1_MAX - 2 at the latest: 107 bytes with its LF. */
	for (i = 0; i < len && i < PROXY_V1_MAX - 1; i++) {
		if (buf[i] == '\n') {
			*why = "a v1 line without CR before LF";
			return PROXY_PARSE_BAD;
		}
		/* Printable ASCII only: a NUL would end a string early. */
		if (buf[i] != '\r' && (buf[i] < 0x20 || buf[i] > 0x7e)) {
			*why = "a v1 header with a byte that is not text";
			return PROXY_PARSE_BAD;
		}
		if (buf[i] != '\r')
			continue;
		if (i + 1 == len)
			return PROXY_PARSE_MORE;
		if (buf[i + 1] != '\n') {
			*why = "a v1 line with CR not before LF";
			return PROXY_PARSE_BAD;
		}
		info->version = PROXY_V1;
		info->stream = true;
		if (parse_v1_line((const char *)buf, i, info, why) == -1)
			return PROXY_PARSE_BAD;
		return (int)i + 2;
	}
	if (len >= PROXY_V1_MAX - 1) {
		*why = "a v1 header longer than 107 bytes";
		return PROXY_PARSE_BAD;
	}
	return PROXY_PARSE_MORE;
}

/* TLVs: each whole within the block; their content is not ours to read. */
static bool
tlvs_fit(const unsigned char *p, size_t len)
{
	size_t	tlen;

	while (len > 0) {
		if (len < 3)
			return false;
		tlen = (size_t)p[1] << 8 | p[2];
		if (tlen > len - 3)
			return false;
		p += 3 + tlen;
		len -= 3 + tlen;
	}
	return true;
}

static int
parse_v2(const unsigned char *buf, size_t len, struct proxy_info *info,
    const char **why)
{
	struct sockaddr_in	*s4 = (void *)&info->src, *d4 = (void *)&info->dst;
	struct sockaddr_in6	*s6 = (void *)&info->src, *d6 = (void *)&info->dst;
	size_t			 body, alen;
	const unsigned char	*p = buf + 16;

	if (len < 16)
		return PROXY_PARSE_MORE;
	if ((buf[12] & 0xf0) != 0x20 || (buf[12] & 0x0f) > 1) {
		*why = "a v2 header of another version or command";
		return PROXY_PARSE_BAD;
	}
	body = (size_t)buf[14] << 8 | buf[15];
	if (body > PROXY_V2_BODY_MAX) {
		*why = "a v2 header longer than ferryd takes";
		return PROXY_PARSE_BAD;
	}
	if (len < 16 + body)
		return PROXY_PARSE_MORE;
	info->version = PROXY_V2;
	info->has_addresses = false;
	info->stream = (buf[13] & 0x0f) == 0x01;
	/* LOCAL: whatever the family says, no address is read. */
	if ((buf[12] & 0x0f) == 0)
		return (int)(16 + body);
	switch (buf[13]) {
	case 0x11: case 0x12:
		alen = 12;
		break;
	case 0x21: case 0x22:
		alen = 36;
		break;
	case 0x00: case 0x31: case 0x32:
		alen = buf[13] == 0 ? 0 : 216;	/* UNSPEC, UNIX */
		break;
	default:
		*why = "a v2 header of an unknown family or protocol";
		return PROXY_PARSE_BAD;
	}
	if (alen > body || !tlvs_fit(p + alen, body - alen)) {
		*why = "v2 addresses or TLVs past the header's length";
		return PROXY_PARSE_BAD;
	}
	if (alen == 12 || alen == 36) {
		memset(&info->src, 0, sizeof(info->src));
		memset(&info->dst, 0, sizeof(info->dst));
		if (alen == 12) {
			s4->sin_family = d4->sin_family = AF_INET;
			memcpy(&s4->sin_addr, p, 4);
			memcpy(&d4->sin_addr, p + 4, 4);
			memcpy(&s4->sin_port, p + 8, 2);
			memcpy(&d4->sin_port, p + 10, 2);
			info->src_len = info->dst_len = sizeof(*s4);
		} else {
			s6->sin6_family = d6->sin6_family = AF_INET6;
			memcpy(&s6->sin6_addr, p, 16);
			memcpy(&d6->sin6_addr, p + 16, 16);
			memcpy(&s6->sin6_port, p + 32, 2);
			memcpy(&d6->sin6_port, p + 34, 2);
			info->src_len = info->dst_len = sizeof(*s6);
		}
		info->has_addresses = true;
	}
	return (int)(16 + body);
}

int
proxy_parse(const unsigned char *buf, size_t len, struct proxy_info *info,
    const char **why)
{
	static const char v1[] = "PROXY ";

	*why = NULL;
	if (len == 0)
		return PROXY_PARSE_MORE;
	if (prefix_of(buf, len, v2_signature, sizeof(v2_signature)))
		return len < sizeof(v2_signature) ? PROXY_PARSE_MORE :
		    parse_v2(buf, len, info, why);
	if (prefix_of(buf, len, v1, sizeof(v1) - 1))
		return len < sizeof(v1) - 1 ? PROXY_PARSE_MORE :
		    parse_v1(buf, len, info, why);
	*why = "not a PROXY header";
	return PROXY_PARSE_BAD;
}
