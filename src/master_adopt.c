/*
 * master_adopt.c - the new image of a binary upgrade (master_upgrade.c
 * is the old one's): it reads what the old image described in the
 * memfd named in FERRYD_UPGRADE, takes the listening sockets and the
 * health over as a reload does (from a stand-in of the old rules),
 * adopts the workers as an old generation, and answers the control
 * clients that asked once its own generation serves or is late.  Until
 * it serves, it destroys nothing the old image described: should it
 * fail, it executes the old image again on the same description
 * (master_adopt_fail), which takes everything over as at an upgrade.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "health.h"
#include "scoreboard.h"
#include "listen.h"
#include "log.h"
#include "master_adopt.h"
#include "master_carry.h"
#include "master_child.h"
#include "master_control.h"
#include "master_reload.h"
#include "master_state.h"
#include "master_upgrade.h"
#include "options.h"
#include "pidfile.h"
#include "rule.h"
#include "sig.h"
#include "stats.h"
#include "upgrade_record.h"
#include "upstream.h"

#define ADOPT_LATE_MS    10000	/* as a reload's generation */
#define ADOPT_FDS_MAX    (1024 * 1024)

/* What the old image described (d), and what the new one made of it. */
static struct {
	bool                on;
	struct upgrade_desc d;
	unsigned long       told_seq;
	FILE               *in;		/* the description, for the way back */
	/* Until our generation serves: the way back (master_adopt_fail). */
	bool                served;
	int                *crossed;	/* the listening sockets described */
	size_t              ncrossed;
	pid_t              *pids;	/* the workers adopted */
	size_t              npids;
	bool                adopted;	/* master_adopt() ran */
	/* Executed again after a failed upgrade: told yet. */
	bool                failed_told;
	int64_t             adopted_at;
	bool                counted;	/* old counters read, its workers gone */
	bool                snapshot_ran;	/* d.snapshot loaded, going back */
	char                snapshot_err[256];	/* ... or why not */
} up = { .d = { .image = -1, .stable = -1, .snapshot = -1,
    .pid_fd = -1, .control_fd = -1, .ls = { .stats_fd = -1 } } };

bool
master_adopting(void)
{
	return up.on;
}

int
master_adopt_pidfile_lock(const char *path, char *err, size_t errlen)
{
	if (pidfile_adopt(up.on ? up.d.pid_fd : -1, path) == 0)
		return 0;
	return path != NULL ? pidfile_lock(path, err, errlen) : 0;
}

const char *
master_adopt_pidfile_path(const struct conf *cfg, const struct options *opt)
{
	const char	*pidfile = opt->pidfile != NULL ? opt->pidfile :
			    cfg->pidfile;

	if (pidfile == NULL && !opt->foreground)
		pidfile = PIDFILE_DEFAULT;
	return pidfile != NULL && pidfile[0] == '\0' ? NULL : pidfile;
}

void
master_adopt_failed(struct master *m, bool foreground, const char *why)
{
	char err[256];

	if (!up.on)
		return;
	/* Where the old image logged: our stderr goes nowhere. */
	if (m->cfg->log_file != NULL)
		(void)log_open(LOG_TO_FILE, m->cfg->log_file, err, sizeof(err));
	else if (!foreground)
		log_open(LOG_TO_SYSLOG, NULL, NULL, 0);
	master_adopt_fail(m, why);	/* returns: no way back */
	log_err("upgrade: the new image cannot start; ferryd stops, its "
	    "workers finish their connections");
}

unsigned
master_adopt_gen(void)
{
	return up.on ? up.d.gen + 1 : 1;
}

int
master_adopt_take(struct options *opt, char *err, size_t errlen)
{
	const char *env = getenv(MASTER_UPGRADE_ENV);
	char       *line = NULL, *end;
	size_t      cap = 0;
	long        fd;
	int         rc = 0;

	if (env == NULL)
		return 0;
	upgrade_desc_init(&up.d);
	fd = strtol(env, &end, 10);
	unsetenv(MASTER_UPGRADE_ENV);	/* not for our children */
	if (*end != '\0' || fd < 0 || fd > INT_MAX ||
	    lseek((int)fd, 0, SEEK_SET) == -1 ||
	    (up.in = fdopen((int)fd, "r")) == NULL) {
		snprintf(err, errlen, "upgrade: cannot read the description "
		    "%s=%s: %s", MASTER_UPGRADE_ENV, env, strerror(errno));
		return -1;
	}
	(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	while (rc == 0 && getline(&line, &cap, up.in) != -1)
		if ((rc = upgrade_record_read(line, &up.d)) == -1)
			snprintf(err, errlen, "upgrade: the description does "
			    "not make sense at: %.200s", line);
	free(line);
	if (rc == -1)
		return -1;
	/* Ours until adopted; the way back clears it again. */
	if (up.d.control_fd != -1)
		(void)fcntl(up.d.control_fd, F_SETFD, FD_CLOEXEC);
	if (up.d.stable != -1)
		(void)fcntl(up.d.stable, F_SETFD, FD_CLOEXEC);
	if (up.d.snapshot != -1)
		(void)fcntl(up.d.snapshot, F_SETFD, FD_CLOEXEC);
	if (up.d.config[0] == '\0' || up.d.ls.fds == NULL) {
		snprintf(err, errlen, "upgrade: the description is incomplete");
		return -1;
	}
	opt->config_path = up.d.config;
	opt->config_syntax = up.d.syntax;
	up.on = true;
	/* The sockets, as described: the way back hands them on as such. */
	up.ncrossed = up.d.ls.nrules * (size_t)up.d.ls.nsock;
	if ((up.crossed = malloc((up.ncrossed + 1) * sizeof(int))) != NULL) {
		memcpy(up.crossed, up.d.ls.fds, up.ncrossed * sizeof(int));
		up.crossed[up.ncrossed] = up.d.ls.stats_fd;
	}
	/*
	 * Executed again after a failure, we have no way back: the number
	 * was the old image's descriptor of our own file, closed at exec.
	 */
	if (up.d.failed[0] != '\0' || up.crossed == NULL || up.d.argv == NULL)
		up.d.image = -1;
	else if (up.d.image != -1)
		(void)fcntl(up.d.image, F_SETFD, FD_CLOEXEC);
	return 1;
}

struct conf *
master_adopt_config(void)
{
	struct conf *cfg;
	char         path[32], err[CONF_ERR_MAX];

	if (up.d.failed[0] == '\0' || up.d.snapshot == -1)
		return NULL;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", up.d.snapshot);
	cfg = conf_load_as(path, CONF_SYNTAX_LIBCONFIG, NULL, err,
	    sizeof(err));
	up.snapshot_ran = cfg != NULL;
	if (cfg == NULL)
		snprintf(up.snapshot_err, sizeof(up.snapshot_err), " (what it "
		    "ran could not be read back: %.200s; the file was)", err);
	return cfg;
}

struct listen_set *
master_adopt_listen(const struct conf *cfg, int mode, char *err,
    size_t errlen)
{
	struct listen_set *ls;
	size_t             i;

	if (!up.on)
		return listen_set_open(cfg, NULL, NULL, (enum listen_mode)mode,
		    err, errlen);
	ls = listen_set_open(cfg, &up.d.ls, &up.d.cfg, up.d.ls.mode, err, errlen);
	if (ls == NULL)
		return NULL;
	/*
	 * Rules the file no longer has (their old workers hold copies):
	 * closed once we serve, kept for the way back until then; their
	 * socket files go then too, as at a reload.
	 */
	for (i = 0; i < up.d.ls.nrules * (size_t)up.d.ls.nsock; i++)
		if (up.d.ls.fds[i] != -1)
			(void)fcntl(up.d.ls.fds[i], F_SETFD, FD_CLOEXEC);
	if (up.d.ls.stats_fd != -1)
		(void)fcntl(up.d.ls.stats_fd, F_SETFD, FD_CLOEXEC);
	/* Ours now: not for a -t run's child, nor a later exec's unasked. */
	for (i = 0; i < ls->nrules * (size_t)ls->nsock; i++)
		(void)fcntl(ls->fds[i], F_SETFD, FD_CLOEXEC);
	if (ls->stats_fd != -1)
		(void)fcntl(ls->stats_fd, F_SETFD, FD_CLOEXEC);
	return ls;
}

int
master_adopt_health(const struct conf *cfg)
{
	if (!up.on)
		return health_table_new(cfg, NULL);
	if (up.d.ncells == 0 || up.d.cells_broken) {
		log_warn("upgrade: the health of the backends is not carried "
		    "over: they start as at a start");
		return health_table_new(cfg, NULL);
	}
	return health_table_adopt(up.d.cells, up.d.ncells) == -1 ? -1 :
	    health_table_new(cfg, &up.d.cfg);
}

/*
 * Where the old generation hands its UDP sessions to: the new rule of
 * the same address that forwards the same way (master_new_home()).
 */
static void
map_udp_rules(struct master *m)
{
	struct rule_map   *map = conf_rule_map_new(m->cfg);
	const struct rule *o, *r;
	size_t             i;

	if (map == NULL || (m->reload.udp_map = calloc(up.d.cfg.nrules + 1,
	    sizeof(int))) == NULL) {
		conf_rule_map_free(map);
		return;		/* sessions end with the old workers */
	}
	m->reload.udp_nmap = up.d.cfg.nrules;
	for (i = 0; i < up.d.cfg.nrules; i++) {
		o = &up.d.cfg.rules[i];
		r = conf_rule_map_find(map, o);
		m->reload.udp_map[i] = r != NULL && o->protocol == RULE_UDP &&
		    r->connect_protocol == o->connect_protocol ?
		    (int)(r - m->cfg->rules) : -1;
	}
	conf_rule_map_free(map);
}

/* Whether a failed image before us said pid was reaped meanwhile. */
static bool
gone(pid_t pid)
{
	size_t i;

	for (i = 0; i < up.d.ngone; i++)
		if (up.d.gone[i] == pid)
			return true;
	return false;
}

/* A worker described: whether it is adopted (not if gone). */
static bool
adopt_worker(struct master *m, const struct upgrade_worker *w)
{
	struct child *c;
	pid_t        *p;
	long          pid = w->pid;
	int           slot = w->slot, chan = w->chan;

	if (gone((pid_t)pid))
		return false;	/* its channel was closed: not ours */
	(void)fcntl(chan, F_SETFD, FD_CLOEXEC);
	if ((p = realloc(up.pids, (up.npids + 1) * sizeof(*p))) == NULL ||
	    (c = master_child_adopt(m, (pid_t)pid, slot, w->gen,
	    chan)) == NULL) {
		if (p != NULL)
			up.pids = p;
		log_err("upgrade: cannot keep track of worker %d (pid %ld): "
		    "out of memory; stopping it", slot, pid);
		kill((pid_t)pid, SIGQUIT);
		close(chan);
		return false;
	}
	up.pids = p;
	up.pids[up.npids++] = (pid_t)pid;
	c->state = w->state == CHILD_DRAINING ? CHILD_DRAINING : CHILD_READY;
	c->accepting = w->accepting != 0;
	return true;
}

/*
 * The descriptors of the way back (the description, the old image, its
 * counters and configuration, the old pidfile if we locked another one):
 * the master's own, that no child may hold (master_own_fd).
 */
static void
own_way_back(struct master *m)
{
	master_own_fd(m, fileno(up.in));
	master_own_fd(m, up.d.image);
	master_own_fd(m, up.d.stable);
	master_own_fd(m, up.d.snapshot);
	/* Not ours: a lock a child held would outlive the master. */
	if (up.d.pid_fd != pidfile_fd())
		master_own_fd(m, up.d.pid_fd);
}

/* *fd closed, no longer the master's own, and -1. */
static void
close_own(struct master *m, int *fd)
{
	if (*fd == -1)
		return;
	if (m != NULL)
		master_disown_fd(m, *fd);
	close(*fd);
	*fd = -1;
}

void
master_adopt(struct master *m)
{
	int    n = 0;
	size_t i;

	if (!up.on)
		return;
	/*
	 * The old generation serves: no start.  Until ours serves, though,
	 * a worker of it that dies is a failed start (master_reap), which
	 * takes us back to the old image, unless we are that image.
	 */
	m->started = up.d.image == -1;
	/* The scoreboard is new: the host stays drained if it was. */
	scoreboard_host_drain_restore(up.d.host_drain != 0,
	    (int64_t)up.d.host_since);
	/*
	 * The control socket crossed the exec with the clients queued on it
	 * meanwhile: served on if the file still names it (then
	 * master_control_open keeps it).
	 */
	if (up.d.control_fd != -1 &&
	    master_control_adopt(m, up.d.control_fd, up.d.control_path) == -1)
		up.d.control_fd = -1;
	/* Executed again after a failure: told at master_adopt_answer(). */
	if (up.d.failed[0] == '\0')
		memcpy(m->outcome.covered, up.d.covers, up.d.ncovers *
		    sizeof(*up.d.covers));
	m->outcome.ncovered = up.d.failed[0] == '\0' ? up.d.ncovers : 0;
	/* What the old workers count from now on is read at the end. */
	if (up.d.stable != -1 && stats_adopt(up.d.stable) == -1)
		log_warn("upgrade: cannot read the old image's counters (%s): "
		    "what its workers count from now on is not counted",
		    errno == EPROTO ? "another layout: an image of another "
		    "ferryd version" : strerror(errno));
	/* What the old image counted, for the last log line. */
	if (up.d.has_life)
		stats_retire_life(&up.d.life);
	for (i = 0; i < up.d.nworkers; i++)
		n += adopt_worker(m, &up.d.workers[i]);
	/* Its lifeline closed at exec; a new one starts. */
	if (up.d.checker > 0) {
		if (!up.d.checker_gone)
			kill((pid_t)up.d.checker, SIGTERM);
		up.d.checker_gone = true;
	}
	master_carry_done(m->cfg);	/* after the life: it leaves it */
	map_udp_rules(m);
	for (i = 0; i < up.d.nclients; i++)
		(void)fcntl(up.d.clients[i], F_SETFD, FD_CLOEXEC);
	up.told_seq = m->outcome.seq;
	own_way_back(m);
	up.adopted = true;
	up.adopted_at = clock_ms();
	if (up.d.failed[0] != '\0')
		log_notice("back to %s (pid %ld) after a failed upgrade%s%s: %d "
		    "worker(s) of generation %u and before drain once "
		    "generation %u serves", master_upgrade_exe(),
		    (long)getpid(), up.snapshot_ran ? ", with the "
		    "configuration it ran (the file is read at the next "
		    "reload)" : "", up.snapshot_err, n, up.d.gen, m->gen);
	else
		log_notice("upgraded in place to %s (pid %ld): %d worker(s) "
		    "of generation %u and before drain once generation %u "
		    "serves", master_upgrade_exe(), (long)getpid(), n, up.d.gen,
		    m->gen);
	/* Late with a way back: master_adopt_answer() goes back. */
	if (up.d.image == -1)
		(void)event_timer_arm(m->loop, &m->reload.gen_late, clock_ms() +
		    ADOPT_LATE_MS);
	/* The old image blocked them for the exec. */
	sig_block_all(0);
	/* Children that ended meanwhile: SIGCHLD came while blocked. */
}

/*
 * Our generation serves: what was kept for the way back goes, and the
 * socket files of the rules the file no longer has, as at a reload.
 */
static void
adopt_served(struct master *m)
{
	size_t i;
	int    in = fileno(up.in);

	up.served = true;
	master_socket_files_forget(&up.d.cfg, m->cfg);
	/* The old image's pidfile, if we locked another one. */
	if (up.d.pid_fd != pidfile_fd())
		close_own(m, &up.d.pid_fd);
	up.d.pid_fd = -1;
	for (i = 0; i < up.d.ls.nrules * (size_t)up.d.ls.nsock; i++)
		if (up.d.ls.fds[i] != -1)
			close(up.d.ls.fds[i]);
	if (up.d.ls.stats_fd != -1)
		close(up.d.ls.stats_fd);
	free(up.d.ls.fds);
	up.d.ls.fds = NULL;
	up.d.ls.stats_fd = -1;
	up.d.ls.nrules = 0;
	master_disown_fd(m, in);
	fclose(up.in);
	up.in = NULL;
	close_own(m, &up.d.image);
	close_own(m, &up.d.stable);	/* mapped: no way back needs it now */
	close_own(m, &up.d.snapshot);
}

/* Whether a worker of the old image's is left. */
static bool
old_alive(const struct master *m)
{
	const struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen <= up.d.gen)
			return true;
	return false;
}

/*
 * The old image could not be executed again: we go on as an upgrade
 * did before there was a way back (our workers respawn, late is said
 * at ADOPT_LATE_MS after the adoption).
 */
static void
no_way_back(struct master *m)
{
	close_own(m, &up.d.image);
	if (m == NULL || !up.adopted)
		return;
	m->started = true;
	(void)event_timer_arm(m->loop, &m->reload.gen_late, up.adopted_at +
	    ADOPT_LATE_MS);
}

/*
 * Our generation is not ready in time: back to the old image; if that
 * cannot be, late is said as for a reload, and its workers respawn.
 */
static void
adopt_late(struct master *m)
{
	char why[200];

	snprintf(why, sizeof(why), "generation %u is not ready after %d s "
	    "(its workers fail to start: see the log above)", m->gen,
	    ADOPT_LATE_MS / 1000);
	master_adopt_fail(m, why);	/* returns: no way back */
	(void)event_timer_arm(m->loop, &m->reload.gen_late, clock_ms());
}

void
master_adopt_answer(struct master *m)
{
	FILE   *f;
	size_t  i;

	if (!up.on)
		return;
	if (!up.served && up.adopted && m->outcome.gen_told == m->gen)
		adopt_served(m);
	else if (!up.served && up.adopted && up.d.image != -1 && !m->stopping &&
	    clock_ms() - up.adopted_at >= ADOPT_LATE_MS)
		adopt_late(m);
	if (up.adopted && !up.counted && !old_alive(m)) {
		up.counted = true;
		master_carry_end(m->cfg);
	}
	/* Back after a failure: said once the old binary serves anew. */
	if (up.d.failed[0] != '\0' && !up.failed_told && (up.served ||
	    clock_ms() - up.adopted_at >= ADOPT_LATE_MS)) {
		up.failed_told = true;
		memcpy(m->outcome.covered, up.d.covers, up.d.ncovers *
		    sizeof(*up.d.covers));
		m->outcome.ncovered = up.d.ncovers;
		master_tell(m, false, "upgrade: %s; back to %s, which goes "
		    "on serving", up.d.failed, master_upgrade_exe());
		m->outcome.ncovered = 0;
	}
	if (up.d.nclients == 0 || m->outcome.seq == up.told_seq)
		return;
	/* A few hundred bytes to each client that waits: written at once. */
	for (i = 0; i < up.d.nclients; i++) {
		(void)fcntl(up.d.clients[i], F_SETFL, fcntl(up.d.clients[i],
		    F_GETFL) & ~O_NONBLOCK);
		if ((f = fdopen(up.d.clients[i], "w")) == NULL) {
			close(up.d.clients[i]);
			continue;
		}
		fprintf(f, m->outcome.told_ok ? "%s\nok\n" : "error: %s\n",
		    m->outcome.told);
		fclose(f);
	}
	up.d.nclients = 0;
}

/*
 * The way back: what tells the old image that we failed and what we
 * did meanwhile, appended to its description (fd).
 */
static void
note_failure(struct master *m, int fd, const char *why)
{
	struct upgrade_source src = { .failed = NULL };
	char                  line[sizeof(up.d.failed)];
	pid_t                *reaped = NULL;
	size_t                i;
	FILE                 *f;

	snprintf(line, sizeof(line), "%s failed before it served: %s",
	    master_upgrade_exe(), why);
	src.failed = line;
	/* Nothing reaped, killed or answered before the adoption. */
	if (up.adopted && (reaped = calloc(up.npids + 1, sizeof(*reaped))) !=
	    NULL) {
		for (i = 0; i < up.npids; i++)
			if (master_child_find(m, up.pids[i]) == NULL)
				reaped[src.ngone++] = up.pids[i];
		src.gone = reaped;
		src.checker_gone = up.d.checker_gone;
		src.answered = up.d.nclients == 0;
	}
	if ((f = fdopen(dup(fd), "a")) != NULL) {
		(void)upgrade_record_write(f, &src, UPGRADE_PART_WAY_BACK);
		fclose(f);
	}
	free(reaped);
}

/* Every descriptor described, kept across the exec back. */
static void
keep_across(struct master *m, int desc)
{
	struct child *c;
	size_t        i;

	for (i = 0; i <= up.ncrossed; i++)
		if (up.crossed[i] != -1)
			(void)fcntl(up.crossed[i], F_SETFD, 0);
	for (i = 0; i < up.d.nclients; i++)
		(void)fcntl(up.d.clients[i], F_SETFD, 0);
	if (up.d.stable != -1)
		(void)fcntl(up.d.stable, F_SETFD, 0);
	if (up.d.snapshot != -1)
		(void)fcntl(up.d.snapshot, F_SETFD, 0);
	/* The control socket, unless it was not ours to take. */
	if (up.d.control_fd != -1)
		(void)fcntl(up.d.control_fd, F_SETFD, 0);
	/* Its lock with it, as the old image gave it (same number). */
	if (up.d.pid_fd != -1)
		(void)fcntl(up.d.pid_fd, F_SETFD, 0);
	if (m != NULL && up.adopted)
		TAILQ_FOREACH(c, &m->children, link)
			if (c->gen <= up.d.gen && c->chan != -1)
				(void)fcntl(c->chan, F_SETFD, 0);
	(void)fcntl(desc, F_SETFD, 0);
}

void
master_adopt_fail(struct master *m, const char *why)
{
	extern char **environ;
	char          env[32];
	int           desc;

	if (!up.on || up.served || up.d.image == -1 || up.in == NULL)
		return;
	log_err("upgrade: %s failed before it served: %s; executing the old "
	    "binary again (pid %ld stays)", master_upgrade_exe(), why,
	    (long)getpid());
	/* Ours wait in the kernel for the old image, as at the upgrade. */
	sig_block_all(1);
	master_upgrade_carry_signals();
	desc = fileno(up.in);
	if (lseek(desc, 0, SEEK_END) != -1) {
		note_failure(m, desc, why);
		keep_across(m, desc);
		snprintf(env, sizeof(env), "%d", desc);
		/*
		 * Our children (a new generation, a checker) find their
		 * channels closed at exec: they finish and exit; the old
		 * image reaps them as strangers.
		 */
		if (setenv(MASTER_UPGRADE_ENV, env, 1) == 0)
			fexecve(up.d.image, up.d.argv, environ);
	}
	log_err("upgrade: cannot execute the old binary again: %s",
	    strerror(errno));
	sig_block_all(0);
	no_way_back(m);
}
