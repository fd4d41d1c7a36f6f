/*
 * lookup.h - getaddrinfo() that can be recorded and replayed, so that the
 * master never waits on a name server.
 *
 * A reload's names are looked up by a child (resolver.c) that loads the
 * configuration with the lookups recorded; the master then loads it
 * again replaying those answers, without a query, while its loop never
 * stopped.  Outside of those two, lookups are live (the first load at
 * start, the tools).  Every answer, live or replayed, is the module's
 * own copy, freed with lookup_free().
 */
#ifndef FERRYD_LOOKUP_H
#define FERRYD_LOOKUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netdb.h>

enum lookup_mode {
	LOOKUP_LIVE = 0,	/* getaddrinfo() */
	LOOKUP_RECORD,		/* getaddrinfo(), answers kept */
	LOOKUP_REPLAY,		/* only the answers kept; none asked */
	LOOKUP_OFFLINE		/* none asked: a name is 192.0.2.1 */
};

/*
 * getaddrinfo(node, service, hints) as the mode says.  Replaying, a
 * question that was not recorded (the file changed in between) fails
 * with EAI_AGAIN, as a name server that did not answer.
 */
int	lookup_getaddrinfo(const char *node, const char *service,
    const struct addrinfo *hints, struct addrinfo **res);
void	lookup_free(struct addrinfo *res);

/*
 * Start recording (forgetting what was), or replaying what
 * lookup_load() took in; lookup_live() forgets the answers.
 */
void	lookup_record(void);
void	lookup_live(void);
/*
 * For the tools that read only a file's top-level settings (ferryd -s
 * stop, status, reopen): numeric addresses as they are, every name
 * answered with an address of TEST-NET-1 (RFC 5737) and no query, so
 * that a name server that does not answer cannot hold a stop up.
 */
void	lookup_offline(void);
/*
 * The answers recorded, as bytes for lookup_load() in another process:
 * a malloc'd buffer of *len bytes, or NULL when out of memory.
 */
uint8_t *lookup_save(size_t *len);
/* Replay the answers in buf from now on; -1 when buf is not whole. */
int	lookup_load(const uint8_t *buf, size_t len);

#endif
