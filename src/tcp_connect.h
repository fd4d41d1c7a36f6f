/*
 * tcp_connect.h - connecting to a rule's upstream, one restartable step
 * at a time: pick a backend, open a socket, start the connect; when that
 * fails (at once or later), the caller asks again and the next backend is
 * tried.  Balancing and retries change the pick, not the session.
 */
#ifndef FERRYD_TCP_CONNECT_H
#define FERRYD_TCP_CONNECT_H

#include <stdint.h>

#include <sys/socket.h>

struct backend;
struct rule;

/*
 * Where a session's connect stands: the backend tried last, or connected
 * to, and those it tried before.
 */
struct tcp_connect {
	const struct backend	*backend;	/* NULL before the first */
	const struct sockaddr	*client;	/* balance = "hash" reads it */
	uint64_t		 tried;		/* BALANCE_TRIED() bits */
	int64_t			 attempt_us;	/* the last one's start */
	uint16_t		 attempts;
	bool			 trial;		/* of a backend that was down */
	bool			 held;		/* counted open (balance.h) */
	bool			 connected;	/* counted open (stats.h) */
	bool			 nagle_on;	/* leave TCP_NODELAY to the
						 * caller (tcp_relay.c) */
};

enum tcp_connect_result {
	TCP_CONNECT_PENDING,	/* *fd is connecting to tc->backend */
	TCP_CONNECT_NONE,	/* no backend left to try: *err says why */
	TCP_CONNECT_SHORTAGE	/* out of descriptors or memory: errno */
};

/* Before the first attempt; client must outlive tc. */
void	tcp_connect_init(struct tcp_connect *tc,
    const struct sockaddr *client);

/*
 * Start connecting to the next backend the balance picks that does not
 * fail at once: the first try always, later ones only while now_us /
 * 1000 < deadline (the event loop's clocks: event_now_us, event_now).  err: why the attempt before this call failed (0 if none),
 * which health.h is told.  On TCP_CONNECT_PENDING *fd is the new
 * non-blocking socket, to be watched for writing; on TCP_CONNECT_NONE
 * *err is why the last attempt failed, or 0 when no backend could be
 * picked at all (every one at its max_connections).
 */
enum tcp_connect_result tcp_connect_next(struct tcp_connect *tc,
    const struct rule *rule, int64_t now_us, int64_t deadline, int *fd,
    int *err);

/*
 * When the attempt started at now is given up for the next backend: an
 * equal share of connect_timeout per backend (at least a second), so
 * that one backend that does not answer cannot use it all; never after
 * deadline.
 */
int64_t	tcp_connect_attempt_end(const struct rule *rule, int64_t now,
    int64_t deadline);

/*
 * The connecting socket reported events (EV_*): 0 if it is connected,
 * else why it failed.  The caller closes a failed socket and calls
 * tcp_connect_next() for the next backend.
 */
int	tcp_connect_finished(int fd, int events);

/*
 * What tcp_connect_finished() said was no failure of the connect: the
 * connection was made, then reset (ECONNRESET, EPIPE) before the events
 * were read.  The bytes the backend sent first are readable still.
 */
bool	tcp_connect_made_then_reset(int err);

/*
 * Give the attempt up for a reason of ours (its client is gone): the
 * backend is not blamed (its trial is unclaimed); tcp_connect_release()
 * gives its place back.
 */
void	tcp_connect_abandon(struct tcp_connect *tc, int64_t now);

/*
 * The connect succeeded at now_us (event_now_us): health.h and the
 * backend's counters hear of it.
 */
void	tcp_connect_succeeded(struct tcp_connect *tc, const struct rule *rule,
    int64_t now_us);

/*
 * transparent: the backends of rule that client's address cannot reach,
 * being of the other family, as BALANCE_TRIED() bits: not to be picked;
 * *none_left: that is all of them.
 */
uint64_t backends_of_other_family(const struct rule *rule,
    const struct sockaddr *client, bool *none_left);

/*
 * transparent: bind fd, a socket towards b, to client's address, or say
 * why not (logged, rate-limited): -1 and errno.  Such a failure is this
 * host's, not b's, and does not count against its health.
 */
int	backend_bind_client(int fd, const struct rule *rule,
    const struct backend *b, const struct sockaddr *client);

/*
 * The connection ends, or the attempt failed: its backend has one open
 * connection less.
 */
void	tcp_connect_release(struct tcp_connect *tc);

#endif
