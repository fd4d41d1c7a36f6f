/*
 * ipc.h - the channel between the master and each worker: framed
 * messages over an AF_UNIX socketpair, able to carry descriptors.
 *
 * The channel is also the worker's lifeline: the master holds its end
 * for as long as it lives, so end of file on the worker's end means the
 * master is gone, whoever killed it and however.
 */
#ifndef FERRYD_IPC_H
#define FERRYD_IPC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "addr.h"

enum ipc_type {
	IPC_READY = 1,		/* worker -> master: accepting */
	IPC_DRAINING,		/* worker -> master: stopped accepting */
	IPC_LOGS,		/* master -> worker: reopened log files */
	/*
	 * A reload, for UDP: the master tells an old worker to drain and
	 * hand its sessions over (IPC_HANDOVER); the worker sends each
	 * with its backend socket (IPC_UDP_SESSION), the master passes it
	 * to the new worker that will receive that client's datagrams, and
	 * once no old worker receives any more, tells the new ones to start
	 * receiving (IPC_UDP_GO).
	 */
	IPC_HANDOVER,		/* master -> old worker */
	IPC_UDP_SESSION,	/* old worker -> master -> new worker */
	IPC_UDP_GO,		/* master -> new worker */
	/*
	 * A reload that changes the number of workers changes which worker
	 * the kernel gives a client's datagrams to.  Before it steers them
	 * anew, the master tells the old workers to make no new session
	 * (IPC_UDP_PASS) and waits for each to say so (IPC_UDP_PASSING);
	 * from then on a datagram an old worker has no session for may
	 * belong to a session another old worker holds, so it goes, via the
	 * master, to the new worker that will hold that client's session
	 * (IPC_UDP_DATAGRAM), which keeps it until IPC_UDP_GO.
	 */
	IPC_UDP_PASS,		/* master -> old worker */
	IPC_UDP_PASSING,	/* old worker -> master */
	IPC_UDP_DATAGRAM,	/* old worker -> master -> new worker */
	/*
	 * Backend names looked up again, some resolve to other addresses:
	 * the moved backends (struct ipc_backend_move each), master_resolve.c.
	 */
	IPC_BACKENDS,		/* master -> worker */
	/*
	 * "show sessions" (master_sessions.c, worker_sessions.c): the
	 * master asks each worker (struct ipc_sessions_ask, then the
	 * rule's name, none for every rule), which answers in parts of
	 * whole lines (struct ipc_sessions_part, then the text), over as
	 * many turns of its loop as they take, the last part flagged.
	 * Added last: a worker of an older binary ignores the question.
	 */
	IPC_SESSIONS,		/* master -> worker */
	IPC_SESSIONS_PART,	/* worker -> master */
	/*
	 * A QUIC client moved to an address another worker of the
	 * generation receives (udp_follow.h): that worker asks the one
	 * whose session the datagram's CID may be (IPC_UDP_FOLLOW, a
	 * struct udp_follow_ask, then the datagram), which answers with
	 * the session and its socket, or refuses (IPC_UDP_FOLLOWED).
	 */
	IPC_UDP_FOLLOW,		/* worker -> master -> worker */
	IPC_UDP_FOLLOWED	/* worker -> master -> worker */
};

/* Lines a worker writes for one question, at most. */
#define IPC_SESSIONS_MAX	10000
/* Text one part carries, at most: well inside IPC_MAX_DATA. */
#define IPC_SESSIONS_TEXT	16384

struct ipc_sessions_ask {
	uint32_t	id;		/* the master's, said back */
	uint32_t	limit;		/* lines, at most IPC_SESSIONS_MAX */
};

struct ipc_sessions_part {
	uint32_t	id;
	uint32_t	last;		/* 1: the answer is whole */
	uint64_t	more;		/* sessions past the limit (last) */
};

/* A backend (its id among the configuration's) and its new address. */
struct ipc_backend_move {
	uint32_t		id;
	struct sockaddr_any	addr;
};

/* Descriptors one message may carry. */
#define IPC_MAX_FDS	4
/* Payload bytes one message may carry: a datagram and where it was going. */
#define IPC_MAX_DATA	(65536 + 256)

struct ipc_msg {
	int	type;				/* enum ipc_type */
	size_t	len;				/* bytes in data */
	char	data[IPC_MAX_DATA];
	int	nfds;				/* descriptors in fds */
	int	fds[IPC_MAX_FDS];
};

/*
 * A connected pair, close-on-exec and non-blocking: fds[0] for the
 * master, fds[1] for the worker.  Returns -1 with errno set.
 */
int	ipc_pair(int fds[2]);

/*
 * Send one message of type with len bytes of data and nfds descriptors
 * (which stay open here).  Returns 0, or -1 with errno set (EAGAIN: the
 * peer's queue is full; EPIPE: it is gone).
 */
int	ipc_send(int fd, int type, const void *data, size_t len,
	    const int *fds, int nfds);

/*
 * ipc_send(), waiting up to timeout_ms for room while the peer's queue is
 * full (a burst of handed-over sessions).
 */
int	ipc_send_wait(int fd, int type, const void *data, size_t len,
	    const int *fds, int nfds, int timeout_ms);

/*
 * Receive one message into msg; descriptors received are the caller's to
 * close.  Returns 1 with a message, 0 at end of file (the peer is gone),
 * -1 with errno set (EAGAIN: none waiting).  A malformed message is
 * EPROTO (its descriptors closed).
 */
int	ipc_recv(int fd, struct ipc_msg *msg);

#endif
