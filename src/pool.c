/*
 * pool.c - free lists of buffers, one per buffer size in use, and of
 * pipes for splice(2).
 *
 * Buffers are kept for reuse so that steady traffic does not call malloc;
 * beyond POOL_KEEP bytes of idle buffers per size they are freed, so a
 * burst does not pin its peak memory forever.  Pipes are kept the same
 * way (creating one costs two or three syscalls), up to POOL_PIPES.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "pool.h"

#define POOL_CLASSES 8
#define POOL_KEEP    (4 * 1024 * 1024)
#define POOL_PIPES   256
#define PIPE_SIZE    POOL_PIPE_CHUNK	/* fs.pipe-max-size's default */

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
	int               pipes[POOL_PIPES][2];
	size_t            npipes;
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
	while (pool->npipes > 0) {
		pool->npipes--;
		close(pool->pipes[pool->npipes][0]);
		close(pool->pipes[pool->npipes][1]);
	}
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

int
pool_get_pipe(struct pool *pool, int fds[2], size_t size)
{
	if (pool->npipes > 0) {
		pool->npipes--;
		fds[0] = pool->pipes[pool->npipes][0];
		fds[1] = pool->pipes[pool->npipes][1];
		return 0;
	}
#ifdef HAVE_PIPE2
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) == -1)
		return -1;
#else
	if (pipe(fds) == -1)
		return -1;
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
#endif
#ifdef F_SETPIPE_SZ
	/*
	 * A pipe holds no memory while empty, and a large one lets each
	 * splice move up to that much: 16 times fewer syscalls per byte
	 * with 1 MiB than with Linux's 64 KiB.  Failing (an unprivileged
	 * user over fs.pipe-user-pages-soft) only costs that gain.
	 */
	(void)fcntl(fds[1], F_SETPIPE_SZ, (int)(size > PIPE_SIZE ? size :
	    PIPE_SIZE));
#else
	(void)size;
#endif
	return 0;
}

void
pool_put_pipe(struct pool *pool, const int fds[2])
{
	if (pool->npipes == POOL_PIPES) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	pool->pipes[pool->npipes][0] = fds[0];
	pool->pipes[pool->npipes][1] = fds[1];
	pool->npipes++;
}
