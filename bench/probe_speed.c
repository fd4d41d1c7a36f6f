/*
 * probe_speed.c - what a probe costs: the nanoseconds probe_tls takes
 * over a whole ClientHello and over the same hello fed one byte at a
 * time (a call per byte: the cost must stay linear), and probe_http over
 * a request head.  Not part of make check (no timing in tests); build
 * and run from the top of a configured tree:
 *
 *   gcc -O2 -I. -Isrc -o probe_speed bench/probe_speed.c \
 *       src/probe_tls.c src/probe_http.c src/bug.c src/log.c src/safefile.c
 *   ./probe_speed tests/fuzz/probe/tls-curl-h2.bin tls 200000
 *   ./probe_speed tests/fuzz/probe/tls-curl-h2.bin tls-bytes 20000
 *   ./probe_speed tests/fuzz/probe/http-curl.bin http 200000
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe.h"

static struct probe_tls		tls;
static struct probe_http	http;

static double
now(void)
{
	struct timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One run over buf: whole, or a call per byte when bytewise. */
static enum probe_verdict
run(const char *kind, const uint8_t *buf, size_t len)
{
	enum probe_verdict	v = PROBE_AGAIN;
	size_t			k;

	if (strcmp(kind, "http") == 0) {
		memset(&http, 0, sizeof(http));
		return probe_http(&http, buf, len);
	}
	memset(&tls, 0, sizeof(tls));
	if (strcmp(kind, "tls") == 0)
		return probe_tls(&tls, buf, len);
	for (k = 1; k <= len && v == PROBE_AGAIN; k++)
		v = probe_tls(&tls, buf, k);
	return v;
}

int
main(int argc, char **argv)
{
	static uint8_t		 buf[PROBE_PEEK_MAX];
	enum probe_verdict	 v = PROBE_AGAIN;
	FILE			*f;
	size_t			 len;
	long			 i, runs;
	double			 t;

	if (argc != 4 || (f = fopen(argv[1], "rb")) == NULL) {
		fprintf(stderr, "usage: probe_speed FILE tls|tls-bytes|http "
		    "RUNS\n");
		return 2;
	}
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	runs = atol(argv[3]);
	t = now();
	for (i = 0; i < runs; i++)
		v = run(argv[2], buf, len);
	t = now() - t;
	printf("%s, %zu bytes, %s: %.0f ns a run (%ld runs), verdict %d\n",
	    argv[1], len, argv[2], t / (double)runs * 1e9, runs, (int)v);
	return v == PROBE_MATCH ? 0 : 1;
}
