/*
 * udp_stream.c - a UDP-to-TCP session's backend side (udp_stream.h): a
 * TCP connection, made with tcp_connect.c's restartable connect, that
 * carries the client's datagrams framed as the rule says (framing.c) and
 * brings the replies back as datagrams.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <unistd.h>

#include "event.h"
#include "framing.h"
#include "proxy_proto.h"
#include "stats.h"
#include "tcp_connect.h"
#include "udp_io.h"
#include "udp_stream.h"
#include "udp_types.h"

/* A UDP-to-TCP session's stream side, with what it holds; NULL: none. */
void
udp_stream_free(struct udp_stream *st)
{
	if (st == NULL)
		return;
	frame_out_free(&st->out);
	frame_in_free(&st->in);
	free(st);
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

	switch (tcp_connect_next(tc, rule, event_now_us(s->owner->loop),
	    s->stream->deadline, &fd,
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

int
udp_stream_next(struct udp_session *s, int err)
{
	struct udp_sessions	*us = s->owner;
	int			 fd;

	if ((fd = stream_connect(s, s->rule, err)) == -1)
		return -1;
	event_close(us->loop, s->fd);
	close(s->fd);
	s->fd = fd;
	return 0;
}

/*
 * New session s's TCP connection: its PROXY header first in line where
 * the rule sends one, then the first backend tried.
 */
int
udp_stream_start(struct udp_session *s, const struct rule *rule)
{
	unsigned char	hdr[PROXY_HEADER_MAX];
	struct iovec	iov;

	if ((s->stream = calloc(1, sizeof(*s->stream))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (rule->send_proxy != PROXY_OFF) {
		iov.iov_base = hdr;
		iov.iov_len = udp_io_proxy_header(s, hdr);
		if (frame_out_hold(&s->stream->out, FRAMING_NONE, &iov,
		    1) != 1) {
			errno = ENOMEM;
			return -1;
		}
	}
	tcp_connect_init(&s->stream->connect,
	    (const struct sockaddr *)&s->client);
	s->stream->deadline = event_now(s->owner->loop) + rule->connect_timeout;
	return stream_connect(s, rule, 0);
}

/* The largest datagram s's client can be sent. */
static size_t
reply_max(const struct udp_session *s)
{
	return s->family == AF_INET || IN6_IS_ADDR_V4MAPPED(&s->key.client) ?
	    65507 : 65527;
}

/*
 * Datagrams to a UDP-to-TCP session's backend: framed into the stream,
 * or held while it connects or has no room (whole frames up to
 * FRAME_OUT_MAX; beyond that they are lost, and counted).
 */
int
udp_stream_send(struct udp_session *s, const struct iovec *iov, int n)
{
	struct udp_sessions	*us = s->owner;
	struct udp_stream	*st = s->stream;
	int			 taken;

	taken = udp_state_connecting(s->state) ? frame_out_hold(&st->out,
	    s->rule->framing, iov, n) : frame_out_write(&st->out, s->fd,
	    s->rule->framing, iov, n);
	if (taken == -1) {
		udp_io_dropped(s->rule, (uint64_t)n);
		return -1;
	}
	udp_io_sent(s, iov, taken);
	udp_io_dropped(s->rule, (uint64_t)(n - taken));
	if (!udp_state_connecting(s->state) && frame_out_held(&st->out))
		(void)event_mask(us->loop, s->fd, EV_READ | EV_WRITE);
	return 0;
}

/*
 * s's TCP backend is connected and ready: write what is held, and send
 * each datagram read from the stream to the client.  Returns how many
 * were read, or -1 (errno; 0: the stream ended).
 */
int
udp_stream_pump(struct udp_session *s)
{
	struct udp_sessions	*us = s->owner;
	struct udp_stream	*st = s->stream;
	struct iovec		 iov[UDP_BATCH];
	int			 n, rounds, got = 0;

	if (frame_out_held(&st->out) && frame_out_flush(&st->out, s->fd) == -1)
		return -1;
	(void)event_mask(us->loop, s->fd, frame_out_held(&st->out) ?
	    EV_READ | EV_WRITE : EV_READ);
	for (rounds = 0; rounds < 4; rounds++) {
		n = frame_in_read(&st->in, s->fd, s->rule->framing, us->bufs,
		    reply_max(s), iov, UDP_BATCH);
		if (n == -1)
			return -1;
		if (n == 0)
			return got;
		udp_io_reply(s, iov, NULL, n);
		got += n;
	}
	event_defer(us->loop, s->fd);
	return got;
}

/*
 * Whether s may move to another worker: a TCP backend only once it is
 * connected and no bytes of a frame are held on either side, for the
 * stream must go on where it left off.
 */
bool
udp_stream_movable(const struct udp_session *s)
{
	return s->stream == NULL || (!udp_state_connecting(s->state) &&
	    !frame_out_held(&s->stream->out) && !frame_in_held(&s->stream->in));
}

/*
 * s came from another worker with its TCP connection: connected to its
 * backend, and open here now, so counted here.
 */
void
udp_stream_adopted(struct udp_session *s)
{
	tcp_connect_init(&s->stream->connect,
	    (const struct sockaddr *)&s->client);
	s->stream->connect.backend = s->backend;
	s->stream->connect.attempts = 1;
	s->stream->connect.held = true;
	s->stream->connect.connected = true;
	stats_backend(s->backend)->active++;
}
