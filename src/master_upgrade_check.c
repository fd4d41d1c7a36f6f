/*
 * master_upgrade_check.c - the upgrade's check of the binary on disk:
 * "NEW -t" run as a child whose output the master's loop reads as it
 * comes and whose exit the master's reaper reports, so that the master
 * never waits on it: workers are respawned, signals and control commands
 * answered while a slow check (name lookups, a large file) runs.  One
 * check at a time; its result is handed over once the child has both
 * closed its output and been reaped, or its time ran out.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "event.h"
#include "master_upgrade_check.h"
#include "sig.h"

static struct {
	struct event_loop	*loop;
	pid_t			 pid;		/* 0: no check */
	int			 fd;		/* its output, or -1 */
	char			*out;		/* what it said, cut at max */
	size_t			 len, max;
	bool			 reaped;
	int			 status;
	struct event_timer	 deadline;
	upgrade_check_done_fn	*done;
	void			*arg;
} check = { .fd = -1 };

/* Stop reading; a child still running is killed (reaped by the reaper). */
static void
check_stop(void)
{
	if (check.fd != -1) {
		event_close(check.loop, check.fd);
		close(check.fd);
		check.fd = -1;
	}
	/* Its group: what a wrapper script of the binary started too. */
	if (check.pid != 0 && !check.reaped) {
		kill(-check.pid, SIGKILL);
		kill(check.pid, SIGKILL);
	}
	event_timer_cancel(check.loop, &check.deadline);
	check.pid = 0;
}

/* Hand the result over: what it said, how it ended. */
static void
check_finish(bool timed_out)
{
	upgrade_check_done_fn	*done = check.done;
	char			*out = check.out;
	int			 status = check.status;

	out[check.len] = '\0';
	check.out = NULL;
	check_stop();
	done(out, status, timed_out, check.arg);
}

static void
check_on_output(struct event_loop *loop, int fd, int events, void *data)
{
	char	drop[4096];
	ssize_t	n;

	(void)loop;
	(void)events;
	(void)data;
	for (;;) {
		/* Past the buffer: read on and drop, so that it ends. */
		n = read(fd, check.len < check.max ? check.out + check.len :
		    drop, check.len < check.max ? check.max - check.len :
		    sizeof(drop));
		if (n > 0) {
			if (check.len < check.max)
				check.len += (size_t)n;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		break;
	}
	event_close(check.loop, check.fd);
	close(check.fd);
	check.fd = -1;
	if (check.reaped)
		check_finish(false);
}

static void
check_on_deadline(struct event_timer *t, void *data)
{
	(void)t;
	(void)data;
	check_finish(true);
}

int
upgrade_check_start(struct event_loop *loop, char *const argv[],
    const char *env, size_t max, int max_ms, upgrade_check_done_fn *done,
    void *arg, char *err, size_t errlen)
{
	int	p[2], null;
	pid_t	pid;

	if (check.pid != 0) {
		snprintf(err, errlen, "a check of the binary is under way");
		return -1;
	}
	if ((check.out = malloc(max + 1)) == NULL ||
	    pipe2(p, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "cannot run %.300s -t: %s", argv[0],
		    strerror(errno));
		free(check.out);
		check.out = NULL;
		return -1;
	}
	sig_block_all(1);
	if ((pid = fork()) == 0) {
		child_helper_begin();
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		child_close_from(3);
		setenv(env, "1", 1);
		(void)setpgid(0, 0);
		execv(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	sig_block_all(0);
	close(p[1]);
	check.loop = loop;
	event_timer_init(&check.deadline, check_on_deadline, NULL);
	if (pid == -1 || fcntl(p[0], F_SETFL, O_NONBLOCK) == -1 ||
	    event_set(loop, p[0], EV_READ, check_on_output, NULL) == -1 ||
	    event_timer_arm(loop, &check.deadline, event_now(loop) +
	    max_ms) == -1) {
		snprintf(err, errlen, "cannot run %.300s -t: %s", argv[0],
		    strerror(errno));
		if (pid > 0)
			kill(pid, SIGKILL);
		event_close(loop, p[0]);
		close(p[0]);
		free(check.out);
		check.out = NULL;
		return -1;
	}
	check.pid = pid;
	check.fd = p[0];
	check.len = 0;
	check.max = max;
	check.reaped = false;
	check.done = done;
	check.arg = arg;
	return 0;
}

bool
upgrade_check_busy(void)
{
	return check.pid != 0;
}

void
upgrade_check_reaped(pid_t pid, int status)
{
	if (check.pid == 0 || pid != check.pid)
		return;
	check.reaped = true;	/* its pid may be anyone's now */
	check.status = status;
	if (check.fd == -1)
		check_finish(false);
}

void
upgrade_check_cancel(void)
{
	if (check.pid == 0)
		return;
	check_stop();
	free(check.out);
	check.out = NULL;
}
