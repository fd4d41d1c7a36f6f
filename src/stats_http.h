/*
 * stats_http.h - the stats endpoint (stats_listen), served by every
 * worker from the one socket the master bound: HTTP/1.0 GET or HEAD of
 * /metrics (Prometheus text), /status (JSON) and /status.txt (the table
 * "ferryd -s status" prints), a query string ignored; 404 for any other
 * path, 405 for another method, 400 for what is not a request (as soon
 * as a byte says so).  One request per connection; the document is
 * streamed (no Content-Length: it ends with the connection).  A client
 * that has not sent its whole request STATS_HTTP_HEADER_TIMEOUT_MS
 * after it connected, or takes nothing of its answer for
 * STATS_HTTP_IDLE_TIMEOUT_MS, is closed.  The top level's allow and deny
 * apply to TCP clients.
 */
#ifndef FERRYD_STATS_HTTP_H
#define FERRYD_STATS_HTTP_H

struct acl;
struct stats_source;

/* From the accept to the request's blank line, however it trickles. */
#define STATS_HTTP_HEADER_TIMEOUT_MS	3000
/* While answering: the longest the socket may take nothing. */
#define STATS_HTTP_IDLE_TIMEOUT_MS	5000
/* Answered: how long the client's close is waited for. */
#define STATS_HTTP_LINGER_MS		2000
/*
 * Clients held at once per worker; one more takes the place of the
 * oldest not answered yet, so idle connections cannot starve a scrape.
 */
#define STATS_HTTP_MAX			256
/* The longest request taken (request line and headers). */
#define STATS_HTTP_REQUEST_MAX		4096
/* Bytes of answers one client writes in a turn of the worker's loop. */
#define STATS_HTTP_TURN			4096

struct event_loop;
struct stats_http;

/*
 * Serve src's counters on the listening socket fd (-1: none) in loop,
 * to the TCP clients acl (the top level's allow and deny) permits.
 */
struct stats_http *stats_http_new(struct event_loop *loop,
    const struct stats_source *src, const struct acl *acl, int fd);
/* Stop accepting (the worker drains): requests in hand are finished. */
void	stats_http_stop(struct stats_http *sh);
/* Close everything (the worker exits). */
void	stats_http_free(struct stats_http *sh);

#endif
