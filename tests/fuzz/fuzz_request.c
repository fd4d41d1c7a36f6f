/*
 * fuzz_request.c - libFuzzer harness for the stats endpoint's request
 * reader (src/stats_request.c): any bytes, any length.  Besides the
 * sanitizers' checks, a document is only ever found for a GET of its
 * exact path, and only in a request that has a line end.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "stats_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct stats_doc	*doc = NULL;
	char			*copy;
	enum stats_request	 rc;

	/* An exact copy: reading one byte past it is caught. */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	(void)stats_request_whole(copy, size);
	rc = stats_request_parse(copy, size, &doc);
	if (rc == STATS_REQ_DOC && (doc == NULL || size < 4 + strlen(doc->path) ||
	    memcmp(copy, "GET ", 4) != 0 ||
	    memcmp(copy + 4, doc->path, strlen(doc->path)) != 0 ||
	    memchr(copy, '\n', size) == NULL))
		abort();
	if (memchr(copy, '\n', size) == NULL && rc != STATS_REQ_BAD)
		abort();
	free(copy);
	return 0;
}
