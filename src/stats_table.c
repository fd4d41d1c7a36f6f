/*
 * stats_table.c - the shape of a table of counters (stats_int.h): its
 * parts laid out in its mapping, and where each kind's rows are (the
 * rules' and backends' counters, the histograms of those that keep
 * them, the workers').
 */
#include "ferryd.h"

#include "stats.h"
#include "stats_shm.h"
#include "stats_int.h"

/*
 * The next part of a table laid out from base, rows x cols records of
 * each bytes: where it is.  The counts may be an old image's header's
 * (stats_adopt): a size past SIZE_MAX makes *at SIZE_MAX, and the
 * parts after it NULL, for a layout no mapping holds.
 */
static void *
carve(char *base, size_t *at, size_t rows, size_t cols, size_t each)
{
	void	*p = base != NULL ? base + *at : NULL;
	size_t	 n, end;

	if (*at == SIZE_MAX || __builtin_mul_overflow(rows, cols, &n) ||
	    __builtin_mul_overflow(n, each, &n) ||
	    __builtin_add_overflow(*at, n, &end) || end > SIZE_MAX - 63) {
		*at = SIZE_MAX;
		return NULL;
	}
	*at = stats_align_up(end);
	return p;
}

size_t
stats_lay_out(struct stats_table *t, char *base)
{
	size_t	at = stats_align_up(sizeof(*t)), cols = (size_t)t->slots + 1;

	/* The maps first, right after the header: stats_adopt finds it. */
	t->rule_map = carve(base, &at, t->nrules, 1, sizeof(int32_t));
	t->backend_map = carve(base, &at, t->nbackends, 1, sizeof(int32_t));
	t->rule_hist_row = carve(base, &at, t->nrules, 1, sizeof(int32_t));
	t->backend_hist_row = carve(base, &at, t->nbackends, 1,
	    sizeof(int32_t));
	t->rule_hist_map = carve(base, &at, t->nrule_hists, 1,
	    sizeof(int32_t));
	t->backend_hist_map = carve(base, &at, t->nbackend_hists, 1,
	    sizeof(int32_t));
	t->workers = carve(base, &at, (size_t)t->slots, 1,
	    sizeof(struct stats_worker));
	t->worker_base = carve(base, &at, (size_t)t->slots, 1,
	    sizeof(struct stats_worker));
	t->rules = carve(base, &at, cols, t->nrules,
	    sizeof(struct stats_rule));
	t->backends = carve(base, &at, cols, t->nbackends,
	    sizeof(struct stats_backend));
	t->rule_hists = carve(base, &at, cols, t->nrule_hists,
	    sizeof(struct stats_rule_hist));
	t->backend_hists = carve(base, &at, cols, t->nbackend_hists,
	    sizeof(struct stats_backend_hist));
	t->ring = carve(base, &at, t->nrules, STATS_RING,
	    sizeof(struct stats_sample));
	return at;
}

/*
 * The row of prev's histograms of kind that t's id of kind (rules or
 * backends: map) goes on from, or -1.  prev's workers write its rows:
 * stats_row bounds them.
 */
static int32_t
prev_hist_row(const struct stats_table *prev, enum stats_kind kind,
    const int32_t *map, size_t id)
{
	int32_t o = prev != NULL ? stats_load(&map[id]) : -1;

	return o >= 0 ? (int32_t)stats_row(prev, kind, (size_t)o) : -1;
}

void
stats_map_hist_rows(struct stats_table *t, const struct stats_table *prev)
{
	size_t	i;

	/* t is new: no worker has written its rows yet. */
	for (i = 0; i < t->nrules; i++)
		if (t->rule_hist_row[i] >= 0)
			t->rule_hist_map[t->rule_hist_row[i]] =
			    prev_hist_row(prev, STATS_RULE_HISTS, t->rule_map,
			    i);
	for (i = 0; i < t->nbackends; i++)
		if (t->backend_hist_row[i] >= 0)
			t->backend_hist_map[t->backend_hist_row[i]] =
			    prev_hist_row(prev, STATS_BACKEND_HISTS,
			    t->backend_map, i);
}

size_t
stats_record_size(enum stats_kind kind)
{
	static const size_t size[] = { sizeof(struct stats_rule),
	    sizeof(struct stats_backend), sizeof(struct stats_rule_hist),
	    sizeof(struct stats_backend_hist) };

	return size[kind];
}

int64_t
stats_row(const struct stats_table *t, enum stats_kind kind, size_t id)
{
	int32_t	row;

	if (id >= (stats_kind_is_rule(kind) ? t->nrules : t->nbackends))
		return -1;
	/*
	 * The rows of histograms are in the table, which workers write:
	 * one out of range is none.
	 */
	if (kind == STATS_RULE_HISTS)
		row = stats_load(&t->rule_hist_row[id]);
	else if (kind == STATS_BACKEND_HISTS)
		row = stats_load(&t->backend_hist_row[id]);
	else
		return (int64_t)id;
	return row >= 0 && (size_t)row < (kind == STATS_RULE_HISTS ?
	    t->nrule_hists : t->nbackend_hists) ? row : -1;
}

void
stats_kind_of(const struct stats_table *t, unsigned kind,
    const volatile uint64_t **cols, size_t *n, size_t *words,
    int32_t **map)
{
	switch (kind) {
	case STATS_RULES:
		*cols = (const volatile uint64_t *)t->rules;
		*n = t->nrules;
		*words = WORDS(struct stats_rule);
		*map = t->rule_map;
		break;
	case STATS_BACKENDS:
		*cols = (const volatile uint64_t *)t->backends;
		*n = t->nbackends;
		*words = WORDS(struct stats_backend);
		*map = t->backend_map;
		break;
	case STATS_RULE_HISTS:
		*cols = (const volatile uint64_t *)t->rule_hists;
		*n = t->nrule_hists;
		*words = WORDS(struct stats_rule_hist);
		*map = t->rule_hist_map;
		break;
	case STATS_BACKEND_HISTS:
		*cols = (const volatile uint64_t *)t->backend_hists;
		*n = t->nbackend_hists;
		*words = WORDS(struct stats_backend_hist);
		*map = t->backend_hist_map;
		break;
	default:
		*cols = (const volatile uint64_t *)t->workers;
		*n = (size_t)t->slots;
		*words = WORDS(struct stats_worker);
		*map = NULL;
		break;
	}
}

size_t
stats_rows_of(const struct stats_table *t, unsigned kind, int32_t **map)
{
	const volatile uint64_t	*cols;
	size_t			 n, words;

	stats_kind_of(t, kind, &cols, &n, &words, map);
	return n;
}

volatile uint64_t *
stats_base_row(struct stats_table *t, enum stats_kind kind, size_t row)
{
	const volatile uint64_t	*cols;
	int32_t			*map;
	size_t			 n, words;

	stats_kind_of(t, kind, &cols, &n, &words, &map);
	return (volatile uint64_t *)cols + ((size_t)t->slots * n + row) *
	    words;
}

/*
 * Add t's own counters (its columns and base) of kind for row id to
 * out: the part of count words from word first (out points at that
 * part).
 */
void
stats_add_own(const struct stats_table *t, unsigned kind, size_t id,
    size_t first, size_t count, volatile uint64_t *out)
{
	const volatile uint64_t	*cols;
	int32_t			*map;
	size_t			 n, words, c;

	stats_kind_of(t, kind, &cols, &n, &words, &map);
	if (kind == WORKERS) {
		stats_add_words(out, cols + id * words + first, count);
		stats_add_words(out, (const volatile uint64_t *)
		    &t->worker_base[id] +
		    first, count);
		return;
	}
	for (c = 0; c <= (size_t)t->slots; c++)
		shm_add_words(t->shm, out, cols + (c * n + id) * words + first,
		    count);
}
