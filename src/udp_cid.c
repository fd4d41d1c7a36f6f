/*
 * udp_cid.c - QUIC connection IDs learned per UDP session, and the
 * worker's table of them (udp_cid.h), so that a session follows its
 * client to a new address.
 *
 * QUIC (RFC 9000 5.1, 9) names a connection by connection IDs, not by
 * addresses: a client behind a NAT that rebinds, or one that migrates,
 * goes on sending from another address.  ferryd keys UDP sessions by
 * address; here a session also keeps the CIDs its packets carry in
 * clear (RFC 9000 17.2, 17.3), at most UDP_CID_PER_SESSION of them, the
 * oldest replaced; a datagram from an address with no session whose
 * Destination CID is one of them is moved to that session: the backend
 * sees the same socket, and replies go to the new address.
 *
 * A short header does not say how long its DCID is: every length some
 * learned CID has is tried (a worker's CIDs are of one or two lengths).
 * The table is one per worker (a worker is one process), bounded at
 * UDP_CIDS_MAX; a CID that matches nothing makes a new session, as
 * any datagram from a new address does.
 *
 * With several workers, a client's new port may steer it to another
 * worker, which holds no session of it: each CID learned here is also
 * published in the workers' shared directory (udp_cid_share.h), where
 * that worker finds whom to ask for the session (udp_follow.h).
 *
 * What is not followed: a CID the server gave in a NEW_CONNECTION_ID
 * frame (encrypted), which a client that migrates on purpose moves to.
 * The move is at once, with no path validation (a QUIC server's, RFC 9000
 * 8.2, is end to end): whoever sees a CID can move the session, until
 * the client's next datagram moves it back.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "bug.h"
#include "client_limit.h"
#include "log.h"
#include "quic_initial.h"
#include "rule.h"
#include "stats.h"
#include "udp_cid.h"
#include "udp_cid_share.h"
#include "udp_client.h"
#include "udp_table.h"
#include "udp_types.h"

#define LONG_HEADER	0x80
#define CID_BUCKETS	4096	/* a power of two */

/* A CID of a session, in the worker's table while len is not 0. */
struct udp_cid {
	struct udp_cid		*next;		/* in its bucket */
	struct udp_session	*s;
	uint32_t		 hash;
	uint8_t			 len;
	uint8_t			 id[QUIC_CID_MAX];
};

/* A session's CIDs: a ring, newest the last learned. */
struct udp_cids {
	struct udp_cid	cid[UDP_CID_PER_SESSION];
	uint8_t		newest;
	uint8_t		short_len;	/* the server's CIDs', once seen */
};

static struct udp_cid	*buckets[CID_BUCKETS];
static size_t		 cids_count;
/* How many CIDs of each length the table holds. */
static size_t		 cids_of_len[QUIC_CID_MAX + 1];

/* The learned CID id (len bytes) of a session of rule, or NULL. */
static struct udp_cid *
cid_find(uint32_t rule, const uint8_t *id, size_t len)
{
	uint32_t	 h = udp_cid_hash(rule, id, len);
	struct udp_cid	*c;

	for (c = buckets[h & (CID_BUCKETS - 1)]; c != NULL; c = c->next)
		if (c->hash == h && c->len == len && c->s->key.rule == rule &&
		    memcmp(c->id, id, len) == 0)
			return c;
	return NULL;
}

/* c leaves the table (its session keeps the slot, now unused). */
static void
cid_drop(struct udp_cid *c)
{
	struct udp_cid **pp = &buckets[c->hash & (CID_BUCKETS - 1)];

	/* a CID in use is in the table, and counted */
	BUG_ON(c->len == 0 || cids_count == 0 || cids_of_len[c->len] == 0);
	while (*pp != c) {
		BUG_ON(*pp == NULL);
		pp = &(*pp)->next;
	}
	*pp = c->next;
	cids_count--;
	cids_of_len[c->len]--;
	stats_rule(c->s->rule)->quic_cids--;
	udp_cid_share_remove(c->s->key.rule, c->hash, c->len);
	c->len = 0;
}

/* Whether s's CIDs hold id (len bytes). */
static bool
cid_known(const struct udp_cids *t, const uint8_t *id, size_t len)
{
	int	i;

	for (i = 0; i < UDP_CID_PER_SESSION; i++)
		if (t->cid[i].len == len && memcmp(t->cid[i].id, id, len) == 0)
			return true;
	return false;
}

/* s learns CID id (len bytes): in its oldest slot, within the bounds. */
static void
cid_learn(struct udp_session *s, const uint8_t *id, size_t len)
{
	static struct log_limit	 limit;
	struct udp_cids		*t = s->cids;
	struct udp_cid		*c;
	int			 slot = (t->newest + 1) % UDP_CID_PER_SESSION;

	if (len < UDP_CID_MIN || len > QUIC_CID_MAX || cid_known(t, id, len))
		return;
	c = &t->cid[slot];
	if (c->len != 0)
		cid_drop(c);		/* the oldest goes */
	else if (cids_count >= UDP_CIDS_MAX) {
		stats_rule(s->rule)->quic_cids_full++;
		log_limited_at(&limit, LOG_LEVEL_NOTICE, "%s: %d QUIC "
		    "connection IDs are tracked already: a session will not "
		    "follow its client to a new address by this one",
		    rule_log_name(s->rule), UDP_CIDS_MAX);
		return;
	}
	BUG_ON(cids_count >= UDP_CIDS_MAX);	/* the bound, kept */
	c->s = s;
	c->len = (uint8_t)len;
	memcpy(c->id, id, len);
	c->hash = udp_cid_hash(s->key.rule, id, len);
	c->next = buckets[c->hash & (CID_BUCKETS - 1)];
	buckets[c->hash & (CID_BUCKETS - 1)] = c;
	t->newest = (uint8_t)slot;
	cids_count++;
	cids_of_len[len]++;
	stats_rule(s->rule)->quic_cids++;
	udp_cid_share_add(s->key.rule, c->hash, len);
}

/*
 * A long header's connection IDs (RFC 9000 17.2): its version, DCID and
 * SCID (pointers into d).  false: not a long header, or cut short.
 */
static bool
long_header(const uint8_t *d, size_t len, uint32_t *version,
    const uint8_t **dcid, size_t *dcid_len, const uint8_t **scid,
    size_t *scid_len)
{
	if (len < 7 || (d[0] & LONG_HEADER) == 0)
		return false;
	*version = (uint32_t)d[1] << 24 | (uint32_t)d[2] << 16 |
	    (uint32_t)d[3] << 8 | d[4];
	*dcid_len = d[5];
	*dcid = d + 6;
	if (*dcid_len > QUIC_CID_MAX || len < 7 + *dcid_len)
		return false;
	*scid_len = d[6 + *dcid_len];
	*scid = d + 7 + *dcid_len;
	return *scid_len <= QUIC_CID_MAX && len >= 7 + *dcid_len + *scid_len;
}

void
udp_cid_start(struct udp_session *s, const uint8_t *d, size_t len)
{
	const uint8_t	*dcid, *scid;
	size_t		 dcid_len, scid_len;
	uint32_t	 version;

	/* Not a UDP-to-TCP session: its replies come framed, unread here. */
	if (s->cids != NULL || s->stream != NULL)
		return;
	if (!long_header(d, len, &version, &dcid, &dcid_len, &scid,
	    &scid_len) || (version != QUIC_V1 && version != QUIC_V2) ||
	    (s->cids = calloc(1, sizeof(*s->cids))) == NULL)
		return;
	s->cids->newest = UDP_CID_PER_SESSION - 1;
	cid_learn(s, dcid, dcid_len);
}

void
udp_cid_client(struct udp_session *s, const struct iovec *iov, int n)
{
	const uint8_t	*d, *dcid, *scid;
	size_t		 len, dcid_len, scid_len;
	uint32_t	 version;

	if (s->cids == NULL || n == 0 || (len = iov[n - 1].iov_len) == 0)
		return;
	d = iov[n - 1].iov_base;
	if ((d[0] & LONG_HEADER) == 0) {
		if (s->cids->short_len != 0 && len > s->cids->short_len)
			cid_learn(s, d + 1, s->cids->short_len);
	} else if (long_header(d, len, &version, &dcid, &dcid_len, &scid,
	    &scid_len) && version != 0)
		cid_learn(s, dcid, dcid_len);
}

/* A reply d (len bytes): the server's SCID, where a long header says it. */
static void
learn_reply(struct udp_session *s, const uint8_t *d, size_t len)
{
	const uint8_t	*dcid, *scid;
	size_t		 dcid_len, scid_len;
	uint32_t	 version;

	/* Version negotiation (0) echoes the client's CIDs: none new. */
	if (!long_header(d, len, &version, &dcid, &dcid_len, &scid,
	    &scid_len) || version == 0 || scid_len < UDP_CID_MIN)
		return;
	cid_learn(s, scid, scid_len);
	s->cids->short_len = (uint8_t)scid_len;
}

void
udp_cid_replies(struct udp_session *s, const struct iovec *iov,
    const uint16_t *seg, int n)
{
	const uint8_t	*d;
	size_t		 off, step;
	int		 i;

	if (s->cids == NULL)
		return;
	for (i = 0; i < n; i++) {
		d = iov[i].iov_base;
		step = seg[i] != 0 ? seg[i] : iov[i].iov_len;
		/* Each datagram of a run read as one starts a packet. */
		for (off = 0; off < iov[i].iov_len; off += step)
			if (d[off] & LONG_HEADER)
				learn_reply(s, d + off, iov[i].iov_len - off <
				    step ? iov[i].iov_len - off : step);
	}
}

/* The learned CID datagram d (len bytes) of rule is sent to, or NULL. */
static struct udp_cid *
cid_of_datagram(uint32_t rule, const uint8_t *d, size_t len)
{
	const uint8_t	*dcid, *scid;
	size_t		 dcid_len, scid_len, n;
	uint32_t	 version;
	struct udp_cid	*c = NULL;

	if (long_header(d, len, &version, &dcid, &dcid_len, &scid, &scid_len))
		return version != 0 ? cid_find(rule, dcid, dcid_len) : NULL;
	if (len == 0 || (d[0] & LONG_HEADER) != 0)
		return NULL;
	/* A short header: its DCID as long as some learned CID. */
	for (n = UDP_CID_MIN; n <= QUIC_CID_MAX && n < len && c == NULL; n++)
		if (cids_of_len[n] > 0)
			c = cid_find(rule, d + 1, n);
	return c;
}

/* s's client is now at from (key k, hash h): the table and limits say so. */
static void
session_move(struct udp_session *s, const struct udp_from *from,
    const struct udp_key *k, uint32_t h)
{
	static struct log_limit	limit;
	char			was[ADDR_STRLEN], now[ADDR_STRLEN];

	(void)addr_format((const struct sockaddr *)&s->client, was,
	    sizeof(was));
	udp_table_remove(s->owner, s);
	memcpy(&s->client, from->client, from->client_len);
	s->client_len = from->client_len;
	s->lfd = from->lfd;
	s->family = from->family;
	s->ifindex = from->ifindex;
	s->key = *k;
	s->hash = h;
	udp_table_add(s->owner, s);
	/* Its client's limits are the new address's from now on. */
	client_limit_release(s->client_hold);
	s->client_hold = udp_client_hold(s);
	stats_rule(s->rule)->quic_migrations++;
	log_limited_at(&limit, LOG_LEVEL_INFO, "%s: QUIC client %s is now at "
	    "%s: its UDP session follows it", rule_log_name(s->rule), was,
	    addr_format(from->client, now, sizeof(now)));
}

struct udp_session *
udp_cid_session(uint32_t rule, const uint8_t *d, size_t len)
{
	struct udp_cid	*c;

	if (cids_count == 0 || (c = cid_of_datagram(rule, d, len)) == NULL)
		return NULL;
	/* Only a session that has its backend socket, and is its client's. */
	if (c->s->state != UDP_ACTIVE || c->s->stream != NULL || c->s->fd == -1)
		return NULL;
	return c->s;
}

struct udp_session *
udp_cid_follow(const struct udp_from *from, const struct udp_key *k,
    uint32_t h, const uint8_t *d, size_t len)
{
	struct udp_session *s = udp_cid_session(k->rule, d, len);

	if (s != NULL)
		session_move(s, from, k, h);
	return s;
}

void
udp_cid_forget(struct udp_session *s)
{
	int	i;

	if (s->cids == NULL)
		return;
	for (i = 0; i < UDP_CID_PER_SESSION; i++)
		if (s->cids->cid[i].len != 0)
			cid_drop(&s->cids->cid[i]);
	free(s->cids);
	s->cids = NULL;
}

void
udp_cid_pack(const struct udp_session *s, struct udp_cid_carry *c)
{
	const struct udp_cid	*from;
	int			 i;

	memset(c, 0, sizeof(*c));
	if (s->cids == NULL)
		return;
	c->short_len = s->cids->short_len;
	for (i = 0; i < UDP_CID_PER_SESSION; i++) {
		/* The oldest first: learned in this order, the ring is kept. */
		from = &s->cids->cid[(s->cids->newest + 1 + i) %
		    UDP_CID_PER_SESSION];
		c->len[i] = from->len;
		memcpy(c->id[i], from->id, from->len);
	}
}

void
udp_cid_unpack(struct udp_session *s, const struct udp_cid_carry *c)
{
	int	i;

	for (i = 0; i < UDP_CID_PER_SESSION; i++) {
		if (c->len[i] == 0 || c->len[i] > sizeof(c->id[i]))
			continue;
		if (s->cids == NULL) {
			if ((s->cids = calloc(1, sizeof(*s->cids))) == NULL)
				return;
			s->cids->newest = UDP_CID_PER_SESSION - 1;
		}
		cid_learn(s, c->id[i], c->len[i]);
	}
	if (s->cids != NULL && c->short_len <= QUIC_CID_MAX)
		s->cids->short_len = c->short_len;
}
