/*
 * master_sessions.h - "show sessions": the workers' connections and UDP
 * sessions, gathered from every worker of every generation without
 * waiting for any (master_sessions.c).
 */
#ifndef FERRYD_MASTER_SESSIONS_H
#define FERRYD_MASTER_SESSIONS_H

#include <stddef.h>

struct child;
struct ipc_msg;
struct master;
struct sessions_ask;

/* Lines shown when the command names no limit, and how long it waits. */
#define SESSIONS_LIMIT_DEFAULT	1000
#define SESSIONS_WAIT_MS	1000

/* A line of the answer (len bytes, no newline), as it comes. */
typedef void sessions_line(void *arg, const char *text, size_t len);
/* The answer is whole: the last lines said what was missing. */
typedef void sessions_done(void *arg);

/*
 * Ask every worker for the sessions of rule (NULL: all), at most limit
 * lines (1 to IPC_SESSIONS_MAX), each given to line(arg, ...) as it
 * comes; then done(arg), from the loop's timers once each worker
 * answered or at SESSIONS_WAIT_MS, never before this returns.  NULL: no
 * memory.
 */
struct sessions_ask *master_sessions_ask(struct master *m, const char *rule,
    size_t limit, sessions_line *line, sessions_done *done, void *arg);
/*
 * A binary upgrade is about to exec: every ask under way is answered now
 * with what came, the workers that had not answered named as cut short.
 */
void	master_sessions_cut(struct master *m);
/* The asker is gone: a is forgotten, done is not called. */
void	master_sessions_cancel(struct master *m, struct sessions_ask *a);
/* A part of c's answer (IPC_SESSIONS_PART). */
void	master_sessions_part(struct master *m, const struct child *c,
    const struct ipc_msg *msg);
/* c exited (or its channel closed): it will not answer. */
void	master_sessions_gone(struct master *m, const struct child *c);

#endif
