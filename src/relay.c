/*
 * relay.c - one forwarded connection, from the backend connect to close.
 *
 * A connection has two directions; dir[CLIENT] carries what the client
 * sends to the backend, dir[BACKEND] the reverse.  Each direction reads
 * into a pool buffer, or on Linux splices into a pool pipe (zero copy),
 * and writes it out at once; only what the receiver cannot take yet stays
 * in flight, and while it does, that direction stops reading
 * (backpressure).  An empty direction gives its buffer or pipe back, so an
 * idle connection holds neither.
 *
 * Each socket is registered once (EV_EDGE): the connection remembers what
 * each can do (ready[]) from the events and from EAGAIN, so that neither
 * the connect nor backpressure costs an epoll_ctl, and moves bytes while a
 * direction can (conn_run).
 */
#include "ferryd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include "accesslog.h"
#include "acl.h"
#include "addr.h"
#include "event.h"
#include "log.h"
#include "pool.h"
#include "relay.h"
#include "sock.h"

#ifndef MSG_MORE
#define MSG_MORE 0		/* a hint only: where missing, do without */
#endif

enum side { CLIENT = 0, BACKEND = 1 };

#define OTHER(s) (1 - (s))

/* Steps of conn_run per call before a busy connection lets others run. */
#define RUN_ROUNDS 4

/* One direction: reads fd[side], writes fd[OTHER(side)]. */
struct direction {
	char     *buf;			/* copy: the buffer while in flight */
	int       pipe[2];		/* splice: the pipe while in flight */
	size_t    off, len;		/* in flight: bytes off..len of a read */
	bool      splice;		/* move bytes with splice(2) now */
	bool      can_splice;		/* may switch to splice(2) */
	bool      eof;			/* the reading side sent FIN */
	bool      shut;			/* FIN passed on to the writing side */
	uint64_t  bytes;
};

struct conn {
	TAILQ_ENTRY(conn)   link;
	struct relay      *rl;
	const struct rule  *rule;
	const struct backend *backend;	/* connecting to or connected to */
	size_t              attempt;	/* index of backend in the upstream */
	int                 fd[2];
	struct direction    dir[2];
	uint8_t             ready[2];	/* EV_READ|EV_WRITE fd[s] can do */
	bool                fin[2];	/* fd[s]'s peer sent FIN */
	bool                except[2];	/* short reads prove nothing */
	bool                connecting;
	int64_t             started;
	int64_t             last_active;
	struct event_timer  timer;	/* connect, then idle timeout */
	struct sockaddr_any peer;
};

/* A worker's forwarded connections. */
struct relay {
	struct event_loop   *loop;
	struct pool         *pool;
	const struct conf   *cfg;
	TAILQ_HEAD(, conn)   conns;
	int                  nconns;
	uint64_t             refused;	/* clients denied or over the limit */
};

static const char *const side_name[] = { "client", "backend" };

static void conn_io(struct event_loop *, int, int, void *);
static void conn_next_backend(struct conn *, int);

static bool
pending(const struct direction *d)
{
	return d->off < d->len;
}

/* Give back the buffer or pipe; a pipe still holding bytes is closed. */
static void
dir_release(struct conn *c, struct direction *d)
{
	if (d->buf != NULL)
		pool_put(c->rl->pool, d->buf, c->rule->buffer_size);
	if (d->pipe[0] != -1) {
		if (pending(d))
			pool_drop_pipe(c->rl->pool, d->pipe);
		else
			pool_put_pipe(c->rl->pool, d->pipe);
	}
	d->buf = NULL;
	d->pipe[0] = d->pipe[1] = -1;
	d->off = d->len = 0;
}

/*
 * Read what side s sent: into a pipe with splice(2) where this direction
 * can, else into a buffer.  Returns what recv(2) would.
 */
static ssize_t
dir_read(struct conn *c, int s)
{
	struct direction *d = &c->dir[s];
	size_t            size = c->rule->buffer_size;
	ssize_t           n;

#ifdef HAVE_SPLICE
	/*
	 * splice(2) stops at a TCP urgent mark and returns EAGAIN until
	 * something reads past it; recv(2) does, dropping the urgent byte
	 * as rinetd does.  So copy once the socket reported one (EV_EXCEPT).
	 */
	if (d->splice && !c->except[s]) {
		if (d->pipe[0] == -1 &&
		    pool_get_pipe(c->rl->pool, d->pipe, size) == -1) {
			/* Out of descriptors or pipe memory: copy instead. */
			d->splice = false;
			goto copy;
		}
		n = splice(c->fd[s], NULL, d->pipe[1], NULL,
		    size > POOL_PIPE_CHUNK ? size : POOL_PIPE_CHUNK,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n != -1 || (errno != EINVAL && errno != ENOSYS))
			return n;
		/* This socket cannot be spliced: copy from now on. */
		dir_release(c, d);
		d->splice = d->can_splice = false;
	}
copy:
#endif
	if (d->buf == NULL &&
	    (d->buf = pool_get(c->rl->pool, size)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	n = recv(c->fd[s], d->buf, size, 0);
	/*
	 * splice = "auto": small messages go through the buffer (fewer
	 * page moves, lower latency); a read that fills it means bulk
	 * data, which is cheaper spliced from the next read on.
	 */
	if (n == (ssize_t)size && d->can_splice)
		d->splice = true;
	/*
	 * A short recv(2) emptied the socket: the next byte comes with a
	 * new event.  (A short splice(2) may only mean a full pipe, so the
	 * splice path reads on until EAGAIN.)  If the FIN was in before the
	 * read, this was the end: no read for the 0.
	 */
	if (n > 0 && (size_t)n < size && !c->except[s]) {
		c->ready[s] &= ~EV_READ;
		if (c->fin[s])
			d->eof = true;
	}
	return n;
}

/*
 * Write what direction s holds to the other side, as send(2) would.  The
 * last bytes before a FIN are sent corked ("more"), so that the FIN that
 * follows at once leaves in the same segment.
 */
static ssize_t
dir_write(struct conn *c, int s)
{
	struct direction *d = &c->dir[s];

#ifdef HAVE_SPLICE
	if (d->pipe[0] != -1)
		return splice(d->pipe[0], NULL, c->fd[OTHER(s)], NULL,
		    d->len - d->off, SPLICE_F_MOVE | SPLICE_F_NONBLOCK |
		    (d->eof ? SPLICE_F_MORE : 0));
#endif
	return send(c->fd[OTHER(s)], d->buf + d->off, d->len - d->off,
	    MSG_NOSIGNAL | (d->eof ? MSG_MORE : 0));
}

/* One access_log line for a connection that ends with result. */
static void
relay_log_access(struct relay *rl, const struct rule *rule,
    const struct backend *backend, const struct sockaddr_any *peer,
    const char *result, uint64_t in, uint64_t out, int64_t started)
{
	struct accesslog_entry e;

	if (!accesslog_enabled())
		return;
	memset(&e, 0, sizeof(e));
	e.client = (const struct sockaddr *)&peer->ss;
	e.rule = rule;
	e.backend = backend != NULL ? (const void *)&backend->addr.ss : NULL;
	e.bytes_in = in;
	e.bytes_out = out;
	e.result = result;
	e.start_ms = started;
	e.end_ms = event_now(rl->loop);
	accesslog_write(&e);
}

/*
 * Close both sides and free c; result is the access log's word for how it
 * ended, why the detail for the debug log.  With reset_side >= 0 that side
 * is closed with a reset (because its peer reset, or the connect failed).
 */
static void
conn_close(struct conn *c, int reset_side, const char *result,
    const char *why)
{
	struct relay *rl = c->rl;
	char           client[ADDR_STRLEN];
	int            s;
	int64_t        ms = event_now(rl->loop) - c->started;

	log_debug("%s -> %s: connection from %s closed (%s): "
	    "%llu bytes in, %llu bytes out, %lld.%03lld s",
	    c->rule->listen, c->rule->connect,
	    addr_format((struct sockaddr *)&c->peer.ss, client, sizeof(client)),
	    why, (unsigned long long)c->dir[CLIENT].bytes,
	    (unsigned long long)c->dir[BACKEND].bytes,
	    (long long)(ms / 1000), (long long)(ms % 1000));
	relay_log_access(rl, c->rule, c->backend, &c->peer, result,
	    c->dir[CLIENT].bytes,
	    c->dir[BACKEND].bytes, c->started);
	for (s = CLIENT; s <= BACKEND; s++) {
		dir_release(c, &c->dir[s]);
		if (c->fd[s] == -1)
			continue;
		event_close(rl->loop, c->fd[s]);
		if (s == reset_side)
			sock_abort_on_close(c->fd[s], true);
		close(c->fd[s]);
	}
	event_timer_cancel(rl->loop, &c->timer);
	TAILQ_REMOVE(&rl->conns, c, link);
	rl->nconns--;
	pool_put(rl->pool, c, sizeof(*c));
}

/* The peer of side failed with err: pass the reset on and close. */
static void
conn_abort(struct conn *c, int failed_side, int err)
{
	char why[128];

	snprintf(why, sizeof(why), "%s: %s", side_name[failed_side],
	    strerror(err));
	conn_close(c, OTHER(failed_side), ACCESSLOG_RESET, why);
}

/*
 * The masks say what each socket waits for now.  With epoll the sockets
 * are edge-triggered and this costs nothing; poll(2) watches the masks.
 */
static void
conn_update(struct conn *c)
{
	struct direction *d;
	int               s, mask;

	for (s = CLIENT; s <= BACKEND; s++) {
		d = &c->dir[s];
		mask = EV_EDGE | (!d->eof && !pending(d) ? EV_READ : 0) |
		    (pending(&c->dir[OTHER(s)]) ||
		    (s == BACKEND && c->connecting) ? EV_WRITE : 0);
		if (event_mask(c->rl->loop, c->fd[s], mask) == -1)
			log_err("cannot watch %s socket: %s", side_name[s],
			    strerror(errno));
	}
}

/*
 * Interrupted: the socket is still ready, and no new event will say so,
 * so try again in the next round.  Returns 0 (nothing moved).
 */
static int
conn_retry(struct conn *c)
{
	event_defer(c->rl->loop, c->fd[CLIENT]);
	return 0;
}

/* May direction s write (bytes or its FIN) now? */
static bool
can_write(const struct conn *c, int s)
{
	return (c->ready[OTHER(s)] & EV_WRITE) &&
	    !(OTHER(s) == BACKEND && c->connecting);
}

/*
 * Write what direction s holds to the other side, then its FIN if it has
 * one.  Returns 1 if that moved anything, 0 if the receiver is full, -1
 * if the connection was closed.  A short send means the socket buffer is
 * full: another would only return EAGAIN.
 */
static int
dir_flush(struct conn *c, int s)
{
	struct direction *d = &c->dir[s];
	ssize_t           n;

	if (pending(d)) {
		n = dir_write(c, s);
		if (n == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				c->ready[OTHER(s)] &= ~EV_WRITE;
				return 0;
			}
			if (errno == EINTR)
				return conn_retry(c);
			conn_abort(c, OTHER(s), errno);
			return -1;
		}
		d->off += n;
		c->last_active = event_now(c->rl->loop);
		if (pending(d)) {
			c->ready[OTHER(s)] &= ~EV_WRITE;
			return 1;
		}
	}
	dir_release(c, d);
	if (d->eof && !d->shut) {
		/*
		 * Everything read is written: pass the FIN on, an orderly one
		 * (until now a close would reset: the socket was abandoned).
		 * The last FIN of the two is sent by close(2): both sockets
		 * were read to their end, so closing them sends no reset.
		 */
		sock_abort_on_close(c->fd[OTHER(s)], false);
		if (c->dir[OTHER(s)].shut) {
			conn_close(c, -1, ACCESSLOG_DONE, "done");
			return -1;
		}
		if (shutdown(c->fd[OTHER(s)], SHUT_WR) == -1 &&
		    errno != ENOTCONN) {
			conn_abort(c, OTHER(s), errno);
			return -1;
		}
		d->shut = true;
	}
	return 1;
}

/*
 * Read once from side s.  Returns 1 if that read bytes or the FIN, 0 if
 * there was nothing, -1 if the connection was closed.
 */
static int
dir_pump(struct conn *c, int s)
{
	struct direction *d = &c->dir[s];
	ssize_t           n;

	n = dir_read(c, s);
	if (n > 0) {
		d->off = 0;
		d->len = n;
		d->bytes += n;
		c->last_active = event_now(c->rl->loop);
		return 1;
	}
	if (n == 0) {
		d->eof = true;
		dir_release(c, d);
		return 1;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		c->ready[s] &= ~EV_READ;
		dir_release(c, d);
		return 0;
	}
	if (errno == EINTR) {
		dir_release(c, d);
		return conn_retry(c);
	}
	conn_abort(c, s, errno);
	return -1;
}

/*
 * Move direction s on by what its sockets allow: read if it holds
 * nothing, then write out what it holds.  Returns 1 if anything moved, 0
 * if not, -1 if the connection was closed.
 */
static int
dir_step(struct conn *c, int s)
{
	struct direction *d = &c->dir[s];
	int               moved = 0;

	if (!pending(d) && !d->eof && (c->ready[s] & EV_READ)) {
		if ((moved = dir_pump(c, s)) != 1)
			return moved;
	}
	if ((pending(d) || (d->eof && !d->shut)) && can_write(c, s)) {
		if (dir_flush(c, s) == -1)
			return -1;
		moved = 1;
	}
	return moved;
}

/*
 * Move bytes both ways while the sockets allow it.  A busy connection
 * stops after RUN_ROUNDS and asks to be called again after the others.
 */
static void
conn_run(struct conn *c)
{
	int round, s, r, moved;

	for (round = 0; round < RUN_ROUNDS; round++) {
		moved = 0;
		for (s = CLIENT; s <= BACKEND; s++) {
			if ((r = dir_step(c, s)) == -1)
				return;
			moved |= r;
		}
		if (!moved)
			break;
	}
	if (round == RUN_ROUNDS)
		event_defer(c->rl->loop, c->fd[CLIENT]);
	conn_update(c);
}

/* The backend could not be reached: say why, and reset the client. */
static void
conn_fail(struct conn *c, const char *result, const char *reason)
{
	static struct log_limit	 limit;
	const struct upstream	*u = &c->rule->upstream;
	char			 backend[ADDR_STRLEN], client[ADDR_STRLEN];

	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: cannot connect to %s "
	    "for client %s: %s%s", c->rule->listen, u->nbackends > 1 ?
	    c->rule->connect : addr_format((struct sockaddr *)
	    &c->backend->addr.ss, backend, sizeof(backend)),
	    addr_format((struct sockaddr *)&c->peer.ss, client,
	    sizeof(client)), reason,
	    u->nbackends > 1 ? " (every address tried)" : "");
	conn_close(c, CLIENT, result, reason);
}

/*
 * The backend socket reported events while connecting: the connect
 * finished.  Only an error or hangup needs SO_ERROR to tell why; a socket
 * reports nothing else before it is connected.  Returns -1 if it failed
 * (the connection is closed).
 */
static int
conn_connected(struct conn *c, int events)
{
	int       err = 0;
	socklen_t len = sizeof(err);

	if ((events & EV_EXCEPT) && getsockopt(c->fd[BACKEND], SOL_SOCKET,
	    SO_ERROR, &err, &len) == -1)
		err = errno;
	if (err != 0) {
		conn_next_backend(c, err);
		return -1;
	}
	c->connecting = false;
	c->last_active = event_now(c->rl->loop);
	/* From now on the timer is the idle timeout's, re-armed lazily. */
	if (c->rule->idle_timeout > 0)
		(void)event_timer_arm(c->rl->loop, &c->timer,
		    c->last_active + c->rule->idle_timeout);
	else
		event_timer_cancel(c->rl->loop, &c->timer);
	return 0;
}

static void
conn_io(struct event_loop *loop, int fd, int events, void *data)
{
	struct conn *c = data;
	int          s = fd == c->fd[CLIENT] ? CLIENT : BACKEND, err;

	(void)loop;
	c->ready[s] |= events & (EV_READ | EV_WRITE);
	if (events & EV_URGENT)
		sock_discard_urgent(fd);
	/*
	 * A reset or error: act on it now, for a read may not come soon (a
	 * client that sent its request and reset while the backend
	 * connects has its bytes waiting in our buffer and is not read
	 * again).  A connecting backend's error is conn_connected()'s.
	 */
	if ((events & EV_ERROR) && !(s == BACKEND && c->connecting) &&
	    (err = sock_error(fd)) != 0) {
		conn_abort(c, s, err);
		return;
	}
	if (events & EV_EXCEPT)
		c->except[s] = true;
	else if (events & EV_RDHUP)
		c->fin[s] = true;
	if (c->connecting && s == BACKEND && events != 0 &&
	    conn_connected(c, events) == -1)
		return;
	conn_run(c);
}

void
relay_refuse(struct relay *rl, int client_fd, const struct rule *rule,
    const struct sockaddr_any *peer, const char *result)
{
	char    client[ADDR_STRLEN];
	int64_t now = event_now(rl->loop);

	close(client_fd);
	rl->refused++;
	/* rinetd names the rule's backend on these lines too. */
	relay_log_access(rl, rule, &rule->upstream.backends[0], peer, result,
	    0, 0, now);
	log_debug("%s: %s client %s (%llu refused by this worker so far)",
	    rule->listen, result,
	    addr_format((const struct sockaddr *)&peer->ss, client,
	    sizeof(client)), (unsigned long long)rl->refused);
}

/* Whether err says descriptors or memory ran out (for now). */
static bool
relay_shortage(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOBUFS ||
	    err == ENOMEM;
}

/* Close c for want of a resource; -1 with errno kept, for the caller. */
static int
relay_shortage_close(struct conn *c, const char *why)
{
	int err = errno;

	conn_close(c, CLIENT, ACCESSLOG_CONNECT_FAILED, why);
	errno = err;
	return -1;
}

/*
 * Open a socket to c->backend and start connecting.  Returns 0 when the
 * connect is under way, 1 when this backend failed at once (errno says
 * why; no socket is left open: try the next), -1 with errno when the
 * connection was closed for want of descriptors or memory.
 */
static int
backend_connect(struct conn *c)
{
	const struct rule         *rule = c->rule;
	const struct backend      *b = c->backend;
	const struct sockaddr_any *to = &b->addr;
	struct relay             *rl = c->rl;
	int                        fd, err;

	fd = sock_stream(to->ss.ss_family);
	if (fd == -1) {
		/*
		 * Out of descriptors: the caller must know.  Anything else
		 * (an IPv6 address where IPv6 is off) is this address's
		 * failure: on to the next.
		 */
		if (relay_shortage(errno))
			return relay_shortage_close(c, "no socket");
		return 1;
	}
	sock_nodelay(fd);
	/* Reset, not FIN, if this side is abandoned (see dir_flush). */
	sock_abort_on_close(fd, true);
	sock_buffers(fd, rule->sndbuf, rule->rcvbuf);
	if ((b->has_source && sock_bind_source(fd, &b->source) == -1) ||
	    (connect(fd, (const struct sockaddr *)&to->ss, to->len) == -1 &&
	    errno != EINPROGRESS)) {
		/* Refused at once (e.g. no route). */
		err = errno;
		close(fd);
		errno = err;
		return 1;
	}
	c->fd[BACKEND] = fd;
	if (event_set(rl->loop, fd, EV_EDGE | EV_READ | EV_WRITE, conn_io,
	    c) == -1) {
		log_err("cannot watch backend socket: %s", strerror(errno));
		return relay_shortage_close(c, "event loop full");
	}
	return 0;
}

/*
 * Connect to the upstream's backends from c->attempt on, while
 * connect_timeout lasts: the first that does not fail at once is waited
 * for.  err: why the one before failed.  Returns 0 while connecting or
 * once the client was told that no backend answered; -1 with errno if
 * the connection was closed for want of descriptors or memory.
 */
static int
conn_connect(struct conn *c, int err)
{
	const struct upstream	*u = &c->rule->upstream;
	int64_t			 deadline = c->started + c->rule->connect_timeout;

	for (; c->attempt < u->nbackends; c->attempt++) {
		if (c->attempt > 0 && event_now(c->rl->loop) >= deadline)
			break;
		c->backend = &u->backends[c->attempt];
		switch (backend_connect(c)) {
		case 0:
			return 0;
		case -1:
			return -1;
		}
		err = errno;
	}
	conn_fail(c, ACCESSLOG_CONNECT_FAILED, strerror(err));
	return 0;
}

/* The connect to c->backend failed with err: on to the next backend. */
static void
conn_next_backend(struct conn *c, int err)
{
	event_close(c->rl->loop, c->fd[BACKEND]);
	close(c->fd[BACKEND]);
	c->fd[BACKEND] = -1;
	c->ready[BACKEND] = 0;
	c->fin[BACKEND] = c->except[BACKEND] = false;
	c->attempt++;
	(void)conn_connect(c, err);
}

/*
 * The connection's timer: while connecting, connect_timeout ran out;
 * afterwards the idle timeout may have, unless bytes moved since it was
 * armed (the pump only notes the time of the last one: the timer is not
 * moved per read), in which case it is armed again for the new end.
 */
static void
conn_on_timer(struct event_timer *t, void *data)
{
	struct conn *c = data;
	int64_t      due;
	char         why[64];

	if (c->connecting) {
		snprintf(why, sizeof(why), "timed out after %d ms",
		    c->rule->connect_timeout);
		conn_fail(c, ACCESSLOG_TIMEOUT, why);
		return;
	}
	due = c->last_active + c->rule->idle_timeout;
	if (due > event_now(c->rl->loop) &&
	    event_timer_arm(c->rl->loop, t, due) == 0)
		return;
	conn_close(c, -1, ACCESSLOG_IDLE_TIMEOUT, "idle timeout");
}

int
relay_start(struct relay *rl, int client_fd, const struct rule *rule,
    const struct sockaddr_any *peer)
{
	static struct log_limit	 denied_limit;
	struct conn		*c;
	char			 client[ADDR_STRLEN];
	int			 s;

	if (!acl_permits(&rl->cfg->acl, &rule->acl,
	    (const struct sockaddr *)&peer->ss)) {
		log_limited_at(&denied_limit, LOG_LEVEL_INFO, "%s: client %s "
		    "denied by allow/deny rules", rule->listen,
		    addr_format((const struct sockaddr *)&peer->ss, client,
		    sizeof(client)));
		relay_refuse(rl, client_fd, rule, peer, ACCESSLOG_DENIED);
		return 0;
	}
	/* From the pool: no malloc per connection in steady state. */
	c = pool_get(rl->pool, sizeof(*c));
	if (c == NULL) {
		close(client_fd);
		errno = ENOMEM;
		return -1;
	}
	memset(c, 0, sizeof(*c));
	c->rl = rl;
	c->rule = rule;
	c->backend = &rule->upstream.backends[0];
	c->peer = *peer;
	c->fd[CLIENT] = client_fd;
	c->fd[BACKEND] = -1;
	for (s = CLIENT; s <= BACKEND; s++) {
		c->dir[s].pipe[0] = c->dir[s].pipe[1] = -1;
#ifdef HAVE_SPLICE
		c->dir[s].can_splice = rule->splice != SPLICE_OFF;
		c->dir[s].splice = rule->splice == SPLICE_ON;
#endif
	}
	c->started = c->last_active = event_now(rl->loop);
	c->connecting = true;
	c->ready[CLIENT] = EV_WRITE;	/* accepted: it can take bytes */
	TAILQ_INSERT_TAIL(&rl->conns, c, link);
	rl->nconns++;
	/* Read early: the request waits in the buffer for the connect. */
	if (event_set(rl->loop, client_fd, EV_EDGE | EV_READ, conn_io, c) == -1)
		return relay_shortage_close(c, "event loop full");
#ifndef __linux__
	/* Linux copies these from the listening socket; others may not. */
	sock_nodelay(client_fd);
	sock_abort_on_close(client_fd, true);
#endif
	event_timer_init(&c->timer, conn_on_timer, c);
	if (event_timer_arm(rl->loop, &c->timer, c->started +
	    rule->connect_timeout) == -1)
		return relay_shortage_close(c, "out of memory");
	return conn_connect(c, 0);
}

struct relay *
relay_new(struct event_loop *loop, struct pool *pool, const struct conf *cfg)
{
	struct relay *rl = calloc(1, sizeof(*rl));

	if (rl == NULL)
		return NULL;
	rl->loop = loop;
	rl->pool = pool;
	rl->cfg = cfg;
	TAILQ_INIT(&rl->conns);
	return rl;
}

int
relay_count(const struct relay *rl)
{
	return rl->nconns;
}

void
relay_close_all(struct relay *rl, const char *reason)
{
	while (!TAILQ_EMPTY(&rl->conns))
		conn_close(TAILQ_FIRST(&rl->conns), -1, ACCESSLOG_SHUTDOWN,
		    reason);
}
