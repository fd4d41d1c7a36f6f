/*
 * test_listen.c - unit tests of the listen set, in both modes (a socket
 * per slot, balanced by the kernel; one socket shared by the slots, as
 * on systems whose SO_REUSEPORT does not balance): sockets bound to the
 * rules' addresses, taken over on reload when address and slot stay (the
 * same socket, by inode), removed rules left to the caller to close, new
 * ones bound, a failed reload leaving the running set as it was, and
 * each slot's descriptor accepting connections.
 */
#include "ferryd.h"

#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "listen.h"
#include "testlib.h"

/* A TCP port nothing listens on now. */
static int
free_port(void)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	int			fd, port = -1;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) != -1 &&
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	if (fd != -1)
		close(fd);
	return port;
}

static ino_t
inode(int fd)
{
	struct stat st;

	return fd != -1 && fstat(fd, &st) == 0 ? st.st_ino : 0;
}

static int
bound_port(int fd)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);

	if (fd == -1 || getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		return -1;
	return ntohs(sin.sin_port);
}

/*
 * Connect to port and accept the connection through one of the n
 * descriptors at fds (the kernel picks among a rule's per-slot sockets;
 * a shared socket takes it through any of its descriptors); 0 on
 * success.
 */
static int
accept_through(const int *fds, int n, int port)
{
	struct sockaddr_in	sin;
	int			c, a = -1, rc = -1, i, k;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if ((c = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	if (connect(c, (struct sockaddr *)&sin, sizeof(sin)) == 0)
		for (i = 0; i < 100 && a == -1; i++) {
			for (k = 0; k < n && a == -1; k++)
				a = accept(fds[k], NULL, NULL);	/* non-blocking */
			if (a == -1)
				usleep(10000);
		}
	if (a != -1) {
		rc = 0;
		close(a);
	}
	close(c);
	return rc;
}

static struct conf *
conf_of(const char *name, int workers, int p1, int p2)
{
	char	text[512], path[1024];

	snprintf(text, sizeof(text), "workers = %d;\nrules = (\n"
	    "  { listen = \"127.0.0.1:%d\"; connect = \"127.0.0.1:9\"; },\n"
	    "  { listen = \"127.0.0.1:%d\"; connect = \"127.0.0.1:9\"; }\n);\n",
	    workers, p1, p2);
	return load_good(name, text, path, sizeof(path), name);
}

static void
test_mode(enum listen_mode mode, const char *m)
{
	struct conf		*a, *b, *c;
	struct listen_set	*ls1, *ls2, *ls3;
	char			 err[512], name[64];
	int			 p1 = free_port(), p2 = free_port(), p3, p4, s, ok;
	int			 taken;
	ino_t			 kept[2];

	snprintf(name, sizeof(name), "%s-a.conf", m);
	a = conf_of(name, 2, p1, p2);
	p3 = free_port();
	snprintf(name, sizeof(name), "%s-b.conf", m);
	b = conf_of(name, 3, p2, p3);
	if (a == NULL || b == NULL)
		return;
	ls1 = listen_set_open(a, NULL, NULL, mode, err, sizeof(err));
	check(ls1 != NULL, "%s: open: %s", m, ls1 == NULL ? err : "ok");
	if (ls1 == NULL)
		return;
	ok = 1;
	for (s = 0; s < 2; s++)
		ok &= bound_port(LISTEN_FD(ls1, 0, s)) == p1 &&
		    bound_port(LISTEN_FD(ls1, 1, s)) == p2;
	check(ok, "%s: every slot of both rules is bound to its address", m);
	check((inode(LISTEN_FD(ls1, 1, 0)) == inode(LISTEN_FD(ls1, 1, 1))) ==
	    (mode == LISTEN_SHARED), "%s: the slots have %s", m,
	    mode == LISTEN_SHARED ? "one socket" : "a socket each");
	kept[0] = inode(LISTEN_FD(ls1, 1, 0));
	kept[1] = inode(LISTEN_FD(ls1, 1, 1));

	/* Reload: rule p2 stays (now first), p1 goes, p3 comes, 3 slots. */
	ls2 = listen_set_open(b, ls1, a, mode, err, sizeof(err));
	check(ls2 != NULL, "%s: reload: %s", m, ls2 == NULL ? err : "ok");
	if (ls2 == NULL)
		return;
	check(inode(LISTEN_FD(ls2, 0, 0)) == kept[0] &&
	    inode(LISTEN_FD(ls2, 0, 1)) == kept[1],
	    "%s: the sockets of the kept address are taken over", m);
	check(bound_port(LISTEN_FD(ls2, 0, 2)) == p2 &&
	    (inode(LISTEN_FD(ls2, 0, 2)) == kept[0]) == (mode == LISTEN_SHARED),
	    "%s: the new slot of the kept address is %s", m,
	    mode == LISTEN_SHARED ? "a dup of its socket" : "a socket of its own");
	for (s = 0, ok = 1; s < 3; s++)
		ok &= bound_port(LISTEN_FD(ls2, 1, s)) == p3;
	check(ok, "%s: the new address is bound in every slot", m);
	taken = LISTEN_FD(ls1, 1, 0) == -1;
	check(taken && LISTEN_FD(ls1, 0, 0) != -1, "%s: the old set gave up "
	    "what was taken over and keeps the removed rule's sockets", m);
	listen_set_close(ls1);
	/* Shared: through the new slot's own descriptor; else any slot's. */
	check(mode == LISTEN_SHARED ?
	    accept_through(&LISTEN_FD(ls2, 0, 2), 1, p2) == 0 &&
	    accept_through(&LISTEN_FD(ls2, 1, 1), 1, p3) == 0 :
	    accept_through(&LISTEN_FD(ls2, 0, 0), 3, p2) == 0 &&
	    accept_through(&LISTEN_FD(ls2, 1, 0), 3, p3) == 0,
	    "%s: connections are accepted through the new set", m);

	/* A reload that cannot bind changes nothing. */
	p4 = free_port();
	snprintf(name, sizeof(name), "%s-c.conf", m);
	c = conf_of(name, 3, p3, p4);
	{
		struct sockaddr_in	sin;
		int			blocker = socket(AF_INET, SOCK_STREAM, 0);

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sin.sin_port = htons(p4);
		if (blocker == -1 || bind(blocker, (struct sockaddr *)&sin,
		    sizeof(sin)) == -1 || listen(blocker, 1) == -1)
			check(0, "%s: a socket on port %d", m, p4);
		ls3 = listen_set_open(c, ls2, b, mode, err, sizeof(err));
		check(ls3 == NULL && strstr(err, "cannot bind") != NULL,
		    "%s: a reload onto a taken address fails: %s", m, err);
		check(bound_port(LISTEN_FD(ls2, 1, 0)) == p3 &&
		    accept_through(&LISTEN_FD(ls2, 1, 0), 3, p3) == 0,
		    "%s: and the running set is as it was", m);
		if (blocker != -1)
			close(blocker);
	}
	listen_set_close(ls2);
	conf_free(a);
	conf_free(b);
	conf_free(c);
}

/*
 * A UDP rule's per-slot sockets, steered: a datagram from each of many
 * client ports arrives on the socket of the slot listen_slot_of_port()
 * names, also with a slot skipped.  A reload hands sessions over by that
 * function, so it must agree with the kernel exactly.
 */
static void
test_udp_steering(void)
{
	struct conf		*cfg;
	struct listen_set	*ls;
	struct sockaddr_in	 to, from;
	struct pollfd		 pfd[4];
	bool			 skip[4] = { false, true, false, false };
	char			 text[256], path[1024], err[512], buf[8];
	int			 port = free_port(), cport, i, s, want, got;
	int			 right = 0, tries = 0, pass, fd;

	snprintf(text, sizeof(text), "workers = 4;\nrules = ( { listen = "
	    "\"127.0.0.1:%d\"; connect = \"127.0.0.1:9\"; protocol = "
	    "\"udp\"; } );\n", port);
	if ((cfg = load_good("udp-steer.conf", text, path, sizeof(path),
	    "udp steering")) == NULL)
		return;
	ls = listen_set_open(cfg, NULL, NULL, LISTEN_PER_SLOT, err,
	    sizeof(err));
	check(ls != NULL, "UDP listen set: %s", ls == NULL ? err : "ok");
	if (ls == NULL) {
		conf_free(cfg);
		return;
	}
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons((uint16_t)port);
	for (pass = 0; pass < 2; pass++) {
		if (listen_set_steer(ls, cfg, pass ? skip : NULL, err,
		    sizeof(err)) == -1) {
			check(0, "steer: %s", err);
			break;
		}
		for (i = 0; i < 64; i++) {
			fd = socket(AF_INET, SOCK_DGRAM, 0);
			memset(&from, 0, sizeof(from));
			from.sin_family = AF_INET;
			from.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			if (bind(fd, (struct sockaddr *)&from,
			    sizeof(from)) == -1)
				continue;
			cport = bound_port(fd);
			(void)sendto(fd, "x", 1, 0, (struct sockaddr *)&to,
			    sizeof(to));
			close(fd);
			for (s = 0; s < 4; s++) {
				pfd[s].fd = LISTEN_FD(ls, 0, s);
				pfd[s].events = POLLIN;
			}
			got = -1;
			if (poll(pfd, 4, 1000) > 0)
				for (s = 0; s < 4; s++)
					if (pfd[s].revents & POLLIN) {
						got = s;
						(void)recv(pfd[s].fd, buf,
						    sizeof(buf), 0);
					}
			want = listen_slot_of_port(ls, (unsigned)cport,
			    pass ? skip : NULL);
			tries++;
			right += got == want;
		}
	}
	check(tries == 128 && right == tries, "UDP: the kernel steers each "
	    "client port to the slot listen_slot_of_port() names (%d of %d, "
	    "with and without a skipped slot)", right, tries);
	listen_set_close(ls);
	conf_free(cfg);
}

int
main(void)
{
	make_tmpdir("test_listen");
	test_mode(LISTEN_PER_SLOT, "per-slot");
	test_mode(LISTEN_SHARED, "shared");
	test_udp_steering();
	remove_tmpdir();
	return test_summary();
}
