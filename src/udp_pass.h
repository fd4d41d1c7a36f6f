/*
 * udp_pass.h - datagrams passed from worker to worker at a reload that
 * changes the number of workers (ipc.h: IPC_UDP_PASS and what follows).
 *
 * Once the master has said so, an old worker makes no new session: a
 * datagram it has none for may belong to a session another old worker
 * holds, so it goes to the master, which passes it to the new worker
 * that will hold that client's session (the same choice as for handed
 * over sessions).  The new worker keeps such datagrams, in order, until
 * it may receive (IPC_UDP_GO), when every session has reached it; then
 * each goes to its session like a datagram just received.
 */
#ifndef FERRYD_UDP_PASS_H
#define FERRYD_UDP_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/queue.h>
#include <sys/uio.h>

struct udp_from;
struct udp_pass;

/* What precedes a passed datagram's bytes in IPC_UDP_DATAGRAM. */
struct udp_passed {
	uint32_t		rule;		/* as in struct udp_handover */
	uint32_t		client_len;
	struct sockaddr_in6	client;		/* or a sockaddr_in */
	struct in6_addr		local;
	int32_t			ifindex;
	uint32_t		len;		/* bytes that follow */
};

/* A passed datagram's message, at most (its header, the bytes). */
#define UDP_PASSED_MAX	(sizeof(struct udp_passed) + 65536)

/*
 * The message (into msg, UDP_PASSED_MAX bytes) that passes datagram
 * iov, received as from says, of rule number rule: its length, or 0
 * (too big).
 */
size_t	udp_passed_make(char *msg, uint32_t rule, const struct udp_from *from,
    const struct iovec *iov);

/* The most a new worker keeps before it may receive: past it, dropped. */
#define UDP_PASS_KEPT_MAX	(16 * 1024 * 1024)

void	udp_pass_init(struct udp_pass *p);

/*
 * Pass the datagram iov, received as from says, of rule number rule,
 * over p->chan.  0, or -1 (the channel stayed full: it is lost).
 */
int	udp_pass_send(struct udp_pass *p, uint32_t rule,
    const struct udp_from *from, const struct iovec *iov);

/*
 * n datagrams (iov) without a session, while this old worker passes them
 * on: their client's session may be another old worker's, so the new
 * worker that will hold it gets them.  Returns how many were lost.
 */
int	udp_pass_run(struct udp_pass *p, uint32_t rule,
    const struct udp_from *from, const struct iovec *iov, int n);

/* The client port of a passed datagram, in host order. */
unsigned udp_passed_port(const struct udp_passed *h);

/*
 * Forward a passed datagram (IPC_UDP_DATAGRAM's len bytes at msg) as if
 * this worker had received it, for arg (udp_handover.c's sessions): false
 * if it cannot be (malformed, its rule has no listener here).  Passing
 * knows no session, so that the session table may pass datagrams without
 * a cycle.
 */
typedef bool udp_pass_deliver_fn(void *arg, const char *msg, size_t len);

/*
 * A passed datagram (IPC_UDP_DATAGRAM's len bytes at msg): kept until
 * udp_pass_go, or delivered at once after it.  Returns false when it was
 * dropped (no room, or deliver said so).
 */
bool	udp_pass_take(struct udp_pass *p, udp_pass_deliver_fn *deliver,
    void *arg, const void *msg, size_t len);

/*
 * The worker may receive: deliver what was kept, in order.  Returns how
 * many could not be.
 */
int	udp_pass_go(struct udp_pass *p, udp_pass_deliver_fn *deliver,
    void *arg);

void	udp_pass_free(struct udp_pass *p);

#endif
