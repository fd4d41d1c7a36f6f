/*
 * sandbox.h - what a worker or the health checker may still do once it
 * is set up: no new privileges, and a seccomp filter (Linux) that lets
 * through only the system calls a forwarding loop makes.
 */
#ifndef FERRYD_SANDBOX_H
#define FERRYD_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The master, before its first fork: shared memory in which a child the
 * filter stops writes which system call it was.  -1 with errno set.
 */
int	sandbox_open(void);

/*
 * A child, after its setup and before its loop: no_new_privs and the
 * filter (seccomp: false leaves both off).  Where this build has no
 * filter (sanitizers, another architecture: sandbox_filters()), only
 * no_new_privs.  -1 after logging why when the filter was wanted and
 * could not be installed (the child then exits: no silent downgrade).
 * unix_sockets: the child makes AF_UNIX sockets (a backend is a Unix
 * socket); socket() refuses that family otherwise.
 */
int	sandbox_enter(bool seccomp, bool unix_sockets, const char *who);

/* Whether this build installs a filter (x86_64, aarch64, riscv64). */
bool	sandbox_filters(void);

/*
 * The BPF instructions the filter runs to its verdict on call nr with
 * first argument arg0, the others 0 (*allowed: the verdict), where the
 * kernel does not cache it: the cost of the hot calls, which come first
 * (test_sandbox.c).  0 without a filter.
 */
unsigned sandbox_filter_steps(int nr, uint32_t arg0, bool *allowed);

/*
 * The master, for a child pid killed by SIGSYS: which system call the
 * filter stopped ("system call 63 (x86_64)") into buf; false when the
 * child left no word (not stopped by the filter).
 */
bool	sandbox_report(pid_t pid, char *buf, size_t len);

/*
 * --enable-debug builds only: make a system call the filter forbids, as
 * a compromised worker would (the test of the SIGSYS path).
 */
void	sandbox_debug_violate(void);

#endif
