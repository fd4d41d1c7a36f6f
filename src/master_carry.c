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

/* What the new image read: the stand-in and the counts by old id. */
static struct {
	struct conf            cfg;
	struct stats_rule    **rules;
	size_t                 nrules;
	struct stats_backend **backends;
	size_t                 nbackends;
	/* The old newest table's own sums at the description ("sown"). */
	struct stats_rule    **own_rules;
	size_t                 nown_rules;
	struct stats_backend **own_backends;
	size_t                 nown_backends;
	bool                   broken;	/* out of memory: nothing carried */
} in;

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
describe_count(FILE *f, const char *what, size_t id, const void *c,
    size_t size)
{
	fprintf(f, "%s %zu %zu ", what, id, size);
	master_hex_put(f, c, size);
	fputc('\n', f);
}

void
master_carry_describe(FILE *f, const struct conf *cfg)
{
	struct stats_rule    rc;
	struct stats_backend bc;
	size_t               i;

	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].range_first == NULL)	/* a range: once */
			describe_rule(f, &cfg->rules[i]);
	for (i = 0; i < cfg->nrule_stats; i++) {
		if (stats_read_rule((unsigned)i, &rc))
			describe_count(f, "scount r", i, &rc, sizeof(rc));
		if (stats_read_own(true, (unsigned)i, &rc, false))
			describe_count(f, "sown r", i, &rc, sizeof(rc));
	}
	for (i = 0; i < cfg->nbackend_stats; i++) {
		if (stats_read_backend((unsigned)i, &bc))
			describe_count(f, "scount b", i, &bc, sizeof(bc));
		if (stats_read_own(false, (unsigned)i, &bc, false))
			describe_count(f, "sown b", i, &bc, sizeof(bc));
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

/* A count of id (out of *n ids at *v) of size bytes in hex. */
static void
take_count(void *v, size_t *n, size_t id, size_t size, const char *hex)
{
	void  ***slots = v;
	void    *c;

	while (*n <= id && !in.broken)
		if (grow(slots, n, sizeof(void *)) == NULL)
			return;
	if (in.broken || (c = malloc(size)) == NULL ||
	    master_hex_get(hex, c, size) == -1) {
		free(in.broken ? NULL : c);
		return;	/* another layout, or no memory: not carried */
	}
	free((*slots)[id]);
	(*slots)[id] = c;
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
 * newest table's own columns): kept if its layout is ours.
 */
static void
take_scount(const char *line)
{
	char    kind, what[8];
	size_t  id, size;
	int     off = 0;
	bool    own;

	if (sscanf(line, "%7s %c %zu %zu %n", what, &kind, &id, &size,
	    &off) != 4 || off == 0 || id >= (1u << 24))
		return;
	own = strcmp(what, "sown") == 0;
	if (kind == 'r' && size == sizeof(struct stats_rule))
		take_count(own ? &in.own_rules : &in.rules, own ?
		    &in.nown_rules : &in.nrules, id, size, line + off);
	else if (kind == 'b' && size == sizeof(struct stats_backend))
		take_count(own ? &in.own_backends : &in.backends, own ?
		    &in.nown_backends : &in.nbackends, id, size, line + off);
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

/* Counts by id, freed. */
static void
free_counts(void *v, size_t *n)
{
	void ***slots = v;
	size_t  i;

	for (i = 0; i < *n; i++)
		free((*slots)[i]);
	free(*slots);
	*slots = NULL;
	*n = 0;
}

void
master_carry_done(const struct conf *cfg)
{
	if (!in.broken && in.cfg.nrules > 0) {
		stats_carry(cfg, &in.cfg, in.rules, in.nrules, in.backends,
		    in.nbackends);
		stats_carried();
	}
	free_counts(&in.rules, &in.nrules);
	free_counts(&in.backends, &in.nbackends);
}

void
master_carry_end(const struct conf *cfg)
{
	struct rule *r;
	size_t       i, j;

	if (!in.broken && in.cfg.nrules > 0)
		stats_adopt_end(cfg, &in.cfg, in.own_rules, in.nown_rules,
		    in.own_backends, in.nown_backends);
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
	free_counts(&in.own_rules, &in.nown_rules);
	free_counts(&in.own_backends, &in.nown_backends);
	memset(&in, 0, sizeof(in));
}
