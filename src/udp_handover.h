/*
 * udp_handover.h - UDP sessions at a reload: an old worker hands each
 * session over with its backend socket (IPC_UDP_SESSION), through the
 * master, to the new worker that will receive its client's datagrams,
 * which adopts it; at a reload that changes the number of workers,
 * datagrams without a session are passed too (udp_pass.h).
 */
#ifndef FERRYD_UDP_HANDOVER_H
#define FERRYD_UDP_HANDOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "udp_cid.h"

struct udp_sessions;

/* A server name's longest (probe.h's PROBE_NAME_MAX: a DNS name). */
#define UDP_HANDOVER_SNI_MAX	255

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
	struct udp_cid_carry	cids;		/* its QUIC CIDs, if any */
	char			sni[UDP_HANDOVER_SNI_MAX + 1];	/* its QUIC
						 * Initials' server name,
						 * for the access log; or "" */
};

/*
 * A handover message (data, len) read into h: one of this image's, or
 * of an image before the server name was carried (shorter, no sni), or
 * before CIDs were (no cids either).  false: of none of these lengths.
 */
bool	udp_handover_read(struct udp_handover *h, const void *data,
    size_t len);

struct udp_session;
/* Session s as handed over (its CIDs too) into h. */
void	udp_handover_pack(const struct udp_session *s, struct udp_handover *h);

/* The client port of a handed-over session, in host order. */
unsigned udp_handover_port(const struct udp_handover *h);

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
 * At a reload that changes the number of workers (udp_pass.h): an old
 * worker passes datagrams it has no session for over chan from now on
 * (udp_sessions_pass); a new worker takes those the master passes it
 * (udp_sessions_take), keeping them until it may receive
 * (udp_sessions_go).
 */
void	udp_sessions_pass(struct udp_sessions *us, int chan);
/*
 * Forward a passed datagram (msg, len: struct udp_passed, then its
 * bytes) for us (arg) as if this worker had received it; false if it
 * cannot be (malformed, its rule has no listener here).
 */
bool	udp_sessions_deliver(void *arg, const char *msg, size_t len);
void	udp_sessions_take(struct udp_sessions *us, const void *msg,
    size_t len);
void	udp_sessions_go(struct udp_sessions *us);

/*
 * A moved QUIC client's session asked for by another worker (udp_follow.h;
 * IPC_UDP_FOLLOW's len bytes at msg): the datagram sent on, the session
 * handed over at its client's new address over chan, or refused.
 */
void	udp_sessions_follow_asked(struct udp_sessions *us, int chan,
    const void *msg, size_t len);
/*
 * The answer to this worker's question (IPC_UDP_FOLLOWED's len bytes at
 * msg), with the session's socket fd (taken), or -1: refused.
 */
void	udp_sessions_follow_answered(struct udp_sessions *us,
    const void *msg, size_t len, int fd);

#endif
