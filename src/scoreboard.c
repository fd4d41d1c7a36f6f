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

static struct scoreboard_cell *cells;

int
scoreboard_open(void)
{
	void *p;

	if (cells != NULL)
		return 0;
	p = mmap(NULL, SCOREBOARD_CELLS * sizeof(*cells),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	cells = p;
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
