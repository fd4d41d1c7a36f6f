/*
 * master_follow.h - where the master sends a UDP session, or a
 * datagram of one, between workers (master_follow.c): to the new
 * generation at a reload, and, for a moved QUIC client's session
 * (udp_follow.h), the asks and answers between the workers of a
 * generation.
 */
#ifndef FERRYD_MASTER_FOLLOW_H
#define FERRYD_MASTER_FOLLOW_H

#include <stdint.h>

struct child;
struct ipc_msg;
struct master;

/* The current generation's worker of slot, or NULL. */
struct child *master_worker_of(struct master *m, int slot);
/*
 * Where a session (or a datagram of one) of an old worker (from) goes:
 * the new worker that the kernel gives the datagrams of a client at
 * port to.  *rule, the old configuration's rule number, becomes the new
 * one's.  NULL, with *slot -1, when the rule is gone (and the session
 * with it); NULL with the slot when its worker is not running.
 */
struct child *master_new_home(struct master *m, const struct child *from,
    uint32_t *rule, unsigned port, int *slot);

/*
 * IPC_UDP_FOLLOW from from: passed on to the worker asked, the asker's
 * slot and pid written in; refused at once for it when that worker is
 * not there to ask.
 */
void	master_follow_ask(struct master *m, const struct child *from,
    struct ipc_msg *msg);

/*
 * IPC_UDP_FOLLOWED from from, the worker asked: to the worker that
 * asked, or, when that one cannot take it (a reload came in between,
 * it died, its channel stays full), the session to the worker its
 * client's datagrams go to now.  The descriptor is the caller's to
 * close.
 */
void	master_follow_answer(struct master *m, const struct child *from,
    struct ipc_msg *msg);

#endif
