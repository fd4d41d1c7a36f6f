/*
 * test_route.c - routes in the loaded configuration (route.h): a
 * route's destination inherits what it did not set, its backends are a
 * slice of its rule's that name it, and names match exactly or under a
 * "*." wildcard, whatever their case was in the file.  Then the peek
 * (tcp_peek.c) over a socket pair, whole and a byte at a time: the
 * route that probes = "sslh" picks as sslh would, beside ferryd's own;
 * and what a UDP rule's routes make of one datagram (udp_route.c).
 */
#include "ferryd.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conf.h"
#include "pool.h"
#include "route.h"
#include "rule.h"
#include "tcp_peek.h"
#include "udp_route.h"
#include "testlib.h"
#include "upstream.h"
#include "xprt.h"

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

/*
 * Rules to peek with: sslh's probes (s1 to s5), and s1's routes with
 * ferryd's own (t1).
 */
#define PEEK_RULE(name, port, probes, routes) \
    "  { name = \"" name "\"; listen = \"127.0.0.1:" port "\"; " probes \
    " routes = ( " routes " ); }"
#define S1_ROUTES \
    "{ name = \"x\"; protocol = \"xmpp\"; connect = \"127.0.0.1:1\"; }," \
    "{ name = \"s\"; protocol = \"ssh\"; connect = \"127.0.0.1:2\"; }," \
    "{ name = \"h\"; protocol = \"http\"; connect = \"127.0.0.1:3\"; }," \
    "{ name = \"a\"; connect = \"127.0.0.1:4\"; }"

static const char peek_text[] = "rules = (\n"
    PEEK_RULE("s1", "18501", "probes = \"sslh\";", S1_ROUTES)
    ",\n"
    PEEK_RULE("s2", "18502", "probes = \"sslh\";",
    "{ name = \"s\"; protocol = \"ssh\"; connect = \"127.0.0.1:1\"; },"
    "{ name = \"t\"; protocol = \"tls\"; connect = \"127.0.0.1:2\"; }")
    ",\n"
    PEEK_RULE("s3", "18503", "probes = \"sslh\";",
    "{ name = \"r\"; regex = \"^x\"; min_length = 10; "
    "connect = \"127.0.0.1:1\"; },"
    "{ name = \"s\"; protocol = \"ssh\"; connect = \"127.0.0.1:2\"; },"
    "{ name = \"a\"; connect = \"127.0.0.1:3\"; }")
    ",\n"
    PEEK_RULE("s4", "18504", "probes = \"sslh\";",
    "{ name = \"o\"; protocol = \"openvpn\"; connect = \"127.0.0.1:1\"; },"
    "{ name = \"a\"; connect = \"127.0.0.1:2\"; }")
    ",\n"
    PEEK_RULE("s5", "18505", "probes = \"sslh\";",
    "{ name = \"www\"; sni = \"www.example.org\"; "
    "connect = \"127.0.0.1:1\"; },"
    "{ name = \"t\"; protocol = \"tls\"; connect = \"127.0.0.1:2\"; },"
    "{ name = \"a\"; connect = \"127.0.0.1:3\"; }")
    ",\n"
    PEEK_RULE("t1", "18506", "", S1_ROUTES)
    "\n);\n";

/* How the client ends: not, after its bytes, or with them (its FIN in). */
enum peek_end { END_NONE, END_AFTER, END_WITH };

static struct pool	*peek_pool;
static struct tcp_peek	 peek;

/*
 * What the peek of rule r makes of len bytes sent step at a time, each
 * looked at: a route's name, "(again)" while undecided, "(unmatched)"
 * or "(status N)".
 */
static const char *
peek_pick(const struct rule *r, const void *buf, size_t len, size_t step,
    enum peek_end end)
{
	const struct route	*rt = NULL;
	enum tcp_peek_status	 st = TCP_PEEK_AGAIN;
	static char		 other[32];
	size_t			 at, n;
	int			 sv[2], err;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1 ||
	    fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1)
		abort();
	tcp_peek_init(&peek);
	for (at = 0; at < len && st == TCP_PEEK_AGAIN; at += n) {
		n = len - at < step ? len - at : step;
		if (write(sv[1], (const char *)buf + at, n) != (ssize_t)n)
			abort();
		if (at + n == len && end == END_WITH)
			shutdown(sv[1], SHUT_WR);
		st = tcp_peek_look(&peek, sv[0], &xprt_raw, peek_pool, r,
		    at + n == len && end == END_WITH, &rt, &err);
	}
	if (st == TCP_PEEK_AGAIN && end == END_AFTER) {
		shutdown(sv[1], SHUT_WR);
		st = tcp_peek_look(&peek, sv[0], &xprt_raw, peek_pool, r,
		    true, &rt, &err);
	}
	tcp_peek_end(&peek, peek_pool);
	close(sv[0]);
	close(sv[1]);
	if (st == TCP_PEEK_ROUTE)
		return rt->name;
	snprintf(other, sizeof(other), st == TCP_PEEK_AGAIN ? "(again)" :
	    st == TCP_PEEK_UNMATCHED ? "(unmatched)" : "(status %d)", st);
	return other;
}

/* A rule by name. */
static const struct rule *
rule_named(const struct conf *cfg, const char *name)
{
	size_t	i;

	for (i = 0; i < cfg->nrules; i++)
		if (streq(cfg->rules[i].name, name))
			return &cfg->rules[i];
	abort();
}

/*
 * Rule's peek on text, whole and a byte at a time, must pick whole and
 * bytewise (the same but where sslh's own would differ).
 */
static void
check_pick(const struct conf *cfg, const char *rule, const char *desc,
    const void *buf, size_t len, const char *whole, const char *bytewise)
{
	const struct rule	*r = rule_named(cfg, rule);
	const char		*got;

	got = peek_pick(r, buf, len, len, END_NONE);
	check(streq(got, whole), "%s: %s: %s whole (got %s)", rule, desc,
	    whole, got);
	got = peek_pick(r, buf, len, 1, END_NONE);
	check(streq(got, bytewise), "%s: %s: %s byte by byte (got %s)", rule,
	    desc, bytewise, got);
}

static void
check_pick_text(const struct conf *cfg, const char *rule, const char *desc,
    const char *text, const char *whole, const char *bytewise)
{
	check_pick(cfg, rule, desc, text, strlen(text), whole, bytewise);
}

/* A ClientHello for www.Example.org with a stray byte after it. */
static size_t
stray_hello(uint8_t *buf, size_t size)
{
	const char	*srcdir = getenv("top_srcdir");
	char		 path[PATH_MAX];
	size_t		 n, len;
	FILE		*f;

	snprintf(path, sizeof(path), "%s/tests/fuzz/probe/"
	    "tls-openssl-sni-alpn.bin", srcdir != NULL ? srcdir : ".");
	if ((f = fopen(path, "rb")) == NULL)
		abort();
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n++] = 0;
	len = ((size_t)buf[3] << 8 | buf[4]) + 1;
	buf[3] = (uint8_t)(len >> 8);
	buf[4] = (uint8_t)len;
	len = ((size_t)buf[7] << 8 | buf[8]) + 1;	/* under 64 KiB */
	buf[7] = (uint8_t)(len >> 8);
	buf[8] = (uint8_t)len;
	return n;
}

static void
test_peek(const struct conf *cfg)
{
	static const char	vpn[] = "\000\016\010\001\002\003\004\005\006"
	    "\007\010\000\000\000\000\000";
	static uint8_t		hello[1024];
	size_t			n;

	check_pick_text(cfg, "s1", "SSH-2.0 hello", "SSH-2.0 hello\r\n",
	    "s", "s");
	check_pick_text(cfg, "t1", "ferryd's own: SSH-2.0 hello",
	    "SSH-2.0 hello\r\n", "a", "a");
	check_pick_text(cfg, "s1", "a match past a route that waits (xmpp, "
	    "under 50 bytes)", "SSH-2.0-OpenSSH_9.2\r\n", "s", "s");
	check_pick_text(cfg, "s1", "a request line, no blank line",
	    "GET / HTTP/1.1\r\n", "h", "h");
	check_pick_text(cfg, "t1", "ferryd's own: a request line, no blank "
	    "line", "GET / HTTP/1.1\r\n", "(again)", "(again)");
	check_pick_text(cfg, "s1", "a short unknown packet waits (xmpp, "
	    "http)", "hi\r\n", "(again)", "(again)");
	check_pick_text(cfg, "t1", "ferryd's own: a short unknown packet",
	    "hi\r\n", "a", "a");
	check_pick_text(cfg, "s1", "60 bytes of nothing known: the last",
	    "0123456789012345678901234567890123456789012345678901234567890",
	    "a", "a");
	check_pick_text(cfg, "s2", "none matches, none waits: the last, "
	    "whatever its protocol", "hello, a longer line", "t", "t");
	check_pick_text(cfg, "s3", "min_length holds back no route after it",
	    "SSH-2.0-x", "s", "s");
	check_pick_text(cfg, "s3", "min_length reached", "x0123456789",
	    "r", "r");
	/* sslh's OpenVPN probe says no at the second byte of a byte-wise
	 * client: then nothing waits. */
	check_pick(cfg, "s4", "an OpenVPN length", vpn, sizeof(vpn) - 1, "o",
	    "a");
	n = stray_hello(hello, sizeof(hello));
	check_pick(cfg, "s5", "a hello with a stray byte, www.Example.org",
	    hello, n, "www", "www");
	check(streq(peek.sni, "www.example.org"), "s5: the name noted, "
	    "lower-cased (%s)", peek.sni);
	hello[1] = 2;
	check_pick(cfg, "s5", "a hello of record version 2.x", hello, n, "a",
	    "a");
	check(streq(peek_pick(rule_named(cfg, "s1"), "hi", 2, 2, END_AFTER),
	    "a"), "s1: undecided, then the client's end: the last route");
	check(streq(peek_pick(rule_named(cfg, "s1"), "hi", 2, 2, END_WITH),
	    "a"), "s1: undecided, its FIN with its bytes: the last route");
	check(streq(peek_pick(rule_named(cfg, "t1"), "GET /", 5, 5,
	    END_WITH), "(again)"), "t1: ferryd's own wait for on_timeout");
}

/* UDP rules: ferryd's order, and sslh's (udp_route.c). */
static const char udp_text[] = "rules = (\n"
    "{ name = \"u\"; listen = \"127.0.0.1:18601\"; protocol = \"udp\";\n"
    "  routes = (\n"
    "    { name = \"vpn\"; protocol = \"openvpn\"; connect = \"127.0.0.1:1\"; },\n"
    "    { name = \"wg\"; protocol = \"wireguard\"; connect = \"127.0.0.1:2\"; },\n"
    "    { name = \"long\"; regex = \"^L\"; min_length = 8;\n"
    "      connect = \"127.0.0.1:3\"; } ); },\n"
    "{ name = \"s\"; listen = \"127.0.0.1:18602\"; protocol = \"udp\";\n"
    "  probes = \"sslh\";\n"
    "  routes = (\n"
    "    { name = \"long\"; regex = \"^L\"; min_length = 8;\n"
    "      connect = \"127.0.0.1:3\"; },\n"
    "    { name = \"ts\"; protocol = \"teamspeak\"; connect = \"127.0.0.1:4\"; },\n"
    "    { name = \"any\"; connect = \"127.0.0.1:5\"; } ); } );\n";

/* What rule's routes make of one datagram: a name, "(again)", "(no)". */
static const char *
udp_pick(const struct conf *cfg, const char *rule, const char *d,
    size_t len)
{
	static uint8_t		 buf[256];
	const struct route	*rt;
	enum probe_verdict	 v;

	memcpy(buf, d, len);
	rt = udp_route_pick(rule_named(cfg, rule), buf, len, NULL, &v);
	return rt != NULL ? rt->name : v == PROBE_AGAIN ? "(again)" : "(no)";
}

static void
test_udp(const struct conf *cfg)
{
	static const struct {
		const char	*rule, *desc, *d;
		size_t		 len;
		const char	*want;
	} cases[] = {
		{ "u", "a hard reset", "\x38" "01234567" "\0" "\0\0\0\0", 14,
		    "vpn" },
		{ "u", "a hard reset of key id 1", "\x39" "01234567" "\0"
		    "\0\0\0\0", 14, "(no)" },
		{ "u", "not WireGuard's 148 bytes, below long's min_length",
		    "\x01\0\0\0", 4, "(again)" },
		{ "u", "short of min_length: undecided", "L", 1, "(again)" },
		{ "u", "min_length reached", "LLLLLLLL", 8, "long" },
		{ "u", "no route and no default", "xxxxxxxxxx", 10, "(no)" },
		{ "s", "sslh: short of min_length, then any waits", "ab", 2,
		    "(again)" },
		{ "s", "sslh: TS3INIT1 alone", "TS3INIT1", 8, "ts" },
		{ "s", "sslh: TS3INIT1 and more", "TS3INIT1x", 9, "any" },
		{ "s", "sslh: what no route takes to the last", "xxxxxxxxx", 9,
		    "any" },
	};
	char	wg[148] = { 1 };
	size_t	i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(streq(udp_pick(cfg, cases[i].rule, cases[i].d,
		    cases[i].len), cases[i].want), "%s: %s: %s (got %s)",
		    cases[i].rule, cases[i].desc, cases[i].want,
		    udp_pick(cfg, cases[i].rule, cases[i].d, cases[i].len));
	check(streq(udp_pick(cfg, "u", wg, sizeof(wg)), "wg"),
	    "u: a WireGuard handshake initiation: wg");
}

int
main(void)
{
	char		 path[PATH_MAX];
	struct conf	*cfg;

	make_tmpdir("test_route");
	cfg = load_good("routes.conf", text, path, sizeof(path),
	    "a file with routes");
	if (cfg != NULL)
		test_loaded(cfg);
	conf_free(cfg);
	cfg = load_good("peek.conf", peek_text, path, sizeof(path),
	    "rules to peek with");
	if (cfg != NULL && (peek_pool = pool_new()) != NULL) {
		test_peek(cfg);
		pool_free(peek_pool);
	}
	conf_free(cfg);
	cfg = load_good("udp.conf", udp_text, path, sizeof(path),
	    "UDP rules with routes");
	if (cfg != NULL)
		test_udp(cfg);
	conf_free(cfg);
	remove_tmpdir();
	return test_summary();
}
