/*
 * stats_request.c - reading a request to the stats endpoint
 * (stats_request.h).
 */
#include "ferryd.h"

#include <string.h>

#include "stats_request.h"

static const struct stats_doc docs[] = {
	{ "/metrics", STATS_PROMETHEUS,
	    "text/plain; version=0.0.4; charset=utf-8" },
	{ "/status", STATS_JSON, "application/json" },
	{ "/status.txt", STATS_TABLE, "text/plain; charset=utf-8" },
};

bool
stats_request_whole(const char *req, size_t len)
{
	return memmem(req, len, "\r\n\r\n", 4) != NULL ||
	    memmem(req, len, "\n\n", 2) != NULL;
}

enum stats_request
stats_request_parse(const char *req, size_t len, const struct stats_doc **doc)
{
	const char	*eol, *sp, *path, *end;
	size_t		 plen, i;

	/* "GET /path HTTP/1.x" */
	if ((eol = memchr(req, '\n', len)) == NULL)
		return STATS_REQ_BAD;
	end = eol > req && eol[-1] == '\r' ? eol - 1 : eol;
	if ((sp = memchr(req, ' ', (size_t)(end - req))) == NULL)
		return STATS_REQ_BAD;
	path = sp + 1;
	if ((sp = memchr(path, ' ', (size_t)(end - path))) == NULL ||
	    end - (sp + 1) < 7 || memcmp(sp + 1, "HTTP/1.", 7) != 0)
		return STATS_REQ_BAD;
	if (path - 1 - req != 3 || memcmp(req, "GET", 3) != 0)
		return STATS_REQ_METHOD;
	plen = (size_t)(sp - path);
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		if (strlen(docs[i].path) == plen &&
		    memcmp(path, docs[i].path, plen) == 0) {
			*doc = &docs[i];
			return STATS_REQ_DOC;
		}
	return STATS_REQ_NOT_FOUND;
}
