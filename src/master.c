/*
 * master.c - the master's life and signals.  The master never touches a
 * connection: it binds the listen set, forks one worker per slot
 * (master_child.c), keeps every listening socket open so that the kernel
 * queues connections for a slot whose worker is being replaced, reloads
 * (master_reload.c) and stops.  It runs the same event loop and timers
 * as the workers: signals arrive on the self-pipe, children speak on
 * their channels, and every deadline is an event timer.
 */
#include "ferryd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accesslog.h"
#include "clock.h"
#include "client_limit.h"
#include "daemon.h"
#include "health.h"
#include "ipc.h"
#include "listen.h"
#include "log.h"
#include "master.h"
#include "master_child.h"
#include "master_control.h"
#include "master_reload.h"
#include "master_request.h"
#include "master_resolve.h"
#include "master_upgrade_check.h"
#include "master_adopt.h"
#include "master_state.h"
#include "master_statefile.h"
#include "master_status.h"
#include "master_upgrade.h"
#include "outcome.h"
#include "pidfile.h"
#include "proctitle.h"
#include "sandbox.h"
#include "scoreboard.h"
#include "sig.h"
#include "stats.h"
#include "udp_cid_share.h"

#define STOP_GRACE_MS     5000	/* TERM: then SIGKILL the stragglers */
#define TICK_MS           1000	/* watchdog and rates looked at */
/*
 * The master watches a signal pipe and a channel per child: poll(2)
 * serves that, and unlike an epoll instance leaves nothing in the
 * kernel for every forked child to inherit.
 */
#define MASTER_EVENT_BACKEND "poll"
#define MASTER_MAX_FDS    (4 * 1024 * 1024)	/* tables grow as needed */

/*
 * A worker died before the first generation was accepting: the
 * configuration or the system does not let it run (it logged why), and
 * starting over would fail the same way.  Say so to whoever started us.
 */
static void master_stop(struct master *, int);

static void
master_start_failed(struct master *m, const struct child *c, int status)
{
	char how[256], why[CONF_ERR_MAX];

	master_describe_exit(c->pid, status, how, sizeof(how));
	snprintf(why, sizeof(why), "worker %d (pid %ld) %s while starting; "
	    "see the log", c->slot, (long)c->pid, how);
	master_adopt_fail(m, why);	/* a new image's: the old one's back */
	if (m->started) {	/* ... or it could not be: on as before */
		master_schedule_respawn(m, c, status);
		return;
	}
	log_err("%s", why);
	daemon_fail(why, 1);
	m->status = 1;
	master_stop(m, SIGTERM);
}

/* SIGCHLD: each child that exited, replaced if it should be. */
static void
master_reap(struct master *m)
{
	struct child *c;
	pid_t         pid;
	int           status;
	char          how[256];

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		resolver_reaped(&m->names.resolver, pid);
		upgrade_check_reaped(pid, status);
		if (master_reap_checker(m, pid, status) ||
		    (c = master_child_find(m, pid)) == NULL)
			continue;
		master_reload_child_gone(m, c);
		master_child_remove(m, c);
		if (!m->started && !m->stopping && c->gen == m->gen)
			master_start_failed(m, c, status);
		else if (!m->stopping && c->gen == m->gen)
			master_schedule_respawn(m, c, status);
		else {
			master_describe_exit(c->pid, status, how, sizeof(how));
			log_debug("worker %d (pid %ld, generation %u) %s",
			    c->slot, (long)c->pid, c->gen, how);
		}
		master_child_free(m, c);
	}
	stats_settle(master_generation_alive, m);
}

/* Workers that outlive the stop's grace: killed, and looked at again. */
static void
master_on_stop_end(struct event_timer *t, void *data)
{
	struct master *m = data;

	log_warn("workers did not stop in time; killing them");
	master_signal_children(m, SIGKILL);
	(void)event_timer_arm(m->loop, t, clock_ms() + STOP_GRACE_MS);
}

/*
 * TERM or INT while a graceful stop (QUIT) waits for connections: the
 * operator wants it over now, as nginx does.
 */
static void
master_stop_now(struct master *m, int signo)
{
	log_notice("received %s during a graceful stop; stopping now",
	    strsignal(signo));
	m->stopping = signo;
	(void)event_timer_arm(m->loop, &m->stop_end, clock_ms() +
	    STOP_GRACE_MS);
	master_signal_children(m, SIGTERM);
}

static void
master_stop(struct master *m, int signo)
{
	if (m->stopping == SIGQUIT && signo != SIGQUIT) {
		master_stop_now(m, signo);
		return;
	}
	if (m->stopping)
		return;
	m->stopping = signo;
	if (m->status == 0)
		log_notice("received %s, %s", strsignal(signo), signo == SIGQUIT ?
		    "stopping gracefully" : "stopping");
	/*
	 * Every other timer sees m->stopping and does nothing.  A graceful
	 * stop without shutdown_timeout waits as long as connections live.
	 */
	event_timer_init(&m->stop_end, master_on_stop_end, m);
	if (signo != SIGQUIT || m->cfg->shutdown_timeout > 0)
		(void)event_timer_arm(m->loop, &m->stop_end, clock_ms() +
		    STOP_GRACE_MS + (signo == SIGQUIT ?
		    m->cfg->shutdown_timeout : 0));
	master_signal_children(m, signo == SIGQUIT ? SIGQUIT : SIGTERM);
	/*
	 * A stop is not a reload: nobody will accept from these sockets
	 * again, so let new clients be refused now rather than wait in a
	 * queue until we exit.
	 */
	listen_set_close(m->ls);
	m->ls = NULL;		/* nothing is steered from now on */
	m->reload.steer_pending = false;
	event_timer_cancel(m->loop, &m->reload.steer_end);
	master_socket_files_forget(m->cfg, NULL);
	resolver_cancel(&m->names.resolver);	/* no reload will come of it */
	master_control_close(m);
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
master_on_signal(struct event_loop *loop, int fd, int events, void *data)
{
	struct master	*m = data;

	(void)loop;
	(void)fd;
	(void)events;
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
	if (sig_take(SIGUSR2))
		master_host_drain(m, true, "SIGUSR2");
	/* Requests, dispatched after the round (master_dispatch). */
	master_request_signals(&m->requests);
}

/*
 * The one door: every reload and upgrade starts here, whether a signal,
 * a control client or the periodic lookups asked (master_request.h).  Reloads run one at a
 * time, one arriving meanwhile waits; an upgrade asked with a reload
 * waits for it, and is answered through the outcome, as reloads.  Run
 * after the round's events, and again once a client's lines that waited
 * were read (master_control_follow), so that a reload they ask is queued
 * before an upgrade may exec.
 */
static void
master_dispatch(struct master *m)
{
	struct conf *cfg;
	int          asked[OUTCOME_COVERS_MAX];
	size_t       nasked;

	/* First: it was resolved from the running configuration. */
	if ((cfg = master_request_take_apply(&m->requests)) != NULL)
		master_apply_resolved(m, cfg);
	if (master_request_take(&m->requests, REQUEST_RELOAD, asked, &nasked))
		master_reload_queue(m, asked, nasked);
	if (master_request_take(&m->requests, REQUEST_UPGRADE, asked, &nasked))
		master_upgrade(m, asked, nasked);
}

/*
 * Each second: the watchdog looks at the heartbeats, and the counters
 * are sampled for the rates of "ferryd -s status" (with an endpoint).
 * Both follow the running configuration, which a reload may change.
 */
static void
master_on_tick(struct event_timer *t, void *data)
{
	struct master *m = data;
	int64_t        now = clock_ms();

	if (m->stopping)
		return;
	if (m->cfg->watchdog_timeout > 0)
		master_watchdog(m, now);
	if (m->cfg->stats_listen != NULL)
		stats_sample(now);
	master_resend_backends(m);
	(void)event_timer_arm(m->loop, t, now + TICK_MS);
}

static int
master_signals_setup(void)
{
	static const int caught[] = {
		SIGCHLD, SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2,
		SIGURG
	};

	if (sig_open_catching(caught, sizeof(caught) / sizeof(caught[0])) == -1)
		return -1;
	sig_ignore(SIGPIPE);
	return 0;
}

/*
 * What ps shows of the master: the configuration and, while old
 * generations drain after reloads, which and how many of their workers
 * are left.  Set only when it changes.
 */
static void
master_show_title(const struct master *m)
{
	static char         last[256];
	char                title[sizeof(last)];
	const char         *sep = "; draining:";
	const struct child *c, *d;
	size_t              off;
	int                 n;

	off = (size_t)snprintf(title, sizeof(title), "ferryd: master process "
	    "%s", m->opt->config_path);
	TAILQ_FOREACH(c, &m->children, link) {
		if (c->gen == m->gen || off >= sizeof(title))
			continue;
		/* Each old generation once, at its first worker. */
		for (d = TAILQ_FIRST(&m->children); d->gen != c->gen;
		    d = TAILQ_NEXT(d, link))
			continue;
		if (d != c)
			continue;
		for (n = 0; d != NULL; d = TAILQ_NEXT(d, link))
			n += d->gen == c->gen;
		off += (size_t)snprintf(title + off, sizeof(title) - off,
		    "%s generation %u (%d worker%s)", sep, c->gen, n,
		    n == 1 ? "" : "s");
		sep = ",";
	}
	if (strcmp(title, last) != 0) {
		memcpy(last, title, sizeof(last));
		proctitle_set("%s", title);
	}
}

static int
master_loop(struct master *m)
{
	int i;

	for (i = 0; i < m->cfg->workers; i++)
		master_spawn(m, i);
	master_spawn_checker(m);
	log_notice("started %d worker(s) for %zu rule(s)", m->cfg->workers,
	    m->cfg->nrules);
	master_status_start(m);
	while (!m->stopping || !TAILQ_EMPTY(&m->children) ||
	    m->checker.pid > 0) {
		if (event_loop_run_once(m->loop) == -1) {
			log_err("event loop: %s", strerror(errno));
			return 1;
		}
		master_reload_hear(m);
		master_dispatch(m);
		master_advance(m);
		master_resolve_follow(m);
		master_control_follow(m);
		master_dispatch(m);	/* ... and what they asked */
		master_upgrade_follow(m);
		master_adopt_answer(m);
		master_show_title(m);
	}
	master_status_last_line();
	return m->status;
}

/* The loop, its signal pipe and the timers that run from the start. */
static int
master_loop_setup(struct master *m, char *err, size_t errlen)
{
	struct slot *slots;

	m->loop = event_loop_new(MASTER_EVENT_BACKEND, MASTER_MAX_FDS, err,
	    errlen);
	if (m->loop == NULL)
		return -1;
	if ((slots = master_slots_new(m, m->cfg->workers)) == NULL)
		goto fail;
	master_slots_set(m, slots, m->cfg->workers);
	master_reload_init(m);
	master_resolve_init(m);
	event_timer_init(&m->tick, master_on_tick, m);
	if (master_signals_setup() == -1 ||
	    event_set(m->loop, sig_fd(), EV_READ, master_on_signal, m) == -1 ||
	    event_timer_arm(m->loop, &m->tick, clock_ms() + TICK_MS) == -1)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot set up the master: %s", strerror(errno));
	return -1;
}

/*
 * Everything before the workers start: what can fail is tried before we
 * detach, so that the user sees the error.  Returns 0, or the status to
 * exit with (1; opt's exit_pidfile for the pidfile) with err set.
 */
static int
master_start(struct master *m, char *err, size_t errlen)
{
	const struct conf  *cfg = m->cfg;
	const struct options *opt = m->opt;
	const char           *pidfile = master_adopt_pidfile_path(cfg, opt);

	/* The lock first: of two instances, the second stops here. */
	if (master_fit_fdlimit(m->cfg, err, errlen) == -1)
		return 1;
	if (master_adopt_pidfile_lock(pidfile, err, errlen) == -1)
		return opt->exit_pidfile;
	if ((m->ls = master_adopt_listen(cfg, LISTEN_MODE_DEFAULT, err,
	    errlen)) == NULL)
		return 1;
	if (listen_set_steer(m->ls, cfg, NULL, err, errlen) == -1)
		log_warn("%s; reloads that reduce workers may reset queued "
		    "connections", err);
	if (master_open_access_log(cfg, NULL, err, errlen) == -1)
		return 1;
	if (!opt->foreground && !master_adopting() &&
	    daemon_detach(err, errlen) == -1)
		return 1;
	if (cfg->log_file != NULL) {
		if (log_open(LOG_TO_FILE, cfg->log_file, err, errlen) == -1)
			return 1;
	} else if (!opt->foreground)
		log_open(LOG_TO_SYSLOG, NULL, NULL, 0);
	if (pidfile_write(err, errlen) == -1)
		return opt->exit_pidfile;
	if (pidfile != NULL)
		outcome_path(pidfile, m->outcome.file, sizeof(m->outcome.file));
	if (scoreboard_open() == -1 ||
	    udp_cid_share_open(MAX_WORKERS) == -1 ||
	    (client_limit_wanted(cfg->rules, cfg->nrules) &&
	    client_limit_open() == -1) || sandbox_open() == -1 ||
	    master_adopt_health(cfg) == -1 ||
	    stats_table_new(cfg, NULL, master_adopt_gen()) == -1) {
		snprintf(err, errlen, "cannot set up the master: %s",
		    strerror(errno));
		return 1;
	}
	master_statefile_load(cfg->state_file, cfg->rules, cfg->nrules);
	m->gen = master_adopt_gen();
	m->gen_started = clock_ms();
	master_set_budgets(m, m->cfg);
	if (master_loop_setup(m, err, errlen) == -1)
		return 1;
	master_adopt(m);
	m->control.gen = m->gen;
	return master_control_open(m, cfg, err, errlen) == -1;
}

int
master_run(struct conf *cfg, const struct options *opt)
{
	struct master m;
	char          err[CONF_ERR_MAX];
	int           status;

	memset(&m, 0, sizeof(m));
	m.cfg = cfg;
	m.checker.chan = -1;
	m.control.fd = -1;
	m.born = clock_ms();
	TAILQ_INIT(&m.control.clients);
	m.opt = opt;
	master_own_fd(&m, master_upgrade_image());
	TAILQ_INIT(&m.children);
	if ((status = master_start(&m, err, sizeof(err))) == 0)
		status = master_loop(&m);
	else {
		master_adopt_failed(&m, opt->foreground, err);
		log_err("%s", err);
		daemon_fail(err, status);
	}
	pidfile_remove();
	if (m.outcome.file[0] != '\0')
		(void)unlink(m.outcome.file);
	listen_set_close(m.ls);
	if (m.loop != NULL) {
		master_control_close(&m);
		master_slots_set(&m, NULL, 0);
	}
	master_reload_free(&m);
	event_loop_free(m.loop);
	conf_free(m.cfg);
	return status;
}
