/*
 * test_timer.c - unit tests of the timer heap: timers fire in deadline
 * order (ties in arming order), cancel and re-arm move them, a callback
 * may re-arm itself or others without looping, and 100,000 timers with
 * random deadlines, re-arms and cancels come out exactly as a sorted
 * reference says.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "event_timer.h"
#include "testlib.h"

#define MANY	100000

struct rec {
	struct event_timer	 t;
	int			 id;
	int			 fired;
	int64_t			 fired_at;
};

static int	*order;		/* ids in the order they fired */
static int	 norder;
static int64_t	 clock_now;

static void
on_fire(struct event_timer *t, void *data)
{
	struct rec	*r = data;

	(void)t;
	r->fired++;
	r->fired_at = clock_now;
	order[norder++] = r->id;
}

static void
recs_init(struct rec *r, int n)
{
	int	i;

	for (i = 0; i < n; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].id = i;
		event_timer_init(&r[i].t, on_fire, &r[i]);
	}
	norder = 0;
}

static void
test_order_and_ties(void)
{
	struct timer_heap	h;
	struct rec		r[5];
	static const int64_t	due[5] = { 30, 10, 20, 10, 5 };
	static const int	want[5] = { 4, 1, 3, 2, 0 };
	int			i, ok = 1;

	timer_heap_init(&h);
	recs_init(r, 5);
	for (i = 0; i < 5; i++)
		timer_heap_arm(&h, &r[i].t, due[i]);
	check(timer_heap_first(&h) == &r[4].t, "the earliest timer is first");
	check(timer_heap_run(&h, 9) == 1 && norder == 1 && order[0] == 4,
	    "run(9) fires only the timer due at 5");
	clock_now = 40;
	check(timer_heap_run(&h, 40) == 4, "run(40) fires the other four");
	for (i = 0; i < 5; i++)
		ok &= order[i] == want[i];
	check(ok, "deadline order, ties in arming order (1 before 3)");
	check(timer_heap_first(&h) == NULL && !event_timer_armed(&r[0].t),
	    "the heap is empty and the timers disarmed");
	timer_heap_free(&h);
}

static void
test_cancel_rearm(void)
{
	struct timer_heap	h;
	struct rec		r[4];

	timer_heap_init(&h);
	recs_init(r, 4);
	timer_heap_arm(&h, &r[0].t, 100);
	timer_heap_arm(&h, &r[1].t, 200);
	timer_heap_arm(&h, &r[2].t, 300);
	timer_heap_arm(&h, &r[3].t, 400);
	timer_heap_cancel(&h, &r[1].t);
	timer_heap_cancel(&h, &r[1].t);		/* twice is harmless */
	timer_heap_arm(&h, &r[3].t, 50);	/* earlier */
	timer_heap_arm(&h, &r[0].t, 350);	/* later */
	check(h.n == 3 && !event_timer_armed(&r[1].t),
	    "cancel removes one timer, a second cancel does nothing");
	timer_heap_run(&h, 1000);
	check(norder == 3 && order[0] == 3 && order[1] == 2 && order[2] == 0,
	    "re-armed timers fire at their new deadlines (3, 2, 0)");
	check(r[1].fired == 0, "the cancelled timer never fires");
	timer_heap_free(&h);
}

/* A callback that re-arms its own timer for "now": lazy idle re-arm. */
static struct timer_heap	*self_heap;

static void
rearm_self(struct event_timer *t, void *data)
{
	int	*count = data;

	if (++*count < 1000)
		timer_heap_arm(self_heap, t, 0);
}

static void
test_rearm_in_callback(void)
{
	struct timer_heap	h;
	struct event_timer	t;
	int			count = 0, runs;

	timer_heap_init(&h);
	self_heap = &h;
	event_timer_init(&t, rearm_self, &count);
	timer_heap_arm(&h, &t, 0);
	runs = timer_heap_run(&h, 0);
	check(runs == 1 && count == 1 && event_timer_armed(&t),
	    "a timer re-armed for now by its callback waits for the next run");
	while (event_timer_armed(&t) && runs < 2000)
		runs += timer_heap_run(&h, 0);
	check(count == 1000 && !event_timer_armed(&t),
	    "and fires once per run until it stops re-arming (%d runs)", runs);
	timer_heap_free(&h);
}

static int
cmp_rec(const void *a, const void *b)
{
	const struct rec	*x = *(struct rec *const *)a;
	const struct rec	*y = *(struct rec *const *)b;

	if (x->t.due != y->t.due)
		return x->t.due < y->t.due ? -1 : 1;
	return x->t.seq < y->t.seq ? -1 : x->t.seq > y->t.seq;
}

static void
test_many(void)
{
	struct timer_heap	 h;
	struct rec		*r, **sorted;
	int			 i, n = 0, ok = 1, bad_time = 0;
	int64_t			 now;

	r = calloc(MANY, sizeof(*r));
	sorted = calloc(MANY, sizeof(*sorted));
	order = realloc(order, MANY * sizeof(*order));
	if (r == NULL || sorted == NULL || order == NULL) {
		check(0, "memory for %d timers", MANY);
		return;
	}
	srandom(42);
	timer_heap_init(&h);
	recs_init(r, MANY);
	for (i = 0; i < MANY; i++)
		timer_heap_arm(&h, &r[i].t, random() % 1000000);
	/* Re-arm a third, cancel a tenth: the heap must stay in order. */
	for (i = 0; i < MANY; i += 3)
		timer_heap_arm(&h, &r[i].t, random() % 1000000);
	for (i = 1; i < MANY; i += 10)
		timer_heap_cancel(&h, &r[i].t);
	for (i = 0; i < MANY; i++)
		if (event_timer_armed(&r[i].t))
			sorted[n++] = &r[i];
	qsort(sorted, n, sizeof(*sorted), cmp_rec);
	check((size_t)n == h.n, "%d timers armed after re-arms and cancels",
	    n);
	/* Advance the clock in steps, as a loop would. */
	for (now = 0; now <= 1000000; now += 997) {
		clock_now = now;
		timer_heap_run(&h, now);
	}
	clock_now = now;
	timer_heap_run(&h, now);
	ok = norder == n;
	for (i = 0; ok && i < n; i++)
		ok = order[i] == sorted[i]->id;
	for (i = 0; i < n; i++)
		bad_time += sorted[i]->fired != 1 ||
		    sorted[i]->fired_at < sorted[i]->t.due ||
		    sorted[i]->fired_at >= sorted[i]->t.due + 997;
	check(ok, "all %d fired once, exactly in (deadline, arming) order", n);
	check(bad_time == 0, "each fired in the first run at or after its "
	    "deadline (%d did not)", bad_time);
	for (i = 1; i < MANY; i += 10)
		ok &= r[i].fired == 0;
	check(ok, "no cancelled timer fired");
	timer_heap_free(&h);
	free(sorted);
	free(r);
}

/* Through the event loop: waits end at the first timer, in order. */
static void
test_loop(const char *backend)
{
	struct event_loop	*loop;
	struct rec		 r[3];
	char			 err[256];
	int64_t			 start;
	int			 rounds;

	if ((loop = event_loop_new(backend, 1024, err, sizeof(err))) == NULL) {
		check(0, "%s: event_loop_new: %s", backend, err);
		return;
	}
	recs_init(r, 3);
	start = event_now(loop);
	event_timer_arm(loop, &r[0].t, start + 60);
	event_timer_arm(loop, &r[1].t, start + 20);
	event_timer_arm(loop, &r[2].t, start + 40);
	event_timer_cancel(loop, &r[2].t);
	for (rounds = 0; norder < 2 && rounds < 10; rounds++)
		event_loop_run_once(loop);
	check(norder == 2 && order[0] == 1 && order[1] == 0 &&
	    r[2].fired == 0, "%s: loop runs armed timers in order, not the "
	    "cancelled one", backend);
	check(event_now(loop) - start >= 60 && rounds <= 3,
	    "%s: each wait ended at the next timer (%d rounds, %lld ms)",
	    backend, rounds, (long long)(event_now(loop) - start));
	event_loop_free(loop);
}

int
main(void)
{
	order = calloc(16, sizeof(*order));
	test_order_and_ties();
	test_cancel_rearm();
	test_rearm_in_callback();
	test_many();
	test_loop("auto");
	test_loop("poll");
	free(order);
	return test_summary();
}
