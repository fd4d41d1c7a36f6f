/*
 * worker.h - a worker process: its listening sockets, its event loop and
 * the connections it relays.
 */
#ifndef FERRYD_WORKER_H
#define FERRYD_WORKER_H

#include <sys/queue.h>

#include "conf.h"
#include "listen.h"

struct conn;
struct event_loop;
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
	int                  status_fd;	/* to the master: 'R'eady, 'D'rained */
	int64_t              drain_deadline;
	int64_t              refused_logged; /* last max_connections warning */
	uint64_t             refused;	/* clients denied or over the limit */
};

/*
 * Run worker slot of generation gen with the sockets of ls.  Never
 * returns.  status_fd (or -1) gets "R" once the worker accepts and "D"
 * once it has stopped accepting for good (it is draining).
 */
void worker_run(const struct conf *cfg, struct listen_set *ls, int slot,
    unsigned gen, int status_fd) __attribute__((noreturn));

/*
 * Out of descriptors or memory (err) while doing what: stop accepting for
 * a moment rather than spin on a queue that stays readable; log once.
 */
void worker_starve(struct worker *w, const char *listen, const char *what,
    int err);

/* Reschedule the worker's timer after deadlines changed. */
void worker_schedule(struct worker *w, int64_t due);

#endif
