/*
 * benchkit.c - small network helpers for ferryd's benchmark harness.
 *
 * bench/run compiles this file into a temporary directory with cc and uses
 * it where no packaged tool does the job:
 *
 *   benchkit echo ADDR PORT
 *       Echo server.  Accepts any number of connections, sends back what it
 *       reads, never closes first.  The backend for the idle-connection
 *       (memory) test and for the ping-pong fallback.
 *   benchkit hold ADDR PORT N [SECS]
 *       Opens N connections, sends one byte on each and waits for its echo,
 *       so every connection is known to reach the backend (gives up at
 *       180 s, or when none has completed for 20 s).  Prints
 *       "ready OK FAILED" on stdout, then holds the connections, idle, until
 *       it is killed or SECS seconds (default 600) have passed.
 *   benchkit pingpong ADDR PORT SECS [SIZE [BULK]]
 *       One connection, SIZE-byte (default 64) messages, each sent when the
 *       previous one has come back, for SECS seconds.  Prints
 *       "count N p50 X p99 Y" with round-trip times in microseconds.
 *       With BULK, first BULK KiB echoed in 64 KiB pieces (a download
 *       before the small requests: bench/syscalls).  Used only when
 *       sockperf is not installed.
 *   benchkit short ADDR PORT COUNT [SIZE]
 *       COUNT connections one after the other: each sends SIZE (default
 *       100) bytes, reads as many back and closes first.  Prints
 *       "count N".  bench/syscalls' short connection (a client that
 *       closes once answered, as an echo backend never closes first).
 *   benchkit udpecho ADDR PORT
 *       UDP echo server: sends every datagram back to its sender.  The
 *       backend for the idle-session (memory) test.
 *   benchkit udphold ADDR PORT N [SECS]
 *       The same with N UDP sockets, each sending one datagram and
 *       waiting for its echo (at most 64 waiting at once), so every
 *       session is known to reach the backend.
 *   benchkit udprr ADDR PORT CLIENTS SECS
 *       CLIENTS UDP sockets, each its own session, each sends a 64-byte
 *       datagram and the next one when the answer is back (or after
 *       200 ms without one, counted lost), for SECS seconds.  Prints
 *       "count N lost L" (answered round trips).  The many-clients
 *       request/response test.
 *   benchkit udppace ADDR PORT RATE SECS [SIZE]
 *       One UDP flow: SIZE-byte (default 64) datagrams, each numbered,
 *       offered at RATE a second for SECS seconds, the ones due sent
 *       every 100 us (a sender woken late sends what is due at once, as
 *       iperf3 does).  Prints "sent N".
 *   benchkit udpsink ADDR PORT SECS
 *       Its receiver, with the kernel's default receive buffer, reading
 *       one datagram a call (as iperf3 does) until SECS have passed or
 *       1 s without one after the first.  Prints "got N dropped D
 *       reordered R": D is what this socket's buffer refused
 *       (SO_RXQ_OVFL), R datagrams came after a later-numbered one.
 *   benchkit udprelay ADDR PORT TO_ADDR TO_PORT SECS
 *       A plain batching UDP relay of one flow: one process, blocking,
 *       recvmmsg of up to 64 datagrams from ADDR:PORT and one sendmmsg
 *       of them to a socket connected to TO_ADDR:TO_PORT (no replies,
 *       no sessions, no event loop, no pacing), for SECS seconds, with
 *       a 4 MiB receive buffer as ferryd's UDP listeners have.
 *       Prints "relayed N calls C".  bench/udp-floor's reference: what
 *       the kernel alone costs a forwarder per datagram.
 *   benchkit http ADDR PORT [WORKERS]
 *       A tiny HTTP/1.1 responder (keep-alive, and "Connection: close"
 *       honoured), WORKERS processes on SO_REUSEPORT sockets.  The backend
 *       of the connection-rate tests when nginx is not installed.
 *
 * Loopback and harness-made network namespaces only; every loop is bounded
 * by a deadline or by the harness's timeout(1).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kit.h"

#define MAXEV 256

static void
nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* A new epoll instance watching the listening socket lfd for EPOLLIN. */
static int
epoll_for_listener(int lfd)
{
	struct epoll_event ev;
	int ep;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep == -1)
		die("epoll_create1");
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = lfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) == -1)
		die("epoll_ctl");
	return ep;
}

/* Accept everything queued; add each connection to ep for EPOLLIN. */
static void
accept_all(int lfd, int ep)
{
	struct epoll_event ev;
	int fd;

	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				usleep(10000);
			return;
		}
		nodelay(fd);
		ev.events = EPOLLIN;
		ev.data.fd = fd;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == -1)
			close(fd);
	}
}

/* Write all of buf to a non-blocking socket, waiting at most 5 s. */
static int
write_all(int fd, const char *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
			if (poll(&pfd, 1, 5000) <= 0)
				return -1;
		} else
			return -1;
	}
	return 0;
}

static int
cmd_echo(const char *addr, const char *port)
{
	struct epoll_event evs[MAXEV];
	static char buf[65536];
	int lfd, ep, n, i, fd;
	ssize_t r;

	lfd = listen_on(addr, port, 0);
	ep = epoll_for_listener(lfd);
	for (;;) {
		n = epoll_wait(ep, evs, MAXEV, -1);
		if (n == -1 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			fd = evs[i].data.fd;
			if (fd == lfd) {
				accept_all(lfd, ep);
				continue;
			}
			r = read(fd, buf, sizeof(buf));
			if (r > 0) {
				if (write_all(fd, buf, (size_t)r) == -1)
					close(fd);
			} else if (r == 0 ||
			    (errno != EAGAIN && errno != EINTR))
				close(fd);
		}
	}
	/* NOTREACHED */
	return 0;
}

/*
 * hold and udphold: want idle TCP connections (dgram false), each known
 * to reach the backend by one echoed byte, or UDP sessions (dgram), each
 * by one echoed datagram.
 */
static int
cmd_hold(const char *addr, const char *port, long want, double hold_secs,
    bool dgram)
{
	/* TCP: below the smallest listen backlog (redir: 10). */
	const long inflight_max = dgram ? 64 : 8;
	struct epoll_event evs[MAXEV], ev;
	struct sockaddr_in sin;
	long opened = 0, ok = 0, failed = 0, inflight = 0;
	long why[4] = { 0 };	/* connect, handshake, echo, time */
	double deadline, progress;
	int ep, n, i, fd, err;
	socklen_t elen;
	ssize_t r;
	char c;

	make_addr(&sin, addr, port);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep == -1)
		die("epoll_create1");
	/* give up at 180 s, or when nothing has completed for 20 s (a
	 * dropped SYN is retried after 1, 3, 7 and 15 s) */
	deadline = now() + 180;
	progress = now();
	while ((opened < want || inflight > 0) && now() < deadline &&
	    now() - progress < 20) {
		while (inflight < inflight_max && opened < want) {
			opened++;
			fd = socket(AF_INET, (dgram ? SOCK_DGRAM : SOCK_STREAM) |
			    SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			if (fd == -1) {
				failed++;
				continue;
			}
			if ((connect(fd, (struct sockaddr *)&sin,
			    sizeof(sin)) == -1 && errno != EINPROGRESS) ||
			    (dgram && send(fd, "x", 1, 0) != 1)) {
				close(fd);
				failed++;
				continue;
			}
			/* A datagram is sent: wait for its echo. */
			ev.events = dgram ? EPOLLIN : EPOLLOUT;
			ev.data.fd = fd;
			if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == -1) {
				close(fd);
				failed++;
				continue;
			}
			inflight++;
		}
		n = epoll_wait(ep, evs, MAXEV, 100);
		for (i = 0; i < n; i++) {
			fd = evs[i].data.fd;
			if (evs[i].events & EPOLLOUT) {
				err = 0;
				elen = sizeof(err);
				getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
				if (err != 0 || write(fd, "x", 1) != 1) {
					why[1]++;
					goto fail;
				}
				ev.events = EPOLLIN;
				ev.data.fd = fd;
				epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
				continue;
			}
			r = read(fd, &c, 1);
			if (r == -1 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r != 1) {
				why[2]++;
				goto fail;
			}
			epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
			ok++;
			inflight--;
			progress = now();
			continue;
fail:
			epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
			close(fd);
			failed++;
			inflight--;
			progress = now();
		}
	}
	failed += inflight;	/* still connecting at the deadline */
	why[3] = inflight;
	why[0] = failed - why[1] - why[2] - why[3];
	if (failed > 0)
		fprintf(stderr, "benchkit: %ld failed: %ld at connect(), %ld in "
		    "the handshake, %ld got no echo, %ld timed out\n", failed,
		    why[0], why[1], why[2], why[3]);
	printf("ready %ld %ld\n", ok, failed);
	fflush(stdout);
	/* Hold them, idle, until killed or the hold time is over. */
	deadline = now() + hold_secs;
	while (now() < deadline)
		usleep(200000);
	return 0;
}

static void __attribute__((noreturn))
cmd_udpecho(const char *addr, const char *port)
{
	static char buf[65536];
	struct sockaddr_in sin, from;
	socklen_t len;
	ssize_t r;
	int fd;

	make_addr(&sin, addr, port);
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		die("socket");
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		die("bind");
	for (;;) {
		len = sizeof(from);
		r = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		    &len);
		if (r == -1 && errno != EINTR)
			die("recvfrom");
		if (r >= 0)
			(void)sendto(fd, buf, (size_t)r, 0,
			    (struct sockaddr *)&from, len);
	}
}

static int
cmd_udprr(const char *addr, const char *port, int nclients, double secs)
{
	struct epoll_event evs[MAXEV], ev;
	struct sockaddr_in sin;
	char msg[64], buf[2048];
	double end = now() + secs, *sent;
	long count = 0, lost = 0;
	int ep, n, i, c, *fds;
	ssize_t r;

	make_addr(&sin, addr, port);
	memset(msg, 'q', sizeof(msg));
	fds = calloc((size_t)nclients, sizeof(*fds));
	sent = calloc((size_t)nclients, sizeof(*sent));
	if (fds == NULL || sent == NULL)
		die("calloc");
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		die("epoll_create1");
	for (c = 0; c < nclients; c++) {
		fds[c] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (fds[c] == -1 || connect(fds[c], (struct sockaddr *)&sin,
		    sizeof(sin)) == -1)
			die("client socket");
		ev.events = EPOLLIN;
		ev.data.u32 = (uint32_t)c;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[c], &ev) == -1)
			die("epoll_ctl");
		(void)send(fds[c], msg, sizeof(msg), 0);
		sent[c] = now();
	}
	while (now() < end) {
		n = epoll_wait(ep, evs, MAXEV, 50);
		for (i = 0; i < n; i++) {
			c = (int)evs[i].data.u32;
			while ((r = recv(fds[c], buf, sizeof(buf), 0)) >= 0)
				count++;
			(void)send(fds[c], msg, sizeof(msg), 0);
			sent[c] = now();
		}
		for (c = 0; c < nclients; c++)
			if (now() - sent[c] > 0.2) {
				lost++;
				(void)send(fds[c], msg, sizeof(msg), 0);
				sent[c] = now();
			}
	}
	printf("count %ld lost %ld\n", count, lost);
	return 0;
}

static int
cmd_udppace(const char *addr, const char *port, double rate, double secs,
    size_t size)
{
	struct sockaddr_in sin;
	struct timespec tick;
	char buf[65536];
	uint64_t seq = 0, due;
	double start;
	int fd;

	if (size < sizeof(seq) || size > sizeof(buf) || rate <= 0)
		die("udppace: SIZE from 8 to 65536, RATE > 0");
	make_addr(&sin, addr, port);
	memset(buf, 'p', sizeof(buf));
	(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		die("udppace: socket");
	clock_gettime(CLOCK_MONOTONIC, &tick);
	start = now();
	while (now() - start < secs) {
		due = (uint64_t)((now() - start) * rate);
		for (; seq < due; seq++) {
			memcpy(buf, &seq, sizeof(seq));
			(void)send(fd, buf, size, 0);
		}
		tick.tv_nsec += 100000;
		if (tick.tv_nsec >= 1000000000) {
			tick.tv_nsec -= 1000000000;
			tick.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick,
		    NULL) == EINTR)
			;
	}
	printf("sent %llu\n", (unsigned long long)seq);
	return 0;
}

#define RELAY_BATCH	64

static int
cmd_udprelay(const char *addr, const char *port, const char *to_addr,
    const char *to_port, double secs)
{
	static char bufs[RELAY_BATCH][2048];
	struct mmsghdr msgs[RELAY_BATCH];
	struct iovec iovs[RELAY_BATCH];
	struct sockaddr_in sin, to;
	struct timeval tv = { 0, 200000 };
	uint64_t relayed = 0, calls = 0;
	double end = now() + secs;
	int in, out, n, i, rcvbuf = 4 * 1024 * 1024;

	make_addr(&sin, addr, port);
	make_addr(&to, to_addr, to_port);
	if ((in = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1 ||
	    setsockopt(in, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
	    sizeof(rcvbuf)) == -1 ||
	    setsockopt(in, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    bind(in, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    (out = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(out, (struct sockaddr *)&to, sizeof(to)) == -1)
		die("udprelay: socket");
	while (now() < end) {
		memset(msgs, 0, sizeof(msgs));
		for (i = 0; i < RELAY_BATCH; i++) {
			iovs[i].iov_base = bufs[i];
			iovs[i].iov_len = sizeof(bufs[i]);
			msgs[i].msg_hdr.msg_iov = &iovs[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		/* The timeout only lets the deadline be seen when idle. */
		if ((n = recvmmsg(in, msgs, RELAY_BATCH, MSG_WAITFORONE,
		    NULL)) <= 0)
			continue;
		for (i = 0; i < n; i++)
			iovs[i].iov_len = msgs[i].msg_len;
		calls += 2;
		if (sendmmsg(out, msgs, (unsigned)n, 0) > 0)
			relayed += (uint64_t)n;
	}
	printf("relayed %llu calls %llu\n", (unsigned long long)relayed,
	    (unsigned long long)calls);
	return 0;
}

static int
cmd_udpsink(const char *addr, const char *port, double secs)
{
	struct sockaddr_in sin;
	char buf[65536];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(uint32_t))];
	} ctl;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh;
	struct cmsghdr *cm;
	struct timeval tv = { 1, 0 };
	uint64_t seq, next = 0, got = 0, reordered = 0;
	uint32_t dropped = 0;
	double end = now() + secs;
	ssize_t r;
	int fd, on = 1;

	make_addr(&sin, addr, port);
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		die("udpsink: socket");
	/* A blocking read a datagram; 1 s without one ends it. */
	while (now() < end) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		r = recvmsg(fd, &mh, 0);
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    got > 0)
			break;
		if (r < (ssize_t)sizeof(seq))
			continue;
		got++;
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL;
		    cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SO_RXQ_OVFL)
				memcpy(&dropped, CMSG_DATA(cm), sizeof(dropped));
		memcpy(&seq, buf, sizeof(seq));
		if (seq < next)
			reordered++;
		else
			next = seq + 1;
	}
	printf("got %llu dropped %u reordered %llu\n", (unsigned long long)got,
	    dropped, (unsigned long long)reordered);
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A connected TCP socket to sin, or die. */
static int
connect_to(const struct sockaddr_in *sin)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd == -1)
		die("socket");
	if (connect(fd, (const struct sockaddr *)sin, sizeof(*sin)) == -1)
		die("connect");
	return fd;
}

/* Send size bytes of buf on fd and read as many back, or die. */
static void
echo_once(int fd, char *buf, size_t size)
{
	size_t got;
	ssize_t r;

	if (write(fd, buf, size) != (ssize_t)size)
		die("write");
	for (got = 0; got < size; got += (size_t)r) {
		r = read(fd, buf, size - got);
		if (r <= 0)
			die("read");
	}
}

static int
cmd_pingpong(const char *addr, const char *port, double secs, size_t size,
    long bulk)
{
	struct sockaddr_in sin;
	size_t cap = 1 << 20, count = 0;
	double *rtt, end, t0;
	char buf[65536];
	int fd;

	if (size == 0 || size > sizeof(buf))
		size = 64;
	memset(buf, 'p', sizeof(buf));
	make_addr(&sin, addr, port);
	fd = connect_to(&sin);
	nodelay(fd);
	rtt = malloc(cap * sizeof(*rtt));
	if (rtt == NULL)
		die("malloc");
	for (; bulk > 0; bulk -= 64)
		echo_once(fd, buf, sizeof(buf));
	end = now() + secs;
	while (now() < end) {
		t0 = now();
		echo_once(fd, buf, size);
		if (count < cap)
			rtt[count++] = (now() - t0) * 1e6;
	}
	if (count < 200) {
		fprintf(stderr, "benchkit: only %zu round trips\n", count);
		return 1;
	}
	/* the first 100 round trips are warm-up */
	qsort(rtt + 100, count - 100, sizeof(*rtt), cmp_double);
	printf("count %zu p50 %.3f p99 %.3f\n", count - 100,
	    rtt[100 + (count - 100) / 2],
	    rtt[100 + (size_t)((count - 100) * 0.99)]);
	return 0;
}

static int
cmd_short(const char *addr, const char *port, long count, size_t size)
{
	struct sockaddr_in sin;
	char buf[65536];
	long i;
	int fd;

	if (size == 0 || size > sizeof(buf))
		size = 100;
	memset(buf, 's', sizeof(buf));
	make_addr(&sin, addr, port);
	for (i = 0; i < count; i++) {
		fd = connect_to(&sin);
		echo_once(fd, buf, size);
		close(fd);
	}
	printf("count %ld\n", count);
	return 0;
}

/* ---- tiny HTTP responder ---- */

#define HTTP_MAXFD 262144
#define HTTP_BUF 4096

struct hconn {
	char *buf;
	size_t len;
};

static const char body[] = "hello, world\n";

static int
has_close(const char *req, size_t len)
{
	const char *p = req, *end = req + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			break;
		if ((size_t)(nl - p) >= 17 &&
		    strncasecmp(p, "connection:", 11) == 0) {
			const char *v = p + 11;

			while (*v == ' ')
				v++;
			if (strncasecmp(v, "close", 5) == 0)
				return 1;
		}
		p = nl + 1;
	}
	return 0;
}

static void
http_worker(int lfd)
{
	struct epoll_event evs[MAXEV];
	static struct hconn *conns;
	char resp[512], *e;
	int ep, n, i, fd, close_it, rl;
	struct hconn *c;
	ssize_t r;
	size_t used;

	conns = calloc(HTTP_MAXFD, sizeof(*conns));
	if (conns == NULL)
		die("calloc");
	ep = epoll_for_listener(lfd);
	for (;;) {
		n = epoll_wait(ep, evs, MAXEV, -1);
		if (n == -1 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			fd = evs[i].data.fd;
			if (fd == lfd) {
				accept_all(lfd, ep);
				continue;
			}
			if (fd >= HTTP_MAXFD) {
				close(fd);
				continue;
			}
			c = &conns[fd];
			if (c->buf == NULL && (c->buf = malloc(HTTP_BUF)) == NULL) {
				close(fd);
				continue;
			}
			r = read(fd, c->buf + c->len, HTTP_BUF - c->len);
			if (r <= 0) {
				if (r == -1 && (errno == EAGAIN || errno == EINTR))
					continue;
				goto drop;
			}
			c->len += (size_t)r;
			close_it = 0;
			/* answer every complete request in the buffer */
			while (!close_it && (e = memmem(c->buf, c->len,
			    "\r\n\r\n", 4)) != NULL) {
				used = (size_t)(e + 4 - c->buf);
				close_it = has_close(c->buf, used);
				rl = snprintf(resp, sizeof(resp),
				    "HTTP/1.1 200 OK\r\nServer: benchkit\r\n"
				    "Content-Type: text/plain\r\n"
				    "Content-Length: %zu\r\n%s\r\n%s",
				    sizeof(body) - 1,
				    close_it ? "Connection: close\r\n" : "",
				    body);
				if (write_all(fd, resp, (size_t)rl) == -1)
					goto drop;
				memmove(c->buf, c->buf + used, c->len - used);
				c->len -= used;
			}
			if (close_it || c->len == HTTP_BUF)
				goto drop;
			continue;
drop:
			free(c->buf);
			c->buf = NULL;
			c->len = 0;
			close(fd);
		}
	}
}

static int
cmd_http(const char *addr, const char *port, int workers)
{
	pid_t pid;
	int i, lfd;

	if (workers < 1 || workers > 256)
		workers = 1;
	for (i = 0; i < workers; i++) {
		lfd = listen_on(addr, port, 1);
		pid = fork();
		if (pid == -1)
			die("fork");
		if (pid == 0)
			http_worker(lfd);	/* never returns */
		close(lfd);
	}
	/* the parent waits; SIGTERM to the process group ends all */
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: benchkit echo ADDR PORT\n"
	    "       benchkit hold ADDR PORT N [SECS]\n"
	    "       benchkit pingpong ADDR PORT SECS [SIZE [BULK]]\n"
	    "       benchkit short ADDR PORT COUNT [SIZE]\n"
	    "       benchkit udpecho ADDR PORT\n"
	    "       benchkit udphold ADDR PORT N [SECS]\n"
	    "       benchkit udprr ADDR PORT CLIENTS SECS\n"
	    "       benchkit udppace ADDR PORT RATE SECS [SIZE]\n"
	    "       benchkit udpsink ADDR PORT SECS\n"
	    "       benchkit udprelay ADDR PORT TO_ADDR TO_PORT SECS\n"
	    "       benchkit http ADDR PORT [WORKERS]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	if (argc >= 4 && strcmp(argv[1], "echo") == 0)
		return cmd_echo(argv[2], argv[3]);
	if (argc >= 5 && strcmp(argv[1], "hold") == 0)
		return cmd_hold(argv[2], argv[3], atol(argv[4]),
		    argc >= 6 ? atof(argv[5]) : 600, false);
	if (argc >= 5 && strcmp(argv[1], "pingpong") == 0)
		return cmd_pingpong(argv[2], argv[3], atof(argv[4]),
		    argc >= 6 ? (size_t)atol(argv[5]) : 64,
		    argc >= 7 ? atol(argv[6]) : 0);
	if (argc >= 5 && strcmp(argv[1], "short") == 0)
		return cmd_short(argv[2], argv[3], atol(argv[4]),
		    argc >= 6 ? (size_t)atol(argv[5]) : 100);
	if (argc >= 4 && strcmp(argv[1], "udpecho") == 0)
		cmd_udpecho(argv[2], argv[3]);
	if (argc >= 5 && strcmp(argv[1], "udphold") == 0)
		return cmd_hold(argv[2], argv[3], atol(argv[4]),
		    argc >= 6 ? atof(argv[5]) : 600, true);
	if (argc >= 6 && strcmp(argv[1], "udprr") == 0)
		return cmd_udprr(argv[2], argv[3], atoi(argv[4]),
		    atof(argv[5]));
	if (argc >= 6 && strcmp(argv[1], "udppace") == 0)
		return cmd_udppace(argv[2], argv[3], atof(argv[4]),
		    atof(argv[5]), argc >= 7 ? (size_t)atol(argv[6]) : 64);
	if (argc >= 5 && strcmp(argv[1], "udpsink") == 0)
		return cmd_udpsink(argv[2], argv[3], atof(argv[4]));
	if (argc >= 7 && strcmp(argv[1], "udprelay") == 0)
		return cmd_udprelay(argv[2], argv[3], argv[4], argv[5],
		    atof(argv[6]));
	if (argc >= 4 && strcmp(argv[1], "http") == 0)
		return cmd_http(argv[2], argv[3],
		    argc >= 5 ? atoi(argv[4]) : 1);
	usage();
	return 2;
}
