/*
 * event_timer.c - the timer heap: an array kept in heap order by
 * (deadline, arming sequence), each timer knowing its own index so that
 * re-arming and cancelling need no search.
 */
#include "ferryd.h"

#include <stdlib.h>

#include "bug.h"
#include "event_timer.h"

#define HEAP_FIRST_CAP	64

void
event_timer_init(struct event_timer *t, event_timer_fn *fn, void *data)
{
	t->due = 0;
	t->index = 0;
	t->seq = 0;
	t->fn = fn;
	t->data = data;
}

int
event_timer_armed(const struct event_timer *t)
{
	return t->index != 0;
}

void
timer_heap_init(struct timer_heap *h)
{
	h->v = NULL;
	h->n = h->cap = 0;
	h->seq = 0;
}

void
timer_heap_free(struct timer_heap *h)
{
	size_t	i;

	for (i = 0; i < h->n; i++)
		h->v[i]->index = 0;
	free(h->v);
	timer_heap_init(h);
}

/* Whether a fires before b. */
static int
earlier(const struct event_timer *a, const struct event_timer *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

static void
place(struct timer_heap *h, size_t i, struct event_timer *t)
{
	h->v[i] = t;
	t->index = i + 1;
}

static void
sift_up(struct timer_heap *h, size_t i)
{
	struct event_timer	*t = h->v[i];
	size_t			 parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (!earlier(t, h->v[parent]))
			break;
		place(h, i, h->v[parent]);
		i = parent;
	}
	place(h, i, t);
}

static void
sift_down(struct timer_heap *h, size_t i)
{
	struct event_timer	*t = h->v[i];
	size_t			 child;

	for (;;) {
		child = 2 * i + 1;
		if (child >= h->n)
			break;
		if (child + 1 < h->n && earlier(h->v[child + 1], h->v[child]))
			child++;
		if (!earlier(h->v[child], t))
			break;
		place(h, i, h->v[child]);
		i = child;
	}
	place(h, i, t);
}

/* Put the timer at index i back in order after its key changed. */
static void
reorder(struct timer_heap *h, size_t i)
{
	if (i > 0 && earlier(h->v[i], h->v[(i - 1) / 2]))
		sift_up(h, i);
	else
		sift_down(h, i);
}

int
timer_heap_arm(struct timer_heap *h, struct event_timer *t, int64_t due)
{
	struct event_timer	**v;
	size_t			  cap;

	if (t->index == 0 && h->n == h->cap) {
		cap = h->cap == 0 ? HEAP_FIRST_CAP : h->cap * 2;
		if ((v = realloc(h->v, cap * sizeof(*v))) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		h->v = v;
		h->cap = cap;
	}
	/* an armed timer is where its index says, in this heap */
	BUG_ON(t->index > h->n || (t->index != 0 && h->v[t->index - 1] != t));
	t->due = due;
	t->seq = h->seq++;
	if (t->index == 0) {
		place(h, h->n++, t);
		sift_up(h, h->n - 1);
	} else
		reorder(h, t->index - 1);
	return 0;
}

void
timer_heap_cancel(struct timer_heap *h, struct event_timer *t)
{
	size_t	i;

	if (t->index == 0)
		return;
	i = t->index - 1;
	BUG_ON(i >= h->n || h->v[i] != t);
	t->index = 0;
	if (--h->n == i)
		return;		/* it was the last one */
	place(h, i, h->v[h->n]);
	reorder(h, i);
}

struct event_timer *
timer_heap_first(const struct timer_heap *h)
{
	return h->n > 0 ? h->v[0] : NULL;
}

int
timer_heap_run(struct timer_heap *h, int64_t now)
{
	struct event_timer	*t;
	uint64_t		 armed_before = h->seq;
	int			 ran = 0;

	while ((t = timer_heap_first(h)) != NULL && t->due <= now &&
	    t->seq < armed_before) {
		BUG_ON(t->index != 1);	/* the first is at the root */
		timer_heap_cancel(h, t);
		t->fn(t, t->data);
		ran++;
	}
	return ran;
}
