/*
 * rate.h - byte budgets: a token bucket of one process (a UDP session's
 * rate_limit), and the buckets every worker of a rule shares
 * (rule_rate_limit), in memory the master maps before it forks.
 *
 * A shared bucket is a cell of a fixed region, one bucket per direction:
 * its tokens and the time of its last refill are atomics, refilled by
 * whoever finds them due (a compare-and-swap of the time elects one),
 * taken by compare-and-swap.  A worker never takes a byte at a time: it
 * takes a slice (about 10 ms of the rate) into its own hold and spends
 * from that with plain arithmetic, so the shared line is touched about
 * once per slice per worker, and what the workers of a rule send
 * together stays within the rate give or take one slice each.  No lock,
 * no system call.
 *
 * The master gives each limited rule a cell (rate_table.c) and keeps it
 * for the rule's name across reloads: an old generation that drains and
 * the new one share the budget.  Nothing here knows a rule.
 */
#ifndef FERRYD_RATE_H
#define FERRYD_RATE_H

#include <stdbool.h>
#include <stdint.h>

/* Cells of the shared region: limited rules of every live generation. */
#define RATE_CELLS	1024

/* The two directions: from clients (to backends), and to clients. */
enum rate_dir { RATE_IN = 0, RATE_OUT = 1 };

/* A bucket of one process: plain fields. */
struct rate_bucket {
	int64_t	tokens;		/* bytes; below 0 after a datagram's debt */
	int64_t	stamp_us;	/* last refill, 0: never used */
};

/*
 * Whether a datagram of len bytes may pass bucket b at rate bytes/s at
 * now_us; if so, it is charged.  A datagram passes while the bucket is
 * not in debt, and may leave it in debt by its length: the rate holds on
 * average whatever the datagrams' size, and the burst is a tenth of a
 * second's bytes.
 */
bool	rate_bucket_admit(struct rate_bucket *b, int64_t rate, int64_t now_us,
    uint64_t len);

/* Master: map the shared region (once; children inherit it). */
int	rate_region_open(void);
/*
 * Master: cell (1 ..  RATE_CELLS - 1) now limits to rate bytes/s each
 * way; fresh: it was free, its buckets start full.
 */
void	rate_cell_set(int cell, int64_t rate, bool fresh);

/* A worker's hold on one direction of a cell (its own memory). */
struct rate_budget;

/*
 * Worker: direction dir of cell, or NULL when cell is 0 (no limit) or
 * the region is not mapped.
 */
struct rate_budget *rate_budget_of(int cell, enum rate_dir dir);
/*
 * Worker: bytes that may pass now (at most want), from the hold, topped
 * up from the shared bucket; 0: none until rate_budget_wait_ms() has
 * passed.
 */
uint64_t rate_budget_grant(struct rate_budget *b, uint64_t want,
    int64_t now_us);
/* Worker: n bytes passed (more than granted leaves the hold in debt). */
void	rate_budget_spend(struct rate_budget *b, uint64_t n);
/*
 * Worker: a reader starts (delta 1) or stops (-1) waiting for b, which
 * spaces their waits (rate_budget_wait_ms).
 */
void	rate_budget_waiting(struct rate_budget *b, int delta);
/*
 * Worker: how long until a slice is likely there again for one of the
 * readers waiting, 1 ms to 1 s.
 */
int64_t	rate_budget_wait_ms(const struct rate_budget *b);

#endif
