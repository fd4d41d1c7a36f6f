/*
 * test_cid.c - UDP sessions that follow a QUIC client (udp_cid.c): the
 * connection IDs learned from the client's long and short headers and
 * the backend's long-header replies (runs read as one too), a datagram
 * from a new address moved to its session (the table re-keyed), what is
 * not followed (an unknown CID, another rule, an undecided session,
 * version negotiation, not QUIC), a session's 4 CIDs (the oldest
 * replaced), the worker's bound (counted), the CIDs carried at a
 * reload, and the workers' shared directory of them.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "event.h"
#include "quic_initial.h"
#include "rule.h"
#include "stats.h"
#include "testlib.h"
#include "udp_cid.h"
#include "udp_cid_share.h"
#include "udp_table.h"
#include "udp_types.h"

static const char text[] =
	"rules = (\n"
	"  { name = \"h3\"; listen = \"127.0.0.1:8443\"; protocol = \"udp\";\n"
	"    connect = \"127.0.0.1:9443\"; max_sessions = 8000; },\n"
	"  { name = \"other\"; listen = \"127.0.0.1:8444\";\n"
	"    protocol = \"udp\"; connect = \"127.0.0.1:9444\"; } );\n";

static struct udp_sessions	*us;
static const struct conf	*cfg;

/* Where a datagram from 127.0.0.1:port to rule r came from, and its key. */
static struct sockaddr_in	 from_sin;
static struct udp_from
from_port(const struct rule *r, unsigned port, struct udp_key *k,
    uint32_t *h)
{
	struct udp_from from;

	memset(&from, 0, sizeof(from));
	memset(&from_sin, 0, sizeof(from_sin));
	from_sin.sin_family = AF_INET;
	from_sin.sin_port = htons((uint16_t)port);
	from_sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	from.rule = r;
	from.client = (const struct sockaddr *)&from_sin;
	from.client_len = sizeof(from_sin);
	from.lfd = 3;
	from.family = AF_INET;
	udp_key_make(us, &from, k);
	*h = udp_key_hash(k);
	return from;
}

/* An active session of rule r's client 127.0.0.1:port, in the table. */
static struct udp_session *
session_at(const struct rule *r, unsigned port)
{
	struct udp_session	*s = calloc(1, sizeof(*s));
	struct udp_from		 from;
	struct udp_key		 k;
	uint32_t		 h;

	if (s == NULL)
		abort();
	from = from_port(r, port, &k, &h);
	s->owner = us;
	s->rule = r;
	s->state = UDP_ACTIVE;
	s->fd = 1000;		/* never used: not -1 */
	s->client_hold = -1;
	memcpy(&s->client, from.client, from.client_len);
	s->client_len = from.client_len;
	s->key = k;
	s->hash = h;
	udp_table_add(us, s);
	return s;
}

static void
session_gone(struct udp_session *s)
{
	udp_cid_forget(s);
	udp_table_remove(us, s);
	free(s);
}

/* A long header of type bits (0xc0 Initial, 0xe0 Handshake), version v. */
static size_t
long_packet(uint8_t *d, uint8_t type, uint32_t v, uint8_t dcid,
    uint8_t dlen, uint8_t scid, uint8_t slen)
{
	size_t	n = 0;

	d[n++] = type;
	d[n++] = (uint8_t)(v >> 24);
	d[n++] = (uint8_t)(v >> 16);
	d[n++] = (uint8_t)(v >> 8);
	d[n++] = (uint8_t)v;
	d[n++] = dlen;
	memset(d + n, dcid, dlen);
	n += dlen;
	d[n++] = slen;
	memset(d + n, scid, slen);
	n += slen;
	memset(d + n, 0, 40);		/* token length, length, payload */
	return n + 40;
}

/* A short header to a DCID of len bytes of cid. */
static size_t
short_packet(uint8_t *d, uint8_t cid, uint8_t len)
{
	d[0] = 0x40;
	memset(d + 1, cid, len);
	memset(d + 1 + len, 0x5a, 24);
	return 1 + (size_t)len + 24;
}

/* The session datagram d (len bytes) from 127.0.0.1:port follows, or NULL. */
static struct udp_session *
follow(const struct rule *r, unsigned port, const uint8_t *d, size_t len)
{
	struct udp_from	from;
	struct udp_key	k;
	uint32_t	h;

	from = from_port(r, port, &k, &h);
	return udp_cid_follow(&from, &k, h, d, len);
}

/* The session a short header to cid (len bytes) from port follows. */
static struct udp_session *
follow_short(const struct rule *r, unsigned port, uint8_t cid, uint8_t len)
{
	uint8_t	d[64];
	size_t	n = short_packet(d, cid, len);

	return follow(r, port, d, n);
}

/* s's client port now. */
static unsigned
port_now(const struct udp_session *s)
{
	return ntohs(s->client.sin6_port);
}

static void
reply(struct udp_session *s, const uint8_t *d, size_t len, uint16_t seg)
{
	struct iovec	iov = { (void *)(uintptr_t)d, len };

	udp_cid_replies(s, &iov, &seg, 1);
}

static void
client(struct udp_session *s, const uint8_t *d, size_t len)
{
	struct iovec	iov = { (void *)(uintptr_t)d, len };

	udp_cid_client(s, &iov, 1);
}

/* s's client sends a short header to cid (8 bytes). */
static void
client_short(struct udp_session *s, uint8_t cid)
{
	uint8_t	d[64];

	client(s, d, short_packet(d, cid, 8));
}

/* A client learned by its Initial and its server's Handshake reply. */
static void
test_follow(const struct rule *h3, const struct rule *other)
{
	struct udp_session	*s = session_at(h3, 1000), *u;
	struct udp_key		 k;
	uint32_t		 h;
	uint8_t			 d[256];
	size_t			 n;

	n = long_packet(d, 0xc0, QUIC_V1, 0x11, 8, 0x22, 8);
	udp_cid_start(s, d, n);
	n = long_packet(d, 0xe0, QUIC_V1, 0x22, 8, 0x33, 8);
	reply(s, d, n, 0);
	check(stats_rule(h3)->quic_cids == 2, "the client's first DCID and "
	    "the server's SCID learned: %llu",
	    (unsigned long long)stats_rule(h3)->quic_cids);
	check(follow_short(h3, 2000, 0x44, 8) == NULL, "an unknown CID: "
	    "not followed");
	check(follow_short(other, 2000, 0x33, 8) == NULL, "another rule's "
	    "datagram with the CID: not followed");
	n = short_packet(d, 0x33, 8);
	check(follow(h3, 2000, d, 5) == NULL, "a short header cut short: "
	    "not followed");
	s->state = UDP_UNDECIDED;
	check(follow(h3, 2000, d, n) == NULL, "an undecided session: not "
	    "followed");
	s->state = UDP_ACTIVE;
	u = follow(h3, 2000, d, n);
	(void)from_port(h3, 2000, &k, &h);
	check(u == s && port_now(s) == 2000 &&
	    udp_session_find(us, &k, h) == s, "a short header to the "
	    "server's CID from a new port: the session moved there");
	(void)from_port(h3, 1000, &k, &h);
	check(udp_session_find(us, &k, h) == NULL, "... and is no longer "
	    "found at the old one");
	check(stats_rule(h3)->quic_migrations == 1, "... counted");
	n = long_packet(d, 0xc0, QUIC_V1, 0x11, 8, 0x22, 8);
	check(follow(h3, 3000, d, n) == s && port_now(s) == 3000, "a long "
	    "header to the client's first DCID: followed too");
	session_gone(s);
	check(stats_rule(h3)->quic_cids == 0, "a session gone: its CIDs too");
}

/* What is not learned, and the runs read as one. */
static void
test_learn(const struct rule *h3)
{
	struct udp_session	*s = session_at(h3, 1000);
	uint8_t			 d[256], run[3 * 80];
	size_t			 n;

	n = long_packet(d, 0xc0, 0xbabababa, 0x11, 8, 0x22, 8);
	udp_cid_start(s, d, n);
	check(s->cids == NULL, "a version not QUIC v1 or v2: not followed");
	d[0] = 0x16;
	udp_cid_start(s, d, n);
	check(s->cids == NULL, "not a long header: not followed");
	n = long_packet(d, 0xc0, QUIC_V2, 0x11, 8, 0x22, 8);
	udp_cid_start(s, d, n);
	check(s->cids != NULL, "QUIC v2: followed");
	n = long_packet(d, 0x80, 0, 0x22, 8, 0x11, 8);
	reply(s, d, n, 0);
	check(follow_short(h3, 2000, 0x22, 8) == NULL, "version "
	    "negotiation's CIDs are not learned");
	n = long_packet(d, 0xc0, QUIC_V2, 0x22, 8, 0x11, 3);
	reply(s, d, n, 0);
	check(follow_short(h3, 2000, 0x11, 3) == NULL, "a 3-byte CID is not "
	    "learned");
	/* Three replies of 80 bytes read as one: the third a long header. */
	memset(run, 0, sizeof(run));
	(void)short_packet(run, 0x22, 8);
	(void)short_packet(run + 80, 0x22, 8);
	(void)long_packet(run + 160, 0xe0, QUIC_V2, 0x22, 8, 0x66, 12);
	reply(s, run, sizeof(run), 80);
	check(follow_short(h3, 2000, 0x66, 12) == s, "a run read as one: each "
	    "datagram's header read, the server's 12-byte CID followed");
	session_gone(s);
}

/* A session's 4 CIDs, the oldest replaced; carried at a reload. */
static void
test_ring(const struct rule *h3)
{
	struct udp_session	*s = session_at(h3, 1000);
	struct udp_cid_carry	 carry;
	uint8_t			 d[256];
	size_t			 n;
	uint8_t			 cid;

	n = long_packet(d, 0xc0, QUIC_V1, 0x11, 8, 0x22, 8);
	udp_cid_start(s, d, n);
	n = long_packet(d, 0xc0, QUIC_V1, 0x22, 8, 0x33, 8);
	reply(s, d, n, 0);
	/* The client rotates to four CIDs the server gave it. */
	for (cid = 0x70; cid < 0x74; cid++)
		client_short(s, cid);
	check(follow_short(h3, 2000, 0x33, 8) == NULL, "the fifth and sixth "
	    "CID replaced the first two");
	check(follow_short(h3, 2000, 0x70, 8) == s, "the newer ones followed");
	check(stats_rule(h3)->quic_cids == UDP_CID_PER_SESSION, "%d kept",
	    UDP_CID_PER_SESSION);
	udp_cid_pack(s, &carry);
	session_gone(s);
	s = session_at(h3, 5000);
	udp_cid_unpack(s, &carry);
	check(follow_short(h3, 6000, 0x71, 8) == s, "carried to a new session: "
	    "followed by them");
	client_short(s, 0x75);
	check(follow_short(h3, 7000, 0x70, 8) == NULL, "... in the order "
	    "they were learned, with the server's CID length (the oldest "
	    "went)");
	check(follow_short(h3, 7000, 0x75, 8) == s, "... the newest kept");
	session_gone(s);
}

/* The worker's bound: past it a CID is not learned, and counted. */
static void
test_bound(const struct rule *h3)
{
	enum { SESSIONS = UDP_CIDS_MAX / 4 + 1 };
	struct udp_session	**all = calloc(SESSIONS, sizeof(*all));
	uint8_t			  d[256];
	size_t			  n;
	int			  i, j;

	if (all == NULL)
		abort();
	for (i = 0; i < SESSIONS; i++) {
		all[i] = session_at(h3, 10000 + (unsigned)i);
		for (j = 0; j < 4; j++) {
			n = long_packet(d, 0xc0, QUIC_V1, 0, 8, 0x22, 8);
			memcpy(d + 6, &i, sizeof(i));
			d[10] = (uint8_t)j;
			if (j == 0)
				udp_cid_start(all[i], d, n);
			else
				client(all[i], d, n);
		}
	}
	check(stats_rule(h3)->quic_cids == UDP_CIDS_MAX &&
	    stats_rule(h3)->quic_cids_full == 4, "%d CIDs a worker, those "
	    "past it counted: %llu, %llu", UDP_CIDS_MAX,
	    (unsigned long long)stats_rule(h3)->quic_cids,
	    (unsigned long long)stats_rule(h3)->quic_cids_full);
	for (i = 0; i < SESSIONS; i++)
		session_gone(all[i]);
	free(all);
	check(stats_rule(h3)->quic_cids == 0, "all gone");
}

/* A pseudo-random byte stream, the same at every run (xorshift32). */
static uint8_t
next_byte(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return (uint8_t)(*x >> 24);
}

/*
 * The shared directory (udp_cid_share.c) with 4 workers, each with the
 * most CIDs a worker keeps (8 bytes long): the worker of slot 0 looks
 * for the holder of each CID of slot 3, the last.  Each is found, and
 * the workers named before it, which would refuse, are rare (a byte
 * count per bucket named a wrong worker first for half of them); so
 * are matches of random DCIDs, which would be asked for nothing.
 */
static void
test_share(void)
{
	enum { SLOTS = 4, CIDS = UDP_CIDS_MAX, LEN = 8 };
	static uint8_t	cid[CIDS][LEN], held[CIDS][LEN];	/* slot 3's */
	uint8_t		d[1 + LEN + 16];
	uint32_t	x = 2463534242u;
	int		slot, i, j, holder, wrong = 0, lost = 0, sprayed = 0;

	if (udp_cid_share_open(SLOTS) == -1) {
		check(0, "the directory mapped");
		return;
	}
	for (slot = SLOTS - 1; slot >= 0; slot--) {
		udp_cid_share_claim(slot);	/* slot 0, the asker, last */
		for (i = 0; i < CIDS; i++) {
			for (j = 0; j < LEN; j++)
				cid[i][j] = next_byte(&x);
			udp_cid_share_add(0, udp_cid_hash(0, cid[i], LEN), LEN);
		}
		if (slot == SLOTS - 1)
			memcpy(held, cid, sizeof(cid));
	}
	memset(d, 0x5a, sizeof(d));
	d[0] = 0x41;				/* a short header */
	for (i = 0; i < CIDS; i++) {
		memcpy(d + 1, held[i], LEN);
		for (holder = udp_cid_share_holder(0, d, sizeof(d), SLOTS, -1);
		    holder != -1 && holder != SLOTS - 1;
		    holder = udp_cid_share_holder(0, d, sizeof(d), SLOTS,
		    holder))
			wrong++;
		lost += holder == -1;
		for (j = 0; j < LEN; j++)
			d[1 + j] = next_byte(&x);
		sprayed += udp_cid_share_holder(0, d, sizeof(d), SLOTS,
		    -1) != -1;
	}
	check(lost == 0 && wrong < CIDS / 1000, "%d CIDs of the last of %d "
	    "workers: each found, %d other workers named first, %d lost",
	    CIDS, SLOTS, wrong, lost);
	check(sprayed < CIDS / 1000, "%d random DCIDs: %d match", CIDS,
	    sprayed);
	udp_cid_share_claim(SLOTS - 1);
	udp_cid_share_remove(0, udp_cid_hash(0, held[0], LEN), LEN);
	udp_cid_share_claim(0);
	memcpy(d + 1, held[0], LEN);
	check(udp_cid_share_holder(0, d, sizeof(d), SLOTS, -1) == -1,
	    "a CID forgotten: its worker no longer named");
}

int
main(void)
{
	char			 path[1024], err[256];
	struct event_loop	*loop;

	make_tmpdir("test_cid");
	cfg = load_good("cid.conf", text, path, sizeof(path),
	    "two UDP rules");
	if (cfg == NULL || (loop = event_loop_new("auto", 1024, err,
	    sizeof(err))) == NULL || (us = udp_sessions_new(loop, cfg->rules,
	    cfg->nrules, &cfg->acl)) == NULL) {
		check(0, "a session table");
		return test_summary();
	}
	stats_worker_begin(cfg, 0);	/* counters of our own */
	test_follow(&cfg->rules[0], &cfg->rules[1]);
	test_learn(&cfg->rules[0]);
	test_ring(&cfg->rules[0]);
	test_bound(&cfg->rules[0]);
	test_share();
	remove_tmpdir();
	return test_summary();
}
