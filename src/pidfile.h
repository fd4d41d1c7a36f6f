/*
 * pidfile.h - a locked pidfile: proof that one ferryd owns this name.
 */
#ifndef FERRYD_PIDFILE_H
#define FERRYD_PIDFILE_H

#include <stddef.h>

/*
 * Fail with "ferryd is already running (pid N)" when another live process
 * holds the lock on path; a stale file is fine.  Call before detaching, so
 * the user sees the error.
 */
int  pidfile_check(const char *path, char *err, size_t errlen);
/* Write our pid to path atomically and keep it locked while we live. */
int  pidfile_create(const char *path, char *err, size_t errlen);
/* Close the lock without removing the file (in a forked worker). */
void pidfile_forget(void);
/* Remove the file (master, at exit). */
void pidfile_remove(void);

#endif
