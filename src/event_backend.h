/*
 * event_backend.h - what an event loop backend implements.  Private to
 * event.c and the event_*.c backends.
 */
#ifndef FERRYD_EVENT_BACKEND_H
#define FERRYD_EVENT_BACKEND_H

#include <stddef.h>

/* One ready descriptor, as a backend reports it. */
struct event_fired {
	int fd;
	int events;
};

struct event_backend {
	const char *name;
	bool        edge;	/* registers EV_EDGE descriptors edge-triggered */
	/* Returns backend state, or NULL with errno set. */
	void *(*create)(int max_fds);
	void  (*destroy)(void *state);
	/*
	 * Change the interest in fd from old_mask to new_mask.  closing: fd
	 * is about to be closed, which ends the kernel's interest anyway.
	 */
	int   (*update)(void *state, int fd, int old_mask, int new_mask,
	    bool closing);
	/* Wait up to timeout_ms (-1 forever); fill fired, return how many. */
	int   (*wait)(void *state, struct event_fired *fired, int max_fired,
	    int timeout_ms);
};

extern const struct event_backend event_backend_poll;
#ifdef HAVE_EPOLL
extern const struct event_backend event_backend_epoll;
#endif

#endif
