/*
 * xprt_raw.c - the raw transport: a socket as the kernel gives it.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <sys/socket.h>

#include "xprt.h"

#ifndef MSG_MORE
#define MSG_MORE 0		/* a hint only: where missing, do without */
#endif

static ssize_t
raw_rcv_buf(int fd, void *buf, size_t len)
{
	return recv(fd, buf, len, 0);
}

static ssize_t
raw_snd_buf(int fd, const void *buf, size_t len, bool more)
{
	return send(fd, buf, len, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
}

static ssize_t
raw_peek(int fd, void *buf, size_t len)
{
	return recv(fd, buf, len, MSG_PEEK);
}

#ifdef HAVE_SPLICE
/*
 * splice(2) stops at a TCP urgent mark and returns EAGAIN until something
 * reads past it with recv(2): the caller copies once the socket reported
 * urgent data.  A short splice may mean a full pipe, not an empty socket.
 */
static ssize_t
raw_rcv_pipe(int fd, int pipe_w, size_t len)
{
	return splice(fd, NULL, pipe_w, NULL, len,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
}

static ssize_t
raw_snd_pipe(int pipe_r, int fd, size_t len, bool more)
{
	return splice(pipe_r, NULL, fd, NULL, len,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK | (more ? SPLICE_F_MORE : 0));
}
#endif

const struct xprt_ops xprt_raw = {
	.name = "raw",
	.rcv_buf = raw_rcv_buf,
	.snd_buf = raw_snd_buf,
#ifdef HAVE_SPLICE
	.rcv_pipe = raw_rcv_pipe,
	.snd_pipe = raw_snd_pipe,
#endif
	.peek = raw_peek,
};
