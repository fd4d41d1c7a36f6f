/*
 * udp_limit.h - rate_limit and rule_rate_limit on a UDP session's
 * datagrams: a token bucket per session and direction (struct
 * udp_session's limit), and the rule's budget shared by every worker
 * (rate.h).  A datagram over either is dropped and counted
 * (ferryd_rule_rate_limited_datagrams_total), never queued.
 */
#ifndef FERRYD_UDP_LIMIT_H
#define FERRYD_UDP_LIMIT_H

#include <stdint.h>
#include <sys/uio.h>

#include "rate.h"
#include "rule.h"
#include "udp_types.h"

/* Whether s's datagrams are limited at all: the fast path asks only this. */
static inline int
udp_limited(const struct udp_session *s)
{
	return s->rule->rate_limit > 0 || s->rule->rate_cell != 0;
}

/*
 * Of n datagrams (iov; seg[i], where seg is not NULL and it is not 0,
 * makes iov[i] a run of datagrams of that size, read as one) of s going
 * dir, keep in order those the limits admit, moved to the front of iov
 * and seg; the others are counted.  Returns how many are kept.
 */
int	udp_limit(struct udp_session *s, enum rate_dir dir, struct iovec *iov,
    uint16_t *seg, int n);

#endif
