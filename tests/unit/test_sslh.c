/*
 * test_sslh.c - unit tests for ferryd --sslh: sslh's command line (as
 * Debian's DAEMON_OPTS gives it) and an sslh.cfg with every setting
 * convert to the expected ferryd.conf text, which loads into the rules
 * and routes it says; the command line goes over the file as sslh's does;
 * what ferryd cannot do as sslh does is refused at its sslh.cfg line,
 * also when only the loader finds it.
 */
#include "ferryd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "conf_sslh.h"
#include "log.h"
#include "proxy_proto.h"
#include "route.h"
#include "rule.h"
#include "testlib.h"

#define NARGS(a)	((int)(sizeof(a) / sizeof((a)[0])))

/* Debian's /etc/default/sslh, with addresses a test may use. */
static char *const daemon_opts[] = {
	"--user", "nobody", "--listen", "127.0.0.1:18601", "--ssh",
	"127.0.0.1:22", "--ssl", "127.0.0.1:443", "--pidfile",
	"/run/sslh/sslh.pid"
};

/* The end of a converted file's first line, and the comment after it. */
#define HEADER_END \
    " by ferryd " \
    PACKAGE_VERSION ".\n" \
    "#\n" \
    "# Each setting comes after the sslh setting it was made from (a line of\n" \
    "# sslh.cfg or an option).  Check the\n" \
    "# file with \"ferryd -t -c FILE\"; ferryd.conf(5) describes every " \
    "setting.\n" \
    "\n"

/* sslh's syslog and its line per connection, by default. */
#define SYSLOG_CONF \
    "# sslh's name in syslog, and its line for each connection\n" \
    "syslog_ident = \"sslh\";\n" \
    "syslog_facility = \"auth\";   # sslh's default\n" \
    "access_log = \"syslog\";\n"

static const char daemon_opts_conf[] =
    "# ferryd.conf converted from sslh's command line" HEADER_END
    "# sslh command line: --user nobody\n"
    "user = \"nobody\";\n"
    "# sslh command line: --pidfile /run/sslh/sslh.pid\n"
    "pidfile = \"/run/sslh/sslh.pid\";\n"
    SYSLOG_CONF
    "access_log_format = \"sslh\";\n"
    "\n"
    "rules = (\n"
    "  # sslh command line: --listen 127.0.0.1:18601\n"
    "  {\n"
    "    name = \"sslh\";\n"
    "    listen = \"127.0.0.1:18601\";\n"
    "    peek_timeout = 2;   # sslh's default\n"
    "    # sslh's on-timeout: ssh, else the first protocol\n"
    "    on_timeout = \"ssh\";\n"
    "    # sslh's probes, in sslh's order\n"
    "    probes = \"sslh\";\n"
    "    routes = (\n"
    "      # sslh command line: --ssh 127.0.0.1:22\n"
    "      { name = \"ssh\"; protocol = \"ssh\"; connect = "
    "\"127.0.0.1:22\"; },\n"
    "      # sslh command line: --ssl 127.0.0.1:443\n"
    "      # the last protocol: sslh gives it what no probe matched\n"
    "      { name = \"tls\"; protocol = \"tls\"; connect = \"127.0.0.1:4"
    "43\"; }\n"
    "    );\n"
    "  }\n"
    ");\n";

/* Every setting ferryd takes; lines numbered for the checks below. */
static const char sample[] =
    "# sslh.cfg with what ferryd takes\n"			/* 1 */
    "verbose: 1;\n"
    "foreground: true;\n"
    "numeric: true;\n"
    "transparent: false;\n"					/* 5 */
    "timeout: 3;\n"
    "user: \"nobody\";\n"
    "pidfile: \"/run/sslh-test.pid\";\n"
    "on_timeout: \"tls\";\n"
    "udp_max_connections: 100;\n"				/* 10 */
    "listen: (\n"
    "  { host: \"127.0.0.1\"; port: \"18602\"; },\n"
    "  { host: \"::1\"; port: 18603; keepalive: true; },\n"
    "  { host: \"127.0.0.1\"; port: \"18604\"; is_udp: true; }\n"
    ");\n"							/* 15 */
    "protocols: (\n"
    "  { name: \"tls\"; host: \"127.0.0.1\"; port: \"8443\";\n"
    "    sni_hostnames: [ \"Example.org\", \"*.example.org\" ];\n"
    "    alpn_protocols: [ \"h2\" ]; proxyprotocol: 2; },\n"
    "  { name: \"ssl\"; host: \"localhost\"; port: \"https\"; },\n" /* 20 */
    "  { name: \"ssh\"; host: \"127.0.0.1\"; port: \"22\"; fork: true;\n"
    "    tfo_ok: true; },\n"
    "  { name: \"http\"; host: \"127.0.0.1\"; port: \"80\"; },\n"
    "  { name: \"openvpn\"; host: \"127.0.0.1\"; port: \"1194\"; },\n"
    "  { name: \"xmpp\"; host: \"127.0.0.1\"; port: \"5222\"; },\n" /* 25 */
    "  { name: \"socks5\"; host: \"127.0.0.1\"; port: \"1080\"; },\n"
    "  { name: \"tinc\"; host: \"127.0.0.1\"; port: \"655\"; },\n"
    "  { name: \"regex\"; host: \"127.0.0.1\"; port: \"9000\";\n"
    "    regex_patterns: [ \"^GET /\\\\d+\", \"^\\\\x16\\\\x03\" ]; },\n"
    "  { name: \"anyprot\"; host: \"127.0.0.1\"; port: \"53\"; is_udp: true;\n"
    "    udp_timeout: 30; },\n"					/* 31 */
    "  { name: \"anyprot\"; host: \"127.0.0.1\"; port: \"9001\"; }\n"
    ");\n";

static const char sample_conf[] =
    "# ferryd.conf converted from sslh.cfg PATH" HEADER_END
    "# line 21: { name: \"ssh\"; host: \"127.0.0.1\"; port: \"22\"; for"
    "k: true;\n"
    "#   note: fork: ferryd's workers serve every connection\n"
    "# line 22: tfo_ok: true; },\n"
    "#   note: tfo_ok: ferryd connects without TCP Fast Open\n"
    "# line 7: user: \"nobody\";\n"
    "user = \"nobody\";\n"
    "# line 8: pidfile: \"/run/sslh-test.pid\";\n"
    "pidfile = \"/run/sslh-test.pid\";\n"
    SYSLOG_CONF
    "# line 4: numeric: true;\n"
    "access_log_format = \"sslh-numeric\";\n"
    "# line 2: verbose: 1;\n"
    "log_level = \"info\";\n"
    "# line 3: foreground: true;\n"
    "#   note: ferryd --sslh stays in the foreground; with this file: f"
    "erryd -f\n"
    "\n"
    "rules = (\n";

/* A route's name, protocol and number of regexes, to check the load. */
struct route_want {
	const char	*name;
	int		 protocol;
	size_t		 nsni, nalpn, nregex;
};

/* ... and its rules: the TCP ones alike, the UDP one plain. */
/* The routes of the sample's TCP rules, alike. */
#define SAMPLE_ROUTES \
    "    routes = (\n" \
    "      # line 17: { name: \"tls\"; host: \"127.0.0.1\"; port: \"844" \
    "3\";\n" \
    "      { name = \"tls\"; sni = [ \"Example.org\", \"*.example.org\"" \
    " ]; alpn = [ \"h2\" ]; connect = \"127.0.0.1:8443\"; send_proxy = " \
    "\"v2\"; },\n" \
    "      # line 20: { name: \"ssl\"; host: \"localhost\"; port: \"htt" \
    "ps\"; },\n" \
    "      { name = \"tls_2\"; protocol = \"tls\"; connect = \"localhos" \
    "t:https\"; },\n" \
    "      # line 21: { name: \"ssh\"; host: \"127.0.0.1\"; port: \"22" \
    "\"; fork: true;\n" \
    "      { name = \"ssh\"; protocol = \"ssh\"; connect = \"127.0.0.1:" \
    "22\"; },\n" \
    "      # line 23: { name: \"http\"; host: \"127.0.0.1\"; port: \"80" \
    "\"; },\n" \
    "      { name = \"http\"; protocol = \"http\"; connect = \"127.0.0." \
    "1:80\"; },\n" \
    "      # line 24: { name: \"openvpn\"; host: \"127.0.0.1\"; port: " \
    "\"1194\"; },\n" \
    "      { name = \"openvpn\"; protocol = \"openvpn\"; connect = \"12" \
    "7.0.0.1:1194\"; },\n" \
    "      # line 25: { name: \"xmpp\"; host: \"127.0.0.1\"; port: \"52" \
    "22\"; },\n" \
    "      { name = \"xmpp\"; protocol = \"xmpp\"; connect = \"127.0.0." \
    "1:5222\"; },\n" \
    "      # line 26: { name: \"socks5\"; host: \"127.0.0.1\"; port: \"" \
    "1080\"; },\n" \
    "      { name = \"socks5\"; protocol = \"socks5\"; connect = \"127." \
    "0.0.1:1080\"; },\n" \
    "      # line 27: { name: \"tinc\"; host: \"127.0.0.1\"; port: \"65" \
    "5\"; },\n" \
    "      { name = \"tinc\"; min_length = 2; regex = [ \"^0 \" ]; con" \
    "nect = \"127.0.0.1:655\"; },\n" \
    "      # line 28: { name: \"regex\"; host: \"127.0.0.1\"; port: \"9" \
    "000\";\n" \
    "      { name = \"regex\"; regex = [ \"^GET /[0-9]+\", \"^\\x16\\x0" \
    "3\" ]; connect = \"127.0.0.1:9000\"; },\n" \
    "      # line 32: { name: \"anyprot\"; host: \"127.0.0.1\"; port: " \
    "\"9001\"; }\n" \
    "      # the last protocol: sslh gives it what no probe matched\n" \
    "      { name = \"anyprot\"; connect = \"127.0.0.1:9001\"; }\n" \
    "    );\n"

static const char sample_rules[] =
    "  # line 12: { host: \"127.0.0.1\"; port: \"18602\"; },\n"
    "  {\n"
    "    name = \"sslh1\";\n"
    "    listen = \"127.0.0.1:18602\";\n"
    "    # line 6: timeout: 3;\n"
    "    peek_timeout = 3;\n"
    "    # line 9: on_timeout: \"tls\";\n"
    "    on_timeout = \"tls\";\n"
    "    # sslh's probes, in sslh's order\n"
    "    probes = \"sslh\";\n"
    SAMPLE_ROUTES
    "  },\n"
    "  # line 13: { host: \"::1\"; port: 18603; keepalive: true; },\n"
    "  {\n"
    "    name = \"sslh2\";\n"
    "    listen = \"[::1]:18603\";\n"
    "    # keepalive on the client's leg, with the kernel's timers as"
    " sslh has them\n"
    "    keepalive = { idle = 7200; interval = 75; count = 9; legs = "
    "\"client\"; };\n"
    "    # line 6: timeout: 3;\n"
    "    peek_timeout = 3;\n"
    "    # line 9: on_timeout: \"tls\";\n"
    "    on_timeout = \"tls\";\n"
    "    # sslh's probes, in sslh's order\n"
    "    probes = \"sslh\";\n"
    SAMPLE_ROUTES
    "  },\n"
    "  # line 14: { host: \"127.0.0.1\"; port: \"18604\"; is_udp: true;"
    " }\n"
    "  {\n"
    "    name = \"sslh3\";\n"
    "    listen = \"127.0.0.1:18604\";\n"
    "    protocol = \"udp\";\n"
    "    # line 30: { name: \"anyprot\"; host: \"127.0.0.1\"; port: \"5"
    "3\"; is_udp: true;\n"
    "    connect = \"127.0.0.1:53\";\n"
    "    session_timeout = 30;\n"
    "    # line 10: udp_max_connections: 100;\n"
    "    max_sessions = 100;\n"
    "  }\n"
    ");\n";

static const struct route_want sample_routes[] = {
	{ "tls", ROUTE_TLS, 2, 1, 0 }, { "tls_2", ROUTE_TLS, 0, 0, 0 },
	{ "ssh", ROUTE_SSH, 0, 0, 0 }, { "http", ROUTE_HTTP, 0, 0, 0 },
	{ "openvpn", ROUTE_OPENVPN, 0, 0, 0 },
	{ "xmpp", ROUTE_XMPP, 0, 0, 0 }, { "socks5", ROUTE_SOCKS5, 0, 0, 0 },
	{ "tinc", ROUTE_ANY, 0, 0, 1 }, { "regex", ROUTE_ANY, 0, 0, 2 },
	{ "anyprot", ROUTE_ANY, 0, 0, 0 }
};

static int
convert_args(int argc, char *const argv[], struct conf_conv *conv,
    bool *fg, char *err, size_t errlen)
{
	struct sslh_cmdline	cl;
	struct sslh_run		run;
	int			rc;

	if (sslh_cmdline_parse(argc, argv, &cl, err, errlen) == -1)
		return -1;
	cl.hosts_dir = tmpdir;		/* libwrap's files: none */
	rc = sslh_convert(&cl, conv, &run, err, errlen);
	*fg = run.foreground;
	sslh_cmdline_free(&cl);
	return rc;
}

static struct conf *
load_args(int argc, char *const argv[], char *err, size_t errlen)
{
	struct sslh_cmdline	 cl;
	struct conf		*cfg;

	if (sslh_cmdline_parse(argc, argv, &cl, err, errlen) == -1)
		return NULL;
	cl.hosts_dir = tmpdir;
	cfg = conf_load_sslh(&cl, NULL, err, errlen);
	sslh_cmdline_free(&cl);
	return cfg;
}

/* load_args(), for the status sslh would exit with: 0 when it loads. */
static int
load_status(int argc, char *const argv[])
{
	struct sslh_cmdline	 cl;
	struct conf		*cfg;
	char			 err[CONF_ERR_MAX];
	int			 status = 0;

	if (sslh_cmdline_parse(argc, argv, &cl, err, sizeof(err)) == -1)
		return SSLH_EXIT_USAGE;
	cl.hosts_dir = tmpdir;
	if ((cfg = conf_load_sslh(&cl, &status, err, sizeof(err))) != NULL) {
		conf_free(cfg);
		status = 0;
	}
	sslh_cmdline_free(&cl);
	return status;
}

/* check_bad_cases()'s loader: the file as -F gives it. */
static struct conf *
load_file(const char *path, char *err, size_t errlen)
{
	char *const	argv[] = { "-F", (char *)path };

	return load_args(NARGS(argv), argv, err, errlen);
}

/* Where got and want part, for the test's output. */
static void
show_diff(const char *got, const char *want)
{
	size_t	i;

	for (i = 0; got[i] != '\0' && got[i] == want[i]; i++)
		;
	fprintf(stderr, "# differs at byte %zu:\n# got:  %.80s\n# want: "
	    "%.80s\n", i, got + i, want + i);
}

static void
test_daemon_opts(void)
{
	struct conf_conv	 conv;
	struct conf		*cfg;
	char			 err[CONF_ERR_MAX];
	bool			 fg = true;

	if (convert_args(NARGS(daemon_opts), daemon_opts, &conv, &fg, err,
	    sizeof(err)) != 0) {
		check(0, "DAEMON_OPTS converts: %s", err);
		return;
	}
	check(streq(conv.text, daemon_opts_conf), "DAEMON_OPTS: the "
	    "expected ferryd.conf");
	if (!streq(conv.text, daemon_opts_conf))
		show_diff(conv.text, daemon_opts_conf);
	check(!fg, "DAEMON_OPTS: not in the foreground without -f");
	conf_conv_free(&conv);
	cfg = load_args(NARGS(daemon_opts), daemon_opts, err, sizeof(err));
	check(cfg != NULL, "DAEMON_OPTS loads%s%s", cfg == NULL ? ": " : "",
	    cfg == NULL ? err : "");
	if (cfg == NULL)
		return;
	check(cfg->nrules == 1 && cfg->rules[0].nroutes == 2 &&
	    cfg->rules[0].peek_timeout == 2000 &&
	    cfg->rules[0].on_timeout == 0 &&
	    streq(cfg->user, "nobody") &&
	    cfg->rules[0].routes[0].protocol == ROUTE_SSH &&
	    cfg->rules[0].routes[1].protocol == ROUTE_TLS &&
	    cfg->rules[0].probes == ROUTE_PROBES_SSLH,
	    "DAEMON_OPTS: a rule of sslh's probes, ssh then tls (the last, "
	    "what no probe matched), on_timeout ssh");
	check(cfg->syntax == CONF_SYNTAX_SSLH, "DAEMON_OPTS: read as sslh's");
	conf_free(cfg);
}

/* The sample converts to sample_conf (its head) and loads as it says. */
static void
test_sample(void)
{
	struct conf_conv	 conv;
	struct conf		*cfg;
	char			 path[1024], err[CONF_ERR_MAX], *want;
	char *const		 argv[] = { "-F", path };
	const struct rule	*r;
	const struct route	*rt;
	bool			 fg = false;
	size_t			 i, n;

	write_conf("sample.cfg", sample, path, sizeof(path));
	if (convert_args(NARGS(argv), argv, &conv, &fg, err,
	    sizeof(err)) != 0) {
		check(0, "sample converts: %s", err);
		return;
	}
	n = strlen(sample_conf) + strlen(path) + sizeof(sample_rules);
	if ((want = malloc(n)) == NULL)
		exit(1);
	snprintf(want, n, "%.*s%s%s%s", (int)strcspn(sample_conf, "P"),
	    sample_conf, path, strstr(sample_conf, "PATH") + 4, sample_rules);
	check(streq(conv.text, want), "sample: the expected ferryd.conf");
	if (!streq(conv.text, want))
		show_diff(conv.text, want);
	free(want);
	check(fg, "sample: foreground: true is kept");
	conf_conv_free(&conv);

	cfg = load_args(NARGS(argv), argv, err, sizeof(err));
	check(cfg != NULL, "sample loads%s%s", cfg == NULL ? ": " : "",
	    cfg == NULL ? err : "");
	if (cfg == NULL)
		return;
	check(cfg->nrules == 3, "sample: a rule per listen entry (%zu)",
	    cfg->nrules);
	r = &cfg->rules[0];
	check(r->nroutes == NARGS(sample_routes), "sample: a route per TCP "
	    "protocol (%zu)", r->nroutes);
	for (i = 0; i < r->nroutes && i < (size_t)NARGS(sample_routes); i++) {
		rt = &r->routes[i];
		check(streq(rt->name, sample_routes[i].name) &&
		    rt->protocol == sample_routes[i].protocol &&
		    rt->sni.n == sample_routes[i].nsni &&
		    rt->alpn.n == sample_routes[i].nalpn &&
		    rt->nregex == sample_routes[i].nregex,
		    "sample: route %zu is %s", i, sample_routes[i].name);
	}
	check(r->peek_timeout == 3000 && r->on_timeout == 0,
	    "sample: peek_timeout 3 s, on_timeout the first tls");
	check(r->routes[0].dest.send_proxy == 2, "sample: proxyprotocol 2 "
	    "is send_proxy v2");
	check(!cfg->rules[0].keepalive.enabled &&
	    cfg->rules[1].keepalive.enabled &&
	    cfg->rules[1].keepalive.idle == 7200000,
	    "sample: keepalive where sslh has it, with the kernel's timers");
	check(cfg->rules[1].listen_addr.ss.ss_family == AF_INET6 &&
	    cfg->rules[1].ipv6_only, "sample: ::1 listens IPv6 only");
	check(cfg->rules[2].protocol == RULE_UDP &&
	    cfg->rules[2].nroutes == 0 &&
	    cfg->rules[2].session_timeout == 30000 &&
	    cfg->rules[2].max_sessions == 100,
	    "sample: the UDP address forwards to its one protocol");
	check(cfg->log_level == LOG_LEVEL_INFO, "sample: verbose is log_level "
	    "info");
	conf_free(cfg);
}

/* The command line over the file, as sslh's goes over it. */
static void
test_override(void)
{
	struct conf_conv	 conv;
	char			 path[1024], err[CONF_ERR_MAX];
	char *const		 argv[] = { "-v", "-F", path, "--ssh",
				    "127.0.0.2:2222", "-p", "[::1]:18605",
				    "-t", "7", "--on-timeout", "http",
				    "-socks5", "127.0.0.1:1081", "--anyprot",
				    "127.0.0.1:9002", "-f" };
	bool			 fg = false;

	write_conf("override.cfg", "listen: ( { host: \"127.0.0.1\"; "
	    "port: \"18606\"; } );\nprotocols: (\n"
	    " { name: \"ssh\"; host: \"127.0.0.1\"; port: \"22\"; },\n"
	    " { name: \"http\"; host: \"127.0.0.1\"; port: \"80\"; }\n);\n"
	    "timeout: 4;\n", path, sizeof(path));
	if (convert_args(NARGS(argv), argv, &conv, &fg, err,
	    sizeof(err)) != 0) {
		check(0, "override converts: %s", err);
		return;
	}
	check(strstr(conv.text, "{ name = \"ssh\"; protocol = \"ssh\"; "
	    "connect = \"127.0.0.2:2222\"; }") != NULL, "override: --ssh "
	    "replaces the address of the file's ssh");
	check(strstr(conv.text, "listen = \"127.0.0.1:18606\"") != NULL &&
	    strstr(conv.text, "listen = \"[::1]:18605\"") != NULL,
	    "override: -p adds a listen address");
	check(strstr(conv.text, "# sslh command line: -t 7\n") == NULL &&
	    strstr(conv.text, "# sslh command line: --timeout 7\n    "
	    "peek_timeout = 7;") != NULL, "override: -t replaces timeout");
	check(strstr(conv.text, "on_timeout = \"http\";") != NULL,
	    "override: --on-timeout names the route");
	check(strstr(conv.text, "protocol = \"socks5\"; connect = "
	    "\"127.0.0.1:1081\"; },") != NULL && strstr(conv.text,
	    "{ name = \"anyprot\"; connect = \"127.0.0.1:9002\"; }\n") !=
	    NULL, "override: -socks5 and --anyprot are added last");
	check(strstr(conv.text, "log_level = \"info\";") != NULL && fg,
	    "override: -v and -f");
	conf_conv_free(&conv);
}

/*
 * sslh 2.x's order of the command line's protocols, whatever is written
 * (and --prefix, which sslh takes and ignores).
 */
static void
test_protocol_order(void)
{
	static const char *const want[] = { "ssh", "tls", "xmpp", "http",
	    "anyprot" };
	char *const	argv[] = { "--listen", "127.0.0.1:18615", "--anyprot",
			    "127.0.0.1:5", "--http", "127.0.0.1:4", "--tls",
			    "127.0.0.1:2", "--ssh", "127.0.0.1:1", "-f",
			    "--xmpp", "127.0.0.1:3", "--prefix", "x" };
	struct conf	*cfg;
	char		 err[CONF_ERR_MAX];
	size_t		 i;

	cfg = load_args(NARGS(argv), argv, err, sizeof(err));
	check(cfg != NULL, "protocol order: loads%s%s", cfg == NULL ? ": " :
	    "", cfg == NULL ? err : "");
	if (cfg == NULL)
		return;
	check(cfg->rules[0].nroutes == NARGS(want), "protocol order: %zu "
	    "routes", cfg->rules[0].nroutes);
	for (i = 0; i < cfg->rules[0].nroutes && i < NARGS(want); i++)
		check(streq(cfg->rules[0].routes[i].name, want[i]),
		    "protocol order: route %zu is %s (%s)", i, want[i],
		    cfg->rules[0].routes[i].name);
	conf_free(cfg);
}

/* -F's forms: -FFILE, -F FILE, --config=FILE, --config FILE. */
static void
test_config_forms(void)
{
	struct conf_conv	 conv;
	char			 path[1024], arg[1100], err[CONF_ERR_MAX];
	bool			 fg;
	int			 i, ok = 0;

	write_conf("forms.cfg", "listen: ( { host: \"127.0.0.1\"; port: "
	    "\"18607\"; } );\nprotocols: ( { name: \"ssh\"; host: "
	    "\"127.0.0.1\"; port: \"22\"; } );\n", path, sizeof(path));
	for (i = 0; i < 4; i++) {
		char *const	 two[] = { i == 1 ? "-F" : "--config", path };
		char *const	 one[] = { arg };

		snprintf(arg, sizeof(arg), "%s%s", i == 0 ? "-F" :
		    "--config=", path);
		if ((i % 2 == 0 ? convert_args(1, one, &conv, &fg, err,
		    sizeof(err)) : convert_args(2, two, &conv, &fg, err,
		    sizeof(err))) == 0) {
			ok += strstr(conv.text, "127.0.0.1:18607") != NULL;
			conf_conv_free(&conv);
		}
	}
	check(ok == 4, "-F FILE, -FFILE, --config=FILE, --config FILE (%d "
	    "of 4)", ok);
}

/* What sslh's command line refuses, or ferryd cannot do. */
/*
 * sslh 1.x's -v (a flag, grouped or given twice) and 2.x's -v N,
 * --verbose=N and --verbose-*=N: each starts, at the log level it says.
 */
static void
test_verbose(void)
{
	static const struct {
		char		*argv[6];
		int		 level;
	} cases[] = {
		{ { "-v", "3", "-p", "127.0.0.1:1", "--ssh", "127.0.0.1:22" },
		    LOG_LEVEL_DEBUG },
		{ { "-v3", "-p", "127.0.0.1:1", "--ssh", "127.0.0.1:22" },
		    LOG_LEVEL_DEBUG },
		{ { "--verbose=1", "-p", "127.0.0.1:1", "--ssh",
		    "127.0.0.1:22" }, LOG_LEVEL_INFO },
		{ { "-fv", "-p", "127.0.0.1:1", "--ssh", "127.0.0.1:22" },
		    LOG_LEVEL_INFO },
		{ { "-v", "-v", "-p", "127.0.0.1:1", "--ssh", "127.0.0.1:22" },
		    LOG_LEVEL_DEBUG },
		{ { "--verbose-connections=2", "--syslog-facility", "auth",
		    "-p", "127.0.0.1:1", "--ssh=127.0.0.1:22" },
		    LOG_LEVEL_INFO }
	};
	struct conf	*cfg;
	char		 err[CONF_ERR_MAX];
	size_t		 i;
	int		 argc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (argc = 0; argc < 6 && cases[i].argv[argc] != NULL; argc++)
			;
		cfg = load_args(argc, cases[i].argv, err, sizeof(err));
		check(cfg != NULL && cfg->log_level == cases[i].level,
		    "sslh's %s %s: loads, log level %d (%d%s%s)",
		    cases[i].argv[0], cases[i].argv[1], cases[i].level,
		    cfg != NULL ? cfg->log_level : -1, cfg == NULL ? ": " :
		    "", cfg == NULL ? err : "");
		if (cfg != NULL)
			conf_free(cfg);
	}
}

static void
test_cmdline_errors(void)
{
	static const struct {
		const char	*desc;
		char		*argv[4];
		const char	*err;
	} cases[] = {
		{ "unknown option", { "--listen", "127.0.0.1:1", "--bogus" },
		    SSLH_CMDLINE ": unknown option \"--bogus\"" },
		{ "missing value", { "--listen", "127.0.0.1:1", "--ssh" },
		    SSLH_CMDLINE ": option \"--ssh\" needs a value" },
		{ "bad port", { "--listen", "127.0.0.1:1", "--ssh", "h:0" },
		    SSLH_CMDLINE ": --ssh h:0: port 0 is out of range (1 to "
		    "65535)" },
		{ "no port", { "--listen", "127.0.0.1", "--ssh", "h:22" },
		    SSLH_CMDLINE ": --listen 127.0.0.1: \"127.0.0.1\" is not "
		    "HOST:PORT" },
		{ "no protocol", { "--listen", "127.0.0.1:1" },
		    SSLH_CMDLINE ": no protocol to forward to" },
		{ "no listen", { "--ssh", "127.0.0.1:22" },
		    SSLH_CMDLINE ": no address to listen on" },
		{ "inetd mode, no connection", { "--inetd", "--ssh",
		    "127.0.0.1:22" }, SSLH_CMDLINE ": --inetd: inetd mode "
		    "without listen, and standard input is not a TCP "
		    "connection" },
		{ "teamspeak", { "-p", "127.0.0.1:1", "--teamspeak",
		    "127.0.0.1:9987" }, SSLH_CMDLINE ": --teamspeak "
		    "127.0.0.1:9987: probe \"teamspeak\": ferryd probes it on "
		    "UDP only (is_udp: true)" },
		{ "argument", { "-p", "127.0.0.1:1", "ssh" },
		    SSLH_CMDLINE ": unexpected argument \"ssh\"" },
		{ "timeout out of range", { "-p", "127.0.0.1:1", "-t", "0" },
		    SSLH_CMDLINE ": --timeout 0: timeout must be 1 to 3600" },
		{ "timeout", { "-p", "127.0.0.1:1", "-t", "2s" },
		    SSLH_CMDLINE ": --timeout 2s: \"2s\" is not a number of "
		    "seconds" }
	};
	struct conf_conv	conv;
	char			err[CONF_ERR_MAX];
	bool			fg;
	size_t			i;
	int			argc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (argc = 0; argc < 4 && cases[i].argv[argc] != NULL; argc++)
			;
		err[0] = '\0';
		if (convert_args(argc, cases[i].argv, &conv, &fg, err,
		    sizeof(err)) == 0)
			conf_conv_free(&conv);
		check(strncmp(err, cases[i].err, strlen(cases[i].err)) == 0,
		    "command line: %s: %s", cases[i].desc, err);
	}
}

/*
 * The status sslh 2.x exits with for each kind of problem (sslh-main.c:
 * 6 for what its parser of the command line and the file refuses, 4 for
 * an address that does not resolve, 2 for an unknown user, else 1).
 */
static void
test_exit_statuses(void)
{
	static const struct {
		const char	*desc;
		char		*argv[6];
		int		 status;
	} cases[] = {
		{ "an unknown option", { "-p", "127.0.0.1:1", "--bogus" },
		    SSLH_EXIT_USAGE },
		{ "--ssh without a port", { "-p", "127.0.0.1:1", "--ssh",
		    "h" }, SSLH_EXIT_USAGE },
		{ "-t not a number", { "-p", "127.0.0.1:1", "--ssh",
		    "127.0.0.1:22", "-t", "x" }, SSLH_EXIT_USAGE },
		{ "a listen host that does not resolve", { "-p",
		    "nonexistent.invalid:443", "--ssh", "127.0.0.1:22" },
		    SSLH_EXIT_RESOLVE },
		{ "a backend that does not resolve", { "-p", "127.0.0.1:1",
		    "--ssh", "nonexistent.invalid:22" }, SSLH_EXIT_RESOLVE },
		{ "an unknown user", { "-p", "127.0.0.1:1", "--ssh",
		    "127.0.0.1:22", "-u", "no-such-user-ferryd" },
		    SSLH_EXIT_USER },
		{ "a timeout out of range", { "-p", "127.0.0.1:1", "--ssh",
		    "127.0.0.1:22", "-t", "0" }, SSLH_EXIT_FAILURE },
		{ "settings it loads", { "-p", "127.0.0.1:1", "--ssh",
		    "127.0.0.1:22" }, 0 }
	};
	static const struct {
		const char	*desc, *text;
		int		 status;
	} files[] = {
		{ "a syntax error", "timeout: ;\n", SSLH_EXIT_USAGE },
		{ "a string for a number", "timeout: \"2\";\n",
		    SSLH_EXIT_USAGE },
		{ "protocols not a list", "protocols: 3;\n", SSLH_EXIT_USAGE },
		{ "an unknown probe", "protocols: ( { name: \"gopher\"; "
		    "host: \"127.0.0.1\"; port: \"70\"; } );\n",
		    SSLH_EXIT_FAILURE },
		{ "a user that does not exist", "user: \"no-such-user-ferryd"
		    "\";\n", SSLH_EXIT_USER }
	};
	char	 path[PATH_MAX], missing[PATH_MAX + 16];
	char	*argv[6] = { "-F", path, "-p", "127.0.0.1:1", "--ssh",
		    "127.0.0.1:22" };
	size_t	 i;
	int	 argc, got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (argc = 0; argc < 6 && cases[i].argv[argc] != NULL; argc++)
			;
		got = load_status(argc, cases[i].argv);
		check(got == cases[i].status, "sslh's status for %s: %d (%d)",
		    cases[i].desc, cases[i].status, got);
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		write_conf("status.cfg", files[i].text, path, sizeof(path));
		got = load_status(6, argv);
		check(got == files[i].status, "sslh's status for %s in the "
		    "file: %d (%d)", files[i].desc, files[i].status, got);
	}
	snprintf(missing, sizeof(missing), "%s.missing", path);
	argv[1] = missing;
	got = load_status(6, argv);
	check(got == SSLH_EXIT_USAGE, "sslh's status for a file that is not "
	    "there: %d (%d)", SSLH_EXIT_USAGE, got);
}

#define L	"listen: ( { host: \"127.0.0.1\"; port: \"18608\"; } );\n"
#define P	"protocols: (\n"
#define SSH	"  { name: \"ssh\"; host: \"127.0.0.1\"; port: \"22\"; }"

/*
 * sslh's syslog: its name, its facility (auth, or syslog_facility), a
 * line for each connection (none for the facility "none"), its ports by
 * number with --numeric.
 */
static void
test_syslog(void)
{
	char *const	 facility[] = { "-p", "127.0.0.1:1", "--ssh",
			    "127.0.0.1:22", "--syslog-facility", "local3" };
	char *const	 numeric[] = { "-n", "-p", "127.0.0.1:1", "--ssh",
			    "127.0.0.1:22" };
	char		 path[PATH_MAX];
	char *const	 none[] = { "-F", path };
	struct conf	*cfg;
	char		 err[CONF_ERR_MAX];

	cfg = load_args(NARGS(facility), facility, err, sizeof(err));
	check(cfg != NULL && strcmp(cfg->syslog_ident, "sslh") == 0 &&
	    strcmp(log_facility_names[cfg->syslog_facility], "local3") == 0 &&
	    cfg->access_log != NULL && strcmp(cfg->access_log, "syslog") ==
	    0 && cfg->access_log_format == ACCESS_LOG_SSLH, "--syslog-"
	    "facility local3: sslh's line to syslog, as sslh, local3%s%s",
	    cfg == NULL ? ": " : "", cfg == NULL ? err : "");
	if (cfg != NULL)
		conf_free(cfg);
	cfg = load_args(NARGS(numeric), numeric, err, sizeof(err));
	check(cfg != NULL && strcmp(log_facility_names[cfg->syslog_facility],
	    "auth") == 0 && cfg->access_log_format == ACCESS_LOG_SSLH_NUMERIC,
	    "-n: sslh's line with numeric ports, to auth, sslh's default");
	if (cfg != NULL)
		conf_free(cfg);
	write_conf("none.cfg", "syslog_facility: \"none\";\n" L P SSH
	    ");\n", path, sizeof(path));
	cfg = load_args(NARGS(none), none, err, sizeof(err));
	check(cfg != NULL && cfg->access_log == NULL, "syslog_facility "
	    "\"none\": no line for each connection%s%s", cfg == NULL ?
	    ": " : "", cfg == NULL ? err : "");
	if (cfg != NULL)
		conf_free(cfg);
	write_conf("bogus.cfg", L P SSH ");\nsyslog_facility: \"bogus\";\n",
	    path, sizeof(path));
	cfg = load_args(NARGS(none), none, err, sizeof(err));
	check(cfg == NULL && strstr(err, "bogus.cfg:4: ") != NULL,
	    "an unknown facility: refused at its line (%s)", err);
	if (cfg != NULL)
		conf_free(cfg);
}

static const struct bad_case bad_cases[] = {
	{ "syntax", L "timeout: ;\n" P SSH ");\n", 2, "syntax error" },
	{ "on-timeout twice", L "on-timeout: \"ssh\";\non_timeout: "
	    "\"ssh\";\n" P SSH ");\n", 3, "\"on_timeout\" is given twice "
	    "(also at line 2)" },
	{ "unknown probe", L P SSH ",\n  { name: \"gopher\"; host: "
	    "\"127.0.0.1\"; port: \"70\"; }\n);\n", 4, "probe \"gopher\" is "
	    "unknown" },
	{ "missing port", L P "  { name: \"ssh\"; host: \"127.0.0.1\"; }\n"
	    ");\n", 3, "an entry needs host and port" },
	{ "escaped glob", L P "  { name: \"tls\"; host: \"127.0.0.1\"; "
	    "port: \"443\";\n    sni_hostnames: [ \"a.org\",\n \"a\\\\*.org\" "
	    "]; },\n" SSH "\n);\n", 5, "sni_hostnames \"a\\*.org\": ferryd "
	    "matches fnmatch(3) globs without a backslash escape" },
	{ "PCRE group", L P "  { name: \"regex\"; host: \"127.0.0.1\"; "
	    "port: \"1\"; regex_patterns: [ \"(?i)get\" ]; },\n" SSH "\n);\n",
	    3, "regex_patterns \"(?i)get\": a PCRE group (?...)" },
	{ "lazy quantifier", L P "  { name: \"regex\"; host: \"127.0.0.1\"; "
	    "port: \"1\"; regex_patterns: [ \"a.*?b\" ]; },\n" SSH "\n);\n",
	    3, "a lazy or possessive quantifier" },
	{ "escape in brackets", L P "  { name: \"regex\"; host: "
	    "\"127.0.0.1\"; port: \"1\"; regex_patterns: [ \"[\\\\d]\" ]; },\n"
	    SSH "\n);\n", 3, "an escape in a bracket expression" },
	{ "bad regex", L P "  { name: \"regex\"; host: \"127.0.0.1\"; "
	    "port: \"1\";\n regex_patterns: [ \"a(\" ]; },\n" SSH "\n);\n",
	    4, "regex_patterns \"a(\": " },
	{ "regex without patterns", L P "  { name: \"regex\"; host: "
	    "\"127.0.0.1\"; port: \"1\"; },\n" SSH "\n);\n", 3, "a regex "
	    "protocol needs regex_patterns" },
	{ "unix, relative", "listen: ( { host: \"sslh.sock\"; is_unix: "
	    "true; } );\n" P SSH ");\n", 1, "is_unix: host \"sslh.sock\" is "
	    "not an absolute path" },
	{ "a TCP probe among UDP protocols", "listen: ( { host: "
	    "\"127.0.0.1\"; port: \"18609\"; is_udp: true; } );\n" P SSH ",\n"
	    "  { name: \"ssh\"; host: \"127.0.0.1\"; port: \"53\"; is_udp: "
	    "true; },\n  { name: \"openvpn\"; host: \"127.0.0.1\"; port: "
	    "\"1194\"; is_udp: true; }\n);\n", 4, "probe \"ssh\" on UDP: "
	    "ferryd's UDP probes are openvpn, wireguard, teamspeak, regex and "
	    "anyprot" },
	{ "UDP without protocol", "listen: ( { host: \"127.0.0.1\"; port: "
	    "\"18609\"; is_udp: true; } );\n" P SSH ");\n", 1, "no protocol "
	    "is_udp for this UDP address" },
	{ "proxyprotocol 3", L P "  { name: \"ssh\"; host: \"127.0.0.1\"; "
	    "port: \"22\"; proxyprotocol: 3; }\n);\n", 3, "proxyprotocol must "
	    "be 1 or 2" },
	{ "timeout 0", L P SSH ");\ntimeout: 0;\n", 4, "timeout must be 1 to "
	    "3600 seconds" },
	{ "string as number", L "timeout: \"2\";\n" P SSH ");\n", 2,
	    "\"timeout\" must be a whole number" },
	{ "no protocols", L, 0, "no protocol to forward to" },
	/* Found by the loader, reported at the sslh.cfg line. */
	{ "unresolvable backend", L P SSH ",\n  { name: \"http\"; host: "
	    "\"nonexistent.invalid\"; port: \"80\"; }\n);\n", 4,
	    "nonexistent.invalid" },
	{ "same address twice", "listen: (\n { host: \"127.0.0.1\"; "
	    "port: \"18610\"; },\n { host: \"127.0.0.1\"; port: \"18610\"; }\n"
	    ");\n" P SSH ");\n", 3, "is already used by the rule at line 2" }
};

/*
 * What sslh 2.x takes of a file (its own test.cfg has each): unknown
 * settings skipped with a warning, max_connections, minlength, is_unix,
 * a protocol's transparent (its route's, but on a Unix listen entry);
 * each loads, each said where ferryd differs.
 */
static void
test_tolerated(void)
{
	static const char text[] =
	    "timout: 2;\n"
	    "listen: ( { host: \"127.0.0.1\"; port: \"18611\";\n"
	    "  max_connections: 2; colour: \"red\"; },\n"
	    "  { host: \"/tmp/sslh-test.sock\"; is_unix: true; port: \"\"; }"
	    " );\n"
	    "protocols: (\n"
	    "  { name: \"ssh\"; host: \"127.0.0.1\"; port: \"22\";\n"
	    "    max_connections: 5; transparent: true; },\n"
	    "  { name: \"regex\"; host: \"127.0.0.1\"; port: \"1\";\n"
	    "    regex_patterns: [ \"^foo\" ]; minlength: 4;\n"
	    "    test_patterns: ( { pattern: \"foo\"; } ); },\n"
	    "  { name: \"http\"; host: \"/run/app.sock\"; is_unix: true; },\n"
	    "  { name: \"anyprot\"; host: \"127.0.0.1\"; port: \"2\"; }\n"
	    ");\n";
	static const char *const warnings[] = {
	    ":1: unknown setting \"timout\": skipped",
	    ":3: max_connections for one listen address: not done",
	    ":3: unknown listen setting \"colour\": skipped",
	    ":10: unknown protocol setting \"test_patterns\": skipped"
	};
	struct sslh_cmdline	 cl;
	struct conf_conv	 conv;
	struct conf		*cfg;
	char			 path[PATH_MAX], err[CONF_ERR_MAX];
	const struct rule	*r, *u;
	size_t			 i;
	struct sslh_run		 run;
	FILE			*f;

	snprintf(path, sizeof(path), "%s/tolerated.cfg", tmpdir);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) == EOF) {
		check(0, "cannot write %s", path);
		return;
	}
	memset(&cl, 0, sizeof(cl));
	cl.config = path;
	cl.hosts_dir = tmpdir;
	if (sslh_convert(&cl, &conv, &run, err, sizeof(err)) != 0) {
		check(0, "sslh 2.x's tolerated settings convert: %s", err);
		return;
	}
	for (i = 0; i < sizeof(warnings) / sizeof(warnings[0]); i++)
		check(conv.warnings != NULL && strstr(conv.warnings,
		    warnings[i]) != NULL, "warned: %s", warnings[i]);
	conf_conv_free(&conv);
	cfg = load_file(path, err, sizeof(err));
	check(cfg != NULL, "they load%s%s", cfg == NULL ? ": " : "",
	    cfg == NULL ? err : "");
	if (cfg == NULL)
		return;
	r = &cfg->rules[0];
	u = &cfg->rules[1];
	check(cfg->nrules == 2 && u->listen_addr.ss.ss_family == AF_UNIX &&
	    strcmp(u->listen, "unix:/tmp/sslh-test.sock") == 0,
	    "is_unix: the second listen entry is the Unix socket");
	check(r->nroutes == 4 && r->routes[0].dest.upstream.backends[0].
	    max_connections == 5, "max_connections: the ssh backend's");
	check(r->routes[1].min_length == 4, "minlength: the regex route's "
	    "min_length");
	check(r->routes[2].dest.upstream.backends[0].addr.ss.ss_family ==
	    AF_UNIX, "is_unix: a protocol's backend is its Unix socket");
	check(!r->transparent && r->routes[0].dest.transparent &&
	    !r->routes[1].dest.transparent && !u->routes[0].dest.transparent,
	    "transparent: the ssh route's, not on the Unix listen entry");
	conf_free(cfg);
}

/* sni_hostnames and alpn_protocols are fnmatch(3) globs, as in sslh. */
static void
test_globs(void)
{
	static const struct {
		const char	*pattern, *name;
		bool		 match;
	} cases[] = {
		{ "*.*.b.org", "x.y.b.org", true },
		{ "*.*.b.org", "y.b.org", false },
		{ "mail?.example.org", "mail2.example.org", true },
		{ "mail[0-9].example.org", "mailx.example.org", false },
		{ "h*", "h2", true },
		{ "h*", "http/1.1", true },
		{ "h*", "spdy/3", false },
		{ "exact.org", "exact.org", true },
		{ "exact.org", "xexact.org", false }
	};
	static const char text[] =
	    "listen: ( { host: \"127.0.0.1\"; port: \"18612\"; } );\n"
	    "protocols: (\n"
	    "  { name: \"tls\"; host: \"127.0.0.1\"; port: \"443\";\n"
	    "    sni_hostnames: [ \"*.*.b.org\" ]; alpn_protocols: [ \"h*\" "
	    "]; },\n"
	    "  { name: \"anyprot\"; host: \"127.0.0.1\"; port: \"2\"; }\n"
	    ");\n";
	struct conf		*cfg;
	const struct route	*rt;
	char			 path[PATH_MAX], err[CONF_ERR_MAX];
	size_t			 i;
	FILE			*f;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(route_glob_match(cases[i].pattern, cases[i].name) ==
		    cases[i].match, "glob %s %s %s", cases[i].pattern,
		    cases[i].match ? "matches" : "does not match",
		    cases[i].name);
	snprintf(path, sizeof(path), "%s/globs.cfg", tmpdir);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) == EOF) {
		check(0, "cannot write %s", path);
		return;
	}
	cfg = load_file(path, err, sizeof(err));
	check(cfg != NULL, "sslh's globs load%s%s", cfg == NULL ? ": " : "",
	    cfg == NULL ? err : "");
	if (cfg == NULL)
		return;
	rt = &cfg->rules[0].routes[0];
	check(rt->sni.n == 1 && route_name_match(&rt->sni, "x.y.b.org") &&
	    !route_name_match(&rt->sni, "b.org") && rt->alpn.n == 1 &&
	    strcmp(rt->alpn.v[0], "h*") == 0, "sni *.*.b.org and alpn h*, "
	    "as globs");
	conf_free(cfg);
}

/*
 * A listen entry's proxyprotocol: true makes a client's header optional
 * and hands it on, unless the protocol says 0 (taken away) or 1 or 2 (a
 * header of ferryd's); elsewhere a protocol's version is made, no more.
 */
static void
test_proxyprotocol(void)
{
	static const char text[] =
	    "listen: ( { host: \"127.0.0.1\"; port: \"18613\"; "
	    "proxyprotocol: true; },\n"
	    "  { host: \"127.0.0.1\"; port: \"18614\"; } );\n"
	    "protocols: (\n"
	    "  { name: \"ssh\"; host: \"127.0.0.1\"; port: \"22\"; },\n"
	    "  { name: \"regex\"; host: \"127.0.0.1\"; port: \"2\";\n"
	    "    regex_patterns: [ \"^x\" ]; proxyprotocol: 0; },\n"
	    "  { name: \"http\"; host: \"127.0.0.1\"; port: \"80\"; "
	    "proxyprotocol: 1; },\n"
	    "  { name: \"anyprot\"; host: \"127.0.0.1\"; port: \"3\"; "
	    "proxyprotocol: 2; }\n"
	    ");\n";
	static const int want[2][4] = {
		{ PROXY_PASS, PROXY_OFF, PROXY_V1, PROXY_V2 },
		{ PROXY_OFF, PROXY_OFF, PROXY_V1, PROXY_V2 }
	};
	struct conf	*cfg;
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	size_t		 i, j;

	write_conf("pp.cfg", text, path, sizeof(path));
	cfg = load_file(path, err, sizeof(err));
	check(cfg != NULL, "proxyprotocol: loads%s%s", cfg == NULL ? ": " : "",
	    cfg == NULL ? err : "");
	if (cfg == NULL)
		return;
	check(cfg->rules[0].accept_proxy && cfg->rules[0].proxy_optional &&
	    !cfg->rules[1].accept_proxy, "proxyprotocol: true is "
	    "accept_proxy = \"optional\", only there");
	for (i = 0; i < 2; i++)
		for (j = 0; j < 4; j++)
			check(cfg->rules[i].routes[j].dest.send_proxy ==
			    want[i][j], "proxyprotocol: listen %zu, protocol "
			    "%zu sends %d (%d)", i, j, want[i][j],
			    cfg->rules[i].routes[j].dest.send_proxy);
	conf_free(cfg);
}

static void
test_bad_cases(void)
{
	check_bad_cases(bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]),
	    "bad", load_file);
}

/* libwrap's service: fine without rules, refused with them. */
static void
test_libwrap(void)
{
	struct conf_conv	 conv;
	char			 path[1024], allow[1024], err[CONF_ERR_MAX];
	char *const		 argv[] = { "-F", path };
	bool			 fg;
	int			 rc;

	write_conf("wrap.cfg", L P "  { name: \"ssh\"; service: \"sshd\"; "
	    "host: \"127.0.0.1\"; port: \"22\"; }\n);\n", path, sizeof(path));
	write_conf("hosts.allow", "# only comments\n\n", allow, sizeof(allow));
	rc = convert_args(NARGS(argv), argv, &conv, &fg, err, sizeof(err));
	check(rc == 0 && strstr(conv.text, "note: service \"sshd\": ") !=
	    NULL, "libwrap without rules: a note");
	if (rc == 0)
		conf_conv_free(&conv);
	write_conf("hosts.deny", "# x\nsshd: ALL\n", allow, sizeof(allow));
	rc = convert_args(NARGS(argv), argv, &conv, &fg, err, sizeof(err));
	check(rc == SSLH_EXIT_FAILURE && strstr(err, ":3: service \"sshd\": "
	    "libwrap's rules") != NULL, "libwrap with rules: refused at the line (%s)",
	    err);
	if (rc == 0)
		conf_conv_free(&conv);
	unlink(allow);
}

/*
 * The last protocol, probes = "sslh": an anyprot is never probed (no
 * match key, its minlength dropped), a timeout takes anything at once (a
 * pattern that matches anything), tinc waits for its two bytes.
 */
static void
test_last_protocol(void)
{
	static const struct {
		const char	*last, *want;
	} cases[] = {
		{ "{ name: \"anyprot\"; host: \"127.0.0.1\"; port: \"9\"; "
		    "minlength: 5; }", "{ name = \"anyprot\"; connect = " },
		{ "{ name: \"timeout\"; host: \"127.0.0.1\"; port: \"9\"; }",
		    "{ name = \"timeout\"; regex = [ \"\" ]; connect = " },
		{ "{ name: \"tinc\"; host: \"127.0.0.1\"; port: \"9\"; "
		    "minlength: 1; }", "{ name = \"tinc\"; min_length = 2; "
		    "regex = [ \"^0 \" ]; connect = " },
		{ "{ name: \"ssh\"; host: \"127.0.0.1\"; port: \"9\"; }",
		    "{ name = \"ssh_2\"; protocol = \"ssh\"; connect = " },
	};
	struct conf_conv	 conv;
	char			 path[1024], text[512], err[CONF_ERR_MAX];
	char *const		 argv[] = { "-F", path };
	bool			 fg;
	size_t			 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), L P "  { name: \"ssh\"; host: "
		    "\"127.0.0.1\"; port: \"22\"; },\n  %s\n);\n",
		    cases[i].last);
		write_conf("last.cfg", text, path, sizeof(path));
		if (convert_args(NARGS(argv), argv, &conv, &fg, err,
		    sizeof(err)) == -1) {
			check(0, "last protocol %zu converts: %s", i, err);
			continue;
		}
		check(strstr(conv.text, cases[i].want) != NULL &&
		    strstr(conv.text, "    probes = \"sslh\";\n") != NULL,
		    "the last protocol, probes = \"sslh\": %s", cases[i].want);
		conf_conv_free(&conv);
	}
}

/*
 * sslh -i: said to main (run.inetd), from the command line or the file;
 * without listen, the address of the connection on standard input.
 */
static void
test_inetd(void)
{
	char *const		 argv[] = { "-i", "--ssh", "127.0.0.1:22" };
	struct sslh_cmdline	 cl;
	struct sslh_run		 run;
	struct conf_conv	 conv;
	char			 err[CONF_ERR_MAX];
	int			 rc;

	if (sslh_cmdline_parse(NARGS(argv), argv, &cl, err, sizeof(err)) ==
	    -1) {
		check(0, "-i parses: %s", err);
		return;
	}
	cl.hosts_dir = tmpdir;
	cl.stdin_address = "127.0.0.1:4443";
	rc = sslh_convert(&cl, &conv, &run, err, sizeof(err));
	check(rc == 0 && run.inetd && strstr(conv.text, "listen = \"127.0.0.1:4443\";") !=
	    NULL && strstr(conv.text, "with this file: ferryd -i") != NULL,
	    "-i without --listen: the connection's address is the rule's%s%s",
	    rc != 0 || run.inetd ? "" : " (not inetd)", rc != 0 ? err : "");
	conf_conv_free(&conv);
	sslh_cmdline_free(&cl);
}

int
main(void)
{
	make_tmpdir("test_sslh");
	test_daemon_opts();
	test_sample();
	test_override();
	test_config_forms();
	test_cmdline_errors();
	test_exit_statuses();
	test_syslog();
	test_verbose();
	test_tolerated();
	test_globs();
	test_proxyprotocol();
	test_protocol_order();
	test_bad_cases();
	test_libwrap();
	test_last_protocol();
	test_inetd();
	remove_tmpdir();
	return test_summary();
}
