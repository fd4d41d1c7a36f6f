/*
 * test_sandbox.c - unit tests of the seccomp filter, each in a child
 * that enters the sandbox: what a worker does passes (sockets of its
 * families, memory, pipes, its own signals, exit), what it never does
 * kills it with SIGSYS (a netlink or packet socket, executable memory,
 * a signal to another process, opening a file, forking), and the master
 * learns the call's number from the report ring.  Where this build does
 * not filter (sanitizers, another architecture) only no_new_privs is
 * checked.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"
#include "testlib.h"

/* Whether this build and machine filter (sandbox.c's CAN_FILTER). */
static bool filters;

static int
allowed_calls(void)
{
	int   fds[2], s4, s6;
	void *p;

	s4 = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	s6 = socket(AF_INET6, SOCK_DGRAM, 0);
	if (s4 == -1 || s6 == -1)
		return 10;
	close(s4);
	close(s6);
	if (pipe2(fds, O_NONBLOCK) == -1 || write(fds[1], "x", 1) != 1)
		return 11;
	close(fds[0]);
	close(fds[1]);
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mprotect(p, 4096, PROT_READ) == -1)
		return 12;
	munmap(p, 1 << 20);
	free(malloc(1 << 22));		/* mmap'd by malloc */
	if (kill(getpid(), 0) == -1)	/* its own pid */
		return 13;
	return 0;	/* (prctl is forbidden: no_new_privs is seen in /proc) */
}

enum forbidden {
	F_NETLINK, F_PACKET, F_UNIX, F_EXEC_MMAP, F_EXEC_MPROTECT, F_KILL_OTHER,
	F_OPEN, F_FORK, F_COUNT
};

static const char *const forbidden_names[] = {
	"socket(AF_NETLINK)", "socket(AF_PACKET)",
	"socket(AF_UNIX) (not logging to syslog)", "mmap(PROT_EXEC)",
	"mprotect(PROT_EXEC)", "kill(the parent)", "openat", "fork",
};

/* The number the filter must report for each. */
static long
forbidden_nr(enum forbidden f)
{
	switch (f) {
	case F_NETLINK: case F_PACKET: case F_UNIX: return SYS_socket;
	case F_EXEC_MMAP:		return SYS_mmap;
	case F_EXEC_MPROTECT:		return SYS_mprotect;
	case F_KILL_OTHER:		return SYS_kill;
	case F_OPEN:			return SYS_openat;
#ifdef SYS_fork
	case F_FORK:			return SYS_fork;
#else
	case F_FORK:			return SYS_clone;
#endif
	default:			return -1;
	}
}

static void
do_forbidden(enum forbidden f)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	switch (f) {
	case F_NETLINK: (void)socket(AF_NETLINK, SOCK_RAW, 0); break;
	case F_PACKET: (void)socket(AF_PACKET, SOCK_RAW, 0); break;
	case F_UNIX: (void)socket(AF_UNIX, SOCK_DGRAM, 0); break;
	case F_EXEC_MMAP:
		(void)mmap(NULL, 4096, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case F_EXEC_MPROTECT:
		(void)mprotect(p, 4096, PROT_READ | PROT_EXEC);
		break;
	case F_KILL_OTHER: (void)syscall(SYS_kill, getppid(), 0); break;
	case F_OPEN: (void)syscall(SYS_openat, AT_FDCWD, "/etc/passwd",
	    O_RDONLY); break;
#ifdef SYS_fork
	case F_FORK: (void)syscall(SYS_fork); break;
#else
	case F_FORK: (void)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0); break;
#endif
	default: break;
	}
}

/* fork(); the child enters the sandbox (or exits 3).  The pid, or 0. */
static pid_t
fork_sandboxed(void)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == -1) {
		perror("fork");
		exit(2);
	}
	if (pid == 0 && sandbox_enter(true, false, "test") == -1)
		_exit(3);
	return pid;
}

/*
 * In a sandboxed child: the allowed calls (what < 0) or a forbidden one.
 * Its wait status; -1 when it died of SIGSYS without the report naming
 * the expected call.
 */
static int
in_sandbox(int what)
{
	pid_t pid;
	int   status;

	if ((pid = fork_sandboxed()) == 0) {
		if (what < 0)
			_exit(allowed_calls());
		do_forbidden((enum forbidden)what);
		_exit(filters ? 4 : 0);	/* survived the forbidden call */
	}
	if (waitpid(pid, &status, 0) == -1) {
		perror("waitpid");
		exit(2);
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) {
		char  what_nr[64], want[64];

		if (!sandbox_report(pid, what_nr, sizeof(what_nr)))
			return -1;
		snprintf(want, sizeof(want), "system call %ld ",
		    forbidden_nr((enum forbidden)what));
		if (strncmp(what_nr, want, strlen(want)) != 0) {
			printf("# reported \"%s\", wanted \"%s\"\n", what_nr,
			    want);
			return -1;
		}
	}
	return status;
}

static bool sigsys_reported;

/* A sandboxed child that sleeps, sent SIGSYS by its parent. */
static int
sigsys_from_outside(void)
{
	struct timespec	ts = { 0, 10 * 1000 * 1000 };
	pid_t		pid;
	int		status, i;
	char		buf[64];

	if ((pid = fork_sandboxed()) == 0) {
		for (i = 0; i < 500; i++)	/* 5 s at most */
			nanosleep(&ts, NULL);
		_exit(0);
	}
	nanosleep(&(struct timespec){ 0, 200 * 1000 * 1000 }, NULL);
	kill(pid, SIGSYS);
	if (waitpid(pid, &status, 0) == -1) {
		perror("waitpid");
		exit(2);
	}
	sigsys_reported = sandbox_report(pid, buf, sizeof(buf));
	return status;
}

/*
 * The calls of every connection and datagram are allowed within the
 * filter's first instructions (the architecture checks, then a jump
 * each), socket() soon after them; a rarely used one further on.
 */
static void
hot_calls_first(void)
{
	static const struct {
		const char	*name;
		int		 nr;
		uint32_t	 arg0;
	} hot[] = {
		{ "recvfrom", SYS_recvfrom, 0 }, { "sendto", SYS_sendto, 0 },
		{ "read", SYS_read, 0 }, { "write", SYS_write, 0 },
		{ "splice", SYS_splice, 0 },
		{ "epoll_pwait", SYS_epoll_pwait, 0 },
		{ "accept4", SYS_accept4, 0 }, { "recvmmsg", SYS_recvmmsg, 0 },
		{ "sendmmsg", SYS_sendmmsg, 0 }, { "close", SYS_close, 0 },
		{ "epoll_ctl", SYS_epoll_ctl, 0 },
		{ "connect", SYS_connect, 0 },
		{ "setsockopt", SYS_setsockopt, 0 },
		{ "shutdown", SYS_shutdown, 0 },
		{ "socket", SYS_socket, AF_INET },
	};
	unsigned	steps, last = 0;
	bool		allowed;
	size_t		i;

	if (!filters)
		return;
	for (i = 0; i < sizeof(hot) / sizeof(hot[0]); i++) {
		steps = sandbox_filter_steps(hot[i].nr, hot[i].arg0,
		    &allowed);
		check(allowed && steps > 0 && steps <= 26, "%s is allowed "
		    "after %u instructions of the filter", hot[i].name, steps);
		if (steps > last)
			last = steps;
	}
	steps = sandbox_filter_steps(SYS_getpid, 0, &allowed);
	check(allowed && steps > last, "getpid, a cold call, after %u "
	    "(every hot one within %u)", steps, last);
	steps = sandbox_filter_steps(SYS_openat, 0, &allowed);
	check(!allowed && steps > 0, "openat is refused after %u", steps);
}

int
main(void)
{
	int f, status;

	filters = sandbox_filters();
	log_set_level(LOG_LEVEL_ERR);
	check(sandbox_open() == 0, "the report ring is mapped");
	status = in_sandbox(-1);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "a sandboxed child does what workers do (status %d)", status);
	for (f = 0; f < F_COUNT; f++) {
		status = in_sandbox(f);
		if (filters)
			check(status != -1 && WIFSIGNALED(status) &&
			    WTERMSIG(status) == SIGSYS,
			    "%s is killed with SIGSYS, the call reported "
			    "(status %d)", forbidden_names[f], status);
		else
			check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			    "%s: no filter in this build", forbidden_names[f]);
	}
	check(!sandbox_report(getpid(), (char[64]){0}, 64),
	    "no report for a process the filter did not stop");
	status = sigsys_from_outside();
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
	    "a kill -SYS from outside kills a sandboxed child (status %d)...",
	    status);
	check(!sigsys_reported, "... and is not reported as the filter's");
	hot_calls_first();
	return test_summary();
}
