/*
 * udp_io.h - datagrams in batches: a session's to its backend (sendmmsg,
 * or a run of equal size as one UDP_SEGMENT send), the replies read from
 * it (recvmmsg; a run read as one by UDP_GRO kept whole) and sent to its
 * client from the address the client wrote to (IP_PKTINFO,
 * IPV6_PKTINFO).  Datagrams are never merged, split or cut; what cannot
 * be sent is lost, and counted.
 */
#ifndef FERRYD_UDP_IO_H
#define FERRYD_UDP_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

struct backend;
struct rule;

struct stats_backend;
struct udp_from;
struct udp_session;
struct udp_sessions;

/*
 * Lay out the n datagrams iov for sendmmsg in m, each after hdr (hlen
 * bytes) in parts (room for 2n iovecs); with hlen 0, m points at iov
 * itself.  Either way the iovecs of consecutive messages follow each
 * other.
 */
void	udp_datagrams(struct mmsghdr *m, struct iovec *parts,
    const struct iovec *iov, int n, const unsigned char *hdr, size_t hlen);

/*
 * Send n datagrams (iov) to s's UDP backend, each after its PROXY header
 * where the rule sends one.  Returns whether any left: s was active.
 */
bool	udp_io_send(struct udp_session *s, const struct iovec *iov, int n);

/*
 * s's UDP backend (fd) is readable: send what it replied to the client,
 * a bounded number of batches.  Returns how many datagrams were read.
 */
int	udp_io_replies(struct udp_session *s, int fd);

/*
 * Send n replies (iov) to s's client; seg[i] (seg may be NULL), where
 * not 0, says iov[i] is a run of datagrams of that size read as one.
 */
void	udp_io_reply(struct udp_session *s, const struct iovec *iov,
    const uint16_t *seg, int n);

/* k datagrams (iov) of s went to its backend: counted. */
void	udp_io_sent(struct udp_session *s, const struct iovec *iov, int k);

/* n datagrams of rule were not sent on: counted. */
void	udp_io_dropped(const struct rule *rule, uint64_t n);

/* What the counters of s's rule and backend keep of s, which ends. */
void	udp_io_count_end(const struct udp_session *s, int64_t now);

/* The counters of s's backend, or NULL (a backend its rule lost). */
struct stats_backend *udp_io_stats_backend(const struct udp_session *s);

/* send_proxy: the v2 header for s's backend, into buf; its length. */
size_t	udp_io_proxy_header(const struct udp_session *s, unsigned char *buf);

#endif
