/*
 * checker.h - the health checker: one process, forked and supervised by
 * the master like a worker and as unprivileged, that probes every
 * backend of every rule with health_check once per interval (never once
 * per worker) and writes up or down in the health table (health.h),
 * where every worker reads it.  State changes are logged once.
 */
#ifndef FERRYD_CHECKER_H
#define FERRYD_CHECKER_H

#include <sys/types.h>

struct conf;

/* Probes in flight at once, at most; the others wait their turn. */
#define CHECKER_INFLIGHT_MAX	64
/* expect must be in the first this many bytes of a reply. */
#define CHECKER_REPLY_MAX	1024

/* Whether any rule of cfg has active health checks. */
bool	checker_needed(const struct conf *cfg);

/*
 * Run the checker for cfg: drop privileges, probe until SIGTERM or until
 * chan (its end of a lifeline to the master) reaches end of file.
 * Never returns.
 */
void	checker_run(const struct conf *cfg, int chan, pid_t master)
    __attribute__((noreturn));

#endif
