/*
 * master_control.c - the control socket (control_socket): a UNIX stream
 * socket the master serves on its own loop, one command per line, each
 * answer ending in a line "ok" or "error: REASON".  The workers never
 * read it.  What it changes of a backend (drain, disable, weight) lives
 * in the backend's health cell, which every worker reads when it picks
 * and which a reload carries over, as it carries health; the host's
 * drain (GET /ready) lives in the scoreboard, made once.  Both go to
 * state_file at each change (master_statefile.c), for a restart.
 *
 * The master must never block on a client: sockets are non-blocking,
 * a line is at most CONTROL_LINE_MAX bytes, an answer is written as the
 * socket takes it and at most CONTROL_OUT_MAX of it waits, clients are
 * CONTROL_CLIENTS_MAX at once and idle at most CONTROL_IDLE_MS.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "health.h"
#include "ipc.h"
#include "log.h"
#include "master_child.h"
#include "master_control.h"
#include "master_request.h"
#include "master_sessions.h"
#include "master_state.h"
#include "master_statefile.h"
#include "options.h"
#include "route.h"
#include "rule.h"
#include "scoreboard.h"
#include "sock.h"
#include "stats.h"
#include "upstream.h"

#define CONTROL_LINE_MAX	1024
#define CONTROL_OUT_MAX		(16 * 1024 * 1024)
#define CONTROL_CLIENTS_MAX	16
#define CONTROL_IDLE_MS		60000

struct control_client {
	TAILQ_ENTRY(control_client) link;
	struct master	  *m;
	int		   fd;
	uid_t		   uid;		/* of the peer (SO_PEERCRED) */
	char		   in[CONTROL_LINE_MAX];
	size_t		   inlen;
	char		  *out;
	size_t		   outlen, outoff, outcap;
	int		   reload_token; /* waits for an outcome of it; 0: no */
	unsigned long	   reload_seq;	/* ... told after this one */
	struct sessions_ask *sessions;	/* show sessions' answer awaited */
	bool		   closing;	/* once out is written */
	bool		   spoke;	/* a command came */
	int64_t		   accepted;	/* clock_ms() */
	struct event_timer idle;
};

static void client_close(struct control_client *);
static void client_flush(struct control_client *);
static void client_lines(struct control_client *);
static void say(struct control_client *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/* Append to c's answer; past CONTROL_OUT_MAX it is cut and c closes. */
static void
say(struct control_client *c, const char *fmt, ...)
{
	va_list	 ap;
	char	*p;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || c->closing)
		return;
	if (c->outlen + (size_t)n + 1 > c->outcap) {
		if (c->outlen + (size_t)n + 1 > CONTROL_OUT_MAX ||
		    (p = realloc(c->out, c->outlen + (size_t)n + 4096)) ==
		    NULL) {
			c->closing = true;
			return;
		}
		c->out = p;
		c->outcap = c->outlen + (size_t)n + 4096;
	}
	va_start(ap, fmt);
	vsnprintf(c->out + c->outlen, (size_t)n + 1, fmt, ap);
	va_end(ap);
	c->outlen += (size_t)n;
}

/* The answer's last line, "error: ...": the command failed. */
static int __attribute__((format(printf, 2, 3)))
say_error(struct control_client *c, const char *fmt, ...)
{
	char	why[512];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	say(c, "error: %s\n", why);
	return -1;
}

/* The rules named name (a port range is a rule per port), by index. */
static bool
rule_named(const struct rule *r, const char *name)
{
	return name == NULL || strcmp(rule_log_name(r), name) == 0;
}

static void
say_backend(struct control_client *c, const struct rule *r,
    const struct backend *b, int64_t now)
{
	static const char *const health_names[] = { "up", "down", "trial" };
	struct stats_backend	 st;
	char			 a[ADDR_STRLEN];

	memset(&st, 0, sizeof(st));
	(void)stats_read_backend(b->stat, &st);
	/* A route's backend is RULE/ROUTE/ADDRESS. */
	say(c, "%s/%s state=%s admin=%s weight=%d%s active=%llu",
	    rule_log_name(rule_dest_of(r, b)), addr_format((const void *)&b->addr.ss, a,
	    sizeof(a)), health_names[health_state(b, now)],
	    health_admin_names[health_admin(b)], health_weight(b),
	    b->backup ? " backup" : "", (unsigned long long)st.active);
	/* Drained or disabled: since when (kept by state_file). */
	if (health_admin(b) != HEALTH_READY && health_admin_since(b) > 0)
		say(c, " since=%lld", (long long)health_admin_since(b));
	say(c, "\n");
}

static int
cmd_show_backends(struct control_client *c, char *arg)
{
	const struct conf	*cfg = c->m->cfg;
	const struct rule	*r;
	size_t			 i, j, n = 0;
	int64_t			 now = clock_ms();

	stats_read_begin();
	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		if (!rule_named(r, arg))
			continue;
		for (j = 0; j < r->upstream.nbackends; j++, n++)
			say_backend(c, r, &r->upstream.backends[j], now);
	}
	if (n == 0 && arg != NULL)
		return say_error(c, "no rule %s", arg);
	return 0;
}

static int
cmd_show_rules(struct control_client *c, char *arg)
{
	const struct conf	*cfg = c->m->cfg;
	const struct rule	*r;
	char			 l[CONF_ERR_MAX];

	(void)arg;
	for (r = cfg->rules; r < cfg->rules + cfg->nrules; r++) {
		if (r->range_first != NULL)
			continue;	/* a range is one rule */
		say(c, "%s %s listen=%s connect=%s backends=%zu\n",
		    rule_log_name(r), r->protocol == RULE_UDP ? "udp" : "tcp",
		    conf_rule_listen(r, l, sizeof(l)), r->connect,
		    r->upstream.nbackends);
	}
	return 0;
}

static int
cmd_show_info(struct control_client *c, char *arg)
{
	const struct master	*m = c->m;
	const struct child	*ch;
	int			 old = 0;

	(void)arg;
	TAILQ_FOREACH(ch, &m->children, link)
		old += ch->gen != m->gen;
	say(c, "version %s\npid %ld\nuptime %lld s\nconfig %s\n"
	    "generation %u\nworkers %d\nold workers %d\nlast reload %s%s\n"
	    "host %s\n", PACKAGE_VERSION, (long)getpid(),
	    (long long)((clock_ms() - m->born) / 1000), m->opt->config_path,
	    m->gen, m->cfg->workers, old, m->outcome.told_ok ? "" : "failed: ",
	    m->outcome.told, scoreboard_host_drain(NULL) ? "drain" : "ready");
	return 0;
}

/* The backends of the rules named rule whose address is addr, given to fn. */
static size_t
backends_named(struct control_client *c, const char *rule, const char *addr,
    void (*fn)(struct control_client *, const struct rule *,
    const struct backend *, long), long value)
{
	const struct conf	*cfg = c->m->cfg;
	const struct rule	*r;
	const struct backend	*b;
	char			 a[ADDR_STRLEN];
	size_t			 i, j, n = 0;

	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		for (j = 0; j < r->upstream.nbackends; j++) {
			b = &r->upstream.backends[j];
			if (rule_named(rule_dest_of(r, b), rule) &&
			    strcmp(addr_format((const void *)&b->addr.ss, a,
			    sizeof(a)), addr) == 0) {
				fn(c, r, b, value);
				n++;
			}
		}
	}
	return n;
}

/*
 * Each backend RULE/ADDRESS (a route's: RULE/ROUTE/ADDRESS) names (a
 * rule may be a port range, so several), given to fn; -1 with the error
 * said when there is none.  The rule and the address are split at each
 * '/' from the right until one names a backend: a Unix address
 * ("unix:/run/app.sock") and a Unix listener's rule name have slashes
 * of their own.
 */
static int
each_backend(struct control_client *c, char *arg,
    void (*fn)(struct control_client *, const struct rule *,
    const struct backend *, long), long value)
{
	char	*slash;
	size_t	 n = 0;

	if (arg == NULL || strchr(arg, '/') == NULL)
		return say_error(c, "name a backend as RULE/ADDRESS (see "
		    "show backends)");
	for (slash = arg + strlen(arg); n == 0 && slash > arg; slash--) {
		if (*slash != '/')
			continue;
		*slash = '\0';
		n = backends_named(c, arg, slash + 1, fn, value);
		*slash = '/';
	}
	return n > 0 ? 0 : say_error(c, "no backend %s", arg);
}

static void
set_admin(struct control_client *c, const struct rule *r,
    const struct backend *b, long admin)
{
	struct health_cell	*cell = health_cell(b->id);
	char			 a[ADDR_STRLEN];

	if (cell == NULL || cell->admin == admin)
		return;
	cell->admin = (uint8_t)admin;
	cell->admin_since = (int64_t)time(NULL);
	health_changed(cell);
	log_notice("%s: backend %s is %s now (control, uid %d)",
	    rule_log_name(rule_dest_of(r, b)), addr_format((const void *)&b->addr.ss, a,
	    sizeof(a)), health_admin_names[admin], (int)c->uid);
}

static void
set_weight(struct control_client *c, const struct rule *r,
    const struct backend *b, long weight)
{
	struct health_cell	*cell = health_cell(b->id);
	char			 a[ADDR_STRLEN];

	if (cell == NULL || cell->weight == weight)
		return;
	cell->weight = (uint16_t)weight;
	log_notice("%s: backend %s has weight %ld now (control, uid %d)",
	    rule_log_name(rule_dest_of(r, b)), addr_format((const void *)
	    &b->addr.ss, a, sizeof(a)), weight, (int)c->uid);
}

static int
cmd_enable(struct control_client *c, char *arg)
{
	return each_backend(c, arg, set_admin, HEALTH_READY);
}

static int
cmd_drain(struct control_client *c, char *arg)
{
	return each_backend(c, arg, set_admin, HEALTH_DRAIN);
}

static int
cmd_disable(struct control_client *c, char *arg)
{
	return each_backend(c, arg, set_admin, HEALTH_DISABLED);
}

/* "set weight RULE/ADDRESS N": 1 to BACKEND_WEIGHT_MAX. */
static int
cmd_set_weight(struct control_client *c, char *arg)
{
	char	*sp, *end;
	long	 w;

	if (arg == NULL || (sp = strrchr(arg, ' ')) == NULL)
		return say_error(c, "set weight RULE/ADDRESS N");
	*sp = '\0';
	w = strtol(sp + 1, &end, 10);
	if (sp[1] == '\0' || *end != '\0' || w < 1 || w > BACKEND_WEIGHT_MAX)
		return say_error(c, "a weight is 1 to %d (to take no new "
		    "connections: drain)", BACKEND_WEIGHT_MAX);
	return each_backend(c, arg, set_weight, w);
}

/*
 * "reload": the answer waits for the outcome of a reload that covers
 * this request (a negative token: a pid is never one).
 */
static int
cmd_reload(struct control_client *c, char *arg)
{
	static int tokens;

	(void)arg;
	tokens = tokens < INT_MAX ? tokens + 1 : 1;
	c->reload_token = -tokens;
	c->reload_seq = c->m->outcome.seq;
	master_request_put(&c->m->requests, REQUEST_RELOAD,
	    &c->reload_token, 1);
	return 1;	/* answered by master_control_follow() */
}

/* The host drained or ready, said by who: whether that changed it. */
static bool
host_change(bool drain, const char *who)
{
	if (scoreboard_host_drain(NULL) == drain)
		return false;
	scoreboard_set_host_drain(drain);
	if (drain)
		log_notice("host drained (%s): /ready answers 503; connections "
		    "are still served", who);
	else
		log_notice("host ready (%s): /ready answers 200", who);
	return true;
}

void
master_host_drain(struct master *m, bool drain, const char *who)
{
	char err[512];

	if (host_change(drain, who) &&
	    master_statefile_save(m->cfg->state_file, m->cfg->rules,
	    m->cfg->nrules, err, sizeof(err)) == -1)
		log_warn("%s", err);
}

/* "drain host", "ready host": /ready's answer (scoreboard.h). */
static int
host_set(struct control_client *c, char *arg, bool drain)
{
	char who[64];

	(void)arg;	/* none: client_run() */
	snprintf(who, sizeof(who), "control, uid %d", (int)c->uid);
	(void)host_change(drain, who);	/* saved by client_run() */
	return 0;
}

static int
cmd_drain_host(struct control_client *c, char *arg)
{
	return host_set(c, arg, true);
}

static int
cmd_ready_host(struct control_client *c, char *arg)
{
	return host_set(c, arg, false);
}

static int
cmd_show_host(struct control_client *c, char *arg)
{
	int64_t		since;
	bool		drain = scoreboard_host_drain(&since);
	time_t		t = (time_t)since;
	struct tm	tm;
	char		when[32] = "?";

	(void)arg;
	if (gmtime_r(&t, &tm) != NULL)
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	say(c, "host %s since %s (%lld s)\nready %s\n", drain ? "drain" :
	    "ready", when, (long long)(time(NULL) - t), drain ? "503" : "200");
	return 0;
}

/*
 * "upgrade": answered by the old image if the new binary fails -t or
 * cannot be executed, else by the new one (master_adopt_answer()).
 */
static int
cmd_upgrade(struct control_client *c, char *arg)
{
	static int tokens;

	(void)arg;
	/* Below reload's tokens: -1, -2, ... */
	tokens = tokens < INT_MAX / 2 ? tokens + 1 : 1;
	c->reload_token = INT_MIN / 2 - tokens;
	c->reload_seq = c->m->outcome.seq;
	master_request_put(&c->m->requests, REQUEST_UPGRADE,
	    &c->reload_token, 1);
	return 1;	/* answered by master_control_follow() */
}

/*
 * Whether c waits for an answer that is not its own to give (a reload's,
 * the workers'): until then its next lines are not read.
 */
static bool
client_waits(const struct control_client *c)
{
	return c->reload_token != 0 || c->sessions != NULL;
}

/* A line of show sessions' answer: kept until the answer is whole. */
static void
sessions_line_say(void *arg, const char *text, size_t len)
{
	say(arg, "%.*s\n", (int)len, text);
}

/* The workers answered (or the time is up): ok, and the next lines. */
static void
sessions_answered(void *arg)
{
	struct control_client *c = arg;

	c->sessions = NULL;
	say(c, "ok\n");
	client_lines(c);	/* the lines that waited, then flush */
}

/*
 * "show sessions [RULE] [limit N]": asked of the workers, answered by
 * sessions_answered() from the loop (a rule is checked here, against the
 * rules of now: a worker of an older generation matches it by name).
 */
static int
cmd_show_sessions(struct control_client *c, char *arg)
{
	const struct conf	*cfg = c->m->cfg;
	char			*rule = arg, *lim = NULL, *sp, *end;
	long			 n = SESSIONS_LIMIT_DEFAULT;
	size_t			 i;

	if (arg != NULL && strncmp(arg, "limit ", 6) == 0) {
		rule = NULL;
		lim = arg + 6;
	} else if (arg != NULL && (sp = strstr(arg, " limit ")) != NULL) {
		*sp = '\0';
		lim = sp + 7;
	}
	if (lim != NULL) {
		n = strtol(lim, &end, 10);
		if (*lim == '\0' || *end != '\0' || n < 1 ||
		    n > IPC_SESSIONS_MAX)
			return say_error(c, "a limit is 1 to %d lines",
			    IPC_SESSIONS_MAX);
	}
	for (i = 0; rule != NULL && i < cfg->nrules; i++)
		if (rule_named(&cfg->rules[i], rule))
			break;
	if (rule != NULL && i == cfg->nrules)
		return say_error(c, "no rule %s (see show rules)", rule);
	if ((c->sessions = master_sessions_ask(c->m, rule, (size_t)n,
	    sessions_line_say, sessions_answered, c)) == NULL)
		return say_error(c, "out of memory");
	return 1;	/* answered by sessions_answered() */
}

static int cmd_help(struct control_client *, char *);

/* The commands: those that change something are logged as notices. */
static const struct {
	const char	*name;
	int		(*fn)(struct control_client *, char *);
	bool		 changes, args;	/* args: else "reload now" is refused */
	const char	*help;
} commands[] = {
	{ "help", cmd_help, false, false, "this list" },
	{ "show info", cmd_show_info, false, false, "version, pid, "
	    "generation, workers" },
	{ "show rules", cmd_show_rules, false, false, "the rules" },
	{ "show backends", cmd_show_backends, false, true, "[RULE]: each "
	    "backend's state" },
	{ "show sessions", cmd_show_sessions, false, true, "[RULE] [limit N]: "
	    "connections and UDP sessions, from the workers" },
	{ "enable backend", cmd_enable, true, true, "RULE/ADDRESS: new "
	    "connections again" },
	{ "drain backend", cmd_drain, true, true, "RULE/ADDRESS: no new "
	    "connections while another is up; open ones finish" },
	{ "disable backend", cmd_disable, true, true, "RULE/ADDRESS: none, "
	    "not even as a last resort" },
	{ "set weight", cmd_set_weight, true, true, "RULE/ADDRESS N: its "
	    "share, 1 to 256" },
	{ "show host", cmd_show_host, false, false, "ready or drain, since "
	    "when" },
	{ "drain host", cmd_drain_host, true, false, "/ready answers 503; "
	    "connections are still served" },
	{ "ready host", cmd_ready_host, true, false, "/ready answers 200 again" },
	{ "reload", cmd_reload, true, false, "reload the file; answers how "
	    "it went" },
	{ "upgrade", cmd_upgrade, true, false, "execute the binary on disk "
	    "in place; answers how it went" },
};

static int
cmd_help(struct control_client *c, char *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		say(c, "%-16s %s\n", commands[i].name, commands[i].help);
	return 0;
}

/* Run one line; "ok" or "error: ..." ends its answer. */
static void
client_run(struct control_client *c, char *line)
{
	size_t	i, n;
	char	*arg, why[512];
	int	rc = -1;

	c->spoke = true;
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		n = strlen(commands[i].name);
		if (strncmp(line, commands[i].name, n) != 0 ||
		    (line[n] != '\0' && line[n] != ' '))
			continue;
		log_msg(commands[i].changes ? LOG_LEVEL_NOTICE : LOG_LEVEL_INFO,
		    "control: uid %d: %s", (int)c->uid, line);
		for (arg = line + n; *arg == ' '; arg++)
			continue;
		rc = *arg == '\0' ? commands[i].fn(c, NULL) : commands[i].args ?
		    commands[i].fn(c, arg) : say_error(c, "%s takes no "
		    "argument", commands[i].name);
		break;
	}
	if (i == sizeof(commands) / sizeof(commands[0])) {
		log_info("control: uid %d: unknown: %.80s", (int)c->uid, line);
		say_error(c, "unknown command (try help)");
		return;
	}
	/* A change is kept for a restart (a reload's, once it serves). */
	if (rc == 0 && commands[i].changes &&
	    master_statefile_save(c->m->cfg->state_file, c->m->cfg->rules,
	    c->m->cfg->nrules, why, sizeof(why)) == -1) {
		log_warn("%s", why);
		say(c, "warning: %s\n", why);
	}
	if (rc == 0)
		say(c, "ok\n");
}

static void
client_on_idle(struct event_timer *t, void *data)
{
	struct control_client *c = data;

	(void)t;
	if (client_waits(c))
		(void)event_timer_arm(c->m->loop, t, clock_ms() +
		    CONTROL_IDLE_MS);	/* a reload takes its time */
	else
		client_close(c);
}

/*
 * Run the whole lines c has sent, one at a time: a reload's answer comes
 * before the next line is read, and while it is awaited c is not read
 * at all (a level-triggered EV_READ would spin on what waits).
 */
static void
client_lines(struct control_client *c)
{
	char *nl;

	while (!client_waits(c) && !c->closing &&
	    (nl = memchr(c->in, '\n', c->inlen)) != NULL) {
		*nl = '\0';
		if (nl > c->in && nl[-1] == '\r')
			nl[-1] = '\0';
		client_run(c, c->in);
		c->inlen -= (size_t)(nl + 1 - c->in);
		memmove(c->in, nl + 1, c->inlen);
	}
	if (!client_waits(c) && c->inlen == sizeof(c->in) - 1) {
		say_error(c, "a line is at most %d bytes", CONTROL_LINE_MAX - 2);
		c->closing = true;
	}
	client_flush(c);
}

static void
client_on_event(struct event_loop *loop, int fd, int events, void *data)
{
	struct control_client	*c = data;
	ssize_t			 n;

	(void)loop;
	if (!(events & EV_READ) || client_waits(c)) {
		client_flush(c);	/* EV_WRITE: the rest of an answer */
		return;
	}
	n = read(fd, c->in + c->inlen, sizeof(c->in) - c->inlen - 1);
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		client_close(c);
		return;
	}
	if (n > 0)
		c->inlen += (size_t)n;
	(void)event_timer_arm(c->m->loop, &c->idle, clock_ms() +
	    CONTROL_IDLE_MS);
	client_lines(c);
}

/*
 * Write what c's answer holds, watching for room while some is left;
 * close c when it is done and closing.  c may be freed on return.
 */
static void
client_flush(struct control_client *c)
{
	int	read_mask = client_waits(c) ? 0 : EV_READ;
	ssize_t	n;

	while (c->outoff < c->outlen) {
		n = write(c->fd, c->out + c->outoff, c->outlen - c->outoff);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			(void)event_mask(c->m->loop, c->fd, read_mask | EV_WRITE);
			return;
		}
		if (n == -1) {
			client_close(c);
			return;
		}
		c->outoff += (size_t)n;
	}
	c->outoff = c->outlen = 0;
	if (c->closing) {
		client_close(c);
		return;
	}
	(void)event_mask(c->m->loop, c->fd, read_mask);
}

static void
client_close(struct control_client *c)
{
	struct master *m = c->m;

	if (c->sessions != NULL)
		master_sessions_cancel(m, c->sessions);
	event_timer_cancel(m->loop, &c->idle);
	event_close(m->loop, c->fd);
	master_disown_fd(m, c->fd);
	close(c->fd);
	TAILQ_REMOVE(&m->control.clients, c, link);
	m->control.nclients--;
	free(c->out);
	free(c);
}

static void
control_on_accept(struct event_loop *loop, int fd, int events, void *data)
{
	struct master		*m = data;
	struct control_client	*c;
	struct sockaddr_any	 peer;
	int			 cfd;

	(void)loop;
	(void)events;

	while ((cfd = sock_accept(fd, &peer)) != -1) {
		if (m->control.nclients >= CONTROL_CLIENTS_MAX ||
		    (c = calloc(1, sizeof(*c))) == NULL) {
			(void)write(cfd, "error: too many control connections\n",
			    36);
			close(cfd);
			continue;
		}
		c->m = m;
		c->fd = cfd;
		c->uid = sock_peer_uid(cfd);
		c->accepted = clock_ms();
		event_timer_init(&c->idle, client_on_idle, c);
		if (event_set(m->loop, cfd, EV_READ, client_on_event,
		    c) == -1) {
			close(cfd);
			free(c);
			continue;
		}
		(void)event_timer_arm(m->loop, &c->idle, clock_ms() +
		    CONTROL_IDLE_MS);
		TAILQ_INSERT_TAIL(&m->control.clients, c, link);
		m->control.nclients++;
		master_own_fd(m, cfd);
	}
}

/* Whether the last outcome answers request token. */
static bool
master_covered(const struct master *m, int token)
{
	size_t i;

	for (i = 0; i < m->outcome.ntold_covers; i++)
		if (m->outcome.told_covers[i] == token)
			return true;
	return false;
}

void
master_control_follow(struct master *m)
{
	struct control_client	*c, *next;
	char			 err[CONF_ERR_MAX];

	/*
	 * A reload's configuration: its control socket, once, and the
	 * state file as it stands with the new rules (the cells carried
	 * over, those of backends gone dropped).
	 */
	if (m->control.gen != m->gen && !m->stopping) {
		m->control.gen = m->gen;
		if (master_control_open(m, m->cfg, err, sizeof(err)) == -1)
			log_err("%s; the control socket stays as it was", err);
		if (master_statefile_save(m->cfg->state_file, m->cfg->rules,
		    m->cfg->nrules, err, sizeof(err)) == -1)
			log_warn("%s", err);
	}
	for (c = TAILQ_FIRST(&m->control.clients); c != NULL; c = next) {
		next = TAILQ_NEXT(c, link);
		if (c->reload_token == 0 || m->outcome.seq == c->reload_seq ||
		    !master_covered(m, c->reload_token))
			continue;
		c->reload_token = 0;
		say(c, m->outcome.told_ok ? "%s\nok\n" : "error: %s\n",
		    m->outcome.told);
		client_lines(c);	/* the lines that waited, then flush */
	}
}

bool
master_control_before_exec(struct master *m, enum control_exec what)
{
	const struct control_client	*c;
	size_t				 n = 0;
	int64_t				 now = clock_ms();

	if (m->control.fd != -1)
		(void)event_mask(m->loop, m->control.fd,
		    what == CONTROL_EXEC_RESUME ? EV_READ : 0);
	if (what == CONTROL_EXEC_RESUME)
		return false;
	if (what == CONTROL_EXEC_CUT)
		master_sessions_cut(m);	/* answered and written, if it can */
	/* An answer under way, or a first command that may be. */
	TAILQ_FOREACH(c, &m->control.clients, link)
		n += c->sessions != NULL || c->outoff < c->outlen ||
		    (!c->spoke && !c->closing &&
		    now - c->accepted < SESSIONS_WAIT_MS);
	if (what == CONTROL_EXEC_CUT && n > 0)
		log_notice("upgrade: %zu control answer%s lost at the exec "
		    "(not asked, or not written, before it)", n,
		    n == 1 ? "" : "s");
	return n > 0;
}

int
master_control_adopt(struct master *m, int fd, const char *path)
{
	/*
	 * A number that was not kept across (an image that failed before it
	 * took it) may be another descriptor now: it must be this socket.
	 */
	if (!sock_unix_listening(fd, path))
		return -1;
	/* The file names another one or none: closed (made anew, or not). */
	if (m->cfg->control_socket == NULL ||
	    strcmp(m->cfg->control_socket, path) != 0 ||
	    (m->control.path = strdup(path)) == NULL ||
	    event_set(m->loop, fd, EV_READ, control_on_accept, m) == -1) {
		free(m->control.path);
		m->control.path = NULL;
		close(fd);
		return -1;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	m->control.fd = fd;
	master_own_fd(m, fd);
	return 0;
}

int
master_control_waiting(const struct master *m, int token)
{
	const struct control_client *c;

	TAILQ_FOREACH(c, &m->control.clients, link)
		if (token != 0 && c->reload_token == token && !c->closing)
			return c->fd;
	return -1;
}

void
master_control_close(struct master *m)
{
	while (!TAILQ_EMPTY(&m->control.clients))
		client_close(TAILQ_FIRST(&m->control.clients));
	if (m->control.fd != -1) {
		event_close(m->loop, m->control.fd);
		master_disown_fd(m, m->control.fd);
		close(m->control.fd);
		m->control.fd = -1;
	}
	if (m->control.path != NULL) {
		(void)unlink(m->control.path);
		free(m->control.path);
		m->control.path = NULL;
	}
}

int
master_control_open(struct master *m, const struct conf *cfg, char *err,
    size_t errlen)
{
	const char		*path = cfg->control_socket;
	struct sock_unix_file	 file;
	int			 fd;

	/*
	 * The file is made with its mode and group (no chmod() or chown()
	 * by path after bind(), which a link put in its place would
	 * redirect); the owner stays root.
	 */
	file.mode = cfg->control_mode;
	file.uid = (uid_t)-1;
	file.gid = cfg->control_group != NULL ? cfg->control_gid : (gid_t)-1;
	if (path != NULL && m->control.path != NULL &&
	    strcmp(path, m->control.path) == 0 && m->control.fd != -1)
		/* The same socket: its mode and group may have changed. */
		return sock_unix_file_set(path, &file, err, errlen);
	if (path == NULL) {
		master_control_close(m);
		return 0;
	}
	if ((fd = sock_listen_unix(path, 16, &file, err, errlen)) == -1)
		return -1;
	if (event_set(m->loop, fd, EV_READ, control_on_accept, m) == -1) {
		snprintf(err, errlen, "cannot watch %s: %s", path,
		    strerror(errno));
		close(fd);
		(void)unlink(path);
		return -1;
	}
	master_control_close(m);
	m->control.fd = fd;
	master_own_fd(m, fd);
	m->control.path = strdup(path);
	return 0;
}
