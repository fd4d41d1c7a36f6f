/*
 * probe_run.h - what the probes' unit tests and fuzz harness share: each
 * probe of probe.h behind one interface, fed a buffer in pieces as the
 * peek stage feeds it, its results written out as one line of text, which
 * is how tests and the harness compare a split input with a whole one.
 */
#ifndef FERRYD_PROBE_RUN_H
#define FERRYD_PROBE_RUN_H

#include "probe.h"

struct probe_kind {
	const char	*name;
	size_t		 state_size;	/* 0: stateless */
	/* One of the two is set. */
	enum probe_verdict (*probe)(void *st, const uint8_t *buf, size_t len);
	enum probe_verdict (*stateless)(const uint8_t *buf, size_t len);
	/* The results as "sni alpn,alpn" or "host" ("-": none); false if
	 * they break the contract (a string not NUL-terminated, a count
	 * out of range). */
	bool	(*describe)(const void *st, char *out, size_t size);
	/* The state made ready for a first call (the stateful ones). */
	void	(*start)(void *st);
};

extern const struct probe_kind	probe_kinds[];
extern const size_t		nprobe_kinds;

/* A probe of probe_kinds or sslh_probe_kinds by name. */
const struct probe_kind *probe_kind(const char *name);

/*
 * Zero st, then feed buf[0..cuts[0]), buf[0..cuts[1]), ... and buf whole
 * until a final verdict, as the peek stage does; the cuts must not
 * decrease.  A state of state_size bytes (or NULL for a stateless one).
 */
enum probe_verdict probe_run(const struct probe_kind *k, void *st,
    const uint8_t *buf, size_t len, const size_t *cuts, size_t ncuts);

/*
 * sslh's probes (probe_sslh.c), by probe_kind as "sslh-NAME": stateless,
 * asked afresh at every look, so that a prefix may say what the whole
 * does not (not for probe_run's agreement).  The TLS one four ways:
 * "sslh-tls" without names, "sslh-tls-sni" wanting www.example.org,
 * "sslh-tls-alpn" wanting h2, "sslh-tls-both" both (names as sent).
 */
extern const struct probe_kind	sslh_probe_kinds[];
extern const size_t		nsslh_probe_kinds;

#endif
