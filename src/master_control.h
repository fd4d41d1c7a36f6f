/*
 * master_control.h - the control socket (control_socket): commands to
 * the master, one a line, each answered up to "ok" or "error: ...".
 */
#ifndef FERRYD_MASTER_CONTROL_H
#define FERRYD_MASTER_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

struct conf;
struct master;

/*
 * Serve cfg's control_socket from now on (at start and at each reload):
 * the same path keeps its socket (its mode and group set again), another
 * replaces it, none closes it.  -1 with err, the old one kept.
 */
int	master_control_open(struct master *m, const struct conf *cfg,
    char *err, size_t errlen);
/*
 * In a new child of the master: close its copies of the socket and of
 * every client's connection (a client would otherwise never see its
 * end), touching nothing of the master's.
 */
void	master_control_forget(struct master *m);
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
 * but the asker's: whether answers are still under way (a show sessions
 * waiting for the workers, at most SESSIONS_WAIT_MS, or an answer not
 * yet written).  With cut, the show sessions under way are answered at
 * once with what came (master_sessions_cut) and written as far as the
 * sockets take them; what still waits after that is logged.
 */
bool	master_control_before_exec(struct master *m, bool cut);
/* The descriptor of the client waiting for the outcome of token, or -1. */
int	master_control_waiting(const struct master *m, int token);

#endif
