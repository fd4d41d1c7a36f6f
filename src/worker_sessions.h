/*
 * worker_sessions.h - a worker's answers to "show sessions"
 * (IPC_SESSIONS): a snapshot at once, the lines a part at a time.
 */
#ifndef FERRYD_WORKER_SESSIONS_H
#define FERRYD_WORKER_SESSIONS_H

#include <stddef.h>

struct event_loop;
struct ipc_msg;
struct rule;
struct tcp_sessions;
struct udp_sessions;
struct worker_sessions;

/*
 * Answers for the worker of slot in generation gen (said in each line),
 * whose configuration has nrules rules, whose connections are ts's and
 * whose UDP sessions are us's.  NULL: no memory.
 */
struct worker_sessions *worker_sessions_new(struct event_loop *loop,
    const struct rule *rules, size_t nrules, unsigned gen, int slot,
    const struct tcp_sessions *ts, const struct udp_sessions *us);

/*
 * The master asks (msg, read on chan): the sessions are copied now, and
 * chan is watched for writing (its handler calls worker_sessions_send)
 * until every answer is out.
 */
void	worker_sessions_ask(struct worker_sessions *ws, int chan,
    const struct ipc_msg *msg);

/* chan can be written: the next part of the first answer, if any. */
void	worker_sessions_send(struct worker_sessions *ws, int chan);

/* The channel is gone: the answers are dropped. */
void	worker_sessions_drop(struct worker_sessions *ws);

#endif
