/*
 * tcp_session.h - forwarded TCP connections, from the accepted client
 * socket to the close.  A worker owns one struct tcp_sessions, which owns
 * its sessions: it knows nothing of the worker above it, and tells it of
 * a shortage of descriptors or memory by its return value.
 *
 * A session moves through explicit states:
 *
 *	CONNECTING --(backend connected)--> RELAYING --> CLOSING
 *	     \___________(no backend, timeout, error)______/
 *
 * and is closed only when it is CLOSING, at the end of whatever handler
 * put it there (a deferred close): no function below the handler frees
 * it, so none has to say "the object is gone" by its return value.
 */
#ifndef FERRYD_TCP_SESSION_H
#define FERRYD_TCP_SESSION_H

#include "addr.h"

struct rule;

struct event_loop;
struct pool;
struct session_list;
struct tcp_sessions;

/*
 * Sessions relayed in loop with buffers and pipes from pool, counted in
 * their rules' and backends' counters (stats.h).
 */
struct tcp_sessions *tcp_sessions_new(struct event_loop *loop,
    struct pool *pool);

/* How many sessions are open. */
int	tcp_sessions_count(const struct tcp_sessions *ts);

/*
 * A client of an accept_proxy rule, once its header was read or found
 * absent ("optional"; tcp_proxy_wait.c): when it was accepted, the
 * address it connected to as the header said (NULL: its socket's own),
 * and the header's bytes as they came, for send_proxy = "pass" (NULL, 0:
 * it sent none).
 */
struct tcp_proxied {
	int64_t				 accepted;
	const struct sockaddr_any	*local;
	const unsigned char		*header;
	size_t				 header_len;
};

/*
 * Take over client_fd (accepted, non-blocking, allowed in), from peer,
 * for rule, and start connecting to its upstream; proxied: what a PROXY
 * header said (NULL: the rule takes none).  Returns 0, also when
 * no backend could be reached (logged and closed); -1 with errno (EMFILE,
 * ENFILE, ENOBUFS, ENOMEM) when it was closed for want of descriptors or
 * memory, and accepting more would only fail the same way.
 */
int	tcp_session_start(struct tcp_sessions *ts, int client_fd,
    const struct rule *rule, const struct sockaddr_any *peer,
    const struct tcp_proxied *proxied);

/*
 * Close client_fd at once, without a backend: denied by allow/deny, or
 * over max_connections, max_connections_per_client or connection_rate
 * (result, an ACCESSLOG_ word, says which).
 * Counted, logged at debug level, and written to the access log.
 */
void	tcp_session_refuse(struct tcp_sessions *ts, int client_fd,
    const struct rule *rule, const struct sockaddr_any *peer,
    const char *result);

/*
 * Each open connection of l's rules (TCP-to-UDP ones too) copied into l
 * ("show sessions"), or counted past its room.
 */
void	tcp_sessions_list(const struct tcp_sessions *ts,
    struct session_list *l);

/* Close every session at once (fast stop, drain timeout). */
void	tcp_sessions_close_all(struct tcp_sessions *ts, const char *reason);

/* Close every session and free ts. */
void	tcp_sessions_free(struct tcp_sessions *ts);

#endif
