/*
 * stats_stream.h - what the parts of a streamed document share
 * (stats_export.c, the cursor, the views and the JSON and table
 * documents; stats_prom.c, the Prometheus exposition).  Not for the rest
 * of the daemon, which sees stats_export.h.
 */
#ifndef FERRYD_STATS_STREAM_H
#define FERRYD_STATS_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "stats.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* A document being written; failed once memory ran out. */
struct text {
	char	*p;
	size_t	 len, cap;
	bool	 failed;
};

/* What is shown of a rule: what was read of it for the step at hand. */
struct view_rule {
	const struct rule	*rule;
	struct stats_rule	 st;
	struct stats_rule_hist	 h;	/* zeros where it has none */
	struct stats_rates	 rates;
};

/* What is shown of a backend: its counters and its health. */
struct view_backend {
	const struct rule	*rule;		/* the range's first port's */
	const struct backend	*b;
	char			 label[ADDR_STRLEN + 8];
	struct stats_backend	 st;
	struct stats_backend_hist h;		/* zeros where it has none */
	uint64_t		 up;		/* 1 or 0 */
	uint64_t		 changes;
	uint64_t		 changed;	/* wall clock s; 0: never */
};

/* Where a document stands, and the buffer of its next piece. */
struct stats_stream {
	const struct rule	*rules;		/* its stats_source's */
	size_t			 nrules;
	bool			 histograms;
	int			 format;	/* enum stats_format */
	int			 phase;		/* enum phase */
	size_t			 k;		/* the family (Prometheus) */
	size_t			 i;		/* the rule, in rules[] */
	size_t			 j;		/* its backend, or route */
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
	PH_ROUTES,		/* ... route counters (routes) */
	PH_ROUTE_HISTS,
	PH_BACKENDS,		/* ... backend counters */
	PH_BACKEND_HISTS,
	PH_TAIL,		/* ... the workers and generations */
	PH_RULE,		/* JSON and the table: a rule's own part */
	PH_RULE_BACKENDS,	/* ... then its backends, one a step */
	PH_END
};

/* A histogram of each rule or backend, at off in its view. */
struct hist_family {
	const char	*name, *help;
	size_t		 off;
};

extern const struct hist_family stats_rule_hists[5], stats_backend_hists[4];

/* Append to t (printf-like, a string, a number); t->failed when full. */
void	text_put(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void	text_put_str(struct text *t, const char *s);
void	text_put_u64(struct text *t, uint64_t v);

/* The rule and backend at the cursor (NULL: past the last). */
const struct rule *stream_rule(struct stats_stream *s);
const struct backend *stream_backend(struct stats_stream *s,
    const struct rule **rp);
/* The route at the cursor (s->j of its rule), and its rule. */
const struct route *stream_route(struct stats_stream *s,
    const struct rule **rp);
/* On to family k + 1 of n (the rules' and backends' walks restart). */
void	stream_next_family(struct stats_stream *s, size_t n);
/* Read into v what the step at hand shows of b, or of r. */
void	stream_view_backend(struct view_backend *v,
    const struct stats_stream *s, const struct rule *r,
    const struct backend *b, size_t off, size_t size);
void	stream_view_rule(struct view_rule *v, const struct rule *r,
    size_t off, size_t size);

/* A counter or a histogram at off in a view. */
uint64_t view_word_at(const void *view, size_t off);
const struct hist *view_hist_at(const void *view, size_t off);

/* One step of the Prometheus exposition (stats_prom.c). */
void	stats_prom_step(struct stats_stream *s);

#endif
