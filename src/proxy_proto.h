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

/* Longest header made: v1's 107 bytes, v2's 16 + 36 for IPv6. */
#define PROXY_HEADER_MAX	108

enum proxy_version {
	PROXY_OFF = 0,
	PROXY_V1,
	PROXY_V2
};

/*
 * The header of version for a connection (stream) or datagram from src
 * to dst, into buf (PROXY_HEADER_MAX bytes).  IPv4-mapped IPv6
 * addresses are written as IPv4.  Addresses of two families, or of
 * another family, make v1's "PROXY UNKNOWN" and v2's LOCAL command.
 * Returns its length.
 */
size_t	proxy_header(int version, bool stream, const struct sockaddr *src,
    const struct sockaddr *dst, unsigned char *buf);

#endif
