/*
 * master_upgrade_check.h - the upgrade's "NEW -t", a child the master's
 * loop watches instead of waiting for it.
 */
#ifndef FERRYD_MASTER_UPGRADE_CHECK_H
#define FERRYD_MASTER_UPGRADE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct event_loop;

/*
 * The check is over: out (what it wrote, at most max bytes and a NUL;
 * free() it), its wait status, or timed_out when max_ms ran out first
 * (it was killed).
 */
typedef void upgrade_check_done_fn(char *out, int status, bool timed_out,
    void *arg);

/*
 * Run argv (argv[0] the binary) with env set to "1", its output read on
 * loop; done(..., arg) when it is over.  -1 with err when it cannot
 * start (done is not called then).
 */
int	upgrade_check_start(struct event_loop *loop, char *const argv[],
    const char *env, size_t max, int max_ms, upgrade_check_done_fn *done,
    void *arg, char *err, size_t errlen);
bool	upgrade_check_busy(void);
/* The master reaped pid, with status: the check's child, perhaps. */
void	upgrade_check_reaped(pid_t pid, int status);
/* Forget the check under way, killing its child; done is not called. */
void	upgrade_check_cancel(void);

#endif
