/*
 * tcp_accept.h - a worker's stream listeners: accept in batches, apply
 * allow/deny and max_connections, hand each connection to a session, and
 * pause for a moment when descriptors or memory run out.
 */
#ifndef FERRYD_TCP_ACCEPT_H
#define FERRYD_TCP_ACCEPT_H

struct acl;
struct rule;

struct event_loop;
struct tcp_acceptor;
struct tcp_sessions;

/* The settings an acceptor follows, its configuration's. */
struct tcp_accept_settings {
	const struct acl	*acl;		/* global allow, deny */
	int			 backlog;
	int			 max_connections; /* per worker */
};

/* Accepting in loop, for sessions, as set says. */
struct tcp_acceptor *tcp_acceptor_new(struct event_loop *loop,
    struct tcp_sessions *sessions, const struct tcp_accept_settings *set);

/*
 * Accept from the listening socket fd (non-blocking) for rule, from now
 * on; shared: every worker has it (a Unix listener), so that one of them
 * is woken per connection where the loop can.  Returns 0, or -1 with
 * errno.
 */
int	tcp_acceptor_add(struct tcp_acceptor *acc, int fd,
    const struct rule *rule, bool shared);

/*
 * Stop accepting for good: take what is queued (at most a backlog per
 * socket), then close every listening socket.
 */
void	tcp_acceptor_close(struct tcp_acceptor *acc);

/* Connections waiting for their PROXY header (accept_proxy). */
int	tcp_acceptor_waiting(const struct tcp_acceptor *acc);
/* Close them (the worker stops). */
void	tcp_acceptor_close_waiting(struct tcp_acceptor *acc);

#endif
