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
 * here: the loader does that, and reports at the mapped line.
 */
#include "ferryd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "conf_file.h"
#include "conf_rinetd.h"

#define MAX_TOKENS	8	/* a rule with options has 5 */
#define HOSTPORT_MAX	320	/* "[host]:port" of a rule */
#define MSG_MAX		512

#define DIGITS		"0123456789"
#define HEX_DIGITS	DIGITS "abcdefABCDEF"
#define HOST_CHARS	DIGITS "abcdefghijklmnopqrstuvwxyz" \
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ.-_"

enum token_kind {
	TOK_WORD,
	TOK_QUOTED,	/* "file name", quotes removed */
	TOK_BRACKET	/* [...], brackets kept: options or an IPv6 address */
};

struct token {
	char		*s;
	enum token_kind	 kind;
};

struct line {
	int		 num;
	const char	*text;		/* as written, trimmed */
	struct token	 tok[MAX_TOKENS];
	int		 ntok;
};

/* The rinetd line a setting was made from; num 0: not given. */
struct origin {
	int		 num;
	const char	*text;
};

struct pattern {
	struct origin	 from;
	const char	*text;
};

struct patterns {
	struct pattern	*v;
	size_t		 n, cap;
};

/* rinetd's UDP session timeout when a rule gives none, in seconds. */
#define RINETD_UDP_TIMEOUT	72

struct forward {
	struct origin	 from;
	char		 listen[HOSTPORT_MAX];
	char		 connect[HOSTPORT_MAX];
	char		 source[HOSTPORT_MAX];	/* "": no src= */
	bool		 listen_v6;
	bool		 udp;			/* the bind port is /udp */
	bool		 to_udp;		/* the connect port is /udp */
	long		 timeout;		/* -1: no timeout= */
	struct patterns	 allow, deny;
};

struct setting {
	struct origin	 from;
	const char	*value;
};

/* The directives, in the order of enum directive. */
enum directive {
	D_UNKNOWN = -1,
	D_ALLOW,
	D_DENY,
	D_LOGFILE,
	D_PIDLOGFILE,
	D_LOGCOMMON,
	D_FORWARD,
	D_EMPTY
};

static const struct {
	const char	*name;
	int		 ntok;		/* with the name itself */
} directives[] = {
	{ "allow", 2 }, { "deny", 2 }, { "logfile", 2 }, { "pidlogfile", 2 },
	{ "logcommon", 1 }
};

/* The whole file, gathered. */
struct rconf {
	const char	*path;
	char		*err;
	size_t		 errlen;
	char		*lines;		/* copy of the text, split into lines */
	char		*arena;		/* the tokens, NUL-terminated */
	size_t		 arena_used;
	struct setting	 logfile, pidlogfile, logcommon;
	struct patterns	 allow, deny;	/* before the first rule: global */
	struct forward	*fwd;
	size_t		 nfwd, capfwd;
};

/* The converted text and its line map, while it is written. */
struct out {
	char		*buf;
	size_t		 len, cap;
	int		*map;
	size_t		 nlines, mapcap;
	bool		 oom;
};

static int __attribute__((format(printf, 3, 4)))
fail(struct rconf *rc, int num, const char *fmt, ...)
{
	char	msg[MSG_MAX];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (num > 0)
		snprintf(rc->err, rc->errlen, "%s:%d: %s", rc->path, num, msg);
	else
		snprintf(rc->err, rc->errlen, "%s: %s", rc->path, msg);
	return -1;
}

/*
 * Room for n elements of size bytes in v, whose capacity is *cap: returns
 * v or its new place, or NULL (v untouched) when out of memory.
 */
static void *
grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t	ncap = *cap > 0 ? *cap : 16;
	void	*p;

	if (n <= *cap && v != NULL)
		return v;
	while (ncap < n)
		ncap *= 2;
	if ((p = realloc(v, ncap * size)) == NULL)
		return NULL;
	*cap = ncap;
	return p;
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
	if (ln->ntok >= 4 && (d == D_UNKNOWN || looks_like_port(&ln->tok[1])))
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

/* "[timeout=N,src=ADDRESS]", in any order, spaces allowed around. */
static int
parse_options(struct rconf *rc, const struct line *ln, struct forward *f)
{
	char	*s = ln->tok[4].s + 1, *opt, *next, *eq, *key;

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
		} else
			return fail(rc, ln->num, "unknown option \"%s\" (rinetd "
			    "knows timeout and src)", key);
	}
	return 0;
}

/* bindaddress bindport connectaddress connectport [options] */
static int
add_forward(struct rconf *rc, const struct line *ln)
{
	struct forward	*f;
	bool		 v6;

	if (ln->ntok > 5 || (ln->ntok == 5 && ln->tok[4].kind != TOK_BRACKET))
		return fail(rc, ln->num, "unexpected \"%s\" after the connect "
		    "port (options are written [timeout=N,src=ADDRESS])",
		    ln->tok[ln->ntok > 5 && ln->tok[4].kind == TOK_BRACKET ?
		    5 : 4].s);
	if ((f = grow(rc->fwd, &rc->capfwd, rc->nfwd + 1,
	    sizeof(*f))) == NULL)
		return fail(rc, ln->num, "out of memory");
	rc->fwd = f;
	f = &rc->fwd[rc->nfwd];
	memset(f, 0, sizeof(*f));
	f->from.num = ln->num;
	f->from.text = ln->text;
	f->timeout = -1;
	if (host_port(rc, ln, 0, "bind", f->listen, &f->listen_v6,
	    &f->udp) == -1 ||
	    host_port(rc, ln, 2, "connect", f->connect, &v6,
	    &f->to_udp) == -1 ||
	    (ln->ntok == 5 && parse_options(rc, ln, f) == -1))
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
	if ((v = grow(list->v, &list->cap, list->n + 1, sizeof(*v))) == NULL)
		return fail(rc, ln->num, "out of memory");
	list->v = v;
	v[list->n].from.num = ln->num;
	v[list->n].from.text = ln->text;
	v[list->n].text = ln->tok[1].s;
	list->n++;
	return 0;
}

/* logfile, pidlogfile, logcommon: each at most once. */
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
	if (st->from.num != 0)
		return fail(rc, ln->num, "%s is given twice (first at line "
		    "%d)", name, st->from.num);
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
		return set_once(rc, &ln, d, &rc->pidlogfile);
	case D_LOGCOMMON:
		return set_once(rc, &ln, d, &rc->logcommon);
	default:
		return fail(rc, num, "invalid syntax: \"%s\" is none of allow, "
		    "deny, logfile, pidlogfile, logcommon, and a forwarding "
		    "rule has four fields: bindaddress bindport connectaddress "
		    "connectport [options]", ln.tok[0].s);
	}
}

/* Append n bytes from rinetd line num; each newline adds to the map. */
static void
out_bytes(struct out *o, int num, const char *s, size_t n)
{
	char	*buf;
	int	*map;
	size_t	 i;

	if (o->oom || (buf = grow(o->buf, &o->cap, o->len + n + 1, 1)) ==
	    NULL) {
		o->oom = true;
		return;
	}
	o->buf = buf;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
	for (i = 0; i < n; i++) {
		if (s[i] != '\n')
			continue;
		if ((map = grow(o->map, &o->mapcap, o->nlines + 1,
		    sizeof(*map))) == NULL) {
			o->oom = true;
			return;
		}
		o->map = map;
		o->map[o->nlines++] = num;
	}
}

/* For short, bounded text; long values go through out_quoted(). */
static void __attribute__((format(printf, 3, 4)))
out_printf(struct out *o, int num, const char *fmt, ...)
{
	char	buf[HOSTPORT_MAX + 64];
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		o->oom = true;		/* cannot happen with our formats */
	else
		out_bytes(o, num, buf, n);
}

/* s as a libconfig string; control characters were refused before. */
static void
out_quoted(struct out *o, int num, const char *s)
{
	size_t	n;

	out_bytes(o, num, "\"", 1);
	while (*s != '\0') {
		n = strcspn(s, "\"\\");
		out_bytes(o, num, s, n);
		s += n;
		if (*s != '\0') {
			out_bytes(o, num, "\\", 1);
			out_bytes(o, num, s++, 1);
		}
	}
	out_bytes(o, num, "\"", 1);
}

/* "# line N: what it said", above what was made from it. */
static void
out_origin(struct out *o, const char *indent, const struct origin *from)
{
	out_printf(o, from->num, "%s# line %d: ", indent, from->num);
	out_bytes(o, from->num, from->text, strlen(from->text));
	out_bytes(o, from->num, "\n", 1);
}

/* key = [ ... ]; the closing bracket on the last element's line, for
 * libconfig dates an element by the token after it. */
static void
out_patterns(struct out *o, const char *indent, const char *key,
    const struct patterns *list)
{
	char	inner[16];
	size_t	i;
	int	num;

	if (list->n == 0)
		return;
	snprintf(inner, sizeof(inner), "%s  ", indent);
	out_printf(o, list->v[0].from.num, "%s%s = [\n", indent, key);
	for (i = 0; i < list->n; i++) {
		num = list->v[i].from.num;
		out_origin(o, inner, &list->v[i].from);
		out_printf(o, num, "%s", inner);
		out_quoted(o, num, list->v[i].text);
		out_printf(o, num, "%s\n", i + 1 < list->n ? "," : " ];");
	}
}

static void
out_setting(struct out *o, const struct setting *st, const char *key,
    const char *value)
{
	if (st->from.num == 0)
		return;
	out_origin(o, "", &st->from);
	out_printf(o, st->from.num, "%s = ", key);
	out_quoted(o, st->from.num, value);
	out_printf(o, st->from.num, ";\n");
}

static void
out_forward(struct out *o, const struct forward *f, bool last)
{
	int	num = f->from.num;

	out_origin(o, "  ", &f->from);
	out_printf(o, num, "  {\n    listen = \"%s\";\n", f->listen);
	out_printf(o, num, "    connect = \"%s\";\n", f->connect);
	/* rinetd leaves IPV6_V6ONLY at the system's default: dual stack. */
	if (f->listen_v6)
		out_printf(o, num, "    ipv6_only = false;\n");
	/*
	 * rinetd's timeout is the idle time of a UDP session (72 s unless
	 * given), also where only one side is UDP; for TCP to TCP ferryd
	 * takes it as the idle timeout.  Mixed lines go raw, as rinetd
	 * carries them.
	 */
	if (f->udp)
		out_printf(o, num, "    protocol = \"udp\";\n");
	if (f->udp != f->to_udp)
		out_printf(o, num, "    connect_protocol = \"%s\";\n",
		    f->to_udp ? "udp" : "tcp");
	if (f->udp || f->to_udp)
		out_printf(o, num, "    session_timeout = %ld;\n",
		    f->timeout != -1 ? f->timeout : RINETD_UDP_TIMEOUT);
	else if (f->timeout != -1)
		out_printf(o, num, "    idle_timeout = %ld;\n", f->timeout);
	if (f->source[0] != '\0')
		out_printf(o, num, "    source = \"%s\";\n", f->source);
	out_patterns(o, "    ", "allow", &f->allow);
	out_patterns(o, "    ", "deny", &f->deny);
	out_printf(o, num, "  }%s\n", last ? "" : ",");
}

static void
out_header(struct out *o, const char *path)
{
	const char	*p;

	out_printf(o, 0, "# ferryd.conf converted from ");
	for (p = path; *p != '\0'; p++)
		out_bytes(o, 0, (unsigned char)*p < ' ' ? "?" : p, 1);
	out_printf(o, 0, " by ferryd %s.\n#\n", PACKAGE_VERSION);
	out_printf(o, 0, "# Each setting comes after the rinetd line it was "
	    "made from.  Check the\n# file with \"ferryd -t -c FILE\"; "
	    "ferryd.conf(5) describes every setting.\n\n");
}

static int
emit(struct rconf *rc, struct rinetd_conv *conv)
{
	struct out	o;
	size_t		i;

	memset(&o, 0, sizeof(o));
	out_header(&o, rc->path);
	out_setting(&o, &rc->logfile, "access_log", rc->logfile.value);
	out_setting(&o, &rc->logcommon, "access_log_format", "common");
	out_setting(&o, &rc->pidlogfile, "pidfile", rc->pidlogfile.value);
	if (rc->allow.n + rc->deny.n > 0)
		out_printf(&o, 0, "\n");
	out_patterns(&o, "", "allow", &rc->allow);
	out_patterns(&o, "", "deny", &rc->deny);
	out_printf(&o, rc->fwd[0].from.num, "\nrules = (\n");
	for (i = 0; i < rc->nfwd; i++)
		out_forward(&o, &rc->fwd[i], i + 1 == rc->nfwd);
	out_printf(&o, rc->fwd[rc->nfwd - 1].from.num, ");\n");
	if (o.oom) {
		free(o.buf);
		free(o.map);
		return fail(rc, 0, "out of memory");
	}
	conv->text = o.buf;
	conv->linemap = o.map;
	conv->nlines = o.nlines;
	return 0;
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
	free(rc->lines);
	free(rc->arena);
}

/* Copy text and make room for its tokens. */
static int
rconf_init(struct rconf *rc, const char *path, const char *text, char *err,
    size_t errlen)
{
	memset(rc, 0, sizeof(*rc));
	rc->path = path;
	rc->err = err;
	rc->errlen = errlen;
	rc->lines = strdup(text);
	rc->arena = malloc(2 * strlen(text) + 2);
	if (rc->lines == NULL || rc->arena == NULL)
		return fail(rc, 0, "out of memory");
	return 0;
}

int
rinetd_convert(const char *path, const char *text, struct rinetd_conv *out,
    char *err, size_t errlen)
{
	struct rconf	 rc;
	char		*p, *next;
	int		 num, rv;

	memset(out, 0, sizeof(*out));
	rv = rconf_init(&rc, path, text, err, errlen);
	for (num = 1, p = rc.lines; rv == 0 && p != NULL; num++, p = next) {
		if ((next = strchr(p, '\n')) != NULL)
			*next++ = '\0';
		rv = convert_line(&rc, num, p);
	}
	if (rv == 0 && rc.nfwd == 0)
		rv = fail(&rc, 0, "no forwarding rules (lines of the form "
		    "\"bindaddress bindport connectaddress connectport\")");
	if (rv == 0)
		rv = emit(&rc, out);
	rconf_free(&rc);
	return rv;
}

void
rinetd_conv_free(struct rinetd_conv *conv)
{
	free(conv->text);
	free(conv->linemap);
	memset(conv, 0, sizeof(*conv));
}

/* Whether the line, tokenized, is written exactly as rinetd wants it. */
static bool
line_is_rinetd(const struct line *ln)
{
	enum directive	d = classify(ln);

	if (d == D_FORWARD)
		return looks_like_port(&ln->tok[1]) &&
		    looks_like_port(&ln->tok[3]) && (ln->ntok == 4 ||
		    (ln->ntok == 5 && ln->tok[4].kind == TOK_BRACKET));
	if (d >= D_ALLOW && d <= D_LOGCOMMON)
		return ln->ntok == directives[d].ntok;
	return false;
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
	for (p = rc.lines; p != NULL; p = next) {
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
