/*
 * safefile.h - opening the files ferryd writes as root (log_file,
 * access_log, pidfile, state_file, status_file) so that no other user
 * can redirect the writes.
 */
#ifndef FERRYD_SAFEFILE_H
#define FERRYD_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode), refusing a path whose
 * last component is a symbolic link (a local user could point it at any
 * file root would then append to) or whose directory others may write to
 * (they could swap the file), unless it is sticky as /tmp is, where only
 * a regular file of ours or root's is taken.  A file it makes has mode
 * exactly, whatever the umask.  Returns the descriptor, or -1 with
 * "cannot open WHAT PATH: reason" in err.
 */
/*
 * Make the directory path is in if it is missing (only that one, not its
 * parents), with mode exactly, owned by the caller: /run is emptied at
 * boot, and not every init system makes a daemon's directory there.  It
 * is made only in a directory no one else may write to, as safefile_open
 * asks of a file's.  An existing directory is left as it is, for
 * safefile_open to judge.  Returns 0, or -1 with err set.
 */
int	safefile_mkdir(const char *path, mode_t mode, const char *what,
	    char *err, size_t errlen);
int	safefile_open(const char *path, int flags, mode_t mode,
	    const char *what, char *err, size_t errlen);
/*
 * What safefile_open() would refuse of path (after safefile_mkdir() when
 * makes_dir), said without opening or making anything (ferryd -t): 0, or
 * -1 with err.
 */
int	safefile_check(const char *path, bool makes_dir, const char *what,
	    char *err, size_t errlen);
/*
 * Replace the file at path with the len bytes at data, atomically: they
 * go to PATH.tmp (made anew, never through a link), reach the disk
 * (fsync), then the rename puts them in place, so that a crash leaves
 * the old file or the new one, never half of one; the directory is then
 * synced so that the rename itself outlasts a power cut.  The directory
 * is judged as safefile_open does.  0; 1 when the file is in place but
 * its directory could not be synced, with why in err (a warning: the
 * new file is there); or -1 with "cannot write WHAT PATH: reason" in
 * err.
 */
int	safefile_replace(const char *path, const char *data, size_t len,
	    mode_t mode, const char *what, char *err, size_t errlen);
/*
 * The same without the syncs, for a file rewritten often whose loss in a
 * power cut costs nothing (status_file): a reader still finds the old
 * file or the new one whole, and the writer never waits for the disk.
 * 0, or -1 with err.
 */
int	safefile_replace_unsynced(const char *path, const char *data,
	    size_t len, mode_t mode, const char *what, char *err,
	    size_t errlen);

#endif
