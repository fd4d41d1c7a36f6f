/*
 * pidfile.h - a locked pidfile: proof that one ferryd owns this name.
 */
#ifndef FERRYD_PIDFILE_H
#define FERRYD_PIDFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * A daemon's pidfile when neither -p nor the configuration names one: in
 * a directory of its own, the one the systemd unit's RuntimeDirectory=
 * makes, and the same path the unit and the init script give with -p, so
 * that "ferryd -s stop" finds a daemon they started.
 */
#define PIDFILE_DEFAULT	RUNSTATEDIR "/ferryd/ferryd.pid"

/*
 * Whether path's directory is one the master makes when it is missing:
 * a directory of the run-state directory's own (RUNSTATEDIR/NAME/FILE,
 * or /run/NAME/FILE and /var/run/NAME/FILE: the system's), which a
 * reboot empties when it is a tmpfs.  No other: a pidfile the user
 * names elsewhere needs the directory the user made.
 */
bool pidfile_makes_dir(const char *path);

/*
 * Open path (creating it, and its directory where pidfile_makes_dir()
 * says so: mode 0755) and lock it, for good: the lock is on the file
 * itself, at its final name, so two instances starting at once cannot
 * both get it; it belongs to the open file, so it survives the forks
 * that detach the daemon.  "ferryd is already running (pid N, pidfile
 * PATH)" when another process holds it.  Returns 0, or -1 with err.
 */
int  pidfile_lock(const char *path, char *err, size_t errlen);
/*
 * The pid of the master that holds path's lock, or -1 with err set: "ferryd
 * is not running (no pidfile PATH)" or "(stale pidfile PATH)" when no one
 * holds it, and a pidfile whose text is not a pid is refused.  A pid is
 * trusted only with the lock: a dead master's may belong to anyone now.
 */
pid_t pidfile_holder(const char *path, char *err, size_t errlen);
/*
 * Take over fd, the locked pidfile of the image an upgrade replaced (its
 * lock crosses exec with the descriptor, so no one else can take it
 * meanwhile), if it is the file at path: 0, or -1 for pidfile_lock() to
 * lock it anew (path NULL: no pidfile now).  A descriptor not taken is
 * left open: the caller keeps it for a way back (master_adopt.c).
 */
int  pidfile_adopt(int fd, const char *path);
/* The locked pidfile's descriptor, or -1: what an upgrade carries. */
int  pidfile_fd(void);
/* Write our pid into the locked file (once detached). */
int  pidfile_write(char *err, size_t errlen);
/* Close the lock without removing the file (in a forked worker). */
void pidfile_forget(void);
/* Remove the file (master, at exit). */
void pidfile_remove(void);

#endif
