/*
 * event_poll.c - event loop backend on poll(2): portable, and selectable
 * with event_backend = "poll" so that the tests exercise it on Linux too.
 */
#include "ferryd.h"

#include <poll.h>
#include <stdlib.h>

#include "event.h"
#include "event_backend.h"

struct poll_state {
	struct pollfd *fds;	/* the watched descriptors, packed */
	int           *slot;	/* fd -> index in fds, -1 when unwatched */
	int            nfds;
	int            next;	/* where the last wait stopped reporting */
};

static void *
poll_backend_create(int max_fds)
{
	struct poll_state *st;
	int                i;

	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return NULL;
	st->fds = calloc(max_fds, sizeof(*st->fds));
	st->slot = calloc(max_fds, sizeof(*st->slot));
	if (st->fds == NULL || st->slot == NULL) {
		free(st->fds);
		free(st->slot);
		free(st);
		return NULL;
	}
	for (i = 0; i < max_fds; i++)
		st->slot[i] = -1;
	return st;
}

static void
poll_backend_destroy(void *state)
{
	struct poll_state *st = state;

	free(st->fds);
	free(st->slot);
	free(st);
}

static int
poll_backend_update(void *state, int fd, int old_mask, int new_mask,
    bool closing)
{
	struct poll_state *st = state;
	int                i;

	(void)old_mask;
	(void)closing;
	i = st->slot[fd];
	/* EV_EDGE alone asks for nothing poll(2) can watch. */
	if ((new_mask & (EV_READ | EV_WRITE)) == 0) {
		if (i == -1)
			return 0;
		/* Move the last entry into the hole. */
		st->nfds--;
		if (i != st->nfds) {
			st->fds[i] = st->fds[st->nfds];
			st->slot[st->fds[i].fd] = i;
		}
		st->slot[fd] = -1;
		return 0;
	}
	if (i == -1) {
		i = st->nfds++;
		st->slot[fd] = i;
		st->fds[i].fd = fd;
	}
	/* POLLPRI: urgent data, which a reader must know of (EV_EXCEPT). */
	st->fds[i].events = (new_mask & EV_READ ? POLLIN | POLLPRI : 0) |
	    (new_mask & EV_WRITE ? POLLOUT : 0);
	return 0;
}

static int
poll_backend_wait(void *state, struct event_fired *fired, int max_fired,
    int timeout_ms)
{
	struct poll_state *st = state;
	int                i, k, n, nready, re;

	nready = poll(st->fds, st->nfds, timeout_ms);
	if (nready <= 0)
		return nready;
	/*
	 * Report at most max_fired; start where the previous round stopped
	 * so that descriptors late in the array are not starved.
	 */
	n = 0;
	for (k = 0; k < st->nfds && n < max_fired && nready > 0; k++) {
		i = (st->next + k) % st->nfds;
		re = st->fds[i].revents;
		if (re == 0)
			continue;
		nready--;
		fired[n].fd = st->fds[i].fd;
		fired[n].events =
		    /* Urgent data alone is for the reader to take. */
		    (re & (POLLIN | POLLPRI | POLLERR | POLLHUP | POLLNVAL) ?
		    EV_READ : 0) |
		    (re & (POLLOUT | POLLERR | POLLHUP | POLLNVAL) ? EV_WRITE : 0) |
		    (re & (POLLPRI | POLLERR | POLLHUP | POLLNVAL) ? EV_EXCEPT : 0) |
		    (re & POLLPRI ? EV_URGENT : 0) |
		    (re & POLLERR ? EV_ERROR : 0);
		n++;
	}
	st->next = st->nfds > 0 ? (st->next + k) % st->nfds : 0;
	return n;
}

const struct event_backend event_backend_poll = {
	"poll",
	false,
	poll_backend_create,
	poll_backend_destroy,
	poll_backend_update,
	poll_backend_wait
};
