/*
 * xprt.h - a transport: how bytes leave and enter a socket.  The relay
 * above never calls recv, send or splice itself, so that another
 * transport (one that keeps a header, one for a different kernel
 * interface) is one more table, not a change to the pump.
 */
#ifndef FERRYD_XPRT_H
#define FERRYD_XPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct xprt_ops {
	const char *name;
	/* Read at most len bytes into buf: what recv(2) returns. */
	ssize_t	(*rcv_buf)(int fd, void *buf, size_t len);
	/*
	 * Write len bytes of buf: what send(2) returns, never SIGPIPE.
	 * more: further bytes (or the FIN) follow at once, so the kernel
	 * may hold this back to fill a segment.
	 */
	ssize_t	(*snd_buf)(int fd, const void *buf, size_t len, bool more);
	/*
	 * Move at most len bytes from fd into the pipe's write end, zero
	 * copy.  -1 with EINVAL or ENOSYS: this socket cannot do it, copy
	 * instead.  NULL where the system has no splice(2).
	 */
	ssize_t	(*rcv_pipe)(int fd, int pipe_w, size_t len);
	/* Move len bytes from the pipe's read end to fd; more as above. */
	ssize_t	(*snd_pipe)(int pipe_r, int fd, size_t len, bool more);
	/*
	 * Look at what is queued on fd without taking it: a header is read
	 * by peeking until complete, then exactly its bytes are taken with
	 * rcv_buf, so what follows stays in the socket (for splice).
	 */
	ssize_t	(*peek)(int fd, void *buf, size_t len);
};

/* Plain sockets: recv, send and splice(2) where the system has it. */
extern const struct xprt_ops xprt_raw;

#endif
