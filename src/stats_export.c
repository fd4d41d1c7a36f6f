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
#include "conf.h"
#include "health.h"
#include "rule.h"
#include "stats.h"
#include "stats_export.h"
#include "upstream.h"

/* A document being written; failed once memory ran out. */
struct text {
	char	*p;
	size_t	 len, cap;
	bool	 failed;
};

static void __attribute__((format(printf, 2, 3)))
put(struct text *t, const char *fmt, ...)
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
static void
put_str(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (room(t, n)) {
		memcpy(t->p + t->len, s, n);
		t->len += n;
	}
}

static void
put_u64(struct text *t, uint64_t v)
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

/* What is shown of a rule: what was read of it for the step at hand. */
struct view_rule {
	const struct rule	*rule;
	struct stats_rule	 st;
	struct stats_rates	 rates;
};

/* What is shown of a backend: its counters and its health. */
struct view_backend {
	const struct rule	*rule;		/* the range's first port's */
	const struct backend	*b;
	char			 label[ADDR_STRLEN + 8];
	struct stats_backend	 st;
	uint64_t		 up;		/* 1 or 0 */
	uint64_t		 changes;
	uint64_t		 changed;	/* wall clock s; 0: never */
};

/* Where a document stands, and the buffer of its next piece. */
struct stats_stream {
	const struct conf	*cfg;
	enum stats_format	 format;
	int			 phase;		/* enum phase */
	size_t			 k;		/* the family (Prometheus) */
	size_t			 i;		/* the rule, in cfg->rules */
	size_t			 j;		/* its backend */
	bool			 headed;	/* family k's header is out */
	bool			 first;		/* no rule written yet */
	int64_t			 now;		/* for the health states */
	struct text		 t;
	struct view_rule	 vr;
	struct view_backend	 vb;
};

/* The parts of a document, in order. */
enum phase {
	PH_HEAD,
	PH_RULES,		/* Prometheus: rule counters */
	PH_RULE_HISTS,
	PH_BACKENDS,		/* ... backend counters */
	PH_BACKEND_HISTS,
	PH_TAIL,		/* ... the workers and generations */
	PH_RULE,		/* JSON and the table: a rule's own part */
	PH_RULE_BACKENDS,	/* ... then its backends, one a step */
	PH_END
};

/* How many ports rule r (a range's first port, or alone) has. */
static unsigned
ports_of(const struct conf *cfg, const struct rule *r)
{
	size_t i = (size_t)(r - cfg->rules) + 1;

	while (i < cfg->nrules && cfg->rules[i].range_first == r)
		i++;
	return (unsigned)(i - (size_t)(r - cfg->rules));
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

/*
 * Read backend b of rule r into v: its label and health, and of its
 * counters size bytes from off in v (all of them with size 0).
 */
static void
view_backend(struct view_backend *v, const struct stats_stream *s,
    const struct rule *r, const struct backend *b, size_t off, size_t size)
{
	const struct health_cell	*c = health_cell(b->id);
	const size_t			 st = offsetof(struct view_backend, st);

	v->rule = r;
	v->b = b;
	backend_label(b, ports_of(s->cfg, r), v->label, sizeof(v->label));
	if (size == 0) {
		memset(&v->st, 0, sizeof(v->st));
		(void)stats_read_backend(b->stat, &v->st);
	} else if (off >= st && off + size <= st + sizeof(v->st)) {
		memset((char *)v + off, 0, size);
		(void)stats_read_backend_part(b->stat, off - st, size, &v->st);
	}
	v->up = health_state(b, s->now) == HEALTH_UP;
	v->changes = c != NULL ? c->changes : 0;
	v->changed = c != NULL && c->changes > 0 ? (uint64_t)c->changed : 0;
}

/* Read rule r into v: size bytes from off in v, or all with size 0. */
static void
view_rule(struct view_rule *v, const struct rule *r, size_t off,
    size_t size)
{
	const size_t st = offsetof(struct view_rule, st);

	v->rule = r;
	if (size == 0) {
		memset(&v->st, 0, sizeof(v->st));
		(void)stats_read_rule(r->stat, &v->st);
		stats_read_rates(r->stat, &v->rates);
	} else {
		memset((char *)v + off, 0, size);
		(void)stats_read_rule_part(r->stat, off - st, size, &v->st);
	}
}

/*
 * The rule at the cursor or after it (a range's later ports are its
 * first port's): NULL past the last.
 */
static const struct rule *
cursor_rule(struct stats_stream *s)
{
	while (s->i < s->cfg->nrules && s->cfg->rules[s->i].range_first != NULL)
		s->i++;
	return s->i < s->cfg->nrules ? &s->cfg->rules[s->i] : NULL;
}

/* The backend at the cursor or after it, and its rule: NULL past the last. */
static const struct backend *
cursor_backend(struct stats_stream *s, const struct rule **rp)
{
	const struct rule *r;

	while ((r = cursor_rule(s)) != NULL) {
		if (s->j < r->upstream.nbackends) {
			*rp = r;
			return &r->upstream.backends[s->j];
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
static void
cursor_next_family(struct stats_stream *s, size_t n)
{
	s->i = s->j = 0;
	s->headed = false;
	if (++s->k == n) {
		s->k = 0;
		s->phase++;
	}
}

/* A label value, escaped as the exposition format says. */
static void
put_label(struct text *t, const char *s)
{
	/* Names and addresses have nothing to escape: the usual case. */
	if (strpbrk(s, "\\\"\n") == NULL) {
		put_str(t, s);
		return;
	}
	for (; *s != '\0'; s++)
		if (*s == '\\' || *s == '"')
			put(t, "\\%c", *s);
		else if (*s == '\n')
			put(t, "\\n");
		else
			put(t, "%c", *s);
}

/* A family of samples: a counter or gauge at off in a view. */
struct family {
	const char	*name, *type, *help;
	size_t		 off;		/* a uint64_t in the view */
	const char	*extra;		/* another label, or NULL */
};

#define RULE_AT(f)	offsetof(struct view_rule, st.f)
#define BACKEND_AT(f)	offsetof(struct view_backend, st.f)

static const struct family rule_families[] = {
	{ "ferryd_rule_connections_accepted_total", "counter",
	    "TCP connections the rule accepted.", RULE_AT(accepted), NULL },
	{ "ferryd_rule_connections_closed_total", "counter",
	    "TCP connections of the rule that ended.", RULE_AT(closed), NULL },
	{ "ferryd_rule_connections_active", "gauge",
	    "TCP connections of the rule open now.", RULE_AT(active), NULL },
	{ "ferryd_rule_refused_total", "counter",
	    "Clients refused: by allow and deny (UDP: each run of datagrams "
	    "of a client), at max_connections, at max_connections_per_client "
	    "(per_client), over connection_rate (rate), or for want of a "
	    "backend.",
	    RULE_AT(denied), "reason=\"denied\"" },
	{ "ferryd_rule_refused_total", NULL, NULL, RULE_AT(refused_max),
	    "reason=\"max_connections\"" },
	{ "ferryd_rule_refused_total", NULL, NULL,
	    RULE_AT(refused_per_client), "reason=\"per_client\"" },
	{ "ferryd_rule_refused_total", NULL, NULL, RULE_AT(refused_rate),
	    "reason=\"rate\"" },
	{ "ferryd_rule_refused_total", NULL, NULL, RULE_AT(no_backend),
	    "reason=\"no_backend\"" },
	{ "ferryd_rule_received_bytes_total", "counter",
	    "Bytes from the rule's clients: TCP counted as each connection "
	    "ends, UDP as datagrams pass.", RULE_AT(bytes_in), NULL },
	{ "ferryd_rule_sent_bytes_total", "counter",
	    "Bytes to the rule's clients: TCP counted as each connection "
	    "ends, UDP as datagrams pass.", RULE_AT(bytes_out), NULL },
	{ "ferryd_rule_udp_sessions_total", "counter",
	    "UDP sessions the rule opened.", RULE_AT(sessions), NULL },
	{ "ferryd_rule_udp_sessions_active", "gauge",
	    "UDP sessions of the rule open now.", RULE_AT(active_sessions),
	    NULL },
	{ "ferryd_rule_received_datagrams_total", "counter",
	    "Datagrams from the rule's clients sent on to a backend.",
	    RULE_AT(datagrams_in), NULL },
	{ "ferryd_rule_sent_datagrams_total", "counter",
	    "Datagrams sent to the rule's clients.", RULE_AT(datagrams_out),
	    NULL },
	{ "ferryd_rule_truncated_datagrams_total", "counter",
	    "Datagrams the kernel cut for want of room, dropped.",
	    RULE_AT(truncated), NULL },
	{ "ferryd_rule_dropped_datagrams_total", "counter",
	    "Datagrams that could not be sent on.", RULE_AT(dropped), NULL },
	{ "ferryd_rule_proxy_header_errors_total", "counter",
	    "Clients of an accept_proxy rule closed for a bad, missing or "
	    "late PROXY header.", RULE_AT(proxy_errors), NULL },
};

static const struct family backend_families[] = {
	{ "ferryd_backend_connect_attempts_total", "counter",
	    "TCP connects started to the backend.", BACKEND_AT(attempts),
	    NULL },
	{ "ferryd_backend_connect_failures_total", "counter",
	    "TCP connects to the backend that failed: refused, timed out, or "
	    "otherwise.", BACKEND_AT(refused), "reason=\"refused\"" },
	{ "ferryd_backend_connect_failures_total", NULL, NULL,
	    BACKEND_AT(timeouts), "reason=\"timeout\"" },
	{ "ferryd_backend_connect_failures_total", NULL, NULL,
	    BACKEND_AT(failed), "reason=\"other\"" },
	{ "ferryd_backend_connections_total", "counter",
	    "Connections and UDP sessions made to the backend.",
	    BACKEND_AT(opened), NULL },
	{ "ferryd_backend_connections_active", "gauge",
	    "Connections and UDP sessions to the backend open now.",
	    BACKEND_AT(active), NULL },
	{ "ferryd_backend_sent_bytes_total", "counter",
	    "Bytes sent to the backend: TCP counted as each connection ends, "
	    "UDP as datagrams pass.", BACKEND_AT(bytes_in), NULL },
	{ "ferryd_backend_received_bytes_total", "counter",
	    "Bytes from the backend: TCP counted as each connection ends, UDP "
	    "as datagrams pass.", BACKEND_AT(bytes_out), NULL },
	{ "ferryd_backend_up", "gauge",
	    "1 while the backend takes new connections, 0 while it is down.",
	    offsetof(struct view_backend, up), NULL },
	{ "ferryd_backend_state_changes_total", "counter",
	    "Times the backend went down or came back up.",
	    offsetof(struct view_backend, changes), NULL },
	{ "ferryd_backend_last_change_timestamp_seconds", "gauge",
	    "When the backend last went down or came back up (0: never).",
	    offsetof(struct view_backend, changed), NULL },
};

/* A histogram of each rule or backend, at off in its view. */
struct hist_family {
	const char	*name, *help;
	size_t		 off;
};

static const struct hist_family rule_hists[] = {
	{ "ferryd_rule_connect_seconds", "From accepting a connection to "
	    "its backend connected, failovers included.",
	    offsetof(struct view_rule, st.connect) },
	{ "ferryd_rule_first_byte_seconds", "From the backend connected to "
	    "its first byte.", offsetof(struct view_rule, st.first_byte) },
	{ "ferryd_rule_duration_seconds", "How long connections and UDP "
	    "sessions lasted.", offsetof(struct view_rule, st.duration) },
	{ "ferryd_rule_udp_reply_seconds", "From a client's datagram to the "
	    "backend's first reply after it.", offsetof(struct view_rule,
	    st.reply) },
};

static const struct hist_family backend_hists[] = {
	{ "ferryd_backend_connect_seconds", "How long the connects to the "
	    "backend that succeeded took.", offsetof(struct view_backend,
	    st.connect) },
	{ "ferryd_backend_first_byte_seconds", "From connected to the "
	    "backend's first byte.", offsetof(struct view_backend,
	    st.first_byte) },
	{ "ferryd_backend_duration_seconds", "How long connections and UDP "
	    "sessions to the backend lasted.", offsetof(struct view_backend,
	    st.duration) },
	{ "ferryd_backend_udp_reply_seconds", "From a client's datagram to "
	    "the backend's first reply after it.",
	    offsetof(struct view_backend, st.reply) },
};

static uint64_t
word_at(const void *view, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)view + off, sizeof(v));
	return v;
}

static const struct hist *
hist_at(const void *view, size_t off)
{
	return (const struct hist *)(const void *)((const char *)view + off);
}

/* The labels of a rule's series, or of a backend's, without braces. */
static void
put_labels(struct text *t, const struct rule *r, const char *backend)
{
	put_str(t, "rule=\"");
	put_label(t, r->name);
	put_str(t, "\"");
	if (backend != NULL) {
		put_str(t, ",backend=\"");
		put_label(t, backend);
		put_str(t, "\"");
	}
}

/* One sample: name{labels[,extra]} value */
static void
put_sample(struct text *t, const char *name, const struct rule *r,
    const char *backend, const char *extra, uint64_t v)
{
	put_str(t, name);
	put_str(t, "{");
	put_labels(t, r, backend);
	if (extra != NULL) {
		put_str(t, ",");
		put_str(t, extra);
	}
	put_str(t, "} ");
	put_u64(t, v);
	put_str(t, "\n");
}

static void
put_header(struct text *t, const char *name, const char *type,
    const char *help)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
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
    const struct rule *r, const char *backend)
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
		put_str(t, name);
		put_str(t, "_bucket{");
		put_labels(t, r, backend);
		put_str(t, ",le=\"");
		put_str(t, le[i]);
		put_str(t, "\"} ");
		put_u64(t, cum);
		put_str(t, "\n");
	}
	cum += h->bucket[HIST_FINITE];
	put_str(t, name);
	put_str(t, "_bucket{");
	put_labels(t, r, backend);
	put_str(t, ",le=\"+Inf\"} ");
	put_u64(t, cum);
	put_str(t, "\n");
	hist_seconds(h->sum, sum, sizeof(sum));
	put_str(t, name);
	put_str(t, "_sum{");
	put_labels(t, r, backend);
	put_str(t, "} ");
	put_str(t, sum);
	put_str(t, "\n");
	put_str(t, name);
	put_str(t, "_count{");
	put_labels(t, r, backend);
	put_str(t, "} ");
	put_u64(t, cum);
	put_str(t, "\n");
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
	put(t, "ferryd_generations %zu\n", n);
	put_header(t, "ferryd_generation_connections", "gauge", "Connections "
	    "and UDP sessions the workers of each generation hold now.");
	for (i = 0; i < n; i++)
		put(t, "ferryd_generation_connections{generation=\"%u\"} "
		    "%llu\n", g[i].gen, (unsigned long long)g[i].open);
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

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

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
	rule_families, NELEM(rule_families), rule_hists, NELEM(rule_hists)
};
static const struct series backend_series = {
	backend_families, NELEM(backend_families), backend_hists,
	NELEM(backend_hists)
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
		cursor_next_family(s, hists ? what->nhists : what->nfams);
	return !end;
}

/* The sample of f, or the series of h, at off in view. */
static void
prom_put(struct stats_stream *s, const struct family *f,
    const struct hist_family *h, const void *view, const struct rule *r,
    const char *backend)
{
	if (h != NULL)
		put_hist(&s->t, h->name, hist_at(view, h->off), r, backend);
	else
		put_sample(&s->t, f->name, r, backend, f->extra,
		    word_at(view, f->off));
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
	const struct rule		*r = cursor_rule(s);

	if (!prom_family(s, &rule_series, hists, r == NULL, &f, &h))
		return;
	view_rule(&s->vr, r, h != NULL ? h->off : f->off, h != NULL ?
	    sizeof(struct hist) : sizeof(uint64_t));
	prom_put(s, f, h, &s->vr, r, NULL);
	s->i++;
}

/* The same for the backends' families, of the backend at the cursor. */
static void
prom_backend(struct stats_stream *s, bool hists)
{
	const struct family		*f;
	const struct hist_family	*h;
	const struct rule		*r = NULL;
	const struct backend		*b = cursor_backend(s, &r);

	if (!prom_family(s, &backend_series, hists, b == NULL, &f, &h))
		return;
	view_backend(&s->vb, s, r, b, h != NULL ? h->off : f->off, h != NULL ?
	    sizeof(struct hist) : sizeof(uint64_t));
	prom_put(s, f, h, &s->vb, r, s->vb.label);
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
		put(t, "ferryd_worker_generation{worker=\"%d\"} %u\n", s,
		    stats_generation());
	put_generations(t);
	put_header(t, "ferryd_worker_connections", "gauge", "Connections and "
	    "UDP sessions each worker slot holds now.");
	for (s = 0; s < stats_slots(); s++)
		put(t, "ferryd_worker_connections{worker=\"%d\"} %llu\n", s,
		    (unsigned long long)stats_slot_open(s));
	put_header(t, "ferryd_worker_loop_iterations_total", "counter",
	    "Turns of each worker slot's event loop.");
	for (s = 0; s < stats_slots(); s++)
		if (stats_read_worker(s, &w))
			put(t, "ferryd_worker_loop_iterations_total{worker=\"%d\"}"
			    " %llu\n", s, (unsigned long long)w.iterations);
}

/* A step of the Prometheus text: a sample, a histogram, or a part. */
static void
prometheus_step(struct stats_stream *s)
{
	switch (s->phase) {
	case PH_HEAD:
		put_header(&s->t, "ferryd_build_info", "gauge", "The version "
		    "of ferryd that serves these metrics.");
		put(&s->t, "ferryd_build_info{version=\"%s\"} 1\n",
		    PACKAGE_VERSION);
		s->phase = PH_RULES;
		break;
	case PH_RULES:
	case PH_RULE_HISTS:
		prom_rule(s, s->phase == PH_RULE_HISTS);
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
static void
put_json_string(struct text *t, const char *s)
{
	put(t, "\"");
	for (; *s != '\0'; s++)
		if (*s == '\\' || *s == '"')
			put(t, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			put(t, "\\u%04x", (unsigned)(unsigned char)*s);
		else
			put(t, "%c", *s);
	put(t, "\"");
}

/* A quantile in seconds, or null past the last bucket or when empty. */
static void
put_json_quantile(struct text *t, const char *key, const struct hist *h,
    double q)
{
	uint64_t	us = hist_quantile(h, q);
	char		buf[32];

	if (us == 0 || us == UINT64_MAX)
		put(t, "\"%s\":null", key);
	else {
		hist_seconds(us, buf, sizeof(buf));
		put(t, "\"%s\":%s", key, buf);
	}
}

static void
put_json_hist(struct text *t, const char *key, const struct hist *h)
{
	char buf[32];

	hist_seconds(h->sum, buf, sizeof(buf));
	put(t, "\"%s\":{\"count\":%llu,\"sum\":%s,", key,
	    (unsigned long long)hist_count(h), buf);
	put_json_quantile(t, "p50", h, 0.5);
	put(t, ",");
	put_json_quantile(t, "p90", h, 0.9);
	put(t, ",");
	put_json_quantile(t, "p99", h, 0.99);
	put(t, "}");
}

static void
put_json_hists(struct text *t, const void *view,
    const struct hist_family *f, size_t n, const char *const *keys)
{
	size_t i;

	put(t, "\"latency\":{");
	for (i = 0; i < n; i++) {
		put_json_hist(t, keys[i], hist_at(view, f[i].off));
		put(t, i + 1 < n ? "," : "}");
	}
}

static const char *const hist_keys[] = {
	"connect", "first_byte", "duration", "udp_reply"
};

static void
json_backend(struct text *t, const struct view_backend *b)
{
	const struct stats_backend *st = &b->st;

	put(t, "{\"address\":");
	put_json_string(t, b->label);
	put(t, ",\"up\":%s,\"state_changes\":%llu,\"last_change\":%llu,"
	    "\"connects\":{\"attempts\":%llu,\"refused\":%llu,"
	    "\"timeouts\":%llu,\"failed\":%llu},\"connections\":"
	    "{\"opened\":%llu,\"active\":%llu},\"bytes\":{\"in\":%llu,"
	    "\"out\":%llu},", b->up ? "true" : "false",
	    (unsigned long long)b->changes, (unsigned long long)b->changed,
	    (unsigned long long)st->attempts, (unsigned long long)st->refused,
	    (unsigned long long)st->timeouts, (unsigned long long)st->failed,
	    (unsigned long long)st->opened, (unsigned long long)st->active,
	    (unsigned long long)st->bytes_in, (unsigned long long)st->bytes_out);
	put_json_hists(t, b, backend_hists, 4, hist_keys);
	put(t, "}");
}

/* A rule's object up to its backends: they follow, one a step. */
static void
json_rule(struct text *t, const struct view_rule *vr)
{
	const struct stats_rule	*st = &vr->st;
	const struct rule	*r = vr->rule;

	put(t, "{\"name\":");
	put_json_string(t, r->name);
	put(t, ",\"listen\":");
	put_json_string(t, r->listen);
	put(t, ",\"protocol\":\"%s\",\"connect_protocol\":\"%s\","
	    "\"connections\":{\"accepted\":%llu,\"closed\":%llu,"
	    "\"active\":%llu},\"refused\":{\"denied\":%llu,"
	    "\"max_connections\":%llu,\"per_client\":%llu,\"rate\":%llu,"
	    "\"no_backend\":%llu},"
	    "\"bytes\":{\"in\":%llu,\"out\":%llu},"
	    "\"udp\":{\"sessions\":%llu,\"active_sessions\":%llu,"
	    "\"datagrams_in\":%llu,\"datagrams_out\":%llu,\"truncated\":%llu,"
	    "\"dropped\":%llu},\"proxy_header_errors\":%llu,"
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
	    (unsigned long long)st->proxy_errors, vr->rates.seconds,
	    vr->rates.connections, vr->rates.sessions, vr->rates.bytes,
	    vr->rates.datagrams);
	put_json_hists(t, vr, rule_hists, 4, hist_keys);
	put(t, ",\"backends\":[");
}

/* The document's start: the version, generation, time and workers. */
static void
json_head(struct text *t)
{
	struct stats_worker	w;
	int			s;

	put(t, "{\"version\":\"%s\",\"generation\":%u,\"time\":%lld,"
	    "\"workers\":[", PACKAGE_VERSION, stats_generation(),
	    (long long)time(NULL));
	for (s = 0; s < stats_slots(); s++) {
		if (!stats_read_worker(s, &w))
			continue;
		put(t, "%s{\"slot\":%d,\"pid\":%llu,\"connections\":%llu,"
		    "\"loop_iterations\":%llu}", s > 0 ? "," : "", s,
		    (unsigned long long)w.pid,
		    (unsigned long long)stats_slot_open(s),
		    (unsigned long long)w.iterations);
	}
	put(t, "],\"rules\":[");
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
		put(&s->t, ",");
	json_rule(&s->t, &s->vr);
}

static void
json_w_backend(struct stats_stream *s)
{
	if (s->j > 0)
		put(&s->t, ",");
	json_backend(&s->t, &s->vb);
}

static void
json_w_rule_end(struct stats_stream *s)
{
	put(&s->t, "]}");
}

static void
json_w_end(struct stats_stream *s)
{
	put(&s->t, "]}\n");
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
	if ((r = cursor_rule(s)) != NULL)
		stats_read_rates(r->stat, &rates);
	put(&s->t, "ferryd %s, generation %u, %d worker(s)%s; rates over the "
	    "last %.0f s\n\n", PACKAGE_VERSION, stats_generation(),
	    stats_slots(), draining_text(gens, sizeof(gens)), rates.seconds);
	put(&s->t, "%-24s %-5s %8s %8s %8s %9s %8s %8s\n", "RULE", "PROTO",
	    "OPEN", "NEW/s", "BYTES/s", "REFUSED", "LAT p50", "LAT p99");
}

/* A rule's line. */
static void
table_rule(struct text *t, const struct view_rule *vr)
{
	const struct hist	*lat;
	char			 a[24], b[24], c[24], d[24];
	bool			 udp = vr->rule->protocol == RULE_UDP;

	lat = udp && vr->rule->connect_protocol == RULE_UDP ? &vr->st.reply :
	    &vr->st.connect;
	put(t, "%-24s %-5s %8llu %8s %8s %9llu %8s %8s\n",
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
	char			 c[24], d[24];
	bool			 udp = vb->rule->protocol == RULE_UDP;

	lat = udp && vb->rule->connect_protocol == RULE_UDP ? &vb->st.reply :
	    &vb->st.connect;
	put(t, "  %-22s %-5s %8llu %8s %8s %9llu %8s %8s\n",
	    vb->label, vb->up ? "up" : "DOWN",
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
	put(&s->t, "\nOPEN: connections (UDP: sessions) open now.  NEW/s, "
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
		if ((r = cursor_rule(s)) == NULL) {
			w->end(s);
			s->phase = PH_END;
			break;
		}
		view_rule(&s->vr, r, 0, 0);
		w->rule(s);
		s->first = false;
		s->j = 0;
		s->phase = PH_RULE_BACKENDS;
		break;
	default:
		r = &s->cfg->rules[s->i];
		if (s->j == r->upstream.nbackends) {
			if (w->rule_end != NULL)
				w->rule_end(s);
			s->i++;
			s->phase = PH_RULE;
			break;
		}
		view_backend(&s->vb, s, r, &r->upstream.backends[s->j], 0, 0);
		w->backend(s);
		s->j++;
		break;
	}
}

struct stats_stream *
stats_stream_new(const struct conf *cfg, enum stats_format format)
{
	struct stats_stream *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->cfg = cfg;
	s->format = format;
	s->phase = PH_HEAD;
	s->first = true;
	s->now = clock_ms();
	return s;
}

int
stats_stream_next(struct stats_stream *s, const char **p, size_t *len)
{
	s->t.len = 0;
	while (s->phase != PH_END && s->t.len < STATS_STREAM_PIECE &&
	    !s->t.failed) {
		if (s->format == STATS_PROMETHEUS)
			prometheus_step(s);
		else
			walk_step(s, s->format == STATS_JSON ? &json_walk :
			    &table_walk);
	}
	if (s->t.failed)
		return -1;
	if (s->t.len == 0)
		return 0;
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
