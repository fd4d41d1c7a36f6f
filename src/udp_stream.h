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

struct backend;
struct rule;

struct udp_session;
struct udp_stream;

/*
 * Make s's stream side and start its TCP connection to rule's backends:
 * the socket, connecting, or -1 with errno (s->stream, if made, is the
 * caller's to free).
 */
int	udp_stream_start(struct udp_session *s, const struct rule *rule);

/*
 * s's connect failed with err: s->fd is now the socket of a connect to
 * the next backend, to be watched for writing; or -1 with errno when
 * none is left (s->fd stays).
 */
int	udp_stream_next(struct udp_session *s, int err);

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
