/*
 * tcp_relay.c - the byte pump of one TCP connection.
 *
 * A connection has two directions; dir[TCP_CLIENT] carries what the
 * client sends to the backend, dir[TCP_BACKEND] the reverse.  Each
 * direction reads into a pool buffer, or on Linux splices into a pool
 * pipe (zero copy), and writes it out at once; only what the receiver
 * cannot take yet stays in flight, and while it does, that direction stops
 * reading (backpressure).  An empty direction gives its buffer or pipe
 * back, so an idle connection holds neither.
 *
 * Each socket is registered once (EV_EDGE): the relay remembers what each
 * can do (ready[]) from the events and from EAGAIN, so that neither the
 * connect nor backpressure costs an epoll_ctl, and moves bytes while a
 * direction can (tcp_relay_run).  The syscalls are the transport's
 * (xprt.h).
 *
 * A side that resets is read to its end first: Linux keeps the bytes
 * that came before a reset readable ahead of it, and the relay writes
 * them to the other side before it passes the reset on (TCP_RELAY_RESET;
 * the session resets that side once its socket has sent them).  What was
 * on its way to the side that reset is dropped: nobody will read it.
 *
 * Invariants, asserted where they matter: a direction holds bytes in
 * flight (off < len) in exactly one of its buffer or its pipe; a
 * direction passed its FIN on (shut) only after its own FIN (eof) and
 * with nothing left in flight; nothing is written to a backend that is
 * still connecting; no byte a peek took is written before the budget
 * paid for it.
 */
#include "ferryd.h"

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bug.h"
#include "event.h"
#include "log.h"
#include "pool.h"
#include "rate.h"
#include "sock.h"
#include "tcp_relay.h"
#include "xprt.h"

/* Steps per run before a busy connection lets others run. */
#define RUN_ROUNDS 4

/*
 * splice = "auto" copies again after SPLICE_SMALL splices in a row of less
 * than 1/SPLICE_BACK of a buffer each.
 */
#define SPLICE_BACK  16
#define SPLICE_SMALL 4

/*
 * A preamble and the bytes a peek took: a PROXY header and at most
 * PROBE_PEEK_MAX (probe.h), with room to spare.
 */
#define BUFFER_GROW_MAX (64 * 1024)

/* What a step did. */
enum step { STEP_IDLE, STEP_MOVED, STEP_ENDED };

static bool
pending(const struct tcp_dir *d)
{
	return d->off < d->len;
}

static void
dir_check(const struct tcp_dir *d)
{
	BUG_ON(d->off > d->len);
	BUG_ON(pending(d) && (d->buf != NULL) == (d->pipe[0] != -1));
	BUG_ON(d->shut && (!d->eof || pending(d)));
	(void)d;
}

void
tcp_relay_init(struct tcp_relay *r, int client_fd, size_t bufsize,
    int splice, int64_t now)
{
	int s;

	memset(r, 0, sizeof(*r));
	r->fd[TCP_CLIENT] = client_fd;
	r->fd[TCP_BACKEND] = -1;
	r->bufsize = (uint32_t)bufsize;
	for (s = TCP_CLIENT; s <= TCP_BACKEND; s++) {
		r->dir[s].pipe[0] = r->dir[s].pipe[1] = -1;
#ifdef HAVE_SPLICE
		r->dir[s].can_splice = splice != SPLICE_OFF;
		r->dir[s].splice = splice == SPLICE_ON;
		r->dir[s].adaptive = splice == SPLICE_AUTO;
#else
		(void)splice;
#endif
	}
	r->ready[TCP_CLIENT] = EV_WRITE;	/* accepted: it can take bytes */
	r->failed_side = -1;
	r->last_active = now;
}

/* Give back the buffer or pipe; a pipe still holding bytes is closed. */
static void
dir_release(const struct tcp_relay_env *env, const struct tcp_relay *r,
    struct tcp_dir *d)
{
	if (d->buf != NULL)
		pool_put(env->pool, d->buf, r->bufsize);
	if (d->pipe[0] != -1) {
		if (pending(d))
			pool_drop_pipe(env->pool, d->pipe);
		else
			pool_put_pipe(env->pool, d->pipe);
	}
	d->buf = NULL;
	d->pipe[0] = d->pipe[1] = -1;
	d->off = d->len = 0;
}

int
tcp_relay_preamble(const struct tcp_relay_env *env, struct tcp_relay *r,
    const void *data, size_t len)
{
	struct tcp_dir *d = &r->dir[TCP_CLIENT];
	char           *buf;
	size_t          size;

	/* Nothing written yet: a preamble before, or the bytes taken after. */
	BUG_ON(d->off != 0 || d->bytes != 0 || d->pipe[0] != -1);
	if (d->len + len > BUFFER_GROW_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	/*
	 * A buffer_size smaller than the bytes a peek took: this relay's
	 * buffers are larger (the other direction holds none yet).
	 */
	size = d->len + len > r->bufsize ? d->len + len : r->bufsize;
	if (d->buf == NULL || size != r->bufsize) {
		if ((buf = pool_get(env->pool, size)) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		if (d->buf != NULL) {
			memcpy(buf, d->buf, d->len);
			pool_put(env->pool, d->buf, r->bufsize);
		}
		d->buf = buf;
		r->bufsize = (uint32_t)size;
	}
	memcpy(d->buf + d->len, data, len);
	d->len += (uint32_t)len;
	return 0;
}

void
tcp_relay_limit(struct tcp_relay *r, struct rate_budget *in,
    struct rate_budget *out)
{
	r->budget[TCP_CLIENT] = in;
	r->budget[TCP_BACKEND] = out;
}

void
tcp_relay_taken(struct tcp_relay *r, size_t len, bool drained)
{
	struct tcp_dir *d = &r->dir[TCP_CLIENT];

	d->bytes += len;
	if (r->budget[TCP_CLIENT] != NULL)
		r->unpaid = (uint32_t)len;
	/*
	 * As after a short read (dir_read): the next byte brings an event,
	 * unless the socket reported an error, which only a read says.
	 */
	if (drained && !r->except[TCP_CLIENT]) {
		r->ready[TCP_CLIENT] &= ~EV_READ;
		if (r->fin[TCP_CLIENT])
			d->eof = true;
	}
}

/*
 * Read what side s sent, want bytes at most (bufsize, or less where a
 * budget says so): into a pipe where this direction splices, else into
 * a buffer.  Returns what recv(2) would.
 */
static ssize_t
dir_read(const struct tcp_relay_env *env, struct tcp_relay *r, int s,
    size_t want)
{
	struct tcp_dir *d = &r->dir[s];
	size_t          size = r->bufsize;
	ssize_t         n;

	/*
	 * A splice stops at a TCP urgent mark until a recv(2) reads past
	 * it, dropping the urgent byte as rinetd does: copy once the socket
	 * reported one (EV_EXCEPT).
	 */
	if (d->splice && !r->except[s] && env->xprt->rcv_pipe != NULL) {
		if (d->pipe[0] == -1 &&
		    pool_get_pipe(env->pool, d->pipe, size) == -1) {
			/* Out of descriptors or pipe memory: copy instead. */
			d->splice = false;
			goto copy;
		}
		n = env->xprt->rcv_pipe(r->fd[s], d->pipe[1], want < size ?
		    want : size > POOL_PIPE_CHUNK ? size : POOL_PIPE_CHUNK);
		/*
		 * splice = "auto": SPLICE_SMALL splices in a row, each of less
		 * than 1/SPLICE_BACK of a buffer (or of what a rate limit let
		 * us ask), mean the bulk is over (a keep-alive connection
		 * back to small requests after a download): copy again from
		 * the next read on.  A small message costs two calls copied
		 * (a short recv(2) proves the socket empty) and three spliced
		 * (a short splice(2) does not).  One small splice is not
		 * enough: a paced bulk sender's tail would flip the direction
		 * to and fro.
		 */
		if (n > 0 && d->adaptive) {
			if ((size_t)n >= (want < size ? want : size) /
			    SPLICE_BACK)
				d->small = 0;
			else if (++d->small == SPLICE_SMALL) {
				d->small = 0;
				d->splice = false;
			}
		}
		if (n != -1 || (errno != EINVAL && errno != ENOSYS))
			return n;
		/* This socket cannot be spliced: copy from now on. */
		dir_release(env, r, d);
		d->splice = d->can_splice = false;
	}
copy:
	if (d->buf == NULL && (d->buf = pool_get(env->pool, size)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (want < size)
		size = want;
	n = env->xprt->rcv_buf(r->fd[s], d->buf, size);
	/*
	 * splice = "auto": small messages go through the buffer (fewer
	 * page moves, lower latency); a read that fills it means bulk
	 * data, which is cheaper spliced from the next read on.
	 */
	if (n == (ssize_t)size && d->can_splice) {
		d->splice = true;
		d->small = 0;
	}
	/*
	 * A short recv(2) emptied the socket: the next byte comes with a
	 * new event.  (A short splice(2) may only mean a full pipe, so the
	 * splice path reads on until EAGAIN.)  If the FIN was in before the
	 * read, this was the end: no read for the 0.
	 */
	if (n > 0 && (size_t)n < size && !r->except[s]) {
		r->ready[s] &= ~EV_READ;
		if (r->fin[s])
			d->eof = true;
	}
	return n;
}

/*
 * The first write to the backend, if no longer than this, leaves as one
 * segment on any path, so Nagle's algorithm cannot hold any of it back.
 * A longer one is cut at the MSS, and its last, small segment waits for
 * the ACK of the first: a delayed ACK (40 ms on Linux, up to 500 ms
 * elsewhere) if the backend has nothing to say before the whole request.
 * The connection's MSS is not known without a system call; the least a
 * host must accept is 536 (RFC 9293 3.7.1, the default when the peer
 * sends no MSS option), of which Linux gives 12 bytes to the timestamp
 * option (RFC 7323) on every segment: 524 bytes of data.  (512 used to
 * be the limit here, just below: a ClientHello as OpenSSL pads it, 517
 * bytes, set TCP_NODELAY on every TLS connection for nothing.)
 */
#define NAGLE_SMALL	(536 - 12)

/*
 * Before a write of len bytes to the backend: TCP_NODELAY, once Nagle's
 * algorithm could hold something back.  It delays only a small segment
 * while an earlier one is unacknowledged, so a first write of one
 * segment leaves at once either way: the option is set before a second
 * write, or a larger first one.  A connection whose request is one small
 * write (most short ones) saves the system call.
 */
static void
backend_nagle(struct tcp_relay *r, size_t len)
{
	if (r->nagle == NAGLE_UNWRITTEN && len <= NAGLE_SMALL) {
		r->nagle = NAGLE_WRITTEN;
		return;
	}
	sock_nodelay(r->fd[TCP_BACKEND]);
	r->nagle = NAGLE_OFF;
}

/*
 * Write what direction s holds to the other side, as send(2) would.  The
 * last bytes before a FIN are sent corked ("more"), so that the FIN that
 * follows at once leaves in the same segment.
 */
static ssize_t
dir_write(const struct tcp_relay_env *env, struct tcp_relay *r, int s,
    size_t len)
{
	struct tcp_dir *d = &r->dir[s];
	int             to = r->fd[TCP_OTHER(s)];
	bool            last = d->eof && len == d->len - d->off;

	BUG_ON(TCP_OTHER(s) == TCP_BACKEND && r->connecting);
	if (TCP_OTHER(s) == TCP_BACKEND && r->nagle != NAGLE_OFF)
		backend_nagle(r, len);
	if (d->pipe[0] != -1)
		return env->xprt->snd_pipe(d->pipe[0], to, len, last);
	return env->xprt->snd_buf(to, d->buf + d->off, len, last);
}

/* Side s's socket failed with err: the connection ends. */
static enum step
relay_fail(struct tcp_relay *r, int s, int err)
{
	r->failed_side = (int8_t)s;
	r->err = err;
	return STEP_ENDED;
}

/* Not the peer's doing: this host ran out of memory for the relay. */
static bool
local_failure(int err)
{
	return err == ENOMEM || err == ENOBUFS;
}

/*
 * Side s's peer reset (err), as a read said (ended) or a write: what
 * was on its way to s is dropped, and s is read to its end (the bytes
 * before the reset), which dir_flush then passes on as a reset.  With
 * both sides gone, or the backend not even connected, nothing is left
 * to deliver: the connection ends now.
 */
static enum step
relay_gone(const struct tcp_relay_env *env, struct tcp_relay *r, int s,
    int err, bool ended)
{
	struct tcp_dir *towards = &r->dir[TCP_OTHER(s)];

	if (r->gone[TCP_OTHER(s)] != 0 || local_failure(err))
		return relay_fail(r, s, err);
	r->gone[s] = err;
	r->except[s] = true;
	r->ready[s] |= EV_READ;
	dir_release(env, r, towards);
	towards->eof = towards->shut = true;
	if (TCP_OTHER(s) == TCP_CLIENT)
		r->unpaid = 0;
	/* The dropped direction waits for no budget any more. */
	if (r->waiting[TCP_OTHER(s)])
		rate_budget_waiting(r->budget[TCP_OTHER(s)], -1);
	r->waiting[TCP_OTHER(s)] = false;
	/*
	 * Side s's FIN was passed on already: all it sent is written, so
	 * nothing is left to read; the reset is passed on now.
	 */
	if (r->dir[s].shut) {
		r->reset_on = true;
		return relay_fail(r, s, err);
	}
	if (ended)
		r->dir[s].eof = true;
	return STEP_MOVED;
}

/*
 * Interrupted: the socket is still ready, and no new event will say so,
 * so try again in the next round of the loop.
 */
static enum step
relay_retry(const struct tcp_relay_env *env, struct tcp_relay *r)
{
	event_defer(env->loop, r->fd[TCP_CLIENT]);
	return STEP_IDLE;
}

/* May direction s write (bytes or its FIN) now? */
static bool
can_write(const struct tcp_relay *r, int s)
{
	return (r->ready[TCP_OTHER(s)] & EV_WRITE) &&
	    !(TCP_OTHER(s) == TCP_BACKEND && r->connecting);
}

/*
 * What direction s may move under its budget, want bytes at most; 0:
 * nothing until resume_at, which is set (the earliest of the two
 * directions').  The socket stays ready: the relay reads it when run
 * again.
 */
static size_t
relay_grant(const struct tcp_relay_env *env, struct tcp_relay *r, int s,
    size_t want)
{
	uint64_t n = rate_budget_grant(r->budget[s], want,
	    event_now_us(env->loop));
	int64_t  at;

	if (n > 0) {
		if (r->waiting[s])
			rate_budget_waiting(r->budget[s], -1);
		r->waiting[s] = false;
		return (size_t)n;
	}
	if (!r->waiting[s])
		rate_budget_waiting(r->budget[s], 1);
	r->waiting[s] = r->starved[s] = true;
	at = event_now(env->loop) + rate_budget_wait_ms(r->budget[s]);
	if (r->resume_at == 0 || at < r->resume_at)
		r->resume_at = at;
	return 0;
}

/*
 * The peeked bytes at the end of the client's direction are paid for
 * as they are written, as much at a time as a read may take, with what
 * comes before them (a PROXY header, free) in the same write.  Returns
 * what may be written now (0: nothing until resume_at).
 */
static size_t
relay_pay(const struct tcp_relay_env *env, struct tcp_relay *r)
{
	struct tcp_dir *d = &r->dir[TCP_CLIENT];
	size_t          n;

	BUG_ON(d->off + r->unpaid > d->len);
	n = relay_grant(env, r, TCP_CLIENT, r->unpaid < r->bufsize ?
	    r->unpaid : r->bufsize);
	rate_budget_spend(r->budget[TCP_CLIENT], n);
	r->unpaid -= (uint32_t)n;
	return d->len - r->unpaid - d->off;
}

/*
 * Write what direction s holds to the other side, then its FIN if it has
 * one.  A short send means the socket buffer is full: another would only
 * return EAGAIN.
 */
static enum step
dir_flush(const struct tcp_relay_env *env, struct tcp_relay *r, int s)
{
	struct tcp_dir *d = &r->dir[s];
	int             to = r->fd[TCP_OTHER(s)];
	size_t          len;
	ssize_t         n;

	if (pending(d)) {
		/* Peeked bytes the budget has not paid for wait for it. */
		if ((len = s == TCP_CLIENT && r->unpaid > 0 ?
		    relay_pay(env, r) : d->len - d->off) == 0)
			return STEP_IDLE;
		n = dir_write(env, r, s, len);
		if (n == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				r->ready[TCP_OTHER(s)] &= ~EV_WRITE;
				return STEP_IDLE;
			}
			if (errno == EINTR)
				return relay_retry(env, r);
			return relay_gone(env, r, TCP_OTHER(s), errno, false);
		}
		BUG_ON((size_t)n > len);	/* never more than offered */
		d->off += (uint32_t)n;
		r->last_active = event_now(env->loop);
		if ((size_t)n < len) {
			r->ready[TCP_OTHER(s)] &= ~EV_WRITE;
			return STEP_MOVED;
		}
		/* All that was paid for: the next part, in the next round. */
		if (pending(d))
			return STEP_MOVED;
	}
	dir_release(env, r, d);
	if (d->eof && !d->shut && r->gone[s] != 0) {
		/*
		 * Everything side s sent before its reset is written: pass
		 * the reset on (once the socket has sent it), or, to a
		 * backend still connecting, end here.
		 */
		r->reset_on = !(TCP_OTHER(s) == TCP_BACKEND && r->connecting);
		return relay_fail(r, s, r->gone[s]);
	}
	if (d->eof && !d->shut) {
		/*
		 * Everything read is written: pass the FIN on, an orderly one
		 * (until now a close would reset: the socket was abandoned).
		 * The last FIN of the two is sent by close(2): both sockets
		 * were read to their end, so closing them sends no reset, once
		 * the abort on close is off.  The first FIN is shutdown(2)'s,
		 * which the abort on close does not touch; the relay closes
		 * that socket only after reading its end too, when the kernel
		 * has moved it to TIME-WAIT and a close(2) sends nothing, so
		 * it keeps its abort on close (a system call per connection
		 * saved, and a worker killed in between still resets it).
		 */
		d->shut = true;
		if (r->dir[TCP_OTHER(s)].shut) {
			sock_abort_on_close(to, false);
			return STEP_ENDED;
		}
		if (shutdown(to, SHUT_WR) == -1 && errno != ENOTCONN)
			return relay_fail(r, TCP_OTHER(s), errno);
	}
	return STEP_MOVED;
}

/* Read once from side s, want bytes at most. */
static enum step
dir_pump(const struct tcp_relay_env *env, struct tcp_relay *r, int s,
    size_t want)
{
	struct tcp_dir *d = &r->dir[s];
	ssize_t         n;

	/* a read only into a direction that holds nothing */
	BUG_ON(pending(d));
	n = dir_read(env, r, s, want);
	if (n > 0) {
		if (r->budget[s] != NULL)
			rate_budget_spend(r->budget[s], (uint64_t)n);
		d->off = 0;
		d->len = (uint32_t)n;
		d->bytes += (uint64_t)n;
		r->last_active = event_now(env->loop);
		return STEP_MOVED;
	}
	if (n == 0) {
		d->eof = true;
		dir_release(env, r, d);
		/* The end of a side whose reset a write or connect took. */
		if (r->gone[s] != 0)
			return relay_gone(env, r, s, r->gone[s], true);
		return STEP_MOVED;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		r->ready[s] &= ~EV_READ;
		dir_release(env, r, d);
		return STEP_IDLE;
	}
	if (errno == EINTR) {
		dir_release(env, r, d);
		return relay_retry(env, r);
	}
	dir_release(env, r, d);
	return relay_gone(env, r, s, errno, true);
}

/*
 * Move direction s on by what its sockets allow: read if it holds
 * nothing, then write out what it holds.
 */
static enum step
dir_step(const struct tcp_relay_env *env, struct tcp_relay *r, int s)
{
	struct tcp_dir *d = &r->dir[s];
	enum step       step = STEP_IDLE;
	size_t          want = r->bufsize;

	if (!pending(d) && !d->eof && (r->ready[s] & EV_READ) &&
	    (r->budget[s] == NULL ||
	    (want = relay_grant(env, r, s, r->bufsize)) > 0)) {
		if ((step = dir_pump(env, r, s, want)) != STEP_MOVED)
			return step;
	}
	/* A reset after everything was written needs no room to pass on. */
	if ((pending(d) || (d->eof && !d->shut)) && (can_write(r, s) ||
	    (!pending(d) && r->gone[s] != 0)))
		step = dir_flush(env, r, s);
	dir_check(d);
	return step;
}

/* The client's direction holds only peeked bytes that wait for budget. */
static bool
owing(const struct tcp_relay *r)
{
	const struct tcp_dir *d = &r->dir[TCP_CLIENT];

	return r->starved[TCP_CLIENT] && r->unpaid > 0 &&
	    d->off + r->unpaid == d->len;
}

/*
 * The masks say what each socket waits for now.  With epoll the sockets
 * are edge-triggered and this costs nothing; poll(2) watches the masks.
 */
static void
relay_watch(const struct tcp_relay_env *env, struct tcp_relay *r)
{
	struct tcp_dir *d;
	int             s, mask;

	for (s = TCP_CLIENT; s <= TCP_BACKEND; s++) {
		if (r->fd[s] == -1)
			continue;
		d = &r->dir[s];
		/*
		 * A direction out of budget, to read or to write peeked
		 * bytes: poll(2) must not spin on it.
		 */
		mask = EV_EDGE | (!d->eof && !pending(d) && !r->starved[s] ?
		    EV_READ : 0) |
		    ((pending(&r->dir[TCP_OTHER(s)]) &&
		    !(s == TCP_BACKEND && owing(r))) ||
		    (s == TCP_BACKEND && r->connecting) ? EV_WRITE : 0);
		if (event_mask(env->loop, r->fd[s], mask) == -1)
			log_err("cannot watch %s socket: %s", s == TCP_CLIENT ?
			    "client" : "backend", strerror(errno));
	}
}

enum tcp_relay_status
tcp_relay_run(const struct tcp_relay_env *env, struct tcp_relay *r)
{
	int       round, s;
	bool      moved;
	enum step step;

	BUG_ON(r->fd[TCP_CLIENT] == -1 || r->failed_side != -1);
	r->resume_at = 0;
	r->starved[TCP_CLIENT] = r->starved[TCP_BACKEND] = false;
	for (round = 0; round < RUN_ROUNDS; round++) {
		moved = false;
		for (s = TCP_CLIENT; s <= TCP_BACKEND; s++) {
			if (r->fd[s] == -1 && s == TCP_BACKEND)
				continue;
			step = dir_step(env, r, s);
			if (step == STEP_ENDED)
				return r->failed_side == -1 ? TCP_RELAY_DONE :
				    r->reset_on ? TCP_RELAY_RESET :
				    TCP_RELAY_FAILED;
			moved |= step == STEP_MOVED;
		}
		if (!moved)
			break;
	}
	if (round == RUN_ROUNDS)
		event_defer(env->loop, r->fd[TCP_CLIENT]);
	relay_watch(env, r);
	return TCP_RELAY_OPEN;
}

void
tcp_relay_note(struct tcp_relay *r, int s, int events)
{
	r->ready[s] |= events & (EV_READ | EV_WRITE);
	if (events & EV_URGENT)
		sock_discard_urgent(r->fd[s]);
	/*
	 * An error (EV_ERROR comes with EV_EXCEPT) is left to the reads,
	 * which return the bytes before it first.  A connecting backend's
	 * error is the connect's to read.
	 */
	if (events & EV_EXCEPT)
		r->except[s] = true;
	else if (events & EV_RDHUP)
		r->fin[s] = true;
}

int
tcp_relay_unsent(const struct tcp_relay *r, int s)
{
	return r->fd[s] == -1 ? -1 : sock_unsent(r->fd[s]);
}

void
tcp_relay_attach_backend(struct tcp_relay *r, int fd, bool nagle_on)
{
	BUG_ON(r->fd[TCP_BACKEND] != -1);
	r->fd[TCP_BACKEND] = fd;
	r->nagle = nagle_on ? NAGLE_UNWRITTEN : NAGLE_OFF;
	r->connecting = true;
	r->ready[TCP_BACKEND] = 0;
	r->fin[TCP_BACKEND] = r->except[TCP_BACKEND] = false;
	r->gone[TCP_BACKEND] = 0;
}

void
tcp_relay_detach_backend(struct tcp_relay *r)
{
	BUG_ON(!r->connecting || r->dir[TCP_BACKEND].bytes != 0);
	r->fd[TCP_BACKEND] = -1;
	r->ready[TCP_BACKEND] = 0;
	r->fin[TCP_BACKEND] = r->except[TCP_BACKEND] = false;
}

void
tcp_relay_connected(struct tcp_relay *r, int64_t now, int reset)
{
	BUG_ON(r->fd[TCP_BACKEND] == -1);
	r->connecting = false;
	r->last_active = now;
	if (reset != 0) {
		r->gone[TCP_BACKEND] = reset;
		r->except[TCP_BACKEND] = true;
		r->ready[TCP_BACKEND] |= EV_READ;
	}
}

void
tcp_relay_close_gone(const struct tcp_relay_env *env, struct tcp_relay *r)
{
	int s = r->failed_side;

	BUG_ON(s == -1 || !r->reset_on);
	dir_release(env, r, &r->dir[TCP_CLIENT]);
	dir_release(env, r, &r->dir[TCP_BACKEND]);
	event_close(env->loop, r->fd[s]);
	close(r->fd[s]);
	r->fd[s] = -1;
	/* The other waits unwatched: its reads would only be dropped. */
	(void)event_mask(env->loop, r->fd[TCP_OTHER(s)], 0);
}

void
tcp_relay_close(const struct tcp_relay_env *env, struct tcp_relay *r,
    int reset_side)
{
	int s;

	for (s = TCP_CLIENT; s <= TCP_BACKEND; s++) {
		dir_release(env, r, &r->dir[s]);
		if (r->waiting[s])
			rate_budget_waiting(r->budget[s], -1);
		r->waiting[s] = false;
		if (r->fd[s] == -1)
			continue;
		event_close(env->loop, r->fd[s]);
		if (s == reset_side)
			sock_abort_on_close(r->fd[s], true);
		close(r->fd[s]);
		r->fd[s] = -1;
	}
}
