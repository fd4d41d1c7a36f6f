/*
 * conf_rinetd.c - rinetd.conf in, the equivalent ferryd.conf text out.
 *
 * Lines are read as rinetd 0.73 reads them (its parse.peg grammar): one
 * directive per line, '#' starts a comment, and allow and deny lines apply
 * to every rule when they come before the first forwarding rule, and to
 * the rule above them otherwise.  libconfig wants each list in one place
 * (one allow list per level, all rules in one list), so the file is first
 * gathered into structs and then written out in that order, each setting
 * under the rinetd lines it was made from.  Host names are not resolved
 * here: the loader does that, and reports at the mapped line.  This file
 * reads rinetd 0.73's words and the files; rinetd-uv's words (include
 * among them) are conf_rinetd_uv.c's, the writing conf_rinetd_out.c's.
 */
#include "ferryd.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "conf_emit.h"
#include "conf_file.h"
#include "conf_rinetd.h"
#include "conf_rinetd_int.h"
#include "conf_rinetd_unix.h"

/* The directives, in the order of enum directive. */
enum directive {
	D_UNKNOWN = -1,
	D_ALLOW,
	D_DENY,
	D_LOGFILE,
	D_PIDLOGFILE,
	D_LOGCOMMON,
	D_PIDFILE,	/* rinetd-uv's name for pidlogfile */
	D_FORWARD,
	D_EMPTY,
	D_UV		/* one of rinetd-uv's (conf_rinetd_uv.c) */
};

static const struct {
	const char	*name;
	int		 ntok;		/* with the name itself */
} directives[] = {
	{ "allow", 2 }, { "deny", 2 }, { "logfile", 2 }, { "pidlogfile", 2 },
	{ "logcommon", 1 }, { "pidfile", 2 }
};

/* "FILE:LINE: " of place num into buf (the main file's name for 0). */
static void
place(const struct rconf *rc, int num, char *buf, size_t len)
{
	const char	*file = rc->path;

	if (rc->nfiles > 0 && (size_t)LOC_FILE(num) < rc->nfiles)
		file = rc->files[LOC_FILE(num)].path;
	if (LOC_LINE(num) > 0)
		snprintf(buf, len, "%s:%d: ", file, LOC_LINE(num));
	else
		snprintf(buf, len, "%s: ", file);
}

static int
vfail(struct rconf *rc, int num, const char *fmt, va_list ap)
{
	char	msg[MSG_MAX], where[MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	place(rc, num, where, sizeof(where));
	snprintf(rc->err, rc->errlen, "%s%s", where, msg);
	return -1;
}

static int __attribute__((format(printf, 3, 4)))
fail(struct rconf *rc, int num, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	(void)vfail(rc, num, fmt, ap);
	va_end(ap);
	return -1;
}

/* A warning at place num: kept for the caller to log or print. */
void
rconf_warn(struct rconf *rc, int num, const char *fmt, ...)
{
	char	msg[MSG_MAX], where[MSG_MAX], *p;
	size_t	cap = rc->nwarnings + 1, n;
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	place(rc, num, where, sizeof(where));
	n = strlen(where) + strlen(msg) + 1;
	/* A warning that finds no memory is dropped, not fatal. */
	if ((p = realloc(rc->warnings, cap + n)) == NULL)
		return;
	snprintf(p + rc->nwarnings, n + 1, "%s%s\n", where, msg);
	rc->warnings = p;
	rc->nwarnings += n;
}

static bool
all_of(const char *s, const char *set)
{
	return s[strspn(s, set)] == '\0';
}

/* rinetd's service name: a letter or '_', then letters, digits, '-', '_'. */
static bool
is_name(const char *s)
{
	return (s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') ||
	    (s[0] >= 'A' && s[0] <= 'Z')) && all_of(s, HOST_CHARS) &&
	    strchr(s, '.') == NULL;
}

/* Trim spaces and tabs at both ends, in place. */
static char *
trim(char *s)
{
	char	*end;

	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
	    end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/*
 * Split ln->text into tokens, copied to the arena (which has room for
 * every character of the file plus one NUL per character).
 */
static int
tokenize(struct rconf *rc, struct line *ln)
{
	const char	*p = ln->text, *start, *end;
	size_t		 len;
	struct token	*t;

	for (ln->ntok = 0;; ln->ntok++) {
		p += strspn(p, " \t");
		if (*p == '\0' || *p == '#')
			return 0;
		if (ln->ntok == MAX_TOKENS)
			return fail(rc, ln->num, "too many fields");
		t = &ln->tok[ln->ntok];
		start = p;
		if (*p == '"') {
			if ((end = strchr(++start, '"')) == NULL)
				return fail(rc, ln->num, "missing '\"' at the "
				    "end of %s", p);
			t->kind = TOK_QUOTED;
			len = end - start;
			p = end + 1;
		} else if (*p == '[') {
			if ((end = strchr(p, ']')) == NULL)
				return fail(rc, ln->num, "missing ']' at the "
				    "end of %s", p);
			t->kind = TOK_BRACKET;
			len = end + 1 - start;
			p = end + 1;
		} else {
			/* rinetd allows "80[timeout=5]" and "80#comment". */
			t->kind = TOK_WORD;
			len = strcspn(p, " \t#[\"");
			p += len;
		}
		t->s = rc->arena + rc->arena_used;
		memcpy(t->s, start, len);
		t->s[len] = '\0';
		rc->arena_used += len + 1;
	}
}

/* A port as rinetd's grammar has it: number or name, then /tcp or /udp. */
static bool
looks_like_port(const struct token *t)
{
	char		 port[64];
	const char	*slash = strchr(t->s, '/');
	size_t		 n = slash != NULL ? (size_t)(slash - t->s) :
			    strlen(t->s);

	if (t->kind != TOK_WORD || n == 0 || n >= sizeof(port))
		return false;
	if (slash != NULL && strcmp(slash, "/tcp") != 0 &&
	    strcmp(slash, "/udp") != 0)
		return false;
	memcpy(port, t->s, n);
	port[n] = '\0';
	return all_of(port, DIGITS) || is_name(port);
}

/*
 * What the line is.  rinetd's grammar tries a forwarding rule first, so
 * "allow 80 10.0.0.1 80" forwards from a host named "allow".
 */
static enum directive
classify(const struct line *ln)
{
	size_t	i;
	int	d = D_UNKNOWN;

	if (ln->ntok == 0)
		return D_EMPTY;
	for (i = 0; i < sizeof(directives) / sizeof(directives[0]); i++)
		if (ln->tok[0].kind == TOK_WORD &&
		    strcmp(ln->tok[0].s, directives[i].name) == 0)
			d = (int)i;
	if (d == D_UNKNOWN && rinetd_uv_word(ln))
		d = D_UV;
	if (ln->ntok >= 4 && (d == D_UNKNOWN || looks_like_port(&ln->tok[1])))
		return D_FORWARD;
	/* rinetd-uv's "unix:PATH" takes the place of an address and port. */
	if (ln->ntok >= 2 && (rinetd_unix_word(ln->tok[0].s) || (ln->ntok >= 3
	    && looks_like_port(&ln->tok[1]) && rinetd_unix_word(ln->tok[2].s))))
		return D_FORWARD;
	return (enum directive)d;
}

/* Check an address field; out gets it as ferryd writes a host. */
static int
check_host(struct rconf *rc, const struct line *ln, const struct token *t,
    const char *what, char *out, size_t outlen, bool *v6)
{
	const char	*s = t->s;
	size_t		 len = strlen(s);

	*v6 = false;
	if (t->kind == TOK_QUOTED)
		return fail(rc, ln->num, "%s address \"%s\" must not be "
		    "quoted", what, s);
	if (t->kind == TOK_BRACKET || strchr(s, ':') != NULL) {
		if (t->kind == TOK_BRACKET) {
			s++;
			len -= 2;
		}
		if (len == 0 || strspn(s, HEX_DIGITS ":.") < len ||
		    memchr(s, ':', len) == NULL)
			return fail(rc, ln->num, "%s address \"%s\" is not an "
			    "IPv6 address", what, t->s);
		*v6 = true;
		snprintf(out, outlen, "[%.*s]", (int)len, s);
	} else if (strcmp(s, "0") == 0)
		snprintf(out, outlen, "0.0.0.0");	/* inet_addr("0") */
	else if (len == 0 || !all_of(s, HOST_CHARS))
		return fail(rc, ln->num, "%s address \"%s\" is not an IP "
		    "address or a host name", what, s);
	else
		snprintf(out, outlen, "%s", s);
	if (len + 3 > outlen)
		return fail(rc, ln->num, "%s address \"%s\" is too long", what,
		    t->s);
	return 0;
}

/*
 * Check a port field; out gets the port without its protocol, *udp
 * whether it is /udp.
 */
static int
check_port(struct rconf *rc, const struct line *ln, const struct token *t,
    const char *what, char *out, size_t outlen, bool *udp)
{
	const char	*slash = strchr(t->s, '/');
	size_t		 n = slash != NULL ? (size_t)(slash - t->s) :
			    strlen(t->s);

	*udp = slash != NULL && strcmp(slash, "/udp") == 0;
	if (slash != NULL && !*udp && strcmp(slash, "/tcp") != 0)
		return fail(rc, ln->num, "%s port \"%s\": the protocol must be "
		    "/tcp or /udp", what, t->s);
	if (t->kind != TOK_WORD || n == 0 || n >= outlen)
		return fail(rc, ln->num, "%s port \"%s\" is not a port number "
		    "or a service name", what, t->s);
	memcpy(out, t->s, n);
	out[n] = '\0';
	if (all_of(out, DIGITS)) {
		if (n > 5 || atoi(out) < 1 || atoi(out) > 65535)
			return fail(rc, ln->num, "%s port %s is out of range "
			    "(1 to 65535)", what, out);
	} else if (!is_name(out))
		return fail(rc, ln->num, "%s port \"%s\" is not a port number "
		    "or a service name", what, t->s);
	return 0;
}

/* Fields i and i + 1 of a rule, as "host:port" in out. */
static int
host_port(struct rconf *rc, const struct line *ln, int i, const char *what,
    char *out, bool *v6, bool *udp)
{
	char	host[HOSTPORT_MAX], port[64];

	if (check_host(rc, ln, &ln->tok[i], what, host, sizeof(host),
	    v6) == -1 ||
	    check_port(rc, ln, &ln->tok[i + 1], what, port, sizeof(port),
	    udp) == -1)
		return -1;
	if ((size_t)snprintf(out, HOSTPORT_MAX, "%s:%s", host, port) >=
	    HOSTPORT_MAX)
		return fail(rc, ln->num, "%s address is too long", what);
	return 0;
}

/* Field *i's address, host and port or unix:PATH; *i moves past it. */
static int
rule_address(struct rconf *rc, const struct line *ln, int *i,
    const char *what, char *out, bool *v6, bool *udp)
{
	char	why[MSG_MAX];

	*v6 = *udp = false;
	if (*i + 1 < ln->ntok && !rinetd_unix_word(ln->tok[*i].s))
		return (*i += 2, host_port(rc, ln, *i - 2, what, out, v6, udp));
	if (*i >= ln->ntok || ln->tok[*i].kind != TOK_WORD ||
	    !rinetd_unix_word(ln->tok[*i].s))
		return fail(rc, ln->num, "no %s address and port", what);
	return rinetd_unix_address(what, ln->tok[(*i)++].s, out, HOSTPORT_MAX,
	    why, sizeof(why)) == -1 ? fail(rc, ln->num, "%s", why) : 0;
}

static int
set_timeout(struct rconf *rc, const struct line *ln, struct forward *f,
    const char *value)
{
	if (f->timeout != -1)
		return fail(rc, ln->num, "option timeout is given twice");
	if (value[0] == '\0' || !all_of(value, DIGITS) || strlen(value) > 9)
		return fail(rc, ln->num, "timeout must be a whole number of "
		    "seconds (got \"%s\")", value);
	f->timeout = strtol(value, NULL, 10);
	return 0;
}

static int
set_source(struct rconf *rc, const struct line *ln, struct forward *f,
    char *value)
{
	struct token	t = { value, value[0] == '[' ? TOK_BRACKET : TOK_WORD };
	char		host[HOSTPORT_MAX];
	bool		v6;

	if (f->source[0] != '\0')
		return fail(rc, ln->num, "option src is given twice");
	if (check_host(rc, ln, &t, "src", host, sizeof(host), &v6) == -1)
		return -1;
	/* A source has no port: an IPv6 one needs no brackets. */
	snprintf(f->source, sizeof(f->source), "%.*s",
	    (int)strlen(host) - (v6 ? 2 : 0), host + v6);
	return 0;
}

/* "[timeout=N,src=ADDRESS]" at field i, any order, spaces around. */
static int
parse_options(struct rconf *rc, const struct line *ln, struct forward *f,
    int i)
{
	char	*s = ln->tok[i].s + 1, *opt, *next, *eq, *key, why[MSG_MAX];
	int	 rv;

	s[strlen(s) - 1] = '\0';		/* the ']' */
	if (*trim(s) == '\0')
		return fail(rc, ln->num, "empty option list (rinetd knows "
		    "[timeout=N,src=ADDRESS])");
	for (opt = s; opt != NULL; opt = next) {
		if ((next = strchr(opt, ',')) != NULL)
			*next++ = '\0';
		if ((eq = strchr(opt, '=')) == NULL)
			return fail(rc, ln->num, "option \"%s\" has no value "
			    "(expected timeout=N or src=ADDRESS)", trim(opt));
		*eq = '\0';
		key = trim(opt);
		if (strcmp(key, "timeout") == 0) {
			if (set_timeout(rc, ln, f, trim(eq + 1)) == -1)
				return -1;
		} else if (strcmp(key, "src") == 0) {
			if (set_source(rc, ln, f, trim(eq + 1)) == -1)
				return -1;
		} else if (strcmp(key, "mode") == 0) {	/* rinetd-uv's */
			if (rinetd_unix_mode(f->listen, trim(eq + 1), f->mode,
			    sizeof(f->mode), why, sizeof(why)) == -1)
				return fail(rc, ln->num, "%s", why);
		} else if ((rv = rinetd_uv_option(rc, ln, f, key,
		    trim(eq + 1))) != 0)
			return rv == -1 ? -1 : fail(rc, ln->num, "unknown "
			    "option \"%s\" (rinetd knows timeout and src, "
			    "rinetd-uv keepalive, connect-timeout and "
			    "dns-refresh too)", key);
	}
	return 0;
}

/* bindaddr bindport connaddr connport [options]; unix:PATH for a pair */
static int
add_forward(struct rconf *rc, const struct line *ln)
{
	struct forward	*f;
	bool		 v6;
	int		 i = 0, n = ln->ntok;

	if ((f = conf_grow(rc->fwd, &rc->capfwd, rc->nfwd + 1,
	    sizeof(*f))) == NULL)
		return fail(rc, ln->num, "out of memory");
	rc->fwd = f;
	f = &rc->fwd[rc->nfwd];
	memset(f, 0, sizeof(*f));
	f->from.num = ln->num;
	f->from.text = ln->text;
	f->timeout = f->connect_timeout = f->keepalive = -1;
	if (rule_address(rc, ln, &i, "bind", f->listen, &f->listen_v6,
	    &f->udp) == -1 || rule_address(rc, ln, &i, "connect", f->connect,
	    &v6, &f->to_udp) == -1)
		return -1;
	if (i < n && (ln->tok[i].kind != TOK_BRACKET || i + 1 < n))
		return fail(rc, ln->num, "unexpected \"%s\" after the connect "
		    "port (options are written [timeout=N,src=ADDRESS])",
		    ln->tok[i + (ln->tok[i].kind == TOK_BRACKET)].s);
	if (i + 1 == n && parse_options(rc, ln, f, i) == -1)
		return -1;
	rc->nfwd++;
	return 0;
}

/* allow PATTERN, deny PATTERN: global before the first rule. */
static int
add_pattern(struct rconf *rc, const struct line *ln, enum directive d)
{
	const char	*name = directives[d].name;
	struct forward	*f = rc->nfwd > 0 ? &rc->fwd[rc->nfwd - 1] : NULL;
	struct patterns	*list;
	struct pattern	*v;
	struct acl	 scratch;
	char		 why[MSG_MAX];

	if (ln->ntok != 2 || ln->tok[1].kind != TOK_WORD)
		return fail(rc, ln->num, "%s takes one pattern, such as "
		    "192.168.1.* or 10.0.0.0/8", name);
	memset(&scratch, 0, sizeof(scratch));
	if (acl_compile(&scratch, ACL_ALLOW, ln->tok[1].s, why,
	    sizeof(why)) == -1)
		return fail(rc, ln->num, "%s: %s", name, why);
	acl_free(&scratch);
	if (d == D_ALLOW)
		list = f != NULL ? &f->allow : &rc->allow;
	else
		list = f != NULL ? &f->deny : &rc->deny;
	if ((v = conf_grow(list->v, &list->cap, list->n + 1, sizeof(*v))) == NULL)
		return fail(rc, ln->num, "out of memory");
	list->v = v;
	v[list->n].from.num = ln->num;
	v[list->n].from.text = ln->text;
	v[list->n].text = ln->tok[1].s;
	list->n++;
	return 0;
}

/*
 * logfile, pidlogfile (or pidfile), logcommon.  A file given again
 * replaces the one before, as in rinetd and rinetd-uv.
 */
static int
set_once(struct rconf *rc, const struct line *ln, enum directive d,
    struct setting *st)
{
	const char	*name = directives[d].name, *value;
	size_t		 i;

	if (ln->ntok != directives[d].ntok)
		return d == D_LOGCOMMON ?
		    fail(rc, ln->num, "logcommon takes no argument") :
		    fail(rc, ln->num, "%s takes one file name", name);
	/* Given again: no warning, for a file they take silently. */
	st->from.num = ln->num;
	st->from.text = ln->text;
	if (d == D_LOGCOMMON)
		return 0;
	value = ln->tok[1].s;
	if (value[0] != '/')
		return fail(rc, ln->num, "%s \"%s\" must be an absolute path",
		    name, value);
	for (i = 0; value[i] != '\0'; i++)
		if ((unsigned char)value[i] < ' ')
			return fail(rc, ln->num, "%s: control character in "
			    "the file name", name);
	st->value = value;
	return 0;
}

static int
convert_line(struct rconf *rc, int num, char *text)
{
	struct line	ln;
	enum directive	d;

	ln.num = num;
	ln.text = trim(text);
	if (tokenize(rc, &ln) == -1)
		return -1;
	switch ((d = classify(&ln))) {
	case D_EMPTY:
		return 0;
	case D_FORWARD:
		return add_forward(rc, &ln);
	case D_ALLOW:
	case D_DENY:
		return add_pattern(rc, &ln, d);
	case D_LOGFILE:
		return set_once(rc, &ln, d, &rc->logfile);
	case D_PIDLOGFILE:
	case D_PIDFILE:
		return set_once(rc, &ln, d, &rc->pidfile);
	case D_LOGCOMMON:
		return set_once(rc, &ln, d, &rc->logcommon);
	case D_UV:
		return rinetd_uv_directive(rc, &ln);
	default:
		return fail(rc, num, "invalid syntax: \"%s\" is none of "
		    "allow, deny, logfile, pidlogfile, logcommon or "
		    "rinetd-uv's words, and a forwarding rule has four "
		    "fields: bindaddress bindport connectaddress connectport "
		    "[options]", ln.tok[0].s);
	}
}

/* The helpers above, for conf_rinetd_uv.c and conf_rinetd_out.c. */
int
rconf_fail(struct rconf *rc, int num, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	(void)vfail(rc, num, fmt, ap);
	va_end(ap);
	return -1;
}

bool
rconf_all_of(const char *s, const char *set)
{
	return all_of(s, set);
}

char *
rconf_trim(char *s)
{
	return trim(s);
}

static void
rconf_free(struct rconf *rc)
{
	size_t	i;

	for (i = 0; i < rc->nfwd; i++) {
		free(rc->fwd[i].allow.v);
		free(rc->fwd[i].deny.v);
	}
	free(rc->fwd);
	free(rc->allow.v);
	free(rc->deny.v);
	for (i = 0; i < rc->nfiles; i++) {
		free(rc->files[i].path);
		free(rc->files[i].real);
		free(rc->files[i].lines);
		free(rc->files[i].arena);
	}
	free(rc->files);
	free(rc->warnings);
}

/*
 * One more file read: text (malloc()ed, now rc's) and room for its
 * tokens.  Returns its index, or -1 (text freed) with the error set.
 */
int
rconf_add_file(struct rconf *rc, const char *path, const char *real,
    char *text)
{
	struct rfile	*f;

	if (rc->nfiles == RINETD_FILES_MAX) {
		free(text);
		return fail(rc, 0, "more than %d files included",
		    RINETD_FILES_MAX);
	}
	if ((f = conf_grow(rc->files, &rc->capfiles, rc->nfiles + 1,
	    sizeof(*f))) == NULL) {
		free(text);
		return fail(rc, 0, "out of memory");
	}
	rc->files = f;
	f = &rc->files[rc->nfiles];
	memset(f, 0, sizeof(*f));
	f->lines = text;
	f->path = strdup(path);
	f->real = real != NULL ? strdup(real) : NULL;
	f->arena = malloc(2 * strlen(text) + 2);
	rc->nfiles++;
	if (f->path == NULL || f->arena == NULL ||
	    (real != NULL && f->real == NULL))
		return fail(rc, 0, "out of memory");
	return (int)rc->nfiles - 1;
}

/*
 * The lines of file (its text in lines, split here in place), each
 * converted in turn; an include reads its files before the next line.
 */
int
rconf_convert_text(struct rconf *rc, int file, char *lines)
{
	char	*p, *next, *arena = rc->arena;
	size_t	 used = rc->arena_used;
	int	 num, rv = 0;

	rc->arena = rc->files[file].arena;
	rc->arena_used = 0;
	for (num = 1, p = lines; rv == 0 && p != NULL; num++, p = next) {
		if ((next = strchr(p, '\n')) != NULL)
			*next++ = '\0';
		if (num > RINETD_LINES_MAX)
			rv = fail(rc, LOC(file, 0), "more than %d lines",
			    RINETD_LINES_MAX);
		else
			rv = convert_line(rc, LOC(file, num), p);
	}
	rc->arena = arena;
	rc->arena_used = used;
	return rv;
}

/* The main file, path, with text (copied). */
static int
rconf_init(struct rconf *rc, const char *path, const char *text, char *err,
    size_t errlen)
{
	char	*copy;

	memset(rc, 0, sizeof(*rc));
	rc->path = path;
	rc->err = err;
	rc->errlen = errlen;
	if ((copy = strdup(text)) == NULL)
		return fail(rc, 0, "out of memory");
	/* Without realpath (detection, a test's text): no loop check. */
	return rconf_add_file(rc, path, NULL, copy) == -1 ? -1 : 0;
}

int
rinetd_convert(const char *path, const char *text, struct rinetd_conv *out,
    char *err, size_t errlen)
{
	struct rconf	 rc;
	char		*real;
	int		 rv;

	memset(out, 0, sizeof(*out));
	rv = rconf_init(&rc, path, text, err, errlen);
	if (rv == 0 && rinetd_uv_looks_yaml(text))
		rv = fail(&rc, 0, "this looks like rinetd-uv's YAML "
		    "configuration, which ferryd does not read: write it in "
		    "the rinetd.conf form (rinetd-uv's legacy format), which "
		    "ferryd --rinetd reads as it is and ferryd --convert "
		    "turns into ferryd.conf");
	/* The main file counts as included: no file may include it. */
	if (rv == 0 && (real = realpath(path, NULL)) != NULL) {
		rc.files[0].real = real;
	}
	if (rv == 0)
		rv = rconf_convert_text(&rc, 0, rc.files[0].lines);
	if (rv == 0 && rc.nfwd == 0)
		rv = fail(&rc, 0, "no forwarding rules (lines of the "
		    "form \"bindaddress bindport connectaddress "
		    "connectport\")");
	if (rv == 0)
		rv = rinetd_emit(&rc, out);
	rconf_free(&rc);
	return rv;
}

void
rinetd_conv_free(struct rinetd_conv *conv)
{
	size_t	i;

	for (i = 0; i < conv->nfiles; i++)
		free(conv->files[i]);
	free(conv->files);
	free(conv->text);
	free(conv->linemap);
	free(conv->filemap);
	free(conv->warnings);
	memset(conv, 0, sizeof(*conv));
}

/* Whether the line, tokenized, is written exactly as rinetd wants it. */
static bool
line_is_rinetd(const struct line *ln)
{
	enum directive	d = classify(ln);

	if (d == D_FORWARD)	/* with unix:, classify() knew */
		return ln->ntok < 4 || rinetd_unix_word(ln->tok[0].s) ||
		    rinetd_unix_word(ln->tok[2].s) ||
		    (looks_like_port(&ln->tok[1]) &&
		    looks_like_port(&ln->tok[3]) && (ln->ntok == 4 ||
		    (ln->ntok == 5 && ln->tok[4].kind == TOK_BRACKET)));
	if (d >= D_ALLOW && d <= D_PIDFILE)
		return ln->ntok == directives[d].ntok;
	return d == D_UV && ln->ntok == 2;
}

bool
rinetd_detect(const char *text)
{
	struct rconf	 rc;
	struct line	 ln;
	char		 err[MSG_MAX], *p, *next;
	bool		 yes = false;

	if (rconf_init(&rc, "", text, err, sizeof(err)) == -1) {
		rconf_free(&rc);
		return false;
	}
	if (rinetd_uv_looks_yaml(text)) {
		/* Said by rinetd_convert(), with the way out. */
		rconf_free(&rc);
		return true;
	}
	rc.arena = rc.files[0].arena;
	for (p = rc.files[0].lines; p != NULL; p = next) {
		if ((next = strchr(p, '\n')) != NULL)
			*next++ = '\0';
		ln.num = 1;
		ln.text = trim(p);
		/* libconfig comments are not rinetd's. */
		if (strncmp(ln.text, "//", 2) == 0 ||
		    strncmp(ln.text, "/*", 2) == 0 ||
		    tokenize(&rc, &ln) == -1)
			break;
		if (ln.ntok > 0) {
			yes = line_is_rinetd(&ln);
			break;
		}
	}
	rconf_free(&rc);
	return yes;
}

char *
rinetd_read(const char *path, char *err, size_t errlen)
{
	char	*buf;
	size_t	 len = 0;

	if ((buf = conf_file_read(path, &len, err, errlen)) == NULL)
		return NULL;
	/* rinetd would stop at a NUL byte and drop the rest unsaid. */
	if (conf_file_check_nul(path, buf, len, err, errlen) == -1) {
		free(buf);
		return NULL;
	}
	return buf;
}
