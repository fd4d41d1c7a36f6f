/*
 * tcp_connect.c - start a connect to the next backend of an upstream.
 */
#include "ferryd.h"

#include <sys/socket.h>
#include <unistd.h>

#include "event.h"
#include "sock.h"
#include "tcp_connect.h"

void
tcp_connect_init(struct tcp_connect *tc, const struct rule *rule)
{
	tc->backend = &rule->upstream.backends[0];
}

/*
 * Open a socket to b and start connecting.  Returns the socket, or -1
 * with errno: a shortage, or why this backend failed at once.
 */
static int
backend_connect(const struct rule *rule, const struct backend *b)
{
	const struct sockaddr_any *to = &b->addr;
	int                        fd, err;

	if ((fd = sock_stream(to->ss.ss_family)) == -1)
		return -1;
	sock_nodelay(fd);
	/* Reset, not FIN, if this side is abandoned (see tcp_relay.c). */
	sock_abort_on_close(fd, true);
	sock_buffers(fd, rule->sndbuf, rule->rcvbuf);
	if ((b->has_source && sock_bind_source(fd, &b->source) == -1) ||
	    (connect(fd, (const struct sockaddr *)&to->ss, to->len) == -1 &&
	    errno != EINPROGRESS)) {
		/* Refused at once (e.g. no route). */
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

enum tcp_connect_result
tcp_connect_next(struct tcp_connect *tc, const struct rule *rule,
    int64_t now, int64_t deadline, int *fd, int *err)
{
	const struct upstream *u = &rule->upstream;
	size_t                 i = (size_t)(tc->backend - u->backends);

	/* The one tried last failed, if there was one: on to the next. */
	if (*err != 0)
		i++;
	for (; i < u->nbackends; i++) {
		if (i > 0 && now >= deadline)
			break;
		tc->backend = &u->backends[i];
		if ((*fd = backend_connect(rule, tc->backend)) != -1)
			return TCP_CONNECT_PENDING;
		/*
		 * Out of descriptors: the caller must know.  Anything else
		 * (an IPv6 address where IPv6 is off) is this address's
		 * failure: on to the next.
		 */
		if (sock_shortage(errno))
			return TCP_CONNECT_SHORTAGE;
		*err = errno;
	}
	return TCP_CONNECT_NONE;
}

int
tcp_connect_finished(int fd, int events)
{
	int       err = 0;
	socklen_t len = sizeof(err);

	/*
	 * Only an error or hangup needs SO_ERROR to tell why; a socket
	 * reports nothing else before it is connected.
	 */
	if ((events & EV_EXCEPT) && getsockopt(fd, SOL_SOCKET, SO_ERROR,
	    &err, &len) == -1)
		err = errno;
	return err;
}
