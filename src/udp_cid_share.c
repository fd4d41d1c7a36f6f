/*
 * udp_cid_share.c - the workers' shared directory of QUIC connection
 * IDs (udp_cid_share.h).
 *
 * A partition is a filter of fingerprints: a CID's hash picks a bucket
 * (its low bits) and a 16-bit fingerprint (its high bits, never 0), kept
 * in one of the bucket's SHARE_WAYS places; a CID past them is counted
 * in the bucket's spill, which makes the whole bucket match (a false
 * match at worst, which the holder refuses; 255 stays).  A DCID
 * matches a partition only if its fingerprint is in its bucket: with a
 * worker's most CIDs (UDP_CIDS_MAX, as many as buckets), a random DCID
 * matches about once in 60000 per length tried, where a bare count per
 * bucket matched it once in 5.  The partition also counts its CIDs of each length and of
 * each rule (by the rule's number modulo SHARE_RULES): only lengths in
 * use are tried, and a datagram of a rule no partition has CIDs of
 * costs no hashing at all.
 *
 * Its owner is the pid of the worker that writes it: a worker whose
 * slot the master gave to a new worker (a reload, a respawn) sees
 * another owner and writes no more.  A write under way while the master
 * resets the partition may leave a count behind: a false match, until
 * the slot's worker is replaced again.
 */
#include "ferryd.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "quic_initial.h"
#include "udp_cid_share.h"

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

#define SHARE_BUCKETS	16384	/* a power of two */
#define SHARE_WAYS	8	/* fingerprints a bucket keeps */
#define SHARE_RULES	64
/*
 * A short header's first bit is 0.  Its second, the fixed bit, may be
 * 0 too: a peer that allows it greases it (RFC 9287; ngtcp2 does).
 */
#define LONG_HEADER	0x80

struct share_part {
	volatile pid_t		owner;		/* 0: no worker writes it */
	volatile uint32_t	count;
	volatile uint32_t	of_len[QUIC_CID_MAX + 1];
	volatile uint32_t	of_rule[SHARE_RULES];
	volatile uint16_t	fp[SHARE_BUCKETS][SHARE_WAYS]; /* 0: free */
	volatile uint8_t	spill[SHARE_BUCKETS];
} __attribute__((aligned(64)));

static struct share_part	*parts;		/* nparts of them */
static int			 nparts;
static struct share_part	*mine;		/* this worker's, or NULL */
static int			 my_slot = -1;
static pid_t			 my_pid;

uint32_t
udp_cid_hash(uint32_t rule, const uint8_t *id, size_t len)
{
	uint32_t	h = 2166136261u;	/* FNV-1a */
	size_t		i;

	for (i = 0; i < sizeof(rule); i++)
		h = (h ^ (uint8_t)(rule >> (8 * i))) * 16777619u;
	for (i = 0; i < len; i++)
		h = (h ^ id[i]) * 16777619u;
	return (h ^ (uint32_t)len) * 16777619u;
}

int
udp_cid_share_open(int nslots)
{
	void *p;

	if (parts != NULL)
		return 0;
	/* Pages of slots never used are never touched: not allocated. */
	p = mmap(NULL, (size_t)nslots * sizeof(*parts), PROT_READ |
	    PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	parts = p;
	nparts = nslots;
	return 0;
}

/* Slot's partition, empty and no one's. */
static void
part_clear(struct share_part *p)
{
	p->owner = 0;
	__sync_synchronize();	/* its old owner stops writing first */
	memset((void *)(uintptr_t)&p->count, 0, sizeof(*p) -
	    offsetof(struct share_part, count));
}

void
udp_cid_share_reset(int slot)
{
	if (parts != NULL && slot >= 0 && slot < nparts)
		part_clear(&parts[slot]);
}

void
udp_cid_share_gone(int slot, pid_t pid)
{
	if (parts != NULL && slot >= 0 && slot < nparts &&
	    parts[slot].owner == pid)
		part_clear(&parts[slot]);
}

void
udp_cid_share_claim(int slot)
{
	if (parts == NULL || slot < 0 || slot >= nparts)
		return;
	my_slot = slot;
	my_pid = getpid();
	mine = &parts[slot];
	mine->owner = my_pid;
}

/* The partition this worker may write now, or NULL. */
static struct share_part *
writable(void)
{
	return mine != NULL && mine->owner == my_pid ? mine : NULL;
}

/* *n counted by one more (by 1) or one less (-1), never below 0. */
static void
bump(volatile uint32_t *n, int by)
{
	if (by > 0)
		(*n)++;
	else if (*n > 0)	/* a reset came between learning and now */
		(*n)--;
}

/* The bucket of CID hash h, and its fingerprint there. */
static size_t
bucket_of(uint32_t h)
{
	return h & (SHARE_BUCKETS - 1);
}

static uint16_t
fingerprint_of(uint32_t h)
{
	return h >> 16 != 0 ? (uint16_t)(h >> 16) : 1;
}

/* The place of h's bucket in p that holds want (0: a free one), or -1. */
static int
place_of(const struct share_part *p, uint32_t h, uint16_t want)
{
	int i;

	for (i = 0; i < SHARE_WAYS; i++)
		if (p->fp[bucket_of(h)][i] == want)
			return i;
	return -1;
}

/* CID hash h put in p's filter. */
static void
filter_add(struct share_part *p, uint32_t h)
{
	volatile uint8_t	*spill = &p->spill[bucket_of(h)];
	int			 i = place_of(p, h, 0);

	if (i != -1)
		p->fp[bucket_of(h)][i] = fingerprint_of(h);
	else if (*spill < UINT8_MAX)
		(*spill)++;		/* 255: it stays */
}

/* CID hash h taken out of p's filter (nothing, after a reset). */
static void
filter_remove(struct share_part *p, uint32_t h)
{
	volatile uint8_t	*spill = &p->spill[bucket_of(h)];
	int			 i = place_of(p, h, fingerprint_of(h));

	if (i != -1)
		p->fp[bucket_of(h)][i] = 0;
	else if (*spill > 0 && *spill < UINT8_MAX)
		(*spill)--;
}

/* Whether CID hash h may be in p's filter. */
static bool
filter_has(const struct share_part *p, uint32_t h)
{
	return p->spill[bucket_of(h)] > 0 ||
	    place_of(p, h, fingerprint_of(h)) != -1;
}

/* CID hash (len bytes) of rule learned (by 1) or forgotten (-1). */
static void
share_count(uint32_t rule, uint32_t hash, size_t len, int by)
{
	struct share_part *p = writable();

	if (p == NULL || len > QUIC_CID_MAX)
		return;
	if (by > 0)
		filter_add(p, hash);
	else
		filter_remove(p, hash);
	bump(&p->of_len[len], by);
	bump(&p->of_rule[rule % SHARE_RULES], by);
	bump(&p->count, by);
}

void
udp_cid_share_add(uint32_t rule, uint32_t hash, size_t len)
{
	share_count(rule, hash, len, 1);
}

void
udp_cid_share_remove(uint32_t rule, uint32_t hash, size_t len)
{
	share_count(rule, hash, len, -1);
}

/* Whether p may hold a CID of rule that d's DCID is. */
static bool
part_may_hold(const struct share_part *p, uint32_t rule, const uint8_t *d,
    size_t len)
{
	size_t n;

	if (p->count == 0 || p->of_rule[rule % SHARE_RULES] == 0)
		return false;
	for (n = 1; n <= QUIC_CID_MAX && n < len; n++)
		if (p->of_len[n] > 0 &&
		    filter_has(p, udp_cid_hash(rule, d + 1, n)))
			return true;
	return false;
}

int
udp_cid_share_holder(uint32_t rule, const uint8_t *d, size_t len,
    int nslots, int after)
{
	int slot;

	if (parts == NULL || len == 0 || (d[0] & LONG_HEADER) != 0)
		return -1;
	for (slot = after + 1; slot < nslots && slot < nparts; slot++)
		if (slot != my_slot &&
		    part_may_hold(&parts[slot], rule, d, len))
			return slot;
	return -1;
}
