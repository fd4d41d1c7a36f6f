/*
 * client_limit.c - the tables behind max_connections_per_client and
 * connection_rate (client_limit.h says what and why).
 *
 * A table is open addressing with linear probing, at most
 * CLIENT_LIMIT_PROBES entries from a pair's home.  An entry is never
 * emptied again (lookups stop at an empty one), but one with nothing
 * open and nothing started in the last two seconds is reused by its
 * writer for another pair.  Changing an entry's pair is the only write
 * of more than one word, so it alone goes under a sequence number:
 * readers skip an entry whose number was odd or moved while they read
 * it, which can only hide a pair that had nothing to count or the
 * single connection just being counted.  Counts themselves are single
 * atomic stores by the one writer.
 *
 * When a worker's table has no room near a pair's home, the client is
 * let in uncounted (fail open): a full table means many addresses at
 * once, and refusing then would let whoever owns many addresses shut
 * everyone out.  It is logged, rate-limited.
 */
#include "ferryd.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>

#include "addr.h"
#include "client_limit.h"
#include "log.h"
#include "rule.h"
#include "scoreboard.h"

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif
#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

#define TABLES	SCOREBOARD_CELLS	/* one per worker process */

/*
 * rate: the second (of the monotonic clock) of the last connection
 * counted, and how many were counted in it and in the second before,
 * 16 bits each: a connection is counted only under connection_rate,
 * which is at most CONNECTION_RATE_MAX.
 */
struct client_entry {
	uint32_t	seq;		/* odd while the pair changes */
	uint32_t	open;		/* connections open now */
	uint64_t	rule;		/* rule.client_key; 0: never used */
	uint64_t	addr[2];	/* the client, IPv4 as ::ffff:a.b.c.d */
	uint64_t	rate;		/* second << 32 | before << 16 | this */
};

struct client_table {
	struct client_entry e[CLIENT_LIMIT_ENTRIES];
};

struct client_region {
	uint64_t	live[TABLES / 64];	/* the master's: tables read */
	uint32_t	used[TABLES];		/* its worker wrote to it */
	struct client_table table[TABLES];
};

static struct client_region	*region;
static struct client_table	*mine;		/* this worker's */
static int			 mine_cell = -1;

bool
client_limit_wanted(const struct rule *rules, size_t nrules)
{
	size_t i;

	for (i = 0; i < nrules; i++)
		if (client_limited(&rules[i]))
			return true;
	return false;
}

int
client_limit_open(void)
{
	void *p;

	if (region != NULL)
		return 0;
	/* Pages are touched only as tables fill: most are never. */
	p = mmap(NULL, sizeof(*region), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	region = p;
	return 0;
}

static bool
cell_valid(int cell)
{
	return region != NULL && cell >= 0 && cell < TABLES;
}

/* Master: empty cell's table, touching its pages only if it was used. */
static void
table_clear(int cell)
{
	if (!__atomic_load_n(&region->used[cell], __ATOMIC_ACQUIRE))
		return;
	memset(&region->table[cell], 0, sizeof(region->table[cell]));
	__atomic_store_n(&region->used[cell], 0, __ATOMIC_RELEASE);
}

void
client_limit_table_start(int cell)
{
	if (!cell_valid(cell))
		return;
	table_clear(cell);
	__atomic_fetch_or(&region->live[cell / 64], (uint64_t)1 << (cell % 64),
	    __ATOMIC_RELEASE);
}

void
client_limit_table_gone(int cell)
{
	if (!cell_valid(cell))
		return;
	/*
	 * Unread first; a reader that loaded the live word just before may
	 * still sum it half zeroed: it counts less for that one check.
	 */
	__atomic_fetch_and(&region->live[cell / 64],
	    ~((uint64_t)1 << (cell % 64)), __ATOMIC_RELEASE);
	table_clear(cell);
}

void
client_limit_worker_begin(int cell)
{
	mine = cell_valid(cell) ? &region->table[cell] : NULL;
	mine_cell = mine != NULL ? cell : -1;
}

/* peer's address as 16 bytes: IPv4 as its IPv4-mapped IPv6 address. */
static void
client_addr(const struct sockaddr_any *peer, uint64_t out[2])
{
	const struct addr_unix_peer *cred;
	unsigned char	b[16];

	memset(b, 0, sizeof(b));
	if (peer->ss.ss_family == AF_INET) {
		b[10] = b[11] = 0xff;
		memcpy(b + 12, &((const struct sockaddr_in *)&peer->ss)->
		    sin_addr, 4);
	} else if (peer->ss.ss_family == AF_INET6)
		memcpy(b, &((const struct sockaddr_in6 *)&peer->ss)->sin6_addr,
		    16);
	else if ((cred = addr_unix_cred((const void *)&peer->ss)) != NULL)
		/* A Unix client is its user: no IP rule shares the table. */
		memcpy(b, &cred->uid, sizeof(cred->uid));
	memcpy(out, b, sizeof(b));
}

/* The pair's home in a table: the same in every worker's. */
static unsigned
pair_home(uint64_t rule, const uint64_t addr[2])
{
	uint64_t h = rule ^ (addr[0] * 0x9e3779b97f4a7c15ULL) ^
	    (addr[1] * 0xc2b2ae3d27d4eb4fULL);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return (unsigned)h & (CLIENT_LIMIT_ENTRIES - 1);
}

/*
 * Unpack rate at second sec: counted this second and the one before.
 * A writer whose loop's clock is already in the next second (each
 * worker caches its own) counts as this second.
 */
static void
rate_at(uint64_t rate, uint32_t sec, uint32_t *cur, uint32_t *prev)
{
	uint32_t at = (uint32_t)(rate >> 32);

	*cur = *prev = 0;
	if (at == sec || at == sec + 1) {
		*cur = (uint32_t)(rate & 0xffff);
		*prev = (uint32_t)((rate >> 16) & 0xffff);
	} else if (at == sec - 1)
		*prev = (uint32_t)(rate & 0xffff);
}

static uint32_t
second_of(int64_t now)
{
	return (uint32_t)(now / 1000);
}

struct client_sum {
	uint32_t	open, cur, prev;
};

/* Add what table t holds of (rule, addr) to sum. */
static void
table_add(const struct client_table *t, uint64_t rule, const uint64_t addr[2],
    unsigned home, uint32_t sec, struct client_sum *sum)
{
	const struct client_entry	*e;
	uint32_t			 s1, open, cur, prev;
	uint64_t			 r, a0, a1, rate;
	unsigned			 i;

	for (i = 0; i < CLIENT_LIMIT_PROBES; i++) {
		e = &t->e[(home + i) & (CLIENT_LIMIT_ENTRIES - 1)];
		s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		r = __atomic_load_n(&e->rule, __ATOMIC_RELAXED);
		if (r == 0)
			return;		/* never used: the pair is not here */
		a0 = __atomic_load_n(&e->addr[0], __ATOMIC_RELAXED);
		a1 = __atomic_load_n(&e->addr[1], __ATOMIC_RELAXED);
		open = __atomic_load_n(&e->open, __ATOMIC_RELAXED);
		rate = __atomic_load_n(&e->rate, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if ((s1 & 1) != 0 ||
		    __atomic_load_n(&e->seq, __ATOMIC_RELAXED) != s1 ||
		    r != rule || a0 != addr[0] || a1 != addr[1])
			continue;
		rate_at(rate, sec, &cur, &prev);
		sum->open += open;
		sum->cur += cur;
		sum->prev += prev;
		return;
	}
}

enum client_verdict
client_limit_check(const struct rule *rule, const struct sockaddr_any *peer,
    int64_t now, unsigned *seen)
{
	struct client_sum	 sum = { 0, 0, 0 };
	uint64_t		 addr[2], live, est;
	uint32_t		 sec = second_of(now);
	unsigned		 home, w;
	int			 bit;

	*seen = 0;
	if (region == NULL || !client_limited(rule))
		return CLIENT_ADMIT;
	client_addr(peer, addr);
	home = pair_home(rule->client_key, addr);
	for (w = 0; w < TABLES / 64; w++) {
		live = __atomic_load_n(&region->live[w], __ATOMIC_ACQUIRE);
		while (live != 0) {
			bit = __builtin_ctzll(live);
			live &= live - 1;
			table_add(&region->table[w * 64 + (unsigned)bit],
			    rule->client_key, addr, home, sec, &sum);
		}
	}
	if (rule->max_connections_per_client > 0 &&
	    sum.open >= (uint32_t)rule->max_connections_per_client) {
		*seen = sum.open;
		return CLIENT_OVER_MAX;
	}
	/*
	 * A sliding second: this second's count, and the last second's
	 * weighted by how much of it the window still covers.  In
	 * thousandths, so that no division rounds a burst away.
	 */
	est = (uint64_t)sum.cur * 1000 + (uint64_t)sum.prev *
	    (uint64_t)(1000 - now % 1000);
	if (rule->connection_rate > 0 &&
	    est >= (uint64_t)rule->connection_rate * 1000) {
		*seen = (unsigned)((est + 999) / 1000);
		return CLIENT_OVER_RATE;
	}
	return CLIENT_ADMIT;
}

/* e can take another pair: nothing open, nothing started lately. */
static bool
entry_idle(const struct client_entry *e, uint32_t sec)
{
	uint32_t cur, prev;

	rate_at(e->rate, sec, &cur, &prev);
	return e->open == 0 && cur == 0 && prev == 0;
}

/*
 * Count a connection started at second sec in e (this worker's); its
 * start only where the rule has a connection_rate (rated): a start
 * keeps the entry from being reused for two seconds, which a rule that
 * only limits open connections must not pay with its table's room.
 */
static void
entry_take(struct client_entry *e, uint32_t sec, bool rated)
{
	uint32_t cur, prev;

	if (rated) {
		rate_at(e->rate, sec, &cur, &prev);
		if (cur < 0xffff)
			cur++;
		__atomic_store_n(&e->rate, (uint64_t)sec << 32 |
		    (uint64_t)prev << 16 | cur, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&e->open, e->open + 1, __ATOMIC_RELAXED);
}

int
client_limit_hold(const struct rule *rule, const struct sockaddr_any *peer,
    int64_t now)
{
	static struct log_limit	 limit;
	struct client_entry	*e;
	uint64_t		 addr[2];
	uint32_t		 sec = second_of(now);
	unsigned		 home, i, idx;
	int			 reuse = -1;
	char			 client[ADDR_STRLEN];

	if (mine == NULL || !client_limited(rule))
		return -1;
	client_addr(peer, addr);
	home = pair_home(rule->client_key, addr);
	for (i = 0; i < CLIENT_LIMIT_PROBES; i++) {
		idx = (home + i) & (CLIENT_LIMIT_ENTRIES - 1);
		e = &mine->e[idx];
		if (e->rule == 0) {
			if (reuse == -1)
				reuse = (int)idx;
			break;
		}
		if (e->rule == rule->client_key && e->addr[0] == addr[0] &&
		    e->addr[1] == addr[1]) {
			entry_take(e, sec, rule->connection_rate > 0);
			return (int)idx;
		}
		if (reuse == -1 && entry_idle(e, sec))
			reuse = (int)idx;
	}
	if (reuse == -1) {
		log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: client %s let "
		    "in uncounted: this worker's table of clients is full "
		    "(%d pairs of rule and client near its place)",
		    rule_log_name(rule), addr_host((const struct sockaddr *)
		    &peer->ss, client, sizeof(client)), CLIENT_LIMIT_PROBES);
		return -1;
	}
	e = &mine->e[reuse];
	if (!region->used[mine_cell])
		__atomic_store_n(&region->used[mine_cell], 1,
		    __ATOMIC_RELEASE);
	/* Readers skip the entry while its pair changes. */
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&e->rule, rule->client_key, __ATOMIC_RELAXED);
	__atomic_store_n(&e->addr[0], addr[0], __ATOMIC_RELAXED);
	__atomic_store_n(&e->addr[1], addr[1], __ATOMIC_RELAXED);
	__atomic_store_n(&e->open, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->rate, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
	entry_take(e, sec, rule->connection_rate > 0);
	return reuse;
}

void
client_limit_release(int hold)
{
	struct client_entry *e;

	if (hold < 0 || mine == NULL || hold >= CLIENT_LIMIT_ENTRIES)
		return;
	e = &mine->e[hold];
	if (e->open > 0)
		__atomic_store_n(&e->open, e->open - 1, __ATOMIC_RELAXED);
}
