/*
 * stats.h - counters and latency histograms per rule, per backend and
 * per worker, in memory shared by the master and the workers.
 *
 * The master maps a table per configuration before it forks that
 * configuration's workers.  A table has a column per worker slot, written
 * by that slot's worker alone with plain stores (no lock, no atomic
 * read-modify-write, no system call), and a base column the master
 * writes.  A respawned worker goes on in its slot's column, so nothing
 * it counted is lost; its gauges (open connections and sessions, going
 * up and down in the column of whoever holds them now: a UDP session
 * handed over at a reload moves) are zeroed when the master reaps it.
 *
 * A reload maps a new table whose rules and backends point at those of
 * the table before (by rule name, then by backend address): readers add
 * what the old table holds while its generation drains, and once its
 * last worker is gone the master folds it into the new table's base.
 * Counters of rules and backends that stay are therefore monotonic
 * across respawns and reloads.  Readers sum the columns; a sequence
 * number tells them to read again when they met a fold half-way.  A
 * rule a reload removed is added, when its table folds, to a total the
 * master keeps of its own (retired): with it, the master's last line
 * says what the workers did in the daemon's whole life.
 *
 * These tables are the one place where an event is counted: the
 * scoreboard keeps heartbeats, not counts.
 */
#ifndef FERRYD_STATS_H
#define FERRYD_STATS_H

#include <stdint.h>

#include "rule.h"
#include "stats_hist.h"

struct conf;

/*
 * What is counted of a rule (a port range counts as one rule).  Only
 * volatile uint64_t counters: summed as arrays.  Its histograms are
 * apart (struct stats_rule_hist), in the table only for the rules whose
 * stats_histograms asks: most of a rule's bytes, and of a table's.
 */
struct stats_rule {
	volatile uint64_t	accepted;	/* TCP connections taken on */
	volatile uint64_t	closed;		/* ... and closed */
	volatile uint64_t	active;		/* gauge: ... open now */
	volatile uint64_t	denied;		/* by allow/deny */
	volatile uint64_t	refused_max;	/* max_connections reached */
	volatile uint64_t	refused_per_client; /* max_connections_per_client */
	volatile uint64_t	refused_rate;	/* connection_rate */
	volatile uint64_t	no_backend;	/* no backend could be had */
	volatile uint64_t	bytes_in;	/* from clients */
	volatile uint64_t	bytes_out;	/* to clients */
	volatile uint64_t	sessions;	/* UDP sessions opened */
	volatile uint64_t	active_sessions; /* gauge: open now */
	volatile uint64_t	datagrams_in;	/* from clients, forwarded */
	volatile uint64_t	datagrams_out;	/* to clients */
	volatile uint64_t	truncated;	/* datagrams the kernel cut */
	volatile uint64_t	dropped;	/* datagrams not sent on */
	volatile uint64_t	paced;		/* UDP: pauses in a backlog */
	volatile uint64_t	rate_dropped;	/* UDP: datagrams over rate_limit
						 * or rule_rate_limit */
	volatile uint64_t	rate_waits;	/* TCP: reads put off for
						 * rule_rate_limit */
	volatile uint64_t	proxy_errors;	/* accept_proxy: bad header */
	volatile uint64_t	evicted;	/* UDP sessions, for max_sessions */
	volatile uint64_t	icmp_errors;	/* backend said unreachable */
	volatile uint64_t	queued;		/* gauge: TCP clients waiting
						 * for a backend (queue_timeout) */
	volatile uint64_t	queue_timeouts;	/* ... that waited too long */
	volatile uint64_t	routed;		/* a route's (only): taken */
	volatile uint64_t	unmatched;	/* routes: no route took it */
	volatile uint64_t	peek_timeouts;	/* routes: undecided in time */
	volatile uint64_t	peek_bad;	/* routes: too long undecided,
						 * or gone before */
	volatile uint64_t	resets_client;	/* TCP: ended by the client's
						 * reset (passed on after the
						 * bytes before it) */
	volatile uint64_t	resets_backend;	/* ... by the backend's */
	volatile uint64_t	reset_drains_cut; /* ... whose other side took
						 * nothing more for too long */
	volatile uint64_t	accept_errors;	/* accept(2) failed, or its
						 * session could not start:
						 * out of descriptors or
						 * memory, or another error */
	volatile uint64_t	quic_undecryptable; /* UDP sessions whose
						 * Initial's tag failed */
	volatile uint64_t	quic_unread;	/* ... whose QUIC the routes
						 * could not read: version,
						 * malformed, too big */
	volatile uint64_t	quic_migrations; /* UDP sessions moved to
						 * their QUIC client's new
						 * address (udp_cid.c) */
	volatile uint64_t	quic_cids;	/* gauge: QUIC CIDs tracked */
	volatile uint64_t	quic_cids_full;	/* ... not, the table full */
	volatile uint64_t	quic_followed;	/* moved: from another
						 * worker (udp_follow.c) */
	volatile uint64_t	quic_follow_refused; /* ... asked, it had none */
	volatile uint64_t	quic_follow_timeouts; /* ... no answer in time */
} __attribute__((aligned(64)));		/* slots share no cache line */

/* What is counted of a backend (a range's ports' count as the range's). */
struct stats_backend {
	volatile uint64_t	attempts;	/* connects started (TCP) */
	volatile uint64_t	refused;	/* ... refused */
	volatile uint64_t	timeouts;	/* ... timed out */
	volatile uint64_t	failed;		/* ... failed otherwise */
	volatile uint64_t	opened;		/* connections and sessions */
	volatile uint64_t	active;		/* gauge: open now */
	volatile uint64_t	bytes_in;	/* from clients, to it */
	volatile uint64_t	bytes_out;	/* from it, to clients */
	volatile uint64_t	icmp_errors;	/* UDP: unreachable, from it */
} __attribute__((aligned(64)));

/*
 * The latency histograms of a rule (or route), and of a backend: only
 * struct hist, summed as arrays as the counters are.
 */
struct stats_rule_hist {
	struct hist		peek;		/* routes: accept to the pick */
	struct hist		connect;	/* accept to backend connected */
	struct hist		first_byte;	/* connected to its first byte */
	struct hist		duration;	/* accept (or session) to close */
	struct hist		reply;		/* UDP: datagram to its reply */
} __attribute__((aligned(64)));

struct stats_backend_hist {
	struct hist		connect;	/* the connect that succeeded */
	struct hist		first_byte;
	struct hist		duration;
	struct hist		reply;
} __attribute__((aligned(64)));

/* What is counted of a worker slot. */
struct stats_worker {
	volatile uint64_t	iterations;	/* of its event loop */
	volatile uint64_t	pid;		/* the worker's, 0 before */
} __attribute__((aligned(64)));		/* bumped every loop turn */

/*
 * The counters this worker writes: its slot's column of its table; of
 * the histograms, the rows of the rules and backends that have them
 * (hist_row: a rule's or backend's stat id to its row, or -1).
 */
struct stats_here {
	struct stats_rule		*rules;
	struct stats_backend		*backends;
	struct stats_rule_hist		*rule_hists;
	struct stats_backend_hist	*backend_hists;
	const int32_t			*rule_hist_row;
	const int32_t			*backend_hist_row;
	struct stats_worker		*worker;
};
extern struct stats_here stats_here;
extern struct stats_rule stats_sink_rule;
extern struct stats_backend stats_sink_backend;
/* Where the histograms nobody asked for go: nobody reads them. */
extern struct stats_rule_hist stats_sink_rule_hist;
extern struct stats_backend_hist stats_sink_backend_hist;

/* Rule r's counters in this worker (a sink outside a worker). */
static inline struct stats_rule *
stats_rule(const struct rule *r)
{
	return stats_here.rules != NULL ? &stats_here.rules[r->stat] :
	    &stats_sink_rule;
}

/* Backend b's counters in this worker. */
static inline struct stats_backend *
stats_backend(const struct backend *b)
{
	return stats_here.backends != NULL ? &stats_here.backends[b->stat] :
	    &stats_sink_backend;
}

/* Rule r's histograms in this worker (a sink: none asked for). */
static inline struct stats_rule_hist *
stats_rule_hist(const struct rule *r)
{
	int32_t row = stats_here.rule_hist_row != NULL ?
	    stats_here.rule_hist_row[r->stat] : -1;

	return row >= 0 ? &stats_here.rule_hists[row] : &stats_sink_rule_hist;
}

/* Backend b's histograms in this worker (a sink: none asked for). */
static inline struct stats_backend_hist *
stats_backend_hist(const struct backend *b)
{
	int32_t row = stats_here.backend_hist_row != NULL ?
	    stats_here.backend_hist_row[b->stat] : -1;

	return row >= 0 ? &stats_here.backend_hists[row] :
	    &stats_sink_backend_hist;
}

/* Microseconds on the monotonic clock, for the histograms. */
int64_t	stats_now_us(void);

/* From from_ms to to_ms (the loop's clock) in microseconds, never < 0. */
static inline uint64_t
stats_elapsed_us(int64_t from_ms, int64_t to_ms)
{
	return to_ms > from_ms ? (uint64_t)(to_ms - from_ms) * 1000 : 0;
}

/*
 * Master: map the table of cfg, generation gen, and use it from now on
 * (children forked later inherit it); old is the running configuration
 * (NULL at start), whose table the new one points at.  0, or -1 with
 * errno: then workers count in private memory nobody reads.
 */
int	stats_table_new(const struct conf *cfg, const struct conf *old,
    unsigned gen);

/*
 * Master: fold the tables of generations that have no worker left
 * (alive(gen, arg) false) into the newer ones, oldest first.
 */
void	stats_settle(bool (*alive)(unsigned gen, void *arg), void *arg);

/*
 * Master: the worker of generation gen in slot died (or exited): what it
 * had open is closed now, whatever it counted stays.
 */
void	stats_worker_gone(unsigned gen, int slot);

/* Worker: write into slot's column of the current table (or a sink). */
void	stats_worker_begin(const struct conf *cfg, int slot);

/*
 * Readers: the totals of rule stat id, of backend stat id, of worker
 * slot, in the current table, with what the tables before it hold
 * (0 and a false return when there is no table).
 */
bool	stats_read_rule(unsigned id, struct stats_rule *out);
bool	stats_read_backend(unsigned id, struct stats_backend *out);
bool	stats_read_worker(int slot, struct stats_worker *out);
/*
 * Readers: a round of reading starts (a document's piece, a sample):
 * pages of the tables found never written before (read as zeros
 * without touching them, stats_shm.h) may have been written since.
 * The readers below trust what the last round found: a reader calls
 * this before a round, and the master's writes (folds, a worker gone)
 * call it after them.
 */
void	stats_read_begin(void);
/*
 * Master: every rule's counters summed, of every table still mapped
 * and of the rules that reloads removed (retired when their table was
 * folded): what the workers did in the daemon's whole life.
 */
void	stats_read_life(struct stats_rule *out);
/*
 * Master, after an upgrade: what the old image's stats_read_life() said,
 * added to the retired total (its gauges are not: they go on in the old
 * workers, whose counting from then on is not seen).
 */
void	stats_retire_life(const struct stats_rule *life);

/*
 * What a table holds of each rule and backend, by kind: a record each
 * (a struct stats_rule, stats_backend, stats_rule_hist or
 * stats_backend_hist), by stat id; the histograms only for those that
 * have them.
 */
enum stats_kind {
	STATS_RULES, STATS_BACKENDS, STATS_RULE_HISTS, STATS_BACKEND_HISTS,
	STATS_KINDS
};
/* Whether kind's records are the rules' (by rule stat id), or backends'. */
static inline bool
stats_kind_is_rule(enum stats_kind kind)
{
	return kind == STATS_RULES || kind == STATS_RULE_HISTS;
}
/* The bytes of a record of kind. */
size_t	stats_record_size(enum stats_kind kind);
/* Readers: the totals of kind's record of stat id, as those above. */
bool	stats_read(enum stats_kind kind, unsigned id, void *out);
/* Room for a record of any kind, aligned as each. */
union stats_record {
	struct stats_rule		r;
	struct stats_backend		b;
	struct stats_rule_hist		rh;
	struct stats_backend_hist	bh;
};
/*
 * An upgrade's records of a kind: by_id[id], NULL where none, each
 * aligned as a union stats_record.
 */
struct stats_records {
	void		**by_id;
	size_t		  n;
};

/*
 * After an upgrade, in the new image's first table before any worker
 * starts: what the old image counted of each of old's rules and
 * backends (in[kind], by their ids) goes on in the rule and backend of
 * cfg that a reload would map to it (same name, same address; the
 * histograms where cfg's has them), and the rules' counters leave the
 * retired total, where stats_retire_life put them with the rest.  The
 * gauges are zeroed in the records.
 */
void	stats_carry(const struct conf *cfg, const struct conf *old,
	    const struct stats_records *in);

/*
 * The old image's side of what follows: its table's memfd (-1: none),
 * to cross exec, and the sums of a record's own columns in its newest
 * table (not the tables before; false: it has no such record).
 * Children keep the memfds: a worker that serves a scrape asks them
 * where the holes are.
 */
int	stats_table_fd(void);
bool	stats_read_own(enum stats_kind kind, unsigned id, void *out,
	    bool adopted);

/*
 * The new image: map the old image's newest table (read-only; 0, or -1
 * if it cannot be read, errno EPROTO for another layout), which its
 * workers go on writing; mark the table stats_carry() wrote to; and
 * once they are all gone, add what they counted after the description
 * (own[kind] held the own sums then: they are overwritten) as
 * stats_carry() did, into the same table if it is still the newest,
 * else (a reload since) the rules' counters to the retired total only.
 * stats_read_own(.., true) reads that mapped table.
 */
int	stats_adopt(int fd);
void	stats_carried(void);
void	stats_adopt_end(const struct conf *cfg, const struct conf *old,
	    const struct stats_records *own);
/*
 * Readers of a part: size bytes at byte off of the totals (whole
 * uint64_t words: a counter, or a struct hist), into the same place of
 * out, the rest of out untouched.  A scrape reads what it writes next,
 * not every counter of a rule for each line.
 */
bool	stats_read_rule_part(unsigned id, size_t off, size_t size,
    struct stats_rule *out);
bool	stats_read_backend_part(unsigned id, size_t off, size_t size,
    struct stats_backend *out);
/*
 * The same of the histograms of rule or backend stat id (all of them
 * with size 0): false, out untouched, where there are none.
 */
bool	stats_read_rule_hist(unsigned id, size_t off, size_t size,
    struct stats_rule_hist *out);
bool	stats_read_backend_hist(unsigned id, size_t off, size_t size,
    struct stats_backend_hist *out);
/*
 * Worker: a reload made a newer table, whose workers read this one's
 * counts too; this one's do not read theirs, and must leave readers to
 * them, or a counter read here after one read there would fall.
 */
bool	stats_superseded(void);
/* The current table's generation and number of worker slots. */
unsigned stats_generation(void);
int	stats_slots(void);
/*
 * The generations whose counters are still read (the current one and
 * those whose workers drain), newest first, at most max: each one's
 * number and the connections and UDP sessions its workers hold now.
 */
struct stats_gen {
	unsigned	gen;
	uint64_t	open;
};
#define STATS_GENS_MAX	64	/* enough for any listing */
size_t	stats_generations(struct stats_gen *out, size_t max);
/* Connections and UDP sessions open now in worker slot's column. */
uint64_t stats_slot_open(int slot);

/*
 * Rates for "ferryd -s status": the master samples each rule's totals
 * once a second (stats_sample) while stats_listen is set, and keeps the
 * last STATS_RING samples.
 */
#define STATS_RING	11
struct stats_rates {
	double	connections, sessions;	/* per second */
	double	bytes, datagrams;	/* both ways, per second */
	double	seconds;		/* over this long; 0: no rates yet */
};
void	stats_sample(int64_t now_ms);
/* Rule stat id's rates over the samples there are (at most 10 s). */
void	stats_read_rates(unsigned id, struct stats_rates *out);

#endif
