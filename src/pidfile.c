/*
 * pidfile.c - locking, writing and removing the pidfile.
 *
 * The lock is a flock(2) on the file itself, taken before anything is
 * bound: it lives as long as the master holds the descriptor and dies
 * with it, so a pidfile left behind by a crash is stale and taken over,
 * and of two instances started at once exactly one gets it.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pidfile.h"
#include "safefile.h"

static int  pid_fd = -1;
static char pid_path[4096];

/*
 * The pid in the file of fd, or 0 when it holds none: decimal digits, an
 * optional newline and nothing else, and a value a process can have (not
 * 0, which kill(2) takes for our own process group).
 */
static pid_t
read_pid(int fd)
{
	char    buf[32];
	ssize_t n;
	long    pid = 0;
	int     i;

	if ((n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return 0;
	buf[n] = '\0';
	for (i = 0; buf[i] >= '0' && buf[i] <= '9'; i++)
		if ((pid = pid * 10 + (buf[i] - '0')) > INT_MAX)
			return 0;
	if (i == 0 || (buf[i] != '\0' && strcmp(buf + i, "\n") != 0))
		return 0;
	return (pid_t)pid;
}

/* Whether path is DIR/NAME/FILE: one slash, inside, after "DIR/". */
static bool
one_below(const char *path, const char *dir)
{
	size_t		 n = strlen(dir);
	const char	*name, *slash;

	if (strncmp(path, dir, n) != 0 || path[n] != '/')
		return false;
	name = path + n + 1;
	slash = strchr(name, '/');
	return slash != NULL && slash != name && slash == strrchr(name, '/') &&
	    slash[1] != '\0';
}

bool
pidfile_makes_dir(const char *path)
{
	/* This build's, and the system's (another build's, sslh's). */
	return one_below(path, RUNSTATEDIR) || one_below(path, "/run") ||
	    one_below(path, "/var/run");
}

int
pidfile_lock(const char *path, char *err, size_t errlen)
{
	pid_t pid;
	int   fd;

	if (strlen(path) >= sizeof(pid_path)) {
		snprintf(err, errlen, "pidfile name too long: %s", path);
		return -1;
	}
	if (pidfile_makes_dir(path) &&
	    safefile_mkdir(path, 0755, "pidfile", err, errlen) == -1)
		return -1;
	fd = safefile_open(path, O_RDWR | O_CREAT, 0644, "pidfile", err,
	    errlen);
	if (fd == -1)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK) {
			if ((pid = read_pid(fd)) > 0)
				snprintf(err, errlen, "ferryd is already "
				    "running (pid %ld, pidfile %s)", (long)pid,
				    path);
			else
				snprintf(err, errlen, "ferryd is already "
				    "running (pidfile %s is locked)", path);
		} else
			snprintf(err, errlen, "cannot lock pidfile %s: %s",
			    path, strerror(errno));
		close(fd);
		return -1;
	}
	pid_fd = fd;
	snprintf(pid_path, sizeof(pid_path), "%s", path);
	return 0;
}

int
pidfile_adopt(int fd, const char *path)
{
	struct stat held, named;

	if (fd < 0)
		return -1;
	if (path == NULL || strlen(path) >= sizeof(pid_path) ||
	    fstat(fd, &held) == -1 ||
	    lstat(path, &named) == -1 || held.st_dev != named.st_dev ||
	    held.st_ino != named.st_ino)
		return -1;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	pid_fd = fd;
	snprintf(pid_path, sizeof(pid_path), "%s", path);
	return 0;
}

int
pidfile_fd(void)
{
	return pid_fd;
}

pid_t
pidfile_holder(const char *path, char *err, size_t errlen)
{
	pid_t pid = -1;
	int   fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			snprintf(err, errlen, "ferryd is not running (no "
			    "pidfile %s)", path);
		else
			snprintf(err, errlen, "cannot open pidfile %s: %s",
			    path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_SH | LOCK_NB) == 0)
		snprintf(err, errlen, "ferryd is not running (stale pidfile "
		    "%s)", path);
	else if (errno != EWOULDBLOCK)
		snprintf(err, errlen, "cannot lock pidfile %s: %s", path,
		    strerror(errno));
	else if ((pid = read_pid(fd)) == 0) {
		/* A master that has only just taken the lock, or garbage. */
		snprintf(err, errlen, "pidfile %s does not hold a process ID",
		    path);
		pid = -1;
	}
	close(fd);
	return pid;
}

int
pidfile_write(char *err, size_t errlen)
{
	char line[32];
	int  len;

	if (pid_fd == -1)
		return 0;
	len = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (ftruncate(pid_fd, 0) == -1 ||
	    pwrite(pid_fd, line, len, 0) != len) {
		snprintf(err, errlen, "cannot write pidfile %s: %s", pid_path,
		    strerror(errno));
		return -1;
	}
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
