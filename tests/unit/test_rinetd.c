/*
 * test_rinetd.c - unit tests for reading rinetd.conf: a file with every
 * feature rinetd(8) documents converts and loads with the right rules;
 * malformed lines are refused at their own rinetd line, also when the
 * problem is only found by the loader; the --convert text loads as a
 * ferryd.conf into the same rules; and rinetd files are told from
 * libconfig ones.
 */
#include "ferryd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>

#include "acl.h"
#include "addr.h"
#include "conf.h"
#include "conf_rinetd.h"
#include "framing.h"
#include "testlib.h"

/* Every feature; lines numbered for the checks below. */
static const char sample[] =
    "# rinetd.conf - every feature rinetd(8) documents\n"	/* 1 */
    "\n"
    "# global rules\n"
    "allow 127.0.0.*\n"
    "allow ::1\n"						/* 5 */
    "deny 127.0.0.99\n"
    "\tdeny   fe80:*   # link-local\n"
    "\n"
    "logfile /var/log/rinetd-test.log\n"
    "logcommon\n"						/* 10 */
    "pidlogfile \"/run/rinetd test.pid\"\n"
    "\n"
    "127.0.0.1 18201 127.0.0.1 18202\n"
    "0.0.0.0 18203/tcp 127.0.0.1 http/tcp   # a service name\n"
    "allow 127.0.0.1?\n"					/* 15 */
    "deny 127.0.0.15\n"
    "::1 18204 ::1 18205 [timeout=3600]\n"
    ":: 18206 localhost 18207\n"
    "127.0.0.2 18208 127.0.0.1 18209 [ src = 127.0.0.2 , timeout = 60 ]\n"
    "deny 127.0.0.3\n"						/* 20 */
    "[::1] 18210 [::1] 18211 [src=::1]\n"
    "127.0.0.1 18212 localhost 18213#comment\r\n"
    "0 18214 127.0.0.1 18215[timeout=0]\n"
    "0.0.0.0 18216/udp 127.0.0.1 18217/udp\n"
    "127.0.0.1 18218/udp 127.0.0.1 18219/udp [timeout=30]\n"	/* 25 */
    "127.0.0.1 18220/udp 127.0.0.1 18221\n"
    "127.0.0.1 18222 127.0.0.1 18223/udp [timeout=10]\n";

/* Malformed files: the rinetd line of the error and a message word. */
#define GOOD	"127.0.0.1 18301 127.0.0.1 18302\n"

static const struct bad_case bad_cases[] = {
	{ "unknown connect protocol", "# dns\n\n0.0.0.0 53/udp 127.0.0.1 53/dccp\n",
	    3, "connect port \"53/dccp\": the protocol must be /tcp or /udp" },
	{ "unknown protocol", GOOD GOOD "127.0.0.1 80/sctp 127.0.0.1 80\n",
	    3, "bind port \"80/sctp\": the protocol must be /tcp or /udp" },
	{ "port out of range", GOOD "\n127.0.0.1 70000 127.0.0.1 80\n",
	    3, "bind port 70000 is out of range (1 to 65535)" },
	{ "port 0", GOOD "127.0.0.1 18303 127.0.0.1 0\n",
	    2, "connect port 0 is out of range" },
	{ "bad port", GOOD "127.0.0.1 18303 127.0.0.1 8o!\n",
	    2, "connect port \"8o!\" is not a port number or a service name" },
	{ "three fields", GOOD "127.0.0.1 18303 127.0.0.1\n",
	    2, "invalid syntax: \"127.0.0.1\" is none of allow, deny" },
	{ "unknown directive", "logfil /var/log/x.log\n" GOOD,
	    1, "invalid syntax: \"logfil\"" },
	{ "bad bind address", GOOD "# x\n127.0.0.1! 18303 127.0.0.1 80\n",
	    3, "bind address \"127.0.0.1!\" is not an IP address or a host "
	    "name" },
	{ "bad IPv6 address", GOOD "[::g] 18303 ::1 80\n",
	    2, "bind address \"[::g]\" is not an IPv6 address" },
	{ "quoted address", GOOD "127.0.0.1 18303 \"127.0.0.1\" 80\n",
	    2, "connect address \"127.0.0.1\" must not be quoted" },
	{ "bad allow pattern", GOOD "allow 10.0.0.x\n",
	    2, "allow: \"10.0.0.x\" is not an address" },
	{ "bad deny CIDR", "deny 10.0.0.0/40\n" GOOD,
	    1, "deny: \"10.0.0.0/40\": the prefix length" },
	{ "bad wildcard", GOOD "\n\n\nallow 10.0.0.%\n",
	    5, "is not an address" },
	{ "two patterns", GOOD "allow 10.* 11.*\n",
	    2, "allow takes one pattern" },
	{ "no pattern", GOOD "deny\n", 2, "deny takes one pattern" },
	{ "unknown option", GOOD "127.0.0.1 18303 127.0.0.1 80 [foo=1]\n",
	    2, "unknown option \"foo\" (rinetd knows timeout and src, "
	    "rinetd-uv keepalive, connect-timeout and dns-refresh too)" },
	{ "option without value", GOOD "127.0.0.1 18303 127.0.0.1 80 "
	    "[timeout]\n", 2, "option \"timeout\" has no value" },
	{ "timeout not a number", GOOD "127.0.0.1 18303 127.0.0.1 80 "
	    "[timeout=abc]\n", 2, "timeout must be a whole number of seconds "
	    "(got \"abc\")" },
	{ "timeout given twice", GOOD "127.0.0.1 18303 127.0.0.1 80 "
	    "[timeout=1,timeout=2]\n", 2, "option timeout is given twice" },
	{ "src given twice", GOOD "127.0.0.1 18303 127.0.0.1 80 "
	    "[src=127.0.0.1, src=127.0.0.2]\n", 2, "option src is given twice" },
	{ "bad src", GOOD "127.0.0.1 18303 127.0.0.1 80 [src=a/b]\n",
	    2, "src address \"a/b\" is not an IP address or a host name" },
	{ "empty options", GOOD "127.0.0.1 18303 127.0.0.1 80 [ ]\n",
	    2, "empty option list" },
	{ "options without brackets", GOOD
	    "127.0.0.1 18303 127.0.0.1 80 timeout=5\n",
	    2, "unexpected \"timeout=5\" after the connect port" },
	{ "missing ']'", GOOD "127.0.0.1 18303 127.0.0.1 80 [timeout=5\n",
	    2, "missing ']'" },
	{ "too many fields", GOOD "1 2 3 4 5 6 7 8 9\n", 2, "too many fields" },
	{ "relative logfile", GOOD "logfile rinetd.log\n",
	    2, "logfile \"rinetd.log\" must be an absolute path" },
	{ "logfile without a name", GOOD "logfile\n",
	    2, "logfile takes one file name" },
	{ "unterminated quote", GOOD "pidlogfile \"/run/x.pid\n",
	    2, "missing '\"'" },
	{ "logcommon with an argument", GOOD "logcommon yes\n",
	    2, "logcommon takes no argument" },
	{ "no forwarding rule", "# only\nallow 10.*\nlogcommon\n",
	    0, "no forwarding rules" },
	/* Found by the loader, reported at the rinetd line. */
	{ "unresolvable host", GOOD "\n\n127.0.0.1 18303 nonexistent.invalid "
	    "80\n", 4, "cannot resolve \"nonexistent.invalid:80\"" },
	{ "unknown service", GOOD "127.0.0.1 18303 127.0.0.1 nosuchservice\n",
	    2, "cannot resolve \"127.0.0.1:nosuchservice\"" },
	{ "duplicate bind address", "# a\n" GOOD "127.0.0.1 18303 127.0.0.1 80\n"
	    "127.0.0.1 18301 127.0.0.1 81\n", 4, "listen address "
	    "\"127.0.0.1:18301\" is already used by the rule at line 2" },
	{ "src of the wrong family", GOOD "\n127.0.0.1 18303 127.0.0.1 80 "
	    "[src=::1]\n", 3, "\"source\" \"::1\" is not an IPv4 address" },
	{ "timeout out of range", GOOD "127.0.0.1 18303 127.0.0.1 80 "
	    "[timeout=999999999]\n", 2, "\"idle_timeout\" must be between" },
	{ "dual stack over IPv4", "0.0.0.0 18303 127.0.0.1 80\n"
	    ":: 18303 127.0.0.1 80\n", 2, "overlaps \"0.0.0.0:18303\" of the "
	    "rule at line 1" },
};

static void
test_bad_cases(void)
{
	check_bad_cases(bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]),
	    "bad.rinetd", conf_load_rinetd);
}

static int
permits(const struct conf *cfg, size_t rule, const char *host)
{
	struct sockaddr_any	a;
	char			err[CONF_ERR_MAX];

	if (addr_resolve_host(host, AF_UNSPEC, &a, err, sizeof(err)) == -1)
		return -1;
	return acl_permits(&cfg->acl, &cfg->rules[rule].acl,
	    (const struct sockaddr *)&a.ss);
}

static int
rule_is(const struct rule *r, int line, const char *listen,
    const char *connect)
{
	return r->line == line && streq(r->listen, listen) &&
	    streq(r->connect, connect);
}

static void
check_sample_globals(const struct conf *cfg)
{
	check(cfg->syntax == CONF_SYNTAX_RINETD, "sample: read as rinetd");
	check(cfg->nrules == 12, "sample: 12 rules (got %zu)", cfg->nrules);
	check(cfg->acl.nallow == 2 && cfg->acl.ndeny == 2 &&
	    streq(cfg->acl.deny[1].text, "fe80:*"),
	    "sample: global allow and deny");
	check(streq(cfg->access_log, "/var/log/rinetd-test.log") &&
	    cfg->access_log_format == ACCESS_LOG_COMMON_EXACT,
	    "sample: logfile and logcommon (rinetd's lines exactly)");
	check(streq(cfg->pidfile, "/run/rinetd test.pid"),
	    "sample: quoted pidlogfile");
}

static void
check_sample_rules(const struct conf *cfg)
{
	const struct rule	*r = cfg->rules;

	check(rule_is(&r[0], 13, "127.0.0.1:18201", "127.0.0.1:18202") &&
	    r[0].idle_timeout == 0 && r[0].ipv6_only && !r[0].upstream.backends[0].has_source &&
	    acl_is_empty(&r[0].acl),
	    "sample: plain rule, no idle timeout (rinetd closes none)");
	check(rule_is(&r[1], 14, "0.0.0.0:18203", "127.0.0.1:http") &&
	    port_of(&r[1].upstream.backends[0].addr) == 80 && r[1].acl.nallow == 1 &&
	    r[1].acl.ndeny == 1, "sample: /tcp, service name, rule patterns");
	check(rule_is(&r[2], 17, "[::1]:18204", "[::1]:18205") &&
	    r[2].idle_timeout == 3600000 && !r[2].ipv6_only,
	    "sample: IPv6, timeout, ipv6_only false");
	check(rule_is(&r[3], 18, "[::]:18206", "localhost:18207") &&
	    !r[3].ipv6_only, "sample: :: and a host name");
	check(rule_is(&r[4], 19, "127.0.0.2:18208", "127.0.0.1:18209") &&
	    r[4].upstream.backends[0].has_source && streq(r[4].source, "127.0.0.2") &&
	    r[4].idle_timeout == 60000 && r[4].acl.ndeny == 1,
	    "sample: spaced options, src and timeout");
	check(rule_is(&r[5], 21, "[::1]:18210", "[::1]:18211") &&
	    r[5].upstream.backends[0].has_source && r[5].upstream.backends[0].source.ss.ss_family == AF_INET6,
	    "sample: bracketed IPv6, IPv6 src");
	check(rule_is(&r[6], 22, "127.0.0.1:18212", "localhost:18213"),
	    "sample: comment right after the port, CRLF");
	check(rule_is(&r[7], 23, "0.0.0.0:18214", "127.0.0.1:18215") &&
	    r[7].idle_timeout == 0, "sample: address 0, timeout=0 attached");
	check(rule_is(&r[8], 24, "0.0.0.0:18216", "127.0.0.1:18217") &&
	    r[8].protocol == RULE_UDP && r[8].session_timeout == 72000,
	    "sample: /udp, rinetd's 72 s session timeout");
	check(rule_is(&r[9], 25, "127.0.0.1:18218", "127.0.0.1:18219") &&
	    r[9].protocol == RULE_UDP && r[9].session_timeout == 30000 &&
	    r[0].protocol == RULE_TCP && r[0].connect_protocol == RULE_TCP &&
	    r[9].connect_protocol == RULE_UDP, "sample: /udp with timeout=30");
	check(rule_is(&r[10], 26, "127.0.0.1:18220", "127.0.0.1:18221") &&
	    r[10].protocol == RULE_UDP && r[10].connect_protocol == RULE_TCP &&
	    r[10].framing == FRAMING_NONE && r[10].session_timeout == 72000,
	    "sample: /udp to /tcp goes raw, with rinetd's timeout");
	check(rule_is(&r[11], 27, "127.0.0.1:18222", "127.0.0.1:18223") &&
	    r[11].protocol == RULE_TCP && r[11].connect_protocol == RULE_UDP &&
	    r[11].framing == FRAMING_NONE && r[11].session_timeout == 10000,
	    "sample: /tcp to /udp goes raw, timeout= as session_timeout");
	check(permits(cfg, 1, "127.0.0.12") == 1 &&
	    permits(cfg, 1, "127.0.0.15") == 0 &&
	    permits(cfg, 1, "127.0.0.2") == 0 &&
	    permits(cfg, 0, "127.0.0.2") == 1 &&
	    permits(cfg, 0, "127.0.0.99") == 0 &&
	    permits(cfg, 0, "10.0.0.1") == 0 &&
	    permits(cfg, 2, "::1") == 1 && permits(cfg, 2, "fe80::1") == 0,
	    "sample: global, then rule allow and deny");
}

/* Every feature, read by conf_load() on its own and by --rinetd. */
static void
test_sample(void)
{
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	cfg = load_good("sample.rinetd", sample, path, sizeof(path),
	    "sample: recognized by conf_load()");
	if (cfg != NULL) {
		check_sample_globals(cfg);
		check_sample_rules(cfg);
	}
	conf_free(cfg);
	cfg = conf_load_syntax(path, CONF_SYNTAX_RINETD, err, sizeof(err));
	check(cfg != NULL && cfg->nrules == 12, "sample: loads as --rinetd");
	conf_free(cfg);
	cfg = conf_load_syntax(path, CONF_SYNTAX_LIBCONFIG, err,
	    sizeof(err));
	check_error("sample forced to libconfig", cfg, path, 4,
	    err, "syntax error");
}

static int
same_acl(const struct acl *a, const struct acl *b)
{
	size_t	i;

	if (a->nallow != b->nallow || a->ndeny != b->ndeny)
		return 0;
	for (i = 0; i < a->nallow; i++)
		if (!streq(a->allow[i].text, b->allow[i].text))
			return 0;
	for (i = 0; i < a->ndeny; i++)
		if (!streq(a->deny[i].text, b->deny[i].text))
			return 0;
	return 1;
}

static int
same_upstream(const struct upstream *a, const struct upstream *b)
{
	size_t	i;

	if (a->nbackends != b->nbackends)
		return 0;
	for (i = 0; i < a->nbackends; i++)
		if (!addr_equal(&a->backends[i].addr, &b->backends[i].addr) ||
		    a->backends[i].has_source != b->backends[i].has_source ||
		    (a->backends[i].has_source &&
		    !addr_equal(&a->backends[i].source, &b->backends[i].source)))
			return 0;
	return 1;
}

static int
same_rule(const struct rule *a, const struct rule *b)
{
	return streq(a->listen, b->listen) && streq(a->connect, b->connect) &&
	    addr_equal(&a->listen_addr, &b->listen_addr) &&
	    same_upstream(&a->upstream, &b->upstream) &&
	    a->idle_timeout == b->idle_timeout &&
	    a->protocol == b->protocol &&
	    a->connect_protocol == b->connect_protocol &&
	    a->framing == b->framing &&
	    a->session_timeout == b->session_timeout &&
	    a->connect_timeout == b->connect_timeout &&
	    a->ipv6_only == b->ipv6_only && same_acl(&a->acl, &b->acl);
}

/* The --convert text, saved as a ferryd.conf, gives the same config. */
static void
test_convert_loads(void)
{
	struct rinetd_conv	 conv;
	struct conf		*direct, *converted = NULL;
	char			 path[PATH_MAX], err[CONF_ERR_MAX];
	size_t			 i, newlines = 0;
	int			 same;

	write_conf("convert.rinetd", sample, path, sizeof(path));
	direct = conf_load_rinetd(path, err, sizeof(err));
	if (rinetd_convert(path, sample, &conv, err, sizeof(err)) == -1) {
		check(0, "convert: %s", err);
		conf_free(direct);
		return;
	}
	for (i = 0; conv.text[i] != '\0'; i++)
		newlines += conv.text[i] == '\n';
	check(newlines == conv.nlines, "convert: one map entry per line");
	check(strstr(conv.text, "# line 19: 127.0.0.2 18208 127.0.0.1 18209 "
	    "[ src = 127.0.0.2 , timeout = 60 ]\n") != NULL &&
	    strstr(conv.text, "# ferryd.conf converted from ") == conv.text,
	    "convert: header, and rinetd lines as comments");
	converted = load_good("converted.conf", conv.text, path, sizeof(path),
	    "convert: the output");
	same = direct != NULL && converted != NULL &&
	    converted->syntax == CONF_SYNTAX_LIBCONFIG &&
	    direct->nrules == converted->nrules &&
	    same_acl(&direct->acl, &converted->acl) &&
	    streq(direct->access_log, converted->access_log) &&
	    direct->access_log_format == converted->access_log_format &&
	    streq(direct->pidfile, converted->pidfile);
	for (i = 0; same && i < direct->nrules; i++)
		same = same_rule(&direct->rules[i], &converted->rules[i]);
	check(same, "convert: the output loads into the same rules");
	conf_free(direct);
	conf_free(converted);
	rinetd_conv_free(&conv);
}

static void
test_detect(void)
{
	check(rinetd_detect("# c\n\n  127.0.0.1 80 10.0.0.1 80\n"),
	    "detect: a forwarding rule");
	check(rinetd_detect("\n\tallow 10.*\nworkers = 2;\n"),
	    "detect: allow first");
	check(rinetd_detect("logcommon\n") &&
	    rinetd_detect("logfile /var/log/r.log\n") &&
	    rinetd_detect("0.0.0.0 80/tcp www.example 8080 [timeout=5]\n"),
	    "detect: logcommon, logfile, rule with options");
	check(!rinetd_detect("workers = 2;\n127.0.0.1 80 10.0.0.1 80\n"),
	    "detect: libconfig setting first");
	check(!rinetd_detect("rules = (\n") && !rinetd_detect("") &&
	    !rinetd_detect("# only a comment\n"),
	    "detect: libconfig list, empty, comment only");
	check(!rinetd_detect("// libconfig comment\n127.0.0.1 80 1.2.3.4 80\n"),
	    "detect: libconfig comment first");
	check(!rinetd_detect("logfile = \"/x\";\n") &&
	    !rinetd_detect("allow = [ \"10.*\" ];\n"),
	    "detect: rinetd words written as libconfig settings");
	check(rinetd_detect("a b c d\n"),
	    "detect: hosts a and c, services b and d: a rule");
	check(!rinetd_detect("a b; c d\n") && !rinetd_detect("allow\n"),
	    "detect: four words that are no rule, allow alone");
}

/* A rinetd file is only tried when libconfig cannot parse the file. */
static void
test_auto(void)
{
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	cfg = load_text("notrinetd.conf", "workers = 2;\nbacklog = ;\n", path,
	    sizeof(path), err, sizeof(err));
	check_error("libconfig syntax error", cfg, path, 2, err,
	    "syntax error");
	cfg = load_text("badrinetd.conf", GOOD "0.0.0.0 53/sctp 1.1.1.1 53\n",
	    path, sizeof(path), err, sizeof(err));
	check_error("conf_load() of a bad rinetd file", cfg, path, 2, err,
	    "the protocol must be /tcp or /udp");
	cfg = conf_load_rinetd("/nonexistent/rinetd.conf", err, sizeof(err));
	check(cfg == NULL && strcmp(err, "cannot open /nonexistent/rinetd.conf: "
	    "No such file or directory") == 0, "missing rinetd file: %s", err);
}

/* etc/rinetd.conf.example, which the end-to-end tests run. */
static void
test_example(void)
{
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	const char	*srcdir = getenv("top_srcdir");
	struct conf	*cfg;

	snprintf(path, sizeof(path), "%s/etc/rinetd.conf.example",
	    srcdir != NULL ? srcdir : ".");
	cfg = conf_load(path, err, sizeof(err));
	check(cfg != NULL && cfg->syntax == CONF_SYNTAX_RINETD &&
	    cfg->nrules >= 5, "etc/rinetd.conf.example loads");
	if (cfg == NULL)
		printf("#   got \"%s\"\n", err);
	/* Anyone may create a symbolic link in /tmp where the log goes. */
	check(cfg != NULL && cfg->access_log != NULL && cfg->pidfile != NULL &&
	    strncmp(cfg->access_log, "/tmp/", 5) != 0 &&
	    strncmp(cfg->pidfile, "/tmp/", 5) != 0,
	    "etc/rinetd.conf.example writes nothing to /tmp");
	conf_free(cfg);
}

#define REWRITE_RULES	60
#define REWRITE_TRIES	3

/*
 * What an editor that rewrites a file in place does: the first lines are
 * in the file, the rest comes a few milliseconds later.  Writes the rest
 * of text to fd after a pause; in a child, which exits.
 */
static void
write_rest_later(int fd, const char *text, size_t len)
{
	struct timespec	pause = { 0, 5000000 };

	nanosleep(&pause, NULL);
	_exit(write(fd, text, len) == (ssize_t)len ? 0 : 1);
}

/*
 * A reload while the file is being rewritten must wait for the writer and
 * read all of it, never load the lines written so far.
 */
static void
test_rewrite(void)
{
	char		 text[REWRITE_RULES * 40], path[PATH_MAX];
	char		 err[CONF_ERR_MAX];
	struct conf	*cfg;
	size_t		 len = 0, half;
	pid_t		 pid;
	int		 i, fd, whole = 0;

	for (i = 0; i < REWRITE_RULES; i++)
		len += snprintf(text + len, sizeof(text) - len,
		    "127.0.0.1 %d 127.0.0.1 %d\n", 19000 + i, 20000 + i);
	half = len / 4;
	write_conf("rewrite.conf", "", path, sizeof(path));
	fflush(stdout);
	for (i = 0; i < REWRITE_TRIES; i++) {
		if ((fd = open(path, O_WRONLY | O_TRUNC)) == -1 ||
		    write(fd, text, half) != (ssize_t)half ||
		    (pid = fork()) == -1) {
			check(0, "rewrite: %s", strerror(errno));
			return;
		}
		if (pid == 0)
			write_rest_later(fd, text + half, len - half);
		close(fd);
		cfg = conf_load_rinetd(path, err, sizeof(err));
		waitpid(pid, NULL, 0);
		if (cfg != NULL && cfg->nrules == REWRITE_RULES)
			whole++;
		else if (cfg != NULL)
			printf("#   loaded %zu rules of %d\n", cfg->nrules,
			    REWRITE_RULES);
		else
			printf("#   got \"%s\"\n", err);
		conf_free(cfg);
	}
	check(whole == REWRITE_TRIES, "rewrite: a file being rewritten is "
	    "read once it is whole (%d of %d times)", whole, REWRITE_TRIES);
}

/* rinetd itself stops at a NUL byte and drops the rest of the file. */
static void
test_nul_byte(void)
{
	static const char text[] = GOOD "\n" "0.0.0.0 18305\0 x\n" GOOD;
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	write_bytes("nul.conf", text, sizeof(text) - 1, path, sizeof(path));
	cfg = conf_load_rinetd(path, err, sizeof(err));
	check_error("rinetd: NUL byte", cfg, path, 3, err, "NUL byte");
}

/* rinetd-uv's unix: addresses in place of an address and port. */
static const char unix_sample[] =
    "unix:/run/ferryd-test/front.sock 127.0.0.1 8080/tcp [mode=0660]\n"
    "0.0.0.0 18402/tcp unix:/run/ferryd-test/docker.sock\n"
    "unix:/run/ferryd-test/a.sock unix:@backend [timeout=30]\n";

static const struct bad_case unix_bad_cases[] = {
	{ "mode on a TCP bind address", GOOD "127.0.0.1 18303 127.0.0.1 80 "
	    "[mode=0660]\n", 2, "option mode is for a bind address unix:/path" },
	{ "mode not octal", "unix:/run/x.sock 127.0.0.1 80 [mode=0980]\n", 1,
	    "mode must be a file mode in octal" },
	{ "relative unix path", GOOD "unix:x.sock 127.0.0.1 80\n", 2,
	    "unix:/absolute/path or unix:@abstract-name" },
	{ "unix connect without a bind port", GOOD "127.0.0.1 unix:/x\n", 2,
	    "none of allow" },
	{ "UDP to a unix socket", GOOD "127.0.0.1 18303/udp unix:/x.sock\n",
	    2, "UDP datagrams cannot be forwarded" },
	{ "allow after a unix bind", GOOD "unix:/run/x.sock 127.0.0.1 80\n"
	    "allow 10.*\n", 3, "use allow_uid" },
};

static void
test_unix(void)
{
	char		 path[PATH_MAX];
	struct conf	*cfg;
	const struct rule *r;

	cfg = load_good("unix.rinetd", unix_sample, path, sizeof(path),
	    "unix: rinetd-uv's unix: addresses load");
	if (cfg != NULL && cfg->nrules == 3) {
		r = cfg->rules;
		check(streq(r[0].listen, "unix:/run/ferryd-test/front.sock") &&
		    r[0].listen_addr.ss.ss_family == AF_UNIX &&
		    r[0].unix_sock.mode == 0660, "unix: unix->tcp with mode");
		check(streq(r[1].connect, "unix:/run/ferryd-test/docker.sock") &&
		    r[1].upstream.backends[0].addr.ss.ss_family == AF_UNIX,
		    "unix: tcp->unix");
		check(streq(r[2].connect, "unix:@backend") &&
		    r[2].idle_timeout == 30000, "unix: unix->unix, abstract");
	}
	conf_free(cfg);
	check_bad_cases(unix_bad_cases, sizeof(unix_bad_cases) /
	    sizeof(unix_bad_cases[0]), "bad-unix.rinetd", conf_load_rinetd);
}

int
main(void)
{
	make_tmpdir("test_rinetd");
	test_sample();
	test_convert_loads();
	test_detect();
	test_auto();
	test_bad_cases();
	test_example();
	test_nul_byte();
	test_rewrite();
	test_unix();
	remove_tmpdir();
	return test_summary();
}
