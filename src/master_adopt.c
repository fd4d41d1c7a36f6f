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
#include "conf.h"
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
#include "upstream.h"

#define ADOPT_LATE_MS    10000	/* as a reload's generation */
#define ADOPT_FDS_MAX    (1024 * 1024)

/* What the old image described, in the new one. */
static struct {
	bool               on;
	char               config[PATH_MAX];
	int                syntax;
	unsigned           gen;		/* the newest old generation */
	struct conf        cfg;		/* rules: address, backends */
	struct listen_set  ls;
	char              *stats_path;
	int                control_fd;	/* the listening control socket */
	char               control_path[PATH_MAX];	/* ... its file */
	size_t             ncells;	/* the health table's, carried */
	int                clients[OUTCOME_COVERS_MAX];	/* to answer */
	size_t             nclients;
	int                covers[OUTCOME_COVERS_MAX];
	size_t             ncovers;
	unsigned long      told_seq;
	int                host_drain;	/* drain host said, and since */
	long long          host_since;
	int                pid_fd;	/* the locked pidfile, or -1 */
	FILE              *in;		/* the description, read twice */
	/* Until our generation serves: the way back (master_adopt_fail). */
	bool               served;
	int                image;	/* the old image's file, or -1 */
	char             **argv;	/* ... its arguments */
	size_t             nargv;
	int               *crossed;	/* the listening sockets described */
	size_t             ncrossed;
	pid_t             *pids;	/* the workers adopted */
	size_t             npids;
	bool               adopted;	/* master_adopt() ran */
	bool               checker_gone;	/* the old checker was killed */
	/* Executed again after a failed upgrade: why, and told yet. */
	char               failed[512];
	bool               failed_told;
	pid_t             *gone;	/* workers reaped meanwhile */
	size_t             ngone;
	int64_t            adopted_at;
	int                stable;	/* the old image's counters, or -1 */
	bool               counted;	/* ... read once its workers ended */
	int                snapshot;	/* the old image's configuration */
	bool               snapshot_ran;	/* ... loaded, on the way back */
	char               snapshot_err[256];	/* ... or why not */
} up = { .image = -1, .stable = -1, .snapshot = -1 };

bool
master_adopting(void)
{
	return up.on;
}

int
master_adopt_pidfile_lock(const char *path, char *err, size_t errlen)
{
	if (pidfile_adopt(up.on ? up.pid_fd : -1, path) == 0)
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
	return up.on ? up.gen + 1 : 1;
}

/*
 * The lines of the way back (the old image and its arguments), and those
 * a failed new image adds before it executes it again (failed, gone,
 * checker-gone, answered); -1 if one makes no sense.
 */
static int
take_way_back(char *line)
{
	char   **v;
	pid_t   *g;
	size_t   len;
	long     pid;

	if (sscanf(line, "image %d", &up.image) == 1)
		return 0;
	if (sscanf(line, "stable %d", &up.stable) == 1) {
		(void)fcntl(up.stable, F_SETFD, FD_CLOEXEC);
		return 0;
	}
	if (sscanf(line, "snapshot %d", &up.snapshot) == 1) {
		(void)fcntl(up.snapshot, F_SETFD, FD_CLOEXEC);
		return 0;
	}
	if (strncmp(line, "arg ", 4) == 0) {
		len = strcspn(line + 4, "\n");
		line[4 + len] = '\0';
		if ((v = realloc(up.argv, (up.nargv + 2) * sizeof(*v))) == NULL)
			return -1;
		up.argv = v;
		if ((v[up.nargv] = calloc(1, len / 2 + 1)) == NULL)
			return -1;
		v[++up.nargv] = NULL;
		return master_hex_get(line + 4, v[up.nargv - 1], len / 2);
	}
	if (sscanf(line, "failed %511[^\n]", up.failed) == 1)
		return 0;
	if (sscanf(line, "gone %ld", &pid) == 1) {
		if ((g = realloc(up.gone, (up.ngone + 1) * sizeof(*g))) == NULL)
			return -1;
		up.gone = g;
		up.gone[up.ngone++] = (pid_t)pid;
		return 0;
	}
	if (strcmp(line, "checker-gone\n") == 0)
		up.checker_gone = true;
	if (strcmp(line, "answered\n") == 0)
		up.nclients = 0;	/* their descriptors are closed */
	/* The second pass's (workers, checker) and the table's. */
	return 0;
}

/* One line of the description into up; -1 if it makes no sense. */
static int
take_line(char *line)
{
	struct rule    *r;
	struct backend *b;
	char            hex[2 * sizeof(struct sockaddr_storage) + 2];
	char            path[PATH_MAX];
	unsigned        len, id;
	size_t          i, s, n;
	int             fd, proto, cproto, v6, k;

	if (sscanf(line, "config %d %4095[^\n]", &up.syntax, up.config) == 2)
		return 0;
	if (sscanf(line, "gen %u", &up.gen) == 1)
		return 0;
	if (sscanf(line, "pidfile %d", &up.pid_fd) == 1)
		return 0;
	if (sscanf(line, "set %zu %d %d", &up.ls.nrules, &up.ls.nsock,
	    &k) == 3) {
		up.ls.mode = (enum listen_mode)k;
		n = up.ls.nrules * (size_t)up.ls.nsock;
		if (up.ls.nrules > ADOPT_FDS_MAX || up.ls.nsock <= 0 ||
		    up.ls.nsock > MAX_WORKERS ||
		    (up.ls.fds = malloc((n + 1) * sizeof(int))) == NULL ||
		    (up.cfg.rules = calloc(up.ls.nrules + 1,
		    sizeof(*r))) == NULL)
			return -1;
		for (i = 0; i < n; i++)
			up.ls.fds[i] = -1;
		up.cfg.nrules = up.ls.nrules;
		up.ls.nslots = up.ls.nsock;
		return 0;
	}
	if (sscanf(line, "rule %zu %d %d %d %u %257s", &i, &proto, &cproto, &v6,
	    &len, hex) == 6) {
		if (i >= up.cfg.nrules || len > sizeof(r->listen_addr.ss))
			return -1;
		r = &up.cfg.rules[i];
		r->protocol = proto;
		r->connect_protocol = cproto;
		r->ipv6_only = v6 != 0;
		r->listen_addr.len = len;
		return master_hex_get(hex, &r->listen_addr.ss, len);
	}
	if (sscanf(line, "fd %zu %zu %d", &i, &s, &fd) == 3) {
		if (i >= up.ls.nrules || s >= (size_t)up.ls.nsock)
			return -1;
		LISTEN_FD(&up.ls, i, s) = fd;
		return 0;
	}
	if (sscanf(line, "backend %zu %u %u %257s", &i, &id, &len, hex) == 4) {
		if (i >= up.cfg.nrules || len > sizeof(b->addr.ss))
			return -1;
		r = &up.cfg.rules[i];
		b = realloc(r->upstream.backends, (r->upstream.nbackends + 1) *
		    sizeof(*b));
		if (b == NULL)
			return -1;
		r->upstream.backends = b;
		b = &b[r->upstream.nbackends++];
		memset(b, 0, sizeof(*b));
		b->id = id;
		b->addr.len = len;
		return master_hex_get(hex, &b->addr.ss, len);
	}
	if (sscanf(line, "stats %d %u %257s %4095s", &up.ls.stats_fd, &len, hex,
	    path) == 4) {
		up.cfg.stats_listen = up.config;	/* any: it is set */
		up.cfg.stats_addr.len = len;
		if (strcmp(path, "-") != 0 &&
		    (up.stats_path = strdup(path)) == NULL)
			return -1;
		up.cfg.stats_path = up.stats_path;
		return len > sizeof(up.cfg.stats_addr.ss) ? -1 :
		    len == 0 ? 0 : master_hex_get(hex, &up.cfg.stats_addr.ss,
		    len);
	}
	if (sscanf(line, "host %d %lld", &up.host_drain, &up.host_since) == 2)
		return 0;
	if (sscanf(line, "control %d %u %4095s", &fd, &len, path) == 3) {
		if (len >= sizeof(up.control_path) || strlen(path) != 2 * len ||
		    master_hex_get(path, up.control_path, len) == -1)
			return -1;
		up.control_path[len] = '\0';
		up.control_fd = fd;
		/* Ours until adopted; the way back clears it again. */
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		return 0;
	}
	if (sscanf(line, "covers %d", &k) == 1) {
		if (up.ncovers < OUTCOME_COVERS_MAX)
			up.covers[up.ncovers++] = k;
		return 0;
	}
	if (sscanf(line, "client %d", &fd) == 1) {
		if (up.nclients < OUTCOME_COVERS_MAX)
			up.clients[up.nclients++] = fd;
		return 0;
	}
	return take_way_back(line);
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
	up.ls.stats_fd = -1;
	up.pid_fd = -1;
	up.control_fd = -1;
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
		if ((rc = take_line(line)) == -1)
			snprintf(err, errlen, "upgrade: the description does "
			    "not make sense at: %.200s", line);
	free(line);
	if (rc == -1)
		return -1;
	if (up.config[0] == '\0' || up.ls.fds == NULL) {
		snprintf(err, errlen, "upgrade: the description is incomplete");
		return -1;
	}
	opt->config_path = up.config;
	opt->config_syntax = up.syntax;
	up.on = true;
	/* The sockets, as described: the way back hands them on as such. */
	up.ncrossed = up.ls.nrules * (size_t)up.ls.nsock;
	if ((up.crossed = malloc((up.ncrossed + 1) * sizeof(int))) != NULL) {
		memcpy(up.crossed, up.ls.fds, up.ncrossed * sizeof(int));
		up.crossed[up.ncrossed] = up.ls.stats_fd;
	}
	/*
	 * Executed again after a failure, we have no way back: the number
	 * was the old image's descriptor of our own file, closed at exec.
	 */
	if (up.failed[0] != '\0' || up.crossed == NULL || up.argv == NULL)
		up.image = -1;
	else if (up.image != -1)
		(void)fcntl(up.image, F_SETFD, FD_CLOEXEC);
	return 1;
}

struct conf *
master_adopt_config(void)
{
	struct conf *cfg;
	char         path[32], err[CONF_ERR_MAX];

	if (up.failed[0] == '\0' || up.snapshot == -1)
		return NULL;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", up.snapshot);
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
	ls = listen_set_open(cfg, &up.ls, &up.cfg, up.ls.mode, err, errlen);
	if (ls == NULL)
		return NULL;
	/*
	 * Rules the file no longer has (their old workers hold copies):
	 * closed once we serve, kept for the way back until then; their
	 * socket files go then too, as at a reload.
	 */
	for (i = 0; i < up.ls.nrules * (size_t)up.ls.nsock; i++)
		if (up.ls.fds[i] != -1)
			(void)fcntl(up.ls.fds[i], F_SETFD, FD_CLOEXEC);
	if (up.ls.stats_fd != -1)
		(void)fcntl(up.ls.stats_fd, F_SETFD, FD_CLOEXEC);
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
	char         *line = NULL, hex[512];
	size_t        cap = 0;
	size_t        i, size;
	unsigned char *cells = NULL;
	void         *p;
	int           rc;

	if (!up.on || fseek(up.in, 0, SEEK_SET) == -1)
		return health_table_new(cfg, NULL);
	while (getline(&line, &cap, up.in) != -1) {
		if (sscanf(line, "cell %zu %zu %511s", &i, &size, hex) != 3)
			continue;
		/* Another layout: the backends start anew. */
		if (size != sizeof(struct health_cell) || i != up.ncells ||
		    (p = realloc(cells, (i + 1) * size)) == NULL)
			break;
		cells = p;
		if (master_hex_get(hex, cells + i * size, size) == -1)
			break;
		up.ncells++;
	}
	free(line);
	if (up.ncells == 0 || !feof(up.in)) {
		log_warn("upgrade: the health of the backends is not carried "
		    "over: they start as at a start");
		free(cells);
		return health_table_new(cfg, NULL);
	}
	rc = health_table_adopt(cells, up.ncells) == -1 ? -1 :
	    health_table_new(cfg, &up.cfg);
	free(cells);
	return rc;
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

	if (map == NULL || (m->reload.udp_map = calloc(up.cfg.nrules + 1,
	    sizeof(int))) == NULL) {
		conf_rule_map_free(map);
		return;		/* sessions end with the old workers */
	}
	m->reload.udp_nmap = up.cfg.nrules;
	for (i = 0; i < up.cfg.nrules; i++) {
		o = &up.cfg.rules[i];
		r = conf_rule_map_find(map, o);
		m->reload.udp_map[i] = r != NULL && o->protocol == RULE_UDP &&
		    r->connect_protocol == o->connect_protocol ?
		    (int)(r - m->cfg->rules) : -1;
	}
	conf_rule_map_free(map);
}

/*
 * A "life" line: what the old image counted, for the last log line.
 * Another layout is not carried: that line then counts from the upgrade.
 */
static bool
take_life(char *line)
{
	struct stats_rule life;
	char             *hex;
	size_t            size;

	if (sscanf(line, "life %zu ", &size) != 1)
		return false;
	hex = strchr(line + 5, ' ');
	if (size == sizeof(life) && hex != NULL &&
	    strlen(hex + 1) == 2 * size + 1 && (hex[2 * size + 1] = '\0',
	    master_hex_get(hex + 1, &life, size)) == 0)
		stats_retire_life(&life);
	return true;
}

/* Whether a failed image before us said pid was reaped meanwhile. */
static bool
gone(pid_t pid)
{
	size_t i;

	for (i = 0; i < up.ngone; i++)
		if (up.gone[i] == pid)
			return true;
	return false;
}

/* A worker line: adopted, -1 if gone, 0 if it is no worker line. */
static int
adopt_worker(struct master *m, const char *line)
{
	struct child *c;
	pid_t        *p;
	long          pid;
	int           slot, state, accepting, chan;
	unsigned      gen;

	if (sscanf(line, "worker %ld %d %u %d %d %d", &pid, &slot, &gen,
	    &state, &accepting, &chan) != 6)
		return 0;
	if (gone((pid_t)pid))
		return -1;	/* its channel was closed: not ours */
	(void)fcntl(chan, F_SETFD, FD_CLOEXEC);
	if ((p = realloc(up.pids, (up.npids + 1) * sizeof(*p))) == NULL ||
	    (c = master_child_adopt(m, (pid_t)pid, slot, gen, chan)) == NULL) {
		if (p != NULL)
			up.pids = p;
		log_err("upgrade: cannot keep track of worker %d (pid %ld): "
		    "out of memory; stopping it", slot, pid);
		kill((pid_t)pid, SIGQUIT);
		close(chan);
		return -1;
	}
	up.pids = p;
	up.pids[up.npids++] = (pid_t)pid;
	c->state = state == CHILD_DRAINING ? CHILD_DRAINING : CHILD_READY;
	c->accepting = accepting != 0;
	return 1;
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
	master_own_fd(m, up.image);
	master_own_fd(m, up.stable);
	master_own_fd(m, up.snapshot);
	/* Not ours: a lock a child held would outlive the master. */
	if (up.pid_fd != pidfile_fd())
		master_own_fd(m, up.pid_fd);
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
	char         *line = NULL;
	size_t        cap = 0;
	long          pid;
	int           n = 0;
	size_t        i;

	if (!up.on)
		return;
	/*
	 * The old generation serves: no start.  Until ours serves, though,
	 * a worker of it that dies is a failed start (master_reap), which
	 * takes us back to the old image, unless we are that image.
	 */
	m->started = up.image == -1;
	/* The scoreboard is new: the host stays drained if it was. */
	scoreboard_host_drain_restore(up.host_drain != 0,
	    (int64_t)up.host_since);
	/*
	 * The control socket crossed the exec with the clients queued on it
	 * meanwhile: served on if the file still names it (then
	 * master_control_open keeps it).
	 */
	if (up.control_fd != -1 &&
	    master_control_adopt(m, up.control_fd, up.control_path) == -1)
		up.control_fd = -1;
	/* Executed again after a failure: told at master_adopt_answer(). */
	if (up.failed[0] == '\0')
		memcpy(m->outcome.covered, up.covers, up.ncovers *
		    sizeof(*up.covers));
	m->outcome.ncovered = up.failed[0] == '\0' ? up.ncovers : 0;
	/* What the old workers count from now on is read at the end. */
	if (up.stable != -1 && stats_adopt(up.stable) == -1)
		log_warn("upgrade: cannot read the old image's counters (%s): "
		    "what its workers count from now on is not counted",
		    strerror(errno));
	rewind(up.in);
	while (getline(&line, &cap, up.in) != -1) {
		if (take_life(line) || master_carry_line(line))
			continue;
		if (sscanf(line, "checker %ld", &pid) == 1) {
			/* Its lifeline closed at exec; a new one starts. */
			if (!up.checker_gone)
				kill((pid_t)pid, SIGTERM);
			up.checker_gone = true;
			continue;
		}
		n += adopt_worker(m, line) == 1;
	}
	free(line);
	master_carry_done(m->cfg);	/* after the life: it leaves it */
	map_udp_rules(m);
	for (i = 0; i < up.nclients; i++)
		(void)fcntl(up.clients[i], F_SETFD, FD_CLOEXEC);
	up.told_seq = m->outcome.seq;
	own_way_back(m);
	up.adopted = true;
	up.adopted_at = clock_ms();
	if (up.failed[0] != '\0')
		log_notice("back to %s (pid %ld) after a failed upgrade%s%s: %d "
		    "worker(s) of generation %u and before drain once "
		    "generation %u serves", master_upgrade_exe(),
		    (long)getpid(), up.snapshot_ran ? ", with the "
		    "configuration it ran (the file is read at the next "
		    "reload)" : "", up.snapshot_err, n, up.gen, m->gen);
	else
		log_notice("upgraded in place to %s (pid %ld): %d worker(s) "
		    "of generation %u and before drain once generation %u "
		    "serves", master_upgrade_exe(), (long)getpid(), n, up.gen,
		    m->gen);
	/* Late with a way back: master_adopt_answer() goes back. */
	if (up.image == -1)
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
	master_socket_files_forget(&up.cfg, m->cfg);
	/* The old image's pidfile, if we locked another one. */
	if (up.pid_fd != pidfile_fd())
		close_own(m, &up.pid_fd);
	up.pid_fd = -1;
	for (i = 0; i < up.ls.nrules * (size_t)up.ls.nsock; i++)
		if (up.ls.fds[i] != -1)
			close(up.ls.fds[i]);
	if (up.ls.stats_fd != -1)
		close(up.ls.stats_fd);
	free(up.ls.fds);
	up.ls.fds = NULL;
	up.ls.stats_fd = -1;
	up.ls.nrules = 0;
	master_disown_fd(m, in);
	fclose(up.in);
	up.in = NULL;
	close_own(m, &up.image);
	close_own(m, &up.stable);	/* mapped: no way back needs it now */
	close_own(m, &up.snapshot);
}

/* Whether a worker of the old image's is left. */
static bool
old_alive(const struct master *m)
{
	const struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen <= up.gen)
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
	close_own(m, &up.image);
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
	else if (!up.served && up.adopted && up.image != -1 && !m->stopping &&
	    clock_ms() - up.adopted_at >= ADOPT_LATE_MS)
		adopt_late(m);
	if (up.adopted && !up.counted && !old_alive(m)) {
		up.counted = true;
		master_carry_end(m->cfg);
	}
	/* Back after a failure: said once the old binary serves anew. */
	if (up.failed[0] != '\0' && !up.failed_told && (up.served ||
	    clock_ms() - up.adopted_at >= ADOPT_LATE_MS)) {
		up.failed_told = true;
		memcpy(m->outcome.covered, up.covers, up.ncovers *
		    sizeof(*up.covers));
		m->outcome.ncovered = up.ncovers;
		master_tell(m, false, "upgrade: %s; back to %s, which goes "
		    "on serving", up.failed, master_upgrade_exe());
		m->outcome.ncovered = 0;
	}
	if (up.nclients == 0 || m->outcome.seq == up.told_seq)
		return;
	/* A few hundred bytes to each client that waits: written at once. */
	for (i = 0; i < up.nclients; i++) {
		(void)fcntl(up.clients[i], F_SETFL, fcntl(up.clients[i],
		    F_GETFL) & ~O_NONBLOCK);
		if ((f = fdopen(up.clients[i], "w")) == NULL) {
			close(up.clients[i]);
			continue;
		}
		fprintf(f, m->outcome.told_ok ? "%s\nok\n" : "error: %s\n",
		    m->outcome.told);
		fclose(f);
	}
	up.nclients = 0;
}

/*
 * The way back: what tells the old image that we failed and what we
 * did meanwhile, appended to its description (fd).
 */
static void
note_failure(struct master *m, int fd, const char *why)
{
	char   line[sizeof(up.failed)];
	size_t i;

	snprintf(line, sizeof(line), "%s failed before it served: %s",
	    master_upgrade_exe(), why);
	line[strcspn(line, "\n")] = '\0';
	(void)dprintf(fd, "failed %s\n", line);
	if (!up.adopted)
		return;	/* nothing reaped, killed or answered yet */
	for (i = 0; i < up.npids; i++)
		if (master_child_find(m, up.pids[i]) == NULL)
			(void)dprintf(fd, "gone %ld\n", (long)up.pids[i]);
	if (up.checker_gone)
		(void)dprintf(fd, "checker-gone\n");
	if (up.nclients == 0)
		(void)dprintf(fd, "answered\n");
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
	for (i = 0; i < up.nclients; i++)
		(void)fcntl(up.clients[i], F_SETFD, 0);
	if (up.stable != -1)
		(void)fcntl(up.stable, F_SETFD, 0);
	if (up.snapshot != -1)
		(void)fcntl(up.snapshot, F_SETFD, 0);
	/* The control socket, unless it was not ours to take. */
	if (up.control_fd != -1)
		(void)fcntl(up.control_fd, F_SETFD, 0);
	/* Its lock with it, as the old image gave it (same number). */
	if (up.pid_fd != -1)
		(void)fcntl(up.pid_fd, F_SETFD, 0);
	if (m != NULL && up.adopted)
		TAILQ_FOREACH(c, &m->children, link)
			if (c->gen <= up.gen && c->chan != -1)
				(void)fcntl(c->chan, F_SETFD, 0);
	(void)fcntl(desc, F_SETFD, 0);
}

void
master_adopt_fail(struct master *m, const char *why)
{
	extern char **environ;
	char          env[32];
	int           desc;

	if (!up.on || up.served || up.image == -1 || up.in == NULL)
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
			fexecve(up.image, up.argv, environ);
	}
	log_err("upgrade: cannot execute the old binary again: %s",
	    strerror(errno));
	sig_block_all(0);
	no_way_back(m);
}
