/*
 * conf.c - reading ferryd.conf: libconfig syntax in, a fully checked and
 * resolved struct conf out.  This file loads a text (conf_load.c chose
 * and read it) and knows the top-level settings; conf_schema.c is the
 * key-table engine, conf_rule.c what a rule means, conf_file.c how the
 * text is read.
 *
 * Every value is range-checked and every address resolved here, so nothing
 * else in the daemon has to doubt the configuration.  Nothing is logged:
 * each problem becomes one "FILE:LINE: problem" line in the caller's buffer,
 * and the caller decides whether it is fatal (start) or not (reload).
 */
#include "ferryd.h"

#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <libconfig.h>

#include "acl.h"
#include "addr.h"
#include "conf.h"
#include "conf_file.h"
#include "conf_schema.h"
#include "conf_syntax.h"
#include "event.h"
#include "log.h"
#include "pidfile.h"
#include "route.h"
#include "rule.h"
#include "upstream.h"

static conf_key_parser parse_path, parse_chroot, parse_pidfile, parse_workers;
static conf_key_show show_pidfile;
static conf_key_parser parse_user, parse_access_log, parse_syslog_ident;
static conf_key_parser parse_stats_listen, parse_access_log_fields;
static conf_key_parser parse_group, parse_backend;
static conf_key_parser parse_control_group, parse_watchdog;
static conf_key_show show_access_log_fields;

/* In enum log_level order. */
static const char *const log_level_names[] = {
	"err", "warning", "notice", "info", "debug", NULL
};

/* In enum access_log_format order. */
static const char *const access_log_format_names[] = {
	"rinetd", "common", "rinetd-exact", "common-exact", "json", "sslh",
	"sslh-numeric", NULL
};

/* In enum access_log_field order. */
static const char *const access_log_field_names[] = {
	"rule", "connect_time", "first_byte_time", "route", "sni",
	"closed_by", NULL
};

/* In enum steer_mode order. */
static const char *const steer_names[] = { "port", "cpu", NULL };

/* In enum status_format order. */
static const char *const status_format_names[] = { "json", "text", NULL };

/* -T: a string setting written back as it is stored (NULL: not set). */
#define STR	conf_show_string

static const struct conf_key global_keys[] = {
	{ "workers", parse_workers, 1, MAX_WORKERS,
	    offsetof(struct conf, workers), .show = conf_show_int },
	{ "user", parse_user, 0, 0, offsetof(struct conf, user), NULL, STR },
	{ "group", parse_group, 0, 0, offsetof(struct conf, group), NULL, STR },
	{ "pidfile", parse_pidfile, 0, 0, offsetof(struct conf, pidfile), NULL,
	    show_pidfile },
	{ "log_file", parse_path, 0, 0, offsetof(struct conf, log_file), NULL,
	    STR },
	{ "log_level", conf_parse_choice, 0, 0,
	    offsetof(struct conf, log_level), log_level_names },
	{ "syslog_ident", parse_syslog_ident, 0, 0,
	    offsetof(struct conf, syslog_ident), NULL, STR },
	{ "syslog_facility", conf_parse_choice, 0, 0,
	    offsetof(struct conf, syslog_facility), log_facility_names },
	{ "event_backend", parse_backend, 0, 0,
	    offsetof(struct conf, event_backend), NULL, STR },
	{ "buffer_size", conf_parse_size, BUFFER_SIZE_MIN, BUFFER_SIZE_MAX,
	    offsetof(struct conf, buffer_size) },
	{ "connect_timeout", conf_parse_duration, CONNECT_TIMEOUT_MIN,
	    CONNECT_TIMEOUT_MAX, offsetof(struct conf, connect_timeout) },
	{ "idle_timeout", conf_parse_duration, 0, IDLE_TIMEOUT_MAX,
	    offsetof(struct conf, idle_timeout) },
	{ "session_timeout", conf_parse_duration, SESSION_TIMEOUT_MIN,
	    SESSION_TIMEOUT_MAX, offsetof(struct conf, session_timeout) },
	{ "max_sessions", conf_parse_int, 1, MAX_SESSIONS_MAX,
	    offsetof(struct conf, max_sessions) },
	{ "shutdown_timeout", conf_parse_duration, 0, SHUTDOWN_TIMEOUT_MAX,
	    offsetof(struct conf, shutdown_timeout) },
	{ "watchdog_timeout", parse_watchdog, 0, WATCHDOG_TIMEOUT_MAX,
	    offsetof(struct conf, watchdog_timeout), NULL, conf_show_duration },
	{ "backlog", conf_parse_int, 1, BACKLOG_MAX,
	    offsetof(struct conf, backlog) },
	{ "max_connections", conf_parse_int, 1, MAX_CONNECTIONS_MAX,
	    offsetof(struct conf, max_connections) },
	{ "max_connections_per_client", conf_parse_int, 0, MAX_CONNECTIONS_MAX,
	    offsetof(struct conf, max_connections_per_client) },
	{ "connection_rate", conf_parse_int, 0, CONNECTION_RATE_MAX,
	    offsetof(struct conf, connection_rate) },
	{ "max_sessions_per_client", conf_parse_int, 0, MAX_SESSIONS_MAX,
	    offsetof(struct conf, max_sessions_per_client) },
	{ "session_rate", conf_parse_int, 0, CONNECTION_RATE_MAX,
	    offsetof(struct conf, session_rate) },
	{ "splice", conf_parse_splice, 0, 0, offsetof(struct conf, splice) },
	{ "sndbuf", conf_parse_int, 0, SOCKBUF_MAX,
	    offsetof(struct conf, sndbuf) },
	{ "rcvbuf", conf_parse_int, 0, SOCKBUF_MAX,
	    offsetof(struct conf, rcvbuf) },
	{ "cpu_affinity", conf_parse_bool, 0, 0,
	    offsetof(struct conf, cpu_affinity) },
	{ "steer", conf_parse_choice, 0, 0, offsetof(struct conf, steer),
	    steer_names },
	{ "seccomp", conf_parse_bool, 0, 0, offsetof(struct conf, seccomp) },
	{ "stats_histograms", conf_parse_bool, 0, 0,
	    offsetof(struct conf, stats_histograms) },
	{ "chroot", parse_chroot, 0, 0, offsetof(struct conf, chroot_dir),
	    NULL, STR },
	{ "allow", conf_parse_allow, 0, 0, offsetof(struct conf, acl) },
	{ "deny", conf_parse_deny, 0, 0, offsetof(struct conf, acl) },
	{ "control_socket", parse_path, 0, 0,
	    offsetof(struct conf, control_socket), NULL, STR },
	{ "control_mode", conf_parse_mode, 0, 0,
	    offsetof(struct conf, control_mode), NULL, conf_show_mode },
	{ "control_group", parse_control_group, 0, 0,
	    offsetof(struct conf, control_group), NULL, STR },
	{ "state_file", parse_path, 0, 0,
	    offsetof(struct conf, state_file), NULL, STR },
	{ "stats_listen", parse_stats_listen, 0, 0,
	    offsetof(struct conf, stats_listen), NULL, STR },
	{ "status_file", parse_path, 0, 0,
	    offsetof(struct conf, status_file), NULL, STR },
	{ "status_interval", conf_parse_duration, STATUS_INTERVAL_MIN,
	    STATUS_INTERVAL_MAX, offsetof(struct conf, status_interval) },
	{ "status_format", conf_parse_choice, 0, 0,
	    offsetof(struct conf, status_format), status_format_names },
	{ "stats_log_interval", conf_parse_duration, 0, STATUS_INTERVAL_MAX,
	    offsetof(struct conf, stats_log_interval) },
	{ "access_log", parse_access_log, 0, 0,
	    offsetof(struct conf, access_log), NULL, STR },
	{ "access_log_format", conf_parse_choice, 0, 0,
	    offsetof(struct conf, access_log_format), access_log_format_names },
	{ "access_log_fields", parse_access_log_fields, 0, 0, 0, NULL,
	    show_access_log_fields },
	{ "health_check", conf_parse_health_check, 0, 0,
	    offsetof(struct conf, health_check) },
	{ "resolve_interval", conf_parse_duration, 0, RESOLVE_INTERVAL_MAX,
	    offsetof(struct conf, resolve_interval) },
	{ "keepalive", conf_parse_keepalive, 0, 0,
	    offsetof(struct conf, keepalive) },
	{ "rules", conf_parse_rules, 0, 0, offsetof(struct conf, rules), NULL,
	    conf_show_rules },
};

const struct conf_keys conf_global_keys = {
	global_keys, CONF_NKEYS(global_keys), "at the top level",
	"at the top level", { &conf_rule_keys, &conf_item_keys }
};

/*
 * The directory of a file the daemon will create must exist: found at
 * load time, a typo is an error at its line, from -t and at a reload,
 * rather than a failure to open the file later.
 */
static int
check_parent_dir(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const char *path)
{
	char		 dir[PATH_MAX];
	const char	*slash = strrchr(path, '/');
	struct stat	 st;

	if (slash == path)
		return 0;
	if ((size_t)(slash - path) >= sizeof(dir))
		return conf_fail(ld, s, "\"%s\": path too long", k->name);
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	if (stat(dir, &st) == -1)
		return conf_fail(ld, s, "\"%s\": cannot use directory %s: %s",
		    k->name, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return conf_fail(ld, s, "\"%s\": %s is not a directory", k->name,
		    dir);
	return 0;
}

/*
 * stats_listen: "host:port" (TCP), or "unix:" and an absolute path of a
 * socket in a directory that is safe for it, as a log file's is.
 */
static int
parse_stats_listen(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct conf	*cfg = base;
	const char	*v = "";
	char		 why[CONF_ERR_MAX];

	if (conf_get_string(ld, k, s, &v) == -1)
		return -1;
	if (strncmp(v, "unix:", 5) == 0) {
		if (v[5] != '/')
			return conf_fail(ld, s, "\"%s\": the path after "
			    "unix: must be absolute (got \"%s\")", k->name, v);
		if (strlen(v + 5) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			return conf_fail(ld, s, "\"%s\": the path is too long "
			    "for a socket (at most %zu bytes)", k->name,
			    sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		if (check_parent_dir(ld, k, s, v + 5) == -1)
			return -1;
	} else if (addr_resolve(v, 1, &cfg->stats_addr, why,
	    sizeof(why)) == -1)
		return conf_fail(ld, s, "\"%s\": %s (write \"host:port\" or "
		    "\"unix:/path\")", k->name, why);
	if (conf_store_string(ld, s, conf_field(base, k), v) == -1)
		return -1;
	if (strncmp(v, "unix:", 5) == 0)
		cfg->stats_path = cfg->stats_listen + 5;
	return 0;
}

static int
parse_path(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	const char	*v = "";

	if (conf_get_string(ld, k, s, &v) == -1)
		return -1;
	if (v[0] != '/')
		return conf_fail(ld, s, "\"%s\" must be an absolute path "
		    "(got \"%s\")", k->name, v);
	if (check_parent_dir(ld, k, s, v) == -1)
		return -1;
	return conf_store_string(ld, s, conf_field(base, k), v);
}

/* access_log: a file's path, or "syslog". */
static int
parse_access_log(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	const char	*v = "";

	if (conf_get_string(ld, k, s, &v) == -1)
		return -1;
	if (strcmp(v, ACCESSLOG_SYSLOG) == 0)
		return conf_store_string(ld, s, conf_field(base, k), v);
	return parse_path(ld, k, s, base);
}

/* syslog's name for our lines: a word its readers find before "[pid]: ". */
static int
parse_syslog_ident(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	static const char	 ok[] = "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	const char		*v = "";

	if (conf_get_string(ld, k, s, &v) == -1)
		return -1;
	if (v[0] == '\0' || strlen(v) > SYSLOG_IDENT_MAX ||
	    v[strspn(v, ok)] != '\0')
		return conf_fail(ld, s, "\"%s\" must be 1 to %d letters, "
		    "digits, '.', '_' or '-'", k->name, SYSLOG_IDENT_MAX);
	return conf_store_string(ld, s, conf_field(base, k), v);
}

/*
 * The directory children chroot into: absolute, a directory now (a
 * typo is an error at its line, not a worker that cannot start).
 */
static int
parse_chroot(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	const char	*v = "";
	struct stat	 st;

	if (conf_get_string(ld, k, s, &v) == -1)
		return -1;
	if (v[0] != '/')
		return conf_fail(ld, s, "\"%s\" must be an absolute path "
		    "(got \"%s\")", k->name, v);
	if (stat(v, &st) == -1)
		return conf_fail(ld, s, "\"%s\": cannot use %s: %s", k->name,
		    v, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return conf_fail(ld, s, "\"%s\": %s is not a directory",
		    k->name, v);
	return conf_store_string(ld, s, conf_field(base, k), v);
}

/* pidfile = "" says "no pidfile", overriding a command-line default. */
static int
pidfile_path(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	char		 dir[PATH_MAX];
	const char	*v, *slash;
	struct stat	 st;

	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return parse_path(ld, k, s, base);
	v = config_setting_get_string(s);
	if (v[0] == '\0')
		return conf_store_string(ld, s, conf_field(base, k), "");
	/*
	 * Its own directory under the run-state directory may be missing
	 * (/run is emptied at boot): the master makes it (safefile_mkdir),
	 * so the one above must be there.
	 */
	slash = strrchr(v, '/');
	if (pidfile_makes_dir(v) && (size_t)(slash - v) < sizeof(dir)) {
		memcpy(dir, v, slash - v);
		dir[slash - v] = '\0';
		if (stat(dir, &st) == -1 && errno == ENOENT) {
			if (check_parent_dir(ld, k, s, dir) == -1)
				return -1;
			return conf_store_string(ld, s, conf_field(base, k), v);
		}
	}
	return parse_path(ld, k, s, base);
}

/* A pidfile that cannot be: a failure of its own (sslh's status 3). */
static int
parse_pidfile(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	if (pidfile_path(ld, k, s, base) == 0)
		return 0;
	ld->failure = CONF_FAILED_PIDFILE;
	return -1;
}

/*
 * -T: a pidfile not set is not "none" (that is pidfile = ""): a daemon
 * takes -p's, else the default, which the unit and init script use.
 */
static void
show_pidfile(struct conf_show *sh, const struct conf_key *k, const void *base)
{
	if (((const struct conf *)base)->pidfile != NULL)
		conf_show_string(sh, k, base);
	else
		conf_show_comment(sh, "%s is not set: -p's, else \"%s\" as a "
		    "daemon; none in the foreground (-f)", k->name,
		    PIDFILE_DEFAULT);
}

/* One worker per online CPU, within 1..MAX_WORKERS. */
static int
workers_auto(void)
{
	long	n;

	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > MAX_WORKERS ? MAX_WORKERS : (int)n;
}

static int
parse_workers(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	const char	*v = "";

	if (conf_is_integer(s))
		return conf_parse_int(ld, k, s, base);
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return conf_fail(ld, s, "\"%s\" must be \"auto\" or an integer "
		    "(got %s)", k->name, conf_type_name(s));
	v = config_setting_get_string(s);
	if (strcmp(v, "auto") != 0)
		return conf_fail(ld, s, "\"%s\" must be \"auto\" or a number "
		    "between %lld and %lld (got \"%s\")", k->name, k->min,
		    k->max, v);
	*(int *)conf_field(base, k) = workers_auto();
	return 0;
}

/*
 * 0 (off), or at least a second: an idle worker beats every 100 ms at
 * the most often, and the master looks at the beats once a second, so
 * a shorter watchdog would kill idle workers over and over.
 */
static int
parse_watchdog(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	int	ms;

	if (conf_parse_duration(ld, k, s, base) == -1)
		return -1;
	ms = *(int *)conf_field(base, k);
	if (ms > 0 && ms < WATCHDOG_TIMEOUT_MIN)
		return conf_fail(ld, s, "\"%s\" must be 0 (no watchdog) or "
		    "between %g and %g seconds (got %.15g)", k->name,
		    WATCHDOG_TIMEOUT_MIN / 1000.0, k->max / 1000.0,
		    ms / 1000.0);
	return 0;
}

/*
 * The user's primary group becomes the gid unless "group" is set, which
 * wins whichever of the two comes first in the file.
 */
static int
parse_user(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct conf	*cfg = base;
	struct passwd	*pw;

	if (conf_parse_string(ld, k, s, base) == -1)
		return -1;
	if ((pw = getpwnam(cfg->user)) == NULL) {
		ld->failure = CONF_FAILED_USER;
		return conf_fail(ld, s, "unknown user \"%s\"", cfg->user);
	}
	cfg->uid = pw->pw_uid;
	if (cfg->group == NULL)
		cfg->gid = pw->pw_gid;
	return 0;
}

static int
parse_group(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct conf	*cfg = base;
	struct group	*gr;

	if (conf_parse_string(ld, k, s, base) == -1)
		return -1;
	if ((gr = getgrnam(cfg->group)) == NULL)
		return conf_fail(ld, s, "unknown group \"%s\"", cfg->group);
	cfg->gid = gr->gr_gid;
	return 0;
}

static int
parse_control_group(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct conf	*cfg = base;
	struct group	*gr;

	if (conf_parse_string(ld, k, s, base) == -1)
		return -1;
	if ((gr = getgrnam(cfg->control_group)) == NULL)
		return conf_fail(ld, s, "unknown group \"%s\"",
		    cfg->control_group);
	cfg->control_gid = gr->gr_gid;
	return 0;
}

/* access_log_fields: a list of the names of enum access_log_field. */
static int
parse_access_log_fields(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	const char *const	*names = access_log_field_names;
	struct conf		*cfg = base;
	const config_setting_t	*e;
	const char		*v;
	int			 i, j, n, f;

	if (!config_setting_is_list(s) && !config_setting_is_array(s))
		return conf_fail(ld, s, "\"%s\" must be a list of field names, "
		    "such as [ \"rule\", \"connect_time\" ] (got %s)", k->name,
		    conf_type_name(s));
	n = config_setting_length(s);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned)i);
		if ((v = config_setting_get_string(e)) == NULL ||
		    (f = conf_name_index(names, v)) == -1)
			return conf_fail(ld, e, "\"%s\": %s%s%s is not a field "
			    "(rule, connect_time, first_byte_time, route, sni or "
			    "closed_by)", k->name,
			    v != NULL ? "\"" : "", v != NULL ? v : "an item that "
			    "is not a string", v != NULL ? "\"" : "");
		for (j = 0; j < cfg->naccess_log_fields; j++)
			if (cfg->access_log_fields[j] == f)
				return conf_fail(ld, e, "\"%s\": \"%s\" is "
				    "there twice", k->name, v);
		cfg->access_log_fields[cfg->naccess_log_fields++] = f;
	}
	return 0;
}

/* Not written: the format's own fields, which an empty list would not say. */
static void
show_access_log_fields(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct conf	*cfg = base;
	int			 i;

	if (cfg->naccess_log_fields == 0) {
		conf_show_comment(sh, "%s is not set", k->name);
		return;
	}
	for (i = 0; i < cfg->naccess_log_fields; i++)
		fprintf(sh->out, "%s\"%s\"", i == 0 ? "access_log_fields = [ " :
		    ", ", access_log_field_names[cfg->access_log_fields[i]]);
	fputs(" ];\n", sh->out);
}

static int
parse_backend(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	const char *const	*names = event_backend_names();
	int			 idx = 0;

	if (conf_get_choice(ld, k, s, names, &idx) == -1)
		return -1;
	if (!event_backend_available(names[idx]))
		return conf_fail(ld, s, "%s \"%s\" is not supported on this "
		    "system", k->name, names[idx]);
	return conf_store_string(ld, s, conf_field(base, k), names[idx]);
}

/* Fill in what the file did not say, now that all of it has been read. */
static void
conf_inherit(struct conf *cfg)
{
	if (cfg->workers == 0)
		cfg->workers = workers_auto();
	/* Root's alone, unless a group is named to share it with. */
	if (cfg->control_mode == -1)
		cfg->control_mode = cfg->control_group != NULL ? 0660 : 0600;
	conf_rules_inherit(cfg);
}

static struct conf *
conf_new(const char *path)
{
	struct conf	*cfg;

	if ((cfg = calloc(1, sizeof(*cfg))) == NULL)
		return NULL;
	cfg->path = strdup(path);
	cfg->event_backend = strdup("auto");
	cfg->syslog_ident = strdup("ferryd");
	if (cfg->path == NULL || cfg->event_backend == NULL ||
	    cfg->syslog_ident == NULL) {
		conf_free(cfg);
		return NULL;
	}
	cfg->workers = 0;	/* "auto", resolved by conf_inherit() */
	cfg->log_level = LOG_LEVEL_INFO;
	cfg->syslog_facility = conf_name_index(log_facility_names, "daemon");
	cfg->buffer_size = DEFAULT_BUFFER_SIZE;
	cfg->connect_timeout = DEFAULT_CONNECT_TIMEOUT;
	cfg->idle_timeout = DEFAULT_IDLE_TIMEOUT;
	cfg->session_timeout = DEFAULT_SESSION_TIMEOUT;
	cfg->max_sessions = DEFAULT_MAX_SESSIONS;
	cfg->control_mode = -1;
	cfg->shutdown_timeout = DEFAULT_SHUTDOWN_TIMEOUT;
	cfg->watchdog_timeout = DEFAULT_WATCHDOG_TIMEOUT;
	cfg->backlog = DEFAULT_BACKLOG;
	cfg->max_connections = DEFAULT_MAX_CONNECTIONS;
	cfg->resolve_interval = DEFAULT_RESOLVE_INTERVAL;
	cfg->status_interval = DEFAULT_STATUS_INTERVAL;
	cfg->seccomp = true;
	return cfg;
}

/*
 * libconfig could not parse the text: say where and why.  It says only
 * "syntax error", where it stopped: conf_syntax.c says what was expected,
 * at the line of the likely cause.
 */
static int
syntax_error(struct conf_loader *ld, const config_t *lc)
{
	char		why[CONF_ERR_MAX - 64];
	char		msg[CONF_ERR_MAX];
	unsigned int	line = config_error_line(lc) > 0 ?
			    (unsigned int)config_error_line(lc) : 0;

	ld->syntax_error = true;
	if (ld->text != NULL && conf_syntax_explain(ld->text, &line, why,
	    sizeof(why))) {
		snprintf(msg, sizeof(msg), "%s: %s", config_error_text(lc), why);
		conf_report(ld, line, msg);
	} else
		conf_report(ld, line, config_error_text(lc));
	return -1;
}

/*
 * Workers only change identity to drop root: group alone would leave them
 * running as root with another group, which is not what anyone means.
 */
static int
check_group(struct conf_loader *ld, const config_t *lc, const struct conf *cfg)
{
	if (cfg->group == NULL || cfg->user != NULL)
		return 0;
	return conf_fail(ld, config_lookup(lc, "group"), "\"group\" is set without "
	    "\"user\": the workers would keep the master's user (root); set "
	    "\"user\" too");
}

/*
 * Load ld->text, read from ld->path and its @includes or converted from
 * a rinetd.conf: the same checks either way.  keep (NULL, or ld->text):
 * the new config takes it over, for conf_reresolve().
 */
static struct conf *
load(struct conf_loader *ld, int syntax, struct conf_text *keep)
{
	struct conf	*cfg;
	config_t	 lc;
	int		 rc;

	if ((cfg = conf_new(ld->path)) == NULL) {
		snprintf(ld->err, ld->errlen, "%s: out of memory", ld->path);
		return NULL;
	}
	config_init(&lc);
	rc = config_read_string(&lc, ld->text->text) ? 0 :
	    syntax_error(ld, &lc);
	if (rc == 0)
		rc = conf_parse_members(ld, config_root_setting(&lc),
		    &conf_global_keys, cfg);
	if (rc == 0 && cfg->rules == NULL)
		rc = conf_fail(ld, NULL, "missing required setting \"rules\"");
	if (rc == 0)
		rc = check_group(ld, &lc, cfg);
	if (rc == 0)
		rc = conf_check_proxy_acl(ld, &lc, cfg);
	if (rc == 0)
		rc = conf_check_stats_listen(ld, &lc, cfg);
	config_destroy(&lc);
	if (rc == -1) {
		conf_free(cfg);
		return NULL;
	}
	conf_inherit(cfg);
	cfg->syntax = syntax;
	if (keep != NULL && (cfg->text = malloc(sizeof(*keep))) != NULL) {
		*cfg->text = *keep;
		memset(keep, 0, sizeof(*keep));	/* now cfg's */
	}
	return cfg;
}

struct conf *
conf_load_text(struct conf_loader *ld, int syntax, struct conf_text *keep)
{
	return load(ld, syntax, keep);
}

struct conf *
conf_reresolve(const struct conf *cfg, char *err, size_t errlen)
{
	struct conf_loader	ld = { cfg->path, err, errlen, cfg->text,
	    false };

	if (cfg->text == NULL) {
		snprintf(err, errlen, "%s: the text it was loaded from is "
		    "gone", cfg->path);
		return NULL;
	}
	return load(&ld, cfg->syntax, NULL);
}

void
conf_move_text(struct conf *to, struct conf *from)
{
	if (to->text != NULL) {
		conf_text_free(to->text);
		free(to->text);
	}
	to->text = from->text;
	from->text = NULL;
}

bool
conf_has_udp(const struct conf *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].protocol == RULE_UDP)
			return true;
	return false;
}

bool
conf_has_unix_backends(const struct conf *cfg)
{
	size_t i, j;

	for (i = 0; i < cfg->nrules; i++)
		for (j = 0; j < cfg->rules[i].upstream.nbackends; j++)
			if (cfg->rules[i].upstream.backends[j].addr.ss.
			    ss_family == AF_UNIX)
				return true;
	return false;
}

bool
conf_has_transparent(const struct conf *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nrules; i++)
		if (rule_any_transparent(&cfg->rules[i]))
			return true;
	return false;
}

void
conf_warn_lines(const char *warnings)
{
	const char	*p, *nl;

	for (p = warnings; p != NULL && (nl = strchr(p, '\n')) != NULL;
	    p = nl + 1)
		log_warn("%.*s", (int)(nl - p), p);
}

void
conf_free(struct conf *cfg)
{
	size_t	i;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->nrules; i++) {
		free(cfg->rules[i].listen);
		free(cfg->rules[i].upstream.backends);
		free(cfg->rules[i].upstream.state);
		conf_routes_free(&cfg->rules[i]);
		/* The rest of a range's later ports is its first port's. */
		if (cfg->rules[i].range_first != NULL)
			continue;
		free(cfg->rules[i].file);
		free(cfg->rules[i].name);
		free(cfg->rules[i].connect);
		conf_items_free(&cfg->rules[i]);
		free(cfg->rules[i].upstream.maglev);
		free(cfg->rules[i].source);
		free(cfg->rules[i].source_pool[0]);
		free(cfg->rules[i].source_pool[1]);
		acl_free(&cfg->rules[i].acl);
		acl_free(&cfg->rules[i].accept_proxy_from);
		conf_rule_unix_free(&cfg->rules[i]);
	}
	free(cfg->rules);
	acl_free(&cfg->acl);
	free(cfg->access_log);
	free(cfg->control_socket);
	free(cfg->control_group);
	free(cfg->state_file);
	free(cfg->stats_listen);
	free(cfg->status_file);
	free(cfg->path);
	free(cfg->user);
	free(cfg->group);
	free(cfg->pidfile);
	free(cfg->log_file);
	free(cfg->chroot_dir);
	free(cfg->event_backend);
	free(cfg->syslog_ident);
	if (cfg->text != NULL) {
		conf_text_free(cfg->text);
		free(cfg->text);
	}
	free(cfg);
}

int
conf_log_level_parse(const char *name)
{
	return conf_name_index(log_level_names, name);
}

