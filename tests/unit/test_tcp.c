/*
 * test_tcp.c - unit tests of the TCP session pieces that the end-to-end
 * tests reach only through the whole daemon: the relay's pump on real
 * socket pairs in a real event loop (both directions, half-close,
 * backpressure on EAGAIN, splice and its fallback to copying, a preamble
 * that leaves first, no write to a connecting backend, urgent data,
 * errors), and the session's restartable connect over an upstream with a
 * dead backend before a live one.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "event.h"
#include "pool.h"
#include "rate.h"
#include "sock.h"
#include "stats.h"
#include "tcp_relay.h"
#include "tcp_session.h"
#include "testlib.h"
#include "xprt.h"

#define ROUND_MS	5000	/* a bound on any wait: never reached */

/* A relay between two pairs: the test holds a and d, the relay b and c. */
struct bench {
	struct tcp_relay_env	 env;
	struct tcp_relay	 r;
	int			 a, d;
	enum tcp_relay_status	 status;
	int			 runs;
};

static void
set_nonblock(int fd)
{
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* A connected TCP pair on loopback: *x the connecting end. */
static int
tcp_pair(int *x, int *y)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	int			l;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(l, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(l, 1) == -1 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) == -1 ||
	    (*x = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(*x, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    (*y = accept(l, NULL, NULL)) == -1)
		return -1;
	close(l);
	return 0;
}

/* A pair of the kind asked for: 'u' AF_UNIX stream, 't' TCP. */
static void
make_pair(int kind, int *x, int *y)
{
	int sv[2];

	if (kind == 'u') {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
			abort();
		*x = sv[0];
		*y = sv[1];
	} else if (tcp_pair(x, y) == -1)
		abort();
	set_nonblock(*x);
	set_nonblock(*y);
}

static void
bench_io(struct event_loop *loop, int fd, int events, void *data)
{
	struct bench *b = data;
	int           side = fd == b->r.fd[TCP_CLIENT] ? TCP_CLIENT :
	    TCP_BACKEND;

	(void)loop;
	if (b->status != TCP_RELAY_OPEN)
		return;
	tcp_relay_note(&b->r, side, events);
	b->runs++;
	b->status = tcp_relay_run(&b->env, &b->r);
}

/* A relay in a new loop; the backend is attached, connected if asked. */
static void
bench_open(struct bench *b, int kind, int splice, bool connected,
    size_t bufsize)
{
	char	err[128];
	int	b_fd, c_fd;

	memset(b, 0, sizeof(*b));
	b->env.loop = event_loop_new("auto", 1024, err, sizeof(err));
	b->env.pool = pool_new();
	b->env.xprt = &xprt_raw;
	if (b->env.loop == NULL || b->env.pool == NULL)
		abort();
	make_pair(kind, &b->a, &b_fd);
	make_pair(kind, &c_fd, &b->d);
	tcp_relay_init(&b->r, b_fd, bufsize, splice, event_now(b->env.loop));
	tcp_relay_attach_backend(&b->r, c_fd, false);
	if (connected)
		tcp_relay_connected(&b->r, event_now(b->env.loop), 0);
	(void)event_set(b->env.loop, b_fd, EV_EDGE | EV_READ, bench_io, b);
	(void)event_set(b->env.loop, c_fd, EV_EDGE | EV_READ | EV_WRITE,
	    bench_io, b);
}

static void
bench_close(struct bench *b)
{
	tcp_relay_close(&b->env, &b->r, -1);
	close(b->a);
	close(b->d);
	pool_free(b->env.pool);
	event_loop_free(b->env.loop);
}

static void
on_wake(struct event_timer *t, void *data)
{
	(void)t;
	(void)data;
}

/* Run the loop for a round; a wait ends by itself after 50 ms. */
static void
spin(struct bench *b)
{
	struct event_timer t;

	event_timer_init(&t, on_wake, NULL);
	(void)event_timer_arm(b->env.loop, &t, event_now(b->env.loop) + 50);
	(void)event_loop_run_once(b->env.loop);
	event_timer_cancel(b->env.loop, &t);
}

/*
 * Read from fd what the relay delivers, running the loop, until want
 * bytes came, the end of file, an error, or ROUND_MS.  Returns the bytes
 * read; *end is 0 (open), 1 (EOF) or the errno of a failed read.
 */
static size_t
collect(struct bench *b, int fd, char *buf, size_t want, int *end)
{
	size_t  got = 0;
	ssize_t n;
	int64_t until = event_now(b->env.loop) + ROUND_MS;

	*end = 0;
	while (got < want && event_now(b->env.loop) < until) {
		n = recv(fd, buf + got, want - got, 0);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0) {
			*end = 1;
			break;
		}
		if (errno != EAGAIN) {
			*end = errno;
			break;
		}
		spin(b);
	}
	return got;
}

/* Whether exactly the bytes of want arrive on fd. */
static bool
arrives(struct bench *b, int fd, const char *want)
{
	char	buf[64];
	size_t	len = strlen(want);
	int	end;

	return collect(b, fd, buf, len, &end) == len &&
	    memcmp(buf, want, len) == 0;
}

static void
send_all(int fd, const char *s)
{
	if (send(fd, s, strlen(s), MSG_NOSIGNAL) != (ssize_t)strlen(s))
		abort();
}

/* Whether text sent on from arrives, exactly, on to. */
static bool
passes(struct bench *b, int from, int to, const char *text)
{
	send_all(from, text);
	return arrives(b, to, text);
}

/* Both directions, then a half-close each way, then DONE. */
static void
test_both_ways(int kind, int splice, const char *name)
{
	struct bench	b;
	char		buf[64];
	int		end, i;
	size_t		n;

	bench_open(&b, kind, splice, true, 4096);
	check(passes(&b, b.a, b.d, "hello"),
	    "%s: client bytes reach the backend", name);
	check(passes(&b, b.d, b.a, "world!"),
	    "%s: backend bytes reach the client", name);

	shutdown(b.a, SHUT_WR);
	n = collect(&b, b.d, buf, sizeof(buf), &end);
	check(n == 0 && end == 1 && b.status == TCP_RELAY_OPEN,
	    "%s: the client's FIN reaches the backend, relay still open",
	    name);
	check(passes(&b, b.d, b.a, "late"),
	    "%s: half-closed: the backend still answers", name);
	shutdown(b.d, SHUT_WR);
	for (i = 0; i < 100 && b.status == TCP_RELAY_OPEN; i++)
		spin(&b);
	check(b.status == TCP_RELAY_DONE, "%s: both sides sent FIN: the relay "
	    "is done", name);
	/* The last FIN is the close's: both sockets were read to the end. */
	tcp_relay_close(&b.env, &b.r, -1);
	n = collect(&b, b.a, buf, sizeof(buf), &end);
	check(n == 0 && end == 1, "%s: closing passes the last FIN on, "
	    "not a reset (%s)", name, end > 1 ? strerror(end) : end == 1 ?
	    "EOF" : "open");
	check(b.r.dir[TCP_CLIENT].bytes == 5 &&
	    b.r.dir[TCP_BACKEND].bytes == 10,
	    "%s: bytes counted each way (%llu, %llu)", name,
	    (unsigned long long)b.r.dir[TCP_CLIENT].bytes,
	    (unsigned long long)b.r.dir[TCP_BACKEND].bytes);
	bench_close(&b);
}

static char
pattern(size_t i)
{
	return (char)('a' + (i * 7 + i / 4093) % 26);
}

/*
 * Send the next bytes of the pattern (up to 64 KiB, from *sent on, at
 * most total in all) through out; what send(2) returned.
 */
static ssize_t
send_pattern(int fd, char *out, size_t *sent, size_t total)
{
	size_t	chunk = total - *sent < 65536 ? total - *sent : 65536, i;
	ssize_t	n;

	if (chunk == 0)
		return 0;
	for (i = 0; i < chunk; i++)
		out[i] = pattern(*sent + i);
	if ((n = send(fd, out, chunk, MSG_NOSIGNAL)) > 0)
		*sent += (size_t)n;
	return n;
}

/*
 * A sender much faster than the receiver: the relay must stop reading
 * while the backend cannot take more (the client's writes then fail
 * with EAGAIN), hold what it read, and deliver every byte in order once
 * the backend reads.
 */
static void
test_backpressure(int kind, int splice, const char *name)
{
	enum { TOTAL = 8 << 20 };
	struct bench	 b;
	char		*out = malloc(65536), *in = malloc(65536);
	size_t		 sent = 0, got = 0, i;
	ssize_t		 n;
	int		 stalls = 0, bad = 0, rounds;

	bench_open(&b, kind, splice, true, 16384);
	/* Fixed socket buffers: autotuned TCP ones would take it all. */
	for (i = 0; i < 4; i++) {
		int fd = i == 0 ? b.a : i == 1 ? b.d : b.r.fd[i - 2], sz = 65536;

		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
	/* Write without reading until nothing moves for a while. */
	for (rounds = 0; rounds < 2000 && stalls < 5; rounds++) {
		if (send_pattern(b.a, out, &sent, TOTAL) == -1 &&
		    errno == EAGAIN)
			stalls++;
		spin(&b);
		if (sent == TOTAL)
			break;
	}
	check(stalls >= 5 && sent < TOTAL && b.status == TCP_RELAY_OPEN,
	    "%s: a full backend stops the relay reading (%zu of %d sent)",
	    name, sent, TOTAL);
	/* Now read, and send the rest as it drains. */
	for (rounds = 0; got < TOTAL && rounds < 200000; rounds++) {
		(void)send_pattern(b.a, out, &sent, TOTAL);
		n = recv(b.d, in, 65536, 0);
		if (n > 0) {
			for (i = 0; i < (size_t)n; i++)
				bad += in[i] != pattern(got + i);
			got += (size_t)n;
		} else
			spin(&b);
	}
	check(got == TOTAL && bad == 0 && b.status == TCP_RELAY_OPEN,
	    "%s: all %d bytes delivered in order (%zu, %d wrong)", name,
	    TOTAL, got, bad);
	free(out);
	free(in);
	bench_close(&b);
}

/*
 * A preamble leaves before any client byte, also when the client's bytes
 * are spliced, and nothing is written to a backend still connecting.
 */
static void
test_preamble(int splice, const char *name)
{
	struct bench	 b;
	static char	 big[200000];
	char		*buf = malloc(sizeof(big) + 64);
	const char	*pre = "PROXY TCP4 192.0.2.1 192.0.2.2 1 2\r\n";
	size_t		 n, i, len = strlen(pre);
	ssize_t		 s;
	int		 end, bad = 0;

	bench_open(&b, 't', splice, false, 4096);
	check(tcp_relay_preamble(&b.env, &b.r, pre, len) == 0,
	    "%s: preamble accepted", name);
	for (i = 0; i < sizeof(big); i++)
		big[i] = pattern(i);
	s = send(b.a, big, 4096, MSG_NOSIGNAL);
	for (i = 0; i < 10; i++)
		spin(&b);
	check(s == 4096 && recv(b.d, buf, 64, 0) == -1 && errno == EAGAIN,
	    "%s: nothing reaches a backend that is still connecting", name);
	tcp_relay_connected(&b.r, event_now(b.env.loop), 0);
	event_defer(b.env.loop, b.r.fd[TCP_CLIENT]);
	for (i = 4096; i < sizeof(big); i += (size_t)s) {
		s = send(b.a, big + i, sizeof(big) - i, MSG_NOSIGNAL);
		if (s <= 0) {
			s = 0;
			spin(&b);
		}
	}
	n = collect(&b, b.d, buf, len + sizeof(big), &end);
	for (i = 0; i < sizeof(big) && n == len + sizeof(big); i++)
		bad += buf[len + i] != big[i];
	check(n == len + sizeof(big) && memcmp(buf, pre, len) == 0 && bad == 0,
	    "%s: preamble first, then every client byte (%zu)", name, n);
	free(buf);
	bench_close(&b);
}

/*
 * rule_rate_limit: the bytes a peek took are charged as they are written
 * to the backend, a part at a time; a spent budget holds the rest back
 * (resume_at set), and they follow in order when it has room again.  A
 * PROXY header before them is not the client's: it goes free, in the
 * first write.
 */
static void
test_preamble_budget(void)
{
	struct bench	 b;
	static char	 peeked[8000], buf[sizeof(peeked) + 64];
	const char	*pre = "PROXY TCP4 192.0.2.1 192.0.2.2 1 2\r\n";
	size_t		 n, i, len = strlen(pre);
	ssize_t		 s;
	int		 end, runs;

	if (rate_region_open() == -1)
		abort();
	/* 2048 bytes/s: a bucket of 2048, taken 1024 at a time. */
	rate_cell_set(1, 2048, true);
	bench_open(&b, 't', SPLICE_OFF, true, 4096);
	b.r.ready[TCP_BACKEND] = EV_WRITE;
	tcp_relay_limit(&b.r, rate_budget_of(1, RATE_IN), NULL);
	for (i = 0; i < sizeof(peeked); i++)
		peeked[i] = pattern(i);
	check(tcp_relay_preamble(&b.env, &b.r, pre, len) == 0 &&
	    tcp_relay_preamble(&b.env, &b.r, peeked, sizeof(peeked)) == 0,
	    "budget: preamble and peeked bytes accepted");
	tcp_relay_taken(&b.r, sizeof(peeked), true);
	b.status = tcp_relay_run(&b.env, &b.r);
	/* What came (the loop's rounds run nothing: no event, no timer). */
	for (i = 0, n = 0; i < 3; i++) {
		spin(&b);
		while ((s = recv(b.d, buf + n, sizeof(buf) - n, 0)) > 0)
			n += (size_t)s;
	}
	check(b.status == TCP_RELAY_OPEN && n >= len + 1024 &&
	    n <= len + 2048 + 1024 && b.r.resume_at != 0 &&
	    b.r.unpaid == sizeof(peeked) + len - n,
	    "budget: the header and a bucket's worth pass, the rest waits "
	    "(%zu of %zu bytes, %u unpaid)", n, len + sizeof(peeked),
	    (unsigned)b.r.unpaid);
	/* Room again: the rest follows, in order, all charged. */
	rate_cell_set(1, 1 << 30, false);
	for (runs = 0; runs < 100 && n < len + sizeof(peeked) &&
	    b.status == TCP_RELAY_OPEN; runs++) {
		b.status = tcp_relay_run(&b.env, &b.r);
		n += collect(&b, b.d, buf + n, len + sizeof(peeked) - n, &end);
	}
	check(n == len + sizeof(peeked) && memcmp(buf, pre, len) == 0 &&
	    memcmp(buf + len, peeked, sizeof(peeked)) == 0 &&
	    b.r.unpaid == 0 && b.r.dir[TCP_CLIENT].bytes == sizeof(peeked),
	    "budget: then the rest, in order (%zu bytes, %d runs)", n, runs);
	bench_close(&b);
}

/* No pipe to be had: splice falls back to copying, losing nothing. */
static void
test_no_pipes(void)
{
	struct bench	 b;
	char		 buf[300000], out[300000];
	size_t		 i, n = 0;
	ssize_t		 s;
	int		 end;

	bench_open(&b, 't', SPLICE_ON, true, 4096);
	pool_limit_pipes(b.env.pool, 0);
	for (i = 0; i < sizeof(out); i++)
		out[i] = pattern(i);
	for (i = 0; i < sizeof(out); i += (size_t)s) {
		s = send(b.a, out + i, sizeof(out) - i, MSG_NOSIGNAL);
		if (s <= 0) {
			s = 0;
			n += collect(&b, b.d, buf + n, sizeof(buf) - n, &end);
		}
	}
	n += collect(&b, b.d, buf + n, sizeof(out) - n, &end);
	check(n == sizeof(out) && memcmp(buf, out, n) == 0 &&
	    !b.r.dir[TCP_CLIENT].splice,
	    "no pipes: splice falls back to copy, %zu bytes intact", n);
	bench_close(&b);
}

/*
 * Urgent data: splice(2) would stop at the mark for good; the relay
 * drops the urgent byte (as rinetd does) and goes on, in order.
 */
static void
test_urgent(int splice, const char *name)
{
	struct bench	b;

	bench_open(&b, 't', splice, true, 4096);
	send_all(b.a, "ab");
	if (send(b.a, "!", 1, MSG_OOB) != 1)
		abort();
	send_all(b.a, "cd");
	check(arrives(&b, b.d, "abcd"),
	    "%s: urgent byte dropped, the rest in order", name);
	check(passes(&b, b.a, b.d, "more"),
	    "%s: bytes after the urgent mark still flow", name);
	bench_close(&b);
}

/*
 * A reset on one side ends the relay as that side's (TCP_RELAY_RESET),
 * after the bytes it sent before the reset are written to the other
 * side; the owner then resets that side.
 */
static void
test_reset(void)
{
	struct bench	b;
	struct linger	lg = { 1, 0 };
	char		buf[8];
	int		end, i;
	ssize_t		n;

	bench_open(&b, 't', SPLICE_AUTO, true, 4096);
	send_all(b.d, "last");
	/* Let the kernel take "last" in before the reset follows it. */
	for (i = 0; i < 100 && b.r.dir[TCP_BACKEND].bytes < 4; i++)
		spin(&b);
	(void)setsockopt(b.d, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(b.d);
	b.d = -1;
	send_all(b.a, "x");
	for (i = 0; i < 100 && b.status == TCP_RELAY_OPEN; i++)
		spin(&b);
	check(b.status == TCP_RELAY_RESET && b.r.failed_side == TCP_BACKEND &&
	    b.r.err == ECONNRESET, "a backend reset: the relay ends with the "
	    "backend's ECONNRESET, to pass on (%d, side %d, status %d)",
	    b.r.err, b.r.failed_side, b.status);
	tcp_relay_close_gone(&b.env, &b.r);
	check(b.r.fd[TCP_BACKEND] == -1 && b.r.fd[TCP_CLIENT] != -1,
	    "... the backend socket is closed, the client's kept open");
	n = recv(b.a, buf, sizeof(buf), 0);
	check(n == 4 && memcmp(buf, "last", 4) == 0, "... after the bytes "
	    "the backend sent before its reset (%zd)", n);
	tcp_relay_close(&b.env, &b.r, TCP_CLIENT);
	(void)collect(&b, b.a, buf, sizeof(buf), &end);
	check(end == ECONNRESET, "... and the client is reset in turn (%s)",
	    end > 1 ? strerror(end) : end == 1 ? "EOF" : "open");
	close(b.a);
	pool_free(b.env.pool);
	event_loop_free(b.env.loop);
}

/*
 * Bytes and a reset that arrive together (one event): the bytes are
 * read and written on before the reset is acted on, in both directions.
 */
static void
test_bytes_then_reset(int side)
{
	struct bench	b;
	struct linger	lg = { 1, 0 };
	char		buf[64];
	int		from, to, i;
	ssize_t		n;

	bench_open(&b, 't', SPLICE_OFF, true, 4096);
	from = side == TCP_CLIENT ? b.a : b.d;
	to = side == TCP_CLIENT ? b.d : b.a;
	send_all(from, "before the reset");
	(void)setsockopt(from, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(from);
	if (side == TCP_CLIENT)
		b.a = -1;
	else
		b.d = -1;
	for (i = 0; i < 100 && b.status == TCP_RELAY_OPEN; i++)
		spin(&b);
	check(b.status == TCP_RELAY_RESET && b.r.failed_side == side,
	    "%s's bytes, then its reset: the relay ends with the reset (%d)",
	    side == TCP_CLIENT ? "client" : "backend", b.status);
	n = recv(to, buf, sizeof(buf), 0);
	check(n == 16 && memcmp(buf, "before the reset", 16) == 0,
	    "... after the bytes before it were written on (%zd)", n);
	tcp_relay_close(&b.env, &b.r, TCP_OTHER(side));
	close(to);
	pool_free(b.env.pool);
	event_loop_free(b.env.loop);
}

static int
port_bound(int fd)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);

	if (getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		return -1;
	return ntohs(sin.sin_port);
}

/*
 * The session: the upstream's first backend refuses, the second answers;
 * the client never sees the first.  Then an upstream with no live
 * backend: the client is reset and the session is gone.
 */
static void
test_session_failover(void)
{
	struct event_loop	*loop;
	struct pool		*pool;
	struct tcp_sessions	*ts;
	struct conf		*cfg;
	struct backend		 bk[2], *loaded;
	struct stats_rule	 before, *st;
	struct sockaddr_any	 peer;
	struct bench		 b;	/* for spin() and collect() */
	char			 text[256], path[1024], err[128], buf[16];
	int			 live, dead, port, cl, sv, back, end, i;

	if ((live = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		abort();
	dead = socket(AF_INET, SOCK_STREAM, 0);	/* bound, not listening */
	{
		struct sockaddr_in sin;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(live, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
		    listen(live, 4) == -1 ||
		    bind(dead, (struct sockaddr *)&sin, sizeof(sin)) == -1)
			abort();
	}
	port = port_bound(live);
	snprintf(text, sizeof(text), "rules = ( { listen = \"127.0.0.1:1\"; "
	    "connect = \"127.0.0.1:%d\"; } );\n", port);
	cfg = load_good("failover.conf", text, path, sizeof(path),
	    "upstream config");
	if (cfg == NULL)
		return;
	/* Two backends: the dead one first (issue 12 writes these lists). */
	bk[1] = cfg->rules[0].upstream.backends[0];
	bk[0] = bk[1];
	((struct sockaddr_in *)&bk[0].addr.ss)->sin_port =
	    htons((uint16_t)port_bound(dead));
	loaded = cfg->rules[0].upstream.backends;
	cfg->rules[0].upstream.backends = bk;
	cfg->rules[0].upstream.nbackends = 2;

	loop = event_loop_new("auto", 1024, err, sizeof(err));
	pool = pool_new();
	/* No table here: the rule counts in the sink, read as a difference. */
	st = stats_rule(&cfg->rules[0]);
	before = *st;
	ts = tcp_sessions_new(loop, pool);
	memset(&b, 0, sizeof(b));
	b.env.loop = loop;
	make_pair('t', &cl, &sv);
	memset(&peer, 0, sizeof(peer));
	peer.len = sizeof(struct sockaddr_in);
	peer.ss.ss_family = AF_INET;
	check(tcp_session_start(ts, sv, &cfg->rules[0], &peer, NULL) == 0 &&
	    tcp_sessions_count(ts) == 1, "session started");
	send_all(cl, "ping");
	back = -1;
	set_nonblock(live);
	for (i = 0; i < 100 && back == -1; i++) {
		spin(&b);
		back = accept(live, NULL, NULL);
	}
	check(back != -1, "the live backend gets the connection");
	if (back != -1) {
		set_nonblock(back);
		check(arrives(&b, back, "ping"),
		    "the request sent while connecting arrives");
		send_all(back, "pong");
		check(arrives(&b, cl, "pong"), "the answer comes back");
		close(back);
		shutdown(cl, SHUT_WR);
		(void)collect(&b, cl, buf, sizeof(buf), &end);
		for (i = 0; i < 100 && tcp_sessions_count(ts) != 0; i++)
			spin(&b);
		check(end == 1 && tcp_sessions_count(ts) == 0,
		    "both closed: the session is gone");
	}
	close(cl);

	/* Only the dead backend: the client is reset, nothing is left. */
	cfg->rules[0].upstream.nbackends = 1;
	make_pair('t', &cl, &sv);
	check(tcp_session_start(ts, sv, &cfg->rules[0], &peer, NULL) == 0,
	    "second session started");
	for (i = 0; i < 100 && tcp_sessions_count(ts) != 0; i++)
		spin(&b);
	(void)collect(&b, cl, buf, sizeof(buf), &end);
	check(tcp_sessions_count(ts) == 0 && end == ECONNRESET,
	    "no backend answers: session closed, client reset (%s)",
	    end > 1 ? strerror(end) : end == 1 ? "EOF" : "open");
	close(cl);

	/* A session torn down at once by a stop. */
	make_pair('t', &cl, &sv);
	cfg->rules[0].upstream.backends = &bk[1];
	(void)tcp_session_start(ts, sv, &cfg->rules[0], &peer, NULL);
	tcp_sessions_close_all(ts, "shutdown");
	check(tcp_sessions_count(ts) == 0, "close_all leaves no session");
	check(st->accepted - before.accepted == 3 &&
	    st->closed - before.closed == 3 &&
	    st->no_backend - before.no_backend == 1 &&
	    st->bytes_in - before.bytes_in == 4 &&
	    st->bytes_out - before.bytes_out == 4 && st->active == before.active,
	    "counted once, in the rule's counters: 3 taken on, 3 closed, 1 "
	    "failed, 4 bytes each way (%llu %llu %llu %llu %llu)",
	    (unsigned long long)(st->accepted - before.accepted),
	    (unsigned long long)(st->closed - before.closed),
	    (unsigned long long)(st->no_backend - before.no_backend),
	    (unsigned long long)(st->bytes_in - before.bytes_in),
	    (unsigned long long)(st->bytes_out - before.bytes_out));
	close(cl);
	close(live);
	close(dead);
	cfg->rules[0].upstream.backends = loaded;
	cfg->rules[0].upstream.nbackends = 1;
	tcp_sessions_free(ts);
	conf_free(cfg);
	pool_free(pool);
	event_loop_free(loop);
}

int
main(void)
{
	static const struct {
		int		 kind, splice;
		const char	*name;
	} pumps[] = {
		{ 'u', SPLICE_OFF, "unix copy" },
		{ 'u', SPLICE_ON, "unix splice" },
		{ 't', SPLICE_OFF, "tcp copy" },
		{ 't', SPLICE_AUTO, "tcp auto" },
		{ 't', SPLICE_ON, "tcp splice" },
	};
	size_t i;

	make_tmpdir("test_tcp");
	for (i = 0; i < sizeof(pumps) / sizeof(pumps[0]); i++) {
		test_both_ways(pumps[i].kind, pumps[i].splice, pumps[i].name);
		test_backpressure(pumps[i].kind, pumps[i].splice,
		    pumps[i].name);
	}
	test_preamble(SPLICE_OFF, "preamble, copy");
	test_preamble(SPLICE_ON, "preamble, splice");
	test_preamble_budget();
	test_no_pipes();
	test_urgent(SPLICE_ON, "urgent, splice");
	test_urgent(SPLICE_OFF, "urgent, copy");
	test_reset();
	test_bytes_then_reset(TCP_CLIENT);
	test_bytes_then_reset(TCP_BACKEND);
	test_session_failover();
	remove_tmpdir();
	return test_summary();
}
