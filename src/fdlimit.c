/*
 * fdlimit.c - counting and raising the descriptor limit.
 *
 * Running out of descriptors mid-flight pauses accepting on every rule of
 * a worker, so the limit must cover the worst case of max_connections,
 * not the common one: splice pipes included.
 */
#include "ferryd.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "fdlimit.h"
#include "pool.h"
#include "rule.h"
#include "sock.h"
#include "tcp_relay.h"

#define FDLIMIT_MARGIN	64	/* loop, signal pipe, logs, channel */

/* Whether any rule of cfg may move bytes with splice(2) and pipes. */
static bool
conf_splices(const struct conf *cfg)
{
#ifdef HAVE_SPLICE
	size_t i;

	for (i = 0; i < cfg->nrules; i++)
		if (cfg->rules[i].splice != SPLICE_OFF)
			return true;
#else
	(void)cfg;
#endif
	return false;
}

rlim_t
fdlimit_sockets(const struct conf *cfg)
{
	return (rlim_t)cfg->max_connections * 2 + cfg->nrules * cfg->workers +
	    FDLIMIT_MARGIN;
}

/* Where the ephemeral ports are read, and what is assumed without it. */
#define PORT_RANGE_FILE	"/proc/sys/net/ipv4/ip_local_port_range"
#define PORT_RANGE_LO	32768	/* Linux's default range */
#define PORT_RANGE_HI	60999

/* The host's ephemeral ports, lo to hi; false where they are assumed. */
static bool
port_range(unsigned *lo, unsigned *hi)
{
	FILE	*f;
	bool	 ok;

	*lo = PORT_RANGE_LO;
	*hi = PORT_RANGE_HI;
	if ((f = fopen(PORT_RANGE_FILE, "re")) == NULL)
		return false;
	ok = fscanf(f, "%u %u", lo, hi) == 2 && *lo <= *hi && *hi <= 65535;
	fclose(f);
	if (!ok) {
		*lo = PORT_RANGE_LO;
		*hi = PORT_RANGE_HI;
	}
	return ok;
}

/* What the current descriptor limit leaves for UDP beyond TCP's. */
static rlim_t
udp_descriptors(const struct conf *cfg)
{
	struct rlimit	rl;
	rlim_t		sockets = fdlimit_sockets(cfg);

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return 0;
	if (rl.rlim_max == RLIM_INFINITY)
		return (rlim_t)INT_MAX;
	return rl.rlim_max > sockets ? rl.rlim_max - sockets : 0;
}

/*
 * The fewest source addresses a rule's UDP sessions to one backend leave
 * from: each has the whole range of ports (source pools, 1 without).
 */
static unsigned
udp_source_spread(const struct conf *cfg)
{
	unsigned	least = 0, n;
	size_t		i, j;

	for (i = 0; i < cfg->nrules; i++) {
		const struct upstream *u = &cfg->rules[i].upstream;

		if (cfg->rules[i].connect_protocol != RULE_UDP)
			continue;
		for (j = 0; j < u->nbackends; j++) {
			n = u->backends[j].pool != NULL ?
			    u->backends[j].pool->n : 1;
			if (least == 0 || n < least)
				least = n;
		}
	}
	return least == 0 ? 1 : least;
}

/*
 * The sessions the host's ports allow one worker of cfg (at least 1),
 * before the descriptor limit is looked at; why as fdlimit_udp_sessions.
 */
static int
udp_port_share(const struct conf *cfg, char *why, size_t whylen)
{
	unsigned	lo, hi, ports, spread;
	int		share;
	bool		read;

	read = port_range(&lo, &hi);
	ports = hi - lo + 1;
	spread = udp_source_spread(cfg);
	share = (int)((uint64_t)ports / 2 * spread / (unsigned)cfg->workers);
	if (why != NULL) {
		char each[48] = "";

		if (spread > 1)
			snprintf(each, sizeof(each), " on each of %u source "
			    "addresses", spread);
		snprintf(why, whylen, "half of the host's %u ephemeral ports "
		    "(%u-%u%s)%s over %d worker(s)", ports, lo, hi, read ?
		    "" : ", assumed", each, cfg->workers);
	}
	return share < 1 ? 1 : share;
}

int
fdlimit_udp_sessions(const struct conf *cfg, char *why, size_t whylen,
    bool *cut)
{
	char	ports[192];
	rlim_t	fds;
	int	share;

	*cut = false;
	if (!conf_has_udp(cfg)) {
		if (why != NULL)
			snprintf(why, whylen, "no UDP rule");
		return 0;
	}
	share = udp_port_share(cfg, ports, sizeof(ports));
	fds = udp_descriptors(cfg);
	if (fds >= (rlim_t)share) {
		if (why != NULL)
			snprintf(why, whylen, "%s", ports);
		return share;
	}
	*cut = true;
	if (why != NULL)
		snprintf(why, whylen, "not %s (%d): the descriptor limit "
		    "leaves %llu once the %llu descriptors of max_connections "
		    "= %d are reserved; raise the hard limit (LimitNOFILE=, "
		    "ulimit -Hn) or lower max_connections", ports, share,
		    (unsigned long long)fds,
		    (unsigned long long)fdlimit_sockets(cfg),
		    cfg->max_connections);
	return (int)fds;
}

rlim_t
fdlimit_pipes(const struct conf *cfg)
{
	if (!conf_splices(cfg))
		return 0;
	return (rlim_t)cfg->max_connections * 4 + 2 * POOL_PIPES_MAX;
}

/* Set the soft limit to want, and the hard one if it must and may. */
static int
set_limit(struct rlimit *rl, rlim_t want)
{
	struct rlimit try = *rl;

	try.rlim_cur = want;
	if (rl->rlim_max != RLIM_INFINITY && rl->rlim_max < want)
		try.rlim_max = want;
	if (setrlimit(RLIMIT_NOFILE, &try) == -1)
		return -1;
	*rl = try;
	return 0;
}

/* What the descriptors of cfg's processes need, pipes and UDP included. */
static rlim_t
fdlimit_want(const struct conf *cfg)
{
	/*
	 * The ports' share of UDP sessions, not what today's limit leaves
	 * of it: that is what this raises.
	 */
	return fdlimit_sockets(cfg) + fdlimit_pipes(cfg) +
	    (conf_has_udp(cfg) ? (rlim_t)udp_port_share(cfg, NULL, 0) : 0);
}

/*
 * The hard limit max leaves no room for cfg's max_connections: lower
 * it to what fits, as a forwarder that serves fewer clients beats one
 * that does not start (sslh degrades likewise).  1 with the warning in
 * err, or -1 when not even one connection fits.
 */
static int
fdlimit_lower(struct conf *cfg, rlim_t max, char *err, size_t errlen)
{
	rlim_t	fixed = fdlimit_sockets(cfg) -
	    (rlim_t)cfg->max_connections * 2;
	int	was = cfg->max_connections;

	if (max < fixed + 2) {
		snprintf(err, errlen, "the hard limit of %llu file descriptors "
		    "leaves no room for a connection (%llu are needed besides; "
		    "raise it with ulimit -Hn or LimitNOFILE)",
		    (unsigned long long)max, (unsigned long long)fixed);
		return -1;
	}
	cfg->max_connections = (int)((max - fixed) / 2);
	snprintf(err, errlen, "max_connections lowered from %d to %d: the "
	    "hard limit of %llu file descriptors leaves room for no more "
	    "(raise it with ulimit -Hn or LimitNOFILE)", was,
	    cfg->max_connections, (unsigned long long)max);
	return 1;
}

int
fdlimit_raise(struct conf *cfg, char *err, size_t errlen)
{
	struct rlimit rl;
	rlim_t        want = fdlimit_want(cfg);
	int           lowered = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		snprintf(err, errlen, "getrlimit: %s", strerror(errno));
		return -1;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= want)
		return 0;
	if (set_limit(&rl, want) == 0)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < fdlimit_sockets(cfg)) {
		if ((lowered = fdlimit_lower(cfg, rl.rlim_max, err,
		    errlen)) == -1)
			return -1;
		want = fdlimit_want(cfg);
	}
	/* The sockets fit under the hard limit; pipes get what is left. */
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
		want = rl.rlim_max;
	if (set_limit(&rl, want) == -1) {
		snprintf(err, errlen, "cannot raise the file descriptor limit "
		    "to %llu: %s", (unsigned long long)want, strerror(errno));
		return -1;
	}
	return lowered;
}

size_t
fdlimit_pipe_share(const struct conf *cfg, int udp_budget)
{
	struct rlimit rl;
	rlim_t        taken = fdlimit_sockets(cfg) + (rlim_t)udp_budget;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur <= taken)
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY)
		return POOL_PIPES_MAX + 2 * (size_t)cfg->max_connections;
	return (size_t)((rl.rlim_cur - taken) / 2);
}
