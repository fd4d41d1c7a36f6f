/*
 * udp_backend.h - a UDP session's socket towards its backend: connected,
 * so that the kernel sorts the replies and reports ICMP errors, which say
 * the backend is unreachable and count against its health.
 */
#ifndef FERRYD_UDP_BACKEND_H
#define FERRYD_UDP_BACKEND_H

#include <stdbool.h>
#include <sys/socket.h>

struct backend;
struct rule;

struct udp_session;

/*
 * A UDP socket connected to the backend the rule's balance picks for
 * client (*used says which, counted open until balance_release()), or
 * -1 with errno.
 */
int	udp_backend_socket(const struct rule *rule,
    const struct sockaddr *client, const struct backend **used);

/* The same for a session, which reads its replies in runs (UDP_GRO). */
int	udp_backend_open(const struct rule *rule,
    const struct sockaddr *client, const struct backend **used);

/*
 * A connected UDP socket's send or receive failed with err: whether that
 * is an ICMP error from the backend (unreachable), which says nothing of
 * the datagram at hand; udp_backend_error counts and logs one, and
 * counts it against b's health (b NULL: a backend the rule lost); any
 * other error it is given is this host's, logged and blamed on nobody.
 */
bool	udp_unreachable(int err);
void	udp_backend_error(const struct rule *rule, const struct backend *b,
    int err);

/*
 * s no longer holds its backend here (closed, or handed over): one
 * session less on it, for the balance and the gauges.
 */
void	udp_backend_release(struct udp_session *s);

/* udp_backend_error for s's backend, if its rule still has it. */
void	udp_backend_session_error(struct udp_session *s, int err);

#endif
