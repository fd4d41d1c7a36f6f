/*
 * main.c - the command line: load the configuration, check it (-t),
 * print it (-T), signal the running master (-s), convert a rinetd.conf
 * (--convert) or sslh's settings (--sslh ... --convert), or hand over
 * to the master.
 */
#include "ferryd.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "conf.h"
#include "conf_rinetd.h"
#include "conf_sslh.h"
#include "ask_daemon.h"
#include "inetd.h"
#include "log.h"
#include "lookup.h"
#include "master.h"
#include "master_adopt.h"
#include "master_upgrade.h"
#include "outcome.h"
#include "pidfile.h"
#include "safefile.h"
#include "proctitle.h"
#include "rule.h"
#include "sock.h"
#include "sockowner.h"

#define DEFAULT_CONFIG SYSCONFDIR "/ferryd.conf"

/* Long options without a short one. */
enum {
	OPT_RINETD = 256,
	OPT_CONVERT
};

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: ferryd [-ftTV] [-c file] [-l level] [-p pidfile] [--rinetd]\n"
	    "       ferryd -s reload|stop|quit|reopen|drain|upgrade [-c file]\n"
	    "                 [-p pidfile]\n"
	    "       ferryd -s status [-c file]\n"
	    "       ferryd -x command [-c file] [-S socket]\n"
	    "       ferryd -i [-f] [-c file] [-l level]\n"
	    "       ferryd --convert rinetd.conf\n"
	    "       ferryd [-ft] [-l level] --sslh SSLH-OPTIONS... [--convert]\n"
	    "\n"
	    "Forward TCP connections and UDP datagrams as the rules of the\n"
	    "configuration say.\n"
	    "\n"
	    "  -c, --config FILE     configuration file (default %s)\n"
	    "      --rinetd          FILE is a rinetd.conf, rinetd-uv's words "
	    "too (also\n"
	    "                        recognized without this option when it "
	    "is not libconfig)\n"
	    "      --convert FILE    print rinetd.conf FILE as a ferryd.conf "
	    "and exit\n"
	    "      --sslh ...        the rest is sslh's command line (-F "
	    "sslh.cfg,\n"
	    "                        --listen, --ssh, --tls, ...): run as "
	    "sslh would;\n"
	    "                        with --convert among them, print the "
	    "ferryd.conf\n"
	    "  -f, --foreground      stay in the foreground, log to stderr\n"
	    "  -i, --inetd           serve the one connection on standard input\n"
	    "                        (from inetd, or a socket unit with\n"
	    "                        Accept=yes) with the rule of its address,\n"
	    "                        then exit; as sslh -i\n"
	    "  -t, --test            check the configuration and exit\n"
	    "  -T, --show            print the effective configuration (every\n"
	    "                        default filled in, includes inlined) as\n"
	    "                        ferryd.conf text and exit\n"
	    "  -l, --log-level LEVEL err, warning, notice, info or debug\n"
	    "  -p, --pidfile FILE    write the master's pid to FILE\n"
	    "  -s, --signal ACTION   tell the running master, found through\n"
	    "                        its pidfile, to reload, stop, quit\n"
	    "                        (gracefully), reopen its logs, drain\n"
	    "                        the host (/ready answers 503) or upgrade\n"
	    "                        (execute the binary on disk, keeping\n"
	    "                        its pid, sockets and connections);\n"
	    "                        status: print what it is doing, asked\n"
	    "                        through the configuration's\n"
	    "                        stats_listen\n"
	    "  -x, --control CMD     send CMD to the configuration's\n"
	    "                        control_socket and print the answer\n"
	    "                        (\"help\" lists the commands)\n"
	    "  -S, --control-socket PATH  ... at PATH (the file is not read)\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n"
	    "\n"
	    "Signals to the master: HUP reload, TERM/INT stop, QUIT stop after\n"
	    "finishing connections, USR1 reopen log files, USR2 drain the host,\n"
	    "URG upgrade in place.  See ferryd(8) and ferryd.conf(5).\n",
	    DEFAULT_CONFIG);
}

/* -s status: what the running daemon is doing, from its stats endpoint. */
static int
print_status(const struct options *opt)
{
	struct conf	*cfg;
	char		 err[CONF_ERR_MAX];
	int		 rc = 0;

	lookup_offline();	/* only stats_listen is read */
	cfg = conf_load_as(opt->config_path, opt->config_syntax, opt->sslh,
	    err, sizeof(err));
	lookup_live();
	if (cfg == NULL || ask_status(cfg, stdout, err, sizeof(err)) == -1) {
		fprintf(stderr, "ferryd: %s\n", err);
		rc = 1;
	}
	conf_free(cfg);
	return rc;
}

/*
 * The running master's pidfile as cfg, loaded from -c, names it, else the
 * daemon's default.  cfg NULL (err says why: an edit not yet reloaded, a
 * typo) names none: the default then, with a warning that the error is
 * the file's, not the daemon's, which runs on as it was.  NULL after
 * saying why.
 */
static char *
pidfile_named(const struct options *opt, const struct conf *cfg,
    const char *err)
{
	char *pidfile;

	if (cfg == NULL) {
		fprintf(stderr, "ferryd: warning: %s\nferryd: warning: the "
		    "running daemon is unchanged by this error (a start or a "
		    "reload would refuse the file); its pidfile is taken to be "
		    "the default, %s (name another with -p)\n", err,
		    PIDFILE_DEFAULT);
		return strdup(PIDFILE_DEFAULT);
	}
	pidfile = strdup(cfg->pidfile != NULL ? cfg->pidfile : PIDFILE_DEFAULT);
	if (pidfile != NULL && pidfile[0] == '\0') {
		fprintf(stderr, "ferryd: %s sets no pidfile (pidfile = \"\"): "
		    "name the running master's with -p\n", opt->config_path);
		free(pidfile);
		pidfile = NULL;
	}
	return pidfile;
}

/*
 * The running master's pidfile: -p, else the one the configuration
 * names (read offline: only pidfile is read), else the default
 * (pidfile_named).  NULL after saying why.
 */
static char *
master_pidfile(const struct options *opt)
{
	struct conf	*cfg;
	char		 err[CONF_ERR_MAX], *pidfile;

	if (opt->pidfile != NULL)
		return strdup(opt->pidfile);
	lookup_offline();
	cfg = conf_load_as(opt->config_path, opt->config_syntax, opt->sslh,
	    err, sizeof(err));
	lookup_live();
	pidfile = pidfile_named(opt, cfg, err);
	conf_free(cfg);
	return pidfile;
}

/*
 * -s reload: check the file the master reads (as the master will, names
 * looked up), and only if it is valid signal the master and wait until
 * it says how the reload went.  The file of -c is read once, for its
 * pidfile and as the check when it is the master's file too: with
 * thousands of rules a read is most of the time a reload takes.
 */
static int
reload_master(const struct options *opt)
{
	struct outcome	 last;
	struct conf	*cfg = NULL;
	const char	*path = opt->config_path;
	char		 opath[4096], what[OUTCOME_TEXT_MAX], err[CONF_ERR_MAX];
	char		*pidfile;
	int		 syntax = opt->config_syntax, rc = 1;

	if (opt->pidfile == NULL)
		cfg = conf_load_as(path, syntax, opt->sslh, err, sizeof(err));
	/* A file that fails with names looked up may still name a pidfile. */
	pidfile = cfg != NULL ? pidfile_named(opt, cfg, err) :
	    master_pidfile(opt);
	if (pidfile == NULL)
		goto out;
	/* A master to reload first: without one, the file is beside it. */
	if (pidfile_holder(pidfile, err, sizeof(err)) == -1) {
		fprintf(stderr, "ferryd: %s\n", err);
		goto out;
	}
	outcome_path(pidfile, opath, sizeof(opath));
	outcome_read(opath, &last);
	if (last.config[0] != '\0' && opt->sslh == NULL &&
	    (strcmp(last.config, path) != 0 || last.syntax != syntax)) {
		/* The master reads another file: that one is checked. */
		conf_free(cfg);
		cfg = NULL;
		path = last.config;
		syntax = last.syntax;
	}
	/*
	 * sslh's settings without its command line cannot be checked here:
	 * the master checks them, and the outcome says how it went.
	 */
	if (syntax == CONF_SYNTAX_SSLH && opt->sslh == NULL)
		;
	else if (cfg == NULL && (cfg = conf_load_as(path, syntax, opt->sslh,
	    err, sizeof(err))) == NULL) {
		fprintf(stderr, "ferryd: %s; not reloaded, the running "
		    "configuration is unchanged\n", err);
		goto out;
	}
	if (ask_reload(pidfile, what, sizeof(what), err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "ferryd: reload failed: %s\n", err);
		goto out;
	}
	printf("ferryd: reloaded %s: %s\n", path, what);
	rc = 0;
out:
	conf_free(cfg);
	free(pidfile);
	return rc;
}

/*
 * -s upgrade: the master checks the binary it was started from (-t) and
 * executes it; say how that went.
 */
static int
upgrade_master(const char *pidfile)
{
	char what[OUTCOME_TEXT_MAX], err[1024];

	if (ask_upgrade(pidfile, what, sizeof(what), err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "ferryd: %s\n", err);
		return 1;
	}
	printf("ferryd: upgraded in place: %s\n", what);
	return 0;
}

/* -s: signal the running master; for reload, say how it went. */
static int
signal_master(const struct options *opt, int signo)
{
	char	*pidfile, err[CONF_ERR_MAX];
	int	 rc = 0;

	if (signo == SIGHUP)
		return reload_master(opt);
	if ((pidfile = master_pidfile(opt)) == NULL)
		return 1;
	if (signo == SIGURG)
		rc = upgrade_master(pidfile);
	else if (ask_send(pidfile, signo, err, sizeof(err)) == -1) {
		fprintf(stderr, "ferryd: %s\n", err);
		rc = 1;
	}
	free(pidfile);
	return rc;
}

/*
 * -x: one command to the control socket at path, or the one the
 * configuration names (read offline: only control_socket is read).
 */
static int
send_command(const struct options *opt, const char *command,
    const char *path)
{
	struct conf	*cfg = NULL;
	char		 err[CONF_ERR_MAX];
	int		 rc = -1;

	if (path == NULL) {
		lookup_offline();
		cfg = conf_load_as(opt->config_path, opt->config_syntax,
		    opt->sslh, err, sizeof(err));
		lookup_live();
		if (cfg == NULL)
			fprintf(stderr, "ferryd: %s (name the socket with "
			    "-S)\n", err);
		else if ((path = cfg->control_socket) == NULL)
			fprintf(stderr, "ferryd: %s sets no control_socket\n",
			    opt->config_path);
	}
	if (path != NULL &&
	    (rc = ask_command(path, command, stdout, err,
	    sizeof(err))) == -1)
		fprintf(stderr, "ferryd: %s\n", err);
	conf_free(cfg);
	return rc == 0 ? 0 : 1;
}

/* --convert: print the ferryd.conf equivalent of a rinetd.conf. */
static int
convert(const char *path)
{
	struct rinetd_conv	 conv;
	char			 err[CONF_ERR_MAX], *text;
	int			 rc = 0;

	if ((text = rinetd_read(path, err, sizeof(err))) == NULL ||
	    rinetd_convert(path, text, &conv, err, sizeof(err)) == -1) {
		fprintf(stderr, "ferryd: %s\n", err);
		free(text);
		return 1;
	}
	/* The warnings are in the text too, as comments. */
	if (conv.warnings != NULL)
		fprintf(stderr, "%s", conv.warnings);
	if (fputs(conv.text, stdout) == EOF || fflush(stdout) == EOF) {
		fprintf(stderr, "ferryd: cannot write the converted file: "
		    "%s\n", strerror(errno));
		rc = 1;
	}
	rinetd_conv_free(&conv);
	free(text);
	return rc;
}

/*
 * --sslh ... --convert: print the ferryd.conf equivalent of sslh's; sslh's
 * exit status for settings it would refuse.
 */
static int
convert_sslh(const struct sslh_cmdline *cl)
{
	struct conf_conv	 conv;
	struct sslh_run		 run;
	char			 err[CONF_ERR_MAX];
	int			 rc;

	if ((rc = sslh_convert(cl, &conv, &run, err, sizeof(err))) != 0) {
		fprintf(stderr, "ferryd: %s\n", err);
		return rc;
	}
	if (fputs(conv.text, stdout) == EOF || fflush(stdout) == EOF)
		snprintf(err, sizeof(err), "cannot write the converted file: "
		    "%s", strerror(errno));
	else
		err[0] = '\0';
	conf_conv_free(&conv);
	if (err[0] != '\0')
		fprintf(stderr, "ferryd: %s\n", err);
	return err[0] != '\0';
}

/*
 * sslh -i's listen address: HOST:PORT of the TCP connection on standard
 * input, in buf; NULL when standard input is none.
 */
static const char *
stdin_hostport(char *buf, size_t len)
{
	struct sockaddr_storage	ss;
	socklen_t		sslen = sizeof(ss);
	char			host[ADDR_STRLEN];
	unsigned		port;

	if (getsockname(0, (struct sockaddr *)&ss, &sslen) == -1 ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6) ||
	    addr_host((const struct sockaddr *)&ss, host, sizeof(host)) ==
	    NULL)
		return NULL;
	port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->
	    sin_port : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return snprintf(buf, len, "%s:%u", host, port) < (int)len ? buf : NULL;
}

/*
 * --sslh: what follows it is sslh's command line, parsed into cl; argc
 * is cut to what comes before it.  The master reads sslh's settings as
 * its configuration, stays in the foreground if sslh would and exits as
 * sslh does (SSLH_EXIT_*).  0 (-V) or sslh's status for a command line
 * it refuses: exit with that; -1: go on.
 */
static int
take_sslh(int *argc, char *argv[], struct sslh_cmdline *cl,
    struct options *opt)
{
	static char		stdin_address[ADDR_STRLEN + 8];
	struct conf_conv	conv;
	struct sslh_run		run = { false, false };
	char			err[CONF_ERR_MAX];
	int			i;

	for (i = 1; i < *argc && strcmp(argv[i], "--sslh") != 0; i++)
		;
	if (i == *argc)
		return -1;
	if (sslh_cmdline_parse(*argc - i - 1, argv + i + 1, cl, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "ferryd: %s\n", err);
		return SSLH_EXIT_USAGE;
	}
	*argc = i;
	if (cl->version) {
		printf("ferryd %s (as sslh)\n", PACKAGE_VERSION);
		return 0;
	}
	opt->sslh = cl;
	opt->exit_pidfile = SSLH_EXIT_PIDFILE;
	opt->config_path = sslh_source(cl);
	opt->config_syntax = CONF_SYNTAX_SSLH;
	cl->stdin_address = stdin_hostport(stdin_address,
	    sizeof(stdin_address));
	/* Only how sslh would run: errors are the loader's to say. */
	if (!cl->convert && sslh_convert(cl, &conv, &run, err,
	    sizeof(err)) == 0)
		conf_conv_free(&conv);
	opt->foreground = opt->foreground || run.foreground;
	opt->inetd = run.inetd;
	return -1;
}

/*
 * -t, an address in use: held by a running ferryd (a process named so,
 * or, where its processes are not ours to see, the master of pidfile),
 * it is only a note on stdout, as a reload's check or an upgrade's meets
 * the daemon's own addresses; held by any other program it would stop
 * the start, and is an error naming the program.  For an upgrade's
 * check every address in use is a note: the master tells its own from
 * others' (master_upgrade.c, which reads " is in use[ for UDP]").
 */
static int
test_in_use(const char *where, const struct sockaddr_any *a, int type,
    const char *name, const char *pidfile)
{
	const char	*udp = type == SOCK_DGRAM ? " for UDP" : "";
	char		 owner[64], err[CONF_ERR_MAX];
	pid_t		 pid, master = -1;

	if (master_upgrade_probing()) {
		printf("ferryd: note: %s: %s is in use%s (a running ferryd "
		    "may hold it)\n", where, name, udp);
		return 0;
	}
	pid = sockowner_find(a, type, owner, sizeof(owner));
	if (pidfile != NULL && pidfile[0] != '\0')
		master = pidfile_holder(pidfile, err, sizeof(err));
	if (pid > 0 && strncmp(owner, "ferryd", 6) == 0) {
		printf("ferryd: note: %s: %s is in use%s by %s (pid %ld)%s%s\n",
		    where, name, udp, owner, (long)pid, pid == master ?
		    ", the running master of pidfile " : "", pid == master ?
		    pidfile : "");
		return 0;
	}
	if (pid > 0) {
		fprintf(stderr, "ferryd: %s: cannot bind %s: in use%s by %s "
		    "(pid %ld), not a ferryd\n", where, name, udp, owner,
		    (long)pid);
		return -1;
	}
	if (master > 0) {
		printf("ferryd: note: %s: %s is in use%s; pidfile %s names a "
		    "running ferryd (pid %ld), which may hold it\n", where,
		    name, udp, pidfile, (long)master);
		return 0;
	}
	fprintf(stderr, "ferryd: %s: cannot bind %s: in use%s by another "
	    "program (a process this user cannot see; no running ferryd's "
	    "pidfile %s)\n", where, name, udp, pidfile != NULL &&
	    pidfile[0] != '\0' ? pidfile : "is set");
	return -1;
}

/*
 * -t: bind each listen address as a start would, but without SO_REUSEPORT
 * (which would let it share a port with anyone's socket) and without
 * listen(), and close it at once.  An address not on this host or a
 * privileged port is an error at where (FILE:LINE, or FILE: setting); an
 * address in use is as test_in_use() says.
 */
static int
test_bind(const char *where, const struct sockaddr_any *a, int type,
    bool v6only, const char *pidfile)
{
	char	name[ADDR_STRLEN], host[ADDR_STRLEN];
	int	err = sock_probe(a, type, v6only);

	addr_format((const void *)&a->ss, name, sizeof(name));
	switch (err) {
	case 0:
		return 0;	/* bindable: that is all -t wants to know */
	case EADDRINUSE:
		return test_in_use(where, a, type, name, pidfile);
	case ENOTSOCK:
		fprintf(stderr, "ferryd: %s: cannot bind %s: a file that is "
		    "not a socket is in the way\n", where, name);
		return -1;
	case EADDRNOTAVAIL:
		fprintf(stderr, "ferryd: %s: cannot bind %s: address %s is "
		    "not on this host\n", where, name,
		    addr_host((const void *)&a->ss, host, sizeof(host)));
		return -1;
	default:
		fprintf(stderr, "ferryd: %s: cannot bind %s: %s%s\n", where,
		    name, strerror(err), err == EACCES ?
		    " (a port below the system's unprivileged ports needs "
		    "root or CAP_NET_BIND_SERVICE)" : "");
		return -1;
	}
}

/* The same for the socket file of a setting (stats_listen, control_socket). */
static int
test_bind_path(const struct conf *cfg, const char *setting, const char *path,
    const char *pidfile)
{
	struct sockaddr_any	a;
	char			spec[PATH_MAX + 8], where[PATH_MAX + 32];
	char			err[CONF_ERR_MAX];

	snprintf(spec, sizeof(spec), "unix:%s", path);
	snprintf(where, sizeof(where), "%s: %s", cfg->path, setting);
	if (addr_resolve(spec, 1, &a, err, sizeof(err)) == -1) {
		fprintf(stderr, "ferryd: %s: %s\n", where, err);
		return -1;
	}
	return test_bind(where, &a, SOCK_STREAM, true, pidfile);
}

/*
 * -t: a listen host with several addresses (localhost: 127.0.0.1 and
 * ::1) binds each; say which, once for the rule as written.
 */
static void
test_say_addresses(const struct conf *cfg, const struct rule *first,
    const char *where)
{
	char	line[1024], host[ADDR_STRLEN];
	size_t	i, used = 0, hosts = 0;

	line[0] = '\0';
	for (i = (size_t)(first - cfg->rules); i < cfg->nrules; i++) {
		if (&cfg->rules[i] != first && cfg->rules[i].range_first != first)
			break;
		if (i > (size_t)(first - cfg->rules) &&
		    addr_port((const void *)&cfg->rules[i].listen_addr.ss) !=
		    addr_port((const void *)&first->listen_addr.ss))
			continue;	/* another port of a range */
		addr_host((const void *)&cfg->rules[i].listen_addr.ss, host,
		    sizeof(host));
		used += (size_t)snprintf(line + used, used < sizeof(line) ?
		    sizeof(line) - used : 0, "%s%s", hosts++ > 0 ? ", " : "",
		    host);
		if (used >= sizeof(line))
			break;
	}
	if (hosts > 1)
		printf("ferryd: %s: listen \"%s\" binds every address of its "
		    "host: %s\n", where, first->listen, line);
}

/*
 * Every rule's listen address, and stats_listen's and control_socket's
 * (an upgrade's new image binds them too); -1 if any cannot be bound.
 * pidfile is the one a start would take, NULL or "" for none.
 */
static int
test_binds(const struct conf *cfg, const char *pidfile)
{
	const struct rule	*r;
	char			 where[PATH_MAX + 32];
	size_t			 i;
	int			 rc = 0;

	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		/* A rule of a command line (sslh's) has no line. */
		if (r->line > 0)
			snprintf(where, sizeof(where), "%s:%d", r->file,
			    r->line);
		else
			snprintf(where, sizeof(where), "%s", r->file);
		if (test_bind(where, &r->listen_addr, r->protocol == RULE_UDP ?
		    SOCK_DGRAM : SOCK_STREAM, r->ipv6_only, pidfile) == -1)
			rc = -1;
		if (r->range_first == NULL)
			test_say_addresses(cfg, r, where);
	}
	snprintf(where, sizeof(where), "%s: stats_listen", cfg->path);
	if (cfg->stats_listen != NULL && (cfg->stats_path != NULL ?
	    test_bind_path(cfg, "stats_listen", cfg->stats_path, pidfile) :
	    test_bind(where, &cfg->stats_addr, SOCK_STREAM, true, pidfile)) ==
	    -1)
		rc = -1;
	if (cfg->control_socket != NULL && test_bind_path(cfg,
	    "control_socket", cfg->control_socket, pidfile) == -1)
		rc = -1;
	return rc;
}

/*
 * -t: what the start would refuse of the files it opens as root: the
 * pidfile named (-p, pidfile; the built-in default's directory is the
 * installation's), log_file, access_log and state_file (safefile.h); and
 * what would keep status_file from being written.
 */
static int
test_files(const struct conf *cfg, const struct options *opt)
{
	const char	*files[5], *whats[5] = { "pidfile", "log file",
			    "access log", "status file", "state file" };
	char		 err[CONF_ERR_MAX];
	int		 i, rc = 0;

	files[0] = opt->pidfile != NULL ? opt->pidfile : cfg->pidfile;
	files[1] = cfg->log_file;
	files[2] = cfg->access_log != NULL && strcmp(cfg->access_log,
	    ACCESSLOG_SYSLOG) == 0 ? NULL : cfg->access_log;
	files[3] = cfg->status_file;
	files[4] = cfg->state_file;
	for (i = 0; i < 5; i++)
		if (files[i] != NULL && files[i][0] != '\0' &&
		    safefile_check(files[i], i == 0 && pidfile_makes_dir(
		    files[i]), whats[i], err, sizeof(err)) == -1) {
			fprintf(stderr, "ferryd: %s: %s\n", cfg->path, err);
			rc = -1;
		}
	return rc;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "config",     required_argument, NULL, 'c' },
		{ "foreground", no_argument,       NULL, 'f' },
		{ "inetd",      no_argument,       NULL, 'i' },
		{ "test",       no_argument,       NULL, 't' },
		{ "show",       no_argument,       NULL, 'T' },
		{ "log-level",  required_argument, NULL, 'l' },
		{ "pidfile",    required_argument, NULL, 'p' },
		{ "signal",     required_argument, NULL, 's' },
		{ "control",    required_argument, NULL, 'x' },
		{ "control-socket", required_argument, NULL, 'S' },
		{ "help",       no_argument,       NULL, 'h' },
		{ "version",    no_argument,       NULL, 'V' },
		{ "rinetd",     no_argument,       NULL, OPT_RINETD },
		{ "convert",    required_argument, NULL, OPT_CONVERT },
		{ NULL,         0,                 NULL, 0 }
	};
	struct options  opt = { .config_path = DEFAULT_CONFIG, .log_level = -1,
			    .config_syntax = CONF_SYNTAX_AUTO,
			    .exit_pidfile = 1 };
	struct conf  *cfg;
	struct sslh_cmdline sslh;
	char            err[CONF_ERR_MAX], path[PATH_MAX];
	char           *pidfile_copy = NULL;
	const char     *convert_path = NULL, *command = NULL, *socket = NULL;
	bool            test = false, show = false, status = false;
	int             ch, signo = 0, rc;

	memset(&sslh, 0, sizeof(sslh));
	if ((rc = take_sslh(&argc, argv, &sslh, &opt)) != -1)
		return rc;
	while ((ch = getopt_long(argc, argv, "c:fitTl:p:s:x:S:hV", longopts, NULL))
	    != -1) {
		switch (ch) {
		case 'c':
			if (opt.sslh != NULL) {
				fprintf(stderr, "ferryd: -c and --sslh: sslh's "
				    "file is given with -F after --sslh\n");
				return 1;
			}
			opt.config_path = optarg;
			break;
		case 'f':
			opt.foreground = true;
			break;
		case 'i':
			opt.inetd = true;
			break;
		case 't':
			test = true;
			break;
		case 'T':
			show = true;
			break;
		case 'l':
			opt.log_level = conf_log_level_parse(optarg);
			if (opt.log_level == -1) {
				fprintf(stderr, "ferryd: unknown log level \"%s\" "
				    "(use err, warning, notice, info or debug)\n",
				    optarg);
				return 1;
			}
			break;
		case 'p':
			opt.pidfile = optarg;
			break;
		case 's':
			if (strcmp(optarg, "status") == 0) {
				status = true;
				break;
			}
			signo = ask_signo(optarg);
			if (signo == -1) {
				fprintf(stderr, "ferryd: unknown action \"%s\" "
				    "for -s (use reload, stop, quit, reopen, drain, "
				    "upgrade or status)\n", optarg);
				return 1;
			}
			break;
		case 'x':
			command = optarg;
			break;
		case 'S':
			socket = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ferryd %s\n", PACKAGE_VERSION);
			return 0;
		case OPT_RINETD:
			opt.config_syntax = CONF_SYNTAX_RINETD;
			break;
		case OPT_CONVERT:
			convert_path = optarg;
			break;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "ferryd: unexpected argument \"%s\"\n",
		    argv[optind]);
		usage(stderr);
		return 1;
	}

	if (command != NULL && (signo != 0 || status)) {
		fprintf(stderr, "ferryd: -x and -s both ask the running "
		    "master: give one of them\n");
		return 1;
	}
	if (convert_path != NULL)
		return convert(convert_path);
	if (sslh.convert || signo != 0 || status) {
		rc = sslh.convert ? convert_sslh(&sslh) : signo != 0 ?
		    signal_master(&opt, signo) : print_status(&opt);
		sslh_cmdline_free(&sslh);
		return rc;
	}
	if (command != NULL)
		return send_command(&opt, command, socket);

	if (opt.inetd)
		inetd_spare_client();
	/* Executed by an upgrade: the running master's file, as it read it. */
	master_upgrade_init(argv[0]);
	if (!test && master_adopt_take(&opt, err, sizeof(err)) == -1) {
		fprintf(stderr, "ferryd: %s\n", err);
		return 1;
	}
	/* Back from a failed upgrade: what we ran, not what it could not. */
	rc = 1;		/* sslh's status for sslh's settings */
	if ((cfg = master_adopt_config()) == NULL)
		cfg = opt.sslh != NULL ? conf_load_sslh(opt.sslh, &rc, err,
		    sizeof(err)) : conf_load_as(opt.config_path,
		    opt.config_syntax, NULL, err, sizeof(err));
	if (cfg == NULL) {
		master_adopt_fail(NULL, err);	/* the old image, back */
		fprintf(stderr, "ferryd: %s\n", err);
		if (opt.inetd)
			log_err("%s", err);
		sslh_cmdline_free(&sslh);
		return rc;
	}
	if (show) {
		ch = conf_show(stdout, cfg) == -1;
		if (ch)
			fprintf(stderr, "ferryd: cannot write the "
			    "configuration: %s\n", strerror(errno));
		conf_free(cfg);
		sslh_cmdline_free(&sslh);
		return ch;
	}
	if (test) {
		if ((test_binds(cfg, opt.pidfile != NULL ? opt.pidfile :
		    cfg->pidfile != NULL ? cfg->pidfile : PIDFILE_DEFAULT) |
		    test_files(cfg, &opt)) == -1) {
			conf_free(cfg);
			sslh_cmdline_free(&sslh);
			return 1;
		}
		master_upgrade_probe();
		printf("ferryd: %s: configuration OK%s\n", opt.config_path,
		    cfg->syntax == CONF_SYNTAX_RINETD ?
		    " (read as a rinetd.conf)" : cfg->syntax ==
		    CONF_SYNTAX_SSLH ? " (read as sslh's)" : "");
		conf_free(cfg);
		sslh_cmdline_free(&sslh);
		return 0;
	}
	if (opt.inetd) {
		log_set_level(opt.log_level != -1 ? opt.log_level :
		    cfg->log_level);
		ch = inetd_serve(cfg, opt.foreground);
		conf_free(cfg);
		sslh_cmdline_free(&sslh);
		return ch;
	}
	/*
	 * Reloads happen after chdir("/"): remember where the file is.  Keep
	 * copies of what points into argv, which proctitle_set() overwrites.
	 */
	if (opt.sslh != NULL)
		snprintf(path, sizeof(path), "%s", opt.config_path);
	else if (realpath(opt.config_path, path) == NULL)
		snprintf(path, sizeof(path), "%s", opt.config_path);
	opt.config_path = path;
	if (opt.pidfile != NULL &&
	    (opt.pidfile = pidfile_copy = strdup(opt.pidfile)) == NULL) {
		fprintf(stderr, "ferryd: out of memory\n");
		conf_free(cfg);
		return 1;
	}
	log_set_level(opt.log_level != -1 ? opt.log_level : cfg->log_level);
	log_set_role("master");
	if (cfg->syntax == CONF_SYNTAX_RINETD)
		log_notice("reading %s as a rinetd.conf", opt.config_path);
	else if (cfg->syntax == CONF_SYNTAX_SSLH)
		log_notice("reading %s as sslh's", opt.config_path);
	proctitle_init(argc, argv);
	proctitle_set("ferryd: master process %s", opt.config_path);
	ch = master_run(cfg, &opt);
	free(pidfile_copy);
	sslh_cmdline_free(&sslh);
	return ch;
}
