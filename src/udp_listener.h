/*
 * udp_listener.h - a worker's datagram listeners: receive in batches
 * (recvmmsg), learn each datagram's destination address, and hand it to
 * its session (udp_session.c).
 */
#ifndef FERRYD_UDP_LISTENER_H
#define FERRYD_UDP_LISTENER_H

struct rule;

struct event_loop;
struct udp_listeners;
struct udp_sessions;

struct udp_listeners *udp_listeners_new(struct event_loop *loop,
    struct udp_sessions *sessions);

/*
 * fd is a bound UDP socket of rule, to receive on once started; its
 * sessions reply through it.  0 or -1.
 */
int	udp_listener_add(struct udp_listeners *ul, int fd,
    const struct rule *rule);

/*
 * Start receiving: at once in a first generation, or, after a reload,
 * once the old workers handed their sessions over (IPC_UDP_GO), so that
 * no datagram of a session that is on its way here makes a second one.
 */
void	udp_listeners_start(struct udp_listeners *ul);

/*
 * Stop receiving for good (drain), after forwarding what is queued.  The
 * sockets stay open: the sessions still send their replies through them.
 */
void	udp_listeners_stop(struct udp_listeners *ul);

/*
 * Close every listening socket now (the master is gone: a new ferryd
 * must get the address, and no socket of ours may keep taking a share of
 * its datagrams).  The sessions replying through them are closed first.
 */
void	udp_listeners_close(struct udp_listeners *ul);

#endif
