/*
 * stats_request.h - reading a request to the stats endpoint: whether it
 * is whole, whether it can still become one, and which document its
 * request line asks for.  Pure functions of the bytes received, fuzzed
 * (tests/fuzz/fuzz_request.c).
 */
#ifndef FERRYD_STATS_REQUEST_H
#define FERRYD_STATS_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "stats_export.h"

/* The longest request line taken; a longer one is malformed. */
#define STATS_REQUEST_LINE_MAX	1024

/* A document the endpoint serves. */
struct stats_doc {
	const char		*path;
	enum stats_format	 format;
	const char		*type;		/* its Content-Type */
};

enum stats_request {
	STATS_REQ_DOC,		/* GET or HEAD of a document: *doc says which */
	STATS_REQ_BAD,		/* not "METHOD TARGET HTTP/1.x" and headers */
	STATS_REQ_METHOD,	/* another method than GET or HEAD */
	STATS_REQ_NOT_FOUND	/* a path that is no document */
};

enum stats_scan {
	STATS_SCAN_MORE,	/* every byte so far can start a request */
	STATS_SCAN_WHOLE,	/* request line, headers, a blank line */
	STATS_SCAN_BAD		/* a byte that no request has there */
};

/*
 * Where the len bytes at req stand: a request line ("METHOD TARGET
 * HTTP/1.x", a token, visible characters, at most
 * STATS_REQUEST_LINE_MAX bytes), header lines ("Name: value", no
 * control characters but tab, no folding), a blank line; lines end with
 * CRLF or a bare LF.  BAD as soon as a byte cannot be there, so that
 * garbage is answered at once, not when the request buffer is full.
 */
enum stats_scan stats_request_scan(const char *req, size_t len);

/*
 * What the request in the len bytes at req asks for, by its first line
 * (ended by CRLF or a bare LF): a query string (from '?') is not part
 * of the path; *head is set for a HEAD.  Reads nothing past len.
 */
enum stats_request stats_request_parse(const char *req, size_t len,
    const struct stats_doc **doc, bool *head);

#endif
