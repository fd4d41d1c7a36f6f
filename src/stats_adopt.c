/*
 * stats_adopt.c - a binary upgrade's counters (stats.h): what the old
 * image counted goes on in the new image's first table, and what its
 * workers count after the exec is read from its table, mapped here.
 */
#include "ferryd.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stats.h"
#include "stats_int.h"

/*
 * The old image's newest table, mapped read-only here (its workers go
 * on writing it), as a header of our own whose pointers point into our
 * mapping; and the table its counts were carried into.
 */
static struct stats_table	 adopted;
static void			*adopted_map;
static struct stats_table	*carried_into;

/* A record's gauges zeroed: what they counted is open in another image. */
static void
no_gauges(enum stats_kind kind, void *record)
{
	if (kind == STATS_RULES)
		stats_no_gauges_rule(record);
	else if (kind == STATS_BACKENDS)
		((struct stats_backend *)record)->active = 0;
}

/*
 * in's records (by the old image's ids) added into t's base rows of the
 * ids t's maps point at them, where t has such a row (histograms: only
 * where t keeps them).  carry, the first time: their gauges zeroed, and
 * the rules' counters taken from the retired total.  Else (what was
 * counted after the description) each is zeroed once added: what is
 * left goes to the retired total.
 */
static void
add_records(struct stats_table *t, const struct stats_records *in,
    bool carry)
{
	volatile uint64_t	*base;
	void			*rec;
	size_t			 i, ids, words;
	unsigned		 k;
	int32_t			 o;
	int64_t			 row;

	for (k = 0; k < STATS_KINDS; k++) {
		words = stats_record_size(k) / sizeof(uint64_t);
		ids = stats_kind_is_rule(k) ? t->nrules : t->nbackends;
		for (i = 0; i < ids; i++) {
			o = stats_load(stats_kind_is_rule(k) ? &t->rule_map[i] :
			    &t->backend_map[i]);
			if (o < 0 || (size_t)o >= in[k].n ||
			    (rec = in[k].by_id[o]) == NULL ||
			    (row = stats_row(t, k, i)) < 0)
				continue;
			base = stats_base_row(t, k, (size_t)row);
			if (carry)
				no_gauges(k, rec);
			stats_add_words(base, rec, words);
			if (carry && k == STATS_RULES)
				stats_sub_words((volatile uint64_t *)
				    stats_retired(), rec, words);
			if (!carry)
				memset(rec, 0, words * sizeof(uint64_t));
		}
	}
}

void
stats_carry(const struct conf *cfg, const struct conf *old,
    const struct stats_records *in)
{
	struct stats_table *t = stats_table_current();

	if (t == NULL || t->prev != NULL)
		return;		/* the first table only, before workers */
	stats_map_ids(t, cfg, old);
	add_records(t, in, true);
	/* No table before: readers never look at the maps. */
	stats_map_ids(t, cfg, NULL);
}

/* Whether each of n rows at row is a row of n_rows, or -1 (none). */
static bool
rows_in_range(const int32_t *row, size_t n, size_t n_rows)
{
	size_t	i;
	int32_t	r;

	for (i = 0; i < n; i++)
		if ((r = stats_load(&row[i])) < -1 || (r >= 0 &&
		    (size_t)r >= n_rows))
			return false;
	return true;
}

/*
 * Whether the old image's table, whose header was copied into adopted,
 * was laid out at from as ours would be at to: our layout, in the
 * file's size, its rows of histograms rows it has.  The copy is what is
 * checked and used: the old image's workers go on writing the table.
 */
static bool
same_layout(const char *from, char *to, size_t size)
{
	struct stats_table old = adopted;

	if (old.layout != STATS_LAYOUT || old.slots <= 0 ||
	    old.slots > 4096 || old.nrules > size || old.nbackends > size ||
	    old.nrule_hists > old.nrules ||
	    old.nbackend_hists > old.nbackends || old.size != size)
		return false;
	return stats_lay_out(&adopted, to) <= size &&
	    (const char *)old.rules - from == (char *)adopted.rules - to &&
	    (const char *)old.backend_hists - from ==
	    (char *)adopted.backend_hists - to &&
	    (const char *)old.ring - from == (char *)adopted.ring - to &&
	    rows_in_range(adopted.rule_hist_row, adopted.nrules,
	    adopted.nrule_hists) &&
	    rows_in_range(adopted.backend_hist_row, adopted.nbackends,
	    adopted.nbackend_hists);
}

int
stats_adopt(int fd)
{
	struct stat	 st;
	char		*p;
	size_t		 size;

	if (fstat(fd, &st) == -1 || st.st_size < (off_t)sizeof(adopted) ||
	    (p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd,
	    0)) == MAP_FAILED)
		return -1;
	size = (size_t)st.st_size;
	memcpy(&adopted, p, sizeof(adopted));
	/*
	 * Another layout (an image of another version: an older one's
	 * header is shorter, without our mark) is not read.  Its maps
	 * follow the header where the old image had it.
	 */
	if (!same_layout((const char *)adopted.rule_map -
	    stats_align_up(sizeof(adopted)), p, size)) {
		munmap(p, size);
		memset(&adopted, 0, sizeof(adopted));
		errno = EPROTO;		/* told as such by the caller */
		return -1;
	}
	adopted.shm = NULL;	/* the old image's pointer: every page read */
	adopted.prev = NULL;
	adopted.prev_alive = 0;
	adopted_map = p;
	return 0;
}

bool
stats_read_own(enum stats_kind kind, unsigned id, void *out,
    bool adopted_table)
{
	const struct stats_table *t = adopted_table ? &adopted :
	    stats_table_current();
	size_t                    words = stats_record_size(kind) /
	    sizeof(uint64_t);
	int64_t                   row;

	if (t == NULL || (adopted_table && adopted_map == NULL) ||
	    (row = stats_row(t, kind, id)) < 0)
		return false;
	/* No fold runs meanwhile: folds are the reading master's. */
	memset(out, 0, words * sizeof(uint64_t));
	stats_add_own(t, kind, (size_t)row, 0, words, out);
	return true;
}

void
stats_carried(void)
{
	carried_into = stats_table_current();
}

/*
 * What the old image's table counted of kind's id since the
 * description, whose own sums were at *rec, into *rec, its gauges
 * zeroed (false: not there to read).
 */
static bool
since_description(enum stats_kind kind, unsigned id, void *rec)
{
	union stats_record	now;
	size_t			words = stats_record_size(kind) /
	    sizeof(uint64_t);

	if (!stats_read_own(kind, id, &now, true))
		return false;
	stats_sub_words((volatile uint64_t *)&now, rec, words);
	no_gauges(kind, &now);
	memcpy(rec, &now, words * sizeof(uint64_t));
	return true;
}

void
stats_adopt_end(const struct conf *cfg, const struct conf *old,
    const struct stats_records *own)
{
	struct stats_table	*t = stats_table_current();
	size_t			 i;
	unsigned		 k;
	bool			 ours = t != NULL && t == carried_into &&
	    adopted_map != NULL;

	if (adopted_map == NULL)
		return;
	/* Since the description: the counts made after it. */
	for (k = 0; k < STATS_KINDS; k++)
		for (i = 0; i < own[k].n; i++)
			if (own[k].by_id[i] != NULL &&
			    !since_description(k, (unsigned)i, own[k].by_id[i]))
				memset(own[k].by_id[i], 0,
				    stats_record_size(k));
	munmap(adopted_map, adopted.size);
	adopted_map = NULL;
	if (ours) {
		stats_seq_write_begin(&t->seq);
		stats_map_ids(t, cfg, old);
		add_records(t, own, false);
		stats_map_ids(t, cfg, NULL);
		stats_seq_write_end(&t->seq);
	}
	/* Rules gone, or a reload since: for the last line only. */
	for (i = 0; i < own[STATS_RULES].n; i++)
		if (own[STATS_RULES].by_id[i] != NULL)
			stats_add_words((volatile uint64_t *)stats_retired(),
			    own[STATS_RULES].by_id[i],
			    WORDS(struct stats_rule));
}
