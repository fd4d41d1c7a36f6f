/*
 * conf_show.c - ferryd -T: a loaded configuration written back as
 * ferryd.conf text, every setting with the value it has (defaults and
 * what rules inherit filled in, included files inlined, a rinetd.conf
 * as what it was converted to).  The key tables that load a file drive
 * this too: each key is written by its own writer (struct conf_key's
 * show) or by its parser's (conf_key_shower()), so a key added to a
 * table is shown without a second list.  What -T writes loads again
 * into the same configuration, and so gives the same text (cmdline.test
 * checks that fixed point).
 */
#include "ferryd.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "acl.h"
#include "conf.h"
#include "conf_schema.h"
#include "rule.h"
#include "upstream.h"

static void
indent(struct conf_show *sh)
{
	int	i;

	for (i = 0; i < sh->depth; i++)
		fputc('\t', sh->out);
}

void
conf_show_line(struct conf_show *sh, const char *name, const char *fmt, ...)
{
	va_list	ap;

	indent(sh);
	fprintf(sh->out, "%s = ", name);
	va_start(ap, fmt);
	vfprintf(sh->out, fmt, ap);
	va_end(ap);
	fputs(";\n", sh->out);
}

void
conf_show_comment(struct conf_show *sh, const char *fmt, ...)
{
	char		 text[1024];
	const char	*p;
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	indent(sh);
	fputs("# ", sh->out);
	/* One line, whatever a name in it holds (a Unix path's newline). */
	for (p = text; *p != '\0'; p++)
		if ((unsigned char)*p < ' ')
			fprintf(sh->out, "\\x%02x", (unsigned char)*p);
		else
			fputc(*p, sh->out);
	fputc('\n', sh->out);
}

/* libconfig's escapes; other control bytes as \xNN. */
void
conf_show_quoted(FILE *out, const char *s)
{
	unsigned char	c;

	fputc('"', out);
	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static const void *
field(const void *base, const struct conf_key *k)
{
	return (const char *)base + k->offset;
}

void
conf_show_int(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	conf_show_line(sh, k->name, "%d", *(const int *)field(base, k));
}

/* A size past 32 bits needs libconfig's L suffix to keep its value. */
void
conf_show_size(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	size_t	v = *(const size_t *)field(base, k);

	conf_show_line(sh, k->name, "%zu%s", v, v > INT_MAX ? "L" : "");
}

/* Milliseconds written as seconds: "2", or "1.5" as "1.500". */
void
conf_show_duration(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	int	ms = *(const int *)field(base, k);

	if (ms % 1000 == 0)
		conf_show_line(sh, k->name, "%d", ms / 1000);
	else
		conf_show_line(sh, k->name, "%d.%03d", ms / 1000, ms % 1000);
}

void
conf_show_quoted_line(struct conf_show *sh, const char *name, const char *v)
{
	indent(sh);
	fprintf(sh->out, "%s = ", name);
	conf_show_quoted(sh->out, v);
	fputs(";\n", sh->out);
}

/* A string setting; NULL is one not set, which has no default to write. */
void
conf_show_string(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const char	*v = *(char *const *)field(base, k);

	if (v == NULL)
		conf_show_comment(sh, "%s is not set", k->name);
	else
		conf_show_quoted_line(sh, k->name, v);
}

/* A string kept in an array of the struct (health_check's send). */
void
conf_show_text(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	conf_show_quoted_line(sh, k->name, field(base, k));
}

void
conf_show_bool(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	conf_show_line(sh, k->name, "%s", *(const bool *)field(base, k) ?
	    "true" : "false");
}

static void
show_names(struct conf_show *sh, const struct conf_key *k, const void *base,
    const char *const *names)
{
	int	idx = *(const int *)field(base, k), i;

	for (i = 0; names[i] != NULL && i < idx; i++)
		continue;
	if (idx < 0 || names[i] == NULL)
		conf_show_comment(sh, "%s is %d, which has no name", k->name,
		    idx);
	else
		conf_show_line(sh, k->name, "\"%s\"", names[idx]);
}

void
conf_show_choice(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	show_names(sh, k, base, k->names);
}

static void
show_splice(struct conf_show *sh, const struct conf_key *k, const void *base)
{
	show_names(sh, k, base, conf_splice_names);
}

/* A file mode, as the octal string it is written as. */
void
conf_show_mode(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	conf_show_line(sh, k->name, "\"%04o\"", *(const int *)field(base, k));
}

static void
show_patterns(struct conf_show *sh, const char *name,
    const struct acl_pattern *v, size_t n)
{
	size_t	i;

	if (n == 0) {
		conf_show_comment(sh, "%s: no pattern", name);
		return;
	}
	indent(sh);
	fprintf(sh->out, "%s = [ ", name);
	for (i = 0; i < n; i++) {
		if (i > 0)
			fputs(", ", sh->out);
		conf_show_quoted(sh->out, v[i].text);
	}
	fputs(" ];\n", sh->out);
}

void
conf_show_acl_allow(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct acl	*acl = field(base, k);

	show_patterns(sh, k->name, acl->allow, acl->nallow);
}

void
conf_show_acl_deny(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct acl	*acl = field(base, k);

	show_patterns(sh, k->name, acl->deny, acl->ndeny);
}

/* name = { members }; the group's closing line ends with tail. */
void
conf_show_open(struct conf_show *sh, const char *name, const char *text)
{
	indent(sh);
	if (name != NULL)
		fprintf(sh->out, "%s = ", name);
	fputs(text, sh->out);
}

void
conf_show_group(struct conf_show *sh, const char *name,
    const struct conf_keys *keys, const void *v, const char *tail)
{
	indent(sh);
	if (name != NULL)
		fprintf(sh->out, "%s = ", name);
	fputs("{\n", sh->out);
	sh->depth++;
	conf_show_members(sh, keys, v);
	sh->depth--;
	indent(sh);
	fprintf(sh->out, "}%s\n", tail);
}

/* health_check or keepalive: a group, or a comment when it is off. */
static void
show_optional(struct conf_show *sh, const struct conf_key *k, bool on,
    const struct conf_keys *keys, const void *v)
{
	if (!on)
		conf_show_comment(sh, "%s is off", k->name);
	else
		conf_show_group(sh, k->name, keys, v, ";");
}

void
conf_show_health_check(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct health_check	*hc = field(base, k);

	show_optional(sh, k, hc->enabled, &conf_check_keys, hc);
}

void
conf_show_keepalive(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct keepalive	*ka = field(base, k);

	show_optional(sh, k, ka->enabled, &conf_keepalive_keys, ka);
}

/* A port range's later ports are its first's: the rule once, as written. */
void
conf_show_rules(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct conf	*cfg = base;
	size_t			 i, last = 0;

	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].range_first == NULL)
			last = i;
	indent(sh);
	fprintf(sh->out, "%s = (\n", k->name);
	sh->depth++;
	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].range_first == NULL)
			conf_show_group(sh, NULL, &conf_rule_keys, &cfg->rules[i],
			    i == last ? "" : ",");
	sh->depth--;
	indent(sh);
	fputs(");\n", sh->out);
}

/* connect as a list of groups, each item with all of its settings. */
void
conf_show_connect(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct rule	*r = base;
	size_t			 i;

	indent(sh);
	fprintf(sh->out, "%s = (\n", k->name);
	sh->depth++;
	for (i = 0; i < r->nitems; i++)
		conf_show_group(sh, NULL, &conf_item_keys, &r->items[i],
		    i + 1 == r->nitems ? "" : ",");
	sh->depth--;
	indent(sh);
	fputs(");\n", sh->out);
}

conf_key_show *
conf_key_shower(const struct conf_key *k)
{
	static const struct {
		conf_key_parser	*parse;
		conf_key_show	*show;
	} by_parser[] = {
		{ conf_parse_int, conf_show_int },
		{ conf_parse_size, conf_show_size },
		{ conf_parse_duration, conf_show_duration },
		{ conf_parse_string, conf_show_string },
		{ conf_parse_bool, conf_show_bool },
		{ conf_parse_choice, conf_show_choice },
		{ conf_parse_splice, show_splice },
		{ conf_parse_allow, conf_show_acl_allow },
		{ conf_parse_deny, conf_show_acl_deny },
		{ conf_parse_health_check, conf_show_health_check },
		{ conf_parse_keepalive, conf_show_keepalive },
	};
	size_t	i;

	if (k->show != NULL)
		return k->show;
	if (k->names != NULL)
		return conf_show_choice;
	for (i = 0; i < sizeof(by_parser) / sizeof(by_parser[0]); i++)
		if (by_parser[i].parse == k->parse)
			return by_parser[i].show;
	return NULL;
}

void
conf_show_members(struct conf_show *sh, const struct conf_keys *keys,
    const void *base)
{
	const struct conf_key	*k;
	conf_key_show		*show;
	size_t			 i;

	for (i = 0; i < keys->n; i++) {
		k = &keys->v[i];
		if (keys->applies != NULL && !keys->applies(base, k))
			continue;
		if ((show = conf_key_shower(k)) == NULL)
			conf_show_comment(sh, "%s: -T cannot write it (its "
			    "key has no writer)", k->name);
		else
			show(sh, k, base);
	}
}

int
conf_show(FILE *out, const struct conf *cfg)
{
	struct conf_show	sh = { out, 0, cfg };

	fputs("# The effective configuration, as ferryd -T writes it: every\n"
	    "# setting with its value, defaults filled in.\n", out);
	conf_show_members(&sh, &conf_global_keys, cfg);
	return fflush(out) == EOF || ferror(out) ? -1 : 0;
}
