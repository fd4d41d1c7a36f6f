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

struct backend;
struct rule;
/* The table made, its buffers, pacer and budget: udp_table.h. */
#include "udp_table.h"
#include "udp_types.h"

struct event_loop;
struct udp_key;
struct udp_session;
struct udp_sessions;

/*
 * Send n datagrams (iov[i], received as from[i] says) to the backends of
 * their sessions, which are made where there are none (allow/deny
 * permitting); consecutive datagrams of one session in one sendmmsg.
 */
void	udp_sessions_forward(struct udp_sessions *us,
    const struct udp_from *from, const struct iovec *iov, int n);

/* lfd is rule's listening socket here: replies leave through it. */
void	udp_sessions_listener(struct udp_sessions *us, const struct rule *rule,
    int lfd);

/*
 * The worker stops for good: sessions no longer get client datagrams,
 * so each only carries back the replies on their way, for a moment.
 */
void	udp_sessions_linger(struct udp_sessions *us);

/* Close every session at once (stop, drain timeout). */
void	udp_sessions_close_all(struct udp_sessions *us);

/*
 * Put s (its socket, rule, addresses and times set) in the table and its
 * rule's list, watch its socket, arm its timer.  -1 (s freed, its socket
 * closed) if its socket cannot be watched.
 */
int	udp_session_insert(struct udp_sessions *us, struct udp_session *s,
    const struct udp_key *k, uint32_t h);
/*
 * Take s out of the table and lists, close its socket, free it, with
 * nothing said or counted of its end (it was handed over).
 */
void	udp_session_free(struct udp_session *s);
/* s goes on to state to, a step its life allows (asserted). */
void	udp_session_enter(struct udp_session *s, enum udp_state to);

#endif
