/*
 * worker.h - a worker process: its listening sockets, its event loop and
 * the connections it relays.
 */
#ifndef FERRYD_WORKER_H
#define FERRYD_WORKER_H

#include <sys/queue.h>

#include "conf.h"
#include "event_timer.h"
#include "listen.h"

struct conn;
struct event_loop;
struct scoreboard_cell;
struct pool;

struct listener {
	int                fd;
	const struct rule *rule;
	struct worker     *w;
};

struct worker {
	const struct conf *cfg;
	struct event_loop   *loop;
	struct pool         *pool;
	int                  slot;
	unsigned             generation;
	struct listener     *listeners;
	size_t               nlisteners;
	TAILQ_HEAD(, conn)   conns;
	int                  nconns;
	bool                 draining;	/* stopped accepting for good */
	int64_t              resume_at;	/* accept again after EMFILE */
	bool                 starved;	/* EMFILE reported, not yet over */
	int                  chan;	/* to and from the master */
	pid_t                master;
	bool                 orphaned;	/* the master is gone */
	struct scoreboard_cell *cell;	/* heartbeat, or NULL */
	struct event_timer   beat;	/* wakes an idle loop to beat */
	int64_t              drain_deadline;
	int64_t              refused_logged; /* last max_connections warning */
	uint64_t             refused;	/* clients denied or over the limit */
};

/* What a worker starts with, from the master. */
struct worker_start {
	const struct conf *cfg;
	struct listen_set *ls;		/* it keeps its slot's sockets */
	int                slot;
	unsigned           gen;
	int                chan;	/* its end of the channel (ipc.h) */
	int                cell;	/* its scoreboard cell, or -1 */
	pid_t              master;	/* to tell it was orphaned */
};

/*
 * Run a worker.  Never returns.  It says IPC_READY on its channel once it
 * accepts and IPC_DRAINING once it has stopped accepting for good; end of
 * file on the channel means the master is gone, and the worker finishes
 * its connections and exits.
 */
void worker_run(const struct worker_start *ws) __attribute__((noreturn));

/*
 * Out of descriptors or memory (err) while doing what: stop accepting for
 * a moment rather than spin on a queue that stays readable; log once.
 */
void worker_starve(struct worker *w, const char *listen, const char *what,
    int err);

/* Reschedule the worker's timer after deadlines changed. */
void worker_schedule(struct worker *w, int64_t due);

#endif
