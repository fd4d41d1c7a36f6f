/*
 * stats_hist.h - latency histograms with log-linear buckets: every power
 * of two of microseconds split in four, from 1 us to 2^36 us (19 hours),
 * then +Inf.  A bucket's upper bound is inclusive, as Prometheus's "le"
 * is: a value equal to a bound (every power of two is one) lands in that
 * bucket.  One writer per histogram (a worker's own), plain stores; the
 * count is the sum of the buckets, so adding is two stores.
 */
#ifndef FERRYD_STATS_HIST_H
#define FERRYD_STATS_HIST_H

#include <stdint.h>

/* 1, 2, 3, 4 us, then 4 per power of two up to 2^36 us, then +Inf. */
#define HIST_FIRST_POW		2	/* 4 us: the first split power */
#define HIST_LAST_POW		35	/* its last split ends at 2^36 us */
#define HIST_FINITE		(4 + 4 * (HIST_LAST_POW - HIST_FIRST_POW + 1))
#define HIST_BUCKETS		(HIST_FINITE + 1)	/* and +Inf */

struct hist {
	volatile uint64_t	bucket[HIST_BUCKETS];	/* not cumulative */
	volatile uint64_t	sum;			/* us */
};

/* The bucket of value us: the first whose bound is >= us. */
static inline unsigned
hist_index(uint64_t us)
{
	uint64_t	w;
	unsigned	e;

	if (us <= 4)
		return us == 0 ? 0 : (unsigned)us - 1;
	w = us - 1;
	e = 63u - (unsigned)__builtin_clzll(w);
	if (e > HIST_LAST_POW)
		return HIST_FINITE;
	return 4 + (e - HIST_FIRST_POW) * 4 + (unsigned)((w >> (e - 2)) & 3);
}

/* Record a value (us) in h. */
static inline void
hist_add(struct hist *h, uint64_t us)
{
	h->bucket[hist_index(us)]++;
	h->sum += us;
}

/* The inclusive upper bound (us) of bucket i < HIST_FINITE. */
uint64_t hist_bound(unsigned i);

/* h += add, bucket by bucket (reading add as it is now). */
void	hist_merge(struct hist *h, const struct hist *add);

/* Values recorded in h. */
uint64_t hist_count(const struct hist *h);

/*
 * The bound of the bucket that holds the q-quantile (0 < q <= 1) of h's
 * values: an upper estimate, within a quarter of a power of two; 0 when h
 * is empty, UINT64_MAX when it is past the last bound.
 */
uint64_t hist_quantile(const struct hist *h, double q);

/* us as seconds in decimal, exact ("0.000128", "1.048576"), into buf. */
void	hist_seconds(uint64_t us, char *buf, unsigned len);

#endif
