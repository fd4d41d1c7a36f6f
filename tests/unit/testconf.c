/*
 * testconf.c - the unit tests' helpers that load configurations (see
 * testlib.h): apart from testlib.c so that a test that loads none
 * (test_bug.c) links without the loader.
 */
#include "ferryd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "testlib.h"

struct conf *
load_text(const char *name, const char *text, char *path, size_t pathlen,
    char *err, size_t errlen)
{
	write_conf(name, text, path, pathlen);
	err[0] = '\0';
	return conf_load(path, err, errlen);
}

struct conf *
load_good(const char *name, const char *text, char *path, size_t pathlen,
    const char *desc)
{
	char		 err[CONF_ERR_MAX];
	struct conf	*cfg;

	cfg = load_text(name, text, path, pathlen, err, sizeof(err));
	check(cfg != NULL, "%s: loads", desc);
	if (cfg == NULL)
		printf("#   got \"%s\"\n", err);
	return cfg;
}

void
check_error(const char *desc, struct conf *cfg, const char *path, int line,
    const char *err, const char *keyword)
{
	char	prefix[PATH_MAX + 32];
	int	ok;

	if (line > 0)
		snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", path);
	ok = cfg == NULL && strncmp(err, prefix, strlen(prefix)) == 0 &&
	    strstr(err, keyword) != NULL;
	check(ok, "%s is refused", desc);
	if (!ok || getenv("TEST_VERBOSE") != NULL)
		printf("#   want \"%s...%s\"\n#   got  \"%s\"\n", prefix,
		    keyword, err);
	conf_free(cfg);
}

void
check_bad_cases(const struct bad_case *cases, size_t n, const char *name,
    struct conf *(*load)(const char *, char *, size_t))
{
	char		 file[64], path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;
	size_t		 i;

	for (i = 0; i < n; i++) {
		snprintf(file, sizeof(file), "%s-%02zu", name, i);
		write_conf(file, cases[i].text, path, sizeof(path));
		err[0] = '\0';
		cfg = load(path, err, sizeof(err));
		check_error(cases[i].desc, cfg, path, cases[i].line, err,
		    cases[i].keyword);
	}
}
