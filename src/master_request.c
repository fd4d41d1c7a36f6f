/*
 * master_request.c - requests to the master, queued for master.c to
 * dispatch (master_request.h).
 */
#include "ferryd.h"

#include <string.h>

#include "bug.h"
#include "master_request.h"

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
