/*
 * fdlimit.h - the descriptor budget: what a worker may need at most, and
 * RLIMIT_NOFILE raised to fit it before anything is started.
 */
#ifndef FERRYD_FDLIMIT_H
#define FERRYD_FDLIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

struct conf;

/*
 * Descriptors one worker of cfg must be able to hold: two sockets per
 * connection up to max_connections, its listening sockets, and a margin
 * for the loop, logs and channels.  Running short of these pauses
 * accepting on every rule, so they are reserved.
 */
rlim_t fdlimit_sockets(const struct conf *cfg);

/*
 * What cfg's workers would like on top: where a rule may splice, two
 * pipes (four descriptors) per connection and the pool's idle pipes.
 * Pipes are a gain, not a need: without one, a connection copies.
 */
rlim_t fdlimit_pipes(const struct conf *cfg);

/*
 * UDP sessions one worker of cfg may hold at once.  Each is a connected
 * socket, so a descriptor and one of the host's ephemeral ports: a flood
 * from many sources must fill ferryd's budget, never the host's ports.
 * By default the workers share half of the host's ephemeral ports
 * (ip_local_port_range); never more than what the descriptor limit
 * leaves once TCP's are reserved (then *cut is set).  0 when cfg has no
 * UDP rule.  why (may be NULL) says how the figure was reached, for the
 * log.
 */
int    fdlimit_udp_sessions(const struct conf *cfg, char *why,
    size_t whylen, bool *cut);

/*
 * Raise RLIMIT_NOFILE to fit sockets, UDP sessions and pipes, as far as
 * the hard limit allows (root may raise that too, where it is let).
 * Returns 0; 1 when the hard limit leaves no room for max_connections,
 * which is lowered to what fits, with the warning to log in err; or -1
 * with the reason in err when not even one connection fits.
 */
int    fdlimit_raise(struct conf *cfg, char *err, size_t errlen);

/*
 * How many pipes a worker of cfg may hold, in use and idle, without
 * touching the descriptors reserved for sockets and for its udp_budget
 * UDP sessions: what the current limit leaves over, halved (a pipe is
 * two descriptors).
 */
size_t fdlimit_pipe_share(const struct conf *cfg, int udp_budget);

#endif
