/*
 * stats_export.c - the counters as Prometheus text, JSON and a table
 * (stats_export.h).
 *
 * A document is made a piece at a time, as the endpoint's socket takes
 * it: a cursor (which part, which family, which rule, which backend)
 * says where it stands, and each step reads only what it writes next
 * (a counter, a histogram, or for JSON and the table one rule or one
 * backend) into a buffer of a few pieces.  So a scrape costs neither
 * the worker's loop nor its memory in proportion to the rules: with
 * 5,000 rules the exposition is 9 MB, the memory for it one piece.
 */
#include "ferryd.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "health.h"
#include "route.h"
#include "rule.h"
#include "stats.h"
#include "stats_export.h"
#include "stats_stream.h"
#include "upstream.h"


void
text_put(struct text *t, const char *fmt, ...)
{
	va_list	 ap;
	size_t	 room;
	char	*p;
	int	 n;

	for (;;) {
		if (t->failed)
			return;
		room = t->cap - t->len;
		va_start(ap, fmt);
		n = vsnprintf(t->p != NULL ? t->p + t->len : NULL, room, fmt,
		    ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if ((size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		t->cap = (t->cap + (size_t)n + 1) * 2;
		if ((p = realloc(t->p, t->cap)) == NULL) {
			t->failed = true;
			return;
		}
		t->p = p;
	}
}

/* Room for n more bytes (and a NUL) in t: false once memory ran out. */
static bool
room(struct text *t, size_t n)
{
	char	*p;
	size_t	 cap;

	if (t->failed)
		return false;
	if (t->len + n + 1 <= t->cap)
		return true;
	cap = (t->cap + n + 1) * 2;
	if ((p = realloc(t->p, cap)) == NULL) {
		t->failed = true;
		return false;
	}
	t->p = p;
	t->cap = cap;
	return true;
}

/* The fast ways, for what a scrape writes thousands of times. */
void
text_put_str(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (room(t, n)) {
		memcpy(t->p + t->len, s, n);
		t->len += n;
	}
}

void
text_put_u64(struct text *t, uint64_t v)
{
	char	buf[24];
	int	i = (int)sizeof(buf);

	do
		buf[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	if (room(t, sizeof(buf) - (size_t)i)) {
		memcpy(t->p + t->len, buf + i, sizeof(buf) - (size_t)i);
		t->len += sizeof(buf) - (size_t)i;
	}
}





/*
 * How many ports rule r (a range's first port, or alone) has: not its
 * clones, which a host of several addresses multiplies.
 */
static unsigned
ports_of(const struct rule *r)
{
	return r->nports > 1 ? r->nports : 1;
}

/* "addr:port", or for a backend whose port follows a range "addr:lo-hi". */
static void
backend_label(const struct backend *b, unsigned ports, char *buf, size_t len)
{
	size_t n;

	addr_format((const struct sockaddr *)&b->addr.ss, buf, len);
	if (b->ranged && ports > 1 && (n = strlen(buf)) < len)
		snprintf(buf + n, len - n, "-%u", addr_port((const struct
		    sockaddr *)&b->addr.ss) + ports - 1);
}

/* Whether the size bytes from off in a view are in the len from at. */
static bool
within(size_t off, size_t size, size_t at, size_t len)
{
	return off >= at && off + size <= at + len;
}

/*
 * Read backend b of rule r into v: its label and health, and of its
 * counters and histograms size bytes from off in v (all of them with
 * size 0).
 */
void
stream_view_backend(struct view_backend *v, const struct stats_stream *s,
    const struct rule *r, const struct backend *b, size_t off, size_t size)
{
	const struct health_cell	*c = health_cell(b->id);
	const size_t			 st = offsetof(struct view_backend, st);
	const size_t			 h = offsetof(struct view_backend, h);

	v->rule = r;
	v->b = b;
	backend_label(b, ports_of(r), v->label, sizeof(v->label));
	if (size == 0) {
		memset(&v->st, 0, sizeof(v->st));
		memset(&v->h, 0, sizeof(v->h));
		(void)stats_read_backend(b->stat, &v->st);
		(void)stats_read_backend_hist(b->stat, 0, 0, &v->h);
	} else if (within(off, size, st, sizeof(v->st))) {
		memset((char *)v + off, 0, size);
		(void)stats_read_backend_part(b->stat, off - st, size, &v->st);
	} else if (within(off, size, h, sizeof(v->h))) {
		memset((char *)v + off, 0, size);
		(void)stats_read_backend_hist(b->stat, off - h, size, &v->h);
	}
	v->up = health_state(b, s->now) == HEALTH_UP;
	v->changes = c != NULL ? c->changes : 0;
	/* A drain restored from state_file is a change, made before. */
	v->changed = c != NULL && (c->changes > 0 || c->admin_since > 0) ?
	    (uint64_t)c->changed : 0;
}

/* Read rule r into v: size bytes from off in v, or all with size 0. */
void
stream_view_rule(struct view_rule *v, const struct rule *r, size_t off,
    size_t size)
{
	const size_t st = offsetof(struct view_rule, st);
	const size_t h = offsetof(struct view_rule, h);

	v->rule = r;
	if (size == 0) {
		memset(&v->st, 0, sizeof(v->st));
		memset(&v->h, 0, sizeof(v->h));
		(void)stats_read_rule(r->stat, &v->st);
		(void)stats_read_rule_hist(r->stat, 0, 0, &v->h);
		stats_read_rates(r->stat, &v->rates);
	} else if (within(off, size, st, sizeof(v->st))) {
		memset((char *)v + off, 0, size);
		(void)stats_read_rule_part(r->stat, off - st, size, &v->st);
	} else if (within(off, size, h, sizeof(v->h))) {
		memset((char *)v + off, 0, size);
		(void)stats_read_rule_hist(r->stat, off - h, size, &v->h);
	}
}

/*
 * The rule at the cursor or after it (a range's later ports are its
 * first port's): NULL past the last.
 */
const struct rule *
stream_rule(struct stats_stream *s)
{
	while (s->i < s->nrules && s->rules[s->i].range_first != NULL)
		s->i++;
	return s->i < s->nrules ? &s->rules[s->i] : NULL;
}

/* The backend at the cursor or after it, and its rule: NULL past the last. */
const struct backend *
stream_backend(struct stats_stream *s, const struct rule **rp)
{
	const struct rule *r;

	while ((r = stream_rule(s)) != NULL) {
		if (s->j < r->upstream.nbackends) {
			*rp = r;
			return &r->upstream.backends[s->j];
		}
		s->i++;
		s->j = 0;
	}
	return NULL;
}

const struct route *
stream_route(struct stats_stream *s, const struct rule **rp)
{
	const struct rule *r;

	while ((r = stream_rule(s)) != NULL) {
		if (s->j < r->nroutes) {
			*rp = r;
			return &r->routes[s->j];
		}
		s->i++;
		s->j = 0;
	}
	return NULL;
}

/*
 * Family k (of n) has ended: the next one from its first rule, or after
 * the last the next phase.
 */
void
stream_next_family(struct stats_stream *s, size_t n)
{
	s->i = s->j = 0;
	s->headed = false;
	if (++s->k == n) {
		s->k = 0;
		s->phase++;
	}
}

/* A label value, escaped as the exposition format says. */
const struct hist_family stats_rule_hists[] = {
	{ "ferryd_rule_connect_seconds", "From accepting a connection to "
	    "its backend connected, failovers included.",
	    offsetof(struct view_rule, h.connect) },
	{ "ferryd_rule_first_byte_seconds", "From the backend connected to "
	    "its first byte.", offsetof(struct view_rule, h.first_byte) },
	{ "ferryd_rule_duration_seconds", "How long connections and UDP "
	    "sessions lasted.", offsetof(struct view_rule, h.duration) },
	{ "ferryd_rule_udp_reply_seconds", "From a client's datagram to the "
	    "backend's first reply after it.", offsetof(struct view_rule,
	    h.reply) },
	{ "ferryd_rule_peek_seconds", "Rules with routes: from accepting a "
	    "connection to the route its first bytes picked.",
	    offsetof(struct view_rule, h.peek) },
};

const struct hist_family stats_backend_hists[] = {
	{ "ferryd_backend_connect_seconds", "How long the connects to the "
	    "backend that succeeded took.", offsetof(struct view_backend,
	    h.connect) },
	{ "ferryd_backend_first_byte_seconds", "From connected to the "
	    "backend's first byte.", offsetof(struct view_backend,
	    h.first_byte) },
	{ "ferryd_backend_duration_seconds", "How long connections and UDP "
	    "sessions to the backend lasted.", offsetof(struct view_backend,
	    h.duration) },
	{ "ferryd_backend_udp_reply_seconds", "From a client's datagram to "
	    "the backend's first reply after it.",
	    offsetof(struct view_backend, h.reply) },
};

uint64_t
view_word_at(const void *view, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)view + off, sizeof(v));
	return v;
}

const struct hist *
view_hist_at(const void *view, size_t off)
{
	return (const struct hist *)(const void *)((const char *)view + off);
}

/*
 * "draining: generation 2 (5 open), generation 1 (1 open)" for the
 * status table's first line, or "" without a draining one.
 */
static const char *
draining_text(char *buf, size_t len)
{
	struct stats_gen	g[STATS_GENS_MAX];
	size_t			i, n = stats_generations(g, STATS_GENS_MAX);
	size_t			off = 0;

	buf[0] = '\0';
	for (i = 1; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s generation %u "
		    "(%llu open)", i == 1 ? "; draining:" : ",", g[i].gen,
		    (unsigned long long)g[i].open);
	return buf;
}
static void
put_json_string(struct text *t, const char *s)
{
	text_put(t, "\"");
	for (; *s != '\0'; s++)
		if (*s == '\\' || *s == '"')
			text_put(t, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			text_put(t, "\\u%04x", (unsigned)(unsigned char)*s);
		else
			text_put(t, "%c", *s);
	text_put(t, "\"");
}

/* A quantile in seconds, or null past the last bucket or when empty. */
static void
put_json_quantile(struct text *t, const char *key, const struct hist *h,
    double q)
{
	uint64_t	us = hist_quantile(h, q);
	char		buf[32];

	if (us == 0 || us == UINT64_MAX)
		text_put(t, "\"%s\":null", key);
	else {
		hist_seconds(us, buf, sizeof(buf));
		text_put(t, "\"%s\":%s", key, buf);
	}
}

static void
put_json_hist(struct text *t, const char *key, const struct hist *h)
{
	char buf[32];

	hist_seconds(h->sum, buf, sizeof(buf));
	text_put(t, "\"%s\":{\"count\":%llu,\"sum\":%s,", key,
	    (unsigned long long)hist_count(h), buf);
	put_json_quantile(t, "p50", h, 0.5);
	text_put(t, ",");
	put_json_quantile(t, "p90", h, 0.9);
	text_put(t, ",");
	put_json_quantile(t, "p99", h, 0.99);
	text_put(t, "}");
}

static void
put_json_hists(struct text *t, const void *view,
    const struct hist_family *f, size_t n, const char *const *keys)
{
	size_t i;

	text_put(t, "\"latency\":{");
	for (i = 0; i < n; i++) {
		put_json_hist(t, keys[i], view_hist_at(view, f[i].off));
		text_put(t, i + 1 < n ? "," : "}");
	}
}

static const char *const hist_keys[] = {
	"connect", "first_byte", "duration", "udp_reply"
};

static void
json_backend(struct text *t, const struct view_backend *b)
{
	const struct stats_backend *st = &b->st;

	text_put(t, "{\"address\":");
	put_json_string(t, b->label);
	if (b->b->route != NULL) {
		text_put(t, ",\"route\":");
		put_json_string(t, b->b->route);
	}
	text_put(t, ",\"up\":%s,\"state_changes\":%llu,\"last_change\":%llu,"
	    "\"connects\":{\"attempts\":%llu,\"refused\":%llu,"
	    "\"timeouts\":%llu,\"failed\":%llu},\"connections\":"
	    "{\"opened\":%llu,\"active\":%llu},\"bytes\":{\"in\":%llu,"
	    "\"out\":%llu},", b->up ? "true" : "false",
	    (unsigned long long)b->changes, (unsigned long long)b->changed,
	    (unsigned long long)st->attempts, (unsigned long long)st->refused,
	    (unsigned long long)st->timeouts, (unsigned long long)st->failed,
	    (unsigned long long)st->opened, (unsigned long long)st->active,
	    (unsigned long long)st->bytes_in, (unsigned long long)st->bytes_out);
	put_json_hists(t, b, stats_backend_hists, 4, hist_keys);
	text_put(t, "}");
}

/*
 * A rule with routes: what its peek stage closed, and each route's
 * connections and peek time (its destination's counters, route.h).
 */
static void
json_routes(struct text *t, const struct view_rule *vr)
{
	const struct rule	*r = vr->rule;
	struct stats_rule	 rs;
	struct stats_rule_hist	 rh;
	size_t			 i;

	text_put(t, ",\"peek\":{\"unmatched\":%llu,\"timeouts\":%llu,"
	    "\"errors\":%llu,", (unsigned long long)vr->st.unmatched,
	    (unsigned long long)vr->st.peek_timeouts,
	    (unsigned long long)vr->st.peek_bad);
	put_json_hist(t, "latency", &vr->h.peek);
	text_put(t, "},\"routes\":[");
	for (i = 0; i < r->nroutes; i++) {
		memset(&rs, 0, sizeof(rs));
		memset(&rh.peek, 0, sizeof(rh.peek));
		(void)stats_read_rule(r->routes[i].dest.stat, &rs);
		(void)stats_read_rule_hist(r->routes[i].dest.stat,
		    offsetof(struct stats_rule_hist, peek), sizeof(rh.peek),
		    &rh);
		text_put(t, "%s{\"name\":", i > 0 ? "," : "");
		put_json_string(t, r->routes[i].name);
		text_put(t, ",\"connections\":%llu,\"datagrams_in\":%llu,"
		    "\"datagrams_out\":%llu,\"peek_timeouts\":%llu,"
		    "\"quic_undecryptable\":%llu,\"quic_unread\":%llu,",
		    (unsigned long long)rs.routed,
		    (unsigned long long)rs.datagrams_in,
		    (unsigned long long)rs.datagrams_out,
		    (unsigned long long)rs.peek_timeouts,
		    (unsigned long long)rs.quic_undecryptable,
		    (unsigned long long)rs.quic_unread);
		put_json_hist(t, "peek", &rh.peek);
		text_put(t, "}");
	}
	text_put(t, "]");
}

/* A rule's object up to its backends: they follow, one a step. */
static void
json_rule(struct text *t, const struct view_rule *vr)
{
	const struct stats_rule	*st = &vr->st;
	const struct rule	*r = vr->rule;

	text_put(t, "{\"name\":");
	put_json_string(t, r->name);
	text_put(t, ",\"listen\":");
	put_json_string(t, r->listen);
	text_put(t, ",\"protocol\":\"%s\",\"connect_protocol\":\"%s\","
	    "\"connections\":{\"accepted\":%llu,\"closed\":%llu,"
	    "\"active\":%llu},\"refused\":{\"denied\":%llu,"
	    "\"max_connections\":%llu,\"per_client\":%llu,\"rate\":%llu,"
	    "\"no_backend\":%llu},"
	    "\"bytes\":{\"in\":%llu,\"out\":%llu},"
	    "\"udp\":{\"sessions\":%llu,\"active_sessions\":%llu,"
	    "\"datagrams_in\":%llu,\"datagrams_out\":%llu,\"truncated\":%llu,"
	    "\"dropped\":%llu,\"paced\":%llu,\"rate_limited\":%llu},"
	    "\"rate_limit_waits\":%llu,\"proxy_header_errors\":%llu,"
	    "\"rates\":{\"seconds\":%.1f,\"connections\":%.2f,"
	    "\"sessions\":%.2f,\"bytes\":%.0f,\"datagrams\":%.2f},",
	    r->protocol == RULE_UDP ? "udp" : "tcp",
	    r->connect_protocol == RULE_UDP ? "udp" : "tcp",
	    (unsigned long long)st->accepted, (unsigned long long)st->closed,
	    (unsigned long long)st->active, (unsigned long long)st->denied,
	    (unsigned long long)st->refused_max,
	    (unsigned long long)st->refused_per_client,
	    (unsigned long long)st->refused_rate,
	    (unsigned long long)st->no_backend,
	    (unsigned long long)st->bytes_in, (unsigned long long)st->bytes_out,
	    (unsigned long long)st->sessions,
	    (unsigned long long)st->active_sessions,
	    (unsigned long long)st->datagrams_in,
	    (unsigned long long)st->datagrams_out,
	    (unsigned long long)st->truncated, (unsigned long long)st->dropped,
	    (unsigned long long)st->paced,
	    (unsigned long long)st->rate_dropped,
	    (unsigned long long)st->rate_waits,
	    (unsigned long long)st->proxy_errors, vr->rates.seconds,
	    vr->rates.connections, vr->rates.sessions, vr->rates.bytes,
	    vr->rates.datagrams);
	put_json_hists(t, vr, stats_rule_hists, 4, hist_keys);
	if (r->nroutes > 0)
		json_routes(t, vr);
	text_put(t, ",\"backends\":[");
}

/* The document's start: the version, generation, time and workers. */
static void
json_head(struct text *t)
{
	struct stats_worker	w;
	int			s;

	text_put(t, "{\"version\":\"%s\",\"generation\":%u,\"time\":%lld,"
	    "\"workers\":[", PACKAGE_VERSION, stats_generation(),
	    (long long)time(NULL));
	for (s = 0; s < stats_slots(); s++) {
		if (!stats_read_worker(s, &w))
			continue;
		text_put(t, "%s{\"slot\":%d,\"pid\":%llu,\"connections\":%llu,"
		    "\"loop_iterations\":%llu}", s > 0 ? "," : "", s,
		    (unsigned long long)w.pid,
		    (unsigned long long)stats_slot_open(s),
		    (unsigned long long)w.iterations);
	}
	text_put(t, "],\"rules\":[");
}

/* JSON's parts, for walk_step. */
static void
json_w_head(struct stats_stream *s)
{
	json_head(&s->t);
}

static void
json_w_rule(struct stats_stream *s)
{
	if (!s->first)
		text_put(&s->t, ",");
	json_rule(&s->t, &s->vr);
}

static void
json_w_backend(struct stats_stream *s)
{
	if (s->j > 0)
		text_put(&s->t, ",");
	json_backend(&s->t, &s->vb);
}

static void
json_w_rule_end(struct stats_stream *s)
{
	text_put(&s->t, "]}");
}

static void
json_w_end(struct stats_stream *s)
{
	text_put(&s->t, "]}\n");
}

/* A duration for a person: "850us", "12.5ms", "3.20s", or "-". */
static const char *
human_time(uint64_t us, char *buf, size_t len)
{
	if (us == 0)
		snprintf(buf, len, "-");
	else if (us == UINT64_MAX)
		snprintf(buf, len, ">19h");
	else if (us < 1000)
		snprintf(buf, len, "%lluus", (unsigned long long)us);
	else if (us < 1000000)
		snprintf(buf, len, "%.1fms", (double)us / 1000.0);
	else
		snprintf(buf, len, "%.2fs", (double)us / 1000000.0);
	return buf;
}

/* A rate for a person: "0", "950", "12.3k", "4.56M". */
static const char *
human_rate(double r, char *buf, size_t len)
{
	if (r < 1000.0)
		snprintf(buf, len, r < 10.0 && r > 0.0 ? "%.1f" : "%.0f", r);
	else if (r < 1e6)
		snprintf(buf, len, "%.1fk", r / 1e3);
	else if (r < 1e9)
		snprintf(buf, len, "%.2fM", r / 1e6);
	else
		snprintf(buf, len, "%.2fG", r / 1e9);
	return buf;
}

/* The table's title and column heads. */
static void
table_head(struct stats_stream *s)
{
	struct stats_rates	 rates;
	const struct rule	*r;
	char			 gens[256];

	/* The rates' span, as the first rule's says. */
	memset(&rates, 0, sizeof(rates));
	if ((r = stream_rule(s)) != NULL)
		stats_read_rates(r->stat, &rates);
	text_put(&s->t, "ferryd %s, generation %u, %d worker(s)%s; rates over the "
	    "last %.0f s\n\n", PACKAGE_VERSION, stats_generation(),
	    stats_slots(), draining_text(gens, sizeof(gens)), rates.seconds);
	text_put(&s->t, "%-24s %-5s %8s %8s %8s %9s %8s %8s\n", "RULE", "PROTO",
	    "OPEN", "NEW/s", "BYTES/s", "REFUSED", "LAT p50", "LAT p99");
}

/* A rule's line. */
static void
table_rule(struct text *t, const struct view_rule *vr)
{
	const struct hist	*lat;
	char			 a[24], b[24], c[24], d[24];
	bool			 udp = vr->rule->protocol == RULE_UDP;

	lat = udp && vr->rule->connect_protocol == RULE_UDP ? &vr->h.reply :
	    &vr->h.connect;
	text_put(t, "%-24s %-5s %8llu %8s %8s %9llu %8s %8s\n",
	    vr->rule->name, udp ? "udp" : "tcp",
	    (unsigned long long)(udp ? vr->st.active_sessions :
	    vr->st.active), human_rate(udp ? vr->rates.sessions :
	    vr->rates.connections, a, sizeof(a)),
	    human_rate(vr->rates.bytes, b, sizeof(b)),
	    (unsigned long long)(vr->st.denied + vr->st.refused_max +
	    vr->st.refused_per_client + vr->st.refused_rate +
	    vr->st.no_backend),
	    human_time(hist_quantile(lat, 0.5), c, sizeof(c)),
	    human_time(hist_quantile(lat, 0.99), d, sizeof(d)));
}

/* A backend's line, under its rule's. */
static void
table_backend(struct text *t, const struct view_backend *vb)
{
	const struct hist	*lat;
	char			 c[24], d[24], name[ADDR_STRLEN + RULE_NAME_MAX + 2];
	bool			 udp = vb->rule->protocol == RULE_UDP;

	lat = udp && vb->rule->connect_protocol == RULE_UDP ? &vb->h.reply :
	    &vb->h.connect;
	/* A route's backend: ROUTE/ADDRESS, as the control socket says. */
	snprintf(name, sizeof(name), "%s%s%s", vb->b->route != NULL ?
	    vb->b->route : "", vb->b->route != NULL ? "/" : "", vb->label);
	text_put(t, "  %-22s %-5s %8llu %8s %8s %9llu %8s %8s\n",
	    name, vb->up ? "up" : "DOWN",
	    (unsigned long long)vb->st.active, "", "",
	    (unsigned long long)(vb->st.refused +
	    vb->st.timeouts + vb->st.failed),
	    human_time(hist_quantile(lat, 0.5), c, sizeof(c)),
	    human_time(hist_quantile(lat, 0.99), d, sizeof(d)));
}

/* The table's parts, for walk_step. */
static void
table_w_rule(struct stats_stream *s)
{
	table_rule(&s->t, &s->vr);
}

static void
table_w_backend(struct stats_stream *s)
{
	table_backend(&s->t, &s->vb);
}

static void
table_w_end(struct stats_stream *s)
{
	text_put(&s->t, "\nOPEN: connections (UDP: sessions) open now.  NEW/s, "
	    "BYTES/s: over the last seconds (TCP bytes count\nas connections "
	    "end).  REFUSED: clients refused (rule), failed connects "
	    "(backend).\nLAT: connect time; for UDP backends, the time to a "
	    "reply.\n");
}

/*
 * What JSON and the table write, rule by rule: the head, each rule (in
 * s->vr) and each of its backends (in s->vb, s->j its index), the end
 * of a rule's part (or NULL), the end.
 */
struct walk {
	void	(*head)(struct stats_stream *);
	void	(*rule)(struct stats_stream *);
	void	(*backend)(struct stats_stream *);
	void	(*rule_end)(struct stats_stream *);
	void	(*end)(struct stats_stream *);
};

static const struct walk json_walk = {
	json_w_head, json_w_rule, json_w_backend, json_w_rule_end, json_w_end
};
static const struct walk table_walk = {
	table_head, table_w_rule, table_w_backend, NULL, table_w_end
};

/* A step of a document made rule by rule: a part, a rule, a backend. */
static void
walk_step(struct stats_stream *s, const struct walk *w)
{
	const struct rule *r;

	switch (s->phase) {
	case PH_HEAD:
		w->head(s);
		s->phase = PH_RULE;
		break;
	case PH_RULE:
		if ((r = stream_rule(s)) == NULL) {
			w->end(s);
			s->phase = PH_END;
			break;
		}
		stream_view_rule(&s->vr, r, 0, 0);
		w->rule(s);
		s->first = false;
		s->j = 0;
		s->phase = PH_RULE_BACKENDS;
		break;
	default:
		r = &s->rules[s->i];
		if (s->j == r->upstream.nbackends) {
			if (w->rule_end != NULL)
				w->rule_end(s);
			s->i++;
			s->phase = PH_RULE;
			break;
		}
		stream_view_backend(&s->vb, s, r, &r->upstream.backends[s->j], 0, 0);
		w->backend(s);
		s->j++;
		break;
	}
}

struct stats_stream *
stats_stream_new(const struct stats_source *src, enum stats_format format)
{
	struct stats_stream *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->rules = src->rules;
	s->nrules = src->nrules;
	s->histograms = src->histograms;
	s->format = format;
	s->phase = PH_HEAD;
	s->first = true;
	s->now = clock_ms();
	return s;
}

int
stats_stream_next(struct stats_stream *s, const char **p, size_t *len)
{
	unsigned steps = 0;

	s->t.len = 0;
	if (s->phase == PH_END)
		return 0;
	/* A piece is a round: a counter written since the last is read. */
	stats_read_begin();
	while (s->phase != PH_END && s->t.len < STATS_STREAM_PIECE &&
	    steps++ < STATS_STREAM_STEPS && !s->t.failed) {
		if (s->format == STATS_PROMETHEUS)
			stats_prom_step(s);
		else
			walk_step(s, s->format == STATS_JSON ? &json_walk :
			    &table_walk);
	}
	if (s->t.failed)
		return -1;
	*p = s->t.p;
	*len = s->t.len;
	return 1;
}

void
stats_stream_free(struct stats_stream *s)
{
	if (s == NULL)
		return;
	free(s->t.p);
	free(s);
}
