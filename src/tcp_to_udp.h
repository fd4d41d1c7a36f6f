/*
 * tcp_to_udp.h - TCP clients of a UDP backend (protocol = "tcp",
 * connect_protocol = "udp"): per connection a UDP socket connected to the
 * backend.  The client's bytes leave as datagrams and the backend's
 * datagrams come back into the stream, as the rule's framing says
 * (framing.h).  A connection ends when the client closes (replies still
 * on their way get a moment) or after session_timeout of silence.
 *
 * tcp_session.c owns one struct tcp_to_udp and hands it the connections
 * of such rules; counts and shutdowns include them.
 */
#ifndef FERRYD_TCP_TO_UDP_H
#define FERRYD_TCP_TO_UDP_H

#include "addr.h"

struct rule;

struct event_loop;
struct session_list;
struct tcp_to_udp;

/* Counted in their rules' and backends' counters (stats.h). */
struct tcp_to_udp *tcp_to_udp_new(struct event_loop *loop);

/*
 * Take over client_fd (accepted, allowed in) from peer for rule; each
 * datagram to the backend goes after proxy (proxy_len bytes, at most
 * PROXY_HEADER_MAX; 0: no header).  0, also when no backend could be
 * had (logged, closed); -1 with errno when it was closed for want of
 * descriptors or memory.
 */
int	tcp_to_udp_start(struct tcp_to_udp *tu, int client_fd,
    const struct rule *rule, const struct sockaddr_any *peer,
    const unsigned char *proxy, size_t proxy_len);

/* How many connections are open. */
int	tcp_to_udp_count(const struct tcp_to_udp *tu);

/* Each open connection of l's rules copied into l (session_list.h). */
void	tcp_to_udp_list(const struct tcp_to_udp *tu, struct session_list *l);

/* Close every connection at once (fast stop, drain timeout). */
void	tcp_to_udp_close_all(struct tcp_to_udp *tu);

/* Close every connection and free tu. */
void	tcp_to_udp_free(struct tcp_to_udp *tu);

#endif
