/*
 * maglev.c - build the Maglev lookup table.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "maglev.h"

#define FNV_INIT	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL
#define EMPTY		0xffff

/* splitmix64's finaliser: every input bit moves every output bit. */
static uint64_t
mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t
maglev_key(const void *bytes, size_t len)
{
	const unsigned char	*p = bytes;
	uint64_t		 h = FNV_INIT;
	size_t			 i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return mix(h);
}

int
maglev_build(uint16_t *table, const uint64_t *key, const int *weight,
    size_t n)
{
	uint32_t	*offset, *skip, *next;
	size_t		 filled = 0, i;
	uint32_t	 c;
	int		 w;

	/* every entry names a backend, and EMPTY none */
	BUG_ON(n == 0 || n >= EMPTY);
	offset = calloc(n, sizeof(*offset));
	skip = calloc(n, sizeof(*skip));
	next = calloc(n, sizeof(*next));
	if (offset == NULL || skip == NULL || next == NULL) {
		free(offset);
		free(skip);
		free(next);
		return -1;
	}
	for (i = 0; i < n; i++) {
		offset[i] = (uint32_t)(mix(key[i] ^ 0x6d61676c6576ULL) %
		    MAGLEV_SIZE);
		skip[i] = (uint32_t)(mix(key[i] ^ 0x736b6970ULL) %
		    (MAGLEV_SIZE - 1)) + 1;
	}
	memset(table, 0xff, MAGLEV_SIZE * sizeof(*table));
	/*
	 * Round after round, each backend takes weight entries: the next
	 * free ones along its own permutation of the table.
	 */
	while (filled < MAGLEV_SIZE)
		for (i = 0; i < n && filled < MAGLEV_SIZE; i++)
			for (w = 0; w < weight[i] && filled < MAGLEV_SIZE;
			    w++) {
				do
					c = (uint32_t)((offset[i] +
					    (uint64_t)next[i]++ * skip[i]) %
					    MAGLEV_SIZE);
				while (table[c] != EMPTY);
				BUG_ON(next[i] > MAGLEV_SIZE);	/* a full turn */
				table[c] = (uint16_t)i;
				filled++;
			}
	free(offset);
	free(skip);
	free(next);
	return 0;
}
