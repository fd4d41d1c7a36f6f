/*
 * tcp_session.c - a forwarded TCP connection's life: on a rule with
 * routes, the peek that picks one (tcp_peek.c); connect to the
 * upstream (tcp_connect.c), relay (tcp_relay.c), time out, close, and
 * the access log line at the end.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>

#include "accesslog.h"
#include "addr.h"
#include "bug.h"
#include "client_limit.h"
#include "event.h"
#include "log.h"
#include "pool.h"
#include "rate.h"
#include "rule.h"
#include "sock.h"
#include "proxy_proto.h"
#include "route.h"
#include "session_list.h"
#include "stats.h"
#include "tcp_connect.h"
#include "tcp_peek.h"
#include "tcp_relay.h"
#include "tcp_session.h"
#include "tcp_to_udp.h"
#include "upstream.h"
#include "xprt.h"

#include "tcp_session_int.h"

static const char *const side_name[] = { "client", "backend" };

/* A time not taken (no connect, no first byte). */
#define TIME_NONE	UINT32_MAX
/* While clients wait for a backend: how often they look (queue_look). */
#define QUEUE_LOOK_MS		100
#define QUEUE_LOOK_RULES	64	/* rules a look kicks; more, the next */

/* us as a session keeps it: at most TIME_NONE - 1 (71 minutes). */
static uint32_t
time_kept(uint64_t us)
{
	return us < TIME_NONE ? (uint32_t)us : TIME_NONE - 1;
}


/*
 * The session is over: say how, for the access log and the debug line.
 * reset_side (or -1) is closed with a reset; err_side's socket failed
 * with err, or err is why a resource ran out (shortage), or 0.
 */
void
session_end(struct tcp_session *ss, int reset_side, const char *result,
    const char *why, int err)
{
	BUG_ON(ss->state == TCP_CLOSING);
	ss->state = TCP_CLOSING;
	ss->reset_side = (int8_t)reset_side;
	ss->result = result;
	ss->why = why;
	ss->err = err;
}

/* side closed (FIN, reset or a failed connect): the first one counts. */
static void
session_note_close(struct tcp_session *ss, int side)
{
	if (ss->closed_first == ACCESSLOG_SIDE_UNKNOWN)
		ss->closed_first = side == TCP_CLIENT ? ACCESSLOG_SIDE_CLIENT :
		    ACCESSLOG_SIDE_BACKEND;
}

/* Side failed_side's socket failed with err: pass a reset on. */
void
session_abort(struct tcp_session *ss, int failed_side, int err)
{
	struct stats_rule *sr = stats_rule(ss->rule);

	session_end(ss, TCP_OTHER(failed_side), ACCESSLOG_RESET, NULL, err);
	ss->err_side = (int8_t)failed_side;
	session_note_close(ss, failed_side);
	if (failed_side == TCP_CLIENT)
		sr->resets_client++;
	else
		sr->resets_backend++;
}

/* Out of descriptors or memory (err) for what: close, tell the accept. */
void
session_short(struct tcp_session *ss, const char *why, int err)
{
	session_end(ss, TCP_CLIENT, ACCESSLOG_CONNECT_FAILED, why, err);
	ss->shortage = true;
}

/* The backend could not be reached: say why, and reset the client. */
static void
session_fail(struct tcp_session *ss, const char *result, const char *why,
    int err)
{
	static struct log_limit	 limit;
	const struct rule	*rule = ss->dest;
	bool			 several = rule->upstream.nbackends > 1;
	char			 backend[ADDR_STRLEN], client[ADDR_STRLEN];

	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot connect to %s "
	    "for client %s: %s%s", rule_log_name(rule), several ||
	    ss->connect.backend == NULL ? rule->connect :
	    addr_format((const struct sockaddr *)&ss->connect.backend->addr.ss,
	    backend, sizeof(backend)),
	    addr_format((const struct sockaddr *)&ss->peer.ss, client,
	    sizeof(client)), err != 0 ? strerror(err) : why,
	    several ? " (every backend that could be tried)" : "");
	session_end(ss, TCP_CLIENT, result, why, err);
	session_note_close(ss, TCP_BACKEND);
}

/* One access_log line for a session that ends with result. */
static void
session_log_access(struct tcp_sessions *ts, const struct rule *rule,
    const struct backend *backend, unsigned attempts,
    const struct sockaddr_any *peer, const char *result, int closed_first,
    uint64_t in, uint64_t out, int64_t started,
    const struct accesslog_times *times)
{
	accesslog_session_end(rule, (const struct sockaddr *)&peer->ss,
	    backend != NULL ? (const struct sockaddr *)&backend->addr.ss :
	    NULL, attempts, result, closed_first, in, out, started,
	    event_now(ts->env.loop), times);
}

/* What the rule's and the backend's counters keep of a session. */
static void
session_count_end(const struct tcp_session *ss)
{
	const struct tcp_relay	*r = &ss->relay;
	struct stats_rule	*sr = stats_rule(ss->rule);
	struct stats_backend	*sb;
	uint64_t		 us = (uint64_t)(event_now_us(ss->owner->env.loop) -
	    ss->accepted_us);

	sr->closed++;
	sr->active--;
	sr->bytes_in += r->dir[TCP_CLIENT].bytes;
	sr->bytes_out += r->dir[TCP_BACKEND].bytes;
	hist_add(&stats_rule_hist(ss->rule)->duration, us);
	if (!ss->connect.connected)
		return;
	sb = stats_backend(ss->connect.backend);
	sb->bytes_in += r->dir[TCP_CLIENT].bytes;
	sb->bytes_out += r->dir[TCP_BACKEND].bytes;
	hist_add(&stats_backend_hist(ss->connect.backend)->duration, us);
}

/* The backend's first byte reached the relay: how long it took. */
static void
session_first_byte(struct tcp_session *ss)
{
	uint64_t us = (uint64_t)(event_now_us(ss->owner->env.loop) -
	    ss->accepted_us) - ss->connect_us;

	ss->first_byte_us = time_kept(us);
	hist_add(&stats_rule_hist(ss->rule)->first_byte, us);
	hist_add(&stats_backend_hist(ss->connect.backend)->first_byte, us);
}

/* How many clients of rule wait in ts's queue. */
static int
queue_count(const struct tcp_sessions *ts, const struct rule *rule)
{
	const struct tcp_session	*w;
	int				 n = 0;

	TAILQ_FOREACH(w, &ts->queue, qlink)
		n += w->rule == rule;
	return n;
}

/*
 * queue_timeout: every backend is at its max_connections, so the client
 * waits, accepted but not connected, until a connection of its rule ends
 * or a backend may have room again (queue_kick, queue_look) or
 * queue_timeout passes.  A client back from the queue
 * that still finds none goes back first in line.  False: no queue, or
 * queue_max clients wait already; it is refused as without a queue.
 */
static bool
session_queue(struct tcp_session *ss)
{
	struct tcp_sessions	*ts = ss->owner;
	const struct rule	*rule = ss->rule;
	bool			 again = ss->queue_until != 0;

	/* An orphan's client is gone: it does not wait for a backend. */
	if (rule->queue_timeout == 0 || ss->orphan ||
	    (!again && queue_count(ts, rule) >= rule->queue_max))
		return false;
	if (!again)
		ss->queue_until = event_now(ts->env.loop) + rule->queue_timeout;
	if (event_timer_arm(ts->env.loop, &ss->timer, ss->queue_until) == -1)
		return false;
	BUG_ON(ss->queued || ss->state != TCP_CONNECTING);
	if (again)
		TAILQ_INSERT_HEAD(&ts->queue, ss, qlink);
	else
		TAILQ_INSERT_TAIL(&ts->queue, ss, qlink);
	ss->queued = true;
	stats_rule(rule)->queued++;
	if (!event_timer_armed(&ts->queue_look))
		(void)event_timer_arm(ts->env.loop, &ts->queue_look,
		    event_now(ts->env.loop) + QUEUE_LOOK_MS);
	return true;
}

static void
session_unqueue(struct tcp_session *ss)
{
	if (!ss->queued)
		return;
	TAILQ_REMOVE(&ss->owner->queue, ss, qlink);
	ss->queued = false;
	stats_rule(ss->rule)->queued--;
	event_timer_cancel(ss->owner->env.loop, &ss->timer);
}

/*
 * A backend of rule may have room: its first waiting client tries
 * again; while each one that tries fails at once, the next one does.
 */
static void
queue_kick(struct tcp_sessions *ts, const struct rule *rule)
{
	struct tcp_session	*w;

	if (ts->kicking || TAILQ_EMPTY(&ts->queue))
		return;
	ts->kicking = true;	/* a session closed below kicks nothing */
	for (;;) {
		TAILQ_FOREACH(w, &ts->queue, qlink)
			if (w->rule == rule)
				break;
		if (w == NULL)
			break;
		session_unqueue(w);
		w->connect_from = event_now(ts->env.loop);
		session_connect(w, 0);
		if (w->state != TCP_CLOSING)
			break;		/* connecting, or back in line */
		(void)session_settle(w);
	}
	ts->kicking = false;
}

/*
 * While clients wait: the first of each rule tries again.  Room comes
 * back not only when one of our connections ends (queue_kick at its
 * close) but when a backend comes up (the checker's word, or its
 * fail_timeout over), is enabled or ready again, or weighs more (the
 * master's, at the control socket): written in the shared health table
 * by other processes, with no message to us.  A look is a pick per
 * rule with waiting clients; one that still finds none goes back first
 * in line.
 */
static void
queue_look(struct event_timer *t, void *data)
{
	struct tcp_sessions	*ts = data;
	struct tcp_session	*w, *v;
	const struct rule	*rules[QUEUE_LOOK_RULES];
	size_t			 n = 0, i;

	(void)t;
	TAILQ_FOREACH(w, &ts->queue, qlink) {
		for (v = TAILQ_FIRST(&ts->queue); v->rule != w->rule;
		    v = TAILQ_NEXT(v, qlink))
			continue;
		if (v == w && n < QUEUE_LOOK_RULES)	/* its rule's first */
			rules[n++] = w->rule;
	}
	for (i = 0; i < n; i++)
		queue_kick(ts, rules[i]);
	if (!TAILQ_EMPTY(&ts->queue))
		(void)event_timer_arm(ts->env.loop, &ts->queue_look,
		    event_now(ts->env.loop) + QUEUE_LOOK_MS);
}

/* The client waited queue_timeout: closed, counted, said (rate-limited). */
static void
session_queue_timeout(struct tcp_session *ss)
{
	static struct log_limit	limit;
	char			client[ADDR_STRLEN];

	session_unqueue(ss);
	stats_rule(ss->rule)->queue_timeouts++;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: client %s closed "
	    "after waiting %d ms (queue_timeout) for one of %s: every backend "
	    "is at its max_connections", rule_log_name(ss->rule),
	    addr_format((const struct sockaddr *)&ss->peer.ss, client,
	    sizeof(client)), ss->rule->queue_timeout, ss->rule->connect);
	session_end(ss, -1, ACCESSLOG_QUEUE_TIMEOUT, "queue timeout", 0);
}

/* Close a CLOSING session and free it: log, access log, sockets. */
static void
session_free(struct tcp_session *ss)
{
	struct tcp_sessions *ts = ss->owner;
	struct tcp_relay    *r = &ss->relay;
	struct accesslog_times times;
	char                 client[ADDR_STRLEN], why[128];
	int64_t              ms = event_now(ts->env.loop) - ss->started;
	const struct rule   *rule = ss->rule;
	bool                 held = ss->connect.held;

	BUG_ON(ss->state != TCP_CLOSING);
	/* The debug line's words are made only for a log that takes it. */
	if (log_get_level() >= LOG_LEVEL_DEBUG) {
		if (ss->err == 0)
			snprintf(why, sizeof(why), "%s", ss->why);
		else
			snprintf(why, sizeof(why), "%s: %s", ss->err_side >= 0 ?
			    side_name[ss->err_side] : ss->why,
			    strerror(ss->err));
		log_debug("%s -> %s: connection from %s closed (%s): "
		    "%llu bytes in, %llu bytes out, %lld.%03lld s",
		    rule_log_name(ss->dest), ss->dest->connect,
		    addr_format((const struct sockaddr *)&ss->peer.ss, client,
		    sizeof(client)), why,
		    (unsigned long long)r->dir[TCP_CLIENT].bytes,
		    (unsigned long long)r->dir[TCP_BACKEND].bytes,
		    (long long)(ms / 1000), (long long)(ms % 1000));
	}
	times.connect_us = ss->connect_us == TIME_NONE ? -1 :
	    (int64_t)ss->connect_us;
	times.first_byte_us = ss->first_byte_us == TIME_NONE ? -1 :
	    (int64_t)ss->first_byte_us;
	times.route = ss->route != NULL ? ss->route->name : NULL;
	times.matched = ss->route == NULL ? NULL :
	    ss->peek->look.sni[0] != '\0' ? ss->peek->look.sni :
	    route_protocol_names[ss->route->protocol];
	/* A route's no_access_log is its destination's. */
	if (!ss->dest->no_access_log)
		session_log_access(ts, ss->rule, ss->connect.backend,
		    ss->connect.attempts, &ss->peer, ss->result,
		    ss->closed_first, r->dir[TCP_CLIENT].bytes,
		    r->dir[TCP_BACKEND].bytes, ss->started, &times);
	session_count_end(ss);
	/*
	 * Counted out before the sockets close: whoever sees them gone
	 * sees the client's count fall too.
	 */
	client_limit_release(ss->client_hold);
	if (ss->peek != NULL) {
		event_timer_cancel(ts->env.loop, &ss->peek->again);
		tcp_peek_end(&ss->peek->look, ts->env.pool);
		free(ss->peek->said);
		pool_put(ts->env.pool, ss->peek, sizeof(*ss->peek));
	}
	tcp_connect_release(&ss->connect);
	tcp_relay_close(&ts->env, r, ss->reset_side);
	session_unqueue(ss);
	event_timer_cancel(ts->env.loop, &ss->timer);
	event_timer_cancel(ts->env.loop, &ss->budget);
	TAILQ_REMOVE(&ts->list, ss, link);
	ts->count--;
	pool_put(ts->env.pool, ss, sizeof(*ss));
	/* It held a backend's place, which a waiting client may take. */
	if (held)
		queue_kick(ts, rule);
}

/*
 * The deferred close, at the end of every entry point: a session that
 * became CLOSING is closed now.  Returns -1 with errno if it was closed
 * for want of descriptors or memory, else 0.
 */
int
session_settle(struct tcp_session *ss)
{
	int err;

	if (ss->state != TCP_CLOSING)
		return 0;
	err = ss->shortage ? ss->err : 0;
	session_free(ss);
	if (err == 0)
		return 0;
	errno = err;
	return -1;
}

/*
 * Connect to the next backend of the rule's upstream while
 * connect_timeout lasts; err: why the one before failed (0: none yet).
 */
void
session_connect(struct tcp_session *ss, int err)
{
	struct tcp_sessions *ts = ss->owner;
	int64_t              now = event_now(ts->env.loop);
	/* An orphan's failed attempt is its last (counted all the same). */
	int64_t              deadline = ss->orphan ? now : ss->connect_from +
	    ss->dest->connect_timeout;
	/* Static: the session keeps the pointer until it is closed. */
	static char          why[64];
	int                  fd;

	switch (tcp_connect_next(&ss->connect, ss->dest,
	    event_now_us(ts->env.loop), deadline, &fd, &err)) {
	case TCP_CONNECT_PENDING:
		tcp_relay_attach_backend(&ss->relay, fd, true);
		if (event_set(ts->env.loop, fd, EV_EDGE | EV_READ | EV_WRITE,
		    session_io, ss) == -1) {
			log_err("cannot watch backend socket: %s",
			    strerror(errno));
			session_short(ss, "event loop full", errno);
		} else if (event_timer_arm(ts->env.loop, &ss->timer,
		    tcp_connect_attempt_end(ss->dest, now, deadline)) == -1)
			session_short(ss, "out of memory", ENOMEM);
		break;
	case TCP_CONNECT_SHORTAGE:
		session_short(ss, "no socket", errno);
		break;
	case TCP_CONNECT_NONE:
		/* None picked (err 0): every one is at its max_connections. */
		if (err == 0 && session_queue(ss))
			break;
		stats_rule(ss->rule)->no_backend++;
		if (err == ETIMEDOUT) {
			snprintf(why, sizeof(why), "timed out after %d ms",
			    ss->dest->connect_timeout);
			session_fail(ss, ACCESSLOG_TIMEOUT, why, 0);
		} else
			session_fail(ss, ACCESSLOG_CONNECT_FAILED, err == 0 ?
			    "every backend is at its max_connections" :
			    "connect failed", err);
		break;
	}
}

/* The connecting backend socket reported events. */
static void
session_connect_done(struct tcp_session *ss, int events)
{
	struct tcp_sessions *ts = ss->owner;
	struct tcp_relay    *r = &ss->relay;
	int                  err, reset = 0, fd = r->fd[TCP_BACKEND];
	int64_t              now = event_now(ts->env.loop), now_us;

	/* A backend that spoke and reset at once: made, then reset. */
	if (tcp_connect_made_then_reset(err = tcp_connect_finished(fd,
	    events))) {
		reset = err;
		err = 0;
	}
	if (err != 0) {
		event_close(ts->env.loop, fd);
		close(fd);
		tcp_relay_detach_backend(r);
		session_connect(ss, err);
		return;
	}
	BUG_ON(ss->state != TCP_CONNECTING);
	ss->state = TCP_RELAYING;
	now_us = event_now_us(ts->env.loop);
	tcp_connect_succeeded(&ss->connect, ss->dest, now_us);
	ss->connect_us = time_kept((uint64_t)(now_us - ss->accepted_us));
	hist_add(&stats_rule_hist(ss->rule)->connect, ss->connect_us);
	tcp_relay_connected(r, now, reset);
	/* sslh's line: its connection is made. */
	if (!ss->dest->no_access_log)
		accesslog_connected(ss->rule, ss->route != NULL ?
		    ss->route->name : NULL, (const struct sockaddr *)&ss->peer.ss,
		    (const struct sockaddr *)&ss->connect.backend->addr.ss,
		    r->fd[TCP_CLIENT], fd);
	/* From now on the timer is the idle timeout's, re-armed lazily. */
	if (ss->rule->idle_timeout > 0)
		(void)event_timer_arm(ts->env.loop, &ss->timer,
		    now + ss->rule->idle_timeout);
	else
		event_timer_cancel(ts->env.loop, &ss->timer);
}

/* Move bytes; the relay says when and how the connection ended. */
void
session_relay(struct tcp_session *ss)
{
	struct tcp_relay	*r = &ss->relay;
	enum tcp_relay_status	 res = tcp_relay_run(&ss->owner->env, r);

	/*
	 * A reset first (it ends the direction towards the side that sent
	 * it too); rinetd reads the client first: a FIN from both at once
	 * is its.
	 */
	if (r->gone[TCP_CLIENT] != 0 || r->gone[TCP_BACKEND] != 0)
		session_note_close(ss, r->gone[TCP_CLIENT] != 0 ? TCP_CLIENT :
		    TCP_BACKEND);
	else if (r->dir[TCP_CLIENT].eof)
		session_note_close(ss, TCP_CLIENT);
	else if (r->dir[TCP_BACKEND].eof)
		session_note_close(ss, TCP_BACKEND);

	if (ss->first_byte_us == TIME_NONE && r->dir[TCP_BACKEND].bytes > 0 &&
	    ss->state == TCP_RELAYING)
		session_first_byte(ss);
	switch (res) {
	case TCP_RELAY_OPEN:
		/* Out of the rule's budget: run again when it is refilled. */
		if (r->resume_at == 0 || (event_timer_armed(&ss->budget) &&
		    ss->budget.due <= r->resume_at))
			break;
		stats_rule(ss->rule)->rate_waits++;
		if (event_timer_arm(ss->owner->env.loop, &ss->budget,
		    r->resume_at) == -1)
			session_short(ss, "out of memory", ENOMEM);
		break;
	case TCP_RELAY_DONE:
		session_end(ss, -1, ACCESSLOG_DONE, "done", 0);
		break;
	case TCP_RELAY_RESET:
		session_drain(ss);
		break;
	case TCP_RELAY_FAILED:
		session_abort(ss, r->failed_side, r->err);
		break;
	}
}

void
session_io(struct event_loop *loop, int fd, int events, void *data)
{
	struct tcp_session *ss = data;
	int                 side;

	(void)loop;
	BUG_ON(ss->state == TCP_CLOSING || ss->state == TCP_DRAINING);
	side = fd == ss->relay.fd[TCP_CLIENT] ? TCP_CLIENT : TCP_BACKEND;
	if (ss->state == TCP_PEEKING) {
		BUG_ON(side != TCP_CLIENT);
		session_peek(ss, events);
		/* Picked: the relay has the bytes read and noted the events. */
		if (ss->state == TCP_CONNECTING)
			session_relay(ss);
	} else {
		tcp_relay_note(&ss->relay, side, events);
		if (ss->state == TCP_CONNECTING && side == TCP_BACKEND &&
		    events != 0)
			session_connect_done(ss, events);
		if (ss->state != TCP_CLOSING)
			session_relay(ss);
	}
	if (ss->state == TCP_CONNECTING && side == TCP_CLIENT &&
	    (events & EV_ERROR))
		session_orphan(ss);
	(void)session_settle(ss);
}

/* rule_rate_limit: the budget may have room again. */
static void
session_on_budget(struct event_timer *t, void *data)
{
	struct tcp_session *ss = data;

	(void)t;
	if (ss->state == TCP_RELAYING || ss->state == TCP_CONNECTING)
		session_relay(ss);
	(void)session_settle(ss);
}

/*
 * The session's timer: while connecting, connect_timeout ran out;
 * afterwards the idle timeout may have, unless bytes moved since it was
 * armed (the relay only notes the time of the last one: the timer is not
 * moved per read), in which case it is armed again for the new end.
 */
static void
session_on_timer(struct event_timer *t, void *data)
{
	struct tcp_session *ss = data;
	struct event_loop  *loop = ss->owner->env.loop;
	struct tcp_relay   *r = &ss->relay;
	int64_t             due;

	if (ss->queued) {
		session_queue_timeout(ss);
		(void)session_settle(ss);
		return;
	}
	if (ss->state == TCP_PEEKING) {
		session_peek_timeout(ss);
		(void)session_settle(ss);
		return;
	}
	if (ss->state == TCP_DRAINING) {
		session_drain_look(ss);
		(void)session_settle(ss);
		return;
	}
	if (ss->state == TCP_CONNECTING && ss->orphan) {
		/* Its time is over: not the backend's failure. */
		tcp_connect_abandon(&ss->connect, event_now(loop));
		session_abort(ss, TCP_CLIENT, ECONNRESET);
		(void)session_settle(ss);
		return;
	}
	if (ss->state == TCP_CONNECTING) {
		/* This backend's share of connect_timeout is over. */
		event_close(loop, r->fd[TCP_BACKEND]);
		close(r->fd[TCP_BACKEND]);
		tcp_relay_detach_backend(r);
		session_connect(ss, ETIMEDOUT);
		(void)session_settle(ss);
		return;
	}
	due = ss->relay.last_active + ss->rule->idle_timeout;
	if (due > event_now(loop) && event_timer_arm(loop, t, due) == 0)
		return;
	session_end(ss, -1, ACCESSLOG_IDLE_TIMEOUT, "idle timeout", 0);
	(void)session_settle(ss);
}

/*
 * send_proxy: the header of rule for client connection fd from peer to
 * to (NULL: fd's own local address), into buf (PROXY_HEADER_MAX); its
 * length.
 */
static size_t
client_proxy_header(int fd, const struct rule *rule,
    const struct sockaddr_any *peer, const struct sockaddr_any *to,
    unsigned char *buf)
{
	struct sockaddr_any	local;

	local.len = sizeof(local.ss);
	if (to != NULL)
		local = *to;	/* as an accepted PROXY header said */
	else if (getsockname(fd, (struct sockaddr *)&local.ss,
	    &local.len) == -1)
		local = rule->listen_addr;
	return proxy_header(rule->send_proxy, true,
	    (const struct sockaddr *)&peer->ss,
	    (const struct sockaddr *)&local.ss, buf);
}

/*
 * send_proxy: the PROXY header goes first in the client's direction,
 * before any byte of the client (also where the rest is spliced): one
 * made for the connection from its peer to to, or with "pass" the
 * client's own, said (none if said_len is 0).
 */
int
session_proxy_header(struct tcp_session *ss, const struct sockaddr_any *to,
    const unsigned char *said, size_t said_len)
{
	unsigned char	hdr[PROXY_HEADER_MAX + PROXY_AUTHORITY_MAX];
	size_t		len;

	if (ss->dest->send_proxy == PROXY_PASS)
		return said_len == 0 ? 0 : tcp_relay_preamble(&ss->owner->env,
		    &ss->relay, said, said_len);
	len = client_proxy_header(ss->relay.fd[TCP_CLIENT], ss->dest,
	    &ss->peer, to, hdr);
	/* v2 to a route's backend: the name its client asked for. */
	if (ss->peek != NULL && ss->peek->look.sni[0] != '\0' &&
	    ss->route->protocol == ROUTE_TLS)
		len = proxy_add_authority(hdr, len, ss->peek->look.sni);
	return tcp_relay_preamble(&ss->owner->env, &ss->relay, hdr, len);
}

void
tcp_session_refuse(struct tcp_sessions *ts, int client_fd,
    const struct rule *rule, const struct sockaddr_any *peer,
    const char *result)
{
	struct stats_rule *sr = stats_rule(rule);
	char               client[ADDR_STRLEN];
	int64_t            now = event_now(ts->env.loop);

	close(client_fd);
	if (strcmp(result, ACCESSLOG_DENIED) == 0 ||
	    strcmp(result, ACCESSLOG_NOT_ALLOWED) == 0)
		sr->denied++;
	else if (strcmp(result, ACCESSLOG_REFUSED_PER_CLIENT) == 0)
		sr->refused_per_client++;
	else if (strcmp(result, ACCESSLOG_REFUSED_RATE) == 0)
		sr->refused_rate++;
	else
		sr->refused_max++;
	/* rinetd names the rule's backend on these lines too. */
	session_log_access(ts, rule, &rule->upstream.backends[0], 0, peer,
	    result, ACCESSLOG_SIDE_UNKNOWN, 0, 0, now, &accesslog_no_times);
	log_debug("%s: %s client %s (%llu refused in this slot so far)",
	    rule_log_name(rule), result,
	    addr_format((const struct sockaddr *)&peer->ss, client,
	    sizeof(client)), (unsigned long long)(sr->denied +
	    sr->refused_per_client + sr->refused_rate + sr->refused_max));
}

int
tcp_session_start(struct tcp_sessions *ts, int client_fd,
    const struct rule *rule, const struct sockaddr_any *peer,
    const struct tcp_proxied *proxied)
{
	struct tcp_session *ss;
	int64_t             now = event_now(ts->env.loop);
	unsigned char       hdr[PROXY_HEADER_MAX];
	const struct sockaddr_any *local = proxied != NULL ? proxied->local :
			    NULL;

	/* rinetd's "opened" line comes before the connect. */
	accesslog_opened(rule, (const struct sockaddr *)&peer->ss,
	    (const struct sockaddr *)&rule->upstream.backends[0].addr.ss, 0);
	if (rule->connect_protocol == RULE_UDP)
		return tcp_to_udp_start(ts->to_udp, client_fd, rule, peer, hdr,
		    rule->send_proxy != PROXY_OFF ? client_proxy_header(
		    client_fd, rule, peer, local, hdr) : 0);
	/* From the pool: no malloc per connection in steady state. */
	if ((ss = pool_get(ts->env.pool, sizeof(*ss))) == NULL) {
		close(client_fd);
		errno = ENOMEM;
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	ss->owner = ts;
	ss->rule = ss->dest = rule;
	ss->state = TCP_CONNECTING;
	ss->reset_side = ss->err_side = -1;
	ss->peer = *peer;
	ss->client_hold = client_limit_hold(rule, peer, now);
	ss->connect_from = now;
	/* A client's time to say its PROXY header counts too. */
	ss->started = proxied != NULL ? proxied->accepted : now;
	tcp_connect_init(&ss->connect, (const struct sockaddr *)&ss->peer.ss);
	ss->connect.nagle_on = true;	/* the relay sets TCP_NODELAY */
	tcp_relay_init(&ss->relay, client_fd, rule->buffer_size, rule->splice,
	    now);
	event_timer_init(&ss->timer, session_on_timer, ss);
	event_timer_init(&ss->budget, session_on_budget, ss);
	if (rule->rate_cell != 0)
		tcp_relay_limit(&ss->relay, rate_budget_of(rule->rate_cell,
		    RATE_IN), rate_budget_of(rule->rate_cell, RATE_OUT));
	TAILQ_INSERT_TAIL(&ts->list, ss, link);
	ts->count++;
	stats_rule(rule)->accepted++;
	stats_rule(rule)->active++;
	ss->accepted_us = event_now_us(ts->env.loop);
	ss->connect_us = ss->first_byte_us = TIME_NONE;
#ifndef __linux__
	/* Linux copies these from the listening socket; others may not. */
	sock_nodelay(client_fd);
	sock_abort_on_close(client_fd, true);
	if (keepalive_on(&rule->keepalive, true))
		sock_keepalive(client_fd, &rule->keepalive);
#endif
	if (rule->nroutes > 0)
		session_peek_start(ss, proxied);
	/* Read early: the request waits in the buffer for the connect. */
	else if (rule->send_proxy != PROXY_OFF && session_proxy_header(ss,
	    local, proxied != NULL ? proxied->header : NULL, proxied != NULL ?
	    proxied->header_len : 0) == -1)
		session_short(ss, "no buffer for the PROXY header", errno);
	else if (event_set(ts->env.loop, client_fd, EV_EDGE | EV_READ,
	    session_io, ss) == -1)
		session_short(ss, "event loop full", errno);
	else {
		/* Those waiting first, where a backend has room again. */
		queue_kick(ts, rule);
		session_connect(ss, 0);
	}
	return session_settle(ss);
}

struct tcp_sessions *
tcp_sessions_new(struct event_loop *loop, struct pool *pool)
{
	struct tcp_sessions *ts = calloc(1, sizeof(*ts));

	if (ts == NULL)
		return NULL;
	ts->env.loop = loop;
	ts->env.pool = pool;
	ts->env.xprt = &xprt_raw;
	TAILQ_INIT(&ts->list);
	TAILQ_INIT(&ts->queue);
	event_timer_init(&ts->queue_look, queue_look, ts);
	if ((ts->to_udp = tcp_to_udp_new(loop)) == NULL) {
		free(ts);
		return NULL;
	}
	return ts;
}

int
tcp_sessions_count(const struct tcp_sessions *ts)
{
	return ts->count + tcp_to_udp_count(ts->to_udp);
}

/* What each state is called in "show sessions". */
static const char *const state_names[] = {
	[TCP_PEEKING] = "peeking",
	[TCP_CONNECTING] = "connecting",
	[TCP_RELAYING] = "relaying",
	[TCP_DRAINING] = "draining",
	[TCP_CLOSING] = "closing"
};

void
tcp_sessions_list(const struct tcp_sessions *ts, struct session_list *l)
{
	const struct tcp_session	*ss;
	struct session_entry		*e;

	TAILQ_FOREACH(ss, &ts->list, link) {
		if ((e = session_list_add(l, ss->rule)) == NULL)
			continue;
		e->rule = ss->rule;
		e->route = ss->route != NULL ? ss->route->name : NULL;
		e->backend = ss->connect.backend;
		e->state = ss->queued ? "queued" : state_names[ss->state];
		e->client = ss->peer;
		e->from_client = ss->relay.dir[TCP_CLIENT].bytes;
		e->from_backend = ss->relay.dir[TCP_BACKEND].bytes;
		e->started = ss->started;
	}
	tcp_to_udp_list(ts->to_udp, l);
}

void
tcp_sessions_close_all(struct tcp_sessions *ts, const char *reason)
{
	struct tcp_session *ss;

	ts->kicking = true;	/* no waiting client connects now */
	while ((ss = TAILQ_FIRST(&ts->list)) != NULL) {
		session_end(ss, -1, ACCESSLOG_SHUTDOWN, reason, 0);
		(void)session_settle(ss);
	}
	ts->kicking = false;
	tcp_to_udp_close_all(ts->to_udp);
}

void
tcp_sessions_free(struct tcp_sessions *ts)
{
	tcp_sessions_close_all(ts, "shutdown");
	event_timer_cancel(ts->env.loop, &ts->queue_look);
	tcp_to_udp_free(ts->to_udp);
	free(ts);
}
