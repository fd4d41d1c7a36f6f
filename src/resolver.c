/*
 * resolver.c - work that looks names up, in a child (resolver.h).
 *
 * The child answers on a pipe, then exits: 'R' and the recorded
 * answers (lookup_save), or 'E' and the error.  The parent reads it
 * whole on its loop; its SIGCHLD reaping needs to know nothing of the
 * child, which is nobody's worker.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif

#include "child.h"
#include "lookup.h"
#include "proctitle.h"
#include "resolver.h"
#include "sig.h"

#define ANSWER_MAX	(16 * 1024 * 1024)	/* a child saying more lies */

void
resolver_init(struct resolver *r, struct event_loop *loop)
{
	memset(r, 0, sizeof(*r));
	r->loop = loop;
	r->fd = -1;
}

bool
resolver_busy(const struct resolver *r)
{
	return r->pid != 0;
}

/* Write all of buf to fd; -1 on error. */
static int
write_all(int fd, const void *buf, size_t len)
{
	const uint8_t	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void __attribute__((noreturn))
child_run(int fd, resolver_work_fn *work, void *arg, pid_t parent)
{
	char	 err[512], tag;
	uint8_t	*buf = NULL;
	size_t	 len = 0;

	child_helper_begin();
	if (getppid() != parent)
		_exit(1);	/* it died before child_helper_begin() */
	proctitle_set("ferryd: resolver");
	/* The pipe as 3, the only descriptor it keeps. */
	if (fd != 3) {
		if (dup2(fd, 3) == -1)
			_exit(1);
		close(fd);
		fd = 3;
	}
	child_close_from(4);
	lookup_record();
	if (work(arg, err, sizeof(err)) == -1) {
		tag = 'E';
		buf = (uint8_t *)err;
		len = strlen(err);
	} else if ((buf = lookup_save(&len)) != NULL)
		tag = 'R';
	else {
		tag = 'E';
		snprintf(err, sizeof(err), "out of memory");
		buf = (uint8_t *)err;
		len = strlen(err);
	}
	_exit(write_all(fd, &tag, 1) == -1 || write_all(fd, buf, len) == -1);
}

/*
 * Be idle again.  A child that closed its pipe is exiting and may be
 * reaped already: only one still writing is killed, so that no other
 * process that took its pid is.
 */
static void
resolver_stop(struct resolver *r, bool kill_child)
{
	if (kill_child && !r->reaped)
		kill(r->pid, SIGKILL);	/* reaped by whoever reaps children */
	event_close(r->loop, r->fd);
	close(r->fd);
	event_timer_cancel(r->loop, &r->deadline);
	free(r->buf);
	r->buf = NULL;
	r->len = r->cap = 0;
	r->fd = -1;
	r->pid = 0;
	r->reaped = false;
}

void
resolver_reaped(struct resolver *r, pid_t pid)
{
	if (r->pid != 0 && r->pid == pid)
		r->reaped = true;	/* its pid may be anyone's now */
}

/* The work is over, well or not (eof: the child said so): tell. */
static void
resolver_finish(struct resolver *r, const char *err, bool eof)
{
	resolver_done_fn	*done = r->done;
	void			*arg = r->arg;

	if (err == NULL && lookup_load(r->buf + 1, r->len - 1) == -1)
		err = "the resolver's answer was cut short";
	resolver_stop(r, !eof);
	done(err, arg);
	lookup_live();
}

static void
resolver_on_answer(struct event_loop *loop, int fd, int events, void *data)
{
	struct resolver	*r = data;
	uint8_t		*p;
	ssize_t		 n;
	char		 err[512];

	(void)loop;
	(void)events;
	for (;;) {
		if (r->len == r->cap) {
			if (r->cap >= ANSWER_MAX ||
			    (p = realloc(r->buf, r->cap > 0 ? r->cap * 2 :
			    4096)) == NULL) {
				resolver_finish(r, "the resolver's answer is "
				    "too large", false);
				return;
			}
			r->buf = p;
			r->cap = r->cap > 0 ? r->cap * 2 : 4096;
		}
		n = read(fd, r->buf + r->len, r->cap - r->len);
		if (n > 0) {
			r->len += (size_t)n;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		break;
	}
	/* End of file: the child said all it will. */
	if (r->len == 0 || (r->buf[0] != 'R' && r->buf[0] != 'E'))
		resolver_finish(r, "the resolver died without an answer", true);
	else if (r->buf[0] == 'E') {
		snprintf(err, sizeof(err), "%.*s", (int)(r->len - 1),
		    (const char *)r->buf + 1);
		resolver_finish(r, err, true);
	} else
		resolver_finish(r, NULL, true);
}

static void
resolver_on_deadline(struct event_timer *t, void *data)
{
	struct resolver	*r = data;
	char		 err[128];

	(void)t;
	snprintf(err, sizeof(err), "name lookups did not finish within %d s "
	    "(is the name server answering?)", r->max_ms / 1000);
	resolver_finish(r, err, false);
}

int
resolver_start(struct resolver *r, resolver_work_fn *work,
    resolver_done_fn *done, void *arg, int max_ms, char *err, size_t errlen)
{
	int	p[2];
	pid_t	pid, parent = getpid();

	if (resolver_busy(r)) {
		snprintf(err, errlen, "name lookups are already under way");
		return -1;
	}
	if (pipe(p) == -1) {
		snprintf(err, errlen, "cannot start the resolver: pipe: %s",
		    strerror(errno));
		return -1;
	}
	sig_block_all(1);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		child_run(p[1], work, arg, parent);
	}
	sig_block_all(0);
	close(p[1]);
	if (pid == -1 || fcntl(p[0], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(p[0], F_SETFD, FD_CLOEXEC) == -1 ||
	    event_set(r->loop, p[0], EV_READ, resolver_on_answer, r) == -1) {
		snprintf(err, errlen, "cannot start the resolver: %s",
		    strerror(errno));
		if (pid > 0)
			kill(pid, SIGKILL);
		close(p[0]);
		return -1;
	}
	r->pid = pid;
	r->fd = p[0];
	r->len = 0;
	r->max_ms = max_ms;
	r->done = done;
	r->arg = arg;
	event_timer_init(&r->deadline, resolver_on_deadline, r);
	(void)event_timer_arm(r->loop, &r->deadline, event_now(r->loop) +
	    max_ms);
	return 0;
}

void
resolver_cancel(struct resolver *r)
{
	if (resolver_busy(r))
		resolver_stop(r, true);
}
