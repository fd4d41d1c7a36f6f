/*
 * quic_seal.h - build a QUIC client's long header packets as a client
 * does, for test_quic.c and the fuzz harness fuzz_quic.c: an Initial
 * sealed with the keys of its DCID (AES-128-GCM, then header
 * protection), or a 0-RTT packet whose payload is left as given (the
 * reader only skips it).
 */
#ifndef FERRYD_QUIC_SEAL_H
#define FERRYD_QUIC_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct quic_packet {
	uint32_t	 version;	/* QUIC_V1 or QUIC_V2 */
	bool		 zero_rtt;	/* a 0-RTT packet, not an Initial */
	const uint8_t	*dcid, *scid;
	size_t		 dcid_len, scid_len;
	uint32_t	 pn;		/* packet number, */
	size_t		 pn_len;	/* sent in 1 to 4 bytes */
	const uint8_t	*payload;	/* frames, plaintext */
	size_t		 len;
};

/* The packet into out (size bytes): its length, 0 if it does not fit
 * or the version is not one read. */
size_t quic_seal(const struct quic_packet *pkt, uint8_t *out, size_t size);

#endif
