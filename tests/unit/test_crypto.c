/*
 * test_crypto.c - unit tests of crypto.c against the published vectors:
 * FIPS 197's AES-128 example, the GCM specification's (McGrew and
 * Viega) test cases 2 to 4, FIPS 180-4's SHA-256 examples, RFC 4231's
 * HMAC-SHA256 cases, RFC 5869's HKDF case 1, and the initial keys of
 * RFC 9001 A.1 and RFC 9369 A.1 derived with HKDF-Expand-Label.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "testlib.h"

/* got[0..len) equals the bytes of hex. */
static void
check_hex(const char *what, const uint8_t *got, size_t len, const char *hex)
{
	uint8_t	want[256];
	size_t	n = unhex(hex, want, sizeof(want));

	check(n == len && memcmp(got, want, n) == 0, "%s", what);
}

static void
test_aes(void)
{
	struct aes128	aes;
	uint8_t		key[16], in[16], out[16], last[16];
	int		i;

	/* FIPS 197 Appendix C.1 */
	unhex("000102030405060708090a0b0c0d0e0f", key, sizeof(key));
	unhex("00112233445566778899aabbccddeeff", in, sizeof(in));
	aes128_init(&aes, key);
	aes128_encrypt(&aes, in, out);
	check_hex("AES-128: FIPS 197 C.1", out, 16,
	    "69c4e0d86a7b0430d8cdb78070b4c55a");
	/* FIPS 197 Appendix A.1: the last round key */
	unhex("2b7e151628aed2a6abf7158809cf4f3c", key, sizeof(key));
	aes128_init(&aes, key);
	for (i = 0; i < 16; i++)
		last[i] = (uint8_t)(aes.rk[40 + i / 4] >> (24 - 8 * (i % 4)));
	check_hex("AES-128: FIPS 197 A.1 key expansion", last, 16,
	    "d014f9a8c9ee2589e13f0cc8b6630ca6");
}

struct gcm_case {
	const char	*name, *key, *iv, *plain, *aad, *cipher, *tag;
};

static const struct gcm_case gcm_cases[] = {
	{ "GCM test case 2", "00000000000000000000000000000000",
	    "000000000000000000000000", "00000000000000000000000000000000", "",
	    "0388dace60b6a392f328c2b971b2fe78",
	    "ab6e47d42cec13bdf53a67b21257bddf" },
	{ "GCM test case 3", "feffe9928665731c6d6a8f9467308308",
	    "cafebabefacedbaddecaf888",
	    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
	    "",
	    "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	    "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
	    "4d5c2af327cd64a62cf35abd2ba6fab4" },
	{ "GCM test case 4", "feffe9928665731c6d6a8f9467308308",
	    "cafebabefacedbaddecaf888",
	    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	    "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	    "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	    "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
	    "5bc94fbc3221a5db94fae95ae7121a47" },
};

static void
test_gcm_case(const struct gcm_case *c)
{
	struct aes128	aes;
	uint8_t		key[16], iv[12], plain[64], aad[32], cipher[64];
	uint8_t		tag[16], out[64];
	size_t		plen, alen;

	unhex(c->key, key, sizeof(key));
	unhex(c->iv, iv, sizeof(iv));
	plen = unhex(c->plain, plain, sizeof(plain));
	alen = unhex(c->aad, aad, sizeof(aad));
	aes128_init(&aes, key);
	aes128_gcm_encrypt(&aes, iv, aad, alen, plain, plen, cipher, tag);
	check_hex(c->name, cipher, plen, c->cipher);
	check_hex(c->name, tag, 16, c->tag);
	check(aes128_gcm_decrypt(&aes, iv, aad, alen, cipher, plen, tag, out) &&
	    memcmp(out, plain, plen) == 0, "%s: decrypts", c->name);
	tag[15] ^= 1;
	memset(out, 0xee, sizeof(out));
	check(!aes128_gcm_decrypt(&aes, iv, aad, alen, cipher, plen, tag, out) &&
	    out[0] == 0xee, "%s: a wrong tag is refused, nothing written",
	    c->name);
}

static void
test_sha256(void)
{
	static const char	*two_blocks =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	uint8_t			 out[32], a[1000];
	struct sha256		 ctx;
	int			 i;

	sha256("abc", 3, out);
	check_hex("SHA-256 \"abc\"", out, 32, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	sha256(two_blocks, strlen(two_blocks), out);
	check_hex("SHA-256 of 448 bits", out, 32, "248d6a61d20638b8e5c026930c3e"
	    "6039a33ce45964ff2167f6ecedd419db06c1");
	sha256("", 0, out);
	check_hex("SHA-256 of nothing", out, 32, "e3b0c44298fc1c149afbf4c8996fb9"
	    "2427ae41e4649b934ca495991b7852b855");
	memset(a, 'a', sizeof(a));
	sha256_init(&ctx);
	for (i = 0; i < 1000; i++)
		sha256_update(&ctx, a, sizeof(a));
	sha256_final(&ctx, out);
	check_hex("SHA-256 of a million 'a'", out, 32, "cdc76e5c9914fb9281a1c7e2"
	    "84d73e67f1809a48a497200e046d39ccc7112cd0");
}

struct hmac_case {
	const char	*name;
	uint8_t		 keybyte;	/* key: keylen of these, or ... */
	size_t		 keylen;
	const char	*keyhex;	/* ... these */
	const char	*msg;		/* data: as text, or ... */
	uint8_t		 msgbyte;	/* ... 50 of these */
	const char	*mac;
};

static const struct hmac_case hmac_cases[] = {
	{ "RFC 4231 case 1", 0x0b, 20, NULL, "Hi There", 0,
	    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
	{ "RFC 4231 case 2", 0, 0, "4a656665", "what do ya want for nothing?", 0,
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
	{ "RFC 4231 case 3", 0xaa, 20, NULL, NULL, 0xdd,
	    "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
	{ "RFC 4231 case 4", 0, 0, "0102030405060708090a0b0c0d0e0f10111213141516"
	    "171819", NULL, 0xcd,
	    "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
	{ "RFC 4231 case 6 (a key longer than a block)", 0xaa, 131, NULL,
	    "Test Using Larger Than Block-Size Key - Hash Key First", 0,
	    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
	{ "RFC 4231 case 7 (and data longer than a block)", 0xaa, 131, NULL,
	    "This is a test using a larger than block-size key and a larger "
	    "than block-size data. The key needs to be hashed before being "
	    "used by the HMAC algorithm.", 0,
	    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
};

static void
test_hmac_case(const struct hmac_case *c)
{
	uint8_t	key[256], msg[256], out[32];
	size_t	keylen = c->keylen, len = 50;

	if (c->keyhex != NULL)
		keylen = unhex(c->keyhex, key, sizeof(key));
	else
		memset(key, c->keybyte, keylen);
	if (c->msg != NULL) {
		len = strlen(c->msg);
		memcpy(msg, c->msg, len);
	} else
		memset(msg, c->msgbyte, len);
	hmac_sha256(key, keylen, msg, len, out);
	check_hex(c->name, out, 32, c->mac);
}

static void
test_hkdf(void)
{
	uint8_t	ikm[22], salt[13], info[10], prk[32], okm[42];
	size_t	i;

	memset(ikm, 0x0b, sizeof(ikm));
	for (i = 0; i < sizeof(salt); i++)
		salt[i] = (uint8_t)i;
	for (i = 0; i < sizeof(info); i++)
		info[i] = (uint8_t)(0xf0 + i);
	hkdf_extract(salt, sizeof(salt), ikm, sizeof(ikm), prk);
	check_hex("RFC 5869 case 1: PRK", prk, 32, "077709362c2e32df0ddc3f0dc47b"
	    "ba6390b6c73bb50f9c3122ec844ad7c2b3e5");
	hkdf_expand(prk, info, sizeof(info), okm, sizeof(okm));
	check_hex("RFC 5869 case 1: OKM", okm, 42, "3cb25f25faacd57a90434f64d036"
	    "2f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
}

/* The key, iv or hp (name) of a client secret under a version's prefix. */
static void
check_label(const char *rfc, const uint8_t client[32], const char *prefix,
    const char *name, size_t len, const char *hex)
{
	uint8_t	out[16];
	char	label[32], what[64];

	snprintf(label, sizeof(label), "%s %s", prefix, name);
	hkdf_expand_label(client, label, out, len);
	snprintf(what, sizeof(what), "%s: %s", rfc, name);
	check_hex(what, out, len, hex);
}

/* The client's initial secret and keys for DCID 0x8394c8f03e515708. */
static void
test_initial_keys(const char *rfc, const char *salthex, const char *prefix,
    const char *secret_hex, const char *key_hex, const char *iv_hex,
    const char *hp_hex)
{
	uint8_t	dcid[8], salt[20], initial[32], client[32];
	char	what[64];

	unhex("8394c8f03e515708", dcid, sizeof(dcid));
	unhex(salthex, salt, sizeof(salt));
	hkdf_extract(salt, sizeof(salt), dcid, sizeof(dcid), initial);
	hkdf_expand_label(initial, "client in", client, sizeof(client));
	snprintf(what, sizeof(what), "%s: client_initial_secret", rfc);
	check_hex(what, client, 32, secret_hex);
	check_label(rfc, client, prefix, "key", 16, key_hex);
	check_label(rfc, client, prefix, "iv", 12, iv_hex);
	check_label(rfc, client, prefix, "hp", 16, hp_hex);
}

int
main(void)
{
	size_t	i;

	test_aes();
	for (i = 0; i < sizeof(gcm_cases) / sizeof(gcm_cases[0]); i++)
		test_gcm_case(&gcm_cases[i]);
	test_sha256();
	for (i = 0; i < sizeof(hmac_cases) / sizeof(hmac_cases[0]); i++)
		test_hmac_case(&hmac_cases[i]);
	test_hkdf();
	test_initial_keys("RFC 9001 A.1",
	    "38762cf7f55934b34d179ae6a4c80cadccbb7f0a", "quic",
	    "c00cf151ca5be075ed0ebfb5c80323c42d6b7db67881289af4008f1f6c357aea",
	    "1f369613dd76d5467730efcbe3b1a22d", "fa044b2f42a3fd3b46fb255c",
	    "9f50449e04a0e810283a1e9933adedd2");
	test_initial_keys("RFC 9369 A.1",
	    "0dede3def700a6db819381be6e269dcbf9bd2ed9", "quicv2",
	    "14ec9d6eb9fd7af83bf5a668bc17a7e283766aade7ecd0891f70f9ff7f4bf47b",
	    "8b1a0bc121284290a29e0971b5cd045d", "91f73e2351d8fa91660e909f",
	    "45b95e15235d6f45a6b19cbcb0294ba9");
	return test_summary();
}
