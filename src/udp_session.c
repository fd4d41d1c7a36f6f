/*
 * udp_session.c - the UDP session table: find or make a session per
 * datagram, forward it, carry the replies back, expire and evict.
 *
 * Sessions are found in a hash table keyed by (rule, client address and
 * port, local address), kept per rule in least-recently-used order (the
 * front is evicted first), and each has a timer re-armed lazily: traffic
 * only notes the time, and an expiring timer that finds the session
 * active since moves itself.
 *
 * A session's life is a state (enum udp_state, udp_types.h) that moves
 * on only through udp_session_enter, which asserts each step.  What
 * works below it (udp_backend.c, udp_io.c, udp_stream.c) says what
 * happened; the session decides: touch it, re-arm its timer, try the
 * next backend, or close it.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>

#include "accesslog.h"
#include "acl.h"
#include "addr.h"
#include "balance.h"
#include "bug.h"
#include "client_limit.h"
#include "event.h"
#include "log.h"
#include "route.h"
#include "rule.h"
#include "stats.h"
#include "tcp_connect.h"
#include "udp_backend.h"
#include "udp_cid.h"
#include "udp_client.h"
#include "udp_follow.h"
#include "udp_io.h"
#include "udp_pace.h"
#include "udp_pass.h"
#include "udp_route.h"
#include "udp_session.h"
#include "udp_stream.h"
#include "udp_table.h"
#include "udp_types.h"

/* The steps a session's life may take: from each state, the next ones. */
static const unsigned state_next[] = {
	[UDP_OPENING] = 1u << UDP_CONNECTING | 1u << UDP_ACTIVE |
	    1u << UDP_DETACHED | 1u << UDP_UNDECIDED,
	[UDP_CONNECTING] = 1u << UDP_ACTIVE | 1u << UDP_DETACHED_CONNECTING,
	[UDP_ACTIVE] = 1u << UDP_DETACHED,
	[UDP_DETACHED] = 1u << UDP_DETACHED,
	[UDP_DETACHED_CONNECTING] = 1u << UDP_DETACHED |
	    1u << UDP_DETACHED_CONNECTING,
	[UDP_UNDECIDED] = 1u << UDP_ACTIVE | 1u << UDP_DETACHED
};

static void session_on_backend(struct event_loop *, int, int, void *);
static void session_resume(void *);
static void stream_next(struct udp_session *, int);
static void session_undecided(struct udp_session *, const struct iovec *,
    int);
static void session_undecided_end(struct udp_session *);

/* s goes on to state to: one of the steps state_next allows. */
void
udp_session_enter(struct udp_session *s, enum udp_state to)
{
	BUG_ON(s->state >= sizeof(state_next) / sizeof(state_next[0]) ||
	    (state_next[s->state] & 1u << to) == 0);
	s->state = (uint8_t)to;
}

/* Take s out of the table and lists, close its socket, free it. */
void
udp_session_free(struct udp_session *s)
{
	struct udp_sessions	*us = s->owner;
	struct udp_rule		*ur = &us->rules[s->key.rule];

	BUG_ON(s->state == UDP_OPENING);
	udp_pace_cancel(us->pacer, &s->pace);
	if (s->fd != -1) {	/* undecided: none yet */
		event_close(us->loop, s->fd);
		close(s->fd);
	}
	udp_route_release(s);
	udp_cid_forget(s);
	free(s->sni);
	event_timer_cancel(us->loop, &s->timer);
	udp_backend_release(s);
	client_limit_release(s->client_hold);
	stats_rule(s->rule)->active_sessions--;
	udp_stream_free(s->stream);
	if (udp_state_in_table(s->state))
		udp_table_remove(us, s);
	TAILQ_REMOVE(&ur->lru, s, lru);
	BUG_ON(ur->count <= 0 || us->count < ur->count);
	ur->count--;
	us->count--;
	free(s);
}

/* The session ends: access log, counters, socket, memory. */
static void
session_close(struct udp_session *s, const char *result)
{
	struct udp_sessions	*us = s->owner;
	struct accesslog_times	 times = accesslog_no_times;
	const struct route	*rt = udp_route_of(s);
	char			 client[ADDR_STRLEN];

	times.route = rt != NULL ? rt->name : NULL;
	/* What the route matched, as a TCP session's line says it. */
	times.matched = s->sni != NULL ? s->sni : rt != NULL ?
	    route_protocol_names[rt->protocol] : NULL;
	log_debug("%s -> %s: UDP session of %s closed (%s): %llu bytes in, "
	    "%llu bytes out", rule_log_name(s->rule), s->rule->connect,
	    addr_format((const struct sockaddr *)&s->client, client,
	    sizeof(client)), result, (unsigned long long)s->bytes_in,
	    (unsigned long long)s->bytes_out);
	/* A route's no_access_log is its destination's. */
	if (rt == NULL || !rt->dest.no_access_log)
		accesslog_session(s->rule, (const struct sockaddr *)&s->client,
		    s->backend != NULL ? (const struct sockaddr *)
		    &s->backend->addr.ss : NULL, s->stream != NULL ?
		    s->stream->connect.attempts : 1, result, s->bytes_in,
		    s->bytes_out, s->started, event_now(us->loop), &times);
	udp_io_count_end(s, event_now(us->loop));
	udp_session_free(s);
}

/* Traffic either way: the session is the rule's most recent. */
static void
session_touch(struct udp_session *s)
{
	struct udp_lru *lru = &s->owner->rules[s->key.rule].lru;

	s->last_active = event_now(s->owner->loop);
	if (TAILQ_NEXT(s, lru) != NULL) {
		TAILQ_REMOVE(lru, s, lru);
		TAILQ_INSERT_TAIL(lru, s, lru);
	}
}

/* When s ends unless traffic comes (or its backend answers) first. */
static int64_t
session_due(const struct udp_session *s)
{
	switch (s->state) {
	case UDP_DETACHED:
	case UDP_DETACHED_CONNECTING:
		return s->until;
	case UDP_CONNECTING:
		return s->stream->attempt_end;
	case UDP_UNDECIDED:
		return s->started + s->rule->peek_timeout;
	default:
		return s->last_active + s->rule->session_timeout;
	}
}

/* No backend of s's rule took the connection (err): say so, close. */
static void
session_connect_failed(struct udp_session *s, int err)
{
	static struct log_limit	limit;
	char			backend[ADDR_STRLEN], client[ADDR_STRLEN];

	stats_rule(s->rule)->no_backend++;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot connect to %s "
	    "for UDP client %s: %s", rule_log_name(s->rule), s->backend == NULL ||
	    s->rule->upstream.nbackends > 1 ? s->rule->connect : addr_format(
	    (const struct sockaddr *)&s->backend->addr.ss, backend,
	    sizeof(backend)), addr_format((const struct sockaddr *)&s->client,
	    client, sizeof(client)), strerror(err));
	session_close(s, err == ETIMEDOUT ? ACCESSLOG_TIMEOUT :
	    ACCESSLOG_CONNECT_FAILED);
}

static void
session_on_timer(struct event_timer *t, void *data)
{
	struct udp_session	*s = data;

	if (session_due(s) > event_now(s->owner->loop) &&
	    event_timer_arm(s->owner->loop, t, session_due(s)) == 0)
		return;
	if (s->state == UDP_UNDECIDED) {
		session_undecided_end(s);	/* peek_timeout is over */
		return;
	}
	if (udp_state_connecting(s->state)) {
		/* This backend's share of connect_timeout is over. */
		stream_next(s, ETIMEDOUT);
		return;
	}
	session_close(s, ACCESSLOG_IDLE_TIMEOUT);
}

/* s's TCP backend failed (err) or ended (0): the session ends with it. */
static void
stream_ended(struct udp_session *s, int err)
{
	char backend[ADDR_STRLEN];

	if (err != 0)
		log_debug("%s: backend %s of a UDP session: %s",
		    rule_log_name(s->rule), addr_format((const struct sockaddr *)
		    &s->backend->addr.ss, backend, sizeof(backend)),
		    strerror(err));
	session_close(s, err != 0 ? ACCESSLOG_RESET : ACCESSLOG_DONE);
}

/*
 * The stream's connect failed with err: connect to the next backend, or
 * fail the session when none is left.
 */
static void
stream_next(struct udp_session *s, int err)
{
	struct udp_sessions	*us = s->owner;

	if (udp_stream_next(s, err) == -1 ||
	    event_set(us->loop, s->fd, EV_WRITE, session_on_backend, s) == -1) {
		session_connect_failed(s, errno);
		return;
	}
	(void)event_timer_arm(us->loop, &s->timer, session_due(s));
}

/*
 * The socket of new session s towards rule's backend: a UDP socket
 * connected to it, or for a UDP-to-TCP rule a TCP connection started
 * (s->stream), its PROXY header first in line where the rule sends one.
 * -1 with errno.
 */
static int
session_backend(struct udp_session *s, const struct rule *rule)
{
	if (rule->connect_protocol == RULE_UDP)
		return udp_backend_open(rule,
		    (const struct sockaddr *)&s->client, &s->backend);
	return udp_stream_start(s, rule);
}

/* udp_session.h */
int
udp_session_insert(struct udp_sessions *us, struct udp_session *s,
    const struct udp_key *k, uint32_t h)
{
	struct udp_rule *ur = &us->rules[k->rule];

	BUG_ON(s->state == UDP_OPENING);
	s->owner = us;
	udp_pace_init(&s->pace, session_resume, s);
	/* Held here: udp_backend_release() lets go of it. */
	if (s->stream == NULL && !s->stranger && s->backend != NULL)
		stats_backend(s->backend)->active++;
	if (s->fd != -1 && event_set(us->loop, s->fd, s->state ==
	    UDP_CONNECTING ? EV_WRITE : EV_READ, session_on_backend, s) == -1) {
		close(s->fd);
		udp_backend_release(s);
		udp_stream_free(s->stream);
		free(s);
		return -1;
	}
	s->key = *k;
	s->hash = h;
	s->client_hold = udp_client_hold(s);
	event_timer_init(&s->timer, session_on_timer, s);
	(void)event_timer_arm(us->loop, &s->timer, session_due(s));
	if (udp_state_in_table(s->state))
		udp_table_add(us, s);
	TAILQ_INSERT_TAIL(&ur->lru, s, lru);
	ur->count++;
	us->count++;
	stats_rule(s->rule)->active_sessions++;
	if ((size_t)us->count > us->nbuckets)
		udp_table_grow(us);	/* longer chains meanwhile, still right */
	return 0;
}

/* A new session for from, evicting the rule's oldest if it is full. */
static struct udp_session *
session_open(struct udp_sessions *us, const struct udp_from *from,
    const struct udp_key *k, uint32_t h)
{
	static struct log_limit	 limit;
	struct udp_rule		*ur = &us->rules[k->rule];
	struct udp_session	*s;
	char			 client[ADDR_STRLEN];

	if (udp_client_refused(us, from))
		return NULL;
	switch (udp_table_room(us, ur, from->rule)) {
	case UDP_ROOM:
		break;
	case UDP_ROOM_EVICT:
		stats_rule(from->rule)->evicted++;
		session_close(TAILQ_FIRST(&ur->lru), ACCESSLOG_EVICTED);
		break;
	case UDP_ROOM_NONE:
		udp_table_full(us, from);
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) != NULL) {
		/* What picking its backend reads: the client, for a hash. */
		s->owner = us;
		s->rule = from->rule;
		memcpy(&s->client, from->client, from->client_len);
		s->client_len = from->client_len;
		s->key = *k;
		s->fd = -1;	/* with routes, until one is picked */
	}
	if (s == NULL || (from->rule->nroutes == 0 &&
	    (s->fd = session_backend(s, from->rule)) == -1)) {
		log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot open a "
		    "UDP session for %s: %s", rule_log_name(from->rule),
		    addr_format(from->client, client, sizeof(client)),
		    s == NULL ? "out of memory" : strerror(errno));
		if (s != NULL)
			udp_stream_free(s->stream);
		free(s);
		return NULL;
	}
	udp_session_enter(s, from->rule->nroutes > 0 ? UDP_UNDECIDED :
	    s->stream != NULL ? UDP_CONNECTING : UDP_ACTIVE);
	s->lfd = from->lfd;
	s->family = from->family;
	s->ifindex = from->ifindex;
	s->started = s->last_active = event_now(us->loop);
	if (udp_session_insert(us, s, k, h) == -1)
		return NULL;
	stats_rule(s->rule)->sessions++;
	if (s->stream == NULL && s->backend != NULL)
		stats_backend(s->backend)->opened++;
	log_debug("%s -> %s: UDP session of %s opened", rule_log_name(s->rule),
	    s->rule->connect, addr_format(from->client, client,
	    sizeof(client)));
	return s;
}

/*
 * Send n datagrams (iov) to s's backend, over its TCP or UDP leg: traffic
 * makes it the rule's most recent; a failed TCP leg ends it.  While its
 * route is undecided they go to udp_route.c, which picks it or holds
 * them.
 */
static void
session_send(struct udp_session *s, const struct iovec *iov, int n)
{
	udp_cid_client(s, iov, n);
	if (s->state == UDP_UNDECIDED)
		session_undecided(s, iov, n);
	else if (s->stream != NULL) {
		if (udp_stream_send(s, iov, n) == -1) {
			stream_ended(s, errno);
			return;
		}
		session_touch(s);
	} else if (udp_io_send(s, iov, n))
		session_touch(s);
}

/*
 * The session of from (its key k): the one whose QUIC connection ID the
 * first datagram carries (the client moved), or one made if there is
 * none and it may be; or NULL: the n datagrams (iov) are dropped
 * (counted), passed on by an old worker, or held while another worker
 * is asked for their session (udp_follow.h).
 */
static struct udp_session *
session_of(struct udp_sessions *us, const struct udp_from *from,
    const struct udp_key *k, const struct iovec *iov, int n)
{
	struct udp_session	*s;
	uint32_t		 h = udp_key_hash(k);

	if ((s = udp_session_find(us, k, h)) != NULL)
		return s;
	if (us->pass.chan != -1) {
		udp_io_dropped(from->rule, (uint64_t)udp_pass_run(&us->pass,
		    (uint32_t)(from->rule - us->conf_rules), from, iov, n));
		return NULL;
	}
	if (!udp_client_allowed(us, from))
		s = NULL;
	else if (udp_follow(us, from, k, h, iov, n, &s) != UDP_FOLLOW_NONE)
		return s;
	else if ((s = session_open(us, from, k, h)) != NULL) {
		udp_cid_start(s, iov[0].iov_base, iov[0].iov_len);
		if (s->backend != NULL)
			/* rinetd counts the first datagram on its "opened" line. */
			accesslog_opened(s->rule, from->client,
			    (const struct sockaddr *)&s->backend->addr.ss,
			    iov[0].iov_len);
	}
	if (s == NULL)
		udp_io_dropped(from->rule, (uint64_t)n);
	return s;
}

void
udp_sessions_forward(struct udp_sessions *us, const struct udp_from *from,
    const struct iovec *iov, int n)
{
	struct udp_session	*s;
	struct udp_key		 k[UDP_BATCH];
	int			 i, j;

	for (i = 0; i < n; i++)
		udp_key_make(us, &from[i], &k[i]);
	/*
	 * A run of datagrams of one session goes in one send.  Runs are
	 * looked up one at a time: making a session may evict another,
	 * which must not be one still to be sent to.
	 */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && memcmp(&k[i], &k[j],
		    sizeof(k[i])) == 0; j++)
			;
		s = session_of(us, &from[i], &k[i], iov + i, j - i);
		if (s != NULL)
			session_send(s, iov + i, j - i);
	}
}

/*
 * Undecided s picked rt: its backend opened (or s closed), what it held
 * sent first, then the n datagrams (iov) from the one that decided.
 */
static void
session_picked(struct udp_session *s, const struct route *rt,
    const struct iovec *iov, int n)
{
	static struct log_limit	 limit;
	struct udp_sessions	*us = s->owner;
	struct iovec		 held[UDP_HELD_MAX];
	char			 client[ADDR_STRLEN];
	int			 nheld;

	if ((s->fd = session_backend(s, &rt->dest)) != -1) {
		stats_backend(s->backend)->active++;
		stats_backend(s->backend)->opened++;
		udp_session_enter(s, UDP_ACTIVE);
	}
	if (s->fd == -1 || event_set(us->loop, s->fd, EV_READ,
	    session_on_backend, s) == -1) {
		log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot open a "
		    "UDP session for %s: %s", rule_log_name(&rt->dest),
		    addr_format((const struct sockaddr *)&s->client, client,
		    sizeof(client)), strerror(errno));
		udp_io_dropped(s->rule, (uint64_t)n);
		session_close(s, ACCESSLOG_CONNECT_FAILED);
		return;
	}
	(void)event_timer_arm(us->loop, &s->timer, session_due(s));
	if ((nheld = udp_route_held(s, held)) > 0)
		session_send(s, held, nheld);
	udp_route_release(s);
	if (n > 0)
		session_send(s, iov, n);
}

/* Datagrams of undecided s: a route picked, held, or none takes them. */
static void
session_undecided(struct udp_session *s, const struct iovec *iov, int n)
{
	const struct route	*rt;
	int			 at;

	switch (udp_route_judge(s, iov, n, &rt, &at)) {
	case UDP_JUDGED_PICKED:
		session_picked(s, rt, iov + at, n - at);
		break;
	case UDP_JUDGED_UNMATCHED:
		session_close(s, ACCESSLOG_UNMATCHED);
		break;
	case UDP_JUDGED_HELD:
		break;
	}
}

/* Undecided s at peek_timeout: on_timeout's route, or the end. */
static void
session_undecided_end(struct udp_session *s)
{
	const struct route *rt = udp_route_timeout(s);

	if (rt != NULL)
		session_picked(s, rt, NULL, 0);
	else
		session_close(s, ACCESSLOG_PEEK_TIMEOUT);
}

/*
 * A UDP-to-TCP session's backend is ready: finish connecting (or try its
 * next address), then the stream writes what is held and sends each
 * datagram read from it to the client.
 */
static void
stream_on_backend(struct udp_session *s, int events)
{
	struct udp_sessions	*us = s->owner;
	struct udp_stream	*st = s->stream;
	int			 n, err;

	if (udp_state_connecting(s->state)) {
		if ((err = tcp_connect_finished(s->fd, events)) != 0) {
			stream_next(s, err);	/* the next backend */
			return;
		}
		if ((events & EV_WRITE) == 0)
			return;		/* not connected yet */
		udp_session_enter(s, s->state == UDP_CONNECTING ? UDP_ACTIVE :
		    UDP_DETACHED);
		tcp_connect_succeeded(&st->connect, s->rule,
		    event_now_us(us->loop));
		(void)event_timer_arm(us->loop, &s->timer, session_due(s));
	}
	if ((n = udp_stream_pump(s)) == -1)
		stream_ended(s, errno);
	else if (n > 0)
		session_touch(s);
}

/*
 * The backend is ready: a UDP-to-TCP session's stream, or replies that
 * make the session the rule's most recent.
 */
static void
session_on_backend(struct event_loop *loop, int fd, int events, void *data)
{
	struct udp_session	*s = data;

	(void)loop;
	if (s->stream != NULL)
		stream_on_backend(s, events);
	else if (udp_io_replies(s, fd) > 0)
		session_touch(s);
}

/* s's replies were paced (udp_io_replies): read them again. */
static void
session_resume(void *data)
{
	struct udp_session *s = data;

	(void)event_mask(s->owner->loop, s->fd, EV_READ);
}

void
udp_sessions_close_all(struct udp_sessions *us)
{
	size_t i;

	for (i = 0; i < us->nrules; i++)
		while (!TAILQ_EMPTY(&us->rules[i].lru))
			session_close(TAILQ_FIRST(&us->rules[i].lru),
			    ACCESSLOG_SHUTDOWN);
}

void
udp_sessions_listener(struct udp_sessions *us, const struct rule *rule,
    int lfd)
{
	struct udp_rule *ur = &us->rules[rule - us->conf_rules];

	ur->lfd = lfd;
	ur->family = rule->listen_addr.ss.ss_family;
}

void
udp_sessions_linger(struct udp_sessions *us)
{
	struct udp_session	*s;
	size_t			 i;
	int64_t			 end = event_now(us->loop) + DETACHED_MS;

	for (i = 0; i < us->nrules; i++)
		TAILQ_FOREACH(s, &us->rules[i].lru, lru) {
			if (udp_state_in_table(s->state))
				udp_table_remove(us, s);
			udp_session_enter(s, udp_state_connecting(s->state) ?
			    UDP_DETACHED_CONNECTING : UDP_DETACHED);
			s->until = end;
			(void)event_timer_arm(us->loop, &s->timer, end);
		}
}
