/*
 * tcp_session_route.c - the peek stage of a TCP session on a rule with
 * routes: the client's first bytes looked at (tcp_peek.c) until a route
 * is picked, peek_timeout's on_timeout, and the route's connect.
 */
#include "ferryd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accesslog.h"
#include "addr.h"
#include "bug.h"
#include "event.h"
#include "log.h"
#include "pool.h"
#include "proxy_proto.h"
#include "route.h"
#include "rule.h"
#include "stats.h"
#include "tcp_peek.h"
#include "tcp_relay.h"
#include "tcp_session.h"
#include "tcp_session_int.h"

/*
 * The peek stage ends without a route: say so (rate-limited), count it
 * in what (a counter of the rule's) and close.
 */
static void
session_unrouted(struct tcp_session *ss, volatile uint64_t *what,
    const char *result, const char *why)
{
	static struct log_limit	 limit;
	char			 client[ADDR_STRLEN];

	(*what)++;
	log_limited_at(&limit, LOG_LEVEL_NOTICE, "%s: closed client %s: %s "
	    "(%u bytes read)", rule_log_name(ss->rule),
	    addr_format((const struct sockaddr *)&ss->peer.ss, client,
	    sizeof(client)), why, (unsigned)ss->peek->look.len);
	session_end(ss, -1, result, why, 0);
}

/*
 * The peek picked route rt: the session connects to its upstream, from
 * now on for connect_timeout, a PROXY header first if it sends one, then
 * the bytes the peek read.  events: the client socket's last (the relay
 * notes them); drained: the peek's last read emptied the socket.
 */
static void
session_route(struct tcp_session *ss, const struct route *rt, int events,
    bool drained)
{
	struct tcp_sessions	*ts = ss->owner;
	struct tcp_peek		*p = &ss->peek->look;
	uint64_t		 us = (uint64_t)(stats_now_us() -
				    ss->accepted_us);

	BUG_ON(ss->state != TCP_PEEKING || rt == NULL);
	ss->route = rt;
	ss->dest = &rt->dest;
	ss->state = TCP_CONNECTING;
	ss->connect_from = event_now(ts->env.loop);
	if (ss->peek->resting) {
		event_timer_cancel(ts->env.loop, &ss->peek->again);
		ss->peek->resting = false;
		if (event_mask(ts->env.loop, ss->relay.fd[TCP_CLIENT],
		    EV_EDGE | EV_READ) == -1) {
			session_short(ss, "event loop full", errno);
			return;
		}
	}
	hist_add(&stats_rule_hist(ss->rule)->peek, us);
	hist_add(&stats_rule_hist(ss->dest)->peek, us);
	stats_rule(ss->dest)->routed++;
	/* On failure, session_end gives the peek's state back. */
	tcp_relay_note(&ss->relay, TCP_CLIENT, events);
	if (ss->dest->send_proxy != PROXY_OFF && session_proxy_header(ss,
	    ss->peek->has_local ? &ss->peek->local : NULL, ss->peek->said,
	    ss->peek->said_len) == -1) {
		session_short(ss, "no buffer for the PROXY header", errno);
		return;
	}
	if (p->len > 0 && tcp_relay_preamble(&ts->env, &ss->relay,
	    tcp_peek_bytes(p), p->len) == -1) {
		session_short(ss, "no buffer for the first bytes", errno);
		return;
	}
	tcp_relay_taken(&ss->relay, p->len, drained);
	tcp_peek_end(p, ts->env.pool);
	session_connect(ss, 0);
}

/* The rest is over: watch the client again (it fires if readable). */
static void
session_peek_again(struct event_timer *t, void *data)
{
	struct tcp_session	*ss = data;

	(void)t;
	ss->peek->resting = false;
	if (event_mask(ss->owner->env.loop, ss->relay.fd[TCP_CLIENT],
	    EV_EDGE | EV_READ) == -1) {
		session_short(ss, "event loop full", errno);
		(void)session_settle(ss);
	}
}

/* Undecided on a level-triggered loop: unwatched for PEEK_REST_MS. */
static void
session_peek_rest(struct tcp_session *ss)
{
	struct event_loop	*loop = ss->owner->env.loop;

	if (event_mask(loop, ss->relay.fd[TCP_CLIENT], 0) == -1 ||
	    event_timer_arm(loop, &ss->peek->again, event_now(loop) +
	    PEEK_REST_MS) == -1) {
		session_short(ss, "out of memory", ENOMEM);
		return;
	}
	ss->peek->resting = true;
}

/* Whether a route of r hands on its client's PROXY header. */
static bool
routes_pass_header(const struct rule *r)
{
	size_t	i;

	for (i = 0; i < r->nroutes; i++)
		if (r->routes[i].dest.send_proxy == PROXY_PASS)
			return true;
	return false;
}

/* The client's socket reported events while its route is not known. */
void
session_peek(struct tcp_session *ss, int events)
{
	struct tcp_sessions	*ts = ss->owner;
	const struct route	*rt = NULL;
	struct stats_rule	*sr = stats_rule(ss->rule);
	int			 err;

	if (events & EV_URGENT) {
		/* No protocol probed has any; a peek would step over it. */
		session_unrouted(ss, &sr->peek_bad, ACCESSLOG_UNMATCHED,
		    "urgent data before a route was picked");
		return;
	}
	switch (tcp_peek_look(&ss->peek->look, ss->relay.fd[TCP_CLIENT],
	    ts->env.xprt, ts->env.pool, ss->rule, (events & EV_RDHUP) != 0,
	    &rt, &err)) {
	case TCP_PEEK_AGAIN:
		if (!event_loop_edge(ts->env.loop))
			session_peek_rest(ss);
		break;
	case TCP_PEEK_ROUTE:
		session_route(ss, rt, events, ss->peek->look.drained);
		break;
	case TCP_PEEK_UNMATCHED:
		session_unrouted(ss, &sr->unmatched, ACCESSLOG_UNMATCHED,
		    "no route matches its first bytes");
		break;
	case TCP_PEEK_OVERSIZED:
		session_unrouted(ss, &sr->peek_bad, ACCESSLOG_UNMATCHED,
		    "its first message is too long to pick a route");
		break;
	case TCP_PEEK_CLOSED:
	case TCP_PEEK_SHORTAGE:
		sr->peek_bad++;
		if (err != 0)
			session_abort(ss, TCP_CLIENT, err);
		else
			session_end(ss, -1, ACCESSLOG_UNMATCHED,
			    "closed before a route was picked", 0);
		break;
	}
}

/*
 * peek_timeout ran out, bytes or not: on_timeout's route (the relay
 * then sends the bytes read so far and reads on), or the client is
 * closed.
 */
void
session_peek_timeout(struct tcp_session *ss)
{
	const struct rule	*rule = ss->rule;

	if (rule->on_timeout < 0) {
		session_unrouted(ss, &stats_rule(rule)->peek_timeouts,
		    ACCESSLOG_PEEK_TIMEOUT, "no route picked within "
		    "peek_timeout");
		return;
	}
	stats_rule(rule)->peek_timeouts++;
	stats_rule(&rule->routes[rule->on_timeout].dest)->peek_timeouts++;
	/*
	 * Edge-triggered: what the client sent since the last look, and
	 * its end, are not reported again: the relay reads on.
	 */
	session_route(ss, &rule->routes[rule->on_timeout], EV_READ, false);
	if (ss->state == TCP_CONNECTING)
		session_relay(ss);
}

/*
 * A rule with routes: the session waits for the bytes that pick one
 * (or peek_timeout); local: a PROXY header's.
 */
void
session_peek_start(struct tcp_session *ss, const struct tcp_proxied *proxied)
{
	struct tcp_sessions	*ts = ss->owner;
	struct session_peek	*sp;

	if ((sp = pool_get(ts->env.pool, sizeof(*sp))) == NULL) {
		session_short(ss, "no memory to peek", ENOMEM);
		return;
	}
	ss->peek = sp;
	/* Whole before anything can fail: session_free reads it all. */
	sp->resting = false;
	event_timer_init(&sp->again, session_peek_again, ss);
	tcp_peek_init(&sp->look);
	sp->has_local = proxied != NULL && proxied->local != NULL;
	if (sp->has_local)
		sp->local = *proxied->local;
	sp->said = NULL;
	sp->said_len = 0;
	if (proxied != NULL && proxied->header_len > 0 &&
	    routes_pass_header(ss->rule)) {
		if ((sp->said = malloc(proxied->header_len)) == NULL) {
			session_short(ss, "no memory for the PROXY header",
			    ENOMEM);
			return;
		}
		memcpy(sp->said, proxied->header, proxied->header_len);
		sp->said_len = (uint16_t)proxied->header_len;
	}
	BUG_ON(ss->state != TCP_CONNECTING);	/* as accepted, not yet on */
	ss->state = TCP_PEEKING;
	if (event_set(ts->env.loop, ss->relay.fd[TCP_CLIENT], EV_EDGE |
	    EV_READ, session_io, ss) == -1)
		session_short(ss, "event loop full", errno);
	else if (event_timer_arm(ts->env.loop, &ss->timer, ss->started +
	    ss->rule->peek_timeout) == -1)
		session_short(ss, "out of memory", ENOMEM);
}
