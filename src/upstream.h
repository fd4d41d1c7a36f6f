/*
 * upstream.h - where a rule forwards to: its backends, each with its
 * weight, backup flag and limits, and how one of them is picked.
 */
#ifndef FERRYD_UPSTREAM_H
#define FERRYD_UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "addr.h"

/* How a rule picks the backend of each new connection or session. */
enum balance {
	BALANCE_ROUND_ROBIN = 0,	/* smooth weighted round robin */
	BALANCE_LEAST_CONNECTIONS,	/* fewest open per weight */
	BALANCE_RANDOM,			/* the less loaded of two, by weight */
	BALANCE_HASH			/* Maglev on the client's address */
};

#define DEFAULT_MAX_FAILS	1
#define DEFAULT_FAIL_TIMEOUT	10000	/* ms */
#define BACKEND_WEIGHT_MAX	256
#define UPSTREAM_MAX		1024	/* backends of one rule */

/*
 * What balance.c keeps of one upstream while a worker picks: made
 * zeroed by the loader beside the backends, so that each worker, forked
 * with the configuration, counts in its own copy (no lock, no shared
 * write).  The only part of a loaded configuration that changes.
 */
struct backend_load {
	int		active;		/* open connections */
	int		current;	/* smooth round robin's running weight */
};

struct upstream_state {
	uint64_t	rng;		/* the random choices' xorshift64* */
	unsigned	turn;		/* where least-connections breaks ties */
	struct backend_load load[];	/* one per backend, in order */
};

/*
 * One address a rule forwards to: an item of connect, or one of the
 * addresses its name resolved to, each with the item's settings.
 */
struct backend {
	struct sockaddr_any addr;            /* resolved at load time */
	struct sockaddr_any source;          /* bind before connect; port 0 */
	bool                has_source;      /* the rule's source, this family */
	bool                backup;          /* only while no primary is up */
	bool                ranged;          /* its port moves with listen's */
	int                 weight;          /* 1..BACKEND_WEIGHT_MAX */
	int                 max_fails;       /* 0 = no passive accounting */
	int                 fail_timeout;    /* ms */
	int                 max_connections; /* per worker, 0 = no limit */
	unsigned            id;              /* among all of the config's */
	unsigned            stat;            /* its counters (stats.h); a
					      * range's ports share them */
	struct backend_load *load;           /* its upstream's state of it */
	const char         *route;           /* the route it is of (route.h),
					      * NULL: the rule's own */
};

/* Whether a and b are of the same route (or both a rule's own). */
static inline bool
backend_same_route(const struct backend *a, const struct backend *b)
{
	if (a->route == NULL || b->route == NULL)
		return a->route == b->route;
	return strcmp(a->route, b->route) == 0;
}

/*
 * Where a rule forwards to: every address of every item of connect, in
 * the order written (a name's in the resolver's order).  Each connection
 * picks one by the rule's balance; a connect that fails moves on to
 * another while connect_timeout lasts.
 */
struct upstream {
	struct backend *backends;
	size_t          nbackends;           /* 1..UPSTREAM_MAX */
	int             balance;             /* enum balance */
	bool            has_backup;
	uint16_t       *maglev;              /* hash: MAGLEV_SIZE entries */
	struct upstream_state *state;        /* a worker's picks (balance.c) */
};

#endif
