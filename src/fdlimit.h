/*
 * fdlimit.h - the descriptor budget: what a worker may need at most, and
 * RLIMIT_NOFILE raised to fit it before anything is started.
 */
#ifndef FERRYD_FDLIMIT_H
#define FERRYD_FDLIMIT_H

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
 * Raise RLIMIT_NOFILE to fit both, as far as the hard limit allows (root
 * may raise that too, where it is let).  Returns 0, or -1 with the reason
 * in err when not even the sockets fit.
 */
int    fdlimit_raise(const struct conf *cfg, char *err, size_t errlen);

/*
 * How many pipes a worker of cfg may hold, in use and idle, without
 * touching the descriptors reserved for sockets: what the current limit
 * leaves over, halved (a pipe is two descriptors).
 */
size_t fdlimit_pipe_share(const struct conf *cfg);

#endif
