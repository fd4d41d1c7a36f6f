/*
 * fuzz_probe.c - libFuzzer harness for the first-bytes parsers (probe.h):
 * every input goes to every probe (TLS, HTTP, SSH, OpenVPN, SOCKS5,
 * XMPP), so that one corpus of real clients' first bytes feeds them all.
 * Besides the sanitizers' checks (the input is an exact copy: a byte read
 * past it is caught), what each probe says must hold together:
 *
 *  - results after a match keep the contract (strings NUL-terminated
 *    within their arrays, counts within bounds: probe_run.c's describe);
 *  - a probe's own progress never passes the bytes it was given;
 *  - the input fed in pieces (at cuts the input itself chooses, and one
 *    byte at a time when it is short) gives the verdict and results the
 *    whole input gives: a prefix never says yes or no early.
 *
 * sslh's probes (probe_sslh.c) go over every input too, whole: they
 * are asked afresh at every look and a prefix may say otherwise than
 * the whole (sslh's), so only the sanitizers and the names they hand
 * on (probe_run.c) are checked.
 *
 * make fuzz FUZZ_SECONDS=N runs it with clang's libFuzzer and the
 * dictionary probe.dict; make check replays the corpus in tests/fuzz/probe
 * with any compiler (replay.c).
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kit/probe_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Byte-at-a-time costs a call per byte: for short inputs only. */
#define BYTEWISE_MAX	4096

static uint8_t	st_whole[sizeof(struct probe_tls)];
static uint8_t	st_split[sizeof(struct probe_tls)];
static size_t	cuts[BYTEWISE_MAX];

/* Where the state says it got to: never past len. */
static bool
progress_ok(const struct probe_kind *k, const void *st, size_t len)
{
	const struct probe_tls	*tls = st;
	const struct probe_http	*http = st;

	if (strcmp(k->name, "tls") == 0)
		return tls->pos <= len && tls->hello_len <= tls->pos &&
		    tls->rec_got < 5 && tls->got <= 2;
	if (strcmp(k->name, "http") == 0)
		return http->pos <= len && http->line <= http->pos;
	return true;
}

/* The verdict and results of k over buf fed at cuts[0..n), then whole. */
static enum probe_verdict
run(const struct probe_kind *k, void *st, const uint8_t *buf, size_t len,
    const size_t *at, size_t n, char *out, size_t size)
{
	void			*state = k->state_size > 0 ? st : NULL;
	enum probe_verdict	 v = probe_run(k, state, buf, len, at, n);

	out[0] = '\0';
	if (!progress_ok(k, st, len) ||
	    (v == PROBE_MATCH && !k->describe(state, out, size)))
		abort();
	return v;
}

static void
fuzz_one(const struct probe_kind *k, const uint8_t *buf, size_t len)
{
	char			 whole[2048], split[2048];
	enum probe_verdict	 v;
	size_t			 i, two[2];

	v = run(k, st_whole, buf, len, NULL, 0, whole, sizeof(whole));
	/* Cuts chosen by the input: its first and last bytes. */
	if (len >= 2) {
		two[0] = buf[0] % len;
		two[1] = two[0] + (len - two[0]) * buf[len - 1] / 256;
		if (run(k, st_split, buf, len, two, 2, split, sizeof(split)) !=
		    v || strcmp(whole, split) != 0)
			abort();
	}
	if (len <= BYTEWISE_MAX) {
		for (i = 0; i < len; i++)
			cuts[i] = i;
		if (run(k, st_split, buf, len, cuts, len, split,
		    sizeof(split)) != v || strcmp(whole, split) != 0)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t	*copy;
	size_t	 i;

	/* No peek holds more: the stage never hands a probe more. */
	if (size > PROBE_PEEK_MAX)
		size = PROBE_PEEK_MAX;
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	for (i = 0; i < nprobe_kinds; i++)
		fuzz_one(&probe_kinds[i], copy, size);
	for (i = 0; i < nsslh_probe_kinds; i++)
		(void)sslh_probe_kinds[i].stateless(copy, size);
	free(copy);
	return 0;
}
