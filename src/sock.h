/*
 * sock.h - socket helpers that hide what differs between systems
 * (accept4 and SOCK_NONBLOCK on Linux, fcntl elsewhere).
 */
#ifndef FERRYD_SOCK_H
#define FERRYD_SOCK_H

#include "conf.h"

/* A non-blocking, close-on-exec TCP socket of family, or -1. */
int  sock_stream(int family);
/* accept(2) giving a non-blocking, close-on-exec socket, or -1. */
int  sock_accept(int lfd, struct sockaddr_any *peer);
/*
 * A bound, listening, non-blocking SO_REUSEPORT socket for addr (IPv6:
 * IPV6_V6ONLY as v6only says), or -1
 * with "cannot bind ADDR: reason" (or the step that failed) in err.
 */
int  sock_listen(const struct sockaddr_any *addr, int backlog, bool v6only,
    char *err, size_t errlen);
/* Bind fd to the local address src (port 0) before connecting; -1 and
 * errno on failure. */
int  sock_bind_source(int fd, const struct sockaddr_any *src);
/* Disable Nagle: a forwarder must not add latency. */
void sock_nodelay(int fd);
/* Set SO_SNDBUF and SO_RCVBUF where non-zero; sockets accepted from a
 * listener inherit them. */
void sock_buffers(int fd, int sndbuf, int rcvbuf);
/* Make close(2) send a reset instead of a FIN. */
void sock_reset_on_close(int fd);

#endif
