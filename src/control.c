/*
 * control.c - "ferryd -s ACTION": send a signal to the running master.
 *
 * A pidfile on its own proves nothing: the master may have been killed
 * and its pid reused by an unrelated process.  pidfile_holder() trusts
 * the pid only while a master holds the pidfile's lock.
 */
#include "ferryd.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "control.h"
#include "pidfile.h"

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

int
control_send(const char *pidfile, int signo, char *err, size_t errlen)
{
	pid_t pid;

	if ((pid = pidfile_holder(pidfile, err, errlen)) == -1)
		return -1;
	if (kill(pid, signo) == -1) {
		snprintf(err, errlen, "cannot send %s to ferryd (pid %ld, "
		    "pidfile %s): %s", control_signame(signo), (long)pid,
		    pidfile, strerror(errno));
		return -1;
	}
	return 0;
}
