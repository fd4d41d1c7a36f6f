/*
 * worker_sessions.c - a worker's answer to "show sessions".  The master
 * asks (IPC_SESSIONS, master_sessions.c); the worker copies what the
 * lines show of its connections and UDP sessions at once (no text, no
 * system call: a copy per session, at most the limit asked), then
 * writes the lines a part at a time (IPC_SESSIONS_PART, at most
 * IPC_SESSIONS_TEXT bytes), one part per turn of its loop while the
 * channel has room.  So a long answer never holds its connections up
 * for more than a part's worth of formatting, and a full channel is
 * waited for by the loop, never by the worker.  A copy, not a walk over
 * several turns: sessions that end meanwhile are never read.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "addr.h"
#include "event.h"
#include "ipc.h"
#include "log.h"
#include "route.h"
#include "rule.h"
#include "session_list.h"
#include "tcp_session.h"
#include "udp_session.h"
#include "udp_table.h"
#include "upstream.h"
#include "worker_sessions.h"

/*
 * Answers in hand at once, at most: the master asks once per control
 * client at a time (16), and drops an answer late by its deadline.
 */
#define ANSWERS_MAX	32
/* A line, at most (a longer one is cut). */
#define LINE_MAX_LEN	1024

struct answer {
	TAILQ_ENTRY(answer)	 link;
	uint32_t		 id;
	struct session_list	 list;
	bool			*want;		/* per rule; NULL: every one */
	size_t			 next;		/* the first entry not sent */
	int64_t			 now;		/* when the copy was taken */
};

struct worker_sessions {
	struct event_loop		*loop;
	const struct rule		*rules;	/* the config's */
	size_t				 nrules;
	unsigned			 gen;
	int				 slot;
	const struct tcp_sessions	*ts;
	const struct udp_sessions	*us;
	TAILQ_HEAD(, answer)		 answers;
	int				 nanswers;
	char				*part;		/* a part's bytes */
};

struct worker_sessions *
worker_sessions_new(struct event_loop *loop, const struct rule *rules,
    size_t nrules, unsigned gen, int slot, const struct tcp_sessions *ts,
    const struct udp_sessions *us)
{
	struct worker_sessions *ws = calloc(1, sizeof(*ws));

	if (ws == NULL)
		return NULL;
	ws->loop = loop;
	ws->rules = rules;
	ws->nrules = nrules;
	ws->gen = gen;
	ws->slot = slot;
	ws->ts = ts;
	ws->us = us;
	TAILQ_INIT(&ws->answers);
	return ws;
}

static void
answer_free(struct worker_sessions *ws, struct answer *a)
{
	TAILQ_REMOVE(&ws->answers, a, link);
	ws->nanswers--;
	free(a->list.e);
	free(a->want);
	free(a);
}

void
worker_sessions_drop(struct worker_sessions *ws)
{
	if (ws == NULL)
		return;
	while (!TAILQ_EMPTY(&ws->answers))
		answer_free(ws, TAILQ_FIRST(&ws->answers));
}

/*
 * The rules named name (a port range is a rule per port, all of one
 * name) in a's want; false when none is.
 */
static bool
answer_want(struct worker_sessions *ws, struct answer *a, const char *name,
    size_t len)
{
	const struct rule	*r;
	size_t			 i;
	bool			 any = false;

	if ((a->want = calloc(ws->nrules, sizeof(*a->want))) == NULL)
		return false;
	for (i = 0; i < ws->nrules; i++) {
		r = &ws->rules[i];
		a->want[i] = strlen(rule_log_name(r)) == len &&
		    memcmp(rule_log_name(r), name, len) == 0;
		any |= a->want[i];
	}
	a->list.want = a->want;
	return any;
}

/* The copy: at most limit sessions, the rest counted. */
static int
answer_take(struct worker_sessions *ws, struct answer *a, size_t limit)
{
	size_t	open = (size_t)tcp_sessions_count(ws->ts) +
		    (size_t)udp_sessions_count(ws->us);

	a->list.rules = ws->rules;
	a->list.nrules = ws->nrules;
	a->list.max = limit < open ? limit : open;
	if (a->list.max > 0 && (a->list.e = calloc(a->list.max,
	    sizeof(*a->list.e))) == NULL)
		return -1;
	a->now = event_now(ws->loop);
	tcp_sessions_list(ws->ts, &a->list);
	udp_sessions_list(ws->us, &a->list);
	return 0;
}

void
worker_sessions_ask(struct worker_sessions *ws, int chan,
    const struct ipc_msg *msg)
{
	static struct log_limit	 limit;
	struct ipc_sessions_ask	 q;
	struct answer		*a;
	size_t			 namelen;

	if (ws == NULL || msg->len < sizeof(q))
		return;
	memcpy(&q, msg->data, sizeof(q));
	namelen = msg->len - sizeof(q);
	if (ws->nanswers >= ANSWERS_MAX || (a = calloc(1, sizeof(*a))) ==
	    NULL) {
		/* Unanswered: the master says so at its deadline. */
		log_limited_at(&limit, LOG_LEVEL_WARNING, "show sessions: %s",
		    ws->nanswers >= ANSWERS_MAX ? "too many questions at once" :
		    "out of memory");
		return;
	}
	a->id = q.id;
	TAILQ_INSERT_TAIL(&ws->answers, a, link);
	ws->nanswers++;
	/* No rule of that name here: an empty answer. */
	if ((namelen == 0 || answer_want(ws, a, msg->data + sizeof(q),
	    namelen)) && answer_take(ws, a, q.limit < IPC_SESSIONS_MAX ?
	    q.limit : IPC_SESSIONS_MAX) == -1)
		a->list.n = a->list.max = 0;	/* no memory: nothing */
	(void)event_mask(ws->loop, chan, EV_READ | EV_WRITE);
}

/* e's line, ending in a newline, into buf; its length. */
static size_t
entry_line(const struct worker_sessions *ws, const struct answer *a,
    const struct session_entry *e, char *buf, size_t len)
{
	/* By the listener's protocol, then the backend's. */
	static const char *const protos[2][2] = {
		{ "tcp", "tcp-udp" }, { "udp-tcp", "udp" }
	};
	const struct rule	*r = e->rule;
	char			 client[ADDR_STRLEN], backend[ADDR_STRLEN];
	int			 n;

	n = snprintf(buf, len, "%s rule=%s%s%s client=%s backend=%s state=%s "
	    "from_client=%llu from_backend=%llu age=%llds gen=%u worker=%d\n",
	    protos[r->protocol != RULE_TCP][r->connect_protocol != RULE_TCP],
	    rule_log_name(r), e->route != NULL ? " route=" : "",
	    e->route != NULL ? e->route : "",
	    addr_format((const struct sockaddr *)&e->client.ss, client,
	    sizeof(client)), e->backend == NULL ? "-" :
	    addr_format((const struct sockaddr *)&e->backend->addr.ss,
	    backend, sizeof(backend)), e->state,
	    (unsigned long long)e->from_client,
	    (unsigned long long)e->from_backend,
	    (long long)((a->now - e->started) / 1000), ws->gen, ws->slot);
	if (n < 0)
		return 0;
	if ((size_t)n >= len) {
		buf[len - 2] = '\n';	/* cut, still a line */
		return len - 1;
	}
	return (size_t)n;
}

void
worker_sessions_send(struct worker_sessions *ws, int chan)
{
	struct ipc_sessions_part	 h;
	struct answer			*a;
	char				 line[LINE_MAX_LEN];
	size_t				 used = 0, next, n;

	if (ws == NULL)
		return;
	if ((a = TAILQ_FIRST(&ws->answers)) == NULL) {
		(void)event_mask(ws->loop, chan, EV_READ);
		return;
	}
	if (ws->part == NULL && (ws->part = malloc(sizeof(h) +
	    IPC_SESSIONS_TEXT)) == NULL)
		return;		/* again at the next turn */
	for (next = a->next; next < a->list.n; next++) {
		n = entry_line(ws, a, &a->list.e[next], line, sizeof(line));
		if (used + n > IPC_SESSIONS_TEXT)
			break;
		memcpy(ws->part + sizeof(h) + used, line, n);
		used += n;
	}
	memset(&h, 0, sizeof(h));
	h.id = a->id;
	h.last = next == a->list.n;
	h.more = h.last ? a->list.more : 0;
	memcpy(ws->part, &h, sizeof(h));
	if (ipc_send(chan, IPC_SESSIONS_PART, ws->part, sizeof(h) + used,
	    NULL, 0) == -1) {
		/* Full: the loop says when there is room.  Else it is gone. */
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			worker_sessions_drop(ws);
		return;
	}
	a->next = next;
	if (h.last)
		answer_free(ws, a);
}
