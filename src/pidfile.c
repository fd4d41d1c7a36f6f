/*
 * pidfile.c - writing, locking and removing the pidfile.
 *
 * The lock is a flock(2) on the file itself: it lives as long as the
 * master holds the descriptor, and dies with it, so a pidfile left behind
 * by a crash is recognised as stale and taken over.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pidfile.h"

static int  pid_fd = -1;
static char pid_path[4096];

int
pidfile_check(const char *path, char *err, size_t errlen)
{
	char    buf[32];
	ssize_t n;
	int     fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return 0;	/* no file, or unreadable: create will tell */
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		close(fd);
		return 0;	/* stale */
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(err, errlen, "ferryd is already running (pid %s, pidfile %s)",
	    buf[0] != '\0' ? buf : "unknown", path);
	return -1;
}

int
pidfile_create(const char *path, char *err, size_t errlen)
{
	char tmp[sizeof(pid_path) + 16], line[32];
	int  fd, len;

	if (pidfile_check(path, err, errlen) == -1)
		return -1;
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "pidfile name too long: %s", path);
		return -1;
	}
	/* Written under a temporary name, so no reader sees it half done. */
	fd = mkstemp(tmp);
	if (fd == -1) {
		snprintf(err, errlen, "cannot create pidfile %s: %s", path,
		    strerror(errno));
		return -1;
	}
	len = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (flock(fd, LOCK_EX | LOCK_NB) == -1 || fchmod(fd, 0644) == -1 ||
	    write(fd, line, len) != len || rename(tmp, path) == -1) {
		snprintf(err, errlen, "cannot write pidfile %s: %s", path,
		    strerror(errno));
		unlink(tmp);
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	pid_fd = fd;
	snprintf(pid_path, sizeof(pid_path), "%s", path);
	return 0;
}

void
pidfile_forget(void)
{
	if (pid_fd != -1)
		close(pid_fd);
	pid_fd = -1;
	pid_path[0] = '\0';
}

void
pidfile_remove(void)
{
	if (pid_path[0] != '\0')
		unlink(pid_path);
	pidfile_forget();
}
