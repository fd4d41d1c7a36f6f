/*
 * master_upgrade.c - binary upgrade in place.  The old image checks the
 * binary on disk with -t, describes what the new one takes over in a
 * memfd (see master_upgrade.h), lets those descriptors cross exec and
 * execs; the new image reads the description, takes the listening
 * sockets over as a reload does, adopts the workers as an old
 * generation and starts a new one.  Nothing is changed before exec
 * that a failed exec does not undo.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "conf.h"
#include "health.h"
#include "listen.h"
#include "log.h"
#include "master_child.h"
#include "master_control.h"
#include "master_reload.h"
#include "master_state.h"
#include "master_upgrade.h"
#include "options.h"
#include "rule.h"
#include "sig.h"
#include "stats.h"
#include "upstream.h"

#define UPGRADE_ENV      "FERRYD_UPGRADE"
#define UPGRADE_PROBE    "FERRYD_UPGRADE_PROBE"
/* What a binary that can take over says to -t with UPGRADE_PROBE set. */
#define UPGRADE_MARK     "ferryd: upgrade: can take over"
#define UPGRADE_TEST_MS  RESOLVE_MAX_MS	/* -t looks names up */
#define UPGRADE_LATE_MS  10000	/* as a reload's generation */
#define UPGRADE_WAIT_MS  RESOLVE_MAX_MS	/* for a reload under way */
#define UPGRADE_READ_MS  500	/* "ferryd -s reload" looks every 100 ms */
#define UPGRADE_FDS_MAX  (1024 * 1024)
#define UPGRADE_OUT_MAX  (4 * 1024 * 1024)	/* -t's: a note a rule */

/* The binary we were started from, resolved at start. */
static char exe[PATH_MAX];

/* What the old image described, in the new one. */
static struct {
	bool               on;
	char               config[PATH_MAX];
	int                syntax;
	unsigned           gen;		/* the newest old generation */
	struct conf        cfg;		/* rules: address, backends */
	struct listen_set  ls;
	char              *stats_path;
	unsigned char     *cells;	/* the health table's snapshot */
	size_t             ncells;
	int                clients[OUTCOME_COVERS_MAX];	/* to answer */
	size_t             nclients;
	int                covers[OUTCOME_COVERS_MAX];
	size_t             ncovers;
	unsigned long      told_seq;
	FILE              *in;		/* the description, read twice */
} up;

/* Requests waiting for a reload or the generation before to be done. */
static struct {
	int     asked[OUTCOME_COVERS_MAX];
	size_t  n;
	int64_t since;
} queued;

void
master_upgrade_init(const char *argv0)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0)
		exe[n] = '\0';
	else if (realpath(argv0, exe) == NULL)
		exe[0] = '\0';
}

bool
master_upgrading(void)
{
	return up.on;
}

unsigned
master_upgrade_gen(void)
{
	return up.on ? up.gen + 1 : 1;
}

/* Bytes as hex, and back (len bytes exactly, or -1). */
static void
hex_put(FILE *f, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t               i;

	for (i = 0; i < len; i++)
		fprintf(f, "%02x", b[i]);
	if (len == 0)
		fputc('-', f);
}

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

/* ---- the old image ---- */

/* Keep fd across exec (on), or not again (off). */
static void
cross_exec(int fd, bool on)
{
	if (fd != -1)
		(void)fcntl(fd, F_SETFD, on ? 0 : FD_CLOEXEC);
}

/* Every descriptor that crosses exec, set or cleared. */
static void
cross_all(struct master *m, int desc, const int *clients, size_t nclients,
    bool on)
{
	struct child *c;
	size_t        i;

	for (i = 0; i < m->ls->nrules * (size_t)m->ls->nsock; i++)
		cross_exec(m->ls->fds[i], on);
	cross_exec(m->ls->stats_fd, on);
	TAILQ_FOREACH(c, &m->children, link)
		cross_exec(c->chan, on);
	for (i = 0; i < nclients; i++)
		cross_exec(clients[i], on);
	cross_exec(desc, on);
}

static void
describe(FILE *f, struct master *m, const int *clients, size_t nclients)
{
	const struct conf  *cfg = m->cfg;
	const struct rule  *r;
	const struct child *c;
	const unsigned char *cells;
	struct stats_rule   life;
	size_t              i, j, n;
	int                 s;

	fprintf(f, "config %d %s\n", m->opt->config_syntax,
	    m->opt->config_path);
	fprintf(f, "gen %u\nset %zu %d %d\n", m->gen, m->ls->nrules,
	    m->ls->nsock, (int)m->ls->mode);
	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		fprintf(f, "rule %zu %d %d %d %u ", i, r->protocol,
		    r->connect_protocol, (int)r->ipv6_only,
		    (unsigned)r->listen_addr.len);
		hex_put(f, &r->listen_addr.ss, r->listen_addr.len);
		fputc('\n', f);
		for (s = 0; s < m->ls->nsock; s++)
			if (LISTEN_FD(m->ls, i, s) != -1)
				fprintf(f, "fd %zu %d %d\n", i, s,
				    LISTEN_FD(m->ls, i, s));
		for (j = 0; j < r->upstream.nbackends; j++) {
			const struct sockaddr_any *a =
			    &r->upstream.backends[j].addr;

			fprintf(f, "backend %zu %u %u ", i,
			    r->upstream.backends[j].id, (unsigned)a->len);
			hex_put(f, &a->ss, a->len);
			fputc('\n', f);
		}
	}
	if (m->ls->stats_fd != -1) {
		fprintf(f, "stats %d %u ", m->ls->stats_fd,
		    (unsigned)cfg->stats_addr.len);
		hex_put(f, &cfg->stats_addr.ss, cfg->stats_addr.len);
		fprintf(f, " %s\n", cfg->stats_path != NULL ? cfg->stats_path :
		    "-");
	}
	TAILQ_FOREACH(c, &m->children, link)
		if (c->chan != -1)
			fprintf(f, "worker %ld %d %u %d %d %d\n", (long)c->pid,
			    c->slot, c->gen, (int)c->state, (int)c->accepting,
			    c->chan);
	if (m->checker.pid > 0)
		fprintf(f, "checker %ld\n", (long)m->checker.pid);
	if ((cells = health_table(&n)) != NULL)
		for (i = 0; i < n; i++) {
			fprintf(f, "cell %zu %zu ", i,
			    sizeof(struct health_cell));
			hex_put(f, cells + i * sizeof(struct health_cell),
			    sizeof(struct health_cell));
			fputc('\n', f);
		}
	stats_read_life(&life);
	fprintf(f, "life %zu ", sizeof(life));
	hex_put(f, &life, sizeof(life));
	fputc('\n', f);
	for (i = 0; i < m->ncovered; i++)
		fprintf(f, "covers %d\n", m->covered[i]);
	for (i = 0; i < nclients; i++)
		fprintf(f, "client %d\n", clients[i]);
}

/*
 * Run "exe -t" on the running configuration's file: what it said (stdout
 * and stderr, at most UPGRADE_OUT_MAX; free() it) and how it ended, or
 * NULL with err.
 */
static char *
run_test(const struct master *m, int *status, bool *timed_out, char *err,
    size_t errlen)
{
	struct pollfd pfd;
	char         *buf, drop[4096];
	size_t        len = 0;
	ssize_t       n;
	int           p[2], null, rc;
	int64_t       end = clock_ms() + UPGRADE_TEST_MS, left;
	pid_t         pid;

	*timed_out = false;
	if ((buf = malloc(UPGRADE_OUT_MAX + 1)) == NULL || pipe(p) == -1) {
		snprintf(err, errlen, "cannot run %.300s -t: %s", exe,
		    strerror(errno));
		free(buf);
		return NULL;
	}
	/* Signals are blocked (upgrade()): the child unblocks its own. */
	if ((pid = fork()) == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		setenv(UPGRADE_PROBE, "1", 1);
		sig_block_all(0);
		execl(exe, exe, "-t", "-c", m->opt->config_path,
		    m->opt->config_syntax == CONF_SYNTAX_RINETD ? "--rinetd" :
		    (char *)NULL, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	if (pid == -1) {
		close(p[0]);
		free(buf);
		snprintf(err, errlen, "cannot run %.300s -t: fork: %s", exe,
		    strerror(errno));
		return NULL;
	}
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		left = end - clock_ms();
		if (left <= 0 || (rc = poll(&pfd, 1, (int)left)) == 0) {
			*timed_out = true;
			break;
		}
		if (rc == -1 && errno == EINTR)
			continue;
		/* Past the buffer: read on and drop, so that it ends. */
		if (rc == -1 || (n = read(p[0], len < UPGRADE_OUT_MAX ?
		    buf + len : drop, len < UPGRADE_OUT_MAX ? UPGRADE_OUT_MAX -
		    len : sizeof(drop))) <= 0)
			break;
		if (len < UPGRADE_OUT_MAX)
			len += (size_t)n;
	}
	buf[len] = '\0';
	close(p[0]);
	if (*timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) == -1 && errno == EINTR)
		continue;
	if (*timed_out)
		snprintf(buf, UPGRADE_OUT_MAX, "did not finish in %d s",
		    UPGRADE_TEST_MS / 1000);
	else if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0)
		master_describe_exit(pid, *status, buf + len,
		    UPGRADE_OUT_MAX - len);	/* after what it said */
	return buf;
}

/* Whether the running configuration listens on name (addr_format's). */
static bool
ours(const struct conf *cfg, const char *name)
{
	char   a[ADDR_STRLEN];
	size_t i;

	for (i = 0; i < cfg->nrules; i++)
		if (strcmp(addr_format((const void *)&cfg->rules[i].listen_addr.ss,
		    a, sizeof(a)), name) == 0)
			return true;
	return false;
}

/*
 * -t notes an address in use without failing, as a running ferryd may
 * hold it: when we do not, the new image could not bind it, and would
 * exit with our workers.  The first such note, or NULL.
 */
static char *
foreign_in_use(const struct conf *cfg, char *out)
{
	char *line, *nl, *mark, *name;

	for (line = out; line != NULL; line = nl != NULL ? nl + 1 : NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if (strncmp(line, "ferryd: note: ", 14) == 0 &&
		    (mark = strstr(line, " is in use")) != NULL) {
			*mark = '\0';
			name = strrchr(line, ' ') + 1;
			if (!ours(cfg, name))
				return line + 14;	/* FILE:LINE: ADDR */
			*mark = ' ';
		}
		if (nl != NULL)
			*nl = '\n';
	}
	return NULL;
}

/* "exe -t": 0, or -1 with why in err. */
static int
test_binary(const struct master *m, char *err, size_t errlen)
{
	char *out, *line, *nl;
	int   status;
	bool  timed_out;

	if ((out = run_test(m, &status, &timed_out, err, errlen)) == NULL)
		return -1;
	if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (strstr(out, UPGRADE_MARK) == NULL)
			snprintf(err, errlen, "%.200s cannot take over a running "
			    "master (it is older than ferryd -s upgrade): "
			    "restart ferryd instead", exe);
		else if ((line = foreign_in_use(m->cfg, out)) != NULL)
			snprintf(err, errlen, "%.300s is in use by another "
			    "process: the new image could not bind it", line);
		else {
			free(out);
			return 0;
		}
		free(out);
		return -1;
	}
	/* Its first line that is not a note of -t's says why. */
	for (line = out; strncmp(line, "ferryd: note:", 13) == 0 &&
	    (nl = strchr(line, '\n')) != NULL; line = nl + 1)
		continue;
	if ((nl = strchr(line, '\n')) != NULL)
		*nl = '\0';
	snprintf(err, errlen, "%.200s -t: %.250s", exe, line);
	free(out);
	return -1;
}

/* The options of this start, for the new image: exe -c FILE ... */
static void
exec_args(const struct master *m, const char **argv)
{
	static const char *const levels[] = {
		"err", "warning", "notice", "info", "debug"
	};
	size_t i, n = 0;

	argv[n++] = exe;
	argv[n++] = "-c";
	argv[n++] = m->opt->config_path;
	if (m->opt->foreground)
		argv[n++] = "-f";
	if (m->opt->pidfile != NULL) {
		argv[n++] = "-p";
		argv[n++] = m->opt->pidfile;
	}
	if (m->opt->config_syntax == CONF_SYNTAX_RINETD)
		argv[n++] = "--rinetd";
	for (i = 0; m->opt->log_level != -1 && i < 5; i++)
		if (conf_log_level_parse(levels[i]) == m->opt->log_level) {
			argv[n++] = "-l";
			argv[n++] = levels[i];
		}
	argv[n] = NULL;
}

/*
 * Signals caught since the loop last looked (flags and values in our
 * memory, which exec drops) sent again: blocked, they wait in the
 * kernel for the new image's handlers, or for ours if exec fails.  Of
 * several requests with values, the first is carried.
 */
static void
carry_signals(void)
{
	static const int caught[] = {
		SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGURG, SIGCHLD
	};
	union sigval v;
	int          vals[OUTCOME_COVERS_MAX];
	size_t       i, n;

	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		n = sig_take_values(caught[i], vals, OUTCOME_COVERS_MAX);
		if (!sig_take(caught[i]) && n == 0)
			continue;
		v.sival_int = n > 0 ? vals[0] : 0;
		if (n > 0)
			(void)sigqueue(getpid(), caught[i], v);
		else
			(void)raise(caught[i]);
	}
}

/*
 * Try the upgrade, with every signal blocked from the -t run to the
 * exec: one that comes meanwhile waits in the kernel, which keeps it
 * across exec.  Returns only on failure, with err set.
 */
static void upgrade_blocked(struct master *, char *, size_t);

static void
upgrade(struct master *m, char *err, size_t errlen)
{
	sig_block_all(1);
	upgrade_blocked(m, err, errlen);
	sig_block_all(0);
}

static void
upgrade_blocked(struct master *m, char *err, size_t errlen)
{
	const char *argv[12];
	char        env[32];
	FILE       *f = NULL;
	int         desc = -1, clients[OUTCOME_COVERS_MAX];
	size_t      i, nclients = 0;

	/* Control clients that asked: the new image answers them. */
	for (i = 0; i < m->ncovered; i++)
		if ((clients[nclients] = master_control_waiting(m,
		    m->covered[i])) != -1)
			nclients++;
	if (exe[0] == '\0') {
		snprintf(err, errlen, "the path of the binary was not known "
		    "at start");
		return;
	}
	log_notice("upgrade: checking %s with -t", exe);
	if (test_binary(m, err, errlen) == -1)
		return;
#ifdef HAVE_MEMFD_CREATE
	desc = memfd_create("ferryd-upgrade", 0);
#else
	errno = ENOSYS;
#endif
	if (desc == -1 || (f = fdopen(dup(desc), "w")) == NULL) {
		snprintf(err, errlen, "cannot describe the sockets and "
		    "workers: %s", strerror(errno));
		if (desc != -1)
			close(desc);
		return;
	}
	describe(f, m, clients, nclients);
	if (fflush(f) == EOF || ferror(f)) {
		snprintf(err, errlen, "cannot describe the sockets and "
		    "workers: %s", strerror(errno));
		fclose(f);
		close(desc);
		return;
	}
	fclose(f);
	snprintf(env, sizeof(env), "%d", desc);
	exec_args(m, argv);
	log_notice("upgrade: %s passed -t; executing it (pid %ld stays)", exe,
	    (long)getpid());
	cross_all(m, desc, clients, nclients, true);
	carry_signals();
	if (setenv(UPGRADE_ENV, env, 1) == 0)
		execv(exe, (char *const *)argv);
	snprintf(err, errlen, "cannot execute %.300s: %s", exe, strerror(errno));
	unsetenv(UPGRADE_ENV);
	cross_all(m, desc, clients, nclients, false);
	close(desc);
}

/*
 * The queued upgrade, once no reload is under way and the generation
 * before serves (or it has waited too long): answers every request.
 */
static void
upgrade_queued(struct master *m)
{
	static unsigned long seen_seq;
	static int64_t       seen_at;
	int                  was[OUTCOME_COVERS_MAX];
	size_t               nwas = m->ncovered;
	char                 err[CONF_ERR_MAX];
	bool                 busy = master_reload_busy(m) || m->steer_pending;

	/*
	 * The outcome file holds the last outcome only: whoever waits for
	 * one just told (a reload asked with the upgrade) reads it first.
	 */
	if (m->outcome_seq != seen_seq) {
		seen_seq = m->outcome_seq;
		seen_at = clock_ms();
	}
	if (queued.n == 0 || (!m->stopping && clock_ms() - seen_at <
	    UPGRADE_READ_MS) || (busy && !m->stopping &&
	    clock_ms() - queued.since < UPGRADE_WAIT_MS))
		return;
	/* Those the reload under way, if any, answers: kept for it. */
	memcpy(was, m->covered, nwas * sizeof(*was));
	memcpy(m->covered, queued.asked, queued.n * sizeof(*queued.asked));
	m->ncovered = queued.n;
	queued.n = 0;
	if (m->stopping || m->ls == NULL)
		snprintf(err, sizeof(err), "ferryd is stopping");
	else if (busy)
		snprintf(err, sizeof(err), "a reload or generation %u was not "
		    "done after %d s", m->gen, UPGRADE_WAIT_MS / 1000);
	else
		upgrade(m, err, sizeof(err));	/* returns on failure */
	master_tell(m, false, "upgrade: %s; the old binary goes on serving",
	    err);
	memcpy(m->covered, was, nwas * sizeof(*was));
	m->ncovered = nwas;
}

void
master_upgrade(struct master *m, const int *asked, size_t n)
{
	size_t i;

	if (queued.n == 0)
		queued.since = clock_ms();
	for (i = 0; i < n && queued.n < OUTCOME_COVERS_MAX; i++)
		queued.asked[queued.n++] = asked[i];
	/* A signal without a value (kill -URG) is answered to nobody. */
	if (n == 0 && queued.n < OUTCOME_COVERS_MAX)
		queued.asked[queued.n++] = 0;
	if (master_reload_busy(m) || m->steer_pending)
		log_notice("upgrade: waiting for the reload or generation %u "
		    "to be done", m->gen);
	upgrade_queued(m);
}

/* ---- the new image ---- */

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
	if (sscanf(line, "set %zu %d %d", &up.ls.nrules, &up.ls.nsock,
	    &k) == 3) {
		up.ls.mode = (enum listen_mode)k;
		n = up.ls.nrules * (size_t)up.ls.nsock;
		if (up.ls.nrules > UPGRADE_FDS_MAX || up.ls.nsock <= 0 ||
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

void
master_upgrade_probe(void)
{
	if (getenv(UPGRADE_PROBE) != NULL)
		printf("%s\n", UPGRADE_MARK);
}

int
master_upgrade_take(struct options *opt, char *err, size_t errlen)
{
	const char *env = getenv(UPGRADE_ENV);
	char       *line = NULL, *end;
	size_t      cap = 0;
	long        fd;
	int         rc = 0;

	if (env == NULL)
		return 0;
	up.ls.stats_fd = -1;
	fd = strtol(env, &end, 10);
	unsetenv(UPGRADE_ENV);	/* not for our children */
	if (*end != '\0' || fd < 0 || fd > INT_MAX ||
	    lseek((int)fd, 0, SEEK_SET) == -1 ||
	    (up.in = fdopen((int)fd, "r")) == NULL) {
		snprintf(err, errlen, "upgrade: cannot read the description "
		    "%s=%s: %s", UPGRADE_ENV, env, strerror(errno));
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
master_upgrade_listen(const struct conf *cfg, int mode, char *err,
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
	/* Rules the file no longer has: their old workers hold copies. */
	for (i = 0; i < up.ls.nrules * (size_t)up.ls.nsock; i++)
		if (up.ls.fds[i] != -1)
			close(up.ls.fds[i]);
	if (up.ls.stats_fd != -1)
		close(up.ls.stats_fd);
	/* Ours now: not for a -t run's child, nor a later exec's unasked. */
	for (i = 0; i < ls->nrules * (size_t)ls->nsock; i++)
		cross_exec(ls->fds[i], false);
	cross_exec(ls->stats_fd, false);
	return ls;
}

int
master_upgrade_health(const struct conf *cfg)
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
master_upgrade_adopt(struct master *m)
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
	    "generation %u and before drain once generation %u serves", exe,
	    (long)getpid(), n, up.gen, m->gen);
	(void)event_timer_arm(m->loop, &m->gen_late, clock_ms() +
	    UPGRADE_LATE_MS);
	/* The old image blocked them for the exec. */
	sig_block_all(0);
	/* Children that ended meanwhile: SIGCHLD came while blocked. */
}

void
master_upgrade_follow(struct master *m)
{
	FILE   *f;
	size_t  i;

	upgrade_queued(m);
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
