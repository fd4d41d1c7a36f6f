/*
 * udp_follow.c - a QUIC client's session followed across the workers
 * of a generation (udp_follow.h).
 *
 * The asker keeps the datagram it asks with: when the answer is no, or
 * none comes within UDP_FOLLOW_WAIT_MS (or peek_timeout, if shorter),
 * it goes first, then what was held after it, through the rule's routes
 * as a new session's, as a CID that matches nothing does.  When the
 * session comes, the holder has sent that datagram on already: only
 * those held go, in the order they came, to the adopted session.
 *
 * The holder's side, and the answer's adoption, are udp_handover.c's: a
 * session handed over this way is the reload's, the same message adopted
 * the same way.  Nothing waits for the answer but the held datagrams:
 * the worker's loop goes on.  Those held go on through deliver (the
 * session table's), so that the table may call in here without a cycle.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "event.h"
#include "ipc.h"
#include "log.h"
#include "rule.h"
#include "stats.h"
#include "udp_cid.h"
#include "udp_cid_share.h"
#include "udp_follow.h"
#include "udp_io.h"
#include "udp_pass.h"
#include "udp_types.h"

/* A question out to another worker, and what waits for its answer. */
struct follow_ask {
	uint32_t		 id;		/* 0: free */
	struct udp_key		 key;		/* whose datagrams */
	const struct rule	*rule;
	char			*first;		/* the one asked with, passed */
	size_t			 first_len;
	struct udp_pass		 held;		/* those after it, kept */
	int			 nheld;
	struct event_timer	 timer;
};

static struct {
	struct udp_sessions	*us;		/* NULL: not begun */
	udp_pass_deliver_fn	*deliver;	/* what is held goes on */
	int			 chan, slot, nslots;
	uint32_t		 seq;
	int			 budget;	/* asks it may make now */
	int64_t			 budget_at;	/* ... as of then (ms) */
	bool			 releasing;	/* an ask's datagrams go on */
	struct follow_ask	 asks[UDP_FOLLOW_ASKS];
} f;

static void ask_on_timer(struct event_timer *, void *);

void
udp_follow_begin(struct udp_sessions *us, int chan, int slot, int nslots,
    udp_pass_deliver_fn *deliver)
{
	int i;

	f.us = us;
	f.deliver = deliver;
	f.chan = chan;
	f.slot = slot;
	f.nslots = nslots;
	f.budget = UDP_FOLLOW_ASK_RATE;
	f.budget_at = event_now(us->loop);
	for (i = 0; i < UDP_FOLLOW_ASKS; i++) {
		udp_pass_init(&f.asks[i].held);
		event_timer_init(&f.asks[i].timer, ask_on_timer, &f.asks[i]);
	}
	udp_cid_share_claim(slot);
}

void
udp_follow_stop(void)
{
	f.chan = -1;
}

/* The ask of id (k NULL), or waiting for k's address (id 0), or NULL. */
static struct follow_ask *
ask_find(uint32_t id, const struct udp_key *k)
{
	struct follow_ask	*a;
	int			 i;

	for (i = 0; i < UDP_FOLLOW_ASKS; i++) {
		a = &f.asks[i];
		if (a->id != 0 && (k != NULL ? memcmp(&a->key, k,
		    sizeof(*k)) == 0 : a->id == id))
			return a;
	}
	return NULL;
}

/* Hold n datagrams (iov) for a: those past the bounds are dropped. */
static void
ask_hold(struct follow_ask *a, const struct udp_from *from,
    const struct iovec *iov, int n)
{
	static char	msg[UDP_PASSED_MAX];
	size_t		len;
	int		i, lost = 0;

	for (i = 0; i < n; i++) {
		len = udp_passed_make(msg, a->key.rule, from, &iov[i]);
		if (len == 0 || a->nheld >= UDP_FOLLOW_HOLD_MAX ||
		    a->held.kept_bytes + len > UDP_FOLLOW_HOLD_BYTES ||
		    !udp_pass_take(&a->held, f.deliver, f.us, msg,
		    len))
			lost++;
		else
			a->nheld++;
	}
	if (lost > 0)
		udp_io_dropped(a->rule, (uint64_t)lost);
}

/*
 * Whether this worker may ask once more now: UDP_FOLLOW_ASK_RATE asks
 * a second, as many at once.  Past it, logged (rate-limited).
 */
static bool
ask_budget_take(const struct rule *rule)
{
	static struct log_limit	limit;
	int64_t			now = event_now(f.us->loop);
	int64_t			more = (now - f.budget_at) *
				    UDP_FOLLOW_ASK_RATE / 1000;

	if (more > 0) {
		f.budget = f.budget + more > UDP_FOLLOW_ASK_RATE ?
		    UDP_FOLLOW_ASK_RATE : f.budget + (int)more;
		f.budget_at = now;
	}
	if (f.budget > 0) {
		f.budget--;
		return true;
	}
	stats_rule(rule)->quic_follow_refused++;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: more than %d asks a "
	    "second for moved QUIC clients' UDP sessions: new sessions "
	    "instead", rule_log_name(rule), UDP_FOLLOW_ASK_RATE);
	return false;
}

/*
 * Ask the worker of slot holder for a's session, with the datagram a
 * keeps (a new id each time).  0, or -1 (the channel full).
 */
static int
ask_send(struct follow_ask *a, int holder)
{
	static char		msg[sizeof(struct udp_follow_ask) +
				    UDP_PASSED_MAX];
	struct udp_follow_ask	q;

	memset(&q, 0, sizeof(q));
	q.id = ++f.seq != 0 ? f.seq : ++f.seq;
	q.asker = f.slot;
	q.holder = holder;
	memcpy(msg, &q, sizeof(q));
	memcpy(msg + sizeof(q), a->first, a->first_len);
	if (ipc_send(f.chan, IPC_UDP_FOLLOW, msg, sizeof(q) + a->first_len,
	    NULL, 0) == -1)
		return -1;
	a->id = q.id;
	return 0;
}

/*
 * Ask the worker of slot holder for the session of datagram iov's DCID,
 * from's (key k): the ask made, or NULL (none free, the channel full).
 */
static struct follow_ask *
ask_start(const struct udp_from *from, const struct udp_key *k,
    const struct iovec *iov, int holder)
{
	static char		 msg[UDP_PASSED_MAX];
	struct follow_ask	*a = NULL;
	size_t			 len;
	int			 i, wait = from->rule->peek_timeout;

	for (i = 0; i < UDP_FOLLOW_ASKS && a == NULL; i++)
		if (f.asks[i].id == 0)
			a = &f.asks[i];
	if (a == NULL || (len = udp_passed_make(msg, k->rule, from,
	    iov)) == 0 || (a->first = malloc(len)) == NULL)
		return NULL;
	memcpy(a->first, msg, len);
	a->first_len = len;
	if (ask_send(a, holder) == -1) {
		free(a->first);
		a->first = NULL;
		return NULL;
	}
	a->key = *k;
	a->rule = from->rule;
	a->nheld = 0;
	if (wait <= 0 || wait > UDP_FOLLOW_WAIT_MS)
		wait = UDP_FOLLOW_WAIT_MS;
	(void)event_timer_arm(f.us->loop, &a->timer, event_now(f.us->loop) +
	    wait);
	return a;
}

/*
 * The worker of slot holder refused a: the next one the directory names
 * for a's datagram is asked, within the budget.  Whether it was.
 */
static bool
ask_next(struct follow_ask *a, int holder)
{
	const char	*d = a->first + sizeof(struct udp_passed);
	size_t		 len = a->first_len - sizeof(struct udp_passed);
	int		 next;

	next = udp_cid_share_holder(a->key.rule, (const uint8_t *)d, len,
	    f.nslots, holder);
	return next != -1 && ask_budget_take(a->rule) && ask_send(a,
	    next) == 0;
}

enum udp_follow_found
udp_follow(struct udp_sessions *us, const struct udp_from *from,
    const struct udp_key *k, uint32_t h, const struct iovec *iov, int n,
    struct udp_session **s)
{
	struct follow_ask	*a;
	int			 holder;

	if ((*s = udp_cid_follow(from, k, h, iov[0].iov_base,
	    iov[0].iov_len)) != NULL)
		return UDP_FOLLOW_HERE;
	if (f.us != us || f.releasing || f.chan == -1)
		return UDP_FOLLOW_NONE;
	if ((a = ask_find(0, k)) != NULL) {
		ask_hold(a, from, iov, n);
		return UDP_FOLLOW_HELD;
	}
	if ((holder = udp_cid_share_holder(k->rule, iov[0].iov_base,
	    iov[0].iov_len, f.nslots, -1)) == -1 ||
	    !ask_budget_take(from->rule) ||
	    (a = ask_start(from, k, &iov[0], holder)) == NULL)
		return UDP_FOLLOW_NONE;
	ask_hold(a, from, iov + 1, n - 1);
	return UDP_FOLLOW_HELD;
}

/*
 * a is answered, or will not be: what it holds goes on, in order, as
 * datagrams just received, with nothing asked for them (sent_first: the
 * holder sent the one a asked with on already).
 */
static void
ask_end(struct follow_ask *a, bool sent_first)
{
	int lost = 0;

	event_timer_cancel(f.us->loop, &a->timer);
	a->id = 0;
	/* Nothing is asked meanwhile: a stays as it is until the end. */
	f.releasing = true;
	if (!sent_first)
		lost += !f.deliver(f.us, a->first, a->first_len);
	free(a->first);
	a->first = NULL;
	lost += udp_pass_go(&a->held, f.deliver, f.us);
	udp_pass_init(&a->held);
	f.releasing = false;
	if (lost > 0)
		udp_io_dropped(a->rule, (uint64_t)lost);
}

static void
ask_on_timer(struct event_timer *t, void *data)
{
	struct follow_ask	*a = data;

	(void)t;
	stats_rule(a->rule)->quic_follow_timeouts++;
	log_debug("%s: no worker answered in time for a moved QUIC client's "
	    "UDP session", rule_log_name(a->rule));
	ask_end(a, false);
}

bool
udp_follow_waiting(uint32_t id)
{
	return f.us != NULL && id != 0 && ask_find(id, NULL) != NULL;
}

void
udp_follow_done(uint32_t id, int holder, const struct sockaddr *client,
    bool sent_first)
{
	static struct log_limit	 limit;
	struct follow_ask	*a;
	char			 at[ADDR_STRLEN];

	if (f.us == NULL || (a = ask_find(id, NULL)) == NULL)
		return;		/* too late: its datagrams went on */
	if (client != NULL) {
		stats_rule(a->rule)->quic_followed++;
		stats_rule(a->rule)->quic_migrations++;
		log_limited_at(&limit, LOG_LEVEL_INFO, "%s: QUIC client now at "
		    "%s: its UDP session follows it from worker %d",
		    rule_log_name(a->rule), addr_format(client, at, sizeof(at)),
		    holder);
	} else if (holder == UDP_FOLLOW_MOVED_ON)
		log_debug("%s: a moved QUIC client's UDP session went on to "
		    "the new workers", rule_log_name(a->rule));
	else {
		stats_rule(a->rule)->quic_follow_refused++;
		if (!sent_first && ask_next(a, holder))
			return;
	}
	ask_end(a, sent_first);
}
