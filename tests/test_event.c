/*
 * test_event.c - unit tests of the event loop, run against every backend:
 * readiness is delivered for what is watched and only that, masks change
 * and stop, the timer fires, and a descriptor watched after a wait got no
 * stale event from that wait.
 */
#include "ferryd.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "event.h"

static int passed, failed;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		passed++;						\
		printf("ok %d - ", passed + failed);			\
	} else {							\
		failed++;						\
		printf("not ok %d - ", passed + failed);		\
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

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
on_timer(struct event_loop *loop, void *data)
{
	(void)loop;
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
	char               err[256];
	int                p[2], q[2], ticks = 0, n, oldfd;

	loop = event_loop_new(name, 1024, err, sizeof(err));
	CHECK(loop != NULL, "%s: loop created (%s)", name,
	    loop ? event_loop_backend(loop) : err);
	if (loop == NULL)
		return;
	if (pipe(p) == -1 || pipe(q) == -1)
		return;

	event_set(loop, p[0], EV_READ, record, &a);
	event_set(loop, p[1], EV_WRITE, record, &b);
	n = event_loop_run_once(loop);
	CHECK(n == 1 && b.calls == 1 && b.events == EV_WRITE && a.calls == 0,
	    "%s: only the writable end is reported", name);

	event_mask(loop, p[1], 0);
	(void)write(p[1], "x", 1);
	a.calls = b.calls = 0;
	n = event_loop_run_once(loop);
	CHECK(n == 1 && a.calls == 1 && a.events == EV_READ && b.calls == 0,
	    "%s: data makes the read end ready; unwatched end silent", name);
	CHECK(event_get_mask(loop, p[1]) == 0, "%s: mask 0 recorded", name);

	event_timer(loop, event_now(loop) + 20, on_timer, &ticks);
	event_mask(loop, p[0], 0);
	n = event_loop_run_once(loop);
	CHECK(n == 0 && ticks == 1, "%s: timer fires with nothing ready", name);

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
	CHECK(n == 2 && sw.newfd == oldfd && a.calls == 0 && b.calls == 0,
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

int
main(void)
{
	char err[256];

	test_backend("poll");
#ifdef HAVE_EPOLL
	test_backend("epoll");
#endif
	test_backend("auto");
	CHECK(event_loop_new("kqueue", 16, err, sizeof(err)) == NULL &&
	    strstr(err, "kqueue") != NULL, "unknown backend refused: %s", err);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
