/*
 * conf_rinetd_uv.c - rinetd-uv's words in a rinetd.conf (its parse.peg):
 * include, the global settings and the rule options it adds to rinetd
 * 0.73's.  Each word is either mapped onto the ferryd setting that does
 * the same (connect-timeout, dns-refresh, buffersize, listen-backlog,
 * keepalive, the status file and the stats line) or, for what tunes
 * rinetd-uv's own insides (its buffer pool, a limit over all rules that
 * ferryd counts per rule), accepted with a warning at its FILE:LINE, so
 * that a file written for rinetd-uv starts.  Values are checked against
 * rinetd-uv's own ranges.
 */
#include "ferryd.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf_rinetd.h"
#include "conf_rinetd_int.h"

/* What a global word of rinetd-uv becomes. */
enum uv_kind {
	UV_MAP,		/* a ferryd setting: uv[setting] */
	UV_IGNORE,	/* a warning saying why it is not needed */
	UV_INCLUDE
};

static const struct uv_word {
	const char	*name;
	enum uv_kind	 kind;
	int		 setting;	/* UV_MAP: enum uv_setting */
	long		 min, max;	/* rinetd-uv's range; 0, 0: a word */
	long		 ferryd_max;	/* what ferryd takes, if less */
	const char	*why;		/* UV_IGNORE: said in the warning */
} uv_words[] = {
	{ "connect-timeout", UV_MAP, UV_CONNECT_TIMEOUT, 0, 86400, 3600, NULL },
	{ "dns-refresh", UV_MAP, UV_DNS_REFRESH, 0, 604800, 86400, NULL },
	{ "buffersize", UV_MAP, UV_BUFFERSIZE, 1024, 1048576, 0, NULL },
	{ "listen-backlog", UV_MAP, UV_LISTEN_BACKLOG, 1, 65535, 0, NULL },
	{ "include", UV_INCLUDE, 0, 0, 0, 0, NULL },
	{ "pool-min-free", UV_IGNORE, 0, 0, 10000, 0,
	    "ferryd sizes its buffer pool itself" },
	{ "pool-max-free", UV_IGNORE, 0, 1, 100000, 0,
	    "ferryd sizes its buffer pool itself" },
	{ "pool-trim-delay", UV_IGNORE, 0, 100, 300000, 0,
	    "ferryd sizes its buffer pool itself" },
	{ "max-udp-connections", UV_IGNORE, 0, 1, 1000000, 0,
	    "a limit over all rules; ferryd limits each UDP rule's sessions "
	    "per worker with max_sessions (65536 unless set in ferryd.conf) "
	    "and all of them by its budget" },
	{ "statusfile", UV_MAP, UV_STATUS_FILE, 0, 0, 0, NULL },
	{ "statusinterval", UV_MAP, UV_STATUS_INTERVAL, 1, 86400, 0, NULL },
	{ "statusformat", UV_MAP, UV_STATUS_FORMAT, 0, 0, 0, NULL },
	{ "statsloginterval", UV_MAP, UV_STATS_LOG_INTERVAL, 0, 86400, 0,
	    NULL },
	{ "dns-multi-ip-expand", UV_IGNORE, 0, 0, 0, 0,
	    "ferryd makes every address of a name a backend" },
	{ "dns-multi-ip-proto", UV_IGNORE, 0, 0, 0, 0,
	    "ferryd makes every address of a name a backend" },
};

static const struct uv_word *
uv_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(uv_words) / sizeof(uv_words[0]); i++)
		if (strcmp(uv_words[i].name, name) == 0)
			return &uv_words[i];
	return NULL;
}

bool
rinetd_uv_word(const struct line *ln)
{
	return ln->tok[0].kind == TOK_WORD && uv_find(ln->tok[0].s) != NULL;
}

/* A whole number in [min, max] (rinetd-uv's range) into *out. */
static int
uv_number(struct rconf *rc, const struct line *ln, const char *name,
    const char *s, long min, long max, long *out)
{
	if (s[0] == '\0' || !rconf_all_of(s, DIGITS) || strlen(s) > 9 ||
	    strtol(s, NULL, 10) < min || strtol(s, NULL, 10) > max)
		return rconf_fail(rc, ln->num, "%s must be a whole number from "
		    "%ld to %ld (got \"%s\")", name, min, max, s);
	*out = strtol(s, NULL, 10);
	return 0;
}

/*
 * A global word mapped: its value, cut to what ferryd takes (with a
 * warning); connect-timeout 0, rinetd-uv's "none", keeps ferryd's
 * default.  A word's value (min and max 0) is taken as it is, but for
 * statusformat's, one of two.
 */
static int
uv_map(struct rconf *rc, const struct line *ln, const struct uv_word *w)
{
	struct setting	*st = &rc->uv[w->setting];
	long		 v = 0;

	if (w->max > 0 && uv_number(rc, ln, w->name, ln->tok[1].s, w->min,
	    w->max, &v) == -1)
		return -1;
	if (w->setting == UV_STATUS_FORMAT && strcmp(ln->tok[1].s,
	    "json") != 0 && strcmp(ln->tok[1].s, "text") != 0)
		return rconf_fail(rc, ln->num, "statusformat must be json or "
		    "text (got \"%s\")", ln->tok[1].s);
	if (w->setting == UV_CONNECT_TIMEOUT && v == 0) {
		rconf_warn(rc, ln->num, "connect-timeout 0 (none): ferryd "
		    "keeps its connect_timeout, 10 seconds");
		return 0;
	}
	if (w->ferryd_max > 0 && v > w->ferryd_max) {
		rconf_warn(rc, ln->num, "%s %ld: ferryd takes at most %ld",
		    w->name, v, w->ferryd_max);
		/* Fewer digits than the value: it fits in its place. */
		snprintf(ln->tok[1].s, strlen(ln->tok[1].s) + 1, "%ld",
		    w->ferryd_max);
	}
	st->from.num = ln->num;
	st->from.text = ln->text;
	st->value = ln->tok[1].s;
	return 0;
}

/* The files an include pattern names, each read and converted in turn. */
static int uv_include(struct rconf *rc, const struct line *ln);

int
rinetd_uv_directive(struct rconf *rc, const struct line *ln)
{
	const struct uv_word	*w = uv_find(ln->tok[0].s);
	long			 v;

	if (ln->ntok != 2)
		return rconf_fail(rc, ln->num, "%s takes one value", w->name);
	switch (w->kind) {
	case UV_MAP:
		return uv_map(rc, ln, w);
	case UV_INCLUDE:
		return uv_include(rc, ln);
	case UV_IGNORE:
		if (w->max > 0 && uv_number(rc, ln, w->name, ln->tok[1].s,
		    w->min, w->max, &v) == -1)
			return -1;
		rconf_warn(rc, ln->num, "%s (rinetd-uv) is not used: %s",
		    w->name, w->why);
		return 0;
	}
	return 0;
}

/* [keepalive=on|off], [connect-timeout=N], [dns-refresh=N]; 1: not ours. */
int
rinetd_uv_option(struct rconf *rc, const struct line *ln, struct forward *f,
    const char *key, const char *value)
{
	long	v;

	if (strcmp(key, "keepalive") == 0) {
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
			return rconf_fail(rc, ln->num, "keepalive must be on "
			    "or off (got \"%s\")", value);
		f->keepalive = strcmp(value, "on") == 0;
		return 0;
	}
	if (strcmp(key, "connect-timeout") == 0) {
		if (uv_number(rc, ln, key, value, 0, 86400, &v) == -1)
			return -1;
		if (v > 3600)
			rconf_warn(rc, ln->num, "connect-timeout=%ld: ferryd "
			    "takes at most 3600", v);
		f->connect_timeout = v > 3600 ? 3600 : v;
		return 0;
	}
	if (strcmp(key, "dns-refresh") == 0) {
		if (uv_number(rc, ln, key, value, 0, 604800, &v) == -1)
			return -1;
		/*
		 * Honoured by the one interval ferryd has: no longer than
		 * the shortest a rule asks for (0: this rule asks nothing).
		 */
		if (v > 0 && (rc->rule_refresh == 0 || v < rc->rule_refresh)) {
			rc->rule_refresh = v;
			rc->rule_refresh_from.num = ln->num;
			rc->rule_refresh_from.text = ln->text;
		}
		return 0;
	}
	return 1;
}

/* Whether path is one of the files read so far (by its realpath). */
static int
uv_seen(const struct rconf *rc, const char *real)
{
	size_t	i;

	for (i = 0; i < rc->nfiles; i++)
		if (rc->files[i].real != NULL &&
		    strcmp(rc->files[i].real, real) == 0)
			return (int)i;
	return -1;
}

/* The pattern made absolute: relative to the including file's directory. */
static int
uv_pattern(struct rconf *rc, const struct line *ln, char *buf, size_t len)
{
	const char	*pat = ln->tok[1].s;
	const char	*from = rc->files[LOC_FILE(ln->num)].path;
	const char	*slash = strrchr(from, '/');
	int		 n;

	if (pat[0] == '/' || slash == NULL)
		n = snprintf(buf, len, "%s", pat);
	else
		n = snprintf(buf, len, "%.*s/%s", (int)(slash - from), from,
		    pat);
	if (n < 0 || (size_t)n >= len)
		return rconf_fail(rc, ln->num, "include: the path is too long");
	return 0;
}

/* One file an include matched: read, checked for loops, converted. */
static int
uv_include_file(struct rconf *rc, const struct line *ln, const char *path)
{
	char		 err[MSG_MAX], real[PATH_MAX], *text;
	struct stat	 st;
	int		 file;

	if (stat(path, &st) == -1 || realpath(path, real) == NULL)
		return rconf_fail(rc, ln->num, "include: cannot read %s: %s",
		    path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return 0;	/* as rinetd-uv: a glob's directories */
	if (uv_seen(rc, real) != -1)
		return rconf_fail(rc, ln->num, "include: circular include "
		    "detected: %s is included again", path);
	if ((text = rinetd_read(path, err, sizeof(err))) == NULL)
		return rconf_fail(rc, ln->num, "include: %s", err);
	if ((file = rconf_add_file(rc, path, real, text)) == -1)
		return -1;
	rc->depth++;
	if (rconf_convert_text(rc, file, rc->files[file].lines) == -1)
		return -1;
	rc->depth--;
	return 0;
}

static int
uv_include(struct rconf *rc, const struct line *ln)
{
	char	pattern[PATH_MAX];
	glob_t	g;
	size_t	i;
	int	rv = 0, flags = 0;

#ifdef FERRYD_FUZZING
	/* A fuzzer could make an include read any file of the machine. */
	return rconf_fail(rc, ln->num, "include: not in a fuzzing build");
#endif
	/* The main file is the first level, as rinetd-uv counts. */
	if (rc->depth + 1 >= RINETD_INCLUDE_DEPTH_MAX)
		return rconf_fail(rc, ln->num, "include: maximum include depth "
		    "(%d) exceeded", RINETD_INCLUDE_DEPTH_MAX);
	if (uv_pattern(rc, ln, pattern, sizeof(pattern)) == -1)
		return -1;
#ifdef GLOB_BRACE
	flags |= GLOB_BRACE;
#endif
	switch (glob(pattern, flags, NULL, &g)) {
	case 0:
		break;
	case GLOB_NOMATCH:
		/* rinetd-uv goes on too: a conf.d/ that is empty. */
		rconf_warn(rc, ln->num, "include: no file matches %s",
		    pattern);
		return 0;
	default:
		return rconf_fail(rc, ln->num, "include: cannot expand %s",
		    pattern);
	}
	/* glob() sorts the names: the files are read in name order. */
	for (i = 0; rv == 0 && i < g.gl_pathc; i++)
		rv = uv_include_file(rc, ln, g.gl_pathv[i]);
	globfree(&g);
	return rv;
}

/*
 * Whether the line at p (up to its newline) is an indented YAML item:
 * "  - ..." or "  key: ...".
 */
static bool
yaml_item(const char *p)
{
	size_t	n = strspn(p, " ");

	if (n == 0)
		return false;
	p += n;
	if (p[0] == '-' && p[1] == ' ')
		return true;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyz_-");
	return n > 0 && p[n] == ':';
}

/*
 * rinetd-uv's other format: a YAML document ("---" first, or a top-level
 * key alone on its line, "rules:", with an indented item under it; a
 * libconfig group would open with a brace or a parenthesis there).
 */
bool
rinetd_uv_looks_yaml(const char *text)
{
	const char	*p = text, *end;
	size_t		 n;

	while (*p == '#' || *p == '\n' || *p == '\r' || *p == ' ' ||
	    *p == '\t')
		p += *p == '#' ? strcspn(p, "\n") : 1;
	if (strncmp(p, "---", 3) == 0)
		return true;
	end = p + strcspn(p, "\n");
	n = strspn(p, "abcdefghijklmnopqrstuvwxyz_-");
	if (n == 0 || p[n] != ':' ||
	    strspn(p + n + 1, " \t\r") != (size_t)(end - p - n - 1) ||
	    *end == '\0')
		return false;
	return yaml_item(end + 1);
}
