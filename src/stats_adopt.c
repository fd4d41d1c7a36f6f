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

void
stats_carry(const struct conf *cfg, const struct conf *old,
    struct stats_rule *const *rules, size_t nrules,
    struct stats_backend *const *backends, size_t nbackends)
{
	struct stats_table	*t = stats_table_current();
	size_t			 i, base;
	int32_t			 o;

	if (t == NULL || t->prev != NULL)
		return;		/* the first table only, before workers */
	stats_map_ids(t, cfg, old);
	for (i = 0, base = (size_t)t->slots * t->nrules; i < t->nrules; i++)
		if ((o = t->rule_map[i]) >= 0 && (size_t)o < nrules &&
		    rules[o] != NULL) {
			stats_no_gauges_rule(rules[o]);
			stats_add_words((volatile uint64_t *)
			    &t->rules[base + i], (const volatile uint64_t *)
			    rules[o], WORDS(struct stats_rule));
			stats_sub_words((volatile uint64_t *)stats_retired(),
			    (const volatile uint64_t *)rules[o],
			    WORDS(struct stats_rule));
		}
	for (i = 0, base = (size_t)t->slots * t->nbackends; i < t->nbackends;
	    i++)
		if ((o = t->backend_map[i]) >= 0 && (size_t)o < nbackends &&
		    backends[o] != NULL) {
			backends[o]->active = 0;
			stats_add_words((volatile uint64_t *)
			    &t->backends[base + i], (const volatile uint64_t *)
			    backends[o], WORDS(struct stats_backend));
		}
	/* No table before: readers never look at the maps. */
	stats_map_ids(t, cfg, NULL);
}

/* p, a pointer of the old image's into its table at from, made ours. */
static void *
rebase(const void *p, const char *from, char *to, size_t size, size_t len)
{
	size_t off = (size_t)((const char *)p - from);

	return off <= size && len <= size - off ? to + off : NULL;
}

int
stats_adopt(int fd)
{
	const struct stats_table *t;
	struct stat               st;
	const char               *from;
	char                     *p;
	size_t                    size, nr, nb, slots;

	if (fstat(fd, &st) == -1 || st.st_size < (off_t)sizeof(*t) ||
	    (p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd,
	    0)) == MAP_FAILED)
		return -1;
	t = (const void *)p;
	size = (size_t)st.st_size;
	adopted = *t;
	adopted.shm = NULL;	/* the old image's pointer: every page read */
	nr = t->nrules;
	nb = t->nbackends;
	slots = t->slots > 0 && t->slots <= 4096 ? (size_t)t->slots : 0;
	/* Where the old image had it: its maps follow the header. */
	from = (const char *)t->rule_map - stats_align_up(sizeof(*t));
	adopted.rules = rebase(t->rules, from, p, size, (slots + 1) * nr *
	    sizeof(struct stats_rule));
	adopted.backends = rebase(t->backends, from, p, size, (slots + 1) *
	    nb * sizeof(struct stats_backend));
	adopted.prev = NULL;
	adopted.prev_alive = 0;
	/*
	 * Counters of another size (an image before fields were added):
	 * its rules' stride is not ours, and the backends say so.
	 */
	if (t->size != size || slots == 0 || nr > size || nb > size ||
	    adopted.rules == NULL || adopted.backends == NULL ||
	    (size_t)((const char *)t->backends - (const char *)t->rules) !=
	    stats_align_up((slots + 1) * nr * sizeof(struct stats_rule))) {
		munmap(p, size);	/* another layout: not read */
		errno = EPROTO;		/* told as such by the caller */
		return -1;
	}
	adopted_map = p;
	return 0;
}

bool
stats_read_own(bool rule, unsigned id, void *out, bool adopted_table)
{
	const struct stats_table *t = adopted_table ? &adopted :
	    stats_table_current();
	size_t                    words = rule ? WORDS(struct stats_rule) :
	    WORDS(struct stats_backend);

	if (t == NULL || (adopted_table && adopted_map == NULL) ||
	    id >= (rule ? t->nrules : t->nbackends))
		return false;
	/* No fold runs meanwhile: folds are the reading master's. */
	memset(out, 0, words * sizeof(uint64_t));
	stats_add_own(t, rule ? RULES : BACKENDS, id, 0, words, out);
	return true;
}

void
stats_carried(void)
{
	carried_into = stats_table_current();
}

void
stats_adopt_end(const struct conf *cfg, const struct conf *old,
    struct stats_rule *const *rules, size_t nrules,
    struct stats_backend *const *backends, size_t nbackends)
{
	struct stats_rule	 r;
	struct stats_backend	 b;
	struct stats_table	*t = stats_table_current();
	size_t			 i, base;
	int32_t			 o;
	bool			 ours = t != NULL && t == carried_into &&
	    adopted_map != NULL;

	if (adopted_map == NULL)
		return;
	/* Since the description: the counts made after it. */
	for (i = 0; i < nrules; i++)
		if (rules[i] != NULL && stats_read_own(true, (unsigned)i, &r,
		    true)) {
			stats_sub_words((volatile uint64_t *)&r,
			    (const volatile uint64_t *)rules[i],
			    WORDS(struct stats_rule));
			stats_no_gauges_rule(&r);
			*rules[i] = r;
		}
	for (i = 0; i < nbackends; i++)
		if (backends[i] != NULL && stats_read_own(false, (unsigned)i,
		    &b, true)) {
			stats_sub_words((volatile uint64_t *)&b,
			    (const volatile uint64_t *)backends[i],
			    WORDS(struct stats_backend));
			b.active = 0;
			*backends[i] = b;
		}
	munmap(adopted_map, adopted.size);
	adopted_map = NULL;
	if (ours) {
		stats_seq_write_begin(&t->seq);
		stats_map_ids(t, cfg, old);
		for (i = 0, base = (size_t)t->slots * t->nrules;
		    i < t->nrules; i++)
			if ((o = t->rule_map[i]) >= 0 && (size_t)o < nrules &&
			    rules[o] != NULL) {
				stats_add_words((volatile uint64_t *)
				    &t->rules[base + i], (const volatile
				    uint64_t *)rules[o],
				    WORDS(struct stats_rule));
				memset(rules[o], 0, sizeof(*rules[o]));
			}
		for (i = 0, base = (size_t)t->slots * t->nbackends;
		    i < t->nbackends; i++)
			if ((o = t->backend_map[i]) >= 0 &&
			    (size_t)o < nbackends && backends[o] != NULL)
				stats_add_words((volatile uint64_t *)
				    &t->backends[base + i], (const volatile
				    uint64_t *)backends[o],
				    WORDS(struct stats_backend));
		stats_map_ids(t, cfg, NULL);
		stats_seq_write_end(&t->seq);
	}
	/* Rules gone, or a reload since: for the last line only. */
	for (i = 0; i < nrules; i++)
		if (rules[i] != NULL)
			stats_add_words((volatile uint64_t *)stats_retired(),
			    (const volatile uint64_t *)rules[i],
			    WORDS(struct stats_rule));
}
