/*
 * test_rate.c - unit tests of the byte budgets (rate.c), on a clock the
 * test moves itself, so every bound is exact and nothing depends on the
 * machine's speed: a session's bucket lets through its rate and its
 * burst, and a datagram's debt is paid back; the budget of a rule,
 * spent by two processes (two workers) at once, gives out no more than
 * its rate, its burst and a slice each, and all of it when asked for
 * more; a budget with no room says how long to wait; cell 0 is no limit.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "rate.h"
#include "testlib.h"

#define RATE	1000000		/* bytes/s */
#define SECS	10
#define BURST	(RATE / 10)
#define SLICE	(RATE / 100)

/* A session's bucket: 1000-byte datagrams offered at 4x the rate. */
static void
test_bucket(void)
{
	struct rate_bucket	b = { 0, 0 };
	int64_t			t, passed = 0;

	for (t = 1; t <= SECS * 1000000; t += 250)
		if (rate_bucket_admit(&b, RATE, t, 1000))
			passed += 1000;
	check(passed <= (int64_t)RATE * SECS + BURST + 1000 &&
	    passed >= (int64_t)RATE * SECS - 1000,
	    "a bucket passes its rate and burst: %lld bytes in %d s at %d/s",
	    (long long)passed, SECS, RATE);
	/* A datagram larger than the burst passes; its debt takes 0.5 s. */
	b.tokens = 0;
	b.stamp_us = 1;
	check(rate_bucket_admit(&b, RATE, 1, 5 * BURST) &&
	    !rate_bucket_admit(&b, RATE, 1 + 400000, 1) &&
	    rate_bucket_admit(&b, RATE, 1 + 600000, 1),
	    "a datagram over the burst passes, and its debt is paid first");
}

/*
 * One worker: ask for want bytes every step_us of the test's clock (from
 * clock_us(), as the master's stamp is) for SECS seconds; the bytes it
 * got, on its exit status's stead, through a pipe.
 */
static void
worker(int cell, int64_t t0, uint64_t want, int64_t step_us, int fd)
{
	struct rate_budget	*b = rate_budget_of(cell, RATE_IN);
	int64_t			 t, got = 0;
	uint64_t		 n;

	for (t = t0; t <= t0 + SECS * 1000000; t += step_us)
		if ((n = rate_budget_grant(b, want, t)) > 0) {
			rate_budget_spend(b, n);
			got += (int64_t)n;
		}
	if (write(fd, &got, sizeof(got)) != sizeof(got))
		_exit(2);
	_exit(0);
}

/* Two processes spend cell's budget; what they got together. */
static int64_t
two_workers(int cell, uint64_t want, int64_t step_us)
{
	int	p[2], i, st;
	int64_t	got, sum = 0, t0 = clock_us();
	pid_t	pid[2];

	if (pipe(p) == -1)
		exit(2);
	for (i = 0; i < 2; i++)
		if ((pid[i] = fork()) == 0)
			worker(cell, t0, want, step_us, p[1]);
	for (i = 0; i < 2; i++) {
		if (read(p[0], &got, sizeof(got)) == sizeof(got))
			sum += got;
		(void)waitpid(pid[i], &st, 0);
	}
	close(p[0]);
	close(p[1]);
	return sum;
}

static void
test_shared(void)
{
	struct rate_budget	*b;
	int64_t			 got;
	uint64_t		 n;

	check(rate_region_open() == 0, "the region is mapped");
	rate_cell_set(1, RATE, true);
	/* Greedy: each asks for a TCP read's 64 kB every 100 us. */
	got = two_workers(1, 65536, 100);
	check(got <= (int64_t)RATE * SECS + BURST + 2 * SLICE &&
	    got >= (int64_t)RATE * SECS * 95 / 100,
	    "two workers spend one budget: %lld bytes in %d s at %d/s",
	    (long long)got, SECS, RATE);
	/* Datagrams: 1400 bytes at a time, and in debt at the end. */
	rate_cell_set(2, RATE, true);
	got = two_workers(2, 1400, 50);
	check(got <= (int64_t)RATE * SECS + BURST + 2 * (SLICE + 1400) &&
	    got >= (int64_t)RATE * SECS * 95 / 100,
	    "two workers' datagrams keep to it too: %lld bytes", (long long)got);
	/* Spent: nothing more now, and a wait of a slice's time. */
	rate_cell_set(3, RATE, true);
	b = rate_budget_of(3, RATE_OUT);
	while ((n = rate_budget_grant(b, 65536, 1)) > 0)
		rate_budget_spend(b, n);
	check(rate_budget_wait_ms(b) >= 1 && rate_budget_wait_ms(b) <= 20,
	    "a spent budget waits about a slice: %lld ms",
	    (long long)rate_budget_wait_ms(b));
	check(rate_budget_of(0, RATE_IN) == NULL &&
	    rate_budget_of(RATE_CELLS, RATE_IN) == NULL,
	    "cell 0 (and none past the region) is no limit");
}

int
main(void)
{
	test_bucket();
	test_shared();
	return test_summary();
}
