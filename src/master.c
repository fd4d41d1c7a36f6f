/*
 * master.c - worker slots and generations, signals, respawn with backoff,
 * stop.  The master never touches a connection: it binds the listen set,
 * forks one worker per slot, and keeps every listening socket open so that
 * the kernel queues connections for a slot whose worker is being replaced.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accesslog.h"
#include "addr.h"
#include "clock.h"
#include "checker.h"
#include "client_limit.h"
#include "daemon.h"
#include "fdlimit.h"
#include "health.h"
#include "ipc.h"
#include "listen.h"
#include "log.h"
#include "master.h"
#include "pidfile.h"
#include "scoreboard.h"
#include "stats.h"
#include "sandbox.h"
#include "sig.h"
#include "udp_pass.h"
#include "udp_handover.h"
#include "worker.h"

#define RESPAWN_FAST_MS   1000	/* dying sooner than this is "crashing" */
#define RESPAWN_FIRST_MS  100
#define RESPAWN_MAX_MS    5000
#define STOP_GRACE_MS     5000	/* TERM: then SIGKILL the stragglers */
#define RELOAD_STUCK_MS   10000	/* a generation not ready by then... */
#define STATS_SAMPLE_MS   1000	/* the counters sampled for rates */
#define WATCHDOG_CHECK_MS 1000	/* how often heartbeats are looked at */
#define HANDOVER_PASS_MS  2000	/* a new worker's channel full that long */
#define DATAGRAM_PASS_MS  200	/* ... for a passed datagram */
#define PASS_ACK_MS       10000	/* old workers' IPC_UDP_PASSING, at most */

enum child_state {
	CHILD_STARTING,		/* forked, has not said IPC_READY yet */
	CHILD_READY,		/* accepting */
	CHILD_DRAINING		/* told to stop accepting and finish */
};

struct child {
	TAILQ_ENTRY(child) link;
	pid_t              pid;
	int                slot;
	unsigned           gen;
	enum child_state   state;
	int                chan;	/* our end of its channel, or -1 */
	int                cell;	/* its scoreboard cell, or -1 */
	bool               accepting;	/* has not said IPC_DRAINING yet */
	bool               terminated;	/* sent SIGTERM at drain_deadline */
	bool               hung;	/* killed by the watchdog */
	bool               udp_go;	/* told to receive UDP */
	bool               pass_asked;	/* IPC_UDP_PASS, not answered yet */
	int64_t            started;
	int64_t            drain_deadline;
};

struct slot {
	int64_t respawn_at;	/* -1: running or not needed */
	int     delay_ms;	/* backoff for the next crash */
};

/* The health checker (checker.h), when a rule has health_check. */
struct checker_proc {
	pid_t   pid;		/* 0: none running */
	int     chan;		/* our end of its lifeline, or -1 */
	int64_t started;
	struct slot respawn;
};

struct master {
	struct conf        *cfg;
	const struct options *opt;
	struct listen_set    *ls;
	TAILQ_HEAD(, child)   children;
	struct slot          *slots;	/* cfg->workers of them */
	unsigned              gen;
	int64_t               gen_started;
	bool                  reload_pending;
	int                   stopping;	/* 0, or the signal that stops us */
	int64_t               stop_deadline;
	int64_t               watchdog_at;	/* next heartbeat check */
	bool                  skip[MAX_WORKERS];	/* hung: steered around */
	bool                  started;	/* the first generation accepted */
	int                  *udp_map;	/* old gen's rule -> ours, or -1 */
	size_t                udp_nmap;
	/*
	 * A reload that changes the worker count steers anew only once the
	 * old workers pass datagrams on (IPC_UDP_PASS), or at steer_at.
	 */
	bool                  steer_pending;
	int                   pass_waiting;	/* acknowledgements to come */
	int64_t               steer_at;
	struct checker_proc   checker;
	int64_t               resolve_at;	/* names resolved again */
	int64_t               sample_at;	/* counters sampled for rates */
	int                   status;	/* exit status */
};

static void master_pass_answered(struct master *, struct child *);

static void
child_close_chan(struct child *c)
{
	if (c->chan != -1)
		close(c->chan);
	c->chan = -1;
	c->accepting = false;
}

/*
 * In a new child: close the master's ends of the other children's
 * channels, which would otherwise keep their lifelines up.
 */
static void
master_forget_chans(struct master *m)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->chan != -1)
			close(c->chan);
	if (m->checker.chan != -1)
		close(m->checker.chan);
}

/* Start a worker of the current generation for slot. */
static void
master_spawn(struct master *m, int slot)
{
	struct child        *c;
	struct worker_start  ws;
	pid_t                pid, master = getpid();
	int                  chan[2];

	c = calloc(1, sizeof(*c));
	if (c == NULL || ipc_pair(chan) == -1) {
		log_err("cannot start worker %d: %s", slot, strerror(errno));
		free(c);
		m->slots[slot].respawn_at = clock_ms() + RESPAWN_MAX_MS;
		return;
	}
	c->cell = scoreboard_take();
	client_limit_table_start(c->cell);
	/* No signal may reach the child before it has its own pipe. */
	sig_block_all(1);
	pid = fork();
	if (pid == 0) {
		close(chan[0]);
		master_forget_chans(m);
		ws.cfg = m->cfg;
		ws.ls = m->ls;
		ws.slot = slot;
		ws.gen = m->gen;
		ws.chan = chan[1];
		ws.cell = c->cell;
		ws.master = master;
		worker_run(&ws);
	}
	sig_block_all(0);
	close(chan[1]);
	if (pid == -1) {
		log_err("cannot start worker %d: fork: %s", slot,
		    strerror(errno));
		close(chan[0]);
		client_limit_table_gone(c->cell);
		scoreboard_give(c->cell);
		free(c);
		m->slots[slot].respawn_at = clock_ms() + RESPAWN_MAX_MS;
		return;
	}
	c->pid = pid;
	c->slot = slot;
	c->gen = m->gen;
	c->state = CHILD_STARTING;
	c->chan = chan[0];
	c->accepting = true;
	c->started = clock_ms();
	m->slots[slot].respawn_at = -1;
	TAILQ_INSERT_TAIL(&m->children, c, link);
	log_debug("worker %d started (pid %ld, generation %u)", slot,
	    (long)pid, m->gen);
}

/* How process pid ended, for a log line; with the call a filter stopped. */
static void
describe_status(pid_t pid, int status, char *buf, size_t len)
{
	char call[64];

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS &&
	    sandbox_report(pid, call, sizeof(call)))
		snprintf(buf, len, "killed by the seccomp filter for %s, "
		    "which ferryd never makes there (a bug to report, or an "
		    "attack; seccomp = false turns the filter off)", call);
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
}

/*
 * A process started at started died: when to start the next, at once
 * unless it keeps dying fast (then backing off, doubling up to a limit).
 */
static void
slot_backoff(struct slot *s, int64_t started)
{
	int64_t now = clock_ms();

	if (now - started < RESPAWN_FAST_MS)
		s->delay_ms = s->delay_ms == 0 ? RESPAWN_FIRST_MS :
		    s->delay_ms * 2 > RESPAWN_MAX_MS ? RESPAWN_MAX_MS :
		    s->delay_ms * 2;
	else
		s->delay_ms = 0;
	s->respawn_at = now + s->delay_ms;
}

/* A worker of the current generation died: schedule its replacement. */
static void
master_schedule_respawn(struct master *m, const struct child *c, int status)
{
	struct slot *s = &m->slots[c->slot];
	char         how[256];

	describe_status(c->pid, status, how, sizeof(how));
	slot_backoff(s, c->started);
	if (s->delay_ms == 0)
		log_err("worker %d (pid %ld) %s; respawning", c->slot,
		    (long)c->pid, how);
	else
		log_err("worker %d (pid %ld) %s; respawning in %d ms", c->slot,
		    (long)c->pid, how, s->delay_ms);
}

static void master_stop(struct master *, int);
static void master_read_channel(struct master *, struct child *);

/*
 * A worker died before the first generation was accepting: the
 * configuration or the system does not let it run (it logged why), and
 * starting over would fail the same way.  Say so to whoever started us.
 */
static void
master_start_failed(struct master *m, const struct child *c, int status)
{
	char how[256], why[CONF_ERR_MAX];

	describe_status(c->pid, status, how, sizeof(how));
	snprintf(why, sizeof(why), "worker %d (pid %ld) %s while starting; "
	    "see the log", c->slot, (long)c->pid, how);
	log_err("%s", why);
	daemon_fail(why);
	m->status = 1;
	master_stop(m, SIGTERM);
}

/* Start the health checker for the current configuration, if it has one. */
static void
master_spawn_checker(struct master *m)
{
	struct checker_proc *ck = &m->checker;
	pid_t                pid, master = getpid();
	int                  chan[2];

	ck->respawn.respawn_at = -1;
	if (!checker_needed(m->cfg))
		return;
	if (ipc_pair(chan) == -1) {
		log_err("cannot start the health checker: %s", strerror(errno));
		ck->respawn.respawn_at = clock_ms() + RESPAWN_MAX_MS;
		return;
	}
	sig_block_all(1);
	pid = fork();
	if (pid == 0) {
		close(chan[0]);
		master_forget_chans(m);
		/* It needs no listening socket: binding is the master's. */
		listen_set_close(m->ls);
		checker_run(m->cfg, chan[1], master);
	}
	sig_block_all(0);
	close(chan[1]);
	if (pid == -1) {
		log_err("cannot start the health checker: fork: %s",
		    strerror(errno));
		close(chan[0]);
		ck->respawn.respawn_at = clock_ms() + RESPAWN_MAX_MS;
		return;
	}
	ck->pid = pid;
	ck->chan = chan[0];
	ck->started = clock_ms();
	log_debug("health checker started (pid %ld)", (long)pid);
}

/* Stop the checker; a reload starts the next generation's. */
static void
master_stop_checker(struct master *m, int signo)
{
	struct checker_proc *ck = &m->checker;

	if (ck->pid > 0)
		kill(ck->pid, signo);
	if (ck->chan != -1)
		close(ck->chan);
	ck->chan = -1;
	/* Reaped as a stranger, unless we are stopping and wait for it. */
	if (!m->stopping)
		ck->pid = 0;
	ck->respawn.respawn_at = -1;
}

/* The checker died (pid, status): replace it, unless we are stopping. */
static bool
master_reap_checker(struct master *m, pid_t pid, int status)
{
	struct checker_proc *ck = &m->checker;
	char                 how[256];

	if (ck->pid <= 0 || pid != ck->pid)
		return false;
	ck->pid = 0;
	if (ck->chan != -1)
		close(ck->chan);
	ck->chan = -1;
	if (m->stopping)
		return true;
	describe_status(pid, status, how, sizeof(how));
	slot_backoff(&ck->respawn, ck->started);
	log_err("health checker (pid %ld) %s; respawning%s; workers keep the "
	    "last known health", (long)pid, how,
	    ck->respawn.delay_ms > 0 ? " after a delay" : "");
	return true;
}

/* Whether a worker of generation gen is still running. */
static bool
generation_alive(unsigned gen, void *arg)
{
	const struct master	*m = arg;
	const struct child	*c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == gen)
			return true;
	return false;
}

static void
master_reap(struct master *m)
{
	struct child *c;
	pid_t         pid;
	int           status;
	char          how[256];

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (master_reap_checker(m, pid, status))
			continue;
		TAILQ_FOREACH(c, &m->children, link)
			if (c->pid == pid)
				break;
		if (c == NULL)
			continue;
		/*
		 * What it said before it exited is still ours to read: the
		 * UDP sessions it handed over, with their sockets.
		 */
		if (c->chan != -1)
			master_read_channel(m, c);
		TAILQ_REMOVE(&m->children, c, link);
		master_pass_answered(m, c);
		child_close_chan(c);
		/* Its connections are gone: so are its clients' counts. */
		client_limit_table_gone(c->cell);
		scoreboard_give(c->cell);
		stats_worker_gone(c->gen, c->slot);
		if (!m->started && !m->stopping)
			master_start_failed(m, c, status);
		else if (!m->stopping && c->gen == m->gen)
			master_schedule_respawn(m, c, status);
		else {
			describe_status(c->pid, status, how, sizeof(how));
			log_debug("worker %d (pid %ld, generation %u) %s",
			    c->slot, (long)c->pid, c->gen, how);
		}
		free(c);
	}
	stats_settle(generation_alive, m);
}

static void
master_signal_children(struct master *m, int signo)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		kill(c->pid, signo);
	if (m->checker.pid > 0)
		kill(m->checker.pid, signo);
}

/*
 * The file of old's unix: stats socket goes, unless cfg (NULL at a stop)
 * keeps the same socket.
 */
static void
stats_socket_forget(const struct conf *old, const struct conf *cfg)
{
	if (old->stats_path == NULL || (cfg != NULL &&
	    cfg->stats_path != NULL &&
	    strcmp(cfg->stats_path, old->stats_path) == 0))
		return;
	if (unlink(old->stats_path) == -1 && errno != ENOENT)
		log_warn("cannot remove %s: %s", old->stats_path,
		    strerror(errno));
}

static void
master_stop(struct master *m, int signo)
{
	if (m->stopping)
		return;
	m->stopping = signo;
	if (m->status == 0)
		log_notice("received %s, %s", strsignal(signo), signo == SIGQUIT ?
		    "stopping gracefully" : "stopping");
	m->stop_deadline = clock_ms() + STOP_GRACE_MS +
	    (signo == SIGQUIT ? m->cfg->shutdown_timeout : 0);
	master_signal_children(m, signo == SIGQUIT ? SIGQUIT : SIGTERM);
	/*
	 * A stop is not a reload: nobody will accept from these sockets
	 * again, so let new clients be refused now rather than wait in a
	 * queue until we exit.
	 */
	listen_set_close(m->ls);
	m->ls = NULL;
	stats_socket_forget(m->cfg, NULL);
}

/*
 * Open access_log if it is new in cfg (old: the running configuration, or
 * NULL at start), close it if it went.  Workers forked later inherit it.
 */
static int
master_open_access_log(const struct conf *cfg, const struct conf *old,
    char *err, size_t errlen)
{
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

	free(m->udp_map);
	m->udp_nmap = 0;
	map = conf_rule_map_new(cfg);
	if (map == NULL ||
	    (m->udp_map = calloc(m->cfg->nrules, sizeof(int))) == NULL) {
		conf_rule_map_free(map);
		return;
	}
	m->udp_nmap = m->cfg->nrules;
	for (i = 0; i < m->cfg->nrules; i++) {
		r = conf_rule_map_find(map, &m->cfg->rules[i]);
		m->udp_map[i] = r != NULL && same_udp_rule(&m->cfg->rules[i],
		    r) ? (int)(r - cfg->rules) : -1;
	}
	conf_rule_map_free(map);
}

/*
 * Where a session (or a datagram of one) of an old worker goes: the new
 * worker that the kernel gives the datagrams of a client at port to.
 * *rule, the old configuration's rule number, becomes the new one's.
 * NULL, with *slot -1, when the rule is gone (and the session with it);
 * NULL with the slot when its worker is not running.
 */
static struct child *
master_new_home(struct master *m, const struct child *from, uint32_t *rule,
    unsigned port, int *slot)
{
	struct child *c;

	*slot = -1;
	if (m->stopping || from->gen + 1 != m->gen || *rule >= m->udp_nmap ||
	    m->udp_map[*rule] == -1)
		return NULL;
	*rule = (uint32_t)m->udp_map[*rule];
	if ((*slot = listen_slot_of_port(m->ls, port, m->skip)) == -1)
		*slot = from->slot % m->cfg->workers;
	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == m->gen && c->slot == *slot && c->chan != -1)
			return c;
	return NULL;
}

/*
 * An old worker handed a UDP session over: pass it, with its socket, to
 * its new home.  The descriptor is closed here either way.
 */
static void
master_pass_session(struct master *m, const struct child *from,
    struct ipc_msg *msg)
{
	struct udp_handover	 h;
	struct child		*c;
	int			 slot;

	if (msg->nfds != 1 || msg->len != sizeof(h))
		return;
	memcpy(&h, msg->data, sizeof(h));
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

	m->steer_pending = false;
	if (listen_set_steer(m->ls, m->cfg, m->skip, err, sizeof(err)) == -1)
		log_warn("%s; connections queued on sockets of retired worker "
		    "slots may be reset", err);
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
	if (m->steer_pending && --m->pass_waiting <= 0)
		master_steer(m);
}

/* Whether cfg has a rule that receives datagrams. */
static bool
conf_has_udp(const struct conf *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].protocol == RULE_UDP)
			return true;
	return false;
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
	m->pass_waiting = 0;
	/* Older ones receive no datagram any more: they handed over. */
	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == m->gen && c->chan != -1 && ipc_send(c->chan,
		    IPC_UDP_PASS, NULL, 0, NULL, 0) == 0) {
			c->pass_asked = true;
			m->pass_waiting++;
		}
	if (m->pass_waiting == 0)
		return false;
	m->steer_pending = true;
	m->steer_at = clock_ms() + PASS_ACK_MS;
	return true;
}

/*
 * Start a new generation of workers for cfg (ours from now on), if its
 * sockets can be bound.  The old generation keeps serving until
 * master_advance() sees the new one ready.  On any error the running
 * configuration stays exactly as it is.
 */
static void
master_apply(struct master *m, struct conf *cfg)
{
	struct listen_set *ls;
	struct slot       *slots;
	char               err[CONF_ERR_MAX];
	int                i;

	slots = calloc(cfg->workers, sizeof(*slots));
	if (slots == NULL) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (fdlimit_raise(cfg, err, sizeof(err)) == -1 ||
	    (ls = listen_set_open(cfg, m->ls, m->cfg, m->ls->mode, err,
	    sizeof(err))) == NULL) {
		free(slots);
		goto fail;
	}
	/* Backends that stay keep their health (passive and checked). */
	if (health_table_new(cfg, m->cfg) == -1)
		log_err("cannot map the health table: %s; every backend "
		    "counts as up", strerror(errno));
	if (stats_table_new(cfg, m->cfg, m->gen + 1) == -1)
		log_err("cannot map the counters of generation %u: %s; they "
		    "go uncounted", m->gen + 1, strerror(errno));
	/* Mapped by the first configuration that limits clients. */
	if (client_limit_wanted(cfg) && client_limit_open() == -1)
		log_err("cannot map the tables of clients: %s; "
		    "max_connections_per_client and connection_rate do "
		    "not apply", strerror(errno));
	if (m->steer_pending)
		master_steer(m);	/* the reload before this one's */
	if (!master_pass_first(m, cfg) &&
	    listen_set_steer(ls, cfg, NULL, err, sizeof(err)) == -1)
		log_warn("%s; connections queued on sockets of retired worker "
		    "slots may be reset", err);
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

	/*
	 * What the new set did not take over belongs to removed rules or
	 * retired slots: the old workers hold their own copies until they
	 * have emptied them, and the new workers must not inherit them.
	 */
	listen_set_close(m->ls);
	stats_socket_forget(m->cfg, cfg);
	master_map_udp_rules(m, cfg);
	/* Re-resolved from the running text: it goes on with it. */
	if (cfg->text == NULL)
		conf_move_text(cfg, m->cfg);
	conf_free(m->cfg);
	free(m->slots);
	/* The new set was steered without skips: its workers are new. */
	memset(m->skip, 0, sizeof(m->skip));
	m->ls = ls;
	m->cfg = cfg;
	m->slots = slots;
	m->gen++;
	m->gen_started = clock_ms();
	for (i = 0; i < cfg->workers; i++)
		master_spawn(m, i);
	/* A new checker: the old one's probes are of the old rules. */
	master_stop_checker(m, SIGTERM);
	master_spawn_checker(m);
	log_notice("configuration reloaded: %zu rule(s), %d worker(s), "
	    "generation %u", cfg->nrules, cfg->workers, m->gen);
	m->resolve_at = clock_ms() + cfg->resolve_interval;
	return;
fail:
	conf_free(cfg);
	log_err("reload failed: %s; keeping the running configuration", err);
}

/* Load the file again and, if it is valid, apply it. */
static void
master_reload(struct master *m)
{
	struct conf	*cfg;
	char		 err[CONF_ERR_MAX];

	log_notice("reloading %s", m->opt->config_path);
	cfg = conf_load_syntax(m->opt->config_path, m->opt->config_syntax,
	    err, sizeof(err));
	if (cfg == NULL)
		log_err("reload failed: %s; keeping the running configuration",
		    err);
	else
		master_apply(m, cfg);
}

/*
 * resolve_interval: the running configuration's own text (not the file,
 * which may hold edits not meant for now) loaded again, every name
 * resolved anew; applied as a reload when an address changed.
 */
static void
master_reresolve(struct master *m)
{
	static struct log_limit	 limit;
	struct conf		*cfg;
	char			 err[CONF_ERR_MAX];

	if ((cfg = conf_reresolve(m->cfg, err, sizeof(err))) == NULL) {
		log_limited_at(&limit, LOG_LEVEL_WARNING, "cannot resolve "
		    "backend names again: %s; keeping the addresses we have",
		    err);
		return;
	}
	if (conf_same_backends(cfg, m->cfg)) {
		conf_free(cfg);
		return;
	}
	log_notice("backend names resolve to new addresses; applying them");
	master_apply(m, cfg);
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

/*
 * Move reloads along: once the new generation accepts, tell the old one
 * to drain; once no old worker accepts any more, a queued reload may run.
 */
static void
master_advance(struct master *m)
{
	struct child *c;
	bool          old_accepting = false;

	if (m->stopping)
		return;
	if (master_generation_ready(m) && !m->started) {
		m->started = true;
		daemon_ready();
	}
	if (!master_generation_ready(m)) {
		if (m->reload_pending)
			log_debug("reload waits for generation %u to be ready",
			    m->gen);
		/*
		 * ...must not block the reload that fixes it: the old
		 * generation keeps serving until a new one is ready.
		 */
		if (m->reload_pending &&
		    clock_ms() - m->gen_started >= RELOAD_STUCK_MS) {
			log_warn("generation %u is not ready after %d s; "
			    "reloading anyway", m->gen, RELOAD_STUCK_MS / 1000);
			m->reload_pending = false;
			master_reload(m);
		}
		return;
	}
	TAILQ_FOREACH(c, &m->children, link) {
		if (c->gen == m->gen)
			continue;
		/*
		 * An old worker that stopped receiving before the kernel
		 * steers anew would leave datagrams on its socket that the
		 * old steering put there for another worker's clients.
		 */
		if (c->state != CHILD_DRAINING && m->steer_pending) {
			old_accepting = true;
			continue;
		}
		if (c->state != CHILD_DRAINING) {
			c->state = CHILD_DRAINING;
			c->drain_deadline = clock_ms() + m->cfg->shutdown_timeout;
			/* Drain, handing UDP sessions over; SIGQUIT if deaf. */
			if (c->chan == -1 || ipc_send(c->chan, IPC_HANDOVER,
			    NULL, 0, NULL, 0) == -1)
				kill(c->pid, SIGQUIT);
		}
		if (c->accepting) {
			if (m->reload_pending)
				log_debug("reload waits for worker %d (pid %ld, "
				    "generation %u) to stop accepting", c->slot,
				    (long)c->pid, c->gen);
			old_accepting = true;
		}
	}
	/*
	 * No old worker receives any more, and every session it had is in
	 * the channels ahead of this: the new generation may start, once
	 * the kernel steers datagrams to its slots.
	 */
	if (!old_accepting && !m->steer_pending)
		TAILQ_FOREACH(c, &m->children, link)
			if (c->gen == m->gen && c->state == CHILD_READY &&
			    !c->udp_go && c->chan != -1) {
				c->udp_go = ipc_send(c->chan, IPC_UDP_GO, NULL,
				    0, NULL, 0) == 0;
			}
	if (m->reload_pending && !old_accepting) {
		m->reload_pending = false;
		master_reload(m);
	}
}

/*
 * Read what a worker says on its channel: IPC_READY, IPC_DRAINING; end
 * of file when it exited.
 */
static void
master_read_channel(struct master *m, struct child *c)
{
	struct ipc_msg msg;
	int            i, rc;
	char           err[CONF_ERR_MAX];

	while ((rc = ipc_recv(c->chan, &msg)) == 1) {
		if (msg.type == IPC_UDP_SESSION)
			master_pass_session(m, c, &msg);
		else if (msg.type == IPC_UDP_DATAGRAM)
			master_pass_datagram(m, c, &msg);
		else if (msg.type == IPC_UDP_PASSING)
			master_pass_answered(m, c);
		for (i = 0; i < msg.nfds; i++)
			close(msg.fds[i]);
		if (msg.type == IPC_READY && c->state == CHILD_STARTING) {
			c->state = CHILD_READY;
			/* Its slot may have been skipped while it hung. */
			if (c->gen == m->gen && m->skip[c->slot]) {
				m->skip[c->slot] = false;
				if (listen_set_steer(m->ls, m->cfg, m->skip,
				    err, sizeof(err)) == -1)
					log_warn("%s", err);
			}
		} else if (msg.type == IPC_DRAINING)
			c->accepting = false;
	}
	if (rc == 0 || (rc == -1 && errno != EAGAIN)) {
		master_pass_answered(m, c);
		child_close_chan(c);	/* it exited */
	}
}

/*
 * SIGUSR1: the master reopens the log files, which may be root's, and
 * hands the new descriptors to every worker: a worker running as
 * another user could not reopen them itself.
 */
static void
master_reopen_logs(struct master *m)
{
	struct child *c;
	int           fds[2], n = 0;
	char          what[2];

	log_reopen();
	accesslog_reopen();
	if ((fds[n] = log_file_fd()) != -1)
		what[n++] = 'l';
	if ((fds[n] = accesslog_fd()) != -1)
		what[n++] = 'a';
	if (n == 0)
		return;
	TAILQ_FOREACH(c, &m->children, link)
		if (c->chan != -1 && ipc_send(c->chan, IPC_LOGS, what, n, fds,
		    n) == -1)
			log_warn("cannot hand the reopened logs to worker %d "
			    "(pid %ld): %s", c->slot, (long)c->pid,
			    strerror(errno));
	/*
	 * The checker has no channel to read: a new one inherits the
	 * reopened log.  Health state is in the table; nothing is lost.
	 */
	if (m->checker.pid > 0 && log_file_fd() != -1) {
		master_stop_checker(m, SIGTERM);
		master_spawn_checker(m);
	}
}

static void
master_handle_signals(struct master *m)
{
	sig_drain();
	/*
	 * A stop before the reaping: a Ctrl-C reaches the workers too, and
	 * those it ended are no deaths to respawn.
	 */
	if (sig_take(SIGTERM))
		master_stop(m, SIGTERM);
	if (sig_take(SIGINT))
		master_stop(m, SIGINT);
	if (sig_take(SIGQUIT))
		master_stop(m, SIGQUIT);
	if (sig_take(SIGCHLD))
		master_reap(m);
	if (sig_take(SIGUSR1))
		master_reopen_logs(m);
	/* Reloads run one at a time; one arriving meanwhile waits. */
	if (sig_take(SIGHUP) && !m->stopping) {
		log_debug("SIGHUP: reload queued");
		m->reload_pending = true;
	}
}

/* The earlier of two deadlines, where -1 means none. */
static int64_t
earliest(int64_t a, int64_t b)
{
	return a == -1 || (b != -1 && b < a) ? b : a;
}

/*
 * A worker of the current generation whose heartbeat is older than
 * watchdog_timeout is hung or stopped: steer new connections around its
 * slot, kill it, and let the respawn replace it (its slot is steered in
 * again once the new worker says it is ready).  A stopped process cannot
 * catch SIGTERM; SIGKILL ends it whatever state it is in.
 */
static void
master_watchdog(struct master *m, int64_t now)
{
	const struct scoreboard_cell *cell;
	struct child                 *c;
	char                          err[CONF_ERR_MAX];
	bool                          steer = false;

	TAILQ_FOREACH(c, &m->children, link) {
		if (c->gen != m->gen || c->state != CHILD_READY || c->hung ||
		    (cell = scoreboard_cell(c->cell)) == NULL ||
		    now - cell->heartbeat < m->cfg->watchdog_timeout)
			continue;
		log_err("worker %d (pid %ld) has not answered for %lld ms; "
		    "replacing it", c->slot, (long)c->pid,
		    (long long)(now - cell->heartbeat));
		c->hung = true;
		m->skip[c->slot] = true;
		steer = true;
		kill(c->pid, SIGKILL);
	}
	if (steer && listen_set_steer(m->ls, m->cfg, m->skip, err,
	    sizeof(err)) == -1)
		log_warn("%s; the hung worker's queue waits for its "
		    "replacement", err);
}

/* Do what is due; return ms until the next deadline, or -1. */
static int
master_timers(struct master *m)
{
	struct child *c;
	int64_t       now = clock_ms(), next = -1;
	int           i;

	if (m->stopping) {
		if (now >= m->stop_deadline) {
			log_warn("workers did not stop in time; killing them");
			master_signal_children(m, SIGKILL);
			m->stop_deadline = now + STOP_GRACE_MS;
		}
		return (int)(m->stop_deadline - now);
	}
	for (i = 0; i < m->cfg->workers; i++) {
		if (m->slots[i].respawn_at == -1)
			continue;
		if (m->slots[i].respawn_at <= now)
			master_spawn(m, i);
		else
			next = earliest(next, m->slots[i].respawn_at);
	}
	if (m->checker.respawn.respawn_at != -1) {
		if (m->checker.respawn.respawn_at <= now)
			master_spawn_checker(m);
		else
			next = earliest(next, m->checker.respawn.respawn_at);
	}

	if (m->cfg->watchdog_timeout > 0) {
		if (now >= m->watchdog_at) {
			master_watchdog(m, now);
			m->watchdog_at = now + WATCHDOG_CHECK_MS;
		}
		next = earliest(next, m->watchdog_at);
	}
	/* Old workers that do not say they pass datagrams on. */
	if (m->steer_pending) {
		if (now >= m->steer_at) {
			log_warn("old workers did not stop making UDP sessions "
			    "in %d s; steering to the new ones anyway",
			    PASS_ACK_MS / 1000);
			master_steer(m);
		} else
			next = earliest(next, m->steer_at);
	}
	/* A reload waiting for a generation that never gets ready. */
	if (m->reload_pending)
		next = earliest(next, m->gen_started + RELOAD_STUCK_MS);
	/* Old workers finish on their own by shutdown_timeout; make sure. */
	TAILQ_FOREACH(c, &m->children, link) {
		if (c->state != CHILD_DRAINING || c->terminated)
			continue;
		if (now >= c->drain_deadline) {
			log_warn("worker %d (pid %ld, generation %u) still has "
			    "connections at shutdown_timeout; closing them",
			    c->slot, (long)c->pid, c->gen);
			kill(c->pid, SIGTERM);
			c->terminated = true;
		} else
			next = earliest(next, c->drain_deadline);
	}
	/* Rates for "ferryd -s status": only with a stats endpoint. */
	if (m->cfg->stats_listen != NULL && !m->stopping) {
		if (now >= m->sample_at) {
			stats_sample(now);
			m->sample_at = now + STATS_SAMPLE_MS;
		}
		next = earliest(next, m->sample_at);
	}
	if (m->cfg->resolve_interval > 0) {
		if (now >= m->resolve_at) {
			/* Not while a reload is on its way: after it. */
			if (m->reload_pending || !master_generation_ready(m) ||
			    master_old_accepting(m))
				m->resolve_at = now + 1000;
			else {
				m->resolve_at = now + m->cfg->resolve_interval;
				master_reresolve(m);
			}
		}
		next = earliest(next, m->resolve_at);
	}
	return next == -1 ? -1 : next <= now ? 0 : (int)(next - now);
}

static int
master_signals_setup(void)
{
	static const int caught[] = {
		SIGCHLD, SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1
	};

	if (sig_open_catching(caught, sizeof(caught) / sizeof(caught[0])) == -1)
		return -1;
	sig_ignore(SIGPIPE);
	return 0;
}

/* The signal pipe and every open channel, in pfd; returns how many. */
static nfds_t
master_pollfds(struct master *m, struct pollfd **pfd, size_t *cap)
{
	struct child *c;
	nfds_t        n = 1;
	size_t        need = 1;

	TAILQ_FOREACH(c, &m->children, link)
		need++;
	if (need > *cap) {
		struct pollfd *p = realloc(*pfd, need * sizeof(**pfd));

		if (p == NULL)
			return 0;
		*pfd = p;
		*cap = need;
	}
	(*pfd)[0].fd = sig_fd();
	(*pfd)[0].events = POLLIN;
	TAILQ_FOREACH(c, &m->children, link)
		if (c->chan != -1) {
			(*pfd)[n].fd = c->chan;
			(*pfd)[n++].events = POLLIN;
		}
	return n;
}

/* The last line: what the workers did in the daemon's whole life. */
static void
master_log_totals(void)
{
	struct scoreboard_counters t;

	scoreboard_sum(&t);
	log_notice("stopped: %llu connection(s) relayed, %llu refused, "
	    "%llu failed to connect; %llu UDP session(s), %llu datagram(s) "
	    "in, %llu out, %llu dropped; %llu bytes in, %llu bytes out",
	    (unsigned long long)t.closed, (unsigned long long)t.refused,
	    (unsigned long long)t.connect_failed,
	    (unsigned long long)t.sessions,
	    (unsigned long long)t.datagrams_in,
	    (unsigned long long)t.datagrams_out,
	    (unsigned long long)(t.dropped + t.truncated),
	    (unsigned long long)t.bytes_in, (unsigned long long)t.bytes_out);
}

static int
master_loop(struct master *m)
{
	struct pollfd *pfd = NULL, sigonly;
	struct child  *c;
	size_t         cap = 0;
	nfds_t         n;
	int            i, timeout;

	for (i = 0; i < m->cfg->workers; i++)
		master_spawn(m, i);
	master_spawn_checker(m);
	log_notice("started %d worker(s) for %zu rule(s)", m->cfg->workers,
	    m->cfg->nrules);
	while (!m->stopping || !TAILQ_EMPTY(&m->children) ||
	    m->checker.pid > 0) {
		timeout = master_timers(m);
		n = master_pollfds(m, &pfd, &cap);
		if (n == 0) {
			/* Out of memory: watch signals only, retry soon. */
			n = 1;
			sigonly.fd = sig_fd();
			sigonly.events = POLLIN;
			timeout = 100;
		}
		if (poll(n == 1 && pfd == NULL ? &sigonly : pfd, n, timeout) == -1 &&
		    errno != EINTR) {
			log_err("poll: %s", strerror(errno));
			free(pfd);
			return 1;
		}
		/* Status first: a worker's "R" may come just before its exit. */
		TAILQ_FOREACH(c, &m->children, link)
			if (c->chan != -1)
				master_read_channel(m, c);
		master_handle_signals(m);
		master_advance(m);
	}
	free(pfd);
	free(m->udp_map);
	master_log_totals();
	return m->status;
}

/*
 * Everything before the workers start: what can fail is tried before we
 * detach, so that the user sees the error.  Returns -1 with err set.
 */
static int
master_start(struct master *m, char *err, size_t errlen)
{
	const struct conf  *cfg = m->cfg;
	const struct options *opt = m->opt;
	const char           *pidfile;

	pidfile = opt->pidfile != NULL ? opt->pidfile : cfg->pidfile;
	if (pidfile == NULL && !opt->foreground)
		pidfile = PIDFILE_DEFAULT;
	if (pidfile != NULL && pidfile[0] == '\0')
		pidfile = NULL;
	/* The lock first: of two instances, the second stops here. */
	if (fdlimit_raise(cfg, err, errlen) == -1 ||
	    (pidfile != NULL && pidfile_lock(pidfile, err, errlen) == -1) ||
	    (m->ls = listen_set_open(cfg, NULL, NULL, LISTEN_MODE_DEFAULT,
	    err, errlen)) == NULL)
		return -1;
	if (listen_set_steer(m->ls, cfg, NULL, err, errlen) == -1)
		log_warn("%s; reloads that reduce workers may reset queued "
		    "connections", err);
	if (master_open_access_log(cfg, NULL, err, errlen) == -1)
		return -1;
	if (!opt->foreground && daemon_detach(err, errlen) == -1)
		return -1;
	if (cfg->log_file != NULL) {
		if (log_open(LOG_TO_FILE, cfg->log_file, err, errlen) == -1)
			return -1;
	} else if (!opt->foreground)
		log_open(LOG_TO_SYSLOG, NULL, NULL, 0);
	if (pidfile_write(err, errlen) == -1)
		return -1;
	m->slots = calloc(cfg->workers, sizeof(*m->slots));
	if (m->slots == NULL || scoreboard_open() == -1 ||
	    (client_limit_wanted(cfg) && client_limit_open() == -1) ||
	    sandbox_open() == -1 ||
	    health_table_new(cfg, NULL) == -1 ||
	    stats_table_new(cfg, NULL, 1) == -1 ||
	    master_signals_setup() == -1) {
		snprintf(err, errlen, "cannot set up the master: %s",
		    strerror(errno));
		return -1;
	}
	m->gen = 1;
	m->gen_started = clock_ms();
	m->resolve_at = m->gen_started + cfg->resolve_interval;
	return 0;
}

int
master_run(struct conf *cfg, const struct options *opt)
{
	struct master m;
	char          err[CONF_ERR_MAX];
	int           status = 1;

	memset(&m, 0, sizeof(m));
	m.cfg = cfg;
	m.checker.chan = -1;
	m.checker.respawn.respawn_at = -1;
	m.opt = opt;
	TAILQ_INIT(&m.children);
	if (master_start(&m, err, sizeof(err)) == 0)
		status = master_loop(&m);
	else {
		log_err("%s", err);
		daemon_fail(err);
	}
	pidfile_remove();
	listen_set_close(m.ls);
	free(m.slots);
	conf_free(m.cfg);
	return status;
}
