/*
 * conf_file.c - reading configuration files safely, and @include.
 *
 * libconfig 1.5 would read anything it is given: /dev/zero until memory
 * runs out, a FIFO until a writer comes, and it calls exit(2) on an
 * @include of a directory or of "".  A reload must never kill or hang the
 * master, so files are read here: regular files only, of a sane size, as
 * one consistent version even while an editor rewrites them in place.
 * @include is expanded here too, into one text handed to
 * config_read_string(), with a map from each line of that text to the
 * file and line it came from so that every error still names them.
 */
#include "ferryd.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "conf_file.h"

#define MSG_MAX		512
/* A file modified less than this ago may still be being written. */
#define SETTLE_NS	50000000LL
/* Waits for a file to settle before "keeps changing". */
#define READ_TRIES	20
#define RETRY_NS	10000000LL

/* Lexical state of libconfig text at some point. */
enum lex {
	LEX_CODE,
	LEX_STRING,	/* inside "..." */
	LEX_COMMENT	/* inside a C comment */
};

/* The files being included, outermost first: cycles and depth. */
struct expander {
	struct conf_text *out;
	char		 *dir;		/* the main file's directory */
	char		 *err;
	size_t		  errlen;
	dev_t		  dev[CONF_INCLUDE_DEPTH_MAX + 1];
	ino_t		  ino[CONF_INCLUDE_DEPTH_MAX + 1];
	int		  depth;	/* files on the stack */
	size_t		  cap;		/* of out->text */
};

static long long
ts_ns(const struct timespec *ts)
{
	return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void
nap(long long ns)
{
	struct timespec	ts;

	ts.tv_sec = ns / 1000000000LL;
	ts.tv_nsec = ns % 1000000000LL;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* How long until st's last change is SETTLE_NS old; 0: it is already. */
static long long
settle_wait(const struct stat *st)
{
	struct timespec	now;
	long long	age;

	if (clock_gettime(CLOCK_REALTIME, &now) == -1)
		return 0;
	age = ts_ns(&now) - ts_ns(&st->st_mtim);
	/* A time in the future is a clock set back, not a writer. */
	return age >= 0 && age < SETTLE_NS ? SETTLE_NS - age : 0;
}

static bool
same_version(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size &&
	    ts_ns(&a->st_mtim) == ts_ns(&b->st_mtim) &&
	    ts_ns(&a->st_ctim) == ts_ns(&b->st_ctim);
}

/* Read up to size + 1 bytes from the start: more means it grew. */
static char *
read_all(int fd, size_t size, size_t *len)
{
	char	*buf;
	size_t	 n = 0;
	ssize_t	 r;

	if ((buf = malloc(size + 2)) == NULL)
		return NULL;
	while (n < size + 1) {
		r = pread(fd, buf + n, size + 1 - n, (off_t)n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Whether st is a file we read; if not, say why in err. */
static int
check_kind(const char *path, const struct stat *st, char *err, size_t errlen)
{
	if (S_ISDIR(st->st_mode)) {
		snprintf(err, errlen, "cannot read %s: %s", path,
		    strerror(EISDIR));
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	if (st->st_size > CONF_FILE_MAX) {
		snprintf(err, errlen, "%s: larger than %d bytes", path,
		    CONF_FILE_MAX);
		return -1;
	}
	return 0;
}

/* One consistent version of the file open on fd; st gets its identity. */
static char *
read_snapshot(int fd, const char *path, size_t *len, struct stat *st,
    char *err, size_t errlen)
{
	struct stat	 after;
	char		*buf;
	long long	 wait;
	int		 try;

	for (try = 0; try < READ_TRIES; try++) {
		if (fstat(fd, st) == -1)
			break;
		if (check_kind(path, st, err, errlen) == -1)
			return NULL;
		if ((wait = settle_wait(st)) > 0) {
			nap(wait);
			continue;
		}
		if ((buf = read_all(fd, (size_t)st->st_size, len)) == NULL)
			break;
		if (fstat(fd, &after) == -1) {
			free(buf);
			break;
		}
		if (same_version(st, &after) && *len == (size_t)st->st_size)
			return buf;
		free(buf);
		nap(RETRY_NS);
	}
	if (try == READ_TRIES)
		snprintf(err, errlen, "%s: keeps changing; replace it with mv",
		    path);
	else
		snprintf(err, errlen, "cannot read %s: %s", path,
		    strerror(errno));
	return NULL;
}

static char *
read_file(const char *path, size_t *len, struct stat *st, char *err,
    size_t errlen)
{
	char	*buf;
	int	 fd;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cannot open %s: %s", path,
		    strerror(errno));
		return NULL;
	}
	buf = read_snapshot(fd, path, len, st, err, errlen);
	close(fd);
	return buf;
}

char *
conf_file_read(const char *path, size_t *len, char *err, size_t errlen)
{
	struct stat	st;

	return read_file(path, len, &st, err, errlen);
}

int
conf_file_check_nul(const char *path, const char *buf, size_t len,
    char *err, size_t errlen)
{
	const char	*nul = memchr(buf, '\0', len), *p;
	int		 line = 1;

	if (nul == NULL)
		return 0;
	for (p = buf; p < nul; p++)
		line += *p == '\n';
	snprintf(err, errlen, "%s:%d: NUL byte in the file (is it a text "
	    "file?)", path, line);
	return -1;
}

/* Keep a copy of name for the line map; NULL when out of memory. */
static const char *
add_file(struct conf_text *t, const char *name)
{
	char	**v;
	size_t	  ncap;

	if (t->nfiles == t->capf) {
		ncap = t->capf > 0 ? t->capf * 2 : 8;
		if ((v = realloc(t->files, ncap * sizeof(*v))) == NULL)
			return NULL;
		t->files = v;
		t->capf = ncap;
	}
	if ((t->files[t->nfiles] = strdup(name)) == NULL)
		return NULL;
	return t->files[t->nfiles++];
}

/* Append n bytes and a newline, made from line of file. */
static int
add_line(struct expander *ex, const char *file, int line, const char *s,
    size_t n)
{
	struct conf_text	*t = ex->out;
	struct conf_line	*l;
	char			*p;
	size_t			 ncap;

	if (t->len + n + 2 > ex->cap) {
		ncap = ex->cap > 0 ? ex->cap : 4096;
		while (ncap < t->len + n + 2)
			ncap *= 2;
		if ((p = realloc(t->text, ncap)) == NULL)
			return -1;
		t->text = p;
		ex->cap = ncap;
	}
	if (t->nlines == t->capl) {
		ncap = t->capl > 0 ? t->capl * 2 : 256;
		if ((l = realloc(t->lines, ncap * sizeof(*l))) == NULL)
			return -1;
		t->lines = l;
		t->capl = ncap;
	}
	memcpy(t->text + t->len, s, n);
	t->len += n;
	t->text[t->len++] = '\n';
	t->text[t->len] = '\0';
	t->lines[t->nlines].file = file;
	t->lines[t->nlines++].line = line;
	return 0;
}

/* Advance over one lexeme at p (before end) in state *st; where it ends. */
static const char *
lex_step(const char *p, const char *end, enum lex *st)
{
	switch (*st) {
	case LEX_STRING:
		if (*p == '\\' && p + 1 < end)
			return p + 2;
		if (*p == '"')
			*st = LEX_CODE;
		return p + 1;
	case LEX_COMMENT:
		if (*p == '*' && p + 1 < end && p[1] == '/') {
			*st = LEX_CODE;
			return p + 2;
		}
		return p + 1;
	case LEX_CODE:
		break;
	}
	if (*p == '"')
		*st = LEX_STRING;
	else if (*p == '/' && p + 1 < end && p[1] == '*') {
		*st = LEX_COMMENT;
		return p + 2;
	} else if (*p == '#' || (*p == '/' && p + 1 < end && p[1] == '/')) {
		while (p < end && *p != '\n')
			p++;
		return p;
	}
	return p + 1;
}

static int __attribute__((format(printf, 4, 5)))
fail_at(struct expander *ex, const char *file, int line, const char *fmt, ...)
{
	char	msg[MSG_MAX];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(ex->err, ex->errlen, "%s:%d: %s", file, line, msg);
	return -1;
}

static int expand_path(struct expander *, const char *, const char *, int);

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
is_conf_name(const char *name)
{
	size_t	n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/* The *.conf files of dir, in name order (conf.d). */
static int
expand_dir(struct expander *ex, const char *dir, const char *file, int line)
{
	DIR		 *d;
	struct dirent	 *de;
	char		**names = NULL, **v, path[PATH_MAX];
	size_t		  n = 0, cap = 0, i;
	int		  rc = 0;

	if ((d = opendir(dir)) == NULL)
		return fail_at(ex, file, line, "@include: cannot open "
		    "directory %s: %s", dir, strerror(errno));
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (!is_conf_name(de->d_name))
			continue;
		if (n == cap) {
			cap = cap > 0 ? cap * 2 : 16;
			if ((v = realloc(names, cap * sizeof(*v))) == NULL) {
				rc = fail_at(ex, file, line, "out of memory");
				break;
			}
			names = v;
		}
		if ((names[n] = strdup(de->d_name)) == NULL)
			rc = fail_at(ex, file, line, "out of memory");
		else
			n++;
	}
	closedir(d);
	if (rc == 0 && n > 0)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		if (rc == 0 && (size_t)snprintf(path, sizeof(path), "%s/%s",
		    dir, names[i]) >= sizeof(path))
			rc = fail_at(ex, file, line, "@include: path too long");
		else if (rc == 0)
			rc = expand_path(ex, path, file, line);
		free(names[i]);
	}
	free(names);
	return rc;
}

/*
 * The line at p is an @include (the state at its start being LEX_CODE):
 * @include "path", then nothing but blanks or a comment.
 */
static int
expand_include(struct expander *ex, const char *file, int line,
    const char *p, const char *end)
{
	char		 name[PATH_MAX], path[PATH_MAX];
	const char	*q, *close;
	struct stat	 st;

	q = p + strspn(p, " \t");
	close = q < end && *q == '"' ? memchr(q + 1, '"', end - q - 1) : NULL;
	if (q == p || close == NULL)
		return fail_at(ex, file, line, "@include must be followed by "
		    "a file name in double quotes");
	p = close + 1 + strspn(close + 1, " \t\r");
	if (p < end && *p != '#' && strncmp(p, "//", 2) != 0)
		return fail_at(ex, file, line, "unexpected text after "
		    "@include \"%.*s\"", (int)(close - q - 1), q + 1);
	if (close == q + 1)
		return fail_at(ex, file, line, "@include \"\": empty file "
		    "name");
	if ((size_t)snprintf(name, sizeof(name), "%.*s", (int)(close - q - 1),
	    q + 1) >= sizeof(name) ||
	    (size_t)snprintf(path, sizeof(path), "%s%s%s",
	    name[0] == '/' || ex->dir == NULL ? "" : ex->dir,
	    name[0] == '/' || ex->dir == NULL ? "" : "/", name) >= sizeof(path))
		return fail_at(ex, file, line, "@include: path too long");
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return expand_dir(ex, path, file, line);
	return expand_path(ex, path, file, line);
}

/* Whether the line at p (state LEX_CODE) is an @include line. */
static const char *
include_line(const char *p, const char *end)
{
	p += strspn(p, " \t");
	if (end - p >= 8 && strncmp(p, "@include", 8) == 0)
		return p + 8;
	return NULL;
}

/* Add buf, the text of file, line by line, expanding its @includes. */
static int
expand_text(struct expander *ex, const char *file, const char *buf,
    size_t len)
{
	const char	*p = buf, *end = buf + len, *eol, *q, *inc;
	enum lex	 st = LEX_CODE;
	int		 line;

	for (line = 1; p < end; line++, p = eol + 1) {
		if ((eol = memchr(p, '\n', end - p)) == NULL)
			eol = end;
		if (st == LEX_CODE && (inc = include_line(p, eol)) != NULL) {
			if (expand_include(ex, file, line, inc, eol) == -1)
				return -1;
			continue;
		}
		if (add_line(ex, file, line, p, eol - p) == -1)
			return fail_at(ex, file, line, "out of memory");
		/* A string or a C comment goes on past the newline. */
		for (q = p; q < eol;)
			q = lex_step(q, eol, &st);
	}
	return 0;
}

/* Read path (included from file:line, or the main file if file is NULL). */
static int
expand_path(struct expander *ex, const char *path, const char *file,
    int line)
{
	char		 why[MSG_MAX], *buf;
	const char	*name;
	struct stat	 st;
	size_t		 len = 0;
	int		 i, rc;

	if ((buf = read_file(path, &len, &st, why, sizeof(why))) == NULL) {
		if (file == NULL)
			return snprintf(ex->err, ex->errlen, "%s", why), -1;
		return fail_at(ex, file, line, "@include: %s", why);
	}
	rc = -1;
	for (i = 0; i < ex->depth; i++)
		if (ex->dev[i] == st.st_dev && ex->ino[i] == st.st_ino)
			break;
	if (i < ex->depth)
		fail_at(ex, file, line, "@include \"%s\" includes itself, "
		    "through %d file(s)", path, ex->depth - i);
	else if (ex->depth > CONF_INCLUDE_DEPTH_MAX)
		fail_at(ex, file, line, "@include \"%s\": included files are "
		    "nested deeper than %d", path, CONF_INCLUDE_DEPTH_MAX);
	else if (conf_file_check_nul(path, buf, len, ex->err,
	    ex->errlen) == 0) {
		if ((name = add_file(ex->out, path)) == NULL)
			snprintf(ex->err, ex->errlen, "%s: out of memory",
			    path);
		else {
			ex->dev[ex->depth] = st.st_dev;
			ex->ino[ex->depth++] = st.st_ino;
			rc = expand_text(ex, name, buf, len);
			ex->depth--;
		}
	}
	free(buf);
	return rc;
}

static bool
is_word_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '_' || c == '*' || c == '.' ||
	    c == '-' || c == '+';
}

/* Whether word (n bytes) is an integer literal beyond 32 bits. */
static bool
is_wide_integer(const char *w, size_t n)
{
	unsigned long long	v = 0, max = 2147483647ULL;
	size_t			i = 0;
	int			base = 10, d;

	if (n > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (w[0] == '-' || w[0] == '+') {
		max += w[0] == '-';
		i = 1;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		if (w[i] >= '0' && w[i] <= '9')
			d = w[i] - '0';
		else if (base == 16 && (w[i] | 0x20) >= 'a' &&
		    (w[i] | 0x20) <= 'f')
			d = (w[i] | 0x20) - 'a' + 10;
		else
			return false;
		if (v <= max)
			v = v * base + d;
	}
	return v > max;
}

/*
 * libconfig 1.5 keeps only the low 32 bits of an integer literal without
 * an L suffix: 4294967297 would be read as 1 and pass every range check.
 * Give such literals their L, so that they are read whole and refused.
 */
static int
widen_integers(struct conf_text *t)
{
	const char	*p = t->text, *end = t->text + t->len, *w;
	char		*buf, *o;
	enum lex	 st = LEX_CODE;

	if ((buf = malloc(t->len * 2 + 1)) == NULL)
		return -1;
	o = buf;
	while (p < end) {
		if (st != LEX_CODE || !is_word_char(*p)) {
			w = lex_step(p, end, &st);
			memcpy(o, p, w - p);
			o += w - p;
			p = w;
			continue;
		}
		for (w = p; w < end && is_word_char(*w); w++)
			;
		memcpy(o, p, w - p);
		o += w - p;
		if (is_wide_integer(p, w - p))
			*o++ = 'L';
		p = w;
	}
	*o = '\0';
	free(t->text);
	t->text = buf;
	t->len = o - buf;
	return 0;
}

int
conf_text_read(const char *path, struct conf_text *out, char *err,
    size_t errlen)
{
	struct expander	 ex;
	const char	*slash;
	int		 rc;

	memset(out, 0, sizeof(*out));
	memset(&ex, 0, sizeof(ex));
	ex.out = out;
	ex.err = err;
	ex.errlen = errlen;
	/* @include is relative to the main file, not to the daemon's cwd. */
	slash = strrchr(path, '/');
	if (slash != NULL &&
	    (ex.dir = strndup(path, slash == path ? 1 : slash - path)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	rc = expand_path(&ex, path, NULL, 0);
	if (rc == 0 && out->text == NULL && (out->text = strdup("")) == NULL)
		rc = -1;
	if (rc == 0 && widen_integers(out) == -1) {
		snprintf(err, errlen, "%s: out of memory", path);
		rc = -1;
	}
	free(ex.dir);
	if (rc == -1)
		conf_text_free(out);
	return rc;
}

int
conf_text_from_lines(const char *file, const char *text, const int *linemap,
    size_t nlines, struct conf_text *out)
{
	const char	*name;
	size_t		 i;

	memset(out, 0, sizeof(*out));
	out->len = strlen(text);
	if ((out->text = strdup(text)) == NULL ||
	    (name = add_file(out, file)) == NULL ||
	    (out->lines = calloc(nlines + 1, sizeof(*out->lines))) == NULL) {
		conf_text_free(out);
		return -1;
	}
	for (i = 0; i < nlines; i++) {
		out->lines[i].file = name;
		out->lines[i].line = linemap[i];
	}
	out->nlines = out->capl = nlines;
	return 0;
}

struct conf_line
conf_text_origin(const struct conf_text *t, unsigned int line)
{
	struct conf_line	l = { NULL, 0 };

	if (line >= 1 && line <= t->nlines)
		return t->lines[line - 1];
	if (t->nlines > 0 && line > t->nlines) {
		/* Past the end (a syntax error at EOF): the last file. */
		l = t->lines[t->nlines - 1];
		if (l.line > 0)
			l.line += (int)(line - t->nlines);
	}
	return l;
}

void
conf_text_free(struct conf_text *t)
{
	size_t	i;

	for (i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->lines);
	free(t->text);
	memset(t, 0, sizeof(*t));
}
