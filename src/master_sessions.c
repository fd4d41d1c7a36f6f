/*
 * master_sessions.c - "show sessions".  The master never touches a
 * connection, so it asks every worker it has a channel to, of every
 * generation (old ones draining after a reload or an upgrade too), over
 * that channel (IPC_SESSIONS), and gathers the parts of their answers
 * (IPC_SESSIONS_PART) as its loop reads them: it never waits for a
 * worker.  Once every one answered, or at SESSIONS_WAIT_MS, the asker
 * gets what came, then the workers that did not answer, each named.
 * At most limit lines go to the asker over all workers (each sends at
 * most that many), the rest only counted, so the answer's size is
 * bounded whatever the number of sessions.
 */
#include "ferryd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "event.h"
#include "ipc.h"
#include "log.h"
#include "master_sessions.h"
#include "master_state.h"

enum who_state {
	WHO_WAITING,		/* asked, its last part not in yet */
	WHO_DONE,		/* answered whole */
	WHO_GONE,		/* exited first */
	WHO_UNASKED		/* its channel took no question */
};

/* A worker asked, known by its pid: its struct child may go meanwhile. */
struct sessions_who {
	pid_t		pid;
	unsigned	gen;
	int		slot;
	int		state;		/* enum who_state */
	int		err;		/* WHO_UNASKED: why */
};

struct sessions_ask {
	struct sessions_ask	*next;
	struct master		*m;
	uint32_t		 id;
	size_t			 limit, shown;
	uint64_t		 more;		/* past the limit */
	struct sessions_who	*who;
	size_t			 nwho, waiting;
	struct event_timer	 deadline;
	bool			 cut;		/* by a binary upgrade */
	sessions_line		*line;
	sessions_done		*done;
	void			*arg;
};

/* A line of the answer, without its newline, to the asker. */
static void __attribute__((format(printf, 2, 3)))
ask_say(struct sessions_ask *a, const char *fmt, ...)
{
	char	line[256];
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		a->line(a->arg, line, (size_t)n < sizeof(line) ? (size_t)n :
		    sizeof(line) - 1);
}

static void
ask_unlink(struct master *m, struct sessions_ask *a)
{
	struct sessions_ask **p;

	for (p = &m->session_asks; *p != NULL; p = &(*p)->next)
		if (*p == a) {
			*p = a->next;
			break;
		}
	event_timer_cancel(m->loop, &a->deadline);
}

static void
ask_free(struct sessions_ask *a)
{
	free(a->who);
	free(a);
}

/* The end: what did not come is said, and the asker answered. */
static void
ask_on_deadline(struct event_timer *t, void *data)
{
	struct sessions_ask	*a = data;
	struct sessions_who	*w;
	char			 why[128];
	size_t			 i;

	(void)t;
	ask_unlink(a->m, a);
	if (a->more > 0)
		ask_say(a, "%llu more not shown (limit %zu)",
		    (unsigned long long)a->more, a->limit);
	for (i = 0; i < a->nwho; i++) {
		w = &a->who[i];
		if (w->state == WHO_DONE)
			continue;
		if (w->state == WHO_WAITING && a->cut)
			snprintf(why, sizeof(why), "had not answered when a "
			    "binary upgrade cut this answer short");
		else if (w->state == WHO_WAITING)
			snprintf(why, sizeof(why), "did not answer within "
			    "%d ms", SESSIONS_WAIT_MS);
		else if (w->state == WHO_GONE)
			snprintf(why, sizeof(why), "exited before it answered");
		else
			snprintf(why, sizeof(why), "could not be asked: %s",
			    strerror(w->err));
		ask_say(a, "warning: worker %d of generation %u (pid %ld) %s",
		    w->slot, w->gen, (long)w->pid, why);
	}
	a->done(a->arg);
	ask_free(a);
}

/*
 * One worker less to wait for: at the last, the answer goes out from
 * the loop's timers, not from inside the channel's reader.
 */
static void
ask_settle(struct sessions_ask *a, struct sessions_who *w, int state)
{
	if (w->state != WHO_WAITING)
		return;
	w->state = state;
	if (--a->waiting == 0)
		(void)event_timer_arm(a->m->loop, &a->deadline, 0);
}

/* The workers to ask: every child with a channel, of any generation. */
static int
ask_workers(struct master *m, struct sessions_ask *a)
{
	const struct child	*c;
	size_t			 n = 0;

	TAILQ_FOREACH(c, &m->children, link)
		n += c->chan != -1;
	if (n > 0 && (a->who = calloc(n, sizeof(*a->who))) == NULL)
		return -1;
	TAILQ_FOREACH(c, &m->children, link) {
		if (c->chan == -1)
			continue;
		a->who[a->nwho].pid = c->pid;
		a->who[a->nwho].gen = c->gen;
		a->who[a->nwho].slot = c->slot;
		a->who[a->nwho++].state = WHO_WAITING;
	}
	return 0;
}

struct sessions_ask *
master_sessions_ask(struct master *m, const char *rule, size_t limit,
    sessions_line *line, sessions_done *done, void *arg)
{
	static uint32_t		 ids;
	struct sessions_ask	*a;
	const struct child	*c;
	struct {
		struct ipc_sessions_ask	q;
		char			name[1024];
	}			 msg;
	size_t			 namelen = rule != NULL ? strlen(rule) : 0, i;

	if (namelen > sizeof(msg.name) || (a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	if (ask_workers(m, a) == -1) {
		free(a);
		return NULL;
	}
	a->m = m;
	a->id = ++ids;
	a->limit = limit;
	a->line = line;
	a->done = done;
	a->arg = arg;
	a->waiting = a->nwho;
	event_timer_init(&a->deadline, ask_on_deadline, a);
	memset(&msg.q, 0, sizeof(msg.q));
	msg.q.id = a->id;
	msg.q.limit = (uint32_t)limit;
	memcpy(msg.name, rule != NULL ? rule : "", namelen);
	TAILQ_FOREACH(c, &m->children, link) {
		for (i = 0; i < a->nwho && a->who[i].pid != c->pid; i++)
			continue;
		/* Never waited for: a full channel is a worker not asked. */
		if (i < a->nwho && ipc_send(c->chan, IPC_SESSIONS, &msg,
		    sizeof(msg.q) + namelen, NULL, 0) == -1) {
			a->who[i].err = errno;
			ask_settle(a, &a->who[i], WHO_UNASKED);
		}
	}
	/* No worker at all: the answer still comes from the loop. */
	if (event_timer_arm(m->loop, &a->deadline, a->waiting == 0 ? 0 :
	    clock_ms() + SESSIONS_WAIT_MS) == -1) {
		ask_free(a);
		return NULL;
	}
	a->next = m->session_asks;
	m->session_asks = a;
	return a;
}

void
master_sessions_cut(struct master *m)
{
	struct sessions_ask	*a, *next;

	/* Those of now: an answer's done() may start the asker's next. */
	a = m->session_asks;
	m->session_asks = NULL;
	for (; a != NULL; a = next) {
		next = a->next;
		a->next = NULL;
		a->cut = true;
		event_timer_cancel(m->loop, &a->deadline);
		ask_on_deadline(&a->deadline, a);
	}
}

void
master_sessions_cancel(struct master *m, struct sessions_ask *a)
{
	ask_unlink(m, a);
	ask_free(a);
}

/* c's place in a, or NULL. */
static struct sessions_who *
ask_who(struct sessions_ask *a, const struct child *c)
{
	size_t i;

	for (i = 0; i < a->nwho; i++)
		if (a->who[i].pid == c->pid)
			return &a->who[i];
	return NULL;
}

/* The lines of text (n bytes) kept up to the limit, the rest counted. */
static void
ask_lines(struct sessions_ask *a, const char *text, size_t n)
{
	const char	*nl;
	size_t		 k;

	while (n > 0) {
		nl = memchr(text, '\n', n);
		k = nl != NULL ? (size_t)(nl - text) : n;
		if (a->shown < a->limit) {
			a->line(a->arg, text, k);
			a->shown++;
		} else
			a->more++;
		k += nl != NULL;
		text += k;
		n -= k;
	}
}

void
master_sessions_part(struct master *m, const struct child *c,
    const struct ipc_msg *msg)
{
	struct ipc_sessions_part	 h;
	struct sessions_ask		*a;
	struct sessions_who		*w;

	if (msg->len < sizeof(h))
		return;
	memcpy(&h, msg->data, sizeof(h));
	/* One asked whose deadline passed, or whose asker left: dropped. */
	for (a = m->session_asks; a != NULL && a->id != h.id; a = a->next)
		continue;
	if (a == NULL || (w = ask_who(a, c)) == NULL ||
	    w->state != WHO_WAITING)
		return;
	ask_lines(a, msg->data + sizeof(h), msg->len - sizeof(h));
	if (h.last) {
		a->more += h.more;
		ask_settle(a, w, WHO_DONE);
	}
}

void
master_sessions_gone(struct master *m, const struct child *c)
{
	struct sessions_ask	*a;
	struct sessions_who	*w;

	for (a = m->session_asks; a != NULL; a = a->next)
		if ((w = ask_who(a, c)) != NULL)
			ask_settle(a, w, WHO_GONE);
}
