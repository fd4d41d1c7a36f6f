/*
 * tcp_accept.c - accepting connections on a worker's stream listeners.
 *
 * A connection is accepted, checked against max_connections, allow/deny
 * and the limits per client (client_limit.c), and handed to a session.
 * When descriptors or memory run out, accepting pauses for a moment
 * (EMFILE_PAUSE_MS) rather than spin on a queue that stays readable; the
 * queued connections wait in the kernel, and the episode is logged once,
 * its end with a count.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>

#include "accesslog.h"
#include "acl.h"
#include "addr.h"
#include "bug.h"
#include "client_limit.h"
#include "event.h"
#include "log.h"
#include "rule.h"
#include "sock.h"
#include "stats.h"
#include "tcp_accept.h"
#include "tcp_proxy_wait.h"
#include "tcp_session.h"

#define ACCEPT_BATCH      64	/* accepts per wakeup, for fairness */
#define EMFILE_PAUSE_MS   500	/* out of descriptors: retry after this */

struct tcp_listener {
	STAILQ_ENTRY(tcp_listener) link;
	int			 fd;
	int			 mask;		/* how it is watched */
	int			 batch;		/* accepts to try next wakeup */
	int			 whole;		/* wakeups in a row that took it */
	const struct rule	*rule;
	struct tcp_acceptor	*acc;
};

struct tcp_acceptor {
	struct event_loop	*loop;
	struct tcp_sessions	*sessions;
	struct proxy_waits	*waits;		/* accept_proxy: headers due */
	struct tcp_accept_settings set;
	STAILQ_HEAD(, tcp_listener) listeners;
	bool			 closed;	/* for good */
	struct log_episode	 starved;	/* out of descriptors, memory */
	struct event_timer	 resume;	/* accept again after a pause */
};

static void acceptor_on_ready(struct event_loop *, int, int, void *);

static void
acceptor_watch(struct tcp_acceptor *acc, bool on)
{
	struct tcp_listener *l;

	STAILQ_FOREACH(l, &acc->listeners, link)
		if (event_mask(acc->loop, l->fd, on ? l->mask : 0) == -1)
			log_err("%s: cannot watch listening socket: %s",
			    rule_log_name(l->rule), strerror(errno));
}

static void
acceptor_on_resume(struct event_timer *t, void *data)
{
	struct tcp_acceptor *acc = data;

	(void)t;
	if (!acc->closed)
		acceptor_watch(acc, true);
}

/*
 * Out of descriptors or memory (err) while doing what: stop accepting for
 * a moment; log once per episode.
 */
static void
acceptor_starve(struct tcp_acceptor *acc, const char *listen,
    const char *what, int err)
{
	log_episode_hit(&acc->starved, "%s: cannot %s: %s; pausing "
	    "accepting until descriptors are free", listen, what,
	    strerror(err));
	acceptor_watch(acc, false);
	if (event_timer_arm(acc->loop, &acc->resume, event_now(acc->loop) +
	    EMFILE_PAUSE_MS) == -1)
		acceptor_watch(acc, true);	/* better busy than deaf */
}

/* A connection was taken on: a shortage is over, said with its count. */
static void
acceptor_fed(struct tcp_acceptor *acc)
{
	uint64_t	pauses;
	int64_t		ms;

	if ((pauses = log_episode_end(&acc->starved, &ms)) > 0)
		log_notice("accepting again after %.1f s out of descriptors "
		    "or memory (%llu pause(s))", (double)ms / 1000,
		    (unsigned long long)pauses);
}

/* At max_connections: close the newcomer at once, say so now and then. */
static void
acceptor_refuse_max(struct tcp_acceptor *acc, int fd,
    const struct rule *rule, const struct sockaddr_any *peer)
{
	static struct log_limit limit;

	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: max_connections (%d) "
	    "reached, refusing new connections", rule_log_name(rule),
	    acc->set.max_connections);
	tcp_session_refuse(acc->sessions, fd, rule, peer,
	    ACCESSLOG_REFUSED_MAX);
}

/* Not allowed in by allow/deny: close, say so now and then. */
static void
acceptor_deny(struct tcp_acceptor *acc, int fd, const struct rule *rule,
    const struct sockaddr_any *peer, int verdict)
{
	static struct log_limit	limit;
	char			client[ADDR_STRLEN];

	log_limited_at(&limit, LOG_LEVEL_INFO, "%s: client %s denied by "
	    "allow/deny rules", rule_log_name(rule), addr_format((const struct
	    sockaddr *)&peer->ss, client, sizeof(client)));
	tcp_session_refuse(acc->sessions, fd, rule, peer,
	    verdict == ACL_NOT_ALLOWED ? ACCESSLOG_NOT_ALLOWED :
	    ACCESSLOG_DENIED);
}

/*
 * A Unix client's credentials against allow_uid and allow_gid (its
 * primary group, or one of its others where SO_PEERGROUPS tells them);
 * both lists empty let everyone in.
 */
static bool
unix_permits(const struct rule_unix *u, const struct addr_unix_peer *p,
    int fd)
{
	size_t	i;
#ifdef SO_PEERGROUPS
	gid_t		groups[64];
	socklen_t	len = sizeof(groups);
	size_t		j;
#endif

	if (u->nallow_uid == 0 && u->nallow_gid == 0)
		return true;
	if (p == NULL)
		return false;
	for (i = 0; i < u->nallow_uid; i++)
		if (u->allow_uid[i] == p->uid)
			return true;
	for (i = 0; i < u->nallow_gid; i++)
		if (u->allow_gid[i] == p->gid)
			return true;
#ifdef SO_PEERGROUPS
	if (u->nallow_gid == 0 || getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS,
	    groups, &len) == -1)
		return false;
	for (j = 0; j < len / sizeof(groups[0]); j++)
		for (i = 0; i < u->nallow_gid; i++)
			if (u->allow_gid[i] == (unsigned)groups[j])
				return true;
#else
	(void)fd;
#endif
	return false;
}

/*
 * A client of a Unix listener: its credentials go with its address
 * (addr.h), for allow_uid and allow_gid, the limits and the log.  False
 * when it was refused and closed.
 */
static bool
acceptor_unix_client(struct tcp_acceptor *acc, int fd,
    const struct rule *rule, struct sockaddr_any *peer)
{
	static struct log_limit	limit;
	const struct addr_unix_peer *p;
	char			client[ADDR_STRLEN];

	if (addr_unix_take_cred(peer, fd) == -1)
		log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot read "
		    "the credentials of a client: %s", rule_log_name(rule),
		    strerror(errno));
	p = addr_unix_cred((const struct sockaddr *)&peer->ss);
	if (unix_permits(&rule->unix_sock, p, fd))
		return true;
	log_limited_at(&limit, LOG_LEVEL_INFO, "%s: client %s denied by "
	    "allow_uid/allow_gid", rule_log_name(rule), addr_host((const
	    struct sockaddr *)&peer->ss, client, sizeof(client)));
	tcp_session_refuse(acc->sessions, fd, rule, peer, ACCESSLOG_DENIED);
	return false;
}

/*
 * Over max_connections_per_client or connection_rate (verdict), with
 * seen against the limit: close at once, say so now and then.  A log
 * limit per reason, so that a flood of one hides no line of the other.
 */
static void
acceptor_refuse_client(struct tcp_acceptor *acc, int fd,
    const struct rule *rule, const struct sockaddr_any *peer,
    enum client_verdict verdict, unsigned seen)
{
	static struct log_limit	per_client, rate;
	char			client[ADDR_STRLEN];

	/* The address alone: the limits are per address, not per port. */
	addr_host((const struct sockaddr *)&peer->ss, client,
	    sizeof(client));
	if (verdict == CLIENT_OVER_MAX) {
		log_limited_at(&per_client, LOG_LEVEL_WARNING, "%s: refused "
		    "%s: %u connection%s from it already "
		    "(max_connections_per_client %d)", rule_log_name(rule),
		    client, seen, seen == 1 ? "" : "s",
		    rule->max_connections_per_client);
		tcp_session_refuse(acc->sessions, fd, rule, peer,
		    ACCESSLOG_REFUSED_PER_CLIENT);
	} else {
		log_limited_at(&rate, LOG_LEVEL_WARNING, "%s: refused %s: "
		    "%u new connection%s from it in the last second "
		    "(connection_rate %d)", rule_log_name(rule), client, seen,
		    seen == 1 ? "" : "s", rule->connection_rate);
		tcp_session_refuse(acc->sessions, fd, rule, peer,
		    ACCESSLOG_REFUSED_RATE);
	}
}

/*
 * A connection is in, from peer to local (NULL: its socket's address;
 * with accept_proxy, both as the header said): allow/deny, the limits
 * per client, then a session.  False when accepting must pause.
 */
static bool
acceptor_admit(struct tcp_acceptor *acc, int fd, const struct rule *rule,
    const struct sockaddr_any *peer, const struct tcp_proxied *proxied)
{
	enum client_verdict	verdict = CLIENT_ADMIT;
	unsigned		seen = 0;
	int			acl;

	/* Unix clients have no address: allow_uid judged them at accept. */
	if (rule->listen_addr.ss.ss_family != AF_UNIX &&
	    (acl = acl_verdict(acc->set.acl, &rule->acl,
	    (const struct sockaddr *)&peer->ss)) != ACL_PERMITTED)
		acceptor_deny(acc, fd, rule, peer, acl);
	else if (client_limited(rule) && (verdict = client_limit_check(rule,
	    peer, event_now(acc->loop), &seen)) != CLIENT_ADMIT)
		acceptor_refuse_client(acc, fd, rule, peer, verdict, seen);
	else if (tcp_session_start(acc->sessions, fd, rule, peer, proxied) ==
	    -1) {
		/* Accepted, then closed unserved: as good as not accepted. */
		stats_rule(rule)->accept_errors++;
		acceptor_starve(acc, rule_log_name(rule), "relay a connection", errno);
		return false;
	} else
		acceptor_fed(acc);	/* the episode is over */
	return true;
}

/* A header is whole (or none came): the client it names comes in. */
static void
acceptor_admit_proxied(void *arg, int fd, const struct rule *rule,
    const struct sockaddr_any *peer, const struct tcp_proxied *proxied)
{
	(void)acceptor_admit(arg, fd, rule, peer, proxied);
}

/*
 * Accept up to max connections from l; stop early when the queue is
 * empty (*empty) or accepting must pause.  Returns how many accept(2)
 * calls found a connection.
 */
static int
listener_accept(struct tcp_listener *l, int max, bool *empty)
{
	struct tcp_acceptor *acc = l->acc;
	struct sockaddr_any  peer;
	int                  i, cfd;

	*empty = false;
	for (i = 0; i < max; i++) {
		cfd = sock_accept(l->fd, &peer);
		if (cfd == -1) {
			switch (errno) {
			case EAGAIN:
#if EAGAIN != EWOULDBLOCK
			case EWOULDBLOCK:
#endif
				*empty = true;
				return i;
			case EINTR:
			case ECONNABORTED:
			case EPROTO:
			case EPERM:
				continue;
			case EMFILE:
			case ENFILE:
			case ENOBUFS:
			case ENOMEM:
				stats_rule(l->rule)->accept_errors++;
				acceptor_starve(acc, rule_log_name(l->rule), "accept",
				    errno);
				return i;
			default:
				stats_rule(l->rule)->accept_errors++;
				log_err("%s: cannot accept: %s", rule_log_name(l->rule),
				    strerror(errno));
				return i;
			}
		}
		if (l->rule->listen_addr.ss.ss_family == AF_UNIX &&
		    !acceptor_unix_client(acc, cfd, l->rule, &peer))
			continue;
		if (tcp_sessions_count(acc->sessions) +
		    proxy_waits_count(acc->waits) >= acc->set.max_connections)
			acceptor_refuse_max(acc, cfd, l->rule, &peer);
		else if (l->rule->accept_proxy) {
			/* allow/deny wait for the client the header names. */
			if (proxy_wait_start(acc->waits, cfd, l->rule,
			    &peer) == -1) {
				acceptor_starve(acc, rule_log_name(l->rule),
				    "wait for a PROXY header", errno);
				return i + 1;
			}
		} else if (!acceptor_admit(acc, cfd, l->rule, &peer, NULL))
			return i + 1;
	}
	return i;
}

/*
 * A batch at a time, so that relaying is not starved.  The batch adapts:
 * the listener is watched level-triggered, so a queue left non-empty
 * wakes the loop again, and an accept(2) that finds the queue empty is a
 * system call spent for nothing.  Two batches in a row taken whole
 * double the next (up to ACCEPT_BATCH); one that ends on an empty queue
 * makes the next as large as what it found, so that connections coming
 * one at a time cost an accept(2) each, not two.
 */
static void
acceptor_on_ready(struct event_loop *loop, int fd, int events, void *data)
{
	struct tcp_listener	*l = data;
	bool			 empty;
	int			 n;

	(void)loop;
	(void)fd;
	(void)events;
	n = listener_accept(l, l->batch, &empty);
	BUG_ON(n < 0 || n > l->batch || l->batch > ACCEPT_BATCH);
	if (empty) {
		l->batch = n > 0 ? n : 1;
		l->whole = 0;
	} else if (n == l->batch && ++l->whole == 2) {
		l->batch = l->batch * 2 < ACCEPT_BATCH ? l->batch * 2 :
		    ACCEPT_BATCH;
		l->whole = 0;
	}
}

struct tcp_acceptor *
tcp_acceptor_new(struct event_loop *loop, struct tcp_sessions *sessions,
    const struct tcp_accept_settings *set)
{
	struct tcp_acceptor *acc = calloc(1, sizeof(*acc));

	if (acc == NULL)
		return NULL;
	acc->loop = loop;
	acc->sessions = sessions;
	acc->set = *set;
	if ((acc->waits = proxy_waits_new(loop, acceptor_admit_proxied,
	    acc)) == NULL) {
		free(acc);
		return NULL;
	}
	STAILQ_INIT(&acc->listeners);
	event_timer_init(&acc->resume, acceptor_on_resume, acc);
	return acc;
}

int
tcp_acceptor_add(struct tcp_acceptor *acc, int fd, const struct rule *rule,
    bool shared)
{
	struct tcp_listener *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return -1;
	l->fd = fd;
	l->batch = 1;
	l->rule = rule;
	l->acc = acc;
	/* One socket, every worker: wake one of them per connection. */
	l->mask = EV_READ | (shared ? EV_EXCLUSIVE : 0);
	if (event_set(acc->loop, fd, l->mask, acceptor_on_ready, l) == -1) {
		free(l);
		return -1;
	}
	STAILQ_INSERT_TAIL(&acc->listeners, l, link);
	return 0;
}

int
tcp_acceptor_waiting(const struct tcp_acceptor *acc)
{
	return proxy_waits_count(acc->waits);
}

void
tcp_acceptor_close_waiting(struct tcp_acceptor *acc)
{
	proxy_waits_close_all(acc->waits);
}

void
tcp_acceptor_close(struct tcp_acceptor *acc)
{
	struct tcp_listener *l;
	bool                 empty;

	acc->closed = true;
	event_timer_cancel(acc->loop, &acc->resume);
	acceptor_watch(acc, false);
	while ((l = STAILQ_FIRST(&acc->listeners)) != NULL) {
		/*
		 * At most a full queue: a socket the new generation shares
		 * keeps filling, and its new workers take the rest.  Also
		 * after running out of descriptors once: a failure now only
		 * ends the loop early.
		 */
		(void)listener_accept(l, acc->set.backlog, &empty);
		event_close(acc->loop, l->fd);
		close(l->fd);
		STAILQ_REMOVE_HEAD(&acc->listeners, link);
		free(l);
	}
}
