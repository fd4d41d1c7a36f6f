/*
 * ipc.c - framed messages with descriptors over an AF_UNIX socketpair.
 *
 * SOCK_SEQPACKET keeps each message whole (no reassembly, no partial
 * reads), and SCM_RIGHTS carries descriptors: how the master, which may
 * open what a worker running as another user cannot, hands it a file.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bug.h"
#include "clock.h"
#include "ipc.h"

/* What goes on the wire in front of the payload. */
/* Bytes a channel may hold, each way. */
#define IPC_ROOM	(4 * 1024 * 1024)

struct ipc_header {
	uint32_t type;
	uint32_t len;
};

/*
 * Room for what a reload sends a new worker before it reads: every
 * session handed over, and datagrams passed on (up to 64 KiB each).
 * Past net.core.wmem_max where the process may; the default otherwise.
 */
static void
ipc_room(int fd)
{
	int size = IPC_ROOM;

#ifdef SO_SNDBUFFORCE
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size,
	    sizeof(size)) == 0)
		return;
#endif
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

int
ipc_pair(int fds[2])
{
	int flags;

#ifdef SOCK_CLOEXEC
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) == -1)
		return -1;
#else
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) == -1)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(fds[1], F_SETFD, FD_CLOEXEC) == -1)
		goto fail;
#endif
	ipc_room(fds[0]);
	ipc_room(fds[1]);
	if ((flags = fcntl(fds[0], F_GETFL)) == -1 ||
	    fcntl(fds[0], F_SETFL, flags | O_NONBLOCK) == -1 ||
	    (flags = fcntl(fds[1], F_GETFL)) == -1 ||
	    fcntl(fds[1], F_SETFL, flags | O_NONBLOCK) == -1)
		goto fail;
	return 0;
fail:
	flags = errno;
	close(fds[0]);
	close(fds[1]);
	errno = flags;
	return -1;
}

int
ipc_send(int fd, int type, const void *data, size_t len, const int *fds,
    int nfds)
{
	struct ipc_header	 h;
	struct iovec		 iov[2];
	struct msghdr		 mh;
	union {
		struct cmsghdr	 align;
		char		 buf[CMSG_SPACE(IPC_MAX_FDS * sizeof(int))];
	}			 cm;
	struct cmsghdr		*c;
	ssize_t			 n;

	if (len > IPC_MAX_DATA || nfds < 0 || nfds > IPC_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	h.type = (uint32_t)type;
	h.len = (uint32_t)len;
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = (void *)(uintptr_t)data;
	iov[1].iov_len = len;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = len > 0 ? 2 : 1;
	if (nfds > 0) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	/* SOCK_SEQPACKET: a message goes whole or not at all */
	BUG_ON(n != -1 && (size_t)n != sizeof(h) + len);
	return n == -1 ? -1 : 0;
}

/* Take the descriptors of mh into msg; close any beyond IPC_MAX_FDS. */
static void
take_fds(struct msghdr *mh, struct ipc_msg *msg)
{
	struct cmsghdr	*c;
	int		*v;
	size_t		 i, n;

	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		v = (int *)(void *)CMSG_DATA(c);
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		BUG_ON(c->cmsg_len < CMSG_LEN(0));
		for (i = 0; i < n; i++)
			if (msg->nfds < IPC_MAX_FDS)
				msg->fds[msg->nfds++] = v[i];
			else
				close(v[i]);
	}
}

int
ipc_recv(int fd, struct ipc_msg *msg)
{
	struct ipc_header	 h;
	struct iovec		 iov[2];
	struct msghdr		 mh;
	union {
		struct cmsghdr	 align;
		char		 buf[CMSG_SPACE(IPC_MAX_FDS * sizeof(int))];
	}			 cm;
	ssize_t			 n;
	int			 i;

	/* Not the whole of msg: data is large, and only len bytes count. */
	msg->type = 0;
	msg->len = 0;
	msg->nfds = 0;
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = msg->data;
	iov[1].iov_len = sizeof(msg->data);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n <= 0)
		return n == 0 ? 0 : -1;
	take_fds(&mh, msg);
	if ((size_t)n < sizeof(h) || h.len != (size_t)n - sizeof(h) ||
	    (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		for (i = 0; i < msg->nfds; i++)
			close(msg->fds[i]);
		msg->nfds = 0;
		errno = EPROTO;
		return -1;
	}
	msg->type = (int)h.type;
	msg->len = h.len;
	return 1;
}

int
ipc_send_wait(int fd, int type, const void *data, size_t len,
    const int *fds, int nfds, int timeout_ms)
{
	struct pollfd	pfd;
	int64_t		until = clock_ms() + timeout_ms;

	while (ipc_send(fd, type, data, len, fds, nfds) == -1) {
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (clock_ms() >= until || (poll(&pfd, 1, (int)(until -
		    clock_ms())) == -1 && errno != EINTR)) {
			errno = EAGAIN;
			return -1;
		}
	}
	return 0;
}
