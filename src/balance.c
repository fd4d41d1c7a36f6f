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

#include "balance.h"
#include "clock.h"
#include "conf.h"
#include "health.h"
#include "maglev.h"
#include "route.h"
#include "rule.h"
#include "upstream.h"

/* Which of an upstream's backends a pick may choose. */
struct candidates {
	uint16_t	idx[UPSTREAM_MAX];
	size_t		n;
	int		total;		/* their weights */
};

void
balance_init(const struct conf *cfg)
{
	const struct upstream	*u;
	struct upstream_state	*st;
	uint64_t		 seed;
	size_t			 i, d;

	seed = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)clock_ms();
	for (i = 0; i < cfg->nrules; i++)
		for (d = 0; d < rule_ndests(&cfg->rules[i]); d++) {
			u = &rule_dest(&cfg->rules[i], d)->upstream;
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
 * The backends of tier (primaries, or backups) that may be picked; with
 * any_health, those that are down too.
 */
static void
gather(const struct upstream *u, bool backup, bool any_health,
    uint64_t tried, int64_t now, struct candidates *c)
{
	const struct backend	*b;
	size_t			 i;

	c->n = 0;
	c->total = 0;
	for (i = 0; i < u->nbackends; i++) {
		b = &u->backends[i];
		if (b->backup != backup || (tried & BALANCE_TRIED(i)) ||
		    health_admin(b) != HEALTH_READY ||
		    (b->max_connections > 0 &&
		    balance_active(b) >= b->max_connections) ||
		    (!any_health && health_state(b, now) == HEALTH_DOWN))
			continue;
		c->idx[c->n++] = (uint16_t)i;
		c->total += health_weight(b);
	}
}

/* nginx's smooth weighted round robin: even spread, exact shares. */
static size_t
pick_round_robin(const struct upstream *u, const struct candidates *c)
{
	size_t		i, best = 0;
	int		*w, *bw = NULL;

	for (i = 0; i < c->n; i++) {
		w = &u->backends[c->idx[i]].load->current;
		*w += health_weight(&u->backends[c->idx[i]]);
		if (bw == NULL || *w > *bw) {
			bw = w;
			best = i;
		}
	}
	*bw -= c->total;
	return best;
}

/* Whether a is less loaded than b: open connections per weight. */
static bool
less_loaded(const struct backend *a, const struct backend *b)
{
	return (int64_t)balance_active(a) * health_weight(b) <
	    (int64_t)balance_active(b) * health_weight(a);
}

static size_t
pick_least_connections(const struct upstream *u, const struct candidates *c)
{
	size_t	i, k, best;

	/* Ties go round, not always to the first. */
	best = u->state->turn++ % c->n;
	for (i = 1; i < c->n; i++) {
		k = (best + i) % c->n;
		if (less_loaded(&u->backends[c->idx[k]],
		    &u->backends[c->idx[best]]))
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
		if ((r -= health_weight(&u->backends[c->idx[i]])) < 0)
			break;
	return i;
}

/* Power of two choices: as even as least connections, without herding. */
static size_t
pick_random(const struct upstream *u, const struct candidates *c)
{
	size_t	a = weighted_random(u, c), b = weighted_random(u, c);

	return less_loaded(&u->backends[c->idx[b]], &u->backends[c->idx[a]]) ?
	    b : a;
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

const struct backend *
balance_pick(const struct rule *rule, const struct sockaddr *client,
    uint64_t tried, int64_t now, bool *trial)
{
	const struct upstream	*u = &rule->upstream;
	const struct backend	*b;
	struct candidates	 c;
	uint64_t		 lost = 0;	/* trials another worker took */
	int			 pass;

	/* Primaries; backups while no primary is up; then anything. */
	for (pass = 0; pass < 3; pass++) {
		if (pass == 1 && !u->has_backup)
			continue;
		for (;;) {
			gather(u, pass == 1, pass == 2, pass == 2 ? tried :
			    tried | lost, now, &c);
			if (pass == 2) {
				/* Down or not: primaries, then backups. */
				if (c.n == 0)
					gather(u, true, true, tried, now, &c);
			}
			if (c.n == 0)
				break;
			b = &u->backends[c.idx[pick_one(u, &c, client)]];
			*trial = false;
			if (pass == 2 || health_state(b, now) != HEALTH_TRIAL)
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
	return NULL;
}
