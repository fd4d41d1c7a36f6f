/*
 * udp_cid.h - UDP sessions that follow a QUIC client to a new address
 * (NAT rebinding, migration): the connection IDs a session's packets
 * carry in clear are learned, and a datagram from an unknown address
 * whose Destination Connection ID is one of a live session's goes to
 * that session, which is moved to the new address (udp_cid.c).
 *
 * What is learned: the Destination CID of the client's long-header
 * packets (its first Initial's, chosen by the client) and of its short
 * ones (as long as the server's CIDs), the Source CID of the backend's
 * long-header replies (the server's, which the client then sends to).
 * CIDs the server issues in NEW_CONNECTION_ID frames are encrypted: a
 * client that moves to one of those is not followed.
 */
#ifndef FERRYD_UDP_CID_H
#define FERRYD_UDP_CID_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* CIDs shorter than this are not learned (too easily matched by chance). */
#define UDP_CID_MIN		4
/* CIDs a session keeps: a new one replaces its oldest. */
#define UDP_CID_PER_SESSION	4
/* CIDs a worker keeps in all: past that, new ones are not learned. */
#define UDP_CIDS_MAX		16384

struct udp_from;
struct udp_key;
struct udp_session;

/*
 * New session s's first datagram d (len bytes): a QUIC v1 or v2 long
 * header starts its following, with the client's first DCID.
 */
void	udp_cid_start(struct udp_session *s, const uint8_t *d, size_t len);

/*
 * The client of followed s sent n datagrams (iov): a DCID it switched to
 * is learned (the last datagram's).
 */
void	udp_cid_client(struct udp_session *s, const struct iovec *iov, int n);

/*
 * Followed s's backend sent n replies (iov; seg[i], where not 0, the
 * size of the datagrams iov[i] holds, read as one): the Source CID of
 * each long header is learned.
 */
void	udp_cid_replies(struct udp_session *s, const struct iovec *iov,
    const uint16_t *seg, int n);

/*
 * A datagram d (len bytes) from an address with no session (from, its
 * key k and hash h): the active UDP-to-UDP session whose CID its DCID
 * is, moved to from's address (counted, said), or NULL.
 */
struct udp_session *udp_cid_follow(const struct udp_from *from,
    const struct udp_key *k, uint32_t h, const uint8_t *d, size_t len);

/*
 * The active UDP-to-UDP session of rule number rule whose CID the DCID
 * of datagram d (len bytes) is, or NULL: another worker asks for it.
 */
struct udp_session *udp_cid_session(uint32_t rule, const uint8_t *d,
    size_t len);

/* s ends, or leaves this worker: its CIDs go. */
void	udp_cid_forget(struct udp_session *s);

/*
 * A session's CIDs as a reload carries them to its new worker
 * (udp_handover.c): len[i] 0 where there is none, the oldest first.
 */
struct udp_cid_carry {
	uint8_t		short_len;	/* the server's CIDs' length, or 0 */
	uint8_t		len[UDP_CID_PER_SESSION];
	uint8_t		pad[3];
	uint8_t		id[UDP_CID_PER_SESSION][20];
};

/* s's CIDs into c (zeroed when s has none). */
void	udp_cid_pack(const struct udp_session *s, struct udp_cid_carry *c);
/* Adopted s (in the table) learns what c carries. */
void	udp_cid_unpack(struct udp_session *s, const struct udp_cid_carry *c);

#endif
