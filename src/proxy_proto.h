/*
 * proxy_proto.h - the PROXY protocol's headers (HAProxy's spec, versions
 * 1 and 2), which tell a backend the client's address and the address
 * the client connected to.
 */
#ifndef FERRYD_PROXY_PROTO_H
#define FERRYD_PROXY_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/*
 * Longest header made: v1's 107 bytes; v2's 16 + 36 for IPv6, 16 + 216
 * for AF_UNIX (two paths of 108 bytes).
 */
#define PROXY_HEADER_MAX	232

enum proxy_version {
	PROXY_OFF = 0,
	PROXY_V1,
	PROXY_V2,
	/*
	 * send_proxy "pass": the header the client sent (accept_proxy), as
	 * it came; none when it sent none.  Never made by proxy_header().
	 */
	PROXY_PASS
};

/*
 * The header of version for a connection (stream) or datagram from src
 * to dst, into buf (PROXY_HEADER_MAX bytes).  IPv4-mapped IPv6
 * addresses are unwrapped on both sides together: two IPv4 (mapped or
 * not) are TCP4/AF_INET; an IPv4 and an IPv6 are both IPv6 (TCP6/
 * AF_INET6, the IPv4 one as ::ffff:a.b.c.d), so the client is kept.
 * Two Unix addresses make v2's AF_UNIX block (each sun_path as it is,
 * 108 bytes, an abstract name with its leading NUL); v1 has no way to
 * say them.  Any other address (not IP), or a Unix address with an IP
 * one, makes v1's "PROXY UNKNOWN" and v2's LOCAL command.  Returns its
 * length.
 */
size_t	proxy_header(int version, bool stream, const struct sockaddr *src,
    const struct sockaddr *dst, unsigned char *buf);

/*
 * A v2 header of len bytes in buf (room for PROXY_AUTHORITY_MAX more)
 * gains a PP2_TYPE_AUTHORITY TLV with name (the TLS SNI a route
 * matched; at most 255 bytes): the new length.  v1 has no TLVs: len.
 */
#define PROXY_AUTHORITY_MAX	(3 + 255)
size_t	proxy_add_authority(unsigned char *buf, size_t len, const char *name);

/*
 * Reading a header a client sends (accept_proxy).  v1 is at most 107
 * bytes; a v2 header's address block and TLVs at most
 * PROXY_V2_BODY_MAX bytes (the spec allows more; nobody sends it).
 */
#define PROXY_V1_MAX		107
#define PROXY_V2_BODY_MAX	512
#define PROXY_IN_MAX		(16 + PROXY_V2_BODY_MAX)

enum proxy_parse_result {
	PROXY_PARSE_MORE = 0,	/* a header's start: wait for the rest */
	PROXY_PARSE_BAD = -1	/* not a header: close; *why says what */
};

/* What a whole header says. */
struct proxy_info {
	int			version;	/* PROXY_V1 or PROXY_V2 */
	/*
	 * false: LOCAL (v2) or UNKNOWN (v1), or addresses of a family
	 * that is not IP: the connection's own addresses stand.
	 */
	bool			has_addresses;
	bool			stream;		/* v2: of a stream (TCP) */
	struct sockaddr_storage	src, dst;	/* when has_addresses */
	socklen_t		src_len, dst_len;
};

/*
 * Look at the first len bytes a client sent: the header's length (> 0)
 * once it is whole, with what it says in *info; PROXY_PARSE_MORE while
 * every byte so far can start a header; PROXY_PARSE_BAD with a reason
 * in *why (a constant string) as soon as one cannot.  Reads nothing
 * past len, nor past the header's own length.
 */
int	proxy_parse(const unsigned char *buf, size_t len,
    struct proxy_info *info, const char **why);

#endif
