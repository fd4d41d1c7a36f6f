/*
 * pool.h - a worker's buffers: borrowed while data is in flight, given
 * back when a direction is empty, so an idle connection holds none.
 */
#ifndef FERRYD_POOL_H
#define FERRYD_POOL_H

#include <stddef.h>

/* How much one splice(2) asks to move: what a pool pipe can hold. */
#define POOL_PIPE_CHUNK (1024 * 1024)

struct pool;

struct pool *pool_new(void);
void         pool_free(struct pool *pool);
/* A buffer of size bytes, or NULL when memory is exhausted. */
void        *pool_get(struct pool *pool, size_t size);
/* Give back a buffer obtained with pool_get(pool, size). */
void         pool_put(struct pool *pool, void *buf, size_t size);
/*
 * A non-blocking pipe for splice(2) in fds, holding at least size bytes
 * (and 1 MiB) if the system lets us size it; -1 with errno set (EMFILE).
 */
int          pool_get_pipe(struct pool *pool, int fds[2], size_t size);
/* Give back an EMPTY pipe; one with data in it must be closed instead. */
void         pool_put_pipe(struct pool *pool, const int fds[2]);

#endif
