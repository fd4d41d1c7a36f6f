/*
 * event_timer.h - many timers: a binary min-heap of timers that live
 * inside the objects they time (a connection, a session, a worker).
 *
 * Arming, re-arming and cancelling cost O(log n) and allocate nothing but
 * the heap's array; the earliest timer is found in O(1).  Nothing scans
 * all timers.  A timer whose deadline keeps moving (an idle timeout
 * pushed back by every read) should not be re-armed per event: let it
 * fire, and have its callback re-arm it for the new deadline if the
 * object was active meanwhile ("lazy re-arm").
 */
#ifndef FERRYD_EVENT_TIMER_H
#define FERRYD_EVENT_TIMER_H

#include <stddef.h>
#include <stdint.h>

struct event_timer;

typedef void event_timer_fn(struct event_timer *timer, void *data);

/* Embed one in the object it times; event_timer_init() it first. */
struct event_timer {
	int64_t		 due;		/* ms, on the loop's clock */
	size_t		 index;		/* in the heap, + 1; 0: not armed */
	uint64_t	 seq;		/* arming order: ties fire in it */
	event_timer_fn	*fn;
	void		*data;
};

struct timer_heap {
	struct event_timer	**v;
	size_t			  n, cap;
	uint64_t		  seq;
};

void	event_timer_init(struct event_timer *t, event_timer_fn *fn,
    void *data);
/* Whether t is armed (waiting in a heap). */
int	event_timer_armed(const struct event_timer *t);

void	timer_heap_init(struct timer_heap *h);
/* Frees the array; the timers in it are only forgotten. */
void	timer_heap_free(struct timer_heap *h);
/*
 * Arm t for due, or move it there if it is armed already.  Returns 0, or
 * -1 with errno ENOMEM (t unchanged) when the array cannot grow.
 */
int	timer_heap_arm(struct timer_heap *h, struct event_timer *t,
    int64_t due);
/* Disarm t; nothing happens if it is not armed. */
void	timer_heap_cancel(struct timer_heap *h, struct event_timer *t);
/* The earliest armed timer, or NULL. */
struct event_timer *timer_heap_first(const struct timer_heap *h);
/*
 * Disarm and run, in order of deadline (ties in arming order), every
 * timer due at or before now; a callback may arm or cancel any timer,
 * itself included.  A timer armed again for a time <= now by its own
 * callback waits for the next call, so a callback cannot loop forever.
 * Returns how many ran.
 */
int	timer_heap_run(struct timer_heap *h, int64_t now);

#endif
