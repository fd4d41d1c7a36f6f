/*
 * sock.h - socket helpers that hide what differs between systems
 * (accept4 and SOCK_NONBLOCK on Linux, fcntl elsewhere).
 */
#ifndef FERRYD_SOCK_H
#define FERRYD_SOCK_H

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <sys/socket.h>

#include "addr.h"

/* Which legs of a connection keepalive is on (sslh sets them apart). */
enum keepalive_legs {
	KEEPALIVE_BOTH,
	KEEPALIVE_CLIENT,
	KEEPALIVE_BACKEND,
};

/* TCP keepalive on the legs of a connection, when enabled. */
struct keepalive {
	bool    enabled;
	int     idle, interval;              /* ms, whole seconds */
	int     count;                       /* probes before giving up */
	int     legs;                        /* enum keepalive_legs */
};

/* Whether ka keeps the client's leg (client) or the backend's alive. */
static inline bool
keepalive_on(const struct keepalive *ka, bool client)
{
	return ka->enabled && ka->legs != (client ? KEEPALIVE_BACKEND :
	    KEEPALIVE_CLIENT);
}

/* A non-blocking, close-on-exec TCP socket of family, or -1. */
int  sock_stream(int family);
/* The same for UDP. */
int  sock_dgram(int family);
/* accept(2) giving a non-blocking, close-on-exec socket, or -1. */
int  sock_accept(int lfd, struct sockaddr_any *peer);
/*
 * A bound, non-blocking socket of type (SOCK_STREAM: listening; SOCK_DGRAM:
 * telling each datagram's destination address) for addr (IPv6:
 * IPV6_V6ONLY as v6only says), one of a group balanced by the kernel
 * (SO_REUSEPORT on Linux, SO_REUSEPORT_LB on FreeBSD) when balanced is
 * true, or -1 with "cannot bind ADDR: reason" (or the step that failed)
 * in err.
 */
int  sock_listen(const struct sockaddr_any *addr, int type, int backlog,
    bool v6only, bool balanced, char *err, size_t errlen);
/* A Unix listener's file: its mode, owner and group ((uid_t)-1: ours). */
struct sock_unix_file {
	int	mode;
	uid_t	uid;
	gid_t	gid;
};
/*
 * A listening, non-blocking Unix stream socket at path, its file as file
 * says (NULL: mode 0600, ours), in place of a socket file nobody listens
 * on; -1 with "cannot bind unix:PATH: reason" in err (also when another
 * process listens there).
 */
int  sock_listen_unix(const char *path, int backlog,
    const struct sock_unix_file *file, char *err, size_t errlen);
/*
 * The same for a Unix address (a path or an abstract name): a path's
 * file is made with file's mode and given its owner and group (file
 * NULL: 0600, ours) before listen(), so that no client connects before
 * they are right.  A stale
 * file is replaced only when it is a socket that refuses connections; a
 * live one is "in use by another process", any other file "not a
 * socket".
 */
int  sock_listen_unix_addr(const struct sockaddr_any *addr, int backlog,
    const struct sock_unix_file *file, char *err, size_t errlen);
/*
 * Whether fd is a listening Unix stream socket bound to path (a number
 * handed across exec is checked before it is taken as one).
 */
bool sock_unix_listening(int fd, const char *path);
/*
 * Give the socket file at path file's mode, owner and group, if it is
 * still a socket (a kept listener's, at a reload); 0 or -1.
 */
int  sock_unix_file_set(const char *path, const struct sock_unix_file *file,
    char *err, size_t errlen);
/*
 * Try to bind addr with a socket of type as a socket of nobody's group
 * would: without SO_REUSEPORT (TCP: with SO_REUSEADDR, so that
 * connections in TIME_WAIT do not count), without listen(), and close it
 * at once.  Returns 0 when
 * the address could be bound, else the errno of the attempt: EADDRINUSE
 * when another socket listens on it (which a second ferryd's
 * SO_REUSEPORT sockets would otherwise share silently), EADDRNOTAVAIL
 * when it is not on this host, EACCES for a privileged port.  A Unix
 * socket file is left as it was: a stale one counts as free (a start
 * replaces it), another kind of file is ENOTSOCK.
 */
int  sock_probe(const struct sockaddr_any *addr, int type, bool v6only);
/* The uid of the process at the other end of UNIX socket fd; -1 unknown. */
uid_t sock_peer_uid(int fd);
/* Bind fd to the local address src (port 0) before connecting; -1 and
 * errno on failure. */
int  sock_bind_source(int fd, const struct sockaddr_any *src);

/*
 * The addresses of one family that connections to backends leave from
 * (a rule's source), taken in turn.  Made by the loader; each worker
 * has its own copy of turn, as it has of the whole configuration.
 */
struct source_pool {
	unsigned            n;       /* 1 or more */
	unsigned            turn;    /* the next one to take */
	struct sockaddr_any addr[];
};

/*
 * Bind fd to the pool's next address (as sock_bind_source); if that
 * address has no port left (EADDRINUSE, EADDRNOTAVAIL: a UDP socket
 * takes its port at bind), the next, at most once round.  -1 and errno.
 */
int  sock_bind_pool(int fd, struct source_pool *p);
/*
 * transparent: bind fd, a socket of family towards a backend, to the
 * client's address and port (any port when that one is taken) with
 * IP_TRANSPARENT, so that the backend sees the client.  An IPv4-mapped client counts as
 * IPv4.  -1 and errno on failure: EAFNOSUPPORT when the client is not of
 * family, EPERM without CAP_NET_ADMIN, EOPNOTSUPP where there is no
 * IP_TRANSPARENT.
 */
int  sock_bind_transparent(int fd, int family, const struct sockaddr *client);
/* Disable Nagle: a forwarder must not add latency. */
void sock_nodelay(int fd);
/* Set SO_SNDBUF and SO_RCVBUF where non-zero; sockets accepted from a
 * listener inherit them. */
void sock_buffers(int fd, int sndbuf, int rcvbuf);
/*
 * A UDP listening socket's receive buffer: rcvbuf, or where 0 a large
 * default, so that a burst from many clients waits instead of being
 * dropped; past net.core.rmem_max where the process may.
 */
#define SOCK_DGRAM_RCVBUF	(4 * 1024 * 1024)
void sock_dgram_rcvbuf(int fd, int rcvbuf);

/*
 * Let the kernel hand a run of equal-size datagrams to one read, with a
 * UDP_GRO control message giving their size (sock_gro_size).  Nothing
 * where the system has no UDP_GRO: each read is then one datagram.
 */
void sock_udp_gro(int fd);

/* Whether err says descriptors or memory ran out (for now). */
bool sock_shortage(int err);
/*
 * Whether err, from socket, bind or connect, is this host's own failure
 * (a shortage, no ephemeral port or local address left), which says
 * nothing of the peer: no backend is to blame for it.
 */
bool sock_own_failure(int err);

/* The size of each datagram a read took, or 0 when it took one. */
size_t sock_gro_size(const struct msghdr *mh);
/*
 * With on, make close(2) send a reset instead of a FIN (SO_LINGER with a
 * zero timeout), also when the kernel closes fd because the process
 * died; accepted sockets inherit it from their listener on Linux.  Off
 * before an orderly FIN, so that no data still queued is dropped.
 */
void sock_abort_on_close(int fd, bool on);
/*
 * TCP keepalive on fd as ka says, or off when it is not enabled (a
 * listening socket kept over a reload that dropped it).
 */
void sock_keepalive(int fd, const struct keepalive *ka);
/*
 * A listening socket's TCP Fast Open queue (qlen; 0: off) and deferred
 * accept (TCP_DEFER_ACCEPT, seconds; 0: off).  -1 with errno
 * (ENOPROTOOPT where the system has no such option).  Linux only.
 */
int  sock_fastopen(int fd, int qlen);
int  sock_defer_accept(int fd, int seconds);
/*
 * TCP Fast Open towards fd's peer (TCP_FASTOPEN_CONNECT), before its
 * connect(2): with a cookie from an earlier connection the SYN carries
 * the first bytes written.  Nothing where the system cannot.
 */
void sock_fastopen_connect(int fd);
/*
 * At most rate bytes a second sent on fd (SO_MAX_PACING_RATE: the kernel
 * paces the segments; 0: no limit).  A listener's accepted connections
 * inherit it.  -1 with errno (ENOPROTOOPT where the system cannot).
 */
int  sock_pacing_rate(int fd, int rate);
/*
 * Bytes written to stream socket fd that its peer has not acknowledged
 * yet (SIOCOUTQ), or -1 with errno where the system cannot tell.
 */
int  sock_unsent(int fd);
/*
 * Read and drop the TCP urgent byte of fd, if one is there: a socket
 * reports urgent data (POLLPRI) until it is read out of band.
 */
void sock_discard_urgent(int fd);

#endif
