/*
 * pool.c - free lists of buffers, one per buffer size in use.
 *
 * Buffers are kept for reuse so that steady traffic does not call malloc;
 * beyond POOL_KEEP bytes of idle buffers per size they are freed, so a
 * burst does not pin its peak memory forever.
 */
#include "ferryd.h"

#include <stdlib.h>

#include "pool.h"

#define POOL_CLASSES 8
#define POOL_KEEP    (4 * 1024 * 1024)

struct pool_buf {
	struct pool_buf *next;
};

struct pool_class {
	size_t           size;
	size_t           nfree;
	struct pool_buf *free;
};

struct pool {
	struct pool_class classes[POOL_CLASSES];
};

struct pool *
pool_new(void)
{
	return calloc(1, sizeof(struct pool));
}

void
pool_free(struct pool *pool)
{
	struct pool_buf *b;
	int              i;

	if (pool == NULL)
		return;
	for (i = 0; i < POOL_CLASSES; i++)
		while ((b = pool->classes[i].free) != NULL) {
			pool->classes[i].free = b->next;
			free(b);
		}
	free(pool);
}

/* The class for size, claiming an unused one if needed; NULL if full. */
static struct pool_class *
pool_class(struct pool *pool, size_t size)
{
	int i;

	for (i = 0; i < POOL_CLASSES; i++) {
		if (pool->classes[i].size == size)
			return &pool->classes[i];
		if (pool->classes[i].size == 0) {
			pool->classes[i].size = size;
			return &pool->classes[i];
		}
	}
	return NULL;
}

void *
pool_get(struct pool *pool, size_t size)
{
	struct pool_class *c = pool_class(pool, size);
	struct pool_buf   *b;

	if (c == NULL || c->free == NULL)
		return malloc(size);
	b = c->free;
	c->free = b->next;
	c->nfree--;
	return b;
}

void
pool_put(struct pool *pool, void *buf, size_t size)
{
	struct pool_class *c = pool_class(pool, size);
	struct pool_buf   *b = buf;

	if (c == NULL || (c->nfree + 1) * size > POOL_KEEP) {
		free(buf);
		return;
	}
	b->next = c->free;
	c->free = b;
	c->nfree++;
}
