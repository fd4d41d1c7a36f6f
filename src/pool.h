/*
 * pool.h - a worker's buffers: borrowed while data is in flight, given
 * back when a direction is empty, so an idle connection holds none.
 */
#ifndef FERRYD_POOL_H
#define FERRYD_POOL_H

#include <stddef.h>

struct pool;

struct pool *pool_new(void);
void         pool_free(struct pool *pool);
/* A buffer of size bytes, or NULL when memory is exhausted. */
void        *pool_get(struct pool *pool, size_t size);
/* Give back a buffer obtained with pool_get(pool, size). */
void         pool_put(struct pool *pool, void *buf, size_t size);

#endif
