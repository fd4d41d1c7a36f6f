/*
 * master_child.h - the master's children: workers in their slots and the
 * health checker, started, watched, replaced with backoff, ended.
 */
#ifndef FERRYD_MASTER_CHILD_H
#define FERRYD_MASTER_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct master;
struct child;
struct conf;
struct slot;

/*
 * fd (-1: none) is the master's own, or no longer: a new child closes
 * every such descriptor.  Called after it is opened, before it is
 * closed; unknown descriptors are ignored.
 */
void	master_own_fd(struct master *m, int fd);
void	master_disown_fd(struct master *m, int fd);

/*
 * Slots for n workers, each with its respawn timer; NULL when out of
 * memory.  master_slots_set() makes them m's, freeing the last ones
 * (NULL, 0: at the end).
 */
struct slot *master_slots_new(struct master *m, int n);
void	master_slots_set(struct master *m, struct slot *slots, int n);

/*
 * The budgets of generation m->gen, before its workers are forked: the
 * UDP sessions each worker of cfg may hold (fdlimit.h), logged when it
 * changes, and each rule's rule_rate_limit cell (rate_table.h).
 */
void	master_set_budgets(struct master *m, struct conf *cfg);

/* Start a worker of the current generation for slot. */
void	master_spawn(struct master *m, int slot);
/* Start the health checker for the current configuration, if it needs one. */
void	master_spawn_checker(struct master *m);
/* Stop the checker (a reload starts the next generation's). */
void	master_stop_checker(struct master *m, int signo);
/*
 * If pid was the checker's: it is replaced (unless we are stopping) and
 * true is returned.
 */
bool	master_reap_checker(struct master *m, pid_t pid, int status);

/* The worker whose process is pid, or NULL. */
struct child *master_child_find(struct master *m, pid_t pid);
/*
 * A reaped worker leaves: off the list, its channel closed, its
 * scoreboard cell and its clients' counts given back.  The caller frees
 * it with master_child_free() once it has said how it ended.
 */
void	master_child_remove(struct master *m, struct child *c);
void	master_child_free(struct master *m, struct child *c);
/* Close c's end of its channel: it exited, or no longer answers. */
void	master_child_close_chan(struct master *m, struct child *c);
/* A worker of the current generation died: schedule its replacement. */
void	master_schedule_respawn(struct master *m, const struct child *c,
    int status);
/* How process pid ended, for a log line; with the call a filter stopped. */
/*
 * An upgrade: the old image's worker pid of generation gen, a child of
 * ours, whose channel is chan; NULL without memory.
 */
struct child *master_child_adopt(struct master *m, pid_t pid, int slot,
    unsigned gen, int chan);

void	master_describe_exit(pid_t pid, int status, char *buf, size_t len);

/* Send signo to every child, the checker included. */
void	master_signal_children(struct master *m, int signo);
/* Whether a worker of generation gen is still running (for stats.h). */
bool	master_generation_alive(unsigned gen, void *arg);
/*
 * Kill the workers of the current generation whose heartbeat is older
 * than watchdog_timeout, steering new connections around their slots.
 */
void	master_watchdog(struct master *m, int64_t now);

#endif
