/*
 * master_request.c - requests to the master, queued for master.c to
 * dispatch (master_request.h).
 */
#include "ferryd.h"

#include <signal.h>
#include <string.h>

#include "bug.h"
#include "master_request.h"
#include "sig.h"

void
master_request_put(struct master_requests *r, enum master_request_kind kind,
    const int *askers, size_t n)
{
	size_t i;

	BUG_ON(kind >= REQUEST_KINDS);
	r->asked[kind] = true;
	for (i = 0; i < n && r->n[kind] < OUTCOME_COVERS_MAX; i++)
		r->askers[kind][r->n[kind]++] = askers[i];
}

bool
master_request_take(struct master_requests *r, enum master_request_kind kind,
    int *askers, size_t *n)
{
	BUG_ON(kind >= REQUEST_KINDS);
	if (!r->asked[kind])
		return false;
	*n = r->n[kind];
	memcpy(askers, r->askers[kind], *n * sizeof(*askers));
	r->asked[kind] = false;
	r->n[kind] = 0;
	return true;
}

void
master_request_signals(struct master_requests *r)
{
	int    asked[OUTCOME_COVERS_MAX];
	size_t nasked;

	/* "ferryd -s reload" and "-s upgrade" send their pid, to be told. */
	nasked = sig_take_values(SIGHUP, asked, OUTCOME_COVERS_MAX);
	if (sig_take(SIGHUP))
		master_request_put(r, REQUEST_RELOAD, asked, nasked);
	nasked = sig_take_values(SIGURG, asked, OUTCOME_COVERS_MAX);
	if (sig_take(SIGURG))
		master_request_put(r, REQUEST_UPGRADE, asked, nasked);
}

struct conf *
master_request_apply(struct master_requests *r, struct conf *cfg)
{
	struct conf *before = r->apply;

	r->apply = cfg;
	return before;
}

struct conf *
master_request_take_apply(struct master_requests *r)
{
	struct conf *cfg = r->apply;

	r->apply = NULL;
	return cfg;
}
