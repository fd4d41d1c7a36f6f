/*
 * stats_export.h - what the shared counters say (stats.h), as the
 * documents the stats endpoint serves: Prometheus text (GET /metrics),
 * JSON (GET /status), and the table "ferryd -s status" prints (GET
 * /status.txt).
 */
#ifndef FERRYD_STATS_EXPORT_H
#define FERRYD_STATS_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

struct rule;

/*
 * What the documents are made of: the configuration's rules, and its
 * stats_histograms (every rule's latency histograms in /metrics).
 */
struct stats_source {
	const struct rule	*rules;
	size_t			 nrules;
	bool			 histograms;
};

enum stats_format {
	STATS_PROMETHEUS,	/* text exposition format 0.0.4 */
	STATS_JSON,
	STATS_TABLE,		/* for a terminal */
	STATS_READY		/* no counters: the host's readiness */
};

/*
 * A document being made (stats_stream_next), a piece at a time: each
 * piece is made as it is asked for, of the counters as they are then,
 * in a buffer of about STATS_STREAM_PIECE bytes that is used again for
 * the next, so its memory does not grow with the rules.
 */
struct stats_stream;

#define STATS_STREAM_PIECE	4096
/*
 * The most steps (a sample, a histogram) one piece takes: a family that
 * writes nothing for most rules (the backends' last changes) would
 * otherwise read every rule's counters in one piece, for tens of
 * milliseconds with thousands of rules, while the worker relays nothing.
 */
#define STATS_STREAM_STEPS	64

/* src's counters in format, from the start: NULL when out of memory. */
struct stats_stream *stats_stream_new(const struct stats_source *src,
    enum stats_format format);
/*
 * The next piece: 1 with *p and *len (about STATS_STREAM_PIECE bytes,
 * fewer when STATS_STREAM_STEPS ran out first, perhaps none; kept until
 * the next call), 0 once the document has ended, -1 when out of memory.
 */
int	stats_stream_next(struct stats_stream *s, const char **p,
    size_t *len);
void	stats_stream_free(struct stats_stream *s);

#endif
