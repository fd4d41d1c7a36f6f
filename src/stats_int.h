/*
 * stats_int.h - what stats.c shares with stats_table.c (a table's
 * shape) and stats_adopt.c (a binary upgrade's counters), not for the
 * rest: the table's layout and the helpers that read and fold it.
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
	/*
	 * The histograms, of the rules and backends that have them: a row
	 * each (*_hist_row: id -> row, or -1), whose map says which row of
	 * prev's it goes on from.
	 */
	size_t			 nrule_hists, nbackend_hists;
	int32_t			*rule_hist_row;		/* nrules */
	int32_t			*backend_hist_row;	/* nbackends */
	int32_t			*rule_hist_map;		/* row -> prev's */
	int32_t			*backend_hist_map;
	struct stats_rule_hist	*rule_hists;	/* (slots + 1) x rows */
	struct stats_backend_hist *backend_hists;
	/* The master's samples for rates: ring[id * STATS_RING + i]. */
	struct stats_sample	*ring;
	volatile uint64_t	 ring_seq;	/* odd while it writes */
	volatile unsigned	 ring_next;	/* the slot written next */
	volatile unsigned	 ring_count;	/* samples so far, at most
						 * STATS_RING */
	uint64_t		 layout;	/* STATS_LAYOUT */
};

/*
 * This layout's mark, last in the header, for an upgrade: an older
 * image's table (its histograms in every rule's counters, its header
 * shorter) has no such word there.
 */
#define STATS_LAYOUT	UINT64_C(0x6665727279643202)	/* "ferryd2", 2 */

/*
 * The kinds of counters, for the code that reads and folds them all:
 * stats.h's, and the workers'.
 */
#define WORKERS		STATS_KINDS
#define NKINDS		(STATS_KINDS + 1)

#define WORDS(type)	(sizeof(type) / sizeof(uint64_t))
/* The largest kind, for buffers of any. */
#define WORDS_MAX	WORDS(struct stats_rule_hist)

/*
 * Lay t's parts out from base, from its slots and counts of rules,
 * backends and rows of histograms (base NULL: only measure): the
 * mapping's size.
 */
size_t	stats_lay_out(struct stats_table *t, char *base);
/*
 * Where kind's counters of t are: their columns, how many rows a column
 * has, their size in words, and the map of t's rows to prev's (NULL:
 * the same row).
 */
void	stats_kind_of(const struct stats_table *t, unsigned kind,
    const volatile uint64_t **cols, size_t *n, size_t *words,
    int32_t **map);
/* kind's rows of t (stats_kind_of's n), and its map. */
size_t	stats_rows_of(const struct stats_table *t, unsigned kind,
    int32_t **map);
/* Map t's rows of histograms to prev's (NULL: none), by t's maps. */
void	stats_map_hist_rows(struct stats_table *t,
    const struct stats_table *prev);
/* The row of t that holds kind's record of stat id, or -1. */
int64_t	stats_row(const struct stats_table *t, enum stats_kind kind,
    size_t id);

/*
 * A row or map entry of a table, read once: what is checked is what is
 * used, whatever a worker writes there meanwhile.
 */
static inline int32_t
stats_load(const int32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* The master's base column of t: its row of kind. */
volatile uint64_t *stats_base_row(struct stats_table *t,
    enum stats_kind kind, size_t row);

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
void	stats_add_own(const struct stats_table *t, unsigned kind, size_t id,
    size_t first, size_t count, volatile uint64_t *out);
void	stats_no_gauges_rule(struct stats_rule *r);
/* A reader's start; the master's start and end of a change. */
uint64_t stats_seq_begin(const volatile uint64_t *seq);
void	stats_seq_write_begin(volatile uint64_t *seq);
void	stats_seq_write_end(volatile uint64_t *seq);

#endif
