/*
 * conf.c - reading ferryd.conf: libconfig syntax in, a fully checked and
 * resolved struct conf out.
 *
 * Every value is range-checked and every address resolved here, so nothing
 * else in the daemon has to doubt the configuration.  Nothing is logged:
 * each problem becomes one "FILE:LINE: problem" line in the caller's buffer,
 * and the caller decides whether it is fatal (start) or not (reload).
 */
#include "ferryd.h"

#include <grp.h>
#include <ifaddrs.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <libconfig.h>

#include "acl.h"
#include "addr.h"
#include "conf.h"
#include "conf_file.h"
#include "conf_rinetd.h"
#include "event.h"

/* Limits, in the unit the structs store: bytes or milliseconds. */
#define BUFFER_SIZE_MIN		1024
#define BUFFER_SIZE_MAX		67108864
#define CONNECT_TIMEOUT_MIN	1		/* rounds to 0 ms otherwise */
#define CONNECT_TIMEOUT_MAX	3600000		/* one hour */
/*
 * A year would be the natural cap for idle_timeout, but durations are
 * stored as int milliseconds, which end after about 24.8 days.
 */
#define IDLE_TIMEOUT_MAX	INT_MAX
#define SHUTDOWN_TIMEOUT_MAX	86400000	/* one day */
#define WATCHDOG_TIMEOUT_MAX	3600000		/* one hour */
#define BACKLOG_MAX		65535
#define MAX_CONNECTIONS_MAX	1000000

/* A rule timeout that was not written and is inherited from the top level. */
#define UNSET			(-1)
#define SOCKBUF_MAX		(64 * 1024 * 1024)

/* Longest known setting name; "did you mean" only compares with those. */
#define KEY_NAME_MAX		32

/* What every parsing function needs to report a problem. */
struct loader {
	const char	*path;
	char		*err;
	size_t		 errlen;
	const struct conf_text *text;	/* what libconfig read, line origins */
	bool		 syntax_error;	/* libconfig could not parse the text */
};

struct key;

/* Checks setting s and stores it in the struct at base; 0 or -1. */
typedef int key_parser(struct loader *, const struct key *,
    const config_setting_t *, void *);

/* One known setting: how to parse it, its limits, where it is stored. */
struct key {
	const char	*name;
	key_parser	*parse;
	long long	 min, max;
	size_t		 offset;
};

static key_parser parse_int, parse_size, parse_duration, parse_string;
static key_parser parse_path, parse_pidfile, parse_workers, parse_user;
static key_parser parse_group, parse_log_level, parse_backend, parse_rules;
static key_parser parse_splice, parse_bool;
static key_parser parse_allow, parse_deny, parse_access_log_format;

static const struct key global_keys[] = {
	{ "workers", parse_workers, 1, MAX_WORKERS,
	    offsetof(struct conf, workers) },
	{ "user", parse_user, 0, 0, offsetof(struct conf, user) },
	{ "group", parse_group, 0, 0, offsetof(struct conf, group) },
	{ "pidfile", parse_pidfile, 0, 0, offsetof(struct conf, pidfile) },
	{ "log_file", parse_path, 0, 0, offsetof(struct conf, log_file) },
	{ "log_level", parse_log_level, 0, 0,
	    offsetof(struct conf, log_level) },
	{ "event_backend", parse_backend, 0, 0,
	    offsetof(struct conf, event_backend) },
	{ "buffer_size", parse_size, BUFFER_SIZE_MIN, BUFFER_SIZE_MAX,
	    offsetof(struct conf, buffer_size) },
	{ "connect_timeout", parse_duration, CONNECT_TIMEOUT_MIN,
	    CONNECT_TIMEOUT_MAX, offsetof(struct conf, connect_timeout) },
	{ "idle_timeout", parse_duration, 0, IDLE_TIMEOUT_MAX,
	    offsetof(struct conf, idle_timeout) },
	{ "shutdown_timeout", parse_duration, 0, SHUTDOWN_TIMEOUT_MAX,
	    offsetof(struct conf, shutdown_timeout) },
	{ "watchdog_timeout", parse_duration, 0, WATCHDOG_TIMEOUT_MAX,
	    offsetof(struct conf, watchdog_timeout) },
	{ "backlog", parse_int, 1, BACKLOG_MAX,
	    offsetof(struct conf, backlog) },
	{ "max_connections", parse_int, 1, MAX_CONNECTIONS_MAX,
	    offsetof(struct conf, max_connections) },
	{ "splice", parse_splice, 0, 0, offsetof(struct conf, splice) },
	{ "sndbuf", parse_int, 0, SOCKBUF_MAX, offsetof(struct conf, sndbuf) },
	{ "rcvbuf", parse_int, 0, SOCKBUF_MAX, offsetof(struct conf, rcvbuf) },
	{ "cpu_affinity", parse_bool, 0, 0,
	    offsetof(struct conf, cpu_affinity) },
	{ "allow", parse_allow, 0, 0, offsetof(struct conf, acl) },
	{ "deny", parse_deny, 0, 0, offsetof(struct conf, acl) },
	{ "access_log", parse_path, 0, 0,
	    offsetof(struct conf, access_log) },
	{ "access_log_format", parse_access_log_format, 0, 0,
	    offsetof(struct conf, access_log_format) },
	{ "rules", parse_rules, 0, 0, offsetof(struct conf, rules) },
};

static const struct key rule_keys[] = {
	{ "listen", parse_string, 0, 0, offsetof(struct rule, listen) },
	{ "connect", parse_string, 0, 0, offsetof(struct rule, connect) },
	{ "buffer_size", parse_size, BUFFER_SIZE_MIN, BUFFER_SIZE_MAX,
	    offsetof(struct rule, buffer_size) },
	{ "connect_timeout", parse_duration, CONNECT_TIMEOUT_MIN,
	    CONNECT_TIMEOUT_MAX, offsetof(struct rule, connect_timeout) },
	{ "idle_timeout", parse_duration, 0, IDLE_TIMEOUT_MAX,
	    offsetof(struct rule, idle_timeout) },
	{ "splice", parse_splice, 0, 0, offsetof(struct rule, splice) },
	{ "sndbuf", parse_int, 0, SOCKBUF_MAX, offsetof(struct rule, sndbuf) },
	{ "rcvbuf", parse_int, 0, SOCKBUF_MAX, offsetof(struct rule, rcvbuf) },
	{ "allow", parse_allow, 0, 0, offsetof(struct rule, acl) },
	{ "deny", parse_deny, 0, 0, offsetof(struct rule, acl) },
	{ "source", parse_string, 0, 0, offsetof(struct rule, source) },
	{ "ipv6_only", parse_bool, 0, 0, offsetof(struct rule, ipv6_only) },
};

#define NKEYS(a)	(sizeof(a) / sizeof((a)[0]))

/* In enum log_level order. */
static const char *const log_level_names[] = {
	"err", "warning", "notice", "info", "debug", NULL
};

/* In enum access_log_format order. */
static const char *const access_log_format_names[] = {
	"rinetd", "common", NULL
};

/*
 * Write "FILE:LINE: msg", or "FILE: msg" when line is 0; line is a line
 * of the text libconfig read, which may come from an @include'd file.
 */
static void
report(struct loader *ld, unsigned int line, const char *msg)
{
	struct conf_line	l = { NULL, 0 };

	if (ld->text != NULL && line > 0)
		l = conf_text_origin(ld->text, line);
	if (l.file == NULL)
		l.file = ld->path;
	if (l.line > 0)
		snprintf(ld->err, ld->errlen, "%s:%d: %s", l.file, l.line, msg);
	else
		snprintf(ld->err, ld->errlen, "%s: %s", l.file, msg);
}

/*
 * Report a problem with setting s (NULL: with the file as a whole).
 * Returns -1 so that callers can "return fail(...)".  gcc cannot see that
 * it always does, so locals that a failing helper leaves unset are given
 * an initial value anyway, for -Wmaybe-uninitialized.
 */
static int __attribute__((format(printf, 3, 4)))
fail(struct loader *ld, const config_setting_t *s, const char *fmt, ...)
{
	char	msg[CONF_ERR_MAX];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report(ld, s == NULL ? 0 : config_setting_source_line(s), msg);
	return -1;
}

/* The kind of value s holds, for "must be X (got Y)" messages. */
static const char *
type_name(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	}
	return "nothing";
}

static int
is_integer(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	    config_setting_type(s) == CONFIG_TYPE_INT64;
}

static void *
field(void *base, const struct key *k)
{
	return (char *)base + k->offset;
}

/*
 * Read an integer setting and check it against the key's limits.  Beware:
 * libconfig 1.5 truncates a literal that does not fit in 32 bits unless it
 * is written with an L suffix; most such values then fail the range check.
 */
static int
get_int_in_range(struct loader *ld, const struct key *k,
    const config_setting_t *s, long long *v)
{
	if (!is_integer(s))
		return fail(ld, s, "\"%s\" must be an integer (got %s)",
		    k->name, type_name(s));
	*v = config_setting_get_int64(s);
	if (*v < k->min || *v > k->max)
		return fail(ld, s, "\"%s\" must be between %lld and %lld "
		    "(got %lld)", k->name, k->min, k->max, *v);
	return 0;
}

static int
get_string(struct loader *ld, const struct key *k, const config_setting_t *s,
    const char **v)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return fail(ld, s, "\"%s\" must be a string (got %s)",
		    k->name, type_name(s));
	*v = config_setting_get_string(s);
	return 0;
}

/* Replaces a default (event_backend starts as "auto"). */
static int
store_string(struct loader *ld, const config_setting_t *s, char **dst,
    const char *v)
{
	free(*dst);
	if ((*dst = strdup(v)) == NULL)
		return fail(ld, s, "out of memory");
	return 0;
}

/* Index of name in the NULL-terminated names, or -1. */
static int
name_index(const char *const *names, const char *name)
{
	int	i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* Read a string that must be one of names; *idx is its index. */
static int
get_choice(struct loader *ld, const struct key *k, const config_setting_t *s,
    const char *const *names, int *idx)
{
	char		 list[128];
	const char	*v = "";
	size_t		 len = 0;
	int		 i;

	if (get_string(ld, k, s, &v) == -1)
		return -1;
	if ((*idx = name_index(names, v)) != -1)
		return 0;
	list[0] = '\0';
	for (i = 0; names[i] != NULL && len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - len, "%s\"%s\"",
		    i > 0 ? ", " : "", names[i]);
	return fail(ld, s, "\"%s\" must be one of %s (got \"%s\")",
	    k->name, list, v);
}

static int
parse_int(struct loader *ld, const struct key *k, const config_setting_t *s,
    void *base)
{
	long long	v = 0;

	if (get_int_in_range(ld, k, s, &v) == -1)
		return -1;
	*(int *)field(base, k) = (int)v;
	return 0;
}

static int
parse_size(struct loader *ld, const struct key *k, const config_setting_t *s,
    void *base)
{
	long long	v = 0;

	if (get_int_in_range(ld, k, s, &v) == -1)
		return -1;
	*(size_t *)field(base, k) = (size_t)v;
	return 0;
}

/*
 * A duration is written in seconds, integer or not, and stored in
 * milliseconds rounded to the nearest; the key's limits are in ms.
 */
static int
parse_duration(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base)
{
	double		sec;
	long long	ms = 0;
	int		in_range;

	if (is_integer(s))
		sec = (double)config_setting_get_int64(s);
	else if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
		sec = config_setting_get_float(s);
	else
		return fail(ld, s, "\"%s\" must be a number of seconds "
		    "(got %s)", k->name, type_name(s));
	/* Range-check before converting: a huge value must not overflow. */
	in_range = sec >= 0 && sec * 1000.0 < (double)k->max + 0.5;
	if (in_range)
		ms = (long long)(sec * 1000.0 + 0.5);
	if (!in_range || ms < k->min)
		return fail(ld, s, "\"%s\" must be between %.15g and %.15g "
		    "seconds (got %.15g)", k->name, (double)k->min / 1000.0,
		    (double)k->max / 1000.0, sec);
	*(int *)field(base, k) = (int)ms;
	return 0;
}

static int
parse_string(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base)
{
	const char	*v = "";

	if (get_string(ld, k, s, &v) == -1)
		return -1;
	return store_string(ld, s, field(base, k), v);
}

/*
 * The directory of a file the daemon will create must exist: found at
 * load time, a typo is an error at its line, from -t and at a reload,
 * rather than a failure to open the file later.
 */
static int
check_parent_dir(struct loader *ld, const struct key *k,
    const config_setting_t *s, const char *path)
{
	char		 dir[PATH_MAX];
	const char	*slash = strrchr(path, '/');
	struct stat	 st;

	if (slash == path)
		return 0;
	if ((size_t)(slash - path) >= sizeof(dir))
		return fail(ld, s, "\"%s\": path too long", k->name);
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	if (stat(dir, &st) == -1)
		return fail(ld, s, "\"%s\": cannot use directory %s: %s",
		    k->name, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(ld, s, "\"%s\": %s is not a directory", k->name,
		    dir);
	return 0;
}

/* Files must be absolute: the daemon may chdir("/") before using them. */
static int
parse_path(struct loader *ld, const struct key *k, const config_setting_t *s,
    void *base)
{
	const char	*v = "";

	if (get_string(ld, k, s, &v) == -1)
		return -1;
	if (v[0] != '/')
		return fail(ld, s, "\"%s\" must be an absolute path "
		    "(got \"%s\")", k->name, v);
	if (check_parent_dir(ld, k, s, v) == -1)
		return -1;
	return store_string(ld, s, field(base, k), v);
}

/* pidfile = "" says "no pidfile", overriding a command-line default. */
static int
parse_pidfile(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base)
{
	if (config_setting_type(s) == CONFIG_TYPE_STRING &&
	    config_setting_get_string(s)[0] == '\0')
		return store_string(ld, s, field(base, k), "");
	return parse_path(ld, k, s, base);
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
parse_workers(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base)
{
	const char	*v = "";

	if (is_integer(s))
		return parse_int(ld, k, s, base);
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return fail(ld, s, "\"%s\" must be \"auto\" or an integer "
		    "(got %s)", k->name, type_name(s));
	v = config_setting_get_string(s);
	if (strcmp(v, "auto") != 0)
		return fail(ld, s, "\"%s\" must be \"auto\" or a number "
		    "between %lld and %lld (got \"%s\")", k->name, k->min,
		    k->max, v);
	*(int *)field(base, k) = workers_auto();
	return 0;
}

/*
 * The user's primary group becomes the gid unless "group" is set, which
 * wins whichever of the two comes first in the file.
 */
static int
parse_user(struct loader *ld, const struct key *k, const config_setting_t *s,
    void *base)
{
	struct conf	*cfg = base;
	struct passwd	*pw;

	if (parse_string(ld, k, s, base) == -1)
		return -1;
	if ((pw = getpwnam(cfg->user)) == NULL)
		return fail(ld, s, "unknown user \"%s\"", cfg->user);
	cfg->uid = pw->pw_uid;
	if (cfg->group == NULL)
		cfg->gid = pw->pw_gid;
	return 0;
}

static int
parse_group(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base)
{
	struct conf	*cfg = base;
	struct group	*gr;

	if (parse_string(ld, k, s, base) == -1)
		return -1;
	if ((gr = getgrnam(cfg->group)) == NULL)
		return fail(ld, s, "unknown group \"%s\"", cfg->group);
	cfg->gid = gr->gr_gid;
	return 0;
}

/* Store the index of the choice in names as an int. */
static int
store_choice(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base, const char *const *names)
{
	int	idx = 0;

	if (get_choice(ld, k, s, names, &idx) == -1)
		return -1;
	*(int *)field(base, k) = idx;
	return 0;
}

static int
parse_log_level(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base)
{
	return store_choice(ld, k, s, base, log_level_names);
}

static int
parse_access_log_format(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base)
{
	return store_choice(ld, k, s, base, access_log_format_names);
}

static int
parse_backend(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base)
{
	const char *const	*names = event_backend_names();
	int			 idx = 0;

	if (get_choice(ld, k, s, names, &idx) == -1)
		return -1;
	if (!event_backend_available(names[idx]))
		return fail(ld, s, "%s \"%s\" is not supported on this "
		    "system", k->name, names[idx]);
	return store_string(ld, s, field(base, k), names[idx]);
}

static const char *const splice_names[] = { "auto", "on", "off", NULL };

static int
parse_splice(struct loader *ld, const struct key *k,
    const config_setting_t *s, void *base)
{
	if (store_choice(ld, k, s, base, splice_names) == -1)
		return -1;
#ifndef HAVE_SPLICE
	if (*(int *)field(base, k) == SPLICE_ON)
		return fail(ld, s, "%s \"on\" is not supported on this system "
		    "(no splice(2)); use \"auto\" or \"off\"", k->name);
#endif
	return 0;
}

static int
parse_bool(struct loader *ld, const struct key *k, const config_setting_t *s,
    void *base)
{
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return fail(ld, s, "\"%s\" must be true or false (got %s)",
		    k->name, type_name(s));
	*(bool *)field(base, k) = config_setting_get_bool(s) != 0;
	return 0;
}

/* One allow or deny pattern, reported at its own line. */
static int
add_pattern(struct loader *ld, const struct key *k, const config_setting_t *e,
    struct acl *acl, enum acl_list list)
{
	char	why[CONF_ERR_MAX];

	if (config_setting_type(e) != CONFIG_TYPE_STRING)
		return fail(ld, e, "\"%s\" patterns must be strings (got %s)",
		    k->name, type_name(e));
	if (acl_compile(acl, list, config_setting_get_string(e), why,
	    sizeof(why)) == -1)
		return fail(ld, e, "\"%s\": %s", k->name, why);
	return 0;
}

/* allow and deny: one pattern, or an array or list of them. */
static int
parse_acl(struct loader *ld, const struct key *k, const config_setting_t *s,
    void *base, enum acl_list list)
{
	struct acl	*acl = field(base, k);
	int		 i, n;

	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return add_pattern(ld, k, s, acl, list);
	if (!config_setting_is_array(s) && !config_setting_is_list(s))
		return fail(ld, s, "\"%s\" must be a list of patterns, "
		    "[ \"10.0.0.0/8\", \"192.168.1.*\", ... ] (got %s)", k->name,
		    type_name(s));
	n = config_setting_length(s);
	for (i = 0; i < n; i++)
		if (add_pattern(ld, k, config_setting_get_elem(s, i), acl,
		    list) == -1)
			return -1;
	return 0;
}

static int
parse_allow(struct loader *ld, const struct key *k, const config_setting_t *s,
    void *base)
{
	return parse_acl(ld, k, s, base, ACL_ALLOW);
}

static int
parse_deny(struct loader *ld, const struct key *k, const config_setting_t *s,
    void *base)
{
	return parse_acl(ld, k, s, base, ACL_DENY);
}

/* Levenshtein distance between a and a known key name b. */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t	row[KEY_NAME_MAX + 1], la, lb, i, j, diag, up, best;

	la = strlen(a);
	lb = strlen(b);
	if (lb > KEY_NAME_MAX)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static const struct key *
key_find(const struct key *keys, size_t nkeys, const char *name)
{
	size_t	i;

	for (i = 0; i < nkeys; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* The known key closest to name, if it is close enough to be a typo. */
static const char *
key_suggest(const struct key *keys, size_t nkeys, const char *name)
{
	const char	*best = NULL;
	size_t		 i, d, bestd = 3;

	for (i = 0; i < nkeys; i++) {
		d = edit_distance(name, keys[i].name);
		if (d < bestd) {
			bestd = d;
			best = keys[i].name;
		}
	}
	return best;
}

/* Say why s is not a setting of this group, as helpfully as we can. */
static int
unknown_setting(struct loader *ld, const config_setting_t *s,
    const struct key *keys, size_t nkeys)
{
	const char	*name = config_setting_name(s), *hint;

	if (keys == rule_keys &&
	    key_find(global_keys, NKEYS(global_keys), name) != NULL)
		return fail(ld, s, "unknown setting \"%s\" in a rule (it can "
		    "only be set at the top level)", name);
	if (keys == global_keys &&
	    key_find(rule_keys, NKEYS(rule_keys), name) != NULL)
		return fail(ld, s, "unknown setting \"%s\" at the top level "
		    "(it can only be set inside a rule)", name);
	if ((hint = key_suggest(keys, nkeys, name)) != NULL)
		return fail(ld, s, "unknown setting \"%s\" (did you mean "
		    "\"%s\"?)", name, hint);
	return fail(ld, s, "unknown setting \"%s\"", name);
}

/* Parse every member of group, in file order, into the struct at base. */
static int
parse_members(struct loader *ld, const config_setting_t *group,
    const struct key *keys, size_t nkeys, void *base)
{
	const config_setting_t	*s;
	const struct key	*k;
	int			 i, n;

	n = config_setting_length(group);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(group, i);
		k = key_find(keys, nkeys, config_setting_name(s));
		if (k == NULL)
			return unknown_setting(ld, s, keys, nkeys);
		if (k->parse(ld, k, s, base) == -1)
			return -1;
	}
	return 0;
}

/* Resolve the rule's listen or connect address; spec NULL = not written. */
static int
rule_address(struct loader *ld, const config_setting_t *rule,
    const char *name, const char *spec, int passive, struct sockaddr_any *out)
{
	char	why[CONF_ERR_MAX];

	if (spec == NULL)
		return fail(ld, rule, "rule is missing required setting "
		    "\"%s\"", name);
	if (addr_resolve(spec, passive, out, why, sizeof(why)) == -1)
		return fail(ld, config_setting_get_member(rule, name),
		    "\"%s\": %s", name, why);
	return 0;
}

/* ipv6_only is a setting of IPv6 sockets only. */
static int
rule_ipv6_only(struct loader *ld, const config_setting_t *rule,
    const struct rule *r)
{
	const config_setting_t	*m;

	m = config_setting_get_member(rule, "ipv6_only");
	if (m != NULL && r->listen_addr.ss.ss_family != AF_INET6)
		return fail(ld, m, "\"ipv6_only\" is only valid with an IPv6 "
		    "listen address (listen is \"%s\")", r->listen);
	return 0;
}

/*
 * connect: every address of the host is a backend.  With source, each
 * backend binds to the source's address of its own family; backends of a
 * family the source has no address of are left out.
 */
static int
rule_upstream(struct loader *ld, const config_setting_t *rule, struct rule *r)
{
	const config_setting_t	*m = config_setting_get_member(rule, "source");
	struct upstream		*u = &r->upstream;
	struct sockaddr_any	*addrs;
	struct backend		*b;
	char			 why[CONF_ERR_MAX];
	size_t			 n = 0, i;
	int			 family = AF_INET;

	if (r->connect == NULL)
		return fail(ld, rule, "rule is missing required setting "
		    "\"connect\"");
	if (addr_resolve_all(r->connect, &addrs, &n, why, sizeof(why)) == -1)
		return fail(ld, config_setting_get_member(rule, "connect"),
		    "\"connect\": %s", why);
	u->backends = calloc(n, sizeof(*u->backends));
	if (u->backends == NULL) {
		free(addrs);
		return fail(ld, rule, "out of memory");
	}
	for (i = 0; i < n; i++) {
		b = &u->backends[u->nbackends];
		b->addr = addrs[i];
		family = addrs[i].ss.ss_family;
		if (r->source != NULL) {
			/* A name may have addresses of both families. */
			if (addr_resolve_host(r->source, family, &b->source, why,
			    sizeof(why)) == -1)
				continue;
			b->has_source = true;
		}
		u->nbackends++;
	}
	free(addrs);
	if (u->nbackends > 0)
		return 0;
	/* Say why the source did not do for any address. */
	if (addr_resolve_host(r->source, AF_UNSPEC, &u->backends[0].source, why,
	    sizeof(why)) == -1)
		return fail(ld, m, "\"source\": %s", why);
	return fail(ld, m, "\"source\" \"%s\" is not an %s address, as "
	    "the connect address \"%s\" is", r->source,
	    family == AF_INET ? "IPv4" : "IPv6", r->connect);
}

/* [::]:port with ipv6_only = false, which takes IPv4 connections too. */
static bool
listens_dual_stack(const struct rule *r)
{
	const struct sockaddr_in6	*sin6 = (const void *)&r->listen_addr.ss;

	return sin6->sin6_family == AF_INET6 && !r->ipv6_only &&
	    IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr);
}

static bool
listens_any_ipv4(const struct rule *r)
{
	const struct sockaddr_in	*sin = (const void *)&r->listen_addr.ss;

	return sin->sin_family == AF_INET &&
	    sin->sin_addr.s_addr == htonl(INADDR_ANY);
}

/* A dual-stack [::]:port and 0.0.0.0:port would share IPv4 clients. */
static bool
listens_overlap(const struct rule *a, const struct rule *b)
{
	const struct sockaddr	*sa = (const void *)&a->listen_addr.ss;
	const struct sockaddr	*sb = (const void *)&b->listen_addr.ss;

	return addr_port(sa) == addr_port(sb) &&
	    ((listens_dual_stack(a) && listens_any_ipv4(b)) ||
	    (listens_dual_stack(b) && listens_any_ipv4(a)));
}

/* Two rules listening on one address would split its connections. */
static int
rule_check_unique(struct loader *ld, const config_setting_t *s,
    const struct rule *rules, size_t idx)
{
	size_t	i;

	for (i = 0; i < idx; i++) {
		if (addr_equal(&rules[i].listen_addr, &rules[idx].listen_addr))
			return fail(ld, s, "listen address \"%s\" is already "
			    "used by the rule at line %d", rules[idx].listen,
			    rules[i].line);
		if (listens_overlap(&rules[i], &rules[idx]))
			return fail(ld, s, "listen address \"%s\" overlaps "
			    "\"%s\" of the rule at line %d: an IPv6 listener "
			    "with ipv6_only = false takes IPv4 connections too",
			    rules[idx].listen, rules[i].listen, rules[i].line);
	}
	return 0;
}

enum { UNVISITED, ON_PATH, DONE };

/*
 * Finding rules that forward to themselves, directly or through others:
 * a connection would be forwarded round until file descriptors run out.
 */
struct loop_check {
	const struct rule *rules;
	size_t		   n;
	struct ifaddrs	  *ifa;		/* this host's addresses, when needed */
	bool		   ifa_read;
	unsigned char	  *state;	/* UNVISITED, ON_PATH, DONE per rule */
	size_t		  *path;	/* the rules on the path, in order */
	size_t		   depth;
	size_t		   start;	/* where the loop found starts */
};

static bool
is_loopback(const struct sockaddr *sa)
{
	const struct sockaddr_in	*sin = (const void *)sa;
	const struct sockaddr_in6	*sin6 = (const void *)sa;

	if (sa->sa_family == AF_INET)
		return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	return sa->sa_family == AF_INET6 &&
	    (IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) ||
	    (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) &&
	    sin6->sin6_addr.s6_addr[12] == 127));
}

static bool
same_host(const struct sockaddr *a, const struct sockaddr *b)
{
	const struct sockaddr_in6	*a6 = (const void *)a;
	const struct sockaddr_in6	*b6 = (const void *)b;

	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)a)->
		    sin_addr.s_addr ==
		    ((const struct sockaddr_in *)(const void *)b)->
		    sin_addr.s_addr;
	return a->sa_family == AF_INET6 &&
	    IN6_ARE_ADDR_EQUAL(&a6->sin6_addr, &b6->sin6_addr);
}

/* Whether a wildcard listener of this host takes connections to sa. */
static bool
is_local(struct loop_check *lc, const struct sockaddr *sa)
{
	struct ifaddrs	*i;

	if (is_loopback(sa))
		return true;
	/* Without the list, only loopback is known to be local. */
	if (!lc->ifa_read && getifaddrs(&lc->ifa) == -1)
		lc->ifa = NULL;
	lc->ifa_read = true;
	for (i = lc->ifa; i != NULL; i = i->ifa_next)
		if (i->ifa_addr != NULL && same_host(i->ifa_addr, sa))
			return true;
	return false;
}

/* Whether rule r's listener takes a connection to backend address b. */
static bool
listener_takes(struct loop_check *lc, const struct rule *r,
    const struct sockaddr_any *b)
{
	const struct sockaddr	*sa = (const void *)&b->ss;

	if (addr_equal(&r->listen_addr, b))
		return true;
	if (addr_port((const void *)&r->listen_addr.ss) != addr_port(sa))
		return false;
	if (listens_any_ipv4(r) || listens_dual_stack(r))
		if (sa->sa_family == AF_INET)
			return is_local(lc, sa);
	if (r->listen_addr.ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)
	    (const void *)&r->listen_addr.ss)->sin6_addr))
		return sa->sa_family == AF_INET6 && is_local(lc, sa);
	return false;
}

/* The backend of a that reaches rule r, or NULL. */
static const struct backend *
forwards_to(struct loop_check *lc, const struct rule *a, const struct rule *r)
{
	size_t	i;

	for (i = 0; i < a->upstream.nbackends; i++)
		if (listener_takes(lc, r, &a->upstream.backends[i].addr))
			return &a->upstream.backends[i];
	return NULL;
}

/* Depth first from rule i; true when a path comes back to itself. */
static bool
find_loop(struct loop_check *lc, size_t i)
{
	size_t	j;

	lc->state[i] = ON_PATH;
	lc->path[lc->depth++] = i;
	for (j = 0; j < lc->n; j++) {
		if (lc->state[j] == DONE ||
		    forwards_to(lc, &lc->rules[i], &lc->rules[j]) == NULL)
			continue;
		if (lc->state[j] == ON_PATH) {
			lc->start = j;
			return true;
		}
		if (find_loop(lc, j))
			return true;
	}
	lc->state[i] = DONE;
	lc->depth--;
	return false;
}

/* Say which rules make the loop that starts at path[k]. */
static int
loop_error(struct loop_check *lc, struct loader *ld,
    const config_setting_t *list, size_t k)
{
	const struct rule	*r = &lc->rules[lc->path[k]];
	const struct backend	*b;
	char			 lines[CONF_ERR_MAX / 2], addr[ADDR_STRLEN];
	size_t			 len = 0, i;

	if (k + 1 == lc->depth && (b = forwards_to(lc, r, r)) != NULL) {
		addr_format((const void *)&b->addr.ss, addr, sizeof(addr));
		return fail(ld, config_setting_get_elem(list, lc->path[k]),
		    "rule forwards to itself: connect \"%s\" (%s) reaches "
		    "its own listen address \"%s\"", r->connect, addr,
		    r->listen);
	}
	for (i = k; i < lc->depth && len < sizeof(lines); i++)
		len += snprintf(lines + len, sizeof(lines) - len, "line %d -> ",
		    lc->rules[lc->path[i]].line);
	if (len < sizeof(lines))
		snprintf(lines + len, sizeof(lines) - len, "line %d", r->line);
	return fail(ld, config_setting_get_elem(list, lc->path[k]),
	    "rules forward in a loop: %s (each connect reaches the next "
	    "rule's listen address)", lines);
}

/* Refuse rules whose connections would come back to them. */
static int
check_loops(struct loader *ld, const config_setting_t *list,
    const struct rule *rules, size_t n)
{
	struct loop_check	lc;
	size_t			i, k;
	int			rc = 0;

	memset(&lc, 0, sizeof(lc));
	lc.rules = rules;
	lc.n = n;
	lc.state = calloc(n, sizeof(*lc.state));
	lc.path = calloc(n, sizeof(*lc.path));
	if (lc.state == NULL || lc.path == NULL)
		rc = fail(ld, list, "out of memory");
	for (i = 0; rc == 0 && i < n; i++) {
		if (lc.state[i] != UNVISITED || !find_loop(&lc, i))
			continue;
		for (k = 0; lc.path[k] != lc.start; k++)
			;
		rc = loop_error(&lc, ld, list, k);
	}
	if (lc.ifa != NULL)
		freeifaddrs(lc.ifa);
	free(lc.state);
	free(lc.path);
	return rc;
}

/*
 * Parse rules[idx] from s.  Settings it does not override stay UNSET (or
 * 0 for buffer_size) until the whole file is read, because the top-level
 * value they inherit may come after the rules.
 */
static int
parse_rule(struct loader *ld, const config_setting_t *s, struct rule *rules,
    size_t idx)
{
	struct rule		*r = &rules[idx];
	struct conf_line	 origin;

	if (!config_setting_is_group(s))
		return fail(ld, s, "a rule must be a group { listen = \"...\"; "
		    "connect = \"...\"; } (got %s)", type_name(s));
	origin = conf_text_origin(ld->text, config_setting_source_line(s));
	r->line = origin.line;
	if ((r->file = strdup(origin.file != NULL ? origin.file :
	    ld->path)) == NULL)
		return fail(ld, s, "out of memory");
	r->ipv6_only = true;
	r->buffer_size = 0;
	r->connect_timeout = UNSET;
	r->idle_timeout = UNSET;
	r->splice = r->sndbuf = r->rcvbuf = UNSET;
	if (parse_members(ld, s, rule_keys, NKEYS(rule_keys), r) == -1 ||
	    rule_address(ld, s, "listen", r->listen, 1,
	    &r->listen_addr) == -1 ||
	    rule_upstream(ld, s, r) == -1 || rule_ipv6_only(ld, s, r) == -1)
		return -1;
	return rule_check_unique(ld, s, rules, idx);
}

static int
parse_rules(struct loader *ld, const struct key *k, const config_setting_t *s,
    void *base)
{
	struct conf	*cfg = base;
	int		 i, n;

	if (!config_setting_is_list(s) && !config_setting_is_array(s))
		return fail(ld, s, "\"%s\" must be a list of rules, "
		    "( { listen = ...; connect = ...; }, ... ) (got %s)",
		    k->name, type_name(s));
	if ((n = config_setting_length(s)) == 0)
		return fail(ld, s, "\"%s\" is empty: at least one rule is "
		    "needed", k->name);
	if ((cfg->rules = calloc(n, sizeof(*cfg->rules))) == NULL)
		return fail(ld, s, "out of memory");
	cfg->nrules = n;
	for (i = 0; i < n; i++)
		if (parse_rule(ld, config_setting_get_elem(s, i), cfg->rules,
		    i) == -1)
			return -1;
	return check_loops(ld, s, cfg->rules, cfg->nrules);
}

/* Fill in what the file did not say, now that all of it has been read. */
static void
conf_inherit(struct conf *cfg)
{
	struct rule	*r;
	size_t		 i;

	if (cfg->workers == 0)
		cfg->workers = workers_auto();
	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		if (r->buffer_size == 0)
			r->buffer_size = cfg->buffer_size;
		if (r->connect_timeout == UNSET)
			r->connect_timeout = cfg->connect_timeout;
		if (r->idle_timeout == UNSET)
			r->idle_timeout = cfg->idle_timeout;
		if (r->splice == UNSET)
			r->splice = cfg->splice;
		if (r->sndbuf == UNSET)
			r->sndbuf = cfg->sndbuf;
		if (r->rcvbuf == UNSET)
			r->rcvbuf = cfg->rcvbuf;
	}
}

static struct conf *
conf_new(const char *path)
{
	struct conf	*cfg;

	if ((cfg = calloc(1, sizeof(*cfg))) == NULL)
		return NULL;
	cfg->path = strdup(path);
	cfg->event_backend = strdup("auto");
	if (cfg->path == NULL || cfg->event_backend == NULL) {
		conf_free(cfg);
		return NULL;
	}
	cfg->workers = 0;	/* "auto", resolved by conf_inherit() */
	cfg->log_level = LOG_LEVEL_INFO;
	cfg->buffer_size = DEFAULT_BUFFER_SIZE;
	cfg->connect_timeout = DEFAULT_CONNECT_TIMEOUT;
	cfg->idle_timeout = DEFAULT_IDLE_TIMEOUT;
	cfg->shutdown_timeout = DEFAULT_SHUTDOWN_TIMEOUT;
	cfg->watchdog_timeout = DEFAULT_WATCHDOG_TIMEOUT;
	cfg->backlog = DEFAULT_BACKLOG;
	cfg->max_connections = DEFAULT_MAX_CONNECTIONS;
	return cfg;
}

/* libconfig could not parse the text: say where and why. */
static int
syntax_error(struct loader *ld, const config_t *lc)
{
	ld->syntax_error = true;
	report(ld,
	    config_error_line(lc) > 0 ? (unsigned int)config_error_line(lc) : 0,
	    config_error_text(lc));
	return -1;
}

/*
 * Workers only change identity to drop root: group alone would leave them
 * running as root with another group, which is not what anyone means.
 */
static int
check_group(struct loader *ld, const config_t *lc, const struct conf *cfg)
{
	if (cfg->group == NULL || cfg->user != NULL)
		return 0;
	return fail(ld, config_lookup(lc, "group"), "\"group\" is set without "
	    "\"user\": the workers would keep the master's user (root); set "
	    "\"user\" too");
}

/*
 * Load ld->text, read from ld->path and its @includes or converted from
 * a rinetd.conf: the same checks either way.
 */
static struct conf *
load(struct loader *ld, int syntax)
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
		rc = parse_members(ld, config_root_setting(&lc), global_keys,
		    NKEYS(global_keys), cfg);
	if (rc == 0 && cfg->rules == NULL)
		rc = fail(ld, NULL, "missing required setting \"rules\"");
	if (rc == 0)
		rc = check_group(ld, &lc, cfg);
	config_destroy(&lc);
	if (rc == -1) {
		conf_free(cfg);
		return NULL;
	}
	conf_inherit(cfg);
	cfg->syntax = syntax;
	return cfg;
}

/* Whether the file at path reads as a rinetd.conf. */
static bool
is_rinetd_file(const char *path)
{
	char	 err[CONF_ERR_MAX], *text;
	bool	 yes;

	if ((text = rinetd_read(path, err, sizeof(err))) == NULL)
		return false;
	yes = rinetd_detect(text);
	free(text);
	return yes;
}

struct conf *
conf_load(const char *path, char *err, size_t errlen)
{
	return conf_load_syntax(path, CONF_SYNTAX_AUTO, err, errlen);
}

struct conf *
conf_load_syntax(const char *path, int syntax, char *err, size_t errlen)
{
	struct loader	 ld = { path, err, errlen, NULL, false };
	struct conf_text text;
	struct conf	*cfg;

	if (syntax == CONF_SYNTAX_RINETD)
		return conf_load_rinetd(path, err, errlen);
	if (conf_text_read(path, &text, err, errlen) == -1)
		return NULL;
	ld.text = &text;
	cfg = load(&ld, CONF_SYNTAX_LIBCONFIG);
	conf_text_free(&text);
	/* Only a file libconfig cannot parse at all may be rinetd's. */
	if (cfg == NULL && syntax == CONF_SYNTAX_AUTO && ld.syntax_error &&
	    is_rinetd_file(path))
		cfg = conf_load_rinetd(path, err, errlen);
	return cfg;
}

struct conf *
conf_load_rinetd(const char *path, char *err, size_t errlen)
{
	struct loader		 ld = { path, err, errlen, NULL, false };
	struct rinetd_conv	 conv;
	struct conf_text	 ctext;
	struct conf		*cfg = NULL;
	char			*text;

	if ((text = rinetd_read(path, err, errlen)) == NULL)
		return NULL;
	if (rinetd_convert(path, text, &conv, err, errlen) == 0) {
		if (conf_text_from_lines(path, conv.text, conv.linemap,
		    conv.nlines, &ctext) == 0) {
			ld.text = &ctext;
			cfg = load(&ld, CONF_SYNTAX_RINETD);
			conf_text_free(&ctext);
		} else
			snprintf(err, errlen, "%s: out of memory", path);
		rinetd_conv_free(&conv);
	}
	free(text);
	return cfg;
}

void
conf_free(struct conf *cfg)
{
	size_t	i;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->nrules; i++) {
		free(cfg->rules[i].listen);
		free(cfg->rules[i].file);
		free(cfg->rules[i].connect);
		free(cfg->rules[i].source);
		free(cfg->rules[i].upstream.backends);
		acl_free(&cfg->rules[i].acl);
	}
	free(cfg->rules);
	acl_free(&cfg->acl);
	free(cfg->access_log);
	free(cfg->path);
	free(cfg->user);
	free(cfg->group);
	free(cfg->pidfile);
	free(cfg->log_file);
	free(cfg->event_backend);
	free(cfg);
}

int
conf_log_level_parse(const char *name)
{
	return name_index(log_level_names, name);
}
