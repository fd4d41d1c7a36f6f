/*
 * stats_prom.c - the Prometheus exposition of the counters, a step at a
 * time (stats_stream.h): each family's header, then its sample for each
 * rule or backend, the histograms, the workers and generations last.
 */
#include "ferryd.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "health.h"
#include "route.h"
#include "rule.h"
#include "scoreboard.h"
#include "stats.h"
#include "stats_stream.h"
#include "upstream.h"

static void
put_label(struct text *t, const char *s)
{
	/* Names and addresses have nothing to escape: the usual case. */
	if (strpbrk(s, "\\\"\n") == NULL) {
		text_put_str(t, s);
		return;
	}
	for (; *s != '\0'; s++)
		if (*s == '\\' || *s == '"')
			text_put(t, "\\%c", *s);
		else if (*s == '\n')
			text_put(t, "\\n");
		else
			text_put(t, "%c", *s);
}

/*
 * When a rule's or a backend's sample is written.  Most counters count
 * rare events (refusals, errors, the other protocol's traffic): at
 * 5,000 idle rules their zeros made four fifths of a scrape.  A sample
 * of those is written once it is not 0 (a counter never goes back to
 * 0); a rule's and a backend's main series, and every gauge where it
 * can move, are written from 0 (ferryd.conf(5), "Prometheus").
 */
enum shown {
	SHOWN_COUNTED = 0,	/* once not 0 (the default) */
	SHOWN_ALWAYS,		/* from 0 */
	SHOWN_TCP,		/* from 0 on a rule that listens on TCP */
	SHOWN_UDP,		/* from 0 on a rule with a UDP side */
	SHOWN_QUEUE		/* from 0 on a rule with queue_timeout */
};

/* A family of samples: a counter or gauge at off in a view. */
struct family {
	const char	*name, *type, *help;
	size_t		 off;		/* a uint64_t in the view */
	const char	*extra;		/* another label, or NULL */
	enum shown	 shown;
};

#define RULE_AT(f)	offsetof(struct view_rule, st.f)
#define BACKEND_AT(f)	offsetof(struct view_backend, st.f)

static const struct family rule_families[] = {
	{ "ferryd_rule_connections_accepted_total", "counter",
	    "TCP connections the rule accepted.", RULE_AT(accepted),
	    NULL, SHOWN_TCP },
	{ "ferryd_rule_connections_closed_total", "counter",
	    "TCP connections of the rule that ended.", RULE_AT(closed),
	    NULL, SHOWN_TCP },
	{ "ferryd_rule_connections_active", "gauge",
	    "TCP connections of the rule open now.", RULE_AT(active),
	    NULL, SHOWN_TCP },
	{ "ferryd_rule_refused_total", "counter",
	    "Clients refused: by allow and deny (UDP: each run of datagrams "
	    "of a client), at max_connections, at max_connections_per_client "
	    "or max_sessions_per_client (per_client), over connection_rate "
	    "or session_rate (rate), or for want of a backend.",
	    RULE_AT(denied), "reason=\"denied\"", SHOWN_COUNTED },
	{ "ferryd_rule_refused_total", NULL, NULL, RULE_AT(refused_max),
	    "reason=\"max_connections\"", SHOWN_COUNTED },
	{ "ferryd_rule_refused_total", NULL, NULL,
	    RULE_AT(refused_per_client),
	    "reason=\"per_client\"", SHOWN_COUNTED },
	{ "ferryd_rule_refused_total", NULL, NULL, RULE_AT(refused_rate),
	    "reason=\"rate\"", SHOWN_COUNTED },
	{ "ferryd_rule_refused_total", NULL, NULL, RULE_AT(no_backend),
	    "reason=\"no_backend\"", SHOWN_COUNTED },
	{ "ferryd_rule_received_bytes_total", "counter",
	    "Bytes from the rule's clients: TCP counted as each connection "
	    "ends, UDP as datagrams pass.", RULE_AT(bytes_in),
	    NULL, SHOWN_ALWAYS },
	{ "ferryd_rule_sent_bytes_total", "counter",
	    "Bytes to the rule's clients: TCP counted as each connection "
	    "ends, UDP as datagrams pass.", RULE_AT(bytes_out),
	    NULL, SHOWN_ALWAYS },
	{ "ferryd_rule_udp_sessions_total", "counter",
	    "UDP sessions the rule opened.", RULE_AT(sessions),
	    NULL, SHOWN_UDP },
	{ "ferryd_rule_udp_sessions_active", "gauge",
	    "UDP sessions of the rule open now.", RULE_AT(active_sessions),
	    NULL, SHOWN_UDP },
	{ "ferryd_rule_received_datagrams_total", "counter",
	    "Datagrams from the rule's clients sent on to a backend.",
	    RULE_AT(datagrams_in), NULL, SHOWN_UDP },
	{ "ferryd_rule_sent_datagrams_total", "counter",
	    "Datagrams sent to the rule's clients.", RULE_AT(datagrams_out),
	    NULL, SHOWN_UDP },
	{ "ferryd_rule_truncated_datagrams_total", "counter",
	    "Datagrams the kernel cut for want of room, dropped.",
	    RULE_AT(truncated), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_dropped_datagrams_total", "counter",
	    "Datagrams that could not be sent on.", RULE_AT(dropped),
	    NULL, SHOWN_COUNTED },
	{ "ferryd_rule_udp_paced_total", "counter",
	    "Pauses taken after a full batch of a backlog of the rule's "
	    "datagrams, so that it leaves paced.", RULE_AT(paced),
	    NULL, SHOWN_COUNTED },
	{ "ferryd_rule_rate_limited_datagrams_total", "counter",
	    "Datagrams dropped over rate_limit (the session's) or "
	    "rule_rate_limit (the rule's), both ways.",
	    RULE_AT(rate_dropped), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_rate_limit_waits_total", "counter",
	    "Times a TCP connection stopped reading until rule_rate_limit's "
	    "budget had room again.", RULE_AT(rate_waits),
	    NULL, SHOWN_COUNTED },
	{ "ferryd_rule_queued_connections", "gauge",
	    "TCP clients waiting for a backend at its max_connections "
	    "(queue_timeout).", RULE_AT(queued), NULL, SHOWN_QUEUE },
	{ "ferryd_rule_queue_timeouts_total", "counter",
	    "TCP clients closed after waiting queue_timeout for a backend.",
	    RULE_AT(queue_timeouts), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_proxy_header_errors_total", "counter",
	    "Clients of an accept_proxy rule closed for a bad, missing or "
	    "late PROXY header.", RULE_AT(proxy_errors), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_unmatched_total", "counter",
	    "Clients (UDP: sessions) of a rule with routes that no route "
	    "matched, closed.",
	    RULE_AT(unmatched), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_peek_timeouts_total", "counter",
	    "Clients (UDP: sessions) of a rule with routes that picked no "
	    "route within peek_timeout: sent to on_timeout's route, or "
	    "closed.",
	    RULE_AT(peek_timeouts), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_peek_errors_total", "counter",
	    "Clients of a rule with routes closed before a route was picked: "
	    "gone, failed, or a first message too long to decide on.",
	    RULE_AT(peek_bad), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_resets_total", "counter",
	    "TCP connections that a side ended with a reset, passed on to "
	    "the other side after the bytes sent before it.",
	    RULE_AT(resets_client), "side=\"client\"", SHOWN_COUNTED },
	{ "ferryd_rule_resets_total", NULL, NULL, RULE_AT(resets_backend),
	    "side=\"backend\"", SHOWN_COUNTED },
	{ "ferryd_rule_reset_drains_cut_total", "counter",
	    "Resets passed on before the other side had taken the bytes sent "
	    "before them: it took nothing for 10 s (or idle_timeout).",
	    RULE_AT(reset_drains_cut), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_accept_errors_total", "counter",
	    "Failed accept() calls on the rule's listening sockets: out of "
	    "descriptors or memory (accepting pauses), or another error.",
	    RULE_AT(accept_errors), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_quic_undecryptable_total", "counter",
	    "UDP sessions of a rule with QUIC routes whose client's Initial "
	    "packet failed to decrypt (its tag did not match): no QUIC route "
	    "took them.", RULE_AT(quic_undecryptable), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_quic_unread_total", "counter",
	    "UDP sessions of a rule with QUIC routes whose QUIC Initial "
	    "packets could not be read for a ClientHello: another version, "
	    "version negotiation, malformed, or too big.",
	    RULE_AT(quic_unread), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_quic_migrations_total", "counter",
	    "UDP sessions that followed their QUIC client to a new address "
	    "(NAT rebinding, migration) by a connection ID they had seen.",
	    RULE_AT(quic_migrations), NULL, SHOWN_COUNTED },
	{ "ferryd_rule_quic_connection_ids", "gauge",
	    "QUIC connection IDs the rule's UDP sessions track now, to "
	    "follow their clients to new addresses.", RULE_AT(quic_cids),
	    NULL, SHOWN_UDP },
	{ "ferryd_rule_quic_connection_ids_full_total", "counter",
	    "QUIC connection IDs not tracked: the worker's table "
	    "(16384) was full.", RULE_AT(quic_cids_full), NULL,
	    SHOWN_COUNTED },
	{ "ferryd_rule_quic_followed_total", "counter",
	    "UDP sessions that followed their QUIC client from another "
	    "worker, which handed them over (counted in "
	    "ferryd_rule_quic_migrations_total too).", RULE_AT(quic_followed),
	    NULL, SHOWN_COUNTED },
	{ "ferryd_rule_quic_follow_refused_total", "counter",
	    "QUIC clients at a new address whose connection ID another "
	    "worker was asked for, which had no session of it, or that "
	    "were not asked for as this worker asked too many already: "
	    "their datagrams made a new session.",
	    RULE_AT(quic_follow_refused),
	    NULL, SHOWN_COUNTED },
	{ "ferryd_rule_quic_follow_timeouts_total", "counter",
	    "QUIC clients at a new address whose connection ID another "
	    "worker was asked for, which did not answer within 1 s (or "
	    "peek_timeout): their datagrams made a new session.",
	    RULE_AT(quic_follow_timeouts), NULL, SHOWN_COUNTED },
};

/* A route's series: its destination's counters (route.h). */
static const struct family route_families[] = {
	{ "ferryd_route_connections_total", "counter",
	    "Connections and UDP sessions the route took (its backends' "
	    "series, labelled with route too, count bytes).", RULE_AT(routed),
	    NULL, SHOWN_ALWAYS },
	{ "ferryd_route_received_datagrams_total", "counter",
	    "Datagrams from clients sent on to the UDP route's backends.",
	    RULE_AT(datagrams_in), NULL, SHOWN_UDP },
	{ "ferryd_route_sent_datagrams_total", "counter",
	    "Datagrams from the UDP route's backends sent to its clients.",
	    RULE_AT(datagrams_out), NULL, SHOWN_UDP },
	{ "ferryd_route_peek_timeouts_total", "counter",
	    "Clients (UDP: sessions) the route took as on_timeout's, no route "
	    "picked within peek_timeout.", RULE_AT(peek_timeouts), NULL,
	    SHOWN_COUNTED },
	{ "ferryd_route_quic_undecryptable_total", "counter",
	    "UDP sessions the route took whose client's QUIC Initial packet "
	    "failed to decrypt (ferryd_rule_quic_undecryptable_total).",
	    RULE_AT(quic_undecryptable), NULL, SHOWN_COUNTED },
	{ "ferryd_route_quic_unread_total", "counter",
	    "UDP sessions the route took whose QUIC Initial packets could not "
	    "be read (ferryd_rule_quic_unread_total).", RULE_AT(quic_unread),
	    NULL, SHOWN_COUNTED },
};

static const struct hist_family route_hists[] = {
	{ "ferryd_route_peek_seconds", "From accepting a connection to "
	    "the route its first bytes picked.",
	    offsetof(struct view_rule, h.peek) },
};

static const struct family backend_families[] = {
	{ "ferryd_backend_connect_attempts_total", "counter",
	    "TCP connects started to the backend.", BACKEND_AT(attempts),
	    NULL, SHOWN_COUNTED },
	{ "ferryd_backend_connect_failures_total", "counter",
	    "TCP connects to the backend that failed: refused, timed out, or "
	    "otherwise.", BACKEND_AT(refused),
	    "reason=\"refused\"", SHOWN_COUNTED },
	{ "ferryd_backend_connect_failures_total", NULL, NULL,
	    BACKEND_AT(timeouts), "reason=\"timeout\"", SHOWN_COUNTED },
	{ "ferryd_backend_connect_failures_total", NULL, NULL,
	    BACKEND_AT(failed), "reason=\"other\"", SHOWN_COUNTED },
	{ "ferryd_backend_connections_total", "counter",
	    "Connections and UDP sessions made to the backend.",
	    BACKEND_AT(opened), NULL, SHOWN_ALWAYS },
	{ "ferryd_backend_connections_active", "gauge",
	    "Connections and UDP sessions to the backend open now.",
	    BACKEND_AT(active), NULL, SHOWN_ALWAYS },
	{ "ferryd_backend_sent_bytes_total", "counter",
	    "Bytes sent to the backend: TCP counted as each connection ends, "
	    "UDP as datagrams pass.", BACKEND_AT(bytes_in),
	    NULL, SHOWN_COUNTED },
	{ "ferryd_backend_received_bytes_total", "counter",
	    "Bytes from the backend: TCP counted as each connection ends, UDP "
	    "as datagrams pass.", BACKEND_AT(bytes_out), NULL, SHOWN_COUNTED },
	{ "ferryd_backend_icmp_errors_total", "counter",
	    "ICMP unreachable errors the backend's UDP sockets got; each also "
	    "counts against its health.", BACKEND_AT(icmp_errors),
	    NULL, SHOWN_COUNTED },
	{ "ferryd_backend_up", "gauge",
	    "1 while the backend takes new connections, 0 while it is down.",
	    offsetof(struct view_backend, up), NULL, SHOWN_ALWAYS },
	{ "ferryd_backend_state_changes_total", "counter",
	    "Times the backend went down or came back up.",
	    offsetof(struct view_backend, changes), NULL, SHOWN_COUNTED },
	{ "ferryd_backend_last_change_timestamp_seconds", "gauge",
	    "When the backend last went down or came back up (0: never).",
	    offsetof(struct view_backend, changed), NULL, SHOWN_COUNTED },
};

/*
 * The labels of a rule's series, or of a route's (route), or of a
 * backend's (of a route, or the rule's own), without braces.
 */
static void
put_labels(struct text *t, const struct rule *r, const char *route,
    const char *backend)
{
	text_put_str(t, "rule=\"");
	put_label(t, r->name);
	text_put_str(t, "\"");
	if (route != NULL) {
		text_put_str(t, ",route=\"");
		put_label(t, route);
		text_put_str(t, "\"");
	}
	if (backend != NULL) {
		text_put_str(t, ",backend=\"");
		put_label(t, backend);
		text_put_str(t, "\"");
	}
}

/* One sample: name{labels[,extra]} value */
static void
put_sample(struct text *t, const char *name, const struct rule *r,
    const char *route, const char *backend, const char *extra, uint64_t v)
{
	text_put_str(t, name);
	text_put_str(t, "{");
	put_labels(t, r, route, backend);
	if (extra != NULL) {
		text_put_str(t, ",");
		text_put_str(t, extra);
	}
	text_put_str(t, "} ");
	text_put_u64(t, v);
	text_put_str(t, "\n");
}

static void
put_header(struct text *t, const char *name, const char *type,
    const char *help)
{
	text_put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * A histogram's series: the bucket of every power of two of
 * microseconds, cumulative (each one is a bound of the finer buckets
 * kept, so each count is exact), +Inf, _sum and _count.  A histogram
 * nothing was recorded in is left out, as client libraries leave out a
 * series until it is first observed.
 */
static void
put_hist(struct text *t, const char *name, const struct hist *h,
    const struct rule *r, const char *route, const char *backend)
{
	static char	le[HIST_FINITE][32];
	static bool	le_made;
	char		sum[32];
	uint64_t	cum = 0, bound;
	unsigned	i;

	if (hist_count(h) == 0)
		return;
	if (!le_made) {
		for (i = 0; i < HIST_FINITE; i++)
			hist_seconds(hist_bound(i), le[i], sizeof(le[i]));
		le_made = true;
	}
	for (i = 0; i < HIST_FINITE; i++) {
		cum += h->bucket[i];
		bound = hist_bound(i);
		if ((bound & (bound - 1)) != 0)
			continue;	/* not a power of two */
		text_put_str(t, name);
		text_put_str(t, "_bucket{");
		put_labels(t, r, route, backend);
		text_put_str(t, ",le=\"");
		text_put_str(t, le[i]);
		text_put_str(t, "\"} ");
		text_put_u64(t, cum);
		text_put_str(t, "\n");
	}
	cum += h->bucket[HIST_FINITE];
	text_put_str(t, name);
	text_put_str(t, "_bucket{");
	put_labels(t, r, route, backend);
	text_put_str(t, ",le=\"+Inf\"} ");
	text_put_u64(t, cum);
	text_put_str(t, "\n");
	hist_seconds(h->sum, sum, sizeof(sum));
	text_put_str(t, name);
	text_put_str(t, "_sum{");
	put_labels(t, r, route, backend);
	text_put_str(t, "} ");
	text_put_str(t, sum);
	text_put_str(t, "\n");
	text_put_str(t, name);
	text_put_str(t, "_count{");
	put_labels(t, r, route, backend);
	text_put_str(t, "} ");
	text_put_u64(t, cum);
	text_put_str(t, "\n");
}


/*
 * The generations that have workers: the current one and those that
 * drain after a reload, with what each holds.
 */
static void
put_generations(struct text *t)
{
	struct stats_gen	g[STATS_GENS_MAX];
	size_t			i, n = stats_generations(g, STATS_GENS_MAX);

	put_header(t, "ferryd_generations", "gauge", "Configuration "
	    "generations with workers: the current one and those draining.");
	text_put(t, "ferryd_generations %zu\n", n);
	put_header(t, "ferryd_generation_connections", "gauge", "Connections "
	    "and UDP sessions the workers of each generation hold now.");
	for (i = 0; i < n; i++)
		text_put(t, "ferryd_generation_connections{generation=\"%u\"} "
		    "%llu\n", g[i].gen, (unsigned long long)g[i].open);
}



/* A Prometheus family's header, once, as its first step. */
static void
prom_header(struct stats_stream *s, const char *name, const char *type,
    const char *help)
{
	if (!s->headed && type != NULL)
		put_header(&s->t, name, type, help);
	s->headed = true;
}

/* The families of the rules, or of the backends: counters, histograms. */
struct series {
	const struct family		*fams;
	size_t				 nfams;
	const struct hist_family	*hists;
	size_t				 nhists;
};

static const struct series rule_series = {
	rule_families, NELEM(rule_families), stats_rule_hists, NELEM(stats_rule_hists)
};
static const struct series route_series = {
	route_families, NELEM(route_families), route_hists, NELEM(route_hists)
};
static const struct series backend_series = {
	backend_families, NELEM(backend_families), stats_backend_hists,
	NELEM(stats_backend_hists)
};

/*
 * Family k of what (its histogram k with hists): *f or *h, its header
 * written first; false, the cursor on the next family, once past its
 * last rule or backend (at the end).
 */
static bool
prom_family(struct stats_stream *s, const struct series *what, bool hists,
    bool end, const struct family **f, const struct hist_family **h)
{
	*f = hists ? NULL : &what->fams[s->k];
	*h = hists ? &what->hists[s->k] : NULL;
	if (hists)
		prom_header(s, (*h)->name, "histogram", (*h)->help);
	else
		prom_header(s, (*f)->name, (*f)->type, (*f)->help);
	if (end)
		stream_next_family(s, hists ? what->nhists : what->nfams);
	return !end;
}

/* Whether f's sample of rule r (or of its backend), v, is written. */
static bool
sample_shown(const struct family *f, const struct rule *r, uint64_t v)
{
	switch (f->shown) {
	case SHOWN_ALWAYS:
		return true;
	case SHOWN_TCP:
		return v != 0 || r->protocol == RULE_TCP;
	case SHOWN_UDP:
		return v != 0 || r->protocol == RULE_UDP ||
		    r->connect_protocol == RULE_UDP;
	case SHOWN_QUEUE:
		return v != 0 || r->queue_timeout > 0;
	default:
		return v != 0;
	}
}

/*
 * Whether the histograms of rule r (its routes', its backends') are
 * written: where the operator asked, as they are most of a busy rule's
 * series (40 lines each).
 */
static bool
hists_shown(const struct stats_stream *s, const struct rule *r)
{
	return s->histograms || r->stats_histograms;
}

/* The sample of f, or the series of h, at off in view. */
static void
prom_put(struct stats_stream *s, const struct family *f,
    const struct hist_family *h, const void *view, const struct rule *r,
    const char *route, const char *backend)
{
	uint64_t	v;

	if (h != NULL) {
		if (hists_shown(s, r))
			put_hist(&s->t, h->name, view_hist_at(view, h->off), r,
			    route, backend);
		return;
	}
	v = view_word_at(view, f->off);
	if (sample_shown(f, r, v))
		put_sample(&s->t, f->name, r, route, backend, f->extra, v);
}

/*
 * A step of the rules' families: the sample of counter family k, or
 * the series of histogram k (hists), of the rule at the cursor.
 */
static void
prom_rule(struct stats_stream *s, bool hists)
{
	const struct family		*f;
	const struct hist_family	*h;
	const struct rule		*r = stream_rule(s);

	if (!prom_family(s, &rule_series, hists, r == NULL, &f, &h))
		return;
	stream_view_rule(&s->vr, r, h != NULL ? h->off : f->off, h != NULL ?
	    sizeof(struct hist) : sizeof(uint64_t));
	prom_put(s, f, h, &s->vr, r, NULL, NULL);
	s->i++;
}

/*
 * The same for the routes' families, of the route at the cursor: its
 * counters are those of its destination (route.h), labelled with its
 * rule and its name.
 */
static void
prom_route(struct stats_stream *s, bool hists)
{
	const struct family		*f;
	const struct hist_family	*h;
	const struct rule		*r = NULL;
	const struct route		*rt = stream_route(s, &r);

	if (!prom_family(s, &route_series, hists, rt == NULL, &f, &h))
		return;
	stream_view_rule(&s->vr, &rt->dest, h != NULL ? h->off : f->off,
	    h != NULL ? sizeof(struct hist) : sizeof(uint64_t));
	prom_put(s, f, h, &s->vr, r, rt->name, NULL);
	s->j++;
}

/* The same for the backends' families, of the backend at the cursor. */
static void
prom_backend(struct stats_stream *s, bool hists)
{
	const struct family		*f;
	const struct hist_family	*h;
	const struct rule		*r = NULL;
	const struct backend		*b = stream_backend(s, &r);

	if (!prom_family(s, &backend_series, hists, b == NULL, &f, &h))
		return;
	stream_view_backend(&s->vb, s, r, b, h != NULL ? h->off : f->off, h != NULL ?
	    sizeof(struct hist) : sizeof(uint64_t));
	prom_put(s, f, h, &s->vb, r, b->route, s->vb.label);
	s->j++;
}

/* The workers' and generations' families: a few lines per worker slot. */
static void
prom_tail(struct text *t)
{
	struct stats_worker	w;
	int			s;

	put_header(t, "ferryd_worker_generation", "gauge", "The configuration "
	    "generation each worker slot runs (one more at every reload).");
	for (s = 0; s < stats_slots(); s++)
		text_put(t, "ferryd_worker_generation{worker=\"%d\"} %u\n", s,
		    stats_generation());
	put_generations(t);
	put_header(t, "ferryd_worker_connections", "gauge", "Connections and "
	    "UDP sessions each worker slot holds now.");
	for (s = 0; s < stats_slots(); s++)
		text_put(t, "ferryd_worker_connections{worker=\"%d\"} %llu\n", s,
		    (unsigned long long)stats_slot_open(s));
	put_header(t, "ferryd_worker_loop_iterations_total", "counter",
	    "Turns of each worker slot's event loop.");
	for (s = 0; s < stats_slots(); s++)
		if (stats_read_worker(s, &w))
			text_put(t, "ferryd_worker_loop_iterations_total{worker=\"%d\"}"
			    " %llu\n", s, (unsigned long long)w.iterations);
}

/* A step of the Prometheus text: a sample, a histogram, or a part. */
void
stats_prom_step(struct stats_stream *s)
{
	switch (s->phase) {
	case PH_HEAD:
		put_header(&s->t, "ferryd_build_info", "gauge", "The version "
		    "of ferryd that serves these metrics.");
		text_put(&s->t, "ferryd_build_info{version=\"%s\"} 1\n",
		    PACKAGE_VERSION);
		put_header(&s->t, "ferryd_host_ready", "gauge", "1 while the "
		    "host takes traffic (GET /ready answers 200), 0 once it "
		    "was drained (drain host).");
		text_put(&s->t, "ferryd_host_ready %d\n",
		    !scoreboard_host_drain(NULL));
		s->phase = PH_RULES;
		break;
	case PH_RULES:
	case PH_RULE_HISTS:
		prom_rule(s, s->phase == PH_RULE_HISTS);
		break;
	case PH_ROUTES:
	case PH_ROUTE_HISTS:
		prom_route(s, s->phase == PH_ROUTE_HISTS);
		break;
	case PH_BACKENDS:
	case PH_BACKEND_HISTS:
		prom_backend(s, s->phase == PH_BACKEND_HISTS);
		break;
	default:
		prom_tail(&s->t);
		s->phase = PH_END;
		break;
	}
}

/* A JSON string of s (names and addresses: no control characters). */