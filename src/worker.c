/*
 * worker.c - a worker's life: keep its slot's listening sockets, drop
 * privileges, accept and relay in its own event loop, drain on request.
 */
#include "ferryd.h"

#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif

#include "accesslog.h"
#include "daemon.h"
#include "event.h"
#include "fdlimit.h"
#include "ipc.h"
#include "log.h"
#include "pidfile.h"
#include "listen.h"
#include "pool.h"
#include "proctitle.h"
#include "relay.h"
#include "scoreboard.h"
#include "sig.h"
#include "sock.h"
#include "worker.h"

/* A worker's own state; only this file sees it. */

struct listener {
	int                fd;
	const struct rule *rule;
	struct worker     *w;
};

struct worker {
	const struct conf *cfg;
	struct event_loop   *loop;
	struct pool         *pool;
	int                  slot;
	unsigned             generation;
	struct listener     *listeners;
	size_t               nlisteners;
	struct relay        *relay;	/* the connections */
	bool                 draining;	/* stopped accepting for good */
	int64_t              resume_at;	/* accept again after EMFILE */
	bool                 starved;	/* EMFILE reported, not yet over */
	int                  chan;	/* to and from the master */
	pid_t                master;
	bool                 orphaned;	/* the master is gone */
	struct scoreboard_cell *cell;	/* heartbeat, or NULL */
	struct event_timer   beat;	/* wakes an idle loop to beat */
	int64_t              drain_deadline;
	int64_t              refused_logged; /* last max_connections warning */
};

#define ACCEPT_BATCH      64	/* accepts per wakeup, for fairness */
#define EMFILE_PAUSE_MS   500	/* out of descriptors: retry after this */
#define REFUSE_LOG_MS     1000	/* at most one max_connections warning */
#define HEARTBEAT_MS      1000	/* an idle loop still beats this often, */
#define HEARTBEAT_MIN_MS  100	/* or 4 times per watchdog_timeout */

static void worker_tick(struct event_loop *, void *);
static void worker_accept(struct event_loop *, int, int, void *);
static void listener_accept(struct listener *, int);

/* Reschedule the worker's timer after deadlines changed. */
static void
worker_schedule(struct worker *w, int64_t due)
{
	int64_t cur = event_timer_due(w->loop);

	if (due != -1 && (cur == -1 || due < cur))
		event_timer(w->loop, due, worker_tick, w);
}

static void
worker_watch_listeners(struct worker *w, bool on)
{
	size_t i;

	for (i = 0; i < w->nlisteners; i++)
		if (event_set(w->loop, w->listeners[i].fd, on ? EV_READ : 0,
		    worker_accept, &w->listeners[i]) == -1)
			log_err("cannot watch listening socket: %s",
			    strerror(errno));
}

/*
 * Stop accepting for good.  First take what is queued: after a reload
 * that retires this slot no other worker accepts from its socket, and the
 * kernel steers no new connection to it (listen_set_steer), so this
 * empties it for good.
 * Then tell the master, which waits for it before the next reload.
 */
static void
worker_close_listeners(struct worker *w)
{
	size_t i;

	worker_watch_listeners(w, false);
	for (i = 0; i < w->nlisteners; i++) {
		/*
		 * At most a full queue: a socket the new generation shares
		 * keeps filling, and its new workers take the rest.  Also
		 * after running out of descriptors once: a failure now only
		 * ends the loop early.
		 */
		listener_accept(&w->listeners[i], w->cfg->backlog);
		close(w->listeners[i].fd);
		w->listeners[i].fd = -1;
	}
	w->nlisteners = 0;
	if (w->chan != -1 && ipc_send(w->chan, IPC_DRAINING, NULL, 0, NULL,
	    0) == -1 && !w->orphaned)
		log_warn("cannot tell the master we stopped accepting: %s",
		    strerror(errno));
}

static void
worker_tick(struct event_loop *loop, void *data)
{
	struct worker *w = data;
	int64_t        now = event_now(loop);

	if (w->resume_at != -1 && now >= w->resume_at) {
		w->resume_at = -1;
		if (!w->draining)
			worker_watch_listeners(w, true);
	}
	worker_schedule(w, w->resume_at);
	if (w->draining)
		worker_schedule(w, w->drain_deadline);
}

/*
 * Out of descriptors or memory (err) while doing what: stop accepting for
 * a moment rather than spin on a queue that stays readable; log once.
 */
static void
worker_starve(struct worker *w, const char *listen, const char *what,
    int err)
{
	if (!w->starved)
		log_warn("%s: cannot %s: %s; pausing accepting until "
		    "descriptors are free", listen, what, strerror(err));
	w->starved = true;
	worker_watch_listeners(w, false);
	w->resume_at = event_now(w->loop) + EMFILE_PAUSE_MS;
	worker_schedule(w, w->resume_at);
}

/* At max_connections: close the newcomer at once, say so now and then. */
static void
worker_refuse(struct worker *w, int fd, const struct listener *l,
    const struct sockaddr_any *peer)
{
	int64_t now = event_now(w->loop);

	if (now - w->refused_logged >= REFUSE_LOG_MS) {
		w->refused_logged = now;
		log_warn("%s: max_connections (%d) reached, refusing new "
		    "connections", l->rule->listen, w->cfg->max_connections);
	}
	relay_refuse(w->relay, fd, l->rule, peer, ACCESSLOG_REFUSED_MAX);
}

/*
 * Accept up to max connections from l; stop early when the queue is
 * empty or accepting must pause.
 */
static void
listener_accept(struct listener *l, int max)
{
	struct worker       *w = l->w;
	struct sockaddr_any  peer;
	int                  i, cfd;

	for (i = 0; i < max; i++) {
		cfd = sock_accept(l->fd, &peer);
		if (cfd == -1) {
			switch (errno) {
			case EAGAIN:
#if EAGAIN != EWOULDBLOCK
			case EWOULDBLOCK:
#endif
				return;
			case EINTR:
			case ECONNABORTED:
			case EPROTO:
			case EPERM:
				continue;
			case EMFILE:
			case ENFILE:
			case ENOBUFS:
			case ENOMEM:
				worker_starve(w, l->rule->listen, "accept",
				    errno);
				return;
			default:
				log_err("%s: cannot accept: %s", l->rule->listen,
				    strerror(errno));
				return;
			}
		}
		if (relay_count(w->relay) >= w->cfg->max_connections)
			worker_refuse(w, cfd, l, &peer);
		else if (relay_start(w->relay, cfd, l->rule, &peer) == -1) {
			/* Out of descriptors or memory: pause accepting. */
			worker_starve(w, l->rule->listen, "relay a connection",
			    errno);
			return;
		} else
			w->starved = false;	/* the episode is over */
	}
}

static void
worker_accept(struct event_loop *loop, int fd, int events, void *data)
{
	(void)loop;
	(void)fd;
	(void)events;
	/* A batch at a time, so that relaying is not starved. */
	listener_accept(data, ACCEPT_BATCH);
}

/* Keep only this slot's sockets; the master holds all of them anyway. */
static int
worker_take_listeners(struct worker *w, struct listen_set *ls)
{
	size_t r;
	int    s;

	w->listeners = calloc(ls->nrules, sizeof(*w->listeners));
	if (w->listeners == NULL)
		return -1;
	for (r = 0; r < ls->nrules; r++)
		for (s = 0; s < ls->nslots; s++) {
			if (s != w->slot) {
				close(LISTEN_FD(ls, r, s));
				continue;
			}
			w->listeners[r].fd = LISTEN_FD(ls, r, s);
			w->listeners[r].rule = &w->cfg->rules[r];
			w->listeners[r].w = w;
		}
	w->nlisteners = ls->nrules;
	return 0;
}

static int
worker_drop_privileges(const struct conf *cfg)
{
	if (cfg->user == NULL && cfg->group == NULL)
		return 0;
	if (getuid() != 0 && geteuid() != 0) {
		log_warn("not running as root: ignoring user/group settings");
		return 0;
	}
	if (cfg->user != NULL ?
	    initgroups(cfg->user, cfg->gid) == -1 :
	    setgroups(1, &cfg->gid) == -1) {
		log_err("cannot set supplementary groups: %s", strerror(errno));
		return -1;
	}
	if (setgid(cfg->gid) == -1) {
		log_err("cannot change group to %u: %s", (unsigned)cfg->gid,
		    strerror(errno));
		return -1;
	}
	if (cfg->user != NULL && setuid(cfg->uid) == -1) {
		log_err("cannot change user to %s: %s", cfg->user,
		    strerror(errno));
		return -1;
	}
	return 0;
}

static int
worker_signals(void)
{
	static const int caught[] = { SIGTERM, SIGINT, SIGQUIT };
	size_t           i;

	if (sig_open() == -1)
		return -1;
	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		if (sig_catch(caught[i]) == -1)
			return -1;
	/*
	 * Reloads and log reopening are the master's: it hands reopened
	 * logs over the channel (a worker running as a user could not open
	 * root's files by name).
	 */
	sig_ignore(SIGHUP);
	sig_ignore(SIGUSR1);
	sig_ignore(SIGPIPE);
	sig_default(SIGCHLD);
	sig_block_all(0);
	return 0;
}

static void
worker_on_signal(struct event_loop *loop, int fd, int events, void *data)
{
	(void)loop;
	(void)fd;
	(void)events;
	(void)data;
	sig_drain();
}

static void
worker_drain(struct worker *w)
{
	if (w->draining)
		return;
	log_info("stopping: finishing %d connection(s)", relay_count(w->relay));
	proctitle_set("ferryd: worker %d (gen %u, draining)", w->slot,
	    w->generation);
	w->draining = true;
	worker_close_listeners(w);
	w->drain_deadline = event_now(w->loop) + w->cfg->shutdown_timeout;
	worker_schedule(w, w->drain_deadline);
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
	log_notice("the master is gone (%s); finishing %d connection(s)",
	    how, relay_count(w->relay));
	if (w->chan != -1) {
		event_close(w->loop, w->chan);
		close(w->chan);
		w->chan = -1;
	}
	worker_drain(w);
}

static void
worker_on_channel(struct event_loop *loop, int fd, int events, void *data)
{
	struct worker  *w = data;
	struct ipc_msg  msg;
	int             rc, i;

	(void)loop;
	(void)events;
	while ((rc = ipc_recv(fd, &msg)) == 1) {
		if (msg.type == IPC_LOGS)
			worker_adopt_logs(&msg);
		else
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
		relay_close_all(w->relay, "shutdown");
		return false;
	}
	if (sig_take(SIGQUIT))
		worker_drain(w);
	if (w->draining && relay_count(w->relay) == 0)
		return false;
	if (w->draining && event_now(w->loop) >= w->drain_deadline) {
		log_warn("shutdown_timeout reached: closing %d connection(s)",
		    relay_count(w->relay));
		relay_close_all(w->relay, "shutdown timeout");
		return false;
	}
	return true;
}

/* cpu_affinity: worker i runs on CPU i (modulo the CPUs online). */
static void
worker_pin_cpu(int slot)
{
#ifdef HAVE_SCHED_SETAFFINITY
	cpu_set_t set;
	long      ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int       cpu = slot % (ncpu > 0 ? (int)ncpu : 1);

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == -1)
		log_warn("cannot pin to CPU %d: %s", cpu, strerror(errno));
#else
	(void)slot;
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
	struct worker      w;
	char               role[32], err[CONF_ERR_MAX];

	memset(&w, 0, sizeof(w));
	w.cfg = cfg;
	w.slot = ws->slot;
	w.generation = ws->gen;
	w.chan = ws->chan;
	w.master = ws->master;
	w.cell = scoreboard_cell(ws->cell);
	w.resume_at = -1;
	w.refused_logged = -REFUSE_LOG_MS;
	snprintf(role, sizeof(role), "worker %d", w.slot);
	log_set_role(role);
	proctitle_set("ferryd: worker %d (gen %u)", w.slot, w.generation);
	pidfile_forget();
	daemon_forget();
	if (worker_signals() == -1) {
		log_err("cannot set up signals: %s", strerror(errno));
		_exit(2);
	}
	if (worker_take_listeners(&w, ws->ls) == -1 ||
	    worker_drop_privileges(cfg) == -1)
		_exit(2);
#if defined(HAVE_SYS_PRCTL_H) && HAVE_DECL_PR_SET_PDEATHSIG
	/*
	 * A second way to learn of the master's death.  After the privilege
	 * drop: changing credentials clears it.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGQUIT) == -1)
		log_warn("cannot ask for a signal at the master's death: %s",
		    strerror(errno));
#endif
	if (cfg->cpu_affinity)
		worker_pin_cpu(w.slot);
	w.loop = event_loop_new(cfg->event_backend, worker_max_fds(), err,
	    sizeof(err));
	w.pool = pool_new();
	if (w.loop == NULL || w.pool == NULL ||
	    (w.relay = relay_new(w.loop, w.pool, cfg)) == NULL) {
		log_err("%s", w.loop == NULL ? err : "out of memory");
		_exit(2);
	}
	pool_fit_user_pipes(w.pool, cfg->workers);
	pool_limit_pipes(w.pool, fdlimit_pipe_share(cfg));
	event_timer_init(&w.beat, worker_on_beat, &w);
	if (event_set(w.loop, sig_fd(), EV_READ, worker_on_signal, NULL) == -1 ||
	    event_set(w.loop, w.chan, EV_READ, worker_on_channel, &w) == -1 ||
	    event_timer_arm(w.loop, &w.beat, event_now(w.loop) +
	    worker_beat_ms(cfg)) == -1) {
		log_err("cannot watch the signal pipe and the channel: %s",
		    strerror(errno));
		_exit(2);
	}
	worker_watch_listeners(&w, true);
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
		if (event_loop_run_once(w.loop) == -1) {
			log_err("event loop failed: %s", strerror(errno));
			relay_close_all(w.relay, "event loop failure");
			_exit(1);
		}
		worker_beat(&w);
	}
	_exit(0);
}
