/*
 * kit.h - what bench/benchkit.c and bench/muxkit.c both need: errors,
 * the clock, IPv4 addresses, the open-files limit and a listener.  Each
 * is one file compiled on its own (bench/run: cc -O2 FILE.c), so these
 * are static; inline, so that a program that does not use one is not
 * warned about it.
 */
#ifndef BENCH_KIT_H
#define BENCH_KIT_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

static inline void __attribute__((noreturn))
die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
	    strerror(errno));
	exit(1);
}

static inline double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void
make_addr(struct sockaddr_in *sin, const char *addr, const char *port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((unsigned short)atoi(port));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "%s: not a numeric IPv4 address: %s\n",
		    program_invocation_short_name, addr);
		exit(2);
	}
}

static inline void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static inline int
listen_on(const char *addr, const char *port, int reuseport)
{
	struct sockaddr_in sin;
	int fd, one = 1;

	make_addr(&sin, addr, port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (reuseport &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) == -1)
		die("setsockopt SO_REUSEPORT");
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		die("bind");
	if (listen(fd, 4096) == -1)
		die("listen");
	return fd;
}

#endif
