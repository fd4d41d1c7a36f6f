/*
 * udp_handover.c - UDP sessions at a reload (udp_handover.h): an old
 * worker hands each over with its backend socket, the new worker adopts
 * it; while the number of workers changes, datagrams without a session
 * are passed between them (udp_pass.c) and delivered here once the new
 * worker may receive.  A QUIC client that moved to another worker's
 * port has its session handed over the same way (udp_follow.h).
 */
#include "ferryd.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "balance.h"
#include "event.h"
#include "ipc.h"
#include "log.h"
#include "rule.h"
#include "udp_cid.h"
#include "udp_follow.h"
#include "udp_handover.h"
#include "udp_io.h"
#include "udp_pass.h"
#include "udp_session.h"
#include "udp_stream.h"
#include "udp_table.h"
#include "udp_types.h"

/* How long a handover waits for room on the channel. */
#define HANDOVER_WAIT_MS	2000

bool
udp_handover_read(struct udp_handover *h, const void *data, size_t len)
{
	if (len != sizeof(*h) && len != offsetof(struct udp_handover, sni) &&
	    len != offsetof(struct udp_handover, cids))
		return false;
	memset(h, 0, sizeof(*h));
	memcpy(h, data, len);
	h->sni[sizeof(h->sni) - 1] = '\0';
	return true;
}

unsigned
udp_handover_port(const struct udp_handover *h)
{
	/* sin_port and sin6_port are at the same place. */
	return ntohs(h->client.sin6_port);
}

void
udp_handover_pack(const struct udp_session *s, struct udp_handover *h)
{
	memset(h, 0, sizeof(*h));
	h->rule = s->key.rule;
	h->client_len = s->client_len;
	h->client = s->client;
	h->local = s->key.local;
	h->ifindex = s->ifindex;
	h->backend = (uint32_t)(s->backend - s->rule->upstream.backends);
	h->started = s->started;
	h->last_active = s->last_active;
	h->bytes_in = s->bytes_in;
	h->bytes_out = s->bytes_out;
	udp_cid_pack(s, &h->cids);
	if (s->sni != NULL)
		(void)snprintf(h->sni, sizeof(h->sni), "%s", s->sni);
}

int
udp_sessions_hand_over(struct udp_sessions *us, int chan)
{
	struct udp_handover	 h;
	struct udp_session	*s, *next;
	size_t			 i;
	int			 n = 0;

	for (i = 0; i < us->nrules; i++)
		for (s = TAILQ_FIRST(&us->rules[i].lru); s != NULL; s = next) {
			next = TAILQ_NEXT(s, lru);
			/*
			 * Undecided: it lingers here and ends, what it held
			 * dropped (counted); the new worker judges the
			 * client's next datagram anew.
			 */
			if (!udp_stream_movable(s) ||
			    s->state == UDP_UNDECIDED)
				continue;	/* it lingers here (linger) */
			udp_handover_pack(s, &h);
			if (ipc_send_wait(chan, IPC_UDP_SESSION, &h, sizeof(h),
			    &s->fd, 1, HANDOVER_WAIT_MS) == -1) {
				log_warn("cannot hand UDP sessions over: %s; "
				    "%d stay here", strerror(errno), us->count);
				return n;
			}
			udp_session_free(s);
			n++;
		}
	return n;
}

/*
 * The backend of rule a handed-over socket (fd) is connected to: the
 * one at index was where it came from, unless the reload moved or
 * dropped it (a name resolved anew).  NULL if the rule has it no more.
 */
static const struct backend *
adopted_backend(const struct rule *rule, int fd, uint32_t was)
{
	const struct upstream	*u = &rule->upstream;
	struct sockaddr_any	 peer;
	size_t			 i;

	peer.len = sizeof(peer.ss);
	if (getpeername(fd, (struct sockaddr *)&peer.ss, &peer.len) == -1)
		return was < u->nbackends ? &u->backends[was] : NULL;
	if (was < u->nbackends && addr_equal(&u->backends[was].addr, &peer))
		return &u->backends[was];
	for (i = 0; i < u->nbackends; i++)
		if (addr_equal(&u->backends[i].addr, &peer))
			return &u->backends[i];
	return NULL;
}

int
udp_session_adopt(struct udp_sessions *us, const struct udp_handover *h,
    int fd)
{
	struct udp_session	*s;
	struct udp_from		 from;
	struct udp_key		 k;
	struct udp_rule		*ur;
	uint32_t		 hash;

	if (h->rule >= us->nrules || us->rules[h->rule].lfd == -1 ||
	    h->client_len > sizeof(h->client) ||
	    (s = calloc(1, sizeof(*s))) == NULL) {
		close(fd);
		return -1;
	}
	if (us->conf_rules[h->rule].connect_protocol == RULE_TCP &&
	    (s->stream = calloc(1, sizeof(*s->stream))) == NULL) {
		free(s);
		close(fd);
		return -1;
	}
	ur = &us->rules[h->rule];
	from.rule = &us->conf_rules[h->rule];
	from.client = (const struct sockaddr *)&h->client;
	from.client_len = h->client_len;
	from.local = h->local;
	udp_key_make(us, &from, &k);
	hash = udp_key_hash(&k);
	/*
	 * A second session of this client (while the worker count changed,
	 * an old worker saw it under the new steering): the one here stays
	 * the client's; this one only carries back the replies still on
	 * their way to its socket, until it times out.
	 */
	udp_session_enter(s, udp_session_find(us, &k, hash) != NULL ?
	    UDP_DETACHED : UDP_ACTIVE);
	log_debug("%s: UDP session of port %u taken over%s",
	    rule_log_name(from.rule), udp_handover_port(h),
	    s->state == UDP_DETACHED ? " (a second one: replies only)" : "");
	s->fd = fd;
	s->rule = from.rule;
	s->backend = adopted_backend(s->rule, fd, h->backend);
	s->stranger = s->backend == NULL;
	if (s->stranger)
		s->backend = &s->rule->upstream.backends[0];	/* for logs */
	/* Open here now: counted here (least-connections, limits). */
	else if (s->stream == NULL)
		balance_acquire(s->backend);
	if (s->stream != NULL && !s->stranger)
		udp_stream_adopted(s);
	s->lfd = ur->lfd;
	s->family = ur->family;
	s->ifindex = h->ifindex;
	s->client = h->client;
	s->client_len = h->client_len;
	s->started = h->started;
	s->last_active = h->last_active;
	/* A second session ends soon: only replies in flight are left. */
	if (s->state == UDP_DETACHED)
		s->until = event_now(us->loop) + DETACHED_MS;
	s->bytes_in = h->bytes_in;
	s->bytes_out = h->bytes_out;
	if (udp_session_insert(us, s, &k, hash) == -1)
		return -1;
	if (h->sni[0] != '\0')
		s->sni = strdup(h->sni);	/* NULL: none logged */
	/* A second session is not its client's: it follows nobody. */
	if (s->state == UDP_ACTIVE)
		udp_cid_unpack(s, &h->cids);
	return 0;
}

/* from's rule, listening socket and family for rule number rule: 0, or -1. */
static int
udp_sessions_source(struct udp_sessions *us, uint32_t rule,
    struct udp_from *from)
{
	if (rule >= us->nrules || us->rules[rule].lfd == -1)
		return -1;
	memset(from, 0, sizeof(*from));
	from->rule = &us->conf_rules[rule];
	from->lfd = us->rules[rule].lfd;
	from->family = us->rules[rule].family;
	return 0;
}

bool
udp_sessions_deliver(void *arg, const char *msg, size_t len)
{
	struct udp_sessions	*us = arg;
	struct udp_passed	 h;
	struct udp_from		 from;
	struct iovec		 iov;

	if (len < sizeof(h))
		return false;
	memcpy(&h, msg, sizeof(h));
	if (h.len != len - sizeof(h) || h.len > UDP_DATAGRAM_MAX ||
	    h.client_len > sizeof(h.client) ||
	    udp_sessions_source(us, h.rule, &from) == -1)
		return false;
	from.client = (const struct sockaddr *)&h.client;
	from.client_len = h.client_len;
	from.local = h.local;
	from.ifindex = h.ifindex;
	iov.iov_base = (void *)(uintptr_t)(msg + sizeof(h));
	iov.iov_len = h.len;
	udp_sessions_forward(us, &from, &iov, 1);
	return true;
}

void
udp_sessions_pass(struct udp_sessions *us, int chan)
{
	us->pass.chan = chan;
}

/*
 * A passed datagram (msg, len) was lost: counted against the rule its
 * header names.  One so malformed that it names none is counted nowhere
 * (the master made it: it is never so).
 */
static void
passed_lost(struct udp_sessions *us, const char *msg, size_t len)
{
	struct udp_passed h;

	if (len < sizeof(h))
		return;
	memcpy(&h, msg, sizeof(h));
	if (h.rule < us->nrules)
		udp_io_dropped(&us->conf_rules[h.rule], 1);
}

/* udp_sessions_deliver, for what was kept: what is lost is counted here. */
static bool
deliver_kept(void *arg, const char *msg, size_t len)
{
	if (udp_sessions_deliver(arg, msg, len))
		return true;
	passed_lost(arg, msg, len);
	return false;
}

void
udp_sessions_take(struct udp_sessions *us, const void *msg, size_t len)
{
	if (!udp_pass_take(&us->pass, udp_sessions_deliver, us, msg, len))
		passed_lost(us, msg, len);
}

void
udp_sessions_go(struct udp_sessions *us)
{
	/* deliver_kept counted each one lost. */
	(void)udp_pass_go(&us->pass, deliver_kept, us);
}

/*
 * Answer q over chan: with h and the session's socket fd, or refused
 * (h NULL).  0, or -1 (the channel is full: the session stays here).
 */
static int
follow_answer(int chan, const struct udp_follow_ask *q,
    const struct udp_handover *h, int fd)
{
	static struct log_limit	limit;
	char			msg[sizeof(*q) + sizeof(*h)];

	memcpy(msg, q, sizeof(*q));
	if (h != NULL)
		memcpy(msg + sizeof(*q), h, sizeof(*h));
	if (ipc_send(chan, IPC_UDP_FOLLOWED, msg, sizeof(*q) + (h != NULL ?
	    sizeof(*h) : 0), &fd, h != NULL ? 1 : 0) == 0)
		return 0;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "cannot answer worker %d "
	    "for a moved QUIC client's UDP session: %s", q->asker,
	    strerror(errno));
	return -1;
}

void
udp_sessions_follow_asked(struct udp_sessions *us, int chan,
    const void *msg, size_t len)
{
	const char		*m = msg;
	struct udp_follow_ask	 q;
	struct udp_passed	 p;
	struct udp_handover	 h;
	struct udp_session	*s = NULL;
	struct iovec		 iov;

	if (len < sizeof(q) + sizeof(p))
		return;
	memcpy(&q, m, sizeof(q));
	memcpy(&p, m + sizeof(q), sizeof(p));
	iov.iov_base = (void *)(uintptr_t)(m + sizeof(q) + sizeof(p));
	iov.iov_len = p.len;
	if (p.len == len - sizeof(q) - sizeof(p) && p.len > 0 &&
	    p.client_len <= sizeof(p.client) && p.rule < us->nrules)
		s = udp_cid_session(p.rule, iov.iov_base, iov.iov_len);
	if (s == NULL) {
		(void)follow_answer(chan, &q, NULL, -1);
		return;
	}
	udp_handover_pack(s, &h);
	memset(&h.client, 0, sizeof(h.client));
	memcpy(&h.client, &p.client, p.client_len);
	h.client_len = p.client_len;
	h.local = p.local;
	h.ifindex = p.ifindex;
	h.bytes_in += p.len;		/* sent on below, counted here */
	/*
	 * The answer first: if it cannot go, the session stays here and
	 * the asker, which gets none, sends the datagram on itself.  Then
	 * the datagram, on the socket still open here, before the asker
	 * can send what it held after it (the answer goes through the
	 * master first).
	 */
	if (follow_answer(chan, &q, &h, s->fd) == 0) {
		(void)udp_io_send(s, &iov, 1);
		udp_session_free(s);	/* it goes on there */
	}
}

void
udp_sessions_follow_answered(struct udp_sessions *us, const void *msg,
    size_t len, int fd)
{
	struct udp_follow_ask	q;
	struct udp_handover	h;
	bool			adopted = false;

	if (len < sizeof(q)) {
		if (fd != -1)
			close(fd);
		return;
	}
	memcpy(&q, msg, sizeof(q));
	/* Late: the client has a new session here already. */
	if (fd != -1 && udp_follow_waiting(q.id) &&
	    udp_handover_read(&h, (const char *)msg + sizeof(q),
	    len - sizeof(q)))
		adopted = udp_session_adopt(us, &h, fd) == 0;
	else if (fd != -1)
		close(fd);
	udp_follow_done(q.id, q.holder, adopted ? (const struct sockaddr *)
	    &h.client : NULL, fd != -1 || q.holder == UDP_FOLLOW_MOVED_ON);
}
