/*
 * udp_listener.h - a worker's datagram listeners: receive in batches
 * (recvmmsg), learn each datagram's destination address, and hand it to
 * its session (udp_session.c).
 */
#ifndef FERRYD_UDP_LISTENER_H
#define FERRYD_UDP_LISTENER_H

#include "conf.h"

struct event_loop;
struct udp_listeners;
struct udp_sessions;

struct udp_listeners *udp_listeners_new(struct event_loop *loop,
    struct udp_sessions *sessions);

/* Receive on fd (a bound UDP socket of rule) from now on; 0 or -1. */
int	udp_listener_add(struct udp_listeners *ul, int fd,
    const struct rule *rule);

/*
 * Stop receiving for good (drain).  The sockets stay open: the sessions
 * still send their replies through them.
 */
void	udp_listeners_stop(struct udp_listeners *ul);

#endif
