/*
 * ask_daemon.c - the client side of "ferryd -s ACTION" and "ferryd -x
 * COMMAND": signal the running master, wait for its answer, or send a
 * command to its control socket (whose server is master_control.c).
 *
 * A pidfile on its own proves nothing: the master may have been killed
 * and its pid reused by an unrelated process.  pidfile_holder() trusts
 * the pid only while a master holds the pidfile's lock.
 */
#include "ferryd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "ask_daemon.h"
#include "outcome.h"
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
	{ "drain",  SIGUSR2, "SIGUSR2" },
	{ "upgrade", SIGURG, "SIGURG" },
};

int
ask_signo(const char *action)
{
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (strcmp(actions[i].action, action) == 0)
			return actions[i].signo;
	return -1;
}

static const char *
signal_name(int signo)
{
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (actions[i].signo == signo)
			return actions[i].signame;
	return "a signal";
}

int
ask_send(const char *pidfile, int signo, char *err, size_t errlen)
{
	pid_t pid;

	if ((pid = pidfile_holder(pidfile, err, errlen)) == -1)
		return -1;
	if (kill(pid, signo) == -1) {
		snprintf(err, errlen, "cannot send %s to ferryd (pid %ld, "
		    "pidfile %s): %s", signal_name(signo), (long)pid,
		    pidfile, strerror(errno));
		return -1;
	}
	return 0;
}

/* Ask with signo (carrying our pid) and wait for the outcome that covers us. */
static int
ask_and_wait(const char *pidfile, int signo, const char *doing, char *what,
    size_t whatlen, char *err, size_t errlen)
{
	struct outcome	 now;
	/*
	 * A reload of thousands of rules is over in a few tenths of a
	 * second: a tick of 100 ms made the answer wait 50 ms on average.
	 */
	struct timespec	 tick = { 0, 10 * 1000 * 1000 };
	union sigval	 me;
	char		 path[4096];
	pid_t		 pid;
	int		 i;

	outcome_path(pidfile, path, sizeof(path));
	if ((pid = pidfile_holder(pidfile, err, errlen)) == -1)
		return -1;
	/* Our pid with the signal: the outcome that covers it is ours. */
	me.sival_int = (int)getpid();
	if (sigqueue(pid, signo, me) == -1) {
		snprintf(err, errlen, "cannot send %s to ferryd (pid %ld, "
		    "pidfile %s): %s", signal_name(signo), (long)pid,
		    pidfile, strerror(errno));
		return -1;
	}
	for (i = 0; i < ASK_RELOAD_WAIT_S * 100; i++) {
		nanosleep(&tick, NULL);
		outcome_read(path, &now);
		if (outcome_covers(&now, me.sival_int)) {
			snprintf(now.ok ? what : err, now.ok ? whatlen : errlen,
			    "%s", now.text);
			return now.ok ? 0 : -1;
		}
		if (kill(pid, 0) == -1 && errno == ESRCH) {
			snprintf(err, errlen, "ferryd (pid %ld) exited during "
			    "the %s; see its log", (long)pid, doing);
			return -1;
		}
	}
	snprintf(err, errlen, "ferryd (pid %ld) did not say how the %s "
	    "went within %d s (%s); see its log", (long)pid, doing,
	    ASK_RELOAD_WAIT_S, path);
	return -1;
}

int
ask_reload(const char *pidfile, char *what, size_t whatlen, char *err,
    size_t errlen)
{
	return ask_and_wait(pidfile, SIGHUP, "reload", what, whatlen, err,
	    errlen);
}

int
ask_upgrade(const char *pidfile, char *what, size_t whatlen, char *err,
    size_t errlen)
{
	return ask_and_wait(pidfile, SIGURG, "upgrade", what, whatlen, err,
	    errlen);
}

/* A socket connected to the control socket at path; -1 with err. */
static int
connect_control_socket(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un	sun;
	int			fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "control socket path too long: %s", path);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		snprintf(err, errlen, "cannot connect to the control socket "
		    "%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	return fd;
}

int
ask_command(const char *path, const char *command, FILE *out,
    char *err, size_t errlen)
{
	struct timeval	 tv = { ASK_COMMAND_WAIT_S, 0 };
	char		 line[4096];
	FILE		*in;
	int		 fd, rc = -1;

	if ((fd = connect_control_socket(path, err, errlen)) == -1)
		return -1;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (dprintf(fd, "%s\n", command) < 0 || (in = fdopen(fd, "r")) ==
	    NULL) {
		snprintf(err, errlen, "cannot send to %s: %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), in) != NULL) {
		if (strcmp(line, "ok\n") == 0) {
			rc = 0;
			break;
		}
		if (strncmp(line, "error:", 6) == 0) {
			fputs(line, stderr);
			rc = 1;
			break;
		}
		fputs(line, out);
	}
	if (rc == -1)
		snprintf(err, errlen, "%s closed or said nothing more within "
		    "%d s before its answer's end", path,
		    ASK_COMMAND_WAIT_S);
	fclose(in);
	return rc;
}

/* How long "ferryd -s status" waits for the daemon, each way. */
#define STATUS_TIMEOUT_S	5

/* A blocking socket connected to cfg's stats_listen, or -1 (err set). */
static int
status_connect(const struct conf *cfg, char *err, size_t errlen)
{
	struct sockaddr_un	 sun;
	struct timeval		 tv = { STATUS_TIMEOUT_S, 0 };
	const struct sockaddr	*to;
	socklen_t		 len;
	int			 fd;

	if (cfg->stats_path != NULL) {
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s",
		    cfg->stats_path);
		to = (const struct sockaddr *)&sun;
		len = sizeof(sun);
	} else {
		to = (const struct sockaddr *)&cfg->stats_addr.ss;
		len = cfg->stats_addr.len;
	}
	if ((fd = socket(to->sa_family, SOCK_STREAM, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == -1 ||
	    connect(fd, to, len) == -1) {
		snprintf(err, errlen, "cannot connect to the stats endpoint "
		    "%s: %s (is ferryd running?)", cfg->stats_listen,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	return fd;
}

int
ask_status(const struct conf *cfg, FILE *out, char *err, size_t errlen)
{
	static const char	 req[] = "GET /status.txt HTTP/1.0\r\n\r\n";
	char			*buf = NULL, *p, *body;
	size_t			 len = 0, cap = 0;
	ssize_t			 n;
	int			 fd;

	if (cfg->stats_listen == NULL) {
		snprintf(err, errlen, "%s has no stats_listen: ferryd -s status "
		    "asks the running daemon through it", cfg->path);
		return -1;
	}
	if ((fd = status_connect(cfg, err, errlen)) == -1)
		return -1;
	if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(req) - 1) {
		snprintf(err, errlen, "cannot ask %s: %s", cfg->stats_listen,
		    strerror(errno));
		close(fd);
		return -1;
	}
	for (;;) {
		if (len + 4096 > cap) {
			cap = (cap + 4096) * 2;
			if ((p = realloc(buf, cap + 1)) == NULL) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			buf = p;
		}
		n = recv(fd, buf + len, cap - len, 0);
		if (n == 0)
			break;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(err, errlen, "no answer from %s: %s",
			    cfg->stats_listen, errno == EAGAIN ?
			    "timed out" : strerror(errno));
			goto fail;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (len == 0) {
		snprintf(err, errlen, "%s closed the connection without an "
		    "answer (is this host denied by allow/deny?)",
		    cfg->stats_listen);
		goto fail;
	}
	if (strncmp(buf, "HTTP/1.0 200 ", 13) != 0 ||
	    (body = strstr(buf, "\r\n\r\n")) == NULL) {
		snprintf(err, errlen, "%s answered: %.*s", cfg->stats_listen,
		    (int)strcspn(buf, "\r\n"), buf);
		goto fail;
	}
	body += 4;
	fwrite(body, 1, len - (size_t)(body - buf), out);
	close(fd);
	free(buf);
	return 0;
fail:
	close(fd);
	free(buf);
	return -1;
}
