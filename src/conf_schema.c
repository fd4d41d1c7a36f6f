/*
 * conf_schema.c - the key-table engine of the configuration: a group of
 * settings is checked against a table of keys (name, parser, limits,
 * where the value goes), and every problem becomes one "FILE:LINE:
 * problem" line, with a "did you mean" for typos.  The value parsers
 * shared by the top level and the rules live here too.
 */
#include "ferryd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "conf_file.h"
#include "conf_schema.h"

/* Longest known setting name; "did you mean" only compares with those. */
#define KEY_NAME_MAX		32

/*
 * Write "FILE:LINE: msg", or "FILE: msg" when line is 0; line is a line
 * of the text libconfig read, which may come from an @include'd file.
 */
void
conf_report(struct conf_loader *ld, unsigned int line, const char *msg)
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
 * Returns -1 so that callers can "return conf_fail(...)".  gcc cannot see that
 * it always does, so locals that a failing helper leaves unset are given
 * an initial value anyway, for -Wmaybe-uninitialized.
 */
int __attribute__((format(printf, 3, 4)))
conf_fail(struct conf_loader *ld, const config_setting_t *s, const char *fmt,
    ...)
{
	char	msg[CONF_ERR_MAX];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	conf_report(ld, s == NULL ? 0 : config_setting_source_line(s), msg);
	return -1;
}

/* The kind of value s holds, for "must be X (got Y)" messages. */
const char *
conf_type_name(const config_setting_t *s)
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

int
conf_is_integer(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	    config_setting_type(s) == CONFIG_TYPE_INT64;
}

void *
conf_field(void *base, const struct conf_key *k)
{
	return (char *)base + k->offset;
}

/*
 * Read an integer setting and check it against the key's limits.  Beware:
 * libconfig 1.5 truncates a literal that does not fit in 32 bits unless it
 * is written with an L suffix; most such values then fail the range check.
 */
static int
get_int_in_range(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, long long *v)
{
	if (!conf_is_integer(s))
		return conf_fail(ld, s, "\"%s\" must be an integer (got %s)",
		    k->name, conf_type_name(s));
	*v = config_setting_get_int64(s);
	if (*v < k->min || *v > k->max)
		return conf_fail(ld, s, "\"%s\" must be between %lld and %lld "
		    "(got %lld)", k->name, k->min, k->max, *v);
	return 0;
}

int
conf_get_string(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const char **v)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return conf_fail(ld, s, "\"%s\" must be a string (got %s)",
		    k->name, conf_type_name(s));
	*v = config_setting_get_string(s);
	return 0;
}

/* Replaces a default (event_backend starts as "auto"). */
int
conf_store_string(struct conf_loader *ld, const config_setting_t *s, char **dst,
    const char *v)
{
	free(*dst);
	if ((*dst = strdup(v)) == NULL)
		return conf_fail(ld, s, "out of memory");
	return 0;
}

/* Index of name in the NULL-terminated names, or -1. */
int
conf_name_index(const char *const *names, const char *name)
{
	int	i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* Read a string that must be one of names; *idx is its index. */
int
conf_get_choice(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const char *const *names, int *idx)
{
	char		 list[128];
	const char	*v = "";
	size_t		 len = 0;
	int		 i;

	if (conf_get_string(ld, k, s, &v) == -1)
		return -1;
	if ((*idx = conf_name_index(names, v)) != -1)
		return 0;
	list[0] = '\0';
	for (i = 0; names[i] != NULL && len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - len, "%s\"%s\"",
		    i > 0 ? ", " : "", names[i]);
	return conf_fail(ld, s, "\"%s\" must be one of %s (got \"%s\")",
	    k->name, list, v);
}

int
conf_parse_int(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	long long	v = 0;

	if (get_int_in_range(ld, k, s, &v) == -1)
		return -1;
	*(int *)conf_field(base, k) = (int)v;
	return 0;
}

int
conf_parse_size(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	long long	v = 0;

	if (get_int_in_range(ld, k, s, &v) == -1)
		return -1;
	*(size_t *)conf_field(base, k) = (size_t)v;
	return 0;
}

/*
 * A duration is written in seconds, integer or not, and stored in
 * milliseconds rounded to the nearest; the key's limits are in ms.
 */
int
conf_parse_duration(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	double		sec;
	long long	ms = 0;
	int		in_range;

	if (conf_is_integer(s))
		sec = (double)config_setting_get_int64(s);
	else if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
		sec = config_setting_get_float(s);
	else
		return conf_fail(ld, s, "\"%s\" must be a number of seconds "
		    "(got %s)", k->name, conf_type_name(s));
	/* Range-check before converting: a huge value must not overflow. */
	in_range = sec >= 0 && sec * 1000.0 < (double)k->max + 0.5;
	if (in_range)
		ms = (long long)(sec * 1000.0 + 0.5);
	if (!in_range || ms < k->min)
		return conf_fail(ld, s, "\"%s\" must be between %.15g and %.15g "
		    "seconds (got %.15g)", k->name, (double)k->min / 1000.0,
		    (double)k->max / 1000.0, sec);
	*(int *)conf_field(base, k) = (int)ms;
	return 0;
}

int
conf_parse_string(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	const char	*v = "";

	if (conf_get_string(ld, k, s, &v) == -1)
		return -1;
	return conf_store_string(ld, s, conf_field(base, k), v);
}

/* Store the index of the choice in names as an int. */
int
conf_store_choice(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base, const char *const *names)
{
	int	idx = 0;

	if (conf_get_choice(ld, k, s, names, &idx) == -1)
		return -1;
	*(int *)conf_field(base, k) = idx;
	return 0;
}

/* A choice whose names are the key's (k->names). */
int
conf_parse_choice(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	return conf_store_choice(ld, k, s, base, k->names);
}

const char *const conf_splice_names[] = { "auto", "on", "off", NULL };

int
conf_parse_splice(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	if (conf_store_choice(ld, k, s, base, conf_splice_names) == -1)
		return -1;
#ifndef HAVE_SPLICE
	if (*(int *)conf_field(base, k) == SPLICE_ON)
		return conf_fail(ld, s, "%s \"on\" is not supported on this system "
		    "(no splice(2)); use \"auto\" or \"off\"", k->name);
#endif
	return 0;
}

int
conf_parse_bool(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return conf_fail(ld, s, "\"%s\" must be true or false (got %s)",
		    k->name, conf_type_name(s));
	*(bool *)conf_field(base, k) = config_setting_get_bool(s) != 0;
	return 0;
}

/* One allow or deny pattern, reported at its own line. */
static int
add_pattern(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *e, struct acl *acl, enum acl_list list)
{
	char	why[CONF_ERR_MAX];

	if (config_setting_type(e) != CONFIG_TYPE_STRING)
		return conf_fail(ld, e, "\"%s\" patterns must be strings (got %s)",
		    k->name, conf_type_name(e));
	if (acl_compile(acl, list, config_setting_get_string(e), why,
	    sizeof(why)) == -1)
		return conf_fail(ld, e, "\"%s\": %s", k->name, why);
	return 0;
}

/* allow and deny: one pattern, or an array or list of them. */
static int
parse_acl(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base, enum acl_list list)
{
	struct acl	*acl = conf_field(base, k);
	int		 i, n;

	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return add_pattern(ld, k, s, acl, list);
	if (!config_setting_is_array(s) && !config_setting_is_list(s))
		return conf_fail(ld, s, "\"%s\" must be a list of patterns, "
		    "[ \"10.0.0.0/8\", \"192.168.1.*\", ... ] (got %s)", k->name,
		    conf_type_name(s));
	n = config_setting_length(s);
	for (i = 0; i < n; i++)
		if (add_pattern(ld, k, config_setting_get_elem(s, i), acl,
		    list) == -1)
			return -1;
	return 0;
}

/* A file mode, written in octal as a string: "0660". */
int
conf_parse_mode(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	const char	*v = "";
	char		*end;
	long		 mode;

	if (conf_get_string(ld, k, s, &v) == -1)
		return -1;
	errno = 0;
	mode = strtol(v, &end, 8);
	if (v[0] == '\0' || *end != '\0' || errno != 0 || mode < 0 ||
	    mode > 0777)
		return conf_fail(ld, s, "\"%s\" must be a file mode in octal, "
		    "\"0600\" to \"0777\" (got \"%s\")", k->name, v);
	*(int *)conf_field(base, k) = (int)mode;
	return 0;
}

int
conf_parse_allow(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	return parse_acl(ld, k, s, base, ACL_ALLOW);
}

int
conf_parse_deny(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
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

static const struct conf_key *
key_find(const struct conf_key *keys, size_t nkeys, const char *name)
{
	size_t	i;

	for (i = 0; i < nkeys; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* The known key closest to name, if it is close enough to be a typo. */
static const char *
key_suggest(const struct conf_key *keys, size_t nkeys, const char *name)
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
unknown_setting(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_keys *keys)
{
	const struct conf_keys	*other;
	const char		*name = config_setting_name(s), *hint;
	char			 places[512];
	size_t			 i, used = 0;

	/* Every place it belongs: idle_timeout, a rule's or the top's. */
	places[0] = '\0';
	for (i = 0; i < CONF_NKEYS(keys->other); i++)
		if ((other = keys->other[i]) != NULL && used < sizeof(places) &&
		    key_find(other->v, other->n, name) != NULL)
			used += (size_t)snprintf(places + used, sizeof(places) -
			    used, "%s%s", used > 0 ? " or " : "", other->only);
	if (places[0] != '\0')
		return conf_fail(ld, s, "unknown setting \"%s\" %s (it can "
		    "only be set %s)", name, keys->where, places);
	if ((hint = key_suggest(keys->v, keys->n, name)) != NULL)
		return conf_fail(ld, s, "unknown setting \"%s\" (did you mean "
		    "\"%s\"?)", name, hint);
	return conf_fail(ld, s, "unknown setting \"%s\"", name);
}

/* Parse every member of group, in file order, into the struct at base. */
int
conf_parse_members(struct conf_loader *ld, const config_setting_t *group,
    const struct conf_keys *keys, void *base)
{
	const config_setting_t	*s;
	const struct conf_key	*k;
	int			 i, n;

	n = config_setting_length(group);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(group, i);
		k = key_find(keys->v, keys->n, config_setting_name(s));
		if (k == NULL)
			return unknown_setting(ld, s, keys);
		if (k->parse(ld, k, s, base) == -1)
			return -1;
	}
	return 0;
}
