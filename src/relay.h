/*
 * relay.h - forwarded connections: connect to the backend, move bytes
 * both ways, propagate half-close and resets, enforce timeouts.
 */
#ifndef FERRYD_RELAY_H
#define FERRYD_RELAY_H

#include <stdint.h>

#include "conf.h"

struct worker;

/*
 * Take over client_fd (accepted, non-blocking), from peer, for rule: start
 * the backend connection.  Failures are logged and close the client.
 */
void    relay_start(struct worker *w, int client_fd, const struct rule *rule,
    const struct sockaddr_any *peer);

/*
 * Close client_fd at once, without a backend: denied by allow/deny, or
 * over max_connections (result says which).  Counted, logged, and written
 * to the access log.
 */
void    relay_refuse(struct worker *w, int client_fd, const struct rule *rule,
    const struct sockaddr_any *peer, const char *result);

/* Close every connection of w at once (fast stop, drain timeout). */
void    relay_close_all(struct worker *w, const char *reason);

#endif
