/*
 * sig.h - signals turned into events: a handler that only records the
 * signal and writes a byte to a pipe the event loop watches.
 */
#ifndef FERRYD_SIG_H
#define FERRYD_SIG_H

#include <stddef.h>

/* Create the self-pipe (again, after fork, so each process has its own). */
int  sig_open(void);
void sig_close(void);
/* Read end of the pipe: readable when a caught signal arrived. */
int  sig_fd(void);
/* Catch signo from now on; the handler records it for sig_take(). */
int  sig_catch(int signo);
/* sig_open(), then catch each of the n signals; 0 or -1. */
int  sig_open_catching(const int *signals, size_t n);
/* Restore the default action, or ignore. */
void sig_default(int signo);
void sig_ignore(int signo);
/* Empty the pipe; call before looking at the flags. */
void sig_drain(void);
struct event_loop;
/*
 * An event callback for sig_fd() that only empties the pipe: for a loop
 * that looks at the flags after each turn.
 */
void sig_on_readable(struct event_loop *loop, int fd, int events,
    void *data);
/*
 * The values that came with signo by sigqueue(3) since the last call, at
 * most max into out; those of other signals wait for their own call.  Call
 * before sig_take(signo).
 */
size_t sig_take_values(int signo, int *out, size_t max);
/* 1 if signo arrived since the last call (and forget it), else 0. */
int  sig_take(int signo);
/* Block or unblock every signal we catch (around fork). */
void sig_block_all(int block);
/*
 * A child of the master (worker, health checker): a pipe of its own;
 * SIGTERM, SIGINT and SIGQUIT caught; SIGHUP, SIGUSR1 and SIGUSR2 (the
 * master's to act on; SIGUSR2 caught in a debug build) and SIGPIPE ignored; SIGCHLD as by default; signals
 * unblocked.  0, or -1 with errno.
 */
int  sig_child_setup(void);

#endif
