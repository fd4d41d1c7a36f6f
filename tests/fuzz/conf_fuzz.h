/*
 * conf_fuzz.h - what the configuration harnesses (fuzz_conf.c,
 * fuzz_sslh.c) share: writing an input to the file the loader reads,
 * and the check that what ferryd -T writes of a loaded configuration
 * loads again and is written the same.
 */
#ifndef FERRYD_CONF_FUZZ_H
#define FERRYD_CONF_FUZZ_H

#include <stddef.h>

struct conf;

/* mkstemp(tmpl), the file removed at exit; aborts if it cannot be made. */
int	fuzz_temp_file(char *tmpl);

/* Write data to fd, an hour old: the loader does not wait for it. */
void	fuzz_put_file(int fd, const void *data, size_t size);

/* -T's output of cfg loads again, and is written the same; else abort. */
void	fuzz_check_show(const struct conf *cfg);

#endif
