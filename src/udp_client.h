/*
 * udp_client.h - a UDP listener's limits per client (udp_client.c).
 */
#ifndef FERRYD_UDP_CLIENT_H
#define FERRYD_UDP_CLIENT_H

#include <stdbool.h>

struct udp_from;
struct udp_session;
struct udp_sessions;

/*
 * Whether a new session for from->client would go over its rule's
 * limits per client: if so it is counted and logged (rate-limited).
 */
bool	udp_client_refused(struct udp_sessions *us,
    const struct udp_from *from);
/*
 * Count s (its rule, client and start set) against its client's limits:
 * what client_limit_release() takes, or -1.
 */
int	udp_client_hold(const struct udp_session *s);
/*
 * Whether allow and deny let from->client make a new session: if not,
 * it is counted and logged (rate-limited).
 */
bool	udp_client_allowed(struct udp_sessions *us,
    const struct udp_from *from);

#endif
