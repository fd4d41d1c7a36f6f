/*
 * test_rinetd_uv.c - unit tests for rinetd-uv's words in a rinetd.conf:
 * a file using every one loads with the ferryd settings they map to,
 * the tuning words are kept with a warning at their FILE:LINE; include
 * reads a glob relative to the including file, nested, and refuses
 * loops, a file twice and too deep a nesting at the include's line;
 * logfile given twice keeps the last with a warning; the status words
 * map to status_file and its settings; --convert writes the mapped
 * settings; rinetd-uv's YAML form is refused with the way out.
 */
#include "ferryd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf.h"
#include "conf_rinetd.h"
#include "log.h"
#include "testlib.h"

/* Load path as a rinetd.conf; the converter's warnings in warn. */
static struct conf *
load(const char *path, char *err, size_t errlen, char *warn, size_t wlen)
{
	struct rinetd_conv	 conv;
	char			*text;

	warn[0] = '\0';
	if ((text = rinetd_read(path, err, errlen)) != NULL &&
	    rinetd_convert(path, text, &conv, err, errlen) == 0) {
		snprintf(warn, wlen, "%s", conv.warnings != NULL ?
		    conv.warnings : "");
		rinetd_conv_free(&conv);
	}
	free(text);
	return conf_load_rinetd(path, err, errlen);
}

static void
sub_dir(const char *name)
{
	char	path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if (mkdir(path, 0700) == -1) {
		perror(path);
		exit(1);
	}
}

static void
test_every_word(void)
{
	char		 main_path[PATH_MAX], path[PATH_MAX], err[CONF_ERR_MAX];
	char		 warn[4096], want[2 * PATH_MAX + 128];
	struct conf	*cfg;

	sub_dir("conf.d");
	write_conf("conf.d/20-b.conf",
	    "127.0.0.1 18402 127.0.0.1 18403 [keepalive=on, "
	    "connect-timeout=5]\n"
	    "include ../more/*.conf\n", path, sizeof(path));
	write_conf("conf.d/10-a.conf",
	    "127.0.0.1 18400 127.0.0.1 18401 [keepalive=off,timeout=9]\n",
	    path, sizeof(path));
	sub_dir("more");
	write_conf("more/x.conf", "pool-min-free 64\n"
	    "127.0.0.1 18404 127.0.0.1 18405 [dns-refresh=30]\n",
	    path, sizeof(path));
	write_conf("uv.conf",
	    "logfile /tmp/first.log\n"				/* 1 */
	    "pidfile /run/uv.pid\n"
	    "connect-timeout 7\n"
	    "dns-refresh 300\n"
	    "buffersize 32768\n"				/* 5 */
	    "listen-backlog 511\n"
	    "pool-max-free 2048\n"
	    "pool-trim-delay 1000\n"
	    "max-udp-connections 100\n"
	    "statusfile /tmp/status.json\n"			/* 10 */
	    "include conf.d/*.conf\n"
	    "logfile /tmp/last.log\n", main_path, sizeof(main_path));
	cfg = load(main_path, err, sizeof(err), warn, sizeof(warn));
	check(cfg != NULL, "a file with every rinetd-uv word loads: %s",
	    cfg != NULL ? "yes" : err);
	if (cfg == NULL)
		return;
	check(cfg->nrules == 3, "3 rules from two included files, in name "
	    "order, nested (got %zu)", cfg->nrules);
	check(cfg->nrules == 3 && port_of(&cfg->rules[0].listen_addr) ==
	    18400 && port_of(&cfg->rules[1].listen_addr) == 18402 &&
	    port_of(&cfg->rules[2].listen_addr) == 18404,
	    "the glob's files in name order, the nested one after");
	check(streq(cfg->pidfile, "/run/uv.pid"), "pidfile");
	check(streq(cfg->access_log, "/tmp/last.log"),
	    "logfile twice: the last counts");
	check(strstr(warn, "logfile") == NULL, "... without a warning, as "
	    "rinetd-uv takes it");
	check(cfg->connect_timeout == 7000 && cfg->resolve_interval ==
	    30000 && cfg->buffer_size == 32768 && cfg->backlog == 511,
	    "connect-timeout, dns-refresh (a rule's shorter 30 s winning over "
	    "the global 300), buffersize, listen-backlog map to "
	    "connect_timeout, resolve_interval, buffer_size, backlog");
	check(cfg->nrules == 3 && !cfg->rules[0].keepalive.enabled &&
	    cfg->rules[1].keepalive.enabled &&
	    cfg->rules[1].connect_timeout == 5000 &&
	    cfg->rules[0].connect_timeout == 7000 &&
	    cfg->rules[0].idle_timeout == 9000,
	    "[keepalive=...] and [connect-timeout=N] per rule");
	snprintf(want, sizeof(want), "%s:7: pool-max-free (rinetd-uv) is not "
	    "used", main_path);
	check(strstr(warn, want) != NULL, "a tuning word: a warning at its "
	    "FILE:LINE");
	snprintf(want, sizeof(want), "%s/more/x.conf:1: pool-min-free",
	    tmpdir);
	check(strstr(warn, "../more/x.conf:1: pool-min-free") != NULL ||
	    strstr(warn, want) != NULL, "... also in an included file");
	check(strstr(warn, "dns-refresh") == NULL &&
	    strstr(warn, ":9: max-udp-connections") != NULL &&
	    strstr(warn, "statusfile") == NULL,
	    "max-udp-connections: a warning; a rule's dns-refresh and "
	    "statusfile, honoured, none");
	check(streq(cfg->status_file, "/tmp/status.json") &&
	    cfg->status_interval == 30000 && cfg->status_format == STATUS_JSON &&
	    cfg->stats_log_interval == 0, "statusfile maps to status_file, "
	    "at ferryd's (and rinetd-uv's) defaults: every 30 s, JSON, no "
	    "STATS line");
	conf_free(cfg);
}

/*
 * rinetd-uv's status words: status_file, status_interval, status_format
 * and stats_log_interval, without a warning; their values checked as
 * rinetd-uv checks them, at their line.
 */
static void
test_status_words(void)
{
	struct rinetd_conv	 conv;
	char			 path[PATH_MAX], err[CONF_ERR_MAX];
	char			 warn[1024];
	static const char	 text[] = "statusinterval 5\n"
	    "statusformat text\n" "statsloginterval 60\n"
	    "statusfile \"/tmp/ferryd status.txt\"\n"
	    "127.0.0.1 18430 127.0.0.1 18431\n";
	struct conf		*cfg;

	write_conf("status.conf", text, path, sizeof(path));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	check(cfg != NULL && streq(cfg->status_file, "/tmp/ferryd status.txt") &&
	    cfg->status_interval == 5000 && cfg->status_format ==
	    STATUS_TEXT && cfg->stats_log_interval == 60000 && warn[0] == '\0',
	    "statusfile (quoted), statusinterval, statusformat, "
	    "statsloginterval: mapped, no warning%s%s", cfg == NULL ? ": " : "",
	    cfg == NULL ? err : warn);
	conf_free(cfg);
	if (rinetd_convert(path, text, &conv, err, sizeof(err)) == 0) {
		check(strstr(conv.text, "# line 1: statusinterval 5\n"
		    "status_interval = 5;\n") != NULL && strstr(conv.text,
		    "status_format = \"text\";\n") != NULL &&
		    strstr(conv.text, "stats_log_interval = 60;\n") != NULL &&
		    strstr(conv.text, "status_file = \"/tmp/ferryd "
		    "status.txt\";\n") != NULL, "--convert writes them under "
		    "their lines");
		rinetd_conv_free(&conv);
	} else
		check(0, "convert: %s", err);

	write_conf("status-bad.conf", "127.0.0.1 18432 127.0.0.1 18433\n"
	    "statusformat xml\n", path, sizeof(path));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	check(cfg == NULL && strstr(err, ":2: statusformat must be json or "
	    "text (got \"xml\")") != NULL, "statusformat xml: %s", err);
	write_conf("status-bad.conf", "statusinterval 0\n"
	    "127.0.0.1 18432 127.0.0.1 18433\n", path, sizeof(path));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	check(cfg == NULL && strstr(err, ":1: statusinterval must be a whole "
	    "number from 1 to 86400") != NULL, "statusinterval 0: %s", err);
	write_conf("status-bad.conf", "statsloginterval 86401\n"
	    "127.0.0.1 18432 127.0.0.1 18433\n", path, sizeof(path));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	check(cfg == NULL && strstr(err, ":1: statsloginterval must be a "
	    "whole number from 0 to 86400") != NULL, "statsloginterval "
	    "86401: %s", err);
}

/* A problem inside an included file: reported at that file's line. */
static void
test_include_errors(void)
{
	char		 path[PATH_MAX], inc[PATH_MAX], err[CONF_ERR_MAX];
	char		 warn[1024], want[PATH_MAX + 128];
	struct conf	*cfg;
	int		 i;

	write_conf("bad-inc.conf", "127.0.0.1 18410 127.0.0.1 18411\n"
	    "\n" "buffersize 12\n", inc, sizeof(inc));
	write_conf("bad-main.conf", "include bad-inc.conf\n", path,
	    sizeof(path));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	snprintf(want, sizeof(want), "%s:3: buffersize must be a whole "
	    "number from 1024 to 1048576", inc);
	check(cfg == NULL && strstr(err, want) == err,
	    "an error in an included file names its FILE:LINE: %s", err);

	write_conf("loop-a.conf", "127.0.0.1 18412 127.0.0.1 18413\n"
	    "include loop-b.conf\n", path, sizeof(path));
	write_conf("loop-b.conf", "include loop-a.conf\n", inc, sizeof(inc));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	snprintf(want, sizeof(want), "%s:1: include: ", inc);
	check(cfg == NULL && strstr(err, want) == err &&
	    strstr(err, "circular include detected") != NULL,
	    "an include loop is refused at the include: %s", err);

	write_conf("twice.conf", "include loop-b.conf\ninclude loop-b.conf\n",
	    path, sizeof(path));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	check(cfg == NULL && strstr(err, "included again") != NULL,
	    "a file included twice is refused: %s", err);

	/*
	 * deep-0 includes deep-1 ... includes deep-10: eleven files, one
	 * more than rinetd-uv's ten (the main file counts); ten load.
	 */
	for (i = 0; i < 11; i++) {
		char	name[32], text[64];

		snprintf(name, sizeof(name), "deep-%d.conf", i);
		snprintf(text, sizeof(text), "include deep-%d.conf\n", i + 1);
		write_conf(name, text, i == 0 ? path : inc, sizeof(path));
	}
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	check(cfg == NULL && strstr(err, "deep-9.conf:1: include: maximum "
	    "include depth (10) exceeded") != NULL, "too deep: %s", err);
	write_conf("deep-9.conf", "127.0.0.1 18416 127.0.0.1 18417\n", inc,
	    sizeof(inc));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	check(cfg != NULL, "ten files deep load, as in rinetd-uv%s%s",
	    cfg == NULL ? ": " : "", cfg == NULL ? err : "");
	conf_free(cfg);

	write_conf("empty-glob.conf", "include nothing.d/*.conf\n"
	    "127.0.0.1 18414 127.0.0.1 18415\n", path, sizeof(path));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	check(cfg != NULL && strstr(warn, ":1: include: no file matches") !=
	    NULL, "a glob matching nothing: a warning, as rinetd-uv");
	conf_free(cfg);

	write_conf("bad-opt.conf", "127.0.0.1 18416 127.0.0.1 18417 "
	    "[keepalive=maybe]\n", path, sizeof(path));
	cfg = load(path, err, sizeof(err), warn, sizeof(warn));
	check(cfg == NULL && strstr(err, ":1: keepalive must be on or off") !=
	    NULL, "a bad keepalive value: %s", err);
}

static void
test_yaml(void)
{
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	write_conf("rinetd-uv.yaml", "# rinetd-uv\nglobal:\n  logfile: "
	    "/tmp/x.log\nrules:\n  - name: a\n", path, sizeof(path));
	cfg = conf_load(path, err, sizeof(err));
	check(cfg == NULL && strstr(err, "rinetd-uv's YAML") != NULL &&
	    strstr(err, "--convert") != NULL,
	    "YAML: refused with a pointer to --convert: %s", err);
	conf_free(cfg);
}

/* --convert: the mapped settings are written, the warnings as comments. */
static void
test_convert(void)
{
	struct rinetd_conv	 conv;
	char			 path[PATH_MAX], err[CONF_ERR_MAX];

	write_conf("conv.conf", "connect-timeout 7200\n"
	    "listen-backlog 64\npool-min-free 1\n"
	    "127.0.0.1 18420 127.0.0.1 18421 [keepalive=on]\n", path,
	    sizeof(path));
	if (rinetd_convert(path, "connect-timeout 7200\nlisten-backlog 64\n"
	    "pool-min-free 1\n127.0.0.1 18420 127.0.0.1 18421 "
	    "[keepalive=on]\n", &conv, err, sizeof(err)) == -1) {
		check(0, "convert: %s", err);
		return;
	}
	check(strstr(conv.text, "connect_timeout = 3600;\n") != NULL &&
	    strstr(conv.text, "backlog = 64;\n") != NULL &&
	    strstr(conv.text, "    keepalive = { };\n") != NULL,
	    "--convert writes the mapped settings, cut to ferryd's range");
	check(strstr(conv.text, "#   ") != NULL &&
	    strstr(conv.text, ":3: pool-min-free (rinetd-uv) is not used") !=
	    NULL && strstr(conv.warnings, ":1: connect-timeout 7200: ferryd "
	    "takes at most 3600") != NULL,
	    "... and the warnings, as comments too");
	rinetd_conv_free(&conv);
}

/* remove_tmpdir() removes files: the two directories go first. */
static void
remove_sub_dirs(void)
{
	static const char *const files[] = { "conf.d/10-a.conf",
	    "conf.d/20-b.conf", "conf.d", "more/x.conf", "more" };
	char	path[PATH_MAX];
	size_t	i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, files[i]);
		if (remove(path) == -1)
			perror(path);
	}
}

int
main(void)
{
	log_set_level(LOG_LEVEL_ERR);	/* the warnings are checked */
	make_tmpdir("test_rinetd_uv");
	test_every_word();
	test_status_words();
	test_include_errors();
	test_yaml();
	test_convert();
	remove_sub_dirs();
	remove_tmpdir();
	return test_summary();
}
