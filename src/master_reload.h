/*
 * master_reload.h - reloads and generations: a new configuration applied
 * as a new generation of workers, the old one drained once the new one
 * is ready, UDP sessions handed over between them, names resolved again.
 */
#ifndef FERRYD_MASTER_RELOAD_H
#define FERRYD_MASTER_RELOAD_H

#include <stdbool.h>
#include <stddef.h>

struct child;
struct conf;
struct master;

/* Ready the reload machinery's timers; once, before the first spawn. */
/*
 * Say how a reload (or an upgrade) went, in the log and in the outcome
 * file that "ferryd -s reload" and the control socket read, to those in
 * m->outcome.covered.
 */
void	master_tell(struct master *m, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void	master_reload_init(struct master *m);
/*
 * Start a new generation of workers for cfg (ours from now on), if its
 * sockets can be bound; on any error the running configuration stays
 * exactly as it is, and master_tell says why.
 */
void	master_apply(struct master *m, struct conf *cfg);
/*
 * cfg, the running configuration whose backend names resolve to more or
 * fewer addresses now, applied as a reload that nobody asked for (freed
 * alone if we are stopping).  master_dispatch's, from master_resolve.c.
 */
void	master_apply_resolved(struct master *m, struct conf *cfg);

/*
 * The descriptor limit raised for cfg (fdlimit_raise), or cfg's
 * max_connections lowered to fit it, which is logged as a warning.
 * 0, or -1 with err when not even one connection fits.
 */
int	master_fit_fdlimit(struct conf *cfg, char *err, size_t errlen);
/*
 * Whether a reload is queued or under way (lookups, a generation not
 * ready, old workers still accepting): work that changes the running
 * configuration waits.
 */
bool	master_reload_busy(const struct master *m);

/*
 * SIGHUP: a reload runs when the one under way is done; it answers the
 * n requests asked (outcome.h), at once if we are stopping.
 */
void	master_reload_queue(struct master *m, const int *asked, size_t n);
/*
 * Move reloads along, after every round of the loop: once the new
 * generation accepts, tell the old one to drain; once no old worker
 * accepts any more, a queued reload may run.
 */
void	master_advance(struct master *m);
/*
 * After every round of the loop, what the workers that spoke said on
 * their channels: IPC_READY, IPC_DRAINING and the UDP sessions and
 * datagrams an old worker hands over; end of file when it exited.
 */
void	master_reload_hear(struct master *m);
/* A worker exited: read what it said before, and count its answer. */
void	master_reload_child_gone(struct master *m, struct child *c);

/*
 * Open access_log if it is new in cfg (old: the running configuration, or
 * NULL at start), close it if it went; syslog's name and facility first
 * (syslog_ident, syslog_facility).  Workers forked later inherit them.
 */
int	master_open_access_log(const struct conf *cfg, const struct conf *old,
    char *err, size_t errlen);
/*
 * The socket files of old's Unix listeners and unix: stats socket go,
 * unless cfg (NULL at a stop) keeps the same socket.
 */
void	master_socket_files_forget(const struct conf *old,
    const struct conf *cfg);
/* Free what the reload machinery holds, at the end. */
void	master_reload_free(struct master *m);

#endif
