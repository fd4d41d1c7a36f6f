/*
 * quic_initial.h - read a QUIC client's Initial packets, without
 * terminating the connection, for the ClientHello in them: its server
 * name (SNI) and protocols (ALPN), so that a UDP session can be routed
 * by them.  QUIC v1 (RFC 9000, RFC 9001) and v2 (RFC 9369).
 *
 * The caller keeps a struct quic_initial per undecided session (zero it,
 * or quic_initial_init) and hands it each datagram from the client in
 * turn, until the outcome is final.  The datagrams are not changed (they
 * go on to the backend as they came).  What a session holds is bounded:
 * QUIC_CRYPTO_MAX bytes of the CRYPTO stream (the ClientHello; one with
 * post-quantum key shares is 2 to 3 KiB), QUIC_DATAGRAMS_MAX datagrams.
 */
#ifndef FERRYD_QUIC_INITIAL_H
#define FERRYD_QUIC_INITIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto.h"
#include "probe.h"

#define QUIC_V1			0x00000001u
#define QUIC_V2			0x6b3343cfu
#define QUIC_CID_MAX		20	/* bytes of a v1/v2 connection ID */
#define QUIC_CRYPTO_MAX		16384	/* bytes of the CRYPTO stream kept */
#define QUIC_DATAGRAMS_MAX	32	/* datagrams read before a verdict */

enum quic_outcome {
	QUIC_MORE = 0,		/* not yet: hand over the next datagram */
	QUIC_DECIDED,		/* the ClientHello is read: tls holds it */
	QUIC_NOT_QUIC,		/* no QUIC long header first */
	QUIC_UNKNOWN_VERSION,	/* a version other than v1 and v2 */
	QUIC_VERSION_NEGOTIATION, /* version 0 */
	QUIC_UNDECRYPTABLE,	/* an Initial whose tag does not match */
	QUIC_PROTOCOL_ERROR,	/* malformed, truncated, a frame not
				 * allowed in an Initial, a hello that
				 * does not parse */
	QUIC_TOO_BIG		/* past QUIC_CRYPTO_MAX or
				 * QUIC_DATAGRAMS_MAX */
};

/* The keys of the client's Initial packets, from its first DCID. */
struct quic_keys {
	struct aes128	aead;		/* AES-128-GCM's key */
	struct aes128	hp;		/* header protection's */
	uint8_t		iv[GCM_IV];
};

struct quic_initial {
	enum quic_outcome outcome;	/* the last, final if not MORE */
	uint32_t	version;	/* of the first Initial, once seen */
	bool		keyed;		/* keys derived, CIDs below set */
	uint8_t		dcid_len, scid_len;
	uint8_t		dcid[QUIC_CID_MAX];	/* the client's first */
	uint8_t		scid[QUIC_CID_MAX];	/* the client's own */
	uint32_t	datagrams;	/* handed over */
	uint32_t	initials;	/* Initial packets decrypted */
	int64_t		largest_pn;	/* of them; -1 before the first */
	struct quic_keys keys;
	size_t		hello_end;	/* CRYPTO bytes in from 0 on */
	uint8_t		crypto[QUIC_CRYPTO_MAX];
	uint8_t		have[QUIC_CRYPTO_MAX / 8];	/* bit per byte in */
	struct probe_tls tls;		/* results, after QUIC_DECIDED */
};

void quic_initial_init(struct quic_initial *q);

/* The client's Initial keys for a version and DCID (RFC 9001 5.2, RFC
 * 9369 3.3); false for a version not read. */
bool quic_initial_keys(struct quic_keys *k, uint32_t version,
    const uint8_t *dcid, size_t len);

/*
 * Read one datagram from the client (len bytes, not changed): its
 * coalesced packets in order, the Initial ones decrypted and their
 * CRYPTO data kept, the others (0-RTT, Handshake) skipped.  Once the
 * outcome is final, later calls return it again without reading.
 */
enum quic_outcome quic_initial_datagram(struct quic_initial *q,
    const uint8_t *dgram, size_t len);

/* A word for logs and tests: "more", "decided", "not-quic", ... */
const char *quic_outcome_name(enum quic_outcome o);

#endif
