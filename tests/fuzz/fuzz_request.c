/*
 * fuzz_request.c - libFuzzer harness for the stats endpoint's request
 * reader (src/stats_request.c): any bytes, any length.  Besides the
 * sanitizers' checks, a document is only ever found for a GET or HEAD
 * of its exact path (a query string after it), and only in a request
 * that has a line end; a request scanned whole has its line end, and
 * one scanned bad stays bad with more bytes.
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
	const char		*path;
	enum stats_request	 rc;
	enum stats_scan		 scan;
	bool			 head = false;
	size_t			 plen;

	/* An exact copy: reading one byte past it is caught. */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	scan = stats_request_scan(copy, size);
	if (scan == STATS_SCAN_WHOLE && memchr(copy, '\n', size) == NULL)
		abort();
	if (size > 0 && stats_request_scan(copy, size - 1) == STATS_SCAN_BAD &&
	    scan != STATS_SCAN_BAD)
		abort();
	rc = stats_request_parse(copy, size, &doc, &head);
	if (rc == STATS_REQ_DOC) {
		path = copy + (head ? 5 : 4);
		plen = doc != NULL ? strlen(doc->path) : 0;
		if (doc == NULL || memcmp(copy, head ? "HEAD " : "GET ",
		    head ? 5 : 4) != 0 ||
		    size < (size_t)(path - copy) + plen + 1 ||
		    memcmp(path, doc->path, plen) != 0 ||
		    (path[plen] != ' ' && path[plen] != '?') ||
		    memchr(copy, '\n', size) == NULL)
			abort();
	}
	if (memchr(copy, '\n', size) == NULL && rc != STATS_REQ_BAD)
		abort();
	free(copy);
	return 0;
}
