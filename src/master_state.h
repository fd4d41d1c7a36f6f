/*
 * master_state.h - what the master knows: struct master, whose parts
 * are grouped by the file that writes them (master_reload.c,
 * master_resolve.c, master_status.c, master_control.c, outcome.h's
 * state for the outcome, master_request.h's requests).  Types only;
 * each file's functions are in its own header.
 */
#ifndef FERRYD_MASTER_STATE_H
#define FERRYD_MASTER_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include "conf.h"
#include "event.h"
#include "master_request.h"
#include "outcome.h"
#include "resolver.h"

/*
 * A configuration's names, looked up in a child: glibc tries a silent
 * name server for 10 s per name, so this leaves room for a few.
 */
#define RESOLVE_MAX_MS    60000

enum child_state {
	CHILD_STARTING,		/* forked, has not said IPC_READY yet */
	CHILD_READY,		/* accepting */
	CHILD_DRAINING		/* told to stop accepting and finish */
};

struct master;

struct child {
	TAILQ_ENTRY(child) link;
	struct master     *master;
	pid_t              pid;
	int                slot;
	unsigned           gen;
	enum child_state   state;
	int                chan;	/* our end of its channel, or -1 */
	int                cell;	/* its scoreboard cell, or -1 */
	bool               accepting;	/* has not said IPC_DRAINING yet */
	bool               heard;	/* its channel has words to read */
	bool               terminated;	/* sent SIGTERM at drain_end */
	bool               hung;	/* killed by the watchdog */
	bool               udp_go;	/* told to receive UDP */
	bool               pass_asked;	/* IPC_UDP_PASS, not answered yet */
	bool               moves_lost;	/* an IPC_BACKENDS it did not get */
	int64_t            started;
	struct event_timer drain_end;	/* shutdown_timeout after draining */
};

/* A worker slot of the current generation, or the checker's. */
struct slot {
	struct master     *master;
	int                index;	/* -1: the checker's */
	struct event_timer respawn;	/* armed: its process is to start */
	int                delay_ms;	/* backoff for the next crash */
};

/* The health checker (checker.h), when a rule has health_check. */
struct checker_proc {
	pid_t       pid;		/* 0: none running */
	int         chan;		/* our end of its lifeline, or -1 */
	int64_t     started;
	struct slot respawn;
};

/*
 * Descriptors the master holds for itself (the control socket and its
 * clients, an upgrade's description and images): master_child.c closes
 * them in every new child, which would otherwise keep them open.
 */
#define MASTER_OWN_FDS_MAX 64

struct master_own_fds {
	int    fd[MASTER_OWN_FDS_MAX];
	size_t n;
};

struct options;
struct listen_set;
struct control_client;
struct sessions_ask;

/* What an upgrade asks of the control socket (master_control.h). */
enum control_exec {
	CONTROL_EXEC_WAIT,	/* accept no more; answers under way? */
	CONTROL_EXEC_CUT,	/* the exec is now: cut what is left */
	CONTROL_EXEC_RESUME	/* no exec after all: accept again */
};

/*
 * The master's state, by job: each sub-struct is written by the one file
 * named beside it; what several files read (the configuration, the loop,
 * the children and the generation) is struct master's own.
 */

/* Reloads and generations (master_reload.c). */
struct master_reload_state {
	bool                  pending;	/* a reload queued */
	struct event_timer    stuck;	/* the new generation is late */
	struct event_timer    gen_late;	/* ... not ready in time */
	int                  *udp_map;	/* old gen's rule -> ours, or -1 */
	size_t                udp_nmap;
	/*
	 * A reload that changes the worker count steers anew only once the
	 * old workers pass datagrams on (IPC_UDP_PASS), or at steer_end.
	 */
	bool                  steer_pending;
	int                   pass_waiting;	/* acknowledgements to come */
	struct event_timer    steer_end;
};

/* Names looked up again (master_resolve.c), and a reload's lookups. */
struct master_names {
	struct event_timer    again;	/* resolve_interval's next round */
	struct resolver       resolver;	/* a reload's or resolve's lookups */
	bool                  periodic;	/* ... resolve_interval's */
};

/* What the master writes out on its own (master_status.c). */
struct master_report {
	struct event_timer    status_due;	/* status_file written */
	struct event_timer    stats_log_due;	/* stats_log_interval's line */
};

/* The control socket (master_control.c). */
struct master_control_state {
	int                   fd;	/* -1: none */
	char                 *path;	/* its file, removed at the end */
	unsigned              gen;	/* whose settings it has */
	TAILQ_HEAD(, control_client) clients;
	int                   nclients;
};

struct master {
	struct conf          *cfg;
	const struct options *opt;
	struct listen_set    *ls;
	struct event_loop    *loop;
	TAILQ_HEAD(, child)   children;
	struct slot          *slots;	/* cfg->workers of them */
	int                   udp_budget;	/* sessions per worker */
	int                   nslots;
	bool                  skip[MAX_WORKERS];	/* hung: not steered to */
	struct checker_proc   checker;
	unsigned              gen;
	int64_t               gen_started;
	bool                  started;	/* the first generation accepted */
	int                   stopping;	/* 0, or the signal that stops us */
	int                   status;	/* exit status */
	int64_t               born;	/* clock_ms() at start */
	/* master.c's timers. */
	struct event_timer    stop_end;	/* then SIGKILL the stragglers */
	struct event_timer    tick;	/* watchdog and rates, each second */
	/* Reloads and upgrades asked, for master.c to start. */
	struct master_requests requests;
	struct master_reload_state reload;
	struct master_names   names;
	/* How reloads went, for "ferryd -s reload" (outcome.h). */
	struct outcome_state  outcome;
	struct master_report  report;
	struct master_control_state control;
	/* "show sessions" under way (master_sessions.c); NULL: none. */
	struct sessions_ask  *session_asks;
	struct master_own_fds own;	/* no child's (master_child.h) */
};

#endif
