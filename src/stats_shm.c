/*
 * stats_shm.c - a table's memory, and where it was written (stats_shm.h).
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stats_shm.h"

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

#define BIT(map, i)	((map)[(i) / 64] >> ((i) % 64) & 1)

/* Set bits first to end (excluded) of map. */
static void
set_bits(uint64_t *map, size_t first, size_t end)
{
	for (; first < end && first % 64 != 0; first++)
		map[first / 64] |= (uint64_t)1 << (first % 64);
	for (; first + 64 <= end; first += 64)
		map[first / 64] = ~(uint64_t)0;
	for (; first < end; first++)
		map[first / 64] |= (uint64_t)1 << (first % 64);
}

/* A memfd of size bytes, or -1 (none here: anonymous memory then). */
static int
shm_fd(size_t size, const char *name)
{
	int fd = -1;

#if defined(HAVE_MEMFD_CREATE) && defined(SEEK_DATA) && defined(SEEK_HOLE)
	if ((fd = memfd_create(name, MFD_CLOEXEC)) != -1 &&
	    ftruncate(fd, (off_t)size) == -1) {
		close(fd);
		fd = -1;
	}
#else
	(void)size;
	(void)name;
#endif
	return fd;
}

/*
 * Every shm of this process: a table's header, which points at its shm,
 * lives in the shared mapping itself, where a leak checker does not look.
 */
static struct shm *live;

struct shm *
shm_new(size_t size, const char *name)
{
	struct shm	*m;
	size_t		 page = (size_t)getpagesize(), words;
	int		 saved;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	while (((size_t)1 << m->shift) < page)
		m->shift++;
	m->size = (size + page - 1) & ~(page - 1);
	m->pages = m->size >> m->shift;
	words = m->pages / 64 + 1;
	m->fd = shm_fd(m->size, name);
	m->base = m->fd != -1 ? mmap(NULL, m->size, PROT_READ | PROT_WRITE,
	    MAP_SHARED, m->fd, 0) : mmap(NULL, m->size, PROT_READ |
	    PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m->base == MAP_FAILED || (m->known = calloc(words,
	    sizeof(uint64_t))) == NULL || (m->data = calloc(words,
	    sizeof(uint64_t))) == NULL) {
		saved = errno;
		if (m->base != MAP_FAILED)
			munmap(m->base, m->size);
		m->base = NULL;
		shm_free(m);
		errno = saved;
		return NULL;
	}
#ifdef MADV_NOHUGEPAGE
	/*
	 * Where shmem takes huge pages, one counter written would make 2 MB
	 * of the table written, and read by every scrape.
	 */
	if (m->fd != -1)
		(void)madvise(m->base, m->size, MADV_NOHUGEPAGE);
#endif
	m->next = live;
	live = m;
	return m;
}

void
shm_free(struct shm *m)
{
	struct shm **p;

	if (m == NULL)
		return;
	for (p = &live; *p != NULL; p = &(*p)->next)
		if (*p == m) {
			*p = m->next;
			break;
		}
	if (m->base != NULL)
		munmap(m->base, m->size);
	if (m->fd != -1)
		close(m->fd);
	free(m->known);
	free(m->data);
	free(m);
}

/*
 * Learn the run of pages from pg on: written up to the next hole, or a
 * hole up to the next written page (or the end).  Whether pg is written.
 */
static bool
learn(struct shm *m, size_t pg)
{
	off_t	off = (off_t)(pg << m->shift), d, h;
	size_t	end;

	if ((d = lseek(m->fd, off, SEEK_DATA)) == -1 && errno == ENXIO)
		d = (off_t)m->size;	/* no written page from off on */
	if (d > off) {
		end = ((size_t)d + ((size_t)1 << m->shift) - 1) >> m->shift;
		set_bits(m->known, pg, end < m->pages ? end : m->pages);
		return false;
	}
	/* Written at off, or lseek cannot tell: a page at least. */
	h = d == off ? lseek(m->fd, off, SEEK_HOLE) : -1;
	end = h > off ? ((size_t)h + ((size_t)1 << m->shift) - 1) >>
	    m->shift : pg + 1;
	if (end > m->pages)
		end = m->pages;
	set_bits(m->known, pg, end);
	set_bits(m->data, pg, end);
	return true;
}

bool
shm_written(struct shm *m, const volatile void *p)
{
	size_t pg;

	if (m == NULL || m->fd == -1)
		return true;
	pg = (size_t)((const volatile char *)p - m->base) >> m->shift;
	if (pg >= m->pages)
		return true;	/* not ours: read it */
	if (BIT(m->known, pg))
		return BIT(m->data, pg);
	return learn(m, pg);
}

void
shm_forget_holes(struct shm *m)
{
	size_t i;

	if (m == NULL || m->fd == -1)
		return;
	for (i = 0; i <= m->pages / 64; i++)
		m->known[i] &= m->data[i];
}

void
shm_add_words(struct shm *m, volatile uint64_t *to,
    const volatile uint64_t *from, size_t n)
{
	size_t	page = (size_t)1 << (m != NULL ? m->shift : 12), k, i;

	while (n > 0) {
		/* The words from from to the end of its page. */
		k = (page - ((uintptr_t)from & (page - 1))) / sizeof(*from);
		if (k > n)
			k = n;
		if (shm_written(m, from))
			for (i = 0; i < k; i++)
				to[i] += from[i];
		to += k;
		from += k;
		n -= k;
	}
}

uint64_t
shm_word(struct shm *m, const volatile uint64_t *p)
{
	return shm_written(m, p) ? *p : 0;
}
