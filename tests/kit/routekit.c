/*
 * routekit - the routes test's helpers (tests/e2e/routes.test): a banner
 * server that speaks first (its name and a newline) and then echoes,
 * and clients that send first bytes (as written, a byte per segment,
 * or a TLS record cut in two records; then their end, or not) and say
 * which banner answered.
 * Loopback only: it refuses other addresses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DATA_MAX	(64 * 1024)
#define CONNS_MAX	256

static void
usage(void)
{
	fprintf(stderr, "usage: routekit banner PORT_FILE NAME [PORT]\n"
	    "       routekit send PORT DATA [--bytewise] [--split-record N] "
	    "[--silent-ms MS] [--echo] [--shut]\n"
	    "       routekit loop PORT COUNT DATA NAME\n"
	    "       routekit flood PORT CONNS DATA\n"
	    "DATA: text with \\r \\n \\xHH escapes, or @FILE\n");
	exit(2);
}

static int
loopback(struct sockaddr_in *sin, int port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return 0;
}

/* DATA into buf: @FILE's bytes, or text with escapes.  Its length. */
static size_t
data_of(const char *arg, unsigned char *buf)
{
	size_t	n = 0;
	FILE	*f;

	if (arg[0] == '@') {
		if ((f = fopen(arg + 1, "rb")) == NULL) {
			perror(arg + 1);
			exit(2);
		}
		n = fread(buf, 1, DATA_MAX, f);
		fclose(f);
		return n;
	}
	for (; *arg != '\0' && n < DATA_MAX; arg++) {
		if (*arg != '\\' || arg[1] == '\0') {
			buf[n++] = (unsigned char)*arg;
			continue;
		}
		arg++;
		if (*arg == 'r')
			buf[n++] = '\r';
		else if (*arg == 'n')
			buf[n++] = '\n';
		else if (*arg == 'x' && arg[1] != '\0' && arg[2] != '\0') {
			char hex[3] = { arg[1], arg[2], '\0' };

			buf[n++] = (unsigned char)strtoul(hex, NULL, 16);
			arg += 2;
		} else
			buf[n++] = (unsigned char)*arg;
	}
	return n;
}

static void
say_port(const char *file, int fd)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	FILE			*f;

	if (getsockname(fd, (struct sockaddr *)&sin, &len) == -1 ||
	    (f = fopen(file, "w")) == NULL) {
		perror("port file");
		exit(1);
	}
	fprintf(f, "%d\n", ntohs(sin.sin_port));
	fclose(f);
}

/*
 * banner: each client gets "NAME\n" at once, then its bytes echoed; on
 * port (0: any free one).
 */
static int
cmd_banner(const char *port_file, const char *name, int port)
{
	struct pollfd		p[CONNS_MAX + 1];
	struct sockaddr_in	sin;
	char			line[256], buf[16384];
	int			n = 1, i, one = 1;
	ssize_t			r;

	snprintf(line, sizeof(line), "%s\n", name);
	loopback(&sin, port);
	p[0].fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(p[0].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (p[0].fd == -1 || bind(p[0].fd, (struct sockaddr *)&sin,
	    sizeof(sin)) == -1 || listen(p[0].fd, 512) == -1) {
		perror("listen");
		return 1;
	}
	p[0].events = POLLIN;
	say_port(port_file, p[0].fd);
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		if (poll(p, (nfds_t)n, -1) == -1 && errno != EINTR)
			return 1;
		for (i = n - 1; i >= 1; i--) {
			if (p[i].revents == 0)
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r > 0 && write(p[i].fd, buf, (size_t)r) == r)
				continue;
			close(p[i].fd);
			p[i] = p[--n];
		}
		if ((p[0].revents & POLLIN) && n <= CONNS_MAX) {
			int fd = accept(p[0].fd, NULL, NULL);

			if (fd == -1)
				continue;
			(void)write(fd, line, strlen(line));
			p[n].fd = fd;
			p[n].events = POLLIN;
			p[n++].revents = 0;
		}
	}
}

/* Read up to a newline within 10 s: the banner, without it. */
static int
read_line(int fd, char *line, size_t len)
{
	struct pollfd	p = { fd, POLLIN, 0 };
	size_t		n = 0;
	ssize_t		r;

	while (n + 1 < len) {
		if (poll(&p, 1, 10000) != 1)
			return -1;
		if ((r = read(fd, line + n, 1)) <= 0)
			return -1;
		if (line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	return 0;
}

/* Read exactly len bytes within 10 s into buf. */
static int
read_some(int fd, unsigned char *buf, size_t len)
{
	struct pollfd		p = { fd, POLLIN, 0 };
	size_t			n = 0;
	ssize_t			r;

	while (n < len) {
		if (poll(&p, 1, 10000) != 1 ||
		    (r = read(fd, buf + n, len - n)) <= 0)
			return -1;
		n += (size_t)r;
	}
	return 0;
}

/* Read exactly len bytes within 10 s and compare them with want. */
static int
read_same(int fd, const unsigned char *want, size_t len)
{
	static unsigned char	got[DATA_MAX];

	if (read_some(fd, got, len) == -1)
		return -1;
	return memcmp(got, want, len) == 0 ? 0 : -1;
}

static int
connect_to(int port)
{
	struct sockaddr_in	sin;
	int			fd, one = 1;

	loopback(&sin, port);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		perror("connect");
		exit(1);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/*
 * A TLS record (5-byte header) made two: the first cut bytes of its
 * body in one record, the rest in another.  Its new length.
 */
static size_t
split_record(unsigned char *buf, size_t len, size_t cut)
{
	static unsigned char	out[DATA_MAX + 5];
	size_t			body = len - 5;

	if (len < 6 || cut == 0 || cut >= body || len + 5 > DATA_MAX) {
		fprintf(stderr, "cannot cut a record of %zu bytes at %zu\n",
		    len, cut);
		exit(2);
	}
	memcpy(out, buf, 3);
	out[3] = (unsigned char)(cut >> 8);
	out[4] = (unsigned char)cut;
	memcpy(out + 5, buf + 5, cut);
	memcpy(out + 5 + cut, buf, 3);
	out[8 + cut] = (unsigned char)((body - cut) >> 8);
	out[9 + cut] = (unsigned char)(body - cut);
	memcpy(out + 10 + cut, buf + 5 + cut, body - cut);
	memcpy(buf, out, len + 5);
	return len + 5;
}

static void
pause_ms(long ms)
{
	struct timespec	ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * The echo starts with a PROXY v2 header whose PP2_TYPE_AUTHORITY TLV
 * is name, then the bytes sent: 0, or -1 with what differs said.
 */
static int
read_proxy_authority(int fd, const char *name, const unsigned char *data,
    size_t len)
{
	static const unsigned char sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00,
	    0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };
	unsigned char	hdr[16 + 1024], *p, *end;
	size_t		body, n = strlen(name);

	if (read_same(fd, sig, sizeof(sig)) == -1) {
		printf("no PROXY v2 header\n");
		return -1;
	}
	memcpy(hdr, sig, sizeof(sig));
	if (read_some(fd, hdr + 12, 4) == -1)
		return -1;
	body = (size_t)hdr[14] << 8 | hdr[15];
	if (body > sizeof(hdr) - 16 || read_some(fd, hdr + 16, body) == -1)
		return -1;
	/* The addresses (IPv4: 12 bytes), then the TLVs. */
	for (p = hdr + 16 + 12, end = hdr + 16 + body; p + 3 <= end;
	    p += 3 + ((size_t)p[1] << 8 | p[2]))
		if (p[0] == 0x02 && ((size_t)p[1] << 8 | p[2]) == n &&
		    p + 3 + n <= end && memcmp(p + 3, name, n) == 0)
			return read_same(fd, data, len);
	printf("no authority TLV \"%s\" in the PROXY v2 header\n", name);
	return -1;
}

/* send: the first bytes, then the banner that answered, on stdout. */
static int
cmd_send(int argc, char **argv)
{
	static unsigned char	data[DATA_MAX + 5];
	char			line[256];
	const char		*authority = NULL;
	size_t			len, i;
	long			silent = 0, cut = 0;
	int			fd, a, bytewise = 0, echo = 0, second = 0;
	int			shut = 0;

	if (argc < 2)
		usage();
	len = data_of(argv[1], data);
	for (a = 2; a < argc; a++) {
		if (strcmp(argv[a], "--bytewise") == 0)
			bytewise = 1;
		else if (strcmp(argv[a], "--echo") == 0)
			echo = 1;
		else if (strcmp(argv[a], "--shut") == 0)
			shut = 1;
		else if (strcmp(argv[a], "--second-line") == 0)
			second = 1;
		else if (strcmp(argv[a], "--split-record") == 0 && a + 1 < argc)
			cut = atol(argv[++a]);
		else if (strcmp(argv[a], "--silent-ms") == 0 && a + 1 < argc)
			silent = atol(argv[++a]);
		else if (strcmp(argv[a], "--proxy-authority") == 0 &&
		    a + 1 < argc)
			authority = argv[++a];
		else
			usage();
	}
	if (cut > 0)
		len = split_record(data, len, (size_t)cut);
	fd = connect_to(atoi(argv[0]));
	if (silent > 0)
		pause_ms(silent);
	for (i = 0; i < len; i += bytewise ? 1 : len) {
		if (write(fd, data + i, bytewise ? 1 : len) <= 0) {
			perror("write");
			return 1;
		}
		if (bytewise)
			pause_ms(2);
	}
	/* --shut: the client's end follows its bytes (a half-close). */
	if (shut && shutdown(fd, SHUT_WR) == -1) {
		perror("shutdown");
		return 1;
	}
	if (read_line(fd, line, sizeof(line)) == -1) {
		printf("closed\n");
		return 1;
	}
	if (authority != NULL &&
	    read_proxy_authority(fd, authority, data, len) == -1)
		return 1;
	/* The first line the backend got: a PROXY v1 header, say. */
	if (second && read_line(fd, line, sizeof(line)) == -1) {
		printf("closed\n");
		return 1;
	}
	/* The backend got the bytes looked at, whole and first. */
	if (echo && len > 0 && read_same(fd, data, len) == -1) {
		printf("%s (echo differs)\n", line);
		return 1;
	}
	printf("%s\n", line);
	close(fd);
	return 0;
}

/* loop: COUNT short connections, each must read NAME's banner. */
static int
cmd_loop(int argc, char **argv)
{
	static unsigned char	data[DATA_MAX];
	char			line[256];
	size_t			len;
	int			i, n, fd, failed = 0;

	if (argc != 4)
		usage();
	n = atoi(argv[1]);
	len = data_of(argv[2], data);
	for (i = 0; i < n; i++) {
		fd = connect_to(atoi(argv[0]));
		if (write(fd, data, len) != (ssize_t)len ||
		    read_line(fd, line, sizeof(line)) == -1 ||
		    strcmp(line, argv[3]) != 0)
			failed++;
		close(fd);
	}
	printf("connections=%d failed=%d\n", n, failed);
	return failed == 0 ? 0 : 1;
}

/*
 * flood: CONNS connections at once, each sends DATA in one write and
 * its FIN, then waits (60 s at most) for the end from the other side,
 * discarding what comes before it.  Prints how many ended so.
 */
static int
cmd_flood(int argc, char **argv)
{
	static unsigned char	data[DATA_MAX], sink[16384];
	struct pollfd		p[CONNS_MAX];
	size_t			len;
	time_t			deadline = time(NULL) + 60;
	int			i, n, left, ended = 0;
	ssize_t			r;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > CONNS_MAX)
		usage();
	len = data_of(argv[2], data);
	for (i = 0; i < n; i++) {
		p[i].fd = connect_to(atoi(argv[0]));
		p[i].events = POLLIN;
	}
	for (i = 0; i < n; i++)
		if (write(p[i].fd, data, len) != (ssize_t)len ||
		    shutdown(p[i].fd, SHUT_WR) == -1) {
			perror("write");
			return 1;
		}
	for (left = n; left > 0 && time(NULL) < deadline; ) {
		if (poll(p, (nfds_t)n, 1000) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			if (p[i].fd == -1 || p[i].revents == 0)
				continue;
			if ((r = read(p[i].fd, sink, sizeof(sink))) > 0)
				continue;
			ended += r == 0;
			close(p[i].fd);
			p[i].fd = -1;
			left--;
		}
	}
	printf("connections=%d ended=%d\n", n, ended);
	return ended == n ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(argv[1], "banner") == 0 && (argc == 4 || argc == 5))
		return cmd_banner(argv[2], argv[3], argc == 5 ?
		    atoi(argv[4]) : 0);
	if (strcmp(argv[1], "send") == 0)
		return cmd_send(argc - 2, argv + 2);
	if (strcmp(argv[1], "loop") == 0)
		return cmd_loop(argc - 2, argv + 2);
	if (strcmp(argv[1], "flood") == 0)
		return cmd_flood(argc - 2, argv + 2);
	usage();
	return 2;
}
