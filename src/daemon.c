/*
 * daemon.c - the classic double fork, with a readiness pipe from the
 * daemon back to the process that was started.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

#define READY	'R'	/* then a byte, then end of file */
#define FAILED	'E'	/* then the exit status, the message, end of file */

static int ready_fd = -1;	/* write end, in the daemon until it reports */

/* In the process that was started: wait for the daemon's word, exit. */
static void __attribute__((noreturn))
wait_for_daemon(int fd)
{
	char    buf[1024];
	size_t  len = 0;
	ssize_t n;

	while (len < sizeof(buf) - 1 &&
	    ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0 ||
	    (n == -1 && errno == EINTR)))
		if (n > 0)
			len += n;
	buf[len] = '\0';
	if (len > 0 && buf[0] == READY)
		_exit(0);
	if (len >= 2 && buf[0] == FAILED) {
		fprintf(stderr, "ferryd: %s\n", buf + 2);
		_exit((unsigned char)buf[1]);
	}
	fprintf(stderr, "ferryd: the daemon exited while starting; see its "
	    "log\n");
	_exit(1);
}

int
daemon_detach(char *err, size_t errlen)
{
	int   p[2], fd;
	pid_t pid;

	if (pipe(p) == -1) {
		snprintf(err, errlen, "cannot detach: pipe: %s",
		    strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "cannot detach: fork: %s",
		    strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid > 0) {
		close(p[1]);
		wait_for_daemon(p[0]);
	}
	close(p[0]);
	ready_fd = p[1];
	if (fcntl(ready_fd, F_SETFD, FD_CLOEXEC) == -1 || setsid() == -1)
		goto fail;
	/* Not a session leader: it can never get a terminal again. */
	if ((pid = fork()) == -1)
		goto fail;
	if (pid > 0)
		_exit(0);
	if (chdir("/") == -1 || (fd = open("/dev/null", O_RDWR)) == -1)
		goto fail;
	if (dup2(fd, STDIN_FILENO) == -1 || dup2(fd, STDOUT_FILENO) == -1 ||
	    dup2(fd, STDERR_FILENO) == -1)
		goto fail;
	if (fd > STDERR_FILENO)
		close(fd);
	return 0;
fail:
	snprintf(err, errlen, "cannot detach: %s", strerror(errno));
	daemon_fail(err, 1);
	_exit(1);
}

/* Say one thing to the waiting process, and close the pipe. */
static void
daemon_say(char kind, unsigned char status, const char *msg)
{
	char   buf[1024];
	size_t len;

	if (ready_fd == -1)
		return;
	buf[0] = kind;
	buf[1] = (char)status;
	len = 2 + (size_t)snprintf(buf + 2, sizeof(buf) - 2, "%s", msg);
	if (len > sizeof(buf) - 1)
		len = sizeof(buf) - 1;
	if (write(ready_fd, buf, len) == -1) {
		/* The waiting process is gone: nobody to tell. */
	}
	daemon_forget();
}

void
daemon_ready(void)
{
	daemon_say(READY, 0, "");
}

void
daemon_fail(const char *why, int status)
{
	/* Never 0, which would tell success. */
	daemon_say(FAILED, status > 0 && status < 256 ? status : 1, why);
}

void
daemon_forget(void)
{
	if (ready_fd != -1)
		close(ready_fd);
	ready_fd = -1;
}
