/*
 * sig.c - the self-pipe: signal handlers set a flag and write one byte,
 * all real work happens in the event loop that reads the pipe.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sig.h"

#define SIG_MAX 65

static volatile sig_atomic_t pending[SIG_MAX];
static int                   self_pipe[2] = { -1, -1 };

/*
 * The values sent with sigqueue(3), in arrival order, for sig_take_values:
 * written by the handler (which runs with every signal blocked, so never
 * twice at once), read with signals blocked.  Past SIG_VALUES_MAX unread,
 * the oldest are lost.
 */
#define SIG_VALUES_MAX	32
static volatile sig_atomic_t value_signo[SIG_VALUES_MAX];
static volatile sig_atomic_t value_int[SIG_VALUES_MAX];
static volatile sig_atomic_t values_written, values_read;

static void
sig_handler(int signo, siginfo_t *info, void *context)
{
	int saved_errno = errno, i;

	(void)context;
	if (info != NULL && info->si_code == SI_QUEUE) {
		i = values_written % SIG_VALUES_MAX;
		value_signo[i] = signo;
		value_int[i] = info->si_value.sival_int;
		values_written++;
	}
	pending[signo] = 1;
	if (self_pipe[1] != -1 && write(self_pipe[1], "", 1) == -1) {
		/* Pipe full: a wakeup is already pending, nothing is lost. */
	}
	errno = saved_errno;
}

static int
set_flags(int fd)
{
	return fcntl(fd, F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 ? -1 : 0;
}

int
sig_open(void)
{
	int i;

	sig_close();
	for (i = 0; i < SIG_MAX; i++)
		pending[i] = 0;
	if (pipe(self_pipe) == -1)
		return -1;
	if (set_flags(self_pipe[0]) == -1 || set_flags(self_pipe[1]) == -1) {
		sig_close();
		return -1;
	}
	return 0;
}

void
sig_close(void)
{
	if (self_pipe[0] != -1)
		close(self_pipe[0]);
	if (self_pipe[1] != -1)
		close(self_pipe[1]);
	self_pipe[0] = self_pipe[1] = -1;
}

int
sig_fd(void)
{
	return self_pipe[0];
}

int
sig_catch(int signo)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sig_handler;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	return sigaction(signo, &sa, NULL);
}

static void
sig_set(int signo, void (*action)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = action;
	sigemptyset(&sa.sa_mask);
	sigaction(signo, &sa, NULL);
}

void
sig_default(int signo)
{
	sig_set(signo, SIG_DFL);
}

void
sig_ignore(int signo)
{
	sig_set(signo, SIG_IGN);
}

void
sig_drain(void)
{
	char buf[64];

	while (read(self_pipe[0], buf, sizeof(buf)) > 0)
		continue;
}

void
sig_on_readable(struct event_loop *loop, int fd, int events, void *data)
{
	(void)loop;
	(void)fd;
	(void)events;
	(void)data;
	sig_drain();
}

size_t
sig_take_values(int signo, int *out, size_t max)
{
	sigset_t	all, old;
	size_t		n = 0;
	sig_atomic_t	j;
	int		i;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if (values_written - values_read > SIG_VALUES_MAX)
		values_read = values_written - SIG_VALUES_MAX;
	/* Only signo's: another signal's wait for their own call. */
	for (j = values_read; j != values_written; j++) {
		i = (int)(j % SIG_VALUES_MAX);
		if (value_signo[i] != signo)
			continue;
		if (n < max)
			out[n++] = value_int[i];
		value_signo[i] = 0;	/* taken */
	}
	while (values_read != values_written &&
	    value_signo[values_read % SIG_VALUES_MAX] == 0)
		values_read++;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return n;
}

int
sig_take(int signo)
{
	if (!pending[signo])
		return 0;
	pending[signo] = 0;
	return 1;
}

void
sig_block_all(int block)
{
	sigset_t set;

	sigfillset(&set);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

int
sig_open_catching(const int *signals, size_t n)
{
	size_t	i;

	if (sig_open() == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (sig_catch(signals[i]) == -1)
			return -1;
	return 0;
}

int
sig_child_setup(void)
{
	static const int caught[] = {
		SIGTERM, SIGINT, SIGQUIT,
#ifdef FERRYD_DEBUG
		SIGUSR2,	/* test triggers (worker_handle_signals) */
#endif
	};

	if (sig_open_catching(caught, sizeof(caught) / sizeof(caught[0])) == -1)
		return -1;
	/*
	 * Reloads and log reopening are the master's: it hands reopened
	 * logs over the channel (a worker running as a user could not open
	 * root's files by name).
	 */
	sig_ignore(SIGHUP);
	sig_ignore(SIGUSR1);
#ifndef FERRYD_DEBUG
	sig_ignore(SIGUSR2);	/* the master's: drain host */
#endif
	sig_ignore(SIGPIPE);
	sig_default(SIGCHLD);
	sig_block_all(0);
	return 0;
}
