/*
 * master_reload.c - reloads and generations.  A valid configuration
 * becomes a new generation of workers on a new listen set (sockets that
 * stay are kept); the old generation serves until every slot of the new
 * one is ready, then stops accepting, hands its UDP sessions over through
 * the master, and drains.  One reload runs at a time; one asked for
 * meanwhile waits for it.  Names resolved again to new addresses are
 * applied the same way.
 */
#include "ferryd.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accesslog.h"
#include "addr.h"
#include "bug.h"
#include "clock.h"
#include "client_limit.h"
#include "daemon.h"
#include "fdlimit.h"
#include "health.h"
#include "ipc.h"
#include "listen.h"
#include "log.h"
#include "options.h"
#include "master_child.h"
#include "master_follow.h"
#include "master_reload.h"
#include "master_sessions.h"
#include "master_state.h"
#include "master_status.h"
#include "outcome.h"
#include "resolver.h"
#include "stats.h"
#include "udp_pass.h"
#include "udp_handover.h"

#define RELOAD_STUCK_MS   10000	/* a generation not ready by then... */
#define RELOAD_RETRY_MS   1000	/* a stuck check put off */
#define DRAIN_GRACE_MS    2000	/* past shutdown_timeout: SIGTERM */
#define HANDOVER_PASS_MS  2000	/* a new worker's channel full that long */
#define DATAGRAM_PASS_MS  200	/* ... for a passed datagram */
#define PASS_ACK_MS       10000	/* old workers' IPC_UDP_PASSING, at most */

static void master_reload(struct master *);

/*
 * Say how a reload went, in the log and for "ferryd -s reload" (the
 * outcome file beside the pidfile).
 */
void
master_tell(struct master *m, bool ok, const char *fmt, ...)
{
	struct outcome	o;
	va_list		ap;

	memset(&o, 0, sizeof(o));
	o.ok = ok;
	memcpy(o.covers, m->outcome.covered, m->outcome.ncovered *
	    sizeof(*o.covers));
	o.ncovers = m->outcome.ncovered;
	o.syntax = m->opt->config_syntax;
	snprintf(o.config, sizeof(o.config), "%s", m->opt->config_path);
	va_start(ap, fmt);
	vsnprintf(o.text, sizeof(o.text), fmt, ap);
	va_end(ap);
	m->outcome.told_ok = ok;
	snprintf(m->outcome.told, sizeof(m->outcome.told), "%s", o.text);
	/* Whom it answers: covered may be another's again by then. */
	memcpy(m->outcome.told_covers, o.covers, o.ncovers * sizeof(*o.covers));
	m->outcome.ntold_covers = o.ncovers;
	if (ok && m->gen > 1)	/* the first: "started ..." said it */
		log_notice("%s", o.text);
	else if (!ok && strncmp(o.text, "upgrade:", 8) == 0)
		log_err("%s", o.text);
	else if (!ok)
		log_err("reload failed: %s; keeping the running configuration",
		    o.text);
	o.seq = ++m->outcome.seq;
	if (m->outcome.file[0] == '\0')
		return;
	if (outcome_write(m->outcome.file, &o) == -1)
		log_warn("cannot write %s: %s; ferryd -s reload will not "
		    "know how the reload went", m->outcome.file,
		    strerror(errno));
}

/* The new generation is ready: say so once. */
static void
master_tell_ready(struct master *m)
{
	if (m->outcome.gen_told == m->gen)
		return;
	m->outcome.gen_told = m->gen;
	event_timer_cancel(m->loop, &m->reload.gen_late);
	master_tell(m, true, "generation %u serves: %zu rule(s), %d "
	    "worker(s)", m->gen, m->cfg->nrules, m->cfg->workers);
}

/* A new generation not ready in time: its workers keep failing. */
static void
master_on_gen_late(struct event_timer *t, void *data)
{
	struct master *m = data;

	(void)t;
	if (m->stopping || m->outcome.gen_told == m->gen)
		return;
	master_tell(m, false, "generation %u is not ready after %d s (its "
	    "workers fail to start: see the log above); the old generation "
	    "serves", m->gen, RELOAD_STUCK_MS / 1000);
}

int
master_open_access_log(const struct conf *cfg, const struct conf *old,
    char *err, size_t errlen)
{
	/* Before the access log, which may be syslog's. */
	log_syslog_as(cfg->syslog_ident, cfg->syslog_facility);
	accesslog_set_format(cfg->access_log_format, cfg->access_log_fields,
	    cfg->naccess_log_fields);
	if (cfg->access_log == NULL) {
		accesslog_close();
		return 0;
	}
	if (old != NULL && old->access_log != NULL &&
	    strcmp(old->access_log, cfg->access_log) == 0)
		return 0;
	return accesslog_open(cfg->access_log, err, errlen);
}

/* Remove the socket file at path, if it is still a socket. */
static void
socket_file_remove(const char *path)
{
	struct stat	st;

	/* Never another kind of file someone put in its place. */
	if (lstat(path, &st) == -1 || !S_ISSOCK(st.st_mode))
		return;
	if (unlink(path) == -1 && errno != ENOENT)
		log_warn("cannot remove unix:%s: %s", path, strerror(errno));
}

/* Whether cfg has a rule listening on Unix address a. */
static bool
conf_listens_on(const struct conf *cfg, const struct sockaddr_any *a)
{
	size_t	i;

	for (i = 0; cfg != NULL && i < cfg->nrules; i++)
		if (addr_equal(&cfg->rules[i].listen_addr, a))
			return true;
	return false;
}

void
master_socket_files_forget(const struct conf *old, const struct conf *cfg)
{
	const char	*path;
	size_t		 i;

	for (i = 0; i < old->nrules; i++)
		if ((path = addr_unix_path(&old->rules[i].listen_addr)) !=
		    NULL && !conf_listens_on(cfg, &old->rules[i].listen_addr))
			socket_file_remove(path);
	if (old->stats_path == NULL || (cfg != NULL &&
	    cfg->stats_path != NULL &&
	    strcmp(cfg->stats_path, old->stats_path) == 0))
		return;
	socket_file_remove(old->stats_path);
}

/* Whether old and new forward the same way: a session may move. */
static bool
same_udp_rule(const struct rule *a, const struct rule *b)
{
	return a->protocol == RULE_UDP && b->protocol == RULE_UDP &&
	    a->connect_protocol == b->connect_protocol &&
	    a->framing == b->framing &&
	    addr_equal(&a->listen_addr, &b->listen_addr) &&
	    strcmp(a->connect, b->connect) == 0 &&
	    (a->source == NULL) == (b->source == NULL) &&
	    (a->source == NULL || strcmp(a->source, b->source) == 0);
}

/*
 * For the sessions the old generation will hand over: which rule of cfg
 * each UDP rule of the running configuration is (-1: none; its sessions
 * end with it).
 */
static void
master_map_udp_rules(struct master *m, const struct conf *cfg)
{
	struct rule_map		*map;
	const struct rule	*r;
	size_t			 i;

	free(m->reload.udp_map);
	m->reload.udp_map = NULL;
	m->reload.udp_nmap = 0;
	map = conf_rule_map_new(cfg);
	if (map == NULL ||
	    (m->reload.udp_map = calloc(m->cfg->nrules, sizeof(int))) == NULL) {
		conf_rule_map_free(map);
		return;
	}
	m->reload.udp_nmap = m->cfg->nrules;
	for (i = 0; i < m->cfg->nrules; i++) {
		r = conf_rule_map_find(map, &m->cfg->rules[i]);
		m->reload.udp_map[i] = r != NULL &&
		    same_udp_rule(&m->cfg->rules[i], r) ?
		    (int)(r - cfg->rules) : -1;
	}
	conf_rule_map_free(map);
}

/*
 * An old worker handed a UDP session over: pass it, with its socket, to
 * its new home.  The descriptor is closed by the caller either way.
 */
static void
master_pass_session(struct master *m, const struct child *from,
    struct ipc_msg *msg)
{
	struct udp_handover	 h;
	struct child		*c;
	int			 slot;

	if (msg->nfds != 1 || !udp_handover_read(&h, msg->data, msg->len))
		return;
	c = master_new_home(m, from, &h.rule, udp_handover_port(&h), &slot);
	if (slot != -1 && (c == NULL || ipc_send_wait(c->chan,
	    IPC_UDP_SESSION, &h, sizeof(h), msg->fds, 1,
	    HANDOVER_PASS_MS) == -1))
		log_warn("cannot pass a UDP session to worker %d: %s", slot,
		    c == NULL ? "not running" : strerror(errno));
}

/*
 * An old worker passed on a datagram it had no session for: to the new
 * worker that holds, or will hold, its client's session.
 */
static void
master_pass_datagram(struct master *m, const struct child *from,
    struct ipc_msg *msg)
{
	static struct log_limit	 limit;
	struct udp_passed	 h;
	struct child		*c;
	int			 slot;

	if (msg->len < sizeof(h))
		return;
	memcpy(&h, msg->data, sizeof(h));
	c = master_new_home(m, from, &h.rule, udp_passed_port(&h), &slot);
	memcpy(msg->data, &h, sizeof(h));
	if (slot != -1 && (c == NULL || ipc_send_wait(c->chan,
	    IPC_UDP_DATAGRAM, msg->data, msg->len, NULL, 0,
	    DATAGRAM_PASS_MS) == -1))
		log_limited_at(&limit, LOG_LEVEL_WARNING, "cannot pass a UDP "
		    "datagram to worker %d: %s", slot, c == NULL ?
		    "not running" : strerror(errno));
}

/* Steer connections and datagrams to the current generation's slots. */
static void
master_steer(struct master *m)
{
	char err[CONF_ERR_MAX];

	m->reload.steer_pending = false;
	event_timer_cancel(m->loop, &m->reload.steer_end);
	if (m->ls == NULL)
		return;		/* stopping: the sockets are closed */
	if (listen_set_steer(m->ls, m->cfg, m->skip, err, sizeof(err)) == -1)
		log_warn("%s; connections queued on sockets of retired worker "
		    "slots may be reset", err);
}

/* Old workers that do not say they pass datagrams on, in time. */
static void
master_on_steer_end(struct event_timer *t, void *data)
{
	struct master *m = data;

	(void)t;
	if (m->stopping || !m->reload.steer_pending)
		return;
	log_warn("old workers did not stop making UDP sessions in %d s; "
	    "steering to the new ones anyway", PASS_ACK_MS / 1000);
	master_steer(m);
}

/*
 * c answered IPC_UDP_PASS, or can no longer (it exited): once every old
 * worker has, the kernel may steer anew.
 */
static void
master_pass_answered(struct master *m, struct child *c)
{
	if (!c->pass_asked)
		return;
	c->pass_asked = false;
	if (m->reload.steer_pending && --m->reload.pass_waiting <= 0)
		master_steer(m);
}

/*
 * Before a reload that changes the number of workers steers datagrams
 * anew, every old worker must stop making sessions: from then on a
 * client's datagrams may reach another old worker than its session's.
 * Returns true when the steering waits for them (master_steer later).
 */
static bool
master_pass_first(struct master *m, const struct conf *cfg)
{
	struct child *c;

	if (m->cfg->workers == cfg->workers || !conf_has_udp(m->cfg))
		return false;
	m->reload.pass_waiting = 0;
	/* Older ones receive no datagram any more: they handed over. */
	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == m->gen && c->chan != -1 && ipc_send(c->chan,
		    IPC_UDP_PASS, NULL, 0, NULL, 0) == 0) {
			c->pass_asked = true;
			m->reload.pass_waiting++;
		}
	if (m->reload.pass_waiting == 0)
		return false;
	m->reload.steer_pending = true;
	if (event_timer_arm(m->loop, &m->reload.steer_end, clock_ms() +
	    PASS_ACK_MS) == -1)
		master_steer(m);	/* no timer to wait with: now */
	return m->reload.steer_pending;
}

/*
 * The logs cfg names, switched to from the running configuration's:
 * log_file, log_level, access_log.
 */
static void
master_switch_logs(struct master *m, const struct conf *cfg)
{
	char err[CONF_ERR_MAX];

	if (cfg->log_file != NULL && (m->cfg->log_file == NULL ||
	    strcmp(cfg->log_file, m->cfg->log_file) != 0) &&
	    log_open(LOG_TO_FILE, cfg->log_file, err, sizeof(err)) == -1)
		log_err("%s; logging on where we did", err);
	/* log_file removed: log where a start without it would. */
	if (cfg->log_file == NULL && m->cfg->log_file != NULL)
		log_open(m->opt->foreground ? LOG_TO_STDERR : LOG_TO_SYSLOG,
		    NULL, NULL, 0);
	if (m->opt->log_level == -1)
		log_set_level(cfg->log_level);
	if (master_open_access_log(cfg, m->cfg, err, sizeof(err)) == -1)
		log_err("%s; access lines go where they went", err);
}

/* The shared tables cfg needs, keeping what stays of the running one's. */
static void
master_map_tables(struct master *m, const struct conf *cfg)
{
	/* Backends that stay keep their health (passive and checked). */
	if (health_table_new(cfg, m->cfg) == -1)
		log_err("cannot map the health table: %s; every backend "
		    "counts as up", strerror(errno));
	if (stats_table_new(cfg, m->cfg, m->gen + 1) == -1)
		log_err("cannot map the counters of generation %u: %s; they "
		    "go uncounted", m->gen + 1, strerror(errno));
	/* Mapped by the first configuration that limits clients. */
	if (client_limit_wanted(cfg->rules, cfg->nrules) &&
	    client_limit_open() == -1)
		log_err("cannot map the tables of clients: %s; "
		    "max_connections_per_client and connection_rate do "
		    "not apply", strerror(errno));
}

int
master_fit_fdlimit(struct conf *cfg, char *err, size_t errlen)
{
	int rc = fdlimit_raise(cfg, err, errlen);

	if (rc == 1)
		log_warn("%s", err);
	return rc == -1 ? -1 : 0;
}

/*
 * Start a new generation of workers for cfg (ours from now on), if its
 * sockets can be bound.  The old generation keeps serving until
 * master_advance() sees the new one ready.  On any error the running
 * configuration stays exactly as it is.
 */
void
master_apply(struct master *m, struct conf *cfg)
{
	struct listen_set *ls;
	struct slot       *slots;
	char               err[CONF_ERR_MAX];
	int                i;

	if ((slots = master_slots_new(m, cfg->workers)) == NULL) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	/* The reload before this one's, while the set has its sockets. */
	if (m->reload.steer_pending)
		master_steer(m);
	if (master_fit_fdlimit(cfg, err, sizeof(err)) == -1 ||
	    (ls = listen_set_open(cfg, m->ls, m->cfg, m->ls->mode, err,
	    sizeof(err))) == NULL) {
		free(slots);	/* none armed yet */
		goto fail;
	}
	master_map_tables(m, cfg);
	if (!master_pass_first(m, cfg) &&
	    listen_set_steer(ls, cfg, NULL, err, sizeof(err)) == -1)
		log_warn("%s; connections queued on sockets of retired worker "
		    "slots may be reset", err);
	master_switch_logs(m, cfg);
	/*
	 * What the new set did not take over belongs to removed rules or
	 * retired slots: the old workers hold their own copies until they
	 * have emptied them, and the new workers must not inherit them.
	 */
	listen_set_close(m->ls);
	master_socket_files_forget(m->cfg, cfg);
	master_map_udp_rules(m, cfg);
	/* Re-resolved from the running text: it goes on with it. */
	if (cfg->text == NULL)
		conf_move_text(cfg, m->cfg);
	master_slots_set(m, slots, cfg->workers);
	conf_free(m->cfg);
	/* The new set was steered without skips: its workers are new. */
	memset(m->skip, 0, sizeof(m->skip));
	m->ls = ls;
	m->cfg = cfg;
	m->gen++;
	m->gen_started = clock_ms();
	master_set_budgets(m, cfg);
	for (i = 0; i < cfg->workers; i++)
		master_spawn(m, i);
	/* A new checker: the old one's probes are of the old rules. */
	master_stop_checker(m, SIGTERM);
	master_spawn_checker(m);
	log_notice("configuration reloaded: %zu rule(s), %d worker(s), "
	    "generation %u", cfg->nrules, cfg->workers, m->gen);
	master_status_start(m);
	(void)event_timer_arm(m->loop, &m->reload.gen_late, m->gen_started +
	    RELOAD_STUCK_MS);
	return;
fail:
	conf_free(cfg);
	master_tell(m, false, "%s", err);
}

void
master_apply_resolved(struct master *m, struct conf *cfg)
{
	if (m->stopping) {
		conf_free(cfg);
		return;
	}
	log_notice("backend names resolve to more or fewer addresses; "
	    "applying them as a reload");
	m->outcome.ncovered = 0;	/* nobody asked for it */
	master_apply(m, cfg);
}

/*
 * Loading a configuration looks its names up: the resolver does that in
 * a child (resolver.h), and the master loads it again with the answers,
 * so that a name server that does not answer never stops the master.
 */
static int
master_load_work(void *arg, char *err, size_t errlen)
{
	const struct master	*m = arg;
	struct conf		*cfg;

	cfg = conf_load_as(m->opt->config_path, m->opt->config_syntax,
	    m->opt->sslh, err, errlen);
	conf_free(cfg);
	return cfg != NULL ? 0 : -1;
}

/* The file's names are looked up: load it with the answers and apply. */
static void
master_load_done(const char *lookup_err, void *arg)
{
	struct master	*m = arg;
	struct conf	*cfg = NULL;
	char		 err[CONF_ERR_MAX];

	if (m->stopping)
		return;
	if (lookup_err != NULL)
		snprintf(err, sizeof(err), "%s", lookup_err);
	else
		cfg = conf_load_as(m->opt->config_path,
		    m->opt->config_syntax, m->opt->sslh, err, sizeof(err));
	if (cfg == NULL)
		master_tell(m, false, "%s", err);
	else
		master_apply(m, cfg);
}

/* Load the file again and, if it is valid, apply it. */
static void
master_reload(struct master *m)
{
	char err[CONF_ERR_MAX];

	event_timer_cancel(m->loop, &m->reload.stuck);
	/* This reload answers every request made until now. */
	memcpy(m->outcome.covered, m->outcome.asked, m->outcome.nasked *
	    sizeof(*m->outcome.asked));
	m->outcome.ncovered = m->outcome.nasked;
	m->outcome.nasked = 0;
	log_notice("reloading %s", m->opt->config_path);
	if (resolver_start(&m->names.resolver, master_load_work,
	    master_load_done, m, RESOLVE_MAX_MS, err, sizeof(err)) == -1)
		master_tell(m, false, "%s", err);
}

/* Every slot has a worker of the current generation that is accepting. */
static bool
master_generation_ready(const struct master *m)
{
	struct child *c;
	int           ready = 0;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == m->gen && c->state == CHILD_READY)
			ready++;
	return ready >= m->cfg->workers;
}

/* A worker of an older generation still accepts: a reload is under way. */
static bool
master_old_accepting(const struct master *m)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen != m->gen && c->accepting)
			return true;
	return false;
}

bool
master_reload_busy(const struct master *m)
{
	return m->reload.pending || resolver_busy(&m->names.resolver) ||
	    !master_generation_ready(m) || master_old_accepting(m);
}

/*
 * A reload waits for the generation before it to be ready, but must not
 * wait forever for one that never gets there: the reload may be what
 * fixes it, and the old generation serves meanwhile.
 */
static void
master_on_reload_stuck(struct event_timer *t, void *data)
{
	struct master *m = data;

	(void)t;
	if (m->stopping || !m->reload.pending)
		return;
	if (master_generation_ready(m) || resolver_busy(&m->names.resolver)) {
		/* Waiting for old workers, which always end: look again. */
		(void)event_timer_arm(m->loop, &m->reload.stuck, clock_ms() +
		    RELOAD_RETRY_MS);
		return;
	}
	log_warn("generation %u is not ready after %d s; reloading anyway",
	    m->gen, RELOAD_STUCK_MS / 1000);
	m->reload.pending = false;
	master_reload(m);
}

void
master_reload_init(struct master *m)
{
	resolver_init(&m->names.resolver, m->loop);
	event_timer_init(&m->reload.stuck, master_on_reload_stuck, m);
	event_timer_init(&m->reload.steer_end, master_on_steer_end, m);
	event_timer_init(&m->reload.gen_late, master_on_gen_late, m);
}

void
master_reload_queue(struct master *m, const int *asked, size_t n)
{
	size_t i;

	if (m->stopping) {
		/* Whoever waits for these is told at once. */
		memcpy(m->outcome.covered, asked, (n < OUTCOME_COVERS_MAX ? n :
		    OUTCOME_COVERS_MAX) * sizeof(*asked));
		m->outcome.ncovered = n < OUTCOME_COVERS_MAX ? n :
		    OUTCOME_COVERS_MAX;
		if (n > 0)
			master_tell(m, false, "ferryd is stopping");
		return;
	}
	for (i = 0; i < n && m->outcome.nasked < OUTCOME_COVERS_MAX; i++)
		m->outcome.asked[m->outcome.nasked++] = asked[i];
	log_debug("SIGHUP: reload queued");
	m->reload.pending = true;
	if (!event_timer_armed(&m->reload.stuck))
		(void)event_timer_arm(m->loop, &m->reload.stuck,
		    m->gen_started + RELOAD_STUCK_MS);
}

/* Tell old worker c to drain, handing its UDP sessions over. */
static void
master_drain_child(struct master *m, struct child *c)
{
	BUG_ON(c->gen == m->gen || c->state == CHILD_DRAINING);
	c->state = CHILD_DRAINING;
	/* The worker cuts at shutdown_timeout itself; this is the backstop. */
	if (m->cfg->shutdown_timeout > 0)
		(void)event_timer_arm(m->loop, &c->drain_end, clock_ms() +
		    m->cfg->shutdown_timeout + DRAIN_GRACE_MS);
	/* SIGQUIT if it cannot hear. */
	if (c->chan == -1 || ipc_send(c->chan, IPC_HANDOVER, NULL, 0, NULL,
	    0) == -1)
		kill(c->pid, SIGQUIT);
}

/*
 * Once no old worker receives any more, and every session it had is in
 * the channels ahead of this, the new generation may receive datagrams.
 */
static void
master_udp_go(struct master *m)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == m->gen && c->state == CHILD_READY &&
		    !c->udp_go && c->chan != -1)
			c->udp_go = ipc_send(c->chan, IPC_UDP_GO, NULL, 0,
			    NULL, 0) == 0;
}

void
master_advance(struct master *m)
{
	struct child *c;
	bool          old_accepting = false;

	if (m->stopping)
		return;
	if (!master_generation_ready(m)) {
		if (m->reload.pending)
			log_debug("reload waits for generation %u to be ready",
			    m->gen);
		return;
	}
	if (!m->started) {
		m->started = true;
		daemon_ready();
	}
	master_tell_ready(m);
	TAILQ_FOREACH(c, &m->children, link) {
		if (c->gen == m->gen)
			continue;
		/*
		 * An old worker that stopped receiving before the kernel
		 * steers anew would leave datagrams on its socket that the
		 * old steering put there for another worker's clients.
		 */
		if (c->state != CHILD_DRAINING && m->reload.steer_pending) {
			old_accepting = true;
			continue;
		}
		if (c->state != CHILD_DRAINING)
			master_drain_child(m, c);
		if (c->accepting) {
			if (m->reload.pending)
				log_debug("reload waits for worker %d (pid %ld, "
				    "generation %u) to stop accepting", c->slot,
				    (long)c->pid, c->gen);
			old_accepting = true;
		}
	}
	if (!old_accepting && !m->reload.steer_pending)
		master_udp_go(m);
	/*
	 * One at a time.  A reload looks every name up itself, so the
	 * periodic lookups under way (maybe of a name server that does not
	 * answer) give way to it rather than hold it up.
	 */
	if (m->reload.pending && m->names.periodic) {
		resolver_cancel(&m->names.resolver);
		m->names.periodic = false;
	}
	if (m->reload.pending && !old_accepting &&
	    !resolver_busy(&m->names.resolver)) {
		m->reload.pending = false;
		master_reload(m);
	}
}

/* IPC_READY from c: it accepts; its slot may have been skipped. */
static void
master_child_ready(struct master *m, struct child *c)
{
	char err[CONF_ERR_MAX];

	c->state = CHILD_READY;
	if (c->gen == m->gen && m->skip[c->slot] && m->ls != NULL) {
		m->skip[c->slot] = false;
		if (listen_set_steer(m->ls, m->cfg, m->skip, err,
		    sizeof(err)) == -1)
			log_warn("%s", err);
	}
}

/* Read what c says on its channel until it has nothing more. */
static void
master_read_channel(struct master *m, struct child *c)
{
	struct ipc_msg msg;
	int            i, rc;

	while ((rc = ipc_recv(c->chan, &msg)) == 1) {
		if (msg.type == IPC_UDP_SESSION)
			master_pass_session(m, c, &msg);
		else if (msg.type == IPC_UDP_DATAGRAM)
			master_pass_datagram(m, c, &msg);
		else if (msg.type == IPC_UDP_FOLLOW)
			master_follow_ask(m, c, &msg);
		else if (msg.type == IPC_UDP_FOLLOWED)
			master_follow_answer(m, c, &msg);
		else if (msg.type == IPC_UDP_PASSING)
			master_pass_answered(m, c);
		else if (msg.type == IPC_READY && c->state == CHILD_STARTING)
			master_child_ready(m, c);
		else if (msg.type == IPC_DRAINING)
			c->accepting = false;
		else if (msg.type == IPC_SESSIONS_PART)
			master_sessions_part(m, c, &msg);
		for (i = 0; i < msg.nfds; i++)
			close(msg.fds[i]);
	}
	if (rc == 0 || (rc == -1 && errno != EAGAIN)) {
		master_pass_answered(m, c);
		master_sessions_gone(m, c);
		master_child_close_chan(m, c);	/* it exited */
	}
}

void
master_reload_hear(struct master *m)
{
	struct child *c, *next;

	for (c = TAILQ_FIRST(&m->children); c != NULL; c = next) {
		next = TAILQ_NEXT(c, link);
		if (!c->heard)
			continue;
		c->heard = false;
		if (c->chan != -1)
			master_read_channel(m, c);
	}
}

void
master_reload_child_gone(struct master *m, struct child *c)
{
	/*
	 * What it said before it exited is still ours to read: the UDP
	 * sessions it handed over, with their sockets.
	 */
	if (c->chan != -1)
		master_read_channel(m, c);
	master_pass_answered(m, c);
	master_sessions_gone(m, c);
}

void
master_reload_free(struct master *m)
{
	resolver_cancel(&m->names.resolver);
	free(m->reload.udp_map);
	m->reload.udp_map = NULL;
	m->reload.udp_nmap = 0;
}
