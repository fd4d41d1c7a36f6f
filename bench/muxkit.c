/*
 * muxkit.c - the clients and backends of bench/run's mux row: one port
 * shared by TLS and SSH, routed by the client's first bytes.
 *
 * bench/run compiles this file into its temporary directory with cc:
 *
 *   muxkit backend ADDR PORT NAME [PORT NAME ...]
 *       One process, one epoll loop, a listener per PORT.  On each
 *       connection it reads the client's first message whole (a TLS
 *       record: its 5-byte header and the length it gives; anything else:
 *       up to a newline, as an SSH banner ends), answers "NAME LEN\n" (LEN:
 *       the bytes of that message), and closes once the client has.  So
 *       the client learns which backend it reached and that its first
 *       message arrived intact.  Cheap: a read, a write and a close a
 *       connection, never the bottleneck.
 *   muxkit load ADDR PORT tls|ssh SNI EXPECT SECS CONC [PROCS]
 *       PROCS processes (default 2), CONC connections in flight between
 *       them, for SECS seconds: each connection connects, sends a
 *       ClientHello naming SNI (tls) or an OpenSSH banner (ssh), waits for
 *       the backend's answer and closes.  An answer "EXPECT LEN" with the
 *       length sent is ok; another answer is misrouted; EOF or an error
 *       before any answer is lost; no answer within 5 s is lost too
 *       (timed out); a refused or failed connect is failed.  At the end it
 *       waits up to 6 s for the connections still in flight.  Prints
 *       "ok N late N lost L misrouted M failed F timedout T": ok counts
 *       the answers within the SECS seconds, late the good ones after.
 *   muxkit hello SNI
 *       Writes the ClientHello to stdout (to check it with a TLS server).
 *
 * Loopback and harness-made network namespaces only; every loop is bounded
 * by a deadline or by the harness's timeout(1).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kit.h"

#define MAXEV 256
#define MAXFD 65536
#define MAXLISTEN 8
#define CONN_TIMEOUT 5.0	/* seconds without an answer: lost */
#define DRAIN 6.0		/* seconds to wait for the last ones */

static void
watch(int ep, int fd, uint32_t events, int op)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.fd = fd;
	if (epoll_ctl(ep, op, fd, &ev) == -1)
		die("epoll_ctl");
}

/* ---- the ClientHello ---- */

static unsigned char *
put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
	return p + 2;
}

/* Fill in the 16-bit length of what runs from at + 2 to end. */
static void
len16(unsigned char *at, const unsigned char *end)
{
	put16(at, (unsigned)(end - at - 2));
}

static unsigned char *
put_ext(unsigned char *p, unsigned type, const unsigned char *data,
    size_t len)
{
	p = put16(p, type);
	p = put16(p, (unsigned)len);
	memcpy(p, data, len);
	return p + len;
}

static unsigned char *
put_random(unsigned char *p, size_t n)
{
	while (n-- > 0)
		*p++ = (unsigned char)random();
	return p;
}

/*
 * A ClientHello as OpenSSL 3 (curl, s_client) sends it: TLS 1.3 and 1.2
 * suites, SNI, ALPN h2 and http/1.1, an x25519 key share, padded to a
 * 512-byte handshake message; one record.  Returns its length.
 */
static size_t
client_hello(unsigned char *b, const char *sni)
{
	static const unsigned short suites[] = {
		0x1302, 0x1303, 0x1301, 0xc02c, 0xc030, 0x009f, 0xcca9,
		0xcca8, 0xccaa, 0xc02b, 0xc02f, 0x009e, 0xc024, 0xc028,
		0x006b, 0xc023, 0xc027, 0x0067, 0xc00a, 0xc014, 0x0039,
		0xc009, 0xc013, 0x0033, 0x009d, 0x009c, 0x003d, 0x003c,
		0x0035, 0x002f, 0x00ff };
	static const unsigned char points[] = { 3, 0, 1, 2 };
	static const unsigned char groups[] = { 0, 10, 0, 0x1d, 0, 0x17,
		0, 0x1e, 0, 0x19, 0, 0x18 };
	static const unsigned char alpn[] = { 0, 12, 2, 'h', '2', 8, 'h',
		't', 't', 'p', '/', '1', '.', '1' };
	static const unsigned char sigalgs[] = { 0, 40, 4, 3, 5, 3, 6, 3,
		8, 7, 8, 8, 8, 9, 8, 10, 8, 11, 8, 4, 8, 5, 8, 6, 4, 1, 5, 1,
		6, 1, 3, 3, 3, 1, 3, 2, 4, 2, 5, 2, 6, 2 };
	static const unsigned char versions[] = { 4, 3, 4, 3, 3 };
	static const unsigned char psk_modes[] = { 1, 1 };
	unsigned char *p = b, *hs, *exts, *e;
	size_t i, n = strlen(sni), hlen;

	*p++ = 0x16;			/* handshake record, TLS 1.0 */
	*p++ = 3;
	*p++ = 1;
	p += 2;				/* record length, below */
	hs = p;
	*p++ = 1;			/* ClientHello */
	p += 3;				/* its length, below */
	*p++ = 3;			/* legacy_version TLS 1.2 */
	*p++ = 3;
	p = put_random(p, 32);
	*p++ = 32;			/* a session id, as OpenSSL sends */
	p = put_random(p, 32);
	p = put16(p, sizeof(suites));
	for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		p = put16(p, suites[i]);
	*p++ = 1;			/* compression: null */
	*p++ = 0;
	exts = p;
	p += 2;
	e = p;				/* server_name */
	p = put16(p, 0);
	p += 2;
	p = put16(p, (unsigned)n + 3);
	*p++ = 0;
	p = put16(p, (unsigned)n);
	memcpy(p, sni, n);
	p += n;
	len16(e + 2, p);
	p = put_ext(p, 11, points, sizeof(points));
	p = put_ext(p, 10, groups, sizeof(groups));
	p = put_ext(p, 35, NULL, 0);	/* session_ticket */
	p = put_ext(p, 16, alpn, sizeof(alpn));
	p = put_ext(p, 22, NULL, 0);	/* encrypt_then_mac */
	p = put_ext(p, 23, NULL, 0);	/* extended_master_secret */
	p = put_ext(p, 13, sigalgs, sizeof(sigalgs));
	p = put_ext(p, 43, versions, sizeof(versions));
	p = put_ext(p, 45, psk_modes, sizeof(psk_modes));
	p = put16(p, 51);		/* key_share: x25519 */
	p = put16(p, 38);
	p = put16(p, 36);
	p = put16(p, 0x1d);
	p = put16(p, 32);
	p = put_random(p, 32);
	/* padding (RFC 7685) to 512 bytes of handshake, as OpenSSL does */
	hlen = (size_t)(p - hs);
	if (hlen + 4 < 512) {
		size_t pad = 512 - hlen - 4;

		p = put16(p, 21);
		p = put16(p, (unsigned)pad);
		memset(p, 0, pad);
		p += pad;
	}
	len16(exts, p);
	hlen = (size_t)(p - hs) - 4;
	hs[1] = (unsigned char)(hlen >> 16);
	put16(hs + 2, (unsigned)hlen);
	put16(b + 3, (unsigned)(p - hs));
	return (size_t)(p - b);
}

/* ---- the backend ---- */

struct bconn {
	unsigned char head[5];	/* a TLS record header as it comes */
	unsigned got;		/* bytes of the first message so far */
	unsigned want;		/* its length once known (TLS), else 0 */
	short name;		/* the listener's index */
	char answered;
};

static int
cmd_backend(int argc, char **argv)
{
	static struct bconn conns[MAXFD];
	struct epoll_event evs[MAXEV];
	const char *names[MAXLISTEN];
	int lfds[MAXLISTEN], nl = 0, ep, n, i, j, fd;
	unsigned char buf[16384];
	struct bconn *c;
	char ans[128];
	ssize_t r, k;

	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		die("epoll_create1");
	for (i = 1; i + 1 < argc && nl < MAXLISTEN; i += 2, nl++) {
		lfds[nl] = listen_on(argv[0], argv[i], 0);
		names[nl] = argv[i + 1];
		watch(ep, lfds[nl], EPOLLIN, EPOLL_CTL_ADD);
	}
	for (;;) {
		n = epoll_wait(ep, evs, MAXEV, -1);
		if (n == -1 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			fd = evs[i].data.fd;
			for (j = 0; j < nl && lfds[j] != fd; j++)
				;
			if (j < nl) {
				while ((fd = accept4(lfds[j], NULL, NULL,
				    SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1) {
					if (fd >= MAXFD) {
						close(fd);
						continue;
					}
					memset(&conns[fd], 0, sizeof(conns[fd]));
					conns[fd].name = (short)j;
					watch(ep, fd, EPOLLIN, EPOLL_CTL_ADD);
				}
				if (errno == EMFILE || errno == ENFILE)
					usleep(10000);
				continue;
			}
			c = &conns[fd];
			r = read(fd, buf, sizeof(buf));
			if (r == -1 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				close(fd);	/* closes its epoll entry */
				continue;
			}
			if (c->answered)
				continue;	/* after the first message */
			for (k = 0; k < r && !c->answered; k++) {
				if (c->got < 5)
					c->head[c->got] = buf[k];
				c->got++;
				if (c->got == 5 && c->head[0] == 0x16)
					c->want = 5u + (unsigned)(c->head[3] <<
					    8 | c->head[4]);
				if ((c->want != 0 && c->got == c->want) ||
				    (c->head[0] != 0x16 && buf[k] == '\n'))
					c->answered = 1;
			}
			if (c->answered) {
				int len = snprintf(ans, sizeof(ans), "%s %u\n",
				    names[c->name], c->got);

				if (write(fd, ans, (size_t)len) != len)
					close(fd);
			}
		}
	}
	/* NOTREACHED */
	return 0;
}

/* ---- the load ---- */

struct lconn {
	double t0;
	int fd;
	unsigned got;
	char reply[64];
};

struct counts {
	long ok, late, lost, misrouted, failed, timedout;
};

struct load {
	struct sockaddr_in sin;
	const unsigned char *msg;
	size_t len;
	char expect[80];	/* "NAME LEN\n" */
	int ep;
	struct lconn *conns;	/* by fd */
	struct counts n;
	double end;
};

static void
finish(struct lconn *c, long *what)
{
	(*what)++;
	close(c->fd);
	c->fd = -1;
}

/* Start a connection: 1 if it is in flight, 0 if it failed (counted). */
static int
start(struct load *l)
{
	struct lconn *c;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1 || fd >= MAXFD) {
		if (fd != -1)
			close(fd);
		l->n.failed++;
		usleep(1000);
		return 0;
	}
	c = &l->conns[fd];
	c->fd = fd;
	c->t0 = now();
	c->got = 0;
	if (connect(fd, (struct sockaddr *)&l->sin, sizeof(l->sin)) == -1 &&
	    errno != EINPROGRESS) {
		finish(c, &l->n.failed);
		usleep(1000);
		return 0;
	}
	watch(l->ep, fd, EPOLLOUT, EPOLL_CTL_ADD);
	return 1;
}

/* An event on connection c: connected, or (part of) the answer. */
static void
step(struct load *l, struct lconn *c, uint32_t events, int *inflight)
{
	socklen_t elen = sizeof(int);
	int err = 0;
	ssize_t r;

	if (events & EPOLLOUT) {
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &elen) == -1 ||
		    err != 0) {
			finish(c, &l->n.failed);
			(*inflight)--;
			return;
		}
		if (write(c->fd, l->msg, l->len) != (ssize_t)l->len) {
			finish(c, &l->n.lost);
			(*inflight)--;
			return;
		}
		watch(l->ep, c->fd, EPOLLIN, EPOLL_CTL_MOD);
		return;
	}
	r = read(c->fd, c->reply + c->got, sizeof(c->reply) - 1 - c->got);
	if (r == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		/* closed or reset before any answer: lost; during one:
		 * an answer cut short, misrouted */
		finish(c, c->got == 0 ? &l->n.lost : &l->n.misrouted);
		(*inflight)--;
		return;
	}
	c->got += (unsigned)r;
	c->reply[c->got] = '\0';
	if (strchr(c->reply, '\n') == NULL && c->got < sizeof(c->reply) - 1)
		return;
	if (strcmp(c->reply, l->expect) != 0)
		finish(c, &l->n.misrouted);
	else
		finish(c, now() <= l->end ? &l->n.ok : &l->n.late);
	(*inflight)--;
}

static struct counts
load_loop(struct load *l, int conc, double secs)
{
	struct epoll_event evs[MAXEV];
	double t, drain_end;
	int inflight = 0, n, i, fd;

	if ((l->ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		die("epoll_create1");
	l->conns = calloc(MAXFD, sizeof(*l->conns));
	if (l->conns == NULL)
		die("calloc");
	for (fd = 0; fd < MAXFD; fd++)
		l->conns[fd].fd = -1;
	l->end = now() + secs;
	drain_end = l->end + DRAIN;
	for (;;) {
		t = now();
		/* a failed start is retried on the next turn, after the
		 * events that may have made room */
		if (t < l->end)
			for (i = inflight; i < conc; i++)
				inflight += start(l);
		if (inflight <= 0 || t >= drain_end)
			break;
		n = epoll_wait(l->ep, evs, MAXEV, 100);
		for (i = 0; i < n; i++)
			step(l, &l->conns[evs[i].data.fd], evs[i].events,
			    &inflight);
		/* the ones with no answer in CONN_TIMEOUT, at most every
		 * 100 ms */
		if (n == 0 || (long)(t * 10) != (long)(now() * 10))
			for (fd = 0, t = now(); fd < MAXFD; fd++)
				if (l->conns[fd].fd != -1 &&
				    t - l->conns[fd].t0 > CONN_TIMEOUT) {
					finish(&l->conns[fd],
					    &l->n.timedout);
					inflight--;
				}
	}
	l->n.timedout += inflight;	/* still waiting at the drain's end */
	return l->n;
}

static int
cmd_load(char **argv, int argc)
{
	static unsigned char hello[2048];
	static const char banner[] =
	    "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n";
	struct counts sum = { 0 }, c;
	struct load l;
	int conc = atoi(argv[6]), procs = argc > 7 ? atoi(argv[7]) : 2;
	int p, fds[2], status;
	double secs = atof(argv[5]);
	pid_t pid;

	memset(&l, 0, sizeof(l));
	make_addr(&l.sin, argv[0], argv[1]);
	if (strcmp(argv[2], "tls") == 0) {
		l.len = client_hello(hello, argv[3]);
		l.msg = hello;
	} else {
		l.len = sizeof(banner) - 1;
		l.msg = (const unsigned char *)banner;
	}
	snprintf(l.expect, sizeof(l.expect), "%s %zu\n", argv[4], l.len);
	if (procs < 1 || procs > 64)
		procs = 2;
	if (conc < procs)
		conc = procs;
	if (pipe(fds) == -1)
		die("pipe");
	for (p = 0; p < procs; p++) {
		pid = fork();
		if (pid == -1)
			die("fork");
		if (pid == 0) {
			close(fds[0]);
			srandom((unsigned)getpid());
			c = load_loop(&l, conc / procs + (p < conc % procs),
			    secs);
			if (write(fds[1], &c, sizeof(c)) != sizeof(c))
				die("write");
			_exit(0);
		}
	}
	close(fds[1]);
	while (read(fds[0], &c, sizeof(c)) == sizeof(c)) {
		sum.ok += c.ok;
		sum.late += c.late;
		sum.lost += c.lost;
		sum.misrouted += c.misrouted;
		sum.failed += c.failed;
		sum.timedout += c.timedout;
	}
	while (wait(&status) > 0 || errno == EINTR)
		;
	printf("ok %ld late %ld lost %ld misrouted %ld failed %ld timedout "
	    "%ld\n", sum.ok, sum.late, sum.lost, sum.misrouted, sum.failed,
	    sum.timedout);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: muxkit backend ADDR PORT NAME [PORT NAME ...]\n"
	    "       muxkit load ADDR PORT tls|ssh SNI EXPECT SECS CONC "
	    "[PROCS]\n"
	    "       muxkit hello SNI\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static unsigned char hello[2048];

	signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	if (argc >= 5 && argc % 2 == 1 && strcmp(argv[1], "backend") == 0)
		return cmd_backend(argc - 2, argv + 2);
	if (argc >= 9 && strcmp(argv[1], "load") == 0 &&
	    (strcmp(argv[4], "tls") == 0 || strcmp(argv[4], "ssh") == 0))
		return cmd_load(argv + 2, argc - 2);
	if (argc == 3 && strcmp(argv[1], "hello") == 0) {
		size_t n = client_hello(hello, argv[2]);

		return fwrite(hello, 1, n, stdout) == n ? 0 : 1;
	}
	usage();
	return 2;
}
