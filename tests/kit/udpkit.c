/*
 * udpkit.c - the UDP side of the test tools: a backend that echoes or
 * tells each sender its port, a load of many clients that checks every
 * reply byte for byte, and a one-datagram question.
 *
 *   udpkit server --port-file FILE [--host H] [--port P]
 *                 [--mode echo|port|peer|tag|gso|proxy|proxy-echo|silent]
 *       runs until SIGTERM; "port" answers every datagram with the
 *       sender's port in decimal (what a backend sees of a session),
 *       "peer" with its address and port (ADDR:PORT),
 *       "tag" echoes it after "PORT:"; "gso" echoes a run of equal-size
 *       datagrams from one sender in one UDP_SEGMENT send; "proxy"
 *       reads a PROXY v2 header before each datagram's payload and
 *       answers "UDP4 src=A:P dst=A:P PAYLOAD" (UDP6, TCP4, TCP6 with
 *       brackets for IPv6), "proxy-echo" echoes the payload after the
 *       header; both answer "bad-proxy" to a datagram without one;
 *       "silent" reads every datagram and never answers; "spray" answers
 *       "spray N SIZE MS" after MS milliseconds with N datagrams of
 *       SIZE bytes at once, numbered as stream numbers them
 *   udpkit flood HOST PORT CLIENTS COUNT [--max-size N] [--min-size N]
 *                [--timeout S]
 *                [--duration S] [--tagged [--count-moves]]
 *       CLIENTS sockets at once, each sends COUNT datagrams, one at a
 *       time, of sizes from 0 (or --min-size) up to N (default 65507;
 *       one in ten large),
 *       and expects each back exactly; with --duration, sending stops
 *       after S seconds or at SIGUSR1 (COUNT is then a maximum); with --tagged (a "tag"
 *       server behind) each client's replies must all carry one port (with
 *       --count-moves, changes are only counted);
 *       prints a summary, exit 1 on any loss or difference
 *   udpkit account HOST PORT CLIENTS [--duration S] [--max-size N]
 *                  [--interval-ms MS] [--pace-ms MS] [--drain S]
 *       numbered datagrams (client, sequence number, size, then bytes
 *       that are a function of those) from CLIENTS sockets, each at most
 *       one every MS ms (default 5), the next one as soon as the reply
 *       came or after --pace-ms (default 200) without it; every reply is
 *       checked byte for byte against the datagram it answers.  Losses
 *       are allowed only where the caller said a datagram was at risk:
 *       SIGUSR2 opens a risk window (every datagram unanswered then, and
 *       every one sent until SIGHUP closes the window, is at risk), as
 *       around killing a worker.  Stops sending after --duration S or at
 *       SIGUSR1, waits up to --drain S (default 10) for what is still
 *       unanswered, prints a summary; exit 1 on a wrong or duplicated
 *       reply or on a loss outside every risk window
 *   udpkit burst HOST PORT COUNT SIZE
 *       COUNT datagrams of SIZE bytes at once from one socket (a run a
 *       forwarder may send with GSO); each must come back intact
 *   udpkit stream HOST PORT COUNT SIZE [--rate R] [--mixed]
 *       COUNT numbered datagrams of SIZE bytes (with --mixed, SIZE + i % 8:
 *       no two of a run alike, so none leaves by GSO) from one socket,
 *       R a second (default 2000); an echo server behind must send each
 *       back intact and in the order sent (waits up to 5 s for the
 *       rest); exit 1 on a missing, wrong or reordered reply.  With
 *       --pull MS, asks a spray server for COUNT such datagrams instead,
 *       sent after MS ms, and checks them the same way
 *   udpkit ask HOST PORT TEXT [--bind-port P] [--source A] [--timeout S]
 *       (HOST may be an IPv6 address; --bind-port and --source,
 *       a 127.0.0.0/8 address to send from, are IPv4's)
 *       send TEXT from a socket connected to HOST:PORT (so only a reply
 *       from that very address is taken), print the reply; exit 1 if
 *       none comes
 *   udpkit freeport [--host H] [--tcp-too]
 *       print a UDP port free now (and for TCP too)
 *
 * Exit status: 0 success, 1 a check failed, 2 usage or system error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kit_netns.h"

#define MAX_DGRAM	65536

static void
die(const char *what)
{
	fprintf(stderr, "udpkit: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* A client's socket, connected to to, with room for a burst of replies. */
static int
client_socket(const struct sockaddr_in *to)
{
	int fd, sz = 1 << 20;

	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) == -1 ||
	    connect(fd, (const struct sockaddr *)to, sizeof(*to)) == -1)
		die("client socket");
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return fd;
}

static void
usage(void)
{
	fprintf(stderr, "usage: udpkit server --port-file FILE [--host H] "
	    "[--port P] [--mode echo|port|peer|tag|gso|proxy|proxy-echo]\n"
	    "       udpkit flood HOST PORT CLIENTS COUNT [--max-size N] [--min-size N] "
	    "[--timeout S] [--duration S]\n"
	    "             [--tagged [--count-moves]]\n"
	    "       udpkit account HOST PORT CLIENTS [--duration S] [--max-size N] "
	    "[--interval-ms MS]\n"
	    "             [--pace-ms MS] [--drain S]\n"
	    "       udpkit burst HOST PORT COUNT SIZE\n"
	    "       udpkit stream HOST PORT COUNT SIZE [--rate R] [--mixed]\n"
	    "             [--pull MS]\n"
	    "       udpkit ask HOST PORT TEXT [--bind-port P] [--source A] [--timeout S]\n"
	    "       udpkit freeport [--host H] [--tcp-too]\n");
	exit(2);
}

static const char *
opt(int argc, char **argv, const char *name, const char *def)
{
	int i;

	for (i = 0; i < argc - 1; i++)
		if (strcmp(argv[i], name) == 0)
			return argv[i + 1];
	return def;
}

static struct sockaddr_in
addr_of(const char *host, int port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		fprintf(stderr, "udpkit: %s is not an IPv4 address\n", host);
		exit(2);
	}
	/* Binding to any address (0.0.0.0) sends nothing anywhere. */
	if ((ntohl(sin.sin_addr.s_addr) >> 24) != 127 &&
	    sin.sin_addr.s_addr != htonl(INADDR_ANY) && !in_own_netns()) {
		fprintf(stderr, "udpkit: refusing non-loopback address %s "
		    "outside a network namespace of its own\n", host);
		exit(2);
	}
	return sin;
}

static int
bound_socket(const char *host, int port)
{
	struct sockaddr_in	sin = addr_of(host, port);
	int			fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd == -1 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		die("bind");
	return fd;
}

static int
port_of(int fd)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);

	if (getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		die("getsockname");
	return ntohs(sin.sin_port);
}

/*
 * The "gso" server's run: equal-size datagrams from one sender, echoed
 * by one UDP_SEGMENT send (so that a forwarder with UDP_GRO reads them
 * as one), or one by one where the kernel has none.
 */
struct run {
	struct sockaddr_in	from;
	size_t			size, len;
	int			count;
	char			buf[MAX_DGRAM];
};

static void
run_flush(int fd, struct run *r)
{
	struct msghdr	mh;
	struct iovec	v = { r->buf, r->len };
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(uint16_t))];
	}		ctl;
	struct cmsghdr	*cm;
	uint16_t	seg = (uint16_t)r->size;
	int		i;

	if (r->count == 0)
		return;
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &r->from;
	mh.msg_namelen = sizeof(r->from);
	mh.msg_iov = &v;
	mh.msg_iovlen = 1;
#ifdef UDP_SEGMENT
	if (r->count > 1 && r->size > 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(seg));
		memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
		if (sendmsg(fd, &mh, 0) == (ssize_t)r->len) {
			r->count = 0;
			return;
		}
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
	}
#else
	(void)ctl;
	(void)cm;
	(void)seg;
#endif
	for (i = 0; i < r->count; i++) {
		v.iov_base = r->buf + (size_t)i * r->size;
		v.iov_len = r->size;
		(void)sendmsg(fd, &mh, 0);
	}
	r->count = 0;
}

static void __attribute__((noreturn))
server_gso(int fd)
{
	static struct run	 r;
	static char		 buf[MAX_DGRAM];
	struct sockaddr_in	 from;
	socklen_t		 len;
	ssize_t			 n;

	for (;;) {
		len = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), r.count > 0 ? MSG_DONTWAIT :
		    0, (struct sockaddr *)&from, &len);
		if (n == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				run_flush(fd, &r);
			else if (errno != EINTR)
				die("recvfrom");
			continue;
		}
		if (r.count > 0 && (memcmp(&from, &r.from, sizeof(from)) != 0 ||
		    (size_t)n != r.size || r.count == 64 ||
		    r.len + (size_t)n > 60000))
			run_flush(fd, &r);
		if (r.count == 0) {
			r.from = from;
			r.size = (size_t)n;
			r.len = 0;
		}
		memcpy(r.buf + r.len, buf, (size_t)n);
		r.len += (size_t)n;
		r.count++;
	}
}

/*
 * The PROXY v2 header at the start of datagram h (n bytes): its length,
 * with what it says in text; 0 when there is none, or it is not whole
 * or not of TCP or UDP over IPv4 or IPv6.
 */
static size_t
proxy_v2_read(const unsigned char *h, size_t n, char *text, size_t tlen)
{
	static const unsigned char sig[12] = {
		0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49,
		0x54, 0x0a
	};
	char	sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN];
	int	fam, proto;
	size_t	len, alen;

	if (n < 16 || memcmp(h, sig, 12) != 0 || h[12] != 0x21)
		return 0;
	len = 16 + (size_t)(h[14] << 8 | h[15]);
	fam = h[13] >> 4;
	proto = h[13] & 0x0f;
	alen = fam == 1 ? 4 : 16;
	if ((fam != 1 && fam != 2) || (proto != 1 && proto != 2) || len > n ||
	    len < 16 + 2 * alen + 4)
		return 0;
	inet_ntop(fam == 1 ? AF_INET : AF_INET6, h + 16, sa, sizeof(sa));
	inet_ntop(fam == 1 ? AF_INET : AF_INET6, h + 16 + alen, da,
	    sizeof(da));
	snprintf(text, tlen, fam == 1 ? "%s4 src=%s:%u dst=%s:%u" :
	    "%s6 src=[%s]:%u dst=[%s]:%u", proto == 1 ? "TCP" : "UDP", sa,
	    (unsigned)(h[16 + 2 * alen] << 8 | h[17 + 2 * alen]), da,
	    (unsigned)(h[18 + 2 * alen] << 8 | h[19 + 2 * alen]));
	return len;
}

/* The "proxy" and "proxy-echo" answer to datagram buf (n bytes), in place. */
static ssize_t
proxy_answer(bool echo, char *buf, ssize_t n)
{
	char	text[160];
	size_t	hlen = proxy_v2_read((unsigned char *)buf, (size_t)n, text,
		    sizeof(text));
	size_t	tlen;

	if (hlen == 0) {
		memcpy(buf, "bad-proxy", 9);
		return 9;
	}
	tlen = strlen(text);
	n -= (ssize_t)hlen;
	if (!echo && (size_t)n + tlen + 1 > MAX_DGRAM)
		n = (ssize_t)(MAX_DGRAM - tlen - 1);	/* the answer fits */
	memmove(buf + (echo ? 0 : tlen + 1), buf + hlen, (size_t)n);
	if (echo)
		return n;
	memcpy(buf, text, tlen);
	buf[tlen] = ' ';
	return n + (ssize_t)tlen + 1;
}

static size_t stream_dgram(int, size_t, bool, unsigned char *);

/* spray: "spray N SIZE MS" from to, answered after MS ms with N at once. */
static void
server_spray(int fd, const char *req, const struct sockaddr_in *to)
{
	static unsigned char	out[MAX_DGRAM];
	struct timespec		delay;
	int			n, ms, i;
	size_t			size, len;

	if (sscanf(req, "spray %d %zu %d", &n, &size, &ms) != 3 || n < 1 ||
	    n > 100000 || size < 4 || size > 65000 || ms < 0 || ms > 10000)
		return;
	delay.tv_sec = ms / 1000;
	delay.tv_nsec = (long)(ms % 1000) * 1000000;
	(void)nanosleep(&delay, NULL);
	for (i = 0; i < n; i++) {
		len = stream_dgram(i, size, false, out);
		(void)sendto(fd, out, len, 0, (const struct sockaddr *)to,
		    sizeof(*to));
	}
}

static void __attribute__((noreturn))
cmd_server(int argc, char **argv)
{
	const char		*file = opt(argc, argv, "--port-file", NULL);
	const char		*mode = opt(argc, argv, "--mode", "echo");
	int			 fd = bound_socket(opt(argc, argv, "--host",
				    "127.0.0.1"), atoi(opt(argc, argv, "--port",
				    "0")));
	static char		 buf[MAX_DGRAM];
	struct sockaddr_in	 from;
	socklen_t		 len;
	ssize_t			 n;
	FILE			*fp;

	int			 sz = 16 << 20;

	if (file == NULL)
		usage();
	/* A burst of all clients at once must wait, not be dropped. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if ((fp = fopen(file, "w")) == NULL)
		die(file);
	fprintf(fp, "%d\n", port_of(fd));
	fclose(fp);
	if (strcmp(mode, "gso") == 0)
		server_gso(fd);
	for (;;) {
		len = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		    &len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			die("recvfrom");
		}
		if (strcmp(mode, "silent") == 0)
			continue;	/* a name server that never answers */
		if (strcmp(mode, "spray") == 0) {
			buf[n < (ssize_t)sizeof(buf) ? n : n - 1] = '\0';
			server_spray(fd, buf, &from);
			continue;
		}
		if (strncmp(mode, "proxy", 5) == 0)
			n = proxy_answer(strcmp(mode, "proxy-echo") == 0, buf,
			    n);
		else if (strcmp(mode, "port") == 0)
			n = snprintf(buf, sizeof(buf), "%d",
			    ntohs(from.sin_port));
		else if (strcmp(mode, "peer") == 0) {
			char a[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &from.sin_addr, a, sizeof(a));
			n = snprintf(buf, sizeof(buf), "%s:%d", a,
			    ntohs(from.sin_port));
		}
		else if (strcmp(mode, "tag") == 0) {
			char tag[8];
			int  t = snprintf(tag, sizeof(tag), "%d:",
			    ntohs(from.sin_port));

			if (n + t > (ssize_t)sizeof(buf))
				n = (ssize_t)sizeof(buf) - t;
			memmove(buf + t, buf, (size_t)n);
			memcpy(buf, tag, (size_t)t);
			n += t;
		}
		(void)sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from,
		    len);
	}
}

/* flood's --min-size: raw cross-protocol rules carry no empty datagram. */
static size_t min_size;

/* Datagram i of client c: its size and its bytes. */
static size_t
dgram_size(int c, int i, size_t max)
{
	unsigned long	r = (unsigned long)c * 2654435761u ^
			    (unsigned long)i * 40503u;
	size_t		cap = i % 10 == 9 ? max : (max < 1400 ? max : 1400);

	r = (r ^ (r >> 13)) * 2246822519u;
	if (cap < min_size)
		cap = min_size;
	return min_size + (size_t)(r % (cap - min_size + 1));
}

static void
dgram_fill(int c, int i, unsigned char *buf, size_t n)
{
	size_t j;

	for (j = 0; j < n; j++)
		buf[j] = (unsigned char)(c * 131 + i * 31 + j * 7);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* SIGUSR1: send no more (as when --duration is over). */
static volatile sig_atomic_t stop_sending;

static void
on_usr1(int sig)
{
	(void)sig;
	stop_sending = 1;
}

struct client {
	int	fd;
	int	next;		/* datagrams answered so far */
	double	sent_at;
	char	tag[8];		/* --tagged: "PORT:" of the first reply */
};

/*
 * With --tagged, strip "PORT:" from the reply in *in (length *n) and
 * check it is the client's first one.  0, or -1 when it changed.
 */
static int
untag(struct client *cl, unsigned char *in, ssize_t *n, bool relax)
{
	unsigned char	*colon = memchr(in, ':', *n < 8 ? (size_t)*n : 8);
	size_t		 t;
	int		 rc;

	if (colon == NULL)
		return -1;
	t = (size_t)(colon - in) + 1;
	rc = 0;
	if (cl->tag[0] != '\0' &&
	    (strlen(cl->tag) != t || memcmp(cl->tag, in, t) != 0))
		rc = -1;
	if (cl->tag[0] == '\0' || (rc == -1 && relax)) {
		memset(cl->tag, 0, sizeof(cl->tag));
		memcpy(cl->tag, in, t);
	}
	memmove(in, in + t, (size_t)*n - t);
	*n -= (ssize_t)t;
	return rc;
}

static int
cmd_flood(int argc, char **argv)
{
	struct sockaddr_in	 to;
	struct client		*cl;
	struct pollfd		*pfd;
	static unsigned char	 out[MAX_DGRAM], in[MAX_DGRAM];
	int			 nclients, count, c, done = 0, bad = 0, lost = 0;
	int			 tagged = 0, moved = 0;
	bool			 relax = false;
	size_t			 max, size;
	double			 timeout, duration, until;
	unsigned long long	 bytes = 0;
	ssize_t			 n;

	if (argc < 4)
		usage();
	to = addr_of(argv[0], atoi(argv[1]));
	nclients = atoi(argv[2]);
	count = atoi(argv[3]);
	max = (size_t)atol(opt(argc, argv, "--max-size", "65507"));
	min_size = (size_t)atol(opt(argc, argv, "--min-size", "0"));
	timeout = atof(opt(argc, argv, "--timeout", "5"));
	duration = atof(opt(argc, argv, "--duration", "0"));
	until = duration > 0 ? now_s() + duration : 0;
	for (c = 0; c < argc; c++)
		tagged |= strcmp(argv[c], "--tagged") == 0;
	for (c = 0; c < argc; c++)
		relax |= strcmp(argv[c], "--count-moves") == 0;
	signal(SIGUSR1, on_usr1);
	if (nclients < 1 || count < 1 || max > 65507 || min_size > max)
		usage();
	cl = calloc((size_t)nclients, sizeof(*cl));
	pfd = calloc((size_t)nclients, sizeof(*pfd));
	if (cl == NULL || pfd == NULL)
		die("calloc");
	for (c = 0; c < nclients; c++) {
		cl[c].fd = client_socket(&to);
		size = dgram_size(c, 0, max);
		dgram_fill(c, 0, out, size);
		if (send(cl[c].fd, out, size, 0) != (ssize_t)size)
			die("send");
		cl[c].sent_at = now_s();
		pfd[c].fd = cl[c].fd;
		pfd[c].events = POLLIN;
	}
	while (done < nclients) {
		if (poll(pfd, (nfds_t)nclients, 100) == -1 && errno != EINTR)
			die("poll");
		for (c = 0; c < nclients; c++) {
			if (pfd[c].fd == -1)
				continue;
			if (!(pfd[c].revents & POLLIN)) {
				if (now_s() - cl[c].sent_at < timeout)
					continue;
				fprintf(stderr, "udpkit: client %d (port %d): no "
				    "answer to datagram %d in %.0f s\n", c,
				    port_of(cl[c].fd), cl[c].next, timeout);
				lost++;
				pfd[c].fd = -1;
				done++;
				continue;
			}
			n = recv(cl[c].fd, in, sizeof(in), 0);
			if (n == -1) {
				fprintf(stderr, "udpkit: client %d: %s\n", c,
				    strerror(errno));
				bad++;
				pfd[c].fd = -1;
				done++;
				continue;
			}
			if (tagged && untag(&cl[c], in, &n, relax) == -1) {
				moved++;
				if (!relax) {
					fprintf(stderr, "udpkit: client %d: reply "
					    "%d came from another backend port "
					    "than %s\n", c, cl[c].next,
					    cl[c].tag);
					pfd[c].fd = -1;
					done++;
					continue;
				}
			}
			size = dgram_size(c, cl[c].next, max);
			dgram_fill(c, cl[c].next, out, size);
			if ((size_t)n != size || memcmp(in, out, size) != 0) {
				fprintf(stderr, "udpkit: client %d: datagram %d "
				    "came back as %zd bytes, not %zu as sent\n",
				    c, cl[c].next, n, size);
				bad++;
				pfd[c].fd = -1;
				done++;
				continue;
			}
			bytes += (unsigned long long)n;
			if (++cl[c].next == count || stop_sending ||
			    (until > 0 && now_s() >= until)) {
				pfd[c].fd = -1;
				done++;
				continue;
			}
			size = dgram_size(c, cl[c].next, max);
			dgram_fill(c, cl[c].next, out, size);
			if (send(cl[c].fd, out, size, 0) != (ssize_t)size)
				die("send");
			cl[c].sent_at = now_s();
		}
	}
	for (c = 0, count = 0; c < nclients; c++)
		count += cl[c].next;
	printf("clients=%d datagrams=%d bytes=%llu lost=%d wrong=%d "
	    "moved=%d\n", nclients, count, bytes, lost, bad, moved);
	for (c = 0; c < nclients; c++)
		close(cl[c].fd);
	free(cl);
	free(pfd);
	return lost + bad + (relax ? 0 : moved) == 0 ? 0 : 1;
}

/*
 * account: numbered datagrams, each reply checked, every loss explained
 * by a risk window the caller opened (SIGUSR2) and closed (SIGHUP).
 */
#define ACC_SENT	1
#define ACC_ANSWERED	2
#define ACC_RISK	4
#define ACC_HDR		16	/* "SOAK", client, sequence, size */

static volatile sig_atomic_t risk_epoch, risk_open;

static void
on_risk_open(int sig)
{
	(void)sig;
	risk_open = 1;
	risk_epoch++;
}

static void
on_risk_close(int sig)
{
	(void)sig;
	risk_open = 0;
}

struct acc_client {
	int		 fd;
	uint32_t	 next;		/* sequence number of the next send */
	uint32_t	 lo;		/* all before it answered */
	uint32_t	 cap;
	uint8_t		*st;		/* ACC_* per sequence number */
	double		 sent_at;
};

/* Datagram seq of client c: header, then bytes made of c and seq. */
static size_t
acc_fill(int c, uint32_t seq, size_t max, unsigned char *buf)
{
	size_t		size = dgram_size(c, (int)(seq % 1000003u), max);
	uint32_t	h[3] = { (uint32_t)c, seq, (uint32_t)size };

	dgram_fill(c, (int)seq, buf, size);
	memcpy(buf, "SOAK", 4);
	memcpy(buf + 4, h, sizeof(h));
	return size;
}

static int
cmd_account(int argc, char **argv)
{
	struct sockaddr_in	 to;
	struct acc_client	*cl;
	struct pollfd		*pfd;
	static unsigned char	 out[MAX_DGRAM], in[MAX_DGRAM];
	int			 n, c, seen_epoch = 0, reports = 0;
	size_t			 max, size;
	double			 duration, interval, pace, drain, now, stop_at = 0;
	double			 until;
	unsigned long long	 sent = 0, delivered = 0, late = 0, wrong = 0;
	unsigned long long	 dup = 0, lost = 0, lost_risk = 0, at_risk = 0;
	unsigned long long	 bytes = 0, windows = 0, icmp = 0;
	uint32_t		 i, h[3];
	ssize_t			 got;
	bool			 sending = true;

	if (argc < 3)
		usage();
	to = addr_of(argv[0], atoi(argv[1]));
	n = atoi(argv[2]);
	max = (size_t)atol(opt(argc, argv, "--max-size", "1400"));
	duration = atof(opt(argc, argv, "--duration", "10"));
	interval = atof(opt(argc, argv, "--interval-ms", "5")) / 1000;
	pace = atof(opt(argc, argv, "--pace-ms", "200")) / 1000;
	drain = atof(opt(argc, argv, "--drain", "10"));
	if (n < 1 || n > 1000 || max < ACC_HDR || max > 65507)
		usage();
	min_size = ACC_HDR;
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_risk_open);
	signal(SIGHUP, on_risk_close);
	cl = calloc((size_t)n, sizeof(*cl));
	pfd = calloc((size_t)n, sizeof(*pfd));
	if (cl == NULL || pfd == NULL)
		die("calloc");
	for (c = 0; c < n; c++) {
		cl[c].fd = client_socket(&to);
		cl[c].sent_at = -1e9;
		pfd[c].fd = cl[c].fd;
		pfd[c].events = POLLIN;
	}
	until = now_s() + duration;
	for (;;) {
		now = now_s();
		/* A window opened: whatever is unanswered now is at risk. */
		if (risk_epoch != seen_epoch) {
			seen_epoch = risk_epoch;
			windows++;
			for (c = 0; c < n; c++)
				for (i = cl[c].lo; i < cl[c].next; i++)
					if (!(cl[c].st[i] & ACC_ANSWERED))
						cl[c].st[i] |= ACC_RISK;
		}
		if (sending && (stop_sending || now >= until)) {
			sending = false;
			stop_at = now;
		}
		if (!sending) {
			unsigned long long open = 0, open_safe = 0;

			for (c = 0; c < n; c++)
				for (i = cl[c].lo; i < cl[c].next; i++)
					if (!(cl[c].st[i] & ACC_ANSWERED)) {
						open++;
						if (!(cl[c].st[i] & ACC_RISK))
							open_safe++;
					}
			/* At-risk ones get a second to come late. */
			if (open == 0 || (open_safe == 0 &&
			    now - stop_at >= 1) || now - stop_at >= drain)
				break;
		}
		for (c = 0; sending && c < n; c++) {
			struct acc_client *a = &cl[c];

			if (now - a->sent_at < interval)
				continue;
			if (a->next > 0 && !(a->st[a->next - 1] & ACC_ANSWERED)
			    && now - a->sent_at < pace)
				continue;
			if (a->next == a->cap) {
				a->cap = a->cap ? a->cap * 2 : 4096;
				if ((a->st = realloc(a->st, a->cap)) == NULL)
					die("realloc");
				memset(a->st + a->next, 0, a->cap - a->next);
			}
			size = acc_fill(c, a->next, max, out);
			if (send(a->fd, out, size, 0) != (ssize_t)size) {
				if (errno == ECONNREFUSED) {
					icmp++;
					continue;
				}
				die("send");
			}
			a->st[a->next] = ACC_SENT | (risk_open ? ACC_RISK : 0);
			a->next++;
			a->sent_at = now;
			sent++;
		}
		if (poll(pfd, (nfds_t)n, (int)(interval * 1000) + 1) == -1 &&
		    errno != EINTR)
			die("poll");
		for (c = 0; c < n; c++) {
			struct acc_client *a = &cl[c];

			if (!(pfd[c].revents & (POLLIN | POLLERR)))
				continue;
			while ((got = recv(a->fd, in, sizeof(in),
			    MSG_DONTWAIT)) != -1 || errno == ECONNREFUSED) {
				if (got == -1) {
					icmp++;
					continue;
				}
				if (got < ACC_HDR || memcmp(in, "SOAK", 4) != 0)
					goto bad;
				memcpy(h, in + 4, sizeof(h));
				if (h[0] != (uint32_t)c || h[1] >= a->next ||
				    h[2] != (uint32_t)got)
					goto bad;
				size = acc_fill(c, h[1], max, out);
				if (size != (size_t)got ||
				    memcmp(in, out, size) != 0)
					goto bad;
				if (a->st[h[1]] & ACC_ANSWERED) {
					dup++;
					if (reports++ < 10)
						fprintf(stderr, "udpkit: client "
						    "%d: datagram %u answered "
						    "twice\n", c, h[1]);
					continue;
				}
				a->st[h[1]] |= ACC_ANSWERED;
				delivered++;
				bytes += (unsigned long long)got;
				if (h[1] + 1 != a->next)
					late++;
				while (a->lo < a->next &&
				    a->st[a->lo] & ACC_ANSWERED)
					a->lo++;
				continue;
bad:
				wrong++;
				if (reports++ < 10)
					fprintf(stderr, "udpkit: client %d: a "
					    "reply of %zd bytes matches no "
					    "datagram sent\n", c, got);
			}
		}
	}
	for (c = 0; c < n; c++) {
		for (i = 0; i < cl[c].next; i++) {
			if (cl[c].st[i] & ACC_RISK)
				at_risk++;
			if (cl[c].st[i] & ACC_ANSWERED)
				continue;
			lost++;
			if (cl[c].st[i] & ACC_RISK)
				lost_risk++;
			else if (reports++ < 10)
				fprintf(stderr, "udpkit: client %d (port %d): "
				    "datagram %u lost outside every risk "
				    "window\n", c, port_of(cl[c].fd), i);
		}
		close(cl[c].fd);
		free(cl[c].st);
	}
	printf("clients=%d sent=%llu delivered=%llu late=%llu lost=%llu "
	    "lost_at_risk=%llu unexplained=%llu wrong=%llu duplicated=%llu "
	    "at_risk=%llu risk_windows=%llu icmp=%llu bytes=%llu\n", n, sent,
	    delivered, late, lost, lost_risk, lost - lost_risk, wrong, dup,
	    at_risk, windows, icmp, bytes);
	free(cl);
	free(pfd);
	return wrong + dup + (lost - lost_risk) == 0 ? 0 : 1;
}

/*
 * burst HOST PORT COUNT SIZE: COUNT datagrams of SIZE bytes (>= 4: the
 * index first) sent at once from one socket, all expected back intact.
 * Equal sizes in a row are what a forwarder may send with GSO.
 */
static int
cmd_burst(int argc, char **argv)
{
	struct sockaddr_in	 to;
	struct pollfd		 pfd;
	static unsigned char	 out[MAX_DGRAM], in[MAX_DGRAM];
	unsigned char		*seen;
	int			 fd, count, i, got = 0, bad = 0, sz = 8 << 20;
	uint32_t		 idx;
	size_t			 size;
	ssize_t			 n;

	if (argc < 4)
		usage();
	to = addr_of(argv[0], atoi(argv[1]));
	count = atoi(argv[2]);
	size = (size_t)atol(argv[3]);
	if (count < 1 || count > 100000 || size < 4 || size > 65507)
		usage();
	if ((seen = calloc((size_t)count, 1)) == NULL)
		die("calloc");
	fd = bound_socket("0.0.0.0", 0);
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) == -1)
		die("connect");
	for (i = 0; i < count; i++) {
		idx = (uint32_t)i;
		dgram_fill(7, i, out, size);
		memcpy(out, &idx, sizeof(idx));
		if (send(fd, out, size, 0) != (ssize_t)size)
			die("send");
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (got + bad < count && poll(&pfd, 1, 5000) == 1) {
		if ((n = recv(fd, in, sizeof(in), 0)) < 4)
			die("recv");
		memcpy(&idx, in, sizeof(idx));
		if (idx >= (uint32_t)count || seen[idx] || (size_t)n != size) {
			bad++;
			continue;
		}
		dgram_fill(7, (int)idx, out, size);
		memcpy(out, &idx, sizeof(idx));
		if (memcmp(in, out, size) != 0) {
			bad++;
			continue;
		}
		seen[idx] = 1;
		got++;
	}
	printf("burst: %d datagrams of %zu bytes sent, %d back intact, %d "
	    "wrong, %d missing\n", count, size, got, bad, count - got - bad);
	free(seen);
	return got == count ? 0 : 1;
}

/* stream's datagram i: its number, then bytes that are a function of it. */
static size_t
stream_dgram(int i, size_t size, bool mixed, unsigned char *buf)
{
	uint32_t idx = (uint32_t)i;

	if (mixed)
		size += (size_t)(i % 8);
	dgram_fill(11, i, buf, size);
	memcpy(buf, &idx, sizeof(idx));
	return size;
}

/* stream: read what came back (wait up to ms), check each in order. */
static void
stream_read(int fd, int ms, int count, size_t size, bool mixed, int *next,
    int *good, int *bad)
{
	static unsigned char	 in[MAX_DGRAM], want[MAX_DGRAM];
	struct pollfd		 pfd = { fd, POLLIN, 0 };
	uint32_t		 idx;
	size_t			 len;
	ssize_t			 n;

	while (*good + *bad < count && poll(&pfd, 1, ms) == 1) {
		if ((n = recv(fd, in, sizeof(in), 0)) < 4)
			die("recv");
		memcpy(&idx, in, sizeof(idx));
		len = stream_dgram((int)(idx % (uint32_t)count), size, mixed,
		    want);
		if (idx == (uint32_t)*next && (size_t)n == len &&
		    memcmp(in, want, len) == 0) {
			(*good)++;
			(*next)++;
			continue;
		}
		if ((*bad)++ < 5)
			fprintf(stderr, "stream: got #%u (%zd bytes), expected "
			    "#%d\n", idx, n, *next);
		if (idx >= (uint32_t)*next)
			*next = (int)idx + 1;
	}
}

static int
cmd_stream(int argc, char **argv)
{
	struct sockaddr_in	 to;
	struct timespec		 tick;
	static unsigned char	 out[MAX_DGRAM];
	int			 fd, count, rate, per_tick, i, sent = 0;
	int			 next = 0, good = 0, bad = 0, sz = 8 << 20;
	int			 pull, n;
	bool			 mixed = false;
	size_t			 size, len;
	char			 req[64];

	if (argc < 4)
		usage();
	to = addr_of(argv[0], atoi(argv[1]));
	count = atoi(argv[2]);
	size = (size_t)atol(argv[3]);
	rate = atoi(opt(argc, argv, "--rate", "2000"));
	pull = atoi(opt(argc, argv, "--pull", "-1"));
	for (i = 4; i < argc; i++)
		if (strcmp(argv[i], "--mixed") == 0)
			mixed = true;
	if (count < 1 || count > 1000000 || size < 4 || size > 65000 ||
	    rate < 1 || rate > 1000000)
		usage();
	fd = bound_socket("0.0.0.0", 0);
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) == -1)
		die("connect");
	if (pull >= 0) {
		/* A spray server sends them all at once. */
		n = snprintf(req, sizeof(req), "spray %d %zu %d", count, size,
		    pull);
		if (send(fd, req, (size_t)n, 0) != (ssize_t)n)
			die("send");
		sent = count;
	}
	/* per_tick datagrams every tick, a hundred ticks a second or less. */
	per_tick = rate < 100 ? 1 : rate / 100;
	tick.tv_sec = per_tick / rate;
	tick.tv_nsec = (long)((int64_t)(per_tick % rate) * 1000000000 / rate);
	while (sent < count) {
		for (i = 0; i < per_tick && sent < count; i++, sent++) {
			len = stream_dgram(sent, size, mixed, out);
			if (send(fd, out, len, 0) != (ssize_t)len)
				die("send");
		}
		stream_read(fd, 0, count, size, mixed, &next, &good, &bad);
		(void)nanosleep(&tick, NULL);
	}
	stream_read(fd, 5000, count, size, mixed, &next, &good, &bad);
	printf("stream: %d datagrams of %zu bytes%s sent, %d back intact "
	    "and in order, %d wrong or out of order, %d missing\n", count,
	    size, mixed ? " (up to 7 more)" : "", good, bad,
	    count - good - bad);
	return good == count ? 0 : 1;
}

static int
cmd_ask(int argc, char **argv)
{
	struct sockaddr_in	to;
	struct sockaddr_in6	to6;
	struct pollfd		pfd;
	char			buf[MAX_DGRAM];
	int			fd, bport;
	ssize_t			n;

	if (argc < 3)
		usage();
	bport = atoi(opt(argc, argv, "--bind-port", "0"));
	memset(&to6, 0, sizeof(to6));
	if (inet_pton(AF_INET6, argv[0], &to6.sin6_addr) == 1) {
		/* IPv6: from an unbound socket of its own. */
		if (!IN6_IS_ADDR_LOOPBACK(&to6.sin6_addr) && !in_own_netns()) {
			fprintf(stderr, "udpkit: refusing non-loopback address "
			    "%s outside a network namespace of its own\n",
			    argv[0]);
			exit(2);
		}
		to6.sin6_family = AF_INET6;
		to6.sin6_port = htons((unsigned short)atoi(argv[1]));
		if ((fd = socket(AF_INET6, SOCK_DGRAM, 0)) == -1 ||
		    connect(fd, (struct sockaddr *)&to6, sizeof(to6)) == -1)
			die("connect");
	} else {
		to = addr_of(argv[0], atoi(argv[1]));
		fd = bound_socket(opt(argc, argv, "--source", "0.0.0.0"), bport);
		if (connect(fd, (struct sockaddr *)&to, sizeof(to)) == -1)
			die("connect");
	}
	if (send(fd, argv[2], strlen(argv[2]), 0) == -1)
		die("send");
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)(atof(opt(argc, argv, "--timeout", "3")) *
	    1000)) != 1 || (n = recv(fd, buf, sizeof(buf) - 1, 0)) < 0) {
		fprintf(stderr, "udpkit: no answer from %s:%s\n", argv[0],
		    argv[1]);
		return 1;
	}
	buf[n] = '\0';
	printf("%s\n", buf);
	return 0;
}

/* A UDP port free now; with --tcp-too, free for TCP as well. */
static int
cmd_freeport(int argc, char **argv)
{
	const char		*host = opt(argc, argv, "--host", "127.0.0.1");
	struct sockaddr_in	 sin;
	int			 i, fd, port, tfd, both = 0;

	for (i = 0; i < argc; i++)
		both |= strcmp(argv[i], "--tcp-too") == 0;
	for (i = 0; i < 100; i++) {
		fd = bound_socket(host, 0);
		port = port_of(fd);
		sin = addr_of(host, port);
		tfd = socket(AF_INET, SOCK_STREAM, 0);
		if (!both || (tfd != -1 && bind(tfd, (struct sockaddr *)&sin,
		    sizeof(sin)) == 0)) {
			printf("%d\n", port);
			return 0;
		}
		close(tfd);
		close(fd);
	}
	fprintf(stderr, "udpkit: no port free for both UDP and TCP\n");
	return 2;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "server") == 0)
		cmd_server(argc - 2, argv + 2);
	if (strcmp(argv[1], "flood") == 0)
		return cmd_flood(argc - 2, argv + 2);
	if (strcmp(argv[1], "ask") == 0)
		return cmd_ask(argc - 2, argv + 2);
	if (strcmp(argv[1], "account") == 0)
		return cmd_account(argc - 2, argv + 2);
	if (strcmp(argv[1], "burst") == 0)
		return cmd_burst(argc - 2, argv + 2);
	if (strcmp(argv[1], "stream") == 0)
		return cmd_stream(argc - 2, argv + 2);
	if (strcmp(argv[1], "freeport") == 0)
		return cmd_freeport(argc - 2, argv + 2);
	usage();
	return 2;
}
