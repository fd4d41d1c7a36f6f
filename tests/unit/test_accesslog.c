/*
 * test_accesslog.c - unit tests for the access log: the exact layout of
 * both formats (rinetd's tab-separated one and logcommon's), in fixed time
 * zones; appending to a file, reopening it after it was moved, and lines
 * from several processes that never interleave.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "accesslog.h"
#include "addr.h"
#include "log.h"
#include "testlib.h"

#define DATE		1700000000	/* 2023-11-14 22:13:20 UTC */
#define WRITERS		4
#define LINES_EACH	500

static struct rule	rule4, rule6;
static struct backend	backend4, backend6;

static void
set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static void
resolve(const char *spec, struct sockaddr_any *out)
{
	char	err[256];

	if (addr_resolve(spec, 1, out, err, sizeof(err)) == -1) {
		printf("# %s\n", err);
		exit(1);
	}
}

static void
make_rules(void)
{
	resolve("0.0.0.0:8080", &rule4.listen_addr);
	resolve("10.0.0.2:80", &backend4.addr);
	resolve("[::]:8443", &rule6.listen_addr);
	resolve("[2001:db8::10]:443", &backend6.addr);
	/* The exact formats name the hosts as the rule wrote them. */
	rule6.listen = (char *)"[::]:8443";
	rule6.connect = (char *)"[2001:db8::10]:443";
}

/* A finished connection from host through rule. */
static struct accesslog_entry
entry(const struct rule *r, struct sockaddr_any *client, const char *host,
    const char *result, int64_t ms)
{
	struct accesslog_entry	e;

	resolve(host, client);
	memset(&e, 0, sizeof(e));
	e.client = (const struct sockaddr *)&client->ss;
	e.rule = r;
	e.backend = (const void *)&(r == &rule4 ? &backend4 : &backend6)->addr.ss;
	e.bytes_in = 1234;
	e.bytes_out = 56789;
	e.result = result;
	e.date = DATE;
	e.start_ms = 1000000;
	e.end_ms = 1000000 + ms;
	return e;
}

static void
check_line(const struct accesslog_entry *e, int format, const char *want,
    const char *desc)
{
	char	buf[ACCESSLOG_LINE_MAX];
	size_t	len;

	len = accesslog_format(e, format, buf, sizeof(buf));
	check(len == strlen(want) && memcmp(buf, want, len) == 0, "%s", desc);
	if (len != strlen(want) || memcmp(buf, want, len) != 0)
		printf("#   want \"%s\"\n#   got  \"%.*s\"\n", want, (int)len,
		    buf);
}

/* One line: the time zone, the connection, the format, the exact text. */
struct format_case {
	const char	*desc;
	const char	*tz;
	const struct rule *rule;
	const char	*client;
	const char	*result;
	int64_t		 ms;
	uint64_t	 in, out;
	int		 format;
	const char	*want;
};

static const struct format_case format_cases[] = {
	{ "rinetd format: IPv4, UTC", "UTC", &rule4, "192.0.2.7:51234",
	    ACCESSLOG_DONE, 2500, 1234, 56789, ACCESS_LOG_RINETD,
	    "14/Nov/2023:22:13:20 \t192.0.2.7\t0.0.0.0\t8080\t10.0.0.2\t80\t"
	    "1234\t56789\tdone\t2.500\n" },
	{ "rinetd format: IPv6", "UTC", &rule6, "[2001:db8::99]:40000",
	    ACCESSLOG_RESET, 61001, 1234, 56789, ACCESS_LOG_RINETD,
	    "14/Nov/2023:22:13:20 \t2001:db8::99\t::\t8443\t2001:db8::10\t443\t"
	    "1234\t56789\treset\t61.001\n" },
	{ "rinetd format: mapped client as IPv4, denied, no bytes", "UTC",
	    &rule6, "[::ffff:198.51.100.4]:1", ACCESSLOG_DENIED, 0, 0, 0,
	    ACCESS_LOG_RINETD, "14/Nov/2023:22:13:20 \t198.51.100.4\t::\t8443\t"
	    "2001:db8::10\t443\t0\t0\tdenied\t0.000\n" },
	{ "rinetd format: local time, 40-bit count", "EST5", &rule4,
	    "192.0.2.7:1", ACCESSLOG_IDLE_TIMEOUT, 999, 1099511627776ULL, 56789,
	    ACCESS_LOG_RINETD, "14/Nov/2023:17:13:20 \t192.0.2.7\t0.0.0.0\t8080\t"
	    "10.0.0.2\t80\t1099511627776\t56789\tidle-timeout\t0.999\n" },
	{ "common format: UTC", "UTC", &rule4, "192.0.2.7:51234",
	    ACCESSLOG_DONE, 2500, 1234, 56789, ACCESS_LOG_COMMON,
	    "192.0.2.7 - - [14/Nov/2023:22:13:20 +0000] \"GET /rinetd-services/"
	    "0.0.0.0/8080/10.0.0.2/80/done HTTP/1.0\" 200 56789 - - - 1234 "
	    "2.500\n" },
	{ "common format: IPv6, zone +0530", "IST-5:30", &rule6,
	    "[2001:db8::99]:1", ACCESSLOG_CONNECT_FAILED, 12, 0, 7,
	    ACCESS_LOG_COMMON, "2001:db8::99 - - [15/Nov/2023:03:43:20 +0530] "
	    "\"GET /rinetd-services/::/8443/2001:db8::10/443/connect-failed "
	    "HTTP/1.0\" 200 7 - - - 0 0.012\n" },
	{ "common format: zone -0500", "EST5", &rule4, "192.0.2.7:1",
	    ACCESSLOG_REFUSED_MAX, 0, 1, 2, ACCESS_LOG_COMMON,
	    "192.0.2.7 - - [14/Nov/2023:17:13:20 -0500] \"GET /rinetd-services/"
	    "0.0.0.0/8080/10.0.0.2/80/refused-max-connections HTTP/1.0\" 200 2 "
	    "- - - 1 0.000\n" },
	{ "rinetd-exact: opened, no duration", "UTC", &rule4,
	    "192.0.2.7:51234", ACCESSLOG_OPENED, 0, 0, 0,
	    ACCESS_LOG_RINETD_EXACT, "14/Nov/2023:22:13:20 \t192.0.2.7\t"
	    "0.0.0.0\t8080\t10.0.0.2\t80\t0\t0\topened\n" },
	{ "rinetd-exact: hosts as written, done by the backend", "UTC",
	    &rule6, "[2001:db8::99]:40000", ACCESSLOG_DONE, 61001, 4, 5,
	    ACCESS_LOG_RINETD_EXACT, "14/Nov/2023:22:13:20 \t2001:db8::99\t"
	    "[::]\t8443\t[2001:db8::10]\t443\t4\t5\tdone-local-closed\n" },
	{ "rinetd-exact: a mapped client as rinetd prints it; not-allowed "
	    "is rinetd 0.73's \"denied\"", "UTC", &rule6,
	    "[::ffff:198.51.100.4]:1", ACCESSLOG_NOT_ALLOWED, 0, 0, 0,
	    ACCESS_LOG_RINETD_EXACT, "14/Nov/2023:22:13:20 \t"
	    "::ffff:198.51.100.4\t[::]\t8443\t[2001:db8::10]\t443\t0\t0\t"
	    "denied\n" },
	{ "rinetd-exact: denied is rinetd 0.73's \"(null)\"", "UTC", &rule6,
	    "[2001:db8::99]:1", ACCESSLOG_DENIED, 0, 0, 0,
	    ACCESS_LOG_RINETD_EXACT, "14/Nov/2023:22:13:20 \t2001:db8::99\t"
	    "[::]\t8443\t[2001:db8::10]\t443\t0\t0\t(null)\n" },
	{ "common-exact: two spaces before the zone, no duration", "EST5",
	    &rule4, "192.0.2.7:1", ACCESSLOG_CONNECT_FAILED, 7, 0, 0,
	    ACCESS_LOG_COMMON_EXACT, "192.0.2.7 - - [14/Nov/2023:17:13:20  "
	    "-0500] \"GET /rinetd-services/0.0.0.0/8080/10.0.0.2/80/"
	    "done-local-closed HTTP/1.0\" 200 0 - - - 0\n" },
	{ "json: UTC with milliseconds, addresses with ports", "EST5",
	    &rule6, "[2001:db8::99]:40000", ACCESSLOG_DONE, 2500, 1234, 56789,
	    ACCESS_LOG_JSON, "{\"time\":\"2023-11-14T22:13:20.000Z\","
	    "\"rule\":\"[::]:8443\",\"client\":\"2001:db8::99\","
	    "\"client_port\":40000,\"listen\":\"[::]:8443\",\"backend\":"
	    "\"[2001:db8::10]:443\",\"bytes_in\":1234,\"bytes_out\":56789,"
	    "\"duration\":2.500,\"outcome\":\"done\"}\n" },
};

static void
test_formats(void)
{
	const struct format_case	*fc;
	struct sockaddr_any		 c;
	struct accesslog_entry		 e;
	size_t				 i;

	for (i = 0; i < sizeof(format_cases) / sizeof(format_cases[0]); i++) {
		fc = &format_cases[i];
		set_tz(fc->tz);
		e = entry(fc->rule, &c, fc->client, fc->result, fc->ms);
		e.bytes_in = fc->in;
		e.bytes_out = fc->out;
		check_line(&e, fc->format, fc->want, fc->desc);
	}
}

/* rinetd's words for who closed first. */
static void
test_exact_words(struct accesslog_entry *e)
{
	char		line[ACCESSLOG_LINE_MAX];

	e->rule = &rule4;
	e->date = DATE;
	e->result = ACCESSLOG_RESET;
	e->closed_first = ACCESSLOG_SIDE_CLIENT;
	accesslog_format(e, ACCESS_LOG_RINETD_EXACT, line, sizeof(line));
	check(strstr(line, "\tdone-remote-closed\n") != NULL,
	    "a reset by the client first: done-remote-closed");
	e->result = ACCESSLOG_IDLE_TIMEOUT;
	accesslog_format(e, ACCESS_LOG_RINETD_EXACT, line, sizeof(line));
	check(strstr(line, "\tidle-timeout\n") != NULL,
	    "what rinetd never does keeps ferryd's word");
	e->closed_first = ACCESSLOG_SIDE_UNKNOWN;
}

/* Quotes, backslashes and control characters in a JSON string. */
static void
test_json_escapes(struct accesslog_entry *e)
{
	static const int fields[] = { ACCESS_FIELD_CONNECT_TIME,
	    ACCESS_FIELD_FIRST_BYTE_TIME, ACCESS_FIELD_RULE };
	struct rule	r = rule4;
	char		line[ACCESSLOG_LINE_MAX];

	r.name = (char *)"a\"b\\c";
	e->rule = &r;
	e->result = "x\ty\001";
	e->connect_us = 1500128;
	e->first_byte_us = -1;
	e->attempts_field = true;
	e->attempts = 2;
	accesslog_set_format(ACCESS_LOG_JSON, fields, 3);
	accesslog_format(e, ACCESS_LOG_JSON, line, sizeof(line));
	accesslog_set_format(ACCESS_LOG_RINETD, NULL, 0);
	check(strstr(line, "\"rule\":\"a\\\"b\\\\c\",") != NULL &&
	    strstr(line, "\"outcome\":\"x\\u0009y\\u0001\",\"attempts\":2,"
	    "\"connect_time\":1.500128,\"first_byte_time\":null}\n") != NULL,
	    "JSON escapes, attempts and access_log_fields: %s", line);
	e->attempts_field = false;
	e->rule = &rule4;
}

static void
test_corners(void)
{
	struct sockaddr_any	c;
	struct accesslog_entry	e;
	char			long_result[2 * ACCESSLOG_LINE_MAX], buf[64];
	char			line[ACCESSLOG_LINE_MAX];
	size_t			len;
	time_t			now;

	set_tz("UTC");
	e = entry(&rule4, &c, "192.0.2.7:1", NULL, -5);
	e.rule = NULL;
	e.backend = NULL;
	check_line(&e, ACCESS_LOG_RINETD, "14/Nov/2023:22:13:20 \t192.0.2.7\t"
	    "?\t0\t?\t0\t1234\t56789\tunknown\t0.000\n",
	    "no rule, no result, negative duration");
	memset(long_result, 'x', sizeof(long_result) - 1);
	long_result[sizeof(long_result) - 1] = '\0';
	e.result = long_result;
	len = accesslog_format(&e, ACCESS_LOG_COMMON, line, sizeof(line));
	check(len == sizeof(line) - 1 && line[len - 1] == '\n' &&
	    memchr(line, '\n', len - 1) == NULL,
	    "an overlong line is cut and still ends with its newline");
	len = accesslog_format(&e, ACCESS_LOG_RINETD, buf, 1);
	check(len == 0, "a buffer of one byte gets nothing");
	e.date = 0;
	e.result = ACCESSLOG_DONE;
	now = time(NULL);
	len = accesslog_format(&e, ACCESS_LOG_RINETD, line, sizeof(line));
	strftime(buf, sizeof(buf), "/%Y:", gmtime(&now));
	check(len > 0 && strstr(line, buf) != NULL, "date 0 means now");
	test_exact_words(&e);
	test_json_escapes(&e);
}

/* port as getnameinfo() names it: /etc/services' name, or the number. */
static const char *
port_name(int port, char *buf, size_t len)
{
	struct servent	*se = getservbyport(htons(port), "tcp");

	if (se != NULL)
		snprintf(buf, len, "%s", se->s_name);
	else
		snprintf(buf, len, "%d", port);
	return buf;
}

/*
 * sslh's line: the route's name as sslh's protocol (without the "_2" of
 * a protocol given again), the addresses each end saw, ports by their
 * /etc/services names or as numbers (sslh -n).
 */
static void
test_sslh(void)
{
	struct sockaddr_any	c, here, from, ssh;
	struct accesslog_entry	e;
	char			want[256], p8080[64], p22[64];

	resolve("192.0.2.7:51234", &c);
	resolve("203.0.113.5:443", &here);
	resolve("127.0.0.1:40000", &from);
	resolve("127.0.0.1:22", &ssh);
	memset(&e, 0, sizeof(e));
	e.rule = &rule4;
	e.route = "tls_2";
	e.client = (const struct sockaddr *)&c.ss;
	e.client_local = (const struct sockaddr *)&here.ss;
	e.backend_local = (const struct sockaddr *)&from.ss;
	e.backend = (const struct sockaddr *)&ssh.ss;
	check_line(&e, ACCESS_LOG_SSLH_NUMERIC, "tls:connection from "
	    "192.0.2.7:51234 to 203.0.113.5:443 forwarded from "
	    "127.0.0.1:40000 to 127.0.0.1:22\n", "sslh-numeric: sslh -n's "
	    "line, tls_2 is sslh's tls");
	accesslog_set_format(ACCESS_LOG_SSLH, NULL, 0);
	e.route = "ssh";
	e.client_local = NULL;	/* unknown: the rule's listen address */
	e.backend_local = NULL;
	snprintf(want, sizeof(want), "ssh:connection from 192.0.2.7:51234 to "
	    "0.0.0.0:%s forwarded from ?:? to 127.0.0.1:%s\n",
	    port_name(8080, p8080, sizeof(p8080)),
	    port_name(22, p22, sizeof(p22)));
	check_line(&e, ACCESS_LOG_SSLH, want, "sslh: ports by their names");
	e.route = NULL;
	rule6.name = (char *)"web_2";
	e.rule = &rule6;
	check_line(&e, ACCESS_LOG_SSLH_NUMERIC, "web_2:connection from "
	    "192.0.2.7:51234 to :::8443 forwarded from ?:? to 127.0.0.1:22\n",
	    "sslh: no route, the rule's name as it is, IPv6 as getnameinfo "
	    "writes it");
	rule6.name = NULL;
	accesslog_set_format(ACCESS_LOG_RINETD, NULL, 0);
}

/* The whole content of path, or "" if it cannot be read. */
static void
slurp(const char *path, char *buf, size_t len)
{
	FILE	*fp;
	size_t	 n = 0;

	if ((fp = fopen(path, "r")) != NULL) {
		n = fread(buf, 1, len - 1, fp);
		fclose(fp);
	}
	buf[n] = '\0';
}

static void
test_file(void)
{
	struct sockaddr_any	c;
	struct accesslog_entry	e;
	char			path[PATH_MAX], moved[PATH_MAX + 8], err[512];
	char			got[4096];

	set_tz("UTC");
	e = entry(&rule4, &c, "192.0.2.7:1", ACCESSLOG_DONE, 1);
	accesslog_write(&e);
	check(!accesslog_enabled(), "no log open: writing does nothing");
	write_conf("access.log", "earlier line\n", path, sizeof(path));
	check(accesslog_open(path, err, sizeof(err)) == 0 &&
	    accesslog_enabled(), "open an existing log");
	accesslog_set_format(ACCESS_LOG_COMMON, NULL, 0);
	accesslog_write(&e);
	slurp(path, got, sizeof(got));
	check(strcmp(got, "earlier line\n192.0.2.7 - - [14/Nov/2023:22:13:20 "
	    "+0000] \"GET /rinetd-services/0.0.0.0/8080/10.0.0.2/80/done "
	    "HTTP/1.0\" 200 56789 - - - 1234 0.001\n") == 0,
	    "a line is appended in the format set");
	snprintf(moved, sizeof(moved), "%s.1", path);
	if (rename(path, moved) == -1)
		perror(moved);
	accesslog_set_format(ACCESS_LOG_RINETD, NULL, 0);
	check(accesslog_reopen() == 0, "reopen after the log was moved");
	accesslog_write(&e);
	slurp(path, got, sizeof(got));
	check(strcmp(got, "14/Nov/2023:22:13:20 \t192.0.2.7\t0.0.0.0\t8080\t"
	    "10.0.0.2\t80\t1234\t56789\tdone\t0.001\n") == 0,
	    "after reopening, lines go to the new file");
	slurp(moved, got, sizeof(got));
	check(strchr(got, '\t') == NULL && strstr(got, "earlier") == got,
	    "the moved file keeps what it had");
	/* access_log_fields, in the order given. */
	{
		static const int fields[] = { ACCESS_FIELD_FIRST_BYTE_TIME,
		    ACCESS_FIELD_RULE, ACCESS_FIELD_CONNECT_TIME };
		size_t len0;

		rule4.name = (char *)"web";
		e.connect_us = 1500128;
		e.first_byte_us = -1;
		slurp(path, got, sizeof(got));
		len0 = strlen(got);
		accesslog_set_format(ACCESS_LOG_RINETD, fields, 3);
		accesslog_write(&e);
		slurp(path, got, sizeof(got));
		check(strcmp(got + len0, "14/Nov/2023:22:13:20 \t192.0.2.7\t"
		    "0.0.0.0\t8080\t10.0.0.2\t80\t1234\t56789\tdone\t0.001\t"
		    "-\tweb\t1.500128\n") == 0, "access_log_fields at the end, "
		    "in their order: %s", got + len0);
		accesslog_set_format(ACCESS_LOG_COMMON, fields + 1, 1);
		accesslog_write(&e);
		slurp(path, got, sizeof(got));
		check(strstr(got, "1234 0.001 web\n") != NULL, "in the common "
		    "format, after a space");
		accesslog_set_format(ACCESS_LOG_RINETD, NULL, 0);
		rule4.name = NULL;
	}
	accesslog_close();
	check(!accesslog_enabled() && accesslog_reopen() == 0,
	    "closed: reopening does nothing");
	snprintf(path, sizeof(path), "%s/no/such/dir/access.log", tmpdir);
	check(accesslog_open(path, err, sizeof(err)) == -1 &&
	    strstr(err, "cannot open access log ") == err &&
	    strstr(err, "No such file or directory") != NULL,
	    "an impossible path is refused: %s", err);
}

/* WRITERS processes append at once: every line must come out whole. */
static void
test_no_interleaving(void)
{
	struct sockaddr_any	c;
	struct accesslog_entry	e;
	char			path[PATH_MAX], err[512], line[256];
	FILE			*fp;
	pid_t			pid;
	int			i, j, whole = 0, broken = 0, status, ok = 1;

	write_conf("shared.log", "", path, sizeof(path));
	if (accesslog_open(path, err, sizeof(err)) == -1) {
		check(0, "open shared log: %s", err);
		return;
	}
	e = entry(&rule6, &c, "[2001:db8::99]:1", ACCESSLOG_DONE, 1);
	for (i = 0; i < WRITERS; i++) {
		if ((pid = fork()) == -1) {
			perror("fork");
			exit(1);
		}
		if (pid == 0) {
			for (j = 0; j < LINES_EACH; j++)
				accesslog_write(&e);
			_exit(0);
		}
	}
	for (i = 0; i < WRITERS; i++)
		ok &= wait(&status) != -1 && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0;
	accesslog_close();
	if ((fp = fopen(path, "r")) != NULL) {
		while (fgets(line, sizeof(line), fp) != NULL) {
			if (strcmp(line, "14/Nov/2023:22:13:20 \t2001:db8::99\t"
			    "::\t8443\t2001:db8::10\t443\t1234\t56789\tdone\t"
			    "0.001\n") == 0)
				whole++;
			else
				broken++;
		}
		fclose(fp);
	}
	check(ok && whole == WRITERS * LINES_EACH && broken == 0,
	    "%d processes, %d whole lines, %d broken", WRITERS, whole, broken);
}

/*
 * A log that cannot be written (a full pipe standing in for a full
 * disk): the lines are lost, said once; once it takes lines again, that
 * is said with how many were lost.
 */
static void
test_full(void)
{
	struct sockaddr_any	c;
	struct accesslog_entry	e;
	char			path[PATH_MAX], logpath[PATH_MAX], err[256];
	char			got[8192], sink[65536];
	int			p[2], i;

	write_conf("full.log", "", path, sizeof(path));
	write_conf("ferryd.log", "", logpath, sizeof(logpath));
	if (accesslog_open(path, err, sizeof(err)) == -1 || pipe(p) == -1 ||
	    fcntl(p[1], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(p[0], F_SETFL, O_NONBLOCK) == -1 ||
	    log_open(LOG_TO_FILE, logpath, err, sizeof(err)) == -1) {
		check(0, "set up a full log: %s", err);
		return;
	}
	log_set_level(LOG_LEVEL_INFO);
	accesslog_set_format(ACCESS_LOG_RINETD, NULL, 0);
	accesslog_adopt_fd(p[1]);
	memset(sink, 'x', sizeof(sink));	/* what fills it is written */
	while (write(p[1], sink, sizeof(sink)) > 0)
		;	/* the pipe is full */
	e = entry(&rule4, &c, "192.0.2.7:1", ACCESSLOG_DONE, 1);
	for (i = 0; i < 5; i++)
		accesslog_write(&e);
	while (read(p[0], sink, sizeof(sink)) > 0)
		;	/* emptied */
	accesslog_write(&e);
	slurp(logpath, got, sizeof(got));
	check(strstr(got, "cannot write to access log") != NULL &&
	    strstr(strstr(got, "cannot write to access log") + 1,
	    "cannot write to access log") == NULL,
	    "5 lines lost: said once");
	check(strstr(got, "is written again; 5 line(s) were lost") != NULL,
	    "then written again, with the count: %s", got);
	accesslog_close();
	close(p[0]);
	log_open(LOG_TO_STDERR, NULL, NULL, 0);
	log_set_level(LOG_LEVEL_ERR);
}

int
main(void)
{
	log_set_level(LOG_LEVEL_ERR);
	make_tmpdir("test_accesslog");
	make_rules();
	test_formats();
	test_corners();
	test_sslh();
	test_file();
	test_full();
	test_no_interleaving();
	remove_tmpdir();
	return test_summary();
}
