/*
 * control.c - "ferryd -s ACTION": send a signal to the running master.
 *
 * A pidfile on its own proves nothing: the master may have been killed
 * and its pid reused by an unrelated process.  The master keeps an
 * exclusive flock(2) on the pidfile for as long as it lives, so the pid
 * is trusted only when a shared lock cannot be had.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "control.h"

static const struct {
	const char *action;
	int         signo;
	const char *signame;
} actions[] = {
	{ "reload", SIGHUP,  "SIGHUP" },
	{ "stop",   SIGTERM, "SIGTERM" },
	{ "quit",   SIGQUIT, "SIGQUIT" },
	{ "reopen", SIGUSR1, "SIGUSR1" },
};

int
control_signo(const char *action)
{
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (strcmp(actions[i].action, action) == 0)
			return actions[i].signo;
	return -1;
}

static const char *
control_signame(int signo)
{
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (actions[i].signo == signo)
			return actions[i].signame;
	return "a signal";
}

/*
 * Parse the pidfile's text strictly: decimal digits, an optional newline,
 * nothing else, and a value a process can have (not 0, which kill(2)
 * takes for our own process group).  Returns the pid or -1.
 */
static pid_t
control_parse_pid(const char *text)
{
	long        pid = 0;
	const char *p;

	for (p = text; *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > INT_MAX)
			return -1;
	}
	if (p == text)
		return -1;
	if (*p == '\n')
		p++;
	if (*p != '\0' || pid == 0)
		return -1;
	return (pid_t)pid;
}

/*
 * The pid of the master holding pidfile's lock, or -1 with err set.  A
 * master that has only just taken the lock may not have written its pid
 * yet: that reads as a pidfile without a process ID, and nothing is sent.
 */
static pid_t
control_master_pid(const char *pidfile, char *err, size_t errlen)
{
	char    text[32];
	ssize_t n;
	pid_t   pid;
	int     fd;

	if ((fd = open(pidfile, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			snprintf(err, errlen, "ferryd is not running (no "
			    "pidfile %s)", pidfile);
		else
			snprintf(err, errlen, "cannot open pidfile %s: %s",
			    pidfile, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		snprintf(err, errlen, "ferryd is not running (stale pidfile "
		    "%s)", pidfile);
		close(fd);
		return -1;
	}
	if (errno != EWOULDBLOCK) {
		snprintf(err, errlen, "cannot lock pidfile %s: %s", pidfile,
		    strerror(errno));
		close(fd);
		return -1;
	}
	n = read(fd, text, sizeof(text) - 1);
	if (n == -1) {
		snprintf(err, errlen, "cannot read pidfile %s: %s", pidfile,
		    strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	text[n] = '\0';
	if ((pid = control_parse_pid(text)) == -1)
		snprintf(err, errlen, "pidfile %s does not hold a process ID",
		    pidfile);
	return pid;
}

int
control_send(const char *pidfile, int signo, char *err, size_t errlen)
{
	pid_t pid;

	if ((pid = control_master_pid(pidfile, err, errlen)) == -1)
		return -1;
	if (kill(pid, signo) == -1) {
		snprintf(err, errlen, "cannot send %s to ferryd (pid %ld, "
		    "pidfile %s): %s", control_signame(signo), (long)pid,
		    pidfile, strerror(errno));
		return -1;
	}
	return 0;
}
