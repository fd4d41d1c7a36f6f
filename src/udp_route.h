/*
 * udp_route.h - a UDP session on a rule with routes (route.h), from its
 * first datagram until a route is picked: the datagrams are judged one
 * by one, those that leave it undecided held (bounded per session, per
 * worker, and in time by peek_timeout), and all sent in order once a
 * route is picked.  udp_session.c calls in, and opens the chosen
 * destination's backend itself.
 */
#ifndef FERRYD_UDP_ROUTE_H
#define FERRYD_UDP_ROUTE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "probe.h"

struct route;
struct rule;
struct udp_session;

/* Held per undecided session, and per worker in all. */
#define UDP_HELD_MAX		16
#define UDP_HELD_BYTES		65536
#define UDP_HELD_TOTAL		(4 * 1024 * 1024)
/* Sessions of a worker whose QUIC Initials are read at once (~20 KB). */
#define UDP_QUIC_MAX		1024

struct quic_initial;

/*
 * Which route of rule the datagram d (len bytes) picks, q what the
 * session's QUIC Initials said so far (NULL: not read): the route, or
 * NULL with *v PROBE_AGAIN (undecided: wait for the next datagram) or
 * PROBE_NO (no route takes it, none waits).  d has room for one more
 * byte (regexec's NUL).  Pure: for the unit tests too.
 */
const struct route *udp_route_pick(const struct rule *rule, uint8_t *d,
    size_t len, const struct quic_initial *q, enum probe_verdict *v);

/* What the datagrams of an undecided session came to. */
enum udp_judged {
	UDP_JUDGED_HELD,	/* all held: still undecided */
	UDP_JUDGED_PICKED,	/* iov[*at] picked *rt */
	UDP_JUDGED_UNMATCHED	/* no route takes iov[*at], none waits */
};

/*
 * n datagrams (iov) of undecided s, judged in order until one decides
 * (its index in *at); those before it are held (or dropped and counted,
 * past the bounds).  UDP_JUDGED_PICKED: the caller opens (*rt)->dest's
 * backend, sends what was held (udp_route_held), then iov[*at] on.
 * UDP_JUDGED_UNMATCHED: said and counted (ferryd_rule_unmatched_total),
 * iov[*at] on counted as dropped; the caller ends the session.
 */
enum udp_judged udp_route_judge(struct udp_session *s,
    const struct iovec *iov, int n, const struct route **rt, int *at);

/*
 * What s held, in the order it came, in iov (room for UDP_HELD_MAX): the
 * caller sends them before udp_route_release.  How many.
 */
int	udp_route_held(struct udp_session *s, struct iovec *iov);

/*
 * s stayed undecided for peek_timeout (counted, on the route too):
 * on_timeout's route (with probes = "sslh", the last route, as sslh),
 * or NULL: it ends.
 */
const struct route *udp_route_timeout(struct udp_session *s);

/*
 * s is decided or ends: what it holds goes, and what was not sent
 * (udp_route_held) is counted as dropped.
 */
void	udp_route_release(struct udp_session *s);

/* The route decided s's backend is of, or NULL (none, or no route). */
const struct route *udp_route_of(const struct udp_session *s);

#endif
