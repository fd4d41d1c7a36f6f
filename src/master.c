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

#include "listen.h"
#include "log.h"
#include "master.h"
#include "pidfile.h"
#include "sig.h"
#include "worker.h"

#define RESPAWN_FAST_MS   1000	/* dying sooner than this is "crashing" */
#define RESPAWN_FIRST_MS  100
#define RESPAWN_MAX_MS    5000
#define STOP_GRACE_MS     5000	/* TERM: then SIGKILL the stragglers */

struct child {
	TAILQ_ENTRY(child) link;
	pid_t              pid;
	int                slot;
	unsigned           gen;
	int64_t            started;
};

struct slot {
	int64_t respawn_at;	/* -1: running or not needed */
	int     delay_ms;	/* backoff for the next crash */
};

struct master {
	struct config       *cfg;
	const struct options *opt;
	struct listen_set   *ls;
	TAILQ_HEAD(, child)  children;
	struct slot         *slots;
	unsigned             gen;
	int                  stopping;	/* 0, or the signal that stops us */
	int64_t              stop_deadline;
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Each connection needs two descriptors in its worker; raise the limit
 * that far, or say why we cannot.
 */
static int
raise_fd_limit(const struct config *cfg, char *err, size_t errlen)
{
	struct rlimit rl;
	rlim_t        need;

	need = (rlim_t)cfg->max_connections * 2 + cfg->nrules * cfg->workers + 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		snprintf(err, errlen, "getrlimit: %s", strerror(errno));
		return -1;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need && geteuid() == 0)
		rl.rlim_max = need;	/* root may raise the hard limit */
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		snprintf(err, errlen, "max_connections = %d needs %llu file "
		    "descriptors, but the hard limit is %llu (raise it with "
		    "ulimit -Hn or LimitNOFILE)", cfg->max_connections,
		    (unsigned long long)need, (unsigned long long)rl.rlim_max);
		return -1;
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
		snprintf(err, errlen, "cannot raise the file descriptor limit "
		    "to %llu: %s", (unsigned long long)need, strerror(errno));
		return -1;
	}
	return 0;
}

/* Detach from the terminal: the classic double fork. */
static int
daemonize(char *err, size_t errlen)
{
	int fd;

	switch (fork()) {
	case -1:
		goto fail;
	case 0:
		break;
	default:
		_exit(0);
	}
	if (setsid() == -1)
		goto fail;
	switch (fork()) {
	case -1:
		goto fail;
	case 0:
		break;
	default:
		_exit(0);
	}
	if (chdir("/") == -1)
		goto fail;
	fd = open("/dev/null", O_RDWR);
	if (fd == -1)
		goto fail;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
	return 0;
fail:
	snprintf(err, errlen, "cannot detach: %s", strerror(errno));
	return -1;
}

static void
master_spawn(struct master *m, int slot)
{
	struct child *c;
	pid_t         pid;

	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		log_err("cannot start worker %d: out of memory", slot);
		m->slots[slot].respawn_at = now_ms() + RESPAWN_MAX_MS;
		return;
	}
	/* No signal may reach the child before it has its own pipe. */
	sig_block_all(1);
	pid = fork();
	if (pid == 0)
		worker_run(m->cfg, m->ls, slot, m->gen, -1);
	sig_block_all(0);
	if (pid == -1) {
		log_err("cannot start worker %d: fork: %s", slot,
		    strerror(errno));
		free(c);
		m->slots[slot].respawn_at = now_ms() + RESPAWN_MAX_MS;
		return;
	}
	c->pid = pid;
	c->slot = slot;
	c->gen = m->gen;
	c->started = now_ms();
	m->slots[slot].respawn_at = -1;
	TAILQ_INSERT_TAIL(&m->children, c, link);
	log_debug("worker %d started (pid %ld)", slot, (long)pid);
}

static void
describe_status(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
}

/* A worker of the current generation died: schedule its replacement. */
static void
master_schedule_respawn(struct master *m, const struct child *c, int status)
{
	struct slot *s = &m->slots[c->slot];
	char         how[96];
	int64_t      now = now_ms();

	describe_status(status, how, sizeof(how));
	if (now - c->started < RESPAWN_FAST_MS)
		s->delay_ms = s->delay_ms == 0 ? RESPAWN_FIRST_MS :
		    s->delay_ms * 2 > RESPAWN_MAX_MS ? RESPAWN_MAX_MS :
		    s->delay_ms * 2;
	else
		s->delay_ms = 0;
	s->respawn_at = now + s->delay_ms;
	if (s->delay_ms == 0)
		log_err("worker %d (pid %ld) %s; respawning", c->slot,
		    (long)c->pid, how);
	else
		log_err("worker %d (pid %ld) %s; respawning in %d ms", c->slot,
		    (long)c->pid, how, s->delay_ms);
}

static void
master_reap(struct master *m)
{
	struct child *c;
	pid_t         pid;
	int           status;
	char          how[96];

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		TAILQ_FOREACH(c, &m->children, link)
			if (c->pid == pid)
				break;
		if (c == NULL)
			continue;
		TAILQ_REMOVE(&m->children, c, link);
		if (!m->stopping && c->gen == m->gen)
			master_schedule_respawn(m, c, status);
		else {
			describe_status(status, how, sizeof(how));
			log_debug("worker %d (pid %ld, generation %u) %s",
			    c->slot, (long)c->pid, c->gen, how);
		}
		free(c);
	}
}

static void
master_signal_children(struct master *m, int signo)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		kill(c->pid, signo);
}

static void
master_stop(struct master *m, int signo)
{
	if (m->stopping)
		return;
	m->stopping = signo;
	log_notice("received %s, %s", strsignal(signo), signo == SIGQUIT ?
	    "stopping gracefully" : "stopping");
	m->stop_deadline = now_ms() + STOP_GRACE_MS +
	    (signo == SIGQUIT ? m->cfg->shutdown_timeout : 0);
	master_signal_children(m, signo == SIGQUIT ? SIGQUIT : SIGTERM);
	/*
	 * A stop is not a reload: nobody will accept from these sockets
	 * again, so let new clients be refused now rather than wait in a
	 * queue until we exit.
	 */
	listen_set_close(m->ls);
	m->ls = NULL;
}

static void
master_handle_signals(struct master *m)
{
	sig_drain();
	if (sig_take(SIGCHLD))
		master_reap(m);
	if (sig_take(SIGTERM))
		master_stop(m, SIGTERM);
	if (sig_take(SIGINT))
		master_stop(m, SIGINT);
	if (sig_take(SIGQUIT))
		master_stop(m, SIGQUIT);
	if (sig_take(SIGUSR1)) {
		log_reopen();
		master_signal_children(m, SIGUSR1);
	}
	if (sig_take(SIGHUP))
		log_warn("reload is not supported yet; ignoring SIGHUP");
}

/* Start due respawns; return ms until the next thing to do, or -1. */
static int
master_timers(struct master *m)
{
	int64_t now = now_ms(), next = -1;
	int     i;

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
		else if (next == -1 || m->slots[i].respawn_at < next)
			next = m->slots[i].respawn_at;
	}
	return next == -1 ? -1 : (int)(next - now);
}

static int
master_signals_setup(void)
{
	static const int caught[] = {
		SIGCHLD, SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1
	};
	size_t           i;

	if (sig_open() == -1)
		return -1;
	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		if (sig_catch(caught[i]) == -1)
			return -1;
	sig_ignore(SIGPIPE);
	return 0;
}

static int
master_loop(struct master *m)
{
	struct pollfd pfd;
	int           i, timeout;

	for (i = 0; i < m->cfg->workers; i++)
		master_spawn(m, i);
	log_notice("started %d worker(s) for %zu rule(s)", m->cfg->workers,
	    m->cfg->nrules);
	while (!m->stopping || !TAILQ_EMPTY(&m->children)) {
		timeout = master_timers(m);
		pfd.fd = sig_fd();
		pfd.events = POLLIN;
		if (poll(&pfd, 1, timeout) == -1 && errno != EINTR) {
			log_err("poll: %s", strerror(errno));
			return 1;
		}
		master_handle_signals(m);
	}
	log_notice("stopped");
	return 0;
}

int
master_run(struct config *cfg, const struct options *opt)
{
	struct master m;
	char          err[CONFIG_ERR_MAX];
	const char   *pidfile;
	int           status;

	memset(&m, 0, sizeof(m));
	m.cfg = cfg;
	m.opt = opt;
	TAILQ_INIT(&m.children);
	pidfile = opt->pidfile != NULL ? opt->pidfile : cfg->pidfile;
	if (pidfile == NULL && !opt->foreground)
		pidfile = RUNSTATEDIR "/ferryd.pid";
	if (pidfile != NULL && pidfile[0] == '\0')
		pidfile = NULL;

	/* Everything that can fail is tried before we detach. */
	if (raise_fd_limit(cfg, err, sizeof(err)) == -1 ||
	    (pidfile != NULL && pidfile_check(pidfile, err, sizeof(err)) == -1) ||
	    (m.ls = listen_set_open(cfg, NULL, NULL, err, sizeof(err))) == NULL) {
		log_err("%s", err);
		return 1;
	}
	if (!opt->foreground && daemonize(err, sizeof(err)) == -1) {
		log_err("%s", err);
		return 1;
	}
	if (cfg->log_file != NULL) {
		if (log_open(LOG_TO_FILE, cfg->log_file, err, sizeof(err)) == -1) {
			log_err("%s", err);
			return 1;
		}
	} else if (!opt->foreground)
		log_open(LOG_TO_SYSLOG, NULL, NULL, 0);
	if (pidfile != NULL && pidfile_create(pidfile, err, sizeof(err)) == -1) {
		log_err("%s", err);
		return 1;
	}
	m.slots = calloc(cfg->workers, sizeof(*m.slots));
	if (m.slots == NULL || master_signals_setup() == -1) {
		log_err("cannot set up the master: %s", strerror(errno));
		pidfile_remove();
		return 1;
	}
	m.gen = 1;
	status = master_loop(&m);
	pidfile_remove();
	listen_set_close(m.ls);
	free(m.slots);
	return status;
}
