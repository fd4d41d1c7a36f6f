/*
 * tcp_relay.h - the byte pump of one TCP connection: both directions,
 * backpressure, half-close, resets.  It knows sockets, buffers and pipes,
 * not rules, backends or the session around it: it reports how the
 * connection ended and its owner decides what that means.
 */
#ifndef FERRYD_TCP_RELAY_H
#define FERRYD_TCP_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_loop;
struct pool;
struct rate_budget;
struct xprt_ops;

/* How bytes are moved: splice(2) through a pipe, or read/write. */
enum splice_mode {
	SPLICE_AUTO = 0,	/* splice where the system has it */
	SPLICE_ON,		/* splice; an error where it is missing */
	SPLICE_OFF		/* always copy through a buffer */
};

enum tcp_side { TCP_CLIENT = 0, TCP_BACKEND = 1 };

#define TCP_OTHER(s) (1 - (s))

/* What every relay of a worker shares. */
struct tcp_relay_env {
	struct event_loop	*loop;
	struct pool		*pool;
	const struct xprt_ops	*xprt;
};

/* One direction: reads fd[side], writes fd[TCP_OTHER(side)]. */
struct tcp_dir {
	char		*buf;		/* copy: the buffer while in flight */
	int		 pipe[2];	/* splice: the pipe while in flight */
	uint32_t	 off, len;	/* in flight: bytes off..len of a read */
	bool		 splice;	/* move bytes with splice(2) now */
	bool		 can_splice;	/* may switch to splice(2) */
	bool		 adaptive;	/* splice = "auto": switch both ways */
	uint8_t		 small;		/* small splices in a row */
	bool		 eof;		/* the reading side sent FIN */
	bool		 shut;		/* FIN passed on to the writing side */
	uint64_t	 bytes;		/* read from this side */
};

struct tcp_relay {
	int		 fd[2];		/* -1: not open (yet) */
	struct tcp_dir	 dir[2];
	uint32_t	 bufsize;	/* bytes per read */
	uint8_t		 ready[2];	/* EV_READ|EV_WRITE fd[s] can do */
	bool		 fin[2];	/* fd[s]'s peer sent FIN */
	/*
	 * fd[s] reported urgent data or an error: short reads prove
	 * nothing, it is read until a read says so.  The bytes a peer sent
	 * before a reset are read before the reset (Linux keeps them).
	 */
	bool		 except[2];
	/*
	 * fd[s]'s peer reset (the errno): the end of its reads is a reset,
	 * not a FIN, and nothing more is written to it.  Known from a read,
	 * a write or the connect (the last two take the error, so the read
	 * that follows the bytes before it returns 0).
	 */
	int		 gone[2];
	bool		 connecting;	/* fd[TCP_BACKEND] may not be written */
	uint8_t		 nagle;		/* fd[TCP_BACKEND]'s: NAGLE_* */
	int8_t		 failed_side;	/* TCP_RELAY_FAILED: whose socket, */
	int		 err;		/* and its error */
	bool		 reset_on;	/* ... TCP_RELAY_RESET: pass it on */
	int64_t		 last_active;	/* when bytes last moved */
	/*
	 * rule_rate_limit: the budget direction s reads from (NULL: none);
	 * resume_at: a direction waits for it until then (ms), 0: none
	 * waits.  The owner runs the relay again at resume_at.
	 */
	struct rate_budget *budget[2];
	int64_t		 resume_at;
	bool		 starved[2];	/* direction s waits for it now */
	bool		 waiting[2];	/* ... since its last grant */
	/*
	 * The last bytes of the client's direction that a peek took and
	 * its budget has not been charged for: they wait for it as a read
	 * would, and are charged as they are written (tcp_relay_taken).
	 */
	uint32_t	 unpaid;
};

enum tcp_relay_status {
	TCP_RELAY_OPEN,		/* moving, or waiting for the sockets */
	TCP_RELAY_DONE,		/* both sides sent FIN, all passed on */
	/*
	 * failed_side's peer reset (err) after sending what was all
	 * written to the other side: reset that one too once its socket
	 * has sent it (tcp_relay_unsent).
	 */
	TCP_RELAY_RESET,
	TCP_RELAY_FAILED	/* failed_side's socket failed with err: reset
				 * the other side now */
};

/*
 * A relay for the accepted client_fd, reading bufsize bytes at a time;
 * splice is the rule's enum splice_mode.
 */
void	tcp_relay_init(struct tcp_relay *r, int client_fd, size_t bufsize,
    int splice, int64_t now);

/*
 * Reads of side TCP_CLIENT spend from in, of TCP_BACKEND from out (NULL:
 * not limited).  A direction whose budget is spent reads nothing, and
 * no event is asked for it (the sockets are edge-triggered: the kernel's
 * buffer fills and the sender waits), until the owner runs the relay
 * again at resume_at.
 */
void	tcp_relay_limit(struct tcp_relay *r, struct rate_budget *in,
    struct rate_budget *out);

/*
 * Bytes to send to the backend before any the relay reads from the
 * client (a PROXY header, then the client's first bytes a peek took):
 * they wait in the client direction like a read, after those of an
 * earlier call, so they leave first, also when the rest is spliced.
 * Call before the first write to the backend; at most 64 KiB in all (a
 * smaller buffer_size is raised for this relay).  Returns 0, or -1 with
 * errno (ENOMEM, EMSGSIZE).
 */
int	tcp_relay_preamble(const struct tcp_relay_env *env,
    struct tcp_relay *r, const void *data, size_t len);

/*
 * The last len bytes of the preamble are the client's, taken by a
 * peek: counted as read from it, and charged to the client direction's
 * budget (tcp_relay_limit) as they are written to the backend, as much
 * at a time as a read may take: a spent budget holds them back until
 * resume_at like a read.  drained: that read emptied the socket, so
 * the relay does not read it again before a new event (and an end it
 * had reported came after those bytes).
 */
void	tcp_relay_taken(struct tcp_relay *r, size_t len, bool drained);

/*
 * Whether the backend socket still has Nagle's algorithm on: the relay
 * sets TCP_NODELAY on it only once it could matter (tcp_relay.c).
 */
enum { NAGLE_OFF, NAGLE_UNWRITTEN, NAGLE_WRITTEN };

/*
 * The backend socket, connecting: nothing is written to it yet.
 * nagle_on: TCP_NODELAY is not set on it; the relay sets it when due.
 */
void	tcp_relay_attach_backend(struct tcp_relay *r, int fd, bool nagle_on);
/* Its connect failed: forget it (the caller closed it). */
void	tcp_relay_detach_backend(struct tcp_relay *r);
/*
 * Its connect finished: bytes may flow to it.  reset: the backend reset
 * the connection right after it was made (the errno the connect's
 * check took), after a banner, maybe: its bytes are relayed, then the
 * reset.
 */
void	tcp_relay_connected(struct tcp_relay *r, int64_t now, int reset);

/*
 * Take note of events (EV_*) on side s.  An error is not acted on here:
 * the reads that come first deliver what the peer sent before it.
 */
void	tcp_relay_note(struct tcp_relay *r, int s, int events);

/*
 * Bytes the socket of side s still holds unsent (or unacknowledged),
 * or -1 where the system cannot tell.
 */
int	tcp_relay_unsent(const struct tcp_relay *r, int s);

/*
 * Move bytes both ways while the sockets allow, a bounded number of
 * rounds (then the client socket is deferred: the loop calls its handler
 * again after the others), and watch for what each socket waits for.
 */
enum tcp_relay_status tcp_relay_run(const struct tcp_relay_env *env,
    struct tcp_relay *r);

/*
 * TCP_RELAY_RESET: close the side that reset (and drop whatever the
 * relay holds), keeping the other open until its socket has sent what
 * was written to it.
 */
void	tcp_relay_close_gone(const struct tcp_relay_env *env,
    struct tcp_relay *r);

/*
 * Give back buffers and pipes and close both sockets; reset_side (or -1)
 * is closed with a reset.  An abandoned side resets anyway unless its
 * FIN went out in order.
 */
void	tcp_relay_close(const struct tcp_relay_env *env, struct tcp_relay *r,
    int reset_side);

#endif
