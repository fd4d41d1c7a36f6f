/*
 * stats_export.h - what the shared counters say (stats.h), as the
 * documents the stats endpoint serves: Prometheus text (GET /metrics),
 * JSON (GET /status), and the table "ferryd -s status" prints (GET
 * /status.txt).
 */
#ifndef FERRYD_STATS_EXPORT_H
#define FERRYD_STATS_EXPORT_H

#include <stddef.h>

struct conf;

enum stats_format {
	STATS_PROMETHEUS,	/* text exposition format 0.0.4 */
	STATS_JSON,
	STATS_TABLE		/* for a terminal */
};

/*
 * cfg's counters as they are now, in format: a malloc'd document in
 * *out, *len bytes.  0, or -1 (out of memory).
 */
int	stats_render(const struct conf *cfg, enum stats_format format,
    char **out, size_t *len);

#endif
