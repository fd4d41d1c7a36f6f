/*
 * balance.c - pick a backend: smooth weighted round robin (nginx's),
 * weighted least connections, the less loaded of two weighted random
 * choices, or Maglev consistent hashing of the client's address.  What
 * a worker counts and turns is each upstream's own (upstream.h).
 */
#include "ferryd.h"

#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "balance.h"
#include "bug.h"
#include "clock.h"
#include "health.h"
#include "log.h"
#include "maglev.h"
#include "route.h"
#include "rule.h"
#include "upstream.h"

/* Which of an upstream's backends a pick may choose. */
struct candidates {
	uint16_t	idx[UPSTREAM_MAX];
	int		w[UPSTREAM_MAX];	/* their weights now */
	size_t		n;
	int		total;		/* ... summed */
};

/*
 * Weights are counted in sixteenths, so that slow_start can ramp even a
 * weight of 1: from a sixteenth of it when the backend comes up (or
 * back, or is enabled again) to all of it after slow_start, in a line.
 * The start is the backend's health cell's (health_since), which every
 * worker reads: all of them ramp alike.
 */
#define RAMP_STEPS	16

static int
weight_now(const struct backend *b, int64_t now)
{
	int64_t	w = (int64_t)health_weight(b) * RAMP_STEPS, since, t;

	if (b->slow_start > 0 && (since = health_since(b)) != 0 &&
	    (t = now - since) < b->slow_start)
		w = w * (1 + (RAMP_STEPS - 1) * (t > 0 ? t : 0) /
		    b->slow_start) / RAMP_STEPS;
	return (int)w;
}

void
balance_init(const struct rule *rules, size_t nrules)
{
	const struct upstream	*u;
	struct upstream_state	*st;
	uint64_t		 seed;
	size_t			 i, d;

	seed = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)clock_ms();
	for (i = 0; i < nrules; i++)
		for (d = 0; d < rule_ndests(&rules[i]); d++) {
			u = &rule_dest(&rules[i], d)->upstream;
			st = u->state;
			memset(st->load, 0, u->nbackends * sizeof(st->load[0]));
			st->turn = 0;
			/* Each upstream its own sequence. */
			st->rng = seed + (uint64_t)(i * ROUTES_MAX + d) *
			    0x9e3779b97f4a7c15ULL;
		}
}

static uint64_t
random64(struct upstream_state *st)
{
	/* xorshift64*: not for secrets, only for spreading load. */
	st->rng ^= st->rng >> 12;
	st->rng ^= st->rng << 25;
	st->rng ^= st->rng >> 27;
	return st->rng * 0x2545f4914f6cdd1dULL;
}

int
balance_active(const struct backend *b)
{
	return b->load->active;
}

void
balance_acquire(const struct backend *b)
{
	b->load->active++;
}

void
balance_release(const struct backend *b)
{
	if (b->load->active > 0)
		b->load->active--;
}

/*
 * Which backends a pass of balance_pick() may choose: those taking new
 * connections that are up; drained ones that are up, the last resort
 * before those that are down; then any not disabled, down or not.
 */
enum take { TAKE_UP, TAKE_DRAINED, TAKE_ANY };

static bool
takes(const struct backend *b, enum take take, int64_t now)
{
	int	admin = health_admin(b);

	switch (take) {
	case TAKE_UP:
		return admin == HEALTH_READY &&
		    health_state(b, now) != HEALTH_DOWN;
	case TAKE_DRAINED:
		return admin == HEALTH_DRAIN &&
		    health_state(b, now) == HEALTH_UP;
	default:
		return admin != HEALTH_DISABLED;
	}
}

/* The backends of tier (primaries, or backups) that take may choose. */
static void
gather(const struct upstream *u, bool backup, enum take take,
    uint64_t tried, int64_t now, struct candidates *c)
{
	const struct backend	*b;
	size_t			 i;

	c->n = 0;
	c->total = 0;
	for (i = 0; i < u->nbackends; i++) {
		b = &u->backends[i];
		if (b->backup != backup || (tried & BALANCE_TRIED(i)) ||
		    (b->max_connections > 0 &&
		    balance_active(b) >= b->max_connections) ||
		    !takes(b, take, now))
			continue;
		c->w[c->n] = weight_now(b, now);
		c->total += c->w[c->n];
		c->idx[c->n++] = (uint16_t)i;
	}
	BUG_ON(c->total < 0);	/* weights are never negative */
}

/* nginx's smooth weighted round robin: even spread, exact shares. */
static size_t
pick_round_robin(const struct upstream *u, const struct candidates *c)
{
	size_t		i, best = 0;
	int		*w, *bw = NULL;

	for (i = 0; i < c->n; i++) {
		w = &u->backends[c->idx[i]].load->current;
		*w += c->w[i];
		if (bw == NULL || *w > *bw) {
			bw = w;
			best = i;
		}
	}
	*bw -= c->total;
	return best;
}

/* Whether candidate a is less loaded than b: open connections per weight. */
static bool
less_loaded(const struct upstream *u, const struct candidates *c, size_t a,
    size_t b)
{
	return (int64_t)balance_active(&u->backends[c->idx[a]]) * c->w[b] <
	    (int64_t)balance_active(&u->backends[c->idx[b]]) * c->w[a];
}

static size_t
pick_least_connections(const struct upstream *u, const struct candidates *c)
{
	size_t	i, k, best;

	/* Ties go round, not always to the first. */
	best = u->state->turn++ % c->n;
	for (i = 1; i < c->n; i++) {
		k = (best + i) % c->n;
		if (less_loaded(u, c, k, best))
			best = k;
	}
	return best;
}

/* One candidate at random, in proportion to its weight. */
static size_t
weighted_random(const struct upstream *u, const struct candidates *c)
{
	int64_t	r = (int64_t)(random64(u->state) % (uint64_t)c->total);
	size_t	i;

	for (i = 0; i + 1 < c->n; i++)
		if ((r -= c->w[i]) < 0)
			break;
	return i;
}

/* Power of two choices: as even as least connections, without herding. */
static size_t
pick_random(const struct upstream *u, const struct candidates *c)
{
	size_t	a = weighted_random(u, c), b = weighted_random(u, c);

	return less_loaded(u, c, b, a) ? b : a;
}

/* The client's address as the hash's key: IPv4-mapped as IPv4. */
static uint64_t
client_key(const struct sockaddr *sa)
{
	const struct sockaddr_in	*sin = (const void *)sa;
	const struct sockaddr_in6	*sin6 = (const void *)sa;

	if (sa == NULL)
		return 0;
	if (sa->sa_family == AF_INET)
		return maglev_key(&sin->sin_addr, 4);
	if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
		return maglev_key(&sin6->sin6_addr.s6_addr[12], 4);
	return maglev_key(&sin6->sin6_addr, 16);
}

/*
 * The client's entry of the Maglev table, or the next one along whose
 * backend is a candidate: a backend that is down or full passes its
 * clients on without moving anyone else's.
 */
static size_t
pick_hash(const struct upstream *u, const struct candidates *c,
    const struct sockaddr *client)
{
	unsigned char	ok[UPSTREAM_MAX];
	size_t		i, slot = (size_t)(client_key(client) % MAGLEV_SIZE);

	memset(ok, 0, u->nbackends);
	for (i = 0; i < c->n; i++)
		ok[c->idx[i]] = 1;
	for (i = 0; i < MAGLEV_SIZE; i++, slot = (slot + 1) % MAGLEV_SIZE)
		if (ok[u->maglev[slot]])
			break;
	for (i = 0; i < c->n; i++)
		if (c->idx[i] == u->maglev[slot])
			return i;
	return 0;
}

static size_t
pick_one(const struct upstream *u, const struct candidates *c,
    const struct sockaddr *client)
{
	BUG_ON(c->n == 0 || c->n > u->nbackends);
	if (c->n == 1)
		return 0;
	switch (u->balance) {
	case BALANCE_LEAST_CONNECTIONS:
		return pick_least_connections(u, c);
	case BALANCE_RANDOM:
		return pick_random(u, c);
	case BALANCE_HASH:
		return pick_hash(u, c, client);
	default:
		return pick_round_robin(u, c);
	}
}

/*
 * A last resort, when no backend taking new connections is up: one of
 * those take may choose, primaries first, then backups.
 */
static const struct backend *
pick_last_resort(const struct upstream *u, enum take take,
    const struct sockaddr *client, uint64_t tried, int64_t now)
{
	struct candidates	c;

	gather(u, false, take, tried, now, &c);
	if (c.n == 0)
		gather(u, true, take, tried, now, &c);
	return c.n == 0 ? NULL : &u->backends[c.idx[pick_one(u, &c, client)]];
}

/* An operator who drained b should know that it still takes clients. */
static void
log_last_resort(const struct rule *rule, const struct backend *b)
{
	static struct log_limit	limit;
	char			addr[ADDR_STRLEN];

	log_limited_at(&limit, LOG_LEVEL_NOTICE, "backend %s of rule %s is "
	    "drained but takes a new connection as the last resort: no other "
	    "backend is up", addr_format((const void *)&b->addr.ss, addr,
	    sizeof(addr)), rule_log_name(rule));
}

const struct backend *
balance_pick(const struct rule *rule, const struct sockaddr *client,
    uint64_t tried, int64_t now, bool *trial)
{
	const struct upstream	*u = &rule->upstream;
	const struct backend	*b;
	struct candidates	 c;
	uint64_t		 lost = 0;	/* trials another worker took */
	int			 tier;

	*trial = false;
	/* Primaries; backups while no primary is up. */
	for (tier = 0; tier < 2; tier++) {
		if (tier == 1 && !u->has_backup)
			break;
		for (;;) {
			gather(u, tier == 1, TAKE_UP, tried | lost, now, &c);
			if (c.n == 0)
				break;
			b = &u->backends[c.idx[pick_one(u, &c, client)]];
			if (health_state(b, now) != HEALTH_TRIAL)
				return b;
			/*
			 * One trial per fail_timeout, across workers; the
			 * loser of the race may still try it below, when
			 * nothing else is up.
			 */
			if ((*trial = health_claim_trial(b, now)))
				return b;
			lost |= BALANCE_TRIED((size_t)(b - u->backends));
		}
	}
	/* Then a drained backend that is up; then anything, down or not. */
	if ((b = pick_last_resort(u, TAKE_DRAINED, client, tried, now)) != NULL) {
		log_last_resort(rule, b);
		return b;
	}
	return pick_last_resort(u, TAKE_ANY, client, tried, now);
}
