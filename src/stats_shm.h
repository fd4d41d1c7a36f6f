/*
 * stats_shm.h - the memory of a table of counters (stats.c): a memfd
 * mapped MAP_SHARED, whose pages never written a reader can tell from
 * the others without touching them, and take as zeros.
 *
 * Reading a page of shared memory that was never written makes it: a
 * read fault on shmem allocates, as it does not on private anonymous
 * memory, and maps the page into the reader.  Most of a table is never
 * written (histogram buckets nobody hits, rules without traffic), and a
 * scrape reads every counter: at 5,000 rules it made 100 MB of zeros
 * and spent its time reading them.  lseek(SEEK_DATA, SEEK_HOLE) on the
 * memfd says where the written pages are (a page swapped out counts as
 * written, as mincore would not say), without faulting anything in.
 *
 * What a process learnt is its own (the struct is in its memory; a
 * child forked later starts from a copy).  A page once written stays
 * written; a hole may be written at any time, so a reader forgets the
 * holes at the start of each round of reading (shm_forget_holes), and
 * reads a counter written since as the zero it was when it looked.
 */
#ifndef FERRYD_STATS_SHM_H
#define FERRYD_STATS_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct shm {
	char		*base;		/* the mapping, page aligned */
	size_t		 size;
	size_t		 pages;
	unsigned	 shift;		/* log2 of the page size */
	int		 fd;		/* -1: anonymous memory, all data */
	uint64_t	*known;		/* pages whose state is known, */
	uint64_t	*data;		/* ... and which of them are written */
	struct shm	*next;		/* this process's others (stats_shm.c) */
};

/*
 * Map size bytes of zeros, shared with the children forked later: a
 * memfd (close-on-exec) where there is one, else anonymous memory
 * (every page then taken as written).  NULL with errno.
 */
struct shm *shm_new(size_t size, const char *name);
/* Unmap m and close its memfd. */
void	shm_free(struct shm *m);
/*
 * Whether the page of p (in m) may hold a value other than 0: false
 * only for a page found never written since the last shm_forget_holes.
 * At most two lseek calls, each learning a whole run of pages.
 */
bool	shm_written(struct shm *m, const volatile void *p);
/* A new round of reading: the holes found so far may be written now. */
void	shm_forget_holes(struct shm *m);
/*
 * to[i] += from[i] for n words of m (from 8-byte aligned), the pages
 * never written skipped: read as the zeros they are, not faulted in.
 */
void	shm_add_words(struct shm *m, volatile uint64_t *to,
    const volatile uint64_t *from, size_t n);
/* The word at p in m, 0 without touching it when its page is a hole. */
uint64_t shm_word(struct shm *m, const volatile uint64_t *p);

#endif
