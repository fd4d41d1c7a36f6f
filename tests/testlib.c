/*
 * testlib.c - helpers shared by the unit tests; see testlib.h.
 */
#include "ferryd.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "testlib.h"

char		 tmpdir[1024];	/* short enough for "tmpdir/name" paths */
static int	 ntests, nfailed;

void
check(int ok, const char *fmt, ...)
{
	va_list	ap;

	ntests++;
	if (!ok)
		nfailed++;
	printf("%s %d - ", ok ? "ok" : "not ok", ntests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

int
test_summary(void)
{
	printf("%d passed, %d failed\n", ntests - nfailed, nfailed);
	return nfailed == 0 ? 0 : 1;
}

void
make_tmpdir(const char *name)
{
	const char	*base;

	if ((base = getenv("TMPDIR")) == NULL || base[0] == '\0')
		base = "/tmp";
	if ((size_t)snprintf(tmpdir, sizeof(tmpdir), "%s/%s.XXXXXX", base,
	    name) >= sizeof(tmpdir)) {
		fprintf(stderr, "TMPDIR is too long\n");
		exit(1);
	}
	if (mkdtemp(tmpdir) == NULL) {
		perror(tmpdir);
		exit(1);
	}
}

void
remove_tmpdir(void)
{
	char		 path[PATH_MAX + 256];
	DIR		*dir;
	struct dirent	*de;

	if ((dir = opendir(tmpdir)) == NULL) {
		perror(tmpdir);
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, de->d_name);
		if (unlink(path) == -1)
			perror(path);
	}
	closedir(dir);
	if (rmdir(tmpdir) == -1)
		perror(tmpdir);
}

void
write_conf(const char *name, const char *text, char *path, size_t len)
{
	FILE	*fp;

	snprintf(path, len, "%s/%s", tmpdir, name);
	if ((fp = fopen(path, "w")) == NULL || fputs(text, fp) == EOF ||
	    fclose(fp) == EOF) {
		perror(path);
		exit(1);
	}
}

void
write_bytes(const char *name, const char *bytes, size_t len, char *path,
    size_t pathlen)
{
	FILE	*fp;

	snprintf(path, pathlen, "%s/%s", tmpdir, name);
	if ((fp = fopen(path, "w")) == NULL ||
	    fwrite(bytes, 1, len, fp) != len || fclose(fp) == EOF) {
		perror(path);
		exit(1);
	}
}

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

int
streq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

int
port_of(const struct sockaddr_any *a)
{
	return (int)addr_port((const struct sockaddr *)&a->ss);
}

size_t
unhex(const char *hex, uint8_t *out, size_t size)
{
	size_t		n = 0;
	unsigned	v;

	for (; *hex != '\0'; hex++) {
		if (isspace((unsigned char)*hex))
			continue;
		if (n >= 2 * size || !isxdigit((unsigned char)*hex)) {
			fprintf(stderr, "unhex: bad or too long input\n");
			exit(1);
		}
		v = (unsigned)(isdigit((unsigned char)*hex) ? *hex - '0' :
		    tolower((unsigned char)*hex) - 'a' + 10);
		if (n % 2 == 0)
			out[n / 2] = (uint8_t)(v << 4);
		else
			out[n / 2] |= (uint8_t)v;
		n++;
	}
	return n / 2;
}
