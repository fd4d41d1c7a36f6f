/*
 * stats_request.h - reading a request to the stats endpoint: whether it
 * is whole, and which document its request line asks for.  Pure
 * functions of the bytes received, fuzzed (tests/fuzz/fuzz_request.c).
 */
#ifndef FERRYD_STATS_REQUEST_H
#define FERRYD_STATS_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "stats_export.h"

/* A document the endpoint serves. */
struct stats_doc {
	const char		*path;
	enum stats_format	 format;
	const char		*type;		/* its Content-Type */
};

enum stats_request {
	STATS_REQ_DOC,		/* GET of a document: *doc says which */
	STATS_REQ_BAD,		/* not "METHOD PATH HTTP/1.x" */
	STATS_REQ_METHOD,	/* another method than GET */
	STATS_REQ_NOT_FOUND	/* a path that is no document */
};

/* Whether the len bytes at req end the headers (a blank line). */
bool	stats_request_whole(const char *req, size_t len);

/*
 * What the request in the len bytes at req asks for, by its first line
 * (ended by CRLF or a bare LF).  Reads nothing past len.
 */
enum stats_request stats_request_parse(const char *req, size_t len,
    const struct stats_doc **doc);

#endif
