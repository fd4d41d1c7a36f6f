/*
 * udp_follow.h - a QUIC client's session followed across the workers
 * of a generation (udp_follow.c).  The steering program gives a
 * client's datagrams to a worker by the client's port: a client that
 * moved (NAT rebinding, migration) may land on a worker that holds no
 * session of it.  That worker finds in the shared directory
 * (udp_cid_share.h) which worker may hold it, and asks through the
 * master (IPC_UDP_FOLLOW, with the datagram); the holder sends the
 * datagram on itself and hands the session over, backend socket and
 * all, as at a reload (IPC_UDP_FOLLOWED, a struct udp_handover), or
 * says it has none (IPC_UDP_FOLLOWED without one): then the next
 * worker the directory names is asked, if any.  Meanwhile the
 * asker holds what else comes from that address, bounded, and sends it
 * in order to the session it gets, or to a new one through the rule's
 * routes when it gets none in time.
 */
#ifndef FERRYD_UDP_FOLLOW_H
#define FERRYD_UDP_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "udp_pass.h"

struct udp_from;
struct udp_key;
struct udp_session;
struct udp_sessions;

/*
 * What IPC_UDP_FOLLOW and IPC_UDP_FOLLOWED begin with.  An ask goes on
 * with the datagram (struct udp_passed, udp_pass.h, then its bytes); an
 * answer with a struct udp_handover and the session's socket, or with
 * nothing: refused.
 */
struct udp_follow_ask {
	uint32_t	id;		/* the asker's */
	int32_t		asker;		/* its slot, written by the master */
	int32_t		holder;		/* the slot asked (or MOVED_ON) */
	int32_t		asker_pid;	/* written by the master: an answer
					 * goes to that worker alone */
};

/*
 * The holder of an answer without a session whose datagram was sent
 * on all the same: a reload came between the ask and the answer, the
 * master passed the session to the new worker of its client.
 */
#define UDP_FOLLOW_MOVED_ON	(-1)

/* Asks waiting at once in a worker: past them, no more is asked. */
#define UDP_FOLLOW_ASKS		16
/*
 * Asks a worker makes per second, at most (as many at once): past them,
 * datagrams whose DCID the directory matches make new sessions, as
 * unknown CIDs do (counted as refused, logged), so that a spray of
 * random short headers cannot flood the master with asks.
 */
#define UDP_FOLLOW_ASK_RATE	200
/* What an ask holds meanwhile, at most: past it, dropped (counted). */
#define UDP_FOLLOW_HOLD_MAX	32
#define UDP_FOLLOW_HOLD_BYTES	(2 * UDP_PASSED_MAX)	/* the largest fits */
/* How long an ask waits for its answer, at most (peek_timeout if less). */
#define UDP_FOLLOW_WAIT_MS	1000

/* What became of datagrams from an address without a session. */
enum udp_follow_found {
	UDP_FOLLOW_NONE,	/* no session of theirs known: make one */
	UDP_FOLLOW_HERE,	/* this worker's session, moved to them */
	UDP_FOLLOW_HELD		/* held while another worker is asked */
};

/*
 * The worker of slot (of nslots), whose channel to the master is chan,
 * follows clients across workers from now on; what it holds meanwhile
 * goes on through deliver (udp_sessions_deliver, udp_handover.h).
 */
void	udp_follow_begin(struct udp_sessions *us, int chan, int slot,
    int nslots, udp_pass_deliver_fn *deliver);

/* The channel is gone (the master died): nothing more is asked. */
void	udp_follow_stop(void);

/*
 * n datagrams (iov) from an address (from, its key k and hash h) with
 * no session: *s is set for UDP_FOLLOW_HERE.
 */
enum udp_follow_found udp_follow(struct udp_sessions *us,
    const struct udp_from *from, const struct udp_key *k, uint32_t h,
    const struct iovec *iov, int n, struct udp_session **s);

/*
 * Whether ask id still waits for its answer: one that comes later finds
 * the client in a new session already.
 */
bool	udp_follow_waiting(uint32_t id);

/*
 * Ask id's answer came from the worker of slot holder (udp_handover.c):
 * its session adopted here, at client, or not (client NULL); sent_first:
 * the holder sent the datagram asked with on already.  What was held
 * goes on, in order; after a refusal, the next worker that may hold the
 * session is asked first, if any.
 */
void	udp_follow_done(uint32_t id, int holder,
    const struct sockaddr *client, bool sent_first);

#endif
