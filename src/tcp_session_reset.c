/*
 * tcp_session_reset.c - a session's ends after a reset: the side that
 * reset is closed, and the other is reset once its socket has sent what
 * came before the reset (TCP_DRAINING); a client that resets while its
 * backend connects, after sending bytes, has them delivered if the
 * connect completes soon enough (an orphan).  See doc/design-notes.md,
 * "A session's end".
 */
#include "ferryd.h"

#include <limits.h>

#include "bug.h"
#include "event.h"
#include "rule.h"
#include "stats.h"
#include "tcp_relay.h"

#include "tcp_session_int.h"

/*
 * A client that reset while its backend connects, after sending bytes:
 * how long the connect may still take to deliver them (the first SYN's
 * retransmission time: a backend that has not answered by then lost it
 * or is not there).  A client that does not reset holds its slot for the
 * whole connect_timeout; one that does, for no longer than this.
 */
#define ORPHAN_CONNECT_MS	1000
/*
 * A side reset: the other's socket is reset once it has sent what was
 * written to it before (TCP_DRAINING).  Nothing signals an emptied send
 * queue, so it is looked at, first after DRAIN_FIRST_MS, then twice as
 * late each time up to DRAIN_PAUSE_MAX_MS; a peer that takes nothing for
 * DRAIN_STALL_MS (or idle_timeout, if shorter) is reset all the same.
 */
#define DRAIN_FIRST_MS		5
#define DRAIN_PAUSE_MAX_MS	200
#define DRAIN_STALL_MS		10000

/*
 * TCP_DRAINING: look again after the pause, or, if the peer has taken
 * nothing for too long, or nothing is left to send, pass the reset on.
 */
void
session_drain_look(struct tcp_session *ss)
{
	struct event_loop	*loop = ss->owner->env.loop;
	struct tcp_relay	*r = &ss->relay;
	int			 live = TCP_OTHER(r->failed_side);
	int			 unsent = tcp_relay_unsent(r, live);
	int64_t			 now = event_now(loop), stall = DRAIN_STALL_MS;

	if (ss->rule->idle_timeout > 0 && ss->rule->idle_timeout < stall)
		stall = ss->rule->idle_timeout;
	if (unsent > 0 && unsent < ss->drain_unsent)
		ss->drain_moved = now;
	ss->drain_unsent = unsent;
	if (unsent > 0 && now - ss->drain_moved < stall &&
	    event_timer_arm(loop, &ss->timer, now + ss->drain_pause) == 0) {
		ss->drain_pause = ss->drain_pause * 2 < DRAIN_PAUSE_MAX_MS ?
		    ss->drain_pause * 2 : DRAIN_PAUSE_MAX_MS;
		return;
	}
	if (unsent > 0)
		stats_rule(ss->rule)->reset_drains_cut++;
	session_abort(ss, r->failed_side, r->err);
}

/*
 * A side reset after all it sent was written to the other: close it,
 * and reset the other once its socket has sent those bytes (a reset
 * would drop them), the timer looking at what it holds.
 */
void
session_drain(struct tcp_session *ss)
{
	struct tcp_relay *r = &ss->relay;

	/* once, and never after the end */
	BUG_ON(ss->state == TCP_DRAINING || ss->state == TCP_CLOSING);
	tcp_relay_close_gone(&ss->owner->env, r);
	ss->state = TCP_DRAINING;
	ss->drain_unsent = INT_MAX;
	ss->drain_moved = event_now(ss->owner->env.loop);
	ss->drain_pause = DRAIN_FIRST_MS;
	session_drain_look(ss);
}

/*
 * The client reset while the backend connects, and what it sent waits
 * in the relay: the connect may go on, ORPHAN_CONNECT_MS at most, to
 * deliver it (the relay then reads the client's reset and passes it on).
 * A client that sent nothing was closed at once by the relay.
 */
void
session_orphan(struct tcp_session *ss)
{
	struct event_loop	*loop = ss->owner->env.loop;
	int64_t			 until = event_now(loop) + ORPHAN_CONNECT_MS;

	if (ss->orphan)
		return;
	/* Waiting in the queue, no connect under way: nothing to wait for. */
	if (ss->queued) {
		session_abort(ss, TCP_CLIENT, ECONNRESET);
		return;
	}
	ss->orphan = true;
	if (!event_timer_armed(&ss->timer) || ss->timer.due > until)
		(void)event_timer_arm(loop, &ss->timer, until);
}

