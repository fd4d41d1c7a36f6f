/*
 * conf_syntax.c - see conf_syntax.h.
 *
 * libconfig says where its parser stopped, and only "syntax error".  The
 * text is read again here with a small parser of the same grammar
 * (NAME = VALUE or NAME : VALUE, an optional ';' or ',' after each;
 * values: numbers, true and false, strings in double quotes (adjacent
 * ones joined, newlines allowed), [ scalars ], ( values ), { settings };
 * comments #, // and / * * /), which says the first thing it finds wrong
 * and what was expected there.
 */
#include "ferryd.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_file.h"
#include "conf_syntax.h"

enum tok {
	T_END,		/* the end of the text */
	T_NAME,		/* a setting's name, true or false */
	T_STRING,
	T_NUMBER,
	T_PUNCT,	/* one of = : ; , ( ) [ ] { } */
	T_BAD		/* what no value or name starts with; why in bad */
};

struct parser {
	const struct conf_text *t;	/* the origin of each line */
	const char	*p, *end;
	unsigned int	 line;
	/* The current token. */
	enum tok	 kind;
	const char	*start;
	size_t		 len;
	unsigned int	 tline;
	const char	*bad;
	/* A string that ran over a line end: a '"' missing, likely. */
	unsigned int	 long_string;
	/* The first error. */
	unsigned int	 err_line;
	char		*why;
	size_t		 whylen;
	bool		 failed;
};

static bool
name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '*';
}

/* Skip blanks and comments, counting lines. */
static void
skip_space(struct parser *ps)
{
	while (ps->p < ps->end) {
		if (*ps->p == '\n')
			ps->line++;
		if (isspace((unsigned char)*ps->p))
			ps->p++;
		else if (*ps->p == '#' || (*ps->p == '/' && ps->p + 1 < ps->end &&
		    ps->p[1] == '/'))
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
		else if (*ps->p == '/' && ps->p + 1 < ps->end &&
		    ps->p[1] == '*') {
			/* Unclosed, it runs to the end: libconfig's too. */
			for (ps->p += 2; ps->p < ps->end && !(*ps->p == '*' &&
			    ps->p + 1 < ps->end && ps->p[1] == '/'); ps->p++)
				if (*ps->p == '\n')
					ps->line++;
			ps->p = ps->p < ps->end ? ps->p + 2 : ps->end;
		} else
			break;
	}
}

/* A string from its opening quote; T_BAD if it never closes. */
static enum tok
lex_string(struct parser *ps)
{
	unsigned int	first = ps->line;

	for (ps->p++; ps->p < ps->end && *ps->p != '"'; ps->p++) {
		if (*ps->p == '\\' && ps->p + 1 < ps->end)
			ps->p++;
		if (*ps->p == '\n')
			ps->line++;
	}
	if (ps->p == ps->end) {
		ps->bad = "a string that is never closed: a '\"' is missing";
		return T_BAD;
	}
	ps->p++;
	if (ps->line != first && ps->long_string == 0)
		ps->long_string = first;
	return T_STRING;
}

/* A number as libconfig reads it (decimal, 0x, L, a fraction, e). */
static enum tok
lex_number(struct parser *ps)
{
	const char	*s = ps->p;
	char		 buf[64], *rest;
	size_t		 n;

	if (*s == '+' || *s == '-')
		s++;
	while (s < ps->end && (name_char(*s) || *s == '.' || ((*s == '+' ||
	    *s == '-') && (s[-1] == 'e' || s[-1] == 'E'))))
		s++;
	n = (size_t)(s - ps->p);
	ps->p = s;
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, ps->start, n);
	buf[n] = '\0';
	(void)strtoll(buf, &rest, 0);
	if (*rest == 'L' && (rest[1] == '\0' || (rest[1] == 'L' &&
	    rest[2] == '\0')))
		return T_NUMBER;
	if (*rest != '\0' && (strtod(buf, &rest), *rest != '\0')) {
		ps->bad = isalpha((unsigned char)*rest) && rest > buf &&
		    isdigit((unsigned char)rest[-1]) && strchr(rest, '.') ==
		    NULL ? "a number with a unit; numbers are bare: durations "
		    "in seconds, sizes in bytes" : "not a number; an address, "
		    "a path or a name is a string, in double quotes";
		return T_BAD;
	}
	return T_NUMBER;
}

/* The next token into ps. */
static void
advance(struct parser *ps)
{
	char	c;

	skip_space(ps);
	ps->start = ps->p;
	ps->tline = ps->line;
	ps->bad = NULL;
	if (ps->p == ps->end) {
		ps->kind = T_END;
		ps->len = 0;
		return;
	}
	c = *ps->p;
	if (c == '"')
		ps->kind = lex_string(ps);
	else if (isdigit((unsigned char)c) || ((c == '-' || c == '+' ||
	    c == '.') && ps->p + 1 < ps->end && (isdigit((unsigned char)
	    ps->p[1]) || ps->p[1] == '.')))
		ps->kind = lex_number(ps);
	else if (isalpha((unsigned char)c) || c == '*') {
		while (ps->p < ps->end && name_char(*ps->p))
			ps->p++;
		ps->kind = T_NAME;
	} else if (strchr("=:;,()[]{}", c) != NULL) {
		ps->p++;
		ps->kind = T_PUNCT;
	} else {
		ps->p++;
		ps->kind = T_BAD;
		ps->bad = c == '\'' ? "strings take double quotes" :
		    c == '/' ? "a path not in double quotes" :
		    "a character that starts no name, value or sign";
	}
	ps->len = (size_t)(ps->p - ps->start);
}

static bool
is(const struct parser *ps, char c)
{
	return ps->kind == T_PUNCT && *ps->start == c;
}

/* The current token, as an error quotes it. */
static void
token_text(const struct parser *ps, char *buf, size_t len)
{
	if (ps->kind == T_END)
		snprintf(buf, len, "the end of the file");
	else if (ps->kind == T_STRING)
		snprintf(buf, len, "a string");
	else if (*ps->start == '\'')
		snprintf(buf, len, "a single quote");
	else
		snprintf(buf, len, "'%.*s'", (int)strcspn(ps->start, "\n") <
		    (int)(ps->len > 40 ? 40 : ps->len) ? (int)strcspn(ps->start,
		    "\n") : (int)(ps->len > 40 ? 40 : ps->len), ps->start);
}

/* The first error: "expected ..., found TOKEN (why)", at its line. */
static void __attribute__((format(printf, 2, 3)))
fail(struct parser *ps, const char *fmt, ...)
{
	char	found[64];
	size_t	n;
	va_list	ap;

	if (ps->failed)
		return;
	ps->failed = true;
	ps->err_line = ps->tline;
	va_start(ap, fmt);
	n = (size_t)vsnprintf(ps->why, ps->whylen, fmt, ap);
	va_end(ap);
	token_text(ps, found, sizeof(found));
	if (n < ps->whylen)
		snprintf(ps->why + n, ps->whylen - n, ", found %s%s%s%s", found,
		    ps->bad != NULL ? " (" : "", ps->bad != NULL ? ps->bad : "",
		    ps->bad != NULL ? ")" : "");
}

static void parse_value(struct parser *, const char *, size_t);

/*
 * Where line (of the text) is, as an error at the current token says
 * it: "line 3", or "FILE:3" in another file than the token's.
 */
static const char *
where(const struct parser *ps, unsigned int line, char *buf, size_t len)
{
	struct conf_line	at = conf_text_origin(ps->t, line);
	struct conf_line	here = conf_text_origin(ps->t, ps->tline);

	if (at.file != NULL && here.file != NULL && strcmp(at.file,
	    here.file) != 0)
		snprintf(buf, len, "%s:%d", at.file, at.line);
	else
		snprintf(buf, len, "line %d", at.file != NULL ? at.line :
		    (int)line);
	return buf;
}

/* Settings up to closer ('}', or '\0' for the whole file). */
static void
parse_settings(struct parser *ps, char closer, unsigned int opened)
{
	const char	*name;
	char		 at[PATH_MAX + 16];
	size_t		 len;

	for (;;) {
		advance(ps);
		if (ps->failed || (closer != '\0' && is(ps, closer)) ||
		    (closer == '\0' && ps->kind == T_END))
			return;
		if (ps->kind != T_NAME) {
			if (ps->kind == T_PUNCT && strchr(")]}", *ps->start))
				ps->bad = closer != '\0' ? "it closes nothing "
				    "that is open here" : "nothing is open";
			if (closer != '\0')
				fail(ps, "expected a setting, or the '}' of the "
				    "group opened at %s", where(ps, opened, at,
				    sizeof(at)));
			else
				fail(ps, "expected a setting (NAME = VALUE;)");
			return;
		}
		name = ps->start;
		len = ps->len;
		advance(ps);
		if (!is(ps, '=') && !is(ps, ':')) {
			fail(ps, "expected '=' after \"%.*s\"", (int)len, name);
			return;
		}
		parse_value(ps, name, len);
		/* An optional ';' or ',' after each setting. */
		if (!ps->failed && (is(ps, ';') || is(ps, ',')))
			continue;
		if (ps->failed)
			return;
		/* The token after the value starts the next setting. */
		ps->p = ps->start;
		ps->line = ps->tline;
	}
}

/* Elements up to closer (']' or ')'), separated by ','. */
static void
parse_elements(struct parser *ps, char closer, const char *name, size_t len)
{
	const char	*kind = closer == ']' ? "array" : "list";
	char		 at[PATH_MAX + 16];
	unsigned int	 opened = ps->tline;

	advance(ps);
	if (is(ps, closer))
		return;
	for (;;) {
		/* parse_value reads its token itself: step back to it. */
		ps->p = ps->start;
		ps->line = ps->tline;
		parse_value(ps, name, len);
		if (ps->failed || is(ps, closer))
			return;
		if (!is(ps, ',')) {
			fail(ps, "expected ',' or the '%c' of the %s opened at "
			    "%s", closer, kind, where(ps, opened, at,
			    sizeof(at)));
			return;
		}
		advance(ps);
		if (is(ps, closer)) {
			fail(ps, "expected another element after ',' in the "
			    "%s opened at %s (the last one takes no ',')",
			    kind, where(ps, opened, at, sizeof(at)));
			return;
		}
	}
}

/*
 * A value of setting name (or an element), its first token read here;
 * on return the token after it is current.
 */
static void
parse_value(struct parser *ps, const char *name, size_t len)
{
	advance(ps);
	if (ps->kind == T_STRING) {
		/* Adjacent strings are one. */
		do
			advance(ps);
		while (ps->kind == T_STRING);
		return;
	}
	if (ps->kind == T_NUMBER || (ps->kind == T_NAME &&
	    ((ps->len == 4 && strncasecmp(ps->start, "true", 4) == 0) ||
	    (ps->len == 5 && strncasecmp(ps->start, "false", 5) == 0)))) {
		advance(ps);
		return;
	}
	if (is(ps, '[') || is(ps, '('))
		parse_elements(ps, is(ps, '[') ? ']' : ')', name, len);
	else if (is(ps, '{'))
		parse_settings(ps, '}', ps->tline);
	else {
		if (ps->kind == T_NAME)
			ps->bad = "a word: text is a string, in double quotes";
		fail(ps, "expected a value for \"%.*s\" (a number, true, false, "
		    "a \"string\", [ ], ( ) or { })", (int)len, name);
		return;
	}
	if (!ps->failed)
		advance(ps);
}

bool
conf_syntax_explain(const struct conf_text *t, unsigned int *line, char *why,
    size_t whylen)
{
	struct parser	ps;

	memset(&ps, 0, sizeof(ps));
	ps.t = t;
	ps.p = t->text;
	ps.end = t->text + t->len;
	ps.line = 1;
	ps.why = why;
	ps.whylen = whylen;
	parse_settings(&ps, '\0', 0);
	if (!ps.failed)
		return false;
	*line = ps.err_line;
	/*
	 * A string that ran over its line swallowed what followed up to the
	 * next '"': the likely cause, and what came after it is noise.
	 */
	if (ps.long_string != 0 && ps.long_string < ps.err_line) {
		*line = ps.long_string;
		snprintf(why, whylen, "a string runs over the end of this "
		    "line: a '\"' is missing, likely");
	}
	return true;
}
