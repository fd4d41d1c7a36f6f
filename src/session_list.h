/*
 * session_list.h - a worker's open connections and UDP sessions, taken
 * as a snapshot for "show sessions" (worker_sessions.c).  Each session
 * file walks its own sessions and copies out what the line shows, so
 * that the asker reads no session's insides and the session files know
 * no process and no text.  A snapshot, not a cursor: the lines are
 * written over several turns of the loop, and sessions that end
 * meanwhile must not be read.
 */
#ifndef FERRYD_SESSION_LIST_H
#define FERRYD_SESSION_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "rule.h"

struct backend;

struct session_entry {
	const struct rule	*rule;		/* the listener's */
	const char		*route;		/* the route taken, or NULL */
	const struct backend	*backend;	/* NULL: none (yet) */
	const char		*state;
	struct sockaddr_any	 client;
	uint64_t		 from_client;	/* bytes read from the client */
	uint64_t		 from_backend;	/* ... and from the backend */
	int64_t			 started;	/* event_now()'s clock */
};

struct session_list {
	const struct rule	*rules;		/* the configuration's */
	size_t			 nrules;
	const bool		*want;		/* per rule; NULL: every one */
	struct session_entry	*e;
	size_t			 n, max;	/* taken, room */
	uint64_t		 more;		/* wanted past max */
};

/*
 * Where a session of rule goes in l: NULL when its rule is not wanted,
 * or when l is full (then counted in more).
 */
static inline struct session_entry *
session_list_add(struct session_list *l, const struct rule *rule)
{
	uintptr_t	first = (uintptr_t)l->rules, at = (uintptr_t)rule;
	size_t		i;

	if (l->want != NULL) {
		/* Compared as numbers: rule may be of no array of ours. */
		if (at < first)
			return NULL;
		i = (at - first) / sizeof(*rule);
		if (i >= l->nrules || !l->want[i])
			return NULL;
	}
	if (l->n == l->max) {
		l->more++;
		return NULL;
	}
	return &l->e[l->n++];
}

#endif
