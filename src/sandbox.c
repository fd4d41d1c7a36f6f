/*
 * sandbox.c - a child's last step before its loop: PR_SET_NO_NEW_PRIVS
 * and a seccomp filter in classic BPF, installed with prctl (libc only).
 *
 * The filter lets through the system calls a worker's and the checker's
 * loops make: reading and writing sockets, pipes and logs, the event
 * mechanism, memory, clocks, their own signals, exit.  A few are allowed
 * with their arguments checked: socket() for IPv4 and IPv6 only (and
 * AF_UNIX when logging to syslog, for its reconnect, or when a rule
 * connects to a Unix socket: the caller says); mmap() and mprotect() never executable;
 * kill() and tgkill() to the process itself only (abort()); ioctl()
 * for SIOCOUTQ only (what a socket has still to send, before a reset is
 * passed on: tcp_session.c).  Nothing
 * that opens a file, starts a process, changes credentials or traces.
 * A system call of another architecture (x32 on x86_64 too) kills the
 * process; any other call not in the list traps: a SIGSYS handler
 * writes the call's number where the master reads it (a shared ring),
 * then lets SIGSYS kill the process.  The master logs the number and
 * respawns the slot.  A compromised child that catches SIGSYS itself
 * gains nothing: the forbidden call was not made.
 *
 * Only x86_64, aarch64 and riscv64 are filtered (below); elsewhere, and in sanitizer builds (whose runtime
 * makes calls of its own: /proc reads, ptrace for the leak check), the
 * child runs with no_new_privs alone and says so.
 */
#include "ferryd.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif
#if defined(HAVE_LINUX_SECCOMP_H) && defined(HAVE_LINUX_FILTER_H) && \
    defined(HAVE_LINUX_AUDIT_H)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>	/* SIOCOUTQ, which is TIOCOUTQ */
#include <sys/ioctl.h>
#include <sys/syscall.h>
/*
 * Architectures whose libc makes every socket call directly (no
 * socketcall(2)) and whose mmap(2) takes its arguments in registers.
 */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SANDBOX_ARCH		AUDIT_ARCH_X86_64
#define SANDBOX_ARCH_NAME	"x86_64"
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SANDBOX_ARCH		AUDIT_ARCH_AARCH64
#define SANDBOX_ARCH_NAME	"aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define SANDBOX_ARCH		AUDIT_ARCH_RISCV64
#define SANDBOX_ARCH_NAME	"riscv64"
#endif
#endif
#if defined(SANDBOX_ARCH) && !defined(FERRYD_SANITIZERS) && \
    defined(PR_SET_NO_NEW_PRIVS)
#define CAN_FILTER	1
#endif

#include "log.h"
#include "sandbox.h"

#ifdef SANDBOX_ARCH_NAME
#define REPORT_ARCH	" (" SANDBOX_ARCH_NAME ")"
#else
#define REPORT_ARCH	""
#endif

/* What filtered children wrote, newest last; a ring the master reads. */
#define REPORTS	64

struct report {
	volatile pid_t		pid;	/* written last; 0 = empty */
	volatile int		nr;	/* the system call */
};

struct reports {
	volatile unsigned	next;
	struct report		r[REPORTS];
};

static struct reports *reports;

int
sandbox_open(void)
{
	void *p;

	p = mmap(NULL, sizeof(*reports), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	reports = p;
	return 0;
}

bool
sandbox_report(pid_t pid, char *buf, size_t len)
{
	unsigned i;

	if (reports == NULL)
		return false;
	for (i = 0; i < REPORTS; i++)
		if (reports->r[i].pid == pid) {
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			snprintf(buf, len, "system call %d%s",
			    reports->r[i].nr, REPORT_ARCH);
			reports->r[i].pid = 0;
			return true;
		}
	return false;
}

#ifdef CAN_FILTER

#ifndef SYS_SECCOMP
#define SYS_SECCOMP	1	/* si_code of a filter's SIGSYS (the kernel's) */
#endif

#define ARG_LOW(i)	(offsetof(struct seccomp_data, args[i]) + \
    (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0))

#ifdef SECCOMP_RET_KILL_PROCESS
#define RET_KILL	SECCOMP_RET_KILL_PROCESS
#else
#define RET_KILL	SECCOMP_RET_KILL	/* the thread: we have one */
#endif

/*
 * Allowed whatever their arguments.  The filter tests them in this
 * order, so the calls of every connection and every datagram come
 * first: a kernel without the seccomp cache (before 5.11), or one whose
 * cache does not hold a call, runs the filter on each call, and a hot
 * call found in the first few jumps costs a few instructions, not a
 * walk of the list (bench/syscalls counts them per connection).  The
 * hot ones, then socket() (checked below, one a connection), then the
 * rest.
 */
static const int hot[] = {
	/* relaying, the loop, accepting, connecting, closing */
	SYS_recvfrom, SYS_sendto, SYS_read, SYS_write, SYS_splice,
#ifdef SYS_epoll_wait
	SYS_epoll_wait,
#endif
	SYS_epoll_pwait, SYS_accept4, SYS_recvmmsg, SYS_sendmmsg,
	SYS_close, SYS_epoll_ctl, SYS_connect, SYS_setsockopt, SYS_shutdown,
};

static const int allowed[] = {
	SYS_readv, SYS_writev, SYS_sendmsg, SYS_recvmsg,
	/* descriptors */
	SYS_fcntl,
	/* The access log: room for a line before it is written. */
	SYS_lseek,
#ifdef SYS_fallocate
	SYS_fallocate,
#endif
	SYS_dup3, SYS_pipe2,
#ifdef SYS_pipe
	SYS_pipe,
#endif
#ifdef SYS_dup2
	SYS_dup2,
#endif
	/* sockets (socket() itself below) */
	SYS_bind, SYS_getsockopt, SYS_getsockname, SYS_getpeername,
#ifdef SYS_accept
	SYS_accept,
#endif
	/* the event loop */
	SYS_ppoll,
#ifdef SYS_poll
	SYS_poll,
#endif
	/* memory (mmap and mprotect below) */
	SYS_brk, SYS_munmap, SYS_mremap, SYS_madvise,
	/* time */
	SYS_clock_gettime, SYS_gettimeofday, SYS_nanosleep,
	SYS_clock_nanosleep,
	/* UDP pacing's timer (udp_pace.c), made before the filter */
	SYS_timerfd_settime,
#ifdef SYS_time
	SYS_time,
#endif
	/* signals, itself (kill and tgkill below) */
	SYS_rt_sigreturn, SYS_rt_sigprocmask, SYS_rt_sigaction,
	SYS_restart_syscall, SYS_getpid, SYS_gettid, SYS_getppid,
	SYS_futex, SYS_sched_yield, SYS_getrandom,
	SYS_exit, SYS_exit_group,
};

/* A program being written, with jumps to its last two instructions. */
struct prog {
	struct sock_filter	f[160];
	unsigned char		to[160];	/* TO_ALLOW, TO_TRAP or 0 */
	size_t			n;
	bool			overflow;
};

enum { TO_NONE, TO_ALLOW, TO_TRAP };

static void
emit(struct prog *p, unsigned short code, uint32_t k, unsigned char jt,
    unsigned char jf, unsigned char to)
{
	if (p->n == sizeof(p->f) / sizeof(p->f[0])) {
		p->overflow = true;
		return;
	}
	p->f[p->n] = (struct sock_filter)BPF_JUMP(code, k, jt, jf);
	p->to[p->n++] = to;
}

/* if (nr == k) allow */
static void
allow_nr(struct prog *p, int nr)
{
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 0, TO_ALLOW);
}

/*
 * The start of a block about call nr's argument arg: skipped (len
 * instructions after these two) when the call is another, else the low
 * word of the argument loaded.
 */
static void
block_start(struct prog *p, int nr, int arg, size_t len)
{
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0,
	    (unsigned char)(len + 1), TO_NONE);
	emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LOW(arg), 0, 0,
	    TO_NONE);
}

/* if (nr == k) { allow when argument arg is one of values[0..n); trap } */
static void
allow_nr_if_one_of(struct prog *p, int nr, int arg, const uint32_t *values,
    size_t n)
{
	size_t i;

	block_start(p, nr, arg, n + 1);
	for (i = 0; i < n; i++)
		emit(p, BPF_JMP | BPF_JEQ | BPF_K, values[i], 0, 0, TO_ALLOW);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_TRAP, 0, 0, TO_NONE);
}

/* if (nr == k) { trap when argument arg has a bit of mask; allow } */
static void
allow_nr_unless_bits(struct prog *p, int nr, int arg, uint32_t mask)
{
	block_start(p, nr, arg, 2);
	emit(p, BPF_JMP | BPF_JSET | BPF_K, mask, 0, 0, TO_TRAP);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0, TO_NONE);
}

/*
 * The filter for a process whose pid is self; with_unix: socket() may
 * make AF_UNIX sockets too (syslog's).
 */
static bool
build(struct prog *p, pid_t self, bool with_unix)
{
	static const uint32_t families[] = { AF_INET, AF_INET6, AF_UNIX };
	const uint32_t pid[] = { (uint32_t)self };
	static const uint32_t ioctls[] = { SIOCOUTQ };
	size_t	i, allow, trap;

	memset(p, 0, sizeof(*p));
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch),
	    0, 0, TO_NONE);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0, TO_NONE);
	emit(p, BPF_RET | BPF_K, RET_KILL, 0, 0, TO_NONE);
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr),
	    0, 0, TO_NONE);
#ifdef __x86_64__
	/* x32's numbers carry this bit, and are another ABI: never. */
	emit(p, BPF_JMP | BPF_JSET | BPF_K, 0x40000000, 0, 1, TO_NONE);
	emit(p, BPF_RET | BPF_K, RET_KILL, 0, 0, TO_NONE);
#endif
	for (i = 0; i < sizeof(hot) / sizeof(hot[0]); i++)
		allow_nr(p, hot[i]);
	allow_nr_if_one_of(p, SYS_socket, 0, families, with_unix ? 3 : 2);
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		allow_nr(p, allowed[i]);
	allow_nr_unless_bits(p, SYS_mmap, 2, PROT_EXEC);
	allow_nr_unless_bits(p, SYS_mprotect, 2, PROT_EXEC);
	allow_nr_if_one_of(p, SYS_kill, 0, pid, 1);
	allow_nr_if_one_of(p, SYS_tgkill, 0, pid, 1);
	allow_nr_if_one_of(p, SYS_ioctl, 1, ioctls, 1);
	trap = p->n;
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_TRAP, 0, 0, TO_NONE);
	allow = p->n;
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0, TO_NONE);
	if (p->overflow)
		return false;
	for (i = 0; i < p->n; i++) {
		size_t to = p->to[i] == TO_ALLOW ? allow :
		    p->to[i] == TO_TRAP ? trap : 0;

		if (to == 0)
			continue;
		if (to - i - 1 > 255)
			return false;
		p->f[i].jt = (unsigned char)(to - i - 1);
	}
	return true;
}

/*
 * The filter trapped a call: say which in the ring, then die of SIGSYS
 * (SA_RESETHAND made the action the default again; SA_NODEFER leaves the
 * signal unblocked).  Only plain stores and kill() to ourselves.
 */
static void
on_sigsys(int signo, siginfo_t *si, void *uc)
{
	unsigned i;

	(void)uc;
	/* Only the filter's: a kill -SYS from outside is not reported. */
	if (reports != NULL && si->si_code == SYS_SECCOMP) {
		i = __atomic_fetch_add(&reports->next, 1, __ATOMIC_RELAXED) %
		    REPORTS;
		reports->r[i].nr = si->si_syscall;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		reports->r[i].pid = getpid();
	}
	kill(getpid(), signo);
}

static int
install(const char *who, bool unix_sockets)
{
	struct prog		p;
	struct sock_fprog	fp;
	struct sigaction	sa;

	if (!build(&p, getpid(), unix_sockets || log_syslog_opened())) {
		log_err("%s: the seccomp filter does not fit (a bug)", who);
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) == -1) {
		log_err("%s: cannot catch SIGSYS: %s", who, strerror(errno));
		return -1;
	}
	fp.len = (unsigned short)p.n;
	fp.filter = p.f;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0) == -1) {
		log_err("%s: cannot install the seccomp filter: %s (seccomp = "
		    "false runs without it)", who, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Run the filter p on call nr of this architecture, its first argument
 * arg0 and the others 0, as the kernel would: the instructions it takes
 * to its verdict (*allowed), or 0 if the program does something this
 * evaluator does not know.
 */
static unsigned
run(const struct prog *p, int nr, uint32_t arg0, bool *allowed)
{
	const struct sock_filter	*f;
	uint32_t			 a = 0;
	unsigned			 steps = 0;
	size_t				 pc = 0;

	while (pc < p->n) {
		f = &p->f[pc++];
		steps++;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			a = f->k == offsetof(struct seccomp_data, arch) ?
			    SANDBOX_ARCH : f->k == offsetof(struct seccomp_data,
			    nr) ? (uint32_t)nr : f->k == ARG_LOW(0) ? arg0 : 0;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & f->k) != 0 ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			*allowed = f->k == SECCOMP_RET_ALLOW;
			return steps;
		default:
			return 0;
		}
	}
	return 0;
}
#endif /* CAN_FILTER */

unsigned
sandbox_filter_steps(int nr, uint32_t arg0, bool *allowed)
{
#ifdef CAN_FILTER
	static struct prog	p;
	static bool		built;

	if (!built && !(built = build(&p, getpid(), false)))
		return 0;
	return run(&p, nr, arg0, allowed);
#else
	(void)nr;
	(void)arg0;
	*allowed = true;
	return 0;
#endif
}

int
sandbox_enter(bool seccomp, bool unix_sockets, const char *who)
{
	if (!seccomp)
		return 0;
#if defined(HAVE_SYS_PRCTL_H) && defined(PR_SET_NO_NEW_PRIVS)
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		log_err("%s: cannot set no_new_privs: %s", who,
		    strerror(errno));
		return -1;
	}
#endif
#ifdef CAN_FILTER
	return install(who, unix_sockets);
#else
	(void)unix_sockets;
	log_debug("%s: no seccomp filter in this build or on this system",
	    who);
	return 0;
#endif
}

bool
sandbox_filters(void)
{
#ifdef CAN_FILTER
	return true;
#else
	return false;
#endif
}

void
sandbox_debug_violate(void)
{
#if defined(FERRYD_DEBUG) && defined(CAN_FILTER)
	struct utsname u;

	log_notice("debug: making system call %d (uname), which the filter "
	    "forbids", (int)SYS_uname);
	(void)syscall(SYS_uname, &u);
#endif
}
