/*
 * worker.h - starting a worker process: its listening sockets, its event
 * loop and the connections it relays.  Only the master starts one; what
 * a worker holds is private to worker.c.
 */
#ifndef FERRYD_WORKER_H
#define FERRYD_WORKER_H

struct conf;

struct listen_set;

/* What a worker starts with, from the master. */
struct worker_start {
	const struct conf *cfg;
	struct listen_set *ls;		/* it keeps its slot's sockets */
	int                slot;
	unsigned           gen;
	int                chan;	/* its end of the channel (ipc.h) */
	int                cell;	/* its scoreboard cell, or -1 */
	pid_t              master;	/* to tell it was orphaned */
	int                udp_budget;	/* fdlimit_udp_sessions() */
};

/*
 * Run a worker.  Never returns.  It says IPC_READY on its channel once it
 * accepts and IPC_DRAINING once it has stopped accepting for good; end of
 * file on the channel means the master is gone, and the worker finishes
 * its connections and exits.
 */
void worker_run(const struct worker_start *ws) __attribute__((noreturn));

#endif
