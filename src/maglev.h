/*
 * maglev.h - Maglev consistent hashing (Eisenbud et al., NSDI 2016): a
 * lookup table in which every backend owns a share of the entries in
 * proportion to its weight.  The table depends only on the backends'
 * keys and weights, so every ferryd host with the same backend list
 * builds the same table and sends a client to the same backend; taking a
 * backend out moves little more than its own clients.
 */
#ifndef FERRYD_MAGLEV_H
#define FERRYD_MAGLEV_H

#include <stddef.h>
#include <stdint.h>

/* A prime, much larger than UPSTREAM_MAX (upstream.h). */
#define MAGLEV_SIZE	65537

/* A 64-bit key of len bytes: the same on every host and build. */
uint64_t maglev_key(const void *bytes, size_t len);

/*
 * Fill table (MAGLEV_SIZE entries) with backend indices 0..n-1; key[i]
 * names backend i (maglev_key() of its address), weight[i] >= 1 is how
 * many entries it takes per round.  n is 1..65535.  0, or -1 when out
 * of memory.
 */
int	maglev_build(uint16_t *table, const uint64_t *key, const int *weight,
    size_t n);

#endif
