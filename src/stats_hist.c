/*
 * stats_hist.c - what reading a histogram takes (stats_hist.h).
 */
#include "ferryd.h"

#include <stdio.h>

#include "bug.h"
#include "stats_hist.h"

uint64_t
hist_bound(unsigned i)
{
	unsigned e;

	BUG_ON(i >= HIST_FINITE);	/* the last bucket has no bound */
	if (i < 4)
		return i + 1;
	e = HIST_FIRST_POW + (i - 4) / 4;
	return (UINT64_C(1) << e) + (uint64_t)((i - 4) % 4 + 1) *
	    (UINT64_C(1) << (e - 2));
}

void
hist_merge(struct hist *h, const struct hist *add)
{
	unsigned i;

	for (i = 0; i < HIST_BUCKETS; i++)
		h->bucket[i] += add->bucket[i];
	h->sum += add->sum;
}

uint64_t
hist_count(const struct hist *h)
{
	uint64_t	n = 0;
	unsigned	i;

	for (i = 0; i < HIST_BUCKETS; i++)
		n += h->bucket[i];
	return n;
}

uint64_t
hist_quantile(const struct hist *h, double q)
{
	uint64_t	n = hist_count(h), seen = 0, rank;
	unsigned	i;

	if (n == 0)
		return 0;
	rank = (uint64_t)(q * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HIST_FINITE; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return hist_bound(i);
	}
	return UINT64_MAX;
}

void
hist_seconds(uint64_t us, char *buf, unsigned len)
{
	unsigned	frac = (unsigned)(us % 1000000);
	int		digits = 6;

	/* Exact: us is a whole number of microseconds. */
	while (digits > 0 && frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	if (digits == 0)
		snprintf(buf, len, "%llu", (unsigned long long)(us / 1000000));
	else
		snprintf(buf, len, "%llu.%0*u", (unsigned long long)
		    (us / 1000000), digits, frac);
}
