/*
 * master_carry.c - the counters across a binary upgrade (master_carry.h).
 * The old image describes its rules' and backends' names and counts;
 * the new one rebuilds a stand-in configuration of just those names and
 * stat ids, which stats_carry() maps to its own as a reload's table
 * maps the one before.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "master_carry.h"
#include "route.h"
#include "rule.h"
#include "stats.h"
#include "upstream.h"

/*
 * What the new image read: the stand-in, and the records of each kind
 * by old id: the totals a reader saw ("scount") and the old newest
 * table's own sums ("sown"), at the description.
 */
static struct {
	struct conf            cfg;
	struct stats_records   counts[STATS_KINDS];
	struct stats_records   own[STATS_KINDS];
	bool                   broken;	/* out of memory: nothing carried */
} in;

/*
 * A kind's letter in the description: a rule's counters, a backend's,
 * then their histograms (records of their own since issue 40).
 */
static const char kind_letters[STATS_KINDS + 1] = "rbRB";

/*
 * The layout before the histograms were apart (the build before this
 * one): a rule's record was its first 28 counters, its five histograms,
 * then 9 more counters; a backend's, its 9 counters then its four
 * histograms.  Its records are split into ours.
 */
#define OLD_RULE_SIZE		6016
#define OLD_RULE_HEAD		28
#define OLD_RULE_COUNTERS	37
#define OLD_RULE_HISTS		5
#define OLD_BACKEND_SIZE	4672
#define OLD_BACKEND_COUNTERS	9
#define OLD_BACKEND_HISTS	4

/*
 * Those sizes are the counters and histograms (struct hist has not
 * changed since), to the 64 bytes the records were aligned to; and
 * ours hold what is split into them.
 */
#define OLD_SIZE(counters, hists)	(((counters) * sizeof(uint64_t) + \
    (hists) * sizeof(struct hist) + 63) & ~(size_t)63)
_Static_assert(OLD_RULE_SIZE == OLD_SIZE(OLD_RULE_COUNTERS, OLD_RULE_HISTS),
    "a rule's record before: its counters and five histograms");
_Static_assert(OLD_BACKEND_SIZE == OLD_SIZE(OLD_BACKEND_COUNTERS,
    OLD_BACKEND_HISTS), "a backend's record before: 9 counters, 4 "
    "histograms");
_Static_assert(OLD_RULE_HEAD <= OLD_RULE_COUNTERS &&
    OLD_RULE_COUNTERS * sizeof(uint64_t) <= sizeof(struct stats_rule) &&
    OLD_BACKEND_COUNTERS * sizeof(uint64_t) <=
    sizeof(struct stats_backend), "the old counters fit in ours");
_Static_assert(OLD_RULE_HISTS * sizeof(struct hist) <=
    sizeof(struct stats_rule_hist) && OLD_BACKEND_HISTS *
    sizeof(struct hist) <= sizeof(struct stats_backend_hist),
    "the old histograms fit in ours");

void
master_hex_put(FILE *f, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t               i;

	for (i = 0; i < len; i++)
		fprintf(f, "%02x", b[i]);
	if (len == 0)
		fputc('-', f);
}

int
master_hex_get(const char *s, void *p, size_t len)
{
	unsigned char *b = p;
	unsigned       v;
	size_t         i;

	if (len == 0 && strcmp(s, "-") == 0)
		return 0;
	if (strlen(s) != 2 * len)
		return -1;
	for (i = 0; i < len; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		b[i] = (unsigned char)v;
	}
	return 0;
}

/* ---- the old image ---- */

static void
describe_rule(FILE *f, const struct rule *r)
{
	const struct backend *b;
	size_t                j;

	fprintf(f, "srule %u ", r->stat);
	master_hex_put(f, r->name, strlen(r->name));
	for (j = 0; j < r->nroutes; j++) {
		fprintf(f, "\nsroute %u ", r->routes[j].dest.stat);
		master_hex_put(f, r->routes[j].name,
		    strlen(r->routes[j].name));
	}
	for (j = 0; j < r->upstream.nbackends; j++) {
		b = &r->upstream.backends[j];
		fprintf(f, "\nsbackend %u %u ", b->stat, (unsigned)b->addr.len);
		master_hex_put(f, &b->addr.ss, b->addr.len);
		fputc(' ', f);
		master_hex_put(f, b->route, b->route != NULL ?
		    strlen(b->route) : 0);
	}
	fputc('\n', f);
}

static void
describe_count(FILE *f, const char *what, unsigned kind, size_t id,
    const void *c)
{
	fprintf(f, "%s %c %zu %zu ", what, kind_letters[kind], id,
	    stats_record_size(kind));
	master_hex_put(f, c, stats_record_size(kind));
	fputc('\n', f);
}

void
master_carry_describe(FILE *f, const struct conf *cfg)
{
	union stats_record	rec;
	size_t		i, n;
	unsigned	k;

	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].range_first == NULL)	/* a range: once */
			describe_rule(f, &cfg->rules[i]);
	for (k = 0; k < STATS_KINDS; k++) {
		n = stats_kind_is_rule(k) ? cfg->nrule_stats :
		    cfg->nbackend_stats;
		for (i = 0; i < n; i++) {
			if (stats_read(k, (unsigned)i, &rec))
				describe_count(f, "scount", k, i, &rec);
			if (stats_read_own(k, (unsigned)i, &rec, false))
				describe_count(f, "sown", k, i, &rec);
		}
	}
	/* The table itself: what its workers count after the exec. */
	if (stats_table_fd() != -1)
		fprintf(f, "stable %d\n", stats_table_fd());
}

/* ---- the new image ---- */

/* A string from hex, or NULL (and in.broken). */
static char *
unhex(const char *hex)
{
	size_t  len = strcmp(hex, "-") == 0 ? 0 : strlen(hex) / 2;
	char   *s = calloc(1, len + 1);

	if (s == NULL || master_hex_get(hex, s, len) == -1) {
		free(s);
		in.broken = true;
		return NULL;
	}
	return s;
}

/* Room for one more of n things of size at *v; a pointer to it, zeroed. */
static void *
grow(void *v, size_t *n, size_t size)
{
	char *p = realloc(*(char **)v, (*n + 1) * size);

	if (p == NULL) {
		in.broken = true;
		return NULL;
	}
	*(char **)v = p;
	memset(p + *n * size, 0, size);
	return p + (*n)++ * size;
}

/* Record id of recs, of size bytes at c (taken: freed by free_counts). */
static void
put_record(struct stats_records *recs, size_t id, void *c)
{
	while (recs->n <= id && !in.broken)
		if (grow(&recs->by_id, &recs->n, sizeof(void *)) == NULL)
			break;
	if (in.broken) {
		free(c);
		return;
	}
	free(recs->by_id[id]);
	recs->by_id[id] = c;
}

/*
 * Room for a record of size bytes, aligned as the counters' structs
 * are (their gauges are written in place), or NULL (and in.broken).
 */
static void *
new_record(size_t size)
{
	void *c;

	if (posix_memalign(&c, _Alignof(union stats_record), size) != 0) {
		in.broken = true;
		return NULL;
	}
	return c;
}

/* A copy of size bytes at from, or NULL (and in.broken). */
static void *
dup_record(const void *from, size_t size)
{
	void *c = new_record(size);

	if (c != NULL)
		memcpy(c, from, size);
	return c;
}

/*
 * A record of the layout before (OLD_*), of a rule or a backend: its
 * counters and its histograms as two records of ours.
 */
static void
put_old_record(struct stats_records *recs, bool rule, size_t id,
    const uint64_t *old)
{
	union stats_record	c, h;
	size_t		head = rule ? OLD_RULE_HEAD : OLD_BACKEND_COUNTERS;
	size_t		counters = rule ? OLD_RULE_COUNTERS :
	    OLD_BACKEND_COUNTERS;
	size_t		hists = (rule ? OLD_RULE_HISTS : OLD_BACKEND_HISTS) *
	    sizeof(struct hist);
	unsigned	k = rule ? STATS_RULES : STATS_BACKENDS;
	unsigned	hk = rule ? STATS_RULE_HISTS : STATS_BACKEND_HISTS;

	memset(&c, 0, sizeof(c));
	memset(&h, 0, sizeof(h));
	memcpy(&c, old, head * sizeof(uint64_t));
	memcpy(&h, old + head, hists);
	memcpy((uint64_t *)(void *)&c + head, (const char *)(old + head) +
	    hists, (counters - head) * sizeof(uint64_t));
	put_record(&recs[k], id, dup_record(&c, stats_record_size(k)));
	put_record(&recs[hk], id, dup_record(&h, stats_record_size(hk)));
}

/* A record of kind k for id, of size bytes in hex: ours, or the old. */
static void
take_record(struct stats_records *recs, unsigned k, size_t id, size_t size,
    const char *hex)
{
	uint64_t	*c;
	bool		 old = (k == STATS_RULES && size == OLD_RULE_SIZE) ||
	    (k == STATS_BACKENDS && size == OLD_BACKEND_SIZE);

	if (size != stats_record_size(k) && !old)
		return;		/* another layout: not carried */
	if ((c = new_record(size)) == NULL)
		return;
	if (master_hex_get(hex, c, size) == -1)
		free(c);
	else if (!old)
		put_record(&recs[k], id, c);
	else {
		put_old_record(recs, k == STATS_RULES, id, c);
		free(c);
	}
}

static void
take_backend(struct rule *r, unsigned stat, unsigned len, const char *addr,
    const char *route)
{
	struct backend *b;

	if ((b = grow(&r->upstream.backends, &r->upstream.nbackends,
	    sizeof(*b))) == NULL)
		return;
	b->stat = stat;
	if (len > sizeof(b->addr.ss) ||
	    master_hex_get(addr, &b->addr.ss, len) == -1) {
		b->stat = (unsigned)-1;	/* maps to nothing */
		return;
	}
	b->addr.len = len;
	if (strcmp(route, "-") != 0)
		b->route = unhex(route);
}

/*
 * "scount KIND ID SIZE HEX" (what a reader saw) or "sown ..." (the
 * newest table's own columns): kept if its layout is ours or the one
 * before.
 */
static void
take_scount(const char *line)
{
	char		 kind, what[8];
	const char	*k;
	size_t		 id, size;
	int		 off = 0;
	bool		 own;

	if (sscanf(line, "%7s %c %zu %zu %n", what, &kind, &id, &size,
	    &off) != 4 || off == 0 || id >= (1u << 24) || kind == '\0' ||
	    (k = strchr(kind_letters, kind)) == NULL)
		return;
	own = strcmp(what, "sown") == 0;
	take_record(own ? in.own : in.counts, (unsigned)(k - kind_letters),
	    id, size, line + off);
}

bool
master_carry_line(char *line)
{
	struct rule  *r = in.cfg.nrules > 0 ?
	    &in.cfg.rules[in.cfg.nrules - 1] : NULL;
	struct route *rt;
	char          a[600], b[600];
	unsigned      stat, len;

	if (line[0] != 's' || (strncmp(line, "srule ", 6) != 0 &&
	    strncmp(line, "sroute ", 7) != 0 &&
	    strncmp(line, "sbackend ", 9) != 0 &&
	    strncmp(line, "scount ", 7) != 0 &&
	    strncmp(line, "sown ", 5) != 0))
		return false;
	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "srule %u %599s", &stat, a) == 2) {
		if ((r = grow(&in.cfg.rules, &in.cfg.nrules,
		    sizeof(*r))) != NULL) {
			r->stat = stat;
			r->name = unhex(a);
		}
	} else if (sscanf(line, "sroute %u %599s", &stat, a) == 2) {
		if (r != NULL && (rt = grow(&r->routes, &r->nroutes,
		    sizeof(*rt))) != NULL) {
			rt->dest.stat = stat;
			rt->name = unhex(a);
		}
	} else if (sscanf(line, "sbackend %u %u %599s %599s", &stat, &len,
	    a, b) == 4) {
		if (r != NULL)
			take_backend(r, stat, len, a, b);
	} else
		take_scount(line);
	return true;
}

/* Records by id, freed. */
static void
free_counts(struct stats_records *recs)
{
	size_t i;

	for (i = 0; i < recs->n; i++)
		free(recs->by_id[i]);
	free(recs->by_id);
	recs->by_id = NULL;
	recs->n = 0;
}

void
master_carry_done(const struct conf *cfg)
{
	unsigned k;

	if (!in.broken && in.cfg.nrules > 0) {
		stats_carry(cfg, &in.cfg, in.counts);
		stats_carried();
	}
	for (k = 0; k < STATS_KINDS; k++)
		free_counts(&in.counts[k]);
}

void
master_carry_end(const struct conf *cfg)
{
	struct rule *r;
	size_t       i, j;
	unsigned     k;

	if (!in.broken && in.cfg.nrules > 0)
		stats_adopt_end(cfg, &in.cfg, in.own);
	for (i = 0; i < in.cfg.nrules; i++) {
		r = &in.cfg.rules[i];
		free(r->name);
		for (j = 0; j < r->nroutes; j++)
			free(r->routes[j].name);
		free(r->routes);
		for (j = 0; j < r->upstream.nbackends; j++)
			free((char *)r->upstream.backends[j].route);
		free(r->upstream.backends);
	}
	free(in.cfg.rules);
	for (k = 0; k < STATS_KINDS; k++)
		free_counts(&in.own[k]);
	memset(&in, 0, sizeof(in));
}
