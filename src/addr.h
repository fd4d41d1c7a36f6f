/*
 * addr.h - socket addresses: "host:port" strings to sockaddrs and back.
 */
#ifndef FERRYD_ADDR_H
#define FERRYD_ADDR_H

#include <stddef.h>
#include <netinet/in.h>
#include "config.h"

/* Enough for "[ipv6-address]:65535" and a NUL. */
#define ADDR_STRLEN (INET6_ADDRSTRLEN + 10)

/*
 * Parse "host:port" or "[ipv6]:port" into out.  The host may be a numeric
 * address, "*" (any IPv4 address) or a name resolved with getaddrinfo(); the
 * port may be a number or a service name.  passive selects listen-side
 * resolution.  Returns 0, or -1 with the reason in err.
 */
int addr_resolve(const char *spec, int passive, struct sockaddr_any *out,
    char *err, size_t errlen);

/* Format sa as "1.2.3.4:80" or "[::1]:80" into buf; returns buf. */
const char *addr_format(const struct sockaddr *sa, char *buf, size_t len);

/* Nonzero when a and b are the same address and port. */
int addr_equal(const struct sockaddr_any *a, const struct sockaddr_any *b);

#endif
