/*
 * worker.c - a worker's life: keep its slot's listening sockets, drop
 * privileges, accept and relay in its own event loop, drain on request.
 */
#include "ferryd.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "accesslog.h"
#include "balance.h"
#include "child.h"
#include "client_limit.h"
#include "conf.h"
#include "event.h"
#include "fdlimit.h"
#include "ipc.h"
#include "log.h"
#include "listen.h"
#include "pool.h"
#include "proctitle.h"
#include "route.h"
#include "rule.h"
#include "scoreboard.h"
#include "stats.h"
#include "stats_export.h"
#include "stats_http.h"
#include "sandbox.h"
#include "sig.h"
#include "sock.h"
#include "tcp_accept.h"
#include "tcp_session.h"
#include "udp_follow.h"
#include "udp_handover.h"
#include "udp_listener.h"
#include "udp_session.h"
#include "worker.h"
#include "worker_sessions.h"

/* A worker's own state; only this file sees it. */
struct worker {
	const struct conf   *cfg;
	struct event_loop   *loop;
	struct pool         *pool;
	int                  slot;
	unsigned             generation;
	struct tcp_sessions *sessions;	/* the connections */
	struct tcp_acceptor *acceptor;	/* the stream listeners */
	struct udp_sessions *udp;	/* the datagram sessions */
	struct udp_listeners *udp_listeners;
	struct stats_http   *stats;	/* stats_listen's clients */
	struct worker_sessions *asked;	/* "show sessions" answers */
	bool                 draining;	/* stopped accepting for good */
	struct event_timer   drain_end;	/* shutdown_timeout from then */
	bool                 drain_over;	/* ... ran out */
	int                  chan;	/* to and from the master */
	pid_t                master;
	bool                 orphaned;	/* the master is gone */
	bool                 handover;	/* a reload: UDP sessions go on */
	struct scoreboard_cell *cell;	/* heartbeat, or NULL */
	struct event_timer   beat;	/* wakes an idle loop to beat */
};

#define HEARTBEAT_MS      1000	/* an idle loop still beats this often, */
#define HEARTBEAT_MIN_MS  100	/* or 4 times per watchdog_timeout */

/* Connections and UDP sessions open. */
static int
worker_sessions(const struct worker *w)
{
	return tcp_sessions_count(w->sessions) + udp_sessions_count(w->udp) +
	    tcp_acceptor_waiting(w->acceptor);
}

/* Close every connection and session at once. */
static void
worker_close_all(struct worker *w, const char *reason)
{
	tcp_acceptor_close_waiting(w->acceptor);
	tcp_sessions_close_all(w->sessions, reason);
	udp_sessions_close_all(w->udp);
}

/*
 * Stop accepting for good.  The acceptor first takes what is queued:
 * after a reload that retires this slot no other worker accepts from its
 * socket, and the kernel steers no new connection to it
 * (listen_set_steer), so this empties it for good.  Then tell the
 * master, which waits for it before the next reload.
 */
static void
worker_close_listeners(struct worker *w)
{
	int n;

	tcp_acceptor_close(w->acceptor);
	udp_listeners_stop(w->udp_listeners);
	stats_http_stop(w->stats);
	if (w->handover && w->chan != -1 && (n = udp_sessions_hand_over(w->udp,
	    w->chan)) > 0)
		log_info("handed %d UDP session(s) over to the new workers", n);
	/* A stop: what is left only waits for replies still on their way. */
	udp_sessions_linger(w->udp);
	if (w->chan != -1 && ipc_send(w->chan, IPC_DRAINING, NULL, 0, NULL,
	    0) == -1 && !w->orphaned)
		log_warn("cannot tell the master we stopped accepting: %s",
		    strerror(errno));
}

/*
 * Keep only this slot's sockets (the master holds all of them anyway),
 * each with the handler of its rule's protocol.
 */
static int
worker_take_listeners(struct worker *w, struct listen_set *ls)
{
	const struct rule  *rule;
	struct stats_source src;
	size_t              r;
	int                 s, fd;

	for (r = 0; r < ls->nrules; r++)
		for (s = 0; s < ls->nsock; s++) {
			fd = LISTEN_FD(ls, r, s);
			if (s != w->slot) {
				close(fd);
				continue;
			}
			rule = &w->cfg->rules[r];
			if ((rule->protocol == RULE_UDP ?
			    udp_listener_add(w->udp_listeners, fd, rule) :
			    tcp_acceptor_add(w->acceptor, fd, rule,
			    rule->listen_addr.ss.ss_family == AF_UNIX)) == -1) {
				log_err("%s: cannot watch listening socket: %s",
				    rule_log_name(rule), strerror(errno));
				return -1;
			}
		}
	/* stats_listen's one socket: every worker serves it. */
	src.rules = w->cfg->rules;
	src.nrules = w->cfg->nrules;
	src.histograms = w->cfg->stats_histograms;
	if ((w->stats = stats_http_new(w->loop, &src, &w->cfg->acl,
	    ls->stats_fd)) == NULL) {
		log_err("cannot watch the stats socket: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void
worker_on_drain_end(struct event_timer *t, void *data)
{
	struct worker *w = data;

	(void)t;
	w->drain_over = true;
}

static void
worker_drain(struct worker *w)
{
	if (w->draining)
		return;
	log_info("stopping: finishing %d connection(s) and %d UDP "
	    "session(s)", tcp_sessions_count(w->sessions),
	    udp_sessions_count(w->udp));
	proctitle_set("ferryd: worker %d (gen %u, draining)", w->slot,
	    w->generation);
	w->draining = true;
	worker_close_listeners(w);
	event_timer_init(&w->drain_end, worker_on_drain_end, w);
	if (w->cfg->shutdown_timeout > 0 && event_timer_arm(w->loop,
	    &w->drain_end, event_now(w->loop) + w->cfg->shutdown_timeout) == -1)
		w->drain_over = true;	/* no memory for a timer: now */
}

/* The master handed over reopened log files: use them from now on. */
static void
worker_adopt_logs(const struct ipc_msg *msg)
{
	int i;

	for (i = 0; i < msg->nfds; i++) {
		if (i < (int)msg->len && msg->data[i] == 'l')
			log_adopt_fd(msg->fds[i]);
		else if (i < (int)msg->len && msg->data[i] == 'a')
			accesslog_adopt_fd(msg->fds[i]);
		else
			close(msg->fds[i]);
	}
}

/*
 * The channel is the lifeline: end of file means the master is gone
 * (killed, crashed), and no one will ever reload or stop this worker.
 * It stops accepting at once, so that a restarted ferryd gets every new
 * connection, and finishes its connections within shutdown_timeout.
 */
static void
worker_orphaned(struct worker *w, const char *how)
{
	if (w->orphaned)
		return;
	w->orphaned = true;
	log_notice("the master is gone (%s); finishing %d connection(s) and "
	    "%d UDP session(s)", how, tcp_sessions_count(w->sessions),
	    udp_sessions_count(w->udp));
	worker_sessions_drop(w->asked);
	udp_follow_stop();
	if (w->chan != -1) {
		event_close(w->loop, w->chan);
		close(w->chan);
		w->chan = -1;
	}
	/*
	 * UDP sessions cannot finish like connections: their replies go out
	 * through the listening sockets, which a restarted ferryd must have
	 * to itself at once.
	 */
	udp_sessions_close_all(w->udp);
	udp_listeners_close(w->udp_listeners);
	worker_drain(w);
}

/*
 * The master looked the backends' names up again: each moved backend
 * takes its new address here too, for the connections and sessions
 * made from now on (those open keep theirs).
 */
static void
worker_move_backends(struct worker *w, const struct ipc_msg *msg)
{
	const struct ipc_backend_move	*mv = (const void *)msg->data;
	size_t				 n = msg->len / sizeof(*mv), i, j, k;
	struct backend			*b;

	for (i = 0; i < w->cfg->nrules; i++)
		for (j = 0; j < w->cfg->rules[i].upstream.nbackends; j++) {
			b = &w->cfg->rules[i].upstream.backends[j];
			for (k = 0; k < n; k++)
				if (mv[k].id == b->id)
					b->addr = mv[k].addr;
		}
}

static void
worker_on_channel(struct event_loop *loop, int fd, int events, void *data)
{
	struct worker      *w = data;
	struct ipc_msg      msg;
	struct udp_handover h;
	int                 rc, i;

	(void)loop;
	if (events & EV_WRITE)
		worker_sessions_send(w->asked, fd);
	while ((rc = ipc_recv(fd, &msg)) == 1) {
		switch (msg.type) {
		case IPC_LOGS:
			worker_adopt_logs(&msg);
			continue;
		case IPC_HANDOVER:
			w->handover = true;
			worker_drain(w);
			break;
		case IPC_UDP_SESSION:
			if (msg.nfds == 1 &&
			    udp_handover_read(&h, msg.data, msg.len)) {
				(void)udp_session_adopt(w->udp, &h, msg.fds[0]);
				continue;
			}
			break;
		case IPC_UDP_PASS:
			udp_sessions_pass(w->udp, fd);
			if (ipc_send(fd, IPC_UDP_PASSING, NULL, 0, NULL,
			    0) == -1)
				log_warn("cannot tell the master: %s",
				    strerror(errno));
			break;
		case IPC_UDP_DATAGRAM:
			udp_sessions_take(w->udp, msg.data, msg.len);
			break;
		case IPC_BACKENDS:
			worker_move_backends(w, &msg);
			break;
		case IPC_SESSIONS:
			worker_sessions_ask(w->asked, fd, &msg);
			break;
		case IPC_UDP_FOLLOW:
			udp_sessions_follow_asked(w->udp, fd, msg.data,
			    msg.len);
			break;
		case IPC_UDP_FOLLOWED:
			if (msg.nfds > 1)
				break;
			udp_sessions_follow_answered(w->udp, msg.data,
			    msg.len, msg.nfds == 1 ? msg.fds[0] : -1);
			continue;	/* its socket taken */
		case IPC_UDP_GO:
			/* Every session is here: the datagrams kept first. */
			udp_sessions_go(w->udp);
			if (!w->draining)
				udp_listeners_start(w->udp_listeners);
			break;
		}
		for (i = 0; i < msg.nfds; i++)
			close(msg.fds[i]);
	}
	if (rc == 0 || (rc == -1 && errno != EAGAIN && errno != EPROTO))
		worker_orphaned(w, rc == 0 ? "its channel closed" :
		    strerror(errno));
}

/* Write the heartbeat the master's watchdog reads. */
static void
worker_beat(struct worker *w)
{
	if (w->cell != NULL)
		w->cell->heartbeat = event_now(w->loop);
}

/* How often an idle loop wakes to beat: well inside watchdog_timeout. */
static int
worker_beat_ms(const struct conf *cfg)
{
	int ms = cfg->watchdog_timeout / 4;

	return ms <= 0 || ms > HEARTBEAT_MS ? HEARTBEAT_MS :
	    ms < HEARTBEAT_MIN_MS ? HEARTBEAT_MIN_MS : ms;
}

/* Wake an idle loop now and then, so that it still beats. */
static void
worker_on_beat(struct event_timer *t, void *data)
{
	struct worker *w = data;

	(void)event_timer_arm(w->loop, t, event_now(w->loop) +
	    worker_beat_ms(w->cfg));
}

/* React to signals; false when the worker should exit now. */
static bool
worker_handle_signals(struct worker *w)
{
	if (sig_take(SIGTERM) || sig_take(SIGINT)) {
		if (tcp_sessions_count(w->sessions) > 0)
			log_notice("stopping now: closing %d connection(s)",
			    tcp_sessions_count(w->sessions));
		worker_close_all(w, "shutdown");
		return false;
	}
	if (sig_take(SIGQUIT))
		worker_drain(w);
#ifdef FERRYD_DEBUG
	if (sig_take(SIGUSR2))
		sandbox_debug_violate();
#endif
	if (w->draining && worker_sessions(w) == 0)
		return false;
	if (w->drain_over) {
		/* UDP sessions only wait for late replies: no news. */
		if (tcp_sessions_count(w->sessions) > 0)
			log_warn("shutdown_timeout reached: closing %d "
			    "connection(s)", tcp_sessions_count(w->sessions));
		worker_close_all(w, "shutdown timeout");
		return false;
	}
	return true;
}

/*
 * cpu_affinity: worker i runs on CPU i (modulo the CPUs online).  So does
 * steer = "cpu", which sends it the connections that CPU takes: a worker
 * beyond the CPUs gets none, which its log says.
 */
static void
worker_pin_cpu(int slot, bool steered)
{
#ifdef HAVE_SCHED_SETAFFINITY
	cpu_set_t set;
	long      ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int       cpu = slot % (ncpu > 0 ? (int)ncpu : 1);

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == -1)
		log_warn("cannot pin to CPU %d: %s", cpu, strerror(errno));
	if (steered && cpu != slot)
		log_warn("steer = \"cpu\": %ld CPU(s) online, so worker %d "
		    "gets no TCP connection (set workers = %ld)", ncpu, slot,
		    ncpu);
#else
	(void)slot;
	(void)steered;
	log_warn("cpu_affinity is not supported on this system");
#endif
}

/* Enough descriptors for the event loop's table. */
static int
worker_max_fds(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > 4 * 1024 * 1024)
		return 4 * 1024 * 1024;
	return (int)rl.rlim_cur;
}

void
worker_run(const struct worker_start *ws)
{
	const struct conf *cfg = ws->cfg;
	const struct tcp_accept_settings accept_set = { .acl = &cfg->acl,
	    .backlog = cfg->backlog, .max_connections = cfg->max_connections };
	struct worker      w;
	char               role[32], err[CONF_ERR_MAX];

	memset(&w, 0, sizeof(w));
	w.cfg = cfg;
	w.slot = ws->slot;
	w.generation = ws->gen;
	w.chan = ws->chan;
	w.master = ws->master;
	w.cell = scoreboard_cell(ws->cell);
	snprintf(role, sizeof(role), "worker %d", w.slot);
	log_set_role(role);
	proctitle_set("ferryd: worker %d (gen %u)", w.slot, w.generation);
	pool_read_limits();
	child_begin(cfg, SIGQUIT, conf_has_transparent(cfg));
	stats_worker_begin(cfg, w.slot);
	client_limit_worker_begin(ws->cell);
	if (cfg->cpu_affinity || cfg->steer == STEER_CPU)
		worker_pin_cpu(w.slot, cfg->steer == STEER_CPU);
	w.loop = event_loop_new(cfg->event_backend, worker_max_fds(), err,
	    sizeof(err));
	w.pool = pool_new();
	balance_init(cfg->rules, cfg->nrules);
	if (w.loop == NULL || w.pool == NULL ||
	    (w.sessions = tcp_sessions_new(w.loop, w.pool)) == NULL ||
	    (w.acceptor = tcp_acceptor_new(w.loop, w.sessions,
	    &accept_set)) == NULL ||
	    (w.udp = udp_sessions_new(w.loop, cfg->rules, cfg->nrules,
	    &cfg->acl)) == NULL ||
	    (w.udp_listeners = udp_listeners_new(w.loop, w.udp)) == NULL ||
	    (w.asked = worker_sessions_new(w.loop, cfg->rules, cfg->nrules,
	    w.generation, w.slot, w.sessions, w.udp)) == NULL) {
		log_err("%s", w.loop == NULL ? err : "out of memory");
		_exit(2);
	}
	if (worker_take_listeners(&w, ws->ls) == -1)
		_exit(2);
	udp_follow_begin(w.udp, w.chan, w.slot, cfg->workers,
	    udp_sessions_deliver);
	pool_fit_user_pipes(w.pool, cfg->workers);
	udp_sessions_set_budget(w.udp, ws->udp_budget);
	pool_limit_pipes(w.pool, fdlimit_pipe_share(cfg, ws->udp_budget));
	event_timer_init(&w.beat, worker_on_beat, &w);
	if (event_set(w.loop, sig_fd(), EV_READ, sig_on_readable, NULL) == -1 ||
	    event_set(w.loop, w.chan, EV_READ, worker_on_channel, &w) == -1 ||
	    event_timer_arm(w.loop, &w.beat, event_now(w.loop) +
	    worker_beat_ms(cfg)) == -1) {
		log_err("cannot watch the signal pipe and the channel: %s",
		    strerror(errno));
		_exit(2);
	}
	if (sandbox_enter(cfg->seccomp, conf_has_unix_backends(cfg),
	    role) == -1)
		_exit(2);
	worker_beat(&w);
	if (ipc_send(w.chan, IPC_READY, NULL, 0, NULL, 0) == -1)
		log_warn("cannot tell the master we are ready: %s",
		    strerror(errno));
	log_debug("started (generation %u, %s backend)", w.generation,
	    event_loop_backend(w.loop));
	/* The master may have died before the death signal was asked for. */
	if (getppid() != w.master)
		worker_orphaned(&w, "the parent changed");
	while (worker_handle_signals(&w)) {
		if (stats_here.worker != NULL)
			stats_here.worker->iterations++;
		if (event_loop_run_once(w.loop) == -1) {
			log_err("event loop failed: %s", strerror(errno));
			worker_close_all(&w, "event loop failure");
			_exit(1);
		}
		worker_beat(&w);
	}
	_exit(0);
}
