/*
 * sock.c - creating, accepting and tuning sockets, portably.
 */
#include "ferryd.h"

#include <fcntl.h>
#ifdef __linux__
#include <linux/sockios.h>	/* SIOCOUTQ */
#endif
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "addr.h"
#include "sock.h"

#if !defined(SOCK_NONBLOCK) || !defined(HAVE_ACCEPT4)
/* Where the flags cannot be given at creation, set them after. */
static int
sock_set_flags(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}
#endif

/* A non-blocking, close-on-exec socket of family and type, or -1. */
static int
sock_new(int family, int type)
{
#ifdef SOCK_NONBLOCK
	return socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
#else
	int fd = socket(family, type, 0);

	return fd == -1 ? -1 : sock_set_flags(fd);
#endif
}

/*
 * SO_REUSEADDR on TCP sockets only: there it lets a listener bind while
 * old connections sit in TIME_WAIT.  On UDP it would let any socket with
 * it share the address, and a second ferryd's probe would see none.
 */
static int
stream_reuseaddr(int fd, int type)
{
	int on = 1;

	if (type != SOCK_STREAM)
		return 0;
	return setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
}

int
sock_stream(int family)
{
	return sock_new(family, SOCK_STREAM);
}

int
sock_dgram(int family)
{
	return sock_new(family, SOCK_DGRAM);
}

/*
 * Ask for each datagram's destination address (IP_PKTINFO,
 * IPV6_RECVPKTINFO): a socket bound to 0.0.0.0 or [::] must answer from
 * the address the client wrote to.
 */
static int
sock_pktinfo(int fd, int family)
{
	int on = 1;

	if (family == AF_INET6) {
#ifdef IPV6_RECVPKTINFO
		return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on,
		    sizeof(on));
#endif
	} else {
#ifdef IP_PKTINFO
		return setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
#endif
	}
	errno = ENOPROTOOPT;
	return -1;
}

int
sock_accept(int lfd, struct sockaddr_any *peer)
{
	int fd;

	peer->len = sizeof(peer->ss);
#ifdef HAVE_ACCEPT4
	fd = accept4(lfd, (struct sockaddr *)&peer->ss, &peer->len,
	    SOCK_NONBLOCK | SOCK_CLOEXEC);
#else
	fd = accept(lfd, (struct sockaddr *)&peer->ss, &peer->len);
	if (fd != -1)
		fd = sock_set_flags(fd);
#endif
	return fd;
}

int
sock_listen(const struct sockaddr_any *addr, int type, int backlog,
    bool v6only, bool balanced, char *err, size_t errlen)
{
	char        name[ADDR_STRLEN];
	const char *what;
	int         fd, on = 1, v6 = v6only;

	what = "create a socket for";
	fd = sock_new(addr->ss.ss_family, type);
	if (fd == -1)
		goto fail;
	what = "set socket options on";
	if (stream_reuseaddr(fd, type) == -1)
		goto fail;
	if (balanced &&
#ifdef HAVE_SO_REUSEPORT_LB
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT_LB, &on, sizeof(on)) == -1)
#elif HAVE_DECL_SO_REUSEPORT
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) == -1)
#else
	    (errno = ENOPROTOOPT) != 0)
#endif
		goto fail;
	/* By default "[::]:80" must not also take 0.0.0.0:80 from a rule. */
	if (addr->ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &v6, sizeof(v6)) == -1)
		goto fail;
	if (type == SOCK_DGRAM) {
		what = "ask for destination addresses on";
		if (sock_pktinfo(fd, addr->ss.ss_family) == -1)
			goto fail;
	} else {
		/*
		 * Accepted sockets inherit both (on Linux: no setsockopt per
		 * client): no Nagle delay, and a reset if ferryd abandons
		 * them.
		 */
		sock_nodelay(fd);
		sock_abort_on_close(fd, true);
	}
	what = "bind";
	if (bind(fd, (const struct sockaddr *)&addr->ss, addr->len) == -1)
		goto fail;
	what = "listen on";
	if (type == SOCK_STREAM && listen(fd, backlog) == -1)
		goto fail;
	return fd;
fail:
	snprintf(err, errlen, "cannot %s %s: %s", what,
	    addr_format((const struct sockaddr *)&addr->ss, name, sizeof(name)),
	    strerror(errno));
	if (fd != -1)
		close(fd);
	return -1;
}

/*
 * What is at sun's path: 0 for nothing, or for a socket nobody listens
 * on (*stale set: connect() refused, it was left by a process that did
 * not stop); EADDRINUSE for a live socket, ENOTSOCK for a file of
 * another kind, or the error that keeps us from telling.
 */
static int
unix_path_state(const struct sockaddr_un *sun, socklen_t len, bool *stale)
{
	struct stat	 st;
	int		 fd, rc, saved;

	*stale = false;
	if (lstat(sun->sun_path, &st) == -1)
		return 0;	/* bind() says why, if it is not ENOENT */
	if (!S_ISSOCK(st.st_mode))
		return ENOTSOCK;
	if ((fd = sock_new(AF_UNIX, SOCK_STREAM)) == -1)
		return errno;
	rc = connect(fd, (const struct sockaddr *)sun, len);
	saved = errno;
	close(fd);
	if (rc == 0 || saved == EINPROGRESS || saved == EAGAIN)
		return EADDRINUSE;
	if (saved != ECONNREFUSED)
		return saved;
	*stale = true;
	return 0;
}

/*
 * Make room for a Unix socket file at sun's path: nothing there, or a
 * stale socket, which goes.  A live socket or a file of another kind
 * stays, and bind is refused with the reason in err.
 */
static int
unix_clear_stale(const struct sockaddr_un *sun, socklen_t len, char *err,
    size_t errlen)
{
	const char	*path = sun->sun_path;
	bool		 stale;
	int		 rc = unix_path_state(sun, len, &stale);

	if (rc == ENOTSOCK)
		snprintf(err, errlen, "cannot bind unix:%s: a file that is "
		    "not a socket is in the way", path);
	else if (rc == EADDRINUSE)
		snprintf(err, errlen, "cannot bind unix:%s: in use by "
		    "another process", path);
	else if (rc != 0)
		snprintf(err, errlen, "cannot bind unix:%s: cannot tell "
		    "whether the socket there is in use: %s", path,
		    strerror(rc));
	if (rc != 0)
		return -1;
	if (stale && unlink(path) == -1 && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove the stale socket "
		    "unix:%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The owner and group of the socket file at path, if file names them. */
static int
unix_file_own(const char *path, const struct sock_unix_file *file,
    char *err, size_t errlen)
{
	if ((file->uid != (uid_t)-1 || file->gid != (gid_t)-1) &&
	    lchown(path, file->uid, file->gid) == -1) {
		snprintf(err, errlen, "cannot set the owner and group of "
		    "unix:%s: %s%s", path, strerror(errno), errno == EPERM ?
		    " (it takes root with CAP_CHOWN)" : "");
		return -1;
	}
	return 0;
}

int
sock_listen_unix_addr(const struct sockaddr_any *addr, int backlog,
    const struct sock_unix_file *file, char *err, size_t errlen)
{
	const struct sockaddr_un *sun = (const void *)&addr->ss;
	char			 name[ADDR_STRLEN];
	const char		*what = "create a socket for";
	bool			 has_file = sun->sun_path[0] != '\0';
	mode_t			 mask;
	int			 fd, rc;

	if (has_file && unix_clear_stale(sun, addr->len, err, errlen) == -1)
		return -1;
	if ((fd = sock_new(AF_UNIX, SOCK_STREAM)) == -1)
		goto fail;
	what = "bind";
	/*
	 * The file is made with its mode (0600 without file): no chmod()
	 * by path, which a link put in its place would redirect.
	 */
	mask = umask(file != NULL ? (mode_t)(~file->mode & 0777) : 0177);
	rc = bind(fd, (const struct sockaddr *)sun, addr->len);
	umask(mask);
	if (rc == -1) {
		if (errno == EADDRINUSE && !has_file) {
			close(fd);
			snprintf(err, errlen, "cannot bind %s: in use by "
			    "another process", addr_format((const void *)sun,
			    name, sizeof(name)));
			return -1;
		}
		goto fail;
	}
	if (has_file && file != NULL && unix_file_own(sun->sun_path, file,
	    err, errlen) == -1) {
		(void)unlink(sun->sun_path);
		close(fd);
		return -1;
	}
	what = "listen on";
	if (listen(fd, backlog) == -1) {
		if (has_file)
			(void)unlink(sun->sun_path);
		goto fail;
	}
	return fd;
fail:
	snprintf(err, errlen, "cannot %s %s: %s", what, addr_format(
	    (const void *)sun, name, sizeof(name)), strerror(errno));
	if (fd != -1)
		close(fd);
	return -1;
}

int
sock_listen_unix(const char *path, int backlog,
    const struct sock_unix_file *file, char *err, size_t errlen)
{
	struct sockaddr_any	a;
	struct sockaddr_un	*sun = (struct sockaddr_un *)(void *)&a.ss;

	memset(&a, 0, sizeof(a));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		snprintf(err, errlen, "cannot bind unix:%s: %s", path,
		    strerror(ENAMETOOLONG));
		return -1;
	}
	memcpy(sun->sun_path, path, strlen(path));
	a.len = sizeof(*sun);
	return sock_listen_unix_addr(&a, backlog, file, err, errlen);
}

int
sock_unix_file_set(const char *path, const struct sock_unix_file *file,
    char *err, size_t errlen)
{
	struct stat	st;

	/* Only ever our socket: never what a link points to. */
	if (lstat(path, &st) == -1) {
		snprintf(err, errlen, "cannot set the mode of unix:%s: %s",
		    path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "cannot set the mode of unix:%s: not a "
		    "socket any more", path);
		return -1;
	}
	if ((st.st_mode & 0777) != (mode_t)file->mode &&
	    chmod(path, (mode_t)file->mode) == -1) {
		snprintf(err, errlen, "cannot set the mode of unix:%s: %s",
		    path, strerror(errno));
		return -1;
	}
	return unix_file_own(path, file, err, errlen);
}

uid_t
sock_peer_uid(int fd)
{
#ifdef SO_PEERCRED
	struct ucred	cr;
	socklen_t	len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0)
		return cr.uid;
#else
	uid_t	uid;
	gid_t	gid;

	if (getpeereid(fd, &uid, &gid) == 0)
		return uid;
#endif
	return (uid_t)-1;
}

/*
 * sock_probe() of a Unix socket file: a stale one is no obstacle (a start
 * replaces it), and a bind that works is undone, so that -t leaves no
 * file behind.
 */
static int
unix_probe(const struct sockaddr_any *addr)
{
	const struct sockaddr_un *sun = (const void *)&addr->ss;
	bool			 stale;
	int			 fd, rc;

	if ((rc = unix_path_state(sun, addr->len, &stale)) != 0 || stale)
		return rc;
	if ((fd = sock_new(AF_UNIX, SOCK_STREAM)) == -1)
		return errno;
	if (bind(fd, (const struct sockaddr *)sun, addr->len) == -1)
		rc = errno;
	else
		(void)unlink(sun->sun_path);
	close(fd);
	return rc;
}

int
sock_probe(const struct sockaddr_any *addr, int type, bool v6only)
{
	int fd, v6 = v6only, rc = 0;

	if (addr->ss.ss_family == AF_UNIX &&
	    ((const struct sockaddr_un *)(const void *)&addr->ss)->sun_path[0]
	    != '\0')
		return unix_probe(addr);
	if ((fd = sock_new(addr->ss.ss_family, type)) == -1 ||
	    stream_reuseaddr(fd, type) == -1 ||
	    (addr->ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &v6, sizeof(v6)) == -1) ||
	    bind(fd, (const struct sockaddr *)&addr->ss, addr->len) == -1)
		rc = errno;
	if (fd != -1)
		close(fd);
	return rc;
}

void
sock_nodelay(int fd)
{
	int on = 1;

	/* Failing only costs latency; not worth refusing the connection. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

void
sock_keepalive(int fd, const struct keepalive *ka)
{
	int on = ka->enabled, idle = ka->idle / 1000;
	int intvl = ka->interval / 1000, cnt = ka->count;

	/* Failing costs the probes only; not worth refusing for. */
	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	if (!on)
		return;
#if defined(TCP_KEEPIDLE)
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
#elif defined(TCP_KEEPALIVE)
	/* macOS's name for it. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPALIVE, &idle, sizeof(idle));
#endif
#ifdef TCP_KEEPINTVL
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl,
	    sizeof(intvl));
#endif
#ifdef TCP_KEEPCNT
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
#endif
	(void)idle;
	(void)intvl;
	(void)cnt;
}

/*
 * An int option of level and name (-1: the system has none) on fd; -1
 * with errno, ENOPROTOOPT where missing.
 */
static int
sock_int_option(int fd, int level, int name, int v)
{
	if (name == -1) {
		errno = ENOPROTOOPT;
		return -1;
	}
	return setsockopt(fd, level, name, &v, sizeof(v));
}

#ifndef TCP_FASTOPEN
#define TCP_FASTOPEN		-1
#endif
#ifndef TCP_DEFER_ACCEPT
#define TCP_DEFER_ACCEPT	-1
#endif
#ifndef SO_MAX_PACING_RATE
#define SO_MAX_PACING_RATE	-1
#endif

int
sock_fastopen(int fd, int qlen)
{
	return sock_int_option(fd, IPPROTO_TCP, TCP_FASTOPEN, qlen);
}

int
sock_defer_accept(int fd, int seconds)
{
	return sock_int_option(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, seconds);
}

int
sock_pacing_rate(int fd, int rate)
{
	/* ~0U is the kernel's "unlimited", and does not turn pacing on. */
	return sock_int_option(fd, SOL_SOCKET, SO_MAX_PACING_RATE,
	    rate > 0 ? rate : (int)~0U);
}

void
sock_fastopen_connect(int fd)
{
#ifdef TCP_FASTOPEN_CONNECT
	int on = 1;

	/*
	 * Failing (a kernel before 4.11) costs only the round trip it
	 * would have saved: the connect is an ordinary one.
	 */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &on,
	    sizeof(on));
#else
	(void)fd;
#endif
}

void
sock_abort_on_close(int fd, bool on)
{
	struct linger lg = { on, 0 };

	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

int
sock_unsent(int fd)
{
	int n;

#ifdef SIOCOUTQ
	if (ioctl(fd, SIOCOUTQ, &n) == -1)
		return -1;
	return n;
#elif defined(FIONWRITE)
	if (ioctl(fd, FIONWRITE, &n) == -1)
		return -1;
	return n;
#else
	(void)fd;
	(void)n;
	errno = ENOTSUP;
	return -1;
#endif
}

void
sock_discard_urgent(int fd)
{
	char byte;

	/* EINVAL: none (left); EAGAIN: announced, not arrived yet. */
	(void)recv(fd, &byte, 1, MSG_OOB);
}

void
sock_buffers(int fd, int sndbuf, int rcvbuf)
{
	/* The kernel caps them at its own maximum; nothing to report. */
	if (sndbuf > 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
		    sizeof(sndbuf));
	if (rcvbuf > 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
		    sizeof(rcvbuf));
}

bool
sock_shortage(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOBUFS ||
	    err == ENOMEM;
}

bool
sock_own_failure(int err)
{
	return sock_shortage(err) || err == EAGAIN || err == EADDRNOTAVAIL ||
	    err == EADDRINUSE;
}

void
sock_udp_gro(int fd)
{
#ifdef UDP_GRO
	int on = 1;

	(void)setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof(on));
#else
	(void)fd;
#endif
}

size_t
sock_gro_size(const struct msghdr *mh)
{
#ifdef UDP_GRO
	struct cmsghdr	*cm;
	int		 size;

	for (cm = CMSG_FIRSTHDR(mh); cm != NULL;
	    cm = CMSG_NXTHDR((struct msghdr *)(uintptr_t)mh, cm))
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(size))) {
			memcpy(&size, CMSG_DATA(cm), sizeof(size));
			return size > 0 ? (size_t)size : 0;
		}
#else
	(void)mh;
#endif
	return 0;
}

void
sock_dgram_rcvbuf(int fd, int rcvbuf)
{
	int size = rcvbuf > 0 ? rcvbuf : SOCK_DGRAM_RCVBUF;

#ifdef SO_RCVBUFFORCE
	/* Past net.core.rmem_max, for a master that may (CAP_NET_ADMIN). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size,
	    sizeof(size)) == 0)
		return;
#endif
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

int
sock_bind_transparent(int fd, int family, const struct sockaddr *client)
{
#if defined(IP_TRANSPARENT) && defined(IPV6_TRANSPARENT)
	const struct sockaddr_in6	*c6 = (const void *)client;
	struct sockaddr_any		 src;
	struct sockaddr_in		*sin = (void *)&src.ss;
	struct sockaddr_in6		*sin6 = (void *)&src.ss;
	bool				 mapped;
	int				 on = 1;

	mapped = client->sa_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&c6->sin6_addr);
	memset(&src, 0, sizeof(src));
	if (family == AF_INET && mapped) {
		sin->sin_family = AF_INET;
		sin->sin_port = c6->sin6_port;
		memcpy(&sin->sin_addr, &c6->sin6_addr.s6_addr[12], 4);
		src.len = sizeof(*sin);
	} else if (family == AF_INET && client->sa_family == AF_INET) {
		memcpy(sin, client, sizeof(*sin));
		src.len = sizeof(*sin);
	} else if (family == AF_INET6 && client->sa_family == AF_INET6 &&
	    !mapped) {
		*sin6 = *c6;
		src.len = sizeof(*sin6);
	} else {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (setsockopt(fd, family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6,
	    family == AF_INET ? IP_TRANSPARENT : IPV6_TRANSPARENT, &on,
	    sizeof(on)) == -1)
		return -1;
	/*
	 * The client's port too, as sslh does, so that the backend sees the
	 * very address; when another connection of that client has it
	 * towards the same place, any port.
	 */
	if (bind(fd, (const struct sockaddr *)&src.ss, src.len) == 0)
		return 0;
	if (errno != EADDRINUSE)
		return -1;
	if (family == AF_INET)
		sin->sin_port = 0;
	else
		sin6->sin6_port = 0;
	return sock_bind_source(fd, &src);
#else
	(void)fd;
	(void)family;
	(void)client;
	errno = EOPNOTSUPP;
	return -1;
#endif
}

int
sock_bind_source(int fd, const struct sockaddr_any *src)
{
#ifdef IP_BIND_ADDRESS_NO_PORT
	int on = 1;

	/*
	 * Let connect() pick the port for the whole 4-tuple, not bind() for
	 * the address alone, or busy sources run out of ports early.
	 */
	(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &on,
	    sizeof(on));
#endif
	return bind(fd, (const struct sockaddr *)&src->ss, src->len);
}

int
sock_bind_pool(int fd, struct source_pool *p)
{
	unsigned i;

	for (i = 0; i < p->n; i++) {
		if (sock_bind_source(fd, &p->addr[p->turn++ % p->n]) == 0)
			return 0;
		if (errno != EADDRINUSE && errno != EADDRNOTAVAIL)
			return -1;
	}
	return -1;
}

bool
sock_unix_listening(int fd, const char *path)
{
	struct sockaddr_un	sun;
	socklen_t		len = sizeof(sun), onlen;
	int			on = 0, type = 0;

	memset(&sun, 0, sizeof(sun));
	onlen = sizeof(type);
	if (fd < 0 || getsockname(fd, (struct sockaddr *)&sun, &len) == -1 ||
	    sun.sun_family != AF_UNIX || len <= offsetof(struct sockaddr_un,
	    sun_path) || strncmp(sun.sun_path, path, sizeof(sun.sun_path)) !=
	    0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &onlen) == -1 ||
	    type != SOCK_STREAM)
		return false;
	onlen = sizeof(on);
	return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &onlen) == 0 &&
	    on != 0;
}
