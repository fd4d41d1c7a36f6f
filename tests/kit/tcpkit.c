/*
 * tcpkit.c - traffic generator, checker and test servers for the ferryd
 * integration tests.
 *
 * The shell tests start the real ferryd on loopback and use tcpkit at both
 * ends: "tcpkit server" plays the backend that ferryd forwards to, and the
 * client subcommands push deterministic data through ferryd and check every
 * byte that comes back.  Every subcommand is bounded in time (--timeout), so
 * a broken ferryd makes a test fail instead of hang.  tcpkit only ever
 * listens on or connects to loopback addresses given on its command line.
 *
 * Test data.  Every byte stream is a pure function of a 64-bit seed S:
 * byte i is byte (i mod 8) of the little-endian 64-bit word
 *	mix64(mix64(S + G) + (i / 8 + 1) * G)
 * where mix64() is the splitmix64 finaliser and G = 0x9e3779b97f4a7c15.
 * This counter-mode generator (rather than, say, xorshift) is random access:
 * a sender regenerates whatever a short write left unsent, and a receiver
 * verifies any range knowing only its offset, so nothing is ever stored.
 * Checksums are 64-bit FNV-1a over the bytes in order, printed as 16 hex
 * digits.  Seeds: stream --seed (default 1); concurrent index + 1000; many
 * index; halfclose 1 for what it sends and 42 for what it expects back;
 * server sink-reply replies with seed 42, server source sends seed 7.
 *
 * Server modes: echo returns every byte and, after the client's EOF and
 * the last byte, shuts down its side; sink-reply discards until EOF, waits
 * --delay-ms, sends --reply-bytes of seed 42 and closes; sink discards until
 * EOF; source sends seed 7 until the client closes or shuts down its side;
 * close closes each connection at once (with an RST if --reset).  --log
 * appends one line per finished connection:
 *	peer=ADDR:PORT in=BYTES out=BYTES in_sum=HEX end=WHY
 * ADDR:PORT is the client as the server saw it ([ADDR]:PORT for IPv6) and
 * WHY is eof, reset, error, term (open at SIGTERM), closed or rst-sent.
 *
 * Note for expect-close: a peer that closes a socket with unread data sends
 * an RST, not a FIN, so use --bytes 0 when the close kind matters and the
 * peer might not read.
 *
 * Exit status: 0 success; 1 a check failed (what, where, expected and got
 * are on stderr); 2 usage error, system error, timeout or interruption.
 *
 * Build: gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2
 */

/* A test tool for Linux and the BSDs: accept4, ppoll. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "kit_netns.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* "[v6]:port", or "unix:" and a socket's path (108 bytes) */
#define ADDR_TEXT_MAX	128

#define GOLDEN		0x9e3779b97f4a7c15ULL
#define FNV_INIT	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

#define DEFAULT_TIMEOUT	30	/* s, client subcommands */
#define SERVER_TIMEOUT	600	/* s, lifetime of server and blackhole */
#define IOBUF_SIZE	(256 * 1024)
#define ECHO_BUF_SIZE	(64 * 1024)
#define MAX_REPORTS	10	/* failures described in detail */

#define SEED_CONCURRENT	1000
#define SEED_HALFCLOSE	1
#define SEED_REPLY	42
#define SEED_SOURCE	7

struct addr {
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	char			 text[ADDR_TEXT_MAX];
};

static const char		*cmdname;
static int			 timeout_s = DEFAULT_TIMEOUT;
static int			 timeout_given;
static struct sockaddr_storage	 source_ss;	/* --source, if given */
static socklen_t		 source_len;
static int64_t			 deadline;	/* CLOCK_MONOTONIC ms */
static sigset_t			 pollmask;	/* mask while in ppoll() */
static volatile sig_atomic_t	 got_term;
static volatile sig_atomic_t	 got_stop;	/* SIGUSR1: end --duration now */
static uint8_t			 iobuf[IOBUF_SIZE];
static uint8_t			 genbuf[IOBUF_SIZE];

static void
usage(void)
{
	fprintf(stderr,
"usage: tcpkit [--timeout SECONDS] [--source ADDR] COMMAND [ARGS]\n"
"\n"
"  server [--host H] [--port P] [--port-file FILE] [--mode MODE]\n"
"         [--reply-bytes N] [--delay-ms D] [--reset] [--backlog N]\n"
"         [--log FILE] [--proxy]\n"
"      poll(2) test server, MODE is echo (default), sink-reply, sink, source\n"
"      or close; prints the port, runs until SIGTERM/SIGINT; with --proxy\n"
"      each connection starts with a PROXY v1 or v2 header, whose client\n"
"      is logged as the peer (\"proxy=v1 dst=ADDR:PORT\" after it)\n"
"  stream HOST PORT BYTES [--seed S] [--duration SECS] [--rate BYTES/S]\n"
"      send BYTES through an echo server, verify the echo and EOF; with\n"
"      --duration stop sending after SECS (BYTES is then a maximum) or\n"
"      at SIGUSR1\n"
"  concurrent HOST PORT CONNS BYTES [--hold-ms MS]\n"
"      CONNS connections at once, each echoes and verifies BYTES; with\n"
"      --hold-ms all stay open and idle MS before sending\n"
"  halfclose HOST PORT SEND_BYTES EXPECT_BYTES\n"
"      send, shutdown(SHUT_WR), expect EXPECT_BYTES of seed 42 and EOF\n"
"  expect-close HOST PORT MAX_MS [--bytes N] [--expect eof|rst]\n"
"      succeed iff the peer closes within MAX_MS after connecting\n"
"  hold HOST PORT CONNS SECONDS [--expect N] [--stall]\n"
"      keep CONNS idle connections open for SECONDS, print held=N; with\n"
"      --stall read nothing, so whatever the peer sends backs up\n"
"  blackhole [--host H] [--port-file FILE]\n"
"      listener whose connects hang in SYN_SENT, runs until SIGTERM\n"
"  freeport [--host H]\n"
"      print a currently free TCP port\n"
"  urgent HOST PORT\n"
"      send \"before\", an urgent byte, \"after\" through an echo server;\n"
"      expect \"beforeafter\" back without closing, then EOF\n"
"  urgent-hold HOST PORT MS\n"
"      send a byte and an urgent byte last, keep the connection open MS ms\n"
"  sendreset HOST PORT COUNT\n"
"      COUNT times: connect, send a request, close with a reset\n"
"  pipes PID...\n"
"      print pid=P ends=N min=BYTES sum=BYTES of the pipes each PID holds\n"
"  sockets PID\n"
"      one line per TCP socket PID holds (pidfd_getfd: root): \"listen\n"
"      port=P fastopen=QLEN defer_accept=SECONDS\" or \"conn local=P\n"
"      peer=P nodelay=0|1 fastopen_connect=0|1 pacing=BYTES/S\"; exit 3\n"
"      where the system cannot\n"
"  proxyhello HOST PORT HEADER [--payload TEXT] [--bytewise] [--urgent]\n"
"         [--expect echo|close]\n"
"      send HEADER (escapes \\r \\n \\0 \\xHH) and the payload in one\n"
"      segment, or a byte per segment; expect the payload echoed, or the\n"
"      connection closed without a byte; --urgent sends an urgent byte\n"
"      after HEADER instead of the payload\n"
"  proxyabuse HOST PORT COUNT\n"
"      COUNT connections, each with a malformed PROXY header of a table\n"
"      of known bug classes; each must be closed without a byte back\n"
"  many HOST PORT COUNT BYTES [--parallel P] [--duration SECS]\n"
"      COUNT short echo connections, at most P (8) at once; with\n"
"      --duration start none after SECS or SIGUSR1 (COUNT is then a\n"
"      maximum)\n"
"\n"
"--source binds client connections to ADDR (127.0.0.0/8 or ::1).\n"
"HOST is a numeric loopback address (127.0.0.0/8 or ::1).  --timeout bounds\n"
"every command (default %d s; for server and blackhole it is their maximum\n"
"lifetime, default %d s).  Exit: 0 ok, 1 check failed, 2 usage/system\n"
"error or timeout.\n", DEFAULT_TIMEOUT, SERVER_TIMEOUT);
	exit(2);
}

/* Messages and exits */

static void
prefix(void)
{
	if (cmdname != NULL)
		fprintf(stderr, "tcpkit %s: ", cmdname);
	else
		fprintf(stderr, "tcpkit: ");
}

static void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	va_list	 ap;

	prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list	 ap;

	prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list	 ap;

	prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (run \"tcpkit --help\" for usage)\n");
	exit(2);
}

/* Time, deadline and signals */

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
on_alarm(int sig)
{
	static const char msg[] =
	    "tcpkit: hard time limit (alarm) reached, exiting\n";

	(void)sig;
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(2);
}

static void
on_term(int sig)
{
	if (sig == SIGUSR1)
		got_stop = 1;
	else
		got_term = 1;
}

/*
 * SIGTERM and SIGINT are blocked except inside ppoll(), so a loop sees
 * got_term without a race.  SIGALRM is the backstop behind the deadline
 * that every loop checks itself.
 */
static void
signals_init(void)
{
	struct sigaction	 sa;
	sigset_t		 block;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &pollmask);
	sigdelset(&pollmask, SIGTERM);
	sigdelset(&pollmask, SIGINT);
	sigdelset(&pollmask, SIGUSR1);
}

/* Start the clock: the command must finish within timeout + extra_ms. */
static void
deadline_set(int64_t extra_ms)
{
	int64_t	 total = (int64_t)timeout_s * 1000 + extra_ms;

	deadline = now_ms() + total;
	alarm((unsigned)(total / 1000 + 5));
}

static int
timed_out(void)
{
	return now_ms() >= deadline;
}

/* Milliseconds to wait: want, but never past the deadline. */
static int
wait_ms(int64_t want)
{
	int64_t	 left = deadline - now_ms();

	if (left < 0)
		left = 0;
	if (want < 0 || want > left)
		want = left;
	if (want > INT_MAX)
		want = INT_MAX;
	return (int)want;
}

static int
xpoll(struct pollfd *pfd, nfds_t n, int ms)
{
	struct timespec	 ts;
	int		 rc;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	rc = ppoll(pfd, n, &ts, &pollmask);
	if (rc == -1 && errno != EINTR)
		die("poll: %s", strerror(errno));
	return rc;
}

/* Raise the soft RLIMIT_NOFILE to the hard limit; die if below need. */
static void
raise_nofile(uint64_t need)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		die("getrlimit: %s", strerror(errno));
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t	 old = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
			rl.rlim_cur = 1048576 < rl.rlim_max ?
			    1048576 : rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
				rl.rlim_cur = old;
		}
	}
	if (need > 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
		die("need %" PRIu64 " file descriptors but RLIMIT_NOFILE is "
		    "%llu (hard limit %llu)", need,
		    (unsigned long long)rl.rlim_cur,
		    (unsigned long long)rl.rlim_max);
}

/* Data stream and checksum */

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t
stream_key(uint64_t seed)
{
	return mix64(seed + GOLDEN);
}

/* Bytes off .. off + n - 1 of the stream with the given key. */
static void
stream_fill(uint64_t key, uint64_t off, uint8_t *buf, size_t n)
{
	uint64_t	 word = off / 8, w;
	size_t		 skip = off % 8, i = 0, take;

	if (skip != 0 && n > 0) {
		w = htole64(mix64(key + (word++ + 1) * GOLDEN));
		take = 8 - skip < n ? 8 - skip : n;
		memcpy(buf, (uint8_t *)&w + skip, take);
		i = take;
	}
	for (; i + 8 <= n; i += 8) {
		w = htole64(mix64(key + (word++ + 1) * GOLDEN));
		memcpy(buf + i, &w, 8);
	}
	if (i < n) {
		w = htole64(mix64(key + (word + 1) * GOLDEN));
		memcpy(buf + i, &w, n - i);
	}
}

static uint64_t
fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= FNV_PRIME;
	}
	return h;
}

/* Up to 8 bytes as hex, for mismatch reports. */
static const char *
hexbytes(const uint8_t *p, size_t n, char *buf, size_t len)
{
	size_t	 i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < n && i < 8 && o + 4 < len; i++)
		o += snprintf(buf + o, len - o, "%s%02x", i ? " " : "", p[i]);
	return buf;
}

/* Arguments */

struct optdef {
	const char	 *name;		/* without the leading "--" */
	const char	**val;		/* option takes an argument */
	int		 *flag;		/* option is a flag */
};

/*
 * Sort argv[1..] into options (from opts) and positional arguments;
 * returns the number of positional arguments, which must be npos.
 */
static void
parse_args(int argc, char **argv, const struct optdef *opts, char **pos,
    int npos)
{
	const struct optdef	*o;
	const char		*name, *eq;
	size_t			 nlen;
	int			 i, n = 0;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) != 0 || argv[i][2] == '\0') {
			if (n >= npos)
				usage_error("unexpected argument \"%s\"",
				    argv[i]);
			pos[n++] = argv[i];
			continue;
		}
		name = argv[i] + 2;
		eq = strchr(name, '=');
		nlen = eq ? (size_t)(eq - name) : strlen(name);
		for (o = opts; o->name != NULL; o++)
			if (strlen(o->name) == nlen &&
			    strncmp(o->name, name, nlen) == 0)
				break;
		if (o->name == NULL)
			usage_error("unknown option \"%s\"", argv[i]);
		if (o->flag != NULL) {
			if (eq != NULL)
				usage_error("option --%s takes no value",
				    o->name);
			*o->flag = 1;
		} else if (eq != NULL)
			*o->val = eq + 1;
		else if (i + 1 < argc)
			*o->val = argv[++i];
		else
			usage_error("option --%s needs a value", o->name);
	}
	if (n != npos)
		usage_error("expected %d argument%s, got %d", npos,
		    npos == 1 ? "" : "s", n);
}

static uint64_t
parse_num(const char *s, const char *what, uint64_t min, uint64_t max)
{
	unsigned long long	 v;
	char			*end;

	if (s[0] < '0' || s[0] > '9')
		usage_error("%s \"%s\" is not a number", what, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		usage_error("%s \"%s\" is not a number", what, s);
	if (v < min || v > max)
		usage_error("%s %s is out of range (%" PRIu64 "..%" PRIu64 ")",
		    what, s, min, max);
	return v;
}

/* Seconds with an optional fraction, as milliseconds. */
static int64_t
parse_seconds(const char *s, const char *what)
{
	double	 v;
	char	*end;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || end == s || !(v >= 0) ||
	    v > 86400)
		usage_error("%s \"%s\" is not a number of seconds "
		    "(0..86400)", what, s);
	return (int64_t)(v * 1000 + 0.5);
}

static int
is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in	*sin = (const void *)ss;
	const struct sockaddr_in6	*sin6 = (const void *)ss;
	const uint8_t			*b;

	if (ss->ss_family == AF_INET)
		return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	if (IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr))
		return 1;
	b = sin6->sin6_addr.s6_addr;
	return IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) && b[12] == 127;
}

static const char *
addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const struct sockaddr_in	*sin = (const void *)ss;
	const struct sockaddr_in6	*sin6 = (const void *)ss;
	char				 ip[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(sin->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ntohs(sin6->sin6_port));
	} else if (ss->ss_family == AF_UNIX) {
		const struct sockaddr_un *sun = (const void *)ss;

		if (sun->sun_path[0] == '\0' && sun->sun_path[1] != '\0')
			snprintf(buf, len, "unix:@%.*s",
			    (int)sizeof(sun->sun_path) - 1, sun->sun_path + 1);
		else
			snprintf(buf, len, "unix:%.*s",
			    (int)sizeof(sun->sun_path), sun->sun_path);
	} else
		snprintf(buf, len, "(family %d)", ss->ss_family);
	return buf;
}

static unsigned
addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)ss)->
		    sin_port);
	if (ss->ss_family != AF_INET6)
		return 0;	/* Unix: no port */
	return ntohs(((const struct sockaddr_in6 *)(const void *)ss)->
	    sin6_port);
}

static void
addr_set_port(struct addr *a, unsigned port)
{
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)(void *)&a->ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)(void *)&a->ss)->sin6_port =
		    htons(port);
	addr_text(&a->ss, a->text, sizeof(a->text));
}

/*
 * HOST "unix:/path" or "unix:@abstract": a Unix stream socket, local by
 * nature (PORT is not looked at).
 */
static void
parse_unix(const char *host, struct addr *a)
{
	struct sockaddr_un	*sun = (void *)&a->ss;
	const char		*path = host + 5;
	size_t			 len = strlen(path);

	memset(a, 0, sizeof(*a));
	if ((path[0] != '/' && path[0] != '@') || len < 2 ||
	    len >= sizeof(sun->sun_path))
		usage_error("\"%s\" is not unix:/path or unix:@name", host);
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, len);
	if (path[0] == '@')
		sun->sun_path[0] = '\0';
	a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	addr_text(&a->ss, a->text, sizeof(a->text));
}

/* A numeric loopback HOST (brackets allowed around IPv6) and PORT. */
static void
parse_addr(const char *host, const char *port, unsigned minport,
    struct addr *a)
{
	struct sockaddr_in	*sin = (void *)&a->ss;
	struct sockaddr_in6	*sin6 = (void *)&a->ss;
	char			 h[INET6_ADDRSTRLEN + 2];
	size_t			 len = strlen(host);
	unsigned		 p;

	if (strncmp(host, "unix:", 5) == 0) {
		parse_unix(host, a);
		return;
	}
	p = (unsigned)parse_num(port, "port", minport, 65535);
	if (len >= 2 && host[0] == '[' && host[len - 1] == ']' &&
	    len - 2 < sizeof(h)) {
		memcpy(h, host + 1, len - 2);
		h[len - 2] = '\0';
	} else if (len < sizeof(h))
		strcpy(h, host);
	else
		usage_error("host \"%s\" is too long", host);

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, h, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(p);
		a->len = sizeof(*sin);
	} else if (inet_pton(AF_INET6, h, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(p);
		a->len = sizeof(*sin6);
	} else
		usage_error("\"%s\" is not a numeric IPv4 or IPv6 address",
		    host);
	if (!is_loopback(&a->ss) && !in_own_netns())
		usage_error("refusing non-loopback address %s outside a "
		    "network namespace of its own", host);
	addr_text(&a->ss, a->text, sizeof(a->text));
}

/* Sockets */

static int
listen_on(const struct addr *a, int backlog, int reuse)
{
	int	 fd, one = 1;

	fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (fd == -1)
		die("socket: %s", strerror(errno));
	if (reuse)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (a->ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&a->ss, a->len) == -1)
		die("bind %s: %s", a->text, strerror(errno));
	if (backlog >= 0 && listen(fd, backlog) == -1)
		die("listen %s: %s", a->text, strerror(errno));
	return fd;
}

static unsigned
local_port(int fd)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		return 0;
	return addr_port(&ss);
}

/*
 * Start a non-blocking connect.  *err is 0 when already connected,
 * EINPROGRESS when pending, else the errno of the failure.
 */
static int
connect_start(const struct addr *a, int *err)
{
	int	 fd;

	fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (fd == -1)
		die("socket: %s", strerror(errno));
	if (source_len != 0 && bind(fd, (struct sockaddr *)&source_ss,
	    source_len) == -1)
		die("cannot bind to the --source address: %s",
		    strerror(errno));
	if (connect(fd, (const struct sockaddr *)&a->ss, a->len) == 0)
		*err = 0;
	else
		*err = errno == EAGAIN ? EADDRNOTAVAIL : errno;
	return fd;
}

/* Outcome of a pending connect once poll says it is writable. */
static int
connect_result(int fd)
{
	int		 err = 0;
	socklen_t	 len = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		return errno;
	return err;
}

/*
 * Connect with a bounded wait; returns fd, or -1 with *err set.  A
 * connection that was established and then reset before we looked is
 * returned with *err = ECONNRESET.
 */
static int
connect_wait(const struct addr *a, int *err)
{
	struct pollfd	 pfd;
	int		 fd;

	fd = connect_start(a, err);
	while (*err == EINPROGRESS) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (xpoll(&pfd, 1, wait_ms(1000)) > 0)
			*err = connect_result(fd);
		if (got_term)
			die("interrupted");
		if (*err == EINPROGRESS && timed_out())
			die("connect to %s: no answer within %d s "
			    "(--timeout)", a->text, timeout_s);
	}
	if (*err != 0 && *err != ECONNRESET) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
write_port_file(const char *path, unsigned port)
{
	char	 tmp[PATH_MAX];
	FILE	*f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		die("port file name \"%s\" is too long", path);
	if ((f = fopen(tmp, "w")) == NULL)
		die("%s: %s", tmp, strerror(errno));
	fprintf(f, "%u\n", port);
	if (fclose(f) != 0)
		die("%s: %s", tmp, strerror(errno));
	if (rename(tmp, path) == -1)
		die("rename %s to %s: %s", tmp, path, strerror(errno));
}

static void
announce_port(const char *port_file, unsigned port)
{
	if (port_file != NULL)
		write_port_file(port_file, port);
	printf("%u\n", port);
	fflush(stdout);
}

/* Server */

enum smode {
	M_ECHO,
	M_SINK_REPLY,
	M_SINK,
	M_SOURCE,
	M_CLOSE
};

static const char *const smode_names[] = {
	"echo", "sink-reply", "sink", "source", "close", NULL
};

struct sconn {
	int		 fd;
	char		 peer[ADDR_TEXT_MAX];
	uint64_t	 in, out, insum;
	uint8_t		*buf;		/* echo: data not yet written back */
	size_t		 off, len;
	int		 eof;		/* the client sent FIN */
	int64_t		 reply_at;	/* sink-reply: when to start */
	const char	*end;		/* finished, and why */
	int		 need_proxy;	/* --proxy: the header is still to come */
	char		 proxy[ADDR_TEXT_MAX + 32];	/* what it said: "v1 dst=ADDR:PORT" */
};

struct server {
	enum smode	  mode;
	uint64_t	  reply_bytes;
	int64_t		  delay_ms;
	int		  reset;
	int		  proxy;	/* expect a PROXY header first */
	int		  lfd;
	int		  logfd;
	struct sconn	**c;
	size_t		  n, cap;
	struct pollfd	 *pfd;
	size_t		  pfdcap;
	int64_t		  accept_resume;
};

static void
server_log(struct server *s, struct sconn *c)
{
	char	 line[256];
	int	 n;

	if (s->logfd == -1)
		return;
	n = snprintf(line, sizeof(line), "peer=%s in=%" PRIu64 " out=%"
	    PRIu64 " in_sum=%016" PRIx64 " end=%s%s%s\n", c->peer, c->in,
	    c->out, c->insum, c->end, c->proxy[0] != '\0' ? " proxy=" : "",
	    c->proxy);
	if (write(s->logfd, line, n) != n)
		note("writing the log: %s", strerror(errno));
}

static void
sconn_free(struct server *s, size_t i)
{
	struct sconn	*c = s->c[i];

	server_log(s, c);
	close(c->fd);
	free(c->buf);
	free(c);
	s->c[i] = s->c[--s->n];
}

/* Close mode: log and close at once, with an RST if --reset. */
static void
server_close_now(struct server *s, int fd, const char *peer)
{
	struct linger	 lg = { 1, 0 };
	struct sconn	 c;

	if (s->reset)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	memset(&c, 0, sizeof(c));
	snprintf(c.peer, sizeof(c.peer), "%s", peer);
	c.insum = FNV_INIT;
	c.end = s->reset ? "rst-sent" : "closed";
	server_log(s, &c);
}

static void
server_add(struct server *s, int fd, const char *peer)
{
	struct sconn	*c;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->c = realloc(s->c, s->cap * sizeof(*s->c));
		if (s->c == NULL)
			die("out of memory");
	}
	if ((c = calloc(1, sizeof(*c))) == NULL)
		die("out of memory");
	c->fd = fd;
	c->insum = FNV_INIT;
	c->need_proxy = s->proxy;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	if (s->mode == M_ECHO && (c->buf = malloc(ECHO_BUF_SIZE)) == NULL)
		die("out of memory");
	s->c[s->n++] = c;
}

static void
server_accept(struct server *s)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	char			 peer[ADDR_TEXT_MAX];
	int			 fd, i;

	for (i = 0; i < 256; i++) {
		len = sizeof(ss);
		fd = accept4(s->lfd, (struct sockaddr *)&ss, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return;
			if (errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				note("accept: %s with %zu connections open; "
				    "pausing accepts for 100 ms",
				    strerror(errno), s->n);
				s->accept_resume = now_ms() + 100;
				return;
			}
			die("accept: %s", strerror(errno));
		}
		addr_text(&ss, peer, sizeof(peer));
		if (s->mode == M_CLOSE)
			server_close_now(s, fd, peer);
		else
			server_add(s, fd, peer);
	}
}

/* Read what the client sent; returns bytes read, 0 at EOF or error. */
static ssize_t
sconn_read(struct sconn *c, uint8_t *buf, size_t len)
{
	ssize_t	 n;

	n = recv(c->fd, buf, len, 0);
	if (n > 0) {
		c->in += n;
		c->insum = fnv1a(c->insum, buf, n);
	} else if (n == 0)
		c->eof = 1;
	else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		c->end = errno == ECONNRESET ? "reset" : "error";
	return n > 0 ? n : 0;
}

/* Send buf; returns bytes sent, 0 when the socket is full or broken. */
static size_t
sconn_write(struct sconn *c, const uint8_t *buf, size_t len)
{
	ssize_t	 n;

	n = send(c->fd, buf, len, MSG_NOSIGNAL);
	if (n > 0) {
		c->out += n;
		return n;
	}
	if (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK &&
	    errno != EINTR)
		c->end = errno == ECONNRESET || errno == EPIPE ?
		    "reset" : "error";
	return 0;
}

/* Shut our side down and mark the connection finished. */
static void
sconn_finish(struct sconn *c, const char *why)
{
	shutdown(c->fd, SHUT_WR);
	c->end = why;
}

static short
sconn_events(const struct server *s, const struct sconn *c, int64_t now)
{
	short	 ev = 0;

	if (c->need_proxy)
		return POLLIN;
	switch (s->mode) {
	case M_ECHO:
		if (!c->eof && c->len < ECHO_BUF_SIZE)
			ev |= POLLIN;
		if (c->off < c->len)
			ev |= POLLOUT;
		break;
	case M_SINK_REPLY:
		if (!c->eof)
			ev = POLLIN;
		else if (now >= c->reply_at)
			ev = POLLOUT;
		break;
	case M_SINK:
		ev = POLLIN;
		break;
	case M_SOURCE:
		ev = POLLIN | POLLOUT;
		break;
	case M_CLOSE:
		break;
	}
	return ev;
}

static void
serve_echo(struct sconn *c, short rev)
{
	if (rev & (POLLIN | POLLHUP | POLLERR) && !c->eof &&
	    c->len < ECHO_BUF_SIZE)
		c->len += sconn_read(c, c->buf + c->len,
		    ECHO_BUF_SIZE - c->len);
	if (c->end == NULL && c->off < c->len) {
		c->off += sconn_write(c, c->buf + c->off, c->len - c->off);
		if (c->off == c->len)
			c->off = c->len = 0;
	}
	if (c->end == NULL && c->eof && c->off == c->len)
		sconn_finish(c, "eof");
}

static void
serve_sink_reply(struct server *s, struct sconn *c, short rev, int64_t now)
{
	uint64_t	 left;
	size_t		 n;

	if (!c->eof) {
		if (rev & (POLLIN | POLLHUP | POLLERR))
			sconn_read(c, iobuf, sizeof(iobuf));
		if (c->eof)
			c->reply_at = now + s->delay_ms;
		return;
	}
	if (now < c->reply_at)
		return;
	left = s->reply_bytes - c->out;
	if (left > 0) {
		n = left < sizeof(genbuf) ? left : sizeof(genbuf);
		stream_fill(stream_key(SEED_REPLY), c->out, genbuf, n);
		sconn_write(c, genbuf, n);
	}
	if (c->end == NULL && c->out == s->reply_bytes)
		sconn_finish(c, "eof");
}

static void
serve_source(struct sconn *c, short rev)
{
	if (rev & (POLLIN | POLLHUP | POLLERR))
		sconn_read(c, iobuf, sizeof(iobuf));
	if (c->end == NULL && c->eof) {
		sconn_finish(c, "eof");
		return;
	}
	if (c->end == NULL && rev & POLLOUT) {
		stream_fill(stream_key(SEED_SOURCE), c->out, genbuf,
		    sizeof(genbuf));
		sconn_write(c, genbuf, sizeof(genbuf));
	}
}

/*
 * --proxy: the PROXY header (v1 or v2) is read with MSG_PEEK until it
 * is whole, then exactly its bytes are taken; what follows is the
 * mode's.  The address it gives becomes the peer in the log, and
 * "proxy=" says the version and the destination.  Anything else ends
 * the connection as "bad-proxy".
 */
static const unsigned char proxy_v2_sig[12] = {
	0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a
};

static int
proxy_v1(struct sconn *c, const char *h, size_t len)
{
	char	 line[108], proto[8], sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN];
	unsigned sp, dp;

	memcpy(line, h, len);
	line[len - 2] = '\0';
	if (strcmp(line, "PROXY UNKNOWN") == 0) {
		snprintf(c->proxy, sizeof(c->proxy), "v1-unknown");
		return 0;
	}
	if (sscanf(line, "PROXY %7s %45s %45s %u %u", proto, sa, da, &sp,
	    &dp) != 5 || (strcmp(proto, "TCP4") != 0 &&
	    strcmp(proto, "TCP6") != 0) || sp > 65535 || dp > 65535)
		return -1;
	if (proto[3] == '6') {
		snprintf(c->peer, sizeof(c->peer), "[%s]:%u", sa, sp);
		snprintf(c->proxy, sizeof(c->proxy), "v1 dst=[%s]:%u", da, dp);
	} else {
		snprintf(c->peer, sizeof(c->peer), "%s:%u", sa, sp);
		snprintf(c->proxy, sizeof(c->proxy), "v1 dst=%s:%u", da, dp);
	}
	return 0;
}

/*
 * v2's AF_UNIX block: source and destination paths of 108 bytes each,
 * NUL-padded; exactly 216 bytes of addresses, stream.  Logged as
 * "proxy=v2-unix dst=unix:PATH", the source as the peer.
 */
static int
proxy_v2_unix(struct sconn *c, const unsigned char *h, size_t len)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_un	*sun = (void *)&ss;
	char			 dst[ADDR_TEXT_MAX];

	if ((h[13] & 0x0f) != 1 || (h[14] << 8 | h[15]) != 216 ||
	    len != 16 + 216)
		return -1;
	memset(&ss, 0, sizeof(ss));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, h + 16 + 108, 108);
	addr_text(&ss, dst, sizeof(dst));
	memcpy(sun->sun_path, h + 16, 108);
	addr_text(&ss, c->peer, sizeof(c->peer));
	snprintf(c->proxy, sizeof(c->proxy), "v2-unix dst=%s", dst);
	return 0;
}

static int
proxy_v2(struct sconn *c, const unsigned char *h, size_t len)
{
	char	 sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN];
	int	 fam = h[13] >> 4, v6 = fam == 2;
	size_t	 alen = v6 ? 16 : 4;

	if ((h[12] & 0xf0) != 0x20)
		return -1;
	if ((h[12] & 0x0f) == 0) {
		snprintf(c->proxy, sizeof(c->proxy), "v2-local");
		return 0;
	}
	if ((h[12] & 0x0f) == 1 && fam == 3)
		return proxy_v2_unix(c, h, len);
	if ((h[12] & 0x0f) != 1 || (fam != 1 && fam != 2) ||
	    len < 16 + 2 * alen + 4)
		return -1;
	inet_ntop(v6 ? AF_INET6 : AF_INET, h + 16, sa, sizeof(sa));
	inet_ntop(v6 ? AF_INET6 : AF_INET, h + 16 + alen, da, sizeof(da));
	snprintf(c->peer, sizeof(c->peer), v6 ? "[%s]:%u" : "%s:%u", sa,
	    (unsigned)(h[16 + 2 * alen] << 8 | h[17 + 2 * alen]));
	snprintf(c->proxy, sizeof(c->proxy), v6 ? "v2%s dst=[%s]:%u" :
	    "v2%s dst=%s:%u", (h[13] & 0x0f) == 2 ? "-udp" : "", da,
	    (unsigned)(h[18 + 2 * alen] << 8 | h[19 + 2 * alen]));
	return 0;
}

static void
serve_proxy_header(struct sconn *c)
{
	unsigned char	 h[536];
	const char	*crlf;
	ssize_t		 n;
	size_t		 len = 0;
	int		 rc;

	n = recv(c->fd, h, sizeof(h), MSG_PEEK);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		c->end = "bad-proxy";
		return;
	}
	if ((size_t)n >= 16 && memcmp(h, proxy_v2_sig, 12) == 0)
		len = 16 + (size_t)(h[14] << 8 | h[15]);
	else if ((crlf = memmem(h, (size_t)n, "\r\n", 2)) != NULL)
		len = (size_t)(crlf - (const char *)h) + 2;
	if ((len == 0 && (size_t)n >= 108) || len > sizeof(h)) {
		c->end = "bad-proxy";
		return;
	}
	if (len == 0 || (size_t)n < len)
		return;		/* not whole yet */
	if (recv(c->fd, h, len, 0) != (ssize_t)len) {
		c->end = "bad-proxy";
		return;
	}
	rc = h[0] == 'P' && len <= 108 ? proxy_v1(c, (const char *)h, len) :
	    memcmp(h, proxy_v2_sig, 12) == 0 ? proxy_v2(c, h, len) : -1;
	if (rc == -1)
		c->end = "bad-proxy";
	c->need_proxy = 0;
}

static void
serve_conn(struct server *s, struct sconn *c, short rev, int64_t now)
{
	if (c->need_proxy) {
		if (rev & (POLLIN | POLLHUP | POLLERR))
			serve_proxy_header(c);
		if (c->need_proxy || c->end != NULL)
			return;
	}
	switch (s->mode) {
	case M_ECHO:
		serve_echo(c, rev);
		break;
	case M_SINK_REPLY:
		serve_sink_reply(s, c, rev, now);
		break;
	case M_SINK:
		if (rev & (POLLIN | POLLHUP | POLLERR))
			sconn_read(c, iobuf, sizeof(iobuf));
		if (c->end == NULL && c->eof)
			sconn_finish(c, "eof");
		break;
	case M_SOURCE:
		serve_source(c, rev);
		break;
	case M_CLOSE:
		break;
	}
	/* An error poll reported although we were not reading. */
	if (c->end == NULL && rev & POLLERR && connect_result(c->fd) != 0)
		c->end = "reset";
}

/* How long poll may sleep: until the next delayed reply or resume. */
static int
server_sleep(const struct server *s, int64_t now)
{
	int64_t	 t = 1000;
	size_t	 i;

	if (s->accept_resume > now && s->accept_resume - now < t)
		t = s->accept_resume - now;
	for (i = 0; i < s->n && s->mode == M_SINK_REPLY; i++)
		if (s->c[i]->eof && s->c[i]->reply_at > now &&
		    s->c[i]->reply_at - now < t)
			t = s->c[i]->reply_at - now;
	return wait_ms(t < 0 ? 0 : t);
}

static size_t
server_pollfds(struct server *s, int64_t now)
{
	size_t	 i, np = 0;

	if (s->pfdcap < s->n + 1) {
		s->pfdcap = (s->n + 1) * 2;
		s->pfd = realloc(s->pfd, s->pfdcap * sizeof(*s->pfd));
		if (s->pfd == NULL)
			die("out of memory");
	}
	s->pfd[np].fd = now >= s->accept_resume ? s->lfd : -1;
	s->pfd[np++].events = POLLIN;
	for (i = 0; i < s->n; i++) {
		s->pfd[np].fd = s->c[i]->fd;
		s->pfd[np].revents = 0;
		s->pfd[np++].events = sconn_events(s, s->c[i], now);
	}
	return np;
}

static void
server_loop(struct server *s)
{
	size_t	 i, np;
	int64_t	 now;

	for (;;) {
		now = now_ms();
		np = server_pollfds(s, now);
		xpoll(s->pfd, np, server_sleep(s, now));
		if (got_term)
			return;
		if (timed_out())
			die("lifetime limit of %d s reached (--timeout); "
			    "exiting with %zu connections open", timeout_s,
			    s->n);
		now = now_ms();
		/* Connections first: indexes match the poll array. */
		for (i = 0; i < s->n; i++)
			if (s->pfd[i + 1].revents != 0)
				serve_conn(s, s->c[i], s->pfd[i + 1].revents,
				    now);
		for (i = s->n; i > 0; i--)
			if (s->c[i - 1]->end != NULL)
				sconn_free(s, i - 1);
		if (s->pfd[0].fd != -1 && s->pfd[0].revents & POLLIN)
			server_accept(s);
	}
}

static enum smode
parse_mode(const char *name)
{
	int	 i;

	for (i = 0; smode_names[i] != NULL; i++)
		if (strcmp(smode_names[i], name) == 0)
			return (enum smode)i;
	usage_error("unknown mode \"%s\" (echo, sink-reply, sink, source, "
	    "close)", name);
}

static int
cmd_server(int argc, char **argv)
{
	const char	*host = "127.0.0.1", *port = "0", *port_file = NULL;
	const char	*mode = "echo", *reply = "0", *delay = "0";
	const char	*log = NULL, *backlog = "4096";
	struct server	 s;
	struct addr	 a;
	size_t		 i;
	const struct optdef opts[] = {
		{ "host", &host, NULL }, { "port", &port, NULL },
		{ "port-file", &port_file, NULL }, { "mode", &mode, NULL },
		{ "reply-bytes", &reply, NULL }, { "delay-ms", &delay, NULL },
		{ "log", &log, NULL }, { "backlog", &backlog, NULL },
		{ "reset", NULL, &s.reset }, { "proxy", NULL, &s.proxy },
		{ NULL, NULL, NULL }
	};

	memset(&s, 0, sizeof(s));
	parse_args(argc, argv, opts, NULL, 0);
	s.mode = parse_mode(mode);
	s.reply_bytes = parse_num(reply, "--reply-bytes", 0, UINT64_MAX);
	s.delay_ms = parse_num(delay, "--delay-ms", 0, 86400000);
	parse_addr(host, port, 0, &a);
	if (!timeout_given)
		timeout_s = SERVER_TIMEOUT;
	deadline_set(0);
	raise_nofile(0);

	s.logfd = -1;
	if (log != NULL && (s.logfd = open(log, O_WRONLY | O_CREAT |
	    O_APPEND | O_CLOEXEC, 0644)) == -1)
		die("%s: %s", log, strerror(errno));
	s.lfd = listen_on(&a, (int)parse_num(backlog, "--backlog", 0, 65535),
	    1);
	announce_port(port_file, local_port(s.lfd));
	server_loop(&s);
	for (i = s.n; i > 0; i--) {
		s.c[i - 1]->end = "term";
		sconn_free(&s, i - 1);
	}
	free(s.c);
	free(s.pfd);
	return 0;
}

/* Clients of echo and sink-reply servers */

enum cstate {
	C_IDLE,
	C_CONNECTING,
	C_READY,	/* connected, waiting for the others */
	C_RUNNING,
	C_DONE
};

enum cresult {
	RES_NONE,
	RES_OK,
	RES_REFUSED,	/* connect failed with ECONNREFUSED */
	RES_CONNFAIL,	/* connect failed otherwise */
	RES_RESET,	/* ECONNRESET or EPIPE while transferring */
	RES_SHORT,	/* EOF before all expected bytes */
	RES_CORRUPT,	/* wrong byte, or more than expected */
	RES_ERROR		/* other socket error */
};

struct xconn {
	int		 fd;
	int		 idx;
	enum cstate	 state;
	enum cresult	 result;
	uint64_t	 seed;
	uint64_t	 skey, rkey;	/* streams sent and expected */
	uint64_t	 tosend, expect;
	uint64_t	 sent, recvd;
	uint64_t	 ssum, rsum;
	int		 shut;		/* SHUT_WR done */
	int		 eof;		/* EOF received */
	unsigned	 lport;
};

struct xrun {
	const struct addr	*a;
	struct xconn		*c;
	size_t			 n;
	size_t			 parallel;	/* connections in flight */
	int			 barrier;	/* all connect before data */
	size_t			 chunk;		/* bytes per send/recv */
	size_t			 next;		/* next to start */
	size_t			 active, done, connected, nfailed;
	size_t			 count[RES_ERROR + 1];
	int64_t			 t_start, t_connected;
	int64_t			 stop_at;	/* --duration: ms, 0 = none */
	uint64_t		 rate;		/* --rate: bytes/s, 0 = any */
	size_t			 lo;		/* c[0..lo) are done */
	int64_t			 hold_ms;	/* --hold-ms before any data */
	int64_t			 hold_until;
	struct pollfd		*pfd;
	struct xconn		**map;
};

static void
xconn_close(struct xrun *r, struct xconn *c)
{
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
	c->state = C_DONE;
	r->active--;
	r->done++;
	r->count[c->result]++;
}

static void __attribute__((format(printf, 4, 5)))
xconn_fail(struct xrun *r, struct xconn *c, enum cresult res,
    const char *fmt, ...)
{
	va_list	 ap;

	c->result = res;
	if (r->nfailed < MAX_REPORTS) {
		fprintf(stderr, "tcpkit %s: conn %d (seed %" PRIu64, cmdname,
		    c->idx, c->seed);
		if (c->lport != 0)
			fprintf(stderr, ", local port %u", c->lport);
		fprintf(stderr, "): ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	} else if (r->nfailed == MAX_REPORTS)
		note("further failures are only counted");
	r->nfailed++;
	xconn_close(r, c);
}

static const char *
xconn_progress(const struct xconn *c, char *buf, size_t len)
{
	snprintf(buf, len, "sent %" PRIu64 " of %" PRIu64 " bytes%s, "
	    "received %" PRIu64 " of %" PRIu64 "%s", c->sent, c->tosend,
	    c->shut ? " and FIN" : "", c->recvd, c->expect,
	    c->eof ? " and EOF" : "");
	return buf;
}

static void
xconn_maybe_done(struct xrun *r, struct xconn *c)
{
	if (c->eof && c->shut && c->sent == c->tosend) {
		c->result = RES_OK;
		xconn_close(r, c);
	}
}

static void	xconn_io_error(struct xrun *, struct xconn *, const char *,
		    int);

/* With --rate: how many more bytes c may send now. */
static uint64_t
xconn_allowance(const struct xrun *r, const struct xconn *c)
{
	uint64_t	 may = r->rate * (uint64_t)(now_ms() - r->t_start) / 1000;

	return may > c->sent ? may - c->sent : 0;
}

static void
xconn_send(struct xrun *r, struct xconn *c)
{
	uint64_t	 left = c->tosend - c->sent;
	size_t		 want = left < r->chunk ? left : r->chunk;
	ssize_t		 n;

	if (want > 0 && r->rate > 0 && xconn_allowance(r, c) < want)
		want = xconn_allowance(r, c);
	if (want > 0) {
		stream_fill(c->skey, c->sent, genbuf, want);
		n = send(c->fd, genbuf, want, MSG_NOSIGNAL);
		if (n == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				xconn_io_error(r, c, "send", errno);
			return;
		}
		c->ssum = fnv1a(c->ssum, genbuf, n);
		c->sent += n;
	}
	if (c->sent == c->tosend && !c->shut) {
		if (shutdown(c->fd, SHUT_WR) == -1) {
			xconn_io_error(r, c, "shutdown", errno);
			return;
		}
		c->shut = 1;
		xconn_maybe_done(r, c);
	}
}

/* Check n received bytes against the expected stream; 0 if all good. */
static int
xconn_verify(struct xrun *r, struct xconn *c, size_t n)
{
	char	 want[32], got[32];
	size_t	 good = n, i;

	if (c->expect - c->recvd < n)
		good = c->expect - c->recvd;
	stream_fill(c->rkey, c->recvd, genbuf, good);
	if (memcmp(iobuf, genbuf, good) != 0) {
		for (i = 0; iobuf[i] == genbuf[i]; i++)
			;
		xconn_fail(r, c, RES_CORRUPT, "wrong data at byte offset %"
		    PRIu64 ": expected %s, got %s (all bytes before it "
		    "matched)", c->recvd + i,
		    hexbytes(genbuf + i, good - i, want, sizeof(want)),
		    hexbytes(iobuf + i, good - i, got, sizeof(got)));
		return -1;
	}
	c->rsum = fnv1a(c->rsum, iobuf, good);
	c->recvd += good;
	if (good < n) {
		xconn_fail(r, c, RES_CORRUPT, "received more than the expected "
		    "%" PRIu64 " bytes: extra data at byte offset %" PRIu64
		    ": %s", c->expect, c->expect,
		    hexbytes(iobuf + good, n - good, got, sizeof(got)));
		return -1;
	}
	return 0;
}

/*
 * A socket call failed.  If a send failed because the peer went away, first
 * read what it sent before that: an EOF there is the better diagnosis.
 */
static void
xconn_io_error(struct xrun *r, struct xconn *c, const char *op, int err)
{
	char	 p[160];
	ssize_t	 n = -1;

	if (strcmp(op, "recv") != 0 &&
	    (err == EPIPE || err == ECONNRESET || err == ENOTCONN)) {
		while (!c->eof &&
		    (n = recv(c->fd, iobuf, r->chunk, MSG_DONTWAIT)) > 0)
			if (xconn_verify(r, c, n) != 0)
				return;
		if (n == 0 && c->recvd < c->expect) {
			xconn_fail(r, c, RES_SHORT, "EOF after %" PRIu64
			    " of %" PRIu64 " expected bytes (%" PRIu64
			    " missing), then %s: %s; it %s", c->recvd,
			    c->expect, c->expect - c->recvd, op,
			    strerror(err), xconn_progress(c, p, sizeof(p)));
			return;
		}
		err = err == ENOTCONN ? ECONNRESET : err;
	}
	xconn_progress(c, p, sizeof(p));
	if (err == ECONNRESET || err == EPIPE)
		xconn_fail(r, c, RES_RESET, "connection reset by peer (%s: %s) "
		    "after it %s", op, strerror(err), p);
	else
		xconn_fail(r, c, RES_ERROR, "%s: %s after it %s", op,
		    strerror(err), p);
}

static void
xconn_recv(struct xrun *r, struct xconn *c)
{
	char	 p[160];
	ssize_t	 n;

	n = recv(c->fd, iobuf, r->chunk, 0);
	if (n == -1) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			xconn_io_error(r, c, "recv", errno);
		return;
	}
	if (n > 0) {
		xconn_verify(r, c, n);
		return;
	}
	if (c->recvd < c->expect) {
		xconn_fail(r, c, RES_SHORT, "EOF after %" PRIu64 " of %" PRIu64
		    " expected bytes (%" PRIu64 " missing); it %s", c->recvd,
		    c->expect, c->expect - c->recvd,
		    xconn_progress(c, p, sizeof(p)));
		return;
	}
	c->eof = 1;
	xconn_maybe_done(r, c);
}

static void
xconn_connected(struct xrun *r, struct xconn *c, int err)
{
	if (err != 0 && err != ECONNRESET) {
		xconn_fail(r, c, err == ECONNREFUSED ? RES_REFUSED :
		    RES_CONNFAIL, "connect to %s: %s", r->a->text,
		    strerror(err));
		return;
	}
	c->lport = local_port(c->fd);
	r->connected++;
	if (err == ECONNRESET) {
		/* Established, then reset before we even looked. */
		xconn_fail(r, c, RES_RESET, "connection reset by peer right "
		    "after connecting to %s", r->a->text);
		return;
	}
	c->state = r->barrier ? C_READY : C_RUNNING;
	if (c->state == C_RUNNING)
		xconn_send(r, c);
}

static void
xconn_start(struct xrun *r, struct xconn *c)
{
	int	 err;

	c->fd = connect_start(r->a, &err);
	c->state = C_CONNECTING;
	r->active++;
	if (err != EINPROGRESS)
		xconn_connected(r, c, err);
}

static void
xrun_timeout(struct xrun *r)
{
	size_t	 i, shown = 0, nconn = 0;
	char	 p[160];

	for (i = 0; i < r->n; i++)
		if (r->c[i].state == C_CONNECTING)
			nconn++;
	note("timed out after %d s (--timeout): %zu of %zu connections "
	    "unfinished (%zu still connecting, %zu never started), %zu ok, "
	    "%zu failed", timeout_s, r->n - r->done, r->n, nconn,
	    r->n - r->next, r->count[RES_OK], r->nfailed);
	for (i = 0; i < r->n && shown < 5; i++) {
		struct xconn	*c = &r->c[i];

		if (c->state != C_CONNECTING && c->state != C_RUNNING &&
		    c->state != C_READY)
			continue;
		shown++;
		if (c->state == C_CONNECTING)
			note("conn %d (seed %" PRIu64 "): connect to %s still "
			    "pending", c->idx, c->seed, r->a->text);
		else
			note("conn %d (seed %" PRIu64 ", local port %u): "
			    "stuck: it %s", c->idx, c->seed, c->lport,
			    xconn_progress(c, p, sizeof(p)));
	}
	exit(2);
}

/* Release the barrier once every connection has connected or failed. */
static void
xrun_barrier(struct xrun *r)
{
	size_t	 i;

	if (!r->barrier || r->next < r->n)
		return;
	for (i = 0; i < r->n; i++)
		if (r->c[i].state == C_CONNECTING)
			return;
	/* --hold-ms: every connection stays idle that long first. */
	if (r->hold_ms > 0) {
		if (r->hold_until == 0)
			r->hold_until = now_ms() + r->hold_ms;
		if (now_ms() < r->hold_until)
			return;
	}
	r->barrier = 0;
	r->t_connected = now_ms();
	if (r->connected < r->n)
		note("only %zu of %zu connections could connect",
		    r->connected, r->n);
	for (i = 0; i < r->n; i++)
		if (r->c[i].state == C_READY) {
			r->c[i].state = C_RUNNING;
			xconn_send(r, &r->c[i]);
		}
}

static size_t
xrun_pollfds(struct xrun *r)
{
	struct xconn	*c;
	size_t		 i, np = 0;
	short		 ev;

	/* Connections before lo are all done: skip them cheaply. */
	while (r->lo < r->next && r->c[r->lo].state == C_DONE)
		r->lo++;
	for (i = r->lo; i < r->next; i++) {
		c = &r->c[i];
		if (c->state == C_CONNECTING)
			ev = POLLOUT;
		else if (c->state == C_RUNNING)
			ev = (c->eof ? 0 : POLLIN) |
			    (c->shut || (r->rate > 0 &&
			    xconn_allowance(r, c) == 0) ? 0 : POLLOUT);
		else
			continue;
		r->pfd[np].fd = c->fd;
		r->pfd[np].events = ev;
		r->pfd[np].revents = 0;
		r->map[np++] = c;
	}
	return np;
}

static void
xrun_event(struct xrun *r, struct xconn *c, short rev)
{
	if (c->state == C_CONNECTING) {
		xconn_connected(r, c, connect_result(c->fd));
		return;
	}
	if (rev & (POLLIN | POLLHUP | POLLERR) && !c->eof)
		xconn_recv(r, c);
	if (c->state == C_RUNNING && rev & (POLLOUT | POLLERR) && !c->shut)
		xconn_send(r, c);
}

/*
 * --duration is over: start no more connections, and let running ones
 * send nothing more than they have, then half-close and verify as usual.
 */
static void
xrun_stop(struct xrun *r)
{
	struct xconn	*c;
	size_t		 i;

	r->stop_at = 0;
	r->n = r->next;
	for (i = 0; i < r->n; i++) {
		c = &r->c[i];
		if (c->state != C_RUNNING || c->tosend == c->sent)
			continue;
		c->tosend = c->expect = c->sent;
		if (!c->shut)
			xconn_send(r, c);
	}
}

/* Run every connection of r to completion. */
static void
xrun_loop(struct xrun *r)
{
	size_t	 i, np;

	r->pfd = calloc(r->n, sizeof(*r->pfd));
	r->map = calloc(r->n, sizeof(*r->map));
	if (r->pfd == NULL || r->map == NULL)
		die("out of memory");
	r->t_start = now_ms();
	if (r->stop_at != 0)
		r->stop_at += r->t_start;
	while (r->done < r->n) {
		if (r->stop_at != 0 && (got_stop || now_ms() >= r->stop_at)) {
			xrun_stop(r);
			if (r->done == r->n)
				break;
		}
		while (r->next < r->n && r->active < r->parallel)
			xconn_start(r, &r->c[r->next++]);
		xrun_barrier(r);
		if (r->done == r->n)
			break;
		np = xrun_pollfds(r);
		xpoll(r->pfd, np, wait_ms(r->rate > 0 || r->stop_at != 0 ||
		    r->hold_until != 0 ? 10 : 1000));
		if (got_term)
			die("interrupted");
		for (i = 0; i < np; i++)
			if (r->pfd[i].revents != 0 &&
			    r->map[i]->state != C_DONE)
				xrun_event(r, r->map[i], r->pfd[i].revents);
		if (r->done < r->n && timed_out())
			xrun_timeout(r);
	}
	if (r->t_connected == 0)
		r->t_connected = now_ms();
	free(r->pfd);
	free(r->map);
	r->pfd = NULL;
	r->map = NULL;
}

static struct xconn *
xconns_new(size_t n)
{
	struct xconn	*c;

	if ((c = calloc(n, sizeof(*c))) == NULL)
		die("out of memory");
	return c;
}

static void
xconn_init(struct xconn *c, int idx, uint64_t sseed, uint64_t rseed,
    uint64_t tosend, uint64_t expect)
{
	c->fd = -1;
	c->idx = idx;
	c->seed = sseed;
	c->skey = stream_key(sseed);
	c->rkey = stream_key(rseed);
	c->tosend = tosend;
	c->expect = expect;
	c->ssum = c->rsum = FNV_INIT;
}

/* Apply --duration SECONDS and --rate BYTES_PER_SECOND (NULL: unset). */
static void
xrun_limits(struct xrun *r, const char *duration, const char *rate)
{
	if (duration != NULL)
		r->stop_at = parse_seconds(duration, "--duration");
	if (rate != NULL)
		r->rate = parse_num(rate, "--rate", 1, UINT64_MAX);
}

static int
cmd_stream(int argc, char **argv)
{
	const char	*seed = "1", *duration = NULL, *rate = NULL;
	char		*pos[3];
	struct addr	 a;
	struct xrun	 r;
	struct xconn	*c;
	double		 secs;
	uint64_t	 s;
	const struct optdef opts[] = {
		{ "seed", &seed, NULL }, { "duration", &duration, NULL },
		{ "rate", &rate, NULL }, { NULL, NULL, NULL }
	};

	parse_args(argc, argv, opts, pos, 3);
	parse_addr(pos[0], pos[1], 1, &a);
	s = parse_num(seed, "--seed", 0, UINT64_MAX);
	deadline_set(0);
	raise_nofile(0);
	memset(&r, 0, sizeof(r));
	r.a = &a;
	r.n = r.parallel = 1;
	r.chunk = IOBUF_SIZE;
	xrun_limits(&r, duration, rate);
	r.c = c = xconns_new(1);
	xconn_init(c, 0, s, s, parse_num(pos[2], "BYTES", 0, UINT64_MAX),
	    parse_num(pos[2], "BYTES", 0, UINT64_MAX));
	xrun_loop(&r);
	if (c->result == RES_REFUSED || c->result == RES_CONNFAIL) {
		free(c);
		return 2;
	}
	secs = (now_ms() - r.t_start) / 1000.0;
	printf("sent=%" PRIu64 " received=%" PRIu64 " sum=%016" PRIx64
	    " MB/s=%.1f\n", c->sent, c->recvd, c->rsum,
	    secs > 0 ? c->sent / secs / 1e6 : 0.0);
	if (c->result == RES_OK && c->ssum != c->rsum)
		die("internal error: checksums differ");
	free(c);
	return r.count[RES_OK] == 1 ? 0 : 1;
}

static int
cmd_concurrent(int argc, char **argv)
{
	const char	*hold = NULL;
	char		*pos[4];
	struct addr	 a;
	struct xrun	 r;
	uint64_t	 bytes;
	size_t		 i;
	const struct optdef opts[] = {
		{ "hold-ms", &hold, NULL }, { NULL, NULL, NULL }
	};

	parse_args(argc, argv, opts, pos, 4);
	parse_addr(pos[0], pos[1], 1, &a);
	memset(&r, 0, sizeof(r));
	r.n = parse_num(pos[2], "CONNS", 1, 1000000);
	bytes = parse_num(pos[3], "BYTES", 0, UINT64_MAX);
	deadline_set(0);
	raise_nofile(r.n + 16);
	r.a = &a;
	r.parallel = r.n;
	r.barrier = 1;
	if (hold != NULL)
		r.hold_ms = parse_num(hold, "--hold-ms", 0, 3600000);
	r.chunk = 64 * 1024;
	r.c = xconns_new(r.n);
	for (i = 0; i < r.n; i++)
		xconn_init(&r.c[i], i, i + SEED_CONCURRENT,
		    i + SEED_CONCURRENT, bytes, bytes);
	xrun_loop(&r);
	note("%zu of %zu connected in %" PRId64 " ms, all done in %" PRId64
	    " ms", r.connected, r.n, r.t_connected - r.t_start,
	    now_ms() - r.t_start);
	printf("ok=%zu failed=%zu\n", r.count[RES_OK], r.n - r.count[RES_OK]);
	free(r.c);
	return r.count[RES_OK] == r.n ? 0 : 1;
}

static int
cmd_many(int argc, char **argv)
{
	const char	*parallel = "8", *duration = NULL;
	char		*pos[4];
	struct addr	 a;
	struct xrun	 r;
	uint64_t	 bytes;
	size_t		 i, corrupt;
	const struct optdef opts[] = {
		{ "parallel", &parallel, NULL }, { "duration", &duration, NULL },
		{ NULL, NULL, NULL }
	};

	parse_args(argc, argv, opts, pos, 4);
	parse_addr(pos[0], pos[1], 1, &a);
	memset(&r, 0, sizeof(r));
	r.n = parse_num(pos[2], "COUNT", 1, 100000000);
	bytes = parse_num(pos[3], "BYTES", 0, UINT64_MAX);
	r.parallel = parse_num(parallel, "--parallel", 1, 100000);
	deadline_set(0);
	raise_nofile(r.parallel + 16);
	r.a = &a;
	r.chunk = 64 * 1024;
	xrun_limits(&r, duration, NULL);
	r.c = xconns_new(r.n);
	for (i = 0; i < r.n; i++)
		xconn_init(&r.c[i], i, i, i, bytes, bytes);
	xrun_loop(&r);
	corrupt = r.count[RES_CORRUPT];
	if (r.n - r.count[RES_OK] > 0)
		note("failures: %zu refused, %zu other connect errors, %zu "
		    "reset, %zu short, %zu corrupt, %zu other errors",
		    r.count[RES_REFUSED], r.count[RES_CONNFAIL],
		    r.count[RES_RESET], r.count[RES_SHORT], corrupt,
		    r.count[RES_ERROR]);
	printf("ok=%zu failed=%zu refused=%zu reset=%zu short=%zu\n",
	    r.count[RES_OK], r.n - r.count[RES_OK], r.count[RES_REFUSED],
	    r.count[RES_RESET], r.count[RES_SHORT]);
	free(r.c);
	return r.count[RES_OK] == r.n ? 0 : 1;
}

static int
cmd_halfclose(int argc, char **argv)
{
	char		*pos[4];
	struct addr	 a;
	struct xrun	 r;
	struct xconn	*c;
	const struct optdef opts[] = { { NULL, NULL, NULL } };

	parse_args(argc, argv, opts, pos, 4);
	parse_addr(pos[0], pos[1], 1, &a);
	deadline_set(0);
	raise_nofile(0);
	memset(&r, 0, sizeof(r));
	r.a = &a;
	r.n = r.parallel = 1;
	r.chunk = IOBUF_SIZE;
	r.c = c = xconns_new(1);
	xconn_init(c, 0, SEED_HALFCLOSE, SEED_REPLY,
	    parse_num(pos[2], "SEND_BYTES", 0, UINT64_MAX),
	    parse_num(pos[3], "EXPECT_BYTES", 0, UINT64_MAX));
	xrun_loop(&r);
	if (c->result == RES_REFUSED || c->result == RES_CONNFAIL) {
		free(c);
		return 2;
	}
	printf("sent=%" PRIu64 " received=%" PRIu64 " sent_sum=%016" PRIx64
	    " recv_sum=%016" PRIx64 "\n", c->sent, c->recvd, c->ssum,
	    c->rsum);
	free(c);
	return r.count[RES_OK] == 1 ? 0 : 1;
}

/* expect-close */

/* Wait for the peer to close fd; 0 EOF, 1 RST, -1 still open at end. */
static int
wait_close(int fd, int64_t end, uint64_t *junk)
{
	struct pollfd	 pfd;
	ssize_t		 n;

	for (;;) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (xpoll(&pfd, 1, wait_ms(end - now_ms())) > 0) {
			n = recv(fd, iobuf, sizeof(iobuf), 0);
			if (n == 0)
				return 0;
			if (n > 0)
				*junk += n;
			else if (errno == ECONNRESET || errno == EPIPE)
				return 1;
			else if (errno != EAGAIN && errno != EINTR)
				die("recv: %s", strerror(errno));
		}
		if (got_term)
			die("interrupted");
		if (now_ms() >= end)
			return -1;
		if (timed_out())
			die("timed out after %d s (--timeout)", timeout_s);
	}
}

static int
cmd_expect_close(int argc, char **argv)
{
	static const char *const how[] = { "EOF", "RST" };
	const char	*bytes = "4", *expect = NULL;
	char		*pos[3];
	struct addr	 a;
	uint64_t	 nbytes, junk = 0;
	int64_t		 max_ms, t0;
	ssize_t		 n;
	int		 fd, err, res, want = -1;
	const struct optdef opts[] = {
		{ "bytes", &bytes, NULL }, { "expect", &expect, NULL },
		{ NULL, NULL, NULL }
	};

	parse_args(argc, argv, opts, pos, 3);
	parse_addr(pos[0], pos[1], 1, &a);
	max_ms = parse_num(pos[2], "MAX_MS", 0, 86400000);
	nbytes = parse_num(bytes, "--bytes", 0, sizeof(genbuf));
	if (expect != NULL && (want = strcasecmp(expect, "eof") == 0 ? 0 :
	    strcasecmp(expect, "rst") == 0 ? 1 : -2) == -2)
		usage_error("--expect must be eof or rst");
	deadline_set(0);
	raise_nofile(0);

	if ((fd = connect_wait(&a, &err)) == -1)
		die("connect to %s: %s (test setup problem: nothing to "
		    "close)", a.text, strerror(err));
	deadline_set(max_ms);
	t0 = now_ms();
	res = err == ECONNRESET ? 1 : -1;
	memcpy(genbuf, "ping", 4);
	stream_fill(stream_key(SEED_HALFCLOSE), 0, genbuf + 4,
	    nbytes > 4 ? nbytes - 4 : 0);
	if (res == -1 && nbytes > 0 &&
	    (n = send(fd, genbuf, nbytes, MSG_NOSIGNAL)) == -1) {
		if (errno != ECONNRESET && errno != EPIPE)
			die("send: %s", strerror(errno));
		res = 1;
	}
	if (res == -1)
		res = wait_close(fd, t0 + max_ms, &junk);
	if (junk > 0)
		note("the peer sent %" PRIu64 " bytes before closing", junk);
	if (res == -1) {
		note("still open after %" PRId64 " ms", now_ms() - t0);
		return 1;
	}
	printf("closed by %s after %" PRId64 " ms\n", how[res],
	    now_ms() - t0);
	if (want >= 0 && want != res) {
		note("expected a close by %s, got %s", how[want], how[res]);
		return 1;
	}
	return 0;
}

/* proxyhello, proxyabuse */

/* TEXT with \r, \n, \0, \\ and \xHH made bytes, into buf; its length. */
static size_t
unescape(const char *text, unsigned char *buf, size_t cap)
{
	size_t	 n = 0;
	unsigned v;

	while (*text != '\0') {
		if (n == cap)
			usage_error("\"%s\" is too long", text);
		if (text[0] != '\\') {
			buf[n++] = (unsigned char)*text++;
			continue;
		}
		switch (text[1]) {
		case 'r': buf[n++] = '\r'; text += 2; break;
		case 'n': buf[n++] = '\n'; text += 2; break;
		case '0': buf[n++] = '\0'; text += 2; break;
		case '\\': buf[n++] = '\\'; text += 2; break;
		case 'x':
			if (sscanf(text + 2, "%2x", &v) != 1)
				usage_error("bad \\x escape in \"%s\"", text);
			buf[n++] = (unsigned char)v;
			text += 4;
			break;
		default:
			usage_error("unknown escape in \"%s\"", text);
		}
	}
	return n;
}

static void
send_all(int fd, const unsigned char *p, size_t len)
{
	struct pollfd	 pfd;
	ssize_t		 n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == -1 && errno != EAGAIN && errno != EINTR)
			die("send: %s", strerror(errno));
		pfd.fd = fd;
		pfd.events = POLLOUT;
		(void)xpoll(&pfd, 1, wait_ms(1000));
		if (timed_out())
			die("timed out sending (--timeout)");
	}
}

/*
 * Send a PROXY header (written with escapes), then the payload, to an
 * echo service behind; expect the payload back (then EOF after ours), or
 * with --expect close, the connection closed without a byte.
 */
static int
cmd_proxyhello(int argc, char **argv)
{
	const char	*payload = "hello through a PROXY header\n";
	const char	*expect = "echo";
	char		*pos[3];
	struct addr	 a;
	unsigned char	 hdr[4096], msg[8192];
	uint64_t	 junk = 0;
	size_t		 hlen, plen, i, got = 0;
	ssize_t		 n;
	int		 fd, err, bytewise = 0, urgent = 0, res;
	struct pollfd	 pfd;
	const struct optdef opts[] = {
		{ "payload", &payload, NULL }, { "expect", &expect, NULL },
		{ "bytewise", NULL, &bytewise }, { "urgent", NULL, &urgent },
		{ NULL, NULL, NULL }
	};

	parse_args(argc, argv, opts, pos, 3);
	parse_addr(pos[0], pos[1], 1, &a);
	hlen = unescape(pos[2], hdr, sizeof(hdr));
	plen = strlen(payload);
	if (strcmp(expect, "echo") != 0 && strcmp(expect, "close") != 0)
		usage_error("--expect must be echo or close");
	deadline_set(0);
	raise_nofile(0);
	if ((fd = connect_wait(&a, &err)) == -1)
		die("connect to %s: %s", a.text, strerror(err));
	/* Reset before we looked: closed before our first byte. */
	if (err == ECONNRESET && strcmp(expect, "close") == 0) {
		printf("closed by RST\n");
		return 0;
	}
	if (err != 0)
		die("connect to %s: %s", a.text, strerror(err));
	if (urgent) {
		/* The header (or part of it), then an urgent byte. */
		send_all(fd, hdr, hlen);
		if (send(fd, "!", 1, MSG_NOSIGNAL | MSG_OOB) != 1)
			die("send: %s", strerror(errno));
	} else if (bytewise) {
		/* A byte per segment, the header split every way there is. */
		for (i = 0; i < hlen; i++) {
			send_all(fd, hdr + i, 1);
			usleep(10000);
		}
		send_all(fd, (const unsigned char *)payload, plen);
	} else {
		/* Header and payload in one segment. */
		memcpy(msg, hdr, hlen);
		memcpy(msg + hlen, payload, plen);
		send_all(fd, msg, hlen + plen);
	}
	if (strcmp(expect, "close") == 0) {
		res = wait_close(fd, now_ms() + (int64_t)timeout_s * 1000, &junk);
		if (res == -1 || junk > 0) {
			note("%s", res == -1 ? "not closed" :
			    "bytes came back before the close");
			return 1;
		}
		printf("closed by %s\n", res == 0 ? "EOF" : "RST");
		return 0;
	}
	while (got < plen) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		(void)xpoll(&pfd, 1, wait_ms(1000));
		n = recv(fd, msg + got, sizeof(msg) - got, 0);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
			note("closed after %zu of %zu bytes", got, plen);
			return 1;
		}
		if (n > 0)
			got += (size_t)n;
		if (timed_out())
			die("timed out waiting for the echo (--timeout)");
	}
	if (got != plen || memcmp(msg, payload, plen) != 0) {
		note("the echo differs from the payload");
		return 1;
	}
	shutdown(fd, SHUT_WR);
	(void)wait_close(fd, now_ms() + 5000, &junk);
	printf("echoed %zu bytes\n", got);
	return 0;
}

/* Malformed PROXY headers, the classes of other parsers' bugs. */
static const char *const abuse_headers[] = {
	"GET / HTTP/1.0\r\n\r\n",
	"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",
	"PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
	"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n",
	"PROXY TCP4  1.2.3.4 5.6.7.8 1 2\r\n",
	"PROXY TCP4 ::1 ::1 1 2\r\n",
	"PROXY TCP6 1.2.3.4 5.6.7.8 1 2\r\n",
	"PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n",
	"PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n",
	"PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n",
	"PROXY UNKNOWN xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n",
	"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX",
	"\r\n\r\n\\0\r\nQUIT\n\x11\x11\\0\x0c" "123456789012",
	"\r\n\r\n\\0\r\nQUIT\n\x22\x11\\0\x0c" "123456789012",
	"\r\n\r\n\\0\r\nQUIT\n\x21\x41\\0\x0c" "123456789012",
	"\r\n\r\n\\0\r\nQUIT\n\x21\x11\\0\x0b" "12345678901",
	"\r\n\r\n\\0\r\nQUIT\n\x21\x21\\0\x0c" "123456789012",
	"\r\n\r\n\\0\r\nQUIT\n\x21\x11\\0\x10" "123456789012\x01\\0\x05x",
	"\r\n\r\n\\0\r\nQUIT\n\x21\x11\x02\x01",
	"\r\n\r\n\\0\r\nQUIX",
};

/*
 * COUNT connections, each sending one of abuse_headers (in turn) and
 * expecting to be closed without a byte back.
 */
static int
cmd_proxyabuse(int argc, char **argv)
{
	char		*pos[3];
	struct addr	 a;
	unsigned char	 hdr[256];
	uint64_t	 count, i, closed = 0, junk;
	size_t		 n, len;
	int		 fd, err;
	const struct optdef opts[] = { { NULL, NULL, NULL } };

	parse_args(argc, argv, opts, pos, 3);
	parse_addr(pos[0], pos[1], 1, &a);
	count = parse_num(pos[2], "COUNT", 1, 10000000);
	deadline_set(0);
	raise_nofile(0);
	n = sizeof(abuse_headers) / sizeof(abuse_headers[0]);
	for (i = 0; i < count; i++) {
		/* "\\0" in the table stands for a NUL byte. */
		len = unescape(abuse_headers[i % n], hdr, sizeof(hdr));
		if ((fd = connect_wait(&a, &err)) == -1)
			die("connect to %s: %s", a.text, strerror(err));
		if (err == 0)
			send_all(fd, hdr, len);
		junk = 0;
		if (err == ECONNRESET ||
		    wait_close(fd, now_ms() + 5000, &junk) != -1)
			closed += junk == 0;
		close(fd);
	}
	printf("closed=%" PRIu64 " of %" PRIu64 "\n", closed, count);
	return closed == count ? 0 : 1;
}

/* urgent */

/*
 * Send "before", one urgent byte (MSG_OOB) and "after" through an echo
 * server, without closing: the echo must be "beforeafter" (the urgent
 * byte is out of band), then EOF after our FIN.  A relay that stalls at
 * the urgent mark fails here by timing out.
 */
static int
cmd_urgent(int argc, char **argv)
{
	static const char want[] = "beforeafter";
	char		*pos[2], got[sizeof(want)];
	struct addr	 a;
	struct pollfd	 pfd;
	size_t		 have = 0;
	ssize_t		 n;
	int		 fd, err;
	const struct optdef opts[] = { { NULL, NULL, NULL } };

	parse_args(argc, argv, opts, pos, 2);
	parse_addr(pos[0], pos[1], 1, &a);
	deadline_set(0);
	if ((fd = connect_wait(&a, &err)) == -1)
		die("connect to %s: %s", a.text, strerror(err));
	if (send(fd, "before", 6, MSG_NOSIGNAL) != 6 ||
	    send(fd, "!", 1, MSG_NOSIGNAL | MSG_OOB) != 1 ||
	    send(fd, "after", 5, MSG_NOSIGNAL) != 5)
		die("send: %s", strerror(errno));
	for (;;) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (xpoll(&pfd, 1, wait_ms(1000)) > 0) {
			n = recv(fd, got + have, sizeof(got) - 1 - have, 0);
			if (n == 0)
				break;
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				die("recv: %s", strerror(errno));
			if (n > 0 && (have += n) == sizeof(want) - 1)
				break;
		}
		if (timed_out() || got_term) {
			got[have] = '\0';
			note("got \"%s\" of \"%s\", then nothing (stalled at "
			    "the urgent mark?)", got, want);
			return 1;
		}
	}
	got[have] = '\0';
	if (strcmp(got, want) != 0) {
		note("echo was \"%s\", expected \"%s\"", got, want);
		return 1;
	}
	shutdown(fd, SHUT_WR);
	if (wait_close(fd, deadline, &(uint64_t){ 0 }) != 0) {
		note("no EOF after our FIN");
		return 1;
	}
	printf("echo \"%s\", then EOF\n", got);
	return 0;
}

/* urgent-hold */

/*
 * Send one byte and then an urgent byte (MSG_OOB) as the last thing, and
 * keep the connection open and idle for MS ms: the urgent mark stays
 * pending at the forwarder's end all that time.  Succeeds if the
 * connection was still open at the end.
 */
static int
cmd_urgent_hold(int argc, char **argv)
{
	char		*pos[3];
	struct addr	 a;
	int64_t		 ms;
	int		 fd, err;
	const struct optdef opts[] = { { NULL, NULL, NULL } };

	parse_args(argc, argv, opts, pos, 3);
	parse_addr(pos[0], pos[1], 1, &a);
	ms = parse_num(pos[2], "MS", 0, 3600000);
	deadline_set(ms);
	if ((fd = connect_wait(&a, &err)) == -1)
		die("connect to %s: %s", a.text, strerror(err));
	if (send(fd, "x", 1, MSG_NOSIGNAL) != 1 ||
	    send(fd, "!", 1, MSG_NOSIGNAL | MSG_OOB) != 1)
		die("send: %s", strerror(errno));
	if (wait_close(fd, now_ms() + ms, &(uint64_t){ 0 }) != -1) {
		note("the connection closed while held");
		return 1;
	}
	printf("held %" PRId64 " ms with an urgent byte last\n", ms);
	return 0;
}

/* sendreset */

/*
 * COUNT times: connect, send a small request, and close with a reset
 * (SO_LINGER 0) at once, as a client that gives up would.
 */
static int
cmd_sendreset(int argc, char **argv)
{
	struct linger	 lg = { 1, 0 };
	char		*pos[3];
	struct addr	 a;
	uint64_t	 i, count, refused = 0;
	int		 fd, err;
	const struct optdef opts[] = { { NULL, NULL, NULL } };

	parse_args(argc, argv, opts, pos, 3);
	parse_addr(pos[0], pos[1], 1, &a);
	count = parse_num(pos[2], "COUNT", 1, 100000);
	deadline_set(0);
	for (i = 0; i < count; i++) {
		if ((fd = connect_wait(&a, &err)) == -1)
			die("connect %" PRIu64 " to %s: %s", i, a.text,
			    strerror(err));
		if (send(fd, "GET / HTTP/1.0\r\n\r\n", 18, MSG_NOSIGNAL) == -1) {
			/* Refused at once (e.g. over max_connections). */
			if (errno != EPIPE && errno != ECONNRESET)
				die("send: %s", strerror(errno));
			refused++;
		}
		if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg,
		    sizeof(lg)) == -1)
			die("SO_LINGER: %s", strerror(errno));
		close(fd);
	}
	printf("%" PRIu64 " connections sent a request and reset (%" PRIu64
	    " refused before the request)\n", count, refused);
	return 0;
}

/* pipes */

/*
 * For each PID: how many pipe ends it holds, the smallest pipe's size and
 * the sum of their sizes (each end counted, as the kernel charges each
 * pipe once: halve for pipes whose both ends it holds), by opening
 * /proc/PID/fd/N anew and asking F_GETPIPE_SZ.  Linux only; root.
 */
static int
cmd_pipes(int argc, char **argv)
{
#ifdef F_GETPIPE_SZ
	char		 dir[64], path[320], link[64];
	long		 ends, min, sum, size;
	int		 i, fd;
	ssize_t		 len;
	DIR		*d;
	struct dirent	*de;

	for (i = 1; i < argc; i++) {
		ends = sum = 0;
		min = -1;
		snprintf(dir, sizeof(dir), "/proc/%s/fd", argv[i]);
		if ((d = opendir(dir)) == NULL)
			die("%s: %s", dir, strerror(errno));
		while ((de = readdir(d)) != NULL) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if ((len = readlink(path, link, sizeof(link) - 1)) == -1)
				continue;
			link[len] = '\0';
			if (strncmp(link, "pipe:", 5) != 0)
				continue;
			if ((fd = open(path, O_RDONLY | O_NONBLOCK)) == -1)
				continue;	/* closed meanwhile */
			size = fcntl(fd, F_GETPIPE_SZ);
			close(fd);
			if (size < 0)
				continue;
			ends++;
			sum += size;
			if (min == -1 || size < min)
				min = size;
		}
		closedir(d);
		printf("pid=%s ends=%ld min=%ld sum=%ld\n", argv[i], ends, min,
		    sum);
	}
	return 0;
#else
	(void)argc;
	(void)argv;
	die("pipes: F_GETPIPE_SZ is Linux's");
#endif
}

/* hold */

struct hconn {
	int	 fd;
	int	 state;		/* 0 connecting, 1 open, 2 closed */
};

/* Note how connect i ended; returns 1 if it is open. */
static int
hold_connected(const struct addr *a, struct hconn *h, size_t i, int err)
{
	static size_t	 failed;

	h[i].state = err == 0 ? 1 : 2;
	if (err == ECONNRESET)
		note("conn %zu closed by RST right after connecting", i);
	else if (err != 0 && failed++ < MAX_REPORTS)
		note("conn %zu: connect to %s: %s", i, a->text,
		    strerror(err));
	return err == 0;
}

/* Connect all of h; returns how many connected. */
static size_t
hold_connect(const struct addr *a, struct hconn *h, size_t n,
    struct pollfd *pfd, size_t *map)
{
	size_t	 i, np, ok = 0, pending = 0;
	int	 err;

	for (i = 0; i < n; i++) {
		h[i].fd = connect_start(a, &err);
		h[i].state = 0;
		if (err == EINPROGRESS)
			pending++;
		else
			ok += hold_connected(a, h, i, err);
	}
	while (pending > 0) {
		for (i = np = 0; i < n; i++)
			if (h[i].state == 0) {
				pfd[np].fd = h[i].fd;
				pfd[np].events = POLLOUT;
				map[np++] = i;
			}
		xpoll(pfd, np, wait_ms(1000));
		if (got_term)
			die("interrupted while connecting");
		for (i = 0; i < np; i++) {
			if (pfd[i].revents == 0)
				continue;
			pending--;
			ok += hold_connected(a, h, map[i],
			    connect_result(pfd[i].fd));
		}
		if (pending > 0 && timed_out())
			die("timed out after %d s (--timeout): %zu of %zu "
			    "connects to %s still pending", timeout_s,
			    pending, n, a->text);
	}
	return ok;
}

/* Notice connections the peer closes; returns how many closed. */
static size_t
hold_check(struct hconn *h, struct pollfd *pfd, size_t *map, size_t np,
    int64_t t0)
{
	ssize_t		 n;
	size_t		 i, closed = 0;
	static size_t	 reported;

	for (i = 0; i < np; i++) {
		if (pfd[i].revents == 0)
			continue;
		n = recv(pfd[i].fd, iobuf, sizeof(iobuf), 0);
		if (n > 0 || (n == -1 && (errno == EAGAIN || errno == EINTR)))
			continue;
		h[map[i]].state = 2;
		closed++;
		if (reported++ < MAX_REPORTS)
			note("conn %zu closed by %s after %" PRId64 " ms of "
			    "holding", map[i], n == 0 ? "EOF" :
			    errno == ECONNRESET ? "RST" : strerror(errno),
			    now_ms() - t0);
	}
	return closed;
}

static int
cmd_hold(int argc, char **argv)
{
	const char	*expect = NULL;
	char		*pos[4];
	struct addr	 a;
	struct hconn	*h;
	struct pollfd	*pfd;
	size_t		*map, n, i, np, held, want = 0;
	int64_t		 hold_ms, t0, left;
	int		 stall = 0;
	const struct optdef opts[] = {
		{ "expect", &expect, NULL }, { "stall", NULL, &stall },
		{ NULL, NULL, NULL }
	};

	parse_args(argc, argv, opts, pos, 4);
	parse_addr(pos[0], pos[1], 1, &a);
	n = parse_num(pos[2], "CONNS", 1, 1000000);
	hold_ms = parse_seconds(pos[3], "SECONDS");
	if (expect != NULL)
		want = parse_num(expect, "--expect", 0, n);
	deadline_set(0);
	raise_nofile(n + 16);
	h = calloc(n, sizeof(*h));
	pfd = calloc(n, sizeof(*pfd));
	map = calloc(n, sizeof(*map));
	if (h == NULL || pfd == NULL || map == NULL)
		die("out of memory");

	held = hold_connect(&a, h, n, pfd, map);
	deadline_set(hold_ms);
	note("%zu of %zu connected; holding for %" PRId64 " ms", held, n,
	    hold_ms);
	t0 = now_ms();
	while (!got_term && now_ms() < t0 + hold_ms && held > 0) {
		if (stall) {
			/* Read nothing: let the peer's sends back up. */
			xpoll(NULL, 0, wait_ms(t0 + hold_ms - now_ms()));
			continue;
		}
		for (i = np = 0; i < n; i++)
			if (h[i].state == 1) {
				pfd[np].fd = h[i].fd;
				pfd[np].events = POLLIN;
				pfd[np].revents = 0;
				map[np++] = i;
			}
		left = t0 + hold_ms - now_ms();
		xpoll(pfd, np, wait_ms(left < 1000 ? left : 1000));
		held -= hold_check(h, pfd, map, np, t0);
	}
	if (got_term)
		note("SIGTERM after %" PRId64 " ms", now_ms() - t0);
	printf("held=%zu\n", held);
	for (i = 0; i < n; i++)
		close(h[i].fd);
	free(h);
	free(pfd);
	free(map);
	if (expect != NULL && held != want) {
		note("expected %zu connections still open, %zu are", want,
		    held);
		return 1;
	}
	return 0;
}

/* blackhole */

/*
 * A listener that never accepts, with its accept queue full.  Found on
 * Linux 6.x with net.ipv4.tcp_syncookies = 1: listen(fd, 0) gives an accept
 * queue of one, because sk_acceptq_is_full() tests backlog > max.  The first
 * connect completes and sits in the queue; from then on tcp_conn_request()
 * drops every SYN to the port, counting ListenOverflows, and does so before
 * it considers syncookies, so cookies (1 or even 2) do not let connects
 * through.  A client's connect() stays in SYN_SENT, retransmitting SYNs,
 * until its own timeout (tcp_syn_retries = 6 is about 127 s).  We probe
 * with non-blocking connects until one does not complete within 200 ms,
 * keep the completed ones open so the queue stays full, and close that
 * last pending probe.
 */
static int
blackhole_fill(const struct addr *a, int *held, int max)
{
	struct pollfd	 pfd;
	int		 i, fd, err;

	for (i = 0; i < max; i++) {
		fd = connect_start(a, &err);
		if (err == EINPROGRESS) {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			if (xpoll(&pfd, 1, 200) > 0)
				err = connect_result(fd);
		}
		if (err == EINPROGRESS) {
			close(fd);
			return i;
		}
		if (err != 0)
			die("probe connect to %s: %s", a->text,
			    strerror(err));
		held[i] = fd;
	}
	die("connects to %s still complete after %d probes; cannot make a "
	    "blackhole on this system", a->text, max);
}

static int
cmd_blackhole(int argc, char **argv)
{
	const char	*host = "127.0.0.1", *port_file = NULL;
	struct addr	 a;
	int		 lfd, held[16], nheld;
	const struct optdef opts[] = {
		{ "host", &host, NULL }, { "port-file", &port_file, NULL },
		{ NULL, NULL, NULL }
	};

	parse_args(argc, argv, opts, NULL, 0);
	parse_addr(host, "0", 0, &a);
	if (!timeout_given)
		timeout_s = SERVER_TIMEOUT;
	deadline_set(0);
	lfd = listen_on(&a, 0, 0);
	addr_set_port(&a, local_port(lfd));
	nheld = blackhole_fill(&a, held, 16);
	note("%s: accept queue full after %d connection%s, further SYNs "
	    "are dropped", a.text, nheld, nheld == 1 ? "" : "s");
	announce_port(port_file, local_port(lfd));
	while (!got_term && !timed_out())
		xpoll(NULL, 0, wait_ms(1000));
	if (!got_term)
		die("lifetime limit of %d s reached (--timeout)", timeout_s);
	return 0;
}

/* The port of a socket address (its own or its peer's), or 0. */
static unsigned
sa_port(int fd, int peer)
{
	struct sockaddr_storage	ss;
	socklen_t		len = sizeof(ss);

	if ((peer ? getpeername(fd, (struct sockaddr *)&ss, &len) :
	    getsockname(fd, (struct sockaddr *)&ss, &len)) == -1)
		return 0;
	return ntohs(ss.ss_family == AF_INET6 ?
	    ((struct sockaddr_in6 *)&ss)->sin6_port :
	    ((struct sockaddr_in *)&ss)->sin_port);
}

/*
 * sockets PID: the TCP options of every TCP socket PID holds, read
 * through copies of its descriptors (pidfd_getfd, Linux 5.6, root):
 * what tcp_fastopen, defer_accept and tcp_fastopen_connect set.
 */
static int
cmd_sockets(int argc, char **argv)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd) && \
    defined(TCP_FASTOPEN) && defined(TCP_DEFER_ACCEPT) && \
    defined(TCP_FASTOPEN_CONNECT) && defined(SO_MAX_PACING_RATE)
	char		 dir[64];
	int		 pidfd, fd, v, type, proto, listening;
	long		 n;
	socklen_t	 len;
	DIR		*d;
	struct dirent	*de;

	if (argc != 2)
		usage_error("sockets needs a PID");
	if ((pidfd = (int)syscall(SYS_pidfd_open, atoi(argv[1]), 0)) == -1)
		die("pidfd_open %s: %s", argv[1], strerror(errno));
	snprintf(dir, sizeof(dir), "/proc/%s/fd", argv[1]);
	if ((d = opendir(dir)) == NULL)
		die("%s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if ((n = strtol(de->d_name, NULL, 10)) <= 0 &&
		    strcmp(de->d_name, "0") != 0)
			continue;
		if ((fd = (int)syscall(SYS_pidfd_getfd, pidfd, (int)n, 0)) == -1) {
			if (errno == EPERM || errno == ENOSYS)
				exit(3);
			continue;	/* closed meanwhile */
		}
		len = sizeof(type);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
		    type != SOCK_STREAM ||
		    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) ==
		    -1 || proto != IPPROTO_TCP ||
		    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening,
		    &len) == -1) {
			close(fd);
			continue;
		}
		if (listening) {
			printf("listen port=%u", sa_port(fd, 0));
			len = sizeof(v);
			if (getsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN, &v,
			    &len) == 0)
				printf(" fastopen=%d", v);
			len = sizeof(v);
			if (getsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &v,
			    &len) == 0)
				printf(" defer_accept=%d", v);
		} else {
			printf("conn local=%u peer=%u", sa_port(fd, 0),
			    sa_port(fd, 1));
			len = sizeof(v);
			if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v,
			    &len) == 0)
				printf(" nodelay=%d", v != 0);
			len = sizeof(v);
			if (getsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT,
			    &v, &len) == 0)
				printf(" fastopen_connect=%d", v);
			len = sizeof(v);
			if (getsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &v,
			    &len) == 0)
				printf(" pacing=%u", (unsigned)v);
		}
		printf("\n");
		close(fd);
	}
	closedir(d);
	close(pidfd);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 3;
#endif
}

static int
cmd_freeport(int argc, char **argv)
{
	const char	*host = "127.0.0.1";
	struct addr	 a;
	int		 fd;
	const struct optdef opts[] = {
		{ "host", &host, NULL }, { NULL, NULL, NULL }
	};

	parse_args(argc, argv, opts, NULL, 0);
	parse_addr(host, "0", 0, &a);
	fd = listen_on(&a, -1, 0);
	printf("%u\n", local_port(fd));
	close(fd);
	return 0;
}

/* --source ADDR: the local address client connections bind to. */
static void
set_source(const char *v)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)&source_ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&source_ss;

	memset(&source_ss, 0, sizeof(source_ss));
	if (inet_pton(AF_INET, v, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		source_len = sizeof(*sin);
	} else if (inet_pton(AF_INET6, v, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		source_len = sizeof(*sin6);
	} else
		usage_error("--source \"%s\" is not a numeric address", v);
	if (!is_loopback(&source_ss))
		usage_error("--source %s is not a loopback address", v);
}

/*
 * Take the options that apply to every command (--timeout, --source) out
 * of argv wherever they are; returns the new argc.
 */
static int
take_globals(int argc, char **argv)
{
	const char	*v;
	int		 i, j = 1, source;

	for (i = 1; i < argc; i++) {
		source = strncmp(argv[i], "--source", 8) == 0;
		if (strcmp(argv[i], "--timeout") == 0 ||
		    strcmp(argv[i], "--source") == 0) {
			if (i + 1 >= argc)
				usage_error("option %s needs a value", argv[i]);
			v = argv[++i];
		} else if (strncmp(argv[i], "--timeout=", 10) == 0)
			v = argv[i] + 10;
		else if (strncmp(argv[i], "--source=", 9) == 0)
			v = argv[i] + 9;
		else {
			argv[j++] = argv[i];
			continue;
		}
		if (source)
			set_source(v);
		else {
			timeout_s = (int)parse_num(v, "--timeout", 1, 86400);
			timeout_given = 1;
		}
	}
	argv[j] = NULL;
	return j;
}

int
main(int argc, char **argv)
{
	static const struct {
		const char	*name;
		int		(*fn)(int, char **);
	} cmds[] = {
		{ "server", cmd_server }, { "stream", cmd_stream },
		{ "concurrent", cmd_concurrent },
		{ "halfclose", cmd_halfclose },
		{ "expect-close", cmd_expect_close }, { "hold", cmd_hold },
		{ "blackhole", cmd_blackhole }, { "freeport", cmd_freeport },
		{ "many", cmd_many }, { "urgent", cmd_urgent },
		{ "urgent-hold", cmd_urgent_hold },
		{ "sendreset", cmd_sendreset }, { "pipes", cmd_pipes },
		{ "sockets", cmd_sockets },
		{ "proxyhello", cmd_proxyhello },
		{ "proxyabuse", cmd_proxyabuse }
	};
	size_t	 i;

	argc = take_globals(argc, argv);
	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)
		usage();
	signals_init();
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[1], cmds[i].name) == 0) {
			cmdname = cmds[i].name;
			return cmds[i].fn(argc - 1, argv + 1);
		}
	usage_error("unknown command \"%s\"", argv[1]);
}
