/*
 * client_limit.h - max_connections_per_client and connection_rate: what
 * one client address has open, and has started lately, on a rule, summed
 * over every worker of every generation.
 *
 * The master maps one region before its first fork: a fixed table per
 * scoreboard cell (a cell is a worker process), written by that worker
 * alone with atomic stores, read by every worker.  The master marks a
 * cell's table live when it hands the cell out and, when it reaps the
 * worker, unmarks it and zeroes it: a worker that is SIGKILLed takes its
 * counts with it, and nothing leaks.  Old and new generations live side
 * by side after a reload, and a rule is known in the tables by its name
 * (rule.client_key), so both count.  Readers sum the live tables; no
 * lock, no system call.
 */
#ifndef FERRYD_CLIENT_LIMIT_H
#define FERRYD_CLIENT_LIMIT_H

#include <stdint.h>

#include "addr.h"
#include "rule.h"

/* (rule, client) pairs a worker can count at once; a power of two. */
#define CLIENT_LIMIT_ENTRIES	2048
/* How far from its home a pair may sit: the longest lookup. */
#define CLIENT_LIMIT_PROBES	32

/* What client_limit_check() says of a newcomer. */
enum client_verdict {
	CLIENT_ADMIT,		/* under both limits, or not counted */
	CLIENT_OVER_MAX,	/* max_connections_per_client open already */
	CLIENT_OVER_RATE	/* connection_rate started in the last second */
};

/* The rule limits its clients: only then is anything looked up. */
static inline bool
client_limited(const struct rule *r)
{
	return r->max_connections_per_client > 0 || r->connection_rate > 0;
}

/* Whether one of nrules rules limits its clients (the region is wanted). */
bool	client_limit_wanted(const struct rule *rules, size_t nrules);
/*
 * Master: map the region (once) before forking the first generation
 * that limits clients; -1 with errno.  Workers forked before it count
 * nothing, as their rules limit nothing.
 */
int	client_limit_open(void);
/* Master: scoreboard cell is a new worker's: read its table from now. */
void	client_limit_table_start(int cell);
/* Master: cell's worker was reaped: what it counted is gone. */
void	client_limit_table_gone(int cell);
/* Worker: count in cell's table (-1 or no region: count nothing). */
void	client_limit_worker_begin(int cell);

/*
 * May peer start a connection to rule (client_limited) at now (the
 * event loop's clock)?  *seen is what it has against the limit that
 * refuses it: connections open, or connections started in the last
 * second (a sliding estimate).  Several workers may admit at the same
 * instant, so a client can go over by a connection per worker.
 */
enum client_verdict client_limit_check(const struct rule *rule,
    const struct sockaddr_any *peer, int64_t now, unsigned *seen);

/*
 * A connection of peer to rule starts at now: count it in this worker's
 * table.  Returns what client_limit_release() takes at its close, or -1
 * when nothing was counted (rule not limited, no table, or the table is
 * full: then the client is let in uncounted, and that is logged).
 */
int	client_limit_hold(const struct rule *rule,
    const struct sockaddr_any *peer, int64_t now);
/* The connection of hold (from client_limit_hold; -1: none) is closed. */
void	client_limit_release(int hold);

#endif
