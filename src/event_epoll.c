/*
 * event_epoll.c - event loop backend on Linux epoll(7): level-triggered,
 * and edge-triggered for EV_EDGE descriptors (registered once, for both
 * directions, so that their mask changes cost nothing).
 */
#include "ferryd.h"

#ifdef HAVE_EPOLL

#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "event.h"
#include "event_backend.h"

struct epoll_state {
	int                 epfd;
	int                 max_events;
	struct epoll_event *events;
};

static void *
epoll_backend_create(int max_fds)
{
	struct epoll_state *st;

	(void)max_fds;
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return NULL;
	st->max_events = 256;
	st->events = calloc(st->max_events, sizeof(*st->events));
	st->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (st->events == NULL || st->epfd == -1) {
		free(st->events);
		free(st);
		return NULL;
	}
	return st;
}

static void
epoll_backend_destroy(void *state)
{
	struct epoll_state *st = state;

	close(st->epfd);
	free(st->events);
	free(st);
}

static int
epoll_backend_update(void *state, int fd, int old_mask, int new_mask,
    bool closing)
{
	struct epoll_state *st = state;
	struct epoll_event  ev = { 0 };
	int                 op;

	/* close(2) removes it from the epoll set: save the syscall. */
	if (closing)
		return 0;
	if (new_mask == 0)
		op = EPOLL_CTL_DEL;
	else if (old_mask == 0)
		op = EPOLL_CTL_ADD;
	else if ((old_mask & new_mask & EV_EDGE) != 0)
		return 0;	/* already registered for everything */
	else
		op = EPOLL_CTL_MOD;
	if (new_mask & EV_EDGE)
		ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLPRI | EPOLLET;
	else
		ev.events = (new_mask & EV_READ ? EPOLLIN : 0) |
		    (new_mask & EV_WRITE ? EPOLLOUT : 0);
	/* bench/unix-accept builds without it, to compare. */
#if defined(EPOLLEXCLUSIVE) && !defined(FERRYD_NO_EPOLLEXCLUSIVE)
	if (new_mask & EV_EXCLUSIVE) {
		ev.events |= EPOLLEXCLUSIVE;
		/* EPOLL_CTL_MOD refuses it: remove, then add again. */
		if (op == EPOLL_CTL_MOD) {
			if (epoll_ctl(st->epfd, EPOLL_CTL_DEL, fd, NULL) == -1)
				return -1;
			op = EPOLL_CTL_ADD;
		}
	}
#endif
	ev.data.fd = fd;
	return epoll_ctl(st->epfd, op, fd, &ev);
}

static int
epoll_backend_wait(void *state, struct event_fired *fired, int max_fired,
    int timeout_ms)
{
	struct epoll_state *st = state;
	int                 i, n, events;

	if (max_fired > st->max_events)
		max_fired = st->max_events;
	n = epoll_wait(st->epfd, st->events, max_fired, timeout_ms);
	for (i = 0; i < n; i++) {
		events = st->events[i].events;
		fired[i].fd = st->events[i].data.fd;
		/* Errors and hangups surface through read or write. */
		fired[i].events =
		    (events & (EPOLLIN | EPOLLPRI | EPOLLERR | EPOLLHUP) ?
		    EV_READ : 0) |
		    (events & (EPOLLOUT | EPOLLERR | EPOLLHUP) ? EV_WRITE : 0) |
		    (events & EPOLLRDHUP ? EV_RDHUP : 0) |
		    (events & (EPOLLERR | EPOLLHUP | EPOLLPRI) ? EV_EXCEPT : 0) |
		    (events & EPOLLPRI ? EV_URGENT : 0) |
		    (events & EPOLLERR ? EV_ERROR : 0);
	}
	return n;
}

const struct event_backend event_backend_epoll = {
	"epoll",
	true,
	epoll_backend_create,
	epoll_backend_destroy,
	epoll_backend_update,
	epoll_backend_wait
};

#endif /* HAVE_EPOLL */
