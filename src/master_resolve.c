/*
 * master_resolve.c - resolve_interval: the running configuration's own
 * text (not the file, which may hold edits not meant for now) loaded
 * again by the resolver (resolver.h), every name looked up anew.
 *
 * When only addresses moved (each name has as many as before), each
 * moved backend changes in place: in the master's configuration, which
 * workers forked later inherit, and in every running worker's, over its
 * channel (IPC_BACKENDS); its health starts again as a new backend's,
 * and the checker restarts to probe the new address.  No generation
 * starts and no connection is touched.  When a name gained or lost
 * addresses, ids and tables change with them: that is applied as a
 * reload, which keeps every connection too.
 */
#include "ferryd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "clock.h"
#include "health.h"
#include "ipc.h"
#include "log.h"
#include "master_child.h"
#include "master_reload.h"
#include "master_resolve.h"
#include "master_state.h"
#include "rule.h"
#include "upstream.h"

#define RESOLVE_RETRY_MS	1000	/* a reload under way: after it */
/* Moved backends per IPC_BACKENDS message. */
#define MOVES_PER_MSG	(IPC_MAX_DATA / sizeof(struct ipc_backend_move))

/* Names looked up again ms from now, if resolve_interval is set. */
static void
master_resolve_later(struct master *m, int ms)
{
	if (m->cfg->resolve_interval <= 0)
		event_timer_cancel(m->loop, &m->names.again);
	else if (event_timer_arm(m->loop, &m->names.again,
	    clock_ms() + ms) == -1)
		log_err("cannot schedule the next lookup of names: out of "
		    "memory");
}

void
master_resolve_follow(struct master *m)
{
	if (m->stopping)
		return;
	if (m->cfg->resolve_interval <= 0)
		event_timer_cancel(m->loop, &m->names.again);
	else if (!event_timer_armed(&m->names.again))
		master_resolve_later(m, m->cfg->resolve_interval);
}

/*
 * Send the n moves to c; a channel too full to take them marks c, which
 * is sent every backend's address again at the next tick.
 */
static void
master_send_moves(struct child *c, const struct ipc_backend_move *mv,
    size_t n)
{
	size_t off, k;

	for (off = 0; off < n; off += k) {
		k = n - off < MOVES_PER_MSG ? n - off : MOVES_PER_MSG;
		if (ipc_send(c->chan, IPC_BACKENDS, mv + off, k * sizeof(*mv),
		    NULL, 0) == -1) {
			if (!c->moves_lost)
				log_warn("cannot tell worker %d (pid %ld) of "
				    "moved backends: %s; trying again",
				    c->slot, (long)c->pid, strerror(errno));
			c->moves_lost = true;
			return;
		}
	}
}

/* The moves to every running worker that takes connections. */
static void
master_send_moves_all(struct master *m, const struct ipc_backend_move *mv,
    size_t n)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == m->gen && c->chan != -1)
			master_send_moves(c, mv, n);
}

void
master_resend_backends(struct master *m)
{
	struct ipc_backend_move	*mv;
	const struct rule	*r;
	struct child		*c;
	size_t			 i, j, n = 0;
	bool			 lost = false;

	TAILQ_FOREACH(c, &m->children, link)
		lost |= c->moves_lost && c->gen == m->gen && c->chan != -1;
	if (!lost || (mv = calloc(m->cfg->nbackends, sizeof(*mv))) == NULL)
		return;
	for (i = 0; i < m->cfg->nrules; i++) {
		r = &m->cfg->rules[i];
		for (j = 0; j < r->upstream.nbackends; j++, n++) {
			mv[n].id = r->upstream.backends[j].id;
			mv[n].addr = r->upstream.backends[j].addr;
		}
	}
	TAILQ_FOREACH(c, &m->children, link)
		if (c->moves_lost && c->gen == m->gen && c->chan != -1) {
			c->moves_lost = false;
			master_send_moves(c, mv, n);
		}
	free(mv);
}

/*
 * Each backend of cfg (the running one's, looked up again) whose address
 * differs: moved in m->cfg, said, its health started over, and told to
 * the workers.  Returns how many moved.
 */
static size_t
master_move_backends(struct master *m, const struct conf *cfg)
{
	struct ipc_backend_move	*mv;
	struct backend		*b;
	const struct backend	*nb;
	const struct rule	*r;
	char			 from[ADDR_STRLEN], to[ADDR_STRLEN];
	size_t			 i, j, n = 0;

	if ((mv = calloc(cfg->nbackends, sizeof(*mv))) == NULL)
		return 0;
	for (i = 0; i < cfg->nrules; i++) {
		r = &m->cfg->rules[i];
		for (j = 0; j < r->upstream.nbackends; j++) {
			b = &r->upstream.backends[j];
			nb = &cfg->rules[i].upstream.backends[j];
			if (addr_equal(&b->addr, &nb->addr))
				continue;
			log_notice("%s: backend %s moves to %s (its name "
			    "resolves anew)", rule_log_name(r),
			    addr_format((const void *)&b->addr.ss, from,
			    sizeof(from)), addr_format((const void *)
			    &nb->addr.ss, to, sizeof(to)));
			b->addr = nb->addr;
			health_moved(r, b);
			mv[n].id = b->id;
			mv[n++].addr = nb->addr;
		}
	}
	master_send_moves_all(m, mv, n);
	free(mv);
	return n;
}

static int
master_resolve_work(void *arg, char *err, size_t errlen)
{
	const struct master	*m = arg;
	struct conf		*cfg = conf_reresolve(m->cfg, err, errlen);

	conf_free(cfg);
	return cfg != NULL ? 0 : -1;
}

/* The names are looked up: load the text again with the answers. */
static void
master_resolve_done(const char *lookup_err, void *arg)
{
	static struct log_limit	 limit;
	struct master		*m = arg;
	struct conf		*cfg = NULL;
	char			 err[CONF_ERR_MAX];

	m->names.periodic = false;
	if (m->stopping)
		return;
	if (lookup_err != NULL)
		snprintf(err, sizeof(err), "%s", lookup_err);
	else
		cfg = conf_reresolve(m->cfg, err, sizeof(err));
	if (cfg == NULL) {
		log_limited_at(&limit, LOG_LEVEL_WARNING, "cannot resolve "
		    "backend names again: %s; keeping the addresses we have",
		    err);
		return;
	}
	if (conf_same_shape(cfg, m->cfg)) {
		if (master_move_backends(m, cfg) > 0) {
			/* Its probes are of the old addresses. */
			master_stop_checker(m, SIGTERM);
			master_spawn_checker(m);
		}
		conf_free(cfg);
		return;
	}
	/* A reload: master.c starts it (master_dispatch). */
	conf_free(master_request_apply(&m->requests, cfg));
}

/* Names looked up again, unless a reload is on its way: then after it. */
static void
master_on_resolve(struct event_timer *t, void *data)
{
	static struct log_limit	 limit;
	struct master		*m = data;
	char			 err[CONF_ERR_MAX];

	(void)t;
	if (m->stopping)
		return;
	if (master_reload_busy(m)) {
		master_resolve_later(m, RESOLVE_RETRY_MS);
		return;
	}
	master_resolve_later(m, m->cfg->resolve_interval);
	if (resolver_start(&m->names.resolver, master_resolve_work,
	    master_resolve_done, m, RESOLVE_MAX_MS, err, sizeof(err)) == -1)
		log_limited_at(&limit, LOG_LEVEL_WARNING, "cannot resolve "
		    "backend names again: %s", err);
	else
		m->names.periodic = true;
}

void
master_resolve_init(struct master *m)
{
	event_timer_init(&m->names.again, master_on_resolve, m);
	master_resolve_follow(m);
}
