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
