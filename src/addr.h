/*
 * addr.h - socket addresses: "host:port" strings to sockaddrs and back.
 */
#ifndef FERRYD_ADDR_H
#define FERRYD_ADDR_H

#include <stddef.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

/* A socket address with its length, as bind(2) and connect(2) want it. */
struct sockaddr_any {
	struct sockaddr_storage ss;
	socklen_t               len;
};


/*
 * Enough for "[ipv6-address]:65535" and a NUL, and for "unix:" and the
 * longest path a Unix socket address holds (107 bytes, "@" for an
 * abstract name's NUL).
 */
#define ADDR_STRLEN (5 + 108 + 1)

/*
 * Unix-domain stream addresses are written "unix:/path" (a socket file)
 * or "unix:@name" (Linux's abstract namespace, no file).  They resolve
 * to a sockaddr_un whose length covers the path without its NUL.
 */
#define ADDR_UNIX_PREFIX	"unix:"

/* Whether spec is written as a Unix-domain address ("unix:..."). */
int addr_is_unix_spec(const char *spec);

/*
 * A client of a Unix listener carries the credentials of its process
 * (SO_PEERCRED, taken at accept) in the storage after its sockaddr_un,
 * which sockaddr_storage has room for: every sockaddr_any copy keeps
 * them, and the access log and the limits read them through the client
 * sockaddr alone.  has_cred is 0 for any other Unix address.
 */
struct addr_unix_peer {
	struct sockaddr_un	sun;
	unsigned char		has_cred;
	int			pid;
	unsigned		uid, gid;
};

/*
 * Set the credentials of a Unix client whose address is in a (accepted
 * on fd): 0, or -1 where the system cannot tell them.
 */
int addr_unix_take_cred(struct sockaddr_any *a, int fd);

/* The credentials of a Unix client sa, or NULL if it has none. */
const struct addr_unix_peer *addr_unix_cred(const struct sockaddr *sa);

/*
 * The file of a Unix address: its path, or NULL for an abstract name or
 * another family.
 */
const char *addr_unix_path(const struct sockaddr_any *a);

/*
 * Parse "host:port" or "[ipv6]:port" into out.  The host may be a numeric
 * address, "*" (any IPv4 address) or a name resolved with getaddrinfo(); the
 * port may be a number or a service name.  passive selects listen-side
 * resolution.  Returns 0, or -1 with the reason in err.
 */
int addr_resolve(const char *spec, int passive, struct sockaddr_any *out,
    char *err, size_t errlen);

/*
 * Like addr_resolve(), but every address of the host, each once, in the
 * resolver's order: *out (free() it) gets *n >= 1 of them.  passive as
 * addr_resolve()'s: a listen address (localhost: 127.0.0.1 and ::1, both
 * bound, as nginx and sslh do) or a connect one.
 */
int addr_resolve_all(const char *spec, int passive, struct sockaddr_any **out,
    size_t *n,
    char *err, size_t errlen);

/*
 * A port range "host:lo-hi" (numeric ports, lo <= hi): "host:lo" in out
 * and the number of ports in *count.  Anything else is copied as it is,
 * with *count 1.  -1 with the reason in err.
 */
int addr_split_range(const char *spec, char *out, size_t outlen,
    unsigned *count, char *err, size_t errlen);

/* Set the port of a (IPv4 or IPv6). */
void addr_set_port(struct sockaddr_any *a, unsigned port);

/* spec ("host:port" or "host:lo-hi") with its port(s) replaced by port. */
int addr_with_port(const char *spec, unsigned port, char *out, size_t outlen);

/*
 * Format sa as "1.2.3.4:80", "[::1]:80", "unix:/path" or "unix:@name"
 * (an unnamed Unix client: "unix:"); returns buf.
 */
const char *addr_format(const struct sockaddr *sa, char *buf, size_t len);

/*
 * Parse a host without a port, such as a source address: a numeric IPv4
 * address, an IPv6 address (bare or in brackets) or a name.  With family
 * AF_INET or AF_INET6 the first address of that family is taken, and a
 * host that has none is an error.  The port of out is 0.  Returns 0, or -1
 * with the reason in err.
 */
int addr_resolve_host(const char *host, int family, struct sockaddr_any *out,
    char *err, size_t errlen);

/*
 * The numeric host of sa, without brackets or port, and an IPv4-mapped
 * IPv6 address as plain IPv4: "192.0.2.1", "2001:db8::1"; a Unix address
 * as addr_format() writes it, and a Unix client with credentials as
 * "pid=P,uid=U".  Returns buf.  Makes no system call.
 */
const char *addr_host(const struct sockaddr *sa, char *buf, size_t len);

/* The port of sa in host byte order; 0 for other families. */
unsigned int addr_port(const struct sockaddr *sa);

/* Nonzero when a and b are the same address and port. */
int addr_equal(const struct sockaddr_any *a, const struct sockaddr_any *b);

#endif
