/*
 * master_follow.c - where a UDP session goes between workers
 * (master_follow.h): the new home of an old worker's at a reload, and
 * asks for a moved QUIC client's session and their answers, passed
 * between the workers of a generation.
 *
 * An answer goes to the worker that asked: the one of the holder's
 * generation, in the slot and with the pid the master wrote in the ask,
 * so that a worker respawned in that slot, whose ids start anew, gets no
 * answer meant for the one before it.  An old generation's worker
 * still takes its answer until it is told to drain: it hands the
 * session over with the others then.  A session that the asker cannot
 * take (it drains, died, or its channel stays full) is not dropped: the
 * holder freed it already.  It goes where the kernel steers its
 * client's datagrams now, as a reload passes an old worker's sessions
 * (the holder's generation replaced meanwhile: to the new one), and an
 * asker still there hears that the datagram it asked with went on
 * (UDP_FOLLOW_MOVED_ON).
 */
#include "ferryd.h"

#include <string.h>
#include <sys/types.h>

#include "ipc.h"
#include "listen.h"
#include "log.h"
#include "master_child.h"
#include "master_follow.h"
#include "master_state.h"
#include "udp_follow.h"
#include "udp_handover.h"

#define ANSWER_PASS_MS	200	/* an asker's channel full that long */
#define SESSION_PASS_MS	2000	/* ... a home's, for a session */

struct child *
master_worker_of(struct master *m, int slot)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == m->gen && c->slot == slot && c->chan != -1)
			return c;
	return NULL;
}

struct child *
master_new_home(struct master *m, const struct child *from, uint32_t *rule,
    unsigned port, int *slot)
{
	*slot = -1;
	if (m->stopping || from->gen + 1 != m->gen ||
	    *rule >= m->reload.udp_nmap || m->reload.udp_map[*rule] == -1)
		return NULL;
	*rule = (uint32_t)m->reload.udp_map[*rule];
	if ((*slot = listen_slot_of_port(m->ls, port, m->skip)) == -1)
		*slot = from->slot % m->cfg->workers;
	return master_worker_of(m, *slot);
}

void
master_follow_ask(struct master *m, const struct child *from,
    struct ipc_msg *msg)
{
	struct udp_follow_ask	 q;
	struct child		*to = NULL;

	if (msg->len < sizeof(q))
		return;
	memcpy(&q, msg->data, sizeof(q));
	q.asker = from->slot;
	q.asker_pid = (int32_t)from->pid;
	memcpy(msg->data, &q, sizeof(q));
	if (from->gen == m->gen && !m->stopping && q.holder != from->slot)
		to = master_worker_of(m, q.holder);
	if (to == NULL || ipc_send(to->chan, IPC_UDP_FOLLOW, msg->data,
	    msg->len, NULL, 0) == -1)
		(void)ipc_send(from->chan, IPC_UDP_FOLLOWED, &q, sizeof(q),
		    NULL, 0);
}

/* The worker that asked q, of generation gen, if it is still running. */
static struct child *
asker_of(struct master *m, unsigned gen, const struct udp_follow_ask *q)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == gen && c->slot == q->asker &&
		    c->pid == (pid_t)q->asker_pid && c->chan != -1)
			return c;
	return NULL;
}

/*
 * Where h, handed over by from, goes now: the worker that its client's
 * datagrams go to (a new generation's, if from's was replaced).  NULL,
 * with *slot, when there is none; *slot -1 when the session has no home.
 */
static struct child *
session_home(struct master *m, const struct child *from,
    struct udp_handover *h, int *slot)
{
	if (from->gen != m->gen)
		return master_new_home(m, from, &h->rule,
		    udp_handover_port(h), slot);
	*slot = m->stopping || m->ls == NULL ? -1 :
	    listen_slot_of_port(m->ls, udp_handover_port(h), m->skip);
	return *slot == -1 ? NULL : master_worker_of(m, *slot);
}

/*
 * The session answered with (msg, after q) to its client's home now,
 * unless that is full, the asker whose channel stayed full.
 */
static void
pass_to_home(struct master *m, const struct child *from,
    const struct ipc_msg *msg, const struct child *full)
{
	struct udp_handover	 h;
	struct child		*c;
	int			 slot;

	if (!udp_handover_read(&h, (const char *)msg->data +
	    sizeof(struct udp_follow_ask), msg->len -
	    sizeof(struct udp_follow_ask)))
		return;
	c = session_home(m, from, &h, &slot);
	if (slot != -1 && (c == NULL || c == full || ipc_send_wait(c->chan,
	    IPC_UDP_SESSION, &h, sizeof(h), msg->fds, 1,
	    SESSION_PASS_MS) == -1))
		log_warn("cannot pass a followed UDP session to worker %d: %s",
		    slot, c == NULL ? "not running" : c == full ?
		    "its channel is full" : strerror(errno));
}

void
master_follow_answer(struct master *m, const struct child *from,
    struct ipc_msg *msg)
{
	struct udp_follow_ask	 q;
	struct child		*to;
	bool			 takes;

	if (msg->len < sizeof(q) || msg->nfds > 1)
		return;
	memcpy(&q, msg->data, sizeof(q));
	if (q.holder != from->slot)
		return;		/* only the worker asked answers */
	to = asker_of(m, from->gen, &q);
	/* A draining worker handed its sessions over: none more. */
	takes = to != NULL && (msg->nfds == 0 || to->state != CHILD_DRAINING);
	if (takes && ipc_send_wait(to->chan, IPC_UDP_FOLLOWED, msg->data,
	    msg->len, msg->fds, msg->nfds, ANSWER_PASS_MS) == 0)
		return;
	if (msg->nfds == 0)
		return;		/* a refusal not passed: the asker times out */
	pass_to_home(m, from, msg, takes ? to : NULL);
	q.holder = UDP_FOLLOW_MOVED_ON;
	if (to != NULL)
		(void)ipc_send(to->chan, IPC_UDP_FOLLOWED, &q, sizeof(q),
		    NULL, 0);
}
