/*
 * master.h - the master process: owns the listen set, starts and
 * supervises the workers, reloads, stops.
 */
#ifndef FERRYD_MASTER_H
#define FERRYD_MASTER_H

#include "conf.h"

struct options {
	const char *config_path;	/* absolute */
	const char *pidfile;		/* -p, or NULL */
	int         log_level;		/* -l, or -1 */
	int         config_syntax;	/* enum conf_syntax: --rinetd */
	bool        foreground;
};

/*
 * Run the master with the loaded cfg, which it owns from now on (a reload
 * replaces it); returns the exit status.
 */
int master_run(struct conf *cfg, const struct options *opt);

#endif
