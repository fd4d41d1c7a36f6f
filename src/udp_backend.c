/*
 * udp_backend.c - the sockets towards a UDP rule's backends (udp_backend.h):
 * picked by the balance, connected so that the kernel sorts the replies
 * and reports ICMP errors, which count against the backend's health.
 */
#include "ferryd.h"

#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "balance.h"
#include "clock.h"
#include "health.h"
#include "log.h"
#include "sock.h"
#include "stats.h"
#include "tcp_connect.h"
#include "udp_backend.h"
#include "udp_types.h"

int
udp_backend_socket(const struct rule *rule, const struct sockaddr *client,
    const struct backend **used)
{
	const struct backend	*b;
	uint64_t		 tried = 0;
	int64_t			 now = clock_ms();
	bool			 trial, none_left = false;
	int			 fd = -1, err = EBUSY;	/* all at the limit */

	if (rule->transparent)
		tried = backends_of_other_family(rule, client, &none_left);
	if (none_left) {
		errno = EAFNOSUPPORT;	/* an IPv6 client, IPv4 backends */
		return -1;
	}

	while ((b = balance_pick(rule, client, tried, now, &trial)) != NULL) {
		tried |= BALANCE_TRIED((size_t)(b - rule->upstream.backends));
		if ((fd = sock_dgram(b->addr.ss.ss_family)) == -1)
			return -1;	/* out of descriptors */
		if (rule->transparent &&
		    backend_bind_client(fd, rule, b, client) == -1) {
			/* This host's failure: b's health stands. */
			err = errno;
			close(fd);
			if (trial)
				health_unclaim_trial(b, now);
			continue;
		}
		sock_buffers(fd, rule->sndbuf, rule->rcvbuf);
		if ((!b->has_source || sock_bind_pool(fd, b->pool) == 0) &&
		    connect(fd, (const struct sockaddr *)&b->addr.ss,
		    b->addr.len) == 0) {
			balance_acquire(b);
			/*
			 * UDP has no connect to wait for: a backend whose
			 * fail_timeout is over is up again, until ICMP
			 * errors say otherwise.
			 */
			if (trial)
				health_succeeded(rule, b, true);
			*used = b;
			return fd;
		}
		err = errno;
		close(fd);
		if (sock_own_failure(err)) {
			/*
			 * No port or buffer here (a flood took them): this
			 * host's shortage, no backend's, and the next one
			 * would meet it too.
			 */
			if (trial)
				health_unclaim_trial(b, now);
			break;
		}
		health_failed(rule, b, err, trial, now);
	}
	errno = err;
	return -1;
}

int
udp_backend_open(const struct rule *rule, const struct sockaddr *client,
    const struct backend **used)
{
	int	fd;

	/* Replies: a run of equal size in one read (UDP_GRO). */
	if ((fd = udp_backend_socket(rule, client, used)) != -1)
		sock_udp_gro(fd);
	return fd;
}

void
udp_backend_error(const struct rule *rule, const struct backend *b, int err)
{
	static struct log_limit	limit;
	char			backend[ADDR_STRLEN];

	/*
	 * Passive health: an unreachable backend is a failed one.  Anything
	 * else (ENOBUFS, ENOMEM on our own socket) is this host's, and
	 * counts against no backend.
	 */
	if (!udp_unreachable(err)) {
		log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: a UDP socket of "
		    "this host failed: %s; no backend is blamed",
		    rule_log_name(rule), strerror(err));
		return;
	}
	stats_rule(rule)->icmp_errors++;
	if (b != NULL) {
		stats_backend(b)->icmp_errors++;
		health_failed(rule, b, err, false, clock_ms());
	}
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: backend %s: %s",
	    rule_log_name(rule), b != NULL ? addr_format((const struct sockaddr *)
	    &b->addr.ss, backend, sizeof(backend)) : "(gone since a reload)",
	    strerror(err));
}

bool
udp_unreachable(int err)
{
	return err == ECONNREFUSED || err == EHOSTUNREACH ||
	    err == ENETUNREACH;
}

/* s's backend reported an error (ICMP unreachable). */
void
udp_backend_session_error(struct udp_session *s, int err)
{
	udp_backend_error(s->rule, s->stranger ? NULL : s->backend, err);
}

/*
 * s no longer holds its backend here (closed, or handed over): one
 * session less on it, for the balance and the gauges.
 */
void
udp_backend_release(struct udp_session *s)
{
	if (s->stream != NULL)
		tcp_connect_release(&s->stream->connect);
	else if (s->backend != NULL && !s->stranger) {
		balance_release(s->backend);
		stats_backend(s->backend)->active--;
	}
}
