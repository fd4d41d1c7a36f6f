/*
 * stats_int.h - what stats.c shares with stats_adopt.c (a binary
 * upgrade's counters), not for the rest: the table's layout and the
 * helpers that read and fold it.
 */
#ifndef FERRYD_STATS_INT_H
#define FERRYD_STATS_INT_H

#include <stddef.h>
#include <stdint.h>

/* Included after stats.h: its types, not its header (no cycle). */
struct conf;
struct stats_backend;
struct stats_rule;
struct stats_worker;
struct shm;

/* A rule's totals at a moment, for rates. */
struct stats_sample {
	int64_t		at_ms;
	uint64_t	connections, sessions, bytes, datagrams;
};

/*
 * One configuration's table, at the start of its own mapping; the maps
 * and columns follow it in the same mapping.  Of rules and backends,
 * column c of id is at [c * n + id], and column slots is the master's
 * base; a worker slot's base is worker_base[slot].
 *
 * Most of it is never written (histograms' buckets, rules without
 * traffic): readers take those pages as zeros without touching them
 * (stats_shm.h), and nobody writes a zero where there was one.
 */
struct stats_table {
	struct shm		*shm;		/* its memory: in the memory
						 * of each process, at the same
						 * address (made before the
						 * fork), with what that
						 * process learnt of it; NULL
						 * in an adopted table's copy
						 * (stats_adopt.c) */
	volatile uint64_t	 seq;		/* odd while the master folds */
	volatile int		 prev_alive;	/* prev is still to be read */
	volatile int		 superseded;	/* a newer table is there */
	struct stats_table	*prev;		/* an older table, or NULL */
	int			 prev_slots;	/* slots both have */
	unsigned		 gen;
	int			 slots;		/* worker columns */
	size_t			 nrules, nbackends;
	size_t			 size;		/* of the mapping */
	int32_t			*rule_map;	/* id -> prev's, or -1 */
	int32_t			*backend_map;
	struct stats_worker	*workers;	/* slots */
	struct stats_worker	*worker_base;	/* slots */
	struct stats_rule	*rules;		/* (slots + 1) x nrules */
	struct stats_backend	*backends;	/* (slots + 1) x nbackends */
	/* The master's samples for rates: ring[id * STATS_RING + i]. */
	struct stats_sample	*ring;
	volatile uint64_t	 ring_seq;	/* odd while it writes */
	volatile unsigned	 ring_next;	/* the slot written next */
	volatile unsigned	 ring_count;	/* samples so far, at most
						 * STATS_RING */
};

/* The kinds of counters, for the code that reads and folds them all. */
enum kind { RULES, BACKENDS, WORKERS };

#define WORDS(type)	(sizeof(type) / sizeof(uint64_t))
/* The largest kind, for buffers of any. */
#define WORDS_MAX	WORDS(struct stats_rule)

/* The newest table, and the master's retired total. */
struct stats_table *stats_table_current(void);
struct stats_rule *stats_retired(void);

/* n words at from added to (taken from, not below 0) those at to. */
void	stats_add_words(volatile uint64_t *to, const volatile uint64_t *from,
    size_t n);
void	stats_sub_words(volatile uint64_t *to, const volatile uint64_t *from,
    size_t n);
size_t	stats_align_up(size_t n);
/* t's ids mapped to old's by rule name and backend address (-1: none). */
void	stats_map_ids(struct stats_table *t, const struct conf *cfg,
    const struct conf *old);
/* t's own columns of kind for id, words first.. added to out. */
void	stats_add_own(const struct stats_table *t, enum kind kind, size_t id,
    size_t first, size_t count, volatile uint64_t *out);
void	stats_no_gauges_rule(struct stats_rule *r);
/* A reader's start; the master's start and end of a change. */
uint64_t stats_seq_begin(const volatile uint64_t *seq);
void	stats_seq_write_begin(volatile uint64_t *seq);
void	stats_seq_write_end(volatile uint64_t *seq);

#endif
