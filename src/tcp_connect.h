/*
 * tcp_connect.h - connecting to a rule's upstream, one restartable step
 * at a time: pick a backend, open a socket, start the connect; when that
 * fails (at once or later), the caller asks again and the next backend is
 * tried.  Balancing and retries change the pick, not the session.
 */
#ifndef FERRYD_TCP_CONNECT_H
#define FERRYD_TCP_CONNECT_H

#include <stdint.h>

#include "conf.h"

/*
 * Where a session's connect stands in its rule's upstream: the backend
 * tried last, or connected to.  (Backends are tried in order, so its
 * place in the upstream counts the attempts; one pointer per session.)
 */
struct tcp_connect {
	const struct backend	*backend;
};

enum tcp_connect_result {
	TCP_CONNECT_PENDING,	/* *fd is connecting to tc->backend */
	TCP_CONNECT_NONE,	/* no backend left to try: *err says why */
	TCP_CONNECT_SHORTAGE	/* out of descriptors or memory: errno */
};

/* Before the first attempt: the backend named in logs is the first. */
void	tcp_connect_init(struct tcp_connect *tc, const struct rule *rule);

/*
 * Start connecting to the next backend that does not fail at once, the
 * first try always, later ones only while now < deadline.  On
 * TCP_CONNECT_PENDING *fd is the new non-blocking socket, to be watched
 * for writing; err: why the attempt before this call failed (0 if none),
 * and on TCP_CONNECT_NONE why the last one did.
 */
enum tcp_connect_result tcp_connect_next(struct tcp_connect *tc,
    const struct rule *rule, int64_t now, int64_t deadline, int *fd,
    int *err);

/*
 * The connecting socket reported events (EV_*): 0 if it is connected,
 * else why it failed.  The caller closes a failed socket and calls
 * tcp_connect_next() for the next backend.
 */
int	tcp_connect_finished(int fd, int events);

#endif
