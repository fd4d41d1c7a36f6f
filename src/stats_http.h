/*
 * stats_http.h - the stats endpoint (stats_listen), served by every
 * worker from the one socket the master bound: HTTP/1.0 GET of
 * /metrics (Prometheus text), /status (JSON) and /status.txt (the table
 * "ferryd -s status" prints); 404 for any other path, 405 for another
 * method, 400 for what is not a request.  One request per connection;
 * a client that takes longer than STATS_HTTP_TIMEOUT_MS to send it, or
 * to take the next part of the answer, is closed.  The top level's
 * allow and deny apply to TCP clients.
 */
#ifndef FERRYD_STATS_HTTP_H
#define FERRYD_STATS_HTTP_H

struct conf;

#define STATS_HTTP_TIMEOUT_MS	3000
/* Clients served at once per worker; more wait for another worker. */
#define STATS_HTTP_MAX		16
/* The longest request taken (request line and headers). */
#define STATS_HTTP_REQUEST_MAX	4096

struct event_loop;
struct stats_http;

/* Serve cfg's counters on the listening socket fd (-1: none) in loop. */
struct stats_http *stats_http_new(struct event_loop *loop,
    const struct conf *cfg, int fd);
/* Stop accepting (the worker drains): requests in hand are finished. */
void	stats_http_stop(struct stats_http *sh);
/* Close everything (the worker exits). */
void	stats_http_free(struct stats_http *sh);

#endif
