/*
 * quic_seal.c - a QUIC client's packets sealed as RFC 9001 5.3 and 5.4
 * say, with crypto.c and quic_initial.c's keys: what test_quic.c and
 * fuzz_quic.c need that real clients do not send on demand (a hello
 * over several packets, shuffled frames, coalesced packets, v2).
 */
#include "ferryd.h"

#include <string.h>

#include "crypto.h"
#include "quic_initial.h"
#include "quic_seal.h"

/* The long packet type's bits (RFC 9000 17.2, RFC 9369 3.2). */
static uint8_t
long_type(const struct quic_packet *pkt)
{
	if (pkt->version == QUIC_V2)
		return pkt->zero_rtt ? 2 : 1;
	return pkt->zero_rtt ? 1 : 0;
}

/* Header protection (RFC 9001 5.4.1): the sample starts 4 bytes past the
 * packet number's start, whatever its length. */
static void
protect_header(const struct quic_keys *k, uint8_t *p, size_t pn_off,
    size_t pn_len)
{
	uint8_t	mask[AES_BLOCK];
	size_t	i;

	aes128_encrypt(&k->hp, p + pn_off + 4, mask);
	p[0] ^= mask[0] & 0x0f;
	for (i = 0; i < pn_len; i++)
		p[pn_off + i] ^= mask[1 + i];
}

size_t
quic_seal(const struct quic_packet *pkt, uint8_t *out, size_t size)
{
	struct quic_keys	k;
	uint8_t			nonce[GCM_IV];
	size_t			at = 0, rest, i;
	bool			initial = !pkt->zero_rtt;

	rest = pkt->pn_len + pkt->len + (initial ? GCM_TAG : 0);
	if (!quic_initial_keys(&k, pkt->version, pkt->dcid, pkt->dcid_len) ||
	    pkt->pn_len < 1 || pkt->pn_len > 4 || rest > 0x3fff ||
	    pkt->dcid_len > QUIC_CID_MAX || pkt->scid_len > QUIC_CID_MAX ||
	    size < 12 + pkt->dcid_len + pkt->scid_len + rest)
		return 0;
	out[at++] = (uint8_t)(0xc0 | long_type(pkt) << 4 | (pkt->pn_len - 1));
	for (i = 0; i < 4; i++)
		out[at++] = (uint8_t)(pkt->version >> (24 - 8 * i));
	out[at++] = (uint8_t)pkt->dcid_len;
	memcpy(out + at, pkt->dcid, pkt->dcid_len);
	at += pkt->dcid_len;
	out[at++] = (uint8_t)pkt->scid_len;
	memcpy(out + at, pkt->scid, pkt->scid_len);
	at += pkt->scid_len;
	if (initial)
		out[at++] = 0;		/* no token */
	out[at++] = (uint8_t)(0x40 | rest >> 8);	/* 2-byte Length */
	out[at++] = (uint8_t)rest;
	for (i = 0; i < pkt->pn_len; i++)
		out[at + i] = (uint8_t)(pkt->pn >> (8 * (pkt->pn_len - 1 - i)));
	if (!initial) {
		memcpy(out + at + pkt->pn_len, pkt->payload, pkt->len);
		return at + rest;
	}
	memcpy(nonce, k.iv, GCM_IV);
	for (i = 0; i < 4; i++)
		nonce[GCM_IV - 1 - i] ^= (uint8_t)(pkt->pn >> (8 * i));
	aes128_gcm_encrypt(&k.aead, nonce, out, at + pkt->pn_len, pkt->payload,
	    pkt->len, out + at + pkt->pn_len, out + at + rest - GCM_TAG);
	if (pkt->pn_len + pkt->len >= 4)	/* else no sample: sent as is */
		protect_header(&k, out, at, pkt->pn_len);
	return at + rest;
}
