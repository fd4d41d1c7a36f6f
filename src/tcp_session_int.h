/*
 * tcp_session_int.h - what tcp_session.c (a connection's life),
 * tcp_session_route.c (its peek stage on a rule with routes) and
 * tcp_session_reset.c (its ends after a reset) share: the session's
 * state.  Not for the rest of the daemon, which sees
 * tcp_session.h.
 */
#ifndef FERRYD_TCP_SESSION_INT_H
#define FERRYD_TCP_SESSION_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "addr.h"
#include "event.h"
#include "tcp_connect.h"
#include "tcp_peek.h"
#include "tcp_relay.h"

struct tcp_proxied;

struct route;
struct rule;

enum tcp_state {
	TCP_PEEKING,		/* routes: the first bytes pick one */
	TCP_CONNECTING,		/* the client is read; a backend is tried */
	TCP_RELAYING,		/* bytes flow both ways */
	TCP_DRAINING,		/* a side reset: the other's socket sends
				 * what came before, then it is reset too */
	TCP_CLOSING		/* to be closed when the handler returns */
};

struct tcp_session {
	TAILQ_ENTRY(tcp_session) link;
	struct tcp_sessions	*owner;
	const struct rule	*rule;		/* the listener's */
	const struct rule	*dest;		/* where it connects: rule, or
						 * its route's destination */
	const struct route	*route;		/* the route taken, or NULL */
	struct session_peek	*peek;		/* routes: from the accept on */
	uint8_t			 state;		/* enum tcp_state */
	/* How it ends, once CLOSING: */
	int8_t			 reset_side;	/* closed with a reset, or -1 */
	int8_t			 err_side;	/* whose socket failed, or -1 */
	uint8_t			 closed_first;	/* enum accesslog_side */
	bool			 shortage;	/* for want of a resource (err) */
	int			 err;		/* errno of why, or 0 */
	const char		*result;	/* the access log's word */
	const char		*why;		/* the debug log's, if no err */
	struct tcp_connect	 connect;
	struct tcp_relay	 relay;
	int64_t			 started;
	int64_t			 accepted_us;	/* event_now_us() */
	/* From then to connected, then to the first byte: us, or TIME_NONE. */
	uint32_t		 connect_us, first_byte_us;
	struct event_timer	 timer;		/* connect, then idle timeout */
	struct event_timer	 budget;	/* rule_rate_limit: the relay's
						 * resume_at */
	struct sockaddr_any	 peer;
	int			 client_hold;	/* client_limit_hold()'s */
	int64_t			 connect_from;	/* connect_timeout counts from:
						 * the start, the route's pick,
						 * or the end of the queue */
	int64_t			 queue_until;	/* queue_timeout's end, or 0 */
	bool			 queued;	/* in its owner's queue */
	/*
	 * The client reset while the backend connects, after sending what
	 * waits in the relay: the connect has ORPHAN_CONNECT_MS, and no
	 * other backend is tried.
	 */
	bool			 orphan;
	/*
	 * TCP_DRAINING: what the live side's socket held unsent at the
	 * last look, when that last shrank, the pause to the next (ms).
	 */
	int			 drain_unsent;
	int64_t			 drain_moved;
	int			 drain_pause;
	TAILQ_ENTRY(tcp_session) qlink;
};

/* What a session on a rule with routes keeps besides (pool). */
struct session_peek {
	struct tcp_peek		 look;
	struct sockaddr_any	 local;		/* as a PROXY header said */
	bool			 has_local;
	uint16_t		 said_len;	/* the header, for a route */
	unsigned char		*said;		/* of send_proxy "pass" */
	bool			 resting;	/* unwatched until again */
	struct event_timer	 again;		/* level-triggered loops */
};

/*
 * How long an undecided client rests unwatched on a level-triggered
 * loop (poll): the bytes looked at stay queued, so its socket is
 * readable all along, and watching it would spin.
 */
#define PEEK_REST_MS	20

struct tcp_sessions {
	struct tcp_relay_env	 env;
	TAILQ_HEAD(, tcp_session) list;
	int			 count;
	struct tcp_to_udp	*to_udp;	/* TCP-to-UDP rules' */
	/* Clients waiting for a backend (queue_timeout), first come first. */
	TAILQ_HEAD(, tcp_session) queue;
	bool			 kicking;	/* queue_kick() runs, or must not */
	struct event_timer	 queue_look;	/* armed while clients wait */
};

/* tcp_session.c: the session's steps, for the peek stage. */
void	session_end(struct tcp_session *ss, int reset_side,
    const char *result, const char *why, int err);
void	session_short(struct tcp_session *ss, const char *why, int err);
void	session_abort(struct tcp_session *ss, int failed_side, int err);
int	session_settle(struct tcp_session *ss);
void	session_connect(struct tcp_session *ss, int err);
void	session_relay(struct tcp_session *ss);
void	session_io(struct event_loop *loop, int fd, int events, void *data);
int	session_proxy_header(struct tcp_session *ss,
    const struct sockaddr_any *to, const unsigned char *said,
    size_t said_len);

/* tcp_session_reset.c: the ends after a reset. */
void	session_drain(struct tcp_session *ss);
void	session_drain_look(struct tcp_session *ss);
void	session_orphan(struct tcp_session *ss);

/* tcp_session_route.c: the peek stage. */
void	session_peek(struct tcp_session *ss, int events);
void	session_peek_timeout(struct tcp_session *ss);
void	session_peek_start(struct tcp_session *ss,
    const struct tcp_proxied *proxied);

#endif
