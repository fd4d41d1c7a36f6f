/*
 * master.h - the master process: owns the listen set, starts and
 * supervises the workers, reloads, stops.
 */
#ifndef FERRYD_MASTER_H
#define FERRYD_MASTER_H

#include "options.h"

struct conf;

/*
 * Run the master with the loaded cfg, which it owns from now on (a reload
 * replaces it); returns the exit status.
 */
int master_run(struct conf *cfg, const struct options *opt);

#endif
