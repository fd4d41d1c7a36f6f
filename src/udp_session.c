/*
 * udp_session.c - the UDP session table: find or make a session per
 * datagram, forward it, carry the replies back, expire and evict.
 *
 * Sessions are found in a hash table keyed by (rule, client address and
 * port, local address), kept per rule in least-recently-used order (the
 * front is evicted first), and each has a timer re-armed lazily: traffic
 * only notes the time, and an expiring timer that finds the session
 * active since moves itself.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <netinet/udp.h>
#include <unistd.h>

#include "accesslog.h"
#include "acl.h"
#include "addr.h"
#include "balance.h"
#include "clock.h"
#include "event.h"
#include "framing.h"
#include "health.h"
#include "ipc.h"
#include "log.h"
#include "proxy_proto.h"
#include "scoreboard.h"
#include "sock.h"
#include "stats.h"
#include "tcp_connect.h"
#include "udp_pass.h"
#include "udp_session.h"

/* What identifies a session; compared whole, so padding is zeroed. */
struct udp_key {
	struct in6_addr	client;		/* IPv4 as mapped IPv6 */
	struct in6_addr	local;
	uint32_t	rule;		/* index in cfg->rules */
	uint16_t	port;		/* the client's */
	uint16_t	pad;
};

/*
 * A UDP-to-TCP session's backend side: a TCP connection that carries the
 * datagrams as its rule's framing says.
 */
struct udp_stream {
	struct frame_out	out;	/* what the backend has no room for */
	struct frame_in		in;	/* replies read but not yet whole */
	struct tcp_connect	connect;	/* its backends tried */
	int64_t			deadline;	/* to be connected by */
	int64_t			attempt_end;	/* ... to this backend */
	bool			connecting;
};

struct udp_session {
	struct udp_session	*next;		/* in its hash bucket */
	TAILQ_ENTRY(udp_session) lru;		/* its rule's, oldest first */
	struct udp_sessions	*owner;
	const struct rule	*rule;
	const struct backend	*backend;
	struct udp_stream	*stream;	/* a TCP backend, or NULL */
	int			 fd;		/* connected to the backend */
	int			 lfd;		/* replies leave through it */
	int			 family;	/* lfd's */
	int			 ifindex;
	struct udp_key		 key;
	struct sockaddr_in6	 client;	/* or a sockaddr_in */
	socklen_t		 client_len;
	uint32_t		 hash;
	bool			 detached;	/* not in the table: replies only */
	bool			 no_gso;	/* its route refused UDP_SEGMENT */
	/*
	 * Handed over at a reload whose rule no longer has the backend its
	 * socket is connected to (its name now resolves elsewhere): not
	 * counted on any backend, its errors blamed on none.
	 */
	bool			 stranger;
	int64_t			 started, last_active;
	int64_t			 until;		/* detached: its end */
	int64_t			 asked_us;	/* sent to the backend since
						 * its last reply, or 0 */
	uint64_t		 bytes_in, bytes_out;
	struct event_timer	 timer;
};

TAILQ_HEAD(udp_lru, udp_session);

/* A rule's sessions in this worker. */
struct udp_rule {
	struct udp_lru	lru;
	int		count;
	int		lfd;		/* its listening socket, or -1 */
	int		family;		/* lfd's */
};

struct udp_sessions {
	struct event_loop	*loop;
	const struct conf	*cfg;
	struct udp_session	**buckets;
	size_t			 nbuckets;	/* a power of two */
	int			 count;
	struct udp_rule		*rules;		/* per rule of cfg */
	char			*bufs;		/* UDP_BATCH datagrams */
	struct scoreboard_counters *counters;
	struct scoreboard_counters  own;	/* when there is no cell */
	struct udp_pass		 pass;		/* at a reload (udp_pass.h) */
};

/* How long a second session of a client waits for replies in flight. */
#define DETACHED_MS		2000
/* How long a handover waits for room on the channel. */
#define HANDOVER_WAIT_MS	2000

static void session_on_backend(struct event_loop *, int, int, void *);
static void stream_next(struct udp_session *, int);
static void stream_send(struct udp_session *, const struct iovec *, int);

static uint32_t
key_hash(const struct udp_key *k)
{
	const unsigned char	*p = (const unsigned char *)k;
	uint32_t		 h = 2166136261u;	/* FNV-1a */
	size_t			 i;

	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* The key of a datagram from->client to from->local on from->rule. */
static void
key_make(const struct udp_sessions *us, const struct udp_from *from,
    struct udp_key *k)
{
	const struct sockaddr_in	*sin = (const void *)from->client;
	const struct sockaddr_in6	*sin6 = (const void *)from->client;

	memset(k, 0, sizeof(*k));
	k->rule = (uint32_t)(from->rule - us->cfg->rules);
	k->local = from->local;
	if (from->client->sa_family == AF_INET) {
		k->client.s6_addr[10] = k->client.s6_addr[11] = 0xff;
		memcpy(&k->client.s6_addr[12], &sin->sin_addr, 4);
		k->port = sin->sin_port;
	} else {
		k->client = sin6->sin6_addr;
		k->port = sin6->sin6_port;
	}
}

static struct udp_session *
session_find(const struct udp_sessions *us, const struct udp_key *k,
    uint32_t h)
{
	struct udp_session *s;

	for (s = us->buckets[h & (us->nbuckets - 1)]; s != NULL; s = s->next)
		if (s->hash == h && memcmp(&s->key, k, sizeof(*k)) == 0)
			return s;
	return NULL;
}

/* Twice the buckets, when there are more sessions than buckets. */
static void
table_grow(struct udp_sessions *us)
{
	struct udp_session	**b, *s, *next;
	size_t			  n = us->nbuckets * 2, i;

	if ((b = calloc(n, sizeof(*b))) == NULL)
		return;		/* longer chains, still correct */
	for (i = 0; i < us->nbuckets; i++)
		for (s = us->buckets[i]; s != NULL; s = next) {
			next = s->next;
			s->next = b[s->hash & (n - 1)];
			b[s->hash & (n - 1)] = s;
		}
	free(us->buckets);
	us->buckets = b;
	us->nbuckets = n;
}

static void
table_remove(struct udp_sessions *us, struct udp_session *s)
{
	struct udp_session **pp = &us->buckets[s->hash & (us->nbuckets - 1)];

	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
}

/* Take s out of the table and lists, close its socket, free it. */
/* s no longer counts as open on its backend (balance.h). */
/*
 * s no longer holds its backend here (closed, or handed over): one
 * session less on it, for the balance and the gauges.
 */
static void
session_release_backend(struct udp_session *s)
{
	if (s->stream != NULL)
		tcp_connect_release(&s->stream->connect);
	else if (s->backend != NULL && !s->stranger) {
		balance_release(s->backend);
		stats_backend(s->backend)->active--;
	}
}

/* A UDP-to-TCP session's stream side, with what it holds; NULL: none. */
static void
stream_free(struct udp_stream *st)
{
	if (st == NULL)
		return;
	frame_out_free(&st->out);
	frame_in_free(&st->in);
	free(st);
}

static void
session_free(struct udp_session *s)
{
	struct udp_sessions	*us = s->owner;
	struct udp_rule		*ur = &us->rules[s->key.rule];

	event_close(us->loop, s->fd);
	close(s->fd);
	event_timer_cancel(us->loop, &s->timer);
	session_release_backend(s);
	stats_rule(s->rule)->active_sessions--;
	stream_free(s->stream);
	if (!s->detached)
		table_remove(us, s);
	TAILQ_REMOVE(&ur->lru, s, lru);
	ur->count--;
	us->count--;
	free(s);
}

/*
 * The counters of s's backend, or NULL: a backend the rule lost at a
 * reload.  A TCP backend still connecting counts the datagrams that
 * wait for it.
 */
static struct stats_backend *
session_stats_backend(const struct udp_session *s)
{
	if (s->backend == NULL || s->stranger)
		return NULL;
	return stats_backend(s->backend);
}

/* n datagrams of rule were not sent on. */
static void
count_dropped(struct udp_sessions *us, const struct rule *rule, uint64_t n)
{
	us->counters->dropped += n;
	stats_rule(rule)->dropped += n;
}

/* What the counters of s's rule and backend keep of s, which ends. */
static void
session_count_end(const struct udp_session *s, int64_t now)
{
	struct stats_rule	*sr = stats_rule(s->rule);
	struct stats_backend	*sb;
	uint64_t		 us = stats_elapsed_us(s->started, now);

	hist_add(&sr->duration, us);
	if ((sb = session_stats_backend(s)) != NULL && (s->stream == NULL ||
	    s->stream->connect.connected))
		hist_add(&sb->duration, us);
}

/* The session ends: access log, counters, socket, memory. */
static void
session_close(struct udp_session *s, const char *result)
{
	struct udp_sessions	*us = s->owner;
	char			 client[ADDR_STRLEN];

	log_debug("%s -> %s: UDP session of %s closed (%s): %llu bytes in, "
	    "%llu bytes out", rule_log_name(s->rule), s->rule->connect,
	    addr_format((const struct sockaddr *)&s->client, client,
	    sizeof(client)), result, (unsigned long long)s->bytes_in,
	    (unsigned long long)s->bytes_out);
	accesslog_session(s->rule, (const struct sockaddr *)&s->client,
	    s->backend != NULL ? (const struct sockaddr *)&s->backend->addr.ss :
	    NULL, s->stream != NULL ? s->stream->connect.attempts : 1, result,
	    s->bytes_in, s->bytes_out, s->started, event_now(us->loop),
	    &accesslog_no_times);
	session_count_end(s, event_now(us->loop));
	session_free(s);
}

/* Traffic either way: the session is the rule's most recent. */
static void
session_touch(struct udp_session *s)
{
	struct udp_lru *lru = &s->owner->rules[s->key.rule].lru;

	s->last_active = event_now(s->owner->loop);
	if (TAILQ_NEXT(s, lru) != NULL) {
		TAILQ_REMOVE(lru, s, lru);
		TAILQ_INSERT_TAIL(lru, s, lru);
	}
}

/* When s ends unless traffic comes (or its backend answers) first. */
static int64_t
session_due(const struct udp_session *s)
{
	if (s->detached)
		return s->until;
	if (s->stream != NULL && s->stream->connecting)
		return s->stream->attempt_end;
	return s->last_active + s->rule->session_timeout;
}

/* No backend of s's rule took the connection (err): say so, close. */
static void
session_connect_failed(struct udp_session *s, int err)
{
	static struct log_limit	limit;
	char			backend[ADDR_STRLEN], client[ADDR_STRLEN];

	s->owner->counters->connect_failed++;
	stats_rule(s->rule)->no_backend++;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot connect to %s "
	    "for UDP client %s: %s", rule_log_name(s->rule), s->backend == NULL ||
	    s->rule->upstream.nbackends > 1 ? s->rule->connect : addr_format(
	    (const struct sockaddr *)&s->backend->addr.ss, backend,
	    sizeof(backend)), addr_format((const struct sockaddr *)&s->client,
	    client, sizeof(client)), strerror(err));
	session_close(s, err == ETIMEDOUT ? ACCESSLOG_TIMEOUT :
	    ACCESSLOG_CONNECT_FAILED);
}

static void
session_on_timer(struct event_timer *t, void *data)
{
	struct udp_session	*s = data;

	if (session_due(s) > event_now(s->owner->loop) &&
	    event_timer_arm(s->owner->loop, t, session_due(s)) == 0)
		return;
	if (s->stream != NULL && s->stream->connecting) {
		/* This backend's share of connect_timeout is over. */
		stream_next(s, ETIMEDOUT);
		return;
	}
	session_close(s, ACCESSLOG_IDLE_TIMEOUT);
}

/*
 * A TCP connection to rule's backends started for s (a UDP-to-TCP
 * rule), from the first that takes one on: the socket, or -1 (errno).
 */
static int
stream_connect(struct udp_session *s, const struct rule *rule, int err)
{
	struct tcp_connect	*tc = &s->stream->connect;
	int64_t			 now = event_now(s->owner->loop);
	int			 fd = -1;

	switch (tcp_connect_next(tc, rule, now, s->stream->deadline, &fd,
	    &err)) {
	case TCP_CONNECT_PENDING:
		s->backend = tc->backend;
		s->stream->attempt_end = tcp_connect_attempt_end(rule, now,
		    s->stream->deadline);
		return fd;
	case TCP_CONNECT_NONE:
		errno = err != 0 ? err : EBUSY;	/* 0: all at max_connections */
		return -1;
	default:
		return -1;	/* a shortage: errno says which */
	}
}

/*
 * The stream's connect failed with err: connect to the next backend, or
 * fail the session when none is left.
 */
static void
stream_next(struct udp_session *s, int err)
{
	struct udp_sessions	*us = s->owner;
	int			 fd;

	if ((fd = stream_connect(s, s->rule, err)) == -1) {
		session_connect_failed(s, errno);
		return;
	}
	event_close(us->loop, s->fd);
	close(s->fd);
	s->fd = fd;
	if (event_set(us->loop, fd, EV_WRITE, session_on_backend, s) == -1) {
		session_connect_failed(s, errno);
		return;
	}
	(void)event_timer_arm(us->loop, &s->timer, session_due(s));
}

int
udp_backend_socket(const struct rule *rule, const struct sockaddr *client,
    const struct backend **used)
{
	const struct backend	*b;
	uint64_t		 tried = 0;
	int64_t			 now = clock_ms();
	bool			 trial, none_left = false;
	int			 fd = -1, err = EBUSY;	/* all at the limit */

	if (rule->transparent)
		tried = backends_of_other_family(rule, client, &none_left);
	if (none_left) {
		errno = EAFNOSUPPORT;	/* an IPv6 client, IPv4 backends */
		return -1;
	}

	while ((b = balance_pick(rule, client, tried, now, &trial)) != NULL) {
		tried |= BALANCE_TRIED((size_t)(b - rule->upstream.backends));
		if ((fd = sock_dgram(b->addr.ss.ss_family)) == -1)
			return -1;	/* out of descriptors */
		if (rule->transparent &&
		    backend_bind_client(fd, rule, b, client) == -1) {
			/* This host's failure: b's health stands. */
			err = errno;
			close(fd);
			if (trial)
				health_unclaim_trial(b, now);
			continue;
		}
		sock_buffers(fd, rule->sndbuf, rule->rcvbuf);
		if ((!b->has_source || sock_bind_source(fd, &b->source) == 0) &&
		    connect(fd, (const struct sockaddr *)&b->addr.ss,
		    b->addr.len) == 0) {
			balance_acquire(b);
			/*
			 * UDP has no connect to wait for: a backend whose
			 * fail_timeout is over is up again, until ICMP
			 * errors say otherwise.
			 */
			if (trial)
				health_succeeded(rule, b, true);
			*used = b;
			return fd;
		}
		err = errno;
		close(fd);
		health_failed(rule, b, err, trial, now);
	}
	errno = err;
	return -1;
}

static size_t session_proxy_header(const struct udp_session *,
    unsigned char *);

/*
 * The socket of new session s towards rule's backend: a UDP socket
 * connected to it, or for a UDP-to-TCP rule a TCP connection started
 * (s->stream), its PROXY header first in line where the rule sends one.
 * -1 with errno.
 */
static int
session_backend(struct udp_session *s, const struct rule *rule)
{
	unsigned char	hdr[PROXY_HEADER_MAX];
	struct iovec	iov;
	int		fd;

	if (rule->connect_protocol == RULE_UDP) {
		/* Replies: a run of equal size in one read (UDP_GRO). */
		if ((fd = udp_backend_socket(rule,
		    (const struct sockaddr *)&s->client, &s->backend)) != -1)
			sock_udp_gro(fd);
		return fd;
	}
	if ((s->stream = calloc(1, sizeof(*s->stream))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (rule->send_proxy != PROXY_OFF) {
		iov.iov_base = hdr;
		iov.iov_len = session_proxy_header(s, hdr);
		if (frame_out_hold(&s->stream->out, FRAMING_NONE, &iov,
		    1) != 1) {
			errno = ENOMEM;
			return -1;
		}
	}
	tcp_connect_init(&s->stream->connect,
	    (const struct sockaddr *)&s->client);
	s->stream->connecting = true;
	s->stream->deadline = event_now(s->owner->loop) + rule->connect_timeout;
	return stream_connect(s, rule, 0);
}

/* Whether a new session from from->client may be made. */
static bool
session_allowed(struct udp_sessions *us, const struct udp_from *from)
{
	static struct log_limit	limit;
	char			client[ADDR_STRLEN];

	if (acl_permits(&us->cfg->acl, &from->rule->acl, from->client))
		return true;
	log_limited_at(&limit, LOG_LEVEL_INFO, "%s: client %s denied by "
	    "allow/deny rules", rule_log_name(from->rule),
	    addr_format(from->client, client, sizeof(client)));
	us->counters->refused++;
	stats_rule(from->rule)->denied++;
	return false;
}

/*
 * Put s (its socket, rule, addresses and times set) in the table and its
 * rule's list, watch its socket, arm its timer.  -1 (s freed, its socket
 * closed) if its socket cannot be watched.
 */
static int
session_insert(struct udp_sessions *us, struct udp_session *s,
    const struct udp_key *k, uint32_t h)
{
	struct udp_rule *ur = &us->rules[k->rule];

	s->owner = us;
	/* Held here: session_release_backend() lets go of it. */
	if (s->stream == NULL && !s->stranger)
		stats_backend(s->backend)->active++;
	if (event_set(us->loop, s->fd, s->stream != NULL &&
	    s->stream->connecting ? EV_WRITE : EV_READ, session_on_backend,
	    s) == -1) {
		close(s->fd);
		session_release_backend(s);
		stream_free(s->stream);
		free(s);
		return -1;
	}
	s->key = *k;
	s->hash = h;
	event_timer_init(&s->timer, session_on_timer, s);
	(void)event_timer_arm(us->loop, &s->timer, session_due(s));
	if (!s->detached) {
		s->next = us->buckets[h & (us->nbuckets - 1)];
		us->buckets[h & (us->nbuckets - 1)] = s;
	}
	TAILQ_INSERT_TAIL(&ur->lru, s, lru);
	ur->count++;
	us->count++;
	stats_rule(s->rule)->active_sessions++;
	if ((size_t)us->count > us->nbuckets)
		table_grow(us);
	return 0;
}

/* A new session for from, evicting the rule's oldest if it is full. */
static struct udp_session *
session_open(struct udp_sessions *us, const struct udp_from *from,
    const struct udp_key *k, uint32_t h)
{
	static struct log_limit	 limit;
	struct udp_rule		*ur = &us->rules[k->rule];
	struct udp_session	*s;
	char			 client[ADDR_STRLEN];

	if (ur->count >= from->rule->max_sessions &&
	    !TAILQ_EMPTY(&ur->lru)) {
		us->counters->evicted++;
		session_close(TAILQ_FIRST(&ur->lru), ACCESSLOG_EVICTED);
	}
	if ((s = calloc(1, sizeof(*s))) != NULL) {
		/* What picking its backend reads: the client, for a hash. */
		s->owner = us;
		s->rule = from->rule;
		memcpy(&s->client, from->client, from->client_len);
		s->client_len = from->client_len;
		s->key = *k;
	}
	if (s == NULL || (s->fd = session_backend(s, from->rule)) == -1) {
		log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot open a "
		    "UDP session for %s: %s", rule_log_name(from->rule),
		    addr_format(from->client, client, sizeof(client)),
		    s == NULL ? "out of memory" : strerror(errno));
		if (s != NULL)
			stream_free(s->stream);
		free(s);
		return NULL;
	}
	s->lfd = from->lfd;
	s->family = from->family;
	s->ifindex = from->ifindex;
	s->started = s->last_active = event_now(us->loop);
	if (session_insert(us, s, k, h) == -1)
		return NULL;
	us->counters->sessions++;
	stats_rule(s->rule)->sessions++;
	if (s->stream == NULL)
		stats_backend(s->backend)->opened++;
	log_debug("%s -> %s: UDP session of %s opened", rule_log_name(s->rule),
	    s->rule->connect, addr_format(from->client, client,
	    sizeof(client)));
	return s;
}

void
udp_backend_error(struct scoreboard_counters *counters,
    const struct rule *rule, const struct backend *b, int err)
{
	static struct log_limit	limit;
	char			backend[ADDR_STRLEN];

	counters->icmp_errors++;
	/* Passive health: an unreachable backend is a failed one. */
	if (b != NULL)
		health_failed(rule, b, err, false, clock_ms());
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: backend %s: %s",
	    rule_log_name(rule), b != NULL ? addr_format((const struct sockaddr *)
	    &b->addr.ss, backend, sizeof(backend)) : "(gone since a reload)",
	    strerror(err));
}

bool
udp_unreachable(int err)
{
	return err == ECONNREFUSED || err == EHOSTUNREACH ||
	    err == ENETUNREACH;
}

/* s's backend reported an error (ICMP unreachable). */
static void
session_backend_error(struct udp_session *s, int err)
{
	udp_backend_error(s->owner->counters, s->rule,
	    s->stranger ? NULL : s->backend, err);
}

#ifdef UDP_SEGMENT
/* Segments one GSO send may carry, and bytes in all (one skb). */
#define GSO_SEGMENTS_MAX	64
#define GSO_BYTES_MAX		65000

/* Cleared for good the first time the kernel refuses UDP_SEGMENT. */
static bool gso_works = true;

/* The bytes of the datagram mh carries. */
static size_t
msg_size(const struct msghdr *mh)
{
	size_t	len = 0, i;

	for (i = 0; i < mh->msg_iovlen; i++)
		len += mh->msg_iov[i].iov_len;
	return len;
}

/*
 * How many of the n datagrams (m, as udp_datagrams lays them out) can
 * leave as one GSO send: a run of equal sizes, the last possibly
 * shorter, within the kernel's limits.
 */
static int
gso_run(const struct mmsghdr *m, int n)
{
	size_t	size = msg_size(&m[0].msg_hdr), len, total = 0;
	int	k;

	if (!gso_works || size == 0)
		return 1;
	for (k = 0; k < n && k < GSO_SEGMENTS_MAX; k++) {
		len = msg_size(&m[k].msg_hdr);
		if (len > size || total + len > GSO_BYTES_MAX)
			break;
		total += len;
		if (len < size) {
			k++;		/* a shorter one ends the run */
			break;
		}
	}
	return k;
}

/*
 * Send the k datagrams of a run (gso_run) in one sendmsg that the kernel
 * cuts into them (UDP_SEGMENT): their iovecs follow each other.  0, or
 * -1 with errno.
 */
static int
gso_send(int fd, const struct mmsghdr *m, int k)
{
	struct msghdr	mh;
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(uint16_t))];
	}		ctl;
	struct cmsghdr	*cm;
	uint16_t	size = (uint16_t)msg_size(&m[0].msg_hdr);

	memset(&mh, 0, sizeof(mh));
	memset(&ctl, 0, sizeof(ctl));
	mh.msg_iov = m[0].msg_hdr.msg_iov;
	mh.msg_iovlen = (size_t)k * m[0].msg_hdr.msg_iovlen;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = sizeof(ctl.buf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(size));
	memcpy(CMSG_DATA(cm), &size, sizeof(size));
	return sendmsg(fd, &mh, 0) == -1 ? -1 : 0;
}

/*
 * gso_send() failed with err.  Returns true when the run should go out
 * one by one instead: the kernel or device has no UDP_SEGMENT (off for
 * good), or this session's route cannot take segments of this size
 * (EINVAL: larger than its MTU; off for this session).
 */
static bool
gso_refused(struct udp_session *s, int err)
{
	if (err == EINVAL) {
		s->no_gso = true;
		return true;
	}
	if (err == EIO || err == ENOPROTOOPT || err == EOPNOTSUPP) {
		gso_works = false;
		log_info("UDP segmentation offload (UDP_SEGMENT) unavailable "
		    "(%s): sending datagrams one by one", strerror(err));
		return true;
	}
	return false;
}
#endif

void
udp_datagrams(struct mmsghdr *m, struct iovec *parts, const struct iovec *iov,
    int n, const unsigned char *hdr, size_t hlen)
{
	int	i;

	memset(m, 0, (size_t)n * sizeof(m[0]));
	for (i = 0; i < n; i++) {
		if (hlen == 0) {
			/* No header: the datagrams' own iovecs, no copy. */
			m[i].msg_hdr.msg_iov = (struct iovec *)(uintptr_t)&iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
			continue;
		}
		parts[2 * i].iov_base = (void *)(uintptr_t)hdr;
		parts[2 * i].iov_len = hlen;
		parts[2 * i + 1] = iov[i];
		m[i].msg_hdr.msg_iov = &parts[2 * i];
		m[i].msg_hdr.msg_iovlen = 2;
	}
}

/*
 * send_proxy: the v2 header that tells s's backend of its client and of
 * the address the client wrote to, into buf; its length.
 */
static size_t
session_proxy_header(const struct udp_session *s, unsigned char *buf)
{
	struct sockaddr_in6	local;

	memset(&local, 0, sizeof(local));
	local.sin6_family = AF_INET6;
	local.sin6_addr = s->key.local;		/* IPv4 mapped */
	local.sin6_port = htons((uint16_t)addr_port((const struct sockaddr *)
	    &s->rule->listen_addr.ss));
	return proxy_header(PROXY_V2, false, (const struct sockaddr *)
	    &s->client, (const struct sockaddr *)&local, buf);
}

/*
 * k datagrams (iov) of s went to its backend: counted, and the wait for
 * its reply starts unless it had started.
 */
static void
session_sent(struct udp_session *s, const struct iovec *iov, int k)
{
	struct scoreboard_counters	*counters = s->owner->counters;
	struct stats_rule		*sr = stats_rule(s->rule);
	struct stats_backend		*sb = session_stats_backend(s);
	uint64_t			 bytes = 0;
	int				 i;

	for (i = 0; i < k; i++)
		bytes += iov[i].iov_len;
	s->bytes_in += bytes;
	counters->bytes_in += bytes;
	counters->datagrams_in += (uint64_t)k;
	sr->datagrams_in += (uint64_t)k;
	sr->bytes_in += bytes;
	if (sb != NULL)
		sb->bytes_in += bytes;
	if (s->asked_us == 0 && k > 0)
		s->asked_us = stats_now_us();
}

/*
 * Send n datagrams (iov) to s's backend, each after its PROXY header
 * where the rule sends one, in as few calls as the kernel takes them:
 * runs of equal size as one GSO send where the kernel has UDP_SEGMENT,
 * the rest in sendmmsg.  An ICMP error from an earlier datagram comes
 * back as a send's error, with the datagram not sent: report it, send it
 * again.  A datagram too large for UDP with its header is lost, and
 * counted.
 */
static void
session_send(struct udp_session *s, const struct iovec *iov, int n)
{
	struct udp_sessions	*us = s->owner;
	struct mmsghdr		 m[UDP_BATCH];
	struct iovec		 parts[2 * UDP_BATCH];
	unsigned char		 hdr[PROXY_HEADER_MAX];
	size_t			 hlen = 0;
	int			 sent = 0, lost = 0, r, errors = 0;

	if (s->stream != NULL) {
		stream_send(s, iov, n);
		return;
	}
	if (s->rule->send_proxy != PROXY_OFF)
		hlen = session_proxy_header(s, hdr);
	udp_datagrams(m, parts, iov, n, hdr, hlen);
	while (sent < n) {
#ifdef UDP_SEGMENT
		if (!s->no_gso && (r = gso_run(m + sent, n - sent)) > 1) {
			if (gso_send(s->fd, m + sent, r) == 0) {
				session_sent(s, iov + sent, r);
				sent += r;
				continue;
			}
			if (errno == EINTR)
				continue;
			if (udp_unreachable(errno) && errors++ < n) {
				session_backend_error(s, errno);
				continue;
			}
			if (!gso_refused(s, errno))
				break;	/* full: lost, and counted */
		}
#endif
		r = sendmmsg(s->fd, m + sent, (unsigned)(n - sent), 0);
		if (r > 0) {
			session_sent(s, iov + sent, r);
			sent += r;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && udp_unreachable(errno) && errors++ < n) {
			session_backend_error(s, errno);
			continue;
		}
		if (r == -1 && errno == EMSGSIZE) {
			lost++;
			sent++;
			continue;
		}
		break;		/* full (EAGAIN): these are lost, and counted */
	}
	count_dropped(us, s->rule, (uint64_t)(n - sent + lost));
	if (sent > lost)
		session_touch(s);
}

/*
 * A datagram without a session, while this old worker passes them on:
 * its client's session may be another old worker's, so the new worker
 * that will hold it gets the datagram (udp_pass.h).
 */
static void
session_pass(struct udp_sessions *us, const struct udp_from *from,
    const struct iovec *iov, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (udp_pass_send(&us->pass, (uint32_t)(from->rule -
		    us->cfg->rules), from, &iov[i]) == -1)
			us->counters->dropped++;
}

/*
 * The session of from (its key k), made if there is none and it may be;
 * or NULL.  An old worker passing datagrams on passes these n (iov)
 * instead of making one.
 */
static struct udp_session *
session_of(struct udp_sessions *us, const struct udp_from *from,
    const struct udp_key *k, const struct iovec *iov, int n)
{
	struct udp_session	*s;
	uint32_t		 h = key_hash(k);

	if ((s = session_find(us, k, h)) != NULL)
		return s;
	if (us->pass.chan != -1) {
		session_pass(us, from, iov, n);
		return NULL;
	}
	if (session_allowed(us, from))
		s = session_open(us, from, k, h);
	return s;
}

void
udp_sessions_forward(struct udp_sessions *us, const struct udp_from *from,
    const struct iovec *iov, int n)
{
	struct udp_session	*s;
	struct udp_key		 k[UDP_BATCH];
	int			 i, j;

	for (i = 0; i < n; i++)
		key_make(us, &from[i], &k[i]);
	/*
	 * A run of datagrams of one session goes in one send.  Runs are
	 * looked up one at a time: making a session may evict another,
	 * which must not be one still to be sent to.
	 */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && memcmp(&k[i], &k[j],
		    sizeof(k[i])) == 0; j++)
			;
		s = session_of(us, &from[i], &k[i], iov + i, j - i);
		if (s != NULL)
			session_send(s, iov + i, j - i);
		else if (us->pass.chan == -1)
			count_dropped(us, from[i].rule, (uint64_t)(j - i));
	}
}

void
udp_sessions_pass(struct udp_sessions *us, int chan)
{
	us->pass.chan = chan;
}

void
udp_sessions_take(struct udp_sessions *us, const void *msg, size_t len)
{
	if (!udp_pass_take(&us->pass, us, msg, len))
		us->counters->dropped++;
}

void
udp_sessions_go(struct udp_sessions *us)
{
	us->counters->dropped += (uint64_t)udp_pass_go(&us->pass, us);
}

int
udp_sessions_source(struct udp_sessions *us, uint32_t rule,
    struct udp_from *from)
{
	if (rule >= us->cfg->nrules || us->rules[rule].lfd == -1)
		return -1;
	memset(from, 0, sizeof(*from));
	from->rule = &us->cfg->rules[rule];
	from->lfd = us->rules[rule].lfd;
	from->family = us->rules[rule].family;
	return 0;
}

/* The control message that sends a reply from the address s's client wrote to. */
union reply_control {
	struct cmsghdr	align;
	/* The source address, and room for UDP_SEGMENT (reply_segments). */
	char		buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
			    CMSG_SPACE(sizeof(uint16_t))];
};

static size_t
reply_control(const struct udp_session *s, union reply_control *ctl)
{
	struct cmsghdr *cm = &ctl->align;

	memset(ctl, 0, sizeof(*ctl));
	if (s->family == AF_INET6) {
		struct in6_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		pi.ipi6_addr = s->key.local;
		pi.ipi6_ifindex = (unsigned)s->ifindex;
		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
	} else {
		struct in_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		memcpy(&pi.ipi_spec_dst, &s->key.local.s6_addr[12], 4);
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
	}
	return cm->cmsg_len;
}

#ifdef UDP_SEGMENT
/*
 * mh (with s's control message) is to carry a run of datagrams of seg
 * bytes: its control, in ctl, gets UDP_SEGMENT beside the source.
 */
static void
reply_control_gso(const struct udp_session *s, struct msghdr *mh,
    union reply_control *ctl, uint16_t seg)
{
	struct cmsghdr	*cm;
	size_t		 first = CMSG_SPACE(reply_control(s, ctl) -
			    CMSG_LEN(0));

	mh->msg_control = ctl->buf;
	mh->msg_controllen = sizeof(ctl->buf);
	cm = CMSG_NXTHDR(mh, CMSG_FIRSTHDR(mh));
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(seg));
	memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
	mh->msg_controllen = first + CMSG_SPACE(sizeof(seg));
}
#else
static void
reply_control_gso(const struct udp_session *s, struct msghdr *mh,
    union reply_control *ctl, uint16_t seg)
{
	(void)s;
	(void)mh;
	(void)ctl;
	(void)seg;
}
#endif

/* Whether a run of replies read as one may leave as one, for s. */
static bool
reply_gso_usable(const struct udp_session *s)
{
#ifdef UDP_SEGMENT
	return gso_works && !s->no_gso;
#else
	(void)s;
	return false;
#endif
}

/* The kernel refused a run of replies as one (err): send them one by one? */
static bool
reply_gso_refused(struct udp_session *s, int err)
{
#ifdef UDP_SEGMENT
	return gso_refused(s, err);
#else
	(void)s;
	(void)err;
	return false;
#endif
}


static void session_reply(struct udp_session *, const struct iovec *,
    const uint16_t *, int);

/* How many datagrams a reply of len bytes cut at seg (0: none) carries. */
static uint64_t
reply_count(size_t len, uint16_t seg)
{
	return seg == 0 || len <= seg ? 1 : (len + seg - 1) / seg;
}

/*
 * A run of equal-size replies read as one (UDP_GRO) that cannot leave as
 * one: send its datagrams, seg bytes each but the last, in batches.
 */
static void
reply_split(struct udp_session *s, const struct iovec *run, uint16_t seg)
{
	struct iovec	 iov[UDP_BATCH];
	char		*base = run->iov_base;
	size_t		 off = 0;
	int		 k;

	while (off < run->iov_len) {
		for (k = 0; k < UDP_BATCH && off < run->iov_len; k++) {
			iov[k].iov_base = base + off;
			iov[k].iov_len = run->iov_len - off < seg ?
			    run->iov_len - off : seg;
			off += iov[k].iov_len;
		}
		session_reply(s, iov, NULL, k);
	}
}

/* k datagrams of bytes went to s's client. */
static void
count_replies(struct udp_session *s, uint64_t k, uint64_t bytes)
{
	struct stats_rule	*sr = stats_rule(s->rule);
	struct stats_backend	*sb = session_stats_backend(s);

	s->owner->counters->datagrams_out += k;
	sr->datagrams_out += k;
	sr->bytes_out += bytes;
	if (sb != NULL)
		sb->bytes_out += bytes;
}

/*
 * Send n replies (iov) to s's client through the listening socket, in
 * sendmmsg batches.  seg[i] (seg may be NULL), where not 0, says iov[i]
 * is a run of datagrams of that size read as one (UDP_GRO): it leaves as
 * one message the kernel cuts again (UDP_SEGMENT), or one by one where
 * that is refused.  What the client's side has no room for is lost, and
 * counted; so is a datagram too large for it.
 */
static void
session_reply(struct udp_session *s, const struct iovec *iov,
    const uint16_t *seg, int n)
{
	struct udp_sessions	*us = s->owner;
	struct mmsghdr		 out[UDP_BATCH];
	union reply_control	 ctl, gso[UDP_BATCH];
	size_t			 ctl_len = reply_control(s, &ctl);
	int			 i, sent, r;
	uint64_t		 us_since;

	if (s->asked_us != 0) {
		/* The first reply since the client's datagram. */
		us_since = (uint64_t)(stats_now_us() - s->asked_us);
		hist_add(&stats_rule(s->rule)->reply, us_since);
		if (s->backend != NULL && !s->stranger)
			hist_add(&stats_backend(s->backend)->reply, us_since);
		s->asked_us = 0;
	}
	memset(out, 0, (size_t)n * sizeof(out[0]));
	for (i = 0; i < n; i++) {
		out[i].msg_hdr.msg_name = &s->client;
		out[i].msg_hdr.msg_namelen = s->client_len;
		out[i].msg_hdr.msg_iov = (struct iovec *)(uintptr_t)&iov[i];
		out[i].msg_hdr.msg_iovlen = 1;
		out[i].msg_hdr.msg_control = ctl.buf;
		out[i].msg_hdr.msg_controllen = ctl_len;
		if (seg != NULL && seg[i] != 0)
			reply_control_gso(s, &out[i].msg_hdr, &gso[i], seg[i]);
		s->bytes_out += iov[i].iov_len;
		us->counters->bytes_out += iov[i].iov_len;
	}
	for (sent = 0; sent < n; sent += r) {
		if ((r = sendmmsg(s->lfd, out + sent, (unsigned)(n - sent),
		    MSG_DONTWAIT)) > 0) {
			for (i = sent; i < sent + r; i++)
				count_replies(s, reply_count(iov[i].iov_len,
				    seg != NULL ? seg[i] : 0), iov[i].iov_len);
			continue;
		}
		if (r == -1 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r == -1 && seg != NULL && seg[sent] != 0 &&
		    reply_gso_refused(s, errno)) {
			reply_split(s, &iov[sent], seg[sent]);
			r = 1;
			continue;
		}
		if (r == -1 && errno == EMSGSIZE) {
			count_dropped(us, s->rule, 1);	/* this one only */
			r = 1;
			continue;
		}
		/* The client's side is full: lose these. */
		for (i = sent; i < n; i++)
			count_dropped(us, s->rule, reply_count(iov[i].iov_len,
			    seg != NULL ? seg[i] : 0));
		break;
	}
	session_touch(s);
}

/* The largest datagram s's client can be sent. */
static size_t
reply_max(const struct udp_session *s)
{
	return s->family == AF_INET || IN6_IS_ADDR_V4MAPPED(&s->key.client) ?
	    65507 : 65527;
}

/* s's TCP backend failed (err) or ended (0): the session ends with it. */
static void
stream_ended(struct udp_session *s, int err)
{
	char backend[ADDR_STRLEN];

	if (err != 0)
		log_debug("%s: backend %s of a UDP session: %s",
		    rule_log_name(s->rule), addr_format((const struct sockaddr *)
		    &s->backend->addr.ss, backend, sizeof(backend)),
		    strerror(err));
	session_close(s, err != 0 ? ACCESSLOG_RESET : ACCESSLOG_DONE);
}

/*
 * Datagrams to a UDP-to-TCP session's backend: framed into the stream,
 * or held while it connects or has no room (whole frames up to
 * FRAME_OUT_MAX; beyond that they are lost, and counted).
 */
static void
stream_send(struct udp_session *s, const struct iovec *iov, int n)
{
	struct udp_sessions	*us = s->owner;
	struct udp_stream	*st = s->stream;
	int			 taken;

	taken = st->connecting ? frame_out_hold(&st->out, s->rule->framing,
	    iov, n) : frame_out_write(&st->out, s->fd, s->rule->framing, iov,
	    n);
	if (taken == -1) {
		count_dropped(us, s->rule, (uint64_t)n);
		stream_ended(s, errno);
		return;
	}
	session_sent(s, iov, taken);
	count_dropped(us, s->rule, (uint64_t)(n - taken));
	if (!st->connecting && frame_out_held(&st->out))
		(void)event_mask(us->loop, s->fd, EV_READ | EV_WRITE);
	session_touch(s);
}

/*
 * A UDP-to-TCP session's backend is ready: finish connecting (or try its
 * next address), write what is held, and send each datagram read from
 * the stream to the client.
 */
static void
stream_on_backend(struct udp_session *s, int events)
{
	struct udp_sessions	*us = s->owner;
	struct udp_stream	*st = s->stream;
	struct iovec		 iov[UDP_BATCH];
	int			 n, rounds, err;

	if (st->connecting) {
		if ((err = tcp_connect_finished(s->fd, events)) != 0) {
			stream_next(s, err);	/* the next backend */
			return;
		}
		if ((events & EV_WRITE) == 0)
			return;		/* not connected yet */
		st->connecting = false;
		tcp_connect_succeeded(&st->connect, s->rule);
		(void)event_timer_arm(us->loop, &s->timer, session_due(s));
	}
	if (frame_out_held(&st->out) &&
	    (err = frame_out_flush(&st->out, s->fd)) == -1) {
		stream_ended(s, errno);
		return;
	}
	(void)event_mask(us->loop, s->fd, frame_out_held(&st->out) ?
	    EV_READ | EV_WRITE : EV_READ);
	for (rounds = 0; rounds < 4; rounds++) {
		n = frame_in_read(&st->in, s->fd, s->rule->framing, us->bufs,
		    reply_max(s), iov, UDP_BATCH);
		if (n == -1) {
			stream_ended(s, errno);
			return;
		}
		if (n == 0)
			return;
		session_reply(s, iov, NULL, n);
	}
	event_defer(us->loop, s->fd);
}

/*
 * Replies: read what the backend sent, in batches, and send each back to
 * the client from the address it wrote to.
 */
static void
session_on_backend(struct event_loop *loop, int fd, int events, void *data)
{
	struct udp_session	*s = data;
	struct udp_sessions	*us = s->owner;
	struct mmsghdr		 in[UDP_BATCH];
	struct iovec		 iov[UDP_BATCH];
	union {
		struct cmsghdr	 align;
		char		 buf[CMSG_SPACE(sizeof(int))];
	}			 gro[UDP_BATCH];
	uint16_t		 seg[UDP_BATCH];
	size_t			 size;
	int			 n, i, rounds, first;

	(void)loop;
	if (s->stream != NULL) {
		stream_on_backend(s, events);
		return;
	}
	/* A bounded number of batches per wakeup, for fairness. */
	for (rounds = 0; rounds < 4; rounds++) {
		memset(in, 0, sizeof(in));
		for (i = 0; i < UDP_BATCH; i++) {
			iov[i].iov_base = us->bufs + (size_t)i * UDP_DATAGRAM_MAX;
			iov[i].iov_len = UDP_DATAGRAM_MAX;
			in[i].msg_hdr.msg_iov = &iov[i];
			in[i].msg_hdr.msg_iovlen = 1;
			in[i].msg_hdr.msg_control = gro[i].buf;
			in[i].msg_hdr.msg_controllen = sizeof(gro[i].buf);
		}
		n = recvmmsg(fd, in, UDP_BATCH, MSG_DONTWAIT, NULL);
		if (n == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return;
			/* ICMP for an earlier datagram: the error is cleared. */
			session_backend_error(s, errno);
			continue;
		}
		/*
		 * A run of replies read as one (UDP_GRO) goes on as one where
		 * the kernel cuts it again for us, else one by one, in order.
		 */
		for (i = 0, first = 0; i < n; i++) {
			if (in[i].msg_hdr.msg_flags & MSG_TRUNC) {
				us->counters->truncated++;
				stats_rule(s->rule)->truncated++;
			}
			iov[i].iov_len = in[i].msg_len;
			size = sock_gro_size(&in[i].msg_hdr);
			seg[i] = size == 0 || in[i].msg_len <= size ||
			    size > UINT16_MAX ? 0 : (uint16_t)size;
			if (seg[i] == 0 || reply_gso_usable(s))
				continue;
			if (i > first)
				session_reply(s, iov + first, seg + first,
				    i - first);
			reply_split(s, &iov[i], seg[i]);
			first = i + 1;
		}
		if (n > first)
			session_reply(s, iov + first, seg + first, n - first);
		if (n < UDP_BATCH)
			return;
	}
	event_defer(us->loop, fd);
}

void
udp_sessions_truncated(struct udp_sessions *us, const struct udp_from *from)
{
	static struct log_limit	limit;
	char			client[ADDR_STRLEN];

	us->counters->truncated++;
	stats_rule(from->rule)->truncated++;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: a datagram from %s "
	    "was cut by the kernel: dropped", rule_log_name(from->rule),
	    addr_format(from->client, client, sizeof(client)));
}

struct udp_sessions *
udp_sessions_new(struct event_loop *loop, const struct conf *cfg,
    struct scoreboard_counters *counters)
{
	struct udp_sessions	*us = calloc(1, sizeof(*us));
	size_t			 i;

	if (us == NULL)
		return NULL;
	us->loop = loop;
	us->cfg = cfg;
	us->counters = counters != NULL ? counters : &us->own;
	udp_pass_init(&us->pass);
	us->nbuckets = 256;
	us->buckets = calloc(us->nbuckets, sizeof(*us->buckets));
	us->rules = calloc(cfg->nrules, sizeof(*us->rules));
	if (us->buckets == NULL || us->rules == NULL) {
		free(us->buckets);
		free(us->rules);
		free(us);
		return NULL;
	}
	for (i = 0; i < cfg->nrules; i++) {
		TAILQ_INIT(&us->rules[i].lru);
		us->rules[i].lfd = -1;
	}
	return us;
}

char *
udp_sessions_buffers(struct udp_sessions *us)
{
	if (us->bufs == NULL)
		us->bufs = malloc((size_t)UDP_BATCH * UDP_DATAGRAM_MAX);
	return us->bufs;
}

int
udp_sessions_count(const struct udp_sessions *us)
{
	return us->count;
}

void
udp_sessions_close_all(struct udp_sessions *us)
{
	size_t i;

	for (i = 0; i < us->cfg->nrules; i++)
		while (!TAILQ_EMPTY(&us->rules[i].lru))
			session_close(TAILQ_FIRST(&us->rules[i].lru),
			    ACCESSLOG_SHUTDOWN);
}

void
udp_sessions_listener(struct udp_sessions *us, const struct rule *rule,
    int lfd)
{
	struct udp_rule *ur = &us->rules[rule - us->cfg->rules];

	ur->lfd = lfd;
	ur->family = rule->listen_addr.ss.ss_family;
}

unsigned
udp_handover_port(const struct udp_handover *h)
{
	/* sin_port and sin6_port are at the same place. */
	return ntohs(h->client.sin6_port);
}

/*
 * Whether s may move to another worker: a TCP backend only once it is
 * connected and no bytes of a frame are held on either side, for the
 * stream must go on where it left off.
 */
static bool
stream_movable(const struct udp_session *s)
{
	return s->stream == NULL || (!s->stream->connecting &&
	    !frame_out_held(&s->stream->out) && !frame_in_held(&s->stream->in));
}

int
udp_sessions_hand_over(struct udp_sessions *us, int chan)
{
	struct udp_handover	 h;
	struct udp_session	*s, *next;
	size_t			 i;
	int			 n = 0;

	for (i = 0; i < us->cfg->nrules; i++)
		for (s = TAILQ_FIRST(&us->rules[i].lru); s != NULL; s = next) {
			next = TAILQ_NEXT(s, lru);
			if (!stream_movable(s))
				continue;	/* it lingers here (linger) */
			memset(&h, 0, sizeof(h));
			h.rule = s->key.rule;
			h.client_len = s->client_len;
			h.client = s->client;
			h.local = s->key.local;
			h.ifindex = s->ifindex;
			h.backend = (uint32_t)(s->backend -
			    s->rule->upstream.backends);
			h.started = s->started;
			h.last_active = s->last_active;
			h.bytes_in = s->bytes_in;
			h.bytes_out = s->bytes_out;
			if (ipc_send_wait(chan, IPC_UDP_SESSION, &h, sizeof(h),
			    &s->fd, 1, HANDOVER_WAIT_MS) == -1) {
				log_warn("cannot hand UDP sessions over: %s; "
				    "%d stay here", strerror(errno), us->count);
				return n;
			}
			session_free(s);
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

	if (h->rule >= us->cfg->nrules || us->rules[h->rule].lfd == -1 ||
	    h->client_len > sizeof(h->client) ||
	    (s = calloc(1, sizeof(*s))) == NULL) {
		close(fd);
		return -1;
	}
	if (us->cfg->rules[h->rule].connect_protocol == RULE_TCP &&
	    (s->stream = calloc(1, sizeof(*s->stream))) == NULL) {
		free(s);
		close(fd);
		return -1;
	}
	ur = &us->rules[h->rule];
	from.rule = &us->cfg->rules[h->rule];
	from.client = (const struct sockaddr *)&h->client;
	from.client_len = h->client_len;
	from.local = h->local;
	key_make(us, &from, &k);
	hash = key_hash(&k);
	/*
	 * A second session of this client (while the worker count changed,
	 * an old worker saw it under the new steering): the one here stays
	 * the client's; this one only carries back the replies still on
	 * their way to its socket, until it times out.
	 */
	s->detached = session_find(us, &k, hash) != NULL;
	log_debug("%s: UDP session of port %u taken over%s",
	    rule_log_name(from.rule), udp_handover_port(h),
	    s->detached ? " (a second one: replies only)" : "");
	s->fd = fd;
	s->rule = from.rule;
	s->backend = adopted_backend(s->rule, fd, h->backend);
	s->stranger = s->backend == NULL;
	if (s->stranger)
		s->backend = &s->rule->upstream.backends[0];	/* for logs */
	/* Open here now: counted here (least-connections, limits). */
	else if (s->stream == NULL)
		balance_acquire(s->backend);
	if (s->stream != NULL && !s->stranger) {
		tcp_connect_init(&s->stream->connect,
		    (const struct sockaddr *)&s->client);
		s->stream->connect.backend = s->backend;
		s->stream->connect.attempts = 1;
		s->stream->connect.held = true;
		s->stream->connect.connected = true;
		stats_backend(s->backend)->active++;
	}
	s->lfd = ur->lfd;
	s->family = ur->family;
	s->ifindex = h->ifindex;
	s->client = h->client;
	s->client_len = h->client_len;
	s->started = h->started;
	s->last_active = h->last_active;
	/* A second session ends soon: only replies in flight are left. */
	if (s->detached)
		s->until = event_now(us->loop) + DETACHED_MS;
	s->bytes_in = h->bytes_in;
	s->bytes_out = h->bytes_out;
	return session_insert(us, s, &k, hash);
}

void
udp_sessions_linger(struct udp_sessions *us)
{
	struct udp_session	*s;
	size_t			 i;
	int64_t			 end = event_now(us->loop) + DETACHED_MS;

	for (i = 0; i < us->cfg->nrules; i++)
		TAILQ_FOREACH(s, &us->rules[i].lru, lru) {
			if (!s->detached)
				table_remove(us, s);
			s->detached = true;
			s->until = end;
			(void)event_timer_arm(us->loop, &s->timer, end);
		}
}
