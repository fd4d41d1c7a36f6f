/*
 * master_control.h - the control socket (control_socket): commands to
 * the master, one a line, each answered up to "ok" or "error: ...".
 */
#ifndef FERRYD_MASTER_CONTROL_H
#define FERRYD_MASTER_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#include "master_state.h"

struct conf;
struct master;

/*
 * Serve cfg's control_socket from now on (at start and at each reload):
 * the same path keeps its socket (its mode and group set again), another
 * replaces it, none closes it.  -1 with err, the old one kept.
 */
int	master_control_open(struct master *m, const struct conf *cfg,
    char *err, size_t errlen);
/* Close it and every client, and remove its file (a stop). */
void	master_control_close(struct master *m);
/*
 * After every round: a reload's control settings applied, and the
 * clients whose reload has an outcome answered.
 */
void	master_control_follow(struct master *m);
/*
 * The host drained (/ready 503) or ready again, said by who ("control,
 * uid 0", "SIGUSR2"): logged and kept in state_file.
 */
void	master_host_drain(struct master *m, bool drain, const char *who);
/*
 * Before a binary upgrade's exec, which closes every control connection
 * but the asker's (the listening socket crosses it, master_control_adopt):
 * CONTROL_EXEC_WAIT stops accepting (new clients wait in the backlog for
 * the new image) and says whether answers are still under way: a show
 * sessions waiting for the workers (at most SESSIONS_WAIT_MS), an answer
 * not yet written, or a client accepted less than SESSIONS_WAIT_MS ago
 * whose first command has not come.  CONTROL_EXEC_CUT answers the show
 * sessions under way at once with what came (master_sessions_cut),
 * written as far as the sockets take them, and logs what the exec loses.
 * CONTROL_EXEC_RESUME: the upgrade failed, accept again.
 */
bool	master_control_before_exec(struct master *m, enum control_exec what);
/*
 * The listening control socket fd at path, which crossed an upgrade's
 * exec: served from now on (master_control_open then keeps it), so that
 * the clients that connected meanwhile are answered.  -1 when fd is not
 * a listening Unix socket bound to path (then it is left alone), or when
 * m->cfg names another control socket or none (then it is closed).
 */
int	master_control_adopt(struct master *m, int fd, const char *path);
/* The descriptor of the client waiting for the outcome of token, or -1. */
int	master_control_waiting(const struct master *m, int token);

#endif
