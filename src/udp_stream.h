/*
 * udp_stream.h - the backend side of a UDP-to-TCP rule's session (raw or
 * length16, as the rule's framing says): a TCP connection that carries
 * the client's datagrams and brings the replies back as datagrams.
 */
#ifndef FERRYD_UDP_STREAM_H
#define FERRYD_UDP_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "conf.h"
#include "framing.h"
#include "tcp_connect.h"

struct udp_session;

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

/*
 * Start s's TCP connection to rule's backends (s->stream made): the
 * socket, connecting, or -1 with errno.
 */
int	udp_stream_start(struct udp_session *s, const struct rule *rule);

/*
 * The connect before failed with err (0: none): the socket of a connect
 * started to the next backend, or -1 with errno when none is left.
 */
int	udp_stream_connect(struct udp_session *s, const struct rule *rule,
    int err);

/* A stream side and what it holds; NULL: none. */
void	udp_stream_free(struct udp_stream *st);

/*
 * Send n datagrams (iov) from s's client into the stream, or hold them
 * while it connects.  0, or -1 with errno: the stream failed.
 */
int	udp_stream_send(struct udp_session *s, const struct iovec *iov, int n);

/*
 * s's connected stream is ready: write what is held, send the replies
 * read to the client.  How many were read, or -1 with errno (0: the
 * backend closed the stream).
 */
int	udp_stream_pump(struct udp_session *s);

/* Whether s may move to another worker now (udp_handover.c). */
bool	udp_stream_movable(const struct udp_session *s);

/* s was handed over with its connected stream: counted open here. */
void	udp_stream_adopted(struct udp_session *s);

#endif
