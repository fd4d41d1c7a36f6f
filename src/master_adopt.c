/*
 * master_adopt.c - the new image of a binary upgrade (master_upgrade.c
 * is the old one's): it reads what the old image described in the
 * memfd named in FERRYD_UPGRADE, takes the listening sockets and the
 * health over as a reload does (from a stand-in of the old rules),
 * adopts the workers as an old generation, and answers the control
 * clients that asked once its own generation serves or is late.
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
#include "master_child.h"
#include "master_reload.h"
#include "master_state.h"
#include "master_upgrade.h"
#include "options.h"
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
} up;

bool
master_adopting(void)
{
	return up.on;
}

int
master_adopt_pidfile(void)
{
	return up.on ? up.pid_fd : -1;
}

void
master_adopt_failed(const struct conf *cfg, bool foreground)
{
	char err[256];

	if (!up.on)
		return;
	if (cfg->log_file != NULL)
		(void)log_open(LOG_TO_FILE, cfg->log_file, err, sizeof(err));
	else if (!foreground)
		log_open(LOG_TO_SYSLOG, NULL, NULL, 0);
	log_err("upgrade: the new image cannot start; ferryd stops, its "
	    "workers finish their connections");
}

unsigned
master_adopt_gen(void)
{
	return up.on ? up.gen + 1 : 1;
}

/* Hex (master_upgrade.c's) back to len bytes exactly, or -1. */
static int
hex_get(const char *s, void *p, size_t len)
{
	unsigned char *b = p;
	unsigned       v;
	size_t         i;

	if (strlen(s) != 2 * len)
		return -1;
	for (i = 0; i < len; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		b[i] = (unsigned char)v;
	}
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
		return hex_get(hex, &r->listen_addr.ss, len);
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
		return hex_get(hex, &b->addr.ss, len);
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
		    len == 0 ? 0 : hex_get(hex, &up.cfg.stats_addr.ss, len);
	}
	if (sscanf(line, "host %d %lld", &up.host_drain, &up.host_since) == 2)
		return 0;
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
	/* The second pass's (workers, checker) and the table's. */
	return 0;
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
	return 1;
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
	 * Rules the file no longer has: their old workers hold copies, and
	 * their socket files go, as at a reload.
	 */
	for (i = 0; i < up.ls.nrules * (size_t)up.ls.nsock; i++)
		if (up.ls.fds[i] != -1)
			close(up.ls.fds[i]);
	master_socket_files_forget(&up.cfg, cfg);
	if (up.ls.stats_fd != -1)
		close(up.ls.stats_fd);
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
		if (hex_get(hex, cells + i * size, size) == -1)
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

	if (map == NULL || (m->udp_map = calloc(up.cfg.nrules + 1,
	    sizeof(int))) == NULL) {
		conf_rule_map_free(map);
		return;		/* sessions end with the old workers */
	}
	m->udp_nmap = up.cfg.nrules;
	for (i = 0; i < up.cfg.nrules; i++) {
		o = &up.cfg.rules[i];
		r = conf_rule_map_find(map, o);
		m->udp_map[i] = r != NULL && o->protocol == RULE_UDP &&
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
	    hex_get(hex + 1, &life, size)) == 0)
		stats_retire_life(&life);
	return true;
}

void
master_adopt(struct master *m)
{
	char         *line = NULL;
	size_t        cap = 0;
	long          pid;
	int           slot, state, accepting, chan, n = 0;
	size_t        i;
	unsigned      gen;
	struct child *c;

	if (!up.on)
		return;
	m->started = true;	/* the old generation serves: no start */
	/* The scoreboard is new: the host stays drained if it was. */
	scoreboard_host_drain_restore(up.host_drain != 0,
	    (int64_t)up.host_since);
	memcpy(m->covered, up.covers, up.ncovers * sizeof(*up.covers));
	m->ncovered = up.ncovers;
	rewind(up.in);
	while (getline(&line, &cap, up.in) != -1) {
		if (take_life(line))
			continue;
		if (sscanf(line, "checker %ld", &pid) == 1) {
			/* Its lifeline closed at exec; a new one starts. */
			kill((pid_t)pid, SIGTERM);
			continue;
		}
		if (sscanf(line, "worker %ld %d %u %d %d %d", &pid, &slot, &gen,
		    &state, &accepting, &chan) != 6)
			continue;
		(void)fcntl(chan, F_SETFD, FD_CLOEXEC);
		if ((c = master_child_adopt(m, (pid_t)pid, slot, gen,
		    chan)) == NULL) {
			log_err("upgrade: cannot keep track of worker %d (pid "
			    "%ld): out of memory; stopping it", slot, pid);
			kill((pid_t)pid, SIGQUIT);
			close(chan);
			continue;
		}
		c->state = state == CHILD_DRAINING ? CHILD_DRAINING :
		    CHILD_READY;
		c->accepting = accepting != 0;
		n++;
	}
	free(line);
	fclose(up.in);
	up.in = NULL;
	map_udp_rules(m);
	for (i = 0; i < up.nclients; i++)
		(void)fcntl(up.clients[i], F_SETFD, FD_CLOEXEC);
	up.told_seq = m->outcome_seq;
	log_notice("upgraded in place to %s (pid %ld): %d worker(s) of "
	    "generation %u and before drain once generation %u serves",
	    master_upgrade_exe(),
	    (long)getpid(), n, up.gen, m->gen);
	(void)event_timer_arm(m->loop, &m->gen_late, clock_ms() +
	    ADOPT_LATE_MS);
	/* The old image blocked them for the exec. */
	sig_block_all(0);
	/* Children that ended meanwhile: SIGCHLD came while blocked. */
}

void
master_adopt_answer(struct master *m)
{
	FILE   *f;
	size_t  i;

	if (up.nclients == 0 || m->outcome_seq == up.told_seq)
		return;
	/* A few hundred bytes to each client that waits: written at once. */
	for (i = 0; i < up.nclients; i++) {
		(void)fcntl(up.clients[i], F_SETFL, fcntl(up.clients[i],
		    F_GETFL) & ~O_NONBLOCK);
		if ((f = fdopen(up.clients[i], "w")) == NULL) {
			close(up.clients[i]);
			continue;
		}
		fprintf(f, m->told_ok ? "%s\nok\n" : "error: %s\n", m->told);
		fclose(f);
	}
	up.nclients = 0;
}
