/*
 * stats.c - the shared tables of counters and histograms (stats.h).
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "conf.h"
#include "route.h"
#include "rule.h"
#include "stats.h"
#include "stats_shm.h"
#include "stats_int.h"
#include "upstream.h"

struct stats_here	 stats_here;
struct stats_rule	 stats_sink_rule;
struct stats_backend	 stats_sink_backend;
struct stats_rule_hist	 stats_sink_rule_hist;
struct stats_backend_hist stats_sink_backend_hist;

/* The newest table (the master's, or the one a worker was forked with). */
static struct stats_table *current;

/*
 * The master's: what the rules reloads removed counted, added when their
 * table folded (no newer table reads them).  Only the master reads it,
 * for its last line, so it lives in its own memory.
 */
static struct stats_rule retired;

int64_t
stats_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Add n counters at from to those at to: a struct of uint64_t as an array. */
void
stats_add_words(volatile uint64_t *to, const volatile uint64_t *from, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		to[i] += from[i];
}

/*
 * The same, leaving alone the words that would get 0: a page of the
 * table that holds zeros stays unwritten (and so skipped by readers).
 */
static void
add_nonzero(volatile uint64_t *to, const volatile uint64_t *from, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (from[i] != 0)
			to[i] += from[i];
}

/* ... and take them away, from a sum they were added to. */
void
stats_sub_words(volatile uint64_t *to, const volatile uint64_t *from, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		to[i] -= to[i] >= from[i] ? from[i] : to[i];
}

size_t
stats_align_up(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp((*(const struct rule *const *)a)->name,
	    (*(const struct rule *const *)b)->name);
}

/* The rules of cfg as written (a range once), sorted by name. */
static const struct rule **
rules_by_name(const struct conf *cfg, size_t *n)
{
	const struct rule	**v;
	size_t			  i;

	*n = 0;
	if ((v = malloc((cfg->nrules + 1) * sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].range_first == NULL)
			v[(*n)++] = &cfg->rules[i];
	qsort(v, *n, sizeof(*v), by_name);
	return v;
}

/* The routes of r that o (the rule before) had, by name. */
static void
map_routes(struct stats_table *t, const struct rule *r, const struct rule *o)
{
	size_t	i, k;

	for (i = 0; i < r->nroutes; i++)
		for (k = 0; k < o->nroutes; k++)
			if (strcmp(r->routes[i].name, o->routes[k].name) == 0) {
				t->rule_map[r->routes[i].dest.stat] =
				    (int32_t)o->routes[k].dest.stat;
				break;
			}
}

/*
 * Point t's rules and backends at old's of the same name (a rule) and
 * address (its backends): what the table before counted of them.
 * Without memory for the search, nothing carries over.
 */
void
stats_map_ids(struct stats_table *t, const struct conf *cfg,
    const struct conf *old)
{
	const struct rule	**v, **hit, *r, *o;
	size_t			  n, i, j, k;

	for (i = 0; i < t->nrules; i++)
		t->rule_map[i] = -1;
	for (i = 0; i < t->nbackends; i++)
		t->backend_map[i] = -1;
	if (old == NULL || (v = rules_by_name(old, &n)) == NULL)
		return;
	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		if (r->range_first != NULL || (hit = bsearch(&r, v, n,
		    sizeof(*v), by_name)) == NULL)
			continue;
		o = *hit;
		t->rule_map[r->stat] = (int32_t)o->stat;
		map_routes(t, r, o);
		for (j = 0; j < r->upstream.nbackends; j++)
			for (k = 0; k < o->upstream.nbackends; k++)
				if (addr_equal(&r->upstream.backends[j].addr,
				    &o->upstream.backends[k].addr) &&
				    backend_same_route(&r->upstream.backends[j],
				    &o->upstream.backends[k])) {
					t->backend_map[r->upstream.backends[j].
					    stat] = (int32_t)o->upstream.
					    backends[k].stat;
					break;
				}
	}
	free(v);
}

/* Whether rule r (and its routes and backends) keeps histograms. */
static bool
wants_hists(const struct conf *cfg, const struct rule *r)
{
	return cfg->stats_histograms || r->stats_histograms;
}

/*
 * Give each rule, route and backend of cfg that keeps histograms a row
 * of them, in rule_row and backend_row (by stat id; -1: none), and
 * count the rows; with NULL arrays, only count them.
 */
static void
hist_rows(const struct conf *cfg, int32_t *rule_row, int32_t *backend_row,
    size_t *nrule_rows, size_t *nbackend_rows)
{
	const struct rule	*r;
	size_t			 i, j;

	*nrule_rows = *nbackend_rows = 0;
	for (i = 0; rule_row != NULL && i < cfg->nrule_stats; i++)
		rule_row[i] = -1;
	for (i = 0; backend_row != NULL && i < cfg->nbackend_stats; i++)
		backend_row[i] = -1;
	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		if (r->range_first != NULL || !wants_hists(cfg, r))
			continue;	/* a range's later ports: its first's */
		if (rule_row != NULL)
			rule_row[r->stat] = (int32_t)*nrule_rows;
		(*nrule_rows)++;
		for (j = 0; j < r->nroutes; j++, (*nrule_rows)++)
			if (rule_row != NULL)
				rule_row[r->routes[j].dest.stat] =
				    (int32_t)*nrule_rows;
		for (j = 0; j < r->upstream.nbackends; j++, (*nbackend_rows)++)
			if (backend_row != NULL)
				backend_row[r->upstream.backends[j].stat] =
				    (int32_t)*nbackend_rows;
	}
}

static int64_t prev_id(const struct stats_table *t, unsigned kind,
    size_t id);

/*
 * The samples of the rules t has of the table before: rates go on
 * across a reload.
 */
static void
ring_carry(struct stats_table *t)
{
	const struct stats_table	*old = t->prev;
	size_t				 i;
	int64_t				 o;

	for (i = 0; i < t->nrules; i++)
		if ((o = prev_id(t, STATS_RULES, i)) >= 0)
			memcpy(&t->ring[i * STATS_RING], &old->ring[(size_t)o *
			    STATS_RING], STATS_RING * sizeof(*t->ring));
	t->ring_next = old->ring_next;
	t->ring_count = old->ring_count;
}

static void retire_all(const struct stats_table *t);

int
stats_table_new(const struct conf *cfg, const struct conf *old, unsigned gen)
{
	struct stats_table	 shape, *t;
	struct shm		*m;

	memset(&shape, 0, sizeof(shape));
	shape.slots = cfg->workers;
	shape.nrules = cfg->nrule_stats;
	shape.nbackends = cfg->nbackend_stats;
	hist_rows(cfg, NULL, NULL, &shape.nrule_hists, &shape.nbackend_hists);
	if ((m = shm_new(stats_lay_out(&shape, NULL), "ferryd-stats")) ==
	    NULL) {
		/*
		 * The tables there are are of other configurations: none
		 * rather than wrong.  Workers count where nobody reads, and
		 * counters start again at the next table; what the tables
		 * there are counted so far stays in the whole life's total.
		 */
		retire_all(current);
		current = NULL;
		return -1;
	}
	t = (struct stats_table *)(void *)m->base;
	*t = shape;
	(void)stats_lay_out(t, m->base);
	t->shm = m;
	t->size = m->size;
	t->gen = gen;
	t->layout = STATS_LAYOUT;
	hist_rows(cfg, t->rule_hist_row, t->backend_hist_row,
	    &t->nrule_hists, &t->nbackend_hists);
	stats_map_ids(t, cfg, current != NULL ? old : NULL);
	stats_map_hist_rows(t, current);
	t->prev = current;
	t->prev_alive = current != NULL;
	if (current != NULL)
		ring_carry(t);
	if (current != NULL)
		current->superseded = 1;
	t->prev_slots = current != NULL && current->slots < t->slots ?
	    current->slots : t->slots;
	current = t;
	return 0;
}

/*
 * t's rules, those of the tables it still reads and, through their base
 * columns, those of the tables folded into them (but not their rules
 * that no newer table had): added to out, into a struct stats_rule.
 */
static void
add_chain(const struct stats_table *t, volatile uint64_t *out)
{
	size_t i;

	for (; t != NULL; t = t->prev_alive ? t->prev : NULL)
		for (i = 0; i < t->nrules; i++)
			stats_add_own(t, STATS_RULES, i, 0,
			    WORDS(struct stats_rule),
			    out);
}

/* Everything t and the tables it reads hold, to the retired total. */
static void
retire_all(const struct stats_table *t)
{
	add_chain(t, (volatile uint64_t *)&retired);
}

/* Whether an id of t maps to old's rule j: t goes on counting it. */
static bool
goes_on(const struct stats_table *t, size_t j)
{
	size_t i;

	for (i = 0; i < t->nrules; i++)
		if (t->rule_map[i] == (int32_t)j)
			return true;
	return false;
}

/*
 * old is about to fold into t: its rules that t does not go on with
 * (no id of t maps to them) are counted nowhere after the fold, so
 * their totals go to the retired total.  Without memory for a map of
 * those that go on, each is looked for (a fold is rare).
 */
static void
retire_removed(const struct stats_table *t, const struct stats_table *old)
{
	bool	*kept;
	size_t	 i, j;
	int64_t	 o;

	if ((kept = calloc(old->nrules + 1, sizeof(*kept))) != NULL)
		for (i = 0; i < t->nrules; i++)
			if ((o = prev_id(t, STATS_RULES, i)) >= 0)
				kept[o] = true;
	for (j = 0; j < old->nrules; j++)
		if (kept != NULL ? !kept[j] : !goes_on(t, j))
			stats_add_own(old, STATS_RULES, j, 0,
			    WORDS(struct stats_rule),
			    (volatile uint64_t *)&retired);
	free(kept);
}

/* Gauges are not carried: what they counted is open in another image. */
void
stats_no_gauges_rule(struct stats_rule *r)
{
	r->active = 0;
	r->active_sessions = 0;
	r->queued = 0;
	r->quic_cids = 0;
}

void
stats_read_begin(void)
{
	const struct stats_table *t;

	for (t = current; t != NULL; t = t->prev_alive ? t->prev : NULL)
		shm_forget_holes(t->shm);
}

void
stats_read_life(struct stats_rule *out)
{
	stats_read_begin();
	memset(out, 0, sizeof(*out));
	stats_add_words((volatile uint64_t *)out, (const volatile uint64_t *)
	    &retired, WORDS(struct stats_rule));
	add_chain(current, (volatile uint64_t *)out);
}

void
stats_retire_life(const struct stats_rule *life)
{
	struct stats_rule r = *life;

	stats_no_gauges_rule(&r);
	stats_add_words((volatile uint64_t *)&retired,
	    (const volatile uint64_t *)&r,
	    WORDS(struct stats_rule));
}

/*
 * The row of t's row id of kind in t->prev, or -1.  The maps are in the
 * table, which workers write: an entry out of t->prev's rows is none.
 */
static int64_t
prev_id(const struct stats_table *t, unsigned kind, size_t id)
{
	int32_t	*map, *prev_map;
	size_t	 prev_n;
	int64_t	 o;

	if (t->prev == NULL)
		return -1;
	(void)stats_rows_of(t, kind, &map);
	prev_n = stats_rows_of(t->prev, kind, &prev_map);
	if (map != NULL)
		o = stats_load(&map[id]);
	else
		o = id < (size_t)t->prev_slots ? (int64_t)id : -1;
	return o >= 0 && (size_t)o < prev_n ? o : -1;
}

/*
 * A reader's start: the sequence number once it is even (no fold under
 * way).  A fold is a few thousand stores; should the master die in
 * the middle of one, reading goes on after a while rather than never.
 */
uint64_t
stats_seq_begin(const volatile uint64_t *seq)
{
	uint64_t	s;
	unsigned	spins = 0;

	while (((s = __atomic_load_n(seq, __ATOMIC_ACQUIRE)) & 1) &&
	    ++spins < 10000000)
		;
	return s & ~(uint64_t)1;
}

/* The master's start and end of a change readers must not see half of. */
void
stats_seq_write_begin(volatile uint64_t *seq)
{
	__atomic_add_fetch(seq, 1, __ATOMIC_RELAXED);
	/* The stores that follow are not seen before the odd number. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void
stats_seq_write_end(volatile uint64_t *seq)
{
	__atomic_add_fetch(seq, 1, __ATOMIC_RELEASE);
}

/*
 * The totals of kind's counters for id in t and the tables before it,
 * words first to first + count, into out (which points at that part):
 * read again while a fold moved counters between them.
 */
static void
read_total(const struct stats_table *t, unsigned kind, size_t id,
    volatile uint64_t *out, size_t first, size_t count)
{
	volatile uint64_t	more[WORDS_MAX];
	uint64_t		seq;
	int64_t			pid;

	do {
		seq = stats_seq_begin(&t->seq);
		memset((void *)out, 0, count * sizeof(uint64_t));
		stats_add_own(t, kind, id, first, count, out);
		if (t->prev_alive && (pid = prev_id(t, kind, id)) >= 0) {
			read_total(t->prev, kind, (size_t)pid, more, first,
			    count);
			stats_add_words(out, more, count);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&t->seq, __ATOMIC_ACQUIRE) != seq);
}

/*
 * The totals of kind's counters for id (a stat id; a slot of the
 * workers) in the current table, size bytes from byte off (whole words;
 * all of them with size 0), into the same place of out: false if none.
 */
static bool
read_kind(unsigned kind, size_t id, void *out, size_t off, size_t size)
{
	const volatile uint64_t	*cols;
	int32_t			*map;
	size_t			 n, words, first, count;
	int64_t			 row = (int64_t)id;

	if (current == NULL || (kind != WORKERS &&
	    (row = stats_row(current, kind, id)) < 0))
		return false;
	stats_kind_of(current, kind, &cols, &n, &words, &map);
	first = off / sizeof(uint64_t);
	count = size == 0 ? words : size / sizeof(uint64_t);
	if ((size_t)row >= n || off % sizeof(uint64_t) != 0 ||
	    first > words || count > words - first)
		return false;
	read_total(current, kind, (size_t)row, (volatile uint64_t *)out +
	    first, first, count);
	return true;
}

bool
stats_read(enum stats_kind kind, unsigned id, void *out)
{
	return read_kind(kind, id, out, 0, 0);
}

bool
stats_read_rule(unsigned id, struct stats_rule *out)
{
	return read_kind(STATS_RULES, id, out, 0, 0);
}

bool
stats_read_backend(unsigned id, struct stats_backend *out)
{
	return read_kind(STATS_BACKENDS, id, out, 0, 0);
}

bool
stats_read_rule_part(unsigned id, size_t off, size_t size,
    struct stats_rule *out)
{
	return size > 0 && read_kind(STATS_RULES, id, out, off, size);
}

bool
stats_read_backend_part(unsigned id, size_t off, size_t size,
    struct stats_backend *out)
{
	return size > 0 && read_kind(STATS_BACKENDS, id, out, off, size);
}

bool
stats_read_rule_hist(unsigned id, size_t off, size_t size,
    struct stats_rule_hist *out)
{
	return read_kind(STATS_RULE_HISTS, id, out, off, size);
}

bool
stats_read_backend_hist(unsigned id, size_t off, size_t size,
    struct stats_backend_hist *out)
{
	return read_kind(STATS_BACKEND_HISTS, id, out, off, size);
}

bool
stats_read_worker(int slot, struct stats_worker *out)
{
	if (slot < 0 || !read_kind(WORKERS, (size_t)slot, out, 0, 0))
		return false;
	out->pid = current->workers[slot].pid;	/* not a sum */
	return true;
}

bool
stats_superseded(void)
{
	return current != NULL && current->superseded;
}

unsigned
stats_generation(void)
{
	return current != NULL ? current->gen : 0;
}

int
stats_slots(void)
{
	return current != NULL ? current->slots : 0;
}

void
stats_worker_begin(const struct conf *cfg, int slot)
{
	struct stats_table *t = current;

	/* Only the table of cfg: another's ids are not cfg's. */
	if (t == NULL || slot < 0 || slot >= t->slots ||
	    t->slots != cfg->workers || t->nrules != cfg->nrule_stats ||
	    t->nbackends != cfg->nbackend_stats) {
		/*
		 * Counted where nobody reads: the code needs no test.  The
		 * histograms go to the sinks.
		 */
		memset(&stats_here, 0, sizeof(stats_here));
		stats_here.rules = calloc(cfg->nrule_stats + 1,
		    sizeof(struct stats_rule));
		stats_here.backends = calloc(cfg->nbackend_stats + 1,
		    sizeof(struct stats_backend));
		stats_here.worker = calloc(1, sizeof(struct stats_worker));
		if (stats_here.rules == NULL || stats_here.backends == NULL ||
		    stats_here.worker == NULL) {
			free(stats_here.rules);
			free(stats_here.backends);
			free(stats_here.worker);
			memset(&stats_here, 0, sizeof(stats_here));
		}
		return;
	}
	stats_here.rules = &t->rules[(size_t)slot * t->nrules];
	stats_here.backends = &t->backends[(size_t)slot * t->nbackends];
	stats_here.rule_hists = &t->rule_hists[(size_t)slot * t->nrule_hists];
	stats_here.backend_hists = &t->backend_hists[(size_t)slot *
	    t->nbackend_hists];
	stats_here.rule_hist_row = t->rule_hist_row;
	stats_here.backend_hist_row = t->backend_hist_row;
	stats_here.worker = &t->workers[slot];
	stats_here.worker->pid = (uint64_t)getpid();
}

size_t
stats_generations(struct stats_gen *out, size_t max)
{
	const struct stats_table	*t;
	const struct stats_rule		*r;
	size_t				 n = 0, i, end;

	for (t = current; t != NULL && n < max;
	    t = t->prev_alive ? t->prev : NULL, n++) {
		out[n].gen = t->gen;
		out[n].open = 0;
		/* The workers' columns; the master's base holds no gauge. */
		end = (size_t)t->slots * t->nrules;
		for (i = 0; i < end; i++) {
			r = &t->rules[i];
			out[n].open += shm_word(t->shm, &r->active) +
			    shm_word(t->shm, &r->active_sessions);
		}
	}
	return n;
}

/* The table of generation gen, among those still read. */
static struct stats_table *
table_of(unsigned gen)
{
	struct stats_table *t;

	for (t = current; t != NULL; t = t->prev_alive ? t->prev : NULL)
		if (t->gen == gen)
			return t;
	return NULL;
}

void
stats_worker_gone(unsigned gen, int slot)
{
	struct stats_table	*t = table_of(gen);
	struct stats_rule	*r;
	struct stats_backend	*b;
	uint64_t		 n;
	size_t			 i;

	if (t == NULL || slot < 0 || slot >= t->slots)
		return;
	/*
	 * Its open connections and sessions went with it.  A gauge at 0 is
	 * left alone: its page may be one never written.
	 */
	for (i = 0; i < t->nrules; i++) {
		r = &t->rules[(size_t)slot * t->nrules + i];
		if ((n = shm_word(t->shm, &r->active)) != 0) {
			r->closed += n;		/* closed by its death */
			r->active = 0;
		}
		if (shm_word(t->shm, &r->active_sessions) != 0)
			r->active_sessions = 0;
		if (shm_word(t->shm, &r->queued) != 0)
			r->queued = 0;
		if (shm_word(t->shm, &r->quic_cids) != 0)
			r->quic_cids = 0;
	}
	for (i = 0; i < t->nbackends; i++) {
		b = &t->backends[(size_t)slot * t->nbackends + i];
		if (shm_word(t->shm, &b->active) != 0)
			b->active = 0;
	}
	t->workers[slot].pid = 0;
	stats_read_begin();	/* as fold() */
}

/*
 * old, whose workers are gone, is t's prev: add what old holds itself
 * (its columns and base) into t's base, and read what old read instead
 * of it (old's prev through maps composed of both), or nothing more.
 */
static void
fold(struct stats_table *t, struct stats_table *old)
{
	volatile uint64_t	 sum[WORDS_MAX];
	volatile uint64_t	*base;
	const volatile uint64_t	*cols;
	int32_t			*map;
	size_t			 n, words, i;
	unsigned		 k;
	int64_t			 pid;

	retire_removed(t, old);
	stats_seq_write_begin(&t->seq);
	for (k = 0; k < NKINDS; k++) {
		stats_kind_of(t, k, &cols, &n, &words, &map);
		for (i = 0; i < n; i++) {
			if ((pid = prev_id(t, k, i)) < 0)
				continue;
			memset((void *)sum, 0, sizeof(sum));
			stats_add_own(old, k, (size_t)pid, 0, words, sum);
			base = k == WORKERS ?
			    (volatile uint64_t *)&t->worker_base[i] :
			    stats_base_row(t, k, i);
			/* A slot's pid is its own: not carried. */
			add_nonzero(base, sum, k == WORKERS ?
			    offsetof(struct stats_worker, pid) /
			    sizeof(uint64_t) : words);
		}
	}
	/* t's rows now point where old's pointed (both checked). */
	for (k = 0; k < STATS_KINDS; k++) {
		n = stats_rows_of(t, k, &map);
		for (i = 0; i < n; i++)
			map[i] = old->prev_alive && (pid = prev_id(t, k, i)) >=
			    0 ? (int32_t)prev_id(old, k, (size_t)pid) : -1;
	}
	if (old->prev_slots < t->prev_slots)
		t->prev_slots = old->prev_slots;
	t->prev = old->prev;
	t->prev_alive = old->prev_alive;
	stats_seq_write_end(&t->seq);
	/* Pages of t's base this wrote were holes a moment ago. */
	stats_read_begin();
}

void
stats_settle(bool (*alive)(unsigned gen, void *arg), void *arg)
{
	struct stats_table	*t, *old;
	bool			 again = true;

	/*
	 * Any table but the newest whose generation has no worker left
	 * folds into the one after it, oldest or not: the chain readers
	 * walk is as long as the generations still running.
	 */
	while (again) {
		again = false;
		for (t = current; t != NULL && t->prev_alive; t = t->prev) {
			old = t->prev;
			if (alive(old->gen, arg))
				continue;
			fold(t, old);
			shm_free(old->shm);
			again = true;
			break;
		}
	}
}

uint64_t
stats_slot_open(int slot)
{
	const struct stats_rule	*r;
	uint64_t		 n = 0;
	size_t			 i;

	if (current == NULL || slot < 0 || slot >= current->slots)
		return 0;
	for (i = 0; i < current->nrules; i++) {
		r = &current->rules[(size_t)slot * current->nrules + i];
		n += shm_word(current->shm, &r->active) +
		    shm_word(current->shm, &r->active_sessions);
	}
	return n;
}

/* The words of struct stats_rule a sample reads: up to datagrams_out. */
#define SAMPLED_WORDS	(offsetof(struct stats_rule, datagrams_out) / \
    sizeof(uint64_t) + 1)

void
stats_sample(int64_t now_ms)
{
	struct stats_table	*t = current;
	struct stats_rule	 r;
	struct stats_sample	*smp;
	size_t			 i;
	unsigned		 next;

	if (t == NULL)
		return;
	/* The header is in the table, which workers write: kept in range. */
	next = t->ring_next % STATS_RING;
	stats_read_begin();
	stats_seq_write_begin(&t->ring_seq);
	for (i = 0; i < t->nrules; i++) {
		/* What the rates need, not the counters after it. */
		read_total(t, STATS_RULES, i, (volatile uint64_t *)&r, 0,
		    SAMPLED_WORDS);
		smp = &t->ring[i * STATS_RING + next];
		smp->at_ms = now_ms;
		smp->connections = r.accepted;
		smp->sessions = r.sessions;
		smp->bytes = r.bytes_in + r.bytes_out;
		smp->datagrams = r.datagrams_in + r.datagrams_out;
	}
	t->ring_next = (next + 1) % STATS_RING;
	if (t->ring_count < STATS_RING)
		t->ring_count++;
	stats_seq_write_end(&t->ring_seq);
}

void
stats_read_rates(unsigned id, struct stats_rates *out)
{
	const struct stats_table	*t = current;
	struct stats_sample		 new, old;
	uint64_t			 seq;
	unsigned			 last, first;
	double				 s;

	memset(out, 0, sizeof(*out));
	if (t == NULL || id >= t->nrules)
		return;
	do {
		seq = stats_seq_begin(&t->ring_seq);
		if (t->ring_count < 2)
			return;
		last = (t->ring_next + STATS_RING - 1) % STATS_RING;
		first = (t->ring_next + STATS_RING - t->ring_count) % STATS_RING;
		new = t->ring[id * STATS_RING + last];
		/* A rule new since a reload has samples from then on only. */
		while ((old = t->ring[id * STATS_RING + first]).at_ms == 0 &&
		    first != last)
			first = (first + 1) % STATS_RING;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&t->ring_seq, __ATOMIC_ACQUIRE) != seq);
	if (old.at_ms == 0 || new.at_ms <= old.at_ms)
		return;
	s = (double)(new.at_ms - old.at_ms) / 1000.0;
	out->seconds = s;
	out->connections = (double)(new.connections - old.connections) / s;
	out->sessions = (double)(new.sessions - old.sessions) / s;
	out->bytes = (double)(new.bytes - old.bytes) / s;
	out->datagrams = (double)(new.datagrams - old.datagrams) / s;
}

/* ---- a binary upgrade's: the old image's table, read in the new ---- */

int
stats_table_fd(void)
{
	return current != NULL && current->shm != NULL ? current->shm->fd :
	    -1;
}

struct stats_table *
stats_table_current(void)
{
	return current;
}

struct stats_rule *
stats_retired(void)
{
	return &retired;
}
