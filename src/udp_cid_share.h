/*
 * udp_cid_share.h - the workers' shared directory of QUIC connection
 * IDs (udp_cid_share.c), so that a worker that receives a moved
 * client's datagram knows which other worker holds its session
 * (udp_follow.h asks it).
 *
 * One partition per worker slot, in memory the master maps before it
 * forks any worker: each partition is written by the worker of its
 * slot alone (no lock), read by the others.  It holds no CID, only
 * fingerprints of the CIDs' hashes (udp_cid_hash), counts of their
 * lengths and rules:
 * a match says "maybe here", which the holder checks against its own
 * table.  A read torn by a concurrent write can only make a false match
 * or miss one datagram's match.
 */
#ifndef FERRYD_UDP_CID_SHARE_H
#define FERRYD_UDP_CID_SHARE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The hash a CID id (len bytes) of rule number rule is known by, here
 * and in the worker's own table (udp_cid.c).
 */
uint32_t udp_cid_hash(uint32_t rule, const uint8_t *id, size_t len);

/*
 * Master, before its first fork: map the directory for slots 0 to
 * nslots - 1 (MAX_WORKERS).  0, or -1 (errno).
 */
int	udp_cid_share_open(int nslots);

/* Master: slot's worker is about to be forked; what it had goes. */
void	udp_cid_share_reset(int slot);

/* Master: the worker pid of slot is gone; what it published goes. */
void	udp_cid_share_gone(int slot, pid_t pid);

/*
 * Worker, at its start: it writes slot's partition from now on (until
 * the master gives the slot to another worker).
 */
void	udp_cid_share_claim(int slot);

/* Worker: its table learned, or forgot, CID hash (len bytes) of rule. */
void	udp_cid_share_add(uint32_t rule, uint32_t hash, size_t len);
void	udp_cid_share_remove(uint32_t rule, uint32_t hash, size_t len);

/*
 * Worker: the first slot after slot after (-1: the first of all), among
 * the first nslots but its own, that may hold a session of rule by the
 * DCID of short-header datagram d (len bytes), or -1.  Several may: a
 * worker that refuses, the next is asked.  Nothing is hashed unless
 * some partition has CIDs of rule.
 */
int	udp_cid_share_holder(uint32_t rule, const uint8_t *d, size_t len,
    int nslots, int after);

#endif
