/*
 * master_request.h - what the master is asked to do, by whom: a signal
 * (SIGHUP, SIGURG, with "ferryd -s"'s pid as its sigqueue value) or a
 * control client (its token, negative).  The signal handler and the
 * control socket only put requests here; master.c takes them, once a
 * round, and starts the reload or the upgrade: one door for both.
 */
#ifndef FERRYD_MASTER_REQUEST_H
#define FERRYD_MASTER_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "outcome.h"

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

#endif
