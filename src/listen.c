/*
 * listen.c - binding the listen set and handing sockets over on reload.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef HAVE_LINUX_FILTER_H
#include <linux/filter.h>
#endif

#include "addr.h"
#include "bug.h"
#include "conf.h"
#include "listen.h"
#include "rule.h"
#include "sock.h"

/*
 * The index of the rule of cfg whose sockets can serve rule r as they are
 * (same protocol, same address, same IPV6_V6ONLY), or -1: the listen set
 * is keyed by (rule, slot, protocol).
 */
static int
rule_by_listen(const struct rule_map *map, const struct conf *cfg,
    const struct rule *r)
{
	const struct rule *o = conf_rule_map_find(map, r);

	return o != NULL && o->ipv6_only == r->ipv6_only ?
	    (int)(o - cfg->rules) : -1;
}

/* Whether rule listens on a Unix socket: one for all slots. */
static bool
listen_is_unix(const struct rule *rule)
{
	return rule->listen_addr.ss.ss_family == AF_UNIX;
}

/* The kind of socket rule listens on. */
static int
rule_socktype(const struct rule *rule)
{
	return rule->protocol == RULE_UDP ? SOCK_DGRAM : SOCK_STREAM;
}

/* The keepalive a TCP listener of rule gives its clients. */
static struct keepalive
client_keepalive(const struct rule *rule)
{
	struct keepalive	client = rule->keepalive;

	client.enabled = keepalive_on(&rule->keepalive, true);
	return client;
}

/* Whether sock_keepalive() sets something else for rule than for was. */
static bool
keepalive_changed(const struct rule *rule, const struct rule *was)
{
	struct keepalive	a = client_keepalive(rule), b;

	if (was == NULL)
		return true;
	b = client_keepalive(was);
	return a.enabled != b.enabled || (a.enabled && (a.idle != b.idle ||
	    a.interval != b.interval || a.count != b.count));
}

/*
 * What a rule asks of its listening sockets, new or kept: buffers (a UDP
 * listener's are large) and keepalive, which Linux gives each accepted
 * connection from its listener, so that it costs no syscall per
 * connection.  Set where they differ from was's, the rule whose settings
 * a kept socket has; was NULL (a new socket, or one adopted at an
 * upgrade, whose settings are not known): all set.  A reload of 5,000
 * unchanged rules made 10,000 calls for nothing.
 */
static void
listen_buffers(int fd, const struct rule *rule, const struct rule *was)
{
	struct keepalive	client = client_keepalive(rule);

	if (was == NULL || rule->sndbuf != was->sndbuf)
		sock_buffers(fd, rule->sndbuf, 0);
	if (was == NULL || rule->rcvbuf != was->rcvbuf) {
		if (rule->protocol == RULE_UDP)
			sock_dgram_rcvbuf(fd, rule->rcvbuf);
		else
			sock_buffers(fd, 0, rule->rcvbuf);
	}
	if (rule->protocol == RULE_TCP && keepalive_changed(rule, was))
		sock_keepalive(fd, &client);
}

static void
listen_set_free(struct listen_set *ls)
{
	free(ls->fds);
	free(ls->has_steer);
	free(ls);
}

/*
 * A descriptor for slot s of rule r in shared mode: a dup() of the rule's
 * socket (old's when it is kept: dup() takes nothing from old).
 */
static int
shared_dup(int fd, const struct rule *r, char *err, size_t errlen)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (dup_fd == -1)
		snprintf(err, errlen, "cannot share the socket of %s: %s",
		    r->listen, strerror(errno));
	return dup_fd;
}

/* A socket just made: every option off. */
static const struct rule fresh;

/* The int at off in rule r. */
static int
rule_int(const struct rule *r, size_t off)
{
	return *(const int *)(const void *)((const char *)r + off);
}

/*
 * tcp_fastopen, defer_accept and rate_limit on a TCP listener: set where
 * they differ from was's, the rule whose options the socket has (fresh,
 * or a kept socket's rule in the running configuration), so that a
 * reload that drops one turns it off and one that keeps it makes no
 * call; was NULL: not known, every one set.  Accepted connections need
 * nothing more: the listener does the work, or they inherit it (the
 * pacing rate).
 */
static int
listen_tcp_options(int fd, const struct rule *rule, const struct rule *was,
    char *err, size_t errlen)
{
	static const struct {
		const char	*name;
		size_t		 off;		/* an int of struct rule */
		int		(*set)(int, int);
	} opts[] = {
		{ "tcp_fastopen", offsetof(struct rule, tcp_fastopen),
		    sock_fastopen },
		{ "defer_accept", offsetof(struct rule, defer_accept),
		    sock_defer_accept },
		/* Towards the clients: they inherit the listener's. */
		{ "rate_limit", offsetof(struct rule, rate_limit),
		    sock_pacing_rate },
	};
	size_t	i;
	int	v;

	/* A Unix listener has none of them (the loader refuses them). */
	if (rule->protocol != RULE_TCP ||
	    rule->listen_addr.ss.ss_family == AF_UNIX)
		return 0;
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		v = rule_int(rule, opts[i].off);
		/* Off where the system has none is off already. */
		if ((was == NULL || v != rule_int(was, opts[i].off)) &&
		    opts[i].set(fd, v) == -1 &&
		    (v > 0 || errno != ENOPROTOOPT)) {
			snprintf(err, errlen, "cannot set %s = %d on %s: %s",
			    opts[i].name, v, rule->listen, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * A kept socket, of rule was in oldcfg: listen() again updates its
 * backlog, and the listener's TCP options are set, where they changed.
 * A reload of 5,000 unchanged rules made 40,000 calls for nothing.  An
 * upgrade's old configuration describes its sockets alone (no backlog:
 * master_adopt.c), which may have any backlog and options: all set.
 */
/*
 * Whether oldcfg says what its sockets have: not an upgrade's, which
 * describes its sockets alone (no backlog: master_adopt.c).
 */
static bool
settings_known(const struct conf *oldcfg)
{
	return oldcfg->backlog > 0;
}

static int
keep_backlog(int fd, const struct conf *cfg, const struct rule *rule,
    const struct conf *oldcfg, const struct rule *was, char *err,
    size_t errlen)
{
	bool known = settings_known(oldcfg);

	if (rule->protocol == RULE_TCP &&
	    (!known || oldcfg->backlog != cfg->backlog) &&
	    listen(fd, cfg->backlog) == -1) {
		snprintf(err, errlen, "cannot listen on %s with backlog %d: %s",
		    rule->listen, cfg->backlog, strerror(errno));
		return -1;
	}
	return listen_tcp_options(fd, rule, known ? was : NULL, err, errlen);
}

/*
 * A socket per slot: bind those of rule r that old (its rule o of
 * oldcfg, or -1) does not have.  Nothing of old changes hands here.
 */
static int
rule_open_per_slot(struct listen_set *ls, const struct conf *cfg, size_t r,
    const struct listen_set *old, const struct conf *oldcfg, int o,
    char *err, size_t errlen)
{
	const struct rule	*rule = &cfg->rules[r];
	int			 s;

	/* An address not ours yet must not be anyone else's. */
	if (o == -1 && sock_probe(&rule->listen_addr, rule_socktype(rule),
	    rule->ipv6_only) == EADDRINUSE) {
		snprintf(err, errlen, "cannot bind %s: address in use by "
		    "another process", rule->listen);
		return -1;
	}
	for (s = 0; s < ls->nsock; s++) {
		if (o != -1 && s < old->nsock && LISTEN_FD(old, o, s) != -1) {
			if (keep_backlog(LISTEN_FD(old, o, s), cfg, rule,
			    oldcfg, &oldcfg->rules[o], err, errlen) == -1)
				return -1;
			continue;	/* taken over once all is bound */
		}
		LISTEN_FD(ls, r, s) = sock_listen(&rule->listen_addr,
		    rule_socktype(rule), cfg->backlog, rule->ipv6_only, true,
		    err, errlen);
		if (LISTEN_FD(ls, r, s) == -1)
			return -1;
		listen_buffers(LISTEN_FD(ls, r, s), rule, NULL);
		if (listen_tcp_options(LISTEN_FD(ls, r, s), rule, &fresh, err,
		    errlen) == -1)
			return -1;
	}
	return 0;
}

/* A Unix listener's file as the rule says: mode, owner, group. */
static void
rule_unix_file(const struct rule *rule, struct sock_unix_file *f)
{
	f->mode = rule->unix_sock.mode;
	f->uid = rule->unix_sock.owner == -1 ? (uid_t)-1 :
	    (uid_t)rule->unix_sock.owner;
	f->gid = rule->unix_sock.group == -1 ? (gid_t)-1 :
	    (gid_t)rule->unix_sock.group;
}

/*
 * A new shared socket for rule: a Unix one with its file as the rule
 * says, or an IP one without SO_REUSEPORT.
 */
static int
shared_listen(const struct conf *cfg, const struct rule *rule, char *err,
    size_t errlen)
{
	struct sock_unix_file	f;

	if (rule->listen_addr.ss.ss_family != AF_UNIX)
		return sock_listen(&rule->listen_addr, rule_socktype(rule),
		    cfg->backlog, rule->ipv6_only, false, err, errlen);
	rule_unix_file(rule, &f);
	return sock_listen_unix_addr(&rule->listen_addr, cfg->backlog, &f,
	    err, errlen);
}

/*
 * A kept socket: listen() again updates its backlog, if it changed; a
 * Unix socket's file takes the mode, owner and group the rule has now.
 */
static int
keep_shared(int fd, const struct conf *cfg, const struct rule *rule,
    const struct conf *oldcfg, const struct rule *was, char *err,
    size_t errlen)
{
	struct sock_unix_file	 f;
	const char		*path = addr_unix_path(&rule->listen_addr);

	if (keep_backlog(fd, cfg, rule, oldcfg, was, err, errlen) == -1)
		return -1;
	if (path == NULL)
		return 0;
	rule_unix_file(rule, &f);
	return sock_unix_file_set(path, &f, err, errlen);
}

/*
 * One socket shared by the slots: old's (slot 0 is never retired, and is
 * taken over once all is bound), or a new one; every other slot gets a
 * dup() of it, which takes nothing from old.  Unix listeners are always
 * shared: one name is one socket (doc/design-notes.md, "Unix
 * listeners").
 */
static int
rule_open_shared(struct listen_set *ls, const struct conf *cfg, size_t r,
    const struct listen_set *old, const struct conf *oldcfg, int o,
    char *err, size_t errlen)
{
	const struct rule	*rule = &cfg->rules[r];
	int			 sock, s;

	if (o != -1) {
		sock = LISTEN_FD(old, o, 0);
		if (keep_shared(sock, cfg, rule, oldcfg, &oldcfg->rules[o], err,
		    errlen) == -1)
			return -1;
	} else {
		sock = shared_listen(cfg, rule, err, errlen);
		if ((LISTEN_FD(ls, r, 0) = sock) == -1)
			return -1;
		listen_buffers(sock, rule, NULL);
		if (listen_tcp_options(sock, rule, &fresh, err, errlen) == -1)
			return -1;
	}
	for (s = 1; s < ls->nslots; s++)
		if ((LISTEN_FD(ls, r, s) = shared_dup(sock, rule, err,
		    errlen)) == -1)
			return -1;
	return 0;
}

/* Whether a and b's stats_listen are one socket: one path, one address. */
static bool
same_stats_socket(const struct conf *a, const struct conf *b)
{
	if (a->stats_listen == NULL || b->stats_listen == NULL)
		return false;
	if (a->stats_path != NULL || b->stats_path != NULL)
		return a->stats_path != NULL && b->stats_path != NULL &&
		    strcmp(a->stats_path, b->stats_path) == 0;
	return addr_equal(&a->stats_addr, &b->stats_addr);
}

/*
 * stats_listen's socket: one for all workers, bound anew unless old has
 * it (the same address in oldcfg): then taken over with the rest.
 */
static int
stats_open(struct listen_set *ls, const struct conf *cfg,
    const struct listen_set *old, const struct conf *oldcfg, char *err,
    size_t errlen)
{
	if (cfg->stats_listen == NULL)
		return 0;
	if (old != NULL && old->stats_fd != -1 &&
	    same_stats_socket(cfg, oldcfg))
		return 0;
	if (cfg->stats_path != NULL)
		ls->stats_fd = sock_listen_unix(cfg->stats_path, cfg->backlog,
		    NULL, err, errlen);
	else if (sock_probe(&cfg->stats_addr, SOCK_STREAM, true) ==
	    EADDRINUSE) {
		snprintf(err, errlen, "cannot bind %s (stats_listen): address "
		    "in use by another process", cfg->stats_listen);
		return -1;
	} else
		ls->stats_fd = sock_listen(&cfg->stats_addr, SOCK_STREAM,
		    cfg->backlog, true, false, err, errlen);
	return ls->stats_fd == -1 ? -1 : 0;
}

/*
 * An empty set for cfg: every socket -1; spares of old kept in
 * LISTEN_PER_SLOT mode (listen.h); no group steered yet.
 */
static struct listen_set *
listen_set_new(const struct conf *cfg, const struct listen_set *old,
    enum listen_mode mode, char *err, size_t errlen)
{
	struct listen_set	*ls = calloc(1, sizeof(*ls));
	size_t			 i, n;

	if (ls == NULL)
		goto fail;
	ls->nsock = mode == LISTEN_PER_SLOT && old != NULL &&
	    old->nsock > cfg->workers ? old->nsock : cfg->workers;
	n = cfg->nrules * (size_t)ls->nsock;
	ls->fds = malloc((n + 1) * sizeof(int));
	ls->has_steer = calloc(cfg->nrules + 1, sizeof(bool));
	if (ls->fds == NULL || ls->has_steer == NULL)
		goto fail;
	ls->nrules = cfg->nrules;
	ls->nslots = cfg->workers;
	ls->mode = mode;
	ls->stats_fd = -1;
	for (i = 0; i < n; i++)
		ls->fds[i] = -1;
	return ls;
fail:
	if (ls != NULL)
		listen_set_free(ls);
	snprintf(err, errlen, "cannot allocate the listen set: %s",
	    strerror(errno));
	return NULL;
}

struct listen_set *
listen_set_open(const struct conf *cfg, struct listen_set *old,
    const struct conf *oldcfg, enum listen_mode mode, char *err,
    size_t errlen)
{
	struct listen_set *ls;
	struct rule_map   *map = NULL;	/* oldcfg's rules, by address */
	size_t             r;
	int                s, o, *fd;

	if ((ls = listen_set_new(cfg, old, mode, err, errlen)) == NULL)
		return NULL;
	if (old != NULL && (map = conf_rule_map_new(oldcfg)) == NULL) {
		listen_set_free(ls);
		snprintf(err, errlen, "cannot allocate the listen set: %s",
		    strerror(errno));
		return NULL;
	}

	/* First bind what is new, so that a failure leaves old untouched. */
	for (r = 0; r < cfg->nrules; r++) {
		o = old != NULL ? rule_by_listen(map, oldcfg, &cfg->rules[r]) :
		    -1;
		if ((mode == LISTEN_SHARED || listen_is_unix(&cfg->rules[r]) ?
		    rule_open_shared : rule_open_per_slot)(ls, cfg, r, old,
		    oldcfg, o, err, errlen) == -1) {
			conf_rule_map_free(map);
			listen_set_close(ls);
			return NULL;
		}
	}
	if (stats_open(ls, cfg, old, oldcfg, err, errlen) == -1) {
		conf_rule_map_free(map);
		listen_set_close(ls);
		return NULL;
	}
	/* Then take over the rest from old: nothing can fail any more. */
	for (r = 0; r < cfg->nrules && old != NULL; r++) {
		o = rule_by_listen(map, oldcfg, &cfg->rules[r]);
		for (s = 0; o != -1 && s < ls->nsock && s < old->nsock; s++) {
			fd = &LISTEN_FD(old, o, s);
			if (*fd == -1 || LISTEN_FD(ls, r, s) != -1)
				continue;
			LISTEN_FD(ls, r, s) = *fd;
			*fd = -1;
			listen_buffers(LISTEN_FD(ls, r, s), &cfg->rules[r],
			    settings_known(oldcfg) ? &oldcfg->rules[o] : NULL);
			/* The group, and its program, came with slot 0. */
			if (s == 0 && old->has_steer != NULL)
				ls->has_steer[r] = old->has_steer[o];
		}
	}
	if (old != NULL)
		ls->steered = old->steered;
	if (ls->stats_fd == -1 && cfg->stats_listen != NULL) {
		ls->stats_fd = old->stats_fd;	/* stats_open() kept it */
		old->stats_fd = -1;
	}
	conf_rule_map_free(map);
	return ls;
}

/* Fibonacci hashing of the client's port: see steer_group(). */
#define STEER_MULT	2654435761u

_Static_assert(MAX_WORKERS <= LISTEN_SKIP_WORDS * 64, "a skip bit per slot");

/*
 * The slots that get connections: nslots less those in *skip; when that
 * leaves none, all of them (and *skip becomes NULL).
 */
static int
steer_active(int nslots, const bool **skip)
{
	int s, active = nslots;

	for (s = 0; *skip != NULL && s < nslots; s++)
		active -= (*skip)[s];
	if (active == 0) {
		active = nslots;
		*skip = NULL;
	}
	return active;
}

int
listen_slot_of_port(const struct listen_set *ls, unsigned port,
    const bool *skip)
{
	uint32_t	a;
	int		s, active;

	if (ls->mode == LISTEN_SHARED)
		return -1;
	active = steer_active(ls->nslots, &skip);
	a = ((uint32_t)port * STEER_MULT) >> 16;
	a %= (uint32_t)active;
	for (s = 0; skip != NULL && s < ls->nslots; s++)
		if (skip[s] && a >= (uint32_t)s)
			a++;
	/* the slot the kernel's program picks: a live one */
	BUG_ON(a >= (uint32_t)ls->nslots || (skip != NULL && skip[a]));
	return (int)a;
}

#if HAVE_DECL_SO_ATTACH_REUSEPORT_CBPF && defined(HAVE_LINUX_FILTER_H)
/*
 * A = the client's port, read after an IPv4 or IPv6 header without
 * options (a dual-stack IPv6 socket receives both, so the version is read
 * from the packet, not taken from the socket), hashed: Fibonacci hashing,
 * (port * 2654435761) >> 16, whose high half depends on every bit of the
 * port, so that a client's connections spread evenly even though Linux
 * hands out ephemeral ports in steps of two.
 */
static int
steer_by_port(struct sock_filter *code)
{
	int n = 0;

	/* A = the version nibble; IPv4: port at +20, else at +40. */
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS,
	    (uint32_t)SKF_NET_OFF);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K,
	    0xf0);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    0x40, 0, 2);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_ABS,
	    (uint32_t)SKF_NET_OFF + 20);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_ABS,
	    (uint32_t)SKF_NET_OFF + 40);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_MUL | BPF_K,
	    STEER_MULT);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 16);
	return n;
}

/*
 * The kernel numbers a group's sockets in the order they started
 * listening and, when one closes, moves the last into its place.  We bind
 * slots in order, append new slots at the end, and only ever retire the
 * highest slots, so index i is slot i for every slot that stays.
 *
 * The program takes a number, the client port's hash or (steer = "cpu")
 * the CPU that runs it, which is the one that took the SYN, whose worker
 * is pinned there (worker.c), modulo the active slots.  Slots in skip get
 * nothing: it picks among the others, then steps over the skipped
 * indexes.
 */
static int
steer_group(int fd, int nslots, const bool *skip, bool by_cpu)
{
	struct sock_filter code[16 + 2 * MAX_WORKERS];
	struct sock_fprog  prog;
	int                n = 0, s, active = steer_active(nslots, &skip);

	BUG_ON(nslots < 1 || nslots > MAX_WORKERS);	/* code's room */
	/* The kernel copies the whole of both: nothing uninitialised. */
	memset(code, 0, sizeof(code));
	memset(&prog, 0, sizeof(prog));
	if (by_cpu)
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W |
		    BPF_ABS, (uint32_t)SKF_AD_OFF + SKF_AD_CPU);
	else
		n = steer_by_port(code);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_MOD | BPF_K,
	    (uint32_t)active);
	/* The A-th slot not skipped: step over each skipped one below it. */
	for (s = 0; skip != NULL && s < nslots; s++)
		if (skip[s]) {
			code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP |
			    BPF_JGE | BPF_K, (uint32_t)s, 0, 1);
			code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU |
			    BPF_ADD | BPF_K, 1);
		}
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	BUG_ON((size_t)n > sizeof(code) / sizeof(code[0]));
	memset(&prog, 0, sizeof(prog));		/* its padding too */
	prog.len = (unsigned short)n;
	prog.filter = code;
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
	    sizeof(prog));
}

/* The program steer_group() makes of nslots, mode and skip. */
static void
steer_wanted(struct listen_steer *want, int nslots, int mode,
    const bool *skip)
{
	int s;

	memset(want, 0, sizeof(*want));
	want->nslots = nslots;
	want->mode = mode;
	(void)steer_active(nslots, &skip);	/* all skipped: none */
	for (s = 0; skip != NULL && s < nslots; s++)
		if (skip[s])
			want->skip[s / 64] |= (uint64_t)1 << (s % 64);
}

static bool
steer_same(const struct listen_steer *a, const struct listen_steer *b)
{
	return a->nslots == b->nslots && a->mode == b->mode &&
	    memcmp(a->skip, b->skip, sizeof(a->skip)) == 0;
}

int
listen_set_steer(struct listen_set *ls, const struct conf *cfg,
    const bool *skip, char *err, size_t errlen)
{
	const struct rule	*rule;
	struct listen_steer	 want;
	size_t			 r;

	if (ls->mode == LISTEN_SHARED)
		return 0;	/* one queue: nothing to steer */
	steer_wanted(&want, ls->nslots, cfg->steer, skip);
	if (!steer_same(&want, &ls->steered)) {
		ls->steered = want;
		memset(ls->has_steer, 0, ls->nrules * sizeof(bool));
	}
	for (r = 0; r < ls->nrules; r++) {
		rule = &cfg->rules[r];
		if (listen_is_unix(rule) || ls->has_steer[r])
			continue;
		/* A UDP flow must stay with its session's worker: by port. */
		if (steer_group(LISTEN_FD(ls, r, 0), ls->nslots, skip,
		    cfg->steer == STEER_CPU && rule->protocol == RULE_TCP) ==
		    -1) {
			snprintf(err, errlen, "cannot steer connections on %s: "
			    "%s", rule->listen, strerror(errno));
			return -1;
		}
		ls->has_steer[r] = true;
	}
	return 0;
}
#else
int
listen_set_steer(struct listen_set *ls, const struct conf *cfg,
    const bool *skip, char *err, size_t errlen)
{
	(void)cfg;
	(void)skip;
	if (ls->mode == LISTEN_SHARED)
		return 0;	/* one queue: nothing to steer */
	snprintf(err, errlen, "SO_ATTACH_REUSEPORT_CBPF is not supported here");
	return -1;
}
#endif

void
listen_set_close(struct listen_set *ls)
{
	size_t i;

	if (ls == NULL)
		return;
	for (i = 0; i < ls->nrules * (size_t)ls->nsock; i++)
		if (ls->fds[i] != -1)
			close(ls->fds[i]);
	if (ls->stats_fd != -1)
		close(ls->stats_fd);
	listen_set_free(ls);
}
