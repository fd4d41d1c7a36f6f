/*
 * checker.c - the health checker's probes and its loop.
 *
 * A probe of a TCP backend connects, writes send, and reads until expect
 * is in the reply; of a UDP backend it sends send (or an empty
 * datagram) on a connected socket and waits for a reply with expect in
 * it; each within timeout.  Results against the backend's state count in
 * the table's streak: fall of them in a row mark it down, rise up.
 */
#include "ferryd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "accesslog.h"
#include "addr.h"
#include "checker.h"
#include "child.h"
#include "conf.h"
#include "event.h"
#include "health.h"
#include "log.h"
#include "proctitle.h"
#include "route.h"
#include "rule.h"
#include "sandbox.h"
#include "sig.h"
#include "sock.h"
#include "tcp_connect.h"
#include "upstream.h"

struct checker;

struct probe {
	TAILQ_ENTRY(probe)	 queue;		/* waiting for a place */
	struct checker		*owner;
	const struct rule	*rule;
	const struct backend	*backend;
	struct event_timer	 timer;		/* next start, or timeout */
	int			 fd;		/* -1: not in flight */
	bool			 connected;
	bool			 dgram_sent;	/* UDP: the probe's datagram */
	bool			 waiting;
	int64_t			 started;
	size_t			 sent, got;
	char			 reply[CHECKER_REPLY_MAX];
};

struct checker {
	struct event_loop	*loop;
	struct probe		*probes;
	size_t			 nprobes;
	int			 inflight;
	TAILQ_HEAD(, probe)	 waiting;
	pid_t			 master;
};

static void probe_start(struct probe *);

bool
checker_needed(const struct conf *cfg)
{
	size_t	i, d;

	for (i = 0; i < cfg->nrules; i++)
		for (d = 0; d < rule_ndests(&cfg->rules[i]); d++)
			if (rule_dest(&cfg->rules[i], d)->health_check.enabled)
				return true;
	return false;
}

/* The probe's result: ok, or why not. */
static void
probe_done(struct probe *p, bool ok, const char *why)
{
	struct checker		 *ck = p->owner;
	const struct health_check *hc = &p->rule->health_check;
	struct health_cell	 *c = health_cell(p->backend->id);
	char			  addr[ADDR_STRLEN];
	int64_t			  now = event_now(ck->loop), next;
	struct probe		 *w;

	if (p->fd != -1) {
		event_close(ck->loop, p->fd);
		close(p->fd);
		p->fd = -1;
	}
	ck->inflight--;
	if (c != NULL && ok == (c->check_down != 0)) {
		/* A result against the state: one more in a row. */
		c->streak++;
		if (c->streak >= (c->check_down ? hc->rise : hc->fall)) {
			addr_format((const void *)&p->backend->addr.ss, addr,
			    sizeof(addr));
			if (ok)
				log_notice("backend %s of rule %s is up: %d "
				    "check%s passed", addr, rule_log_name(p->rule),
				    hc->rise, hc->rise == 1 ? "" : "s");
			else
				log_warn("backend %s of rule %s is down: %s "
				    "(%d check%s)", addr, rule_log_name(p->rule), why,
				    hc->fall, hc->fall == 1 ? "" : "s");
			c->check_down = !ok;
			c->streak = 0;
			health_changed(c);
		}
	} else if (c != NULL && c->streak != 0)
		c->streak = 0;
	next = p->started + hc->interval;
	(void)event_timer_arm(ck->loop, &p->timer, next > now ? next : now);
	/*
	 * A place is free: the next waiting probe, from its timer (starting
	 * it here could fail at once and come back here, deeper each time).
	 */
	if ((w = TAILQ_FIRST(&ck->waiting)) != NULL) {
		TAILQ_REMOVE(&ck->waiting, w, queue);
		w->waiting = false;
		(void)event_timer_arm(ck->loop, &w->timer, now);
	}
}

static void
probe_fail_errno(struct probe *p, int err)
{
	probe_done(p, false, err == ETIMEDOUT ? "check timed out" :
	    strerror(err));
}

/* Bytes came: whether expect is among them now. */
static void
probe_read(struct probe *p)
{
	const char	*expect = p->rule->health_check.expect;
	ssize_t		 n;

	for (;;) {
		n = recv(p->fd, p->reply + p->got, sizeof(p->reply) - p->got,
		    0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n == -1) {
			probe_fail_errno(p, errno);
			return;
		}
		if (n == 0 && p->rule->connect_protocol == RULE_TCP) {
			probe_done(p, false, "closed before the expected reply");
			return;
		}
		p->got += (size_t)n;
		if (expect[0] == '\0' || memmem(p->reply, p->got, expect,
		    strlen(expect)) != NULL) {
			probe_done(p, true, NULL);
			return;
		}
		/* A datagram is the whole reply; a stream may go on. */
		if (p->rule->connect_protocol == RULE_UDP ||
		    p->got == sizeof(p->reply)) {
			probe_done(p, false, "the reply is not the expected one");
			return;
		}
	}
}

/* Write what is left of send; true once all of it is written. */
static bool
probe_write(struct probe *p)
{
	const char	*send_text = p->rule->health_check.send;
	size_t		 len = strlen(send_text);
	bool		 udp = p->rule->connect_protocol == RULE_UDP;
	ssize_t		 n;

	/* UDP: one datagram, empty when there is nothing to send. */
	while (p->sent < len || (udp && !p->dgram_sent)) {
		n = send(p->fd, send_text + p->sent, len - p->sent,
		    MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return false;
		if (n == -1) {
			probe_fail_errno(p, errno);
			return false;
		}
		p->sent += (size_t)n;
		p->dgram_sent = true;
	}
	return true;
}

static void
probe_io(struct event_loop *loop, int fd, int events, void *data)
{
	struct probe	*p = data;
	int		 err;

	(void)fd;
	if (!p->connected) {
		if ((err = tcp_connect_finished(p->fd, events)) != 0) {
			probe_fail_errno(p, err);
			return;
		}
		if ((events & EV_WRITE) == 0)
			return;
		p->connected = true;
	}
	if (!probe_write(p)) {
		if (p->fd != -1)
			(void)event_mask(loop, p->fd, EV_READ | EV_WRITE);
		return;
	}
	if (p->rule->health_check.expect[0] == '\0' &&
	    p->rule->connect_protocol == RULE_TCP) {
		probe_done(p, true, NULL);	/* a connect check */
		return;
	}
	(void)event_mask(loop, p->fd, EV_READ);
	if (events & (EV_READ | EV_EXCEPT))
		probe_read(p);
}

/* Open the probe's socket and start it; -1 with errno. */
static int
probe_open(struct probe *p)
{
	const struct backend	*b = p->backend;
	bool			 udp = p->rule->connect_protocol == RULE_UDP;

	p->fd = udp ? sock_dgram(b->addr.ss.ss_family) :
	    sock_stream(b->addr.ss.ss_family);
	if (p->fd == -1)
		return -1;
	if ((b->has_source && sock_bind_source(p->fd, &b->source) == -1) ||
	    (connect(p->fd, (const struct sockaddr *)&b->addr.ss,
	    b->addr.len) == -1 && errno != EINPROGRESS))
		return -1;
	/* UDP: connected at once; the datagram goes now. */
	p->connected = udp;
	return 0;
}

static void
probe_start(struct probe *p)
{
	struct checker	*ck = p->owner;
	int64_t		 now = event_now(ck->loop);
	int		 err;

	if (ck->inflight >= CHECKER_INFLIGHT_MAX) {
		p->waiting = true;
		TAILQ_INSERT_TAIL(&ck->waiting, p, queue);
		return;
	}
	ck->inflight++;
	p->started = now;
	p->sent = p->got = 0;
	p->dgram_sent = false;
	if (probe_open(p) == -1 || event_set(ck->loop, p->fd,
	    EV_READ | EV_WRITE, probe_io, p) == -1) {
		err = errno;
		if (p->fd != -1)
			close(p->fd);	/* not watched: not event_close()d */
		p->fd = -1;
		probe_fail_errno(p, err);
		return;
	}
	(void)event_timer_arm(ck->loop, &p->timer, now +
	    p->rule->health_check.timeout);
}

/* The probe's timer: time for the next one, or this one took too long. */
static void
probe_on_timer(struct event_timer *t, void *data)
{
	struct probe	*p = data;

	(void)t;
	if (p->fd != -1)
		probe_fail_errno(p, ETIMEDOUT);
	else if (!p->waiting)
		probe_start(p);
}

/*
 * The channel closed: the master replaced this checker (a reload, or a
 * log reopen: it has no channel to be handed a log on), or it is gone
 * and nobody needs the checks any more.  Our parent tells which.
 */
static void
checker_on_chan(struct event_loop *loop, int fd, int events, void *data)
{
	struct checker	*ck = data;
	char		 buf[64];
	ssize_t		 n;

	(void)loop;
	(void)events;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (getppid() == ck->master)
		log_debug("replaced by the master; stopping");
	else
		log_notice("the master is gone; stopping");
	_exit(0);
}

/* The probes of destination r's backends, from probe *k on, of n. */
static int
checker_dest_probes(struct checker *ck, const struct rule *r, size_t *k,
    size_t n)
{
	struct probe	*p;
	size_t		 j;

	for (j = 0; j < r->upstream.nbackends; j++, (*k)++) {
		p = &ck->probes[*k];
		p->owner = ck;
		p->rule = r;
		p->backend = &r->upstream.backends[j];
		p->fd = -1;
		event_timer_init(&p->timer, probe_on_timer, p);
		/* The first round at once, spread over 100 ms. */
		if (event_timer_arm(ck->loop, &p->timer,
		    event_now(ck->loop) + (int64_t)(*k * 100 / n)) == -1)
			return -1;
	}
	return 0;
}

/*
 * A probe for every backend of every checked rule (of a rule with
 * routes, by each route's health_check), spread over a round.
 */
static int
checker_probes(struct checker *ck, const struct conf *cfg)
{
	const struct rule	*r;
	size_t			 i, d, n = 0, k = 0;

	for (i = 0; i < cfg->nrules; i++)
		for (d = 0; d < rule_ndests(&cfg->rules[i]); d++)
			if ((r = rule_dest(&cfg->rules[i], d))->
			    health_check.enabled)
				n += r->upstream.nbackends;
	if ((ck->probes = calloc(n, sizeof(*ck->probes))) == NULL)
		return -1;
	ck->nprobes = n;
	for (i = 0; i < cfg->nrules; i++)
		for (d = 0; d < rule_ndests(&cfg->rules[i]); d++)
			if ((r = rule_dest(&cfg->rules[i], d))->
			    health_check.enabled &&
			    checker_dest_probes(ck, r, &k, n) == -1)
				return -1;
	return 0;
}

void
checker_run(const struct conf *cfg, int chan, pid_t master)
{
	struct checker	ck;
	char		err[CONF_ERR_MAX];

	memset(&ck, 0, sizeof(ck));
	TAILQ_INIT(&ck.waiting);
	ck.master = master;
	log_set_role("health checker");
	proctitle_set("ferryd: health checker");
	accesslog_close();
	child_begin(cfg, SIGTERM, false);
	ck.loop = event_loop_new(cfg->event_backend, 65536, err, sizeof(err));
	if (ck.loop == NULL) {
		log_err("%s", err);
		_exit(2);
	}
	if (event_set(ck.loop, sig_fd(), EV_READ, sig_on_readable,
	    NULL) == -1 || event_set(ck.loop, chan, EV_READ, checker_on_chan,
	    &ck) == -1 || checker_probes(&ck, cfg) == -1) {
		log_err("cannot start: %s", strerror(errno));
		_exit(2);
	}
	if (sandbox_enter(cfg->seccomp, conf_has_unix_backends(cfg),
	    "health checker") == -1)
		_exit(2);
	if (getppid() != master)
		_exit(0);
	log_debug("started: %zu backend(s) to check", ck.nprobes);
	while (!sig_take(SIGTERM) && !sig_take(SIGINT) && !sig_take(SIGQUIT))
		if (event_loop_run_once(ck.loop) == -1) {
			log_err("event loop failed: %s", strerror(errno));
			_exit(1);
		}
	_exit(0);
}
