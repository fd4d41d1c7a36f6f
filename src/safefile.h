/*
 * safefile.h - opening the files ferryd writes as root (log_file,
 * access_log, pidfile) so that no other user can redirect the writes.
 */
#ifndef FERRYD_SAFEFILE_H
#define FERRYD_SAFEFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode), refusing a path whose
 * last component is a symbolic link (a local user could point it at any
 * file root would then append to) or whose directory others may write to
 * (they could swap the file).  Returns the descriptor, or -1 with
 * "cannot open WHAT PATH: reason" in err.
 */
int	safefile_open(const char *path, int flags, mode_t mode,
	    const char *what, char *err, size_t errlen);

#endif
