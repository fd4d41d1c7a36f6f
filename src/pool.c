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
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bug.h"
#include "log.h"
#include "pool.h"

#define POOL_CLASSES 8
#define POOL_KEEP    (4 * 1024 * 1024)
#define POOL_PIPES   POOL_PIPES_MAX
#define PIPE_SIZE    POOL_PIPE_CHUNK	/* fs.pipe-max-size's default */
#define PIPE_PAGE    4096
/*
 * Under a pipe budget: size pipes so that this many fit in it, within
 * 64 KiB (Linux's default pipe) and PIPE_SIZE; keep this many pages of
 * the user's share for the process's other pipes (signals, channels).
 */
#define BUDGET_PIPES   128
#define BUDGET_MARGIN  64

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
	bool              pipe_limit;	/* max_pipes applies */
	size_t            max_pipes;	/* pipes we may hold */
	size_t            nheld;	/* pipes we hold, in use and idle */
	size_t            budget;	/* pipe pages we may hold; 0: no limit */
	size_t            held;		/* pages of our pipes, in use and idle */
	size_t            pipe_size;	/* bytes per pipe under a budget */
	struct log_episode no_memory;	/* buffers malloc() refused */
	size_t		   refused;	/* the least size refused, or 0 */
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
	uint64_t           failed;
	int64_t            ms;

	if (c == NULL || c->free == NULL) {
		/*
		 * Out of memory (an address space limit, overcommit off): the
		 * connection that asked is reset, the others go on.  Said
		 * once, and with the count when memory is back: when a size
		 * that was refused is had again (a small block, a session,
		 * may fit where buffers do not).
		 */
		if ((b = malloc(size)) == NULL) {
			log_episode_hit(&pool->no_memory, "out of memory for "
			    "a %zu-byte buffer: connections that need one are "
			    "reset until memory is free", size);
			if (pool->refused == 0 || size < pool->refused)
				pool->refused = size;
		} else if (size >= pool->refused && (failed =
		    log_episode_end(&pool->no_memory, &ms)) > 0) {
			pool->refused = 0;
			log_notice("memory for buffers is back after %.1f s; "
			    "%llu buffer(s) could not be had, their "
			    "connections reset", (double)ms / 1000,
			    (unsigned long long)failed);
		}
		return b;
	}
	b = c->free;
	BUG_ON(c->nfree == 0);
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
	BUG_ON(b == c->free);	/* the same buffer given back twice */
	b->next = c->free;
	c->free = b;
	c->nfree++;
}

/* The system's soft pipe limit per user, in pages; 0 if none. */
static unsigned long pipe_pages_soft;
static bool          pipe_pages_read;

void
pool_read_limits(void)
{
	FILE *fp;

	pipe_pages_read = true;
	if ((fp = fopen("/proc/sys/fs/pipe-user-pages-soft", "r")) == NULL)
		return;
	if (fscanf(fp, "%lu", &pipe_pages_soft) != 1)
		pipe_pages_soft = 0;
	fclose(fp);
}

/* Pages of the soft pipe limit of an unprivileged user, or 0 if none. */
static size_t
user_pipe_pages(void)
{
	if (geteuid() == 0)
		return 0;	/* root is not charged (CAP_SYS_RESOURCE) */
	if (!pipe_pages_read)
		pool_read_limits();
	return pipe_pages_soft;
}

void
pool_fit_user_pipes(struct pool *pool, int workers)
{
	size_t pages = user_pipe_pages(), per_pipe;

	if (pages == 0 || workers < 1)
		return;
	pages /= (size_t)workers;
	pool->budget = pages > 2 * BUDGET_MARGIN ? pages - BUDGET_MARGIN :
	    pages / 2;
	per_pipe = pool->budget / BUDGET_PIPES;
	if (per_pipe < 16)
		per_pipe = 16;
	if (per_pipe > PIPE_SIZE / PIPE_PAGE)
		per_pipe = PIPE_SIZE / PIPE_PAGE;
	/* F_SETPIPE_SZ rounds up to a power of two pages: stay below. */
	while (per_pipe & (per_pipe - 1))
		per_pipe &= per_pipe - 1;
	pool->pipe_size = per_pipe * PIPE_PAGE;
}

void
pool_limit_pipes(struct pool *pool, size_t max)
{
	pool->pipe_limit = true;
	pool->max_pipes = max;
}

/* The pages a budgeted pool's pipe holds. */
static size_t
pipe_pages(const struct pool *pool)
{
	return pool->pipe_size / PIPE_PAGE;
}

int
pool_get_pipe(struct pool *pool, int fds[2], size_t size)
{
	int want;

	/* idle pipes are held ones: what the limits count */
	BUG_ON(pool->npipes > pool->nheld);
	if (pool->npipes > 0) {
		pool->npipes--;
		fds[0] = pool->pipes[pool->npipes][0];
		fds[1] = pool->pipes[pool->npipes][1];
		return 0;
	}
	if (pool->pipe_limit && pool->nheld >= pool->max_pipes) {
		errno = EMFILE;
		return -1;
	}
	if (pool->budget > 0 && pool->held + pipe_pages(pool) > pool->budget) {
		errno = ENOBUFS;
		return -1;
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
	want = (int)(pool->budget > 0 ? pool->pipe_size :
	    size > PIPE_SIZE ? size : PIPE_SIZE);
#ifdef F_SETPIPE_SZ
	/*
	 * A pipe holds no memory while empty, and a large one lets each
	 * splice move up to that much: 16 times fewer syscalls per byte
	 * with 1 MiB than with Linux's 64 KiB.  Without a budget, failing
	 * only costs that gain.  Under one, it means the user is over its
	 * soft limit and the pipe has two pages: copying beats that.
	 */
	if (fcntl(fds[1], F_SETPIPE_SZ, want) == -1 && pool->budget > 0) {
		close(fds[0]);
		close(fds[1]);
		errno = ENOBUFS;
		return -1;
	}
#else
	(void)want;
#endif
	if (pool->budget > 0)
		pool->held += pipe_pages(pool);
	pool->nheld++;
	return 0;
}

void
pool_drop_pipe(struct pool *pool, const int fds[2])
{
	/* A pipe given back twice, or never taken: the counts would lie. */
	BUG_ON(pool->nheld == 0);
	close(fds[0]);
	close(fds[1]);
	if (pool->budget > 0) {
		BUG_ON(pool->held < pipe_pages(pool));
		pool->held -= pipe_pages(pool);
	}
	pool->nheld--;
}

void
pool_put_pipe(struct pool *pool, const int fds[2])
{
	if (pool->npipes == POOL_PIPES) {
		pool_drop_pipe(pool, fds);
		return;
	}
	BUG_ON(pool->npipes >= pool->nheld);	/* one we did not hand out */
	pool->pipes[pool->npipes][0] = fds[0];
	pool->pipes[pool->npipes][1] = fds[1];
	pool->npipes++;
}
