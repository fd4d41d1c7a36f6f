/*
 * fuzz_conf.c - libFuzzer harness for the configuration loader: the
 * bytes are a file, read as FUZZ_SYNTAX says (a ferryd.conf, through
 * libconfig and the key tables; or a rinetd.conf, converted and then
 * loaded), so every check and every error path of the schema runs.  It
 * is built with -DFERRYD_FUZZING, which resolves no host name.  A file
 * refused must say why; one accepted must hold together, and what
 * ferryd -T writes of it must load again and be written the same.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"

#ifndef FUZZ_SYNTAX
#define FUZZ_SYNTAX	CONF_SYNTAX_LIBCONFIG
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file every input is written to, made once; and -T's output. */
static char path[] = "/tmp/ferryd-fuzz-conf.XXXXXX";
static char shown[] = "/tmp/ferryd-fuzz-shown.XXXXXX";
static int  fd = -1, shown_fd = -1;

/* Write data to fd, an hour old: the loader does not wait for it. */
static void
put_file(int f, const void *data, size_t size)
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

/* -T's output loads again, and is written the same: a fixed point. */
static void
check_show(const struct conf *cfg)
{
	struct conf	*again;
	char		 err[CONF_ERR_MAX], *t1, *t2;
	size_t		 n1, n2;

	if (shown_fd == -1 && (shown_fd = mkstemp(shown)) == -1)
		abort();
	n1 = show(cfg, &t1);
	put_file(shown_fd, t1, n1);
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf	*cfg;
	char		 err[CONF_ERR_MAX];
	size_t		 i;

	if (fd == -1 && (fd = mkstemp(path)) == -1)
		abort();
	put_file(fd, data, size);
	err[0] = '\0';
	cfg = conf_load_syntax(path, FUZZ_SYNTAX, err, sizeof(err));
	if (cfg == NULL) {
		if (err[0] == '\0')
			abort();	/* refused without a reason */
		return 0;
	}
	if (cfg->nrules == 0 || cfg->workers < 1)
		abort();
	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].upstream.nbackends == 0 ||
		    cfg->rules[i].name == NULL ||
		    cfg->rules[i].stat >= cfg->nrule_stats)
			abort();
	check_show(cfg);
	conf_free(cfg);
	return 0;
}
