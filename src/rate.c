/*
 * rate.c - byte budgets: a process's token bucket, and the buckets the
 * workers of a rule share (rate.h).
 */
#include "ferryd.h"

#include <sys/mman.h>

#include "bug.h"
#include "clock.h"
#include "rate.h"

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

#define US	1000000

/* One direction of a cell, a cache line of its own. */
struct rate_shared {
	int64_t	tokens;		/* bytes; atomics only */
	int64_t	stamp_us;	/* the refill's time (clock_us) */
	int64_t	rate;		/* bytes/s; the master stores it */
} __attribute__((aligned(64)));

struct rate_cell {
	struct rate_shared	dir[2];
};

struct rate_budget {
	struct rate_shared	*shared;
	int64_t			 hold;	/* taken from shared, not spent */
	int64_t			 waiting; /* this process's readers waiting */
};

/* The region, inherited by every child forked after it was mapped. */
static struct rate_cell		*region;
/* This process's holds: its own copy after fork. */
static struct rate_budget	 budgets[RATE_CELLS][2];

/* What a worker takes at once: about 10 ms of the rate. */
static int64_t
slice_of(int64_t rate)
{
	int64_t s = rate / 100;

	return s < 1024 ? 1024 : s > (4 << 20) ? (4 << 20) : s;
}

/* What a bucket holds at most: a tenth of a second, two slices at least. */
static int64_t
burst_of(int64_t rate)
{
	int64_t b = rate / 10;

	return b < 2 * slice_of(rate) ? 2 * slice_of(rate) : b;
}

/*
 * The tokens rate makes from *stamp to now: the stamp moves on by the
 * time those tokens took (not to now), so no fraction of a byte is lost
 * however often it is asked.  At most a second's worth.
 */
static int64_t
refill_of(int64_t rate, int64_t stamp, int64_t now, int64_t *to)
{
	int64_t dt, add;

	if (stamp < now - US)
		stamp = now - US;
	dt = now - stamp;
	if (rate <= 0 || dt <= 0 || (add = rate * dt / US) == 0) {
		*to = stamp;
		return 0;
	}
	*to = stamp + add * US / rate;
	return add;
}

bool
rate_bucket_admit(struct rate_bucket *b, int64_t rate, int64_t now_us,
    uint64_t len)
{
	int64_t add, burst = burst_of(rate);

	if (b->stamp_us == 0) {
		b->tokens = burst;
		b->stamp_us = now_us;
	}
	add = refill_of(rate, b->stamp_us, now_us, &b->stamp_us);
	b->tokens = b->tokens + add > burst ? burst : b->tokens + add;
	if (b->tokens < 0)
		return false;
	b->tokens -= (int64_t)len;
	return true;
}

int
rate_region_open(void)
{
	void *p;

	if (region != NULL)
		return 0;
	p = mmap(NULL, RATE_CELLS * sizeof(*region), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	region = p;
	return 0;
}

void
rate_cell_set(int cell, int64_t rate, bool fresh)
{
	struct rate_shared	*sh;
	int			 d;

	if (region == NULL || cell <= 0 || cell >= RATE_CELLS)
		return;
	for (d = RATE_IN; d <= RATE_OUT; d++) {
		sh = &region[cell].dir[d];
		if (fresh) {
			__atomic_store_n(&sh->tokens, burst_of(rate),
			    __ATOMIC_RELAXED);
			__atomic_store_n(&sh->stamp_us, clock_us(),
			    __ATOMIC_RELAXED);
		}
		__atomic_store_n(&sh->rate, rate, __ATOMIC_RELEASE);
	}
}

struct rate_budget *
rate_budget_of(int cell, enum rate_dir dir)
{
	struct rate_budget *b;

	if (region == NULL || cell <= 0 || cell >= RATE_CELLS)
		return NULL;
	b = &budgets[cell][dir];
	b->shared = &region[cell].dir[dir];
	return b;
}

/* The one whose compare-and-swap moves the stamp adds the tokens. */
static void
shared_refill(struct rate_shared *sh, int64_t rate, int64_t now)
{
	int64_t last = __atomic_load_n(&sh->stamp_us, __ATOMIC_ACQUIRE);
	int64_t to, add, t, burst = burst_of(rate);

	if ((add = refill_of(rate, last, now, &to)) == 0 ||
	    !__atomic_compare_exchange_n(&sh->stamp_us, &last, to, false,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	t = __atomic_load_n(&sh->tokens, __ATOMIC_ACQUIRE);
	while (!__atomic_compare_exchange_n(&sh->tokens, &t,
	    t + add > burst ? (t > burst ? t : burst) : t + add, false,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

/*
 * Up to want tokens out of the shared bucket, but none unless it holds
 * need: what trickled in since the last refill is left to gather, or
 * every read of a rule out of budget would be a few hundred bytes.
 */
static int64_t
shared_take(struct rate_shared *sh, int64_t want, int64_t need)
{
	int64_t t = __atomic_load_n(&sh->tokens, __ATOMIC_ACQUIRE), n;

	do {
		if (t <= 0 || t < need)
			return 0;
		n = t < want ? t : want;
	} while (!__atomic_compare_exchange_n(&sh->tokens, &t, t - n, false,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	return n;
}

uint64_t
rate_budget_grant(struct rate_budget *b, uint64_t want, int64_t now_us)
{
	int64_t rate = __atomic_load_n(&b->shared->rate, __ATOMIC_ACQUIRE);
	int64_t slice = slice_of(rate);

	if (rate <= 0)
		return want;	/* the master has not set it: no limit */
	/*
	 * Topped up by a slice at a time, and only when running low; a
	 * slice whole, or what want lacks if that is less.
	 */
	if (b->hold < slice / 2 && b->hold < (int64_t)want) {
		shared_refill(b->shared, rate, now_us);
		b->hold += shared_take(b->shared, slice,
		    (int64_t)want - b->hold < slice ?
		    (int64_t)want - b->hold : slice);
	}
	if (b->hold <= 0)
		return 0;
	return (uint64_t)b->hold < want ? (uint64_t)b->hold : want;
}

void
rate_budget_spend(struct rate_budget *b, uint64_t n)
{
	b->hold -= (int64_t)n;
}

void
rate_budget_waiting(struct rate_budget *b, int delta)
{
	b->waiting += delta;
	BUG_ON(b->waiting < 0);	/* a reader counted out twice */
}

/*
 * A slice is there again after the time its bytes take.  Of n readers
 * waiting in this process, each waits n ms at least: their timers wake
 * the worker about once a millisecond for the budget, however many
 * they are (400 connections of a rule waiting a slice each would wake
 * it 36,000 times a second for 100 slices' bytes).  A wakeup reads what
 * the socket has, up to a buffer a round: a thousand a second carry
 * the rates ferryd is used at; n above 1000 waits the longest, 1 s.
 */
int64_t
rate_budget_wait_ms(const struct rate_budget *b)
{
	int64_t rate = __atomic_load_n(&b->shared->rate, __ATOMIC_ACQUIRE);
	int64_t t = __atomic_load_n(&b->shared->tokens, __ATOMIC_ACQUIRE);
	int64_t need = slice_of(rate) - (t > 0 ? t : 0) - b->hold, ms;

	if (rate <= 0)
		return 1;
	if (need < 0)
		need = 0;
	ms = need * 1000 / rate + 1;
	if (ms < b->waiting)
		ms = b->waiting;
	return ms > 1000 ? 1000 : ms;
}
