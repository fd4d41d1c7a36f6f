/*
 * crypto.h - the little cryptography QUIC's Initial packets need to be
 * read (RFC 9001 5): AES-128 (encryption of a block), AES-128-GCM,
 * SHA-256, HMAC-SHA256 and HKDF with TLS 1.3's labels.  Written here so
 * that the daemon stays libc + libconfig; see crypto.c for why it is
 * fit for public keys only.
 */
#ifndef FERRYD_CRYPTO_H
#define FERRYD_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AES_BLOCK	16
#define AES128_KEY	16
#define GCM_IV		12
#define GCM_TAG		16
#define SHA256_LEN	32
#define SHA256_BLOCK	64

/* An expanded AES-128 key: 11 round keys of 4 big-endian words. */
struct aes128 {
	uint32_t	rk[44];
};

void aes128_init(struct aes128 *aes, const uint8_t key[AES128_KEY]);
void aes128_encrypt(const struct aes128 *aes, const uint8_t in[AES_BLOCK],
    uint8_t out[AES_BLOCK]);

/*
 * AES-128-GCM with a 96-bit IV and a 128-bit tag (SP 800-38D).  Decrypt
 * checks the tag first and writes out[0..len) only when it matches (out
 * may be in); false when it does not.
 */
void aes128_gcm_encrypt(const struct aes128 *aes, const uint8_t iv[GCM_IV],
    const uint8_t *aad, size_t aadlen, const uint8_t *in, size_t len,
    uint8_t *out, uint8_t tag[GCM_TAG]);
bool aes128_gcm_decrypt(const struct aes128 *aes, const uint8_t iv[GCM_IV],
    const uint8_t *aad, size_t aadlen, const uint8_t *in, size_t len,
    const uint8_t tag[GCM_TAG], uint8_t *out);

/* SHA-256 (FIPS 180-4), incremental. */
struct sha256 {
	uint32_t	h[8];
	uint64_t	total;		/* bytes hashed */
	uint8_t		buf[SHA256_BLOCK];
	size_t		used;		/* bytes in buf */
};

void sha256_init(struct sha256 *ctx);
void sha256_update(struct sha256 *ctx, const void *data, size_t len);
void sha256_final(struct sha256 *ctx, uint8_t out[SHA256_LEN]);
void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN]);

/* HMAC-SHA256 (RFC 2104) of one message. */
void hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg,
    size_t len, uint8_t out[SHA256_LEN]);

/* HKDF-SHA256 (RFC 5869); outlen at most 255 * 32. */
void hkdf_extract(const uint8_t *salt, size_t saltlen, const uint8_t *ikm,
    size_t ikmlen, uint8_t prk[SHA256_LEN]);
void hkdf_expand(const uint8_t prk[SHA256_LEN], const uint8_t *info,
    size_t infolen, uint8_t *out, size_t outlen);
/* HKDF-Expand-Label (RFC 8446 7.1): label without "tls13 ", no context. */
void hkdf_expand_label(const uint8_t secret[SHA256_LEN], const char *label,
    uint8_t *out, size_t outlen);

#endif
