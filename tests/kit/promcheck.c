/*
 * promcheck.c - check a Prometheus text exposition (format 0.0.4) read
 * from standard input, where promtool is not installed, and more than it
 * checks of histograms:
 *
 *   - every line is a comment, "# HELP name text", "# TYPE name type",
 *     or a sample "name{label="value",...} value" with valid names,
 *     escapes and number;
 *   - a family's TYPE comes before its samples, once, and its samples
 *     are together; a sample's name is the family's (histograms: _bucket
 *     with le, _sum, _count); no series twice;
 *   - each histogram series: le rising and ending at +Inf, counts never
 *     falling, +Inf equal to _count, a _sum; with --powers-of-two every
 *     finite le is 2^k microseconds, written exactly.
 *
 * Prints what is wrong with the line number; exit 0 if nothing is, 1 if
 * something is, 2 on usage errors.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FAMILIES	4096
#define MAX_SERIES	65536
#define LINE_MAX_LEN	8192

struct family {
	char	name[256];
	char	type[16];
	bool	help, typed, closed;
};

/* A histogram series: its labels without le, and what it showed. */
struct hseries {
	char	key[1024];		/* family + labels */
	double	last_le, last_count, inf_count;
	bool	has_inf, has_sum, has_count, after_inf;
	double	count;
	int	line;
};

static struct family	 families[MAX_FAMILIES];
static size_t		 nfamilies;
static struct hseries	*hs;
static size_t		 nhs;
static char		**seen;		/* series keys, to find one twice */
static size_t		 nseen;
static int		 errors;
static bool		 powers_of_two;

static void
bad(int line, const char *fmt, const char *what)
{
	fprintf(stderr, "promcheck: line %d: ", line);
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	errors++;
}

static bool
valid_name(const char *s, size_t n, bool metric)
{
	size_t i;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++)
		if (!(isalpha((unsigned char)s[i]) || s[i] == '_' ||
		    (metric && s[i] == ':') || (i > 0 &&
		    isdigit((unsigned char)s[i]))))
			return false;
	return true;
}

static struct family *
family_find(const char *name)
{
	size_t i;

	for (i = 0; i < nfamilies; i++)
		if (strcmp(families[i].name, name) == 0)
			return &families[i];
	return NULL;
}

static struct family *
family_get(const char *name, int line)
{
	struct family *f = family_find(name);

	if (f != NULL)
		return f;
	if (nfamilies == MAX_FAMILIES) {
		bad(line, "%s", "too many families");
		exit(1);
	}
	f = &families[nfamilies++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

/* The family currently open: samples of any other close it. */
static struct family *open_family;

static void
comment(char *s, int line)
{
	char		*kw, *name, *rest;
	struct family	*f;

	kw = strtok_r(s + 1, " ", &rest);
	if (kw == NULL || (strcmp(kw, "HELP") != 0 && strcmp(kw, "TYPE") != 0))
		return;		/* another comment */
	name = strtok_r(NULL, " ", &rest);
	if (name == NULL || !valid_name(name, strlen(name), true)) {
		bad(line, "%s", "a HELP or TYPE without a valid name");
		return;
	}
	f = family_get(name, line);
	if (f->closed)
		bad(line, "family %s comes back after another began", name);
	if (strcmp(kw, "HELP") == 0) {
		if (f->help)
			bad(line, "second HELP for %s", name);
		f->help = true;
	} else {
		if (f->typed)
			bad(line, "second TYPE for %s", name);
		if (rest == NULL || (strcmp(rest, "counter") != 0 &&
		    strcmp(rest, "gauge") != 0 && strcmp(rest, "histogram") != 0 &&
		    strcmp(rest, "summary") != 0 && strcmp(rest, "untyped") != 0))
			bad(line, "TYPE of %s is not a type", name);
		else
			snprintf(f->type, sizeof(f->type), "%s", rest);
		f->typed = true;
	}
	if (open_family != NULL && open_family != f)
		open_family->closed = true;
	open_family = f;
}

/* The family a sample name belongs to, and its suffix. */
static struct family *
family_of(const char *name, const char **suffix)
{
	static const char *const sfx[] = { "_bucket", "_sum", "_count" };
	char		 base[256];
	size_t		 n = strlen(name), i, k;
	struct family	*f;

	for (i = 0; i < 3; i++) {
		k = strlen(sfx[i]);
		if (n > k && strcmp(name + n - k, sfx[i]) == 0 &&
		    n - k < sizeof(base)) {
			memcpy(base, name, n - k);
			base[n - k] = '\0';
			f = family_find(base);
			if (f != NULL && strcmp(f->type, "histogram") == 0) {
				*suffix = sfx[i];
				return f;
			}
		}
	}
	*suffix = "";
	return family_find(name);
}

/* Parse labels at *p ("{...}"): key without le into key, le into *le. */
static bool
labels(const char **p, char *key, size_t keylen, char *le, size_t lelen,
    int line)
{
	const char	*s = *p, *n;
	char		 val[512];
	size_t		 v, used = strlen(key);

	le[0] = '\0';
	if (*s != '{')
		return true;
	s++;
	while (*s != '}') {
		n = s;
		while (*s != '\0' && *s != '=')
			s++;
		if (*s != '=' || !valid_name(n, (size_t)(s - n), false) ||
		    s[1] != '"') {
			bad(line, "%s", "a malformed label");
			return false;
		}
		v = 0;
		for (s += 2; *s != '"'; s++) {
			if (*s == '\0' || v + 2 >= sizeof(val)) {
				bad(line, "%s", "an unterminated label value");
				return false;
			}
			if (*s == '\\') {
				s++;
				if (*s != '\\' && *s != '"' && *s != 'n') {
					bad(line, "%s", "a bad escape");
					return false;
				}
			}
			val[v++] = *s;
		}
		val[v] = '\0';
		s++;
		if ((size_t)(s - n) > 3 && strncmp(n, "le=", 3) == 0) {
			if (v >= lelen) {
				bad(line, "%s", "an le too long");
				return false;
			}
			memcpy(le, val, v + 1);
		}
		else
			used += (size_t)snprintf(key + used, keylen - used,
			    "|%.*s", (int)(s - n), n);
		if (used >= keylen) {
			bad(line, "%s", "labels too long");
			return false;
		}
		if (*s == ',')
			s++;
		else if (*s != '}') {
			bad(line, "%s", "labels not separated by commas");
			return false;
		}
	}
	*p = s + 1;
	return true;
}

static struct hseries *
hseries_get(const char *key, int line)
{
	size_t i;

	for (i = 0; i < nhs; i++)
		if (strcmp(hs[i].key, key) == 0)
			return &hs[i];
	if (nhs == MAX_SERIES) {
		bad(line, "%s", "too many histogram series");
		exit(1);
	}
	memset(&hs[nhs], 0, sizeof(hs[nhs]));
	snprintf(hs[nhs].key, sizeof(hs[nhs].key), "%s", key);
	hs[nhs].last_le = -INFINITY;
	hs[nhs].line = line;
	return &hs[nhs++];
}

static void
series_once(const char *key, int line)
{
	size_t i;

	for (i = 0; i < nseen; i++)
		if (strcmp(seen[i], key) == 0) {
			bad(line, "series %s twice", key);
			return;
		}
	if (nseen < MAX_SERIES)
		seen[nseen++] = strdup(key);
}

/* A finite le: 2^k microseconds, in decimal seconds, exactly. */
static bool
le_power_of_two(const char *le)
{
	char		 buf[64];
	double		 v = strtod(le, NULL);
	uint64_t	 us = (uint64_t)llround(v * 1e6);
	unsigned	 frac = (unsigned)(us % 1000000);
	int		 d = 6;

	if (us == 0 || (us & (us - 1)) != 0)
		return false;
	while (d > 0 && frac % 10 == 0) {
		frac /= 10;
		d--;
	}
	if (d == 0)
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(us /
		    1000000));
	else
		snprintf(buf, sizeof(buf), "%llu.%0*u", (unsigned long long)(us /
		    1000000), d, frac);
	return strcmp(buf, le) == 0;
}

static void
sample(const char *s, int line)
{
	const char	*p = s, *suffix;
	char		 name[256], key[1024], series[1100], le[64], *end;
	struct family	*f;
	struct hseries	*h;
	double		 v;
	size_t		 n;

	while (*p != '\0' && *p != '{' && *p != ' ')
		p++;
	n = (size_t)(p - s);
	if (n >= sizeof(name) || !valid_name(s, n, true)) {
		bad(line, "%s", "a sample without a valid name");
		return;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	if ((f = family_of(name, &suffix)) == NULL || !f->typed) {
		bad(line, "sample %s before its TYPE", name);
		return;
	}
	if (f->closed)
		bad(line, "family %s comes back after another began", f->name);
	if (open_family != NULL && open_family != f)
		open_family->closed = true;
	open_family = f;
	snprintf(key, sizeof(key), "%s", f->name);
	if (!labels(&p, key, sizeof(key), le, sizeof(le), line))
		return;
	if (*p != ' ') {
		bad(line, "%s", "no space before the value");
		return;
	}
	errno = 0;
	v = strtod(p + 1, &end);
	if (end == p + 1 || (*end != '\0' && *end != ' ') || errno != 0) {
		bad(line, "%s", "a value that is not a number");
		return;
	}
	snprintf(series, sizeof(series), "%s%s%s%s", key, suffix,
	    le[0] != '\0' ? "|le=" : "", le);
	series_once(series, line);
	if (strcmp(f->type, "histogram") != 0) {
		if (le[0] != '\0' && strcmp(f->type, "summary") != 0)
			bad(line, "%s", "le on a sample that is not a bucket");
		if (strcmp(f->type, "counter") == 0 && (v < 0 || isnan(v)))
			bad(line, "%s", "a counter below 0");
		return;
	}
	h = hseries_get(key, line);
	if (strcmp(suffix, "_bucket") == 0) {
		double b;

		if (le[0] == '\0') {
			bad(line, "%s", "a bucket without le");
			return;
		}
		if (h->after_inf)
			bad(line, "%s", "a bucket after +Inf");
		b = strcmp(le, "+Inf") == 0 ? INFINITY : strtod(le, NULL);
		if (!(b > h->last_le))
			bad(line, "le %s does not rise", le);
		if (v < h->last_count)
			bad(line, "bucket le=%s has fewer than the one before "
			    "(not cumulative)", le);
		if (powers_of_two && b != INFINITY && !le_power_of_two(le))
			bad(line, "le %s is not 2^k microseconds written "
			    "exactly", le);
		h->last_le = b;
		h->last_count = v;
		if (b == INFINITY) {
			h->has_inf = true;
			h->after_inf = true;
			h->inf_count = v;
		}
	} else if (strcmp(suffix, "_sum") == 0)
		h->has_sum = true;
	else if (strcmp(suffix, "_count") == 0) {
		h->has_count = true;
		h->count = v;
	} else
		bad(line, "%s", "a histogram sample that is not a bucket, "
		    "_sum or _count");
}

int
main(int argc, char **argv)
{
	char	 buf[LINE_MAX_LEN];
	int	 line = 0;
	size_t	 i, n, samples = 0;

	if (argc == 2 && strcmp(argv[1], "--powers-of-two") == 0)
		powers_of_two = true;
	else if (argc != 1) {
		fprintf(stderr, "usage: promcheck [--powers-of-two] < metrics\n");
		return 2;
	}
	hs = calloc(MAX_SERIES, sizeof(*hs));
	seen = calloc(MAX_SERIES, sizeof(*seen));
	if (hs == NULL || seen == NULL)
		return 2;
	while (fgets(buf, sizeof(buf), stdin) != NULL) {
		line++;
		n = strlen(buf);
		if (n == 0 || buf[n - 1] != '\n') {
			bad(line, "%s", "a line too long, or without its "
			    "newline");
			continue;
		}
		buf[n - 1] = '\0';
		if (buf[0] == '#')
			comment(buf, line);
		else if (buf[0] == '\0')
			bad(line, "%s", "an empty line");
		else {
			sample(buf, line);
			samples++;
		}
	}
	for (i = 0; i < nhs; i++) {
		if (!hs[i].has_inf)
			bad(hs[i].line, "histogram %s has no +Inf bucket",
			    hs[i].key);
		if (!hs[i].has_sum || !hs[i].has_count)
			bad(hs[i].line, "histogram %s lacks _sum or _count",
			    hs[i].key);
		if (hs[i].has_inf && hs[i].has_count &&
		    hs[i].inf_count != hs[i].count)
			bad(hs[i].line, "histogram %s: +Inf is not _count",
			    hs[i].key);
	}
	for (i = 0; i < nfamilies; i++)
		if (!families[i].help)
			bad(0, "family %s has no HELP", families[i].name);
	if (samples == 0)
		bad(line, "%s", "no sample at all");
	if (errors == 0)
		printf("promcheck: %zu samples, %zu families, %zu histogram "
		    "series: ok\n", samples, nfamilies, nhs);
	return errors == 0 ? 0 : 1;
}
