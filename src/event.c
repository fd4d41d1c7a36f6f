/*
 * event.c - the backend-independent part of the event loop: the table of
 * watched descriptors, dispatch of ready events, and the timers.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bug.h"
#include "clock.h"
#include "event.h"
#include "event_backend.h"

#define MAX_FIRED 256

struct event_watch {
	int            mask;
	bool           deferred;	/* on the event_defer list */
	uint64_t       added_round;	/* round in which mask left 0 */
	event_handler *handler;
	void          *data;
};

struct event_loop {
	const struct event_backend *backend;
	void                       *state;
	int                         max_fds;	/* fds must be below it */
	int                         cap;	/* entries of the tables */
	struct event_watch         *watch;	/* indexed by fd */
	int                        *deferred;	/* event_defer: next round */
	int                         ndeferred;
	int                        *due;	/* event_defer: this round */
	int                         ndue;
	struct event_fired          fired[MAX_FIRED];
	int64_t                     now;
	int64_t                     now_us;	/* the same reading, in us */
	uint64_t                    round;	/* counts waits */
	struct timer_heap           timers;
};

/*
 * The backends, in order of preference: "auto" is the first one built
 * in.  A backend is one file implementing struct event_backend and one
 * line here; a known name without a backend on this system is refused as
 * not supported here rather than unknown.
 */
static const struct {
	const char                 *name;
	const struct event_backend *backend;	/* NULL: not on this system */
} registry[] = {
#ifdef HAVE_EPOLL
	{ "epoll", &event_backend_epoll },
#else
	{ "epoll", NULL },
#endif
	{ "poll", &event_backend_poll },
};

#define NREGISTRY (sizeof(registry) / sizeof(registry[0]))

const char *const *
event_backend_names(void)
{
	static const char *names[NREGISTRY + 2];
	size_t             i;

	if (names[0] == NULL) {
		names[0] = "auto";
		for (i = 0; i < NREGISTRY; i++)
			names[i + 1] = registry[i].name;
	}
	return names;
}

static const struct event_backend *
backend_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NREGISTRY; i++)
		if (registry[i].backend != NULL &&
		    (strcmp(name, "auto") == 0 ||
		    strcmp(name, registry[i].name) == 0))
			return registry[i].backend;
	return NULL;
}

bool
event_backend_available(const char *name)
{
	return backend_by_name(name) != NULL;
}

/* The tables start this small and double as descriptors need. */
#define TABLE_FIRST_CAP	256

static void
event_loop_tables_free(struct event_loop *loop)
{
	free(loop->due);
	free(loop->deferred);
	free(loop->watch);
}

/*
 * Make the tables hold fd: they grow by doubling, up to max_fds, so that
 * a worker allowed a million descriptors does not allocate for all of
 * them up front.  Returns -1 with errno EMFILE (fd out of range) or
 * ENOMEM.
 */
static int
event_reserve(struct event_loop *loop, int fd)
{
	struct event_watch *watch;
	int                *v, cap;

	if (fd < loop->cap)
		return 0;
	if (fd < 0 || fd >= loop->max_fds) {
		errno = EMFILE;
		return -1;
	}
	for (cap = loop->cap > 0 ? loop->cap : TABLE_FIRST_CAP; cap <= fd;
	    cap = cap > loop->max_fds / 2 ? loop->max_fds : cap * 2)
		continue;
	if ((watch = realloc(loop->watch, cap * sizeof(*watch))) == NULL)
		return -1;
	loop->watch = watch;
	memset(watch + loop->cap, 0, (cap - loop->cap) * sizeof(*watch));
	/* Each list holds a descriptor at most once: cap entries do. */
	if ((v = realloc(loop->deferred, cap * sizeof(*v))) == NULL)
		return -1;
	loop->deferred = v;
	if ((v = realloc(loop->due, cap * sizeof(*v))) == NULL)
		return -1;
	loop->due = v;
	loop->cap = cap;
	return 0;
}

struct event_loop *
event_loop_new(const char *backend, int max_fds, char *err, size_t errlen)
{
	struct event_loop *loop;

	loop = calloc(1, sizeof(*loop));
	if (loop == NULL)
		goto nomem;
	loop->backend = backend_by_name(backend);
	if (loop->backend == NULL) {
		snprintf(err, errlen, "event backend \"%s\" is not supported "
		    "on this system", backend);
		free(loop);
		return NULL;
	}
	loop->max_fds = max_fds;
	if (event_reserve(loop, max_fds < TABLE_FIRST_CAP ? max_fds - 1 :
	    TABLE_FIRST_CAP - 1) == -1)
		goto nomem;
	loop->state = loop->backend->create(max_fds);
	if (loop->state == NULL) {
		snprintf(err, errlen, "cannot create %s event loop: %s",
		    loop->backend->name, strerror(errno));
		event_loop_tables_free(loop);
		free(loop);
		return NULL;
	}
	loop->now_us = clock_us();
	loop->now = loop->now_us / 1000;
	timer_heap_init(&loop->timers);
	return loop;
nomem:
	snprintf(err, errlen, "cannot create event loop: out of memory");
	if (loop != NULL)
		event_loop_tables_free(loop);
	free(loop);
	return NULL;
}

void
event_loop_free(struct event_loop *loop)
{
	if (loop == NULL)
		return;
	loop->backend->destroy(loop->state);
	timer_heap_free(&loop->timers);
	event_loop_tables_free(loop);
	free(loop);
}

const char *
event_loop_backend(const struct event_loop *loop)
{
	return loop->backend->name;
}

bool
event_loop_edge(const struct event_loop *loop)
{
	return loop->backend->edge;
}

int
event_set(struct event_loop *loop, int fd, int mask, event_handler *handler,
    void *data)
{
	struct event_watch *w;

	if (event_reserve(loop, fd) == -1)
		return -1;
	w = &loop->watch[fd];
	BUG_ON(handler == NULL && mask != 0);
	w->handler = handler;
	w->data = data;
	return event_mask(loop, fd, mask);
}

/*
 * Take fd off the event_defer lists.  Each holds an fd at most once, so
 * they never outgrow max_fds; both are short (busy descriptors only).
 */
static void
event_undefer(struct event_loop *loop, int fd)
{
	int i;

	loop->watch[fd].deferred = false;
	for (i = 0; i < loop->ndeferred; i++)
		if (loop->deferred[i] == fd) {
			loop->deferred[i] = loop->deferred[--loop->ndeferred];
			return;
		}
	for (i = 0; i < loop->ndue; i++)
		if (loop->due[i] == fd)
			loop->due[i] = -1;	/* being run: leave a hole */
}

/* Set fd's mask in the table and the backend. */
static int
event_update(struct event_loop *loop, int fd, int mask, bool closing)
{
	struct event_watch *w;

	if (fd < 0 || fd >= loop->cap) {
		if (mask == 0)
			return 0;	/* never watched */
		if (event_reserve(loop, fd) == -1)
			return -1;
	}
	w = &loop->watch[fd];
	if (w->mask == mask)
		return 0;
	if (loop->backend->update(loop->state, fd, w->mask, mask,
	    closing) == -1)
		return -1;
	if (mask == 0 && w->deferred)
		event_undefer(loop, fd);
	if (w->mask == 0)
		w->added_round = loop->round;
	w->mask = mask;
	return 0;
}

int
event_mask(struct event_loop *loop, int fd, int mask)
{
	return event_update(loop, fd, mask, false);
}

void
event_close(struct event_loop *loop, int fd)
{
	(void)event_update(loop, fd, 0, true);
}

int
event_get_mask(const struct event_loop *loop, int fd)
{
	return fd >= 0 && fd < loop->cap ? loop->watch[fd].mask : 0;
}

void
event_defer(struct event_loop *loop, int fd)
{
	struct event_watch *w;

	if (fd < 0 || fd >= loop->cap)
		return;		/* not watched */
	w = &loop->watch[fd];
	if (w->mask == 0 || w->deferred)
		return;
	w->deferred = true;
	BUG_ON(loop->ndeferred >= loop->cap);	/* each fd once: cap fit */
	loop->deferred[loop->ndeferred++] = fd;
}

/* Call the handlers of the fds deferred before this round, in order. */
static int
event_run_due(struct event_loop *loop)
{
	struct event_watch *w;
	int                 i, fd, ran = 0;

	for (i = 0; i < loop->ndue; i++) {
		if ((fd = loop->due[i]) == -1)
			continue;	/* closed meanwhile */
		w = &loop->watch[fd];
		/* closing takes an fd off the list: still watched */
		BUG_ON(fd >= loop->cap || w->mask == 0);
		w->deferred = false;
		w->handler(loop, fd, 0, w->data);
		ran++;
	}
	loop->ndue = 0;
	return ran;
}

int64_t
event_now(const struct event_loop *loop)
{
	return loop->now;
}

int64_t
event_now_us(const struct event_loop *loop)
{
	return loop->now_us;
}

int
event_timer_arm(struct event_loop *loop, struct event_timer *t, int64_t due)
{
	return timer_heap_arm(&loop->timers, t, due);
}

void
event_timer_cancel(struct event_loop *loop, struct event_timer *t)
{
	timer_heap_cancel(&loop->timers, t);
}

/*
 * How long the next wait may last: until the first timer, at most 1 h.
 * From the round's clock reading (timers are armed on it too), so that a
 * round reads the clock once: a timer is late by at most what this
 * round's handlers took.
 */
static int
event_wait_ms(const struct event_loop *loop)
{
	const struct event_timer	*first = timer_heap_first(&loop->timers);
	int64_t				 wait;

	if (first == NULL)
		return -1;
	wait = first->due - loop->now;
	return wait < 0 ? 0 : wait > 3600000 ? 3600000 : (int)wait;
}

int
event_loop_run_once(struct event_loop *loop)
{
	struct event_watch *w;
	int                 i, n, fd, fired, events, timeout, *swap;

	timeout = event_wait_ms(loop);
	if (loop->ndeferred > 0) {
		/* Due this round; what they defer again waits for the next. */
		swap = loop->due;
		loop->due = loop->deferred;
		loop->ndue = loop->ndeferred;
		loop->deferred = swap;
		loop->ndeferred = 0;
		timeout = 0;	/* there is work already */
	}
	loop->round++;
	n = loop->backend->wait(loop->state, loop->fired, MAX_FIRED, timeout);
	loop->now_us = clock_us();
	loop->now = loop->now_us / 1000;
	if (n == -1) {
		if (errno != EINTR)
			return -1;
		n = 0;	/* the caller checks its signal flags */
	}
	for (i = 0; i < n; i++) {
		fd = loop->fired[i].fd;
		/* the kernel reports only descriptors we handed it */
		BUG_ON(fd < 0 || fd >= loop->cap);
		w = &loop->watch[fd];
		/*
		 * An earlier handler of this round may have stopped watching
		 * fd, or closed it and let a new socket reuse the number: only
		 * deliver what is still asked for, and nothing to a descriptor
		 * that started being watched after the wait returned.
		 */
		fired = loop->fired[i].events;
		if (w->mask == 0 || w->added_round == loop->round)
			continue;
		/* An edge is told once: pass it on whatever the mask. */
		if ((w->mask & EV_EDGE) && loop->backend->edge)
			events = fired;
		else if ((events = fired & w->mask) != 0)
			events |= fired &
			    (EV_RDHUP | EV_EXCEPT | EV_URGENT | EV_ERROR);
		if (events != 0)
			w->handler(loop, fd, events, w->data);
	}
	n += event_run_due(loop);
	n += timer_heap_run(&loop->timers, loop->now);
	return n;
}
