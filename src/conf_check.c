/*
 * conf_check.c - the checks across a file's rules, once each is parsed:
 * no two rules on one address (a dual-stack [::] overlapping 0.0.0.0),
 * no two with one name, no rule whose connections come back to it
 * through the others, stats_listen on no rule's address, accept_proxy
 * not trusting any peer's header where it matters.  A port range makes
 * thousands of rules, so rules are found through an index by protocol
 * and port, never by comparing every pair.  The map of one config's rules by protocol and listen
 * address, which a reload uses to find a rule's counterpart, is here
 * for the same reason.
 */
#include "ferryd.h"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "conf.h"
#include "conf_schema.h"
#include "route.h"
#include "rule.h"
#include "upstream.h"

/* [::]:port with ipv6_only = false, which takes IPv4 connections too. */
static bool
listens_dual_stack(const struct rule *r)
{
	const struct sockaddr_in6	*sin6 = (const void *)&r->listen_addr.ss;

	return sin6->sin6_family == AF_INET6 && !r->ipv6_only &&
	    IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr);
}

static bool
listens_any_ipv4(const struct rule *r)
{
	const struct sockaddr_in	*sin = (const void *)&r->listen_addr.ss;

	return sin->sin_family == AF_INET &&
	    sin->sin_addr.s_addr == htonl(INADDR_ANY);
}

/* A dual-stack [::]:port and 0.0.0.0:port would share IPv4 clients. */
static bool
listens_overlap(const struct rule *a, const struct rule *b)
{
	const struct sockaddr	*sa = (const void *)&a->listen_addr.ss;
	const struct sockaddr	*sb = (const void *)&b->listen_addr.ss;

	return addr_port(sa) == addr_port(sb) &&
	    ((listens_dual_stack(a) && listens_any_ipv4(b)) ||
	    (listens_dual_stack(b) && listens_any_ipv4(a)));
}

/*
 * The rules in order of protocol and listen port, to find those that
 * listen on a port without looking at every rule: a port range makes
 * thousands of rules.
 */
struct port_index {
	const struct rule	*rules;
	size_t			*order;
	size_t			 n;
};

static const struct rule *sorting;	/* qsort() has no argument for it */

static unsigned
listen_port(const struct rule *r)
{
	return addr_port((const void *)&r->listen_addr.ss);
}

static int
by_protocol_port(const void *pa, const void *pb)
{
	const struct rule	*a = &sorting[*(const size_t *)pa];
	const struct rule	*b = &sorting[*(const size_t *)pb];

	if (a->protocol != b->protocol)
		return a->protocol < b->protocol ? -1 : 1;
	if (listen_port(a) != listen_port(b))
		return listen_port(a) < listen_port(b) ? -1 : 1;
	/* File order within: the later of two rules is the one to blame. */
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static int
port_index_make(struct port_index *pi, const struct rule *rules, size_t n)
{
	size_t	i;

	pi->rules = rules;
	pi->n = n;
	if ((pi->order = calloc(n, sizeof(*pi->order))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		pi->order[i] = i;
	sorting = rules;
	qsort(pi->order, n, sizeof(*pi->order), by_protocol_port);
	return 0;
}

/* Where the rules of protocol on port start in pi->order; *end: past them. */
static size_t
port_index_find(const struct port_index *pi, int protocol, unsigned port,
    size_t *end)
{
	size_t			 lo = 0, hi = pi->n, mid;
	const struct rule	*r;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = &pi->rules[pi->order[mid]];
		if (r->protocol < protocol || (r->protocol == protocol &&
		    listen_port(r) < port))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (*end = lo; *end < pi->n; (*end)++) {
		r = &pi->rules[pi->order[*end]];
		if (r->protocol != protocol || listen_port(r) != port)
			break;
	}
	return lo;
}

/* Two rules listening on one address would split its connections. */
static int
check_unique(struct conf_loader *ld, const config_setting_t *list,
    const struct port_index *pi)
{
	const struct rule	*a, *b;
	size_t			 i, j, end;

	for (i = 0; i < pi->n; i = end) {
		a = &pi->rules[pi->order[i]];
		(void)port_index_find(pi, a->protocol, listen_port(a), &end);
		/* TCP and UDP on one port are two listeners: not here. */
		for (; i < end; i++)
			for (j = i + 1; j < end; j++) {
				a = &pi->rules[pi->order[i]];
				b = &pi->rules[pi->order[j]];
				if (addr_equal(&a->listen_addr, &b->listen_addr))
					return conf_fail(ld,
					    config_setting_get_elem(list,
					    (unsigned)b->elem), "listen address "
					    "\"%s\" is already used by the rule "
					    "at line %d", b->listen, a->line);
				if (listens_overlap(a, b))
					return conf_fail(ld,
					    config_setting_get_elem(list,
					    (unsigned)b->elem), "listen address "
					    "\"%s\" overlaps \"%s\" of the rule at "
					    "line %d: an IPv6 listener with "
					    "ipv6_only = false takes IPv4 "
					    "connections too", b->listen,
					    a->listen, a->line);
			}
	}
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	const struct rule *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	/* Equal names: in file order, so the later one is reported. */
	return c != 0 ? c : ((*x)->elem > (*y)->elem) - ((*x)->elem < (*y)->elem);
}

/* No two rules (a range counts once) of one name: it labels their counters. */
static int
check_names(struct conf_loader *ld, const config_setting_t *list,
    const struct rule *rules, size_t n)
{
	const struct rule	**v;
	size_t			  i, k = 0;
	int			  rc = 0;

	if ((v = malloc((n > 0 ? n : 1) * sizeof(*v))) == NULL)
		return conf_fail(ld, list, "out of memory");
	for (i = 0; i < n; i++)
		if (rules[i].range_first == NULL)
			v[k++] = &rules[i];
	qsort(v, k, sizeof(*v), by_name);
	for (i = 1; i < k && rc == 0; i++)
		if (strcmp(v[i - 1]->name, v[i]->name) == 0)
			rc = conf_fail(ld, config_setting_get_elem(list,
			    (unsigned)v[i]->elem), "rule name \"%s\" is "
			    "already that of the rule at line %d%s", v[i]->name,
			    v[i - 1]->line, v[i]->name_given &&
			    v[i - 1]->name_given ? "" : " (a rule without a "
			    "name is named by its listen address)");
	free(v);
	return rc;
}

enum { UNVISITED, ON_PATH, DONE };

/*
 * Finding rules that forward to themselves, directly or through others:
 * a connection would be forwarded round until file descriptors run out.
 */
struct loop_check {
	const struct rule *rules;
	size_t		   n;
	const struct port_index *index;
	struct ifaddrs	  *ifa;		/* this host's addresses, when needed */
	bool		   ifa_read;
	unsigned char	  *state;	/* UNVISITED, ON_PATH, DONE per rule */
	size_t		  *path;	/* the rules on the path, in order */
	size_t		   depth;
	size_t		   start;	/* where the loop found starts */
};

static bool
is_loopback(const struct sockaddr *sa)
{
	const struct sockaddr_in	*sin = (const void *)sa;
	const struct sockaddr_in6	*sin6 = (const void *)sa;

	if (sa->sa_family == AF_INET)
		return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	return sa->sa_family == AF_INET6 &&
	    (IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) ||
	    (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) &&
	    sin6->sin6_addr.s6_addr[12] == 127));
}

static bool
same_host(const struct sockaddr *a, const struct sockaddr *b)
{
	const struct sockaddr_in6	*a6 = (const void *)a;
	const struct sockaddr_in6	*b6 = (const void *)b;

	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)a)->
		    sin_addr.s_addr ==
		    ((const struct sockaddr_in *)(const void *)b)->
		    sin_addr.s_addr;
	return a->sa_family == AF_INET6 &&
	    IN6_ARE_ADDR_EQUAL(&a6->sin6_addr, &b6->sin6_addr);
}

/* Whether a wildcard listener of this host takes connections to sa. */
static bool
is_local(struct loop_check *lc, const struct sockaddr *sa)
{
	struct ifaddrs	*i;

	if (is_loopback(sa))
		return true;
	/* Without the list, only loopback is known to be local. */
	if (!lc->ifa_read && getifaddrs(&lc->ifa) == -1)
		lc->ifa = NULL;
	lc->ifa_read = true;
	for (i = lc->ifa; i != NULL; i = i->ifa_next)
		if (i->ifa_addr != NULL && same_host(i->ifa_addr, sa))
			return true;
	return false;
}

/* Whether rule r's listener takes a connection to backend address b. */
static bool
listener_takes(struct loop_check *lc, const struct rule *r,
    const struct sockaddr_any *b)
{
	const struct sockaddr	*sa = (const void *)&b->ss;

	if (addr_equal(&r->listen_addr, b))
		return true;
	if (addr_port((const void *)&r->listen_addr.ss) != addr_port(sa))
		return false;
	if (listens_any_ipv4(r) || listens_dual_stack(r))
		if (sa->sa_family == AF_INET)
			return is_local(lc, sa);
	if (r->listen_addr.ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)
	    (const void *)&r->listen_addr.ss)->sin6_addr))
		return sa->sa_family == AF_INET6 && is_local(lc, sa);
	return false;
}

/* The backend of a that reaches rule r, or NULL. */
static const struct backend *
forwards_to(struct loop_check *lc, const struct rule *a, const struct rule *r)
{
	size_t	i;

	if (a->connect_protocol != r->protocol)
		return NULL;	/* a's connections are not r's to take */
	for (i = 0; i < a->upstream.nbackends; i++)
		if (listener_takes(lc, r, &a->upstream.backends[i].addr))
			return &a->upstream.backends[i];
	return NULL;
}

/*
 * Depth first from rule i; true when a path comes back to itself.  Only
 * rules listening on the port of one of i's backends can be next.
 */
static bool
find_loop(struct loop_check *lc, size_t i)
{
	const struct rule	*a = &lc->rules[i];
	size_t			 b, k, end, j;

	lc->state[i] = ON_PATH;
	lc->path[lc->depth++] = i;
	for (b = 0; b < a->upstream.nbackends; b++)
		for (k = port_index_find(lc->index, a->connect_protocol,
		    addr_port((const void *)&a->upstream.backends[b].addr.ss),
		    &end); k < end; k++) {
			j = lc->index->order[k];
			if (lc->state[j] == DONE || !listener_takes(lc,
			    &lc->rules[j], &a->upstream.backends[b].addr))
				continue;
			if (lc->state[j] == ON_PATH) {
				lc->start = j;
				return true;
			}
			if (find_loop(lc, j))
				return true;
		}
	lc->state[i] = DONE;
	lc->depth--;
	return false;
}

/* Say which rules make the loop that starts at path[k]. */
static int
loop_error(struct loop_check *lc, struct conf_loader *ld,
    const config_setting_t *list, size_t k)
{
	const struct rule	*r = &lc->rules[lc->path[k]];
	const struct backend	*b;
	char			 lines[CONF_ERR_MAX / 2], addr[ADDR_STRLEN];
	size_t			 len = 0, i;

	if (k + 1 == lc->depth && (b = forwards_to(lc, r, r)) != NULL) {
		addr_format((const void *)&b->addr.ss, addr, sizeof(addr));
		return conf_fail(ld, config_setting_get_elem(list,
		    (unsigned)r->elem), "rule forwards to itself: connect \"%s\" (%s) reaches "
		    "its own listen address \"%s\"", r->connect, addr,
		    r->listen);
	}
	for (i = k; i < lc->depth && len < sizeof(lines); i++)
		len += snprintf(lines + len, sizeof(lines) - len, "line %d -> ",
		    lc->rules[lc->path[i]].line);
	if (len < sizeof(lines))
		snprintf(lines + len, sizeof(lines) - len, "line %d", r->line);
	return conf_fail(ld, config_setting_get_elem(list, (unsigned)r->elem),
	    "rules forward in a loop: %s (each connect reaches the next "
	    "rule's listen address)", lines);
}

/* Refuse rules whose connections would come back to them. */
static int
check_loops(struct conf_loader *ld, const config_setting_t *list,
    const struct port_index *pi)
{
	struct loop_check	lc;
	size_t			i, k, n = pi->n;
	int			rc = 0;

	memset(&lc, 0, sizeof(lc));
	lc.rules = pi->rules;
	lc.n = n;
	lc.index = pi;
	lc.state = calloc(n, sizeof(*lc.state));
	lc.path = calloc(n, sizeof(*lc.path));
	if (lc.state == NULL || lc.path == NULL)
		rc = conf_fail(ld, list, "out of memory");
	for (i = 0; rc == 0 && i < n; i++) {
		if (lc.state[i] != UNVISITED || !find_loop(&lc, i))
			continue;
		for (k = 0; lc.path[k] != lc.start; k++)
			;
		rc = loop_error(&lc, ld, list, k);
	}
	if (lc.ifa != NULL)
		freeifaddrs(lc.ifa);
	free(lc.state);
	free(lc.path);
	return rc;
}

/* A name that logs and control commands give: a rule's or a route's. */
struct named {
	const char		*name;	/* RULE, or RULE/ROUTE */
	const struct rule	*rule;
	const struct route	*route;	/* NULL: the rule itself */
	int			 line;
};

static int
by_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

/* How a message calls n: route "ROUTE" of rule "RULE", or rule "RULE". */
static void
say_named(char *buf, size_t len, const struct named *n)
{
	if (n->route != NULL)
		snprintf(buf, len, "route \"%s\" of rule \"%s\"",
		    n->route->name, n->rule->name);
	else
		snprintf(buf, len, "rule \"%s\"", n->rule->name);
}

/*
 * A route is called RULE/ROUTE in logs, in the access log and in control
 * commands (drain RULE/ROUTE/ADDRESS).  Rule names may hold '/', and so
 * may route names: each such name must still say one route or rule, so
 * rule "a" with route "b/c" and rule "a/b" with route "c" (both "a/b/c"),
 * or rule "a" with route "b" and a rule named "a/b", are refused.
 */
static int
check_route_names(struct conf_loader *ld, const struct rule *rules,
    size_t n)
{
	struct named	*v;
	char		 a[CONF_ERR_MAX / 2], b[CONF_ERR_MAX / 2];
	char		 msg[2 * CONF_ERR_MAX];
	size_t		 i, j, k = 0, total = 0;
	bool		 any = false;

	for (i = 0; i < n; i++)
		if (rules[i].range_first == NULL) {
			total += 1 + rules[i].nroutes;
			any |= rules[i].nroutes > 0;
		}
	if (!any)
		return 0;
	if ((v = malloc(total * sizeof(*v))) == NULL)
		return conf_fail(ld, NULL, "out of memory");
	for (i = 0; i < n; i++) {
		if (rules[i].range_first != NULL)
			continue;
		v[k++] = (struct named){ rules[i].name, &rules[i], NULL,
		    rules[i].line };
		for (j = 0; j < rules[i].nroutes; j++)
			v[k++] = (struct named){ rules[i].routes[j].dest.name,
			    &rules[i], &rules[i].routes[j],
			    rules[i].routes[j].line };
	}
	qsort(v, k, sizeof(*v), by_named);
	for (i = 1; i < k; i++)
		if (strcmp(v[i - 1].name, v[i].name) == 0 &&
		    (v[i - 1].route != NULL || v[i].route != NULL))
			break;
	if (i < k) {
		say_named(a, sizeof(a), &v[i]);
		say_named(b, sizeof(b), &v[i - 1]);
		snprintf(msg, sizeof(msg), "%s and %s (line %d) are both "
		    "called \"%s\" in logs and control commands (a route is "
		    "RULE/ROUTE): rename one", a, b, v[i - 1].line, v[i].name);
		conf_report(ld, (unsigned)v[i].line, msg);
	}
	free(v);
	return i < k ? -1 : 0;
}

int
conf_check_rules(struct conf_loader *ld, const config_setting_t *list,
    const struct conf *cfg)
{
	struct port_index	pi;
	int			rc;

	if (port_index_make(&pi, cfg->rules, cfg->nrules) == -1)
		return conf_fail(ld, list, "out of memory");
	rc = check_unique(ld, list, &pi);
	if (rc == 0)
		rc = check_names(ld, list, cfg->rules, cfg->nrules);
	if (rc == 0)
		rc = check_route_names(ld, cfg->rules, cfg->nrules);
	if (rc == 0)
		rc = check_loops(ld, list, &pi);
	free(pi.order);
	return rc;
}

/* An IP address that is all of its family's: 0.0.0.0 or [::]. */
static bool
addr_is_any(const struct sockaddr_any *a)
{
	const struct sockaddr_in	*sin = (const void *)&a->ss;
	const struct sockaddr_in6	*sin6 = (const void *)&a->ss;

	return (sin->sin_family == AF_INET &&
	    sin->sin_addr.s_addr == htonl(INADDR_ANY)) ||
	    (sin6->sin6_family == AF_INET6 &&
	    IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr));
}

/*
 * Whether TCP rule r's listening sockets hold stats_listen's address,
 * so that binding it fails: the same address, or the same port where one
 * of the two is a wildcard of the other's family (the stats socket is
 * IPv6-only; a rule's [::] with ipv6_only = false takes IPv4 too).
 */
static bool
stats_clashes(const struct rule *r, const struct sockaddr_any *st)
{
	const struct sockaddr_any	*l = &r->listen_addr;

	if (addr_equal(l, st))
		return true;
	if (addr_port((const void *)&l->ss) != addr_port((const void *)&st->ss))
		return false;
	if (l->ss.ss_family == st->ss.ss_family)
		return addr_is_any(l) || addr_is_any(st);
	return l->ss.ss_family == AF_INET6 && st->ss.ss_family == AF_INET &&
	    addr_is_any(l) && !r->ipv6_only;
}

/* stats_listen is not the address of a TCP rule, nor within it. */
int
conf_check_stats_listen(struct conf_loader *ld, const config_t *lc,
    const struct conf *cfg)
{
	size_t i;

	for (i = 0; cfg->stats_path != NULL && i < cfg->nrules; i++)
		if (addr_unix_path(&cfg->rules[i].listen_addr) != NULL &&
		    strcmp(addr_unix_path(&cfg->rules[i].listen_addr),
		    cfg->stats_path) == 0)
			return conf_fail(ld, config_lookup(lc, "stats_listen"),
			    "\"stats_listen\" \"%s\" is the socket of the "
			    "rule at line %d", cfg->stats_listen,
			    cfg->rules[i].line);
	if (cfg->stats_listen == NULL || cfg->stats_path != NULL)
		return 0;
	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].protocol == RULE_TCP &&
		    stats_clashes(&cfg->rules[i], &cfg->stats_addr))
			return conf_fail(ld, config_lookup(lc, "stats_listen"),
			    "\"stats_listen\" \"%s\" is taken by the listen "
			    "address \"%s\" of the rule at line %d",
			    cfg->stats_listen, cfg->rules[i].listen,
			    cfg->rules[i].line);
	return 0;
}

/*
 * With accept_proxy, allow and deny judge the client a header names; if
 * any peer may send a header, any peer may name an allowed client.  So
 * allow/deny (the rule's or the top level's) on such a rule needs
 * accept_proxy_from, which judges the peer itself.  So does transparent,
 * which would connect from whatever address a header names.  The top
 * level's do not apply to a Unix listener, which refuses the others.
 * "optional" believes no header without accept_proxy_from.
 */
int
conf_check_proxy_acl(struct conf_loader *ld, const config_t *lc,
    const struct conf *cfg)
{
	const struct rule	*r;
	size_t			 i;
	bool			 global = cfg->acl.nallow + cfg->acl.ndeny > 0;

	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		if (!r->accept_proxy || r->proxy_optional || r->range_first ||
		    r->accept_proxy_from.nallow + r->accept_proxy_from.ndeny > 0 ||
		    ((!global || r->listen_addr.ss.ss_family == AF_UNIX) &&
		    r->acl.nallow + r->acl.ndeny == 0 && !rule_any_transparent(r)))
			continue;
		return conf_fail(ld, config_setting_get_elem(config_lookup(lc,
		    "rules"), (unsigned)r->elem), rule_any_transparent(r) ?
		    "accept_proxy with transparent needs accept_proxy_from: "
		    "otherwise any peer could make ferryd connect from any "
		    "address it names in its PROXY header" :
		    "accept_proxy with allow or deny needs accept_proxy_from: "
		    "otherwise any peer could name an allowed client in its "
		    "PROXY header");
	}
	return 0;
}
