/*
 * relay.h - forwarded connections: connect to the backend, move bytes
 * both ways, propagate half-close and resets, enforce timeouts.
 *
 * A worker owns one struct relay, which owns its connections: it knows
 * nothing of the worker above it, and tells it of a shortage of
 * descriptors or memory by its return value.
 */
#ifndef FERRYD_RELAY_H
#define FERRYD_RELAY_H

#include <stdint.h>

#include "conf.h"

struct event_loop;
struct pool;
struct relay;

/* Connections relayed in loop with buffers and pipes from pool. */
struct relay *relay_new(struct event_loop *loop, struct pool *pool,
    const struct conf *cfg);

/* How many connections are open. */
int     relay_count(const struct relay *rl);

/*
 * Take over client_fd (accepted, non-blocking), from peer, for rule:
 * check allow/deny, start the backend connection.  Returns 0, also when
 * the client was refused or no backend could be reached (both logged and
 * closed); -1 with errno (EMFILE, ENFILE, ENOBUFS, ENOMEM) when it was
 * closed for want of descriptors or memory, and accepting more would
 * only fail the same way.
 */
int     relay_start(struct relay *rl, int client_fd, const struct rule *rule,
    const struct sockaddr_any *peer);

/*
 * Close client_fd at once, without a backend: denied by allow/deny, or
 * over max_connections (result says which).  Counted, logged, and written
 * to the access log.
 */
void    relay_refuse(struct relay *rl, int client_fd, const struct rule *rule,
    const struct sockaddr_any *peer, const char *result);

/* Close every connection at once (fast stop, drain timeout). */
void    relay_close_all(struct relay *rl, const char *reason);

#endif
