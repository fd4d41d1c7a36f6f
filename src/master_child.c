/*
 * master_child.c - the master's children: a worker per slot of the
 * current generation and the health checker.  Each is forked here with
 * its channel, replaced on its slot's timer when it dies (at once, or
 * backing off while it keeps dying fast), and killed when the watchdog
 * finds it hung.  What a child's death means for a reload is
 * master_reload.c's; whether to respawn at all is master.c's.
 */
#include "ferryd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checker.h"
#include "client_limit.h"
#include "clock.h"
#include "fdlimit.h"
#include "bug.h"
#include "ipc.h"
#include "listen.h"
#include "log.h"
#include "master_child.h"
#include "master_state.h"
#include "rate_table.h"
#include "sandbox.h"
#include "scoreboard.h"
#include "sig.h"
#include "stats.h"
#include "udp_cid_share.h"
#include "worker.h"

#define RESPAWN_FAST_MS   1000	/* dying sooner than this is "crashing" */
#define RESPAWN_FIRST_MS  100
#define RESPAWN_MAX_MS    5000

/* Start slot's process after delay_ms. */
static void
slot_respawn_in(struct slot *s, int delay_ms)
{
	struct master *m = s->master;

	if (event_timer_arm(m->loop, &s->respawn, clock_ms() + delay_ms) == -1)
		log_err("cannot schedule the start of %s: out of memory",
		    s->index == -1 ? "the health checker" : "a worker");
}

static void
slot_on_respawn(struct event_timer *t, void *data)
{
	struct slot *s = data;

	(void)t;
	if (s->master->stopping)
		return;
	if (s->index == -1)
		master_spawn_checker(s->master);
	else
		master_spawn(s->master, s->index);
}

static void
slot_init(struct slot *s, struct master *m, int index)
{
	s->master = m;
	s->index = index;
	s->delay_ms = 0;
	event_timer_init(&s->respawn, slot_on_respawn, s);
}

struct slot *
master_slots_new(struct master *m, int n)
{
	struct slot *slots;
	int          i;

	if ((slots = calloc(n, sizeof(*slots))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		slot_init(&slots[i], m, i);
	return slots;
}

void
master_slots_set(struct master *m, struct slot *slots, int n)
{
	int i;

	for (i = 0; i < m->nslots; i++)
		event_timer_cancel(m->loop, &m->slots[i].respawn);
	free(m->slots);
	m->slots = slots;
	m->nslots = n;
	if (m->checker.respawn.master == NULL)
		slot_init(&m->checker.respawn, m, -1);
}

void
master_set_budgets(struct master *m, struct conf *cfg)
{
	char	why[512];
	bool	cut;
	int	budget = fdlimit_udp_sessions(cfg, why, sizeof(why), &cut);

	/* A budget cut by the descriptor limit evicts busy sessions. */
	if (budget > 0 && budget != m->udp_budget)
		log_at(cut ? LOG_LEVEL_WARNING : LOG_LEVEL_NOTICE,
		    "UDP sessions: at most %d per worker, %s", budget, why);
	m->udp_budget = budget;
	/* Before the fork: the old generation's cells are alive still. */
	rate_table_assign(cfg->rules, cfg->nrules, m->gen,
	    master_generation_alive, m);
}

void
master_child_close_chan(struct master *m, struct child *c)
{
	if (c->chan != -1) {
		event_close(m->loop, c->chan);
		close(c->chan);
	}
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
	size_t        i;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->chan != -1)
			close(c->chan);
	if (m->checker.chan != -1)
		close(m->checker.chan);
	if (m->names.resolver.fd != -1)
		close(m->names.resolver.fd);	/* a lookup's pipe */
	/*
	 * Nor the control socket and its clients, who would wait forever,
	 * nor an upgrade's descriptors.
	 */
	for (i = 0; i < m->own.n; i++)
		close(m->own.fd[i]);
}

void
master_own_fd(struct master *m, int fd)
{
	BUG_ON(m->own.n >= MASTER_OWN_FDS_MAX);
	if (fd != -1 && m->own.n < MASTER_OWN_FDS_MAX)
		m->own.fd[m->own.n++] = fd;
}

void
master_disown_fd(struct master *m, int fd)
{
	size_t i;

	for (i = 0; i < m->own.n; i++)
		if (m->own.fd[i] == fd) {
			m->own.fd[i] = m->own.fd[--m->own.n];
			return;
		}
}

static void
child_on_drain_end(struct event_timer *t, void *data)
{
	struct child *c = data;

	(void)t;
	if (c->master->stopping || c->terminated)
		return;
	log_warn("worker %d (pid %ld, generation %u) did not close its "
	    "connections at shutdown_timeout; terminating it", c->slot,
	    (long)c->pid, c->gen);
	kill(c->pid, SIGTERM);
	c->terminated = true;
}

/*
 * What a worker says is read after the round, by master_reload_hear()
 * (master.c calls it): here it is only noted that it spoke.
 */
static void
child_on_channel(struct event_loop *loop, int fd, int events, void *data)
{
	struct child *c = data;

	(void)loop;
	(void)fd;
	(void)events;
	c->heard = true;
}

/* The record of a worker just forked for slot, watched on its channel. */
static void
child_track(struct master *m, struct child *c, pid_t pid, int slot, int chan)
{
	c->master = m;
	c->pid = pid;
	c->slot = slot;
	c->gen = m->gen;
	c->state = CHILD_STARTING;
	c->chan = chan;
	c->accepting = true;
	c->started = clock_ms();
	event_timer_init(&c->drain_end, child_on_drain_end, c);
	TAILQ_INSERT_TAIL(&m->children, c, link);
	if (event_set(m->loop, chan, EV_READ, child_on_channel, c) == -1)
		log_err("cannot watch worker %d's channel: %s; it is heard "
		    "of only when it exits", slot, strerror(errno));
}

#ifdef FERRYD_DEBUG
/*
 * A test trigger (upgrade-rollback.test): FERRYD_DEBUG_WORKERS_FAIL in
 * a master's environment makes its workers exit as they start.  Taken
 * out of the environment at the first spawn, so that the old image a
 * failed upgrade executes again does not inherit it.
 */
static bool
debug_workers_fail(void)
{
	static int fail = -1;

	if (fail == -1) {
		fail = getenv("FERRYD_DEBUG_WORKERS_FAIL") != NULL;
		unsetenv("FERRYD_DEBUG_WORKERS_FAIL");
	}
	return fail == 1;
}
#else
#define debug_workers_fail() false
#endif

void
master_spawn(struct master *m, int slot)
{
	struct child        *c;
	struct worker_start  ws;
	pid_t                pid, master = getpid();
	int                  chan[2];
	bool                 fail = debug_workers_fail();

	BUG_ON(slot < 0 || slot >= m->nslots);
	c = calloc(1, sizeof(*c));
	if (c == NULL || ipc_pair(chan) == -1) {
		log_err("cannot start worker %d: %s", slot, strerror(errno));
		free(c);
		slot_respawn_in(&m->slots[slot], RESPAWN_MAX_MS);
		return;
	}
	c->cell = scoreboard_take();
	client_limit_table_start(c->cell);
	/* The slot's CIDs are its new worker's to publish. */
	udp_cid_share_reset(slot);
	/* No signal may reach the child before it has its own pipe. */
	sig_block_all(1);
	pid = fork();
	if (pid == 0) {
		if (fail)
			_exit(1);
		close(chan[0]);
		master_forget_chans(m);
		ws.cfg = m->cfg;
		ws.ls = m->ls;
		ws.slot = slot;
		ws.gen = m->gen;
		ws.chan = chan[1];
		ws.cell = c->cell;
		ws.master = master;
		ws.udp_budget = m->udp_budget;
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
		slot_respawn_in(&m->slots[slot], RESPAWN_MAX_MS);
		return;
	}
	event_timer_cancel(m->loop, &m->slots[slot].respawn);
	child_track(m, c, pid, slot, chan[0]);
	log_debug("worker %d started (pid %ld, generation %u)", slot,
	    (long)pid, m->gen);
}

struct child *
master_child_adopt(struct master *m, pid_t pid, int slot, unsigned gen,
    int chan)
{
	struct child *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->cell = -1;	/* its heartbeat is in the old image's scoreboard */
	child_track(m, c, pid, slot, chan);
	c->gen = gen;
	c->state = CHILD_READY;
	return c;
}

void
master_describe_exit(pid_t pid, int status, char *buf, size_t len)
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
 * A process started at started died: start the next at once unless it
 * keeps dying fast (then back off, doubling up to a limit).
 */
static void
slot_backoff(struct slot *s, int64_t started)
{
	if (clock_ms() - started < RESPAWN_FAST_MS)
		s->delay_ms = s->delay_ms == 0 ? RESPAWN_FIRST_MS :
		    s->delay_ms * 2 > RESPAWN_MAX_MS ? RESPAWN_MAX_MS :
		    s->delay_ms * 2;
	else
		s->delay_ms = 0;
	slot_respawn_in(s, s->delay_ms);
}

void
master_schedule_respawn(struct master *m, const struct child *c, int status)
{
	struct slot *s = &m->slots[c->slot];
	char         how[256];

	master_describe_exit(c->pid, status, how, sizeof(how));
	slot_backoff(s, c->started);
	if (s->delay_ms == 0)
		log_err("worker %d (pid %ld) %s; respawning", c->slot,
		    (long)c->pid, how);
	else
		log_err("worker %d (pid %ld) %s; respawning in %d ms", c->slot,
		    (long)c->pid, how, s->delay_ms);
}

void
master_spawn_checker(struct master *m)
{
	struct checker_proc *ck = &m->checker;
	pid_t                pid, master = getpid();
	int                  chan[2];

	event_timer_cancel(m->loop, &ck->respawn.respawn);
	if (!checker_needed(m->cfg))
		return;
	if (ipc_pair(chan) == -1) {
		log_err("cannot start the health checker: %s", strerror(errno));
		slot_respawn_in(&ck->respawn, RESPAWN_MAX_MS);
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
		slot_respawn_in(&ck->respawn, RESPAWN_MAX_MS);
		return;
	}
	ck->pid = pid;
	ck->chan = chan[0];
	ck->started = clock_ms();
	log_debug("health checker started (pid %ld)", (long)pid);
}

void
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
	event_timer_cancel(m->loop, &ck->respawn.respawn);
}

bool
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
	master_describe_exit(pid, status, how, sizeof(how));
	slot_backoff(&ck->respawn, ck->started);
	log_err("health checker (pid %ld) %s; respawning%s; workers keep the "
	    "last known health", (long)pid, how,
	    ck->respawn.delay_ms > 0 ? " after a delay" : "");
	return true;
}

struct child *
master_child_find(struct master *m, pid_t pid)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->pid == pid)
			return c;
	return NULL;
}

void
master_child_remove(struct master *m, struct child *c)
{
	TAILQ_REMOVE(&m->children, c, link);
	master_child_close_chan(m, c);
	/* Its connections are gone: so are its clients' counts. */
	client_limit_table_gone(c->cell);
	scoreboard_give(c->cell);
	stats_worker_gone(c->gen, c->slot);
	udp_cid_share_gone(c->slot, c->pid);
}

void
master_child_free(struct master *m, struct child *c)
{
	event_timer_cancel(m->loop, &c->drain_end);
	free(c);
}

void
master_signal_children(struct master *m, int signo)
{
	struct child *c;

	TAILQ_FOREACH(c, &m->children, link)
		kill(c->pid, signo);
	if (m->checker.pid > 0)
		kill(m->checker.pid, signo);
}

bool
master_generation_alive(unsigned gen, void *arg)
{
	const struct master	*m = arg;
	const struct child	*c;

	TAILQ_FOREACH(c, &m->children, link)
		if (c->gen == gen)
			return true;
	return false;
}

/*
 * A worker whose heartbeat is older than watchdog_timeout is hung or
 * stopped: steer new connections around its slot, kill it, and let the
 * respawn replace it (its slot is steered in again once the new worker
 * says it is ready).  A stopped process cannot catch SIGTERM; SIGKILL
 * ends it whatever state it is in.
 */
void
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
