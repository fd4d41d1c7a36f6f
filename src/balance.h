/*
 * balance.h - which backend of a rule's upstream a new connection or
 * UDP session goes to: eligible backends (not tried yet by this
 * connection, under their max_connections, up by health.h; backups only
 * while no primary is), then the rule's balance among them.
 *
 * Each worker balances on its own, with its own counts of open
 * connections: no lock and no shared write per connection.  They are
 * kept in each upstream (struct upstream_state, upstream.h), in the
 * worker's copy of the configuration.
 */
#ifndef FERRYD_BALANCE_H
#define FERRYD_BALANCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct backend;
struct rule;

/*
 * A worker starts balancing the upstreams of its configuration's nrules
 * rules afresh: no connection counted, its own random sequence.
 * Without it (unit tests) the counts start at 0 and the random choices
 * are always the first.
 */
void	balance_init(const struct rule *rules, size_t nrules);

/*
 * Bit of backend i of an upstream in a "tried" mask.  Past 64 backends
 * a bit stands for several: a connection then skips a few untried ones
 * in failover, which costs it nothing but choice.
 */
#define BALANCE_TRIED(i)	(1ULL << ((i) % 64))

/*
 * The backend for a connection from client (its address drives
 * balance = "hash"), skipping those in tried (BALANCE_TRIED bits of
 * their index in the upstream).  When no backend taking new connections
 * is up, a drained one that is up is the last resort (a disabled one
 * never is); then those that are down are tried anyway, rather than
 * failing the client for sure.
 * NULL: none left (all tried, or at max_connections).  *trial: the
 * connection is a down backend's trial (health_claim_trial()).
 */
const struct backend *balance_pick(const struct rule *rule,
    const struct sockaddr *client, uint64_t tried, int64_t now,
    bool *trial);

/* A connection to b opens, or ends (least-connections, max_connections). */
void	balance_acquire(const struct backend *b);
void	balance_release(const struct backend *b);
/* This worker's open connections to b. */
int	balance_active(const struct backend *b);

#endif
