/*
 * tcp_connect.c - start a connect to the next backend of an upstream.
 */
#include "ferryd.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "balance.h"
#include "bug.h"
#include "event.h"
#include "health.h"
#include "log.h"
#include "rule.h"
#include "sock.h"
#include "stats.h"
#include "tcp_connect.h"
#include "upstream.h"

void
tcp_connect_init(struct tcp_connect *tc, const struct sockaddr *client)
{
	memset(tc, 0, sizeof(*tc));
	tc->client = client;
}

void
tcp_connect_release(struct tcp_connect *tc)
{
	if (tc->held)
		balance_release(tc->backend);
	tc->held = false;
	if (tc->connected)
		stats_backend(tc->backend)->active--;
	tc->connected = false;
}

/* The attempt at tc->backend failed with err: counted by why. */
static void
attempt_count_failure(const struct tcp_connect *tc, int err)
{
	struct stats_backend *st = stats_backend(tc->backend);

	if (err == ECONNREFUSED)
		st->refused++;
	else if (err == ETIMEDOUT)
		st->timeouts++;
	else
		st->failed++;
}

/* The attempt at tc->backend failed with err. */
static void
attempt_failed(struct tcp_connect *tc, const struct rule *rule, int err,
    int64_t now)
{
	attempt_count_failure(tc, err);
	health_failed(rule, tc->backend, err, tc->trial, now);
	tcp_connect_release(tc);
	tc->trial = false;
}

uint64_t
backends_of_other_family(const struct rule *rule,
    const struct sockaddr *client, bool *none_left)
{
	const struct sockaddr_in6	*c6 = (const void *)client;
	int				 family = client->sa_family;
	uint64_t			 bits = 0;
	size_t				 i, same = 0;

	if (family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&c6->sin6_addr))
		family = AF_INET;
	for (i = 0; i < rule->upstream.nbackends; i++)
		if (rule->upstream.backends[i].addr.ss.ss_family != family)
			bits |= BALANCE_TRIED(i);
		else
			same++;
	*none_left = same == 0;
	return bits;
}

int
backend_bind_client(int fd, const struct rule *rule, const struct backend *b,
    const struct sockaddr *client)
{
	static struct log_limit	limit;
	char			addr[ADDR_STRLEN], backend[ADDR_STRLEN];
	int			err;

	if (sock_bind_transparent(fd, b->addr.ss.ss_family, client) == 0)
		return 0;
	err = errno;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot reach backend "
	    "%s from client address %s (transparent): %s%s", rule_log_name(rule),
	    addr_format((const struct sockaddr *)&b->addr.ss, backend,
	    sizeof(backend)), addr_host(client, addr, sizeof(addr)),
	    strerror(err), err == EPERM ? " (it needs CAP_NET_ADMIN)" :
	    err == EAFNOSUPPORT ? " (not of the backend's address family)" :
	    "");
	errno = err;
	return -1;
}

/*
 * Open a socket to b for client and start connecting.  Returns the
 * socket, or -1 with errno: a shortage, or why this backend failed at
 * once; *ours: the failure is this host's (backend_bind_client), not the
 * backend's.
 */
static int
backend_connect(const struct rule *rule, const struct backend *b,
    const struct sockaddr *client, bool nodelay, bool *ours)
{
	const struct sockaddr_any *to = &b->addr;
	int                        fd, err;

	*ours = false;
	if ((fd = sock_stream(to->ss.ss_family)) == -1)
		return -1;
	if (rule->transparent &&
	    backend_bind_client(fd, rule, b, client) == -1) {
		err = errno;
		close(fd);
		errno = err;
		*ours = true;
		return -1;
	}
	if (nodelay)
		sock_nodelay(fd);
	/* Reset, not FIN, if this side is abandoned (see tcp_relay.c). */
	sock_abort_on_close(fd, true);
	sock_buffers(fd, rule->sndbuf, rule->rcvbuf);
	if (keepalive_on(&rule->keepalive, false))
		sock_keepalive(fd, &rule->keepalive);
	if (rule->tcp_fastopen_connect)
		sock_fastopen_connect(fd);
	if (rule->rate_limit > 0)
		(void)sock_pacing_rate(fd, rule->rate_limit);
	if ((b->has_source && sock_bind_pool(fd, b->pool) == -1) ||
	    (connect(fd, (const struct sockaddr *)&to->ss, to->len) == -1 &&
	    errno != EINPROGRESS)) {
		/*
		 * Refused at once: no route is the backend's; no port or
		 * local address left (a flood took them) is this host's.
		 */
		err = errno;
		close(fd);
		errno = err;
		*ours = sock_own_failure(err);
		return -1;
	}
	return fd;
}

enum tcp_connect_result
tcp_connect_next(struct tcp_connect *tc, const struct rule *rule,
    int64_t now_us, int64_t deadline, int *fd, int *err)
{
	const struct backend	*b;
	int64_t			 now = now_us / 1000;
	bool			 trial, ours, none_left;

	if (tc->backend != NULL && *err != 0)
		attempt_failed(tc, rule, *err, now);
	if (tc->attempts == 0 && rule->transparent) {
		tc->tried |= backends_of_other_family(rule, tc->client,
		    &none_left);
		if (none_left) {
			*err = EAFNOSUPPORT;	/* an IPv6 client, IPv4 ones */
			return TCP_CONNECT_NONE;
		}
	}
	while (tc->attempts == 0 || now < deadline) {
		b = balance_pick(rule, tc->client, tc->tried, now, &trial);
		if (b == NULL)
			break;
		/* one backend's place at a time; none once connected */
		BUG_ON(tc->held || tc->connected);
		tc->backend = b;
		tc->trial = trial;
		tc->tried |= BALANCE_TRIED((size_t)(b - rule->upstream.backends));
		tc->attempts++;
		balance_acquire(b);
		tc->held = true;
		stats_backend(b)->attempts++;
		tc->attempt_us = now_us;
		if ((*fd = backend_connect(rule, b, tc->client, !tc->nagle_on,
		    &ours)) != -1)
			return TCP_CONNECT_PENDING;
		/*
		 * Out of descriptors: the caller must know, and the backend
		 * is not to blame.  Anything else (an IPv6 address where
		 * IPv6 is off) is this address's failure: on to the next.
		 */
		if (sock_shortage(errno)) {
			tcp_connect_release(tc);
			return TCP_CONNECT_SHORTAGE;
		}
		*err = errno;
		if (ours) {
			/* Not the backend's fault: its health stands. */
			attempt_count_failure(tc, *err);
			if (tc->trial)
				health_unclaim_trial(b, now);
			tcp_connect_release(tc);
			tc->trial = false;
			continue;
		}
		attempt_failed(tc, rule, *err, now);
	}
	return TCP_CONNECT_NONE;
}

int64_t
tcp_connect_attempt_end(const struct rule *rule, int64_t now,
    int64_t deadline)
{
	int64_t	share = rule->connect_timeout /
	    (int64_t)rule->upstream.nbackends;

	if (share < 1000)
		share = 1000;
	return now + share < deadline ? now + share : deadline;
}

void
tcp_connect_succeeded(struct tcp_connect *tc, const struct rule *rule,
    int64_t now_us)
{
	struct stats_backend	*st = stats_backend(tc->backend);

	BUG_ON(!tc->held || tc->connected);	/* the attempt's, once */
	health_succeeded(rule, tc->backend, tc->trial);
	tc->trial = false;
	tc->connected = true;
	st->opened++;
	st->active++;
	hist_add(&stats_backend_hist(tc->backend)->connect,
	    (uint64_t)(now_us - tc->attempt_us));
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

bool
tcp_connect_made_then_reset(int err)
{
	/* A refused connect is ECONNREFUSED; only a made one resets. */
	return err == ECONNRESET || err == EPIPE;
}

void
tcp_connect_abandon(struct tcp_connect *tc, int64_t now)
{
	/* Its place is given back by tcp_connect_release(), at the close. */
	if (tc->trial)
		health_unclaim_trial(tc->backend, now);
	tc->trial = false;
}
