/*
 * tcp_to_udp.c - a TCP connection carried to a UDP backend as datagrams
 * (tcp_to_udp.h).
 *
 * Either way, when the far side has no room, the near side is not read
 * until it has: datagrams the backend socket could not take wait in the
 * frame_in (CONN_BACKEND_FULL), replies the client could not take in the
 * frame_out, and each side's event mask follows from the state and what
 * is held (conn_settle).
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include "accesslog.h"
#include "addr.h"
#include "balance.h"
#include "bug.h"
#include "client_limit.h"
#include "event.h"
#include "framing.h"
#include "log.h"
#include "proxy_proto.h"
#include "rule.h"
#include "session_list.h"
#include "sock.h"
#include "stats.h"
#include "tcp_to_udp.h"
#include "udp_backend.h"
#include "udp_io.h"
#include "udp_types.h"
#include "upstream.h"

/* How long replies may come after the client closed its side. */
#define LINGER_MS	2000

/*
 * A connection's life.  RELAYING and BACKEND_FULL alternate while the
 * client sends (in BACKEND_FULL the client is not read: datagrams wait
 * in c->in for room); LINGERING once the client closed its side, while
 * replies may still come; CLOSING once over, c->result saying why.
 */
enum conn_state {
	CONN_RELAYING,
	CONN_BACKEND_FULL,
	CONN_LINGERING,
	CONN_CLOSING
};

#define TO(s)	(1u << (s))
static const unsigned conn_next[] = {
	[CONN_RELAYING] = TO(CONN_BACKEND_FULL) | TO(CONN_LINGERING) |
	    TO(CONN_CLOSING),
	[CONN_BACKEND_FULL] = TO(CONN_RELAYING) | TO(CONN_CLOSING),
	[CONN_LINGERING] = TO(CONN_CLOSING),
	[CONN_CLOSING] = 0
};

/* For "show sessions": a full backend is still relaying. */
static const char *const conn_state_names[] = {
	"relaying", "relaying", "lingering", "closing"
};

struct conn {
	TAILQ_ENTRY(conn)	 link;
	struct tcp_to_udp	*owner;
	const struct rule	*rule;
	const struct backend	*backend;
	int			 cfd;		/* the client's stream */
	int			 bfd;		/* connected to the backend */
	enum conn_state		 state;
	const char		*result;	/* CONN_CLOSING: why */
	int			 err;		/* ... and the error, or 0 */
	struct frame_in		 in;		/* client bytes, not yet sent */
	struct frame_out	 out;		/* replies, not yet written */
	int64_t			 started, last_active;
	uint64_t		 bytes_in, bytes_out;
	struct event_timer	 timer;
	struct sockaddr_any	 peer;
	int			 client_hold;	/* client_limit_hold()'s */
	size_t			 proxy_len;	/* send_proxy: its header */
	unsigned char		 proxy[PROXY_HEADER_MAX];
};

struct tcp_to_udp {
	struct event_loop	*loop;
	TAILQ_HEAD(, conn)	 list;
	int			 count;
	char			*buf;		/* UDP_BATCH datagrams, or a read */
};

static void conn_on_client(struct event_loop *, int, int, void *);
static void conn_on_backend(struct event_loop *, int, int, void *);

static void
conn_enter(struct conn *c, enum conn_state to)
{
	BUG_ON(!(conn_next[c->state] & TO(to)));
	c->state = to;
}

/* c is to be closed with result (err: why it failed, or 0). */
static void
conn_end(struct conn *c, const char *result, int err)
{
	if (c->state == CONN_CLOSING)
		return;		/* the first reason stands */
	c->result = result;
	c->err = err;
	conn_enter(c, CONN_CLOSING);
}

/* What the counters of c's rule and backend keep of c, which ends. */
static void
conn_count_end(const struct conn *c, int64_t now)
{
	struct stats_rule	*sr = stats_rule(c->rule);
	struct stats_backend	*sb;
	uint64_t		 us = stats_elapsed_us(c->started, now);

	sr->closed++;
	sr->active--;
	sr->bytes_in += c->bytes_in;
	sr->bytes_out += c->bytes_out;
	hist_add(&stats_rule_hist(c->rule)->duration, us);
	if (c->bfd == -1)
		return;
	sb = stats_backend(c->backend);
	sb->active--;
	sb->bytes_in += c->bytes_in;
	sb->bytes_out += c->bytes_out;
	hist_add(&stats_backend_hist(c->backend)->duration, us);
}

static void
conn_free(struct conn *c)
{
	struct tcp_to_udp	*tu = c->owner;
	char			 client[ADDR_STRLEN];

	log_debug("%s -> %s: connection from %s closed (%s%s%s): %llu bytes "
	    "in, %llu bytes out", rule_log_name(c->rule), c->rule->connect,
	    addr_format((const struct sockaddr *)&c->peer.ss, client,
	    sizeof(client)), c->result, c->err != 0 ? ": " : "",
	    c->err != 0 ? strerror(c->err) : "",
	    (unsigned long long)c->bytes_in, (unsigned long long)c->bytes_out);
	accesslog_session(c->rule, (const struct sockaddr *)&c->peer.ss,
	    (const struct sockaddr *)&c->backend->addr.ss, 1, c->result,
	    c->bytes_in, c->bytes_out, c->started, event_now(tu->loop),
	    &accesslog_no_times);
	conn_count_end(c, event_now(tu->loop));
	client_limit_release(c->client_hold);
	event_close(tu->loop, c->cfd);
	/* A FIN when it ends well; the socket was made to reset otherwise. */
	if (c->err == 0)
		sock_abort_on_close(c->cfd, false);
	close(c->cfd);
	if (c->bfd != -1) {
		event_close(tu->loop, c->bfd);
		close(c->bfd);
		balance_release(c->backend);
	}
	event_timer_cancel(tu->loop, &c->timer);
	frame_in_free(&c->in);
	frame_out_free(&c->out);
	TAILQ_REMOVE(&tu->list, c, link);
	tu->count--;
	free(c);
}

/*
 * The end of every handler: close c if it is over, else watch what each
 * side can take now.  The client is read while the backend takes
 * datagrams; the backend is read while no reply waits for the client.
 */
static void
conn_settle(struct conn *c)
{
	struct event_loop	*loop = c->owner->loop;
	bool			 held = frame_out_held(&c->out);
	bool			 full = c->state == CONN_BACKEND_FULL;

	if (c->state == CONN_LINGERING && !held &&
	    !frame_in_held(&c->in) && c->last_active + LINGER_MS <=
	    event_now(loop))
		conn_end(c, ACCESSLOG_DONE, 0);
	if (c->state == CONN_CLOSING) {
		conn_free(c);
		return;
	}
	if (event_mask(loop, c->cfd, (c->state == CONN_RELAYING ? EV_READ :
	    0) | (held ? EV_WRITE : 0)) == -1 ||
	    event_mask(loop, c->bfd, (held ? 0 : EV_READ) |
	    (full ? EV_WRITE : 0)) == -1) {
		conn_end(c, ACCESSLOG_RESET, errno);
		conn_free(c);
	}
}

static void
conn_on_timer(struct event_timer *t, void *data)
{
	struct conn	*c = data;
	bool		 lingering = c->state == CONN_LINGERING;
	int64_t		 due = c->last_active + (lingering ? LINGER_MS :
	    c->rule->session_timeout);

	if (due > event_now(c->owner->loop) &&
	    event_timer_arm(c->owner->loop, t, due) == 0)
		return;
	conn_end(c, lingering ? ACCESSLOG_DONE : ACCESSLOG_IDLE_TIMEOUT, 0);
	conn_settle(c);
}

/* The backend reported an error (ICMP unreachable). */
static void
backend_error(struct conn *c, int err)
{
	udp_backend_error(c->rule, c->backend, err);
}

/* n datagrams of c were not sent on. */
static void
conn_dropped(struct conn *c, uint64_t n)
{
	stats_rule(c->rule)->dropped += n;
}

/*
 * Send n datagrams to the backend, each after the PROXY header where the
 * rule sends one.  Those its socket has no room for go back to the
 * frame_in, and the client waits.  A datagram too large for UDP is
 * lost, and counted.
 */
static void
conn_send(struct conn *c, const struct iovec *iov, int n)
{
	struct mmsghdr	 m[UDP_BATCH];
	struct iovec	 parts[2 * UDP_BATCH];
	int		 i, sent = 0, r, errors = 0;

	BUG_ON(c->state != CONN_RELAYING || n > UDP_BATCH);
	udp_datagrams(m, parts, iov, n, c->proxy, c->proxy_len);
	while (sent < n) {
		r = sendmmsg(c->bfd, m + sent, (unsigned)(n - sent), 0);
		if (r > 0) {
			for (i = sent; i < sent + r; i++)
				c->bytes_in += iov[i].iov_len;
			stats_rule(c->rule)->datagrams_in += (uint64_t)r;
			sent += r;
			continue;
		}
		if (errno == EINTR)
			continue;
		/* ICMP for an earlier datagram: this one was not sent. */
		if (udp_unreachable(errno) && errors++ < n) {
			backend_error(c, errno);
			continue;
		}
		if (errno == EMSGSIZE) {
			conn_dropped(c, 1);
			sent++;
			continue;
		}
		/*
		 * The socket is full: wait for room.  ENOBUFS is the
		 * device's queue, which no wakeup announces: that datagram
		 * is dropped, as the kernel drops one on its way.
		 */
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (frame_in_unread(&c->in, c->rule->framing,
			    iov + sent, n - sent) == -1)
				conn_end(c, ACCESSLOG_RESET, ENOMEM);
			else
				conn_enter(c, CONN_BACKEND_FULL);
			return;
		}
		if (errno == ENOBUFS) {
			conn_dropped(c, 1);
			sent++;
			continue;
		}
		conn_dropped(c, (uint64_t)(n - sent));
		conn_end(c, ACCESSLOG_RESET, errno);
		return;
	}
}

/* The largest datagram the backend can be sent, after its header. */
static size_t
dgram_max(const struct conn *c)
{
	return (c->backend->addr.ss.ss_family == AF_INET ? 65507 : 65527) -
	    c->proxy_len;
}

/* Read the client's stream into datagrams for the backend. */
static void
conn_read_client(struct conn *c)
{
	struct tcp_to_udp	*tu = c->owner;
	struct iovec		 iov[UDP_BATCH];
	uint64_t		 before = c->bytes_in;
	int			 n, rounds;

	if (c->state == CONN_BACKEND_FULL)
		conn_enter(c, CONN_RELAYING);	/* it has room: try again */
	for (rounds = 0; rounds < 4; rounds++) {
		n = frame_in_read(&c->in, c->cfd, c->rule->framing, tu->buf,
		    dgram_max(c), iov, UDP_BATCH);
		if (n == -1 && errno != 0) {
			conn_end(c, ACCESSLOG_RESET, errno);
			break;
		}
		if (n == -1) {
			/* Replies may still come, for a moment. */
			conn_enter(c, CONN_LINGERING);
			if (event_timer_arm(tu->loop, &c->timer, event_now(
			    tu->loop) + LINGER_MS) == -1)
				conn_end(c, ACCESSLOG_DONE, 0);
			break;
		}
		if (n == 0)
			break;
		conn_send(c, iov, n);
		if (c->state != CONN_RELAYING)
			break;
	}
	if (rounds == 4)
		event_defer(tu->loop, c->cfd);
	if (c->bytes_in != before)
		c->last_active = event_now(tu->loop);
}

static void
conn_on_client(struct event_loop *loop, int fd, int events, void *data)
{
	struct conn	*c = data;

	(void)loop;
	(void)fd;
	if ((events & EV_WRITE) && frame_out_flush(&c->out, c->cfd) == -1)
		conn_end(c, ACCESSLOG_RESET, errno);
	/* events 0: deferred, with more to read. */
	if (c->state == CONN_RELAYING &&
	    (events == 0 || (events & ~EV_WRITE) != 0))
		conn_read_client(c);
	conn_settle(c);
}

/* Replies: datagrams from the backend into the client's stream. */
static void
conn_on_backend(struct event_loop *loop, int fd, int events, void *data)
{
	struct conn		*c = data;
	struct tcp_to_udp	*tu = c->owner;
	struct mmsghdr		 m[UDP_BATCH];
	struct iovec		 iov[UDP_BATCH];
	int			 n, i, taken;

	(void)loop;
	if ((events & EV_WRITE) && c->state == CONN_BACKEND_FULL)
		conn_read_client(c);	/* the held datagrams first */
	/* events 0: deferred, with more to read. */
	if (c->state == CONN_CLOSING || frame_out_held(&c->out) ||
	    (events != 0 && (events & ~EV_WRITE) == 0)) {
		conn_settle(c);
		return;
	}
	memset(m, 0, sizeof(m));
	for (i = 0; i < UDP_BATCH; i++) {
		iov[i].iov_base = tu->buf + (size_t)i * UDP_DATAGRAM_MAX;
		iov[i].iov_len = UDP_DATAGRAM_MAX;
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	n = recvmmsg(fd, m, UDP_BATCH, MSG_DONTWAIT, NULL);
	if (n == -1) {
		if (udp_unreachable(errno))
			backend_error(c, errno);
		else if (errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR)
			conn_end(c, ACCESSLOG_RESET, errno);
		conn_settle(c);
		return;
	}
	for (i = 0; i < n; i++) {
		if (m[i].msg_hdr.msg_flags & MSG_TRUNC)
			stats_rule(c->rule)->truncated++;
		iov[i].iov_len = m[i].msg_len;
	}
	if ((taken = frame_out_write(&c->out, c->cfd, c->rule->framing, iov,
	    n)) == -1) {
		conn_end(c, ACCESSLOG_RESET, errno);
		conn_settle(c);
		return;
	}
	for (i = 0; i < taken; i++)
		c->bytes_out += iov[i].iov_len;
	stats_rule(c->rule)->datagrams_out += (uint64_t)taken;
	conn_dropped(c, (uint64_t)(n - taken));
	c->last_active = event_now(tu->loop);
	if (n == UDP_BATCH)
		event_defer(tu->loop, fd);
	conn_settle(c);
}

int
tcp_to_udp_start(struct tcp_to_udp *tu, int client_fd,
    const struct rule *rule, const struct sockaddr_any *peer,
    const unsigned char *proxy, size_t proxy_len)
{
	static struct log_limit	 limit;
	struct conn		*c;
	char			 client[ADDR_STRLEN];
	int			 err;

	if ((tu->buf == NULL && (tu->buf = malloc((size_t)UDP_BATCH *
	    UDP_DATAGRAM_MAX)) == NULL) || (c = calloc(1, sizeof(*c))) ==
	    NULL) {
		close(client_fd);
		errno = ENOMEM;
		return -1;
	}
	c->owner = tu;
	c->rule = rule;
	c->cfd = client_fd;
	c->peer = *peer;
	memcpy(c->proxy, proxy, proxy_len);
	c->proxy_len = proxy_len;
	c->started = c->last_active = event_now(tu->loop);
	c->client_hold = client_limit_hold(rule, peer, c->started);
	c->backend = &rule->upstream.backends[0];
	event_timer_init(&c->timer, conn_on_timer, c);
	TAILQ_INSERT_TAIL(&tu->list, c, link);
	tu->count++;
	stats_rule(rule)->accepted++;
	stats_rule(rule)->active++;
	if ((c->bfd = udp_backend_socket(rule,
	    (const struct sockaddr *)&peer->ss, &c->backend)) == -1) {
		err = errno;
		stats_rule(rule)->no_backend++;
		log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot open a "
		    "UDP socket to %s for client %s: %s", rule_log_name(rule),
		    rule->connect, addr_format((const struct sockaddr *)
		    &peer->ss, client, sizeof(client)), strerror(err));
		conn_end(c, ACCESSLOG_CONNECT_FAILED, err);
		conn_free(c);
		if (!sock_shortage(err))
			return 0;
		errno = err;
		return -1;
	}
	stats_backend(c->backend)->opened++;
	stats_backend(c->backend)->active++;
	if (event_set(tu->loop, c->cfd, EV_READ, conn_on_client, c) == -1 ||
	    event_set(tu->loop, c->bfd, EV_READ, conn_on_backend, c) == -1 ||
	    event_timer_arm(tu->loop, &c->timer, c->started +
	    rule->session_timeout) == -1) {
		err = errno;
		conn_end(c, ACCESSLOG_CONNECT_FAILED, err);
		conn_free(c);
		errno = err;
		return -1;
	}
	return 0;
}

struct tcp_to_udp *
tcp_to_udp_new(struct event_loop *loop)
{
	struct tcp_to_udp *tu = calloc(1, sizeof(*tu));

	if (tu == NULL)
		return NULL;
	tu->loop = loop;
	TAILQ_INIT(&tu->list);
	return tu;
}

int
tcp_to_udp_count(const struct tcp_to_udp *tu)
{
	return tu->count;
}

void
tcp_to_udp_list(const struct tcp_to_udp *tu, struct session_list *l)
{
	const struct conn	*c;
	struct session_entry	*e;

	TAILQ_FOREACH(c, &tu->list, link) {
		if ((e = session_list_add(l, c->rule)) == NULL)
			continue;
		e->rule = c->rule;
		e->route = NULL;
		e->backend = c->backend;
		e->state = conn_state_names[c->state];
		e->client = c->peer;
		e->from_client = c->bytes_in;
		e->from_backend = c->bytes_out;
		e->started = c->started;
	}
}

void
tcp_to_udp_close_all(struct tcp_to_udp *tu)
{
	struct conn *c;

	while ((c = TAILQ_FIRST(&tu->list)) != NULL) {
		conn_end(c, ACCESSLOG_SHUTDOWN, 0);
		conn_free(c);
	}
}

void
tcp_to_udp_free(struct tcp_to_udp *tu)
{
	tcp_to_udp_close_all(tu);
	free(tu->buf);
	free(tu);
}
