/*
 * master_statefile.h - state_file: what the operator said at run time
 * (a backend drained, disabled or re-weighted; the host drained) kept
 * across restarts, as HAProxy's server-state-file.  A reload needs no
 * file: the health cells and the scoreboard carry it over.
 */
#ifndef FERRYD_MASTER_STATEFILE_H
#define FERRYD_MASTER_STATEFILE_H

#include <stddef.h>

struct rule;

/*
 * At start, once the health table and the scoreboard are made: read
 * the state file at path (state_file) into them for the configuration's
 * nrules rules, then write it back as it now stands.  A line that cannot
 * be read is a warning naming FILE:LINE, an entry of a backend no longer
 * in rules an info line (it is dropped): a state file never stops a
 * start.  Nothing when path is NULL.
 */
void	master_statefile_load(const char *path, const struct rule *rules,
	    size_t nrules);

/*
 * Write the state of rules' backends as it is now to path (state_file),
 * atomically, and sync its directory: 0 (also when path is NULL, and
 * when only the directory's sync failed: that is a warning logged once
 * until a sync works again), or -1 with err.
 */
int	master_statefile_save(const char *path, const struct rule *rules,
	    size_t nrules, char *err, size_t errlen);

#endif
