/*
 * tcp_peek.h - the peek stage of a TCP session on a rule with routes
 * (route.h): between the accept (and an accept_proxy header) and the
 * connect, the client's first bytes are read until the routes' probes
 * (probe.h) pick a route.  The session hands them to the relay, which
 * writes them to the chosen backend first (after a PROXY header) and
 * goes on as for any rule, splice included.
 */
#ifndef FERRYD_TCP_PEEK_H
#define FERRYD_TCP_PEEK_H

#include <stdbool.h>
#include <stdint.h>

#include "probe.h"

struct pool;
struct route;
struct rule;
struct xprt_ops;

/*
 * The stateful probes' state lives here, in the session's peek part
 * (struct session_peek, from the pool while the peek lasts), held
 * whether or not a route needs them: about a kilobyte, mostly the names
 * they keep.  Simpler than a buffer of its own from the pool, which the
 * TLS state was while it held a 16 KiB copy of the hello, and small
 * beside the 16 KiB of bytes an undecided client keeps.
 */
/* tcp_peek_init sets every field by name: a new one needs its line. */
struct tcp_peek {
	struct probe_tls	 tls;
	struct probe_http	 http;
	uint8_t			*kept;	/* from the pool while undecided: the
					 * bytes read so far */
	uint8_t			 tls_v, http_v;	/* enum probe_verdict */
	bool			 drained;	/* the last read emptied the
						 * socket */
	bool			 eof;	/* and then the client's end came */
	uint32_t		 len;	/* bytes read so far */
	/* What the chosen route matched, for PROXY v2 and the access log. */
	char			 sni[PROBE_NAME_MAX + 1];
};

enum tcp_peek_status {
	TCP_PEEK_AGAIN,		/* undecided: wait for more bytes */
	TCP_PEEK_ROUTE,		/* *route is the client's */
	TCP_PEEK_UNMATCHED,	/* no route takes what it sent */
	TCP_PEEK_OVERSIZED,	/* PROBE_PEEK_MAX bytes, still undecided */
	TCP_PEEK_CLOSED,	/* the client closed (*err 0) or failed */
	TCP_PEEK_SHORTAGE	/* no memory to keep the bytes (*err
				 * ENOMEM) */
};

/* Before the first look. */
void	tcp_peek_init(struct tcp_peek *p);

/*
 * Read what client socket fd has queued (through xprt's rcv_buf) and
 * run the probes rule's routes need on the bytes new since the last
 * look; the first route in order that matches wins, and one still
 * undecided holds back those after it (the bytes are then kept, from
 * pool).  A client that ends after some bytes is undecided until
 * peek_timeout; with probes = "sslh" it goes to the last route, as in
 * sslh, at the read that returns its end or, with fin (its FIN is in:
 * the event loop's EV_RDHUP), at the short read that empties it.
 */
enum tcp_peek_status tcp_peek_look(struct tcp_peek *p, int fd,
    const struct xprt_ops *xprt, struct pool *pool,
    const struct rule *rule, bool fin, const struct route **route,
    int *err);

/*
 * The p->len bytes read so far, for the relay: valid until the next
 * look of any session or tcp_peek_end.
 */
const uint8_t	*tcp_peek_bytes(const struct tcp_peek *p);

/* The peek is over (decided or not): the bytes kept go back. */
void	tcp_peek_end(struct tcp_peek *p, struct pool *pool);

#endif
