/*
 * udp_table.c - a worker's UDP session table: a hash of (rule, client
 * address and port, local address) to the session, grown by doubling,
 * and the room a new session may have in it (max_sessions per rule, the
 * worker's budget over all rules); the table made, with the worker's
 * buffers and pacer.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "addr.h"
#include "bug.h"
#include "log.h"
#include "stats.h"
#include "rule.h"
#include "session_list.h"
#include "udp_pace.h"
#include "udp_pass.h"
#include "udp_table.h"
#include "udp_types.h"

uint32_t
udp_key_hash(const struct udp_key *k)
{
	const unsigned char	*p = (const unsigned char *)k;
	uint32_t		 h = 2166136261u;	/* FNV-1a */
	size_t			 i;

	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* The key of a datagram from->client to from->local on from->rule. */
void
udp_key_make(const struct udp_sessions *us, const struct udp_from *from,
    struct udp_key *k)
{
	const struct sockaddr_in	*sin = (const void *)from->client;
	const struct sockaddr_in6	*sin6 = (const void *)from->client;

	memset(k, 0, sizeof(*k));
	k->rule = (uint32_t)(from->rule - us->conf_rules);
	k->local = from->local;
	if (from->client->sa_family == AF_INET) {
		k->client.s6_addr[10] = k->client.s6_addr[11] = 0xff;
		memcpy(&k->client.s6_addr[12], &sin->sin_addr, 4);
		k->port = sin->sin_port;
	} else {
		k->client = sin6->sin6_addr;
		k->port = sin6->sin6_port;
	}
}

struct udp_session *
udp_session_find(const struct udp_sessions *us, const struct udp_key *k,
    uint32_t h)
{
	struct udp_session *s;

	for (s = us->buckets[h & (us->nbuckets - 1)]; s != NULL; s = s->next)
		if (s->hash == h && memcmp(&s->key, k, sizeof(*k)) == 0)
			return s;
	return NULL;
}

/* Twice the buckets, when there are more sessions than buckets. */
void
udp_table_grow(struct udp_sessions *us)
{
	struct udp_session	**b, *s, *next;
	size_t			  n = us->nbuckets * 2, i;

	BUG_ON(us->nbuckets == 0 || (us->nbuckets & (us->nbuckets - 1)));
	if ((b = calloc(n, sizeof(*b))) == NULL)
		return;		/* longer chains, still correct */
	for (i = 0; i < us->nbuckets; i++)
		for (s = us->buckets[i]; s != NULL; s = next) {
			next = s->next;
			s->next = b[s->hash & (n - 1)];
			b[s->hash & (n - 1)] = s;
		}
	free(us->buckets);
	us->buckets = b;
	us->nbuckets = n;
}

void
udp_table_remove(struct udp_sessions *us, struct udp_session *s)
{
	struct udp_session **pp = &us->buckets[s->hash & (us->nbuckets - 1)];

	/* a session leaves the table it is in, once */
	while (*pp != s) {
		BUG_ON(*pp == NULL);
		pp = &(*pp)->next;
	}
	*pp = s->next;
}

void
udp_table_add(struct udp_sessions *us, struct udp_session *s)
{
	/* its key's hash, and not there already */
	BUG_ON(s->hash != udp_key_hash(&s->key) ||
	    udp_session_find(us, &s->key, s->hash) != NULL);
	s->next = us->buckets[s->hash & (us->nbuckets - 1)];
	us->buckets[s->hash & (us->nbuckets - 1)] = s;
}

enum udp_room
udp_table_room(const struct udp_sessions *us, const struct udp_rule *ur,
    const struct rule *rule)
{
	if (ur->count < rule->max_sessions &&
	    (us->budget == 0 || us->count < us->budget))
		return UDP_ROOM;
	/*
	 * Full: the rule's least recently active session makes room, so a
	 * flood on one rule evicts its own and never another rule's.
	 */
	return TAILQ_EMPTY(&ur->lru) ? UDP_ROOM_NONE : UDP_ROOM_EVICT;
}

void
udp_table_full(struct udp_sessions *us, const struct udp_from *from)
{
	static struct log_limit	limit;
	char			client[ADDR_STRLEN];

	stats_rule(from->rule)->dropped++;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: no UDP session for %s: "
	    "this worker holds its budget of %d session(s), all of other "
	    "rules; its datagram is dropped", rule_log_name(from->rule),
	    addr_format(from->client, client, sizeof(client)), us->budget);
}

/* What each state is called in "show sessions". */
static const char *const state_names[] = {
	[UDP_OPENING] = "opening",
	[UDP_CONNECTING] = "connecting",
	[UDP_ACTIVE] = "active",
	[UDP_DETACHED] = "lingering",
	[UDP_DETACHED_CONNECTING] = "lingering",
	[UDP_UNDECIDED] = "undecided"
};

void
udp_sessions_list(const struct udp_sessions *us, struct session_list *l)
{
	const struct udp_session	*s;
	struct session_entry		*e;
	size_t				 i;

	for (i = 0; i < us->nrules; i++)
		TAILQ_FOREACH(s, &us->rules[i].lru, lru) {
			if ((e = session_list_add(l, s->rule)) == NULL)
				continue;
			e->rule = s->rule;
			/* A route's backends name it (conf_route.c). */
			e->route = s->backend != NULL && !s->stranger ?
			    s->backend->route : NULL;
			/* A stranger's backend is no longer the rule's. */
			e->backend = s->stranger ? NULL : s->backend;
			e->state = state_names[s->state];
			memset(&e->client, 0, sizeof(e->client));
			memcpy(&e->client.ss, &s->client, s->client_len);
			e->client.len = s->client_len;
			e->from_client = s->bytes_in;
			e->from_backend = s->bytes_out;
			e->started = s->started;
		}
}

struct udp_sessions *
udp_sessions_new(struct event_loop *loop, const struct rule *rules,
    size_t nrules, const struct acl *acl)
{
	struct udp_sessions	*us = calloc(1, sizeof(*us));
	size_t			 i;

	if (us == NULL)
		return NULL;
	us->loop = loop;
	us->conf_rules = rules;
	us->nrules = nrules;
	us->acl = acl;
	udp_pass_init(&us->pass);
	us->nbuckets = 256;
	us->buckets = calloc(us->nbuckets, sizeof(*us->buckets));
	us->rules = calloc(nrules, sizeof(*us->rules));
	us->pacer = udp_pacer_new(loop);
	if (us->buckets == NULL || us->rules == NULL || us->pacer == NULL) {
		free(us->pacer);
		free(us->buckets);
		free(us->rules);
		free(us);
		return NULL;
	}
	for (i = 0; i < nrules; i++) {
		TAILQ_INIT(&us->rules[i].lru);
		us->rules[i].lfd = -1;
	}
	return us;
}

struct udp_pacer *
udp_sessions_pacer(struct udp_sessions *us)
{
	return us->pacer;
}

char *
udp_sessions_buffers(struct udp_sessions *us)
{
	if (us->bufs == NULL)
		us->bufs = malloc((size_t)UDP_BATCH * UDP_DATAGRAM_MAX);
	return us->bufs;
}

void
udp_sessions_set_budget(struct udp_sessions *us, int budget)
{
	us->budget = budget;
}

int
udp_sessions_count(const struct udp_sessions *us)
{
	return us->count;
}
