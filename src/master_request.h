/*
 * master_request.h - what the master is asked to do, by whom: a signal
 * (SIGHUP, SIGURG, with "ferryd -s"'s pid as its sigqueue value) or a
 * control client (its token, negative); or, by nobody, a configuration
 * whose backend names resolved to more or fewer addresses, to apply.
 * The signal handler, the control socket and the periodic lookups only
 * put requests here; master.c takes them, once a round, and starts the
 * reload or the upgrade: one door for all.
 */
#ifndef FERRYD_MASTER_REQUEST_H
#define FERRYD_MASTER_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "outcome.h"

struct conf;

enum master_request_kind {
	REQUEST_RELOAD,		/* SIGHUP, control "reload" */
	REQUEST_UPGRADE,	/* SIGURG, control "upgrade" */
	REQUEST_KINDS
};

/* Requests not yet dispatched, by kind; each kind's askers in order. */
struct master_requests {
	bool	asked[REQUEST_KINDS];
	int	askers[REQUEST_KINDS][OUTCOME_COVERS_MAX];
	size_t	n[REQUEST_KINDS];
	struct conf *apply;	/* re-resolved, to apply as a reload; or NULL */
};

/*
 * Ask for kind on behalf of the n askers (outcome.h's tokens; n 0: a
 * signal without a value, answered to nobody).  Past OUTCOME_COVERS_MAX
 * askers, the rest are dropped, as the outcome could not name them.
 */
void	master_request_put(struct master_requests *r,
	    enum master_request_kind kind, const int *askers, size_t n);
/*
 * Whether kind was asked since the last take; its askers copied to
 * askers (OUTCOME_COVERS_MAX of room), their number in *n.  Clears it.
 */
bool	master_request_take(struct master_requests *r,
	    enum master_request_kind kind, int *askers, size_t *n);
/*
 * The signals that ask for something (SIGHUP: a reload; SIGURG: an
 * upgrade), taken from sig.c's pipe with their senders' values.
 */
void	master_request_signals(struct master_requests *r);

/*
 * Ask that cfg, the running configuration with its names resolved
 * anew, be applied.  Returns the one asked before and not taken yet,
 * which the caller frees, or NULL.
 */
struct conf *master_request_apply(struct master_requests *r,
	    struct conf *cfg);
/* The configuration asked to be applied since the last take, or NULL. */
struct conf *master_request_take_apply(struct master_requests *r);

#endif
