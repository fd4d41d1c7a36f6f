/*
 * scoreboard.c - the shared region, MAP_SHARED | MAP_ANONYMOUS, made once
 * by the master before its first fork and never unmapped: reloads and
 * respawns reuse it, so what workers write outlives them.
 */
#include "ferryd.h"

#include <sys/mman.h>
#include <time.h>

#include "clock.h"
#include "scoreboard.h"

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

/* What the region holds: the cells, then the host's state. */
struct scoreboard_host {
	volatile int64_t	since;	/* wall clock s of the last change */
	volatile int		drain;
} __attribute__((aligned(64)));

static struct scoreboard_cell	*cells;
static struct scoreboard_host	*host;

int
scoreboard_open(void)
{
	void *p;

	if (cells != NULL)
		return 0;
	p = mmap(NULL, SCOREBOARD_CELLS * sizeof(*cells) + sizeof(*host),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	cells = p;
	host = (struct scoreboard_host *)(void *)(cells + SCOREBOARD_CELLS);
	host->since = (int64_t)time(NULL);
	return 0;
}

int
scoreboard_take(void)
{
	int i;

	for (i = 0; cells != NULL && i < SCOREBOARD_CELLS; i++)
		if (!cells[i].in_use) {
			cells[i].in_use = 1;
			cells[i].heartbeat = clock_ms();
			return i;
		}
	return -1;
}

void
scoreboard_give(int cell)
{
	if (cells != NULL && cell >= 0 && cell < SCOREBOARD_CELLS)
		cells[cell].in_use = 0;
}

struct scoreboard_cell *
scoreboard_cell(int i)
{
	return cells != NULL && i >= 0 && i < SCOREBOARD_CELLS ? &cells[i] :
	    NULL;
}

void
scoreboard_set_host_drain(bool drain)
{
	if (host == NULL || host->drain == (int)drain)
		return;
	host->drain = drain;
	host->since = (int64_t)time(NULL);
}

void
scoreboard_host_drain_restore(bool drain, int64_t since)
{
	if (host == NULL)
		return;
	host->drain = drain;
	host->since = since;
}

bool
scoreboard_host_drain(int64_t *since)
{
	if (since != NULL)
		*since = host != NULL ? host->since : 0;
	return host != NULL && host->drain;
}
