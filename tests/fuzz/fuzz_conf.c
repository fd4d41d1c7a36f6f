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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "conf_fuzz.h"

#ifndef FUZZ_SYNTAX
#define FUZZ_SYNTAX	CONF_SYNTAX_LIBCONFIG
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file every input is written to, made once. */
static char path[] = "/tmp/ferryd-fuzz-conf.XXXXXX";
static int  fd = -1;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf	*cfg;
	char		 err[CONF_ERR_MAX];
	size_t		 i;

	if (fd == -1)
		fd = fuzz_temp_file(path);
	fuzz_put_file(fd, data, size);
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
	fuzz_check_show(cfg);
	conf_free(cfg);
	return 0;
}
