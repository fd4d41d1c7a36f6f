/*
 * test_bug.c - invariants stay on in release builds: built with NDEBUG
 * (what a release build defines), a broken invariant in the daemon's own
 * code still logs "BUG at FILE:LINE" and aborts, and a kept one costs
 * nothing but its test.  Each case runs in a child, whose end is read.
 */
#include "ferryd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bug.h"
#include "event.h"
#include "event_timer.h"
#include "pool.h"
#include "testlib.h"

#ifndef NDEBUG
#error "test_bug.c is built with NDEBUG, as a release build is"
#endif

/* A buffer given back twice: the second would make the free list lie. */
static void
pool_put_twice(void)
{
	struct pool	*pool = pool_new();
	void		*b = pool_get(pool, 256);

	pool_put(pool, b, 256);
	pool_put(pool, b, 256);
}

/* A timer armed in one heap, cancelled in another. */
static void
timer_other_heap(void)
{
	struct timer_heap	a, b;
	struct event_timer	t;

	timer_heap_init(&a);
	timer_heap_init(&b);
	event_timer_init(&t, NULL, NULL);
	(void)timer_heap_arm(&a, &t, 10);
	timer_heap_cancel(&b, &t);
}

static void
kept(void)
{
	BUG_ON(1 + 1 != 2);
}

/*
 * Run fn in a child with stderr into a pipe: whether it was aborted,
 * and what it said (out, size bytes).
 */
static bool
aborted(void (*fn)(void), char *out, size_t size)
{
	int	fds[2], status;
	pid_t	pid;
	ssize_t	n;
	size_t	got = 0;

	if (pipe(fds) == -1 || (pid = fork()) == -1) {
		perror("test_bug");
		exit(99);
	}
	if (pid == 0) {
		/* The abort is the point: no core file for it. */
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
		dup2(fds[1], 2);
		close(fds[0]);
		signal(SIGABRT, SIG_DFL);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while (got + 1 < size &&
	    (n = read(fds[0], out + got, size - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) == -1)
		continue;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

int
main(void)
{
	char	said[1024];

	check(aborted(pool_put_twice, said, sizeof(said)),
	    "a buffer given back twice aborts in a release build");
	check(strstr(said, "BUG at") != NULL &&
	    strstr(said, "pool.c:") != NULL,
	    "and says where (\"%s\")", said);
	check(aborted(timer_other_heap, said, sizeof(said)),
	    "a timer cancelled in a heap it is not in aborts");
	check(strstr(said, "event_timer.c:") != NULL, "and says where "
	    "(\"%s\")", said);
	check(!aborted(kept, said, sizeof(said)) && said[0] == '\0',
	    "an invariant that holds says nothing");
	return test_summary();
}
