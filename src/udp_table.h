/*
 * udp_table.h - a worker's UDP session table (udp_table.c), and the
 * making of it: its buffers, pacer and budget.
 */
#ifndef FERRYD_UDP_TABLE_H
#define FERRYD_UDP_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct acl;
struct event_loop;
struct rule;
struct session_list;
struct udp_pacer;
struct udp_from;
struct udp_key;
struct udp_rule;
struct udp_session;
struct udp_sessions;

/* The key of a datagram from->client to from->local on from->rule. */
void	udp_key_make(const struct udp_sessions *us,
    const struct udp_from *from, struct udp_key *k);
uint32_t udp_key_hash(const struct udp_key *k);
/* The session of k (its hash h), or NULL. */
struct udp_session *udp_session_find(const struct udp_sessions *us,
    const struct udp_key *k, uint32_t h);
/* Put s in its bucket (s->key and s->hash set), or take it out. */
void	udp_table_add(struct udp_sessions *us, struct udp_session *s);
void	udp_table_remove(struct udp_sessions *us, struct udp_session *s);
/* Twice the buckets, when there are more sessions than buckets. */
void	udp_table_grow(struct udp_sessions *us);

/* Whether a new session of rule (its ur) fits, and how. */
enum udp_room {
	UDP_ROOM,		/* under max_sessions and the budget */
	UDP_ROOM_EVICT,		/* once the rule's oldest session is gone */
	UDP_ROOM_NONE		/* the budget is full of other rules' */
};
enum udp_room udp_table_room(const struct udp_sessions *us,
    const struct udp_rule *ur, const struct rule *rule);
/* No room: from's datagram is dropped, counted and said (rate-limited). */
void	udp_table_full(struct udp_sessions *us, const struct udp_from *from);

/*
 * Each session of l's rules copied into l, those that only wait for late
 * replies too ("show sessions", session_list.h).
 */
void	udp_sessions_list(const struct udp_sessions *us,
    struct session_list *l);

/*
 * Sessions of a configuration's nrules rules in loop, counted in their
 * rules' counters; acl is its global allow and deny.
 */
struct udp_sessions *udp_sessions_new(struct event_loop *loop,
    const struct rule *rules, size_t nrules, const struct acl *acl);

/* UDP_BATCH buffers of UDP_DATAGRAM_MAX bytes, for the listener's reads. */
char	*udp_sessions_buffers(struct udp_sessions *us);

/* The worker's pacer (udp_pace.h), for its listeners and replies. */
struct udp_pacer *udp_sessions_pacer(struct udp_sessions *us);

/*
 * At most budget sessions over all rules (0: no limit but max_sessions):
 * each takes a descriptor and one of the host's ephemeral ports
 * (fdlimit_udp_sessions).
 */
void	udp_sessions_set_budget(struct udp_sessions *us, int budget);

/* How many sessions are open. */
int	udp_sessions_count(const struct udp_sessions *us);

#endif
