/*
 * udp_route.c - a UDP session's route (udp_route.h).  A session of a
 * rule with routes starts UNDECIDED, with no backend socket; each of its
 * datagrams is judged on its own (a datagram is whole: the UDP probes
 * never wait for more bytes of it), and the first that picks a route
 * decides.  Those judged before it, each leaving the session undecided
 * (a route's min_length not reached: the next datagram is judged), are
 * held, copied, and sent first once it is decided: none lost, none
 * reordered.  sslh drops such a datagram instead (udp-listener.c: it
 * probes each new client's datagram alone and forwards only a match).
 *
 * The held datagrams are bounded per session (UDP_HELD_MAX, and
 * UDP_HELD_BYTES), per worker (UDP_HELD_TOTAL) and in time (peek_timeout,
 * the session's timer): what goes past a bound is dropped and counted.
 *
 * A rule with QUIC routes (sni, alpn, no_sni on UDP) reads each
 * undecided session's datagrams with quic_initial.c as well, until its
 * ClientHello is whole: a QUIC route waits for it, then matches its
 * names as a TLS route does.  The reader's state (about 20 KB) is kept
 * for at most UDP_QUIC_MAX sessions of a worker at once; past that, and
 * for what is not QUIC or cannot be read, QUIC routes do not match.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "accesslog.h"
#include "addr.h"
#include "bug.h"
#include "log.h"
#include "probe.h"
#include "quic_initial.h"
#include "route.h"
#include "rule.h"
#include "stats.h"
#include "udp_io.h"
#include "udp_route.h"
#include "udp_types.h"

/* One datagram held, a NUL after it (regexec's, at a later look). */
struct udp_held_dgram {
	STAILQ_ENTRY(udp_held_dgram) next;
	size_t			 len;
	uint8_t			 data[];
};

/* What an undecided session holds, and how far its QUIC is read. */
struct udp_held {
	STAILQ_HEAD(, udp_held_dgram) q;
	int			 count;
	size_t			 bytes;
	struct quic_initial	*quic;	/* NULL: no QUIC route, or no room */
	enum quic_outcome	 quic_failed; /* why it went: counted again
					 * on the route that takes s */
};

/* Bytes held by this worker's sessions (a worker is one process). */
static size_t	held_total;
/* QUIC readers of this worker's undecided sessions. */
static size_t	quic_readers;

/* A datagram being judged, copied for regexec's NUL when need be. */
static uint8_t	look[UDP_DATAGRAM_MAX + 1];

typedef enum probe_verdict udp_probe(const uint8_t *, size_t);

/* The UDP probes by enum route_protocol: ferryd's, and sslh's. */
static udp_probe *const own_probes[ROUTE_PROTOCOLS] = {
	[ROUTE_OPENVPN] = probe_udp_openvpn,
	[ROUTE_WIREGUARD] = probe_wireguard,
	[ROUTE_TEAMSPEAK] = probe_teamspeak
};
static udp_probe *const sslh_probes[ROUTE_PROTOCOLS] = {
	[ROUTE_OPENVPN] = probe_sslh_udp_openvpn,
	[ROUTE_WIREGUARD] = probe_wireguard,
	[ROUTE_TEAMSPEAK] = probe_sslh_teamspeak
};

/*
 * Route rt's verdict on datagram d: not judged below min_length (the
 * next datagram is), then its protocol's probe (ROUTE_ANY: none), then
 * its regex.  conf_route.c allows no other protocol on a UDP rule.
 */
static enum probe_verdict
route_verdict(const struct route *rt, uint8_t *d, size_t len, bool sslh,
    const struct quic_initial *q)
{
	udp_probe	*probe = (sslh ? sslh_probes : own_probes)[rt->protocol];

	if (len < (size_t)rt->min_length)
		return PROBE_AGAIN;
	if (rt->protocol == ROUTE_QUIC) {
		if (q == NULL || (q->outcome != QUIC_MORE &&
		    q->outcome != QUIC_DECIDED))
			return PROBE_NO;
		if (q->outcome == QUIC_MORE)
			return PROBE_AGAIN;
		if (!route_tls_match(rt, &q->tls))
			return PROBE_NO;
	}
	if (probe != NULL && probe(d, len) != PROBE_MATCH)
		return PROBE_NO;
	if (rt->nregex > 0 && !route_regex_match(rt, d, len))
		return PROBE_NO;
	return PROBE_MATCH;
}

/*
 * The decision, for the datagram at hand (and, for QUIC routes, what q
 * read of the session's Initials so far).  ferryd's order: the
 * first route that matches, one that waits holding back those after it.
 * sslh's (probes = "sslh", sslh's probe_buffer): every route asked, the
 * first match wins; none matching and none waiting, the last route (a
 * last route without a match key is not asked: it takes a datagram only
 * once none waits, as sslh's last anyprot).
 */
const struct route *
udp_route_pick(const struct rule *rule, uint8_t *d, size_t len,
    const struct quic_initial *q, enum probe_verdict *v)
{
	bool	sslh = rule->probes == ROUTE_PROBES_SSLH, again = false;
	size_t	n = rule->nroutes, i;

	if (sslh && route_is_default(&rule->routes[n - 1]))
		n--;
	for (i = 0; i < n; i++) {
		*v = route_verdict(&rule->routes[i], d, len, sslh, q);
		if (*v == PROBE_MATCH)
			return &rule->routes[i];
		if (*v == PROBE_AGAIN && !sslh)
			return NULL;
		again |= *v == PROBE_AGAIN;
	}
	*v = again ? PROBE_AGAIN : PROBE_NO;
	if (sslh && !again)
		return &rule->routes[rule->nroutes - 1];
	return NULL;
}

/* What s holds goes: what was not sent counts as dropped. */
void
udp_route_release(struct udp_session *s)
{
	struct udp_held		*h = s->held;
	struct udp_held_dgram	*g;

	if (h == NULL)
		return;
	s->held = NULL;
	if (h->quic != NULL) {
		free(h->quic);
		quic_readers--;
	}
	udp_io_dropped(s->rule, (uint64_t)h->count);
	while ((g = STAILQ_FIRST(&h->q)) != NULL) {
		STAILQ_REMOVE_HEAD(&h->q, next);
		held_total -= g->len;
		free(g);
	}
	free(h);
}

/* What undecided s holds, made at its first datagram; NULL: no memory. */
static struct udp_held *
held_of(struct udp_session *s)
{
	static struct log_limit	 limit;
	struct udp_held		*h = s->held;

	if (h != NULL || (h = s->held = calloc(1, sizeof(*h))) == NULL)
		return h;
	STAILQ_INIT(&h->q);
	if (!rule_has_quic(s->rule))
		return h;
	if (quic_readers < UDP_QUIC_MAX &&
	    (h->quic = malloc(sizeof(*h->quic))) != NULL) {
		quic_initial_init(h->quic);
		quic_readers++;
	} else
		log_limited_at(&limit, LOG_LEVEL_NOTICE, "%s: %d UDP clients "
		    "are being read for their QUIC ClientHello already: "
		    "this one goes by its other routes",
		    rule_log_name(s->rule), UDP_QUIC_MAX);
	return h;
}

/*
 * Datagram d of s read for its QUIC Initials, while they are undecided;
 * a failure counted once, and the reader given back at once (no QUIC
 * route will match: NULL), so that junk cannot hold the readers.
 */
static const struct quic_initial *
quic_read(struct udp_session *s, const uint8_t *d, size_t len)
{
	struct quic_initial	*q = s->held != NULL ? s->held->quic : NULL;

	if (q == NULL || q->outcome != QUIC_MORE)
		return q;
	switch (quic_initial_datagram(q, d, len)) {
	case QUIC_MORE:
	case QUIC_DECIDED:
		return q;
	case QUIC_NOT_QUIC:
		break;
	case QUIC_UNDECRYPTABLE:
		stats_rule(s->rule)->quic_undecryptable++;
		s->held->quic_failed = q->outcome;
		break;
	default:
		stats_rule(s->rule)->quic_unread++;
		s->held->quic_failed = q->outcome;
		break;
	}
	free(q);
	s->held->quic = NULL;
	quic_readers--;
	return NULL;
}

/* Hold datagram iov of undecided s, within the bounds; or drop it. */
static void
hold(struct udp_session *s, const struct iovec *iov)
{
	static struct log_limit	 limit;
	struct udp_held_dgram	*g = NULL;
	char			 client[ADDR_STRLEN];

	if (s->held == NULL || s->held->count == UDP_HELD_MAX ||
	    s->held->bytes + iov->iov_len > UDP_HELD_BYTES ||
	    held_total + iov->iov_len > UDP_HELD_TOTAL ||
	    (g = malloc(sizeof(*g) + iov->iov_len + 1)) == NULL) {
		udp_io_dropped(s->rule, 1);
		log_limited_at(&limit, LOG_LEVEL_NOTICE, "%s: UDP client %s "
		    "is undecided past what may be held: a datagram dropped",
		    rule_log_name(s->rule), addr_format((const struct sockaddr *)
		    &s->client, client, sizeof(client)));
		return;
	}
	g->len = iov->iov_len;
	memcpy(g->data, iov->iov_base, g->len);
	STAILQ_INSERT_TAIL(&s->held->q, g, next);
	s->held->count++;
	s->held->bytes += g->len;
	held_total += g->len;
}

int
udp_route_held(struct udp_session *s, struct iovec *iov)
{
	struct udp_held_dgram	*g;
	int			 n = 0;

	if (s->held == NULL)
		return 0;
	STAILQ_FOREACH(g, &s->held->q, next) {
		iov[n].iov_base = g->data;
		iov[n++].iov_len = g->len;
	}
	s->held->count = 0;	/* sent by the caller: none dropped */
	return n;
}

/* No route takes s's datagram, none waits: said and counted. */
static void
unmatched(struct udp_session *s, int n)
{
	static struct log_limit	limit;
	char			client[ADDR_STRLEN];

	stats_rule(s->rule)->unmatched++;
	udp_io_dropped(s->rule, (uint64_t)n);
	log_limited_at(&limit, LOG_LEVEL_NOTICE, "%s: UDP client %s: no "
	    "route takes its datagram: dropped", rule_log_name(s->rule),
	    addr_format((const struct sockaddr *)&s->client, client,
	    sizeof(client)));
}

/*
 * Undecided s goes to route rt (timed_out: at peek_timeout), counted
 * there as on its rule; the server name its QUIC Initials named is kept
 * for its access log line, whichever route took it (as a TCP session's
 * TLS server name).
 */
static void
taken(struct udp_session *s, const struct route *rt, bool timed_out)
{
	struct stats_rule	*sd = stats_rule(&rt->dest);
	const struct udp_held	*h = s->held;

	/* a route of the session's own rule */
	BUG_ON(rt < s->rule->routes ||
	    rt >= s->rule->routes + s->rule->nroutes);
	sd->routed++;
	if (timed_out)
		sd->peek_timeouts++;
	if (h == NULL)
		return;
	if (h->quic_failed == QUIC_UNDECRYPTABLE)
		sd->quic_undecryptable++;
	else if (h->quic_failed != QUIC_MORE)
		sd->quic_unread++;
	if (h->quic != NULL && h->quic->outcome == QUIC_DECIDED &&
	    h->quic->tls.sni[0] != '\0')
		s->sni = strdup(h->quic->tls.sni);	/* NULL: none logged */
}

enum udp_judged
udp_route_judge(struct udp_session *s, const struct iovec *iov, int n,
    const struct route **rt, int *at)
{
	const struct quic_initial *q;
	enum probe_verdict	 v;
	size_t			 len;
	int			 i;

	(void)held_of(s);
	for (i = 0; i < n; i++) {
		len = iov[i].iov_len;
		BUG_ON(len > UDP_DATAGRAM_MAX);	/* look's room */
		/* A copy: regexec may want a NUL after it. */
		memcpy(look, iov[i].iov_base, len);
		*at = i;
		q = quic_read(s, look, len);
		if ((*rt = udp_route_pick(s->rule, look, len, q, &v)) != NULL) {
			taken(s, *rt, false);
			return UDP_JUDGED_PICKED;
		}
		if (v == PROBE_NO) {
			unmatched(s, n - i);
			return UDP_JUDGED_UNMATCHED;
		}
		hold(s, &iov[i]);
	}
	return UDP_JUDGED_HELD;
}

const struct route *
udp_route_timeout(struct udp_session *s)
{
	const struct rule	*r = s->rule;
	const struct route	*rt = NULL;

	stats_rule(r)->peek_timeouts++;
	if (r->on_timeout >= 0)
		rt = &r->routes[r->on_timeout];
	else if (r->probes == ROUTE_PROBES_SSLH)
		rt = &r->routes[r->nroutes - 1];
	if (rt != NULL)
		taken(s, rt, true);
	return rt;
}

const struct route *
udp_route_of(const struct udp_session *s)
{
	size_t	i;

	/* A route's backends name it (conf_route.c). */
	if (s->backend == NULL || s->stranger || s->backend->route == NULL)
		return NULL;
	for (i = 0; i < s->rule->nroutes; i++)
		if (strcmp(s->rule->routes[i].name, s->backend->route) == 0)
			return &s->rule->routes[i];
	return NULL;
}
