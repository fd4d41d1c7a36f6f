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

void
master_carry_describe(FILE *f, const struct conf *cfg)
{
	struct stats_rule    rc;
	struct stats_backend bc;
	size_t               i;

	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].range_first == NULL)	/* a range: once */
			describe_rule(f, &cfg->rules[i]);
	for (i = 0; i < cfg->nrule_stats; i++)
		if (stats_read_rule((unsigned)i, &rc)) {
			fprintf(f, "scount r %zu %zu ", i, sizeof(rc));
			master_hex_put(f, &rc, sizeof(rc));
			fputc('\n', f);
		}
	for (i = 0; i < cfg->nbackend_stats; i++)
		if (stats_read_backend((unsigned)i, &bc)) {
			fprintf(f, "scount b %zu %zu ", i, sizeof(bc));
			master_hex_put(f, &bc, sizeof(bc));
			fputc('\n', f);
		}
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

/* "scount KIND ID SIZE HEX": a count, kept if its layout is ours. */
static void
take_scount(const char *line)
{
	char    kind;
	size_t  id, size;
	int     off = 0;

	if (sscanf(line, "scount %c %zu %zu %n", &kind, &id, &size,
	    &off) != 3 || off == 0 || id >= (1u << 24))
		return;
	if (kind == 'r' && size == sizeof(struct stats_rule))
		take_count(&in.rules, &in.nrules, id, size, line + off);
	else if (kind == 'b' && size == sizeof(struct stats_backend))
		take_count(&in.backends, &in.nbackends, id, size, line + off);
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
	    strncmp(line, "scount ", 7) != 0))
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

void
master_carry_done(const struct conf *cfg)
{
	struct rule *r;
	size_t       i, j;

	if (!in.broken && in.cfg.nrules > 0)
		stats_carry(cfg, &in.cfg, in.rules, in.nrules, in.backends,
		    in.nbackends);
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
	for (i = 0; i < in.nrules; i++)
		free(in.rules[i]);
	free(in.rules);
	for (i = 0; i < in.nbackends; i++)
		free(in.backends[i]);
	free(in.backends);
	memset(&in, 0, sizeof(in));
}
