/*
 * conf_compare.c - what a reload asks of two configurations: whether
 * their backends are the same, whether they have the same shape (so that
 * backends can move in place, master_resolve.c), and the map that finds
 * a new rule's old self by its protocol and listen address.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "addr.h"
#include "conf.h"
#include "conf_schema.h"
#include "route.h"
#include "rule.h"
#include "upstream.h"

bool
conf_same_backends(const struct conf *a, const struct conf *b)
{
	const struct upstream	*ua, *ub;
	size_t			 i, j;

	if (a->nrules != b->nrules)
		return false;
	for (i = 0; i < a->nrules; i++) {
		ua = &a->rules[i].upstream;
		ub = &b->rules[i].upstream;
		if (ua->nbackends != ub->nbackends ||
		    !addr_equal(&a->rules[i].listen_addr,
		    &b->rules[i].listen_addr))
			return false;
		for (j = 0; j < ua->nbackends; j++)
			if (!addr_equal(&ua->backends[j].addr,
			    &ub->backends[j].addr) ||
			    !backend_same_route(&ua->backends[j],
			    &ub->backends[j]))
				return false;
	}
	return true;
}

/*
 * Whether a backend of rule rb may take ba's place by its address alone:
 * what was derived from the address (the source address's family, a
 * Maglev table built from the addresses) stays right.
 */
static bool
same_slot(const struct rule *ra, const struct backend *ba,
    const struct backend *bb)
{
	return rule_dest_of(ra, ba)->upstream.balance != BALANCE_HASH &&
	    ba->addr.ss.ss_family == bb->addr.ss.ss_family &&
	    conf_source_addr_same(ba->pool, bb->pool);
}

bool
conf_same_shape(const struct conf *a, const struct conf *b)
{
	const struct rule	*ra, *rb;
	size_t			 i, j;

	if (a->nrules != b->nrules || a->nbackends != b->nbackends)
		return false;
	for (i = 0; i < a->nrules; i++) {
		ra = &a->rules[i];
		rb = &b->rules[i];
		if (ra->upstream.nbackends != rb->upstream.nbackends ||
		    !addr_equal(&ra->listen_addr, &rb->listen_addr))
			return false;
		if (ra->nroutes != rb->nroutes)
			return false;
		for (j = 0; j < ra->upstream.nbackends; j++)
			if (!same_slot(ra, &ra->upstream.backends[j],
			    &rb->upstream.backends[j]) ||
			    !backend_same_route(&ra->upstream.backends[j],
			    &rb->upstream.backends[j]))
				return false;
	}
	return true;
}

struct rule_map {
	const struct rule	**v;
	size_t			  n;
};

/* Protocol, then the listen address's family, port and host. */
static int
rule_cmp(const struct rule *a, const struct rule *b)
{
	const struct sockaddr		*x = (const void *)&a->listen_addr.ss;
	const struct sockaddr		*y = (const void *)&b->listen_addr.ss;
	const struct sockaddr_in6	*x6 = (const void *)x, *y6 = (const void *)y;
	const struct sockaddr_in	*x4 = (const void *)x, *y4 = (const void *)y;

	if (a->protocol != b->protocol)
		return a->protocol < b->protocol ? -1 : 1;
	if (x->sa_family != y->sa_family)
		return x->sa_family < y->sa_family ? -1 : 1;
	if (addr_port(x) != addr_port(y))
		return addr_port(x) < addr_port(y) ? -1 : 1;
	if (x->sa_family == AF_INET6)
		return memcmp(&x6->sin6_addr, &y6->sin6_addr,
		    sizeof(x6->sin6_addr));
	if (x->sa_family == AF_INET)
		return memcmp(&x4->sin_addr, &y4->sin_addr,
		    sizeof(x4->sin_addr));
	/* Unix: the path or abstract name, as long as its length says. */
	if (a->listen_addr.len != b->listen_addr.len)
		return a->listen_addr.len < b->listen_addr.len ? -1 : 1;
	return memcmp(&a->listen_addr.ss, &b->listen_addr.ss,
	    a->listen_addr.len);
}

static int
rule_ptr_cmp(const void *a, const void *b)
{
	return rule_cmp(*(const struct rule *const *)a,
	    *(const struct rule *const *)b);
}

struct rule_map *
conf_rule_map_new(const struct conf *cfg)
{
	struct rule_map	*map;
	size_t		 i;

	if ((map = calloc(1, sizeof(*map))) == NULL ||
	    (map->v = calloc(cfg->nrules + 1, sizeof(*map->v))) == NULL) {
		free(map);
		return NULL;
	}
	for (i = 0; i < cfg->nrules; i++)
		map->v[i] = &cfg->rules[i];
	map->n = cfg->nrules;
	qsort(map->v, map->n, sizeof(*map->v), rule_ptr_cmp);
	return map;
}

const struct rule *
conf_rule_map_find(const struct rule_map *map, const struct rule *like)
{
	size_t	lo = 0, hi = map != NULL ? map->n : 0, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = rule_cmp(map->v[mid], like)) == 0)
			return map->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void
conf_rule_map_free(struct rule_map *map)
{
	if (map != NULL)
		free(map->v);
	free(map);
}
