/*
 * master_upgrade.c - binary upgrade in place.  The old image checks the
 * binary on disk with -t, describes what the new one takes over in a
 * memfd (see master_upgrade.h), lets those descriptors cross exec and
 * execs; the new image (master_adopt.c) takes the sockets, the
 * workers and the health over.  Nothing is changed before exec that a
 * failed exec does not undo, and an upgrade asked while a reload runs
 * waits for it.
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
#include "health.h"
#include "listen.h"
#include "log.h"
#include "master_carry.h"
#include "master_child.h"
#include "master_control.h"
#include "master_reload.h"
#include "master_sessions.h"
#include "master_state.h"
#include "master_upgrade.h"
#include "master_upgrade_check.h"
#include "options.h"
#include "pidfile.h"
#include "rule.h"
#include "sig.h"
#include "scoreboard.h"
#include "stats.h"
#include "upgrade_record.h"
#include "upstream.h"

#define UPGRADE_PROBE    "FERRYD_UPGRADE_PROBE"
/* What a binary that can take over says to -t with UPGRADE_PROBE set. */
#define UPGRADE_MARK     "ferryd: upgrade: can take over"
/*
 * ... and one that takes the pidfile's descriptor, locked, from the
 * description (an older one would leave it open, and could not lock the
 * file again itself).
 */
#define UPGRADE_LOCK_MARK "ferryd: upgrade: takes the pidfile's lock"
#define UPGRADE_TEST_MS  RESOLVE_MAX_MS	/* -t looks names up */
#define UPGRADE_WAIT_MS  RESOLVE_MAX_MS	/* for a reload under way */
#define UPGRADE_READ_MS  500	/* "ferryd -s reload" looks every 100 ms */
#define UPGRADE_OUT_MAX  (4 * 1024 * 1024)	/* -t's: a note a rule */
/*
 * How long control answers under way hold the exec back: a show
 * sessions ends within SESSIONS_WAIT_MS, and its answer is then written;
 * one asked later, or a client that does not read, is cut.
 */
#define UPGRADE_CONTROL_MS (2 * SESSIONS_WAIT_MS)

/* The binary we were started from, resolved at start. */
static char exe[PATH_MAX];
/*
 * And that very file, opened at start: a new image that fails before it
 * serves executes it again (master_adopt_fail), though a package put
 * another file at exe's path meanwhile.
 */
static int  image = -1;
static int  snapshot = -1;	/* what we run, for the way back */
/* Whether the binary -t tried takes the pidfile's lock across exec. */
static bool carry_lock;

/* Requests waiting for a reload or the generation before to be done. */
static struct {
	int     asked[OUTCOME_COVERS_MAX];
	size_t  n;
	int64_t since;
	int64_t control_since;	/* waiting for control answers; 0: not */
	unsigned checking_gen;	/* the generation -t checked the file of */
	bool    checked;	/* the binary passed -t: exec when free */
	char    failed[CONF_ERR_MAX];	/* -t refused it: told when free */
} queued;

void
master_upgrade_init(const char *argv0)
{
	static const char gone[] = " (deleted)";
	ssize_t           n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0)
		exe[n] = '\0';
	else if (realpath(argv0, exe) == NULL)
		exe[0] = '\0';
	/*
	 * Executed again after a failed upgrade, we run a file that was
	 * replaced: the next upgrade runs the path, where the new one is.
	 */
	n = (ssize_t)strlen(exe) - (ssize_t)strlen(gone);
	if (n > 0 && strcmp(exe + n, gone) == 0)
		exe[n] = '\0';
	image = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
}

int
master_upgrade_image(void)
{
	return image;
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
	/* Clients connecting meanwhile wait in its backlog, not refused. */
	cross_exec(m->control.fd, on);
	if (carry_lock)
		cross_exec(pidfile_fd(), on);
	TAILQ_FOREACH(c, &m->children, link)
		cross_exec(c->chan, on);
	for (i = 0; i < nclients; i++)
		cross_exec(clients[i], on);
	cross_exec(desc, on);
	cross_exec(image, on);
	cross_exec(snapshot, on);
	cross_exec(stats_table_fd(), on);
}

/* The workers that can be handed over (with a channel), or NULL. */
static struct upgrade_worker *
workers_of(const struct master *m, size_t *n)
{
	struct upgrade_worker *w;
	const struct child    *c;
	size_t                 max = 0;

	TAILQ_FOREACH(c, &m->children, link)
		max++;
	if ((w = calloc(max + 1, sizeof(*w))) == NULL)
		return NULL;
	*n = 0;
	TAILQ_FOREACH(c, &m->children, link)
		if (c->chan != -1)
			w[(*n)++] = (struct upgrade_worker){
				.pid = (long)c->pid, .slot = c->slot,
				.gen = c->gen, .state = (int)c->state,
				.accepting = (int)c->accepting,
				.chan = c->chan
			};
	return w;
}

/*
 * What the new image takes over (upgrade_record.h), written to f: -1
 * if it could not be.
 */
static int
describe(FILE *f, struct master *m, const int *clients, size_t nclients,
    const char *const *argv)
{
	struct upgrade_source src = {
		.cfg = m->cfg, .config = m->opt->config_path,
		.syntax = m->opt->config_syntax, .gen = m->gen, .ls = m->ls,
		.checker = m->checker.pid > 0 ? (long)m->checker.pid : 0,
		.control_fd = m->control.fd, .control_path = m->control.path,
		.covers = m->outcome.covered, .ncovers = m->outcome.ncovered,
		.clients = clients, .nclients = nclients,
		.image = image, .snapshot = snapshot, .argv = argv,
		.pid_fd = carry_lock ? pidfile_fd() : -1
	};
	struct stats_rule life;
	int               rc;

	if ((src.workers = workers_of(m, &src.nworkers)) == NULL)
		return -1;
	src.cells = health_table(&src.ncells);
	if (src.cells == NULL)
		src.ncells = 0;
	stats_read_life(&life);
	src.life = &life;
	src.host_drain = scoreboard_host_drain(&src.host_since);
	rc = upgrade_record_write(f, &src, UPGRADE_PART_IMAGE);
	free((void *)src.workers);
	return rc;
}

/* Whether path is the socket file name ("unix:PATH") names. */
static bool
names_path(const char *name, const char *path)
{
	return path != NULL && strncmp(name, "unix:", 5) == 0 &&
	    strcmp(name + 5, path) == 0;
}

/*
 * Whether the running configuration listens on name (addr_format's): a
 * rule's address, stats_listen's or the control socket.
 */
static bool
ours(const struct conf *cfg, const char *name, bool udp)
{
	char   a[ADDR_STRLEN];
	size_t i;

	for (i = 0; i < cfg->nrules; i++)
		if ((cfg->rules[i].protocol == RULE_UDP) == udp &&
		    strcmp(addr_format((const void *)
		    &cfg->rules[i].listen_addr.ss, a, sizeof(a)), name) == 0)
			return true;
	if (udp)
		return false;
	if (cfg->stats_listen != NULL && (cfg->stats_path != NULL ?
	    names_path(name, cfg->stats_path) : strcmp(addr_format(
	    (const void *)&cfg->stats_addr.ss, a, sizeof(a)), name) == 0))
		return true;
	return names_path(name, cfg->control_socket);
}

/*
 * -t notes an address in use without failing, as a running ferryd may
 * hold it: when we do not, the new image could not bind it, and would
 * exit with our workers.  A note says " for UDP" of a datagram socket:
 * our UDP rule on a port does not hold it for TCP, nor the other way.
 * The first such note, or NULL.
 */
static char *
foreign_in_use(const struct conf *cfg, char *out)
{
	char *line, *nl, *mark, *name, *why;
	bool  udp, mine;

	for (line = out; line != NULL; line = nl != NULL ? nl + 1 : NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if (strncmp(line, "ferryd: note: ", 14) == 0 &&
		    (mark = strstr(line, " is in use")) != NULL) {
			udp = strncmp(mark, " is in use for UDP", 18) == 0;
			*mark = '\0';
			name = strrchr(line, ' ') + 1;
			mine = ours(cfg, name, udp);
			*mark = ' ';
			if (!mine) {
				/* FILE:LINE: ADDR is in use[ for UDP] */
				if ((why = strstr(mark, " (")) != NULL)
					*why = '\0';
				return line + 14;
			}
		}
		if (nl != NULL)
			*nl = '\n';
	}
	return NULL;
}

/*
 * What "exe -t" said (out) and how it ended: 0 when the new image can
 * take over, or -1 with why in err.
 */
static int
check_verdict(const struct master *m, char *out, int status, bool timed_out,
    char *err, size_t errlen)
{
	char *line, *nl, how[256];

	if (timed_out) {
		snprintf(err, errlen, "%.200s -t: did not finish in %d s", exe,
		    UPGRADE_TEST_MS / 1000);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		carry_lock = strstr(out, UPGRADE_LOCK_MARK) != NULL;
		if (strstr(out, UPGRADE_MARK) == NULL)
			snprintf(err, errlen, "%.200s cannot take over a "
			    "running master (it is older than ferryd -s "
			    "upgrade): restart ferryd instead", exe);
		else if ((line = foreign_in_use(m->cfg, out)) != NULL)
			snprintf(err, errlen, "%.300s by another process: the "
			    "new image could not bind it", line);
		else
			return 0;
		return -1;
	}
	/* Its first line that is not a note of -t's says why. */
	for (line = out; strncmp(line, "ferryd: note:", 13) == 0 &&
	    (nl = strchr(line, '\n')) != NULL; line = nl + 1)
		continue;
	if ((nl = strchr(line, '\n')) != NULL)
		*nl = '\0';
	master_describe_exit(0, status, how, sizeof(how));
	snprintf(err, errlen, "%.200s -t: %.250s", exe, line[0] != '\0' ?
	    line : how);
	return -1;
}

static void check_done(char *, int, bool, void *);

/*
 * Start "exe -t" on the running configuration's file, a child the loop
 * watches (check_done takes it from there).  -1 with why in err.
 */
static int
check_start(struct master *m, char *err, size_t errlen)
{
	char *argv[6];
	int   n = 0;

	/* The new image would need sslh's command line, which -c cannot say. */
	if (m->opt->sslh != NULL) {
		snprintf(err, errlen, "an upgrade in place does not carry "
		    "--sslh's command line: restart ferryd --sslh instead");
		return -1;
	}
	if (exe[0] == '\0') {
		snprintf(err, errlen, "the path of the binary was not known "
		    "at start");
		return -1;
	}
	argv[n++] = exe;
	argv[n++] = "-t";
	argv[n++] = "-c";
	argv[n++] = (char *)(uintptr_t)m->opt->config_path;
	if (m->opt->config_syntax == CONF_SYNTAX_RINETD)
		argv[n++] = "--rinetd";
	argv[n] = NULL;
	log_notice("upgrade: checking %s with -t", exe);
	return upgrade_check_start(m->loop, argv, UPGRADE_PROBE,
	    UPGRADE_OUT_MAX, UPGRADE_TEST_MS, check_done, m, err, errlen);
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
void
master_upgrade_carry_signals(void)
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

/*
 * What we run as ferryd -T prints it, in a memfd: executed again after
 * a failed upgrade we load it, not the file, which the new image could
 * not serve (an address taken meanwhile, settings older images do not
 * know).  -1 if it cannot be made: the way back reads the file then.
 */
static int
snapshot_open(const struct conf *cfg)
{
	FILE *f;
	int   fd = -1, rc;

#ifdef HAVE_MEMFD_CREATE
	fd = memfd_create("ferryd-config", MFD_CLOEXEC);
#endif
	if (fd == -1 || (f = fdopen(dup(fd), "w")) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	rc = conf_show(f, cfg);
	if (fclose(f) == EOF || rc == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
snapshot_close(void)
{
	if (snapshot != -1)
		close(snapshot);
	snapshot = -1;
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
	for (i = 0; i < m->outcome.ncovered; i++)
		if ((clients[nclients] = master_control_waiting(m,
		    m->outcome.covered[i])) != -1)
			nclients++;
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
	exec_args(m, argv);
	/* Only with a way back to hand it to: else it would only leak. */
	snapshot = image != -1 ? snapshot_open(m->cfg) : -1;
	if (describe(f, m, clients, nclients, argv) == -1) {
		snprintf(err, errlen, "cannot describe the sockets and "
		    "workers: %s", strerror(errno));
		fclose(f);
		close(desc);
		snapshot_close();
		return;
	}
	fclose(f);
	snprintf(env, sizeof(env), "%d", desc);
	log_notice("upgrade: %s passed -t; executing it (pid %ld stays)", exe,
	    (long)getpid());
	/* Left after control_waits(): answered now, as far as it goes. */
	(void)master_control_before_exec(m, CONTROL_EXEC_CUT);
	cross_all(m, desc, clients, nclients, true);
	master_upgrade_carry_signals();
	if (setenv(MASTER_UPGRADE_ENV, env, 1) == 0)
		execv(exe, (char *const *)argv);
	snprintf(err, errlen, "cannot execute %.300s: %s", exe,
	    strerror(errno));
	unsetenv(MASTER_UPGRADE_ENV);
	cross_all(m, desc, clients, nclients, false);
	close(desc);
	snapshot_close();
}

/*
 * Whether the exec waits for control answers under way (a show sessions
 * the exec would cut off): at most UPGRADE_CONTROL_MS from when it
 * began to wait.
 */
static bool
control_waits(struct master *m)
{
	if (!master_control_before_exec(m, CONTROL_EXEC_WAIT))
		return false;
	if (queued.control_since == 0) {
		queued.control_since = clock_ms();
		log_notice("upgrade: waiting for the control answers under "
		    "way (show sessions, or a client that just connected)");
	}
	return clock_ms() - queued.control_since < UPGRADE_CONTROL_MS;
}

/*
 * The upgrade is over for those who asked (it failed: why): each is told,
 * and the old binary goes on serving.
 */
static void
upgrade_failed(struct master *m, const char *why)
{
	int    was[OUTCOME_COVERS_MAX];
	size_t nwas = m->outcome.ncovered;

	/* Those the reload under way, if any, answers: kept for it. */
	memcpy(was, m->outcome.covered, nwas * sizeof(*was));
	memcpy(m->outcome.covered, queued.asked, queued.n *
	    sizeof(*queued.asked));
	m->outcome.ncovered = queued.n;
	queued.n = 0;
	queued.checked = false;
	queued.control_since = 0;
	(void)master_control_before_exec(m, CONTROL_EXEC_RESUME);
	master_tell(m, false, "upgrade: %s; the old binary goes on serving",
	    why);
	queued.failed[0] = '\0';	/* why may be it */
	memcpy(m->outcome.covered, was, nwas * sizeof(*was));
	m->outcome.ncovered = nwas;
}

/*
 * -t is over: on to the exec, or why not; upgrade_queued says it when
 * no reload's outcome is being read.  A reload meanwhile changed the
 * file: the verdict is stale, -t runs again.
 */
static void
check_done(char *out, int status, bool timed_out, void *arg)
{
	struct master	*m = arg;

	if (m->gen == queued.checking_gen && check_verdict(m, out, status,
	    timed_out, queued.failed, sizeof(queued.failed)) == 0)
		queued.checked = true;
	free(out);
}

/* The exec, those who asked covered by it; told why when it fails. */
static void
upgrade_now(struct master *m)
{
	int    was[OUTCOME_COVERS_MAX];
	size_t nwas = m->outcome.ncovered;
	char   err[CONF_ERR_MAX];

	memcpy(was, m->outcome.covered, nwas * sizeof(*was));
	memcpy(m->outcome.covered, queued.asked, queued.n *
	    sizeof(*queued.asked));
	m->outcome.ncovered = queued.n;
	upgrade(m, err, sizeof(err));	/* returns on failure */
	memcpy(m->outcome.covered, was, nwas * sizeof(*was));
	m->outcome.ncovered = nwas;
	upgrade_failed(m, err);
}

/*
 * The queued upgrade: once no reload is under way and the generation
 * before serves (or it has waited too long), the binary is checked with
 * -t while the loop goes on, then executed.  Answers every request.
 */
static void
upgrade_queued(struct master *m)
{
	static unsigned long seen_seq;
	static int64_t       seen_at;
	char                 err[CONF_ERR_MAX];
	bool                 busy = master_reload_busy(m) ||
	                         m->reload.steer_pending;

	/*
	 * The outcome file holds the last outcome only: whoever waits for
	 * one just told (a reload asked with the upgrade) reads it first.
	 */
	if (m->outcome.seq != seen_seq) {
		seen_seq = m->outcome.seq;
		seen_at = clock_ms();
	}
	/* A reload came while it waited: control serves until it is done. */
	if (busy && queued.control_since != 0) {
		queued.control_since = 0;
		(void)master_control_before_exec(m, CONTROL_EXEC_RESUME);
	}
	if (upgrade_check_busy()) {
		if (m->stopping) {
			upgrade_check_cancel();
			upgrade_failed(m, "ferryd is stopping");
		}
		return;
	}
	if (queued.n == 0 || (!m->stopping && clock_ms() - seen_at <
	    UPGRADE_READ_MS) || (busy && !m->stopping &&
	    clock_ms() - queued.since < UPGRADE_WAIT_MS) ||
	    (queued.checked && !busy && !m->stopping && control_waits(m)))
		return;
	if (queued.failed[0] != '\0')
		upgrade_failed(m, queued.failed);
	else if (m->stopping || m->ls == NULL)
		upgrade_failed(m, "ferryd is stopping");
	else if (busy) {
		snprintf(err, sizeof(err), "a reload or generation "
		    "%u was not done after %d s", m->gen, UPGRADE_WAIT_MS /
		    1000);
		upgrade_failed(m, err);
	} else if (queued.checked && queued.checking_gen == m->gen)
		upgrade_now(m);
	else {
		queued.checked = false;
		queued.checking_gen = m->gen;
		if (check_start(m, err, sizeof(err)) == -1)
			upgrade_failed(m, err);
	}
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
	if (master_reload_busy(m) || m->reload.steer_pending)
		log_notice("upgrade: waiting for the reload or generation %u "
		    "to be done", m->gen);
	upgrade_queued(m);
}

void
master_upgrade_probe(void)
{
	if (master_upgrade_probing())
		printf("%s\n%s\n", UPGRADE_MARK, UPGRADE_LOCK_MARK);
}

bool
master_upgrade_probing(void)
{
	return getenv(UPGRADE_PROBE) != NULL;
}

const char *
master_upgrade_exe(void)
{
	return exe;
}

void
master_upgrade_follow(struct master *m)
{
	upgrade_queued(m);
}
