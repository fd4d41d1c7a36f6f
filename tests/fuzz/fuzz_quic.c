/*
 * fuzz_quic.c - libFuzzer harness for the QUIC Initial reader
 * (quic_initial.c) and the cryptography under it (crypto.c).  An input
 * is a client's datagrams, each a record:
 *
 *	kind (1 byte), length (2 bytes, big-endian), that many bytes
 *
 * kind bit 0 clear: the bytes are a datagram as is.  Set: they are an
 * Initial's plaintext frames, sealed here (quic_seal.c: version v2 if
 * kind bit 1, else v1; packet number kind >> 4, in (kind >> 2 & 3) + 1
 * bytes) with a fixed DCID, so that the fuzzer reaches the frame walker
 * and the CRYPTO reassembly behind the tag check; a record of kind 0xff
 * adds an Initial of its frames (v1, packet number 0 in one byte) to the
 * previous datagram, coalesced, instead.
 *
 * Each datagram is an exact copy (a byte read past it is caught), and
 * must come back unchanged; besides the sanitizers' checks, the outcome
 * must hold together: known, final once not QUIC_MORE (a later datagram
 * gets it again), the hello within its buffer, and the TLS results
 * within their arrays after QUIC_DECIDED.
 *
 * make fuzz FUZZ_SECONDS=N runs it with clang's libFuzzer; make check
 * replays the corpus in tests/fuzz/quic with any compiler (replay.c).
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "quic_initial.h"
#include "../kit/quic_seal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DGRAM_MAX	65536
#define KIND_COALESCE	0xff

static struct quic_initial	q;
static uint8_t			dgram[DGRAM_MAX];
static const uint8_t		dcid[8] = { 0x83, 0x94, 0xc8, 0xf0, 0x3e,
    0x51, 0x57, 0x08 };
static const uint8_t		scid[3] = { 0xa1, 0xa2, 0xa3 };

/* A record's packet sealed at dgram + at: its length (0 if none). */
static size_t
seal(uint8_t kind, const uint8_t *frames, size_t len, size_t at)
{
	struct quic_packet	pkt = { kind & 2 ? QUIC_V2 : QUIC_V1, false,
	    dcid, scid, sizeof(dcid), sizeof(scid), (uint32_t)kind >> 4,
	    (size_t)(kind >> 2 & 3) + 1, frames, len };

	return quic_seal(&pkt, dgram + at, DGRAM_MAX - at);
}

static bool
tls_results_ok(const struct probe_tls *tls)
{
	int	i;

	if (tls->nalpn < 0 || tls->nalpn > PROBE_ALPN_MAX ||
	    (tls->has_sni && memchr(tls->sni, '\0', sizeof(tls->sni)) == NULL))
		return false;
	for (i = 0; i < tls->nalpn; i++)
		if (memchr(tls->alpn[i], '\0', PROBE_ALPN_LEN) == NULL)
			return false;
	return true;
}

/* Hand dgram[0..len) over as an exact copy; abort on a broken promise. */
static void
deliver(size_t len)
{
	enum quic_outcome	before = q.outcome, o;
	uint8_t			*copy = malloc(len > 0 ? len : 1);

	if (copy == NULL)
		return;
	memcpy(copy, dgram, len);
	o = quic_initial_datagram(&q, copy, len);
	if (memcmp(copy, dgram, len) != 0 || o != q.outcome ||
	    o > QUIC_TOO_BIG || (before != QUIC_MORE && o != before) ||
	    q.hello_end > QUIC_CRYPTO_MAX || q.dcid_len > QUIC_CID_MAX ||
	    q.scid_len > QUIC_CID_MAX ||
	    (o == QUIC_DECIDED && !tls_results_ok(&q.tls)))
		abort();
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t	at = 0, len = 0, n, k;
	uint8_t	kind;

	quic_initial_init(&q);
	while (at + 3 <= size) {
		kind = data[at];
		n = (size_t)data[at + 1] << 8 | data[at + 2];
		at += 3;
		if (n > size - at)
			n = size - at;
		if (kind == KIND_COALESCE && len > 0) {
			len += seal(0, data + at, n, len);
		} else {
			if (len > 0)
				deliver(len);
			if (kind & 1) {
				len = seal(kind, data + at, n, 0);
			} else {
				memcpy(dgram, data + at, n);
				len = n;
			}
		}
		at += n;
	}
	if (len > 0)
		deliver(len);
	/* The prefix said to be in is all there. */
	for (k = 0; k < q.hello_end && k < QUIC_CRYPTO_MAX; k++)
		if ((q.have[k / 8] & 1u << (k % 8)) == 0)
			abort();
	return 0;
}
