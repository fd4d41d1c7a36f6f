/*
 * health.h - whether each backend may be given new connections, in
 * memory shared by the master, the workers and the health checker.
 *
 * Passive health (nginx's max_fails and fail_timeout): workers report
 * each connect's result; max_fails failures within fail_timeout mark the
 * backend down for fail_timeout, after which one trial connection
 * decides.  Active health: the checker (checker.c) probes and writes
 * up or down.  A backend takes new connections while both say so.
 *
 * The master makes a table per configuration before forking its
 * workers, carrying over the state of backends that stay.  Cells are
 * written with plain stores, or atomics where two workers may race (the
 * failure count, the trial's claim): only on failures and state changes,
 * never per connection on a healthy backend.
 */
#ifndef FERRYD_HEALTH_H
#define FERRYD_HEALTH_H

#include <stddef.h>
#include <stdint.h>

struct backend;
struct conf;
struct rule;

struct health_cell {
	volatile int64_t	down_until;	/* passive: ms; 0 = up */
	volatile int64_t	window;		/* failures counted since */
	volatile uint32_t	fails;		/* ... this many */
	volatile uint8_t	check_down;	/* active: the checker's word */
	volatile uint8_t	admin;		/* enum health_admin: operator's */
	volatile uint16_t	streak;		/* checker: same results in a row */
	volatile int64_t	changed;	/* wall clock s of the last change */
	volatile uint64_t	changes;	/* up to down and back, counted */
	volatile uint16_t	weight;		/* operator's; 0: configured */
	volatile int64_t	since;		/* clock_ms() of the last change:
						 * slow_start ramps from it */
	volatile int64_t	admin_since;	/* wall clock s admin was set
						 * (state_file keeps it); 0:
						 * not known */
} __attribute__((aligned(64)));

/*
 * A binary upgrade hands the cells over by size: a new field must fit
 * in the padding (an older image's is zero), not make them larger.
 */
_Static_assert(sizeof(struct health_cell) == 64,
    "a health cell is one cache line");

/*
 * What the operator said of a backend (the control socket): it lives in
 * its cell, so that it outlasts reloads as health does.
 */
enum health_admin {
	HEALTH_READY = 0,	/* takes new connections when up */
	HEALTH_DRAIN,		/* none while another is up; open ones finish */
	HEALTH_DISABLED		/* no new ones, not even as a last resort */
};
/* Their words, in the control socket and the state file. */
#define HEALTH_ADMINS	3
extern const char *const health_admin_names[HEALTH_ADMINS];

/*
 * b's admin state (enum health_admin), and the weight it has now; the
 * wall clock second its admin state was set (0: not known).
 */
int	health_admin(const struct backend *b);
int64_t	health_admin_since(const struct backend *b);
int	health_weight(const struct backend *b);

/* cell's state changed (to up or down) now. */
void	health_changed(struct health_cell *cell);
/*
 * clock_ms() when b last changed state (came up, went down, was enabled):
 * its slow_start ramps from there.  0: no table, no ramp.
 */
int64_t	health_since(const struct backend *b);

enum health_state {
	HEALTH_UP,
	HEALTH_DOWN,
	HEALTH_TRIAL	/* down, but its fail_timeout is over: one may try */
};

/*
 * Master: make the table of cfg and use it from now on (children forked
 * later inherit it), with the state of cfg's backends that were in old
 * (NULL at start).  A new backend of a rule with active checks starts
 * down; any other starts up.  0, or -1 with errno: then there is no
 * table, and every backend counts as up.
 */
int	health_table_new(const struct conf *cfg, const struct conf *old);

/*
 * Master, for an upgrade: the table in use (n cells), and a copy of one
 * made the table in use, for health_table_new() to carry over (0, or
 * -1 with errno).
 */
const void *health_table(size_t *n);
int	health_table_adopt(const void *t, size_t n);

/*
 * Master: b of rule r resolves to another address now: its health starts
 * over as a new backend's (down until checked, where r is checked).
 */
void	health_moved(const struct rule *r, const struct backend *b);

/* The cell of backend id, or NULL without a table. */
struct health_cell *health_cell(unsigned id);

int	health_state(const struct backend *b, int64_t now);

/* HEALTH_TRIAL: take the one trial connection; false if another did. */
bool	health_claim_trial(const struct backend *b, int64_t now);
/*
 * The trial claimed at now was not made (this host could not even
 * start it): another connection may make it at once.
 */
void	health_unclaim_trial(const struct backend *b, int64_t now);

/*
 * A connect to b failed with err (errno; ETIMEDOUT for connect_timeout),
 * or succeeded; trial: it was the trial connection.
 */
void	health_failed(const struct rule *rule, const struct backend *b,
    int err, bool trial, int64_t now);
void	health_succeeded(const struct rule *rule, const struct backend *b,
    bool trial);

#endif
