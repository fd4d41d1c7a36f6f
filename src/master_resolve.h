/*
 * master_resolve.h - resolve_interval: the running configuration's names
 * looked up again, off the master's loop.  A backend whose address moved
 * moves in place, in every worker, with no new generation; only a change
 * in how many addresses a name has is applied as a reload.
 */
#ifndef FERRYD_MASTER_RESOLVE_H
#define FERRYD_MASTER_RESOLVE_H

struct master;

/* Ready the timer; once, before the first spawn. */
void	master_resolve_init(struct master *m);
/*
 * After every round: the timer follows the running configuration's
 * resolve_interval, which a reload may have set or unset.
 */
void	master_resolve_follow(struct master *m);
/*
 * Each tick: a worker whose channel was too full for moved backends is
 * sent every backend's address again.
 */
void	master_resend_backends(struct master *m);

#endif
