/*
 * listen.h - the listen set: one listening socket per (rule, worker slot),
 * all bound with SO_REUSEPORT to the rule's address, of the rule's
 * protocol; each worker gives its slot's sockets to that protocol's
 * handler (tcp_accept.c for streams).
 *
 * The master owns the set for its whole life, so the kernel keeps queueing
 * connections on a slot's socket while that slot's worker is being
 * replaced.  A reload builds a new set that takes over every socket whose
 * protocol, address and slot are unchanged.
 */
#ifndef FERRYD_LISTEN_H
#define FERRYD_LISTEN_H

struct conf;

/* How the workers' sockets of a rule are made. */
enum listen_mode {
	LISTEN_PER_SLOT,	/* a socket per slot; the kernel balances */
	LISTEN_SHARED		/* one socket, dup()ed into every slot */
};

/* The mode this system does best (see configure). */
#ifdef LISTEN_PER_SLOT_DEFAULT
#define LISTEN_MODE_DEFAULT	LISTEN_PER_SLOT
#else
#define LISTEN_MODE_DEFAULT	LISTEN_SHARED
#endif

/*
 * A reload that lowers the number of workers keeps the sockets of the
 * slots it retires, as spares after the active ones: the kernel numbers
 * a group's sockets in the order they were bound and, when one closes,
 * moves the last into its place, so closing them while an old worker
 * still holds its copy would let a later reload's new sockets take
 * shuffled places.  Spares get nothing (listen_set_steer) until a reload
 * makes their slots active again.
 */
/*
 * The program listen_set_steer() gave the kernel: the active slots, the
 * steer mode and the slots skipped.  Attaching it costs the kernel a
 * compilation per group, so a reload gives it again only to groups
 * whose program changes.
 */
#define LISTEN_SKIP_WORDS	4	/* MAX_WORKERS bits */
struct listen_steer {
	int      nslots;		/* 0: none given, or not known */
	int      mode;			/* enum steer_mode */
	uint64_t skip[LISTEN_SKIP_WORDS];	/* a bit per slot */
};

struct listen_set {
	size_t           nrules;
	int              nslots;	/* active: one per worker */
	int              nsock;		/* per rule: nslots and the spares */
	enum listen_mode mode;
	int             *fds;	/* fds[rule * nsock + slot] */
	int              stats_fd;	/* stats_listen's, shared; or -1 */
	struct listen_steer steered;	/* the last program given */
	bool            *has_steer;	/* per rule: its group has it; or NULL */
};

#define LISTEN_FD(ls, rule, slot) ((ls)->fds[(rule) * (ls)->nsock + (slot)])

/*
 * Build the listen set for cfg in mode (old's, on a reload).  Sockets of
 * old (may be NULL; its config is oldcfg) with the same protocol, address
 * and slot are taken over and their entries in old set to -1; the others are
 * bound anew.  In LISTEN_SHARED mode a rule has one socket and every
 * slot a dup() of it.  On failure nothing of old is taken, and NULL is
 * returned with "cannot bind ADDR: reason" in err.
 */
struct listen_set *listen_set_open(const struct conf *cfg,
    struct listen_set *old, const struct conf *oldcfg, enum listen_mode mode,
    char *err, size_t errlen);

/*
 * Make the kernel pick, for each new connection, among the first nslots
 * sockets of each rule's SO_REUSEPORT group, which are the set's sockets
 * in slot order.  Sockets of slots that a reload retires sit after them,
 * so they get no new connection while their old worker drains their
 * queue.  skip (NULL, or nslots flags) names slots that get no new
 * connection either: a hung worker's, until it is replaced.  Groups that
 * have that program already (ls->steered) are left as they are.  Returns
 * -1 with the reason in err where this is not supported.
 */
int  listen_set_steer(struct listen_set *ls, const struct conf *cfg,
    const bool *skip, char *err, size_t errlen);

/*
 * The slot listen_set_steer() sends a datagram or connection from client
 * port to (skip as there), or -1 when the set is shared (any slot may).
 * Where a reload hands a UDP session over to.
 */
int  listen_slot_of_port(const struct listen_set *ls, unsigned port,
    const bool *skip);

/* Close every socket still in the set and free it. */
void listen_set_close(struct listen_set *ls);

#endif
