/*
 * tcp_proxy_wait.h - connections of accept_proxy rules waiting for their
 * PROXY header: read with MSG_PEEK until whole, then exactly its bytes
 * taken, so that the client's first payload byte stays in the socket
 * (for splice); bounded by proxy_timeout; a malformed, oversized or
 * late header closes the connection with a rate-limited log line and a
 * counter.  A whole header's addresses become the connection's.
 * accept_proxy = "optional": first bytes that cannot start a header, no
 * byte within proxy_timeout, or a header's start and then its end, make
 * a client without one, whose bytes are all its own; a whole header is
 * taken off, but its addresses stand only from accept_proxy_from.
 */
#ifndef FERRYD_TCP_PROXY_WAIT_H
#define FERRYD_TCP_PROXY_WAIT_H

#include "addr.h"

struct rule;

struct event_loop;
struct proxy_waits;

struct tcp_proxied;

/*
 * What to do with a connection whose header is whole: peer, and what
 * else it said (tcp_session.h), as the header says, or the connection's
 * when it said LOCAL or UNKNOWN, or sent none ("optional").
 */
typedef void proxy_admit_fn(void *arg, int fd, const struct rule *rule,
    const struct sockaddr_any *peer, const struct tcp_proxied *proxied);

struct proxy_waits *proxy_waits_new(struct event_loop *loop,
    proxy_admit_fn *admit, void *arg);
void	proxy_waits_free(struct proxy_waits *pw);

/*
 * Wait for the header of accepted connection fd of rule, from peer (the
 * connection's).  accept_proxy_from is checked here.  0, or -1 with
 * errno when out of memory (fd is closed either way on failure).
 */
int	proxy_wait_start(struct proxy_waits *pw, int fd,
    const struct rule *rule, const struct sockaddr_any *peer);

/* Connections waiting. */
int	proxy_waits_count(const struct proxy_waits *pw);

/* Close every connection still waiting (the worker stops). */
void	proxy_waits_close_all(struct proxy_waits *pw);

#endif
