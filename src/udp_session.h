/*
 * udp_session.h - UDP sessions: per (client address, local address) of a
 * rule, a socket connected to the backend, so that the kernel sorts the
 * replies and reports ICMP errors; replies leave through the listening
 * socket from the exact address the client wrote to.  A session ends
 * after session_timeout of silence both ways, or, the least recently
 * used first, when its rule has max_sessions in this worker.
 *
 * A worker owns one struct udp_sessions; udp_listener.c hands it the
 * datagrams it receives.  Datagrams are never merged, split or cut.
 */
#ifndef FERRYD_UDP_SESSION_H
#define FERRYD_UDP_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/uio.h>
#include <sys/socket.h>

#include "conf.h"
#include "udp_io.h"

struct event_loop;
struct scoreboard_counters;
struct udp_sessions;

/* Sessions of cfg's rules in loop, counted in counters (or nowhere). */
struct udp_sessions *udp_sessions_new(struct event_loop *loop,
    const struct conf *cfg, struct scoreboard_counters *counters);

/* UDP_BATCH buffers of UDP_DATAGRAM_MAX bytes, for the listener's reads. */
char	*udp_sessions_buffers(struct udp_sessions *us);

/*
 * Send n datagrams (iov[i], received as from[i] says) to the backends of
 * their sessions, which are made where there are none (allow/deny
 * permitting); consecutive datagrams of one session in one sendmmsg.
 */
void	udp_sessions_forward(struct udp_sessions *us,
    const struct udp_from *from, const struct iovec *iov, int n);

/* A datagram the kernel cut (no room for it): counted, logged, dropped. */
void	udp_sessions_truncated(struct udp_sessions *us,
    const struct udp_from *from);

/*
 * A session as one worker hands it to another at a reload, with its
 * backend socket beside it (IPC_UDP_SESSION).  rule is an index in the
 * sender's configuration until the master rewrites it for the receiver's.
 */
struct udp_handover {
	uint32_t		rule;
	uint32_t		client_len;
	struct sockaddr_in6	client;		/* or a sockaddr_in */
	struct in6_addr		local;
	int32_t			ifindex;
	uint32_t		backend;	/* index in the upstream */
	int64_t			started, last_active;
	uint64_t		bytes_in, bytes_out;
};

/* The client port of a handed-over session, in host order. */
unsigned udp_handover_port(const struct udp_handover *h);

/* lfd is rule's listening socket here: replies leave through it. */
void	udp_sessions_listener(struct udp_sessions *us, const struct rule *rule,
    int lfd);

/*
 * Send every session over chan (to the master, for the worker that will
 * receive its client's datagrams) and forget it here: it goes on there,
 * with the same backend socket.  Sessions that cannot be sent stay.
 * Returns how many were handed over.
 */
int	udp_sessions_hand_over(struct udp_sessions *us, int chan);

/*
 * Take over a session handed over with its backend socket fd; fd is
 * closed if it cannot be.  0, or -1 (its rule has no listener here).
 */
int	udp_session_adopt(struct udp_sessions *us,
    const struct udp_handover *h, int fd);

/*
 * The worker stops for good: sessions no longer get client datagrams,
 * so each only carries back the replies on their way, for a moment.
 */
void	udp_sessions_linger(struct udp_sessions *us);

/*
 * At a reload that changes the number of workers (udp_pass.h): an old
 * worker passes datagrams it has no session for over chan from now on
 * (udp_sessions_pass); a new worker takes those the master passes it
 * (udp_sessions_take), keeping them until it may receive
 * (udp_sessions_go).
 */
void	udp_sessions_pass(struct udp_sessions *us, int chan);
void	udp_sessions_take(struct udp_sessions *us, const void *msg,
    size_t len);
void	udp_sessions_go(struct udp_sessions *us);

/* from's rule, listening socket and family for rule number rule: 0, or -1. */
int	udp_sessions_source(struct udp_sessions *us, uint32_t rule,
    struct udp_from *from);

/* How many sessions are open. */
int	udp_sessions_count(const struct udp_sessions *us);

/* Close every session at once (stop, drain timeout). */
void	udp_sessions_close_all(struct udp_sessions *us);

#endif
