/*
 * crypto.c - AES-128, AES-128-GCM, SHA-256, HMAC-SHA256 and HKDF, from
 * their specifications (FIPS 197, NIST SP 800-38D, FIPS 180-4, RFC 2104,
 * RFC 5869, RFC 8446 7.1), for reading QUIC Initial packets
 * (quic_initial.c) and for nothing else.
 *
 * The keys these functions see are public: a QUIC Initial packet's keys
 * derive from a salt published in RFC 9001 (RFC 9369 for QUIC v2) and
 * the Destination Connection ID that the same packet carries in clear.
 * Anyone on the path can derive them, and the protection they give is
 * against tampering by those off the path, not secrecy.  So nothing here
 * is written to resist timing or cache attacks: AES and GHASH look up
 * tables indexed by key and data bytes, the tag comparison stops at the
 * first difference.  Do not use this file for a secret key
 * (a TLS session, a stored password, a ticket key): it would leak it.
 * The daemon stays libc + libconfig, which is why it is not OpenSSL.
 */
#include "ferryd.h"

#include <string.h>

#include "bug.h"
#include "crypto.h"

/* ---- AES-128 encryption (FIPS 197) ---------------------------------- */

/* SubBytes: the multiplicative inverse in GF(2^8), then the affine map. */
static const uint8_t sbox[256] = {
	0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5,
	0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
	0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0,
	0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
	0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc,
	0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
	0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a,
	0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
	0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0,
	0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
	0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b,
	0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
	0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85,
	0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
	0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5,
	0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
	0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17,
	0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
	0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88,
	0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
	0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c,
	0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
	0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9,
	0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
	0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6,
	0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
	0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e,
	0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
	0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94,
	0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
	0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68,
	0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16
};

/*
 * A round's SubBytes and MixColumns for a byte at row 0: the column
 * (2, 1, 1, 3) . S[b] as a big-endian word.  The other rows' are this
 * rotated by 8, 16, 24 bits (MixColumns' matrix is circulant), so one
 * table serves.  Computed from sbox[] above.
 */
static const uint32_t te0[256] = {
	0xc66363a5, 0xf87c7c84, 0xee777799, 0xf67b7b8d, 0xfff2f20d, 0xd66b6bbd,
	0xde6f6fb1, 0x91c5c554, 0x60303050, 0x02010103, 0xce6767a9, 0x562b2b7d,
	0xe7fefe19, 0xb5d7d762, 0x4dababe6, 0xec76769a, 0x8fcaca45, 0x1f82829d,
	0x89c9c940, 0xfa7d7d87, 0xeffafa15, 0xb25959eb, 0x8e4747c9, 0xfbf0f00b,
	0x41adadec, 0xb3d4d467, 0x5fa2a2fd, 0x45afafea, 0x239c9cbf, 0x53a4a4f7,
	0xe4727296, 0x9bc0c05b, 0x75b7b7c2, 0xe1fdfd1c, 0x3d9393ae, 0x4c26266a,
	0x6c36365a, 0x7e3f3f41, 0xf5f7f702, 0x83cccc4f, 0x6834345c, 0x51a5a5f4,
	0xd1e5e534, 0xf9f1f108, 0xe2717193, 0xabd8d873, 0x62313153, 0x2a15153f,
	0x0804040c, 0x95c7c752, 0x46232365, 0x9dc3c35e, 0x30181828, 0x379696a1,
	0x0a05050f, 0x2f9a9ab5, 0x0e070709, 0x24121236, 0x1b80809b, 0xdfe2e23d,
	0xcdebeb26, 0x4e272769, 0x7fb2b2cd, 0xea75759f, 0x1209091b, 0x1d83839e,
	0x582c2c74, 0x341a1a2e, 0x361b1b2d, 0xdc6e6eb2, 0xb45a5aee, 0x5ba0a0fb,
	0xa45252f6, 0x763b3b4d, 0xb7d6d661, 0x7db3b3ce, 0x5229297b, 0xdde3e33e,
	0x5e2f2f71, 0x13848497, 0xa65353f5, 0xb9d1d168, 0x00000000, 0xc1eded2c,
	0x40202060, 0xe3fcfc1f, 0x79b1b1c8, 0xb65b5bed, 0xd46a6abe, 0x8dcbcb46,
	0x67bebed9, 0x7239394b, 0x944a4ade, 0x984c4cd4, 0xb05858e8, 0x85cfcf4a,
	0xbbd0d06b, 0xc5efef2a, 0x4faaaae5, 0xedfbfb16, 0x864343c5, 0x9a4d4dd7,
	0x66333355, 0x11858594, 0x8a4545cf, 0xe9f9f910, 0x04020206, 0xfe7f7f81,
	0xa05050f0, 0x783c3c44, 0x259f9fba, 0x4ba8a8e3, 0xa25151f3, 0x5da3a3fe,
	0x804040c0, 0x058f8f8a, 0x3f9292ad, 0x219d9dbc, 0x70383848, 0xf1f5f504,
	0x63bcbcdf, 0x77b6b6c1, 0xafdada75, 0x42212163, 0x20101030, 0xe5ffff1a,
	0xfdf3f30e, 0xbfd2d26d, 0x81cdcd4c, 0x180c0c14, 0x26131335, 0xc3ecec2f,
	0xbe5f5fe1, 0x359797a2, 0x884444cc, 0x2e171739, 0x93c4c457, 0x55a7a7f2,
	0xfc7e7e82, 0x7a3d3d47, 0xc86464ac, 0xba5d5de7, 0x3219192b, 0xe6737395,
	0xc06060a0, 0x19818198, 0x9e4f4fd1, 0xa3dcdc7f, 0x44222266, 0x542a2a7e,
	0x3b9090ab, 0x0b888883, 0x8c4646ca, 0xc7eeee29, 0x6bb8b8d3, 0x2814143c,
	0xa7dede79, 0xbc5e5ee2, 0x160b0b1d, 0xaddbdb76, 0xdbe0e03b, 0x64323256,
	0x743a3a4e, 0x140a0a1e, 0x924949db, 0x0c06060a, 0x4824246c, 0xb85c5ce4,
	0x9fc2c25d, 0xbdd3d36e, 0x43acacef, 0xc46262a6, 0x399191a8, 0x319595a4,
	0xd3e4e437, 0xf279798b, 0xd5e7e732, 0x8bc8c843, 0x6e373759, 0xda6d6db7,
	0x018d8d8c, 0xb1d5d564, 0x9c4e4ed2, 0x49a9a9e0, 0xd86c6cb4, 0xac5656fa,
	0xf3f4f407, 0xcfeaea25, 0xca6565af, 0xf47a7a8e, 0x47aeaee9, 0x10080818,
	0x6fbabad5, 0xf0787888, 0x4a25256f, 0x5c2e2e72, 0x381c1c24, 0x57a6a6f1,
	0x73b4b4c7, 0x97c6c651, 0xcbe8e823, 0xa1dddd7c, 0xe874749c, 0x3e1f1f21,
	0x964b4bdd, 0x61bdbddc, 0x0d8b8b86, 0x0f8a8a85, 0xe0707090, 0x7c3e3e42,
	0x71b5b5c4, 0xcc6666aa, 0x904848d8, 0x06030305, 0xf7f6f601, 0x1c0e0e12,
	0xc26161a3, 0x6a35355f, 0xae5757f9, 0x69b9b9d0, 0x17868691, 0x99c1c158,
	0x3a1d1d27, 0x279e9eb9, 0xd9e1e138, 0xebf8f813, 0x2b9898b3, 0x22111133,
	0xd26969bb, 0xa9d9d970, 0x078e8e89, 0x339494a7, 0x2d9b9bb6, 0x3c1e1e22,
	0x15878792, 0xc9e9e920, 0x87cece49, 0xaa5555ff, 0x50282878, 0xa5dfdf7a,
	0x038c8c8f, 0x59a1a1f8, 0x09898980, 0x1a0d0d17, 0x65bfbfda, 0xd7e6e631,
	0x844242c6, 0xd06868b8, 0x824141c3, 0x299999b0, 0x5a2d2d77, 0x1e0f0f11,
	0x7bb0b0cb, 0xa85454fc, 0x6dbbbbd6, 0x2c16163a
};

static uint32_t
ror32(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static uint32_t
load32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static void
store32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* SubWord: S applied to each byte of a word. */
static uint32_t
sub_word(uint32_t w)
{
	return (uint32_t)sbox[w >> 24] << 24 | (uint32_t)sbox[w >> 16 & 0xff] <<
	    16 | (uint32_t)sbox[w >> 8 & 0xff] << 8 | sbox[w & 0xff];
}

/* KeyExpansion (FIPS 197 5.2): 44 words. */
void
aes128_init(struct aes128 *aes, const uint8_t key[AES128_KEY])
{
	uint32_t	*w = aes->rk, rcon = 0x01000000, t;
	int		 i;

	for (i = 0; i < 4; i++)
		w[i] = load32(key + 4 * i);
	for (i = 4; i < 44; i++) {
		t = w[i - 1];
		if (i % 4 == 0) {
			t = sub_word(t << 8 | t >> 24) ^ rcon;	/* RotWord */
			rcon = (rcon << 1) ^ (rcon & 0x80000000 ? 0x1b000000 : 0);
		}
		w[i] = w[i - 4] ^ t;
	}
}

/*
 * Column c of a round's output: ShiftRows takes row r from column
 * c + r, then SubBytes and MixColumns through te0, AddRoundKey.
 */
static uint32_t
round_column(const uint32_t s[4], int c, uint32_t rk)
{
	return te0[s[c] >> 24] ^ ror32(te0[s[(c + 1) % 4] >> 16 & 0xff], 8) ^
	    ror32(te0[s[(c + 2) % 4] >> 8 & 0xff], 16) ^
	    ror32(te0[s[(c + 3) % 4] & 0xff], 24) ^ rk;
}

/* The last round's column: no MixColumns. */
static uint32_t
last_column(const uint32_t s[4], int c, uint32_t rk)
{
	return ((uint32_t)sbox[s[c] >> 24] << 24 |
	    (uint32_t)sbox[s[(c + 1) % 4] >> 16 & 0xff] << 16 |
	    (uint32_t)sbox[s[(c + 2) % 4] >> 8 & 0xff] << 8 |
	    sbox[s[(c + 3) % 4] & 0xff]) ^ rk;
}

void
aes128_encrypt(const struct aes128 *aes, const uint8_t in[AES_BLOCK],
    uint8_t out[AES_BLOCK])
{
	const uint32_t	*rk = aes->rk;
	uint32_t	 s[4], t[4];
	int		 round, c;

	for (c = 0; c < 4; c++)
		s[c] = load32(in + 4 * c) ^ rk[c];
	for (round = 1; round < 10; round++) {
		/* written out, so that the column indexes are constants */
		t[0] = round_column(s, 0, rk[4 * round]);
		t[1] = round_column(s, 1, rk[4 * round + 1]);
		t[2] = round_column(s, 2, rk[4 * round + 2]);
		t[3] = round_column(s, 3, rk[4 * round + 3]);
		memcpy(s, t, sizeof(s));
	}
	for (c = 0; c < 4; c++)
		store32(out + 4 * c, last_column(s, c, rk[40 + c]));
}

/* ---- GCM (SP 800-38D) ------------------------------------------------ */

static uint64_t
load64(const uint8_t *p)
{
	uint64_t	v = 0;
	int		i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void
store64(uint8_t *p, uint64_t v)
{
	int	i;

	for (i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

/*
 * GHASH's running value X and the multiples of its key H by the 16
 * polynomials of 4 bits (Shoup's method): X . H is then taken 4 bits of
 * X at a time, each step shifting the product by x^4 and folding the 4
 * bits shifted out back in with the reduction table.  Both halves are
 * big-endian, as the block's bytes are.
 */
struct ghash {
	uint64_t	xh, xl;
	uint64_t	mh[16], ml[16];	/* nibble i . H; bit 8 is x^0 */
};

/* x^128 = x^7 + x^2 + x + 1 (R = 0xe1 || 0^120): the 4 bits shifted
 * out at the low end, each bit j worth 0xe100 >> (3 - j), folded into
 * the top 16 bits. */
static const uint16_t	ghash_fold[16] = {
	0x0000, 0x1c20, 0x3840, 0x2460, 0x7080, 0x6ca0, 0x48c0, 0x54e0,
	0xe100, 0xfd20, 0xd940, 0xc560, 0x9180, 0x8da0, 0xa9c0, 0xb5e0
};

static void
ghash_init(struct ghash *g, const uint8_t h[AES_BLOCK])
{
	uint64_t	vh = load64(h), vl = load64(h + 8);
	int		i, j;

	g->xh = g->xl = 0;
	g->mh[0] = g->ml[0] = 0;
	/* 8, 4, 2, 1 are H, H.x, H.x^2, H.x^3 (a right shift is . x) */
	for (i = 8; i > 0; i >>= 1) {
		g->mh[i] = vh;
		g->ml[i] = vl;
		vl = vl >> 1 | vh << 63;
		vh = vh >> 1 ^ (g->ml[i] & 1 ? 0xe100000000000000ULL : 0);
	}
	for (i = 2; i < 16; i <<= 1)
		for (j = 1; j < i; j++) {
			g->mh[i + j] = g->mh[i] ^ g->mh[j];
			g->ml[i + j] = g->ml[i] ^ g->ml[j];
		}
}

/* Z = Z . x^4 + nibble . H */
static void
ghash_nibble(const struct ghash *g, uint64_t *zh, uint64_t *zl, int nibble)
{
	unsigned	out = (unsigned)(*zl & 0x0f);

	*zl = *zl >> 4 | *zh << 60;
	*zh = *zh >> 4 ^ (uint64_t)ghash_fold[out] << 48;
	*zh ^= g->mh[nibble];
	*zl ^= g->ml[nibble];
}

/* X = (X + block) . H in GF(2^128) (SP 800-38D 6.3, 6.4), from the
 * last byte's low nibble (the highest powers of x) to the first's. */
static void
ghash_block(struct ghash *g, const uint8_t block[AES_BLOCK])
{
	uint8_t		x[AES_BLOCK];
	uint64_t	zh = 0, zl = 0;
	int		i;

	store64(x, g->xh ^ load64(block));
	store64(x + 8, g->xl ^ load64(block + 8));
	for (i = AES_BLOCK - 1; i >= 0; i--) {
		ghash_nibble(g, &zh, &zl, x[i] & 0x0f);
		ghash_nibble(g, &zh, &zl, x[i] >> 4);
	}
	g->xh = zh;
	g->xl = zl;
}

/* Bytes zero-padded to whole blocks. */
static void
ghash_bytes(struct ghash *g, const uint8_t *p, size_t len)
{
	uint8_t	last[AES_BLOCK];

	for (; len >= AES_BLOCK; p += AES_BLOCK, len -= AES_BLOCK)
		ghash_block(g, p);
	if (len > 0) {
		memset(last, 0, sizeof(last));
		memcpy(last, p, len);
		ghash_block(g, last);
	}
}

/* The tag over aad and the ciphertext c: GHASH, then E(K, J0) added. */
static void
gcm_tag(const struct aes128 *aes, const uint8_t j0[AES_BLOCK],
    const uint8_t *aad, size_t aadlen, const uint8_t *c, size_t len,
    uint8_t tag[GCM_TAG])
{
	static const uint8_t	zero[AES_BLOCK];
	struct ghash		g;
	uint8_t			h[AES_BLOCK], lens[AES_BLOCK], ej0[AES_BLOCK];
	int			i;

	aes128_encrypt(aes, zero, h);
	ghash_init(&g, h);
	ghash_bytes(&g, aad, aadlen);
	ghash_bytes(&g, c, len);
	store64(lens, (uint64_t)aadlen * 8);
	store64(lens + 8, (uint64_t)len * 8);
	ghash_block(&g, lens);
	store64(tag, g.xh);
	store64(tag + 8, g.xl);
	aes128_encrypt(aes, j0, ej0);
	for (i = 0; i < GCM_TAG; i++)
		tag[i] ^= ej0[i];
}

/* J0 for a 96-bit IV: IV || 0^31 || 1. */
static void
gcm_j0(const uint8_t iv[GCM_IV], uint8_t j0[AES_BLOCK])
{
	memcpy(j0, iv, GCM_IV);
	j0[12] = j0[13] = j0[14] = 0;
	j0[15] = 1;
}

/* GCTR from inc32(J0): out = in + the key stream (out may be in). */
static void
gcm_ctr(const struct aes128 *aes, const uint8_t j0[AES_BLOCK],
    const uint8_t *in, size_t len, uint8_t *out)
{
	uint8_t		ctr[AES_BLOCK], ks[AES_BLOCK];
	uint32_t	n = 1;
	size_t		i, k;

	memcpy(ctr, j0, AES_BLOCK);
	for (i = 0; i < len; i += AES_BLOCK) {
		n++;
		ctr[12] = (uint8_t)(n >> 24);
		ctr[13] = (uint8_t)(n >> 16);
		ctr[14] = (uint8_t)(n >> 8);
		ctr[15] = (uint8_t)n;
		aes128_encrypt(aes, ctr, ks);
		for (k = 0; k < AES_BLOCK && i + k < len; k++)
			out[i + k] = in[i + k] ^ ks[k];
	}
}

void
aes128_gcm_encrypt(const struct aes128 *aes, const uint8_t iv[GCM_IV],
    const uint8_t *aad, size_t aadlen, const uint8_t *in, size_t len,
    uint8_t *out, uint8_t tag[GCM_TAG])
{
	uint8_t	j0[AES_BLOCK];

	gcm_j0(iv, j0);
	gcm_ctr(aes, j0, in, len, out);
	gcm_tag(aes, j0, aad, aadlen, out, len, tag);
}

bool
aes128_gcm_decrypt(const struct aes128 *aes, const uint8_t iv[GCM_IV],
    const uint8_t *aad, size_t aadlen, const uint8_t *in, size_t len,
    const uint8_t tag[GCM_TAG], uint8_t *out)
{
	uint8_t	j0[AES_BLOCK], want[GCM_TAG];

	gcm_j0(iv, j0);
	gcm_tag(aes, j0, aad, aadlen, in, len, want);
	if (memcmp(want, tag, GCM_TAG) != 0)
		return false;
	gcm_ctr(aes, j0, in, len, out);
	return true;
}

/* ---- SHA-256 (FIPS 180-4) -------------------------------------------- */

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

/* The message schedule's functions (FIPS 180-4 4.1.2). */
static uint32_t
sigma0(uint32_t x)
{
	return ror32(x, 7) ^ ror32(x, 18) ^ x >> 3;
}

static uint32_t
sigma1(uint32_t x)
{
	return ror32(x, 17) ^ ror32(x, 19) ^ x >> 10;
}

static void
sha256_block(struct sha256 *ctx, const uint8_t *p)
{
	uint32_t	w[64], a, b, c, d, e, f, g, h, t1, t2;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = load32(p + 4 * i);
	for (i = 16; i < 64; i++)
		w[i] = sigma1(w[i - 2]) + w[i - 7] + sigma0(w[i - 15]) + w[i - 16];
	a = ctx->h[0], b = ctx->h[1], c = ctx->h[2], d = ctx->h[3];
	e = ctx->h[4], f = ctx->h[5], g = ctx->h[6], h = ctx->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) +
		    ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) +
		    ((a & b) ^ (a & c) ^ (b & c));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	ctx->h[0] += a, ctx->h[1] += b, ctx->h[2] += c, ctx->h[3] += d;
	ctx->h[4] += e, ctx->h[5] += f, ctx->h[6] += g, ctx->h[7] += h;
}

void
sha256_init(struct sha256 *ctx)
{
	static const uint32_t	h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(ctx->h, h0, sizeof(h0));
	ctx->total = 0;
	ctx->used = 0;
}

void
sha256_update(struct sha256 *ctx, const void *data, size_t len)
{
	const uint8_t	*p = data;
	size_t		 k;

	ctx->total += len;
	while (len > 0) {
		k = SHA256_BLOCK - ctx->used;
		if (k > len)
			k = len;
		memcpy(ctx->buf + ctx->used, p, k);
		ctx->used += k;
		p += k;
		len -= k;
		if (ctx->used == SHA256_BLOCK) {
			sha256_block(ctx, ctx->buf);
			ctx->used = 0;
		}
	}
}

void
sha256_final(struct sha256 *ctx, uint8_t out[SHA256_LEN])
{
	uint64_t	bits = ctx->total * 8;
	uint8_t		pad[SHA256_BLOCK + 8] = { 0x80 };
	size_t		padlen;
	int		i;

	/* 0x80, zeros up to 56 mod 64, the length in bits */
	padlen = (ctx->used < 56 ? 56 : 120) - ctx->used;
	store64(pad + padlen, bits);
	sha256_update(ctx, pad, padlen + 8);
	for (i = 0; i < 8; i++)
		store32(out + 4 * i, ctx->h[i]);
}

void
sha256(const void *data, size_t len, uint8_t out[SHA256_LEN])
{
	struct sha256	ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, data, len);
	sha256_final(&ctx, out);
}

/* ---- HMAC (RFC 2104) and HKDF (RFC 5869, RFC 8446 7.1) ----------------- */

/* HMAC over the concatenation of two parts (HKDF-Expand's T(i-1) | info
 * | i needs three: the last two are one part, built by the caller). */
static void
hmac2(const uint8_t *key, size_t keylen, const uint8_t *a, size_t alen,
    const uint8_t *b, size_t blen, uint8_t out[SHA256_LEN])
{
	uint8_t		k[SHA256_BLOCK], pad[SHA256_BLOCK], inner[SHA256_LEN];
	struct sha256	ctx;
	int		i;

	memset(k, 0, sizeof(k));
	if (keylen > SHA256_BLOCK)
		sha256(key, keylen, k);
	else if (keylen > 0)
		memcpy(k, key, keylen);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&ctx);
	sha256_update(&ctx, pad, sizeof(pad));
	sha256_update(&ctx, a, alen);
	sha256_update(&ctx, b, blen);
	sha256_final(&ctx, inner);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&ctx);
	sha256_update(&ctx, pad, sizeof(pad));
	sha256_update(&ctx, inner, sizeof(inner));
	sha256_final(&ctx, out);
}

void
hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg,
    size_t len, uint8_t out[SHA256_LEN])
{
	hmac2(key, keylen, msg, len, NULL, 0, out);
}

void
hkdf_extract(const uint8_t *salt, size_t saltlen, const uint8_t *ikm,
    size_t ikmlen, uint8_t prk[SHA256_LEN])
{
	hmac_sha256(salt, saltlen, ikm, ikmlen, prk);
}

/* T(i) = HMAC(PRK, T(i-1) | info | i); the output is T(1) | T(2) | ... */
void
hkdf_expand(const uint8_t prk[SHA256_LEN], const uint8_t *info,
    size_t infolen, uint8_t *out, size_t outlen)
{
	uint8_t	t[SHA256_LEN], tail[512];
	size_t	tlen = 0, k;
	uint8_t	i;

	/* RFC 5869: at most 255 blocks (i is a byte); no caller has a
	 * longer info than hkdf_expand_label's */
	BUG_ON(outlen > 255 * SHA256_LEN || infolen + 1 > sizeof(tail));
	memcpy(tail, info, infolen);
	for (i = 1; outlen > 0; i++) {
		tail[infolen] = i;
		hmac2(prk, SHA256_LEN, t, tlen, tail, infolen + 1, t);
		tlen = SHA256_LEN;
		k = outlen < SHA256_LEN ? outlen : SHA256_LEN;
		memcpy(out, t, k);
		out += k;
		outlen -= k;
	}
}

/* HkdfLabel: uint16 length, opaque label<7..255> ("tls13 " + label),
 * opaque context<0..255> (empty here). */
void
hkdf_expand_label(const uint8_t secret[SHA256_LEN], const char *label,
    uint8_t *out, size_t outlen)
{
	static const char	prefix[] = "tls13 ";
	uint8_t			info[2 + 1 + 255 + 1];
	size_t			plen = sizeof(prefix) - 1, llen = strlen(label);

	if (llen > 255 - plen)
		llen = 255 - plen;
	info[0] = (uint8_t)(outlen >> 8);
	info[1] = (uint8_t)outlen;
	info[2] = (uint8_t)(plen + llen);
	memcpy(info + 3, prefix, plen);
	memcpy(info + 3 + plen, label, llen);
	info[3 + plen + llen] = 0;
	hkdf_expand(secret, info, 4 + plen + llen, out, outlen);
}
