/*
 * test_route.c - routes in the loaded configuration (route.h): a
 * route's destination inherits what it did not set, its backends are a
 * slice of its rule's that name it, and names match exactly or under a
 * "*." wildcard, whatever their case was in the file.
 */
#include "ferryd.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "route.h"
#include "rule.h"
#include "testlib.h"
#include "upstream.h"

static const char text[] =
    "connect_timeout = 7;\n"
    "rules = ( { name = \"m\"; listen = \"127.0.0.1:18443\";\n"
    "  send_proxy = \"v1\"; on_timeout = \"b\";\n"
    "  routes = (\n"
    "    { name = \"a\"; sni = [ \"WWW.Example.ORG\", \"*.Example.COM\" ];\n"
    "      connect = ( \"127.0.0.1:1\", \"127.0.0.1:2\" );\n"
    "      send_proxy = \"v2\"; connect_timeout = 2; },\n"
    "    { name = \"b\"; protocol = \"ssh\"; connect = \"127.0.0.1:1\";\n"
    "      balance = \"least-connections\"; },\n"
    "    { name = \"c\"; connect = \"127.0.0.1:3\"; }\n"
    "  ); } );\n";

static void
test_loaded(const struct conf *cfg)
{
	const struct rule	*r = &cfg->rules[0];
	const struct route	*a = &r->routes[0], *b = &r->routes[1];

	check(r->nroutes == 3 && r->upstream.nbackends == 4,
	    "three routes, their four backends in the rule's upstream");
	check(a->dest.upstream.backends == &r->upstream.backends[0] &&
	    b->dest.upstream.backends == &r->upstream.backends[2] &&
	    b->dest.upstream.nbackends == 1,
	    "each route's backends are a slice of the rule's");
	check(streq(r->upstream.backends[1].route, "a") &&
	    streq(r->upstream.backends[2].route, "b") &&
	    !backend_same_route(&r->upstream.backends[0],
	    &r->upstream.backends[2]),
	    "a backend names its route: 127.0.0.1:1 of a is not b's");
	check(rule_dest_of(r, &r->upstream.backends[3]) ==
	    &r->routes[2].dest, "rule_dest_of finds a backend's route");
	check(a->dest.send_proxy == 2 && a->dest.connect_timeout == 2000 &&
	    b->dest.send_proxy == 1 && b->dest.connect_timeout == 7000,
	    "send_proxy and connect_timeout: the route's, or the rule's");
	check(b->dest.upstream.balance == BALANCE_LEAST_CONNECTIONS &&
	    a->dest.upstream.balance == BALANCE_ROUND_ROBIN,
	    "balance: the route's own");
	check(streq(a->dest.name, "m/a") && a->dest.parent == r &&
	    a->dest.stat != r->stat && a->dest.stat != b->dest.stat,
	    "a route's destination: m/a, its own counters");
	check(r->on_timeout == 1 && r->peek_timeout == DEFAULT_PEEK_TIMEOUT,
	    "on_timeout names route 1; peek_timeout 5 s by default");
	check(a->protocol == ROUTE_TLS && b->protocol == ROUTE_SSH &&
	    route_is_default(&r->routes[2]),
	    "sni implies tls; a route without a match key is the default");
	check(route_name_match(&a->sni, "www.example.org") &&
	    route_name_match(&a->sni, "x.y.example.com") &&
	    !route_name_match(&a->sni, "example.com") &&
	    !route_name_match(&a->sni, "xexample.com") &&
	    !route_name_match(&a->sni, "wwww.example.org"),
	    "names: exact, a label or more under *., lower-cased at load");
}

int
main(void)
{
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	make_tmpdir("test_route");
	write_conf("routes.conf", text, path, sizeof(path));
	cfg = conf_load(path, err, sizeof(err));
	check(cfg != NULL, "a file with routes loads%s%s", cfg == NULL ?
	    ": " : "", cfg == NULL ? err : "");
	if (cfg != NULL)
		test_loaded(cfg);
	conf_free(cfg);
	remove_tmpdir();
	return test_summary();
}
