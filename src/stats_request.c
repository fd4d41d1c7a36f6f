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
	{ "/ready", STATS_READY, "text/plain; charset=utf-8" },
};

/* A character of a token (RFC 9110: a method, a header's name). */
static bool
is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' &&
	    strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/*
 * Whether the n bytes at p, a request line without its LF, are one
 * ("METHOD TARGET HTTP/1.d", then a CR or not) or, unless whole, can
 * start one.
 */
static bool
line_ok(const unsigned char *p, size_t n, bool whole)
{
	static const char	 version[] = "HTTP/1.";
	size_t			 i = 0, start;

	if (whole && n > 0 && p[n - 1] == '\r')
		n--;
	while (i < n && is_tchar(p[i]))
		i++;
	if (i == n)
		return !whole;
	if (i == 0 || p[i++] != ' ')
		return false;
	for (start = i; i < n && p[i] > ' ' && p[i] < 0x7f; i++)
		;
	if (i == n)
		return !whole;
	if (i == start || p[i++] != ' ')
		return false;
	for (start = i; i < n && i - start < 7; i++)
		if (p[i] != (unsigned char)version[i - start])
			return false;
	if (i == n)
		return !whole;
	if (p[i] < '0' || p[i] > '9')
		return false;
	i++;
	/* Only the CR of a CRLF may follow, and it was taken off if whole. */
	return i == n || (!whole && i + 1 == n && p[i] == '\r');
}

/*
 * Whether the n bytes at p, a header line without its LF, are one
 * ("Name: value", a CR at the end or not) or, unless whole, can start
 * one.
 */
static bool
header_ok(const unsigned char *p, size_t n, bool whole)
{
	size_t i = 0;

	if (n > 0 && p[n - 1] == '\r')
		n--;	/* a CR is a line's end, whole or not yet */
	while (i < n && is_tchar(p[i]))
		i++;
	if (i == n)
		return !whole;
	if (i == 0 || p[i++] != ':')
		return false;	/* folding, or a name with a stray byte */
	for (; i < n; i++)
		if ((p[i] < ' ' && p[i] != '\t') || p[i] == 0x7f)
			return false;
	return true;
}

/* Whether the n bytes at p (no LF) are a blank line. */
static bool
blank(const unsigned char *p, size_t n)
{
	return n == 0 || (n == 1 && p[0] == '\r');
}

enum stats_scan
stats_request_scan(const char *req, size_t len)
{
	const unsigned char	*p = (const unsigned char *)req, *eol;
	size_t			 left = len, n;
	bool			 first = true, whole, bad;

	while (left > 0) {
		eol = memchr(p, '\n', left);
		n = eol != NULL ? (size_t)(eol - p) : left;
		whole = eol != NULL;
		if (first)
			bad = n > STATS_REQUEST_LINE_MAX ||
			    !line_ok(p, n, whole);
		else
			bad = !(whole && blank(p, n)) &&
			    !header_ok(p, n, whole);
		if (bad)
			return STATS_SCAN_BAD;
		if (!whole)
			return STATS_SCAN_MORE;
		if (!first && blank(p, n))
			return STATS_SCAN_WHOLE;
		first = false;
		p = eol + 1;
		left -= n + 1;
	}
	return STATS_SCAN_MORE;
}

enum stats_request
stats_request_parse(const char *req, size_t len, const struct stats_doc **doc,
    bool *head)
{
	const char	*eol, *sp, *path, *end, *q;
	size_t		 mlen, plen, i;

	/* "GET /path[?query] HTTP/1.x" */
	if ((eol = memchr(req, '\n', len)) == NULL)
		return STATS_REQ_BAD;
	end = eol > req && eol[-1] == '\r' ? eol - 1 : eol;
	if ((sp = memchr(req, ' ', (size_t)(end - req))) == NULL)
		return STATS_REQ_BAD;
	path = sp + 1;
	if ((sp = memchr(path, ' ', (size_t)(end - path))) == NULL ||
	    end - (sp + 1) < 7 || memcmp(sp + 1, "HTTP/1.", 7) != 0)
		return STATS_REQ_BAD;
	mlen = (size_t)(path - 1 - req);
	*head = mlen == 4 && memcmp(req, "HEAD", 4) == 0;
	if (!*head && (mlen != 3 || memcmp(req, "GET", 3) != 0))
		return STATS_REQ_METHOD;
	plen = (size_t)(sp - path);
	if ((q = memchr(path, '?', plen)) != NULL)
		plen = (size_t)(q - path);	/* the query is not looked at */
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		if (strlen(docs[i].path) == plen &&
		    memcmp(path, docs[i].path, plen) == 0) {
			*doc = &docs[i];
			return STATS_REQ_DOC;
		}
	return STATS_REQ_NOT_FOUND;
}
