/*
 * master_statefile.h - state_file: what the operator said at run time
 * (a backend drained, disabled or re-weighted; the host drained) kept
 * across restarts, as HAProxy's server-state-file.  A reload needs no
 * file: the health cells and the scoreboard carry it over.
 */
#ifndef FERRYD_MASTER_STATEFILE_H
#define FERRYD_MASTER_STATEFILE_H

#include <stddef.h>

struct conf;

/*
 * At start, once the health table and the scoreboard are made: read
 * cfg's state_file into them, then write it back as it now stands.  A
 * line that cannot be read is a warning naming FILE:LINE, an entry of
 * a backend no longer in cfg an info line (it is dropped): a state file
 * never stops a start.  Nothing without state_file.
 */
void	master_statefile_load(const struct conf *cfg);

/*
 * Write the state as it is now to cfg's state_file, atomically, and sync
 * its directory: 0 (also without state_file, and when only the
 * directory's sync failed: that is a warning logged once until a sync
 * works again), or -1 with err.
 */
int	master_statefile_save(const struct conf *cfg, char *err,
    size_t errlen);

#endif
