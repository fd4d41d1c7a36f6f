/*
 * conf_route.c - a rule's routes (route.h): each route's match keys
 * checked and compiled, its connect resolved like a rule's, its
 * backends gathered into the rule's upstream, and what it does not set
 * taken from its rule.  The syntax is ROUTES.md's (issue 25).
 */
#include "ferryd.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf_file.h"
#include "conf_schema.h"
#include "log.h"
#include "route.h"
#include "rule.h"
#include "upstream.h"

const char *const route_protocol_names[] = { "any", "tls", "ssh", "http",
    "openvpn", "socks5", "xmpp", "adb", "syslog", "msrdp", "wireguard",
    "teamspeak", "quic", NULL };
const char *const route_probes_names[] = { "strict", "sslh", NULL };

static conf_key_parser parse_route_protocol, parse_route_names,
    parse_route_regex, parse_route_connect, parse_route_source;

static conf_key_show show_route_names, show_route_connect, show_route_source;
static bool route_key_applies(const void *, const struct conf_key *);

static const struct conf_key route_keys[] = {
	{ "name", conf_parse_string, 0, 0, offsetof(struct route, name) },
	{ "protocol", parse_route_protocol, 0, 0,
	    offsetof(struct route, protocol), route_protocol_names,
	    conf_show_choice },
	{ "sni", parse_route_names, 1, 0, offsetof(struct route, sni), NULL,
	    show_route_names },
	{ "alpn", parse_route_names, 0, 0, offsetof(struct route, alpn), NULL,
	    show_route_names },
	{ "host", parse_route_names, 1, 0, offsetof(struct route, host), NULL,
	    show_route_names },
	{ "no_sni", conf_parse_bool, 0, 0, offsetof(struct route, no_sni) },
	{ "min_length", conf_parse_int, 0, ROUTE_MIN_LENGTH_MAX,
	    offsetof(struct route, min_length) },
	{ "regex", parse_route_regex, 0, 0,
	    offsetof(struct route, regex_text), NULL, show_route_names },
	{ "connect", parse_route_connect, 0, 0, 0, NULL, show_route_connect },
	{ "balance", conf_parse_choice, 0, 0,
	    offsetof(struct route, dest.upstream.balance), conf_balance_names },
	{ "send_proxy", conf_parse_choice, 0, 0,
	    offsetof(struct route, dest.send_proxy), conf_send_proxy_names },
	{ "health_check", conf_parse_health_check, 0, 0,
	    offsetof(struct route, dest.health_check) },
	{ "connect_timeout", conf_parse_duration, CONNECT_TIMEOUT_MIN,
	    CONNECT_TIMEOUT_MAX, offsetof(struct route, dest.connect_timeout) },
	{ "source", parse_route_source, 0, 0, 0, NULL, show_route_source },
	{ "transparent", conf_parse_bool, 0, 0,
	    offsetof(struct route, dest.transparent) },
	{ "keepalive", conf_parse_keepalive, 0, 0,
	    offsetof(struct route, dest.keepalive) },
	{ "no_access_log", conf_parse_bool, 0, 0,
	    offsetof(struct route, dest.no_access_log) },
};

static const struct conf_keys conf_route_keys = {
	route_keys, CONF_NKEYS(route_keys), "in a route", "inside a route",
	{ &conf_rule_keys, &conf_item_keys }, route_key_applies
};

/* -T: a list of names (or patterns) as written; nothing when empty. */
static void
show_route_names(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct route_names	*rn = conf_field((void *)(uintptr_t)base,
	    k);
	size_t				 i;

	for (i = 0; i < rn->n; i++) {
		if (i == 0)
			conf_show_open(sh, k->name, "[ ");
		conf_show_quoted(sh->out, rn->v[i]);
		fputs(i + 1 < rn->n ? ", " : " ];\n", sh->out);
	}
}

static void
show_route_connect(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	conf_show_connect(sh, k, &((const struct route *)base)->dest);
}

static void
show_route_source(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	conf_show_source(sh, k, &((const struct route *)base)->dest);
}

/* -T writes what a route was given: no empty match keys. */
static bool
route_key_applies(const void *base, const struct conf_key *k)
{
	const struct route *rt = base;

	if (strcmp(k->name, "protocol") == 0)
		return rt->protocol != ROUTE_ANY;
	if (strcmp(k->name, "no_sni") == 0)
		return rt->no_sni;
	if (strcmp(k->name, "source") == 0)
		return rt->dest.source != NULL;
	return true;
}

/* -T: a rule's routes, each a group of its keys. */
void
conf_show_routes(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct rule	*r = base;
	size_t			 i;

	conf_show_open(sh, k->name, "(\n");
	sh->depth++;
	for (i = 0; i < r->nroutes; i++)
		conf_show_group(sh, NULL, &conf_route_keys, &r->routes[i],
		    i + 1 == r->nroutes ? "" : ",");
	sh->depth--;
	conf_show_open(sh, NULL, ");\n");
}

/* Match keys besides protocol: none written makes a default route. */
#define PROTOCOL_UNSET	(-1)

static int
parse_route_protocol(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	return conf_store_choice(ld, k, s, base, route_protocol_names);
}

/* connect is a rule's connect, stored in the route's destination. */
static int
parse_route_connect(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct route	*rt = base;

	return conf_parse_connect(ld, k, s, &rt->dest);
}

/* source is a rule's source, stored in the route's destination. */
static int
parse_route_source(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct route	*rt = base;

	return conf_parse_source(ld, k, s, &rt->dest);
}

/* The elements of a string-or-list setting: n, and element i. */
static int
list_length(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s)
{
	int	n;

	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return 1;
	if (!config_setting_is_list(s) && !config_setting_is_array(s))
		return conf_fail(ld, s, "\"%s\" must be a string or a list "
		    "of strings (got %s)", k->name, conf_type_name(s));
	if ((n = config_setting_length(s)) == 0)
		return conf_fail(ld, s, "\"%s\" is an empty list", k->name);
	return n;
}

static const config_setting_t *
list_elem(const config_setting_t *s, int i)
{
	return config_setting_type(s) == CONFIG_TYPE_STRING ? s :
	    config_setting_get_elem(s, (unsigned)i);
}

/*
 * A name of sni or host (k->min: lower-cased; "*." wildcards): letters,
 * digits, '-', '_' and dots, as a DNS name (IDNA names as sent: A-labels).
 */
static int
check_name(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *e, char *v)
{
	const char	*p = v;

	if (k->min == 0) {
		if (*v == '\0' || strlen(v) > 255)
			return conf_fail(ld, e, "\"%s\": a protocol name has 1 "
			    "to 255 bytes", k->name);
		return 0;
	}
	if (strncmp(p, "*.", 2) == 0)
		p += 2;
	if (*p == '\0' || strlen(v) > 255)
		return conf_fail(ld, e, "\"%s\": \"%s\" is not a host name",
		    k->name, v);
	/* Another glob is fnmatch(3)'s, as sslh's sni_hostnames are. */
	for (; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) &&
		    strchr("-_." ROUTE_GLOB_CHARS, *p) == NULL)
			return conf_fail(ld, e, "\"%s\": \"%s\" is not a host "
			    "name or a glob of one ('%c')", k->name, v, *p);
	for (p = v; *v != '\0'; v++)
		*v = (char)tolower((unsigned char)*v);
	return 0;
}

/* sni, host (lower-cased), alpn: a string or a list of them. */
static int
parse_route_names(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct route_names	*rn = conf_field(base, k);
	const config_setting_t	*e;
	int			 i, n;

	if ((n = list_length(ld, k, s)) == -1)
		return -1;
	if ((rn->v = calloc((size_t)n, sizeof(*rn->v))) == NULL)
		return conf_fail(ld, s, "out of memory");
	for (i = 0; i < n; i++) {
		e = list_elem(s, i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return conf_fail(ld, e, "\"%s\" must list strings "
			    "(got %s)", k->name, conf_type_name(e));
		if ((rn->v[i] = strdup(config_setting_get_string(e))) == NULL)
			return conf_fail(ld, e, "out of memory");
		rn->n = (size_t)i + 1;
		if (check_name(ld, k, e, rn->v[i]) == -1)
			return -1;
	}
	return 0;
}

/* regex: POSIX extended patterns, compiled now; regerror's text. */
static int
parse_route_regex(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct route		*rt = base;
	const config_setting_t	*e;
	char			 why[CONF_ERR_MAX];
	int			 i, n, rc;

	if ((n = list_length(ld, k, s)) == -1)
		return -1;
	if ((rt->regex = calloc((size_t)n, sizeof(*rt->regex))) == NULL ||
	    (rt->regex_text.v = calloc((size_t)n,
	    sizeof(*rt->regex_text.v))) == NULL)
		return conf_fail(ld, s, "out of memory");
	for (i = 0; i < n; i++) {
		e = list_elem(s, i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return conf_fail(ld, e, "\"regex\" must list strings "
			    "(got %s)", conf_type_name(e));
		rc = regcomp(&rt->regex[i], config_setting_get_string(e),
		    REG_EXTENDED | REG_NOSUB);
		if (rc != 0) {
			regerror(rc, &rt->regex[i], why, sizeof(why));
			return conf_fail(ld, e, "\"regex\" \"%s\": %s",
			    config_setting_get_string(e), why);
		}
		rt->nregex = (size_t)i + 1;
		if ((rt->regex_text.v[i] = strdup(config_setting_get_string(e)))
		    == NULL)
			return conf_fail(ld, e, "out of memory");
		rt->regex_text.n = (size_t)i + 1;
	}
	return 0;
}

/*
 * A name of a route: as a rule's (RULE_NAME_CHARS).  With '/' it must
 * still name one route as RULE/ROUTE: conf_check.c sees to that.
 */
static int
route_check_name(struct conf_loader *ld, const config_setting_t *g,
    const struct rule *r, size_t idx)
{
	const struct route	*rt = &r->routes[idx];
	const config_setting_t	*m = config_setting_get_member(g, "name");
	const char		*p;
	size_t			 i;

	if (rt->name == NULL)
		return conf_fail(ld, g, "a route is missing required setting "
		    "\"name\"");
	if (rt->name[0] == '\0' || strlen(rt->name) > RULE_NAME_MAX)
		return conf_fail(ld, m, "\"name\" must have 1 to %d "
		    "characters", RULE_NAME_MAX);
	for (p = rt->name; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) &&
		    strchr(RULE_NAME_CHARS, *p) == NULL)
			return conf_fail(ld, m, "route name \"%s\": '%c' is "
			    "not allowed (letters, digits and %s)",
			    rt->name, *p, RULE_NAME_CHARS);
	for (i = 0; i < idx; i++)
		if (strcmp(r->routes[i].name, rt->name) == 0)
			return conf_fail(ld, m, "route name \"%s\" is already "
			    "that of the route at line %d", rt->name,
			    r->routes[i].line);
	return 0;
}

/*
 * sni, alpn and no_sni are of TLS, host of HTTP: they set the protocol,
 * and contradict any other.
 */
static int
route_check_protocol(struct conf_loader *ld, const config_setting_t *g,
    struct route *rt)
{
	int	implied = PROTOCOL_UNSET;
	const char *key = NULL;

	if (rt->sni.n > 0 || rt->alpn.n > 0 || rt->no_sni) {
		implied = ROUTE_TLS;
		key = rt->sni.n > 0 ? "sni" : rt->alpn.n > 0 ? "alpn" :
		    "no_sni";
	}
	if (rt->host.n > 0) {
		if (implied != PROTOCOL_UNSET)
			return conf_fail(ld, config_setting_get_member(g,
			    "host"), "\"host\" (HTTP) and \"%s\" (TLS) "
			    "cannot both match one route", key);
		implied = ROUTE_HTTP;
		key = "host";
	}
	if (implied == PROTOCOL_UNSET) {
		if (rt->protocol == PROTOCOL_UNSET)
			rt->protocol = ROUTE_ANY;
		return 0;
	}
	/* QUIC's Initials carry a ClientHello: its names are TLS's. */
	if (rt->protocol == ROUTE_QUIC && implied == ROUTE_TLS)
		return 0;
	if (rt->protocol != PROTOCOL_UNSET && rt->protocol != implied)
		return conf_fail(ld, config_setting_get_member(g, "protocol"),
		    "\"%s\" is a %s match, but this route has protocol = "
		    "\"%s\"", key, route_protocol_names[implied],
		    route_protocol_names[rt->protocol]);
	rt->protocol = implied;
	return 0;
}

/*
 * A route's keepalive is its backend connections' (sslh's per-protocol
 * keepalive): the client's leg was the rule's before any route was
 * picked.
 */
static int
route_check_keepalive(struct conf_loader *ld, const config_setting_t *g,
    struct route *rt)
{
	const config_setting_t	*ka = config_setting_get_member(g,
	    "keepalive"), *legs;

	if (ka == NULL)
		return 0;
	legs = config_setting_get_member(ka, "legs");
	if (legs != NULL && rt->dest.keepalive.legs != KEEPALIVE_BACKEND)
		return conf_fail(ld, legs, "a route's keepalive is on its "
		    "backend connections only (the client's is the rule's "
		    "keepalive): legs = \"backend\" or none");
	rt->dest.keepalive.legs = KEEPALIVE_BACKEND;
	return 0;
}

/* One route, group g, into r->routes[idx]. */
static int
parse_route(struct conf_loader *ld, const config_setting_t *g,
    struct rule *r, size_t idx)
{
	struct route		*rt = &r->routes[idx];

	rt->line = conf_text_origin(ld->text,
	    config_setting_source_line(g)).line;
	if (!config_setting_is_group(g))
		return conf_fail(ld, g, "a route must be a group { name = "
		    "\"...\"; connect = \"...\"; } (got %s)",
		    conf_type_name(g));
	rt->protocol = PROTOCOL_UNSET;
	rt->dest.upstream.balance = UNSET;
	rt->dest.send_proxy = UNSET;
	rt->dest.connect_timeout = UNSET;
	if (conf_parse_members(ld, g, &conf_route_keys, rt) == -1 ||
	    route_check_name(ld, g, r, idx) == -1 ||
	    route_check_protocol(ld, g, rt) == -1 ||
	    route_check_keepalive(ld, g, rt) == -1)
		return -1;
	if (rt->dest.nitems == 0)
		return conf_fail(ld, g, "route \"%s\" is missing required "
		    "setting \"connect\"", rt->name);
	return 0;
}

int
conf_parse_routes(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct rule	*r = base;
	int		 i, n;

	if (!config_setting_is_list(s))
		return conf_fail(ld, s, "\"%s\" must be a list of routes, "
		    "( { name = ...; connect = ...; }, ... ) (got %s)",
		    k->name, conf_type_name(s));
	if ((n = config_setting_length(s)) == 0)
		return conf_fail(ld, s, "\"%s\" is empty: at least one route "
		    "is needed", k->name);
	if (n > ROUTES_MAX)
		return conf_fail(ld, s, "\"%s\" has %d routes; at most %d are "
		    "allowed", k->name, n, ROUTES_MAX);
	if ((r->routes = calloc((size_t)n, sizeof(*r->routes))) == NULL)
		return conf_fail(ld, s, "out of memory");
	for (i = 0; i < n; i++) {
		r->nroutes = (size_t)i + 1;
		if (parse_route(ld, config_setting_get_elem(s, (unsigned)i),
		    r, (size_t)i) == -1)
			return -1;
	}
	return 0;
}

/*
 * A route's connect resolved, with the rule's source, balance and
 * slow_start.  On a port range (nports) it may be a range of as many
 * ports, as a rule's.
 */
static int
route_upstream(struct conf_loader *ld, const config_setting_t *g,
    const struct rule *r, struct route *rt, unsigned nports)
{
	struct rule	*d = &rt->dest;

	if (d->source == NULL && r->source != NULL &&
	    (d->source = strdup(r->source)) == NULL)
		return conf_fail(ld, g, "out of memory");
	if (d->upstream.balance == UNSET)
		d->upstream.balance = r->upstream.balance;
	/* Its items' default, as a rule's items take the rule's. */
	d->slow_start = r->slow_start;
	return conf_rule_upstream(ld, g, d, nports);
}

/* What logs and counters call a route: "RULE/ROUTE". */
static int
route_dest_name(struct conf_loader *ld, const config_setting_t *rule,
    const struct rule *r, struct route *rt)
{
	size_t	len = strlen(r->name) + strlen(rt->name) + 2;

	if ((rt->dest.name = malloc(len)) == NULL)
		return conf_fail(ld, rule, "out of memory");
	snprintf(rt->dest.name, len, "%s/%s", r->name, rt->name);
	return 0;
}

/*
 * Every route's backends in the rule's upstream, in route order: each
 * route's upstream becomes its slice, with its own balancing state.
 */
static int
gather_backends(struct conf_loader *ld, const config_setting_t *rule,
    struct rule *r)
{
	struct upstream	*u = &r->upstream, *ru;
	size_t		 i, j, n = 0;

	for (i = 0; i < r->nroutes; i++)
		n += r->routes[i].dest.upstream.nbackends;
	if (n > UPSTREAM_MAX)
		return conf_fail(ld, rule, "the routes have %zu backends; at "
		    "most %d are allowed in a rule", n, UPSTREAM_MAX);
	if ((u->backends = calloc(n, sizeof(*u->backends))) == NULL)
		return conf_fail(ld, rule, "out of memory");
	for (i = 0; i < r->nroutes; i++) {
		ru = &r->routes[i].dest.upstream;
		for (j = 0; j < ru->nbackends; j++) {
			u->backends[u->nbackends + j] = ru->backends[j];
			u->backends[u->nbackends + j].route = r->routes[i].name;
		}
		u->has_backup |= ru->has_backup;
		free(ru->backends);
		ru->backends = &u->backends[u->nbackends];
		r->routes[i].sliced = true;
		u->nbackends += ru->nbackends;
	}
	/* The rule's state first: each route's then points its own at it. */
	if (conf_upstream_state(u) == -1)
		return conf_fail(ld, rule, "out of memory");
	for (i = 0; i < r->nroutes; i++) {
		ru = &r->routes[i].dest.upstream;
		free(ru->state);
		if (conf_upstream_state(ru) == -1)
			return conf_fail(ld, rule, "out of memory");
	}
	return 0;
}

/* What connect says of a rule with routes: "web: a:1; ssh: b:2". */
static char *
routes_connect_text(const struct rule *r)
{
	size_t	len = 1, i;
	char	*s;

	for (i = 0; i < r->nroutes; i++)
		len += strlen(r->routes[i].name) + strlen(r->routes[i].dest.
		    connect) + 4;
	if ((s = malloc(len)) == NULL)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < r->nroutes; i++) {
		if (i > 0)
			strcat(s, "; ");
		strcat(s, r->routes[i].name);
		strcat(s, ": ");
		strcat(s, r->routes[i].dest.connect);
	}
	return s;
}

/* on_timeout names a route: its index. */
static int
routes_on_timeout(struct conf_loader *ld, const config_setting_t *rule,
    struct rule *r)
{
	size_t	i;

	r->on_timeout = -1;
	if (r->on_timeout_name == NULL)
		return 0;
	for (i = 0; i < r->nroutes; i++)
		if (strcmp(r->routes[i].name, r->on_timeout_name) == 0) {
			r->on_timeout = (int)i;
			return 0;
		}
	return conf_fail(ld, config_setting_get_member(rule, "on_timeout"),
	    "\"on_timeout\": no route of this rule is named \"%s\"",
	    r->on_timeout_name);
}

/* A default route hides those after it: worth a word, not an error. */
static void
routes_warn_hidden(const struct conf_loader *ld, const struct rule *r)
{
	size_t	i;

	for (i = 0; i + 1 < r->nroutes; i++)
		if (route_is_default(&r->routes[i])) {
			log_warn("%s:%d: route \"%s\" matches anything: the "
			    "routes after it are never taken", r->file != NULL ?
			    r->file : ld->path, r->routes[i].line,
			    r->routes[i].name);
			return;
		}
}

/* Whether protocol proto reads UDP datagrams (probe_udp.c). */
static bool
protocol_is_udp(int proto)
{
	return proto == ROUTE_OPENVPN || proto == ROUTE_WIREGUARD ||
	    proto == ROUTE_TEAMSPEAK || proto == ROUTE_QUIC;
}

/*
 * A TCP route's protocol reads a byte stream, a UDP route's a session's
 * first datagrams: each route's must be of its rule's side.  On UDP, TLS
 * (sni, alpn, no_sni) is the ClientHello in QUIC's Initial packets.
 */
static int
route_check_side(struct conf_loader *ld, const config_setting_t *g,
    const struct rule *r, struct route *rt)
{
	const char	*name = route_protocol_names[rt->protocol];

	if (r->protocol == RULE_TCP) {
		if (rt->protocol == ROUTE_WIREGUARD ||
		    rt->protocol == ROUTE_TEAMSPEAK ||
		    rt->protocol == ROUTE_QUIC)
			return conf_fail(ld, g, "route \"%s\": protocol "
			    "\"%s\" is a UDP protocol, and this rule is TCP",
			    rt->name, name);
		return 0;
	}
	if (rt->protocol == ROUTE_TLS)
		rt->protocol = ROUTE_QUIC;
	if (rt->protocol != ROUTE_ANY && !protocol_is_udp(rt->protocol))
		return conf_fail(ld, g, "route \"%s\": protocol \"%s\" is "
		    "not a UDP protocol (a UDP route's is openvpn, wireguard, "
		    "teamspeak, quic or any)", rt->name, name);
	return 0;
}

/*
 * Routes read what a client sends first: on a TCP rule its first bytes,
 * on a UDP rule its first datagrams (udp_route.c).  A rule from one
 * side to the other has none yet.
 */
static int
routes_check_sides(struct conf_loader *ld, const config_setting_t *m,
    struct rule *r)
{
	size_t	i;

	if (r->protocol != r->connect_protocol)
		return conf_fail(ld, m, "\"routes\" are for rules whose "
		    "clients and backends are both TCP or both UDP (this "
		    "rule goes from %s to %s)", r->protocol == RULE_TCP ?
		    "TCP" : "UDP", r->connect_protocol == RULE_TCP ? "TCP" :
		    "UDP");
	for (i = 0; i < r->nroutes; i++)
		if (route_check_side(ld, config_setting_get_elem(m,
		    (unsigned)i), r, &r->routes[i]) == -1)
			return -1;
	return 0;
}

int
conf_rule_routes(struct conf_loader *ld, const config_setting_t *rule,
    struct rule *r, unsigned nports)
{
	static const char *const keys[] = { "peek_timeout", "on_timeout",
	    "probes" };
	const config_setting_t	*m;
	size_t			 i;

	if (r->nroutes == 0) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if ((m = config_setting_get_member(rule, keys[i])) !=
			    NULL)
				return conf_fail(ld, m, "\"%s\" is a setting "
				    "of rules with routes", keys[i]);
		return conf_rule_upstream(ld, rule, r, nports);
	}
	m = config_setting_get_member(rule, "routes");
	if (r->nitems > 0)
		return conf_fail(ld, config_setting_get_member(rule,
		    "connect"), "a rule has either \"connect\" or \"routes\", "
		    "not both");
	if (routes_check_sides(ld, m, r) == -1)
		return -1;
	if (r->peek_timeout == UNSET)
		r->peek_timeout = DEFAULT_PEEK_TIMEOUT;
	for (i = 0; i < r->nroutes; i++)
		if (route_upstream(ld, config_setting_get_elem(m,
		    (unsigned)i), r, &r->routes[i], nports) == -1 ||
		    conf_check_pass(ld, config_setting_get_elem(m,
		    (unsigned)i), r, &r->routes[i].dest) == -1 ||
		    route_dest_name(ld, rule, r, &r->routes[i]) == -1)
			return -1;
	if (routes_on_timeout(ld, rule, r) == -1 ||
	    gather_backends(ld, rule, r) == -1)
		return -1;
	if ((r->connect = routes_connect_text(r)) == NULL)
		return conf_fail(ld, rule, "out of memory");
	routes_warn_hidden(ld, r);
	return 0;
}

/*
 * The route's destination: its rule's settings (all inherited by now),
 * with what the route wrote or owns.  Its counters: stat.
 */
static void
route_dest_inherit(const struct rule *r, struct route *rt, unsigned stat)
{
	struct rule	own = rt->dest;
	struct rule	*d = &rt->dest;

	*d = *r;
	d->parent = r;
	d->routes = NULL;
	d->nroutes = 0;
	d->on_timeout_name = NULL;
	d->name = own.name;
	d->name_given = true;
	d->connect = own.connect;
	d->items = own.items;
	d->nitems = own.nitems;
	d->upstream = own.upstream;
	d->source = own.source;
	d->source_pool[0] = own.source_pool[0];	/* its backends' */
	d->source_pool[1] = own.source_pool[1];
	d->stat = stat;
	d->line = rt->line;
	d->send_proxy = own.send_proxy != UNSET ? own.send_proxy :
	    r->send_proxy;
	d->connect_timeout = own.connect_timeout != UNSET ?
	    own.connect_timeout : r->connect_timeout;
	/* As sslh's: the rule's for all its routes, or a route's own. */
	d->transparent = own.transparent || r->transparent;
	d->no_access_log = own.no_access_log || r->no_access_log;
	d->health_check = own.health_check.enabled ? own.health_check :
	    r->health_check;
	/* Its backend leg's: the route's own, else the rule's. */
	if (own.keepalive.enabled)
		d->keepalive = own.keepalive;
	else {
		d->keepalive.enabled = keepalive_on(&r->keepalive, false);
		d->keepalive.legs = KEEPALIVE_BACKEND;
	}
}

void
conf_routes_inherit(size_t *nrule_stats, struct rule *r)
{
	size_t	i;

	/* A range's later ports count as its first port's routes. */
	for (i = 0; i < r->nroutes; i++)
		route_dest_inherit(r, &r->routes[i], r->range_first != NULL ?
		    r->range_first->routes[i].dest.stat :
		    (unsigned)(*nrule_stats)++);
}

int
conf_routes_clone(struct rule *dst, const struct rule *first)
{
	struct route	*v;
	size_t		 i, at = 0;

	if ((v = malloc(first->nroutes * sizeof(*v))) == NULL)
		return -1;
	memcpy(v, first->routes, first->nroutes * sizeof(*v));
	for (i = 0; i < first->nroutes; i++) {
		v[i].dest.upstream.backends = &dst->upstream.backends[at];
		v[i].dest.upstream.state = NULL;
		at += v[i].dest.upstream.nbackends;
	}
	dst->routes = v;
	dst->nroutes = first->nroutes;
	for (i = 0; i < first->nroutes; i++)
		if (conf_upstream_state(&v[i].dest.upstream) == -1)
			return -1;
	return 0;
}

void
conf_routes_free(struct rule *r)
{
	struct route	*rt;
	size_t		 i, j;

	/* A range's later port owns its routes' array and states only. */
	if (r->range_first != NULL) {
		for (i = 0; r->routes != NULL && i < r->nroutes; i++)
			free(r->routes[i].dest.upstream.state);
		free(r->routes);
		return;
	}
	for (i = 0; i < r->nroutes; i++) {
		rt = &r->routes[i];
		free(rt->name);
		for (j = 0; j < rt->sni.n; j++)
			free(rt->sni.v[j]);
		for (j = 0; j < rt->alpn.n; j++)
			free(rt->alpn.v[j]);
		for (j = 0; j < rt->host.n; j++)
			free(rt->host.v[j]);
		free(rt->sni.v);
		free(rt->alpn.v);
		free(rt->host.v);
		for (j = 0; j < rt->regex_text.n; j++)
			free(rt->regex_text.v[j]);
		free(rt->regex_text.v);
		for (j = 0; j < rt->nregex; j++)
			regfree(&rt->regex[j]);
		free(rt->regex);
		free(rt->dest.name);
		free(rt->dest.connect);
		conf_items_free(&rt->dest);
		/* Once gathered, its backends are a slice of the rule's. */
		if (!rt->sliced)
			free(rt->dest.upstream.backends);
		free(rt->dest.upstream.state);
		free(rt->dest.upstream.maglev);
		free(rt->dest.source);
		free(rt->dest.source_pool[0]);
		free(rt->dest.source_pool[1]);
	}
	free(r->routes);
	free(r->on_timeout_name);
	r->routes = NULL;
	r->nroutes = 0;
}
