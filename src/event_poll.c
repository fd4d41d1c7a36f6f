/*
 * event_poll.c - event loop backend on poll(2): portable, and selectable
 * with event_backend = "poll" so that the tests exercise it on Linux too.
 */
#include "ferryd.h"

#include <poll.h>
#include <stdlib.h>

#include "event.h"
#include "event_backend.h"

/*
 * Both arrays grow by doubling as descriptors are watched, rather than
 * being sized for every descriptor the process may open.
 */
struct poll_state {
	struct pollfd *fds;	/* the watched descriptors, packed */
	int            fdscap;
	int           *slot;	/* fd -> index in fds, -1 when unwatched */
	int            slotcap;
	int            nfds;
	int            next;	/* where the last wait stopped reporting */
};

static void *
poll_backend_create(int max_fds)
{
	(void)max_fds;		/* event.c keeps descriptors below it */
	return calloc(1, sizeof(struct poll_state));
}

/* Room for fd in slot[] and for one more entry in fds[]; -1 ENOMEM. */
static int
poll_reserve(struct poll_state *st, int fd)
{
	struct pollfd *fds;
	int           *slot, cap, i;

	if (fd >= st->slotcap) {
		for (cap = st->slotcap > 0 ? st->slotcap : 256; cap <= fd;
		    cap *= 2)
			continue;
		if ((slot = realloc(st->slot, cap * sizeof(*slot))) == NULL)
			return -1;
		for (i = st->slotcap; i < cap; i++)
			slot[i] = -1;
		st->slot = slot;
		st->slotcap = cap;
	}
	if (st->nfds == st->fdscap) {
		cap = st->fdscap > 0 ? st->fdscap * 2 : 64;
		if ((fds = realloc(st->fds, cap * sizeof(*fds))) == NULL)
			return -1;
		st->fds = fds;
		st->fdscap = cap;
	}
	return 0;
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
	i = fd < st->slotcap ? st->slot[fd] : -1;
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
		if (poll_reserve(st, fd) == -1)
			return -1;
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
