/*
 * test_event.c - unit tests of the event loop, run against every backend:
 * readiness is delivered for what is watched and only that, masks change
 * and stop, the timer fires, a descriptor watched after a wait got no
 * stale event from that wait; EV_EDGE descriptors hear each change once
 * (epoll) or level-triggered (poll), with EV_RDHUP and EV_EXCEPT; and
 * event_defer runs a handler again without waiting.
 */
#include "ferryd.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "event.h"
#include "testlib.h"

struct seen {
	int fd;
	int events;
	int calls;
};

static void
record(struct event_loop *loop, int fd, int events, void *data)
{
	struct seen *s = data;

	(void)loop;
	s->fd = fd;
	s->events |= events;
	s->calls++;
}

static void
on_timer(struct event_timer *t, void *data)
{
	(void)t;
	(*(int *)data)++;
}

/* A handler that closes the other pipe and watches a new descriptor in
 * its place, the way an accept can reuse a just-closed number. */
struct swap {
	int         *victim;	/* read end to close */
	int          newfd;
	int          newpipe[2];
	struct seen *newseen;
};

static void
close_and_reuse(struct event_loop *loop, int fd, int events, void *data)
{
	struct swap *sw = data;

	(void)fd;
	(void)events;
	event_set(loop, *sw->victim, 0, NULL, NULL);
	close(*sw->victim);
	/* The lowest free number: the one just closed. */
	if (pipe(sw->newpipe) == -1)
		return;
	sw->newfd = sw->newpipe[0];
	*sw->victim = sw->newfd;
	event_set(loop, sw->newfd, EV_READ, record, sw->newseen);
}

static void
test_backend(const char *name)
{
	struct event_loop *loop;
	struct seen        a = { -1, 0, 0 }, b = { -1, 0, 0 };
	struct swap        sw;
	struct event_timer timer;
	char               err[256];
	int                p[2], q[2], ticks = 0, n, oldfd;

	loop = event_loop_new(name, 1024, err, sizeof(err));
	check(loop != NULL, "%s: loop created (%s)", name,
	    loop ? event_loop_backend(loop) : err);
	if (loop == NULL)
		return;
	if (pipe(p) == -1 || pipe(q) == -1)
		return;

	event_set(loop, p[0], EV_READ, record, &a);
	event_set(loop, p[1], EV_WRITE, record, &b);
	n = event_loop_run_once(loop);
	check(n == 1 && b.calls == 1 && b.events == EV_WRITE && a.calls == 0,
	    "%s: only the writable end is reported", name);

	event_mask(loop, p[1], 0);
	(void)write(p[1], "x", 1);
	a.calls = b.calls = 0;
	n = event_loop_run_once(loop);
	check(n == 1 && a.calls == 1 && a.events == EV_READ && b.calls == 0,
	    "%s: data makes the read end ready; unwatched end silent", name);
	check(event_get_mask(loop, p[1]) == 0, "%s: mask 0 recorded", name);

	event_timer_init(&timer, on_timer, &ticks);
	event_timer_arm(loop, &timer, event_now(loop) + 20);
	event_mask(loop, p[0], 0);
	n = event_loop_run_once(loop);
	check(n == 1 && ticks == 1, "%s: timer fires with nothing ready", name);

	/*
	 * q[0] and p[0] both ready, q[0] reported first; q[0]'s handler
	 * closes p[0] and watches a new descriptor with the same number.
	 */
	(void)write(q[1], "y", 1);
	sw.victim = &p[0];
	sw.newseen = &b;
	event_set(loop, q[0], EV_READ, close_and_reuse, &sw);
	event_mask(loop, p[0], EV_READ);	/* p[0] still has the "x" */
	a.calls = b.calls = 0;
	oldfd = p[0];
	n = event_loop_run_once(loop);
	check(n == 2 && sw.newfd == oldfd && a.calls == 0 && b.calls == 0,
	    "%s: no stale event for a reused descriptor (fd %d)", name, oldfd);

	event_set(loop, q[0], 0, NULL, NULL);
	event_set(loop, p[0], 0, NULL, NULL);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	close(sw.newpipe[1]);
	event_loop_free(loop);
}

/* One round, bounded by a 20 ms timer so that "nothing" cannot block. */
static int
run_bounded(struct event_loop *loop)
{
	static int         ticks;
	struct event_timer timer;
	int                n;

	event_timer_init(&timer, on_timer, &ticks);
	event_timer_arm(loop, &timer, event_now(loop) + 20);
	n = event_loop_run_once(loop);
	/* Count descriptors only: the timer fired if nothing else did. */
	if (!event_timer_armed(&timer))
		n--;
	event_timer_cancel(loop, &timer);
	return n;
}

static void
test_edge(const char *name)
{
	struct event_loop *loop;
	struct seen        a = { -1, 0, 0 };
	char               err[256], buf[8];
	int                sv[2], edge;

	loop = event_loop_new(name, 1024, err, sizeof(err));
	if (loop == NULL || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1) {
		check(0, "%s: edge test set up: %s", name,
		    loop == NULL ? err : strerror(errno));
		return;
	}
	edge = strcmp(event_loop_backend(loop), "epoll") == 0;

	event_set(loop, sv[0], EV_EDGE | EV_READ, record, &a);
	(void)write(sv[1], "abc", 3);
	run_bounded(loop);
	check(a.calls == 1 && (a.events & EV_READ),
	    "%s: EV_EDGE: data reported (events %#x)", name, a.events);

	/* Not read: an edge is told once, a level again. */
	a.calls = a.events = 0;
	run_bounded(loop);
	check(edge ? a.calls == 0 : a.calls == 1 && a.events == EV_READ,
	    "%s: EV_EDGE: unread data %s", name,
	    edge ? "not reported twice" : "reported again (level)");

	/* A mask without EV_READ still hears new edges on epoll. */
	event_mask(loop, sv[0], EV_EDGE);
	(void)write(sv[1], "d", 1);
	a.calls = a.events = 0;
	run_bounded(loop);
	check(edge ? a.calls == 1 && (a.events & EV_READ) : a.calls == 0,
	    "%s: EV_EDGE: new data with mask EV_EDGE %s", name,
	    edge ? "reported" : "not watched (poll)");

	/* The peer's FIN: EV_RDHUP on epoll, and no exception. */
	event_mask(loop, sv[0], EV_EDGE | EV_READ);
	(void)read(sv[0], buf, sizeof(buf));
	shutdown(sv[1], SHUT_WR);
	a.calls = a.events = 0;
	run_bounded(loop);
	check(a.calls == 1 && (a.events & EV_READ) && !(a.events & EV_EXCEPT) &&
	    (edge ? (a.events & EV_RDHUP) != 0 : 1),
	    "%s: EV_EDGE: FIN reported (events %#x)", name, a.events);

	/* The peer gone entirely: a hangup, EV_EXCEPT. */
	close(sv[1]);
	a.calls = a.events = 0;
	run_bounded(loop);
	check(a.calls == 1 && (a.events & EV_EXCEPT),
	    "%s: EV_EDGE: hangup is EV_EXCEPT (events %#x)", name, a.events);

	event_close(loop, sv[0]);
	close(sv[0]);
	event_loop_free(loop);
}

/* Defers itself data->calls < 3 times. */
static void
defer_again(struct event_loop *loop, int fd, int events, void *data)
{
	struct seen *s = data;

	s->events |= events;
	if (++s->calls < 3)
		event_defer(loop, fd);
}

static void
test_defer(const char *name)
{
	struct event_loop *loop;
	struct seen        a = { -1, 0, 0 }, b = { -1, 0, 0 };
	char               err[256];
	int                p[2], q[2], n, rounds;

	loop = event_loop_new(name, 1024, err, sizeof(err));
	if (loop == NULL || pipe(p) == -1 || pipe(q) == -1) {
		check(0, "%s: defer test set up: %s", name,
		    loop == NULL ? err : strerror(errno));
		return;
	}
	/* Watched for reading, never ready: only event_defer calls it. */
	event_set(loop, p[0], EV_READ, defer_again, &a);
	event_defer(loop, p[0]);
	event_defer(loop, p[0]);	/* once is enough */
	for (rounds = 0; rounds < 5 && a.calls < 3; rounds++)
		run_bounded(loop);	/* deferred work: the wait is 0 */
	check(a.calls == 3 && rounds == 3 && a.events == 0,
	    "%s: event_defer: called once per round with events 0, "
	    "%d calls in %d rounds", name, a.calls, rounds);

	/* Deferred, then no longer watched: not called. */
	event_set(loop, q[0], EV_READ, defer_again, &b);
	event_defer(loop, q[0]);
	event_close(loop, q[0]);
	n = run_bounded(loop);
	check(n == 0 && b.calls == 0,
	    "%s: event_defer: an fd closed meanwhile is not called", name);

	event_close(loop, p[0]);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	event_loop_free(loop);
}

/*
 * A loop allowed 4 million descriptors allocates for the few it watches,
 * and grows its tables for a descriptor far past their first size.
 */
static void
test_growth(const char *name)
{
	struct event_loop	*loop;
	struct rlimit		 rl;
	struct seen		 seen;
	struct mallinfo2	 before, after;
	char			 err[256];
	int			 sv[2], high = 5000;

	before = mallinfo2();
	loop = event_loop_new(name, 4 * 1024 * 1024, err, sizeof(err));
	after = mallinfo2();
	if (loop == NULL) {
		check(0, "%s: event_loop_new: %s", name, err);
		return;
	}
	/* Small blocks and mmap()ed ones: a table for 4M would be the latter. */
	check(after.uordblks + after.hblkhd - before.uordblks - before.hblkhd <
	    256 * 1024, "%s: a loop for 4M descriptors allocates %zu bytes",
	    name, after.uordblks + after.hblkhd - before.uordblks -
	    before.hblkhd);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur <= (rlim_t)high &&
	    rl.rlim_max > (rlim_t)high) {
		rl.rlim_cur = high + 1;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1 ||
	    dup2(sv[0], high) == -1) {
		check(0, "%s: descriptor %d: %s", name, high, strerror(errno));
		event_loop_free(loop);
		return;
	}
	memset(&seen, 0, sizeof(seen));
	check(event_set(loop, high, EV_READ, record, &seen) == 0,
	    "%s: watch descriptor %d", name, high);
	(void)write(sv[1], "x", 1);
	run_bounded(loop);
	check(seen.fd == high && (seen.events & EV_READ),
	    "%s: readiness of descriptor %d delivered", name, high);
	event_close(loop, high);
	close(high);
	close(sv[0]);
	close(sv[1]);
	event_loop_free(loop);
}

int
main(void)
{
	char err[256];

	test_backend("poll");
#ifdef HAVE_EPOLL
	test_backend("epoll");
#endif
	test_backend("auto");
	test_edge("poll");
	test_defer("poll");
	test_growth("poll");
#ifdef HAVE_EPOLL
	test_edge("epoll");
	test_defer("epoll");
	test_growth("epoll");
#endif
	check(event_loop_new("kqueue", 16, err, sizeof(err)) == NULL &&
	    strstr(err, "kqueue") != NULL, "unknown backend refused: %s", err);
	return test_summary();
}
