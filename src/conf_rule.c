/*
 * conf_rule.c - what a rule means: its settings, its listen address and
 * its upstream resolved (conf_upstream.c), a port range made a rule per
 * port, and what it inherits from the top level.  The checks across
 * rules (one address each, unique names, no loops) are conf_check.c's.
 */
#include "ferryd.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "conf.h"
#include "conf_file.h"
#include "conf_schema.h"
#include "proxy_proto.h"
#include "route.h"
#include "rule.h"
#include "upstream.h"

static conf_key_show show_listen, show_name, show_accept_proxy;
static conf_key_parser parse_accept_proxy;

/* In enum rule_protocol order. */
static const char *const protocol_names[] = { "tcp", "udp", NULL };
/* In enum rule_framing order. */
static const char *const framing_names[] = { "none", "length16", NULL };
/* In enum proxy_version order. */
const char *const conf_send_proxy_names[] = { "off", "v1", "v2", "pass",
    NULL };

static const struct conf_key rule_keys[] = {
	{ "listen", conf_parse_string, 0, 0, offsetof(struct rule, listen),
	    NULL, show_listen },
	{ "connect", conf_parse_connect, 0, 0, offsetof(struct rule, items),
	    NULL, conf_show_connect },
	{ "balance", conf_parse_choice, 0, 0,
	    offsetof(struct rule, upstream.balance), conf_balance_names },
	{ "health_check", conf_parse_health_check, 0, 0,
	    offsetof(struct rule, health_check) },
	{ "keepalive", conf_parse_keepalive, 0, 0,
	    offsetof(struct rule, keepalive) },
	{ "buffer_size", conf_parse_size, BUFFER_SIZE_MIN, BUFFER_SIZE_MAX,
	    offsetof(struct rule, buffer_size) },
	{ "connect_timeout", conf_parse_duration, CONNECT_TIMEOUT_MIN,
	    CONNECT_TIMEOUT_MAX, offsetof(struct rule, connect_timeout) },
	{ "idle_timeout", conf_parse_duration, 0, IDLE_TIMEOUT_MAX,
	    offsetof(struct rule, idle_timeout) },
	{ "name", conf_parse_string, 0, 0, offsetof(struct rule, name), NULL,
	    show_name },
	{ "protocol", conf_parse_choice, 0, 0, offsetof(struct rule, protocol),
	    protocol_names },
	{ "connect_protocol", conf_parse_choice, 0, 0,
	    offsetof(struct rule, connect_protocol), protocol_names },
	{ "framing", conf_parse_choice, 0, 0, offsetof(struct rule, framing),
	    framing_names },
	{ "session_timeout", conf_parse_duration, SESSION_TIMEOUT_MIN,
	    SESSION_TIMEOUT_MAX, offsetof(struct rule, session_timeout) },
	{ "max_sessions", conf_parse_int, 1, MAX_SESSIONS_MAX,
	    offsetof(struct rule, max_sessions) },
	{ "max_connections_per_client", conf_parse_int, 0, MAX_CONNECTIONS_MAX,
	    offsetof(struct rule, max_connections_per_client) },
	{ "connection_rate", conf_parse_int, 0, CONNECTION_RATE_MAX,
	    offsetof(struct rule, connection_rate) },
	{ "max_sessions_per_client", conf_parse_int, 0, MAX_SESSIONS_MAX,
	    offsetof(struct rule, max_sessions_per_client) },
	{ "session_rate", conf_parse_int, 0, CONNECTION_RATE_MAX,
	    offsetof(struct rule, session_rate) },
	{ "splice", conf_parse_splice, 0, 0, offsetof(struct rule, splice) },
	{ "sndbuf", conf_parse_int, 0, SOCKBUF_MAX,
	    offsetof(struct rule, sndbuf) },
	{ "rcvbuf", conf_parse_int, 0, SOCKBUF_MAX,
	    offsetof(struct rule, rcvbuf) },
	{ "allow", conf_parse_allow, 0, 0, offsetof(struct rule, acl) },
	{ "deny", conf_parse_deny, 0, 0, offsetof(struct rule, acl) },
	{ "source", conf_parse_source, 0, 0, 0, NULL, conf_show_source },
	{ "ipv6_only", conf_parse_bool, 0, 0,
	    offsetof(struct rule, ipv6_only) },
	{ "send_proxy", conf_parse_choice, 0, 0,
	    offsetof(struct rule, send_proxy), conf_send_proxy_names },
	{ "accept_proxy", parse_accept_proxy, 0, 0,
	    offsetof(struct rule, accept_proxy), NULL, show_accept_proxy },
	{ "transparent", conf_parse_bool, 0, 0,
	    offsetof(struct rule, transparent) },
	{ "no_access_log", conf_parse_bool, 0, 0,
	    offsetof(struct rule, no_access_log) },
	{ "stats_histograms", conf_parse_bool, 0, 0,
	    offsetof(struct rule, stats_histograms) },
	{ "proxy_timeout", conf_parse_duration, PROXY_TIMEOUT_MIN,
	    PROXY_TIMEOUT_MAX, offsetof(struct rule, proxy_timeout) },
	{ "accept_proxy_from", conf_parse_allow, 0, 0,
	    offsetof(struct rule, accept_proxy_from) },
	{ "mode", conf_parse_mode, 0, 0, offsetof(struct rule, unix_sock.mode),
	    NULL, conf_show_mode },
	{ "owner", conf_parse_unix_owner, 0, 0,
	    offsetof(struct rule, unix_sock.owner), NULL, conf_show_unix_id },
	{ "group", conf_parse_unix_group, 0, 0,
	    offsetof(struct rule, unix_sock.group), NULL, conf_show_unix_id },
	{ "allow_uid", conf_parse_unix_uids, 0, 0,
	    offsetof(struct rule, unix_sock.allow_uid), NULL,
	    conf_show_unix_ids },
	{ "allow_gid", conf_parse_unix_gids, 0, 0,
	    offsetof(struct rule, unix_sock.allow_gid), NULL,
	    conf_show_unix_ids },
	{ "tcp_fastopen", conf_parse_int, 0, TCP_FASTOPEN_MAX,
	    offsetof(struct rule, tcp_fastopen) },
	{ "tcp_fastopen_connect", conf_parse_bool, 0, 0,
	    offsetof(struct rule, tcp_fastopen_connect) },
	{ "defer_accept", conf_parse_int, 0, DEFER_ACCEPT_MAX,
	    offsetof(struct rule, defer_accept) },
	{ "rate_limit", conf_parse_int, 0, INT_MAX,
	    offsetof(struct rule, rate_limit) },
	{ "rule_rate_limit", conf_parse_int, 0, INT_MAX,
	    offsetof(struct rule, rule_rate_limit) },
	{ "slow_start", conf_parse_duration, 0, SLOW_START_MAX,
	    offsetof(struct rule, slow_start) },
	{ "queue_timeout", conf_parse_duration, 0, QUEUE_TIMEOUT_MAX,
	    offsetof(struct rule, queue_timeout) },
	{ "queue_max", conf_parse_int, 1, MAX_CONNECTIONS_MAX,
	    offsetof(struct rule, queue_max) },
	{ "routes", conf_parse_routes, 0, 0, offsetof(struct rule, routes),
	    NULL, conf_show_routes },
	{ "peek_timeout", conf_parse_duration, PEEK_TIMEOUT_MIN,
	    PEEK_TIMEOUT_MAX, offsetof(struct rule, peek_timeout) },
	{ "on_timeout", conf_parse_string, 0, 0,
	    offsetof(struct rule, on_timeout_name) },
	{ "probes", conf_parse_choice, 0, 0, offsetof(struct rule, probes),
	    route_probes_names },
};

const struct conf_keys conf_rule_keys = {
	rule_keys, CONF_NKEYS(rule_keys), "in a rule", "inside a rule",
	{ &conf_global_keys, &conf_item_keys }, conf_rule_key_applies
};

/* The four kinds of rule, by their two protocols, as bits of a mask. */
#define KIND_TCP	0x1	/* TCP to TCP */
#define KIND_UDP	0x2	/* UDP to UDP */
#define KIND_UDP_TCP	0x4	/* UDP clients, a TCP backend */
#define KIND_TCP_UDP	0x8	/* TCP clients, a UDP backend */

static int
rule_kind(const struct rule *r)
{
	if (r->protocol == r->connect_protocol)
		return r->protocol == RULE_UDP ? KIND_UDP : KIND_TCP;
	return r->protocol == RULE_UDP ? KIND_UDP_TCP : KIND_TCP_UDP;
}

static const char *
rule_kind_name(int kind)
{
	switch (kind) {
	case KIND_TCP:
		return "TCP";
	case KIND_UDP:
		return "UDP";
	case KIND_UDP_TCP:
		return "UDP-to-TCP";
	default:
		return "TCP-to-UDP";
	}
}

/* The keys that mean something for some kinds of rule only. */
static const struct {
	const char	*name;
	int		 kinds;
} kind_keys[] = {
	{ "connect_timeout", KIND_TCP | KIND_UDP_TCP },
	{ "idle_timeout", KIND_TCP },
	{ "splice", KIND_TCP },
	{ "buffer_size", KIND_TCP },
	{ "session_timeout", KIND_UDP | KIND_UDP_TCP | KIND_TCP_UDP },
	{ "max_sessions", KIND_UDP | KIND_UDP_TCP },
	{ "framing", KIND_UDP_TCP | KIND_TCP_UDP },
	{ "accept_proxy", KIND_TCP | KIND_TCP_UDP },
	{ "max_connections_per_client", KIND_TCP | KIND_TCP_UDP },
	{ "connection_rate", KIND_TCP | KIND_TCP_UDP },
	{ "proxy_timeout", KIND_TCP | KIND_TCP_UDP },
	{ "accept_proxy_from", KIND_TCP | KIND_TCP_UDP },
	{ "keepalive", KIND_TCP | KIND_UDP_TCP | KIND_TCP_UDP },
	{ "queue_timeout", KIND_TCP },
	{ "queue_max", KIND_TCP },
	{ "max_sessions_per_client", KIND_UDP | KIND_UDP_TCP },
	{ "session_rate", KIND_UDP | KIND_UDP_TCP },
	{ "tcp_fastopen", KIND_TCP | KIND_TCP_UDP },
	{ "defer_accept", KIND_TCP | KIND_TCP_UDP },
	{ "tcp_fastopen_connect", KIND_TCP },
	{ "rate_limit", KIND_TCP | KIND_UDP },
	{ "rule_rate_limit", KIND_TCP | KIND_UDP },
};

/*
 * Settings that mean nothing for the rule's kind are refused, rather
 * than silently ignored.  Whenever a side is UDP, session_timeout is the
 * silence that ends a session; a connect timeout needs a TCP backend;
 * splice, buffer_size, idle_timeout and the queue belong to TCP-to-TCP
 * relays; sessions counted per worker (max_sessions) to UDP listeners;
 * framing to rules whose two sides differ.
 */
static int
rule_protocol_keys(struct conf_loader *ld, const config_setting_t *rule,
    const struct rule *r)
{
	const config_setting_t	*m;
	int			 kind = rule_kind(r);
	size_t			 i;

	for (i = 0; i < sizeof(kind_keys) / sizeof(kind_keys[0]); i++)
		if ((kind_keys[i].kinds & kind) == 0 &&
		    (m = config_setting_get_member(rule, kind_keys[i].name)) !=
		    NULL)
			return conf_fail(ld, m, "\"%s\" is not a setting of "
			    "%s rules (this rule has protocol = \"%s\"%s%s%s)",
			    kind_keys[i].name, rule_kind_name(kind),
			    protocol_names[r->protocol],
			    r->protocol != r->connect_protocol ?
			    " and connect_protocol = \"" : "",
			    r->protocol != r->connect_protocol ?
			    protocol_names[r->connect_protocol] : "",
			    r->protocol != r->connect_protocol ? "\"" : "");
	return 0;
}

/*
 * -T writes only what rule_protocol_keys(), rule_proxy_keys() and
 * rule_ipv6_only() would accept back.
 */
bool
conf_rule_key_applies(const void *base, const struct conf_key *k)
{
	const struct rule	*r = base;
	size_t			 i;

	for (i = 0; i < sizeof(kind_keys) / sizeof(kind_keys[0]); i++)
		if (strcmp(kind_keys[i].name, k->name) == 0 &&
		    (kind_keys[i].kinds & rule_kind(r)) == 0)
			return false;
	if (!conf_unix_key_applies(r, k))
		return false;
	/* With routes, connect is theirs; peek_timeout goes with them. */
	if (strcmp(k->name, "connect") == 0 || strcmp(k->name, "routes") == 0 ||
	    strcmp(k->name, "peek_timeout") == 0 ||
	    strcmp(k->name, "on_timeout") == 0 ||
	    strcmp(k->name, "probes") == 0)
		return (r->nroutes > 0) == (strcmp(k->name, "connect") != 0);
	if (!r->accept_proxy && (strcmp(k->name, "proxy_timeout") == 0 ||
	    strcmp(k->name, "accept_proxy_from") == 0))
		return false;
	return strcmp(k->name, "ipv6_only") != 0 ||
	    r->listen_addr.ss.ss_family == AF_INET6;
}

/* A port range's first rule keeps "host:lo": written back "host:lo-hi". */
const char *
conf_rule_listen(const struct rule *r, char *buf, size_t len)
{
	unsigned lo = addr_port((const void *)&r->listen_addr.ss);

	if (r->nports > 1)
		snprintf(buf, len, "%s-%u", r->listen, lo + r->nports - 1);
	else
		snprintf(buf, len, "%s", r->listen);
	return buf;
}

static void
show_listen(struct conf_show *sh, const struct conf_key *k, const void *base)
{
	char v[CONF_ERR_MAX];

	conf_show_quoted_line(sh, k->name, conf_rule_listen(base, v,
	    sizeof(v)));
}

/* A name not written is the listen address's, which -T says in a comment. */
static void
show_name(struct conf_show *sh, const struct conf_key *k, const void *base)
{
	const struct rule	*r = base;

	if (r->name_given)
		conf_show_string(sh, k, base);
	else
		conf_show_comment(sh, "%s is not set: \"%s\", from listen",
		    k->name, r->name);
}

/* accept_proxy: true, false or "optional" (a header or not). */
static int
parse_accept_proxy(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct rule	*r = base;
	const char	*v;

	if (config_setting_type(s) == CONFIG_TYPE_STRING &&
	    strcmp((v = config_setting_get_string(s)), "optional") == 0) {
		r->accept_proxy = r->proxy_optional = true;
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return conf_fail(ld, s, "\"%s\" must be true, false or "
		    "\"optional\" (got %s)", k->name, conf_type_name(s));
	r->accept_proxy = config_setting_get_bool(s) != 0;
	r->proxy_optional = false;
	return 0;
}

static void
show_accept_proxy(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct rule	*r = base;

	conf_show_line(sh, k->name, "%s", r->proxy_optional ? "\"optional\"" :
	    r->accept_proxy ? "true" : "false");
}

/*
 * send_proxy = "pass" hands on the header the client sent: a rule (or a
 * route of one) with accept_proxy, TCP to TCP.  g: the send_proxy's
 * group (the rule's or the route's); d: its settings.
 */
int
conf_check_pass(struct conf_loader *ld, const config_setting_t *g,
    const struct rule *r, const struct rule *d)
{
	if (d->send_proxy != PROXY_PASS)
		return 0;
	if (!r->accept_proxy)
		return conf_fail(ld, config_setting_get_member(g, "send_proxy"),
		    "send_proxy = \"pass\" hands on the client's own PROXY "
		    "header: it needs accept_proxy = true or \"optional\" in "
		    "the same rule");
	if (rule_kind(r) != KIND_TCP)
		return conf_fail(ld, config_setting_get_member(g, "send_proxy"),
		    "send_proxy = \"pass\" is for TCP to TCP rules (this one "
		    "is %s)", rule_kind_name(rule_kind(r)));
	return 0;
}

/*
 * proxy_timeout and accept_proxy_from go with accept_proxy = true.  A
 * v1 header says TCP4 or TCP6 only, and goes once: on a rule with a UDP
 * side, send_proxy must be v2.
 */
static int
rule_proxy_keys(struct conf_loader *ld, const config_setting_t *rule,
    struct rule *r)
{
	static const char *const keys[] = { "proxy_timeout",
	    "accept_proxy_from" };
	const config_setting_t	*m;
	size_t			 i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && !r->accept_proxy; i++)
		if ((m = config_setting_get_member(rule, keys[i])) != NULL)
			return conf_fail(ld, m, "\"%s\" needs accept_proxy = "
			    "true or \"optional\" in the same rule", keys[i]);
	if (r->send_proxy == PROXY_V1 && rule_kind(r) != KIND_TCP)
		return conf_fail(ld, config_setting_get_member(rule,
		    "send_proxy"), "send_proxy = \"v1\" describes TCP "
		    "clients of TCP backends only; a %s rule needs \"v2\"",
		    rule_kind_name(rule_kind(r)));
	if (conf_check_pass(ld, rule, r, r) == -1)
		return -1;
	if (r->proxy_timeout == UNSET)
		r->proxy_timeout = DEFAULT_PROXY_TIMEOUT;
	return 0;
}

/*
 * tcp_fastopen, tcp_fastopen_connect, defer_accept and rate_limit (of
 * a TCP rule) are Linux's socket options: refused where the system has
 * none, rather than ignored.
 */
static int
rule_tcp_options(struct conf_loader *ld, const config_setting_t *rule,
    const struct rule *r)
{
	static const struct {
		const char	*name;
		bool		 here;
	} opts[] = {
#ifdef TCP_FASTOPEN
		{ "tcp_fastopen", true },
#else
		{ "tcp_fastopen", false },
#endif
#ifdef TCP_FASTOPEN_CONNECT
		{ "tcp_fastopen_connect", true },
#else
		{ "tcp_fastopen_connect", false },
#endif
#ifdef TCP_DEFER_ACCEPT
		{ "defer_accept", true },
#else
		{ "defer_accept", false },
#endif
#ifdef SO_MAX_PACING_RATE
		{ "rate_limit", true },
#else
		{ "rate_limit", false },
#endif
	};
	const config_setting_t	*m;
	size_t			 i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		/* A UDP rule's rate_limit is ferryd's own bucket. */
		if (!opts[i].here && (m = config_setting_get_member(rule,
		    opts[i].name)) != NULL && (r->protocol != RULE_UDP ||
		    strcmp(opts[i].name, "rate_limit") != 0))
			return conf_fail(ld, m, "\"%s\" is not supported on "
			    "this system", opts[i].name);
	return 0;
}

/*
 * transparent = true: the backend connection leaves from the client's
 * address, so a backend of d (rule r, or a route's destination) must be
 * of the family r's clients are (a dual-stack listener's IPv4 clients
 * count as IPv4; the others are skipped for them, tcp_connect.c: a
 * backend name of both families serves both), and source cannot choose
 * another address.  m: where transparent is written.
 */
static int
dest_transparent(struct conf_loader *ld, const config_setting_t *m,
    const struct rule *r, const struct rule *d)
{
	int		family = r->listen_addr.ss.ss_family;
	bool		dual = family == AF_INET6 && !r->ipv6_only;
	char		backend[ADDR_STRLEN];
	size_t		i;

	if (d->source != NULL)
		return conf_fail(ld, m, "\"transparent\" and \"source\" both "
		    "choose the address backend connections leave from: set "
		    "one of them");
	for (i = 0; i < d->upstream.nbackends; i++)
		if (d->upstream.backends[i].addr.ss.ss_family == AF_UNIX)
			return conf_fail(ld, m, "\"transparent\" sends from the "
			    "client's IP address, which a Unix backend has no "
			    "use for");
	for (i = 0; i < d->upstream.nbackends; i++)
		if (d->upstream.backends[i].addr.ss.ss_family == family ||
		    dual)
			return 0;
	if (d->upstream.nbackends == 0)
		return 0;
	return conf_fail(ld, m, "\"transparent\": no backend is of the "
	    "clients' address family (listen is \"%s\"%s; backend %s), so "
	    "none can be reached from their addresses", r->listen,
	    family == AF_INET6 ? " with ipv6_only" : "", addr_format(
	    (const struct sockaddr *)&d->upstream.backends[0].addr.ss,
	    backend, sizeof(backend)));
}

/* transparent, the rule's (for all its backends) or its routes'. */
static int
rule_transparent(struct conf_loader *ld, const config_setting_t *rule,
    const struct rule *r)
{
	const config_setting_t	*m = config_setting_get_member(rule,
	    "transparent"), *g;
	size_t			 i;

	if (!rule_any_transparent(r))
		return 0;
#if !defined(IP_TRANSPARENT) || !defined(IPV6_TRANSPARENT)
	(void)g;
	(void)i;
	return conf_fail(ld, m != NULL ? m : rule, "\"transparent\" needs "
	    "Linux's IP_TRANSPARENT, which this system does not have");
#else
	if (r->nroutes == 0)
		return dest_transparent(ld, m, r, r);
	/* The rule's transparent is each route's (route_dest_inherit). */
	for (i = 0; i < r->nroutes; i++) {
		if (!r->transparent && !r->routes[i].dest.transparent)
			continue;
		g = config_setting_get_elem(config_setting_get_member(rule,
		    "routes"), (unsigned)i);
		if (dest_transparent(ld, r->routes[i].dest.transparent ?
		    config_setting_get_member(g, "transparent") : m, r,
		    &r->routes[i].dest) == -1)
			return -1;
	}
	return 0;
#endif
}

/*
 * The rule's name: as written (letters, digits and RULE_NAME_CHARS), or
 * its listen address as written, a range whole, with "/udp" after it
 * for a UDP listener, as rinetd writes one.
 */
static int
rule_name(struct conf_loader *ld, const config_setting_t *rule,
    struct rule *r)
{
	const config_setting_t	*m = config_setting_get_member(rule, "name");
	const char		*p;
	size_t			 len;

	if (r->name == NULL) {
		len = strlen(r->listen) + sizeof("/udp");
		if ((r->name = malloc(len)) == NULL)
			return conf_fail(ld, rule, "out of memory");
		snprintf(r->name, len, "%s%s", r->listen,
		    r->protocol == RULE_UDP ? "/udp" : "");
		return 0;
	}
	r->name_given = true;
	if (r->name[0] == '\0' || strlen(r->name) > RULE_NAME_MAX)
		return conf_fail(ld, m, "\"name\" must have 1 to %d "
		    "characters", RULE_NAME_MAX);
	for (p = r->name; *p != '\0'; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && strchr(RULE_NAME_CHARS,
		    *p) == NULL)
			return conf_fail(ld, m, "\"name\" \"%s\": '%c' is not "
			    "allowed (letters, digits and %s only)", r->name,
			    *p, RULE_NAME_CHARS);
	return 0;
}

/* Resolve the rule's listen or connect address; spec NULL = not written. */
static int
rule_address(struct conf_loader *ld, const config_setting_t *rule,
    const char *name, const char *spec, int passive, struct sockaddr_any *out)
{
	char	why[CONF_ERR_MAX];

	if (spec == NULL)
		return conf_fail(ld, rule, "rule is missing required setting "
		    "\"%s\"", name);
	if (addr_resolve(spec, passive, out, why, sizeof(why)) == -1) {
		ld->failure = CONF_FAILED_ADDRESS;
		return conf_fail(ld, config_setting_get_member(rule, name),
		    "\"%s\": %s", name, why);
	}
	return 0;
}

/* ipv6_only is a setting of IPv6 sockets only. */
static int
rule_ipv6_only(struct conf_loader *ld, const config_setting_t *rule,
    const struct rule *r)
{
	const config_setting_t	*m;

	m = config_setting_get_member(rule, "ipv6_only");
	if (m != NULL && r->listen_addr.ss.ss_family != AF_INET6)
		return conf_fail(ld, m, "\"ipv6_only\" is only valid with an IPv6 "
		    "listen address (listen is \"%s\")", r->listen);
	return 0;
}

/*
 * The ports rule group s listens on ("host:lo-hi" makes a rule per port)
 * into *n, and into *addrs (free() it) the *naddrs addresses of its
 * host: a name such as localhost makes a rule per address too, as nginx
 * and sslh bind every address a name has.  Anything wrong with listen is
 * parse_rule()'s to report: *naddrs is then 0.
 */
static int
rule_ports(struct conf_loader *ld, const config_setting_t *s, unsigned *n,
    struct sockaddr_any **addrs, size_t *naddrs)
{
	const config_setting_t	*m;
	char			 base[CONF_ERR_MAX], why[CONF_ERR_MAX];

	*n = 1;
	*addrs = NULL;
	*naddrs = 0;
	if (!config_setting_is_group(s) ||
	    (m = config_setting_get_member(s, "listen")) == NULL ||
	    config_setting_type(m) != CONFIG_TYPE_STRING)
		return 0;
	if (addr_split_range(config_setting_get_string(m), base, sizeof(base),
	    n, why, sizeof(why)) == -1)
		return conf_fail(ld, m, "\"listen\": %s", why);
	if (addr_resolve_all(base, 1, addrs, naddrs, why, sizeof(why)) == -1)
		*naddrs = 0;
	return 0;
}

/*
 * Parse rules[idx] from s, the group at index elem of the list, whose
 * listen has nports ports.  Settings it does not override stay UNSET (or
 * 0 for buffer_size) until the whole file is read, because the top-level
 * value they inherit may come after the rules.
 */
static int
parse_rule(struct conf_loader *ld, const config_setting_t *s,
    struct rule *r, int elem, unsigned nports)
{
	struct conf_line	 origin;
	char			 base[CONF_ERR_MAX], why[CONF_ERR_MAX];
	unsigned		 n;

	if (!config_setting_is_group(s))
		return conf_fail(ld, s, "a rule must be a group { listen = \"...\"; "
		    "connect = \"...\"; } (got %s)", conf_type_name(s));
	origin = conf_text_origin(ld->text, config_setting_source_line(s));
	r->line = origin.line;
	r->elem = elem;
	if ((r->file = strdup(origin.file != NULL ? origin.file :
	    ld->path)) == NULL)
		return conf_fail(ld, s, "out of memory");
	r->ipv6_only = true;
	r->buffer_size = 0;
	r->connect_timeout = UNSET;
	r->idle_timeout = UNSET;
	r->session_timeout = r->max_sessions = UNSET;
	r->splice = r->sndbuf = r->rcvbuf = UNSET;
	r->connect_protocol = UNSET;
	r->proxy_timeout = UNSET;
	r->queue_max = DEFAULT_QUEUE_MAX;
	r->max_connections_per_client = r->connection_rate = UNSET;
	r->max_sessions_per_client = r->session_rate = UNSET;
	r->peek_timeout = UNSET;
	r->on_timeout = -1;
	conf_rule_unix_init(r);
	if (conf_parse_members(ld, s, &conf_rule_keys, r) == -1)
		return -1;
	if (r->connect_protocol == UNSET)
		r->connect_protocol = r->protocol;
	if (r->listen != NULL && rule_name(ld, s, r) == -1)
		return -1;
	/* A port range: this rule is its first port's. */
	r->nports = nports;
	if (nports > 1) {
		if (addr_split_range(r->listen, base, sizeof(base), &n, why,
		    sizeof(why)) == -1 || n != nports)
			return conf_fail(ld, config_setting_get_member(s,
			    "listen"), "\"listen\": not the range it was");
		free(r->listen);
		if ((r->listen = strdup(base)) == NULL)
			return conf_fail(ld, s, "out of memory");
	}
	if (rule_address(ld, s, "listen", r->listen, 1, &r->listen_addr) == -1 ||
	    conf_rule_routes(ld, s, r, nports) == -1 ||
	    rule_ipv6_only(ld, s, r) == -1 || rule_protocol_keys(ld, s, r) == -1 ||
	    rule_proxy_keys(ld, s, r) == -1 || conf_rule_unix(ld, s, r) == -1 ||
	    rule_transparent(ld, s, r) == -1 || rule_tcp_options(ld, s, r) == -1)
		return -1;
	return 0;
}

/*
 * Port offset of a range: the rule of first's port + offset, sharing what
 * does not change with the port (conf_free() knows).
 */
static int
clone_rule(struct rule *dst, const struct rule *first, unsigned offset)
{
	char	spec[CONF_ERR_MAX];
	unsigned port = addr_port((const void *)&first->listen_addr.ss) +
	    offset;
	size_t	i;

	*dst = *first;
	dst->range_first = first;
	dst->listen = NULL;		/* its own, and conf_free() frees it */
	dst->upstream.backends = NULL;
	dst->upstream.state = NULL;	/* its own, made below */
	dst->routes = NULL;		/* ditto */
	addr_set_port(&dst->listen_addr, port);
	if (addr_with_port(first->listen, port, spec, sizeof(spec)) == -1 ||
	    (dst->listen = strdup(spec)) == NULL)
		return -1;
	dst->upstream.backends = malloc(first->upstream.nbackends *
	    sizeof(*dst->upstream.backends));
	if (dst->upstream.backends == NULL)
		return -1;
	for (i = 0; i < first->upstream.nbackends; i++) {
		dst->upstream.backends[i] = first->upstream.backends[i];
		if (first->upstream.backends[i].ranged)
			addr_set_port(&dst->upstream.backends[i].addr,
			    addr_port((const void *)&first->upstream.
			    backends[i].addr.ss) + offset);
	}
	if (conf_upstream_state(&dst->upstream) == -1)
		return -1;
	return first->nroutes > 0 ? conf_routes_clone(dst, first) : 0;
}

/*
 * The rules of group s, the element at i, at rules: its first (parsed),
 * then a clone for each other port of a range and each other address of
 * its host (addrs, naddrs): port j % ports of address j / ports.  How
 * many rules, or -1.
 */
static int
parse_rule_clones(struct conf_loader *ld, const config_setting_t *s, int i,
    struct conf *cfg, size_t idx, size_t room)
{
	struct sockaddr_any	*addrs;
	struct rule		*first = &cfg->rules[idx];
	size_t			 naddrs, count, j;
	unsigned		 ports, port;
	int			 rc = -1;

	if (rule_ports(ld, s, &ports, &addrs, &naddrs) == -1)
		return -1;
	count = (size_t)ports * (naddrs > 1 ? naddrs : 1);
	if (count > room) {
		conf_fail(ld, config_setting_get_member(s, "listen"),
		    "\"listen\": its host's addresses changed while the file "
		    "was read; try again");
		goto out;
	}
	cfg->nrules = idx + 1;
	if (parse_rule(ld, s, first, i, ports) == -1)
		goto out;
	/* The resolver may rotate: the first address is the list's. */
	if (naddrs > 1) {
		port = addr_port((const void *)&first->listen_addr.ss);
		first->listen_addr = addrs[0];
		addr_set_port(&first->listen_addr, port);
	}
	for (j = 1; j < count; j++) {
		cfg->nrules = idx + j + 1;
		if (clone_rule(&cfg->rules[idx + j], first,
		    (unsigned)(j % ports)) == -1) {
			conf_fail(ld, s, "out of memory");
			goto out;
		}
		if (j / ports > 0) {
			port = addr_port((const void *)&cfg->rules[idx + j].
			    listen_addr.ss);
			cfg->rules[idx + j].listen_addr = addrs[j / ports];
			addr_set_port(&cfg->rules[idx + j].listen_addr, port);
		}
	}
	rc = (int)count;
out:
	free(addrs);
	return rc;
}

int
conf_parse_rules(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct conf		*cfg = base;
	struct sockaddr_any	*addrs;
	unsigned		 ports;
	size_t			 total = 0, idx = 0, naddrs;
	int			 i, n, made;

	if (!config_setting_is_list(s) && !config_setting_is_array(s))
		return conf_fail(ld, s, "\"%s\" must be a list of rules, "
		    "( { listen = ...; connect = ...; }, ... ) (got %s)",
		    k->name, conf_type_name(s));
	if ((n = config_setting_length(s)) == 0)
		return conf_fail(ld, s, "\"%s\" is empty: at least one rule is "
		    "needed", k->name);
	for (i = 0; i < n; i++) {
		if (rule_ports(ld, config_setting_get_elem(s, i), &ports,
		    &addrs, &naddrs) == -1)
			return -1;
		free(addrs);
		total += (size_t)ports * (naddrs > 1 ? naddrs : 1);
	}
	if ((cfg->rules = calloc(total, sizeof(*cfg->rules))) == NULL)
		return conf_fail(ld, s, "out of memory");
	for (i = 0; i < n; i++) {
		if ((made = parse_rule_clones(ld, config_setting_get_elem(s, i),
		    i, cfg, idx, total - idx)) == -1)
			return -1;
		idx += (size_t)made;
	}
	return conf_check_rules(ld, s, cfg);
}

/*
 * FNV-1a of a rule's name: the rule in client_limit.c's tables, which
 * workers of two generations share across a reload.  Never 0, which
 * marks an empty entry.
 */
static uint64_t
rule_client_key(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *name != '\0'; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ULL;
	return h != 0 ? h : 1;
}

void
conf_rules_inherit(struct conf *cfg)
{
	struct rule	*r;
	size_t		 i, j;

	cfg->nbackends = cfg->nrule_stats = cfg->nbackend_stats = 0;
	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		/* Numbered across rules: a cell each in shared tables. */
		for (j = 0; j < r->upstream.nbackends; j++)
			r->upstream.backends[j].id = (unsigned)cfg->nbackends++;
		/* Counters: a range's ports count as the range. */
		r->stat = r->range_first != NULL ? r->range_first->stat :
		    (unsigned)cfg->nrule_stats++;
		for (j = 0; j < r->upstream.nbackends; j++)
			r->upstream.backends[j].stat = r->range_first != NULL ?
			    r->range_first->upstream.backends[j].stat :
			    (unsigned)cfg->nbackend_stats++;
		if (r->buffer_size == 0)
			r->buffer_size = cfg->buffer_size;
		if (r->connect_timeout == UNSET)
			r->connect_timeout = cfg->connect_timeout;
		if (r->idle_timeout == UNSET)
			r->idle_timeout = cfg->idle_timeout;
		if (r->session_timeout == UNSET)
			r->session_timeout = cfg->session_timeout;
		if (r->max_sessions == UNSET)
			r->max_sessions = cfg->max_sessions;
		if (r->splice == UNSET)
			r->splice = cfg->splice;
		/* A UDP listener counts its clients' sessions instead. */
		if (r->protocol == RULE_UDP) {
			r->max_connections_per_client =
			    r->max_sessions_per_client != UNSET ?
			    r->max_sessions_per_client :
			    cfg->max_sessions_per_client;
			r->connection_rate = r->session_rate != UNSET ?
			    r->session_rate : cfg->session_rate;
			/* What -T writes back. */
			r->max_sessions_per_client =
			    r->max_connections_per_client;
			r->session_rate = r->connection_rate;
		}
		if (r->max_connections_per_client == UNSET)
			r->max_connections_per_client =
			    cfg->max_connections_per_client;
		if (r->connection_rate == UNSET)
			r->connection_rate = cfg->connection_rate;
		r->client_key = rule_client_key(r->name);
		if (r->sndbuf == UNSET)
			r->sndbuf = cfg->sndbuf;
		if (r->rcvbuf == UNSET)
			r->rcvbuf = cfg->rcvbuf;
		if (!r->health_check.enabled)
			r->health_check = cfg->health_check;
		if (!r->keepalive.enabled)
			r->keepalive = cfg->keepalive;
		conf_routes_inherit(&cfg->nrule_stats, r);
	}
}
