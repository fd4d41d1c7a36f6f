/*
 * quic_initial.c - a QUIC client's Initial packets read for the
 * ClientHello they carry, as a router on the path may read them: the
 * keys of Initial packets derive from the Destination Connection ID the
 * packet carries in clear and a salt the RFC publishes (RFC 9001 5.2),
 * so anyone can remove their protection, and nothing is terminated.
 *
 * Per datagram, each coalesced packet (RFC 9000 12.2) in turn:
 *
 *  - the long header (RFC 9000 17.2): version, connection IDs, type;
 *    a version other than v1 and v2 is not read further (the caller's
 *    default route takes it), nor is Version Negotiation (version 0);
 *  - packets other than Initial (0-RTT, Handshake) are skipped by their
 *    Length; a short header packet ends the datagram (it has no length);
 *  - an Initial: keys from the first Initial's DCID and the version's
 *    salt and labels (crypto.c), header protection removed (AES-128 on a
 *    16-byte sample, RFC 9001 5.4), the payload decrypted and its tag
 *    checked (AES-128-GCM, RFC 9001 5.3), the frames walked: PADDING,
 *    PING, ACK, CRYPTO and CONNECTION_CLOSE are what an Initial may hold
 *    (RFC 9000 12.4, Table 3); any other is a protocol error;
 *  - CRYPTO data is kept by offset in a bounded buffer, a byte's first
 *    copy winning (overlaps and retransmissions are not copied twice),
 *    whatever order frames, packets and datagrams come in: browsers
 *    split a ClientHello over packets and shuffle its CRYPTO frames.
 *
 * Once the CRYPTO stream holds a whole handshake message from offset 0,
 * it must be a ClientHello, and ferryd's TLS parser (probe_tls.c) reads
 * it.  Nothing is allocated; the decrypted payload lives in one static
 * buffer for one call (a worker is one thread).  Every length is checked
 * against what holds it before it is used: the reader is fuzzed
 * (tests/fuzz/fuzz_quic.c).
 */
#include "ferryd.h"

#include <string.h>

#include "bug.h"
#include "crypto.h"
#include "quic_initial.h"

/* What differs between the versions read (RFC 9001 5.2, RFC 9369 3). */
struct quic_version {
	uint32_t	version;
	uint8_t		salt[20];
	const char	*key, *iv, *hp;	/* HKDF-Expand-Label's labels */
	uint8_t		initial, retry;	/* long packet types */
};

static const struct quic_version versions[] = {
	{ QUIC_V1, { 0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d,
	    0x17, 0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a },
	    "quic key", "quic iv", "quic hp", 0, 3 },
	{ QUIC_V2, { 0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81,
	    0x93, 0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9 },
	    "quicv2 key", "quicv2 iv", "quicv2 hp", 1, 0 },
};

#define LONG_HEADER	0x80
#define TAG_SAMPLE	16	/* header protection's sample */
#define PN_MAX_LEN	4
#define RESERVED_BITS	0x0c	/* of a long header's first byte */
#define HANDSHAKE_HELLO	1	/* TLS handshake type ClientHello */

enum {
	FRAME_PADDING = 0x00, FRAME_PING = 0x01, FRAME_ACK = 0x02,
	FRAME_ACK_ECN = 0x03, FRAME_CRYPTO = 0x06, FRAME_CLOSE = 0x1c
};

/* An Initial's header and decrypted payload, for one call. */
static uint8_t	plain[65536];

/* Bytes being read: a read past the end marks it bad and gives zeros. */
struct cursor {
	const uint8_t	*p;
	size_t		 left;
	bool		 bad;
};

/* n is a varint's width: no truncation to size_t before the check. */
static const uint8_t *
take(struct cursor *c, uint64_t n)
{
	const uint8_t	*p = c->p;

	if (c->bad || n > c->left) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	c->left -= (size_t)n;
	return p;
}

static uint8_t
take_u8(struct cursor *c)
{
	const uint8_t	*p = take(c, 1);

	return p != NULL ? *p : 0;
}

/* A variable-length integer (RFC 9000 16): 1, 2, 4 or 8 bytes. */
static uint64_t
take_varint(struct cursor *c)
{
	const uint8_t	*p;
	uint64_t	 v;
	size_t		 n, i;

	if (c->bad || c->left == 0) {
		c->bad = true;
		return 0;
	}
	n = (size_t)1 << (c->p[0] >> 6);
	if ((p = take(c, n)) == NULL)
		return 0;
	v = p[0] & 0x3f;
	for (i = 1; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static const struct quic_version *
version_of(uint32_t version)
{
	size_t	i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].version == version)
			return &versions[i];
	return NULL;
}

bool
quic_initial_keys(struct quic_keys *k, uint32_t version, const uint8_t *dcid,
    size_t len)
{
	const struct quic_version	*v = version_of(version);
	uint8_t				initial[SHA256_LEN], client[SHA256_LEN];
	uint8_t				key[AES128_KEY];

	if (v == NULL)
		return false;
	hkdf_extract(v->salt, sizeof(v->salt), dcid, len, initial);
	hkdf_expand_label(initial, "client in", client, sizeof(client));
	hkdf_expand_label(client, v->key, key, sizeof(key));
	aes128_init(&k->aead, key);
	hkdf_expand_label(client, v->hp, key, sizeof(key));
	aes128_init(&k->hp, key);
	hkdf_expand_label(client, v->iv, k->iv, sizeof(k->iv));
	return true;
}

/* The full packet number from its truncated bits (RFC 9000 A.3). */
static int64_t
decode_pn(int64_t largest, uint32_t truncated, int bits)
{
	int64_t	expected = largest + 1, win = (int64_t)1 << bits;
	int64_t	hwin = win / 2, cand = (expected & ~(win - 1)) | truncated;

	if (cand <= expected - hwin && cand < ((int64_t)1 << 62) - win)
		return cand + win;
	if (cand > expected + hwin && cand >= win)
		return cand - win;
	return cand;
}

/* CRYPTO data at stream offset off: the bytes not yet in are kept. */
static enum quic_outcome
crypto_data(struct quic_initial *q, uint64_t off, const uint8_t *data,
    size_t n)
{
	size_t	i, at;

	if (off > QUIC_CRYPTO_MAX || n > QUIC_CRYPTO_MAX - off)
		return QUIC_TOO_BIG;
	for (i = 0; i < n; i++) {
		at = (size_t)off + i;
		if (q->have[at / 8] & 1u << (at % 8))
			continue;
		q->have[at / 8] |= (uint8_t)(1u << (at % 8));
		q->crypto[at] = data[i];
	}
	return QUIC_MORE;
}

/* An ACK frame's fields after its type, read past (RFC 9000 19.3). */
static void
skip_ack(struct cursor *c, bool ecn)
{
	uint64_t	ranges;

	take_varint(c);		/* Largest Acknowledged */
	take_varint(c);		/* ACK Delay */
	ranges = take_varint(c);
	take_varint(c);		/* First ACK Range */
	/* Each range is two varints of a byte at least: a count too large
	 * for the bytes left stops at their end. */
	while (ranges-- > 0 && !c->bad) {
		take_varint(c);	/* Gap */
		take_varint(c);	/* ACK Range Length */
	}
	if (ecn) {
		take_varint(c);	/* ECT0, ECT1, ECN-CE counts */
		take_varint(c);
		take_varint(c);
	}
}

/* The frames of a decrypted Initial's payload. */
static enum quic_outcome
walk_frames(struct quic_initial *q, const uint8_t *p, size_t len)
{
	struct cursor		c = { p, len, false };
	enum quic_outcome	o;
	uint64_t		type, off, n;
	const uint8_t		*data;

	while (c.left > 0) {
		type = take_varint(&c);
		switch (type) {
		case FRAME_PADDING:
		case FRAME_PING:
			break;
		case FRAME_ACK:
		case FRAME_ACK_ECN:
			skip_ack(&c, type == FRAME_ACK_ECN);
			break;
		case FRAME_CRYPTO:
			off = take_varint(&c);
			n = take_varint(&c);
			if ((data = take(&c, n)) == NULL)
				break;
			if ((o = crypto_data(q, off, data, n)) != QUIC_MORE)
				return o;
			break;
		case FRAME_CLOSE:
			take_varint(&c);	/* Error Code */
			take_varint(&c);	/* Frame Type */
			take(&c, take_varint(&c));	/* Reason Phrase */
			break;
		default:
			return QUIC_PROTOCOL_ERROR;
		}
		if (c.bad)
			return QUIC_PROTOCOL_ERROR;
	}
	return QUIC_MORE;
}

/*
 * An Initial packet p[0..end), its packet number at pn_off: header
 * protection removed and the payload decrypted into plain[], the header
 * before it (the AEAD's associated data); then its frames.
 */
static enum quic_outcome
read_initial(struct quic_initial *q, const uint8_t *p, size_t pn_off,
    size_t end)
{
	uint8_t		mask[AES_BLOCK], nonce[GCM_IV], first;
	size_t		pn_len, hdr, i;
	uint32_t	truncated = 0;
	int64_t		pn;

	if (pn_off + PN_MAX_LEN + TAG_SAMPLE > end)
		return QUIC_PROTOCOL_ERROR;
	if (end > sizeof(plain))
		return QUIC_TOO_BIG;
	aes128_encrypt(&q->keys.hp, p + pn_off + PN_MAX_LEN, mask);
	first = p[0] ^ (mask[0] & 0x0f);
	pn_len = (size_t)(first & 0x03) + 1;
	hdr = pn_off + pn_len;
	memcpy(plain, p, hdr);
	plain[0] = first;
	for (i = 0; i < pn_len; i++) {
		plain[pn_off + i] ^= mask[1 + i];
		truncated = truncated << 8 | plain[pn_off + i];
	}
	/* The sample's room leaves at least a tag after the header. */
	BUG_ON(hdr + GCM_TAG > end);
	pn = decode_pn(q->largest_pn, truncated, (int)(8 * pn_len));
	memcpy(nonce, q->keys.iv, GCM_IV);
	for (i = 0; i < 8; i++)
		nonce[GCM_IV - 1 - i] ^= (uint8_t)(pn >> (8 * i));
	if (!aes128_gcm_decrypt(&q->keys.aead, nonce, plain, hdr, p + hdr,
	    end - hdr - GCM_TAG, p + end - GCM_TAG, plain + hdr))
		return QUIC_UNDECRYPTABLE;
	/* Checked only now: before, a forged packet could trigger it. */
	if ((first & RESERVED_BITS) != 0 || end - hdr == GCM_TAG)
		return QUIC_PROTOCOL_ERROR;
	if (pn > q->largest_pn)
		q->largest_pn = pn;
	q->initials++;
	return walk_frames(q, plain + hdr, end - hdr - GCM_TAG);
}

/* The first Initial's version and connection IDs give the keys; later
 * ones must keep them (a client changes its DCID only after hearing
 * from the server, and by then the session is decided). */
static enum quic_outcome
key_session(struct quic_initial *q, const struct quic_version *v,
    const uint8_t *dcid, size_t dcid_len, const uint8_t *scid,
    size_t scid_len)
{
	if (q->keyed)
		return q->version == v->version && q->dcid_len == dcid_len &&
		    memcmp(q->dcid, dcid, dcid_len) == 0 ? QUIC_MORE :
		    QUIC_PROTOCOL_ERROR;
	q->keyed = true;
	q->version = v->version;
	q->dcid_len = (uint8_t)dcid_len;
	memcpy(q->dcid, dcid, dcid_len);
	q->scid_len = (uint8_t)scid_len;
	memcpy(q->scid, scid, scid_len);
	quic_initial_keys(&q->keys, v->version, dcid, dcid_len);
	return QUIC_MORE;
}

/*
 * The packet at the start of p[0..len), the first of its datagram or
 * not: *used is its length, 0 when the rest of the datagram is not read
 * (a short header packet, whose length is the rest).
 */
static enum quic_outcome
read_packet(struct quic_initial *q, const uint8_t *p, size_t len,
    bool first, size_t *used)
{
	struct cursor			c = { p, len, false };
	const struct quic_version	*v;
	const uint8_t			*dcid, *scid, *ver;
	uint8_t				b0, dcid_len, scid_len, type;
	uint32_t			version;
	uint64_t			length;
	enum quic_outcome		o;

	*used = 0;
	b0 = take_u8(&c);
	ver = take(&c, 4);
	if ((b0 & LONG_HEADER) == 0 || ver == NULL)
		return first && q->initials == 0 ? QUIC_NOT_QUIC : QUIC_MORE;
	version = (uint32_t)ver[0] << 24 | (uint32_t)ver[1] << 16 |
	    (uint32_t)ver[2] << 8 | ver[3];
	if (version == 0)
		return QUIC_VERSION_NEGOTIATION;
	if ((v = version_of(version)) == NULL)
		return q->keyed ? QUIC_PROTOCOL_ERROR : QUIC_UNKNOWN_VERSION;
	dcid_len = take_u8(&c);
	dcid = take(&c, dcid_len);
	scid_len = take_u8(&c);
	scid = take(&c, scid_len);
	if (c.bad || dcid_len > QUIC_CID_MAX || scid_len > QUIC_CID_MAX)
		return QUIC_PROTOCOL_ERROR;
	type = (uint8_t)(b0 >> 4 & 0x03);
	if (type == v->retry)		/* a server's, without a Length */
		return QUIC_PROTOCOL_ERROR;
	if (type == v->initial)
		take(&c, take_varint(&c));	/* Token */
	length = take_varint(&c);
	if (c.bad || length > c.left)
		return QUIC_PROTOCOL_ERROR;
	*used = len - c.left + (size_t)length;
	if (type != v->initial)
		return QUIC_MORE;
	o = key_session(q, v, dcid, dcid_len, scid, scid_len);
	if (o != QUIC_MORE)
		return o;
	return read_initial(q, p, len - c.left, *used);
}

/* Whether the CRYPTO stream holds a whole ClientHello from offset 0 on,
 * and what the TLS parser says of it. */
static enum quic_outcome
read_hello(struct quic_initial *q)
{
	size_t	total;

	while (q->hello_end < QUIC_CRYPTO_MAX &&
	    q->have[q->hello_end / 8] & 1u << (q->hello_end % 8))
		q->hello_end++;
	if (q->hello_end < 4)
		return QUIC_MORE;
	if (q->crypto[0] != HANDSHAKE_HELLO)
		return QUIC_PROTOCOL_ERROR;
	total = 4 + ((size_t)q->crypto[1] << 16 | (size_t)q->crypto[2] << 8 |
	    q->crypto[3]);
	if (total > QUIC_CRYPTO_MAX)
		return QUIC_TOO_BIG;
	if (q->hello_end < total)
		return QUIC_MORE;
	return probe_tls_hello(&q->tls, q->crypto, total) == PROBE_MATCH ?
	    QUIC_DECIDED : QUIC_PROTOCOL_ERROR;
}

void
quic_initial_init(struct quic_initial *q)
{
	memset(q, 0, sizeof(*q));
	q->largest_pn = -1;
}

enum quic_outcome
quic_initial_datagram(struct quic_initial *q, const uint8_t *dgram,
    size_t len)
{
	enum quic_outcome	o = QUIC_MORE;
	size_t			off = 0, used;

	if (q->outcome != QUIC_MORE)
		return q->outcome;
	if (++q->datagrams > QUIC_DATAGRAMS_MAX)
		return q->outcome = QUIC_TOO_BIG;
	while (off < len && o == QUIC_MORE) {
		o = read_packet(q, dgram + off, len - off, off == 0, &used);
		if (used == 0)
			break;
		off += used;
	}
	if (o == QUIC_MORE)
		o = read_hello(q);
	return q->outcome = o;
}

const char *
quic_outcome_name(enum quic_outcome o)
{
	static const char	*const names[] = {
		[QUIC_MORE] = "more", [QUIC_DECIDED] = "decided",
		[QUIC_NOT_QUIC] = "not-quic",
		[QUIC_UNKNOWN_VERSION] = "unknown-version",
		[QUIC_VERSION_NEGOTIATION] = "version-negotiation",
		[QUIC_UNDECRYPTABLE] = "undecryptable",
		[QUIC_PROTOCOL_ERROR] = "protocol-error",
		[QUIC_TOO_BIG] = "too-big"
	};

	return (size_t)o < sizeof(names) / sizeof(names[0]) ? names[o] : "?";
}
