/*
 * pool.h - a worker's buffers: borrowed while data is in flight, given
 * back when a direction is empty, so an idle connection holds none.
 */
#ifndef FERRYD_POOL_H
#define FERRYD_POOL_H

#include <stddef.h>

/* How much one splice(2) asks to move: what a pool pipe can hold. */
#define POOL_PIPE_CHUNK (1024 * 1024)
/* Idle pipes a pool keeps for reuse, at most. */
#define POOL_PIPES_MAX  256

struct pool;

struct pool *pool_new(void);
void         pool_free(struct pool *pool);
/* A buffer of size bytes, or NULL when memory is exhausted. */
void        *pool_get(struct pool *pool, size_t size);
/* Give back a buffer obtained with pool_get(pool, size). */
void         pool_put(struct pool *pool, void *buf, size_t size);
/*
 * Pipe memory is charged to the user, and an unprivileged user past
 * fs.pipe-user-pages-soft gets pipes of two pages that cannot be made
 * larger: splicing through them is far slower than copying.  Where the
 * process is unprivileged and that limit is set, keep this pool's pipes
 * (in use and idle) within its share of it, workers sharing the user:
 * pipes are sized to fit a useful number in the share, and when it is
 * used up pool_get_pipe() fails so that the caller copies instead.
 */
void         pool_fit_user_pipes(struct pool *pool, int workers);
/*
 * Read that limit from /proc now, while the process can (before a
 * chroot); pool_fit_user_pipes() reads it itself otherwise.
 */
void         pool_read_limits(void);
/*
 * Hold at most max pipes, in use and idle (descriptors reserved for
 * sockets are not theirs to take); past it pool_get_pipe() fails with
 * EMFILE and the caller copies.
 */
void         pool_limit_pipes(struct pool *pool, size_t max);
/*
 * A non-blocking pipe for splice(2) in fds, holding at least size bytes
 * (and 1 MiB) if the system lets us size it, or as pool_fit_user_pipes()
 * allows; -1 with errno set (EMFILE; ENOBUFS: over the pipe budget).
 */
int          pool_get_pipe(struct pool *pool, int fds[2], size_t size);
/* Give back an EMPTY pipe; one with data in it must be dropped instead. */
void         pool_put_pipe(struct pool *pool, const int fds[2]);
/* Close a pipe (it may hold data) and release its share of the budget. */
void         pool_drop_pipe(struct pool *pool, const int fds[2]);

#endif
