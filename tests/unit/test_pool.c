/*
 * test_pool.c - unit tests of the worker's pool: buffers come back from
 * a free list by size, pipes are reused while idle, a pipe limit makes
 * pool_get_pipe fail with EMFILE until one is given back or dropped, a
 * pipe is made as large as asked, and an unprivileged pool stays inside
 * its share of fs.pipe-user-pages-soft (ENOBUFS past it) with pipes that
 * have the size it planned.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pool.h"
#include "testlib.h"

static void
test_buffers(void)
{
	struct pool	*pool = pool_new();
	void		*a, *b, *c;

	a = pool_get(pool, 4096);
	b = pool_get(pool, 16384);
	check(a != NULL && b != NULL && a != b, "buffers of two sizes");
	memset(a, 1, 4096);
	memset(b, 2, 16384);
	pool_put(pool, a, 4096);
	pool_put(pool, b, 16384);
	c = pool_get(pool, 16384);
	check(c == b, "a buffer given back is handed out again, by size");
	pool_put(pool, c, 16384);
	c = pool_get(pool, 4096);
	check(c == a, "... and the other size keeps its own");
	pool_put(pool, c, 4096);
	pool_free(pool);
}

static int
pipe_size(int fd)
{
#ifdef F_GETPIPE_SZ
	return fcntl(fd, F_GETPIPE_SZ);
#else
	(void)fd;
	return -1;
#endif
}

static void
test_pipe_limit(void)
{
	struct pool	*pool = pool_new();
	int		 p[3][2], q[2];

	pool_limit_pipes(pool, 2);
	check(pool_get_pipe(pool, p[0], 4096) == 0 &&
	    pool_get_pipe(pool, p[1], 4096) == 0, "two pipes within a limit "
	    "of two");
	errno = 0;
	check(pool_get_pipe(pool, p[2], 4096) == -1 && errno == EMFILE,
	    "a third fails with EMFILE: the caller copies instead");
#ifdef F_GETPIPE_SZ
	check(pipe_size(p[0][1]) >= POOL_PIPE_CHUNK || geteuid() != 0,
	    "a pipe holds POOL_PIPE_CHUNK (%d bytes)", pipe_size(p[0][1]));
#endif
	pool_put_pipe(pool, p[0]);
	check(pool_get_pipe(pool, q, 4096) == 0 && q[0] == p[0][0] &&
	    q[1] == p[0][1], "an idle pipe given back is reused");
	errno = 0;
	check(pool_get_pipe(pool, p[2], 4096) == -1 && errno == EMFILE,
	    "in use again: still at the limit");
	/* A pipe that may hold bytes is dropped, which frees its place. */
	(void)write(q[1], "x", 1);
	pool_drop_pipe(pool, q);
	check(fcntl(q[0], F_GETFD) == -1 && pool_get_pipe(pool, p[2],
	    4096) == 0, "a dropped pipe is closed and frees its place");
	pool_drop_pipe(pool, p[1]);
	pool_drop_pipe(pool, p[2]);
	pool_free(pool);
}

/*
 * As an unprivileged user with a soft pipe limit: how many pipes a pool
 * of one worker gets, and how large.  Runs in a child that drops to
 * nobody; the parent checks what it reports.
 */
static void
test_user_budget(void)
{
	struct passwd	*pw = getpwnam("nobody");
	FILE		*fp;
	unsigned long	 soft = 0;
	int		 rep[2], status, n = 0, size = 0, err = 0;
	pid_t		 pid;

	if ((fp = fopen("/proc/sys/fs/pipe-user-pages-soft", "r")) != NULL) {
		if (fscanf(fp, "%lu", &soft) != 1)
			soft = 0;
		fclose(fp);
	}
	if (pw == NULL || geteuid() != 0 || soft == 0 || pipe(rep) == -1) {
		printf("# skipped: the pipe budget needs root, nobody and "
		    "fs.pipe-user-pages-soft\n");
		return;
	}
	if ((pid = fork()) == 0) {
		struct pool	*pool;
		int		 fds[2], got[3] = { 0, 0, 0 };

		close(rep[0]);
		if (setgid(pw->pw_gid) == -1 || setuid(pw->pw_uid) == -1)
			_exit(2);
		pool = pool_new();
		pool_fit_user_pipes(pool, 1);
		while (got[0] < 100000 &&
		    pool_get_pipe(pool, fds, 1 << 20) == 0)
			if (got[0]++ == 0)
				got[1] = pipe_size(fds[1]);
		got[2] = errno;
		(void)write(rep[1], got, sizeof(got));
		_exit(0);
	}
	close(rep[1]);
	{
		int got[3] = { 0, 0, 0 };

		if (read(rep[0], got, sizeof(got)) == (ssize_t)sizeof(got)) {
			n = got[0];
			size = got[1];
			err = got[2];
		}
	}
	close(rep[0]);
	waitpid(pid, &status, 0);
	check(n > 0 && err == ENOBUFS, "as nobody: %d pipes, then ENOBUFS "
	    "(%s)", n, strerror(err));
	check(size > 0 && (unsigned long)n * (unsigned long)size / 4096 <=
	    soft, "as nobody: %d pipes of %d bytes stay within the soft limit "
	    "of %lu pages", n, size, soft);
}

int
main(void)
{
	test_buffers();
	test_pipe_limit();
	test_user_budget();
	return test_summary();
}
