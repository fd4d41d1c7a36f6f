/*
 * scoreboard.h - shared memory the master makes before forking: one cell
 * per worker process, written by that worker alone (plain stores, no
 * locks, no syscalls) and read by the master.  Apache's prefork
 * scoreboard is the model.  A cell holds the worker's heartbeat, by
 * which the master finds a hung or stopped worker, and its index keys
 * the worker's table of clients (client_limit.h).  Beside the cells, the
 * host's readiness ("drain host"), which the master writes and the
 * workers read when the stats endpoint is asked GET /ready: made once,
 * it outlasts reloads as the master does.  Nothing is counted here:
 * every event is counted once, in the counters (stats.h).
 */
#ifndef FERRYD_SCOREBOARD_H
#define FERRYD_SCOREBOARD_H

#include <stdbool.h>
#include <stdint.h>

/* Cells: each worker of every generation that may live at once. */
#define SCOREBOARD_CELLS	1024

/* A cache line each, so that workers never share one. */
struct scoreboard_cell {
	volatile int64_t	heartbeat;	/* clock_ms() (clock.h) */
	volatile int		in_use;		/* the master's: handed out */
} __attribute__((aligned(64)));

/* Map the shared region; -1 with errno set.  Children inherit it. */
int	scoreboard_open(void);
/* A free cell's index, marked in use, or -1 when none is left. */
int	scoreboard_take(void);
/* Give a cell back (its worker was reaped). */
void	scoreboard_give(int cell);
/* The cell at index i. */
struct scoreboard_cell *scoreboard_cell(int i);

/*
 * The host drained (true: /ready answers 503, for keepalived or a BGP
 * speaker to take the traffic elsewhere; connections are served as
 * before) or ready, and the wall clock second it became so.
 */
void	scoreboard_set_host_drain(bool drain);
bool	scoreboard_host_drain(int64_t *since);
/* The host's state as it was (a binary upgrade carries it over). */
void	scoreboard_host_drain_restore(bool drain, int64_t since);

#endif
