/*
 * route.h - content routing on a rule (issue 25; UDP, issue 37): an
 * ordered list of routes, each with what it matches in the client's
 * first bytes (probe.h) and where it goes.  The peek stage (tcp_peek.c)
 * picks the first route that matches; the session then connects to that
 * route's upstream as it would to a rule's.  On a UDP rule, a session's
 * first datagrams pick it (udp_route.c).
 *
 * A route's destination is a struct rule of its own (route->dest): a
 * copy of its rule's settings with the route's connect, balance,
 * send_proxy, health_check, connect_timeout and source, so that
 * tcp_connect.c, balance.c and health.c serve it unchanged.  Its
 * backends live in its rule's upstream too (a slice of it, each
 * backend's route naming the route), so that whatever walks a rule's
 * backends (the checker, health and counters carried over a reload,
 * the control socket, forwarding-loop checks) walks the routes' as well.
 */
#ifndef FERRYD_ROUTE_H
#define FERRYD_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <regex.h>

#include "rule.h"

/* What a route's protocol key names; in the order ROUTES.md lists. */
enum route_protocol {
	ROUTE_ANY = 0,		/* anything: no probe */
	ROUTE_TLS,
	ROUTE_SSH,
	ROUTE_HTTP,
	ROUTE_OPENVPN,
	ROUTE_SOCKS5,
	ROUTE_XMPP,
	ROUTE_ADB,
	ROUTE_SYSLOG,
	ROUTE_MSRDP,
	ROUTE_WIREGUARD,	/* UDP only (probe_udp.c) */
	ROUTE_TEAMSPEAK,	/* UDP only */
	ROUTE_QUIC		/* UDP only: the ClientHello in QUIC's
				 * Initial packets (sni, alpn, no_sni on a
				 * UDP rule) */
};

#define ROUTE_PROTOCOLS		13

/*
 * A rule's probes key: how its routes judge the first bytes.  ferryd's
 * own probes, the first route in order that matches, one undecided
 * holding back those after it; or sslh's (ferryd --sslh writes it), as
 * sslh decides: its looser probes (probe_sslh.c), every route asked at
 * every look, what none takes going to the last route (tcp_peek.c).
 */
enum route_probes {
	ROUTE_PROBES_STRICT = 0,
	ROUTE_PROBES_SSLH
};
#define ROUTE_MIN_LENGTH_MAX	16384	/* PROBE_PEEK_MAX (probe.h) */
#define DEFAULT_PEEK_TIMEOUT	5000	/* ms, as sslh's timeout */
#define ROUTES_MAX		64	/* routes of one rule */

/* sni, alpn, host: names as written (lower-cased, but for alpn). */
struct route_names {
	char	**v;
	size_t	  n;
};

struct route {
	char		   *name;	/* as written */
	int		    protocol;	/* enum route_protocol */
	struct route_names  sni;	/* "*.x" matches under x */
	struct route_names  alpn;
	struct route_names  host;
	bool		    no_sni;	/* a hello without SNI matches */
	int		    min_length;	/* judged once this many bytes
					 * are in (sslh's minlength) */
	regex_t		   *regex;	/* POSIX extended, compiled */
	size_t		    nregex;
	struct route_names  regex_text;	/* ... as written, for -T */
	int		    line;	/* of the route, for messages */
	bool		    sliced;	/* dest's backends are the rule's */
	/* Where it goes: the rule's settings, the route's upstream. */
	struct rule	    dest;
};

/* Whether route rt matches anything (no match key at all). */
static inline bool
route_is_default(const struct route *rt)
{
	return rt->protocol == ROUTE_ANY && rt->nregex == 0 &&
	    rt->min_length == 0;
}

/*
 * Where rule r's connections go: r itself, or each of its routes'
 * destinations (whose backends are all of r's): rule_dest(r, i) for i
 * below rule_ndests(r).
 */
static inline size_t
rule_ndests(const struct rule *r)
{
	return r->nroutes > 0 ? r->nroutes : 1;
}

static inline const struct rule *
rule_dest(const struct rule *r, size_t i)
{
	return r->nroutes > 0 ? &r->routes[i].dest : r;
}

/* The destination of rule r that backend b (of r's upstream) is of. */
static inline const struct rule *
rule_dest_of(const struct rule *r, const struct backend *b)
{
	size_t	i;

	for (i = 0; i < r->nroutes; i++)
		if ((size_t)(b - r->routes[i].dest.upstream.backends) <
		    r->routes[i].dest.upstream.nbackends)
			return &r->routes[i].dest;
	return r;
}

/*
 * Whether a connection of rule r may leave from its client's address:
 * r's transparent, or a route's (sslh's per-protocol transparent).
 */
static inline bool
rule_any_transparent(const struct rule *r)
{
	size_t	i;

	for (i = 0; i < r->nroutes; i++)
		if (r->routes[i].dest.transparent)
			return true;
	return r->transparent;
}

/* Whether a route of r reads QUIC Initials (udp_route.c). */
static inline bool
rule_has_quic(const struct rule *r)
{
	size_t	i;

	for (i = 0; i < r->nroutes; i++)
		if (r->routes[i].protocol == ROUTE_QUIC)
			return true;
	return false;
}

/* The protocol names as in the configuration, by enum route_protocol. */
extern const char *const route_protocol_names[];
/* The probes key's values, by enum route_probes. */
extern const char *const route_probes_names[];

/* What makes a name of sni, host or alpn a glob (fnmatch(3)). */
#define ROUTE_GLOB_CHARS	"*?[]!"

/*
 * Whether name matches pattern: exactly, or as fnmatch(3) has it when
 * pattern has ROUTE_GLOB_CHARS (a '*' matches dots too).
 */
bool	route_glob_match(const char *pattern, const char *name);

/*
 * Whether a pattern of rt's regex matches the len bytes at look; look
 * has room for one more byte (a NUL, where regexec needs one).
 */
bool	route_regex_match(const struct route *rt, uint8_t *look, size_t len);

/*
 * Whether name (lower case) is one of names: equal, or under a "*.x"
 * entry (one label or more before x).
 */
bool	route_name_match(const struct route_names *names, const char *name);

/* Whether protocol name is one of rt's alpn (or their globs). */
bool	route_alpn_match(const struct route *rt, const char *name);

struct probe_tls;
/*
 * Whether a ClientHello's SNI and ALPN (tls, its parser's results) are
 * what rt asks: sni or no_sni, and any of alpn's offered.
 */
bool	route_tls_match(const struct route *rt, const struct probe_tls *tls);

#endif
