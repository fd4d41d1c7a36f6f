/*
 * conf_fuzz.c - what the configuration harnesses share (conf_fuzz.h).
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "conf_fuzz.h"

/* The file -T's output is written to, made once. */
static char shown[] = "/tmp/ferryd-fuzz-shown.XXXXXX";
static int  shown_fd = -1;

/* The files made, removed at exit: a replay leaves nothing in /tmp. */
#define TEMP_FILES	4
static const char *temps[TEMP_FILES];
static int	   ntemps;

static void
remove_temps(void)
{
	while (ntemps > 0)
		unlink(temps[--ntemps]);
}

int
fuzz_temp_file(char *tmpl)
{
	int	f;

	if (ntemps == TEMP_FILES || (f = mkstemp(tmpl)) == -1)
		abort();
	if (ntemps == 0)
		atexit(remove_temps);
	temps[ntemps++] = tmpl;
	return f;
}

void
fuzz_put_file(int f, const void *data, size_t size)
{
	struct timespec	 old[2] = { { 0, UTIME_OMIT }, { 0, 0 } };

	if (ftruncate(f, 0) == -1 || pwrite(f, data, size, 0) !=
	    (ssize_t)size)
		abort();
	old[1].tv_sec = time(NULL) - 3600;
	if (futimens(f, old) == -1)
		abort();
}

/* -T of cfg into *text (malloc'd, NUL-terminated), its length. */
static size_t
show(const struct conf *cfg, char **text)
{
	FILE	*f;
	size_t	 len = 0;

	if ((f = open_memstream(text, &len)) == NULL || conf_show(f, cfg) == -1)
		abort();
	fclose(f);
	return len;
}

void
fuzz_check_show(const struct conf *cfg)
{
	struct conf	*again;
	char		 err[CONF_ERR_MAX], *t1, *t2;
	size_t		 n1, n2;

	if (shown_fd == -1)
		shown_fd = fuzz_temp_file(shown);
	n1 = show(cfg, &t1);
	fuzz_put_file(shown_fd, t1, n1);
	if ((again = conf_load_syntax(shown, CONF_SYNTAX_LIBCONFIG, err,
	    sizeof(err))) == NULL) {
		fprintf(stderr, "-T's output is refused: %s\n%s", err, t1);
		abort();
	}
	n2 = show(again, &t2);
	if (n1 != n2 || memcmp(t1, t2, n1) != 0) {
		fprintf(stderr, "-T is not a fixed point:\n%s---\n%s", t1, t2);
		abort();
	}
	free(t1);
	free(t2);
	conf_free(again);
}
