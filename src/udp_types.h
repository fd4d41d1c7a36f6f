/*
 * udp_types.h - the structs the UDP files share: where a datagram came
 * from, the state of passing at a reload (udp_pass.c), and a session,
 * which the table (udp_session.c) and what works on one session below it
 * (udp_backend.c, udp_io.c, udp_stream.c) read alike.  Types, and two
 * questions about a state, but no function of a .c file and no other
 * udp_* header but udp_pace.h (which includes nothing of ours), so that
 * any udp_* file may include it without a cycle.
 */
#ifndef FERRYD_UDP_TYPES_H
#define FERRYD_UDP_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/queue.h>
#include <sys/socket.h>

struct acl;
struct backend;
struct rule;
#include "event_timer.h"
#include "framing.h"
#include "rate.h"
#include "tcp_connect.h"
#include "udp_pace.h"

/* Datagrams per recvmmsg/sendmmsg. */
#define UDP_BATCH		64
/* Room for any datagram: more than IPv6's largest payload, 65527. */
#define UDP_DATAGRAM_MAX	65536

/* Where a datagram came from, as the listener received it. */
struct udp_from {
	const struct rule	*rule;
	int			 lfd;		/* the listening socket */
	int			 family;	/* lfd's address family */
	const struct sockaddr	*client;
	socklen_t		 client_len;
	struct in6_addr		 local;		/* its destination; IPv4 mapped */
	int			 ifindex;	/* where it came in */
};

struct udp_cids;
struct udp_kept;
struct udp_held;

/* A worker's side of passing (udp_pass.h). */
struct udp_pass {
	int			 chan;		/* old worker: pass on it; or -1 */
	bool			 go;		/* new worker: may receive */
	STAILQ_HEAD(, udp_kept)	 kept;		/* until then */
	size_t			 kept_bytes;
};

/* What identifies a session; compared whole, so padding is zeroed. */
struct udp_key {
	struct in6_addr	client;		/* IPv4 as mapped IPv6 */
	struct in6_addr	local;
	uint32_t	rule;		/* index in conf_rules */
	uint16_t	port;		/* the client's */
	uint16_t	pad;
};

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
};

/*
 * A session's life, moved on only by udp_session_enter (udp_session.c),
 * which asserts each step.  OPENING until it goes in the table; then
 * CONNECTING while its TCP leg (a UDP-to-TCP rule) connects, or ACTIVE
 * at once; out of the table, DETACHED: the worker stops, or it was
 * adopted as a second session of a client; DETACHED_CONNECTING when the
 * worker stops while its TCP leg connects (it may yet connect and carry
 * replies back).  On a rule with routes, UNDECIDED from OPENING until
 * a route is picked, then CONNECTING or ACTIVE as any.  A session is freed from any state but OPENING.
 */
enum udp_state {
	UDP_OPENING,		/* being made: not in the table */
	UDP_CONNECTING,		/* in the table; datagrams held */
	UDP_ACTIVE,		/* in the table: datagrams both ways */
	UDP_DETACHED,		/* not in the table: replies only, until */
	UDP_DETACHED_CONNECTING, /* the same, its TCP leg still connecting */
	UDP_UNDECIDED		/* in the table, its rule's routes not yet
				 * picked: datagrams held (udp_route.c), no
				 * backend socket (fd -1) */
};

struct udp_session {
	struct udp_session	*next;		/* in its hash bucket */
	TAILQ_ENTRY(udp_session) lru;		/* its rule's, oldest first */
	struct udp_sessions	*owner;
	const struct rule	*rule;
	const struct backend	*backend;
	struct udp_stream	*stream;	/* a TCP backend, or NULL */
	struct udp_held		*held;		/* undecided: what waits */
	struct udp_cids		*cids;		/* QUIC: its CIDs (udp_cid.h) */
	char			*sni;		/* the server name its QUIC
						 * Initials named, or NULL */
	int			 fd;		/* connected to the backend */
	int			 lfd;		/* replies leave through it */
	int			 family;	/* lfd's */
	int			 ifindex;
	struct udp_key		 key;
	struct sockaddr_in6	 client;	/* or a sockaddr_in */
	socklen_t		 client_len;
	uint32_t		 hash;
	uint8_t			 state;		/* enum udp_state */
	bool			 no_gso;	/* its route refused UDP_SEGMENT */
	/*
	 * Handed over at a reload whose rule no longer has the backend its
	 * socket is connected to (its name now resolves elsewhere): not
	 * counted on any backend, its errors blamed on none.
	 */
	bool			 stranger;
	int			 client_hold;	/* client_limit_hold()'s */
	int64_t			 started, last_active;
	int64_t			 until;		/* detached: its end */
	int64_t			 asked_us;	/* sent to the backend since
						 * its last reply, or 0 */
	uint64_t		 bytes_in, bytes_out;
	struct event_timer	 timer;
	struct udp_pace		 pace;		/* its replies (udp_pace.h) */
	struct rate_bucket	 limit[2];	/* rate_limit, by enum rate_dir */
};

TAILQ_HEAD(udp_lru, udp_session);

/* A rule's sessions in this worker. */
struct udp_rule {
	struct udp_lru	lru;
	int		count;
	int		lfd;		/* its listening socket, or -1 */
	int		family;		/* lfd's */
};

struct udp_sessions {
	struct event_loop	*loop;
	const struct rule	*conf_rules;	/* the configuration's */
	size_t			 nrules;
	const struct acl	*acl;		/* its global allow, deny */
	struct udp_session	**buckets;
	size_t			 nbuckets;	/* a power of two */
	int			 count;
	int			 budget;	/* sessions at most, all rules */
	struct udp_rule		*rules;		/* per rule, of conf_rules */
	char			*bufs;		/* UDP_BATCH datagrams */
	struct udp_pacer	*pacer;		/* listeners' and replies' */
	struct udp_pass		 pass;		/* at a reload (udp_pass.h) */
};

/* Whether a session in state is in the table: its client's datagrams. */
static inline bool
udp_state_in_table(uint8_t state)
{
	return state == UDP_CONNECTING || state == UDP_ACTIVE ||
	    state == UDP_UNDECIDED;
}

/* Whether a session in state has a TCP leg that is still connecting. */
static inline bool
udp_state_connecting(uint8_t state)
{
	return state == UDP_CONNECTING || state == UDP_DETACHED_CONNECTING;
}

/* How long a second session of a client waits for replies in flight. */
#define DETACHED_MS		2000

#endif
