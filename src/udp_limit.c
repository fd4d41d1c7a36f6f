/*
 * udp_limit.c - a UDP session's datagrams under rate_limit and
 * rule_rate_limit (udp_limit.h).
 *
 * Each direction of a session has its bucket (rate_limit bytes/s each
 * way, as a TCP connection is paced each way), and the rule's budget a
 * direction of its own.  A datagram is judged whole: it passes while
 * both have bytes left, and is charged in full (a bucket may go into
 * debt by one datagram, so the rate holds on average whatever their
 * size).  Dropping, not holding: a datagram held back would be late,
 * and a queue of them is memory a flood could fill.
 */
#include "ferryd.h"

#include "stats.h"
#include "udp_limit.h"

int
udp_limit(struct udp_session *s, enum rate_dir dir, struct iovec *iov,
    uint16_t *seg, int n)
{
	const struct rule	*r = s->rule;
	struct rate_budget	*b = rate_budget_of(r->rate_cell, dir);
	int64_t			 now = stats_now_us();
	uint64_t		 dropped = 0, len;
	int			 i, k = 0;

	for (i = 0; i < n; i++) {
		len = iov[i].iov_len;
		/* The rule's first: the session's bucket charges as it says yes. */
		if ((b != NULL && rate_budget_grant(b, len, now) == 0) ||
		    (r->rate_limit > 0 && !rate_bucket_admit(&s->limit[dir],
		    r->rate_limit, now, len))) {
			/* A run read as one (UDP_GRO) is its datagrams. */
			dropped += seg != NULL && seg[i] != 0 ?
			    (len + seg[i] - 1) / seg[i] : 1;
			continue;
		}
		if (b != NULL)
			rate_budget_spend(b, len);
		iov[k] = iov[i];
		if (seg != NULL)
			seg[k] = seg[i];
		k++;
	}
	stats_rule(r)->rate_dropped += dropped;
	return k;
}
