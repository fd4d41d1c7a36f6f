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
 * is written to resist timing or cache attacks: the AES uses a table
 * indexed by data bytes, GHASH branches on bits, the tag comparison
 * stops at the first difference.  Do not use this file for a secret key
 * (a TLS session, a stored password, a ticket key): it would leak it.
 * The daemon stays libc + libconfig, which is why it is not OpenSSL.
 */
#include "ferryd.h"

#include <string.h>

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

/* Multiplication by x (02) in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1. */
static uint8_t
xtime(uint8_t b)
{
	return (uint8_t)(b << 1 ^ (b & 0x80 ? 0x1b : 0));
}

void
aes128_init(struct aes128 *aes, const uint8_t key[AES128_KEY])
{
	uint8_t	*w = &aes->rk[0][0];	/* 44 words of 4 bytes */
	uint8_t	 rcon = 1, t[4];
	int	 i;

	memcpy(w, key, AES128_KEY);
	for (i = 4; i < 44; i++) {
		memcpy(t, w + 4 * (i - 1), 4);
		if (i % 4 == 0) {
			/* RotWord, SubWord, Rcon */
			uint8_t	first = t[0];

			t[0] = (uint8_t)(sbox[t[1]] ^ rcon);
			t[1] = sbox[t[2]];
			t[2] = sbox[t[3]];
			t[3] = sbox[first];
			rcon = xtime(rcon);
		}
		w[4 * i + 0] = w[4 * (i - 4) + 0] ^ t[0];
		w[4 * i + 1] = w[4 * (i - 4) + 1] ^ t[1];
		w[4 * i + 2] = w[4 * (i - 4) + 2] ^ t[2];
		w[4 * i + 3] = w[4 * (i - 4) + 3] ^ t[3];
	}
}

static void
add_round_key(uint8_t s[AES_BLOCK], const uint8_t rk[AES_BLOCK])
{
	int	i;

	for (i = 0; i < AES_BLOCK; i++)
		s[i] ^= rk[i];
}

/* SubBytes and ShiftRows at once: byte r + 4c (row r, column c) takes
 * row r's byte of column c + r. */
static void
sub_shift(uint8_t s[AES_BLOCK])
{
	uint8_t	t[AES_BLOCK];
	int	r, c;

	for (c = 0; c < 4; c++)
		for (r = 0; r < 4; r++)
			t[r + 4 * c] = sbox[s[r + 4 * ((c + r) % 4)]];
	memcpy(s, t, AES_BLOCK);
}

static void
mix_columns(uint8_t s[AES_BLOCK])
{
	uint8_t	*col, a0, a1, a2, a3, all;
	int	 c;

	for (c = 0; c < 4; c++) {
		col = s + 4 * c;
		a0 = col[0];
		a1 = col[1];
		a2 = col[2];
		a3 = col[3];
		all = a0 ^ a1 ^ a2 ^ a3;
		/* 2a + 3b + c + d = a + (a + b + c + d) + 2(a + b) */
		col[0] ^= all ^ xtime(a0 ^ a1);
		col[1] ^= all ^ xtime(a1 ^ a2);
		col[2] ^= all ^ xtime(a2 ^ a3);
		col[3] ^= all ^ xtime(a3 ^ a0);
	}
}

void
aes128_encrypt(const struct aes128 *aes, const uint8_t in[AES_BLOCK],
    uint8_t out[AES_BLOCK])
{
	uint8_t	s[AES_BLOCK];
	int	round;

	memcpy(s, in, AES_BLOCK);
	add_round_key(s, aes->rk[0]);
	for (round = 1; round < 10; round++) {
		sub_shift(s);
		mix_columns(s);
		add_round_key(s, aes->rk[round]);
	}
	sub_shift(s);
	add_round_key(s, aes->rk[10]);
	memcpy(out, s, AES_BLOCK);
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

/* GHASH's running value and its key H, as two big-endian halves. */
struct ghash {
	uint64_t	xh, xl;
	uint64_t	hh, hl;
};

/* X = (X + block) . H in GF(2^128), bit by bit (SP 800-38D 6.3). */
static void
ghash_block(struct ghash *g, const uint8_t block[AES_BLOCK])
{
	uint64_t	xh = g->xh ^ load64(block), xl = g->xl ^ load64(block + 8);
	uint64_t	vh = g->hh, vl = g->hl, zh = 0, zl = 0, lsb;
	int		i;

	for (i = 0; i < 128; i++) {
		if ((i < 64 ? xh >> (63 - i) : xl >> (127 - i)) & 1) {
			zh ^= vh;
			zl ^= vl;
		}
		lsb = vl & 1;
		vl = vl >> 1 | vh << 63;
		vh >>= 1;
		if (lsb)
			vh ^= 0xe100000000000000ULL;
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
	struct ghash		g = { 0, 0, 0, 0 };
	uint8_t			h[AES_BLOCK], lens[AES_BLOCK], ej0[AES_BLOCK];
	int			i;

	aes128_encrypt(aes, zero, h);
	g.hh = load64(h);
	g.hl = load64(h + 8);
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

static uint32_t
ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void
sha256_block(struct sha256 *ctx, const uint8_t *p)
{
	uint32_t	w[64], v[8], t1, t2;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10) +
		    w[i - 7] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
		    w[i - 15] >> 3) + w[i - 16];
	memcpy(v, ctx->h, sizeof(v));
	for (i = 0; i < 64; i++) {
		/* v[0..7] are a..h */
		t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
		    ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha256_k[i] + w[i];
		t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
		    ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		ctx->h[i] += v[i];
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
	for (i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(ctx->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(ctx->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(ctx->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)ctx->h[i];
	}
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

	if (infolen + 1 > sizeof(tail))
		infolen = sizeof(tail) - 1;	/* no caller has so long */
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
