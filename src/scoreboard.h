/*
 * scoreboard.h - shared memory the master makes before forking: one cell
 * per worker process, written by that worker alone (plain stores, no
 * locks, no syscalls) and read by the master.  Apache's prefork
 * scoreboard is the model.  For now a cell holds the worker's heartbeat,
 * by which the master finds a hung or stopped worker.
 */
#ifndef FERRYD_SCOREBOARD_H
#define FERRYD_SCOREBOARD_H

#include <stdint.h>

/* Cells: each worker of every generation that may live at once. */
#define SCOREBOARD_CELLS	1024

/*
 * What a worker counts; one writer per cell, readers sum the cells.
 * Only volatile uint64_t members: scoreboard_sum() adds them as an array.
 */
struct scoreboard_counters {
	volatile uint64_t	accepted;	/* connections taken on */
	volatile uint64_t	refused;	/* denied, or max_connections */
	volatile uint64_t	closed;		/* of those taken on */
	volatile uint64_t	connect_failed;	/* no backend answered */
	volatile uint64_t	bytes_in;	/* from clients */
	volatile uint64_t	bytes_out;	/* to clients */
	/* UDP */
	volatile uint64_t	sessions;	/* UDP sessions opened */
	volatile uint64_t	evicted;	/* ... of those, for max_sessions */
	volatile uint64_t	datagrams_in;	/* from clients, forwarded */
	volatile uint64_t	datagrams_out;	/* to clients */
	volatile uint64_t	truncated;	/* datagrams the kernel cut */
	volatile uint64_t	dropped;	/* could not be sent on */
	volatile uint64_t	icmp_errors;	/* backend reported unreachable */
	volatile uint64_t	proxy_errors;	/* accept_proxy: bad or no header */
};

/* A cache line or two each, so that workers never share one. */
struct scoreboard_cell {
	volatile int64_t	heartbeat;	/* clock_ms() (clock.h) */
	volatile int		in_use;		/* the master's: handed out */
	struct scoreboard_counters count;
} __attribute__((aligned(64)));

/* Map the shared region; -1 with errno set.  Children inherit it. */
int	scoreboard_open(void);
/* A free cell's index, marked in use, or -1 when none is left. */
int	scoreboard_take(void);
/* Give a cell back (its worker was reaped). */
void	scoreboard_give(int cell);
/* The cell at index i. */
struct scoreboard_cell *scoreboard_cell(int i);
/* The counters of every cell, summed (a snapshot: workers go on). */
void	scoreboard_sum(struct scoreboard_counters *sum);

#endif
