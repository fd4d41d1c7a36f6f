/*
 * stats_http.c - the stats endpoint's HTTP server (stats_http.h).
 *
 * Each client gets a small record that goes through three states: it
 * sends its request (READING, bounded by the header timeout from its
 * accept, however slowly it trickles), it is answered (WRITING: the
 * status line and headers, then the document a piece at a time as the
 * socket takes it, bounded by the idle timeout between two pieces
 * taken), then its side is shut and what it still sends is read and
 * dropped until it closes (LINGERING, bounded too), so that an answer
 * is never cut by the reset a close with unread bytes makes.  Nothing
 * the client sends is kept past the request line and headers.
 *
 * A worker holds at most STATS_HTTP_MAX clients.  One more is never
 * refused: it takes the place of the oldest that has not been answered
 * (lingering first, then reading), so connections that send nothing,
 * or a byte now and then, cannot keep a scraper out.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include "acl.h"
#include "addr.h"
#include "event.h"
#include "log.h"
#include "scoreboard.h"
#include "sock.h"
#include "stats.h"
#include "stats_export.h"
#include "stats_http.h"
#include "stats_request.h"

enum client_state {
	CLIENT_READING,		/* the request, until it is whole */
	CLIENT_WRITING,		/* the answer, as the socket takes it */
	CLIENT_LINGERING	/* answered, our side shut: until its close */
};

struct client {
	TAILQ_ENTRY(client)	 link;		/* oldest first */
	struct stats_http	*owner;
	int			 fd;
	enum client_state	 state;
	size_t			 got;		/* request bytes so far */
	char			 head[512];	/* status, headers [, body] */
	size_t			 head_len, head_off;
	struct stats_stream	*doc;		/* the body to come, or NULL */
	const char		*piece;		/* of doc, being written */
	size_t			 piece_len, piece_off;
	struct event_timer	 timer;
	char			 req[STATS_HTTP_REQUEST_MAX];
};

struct stats_http {
	struct event_loop	*loop;
	struct stats_source	 src;	/* what the documents show */
	const struct acl	*acl;		/* who may ask, over TCP */
	int			 fd;		/* listening, or -1 */
	int			 count;
	TAILQ_HEAD(, client)	 clients;
};

static void client_io(struct event_loop *, int, int, void *);

/* Close c: with a reset unless it was answered whole (abort false). */
static void
client_close(struct client *c, bool abort)
{
	struct stats_http *sh = c->owner;

	event_close(sh->loop, c->fd);
	sock_abort_on_close(c->fd, abort);
	close(c->fd);
	event_timer_cancel(sh->loop, &c->timer);
	TAILQ_REMOVE(&sh->clients, c, link);
	sh->count--;
	stats_stream_free(c->doc);
	free(c);
}

static void
client_on_timer(struct event_timer *t, void *data)
{
	struct client		*c = data;
	static struct log_limit	 limit;

	(void)t;
	if (c->state == CLIENT_READING)
		log_limited_at(&limit, LOG_LEVEL_INFO, "stats: a client sent "
		    "no whole request within %d ms; closed",
		    STATS_HTTP_HEADER_TIMEOUT_MS);
	else if (c->state == CLIENT_WRITING)
		log_limited_at(&limit, LOG_LEVEL_INFO, "stats: a client took "
		    "nothing of its answer for %d ms; closed",
		    STATS_HTTP_IDLE_TIMEOUT_MS);
	client_close(c, c->state != CLIENT_LINGERING);
}

/* c's timer, ms from now: 0, or -1 (c closed). */
static int
client_timer(struct client *c, int ms)
{
	struct event_loop *loop = c->owner->loop;

	if (event_timer_arm(loop, &c->timer, event_now(loop) + ms) == -1) {
		client_close(c, true);
		return -1;
	}
	return 0;
}

/*
 * Answer c: the status line and headers, with body (len bytes, or a
 * document to stream when doc is set; nothing for a HEAD).  An answer
 * streamed has no Content-Length: its end is the connection's (a cut
 * one ends with a reset, not a FIN).  0, or -1 when c was closed.
 */
static int
client_answer(struct client *c, const char *status, const char *type,
    const char *extra, const char *body, size_t len, struct stats_stream *doc,
    bool head)
{
	char	clen[48] = "";
	int	n;

	if (doc == NULL)
		snprintf(clen, sizeof(clen), "Content-Length: %zu\r\n", len);
	n = snprintf(c->head, sizeof(c->head), "HTTP/1.0 %s\r\nContent-Type: "
	    "%s\r\n%s%sCache-Control: no-store\r\nConnection: close\r\n\r\n",
	    status, type, clen, extra);
	if (n < 0 || (size_t)n + (head ? 0 : len) >= sizeof(c->head)) {
		stats_stream_free(doc);
		client_close(c, true);
		return -1;
	}
	if (!head && len > 0)
		memcpy(c->head + n, body, len);
	c->head_len = (size_t)n + (head ? 0 : len);
	c->head_off = 0;
	if (head)
		stats_stream_free(doc);
	else
		c->doc = doc;
	c->state = CLIENT_WRITING;
	if (event_mask(c->owner->loop, c->fd, EV_WRITE) == -1) {
		client_close(c, true);
		return -1;
	}
	return client_timer(c, STATS_HTTP_IDLE_TIMEOUT_MS);
}

/* A short plain-text answer: the status again. */
static int
client_error(struct client *c, const char *status, const char *extra,
    bool head)
{
	char	body[64];
	int	n;

	n = snprintf(body, sizeof(body), "%s\n", status);
	return client_answer(c, status, "text/plain; charset=utf-8", extra,
	    body, (size_t)n, NULL, head);
}

/*
 * GET /ready: 200 while the host takes traffic, 503 once the operator
 * said "drain host" (the scoreboard's word, read afresh for each
 * request), for keepalived's track script or a BGP speaker's check.
 * Connections are served either way.
 */
static int
client_ready(struct client *c, const struct stats_doc *doc, bool head)
{
	if (scoreboard_host_drain(NULL))
		return client_answer(c, "503 Service Unavailable", doc->type,
		    "", "draining\n", 9, NULL, head);
	return client_answer(c, "200 OK", doc->type, "", "ready\n", 6, NULL,
	    head);
}

/* Answer a whole request: 0, or -1 when c was closed. */
static int
client_serve(struct client *c)
{
	const struct stats_doc	*doc = NULL;
	struct stats_stream	*s;
	bool			 head = false;

	switch (stats_request_parse(c->req, c->got, &doc, &head)) {
	case STATS_REQ_BAD:
		return client_error(c, "400 Bad Request", "", false);
	case STATS_REQ_METHOD:
		return client_error(c, "405 Method Not Allowed",
		    "Allow: GET, HEAD\r\n", false);
	case STATS_REQ_NOT_FOUND:
		return client_error(c, "404 Not Found", "", head);
	default:
		break;
	}
	if (doc->format == STATS_READY)
		return client_ready(c, doc, head);
	if ((s = stats_stream_new(&c->owner->src, doc->format)) == NULL)
		return client_error(c, "503 Service Unavailable", "", head);
	return client_answer(c, "200 OK", doc->type, "", NULL, 0, s, head);
}

/*
 * Read until the request is whole (a blank line after the headers), then
 * answer it; answer 400 as soon as it cannot be a request: 0 (still
 * reading, or an answer to write), -1 (closed).
 */
static int
client_read(struct client *c)
{
	ssize_t n;

	for (;;) {
		if (c->got == sizeof(c->req))
			return client_error(c, "400 Bad Request", "", false);
		n = recv(c->fd, c->req + c->got, sizeof(c->req) - c->got, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;	/* more to come */
		if (n <= 0) {
			client_close(c, true);
			return -1;
		}
		c->got += (size_t)n;
		switch (stats_request_scan(c->req, c->got)) {
		case STATS_SCAN_BAD:
			return client_error(c, "400 Bad Request", "", false);
		case STATS_SCAN_WHOLE:
			return client_serve(c);
		default:
			break;
		}
	}
}

/* Answered: shut our side, then wait for the client's close. */
static void
client_linger(struct client *c)
{
	if (shutdown(c->fd, SHUT_WR) == -1 ||
	    event_mask(c->owner->loop, c->fd, EV_READ) == -1) {
		client_close(c, false);
		return;
	}
	c->state = CLIENT_LINGERING;
	(void)client_timer(c, STATS_HTTP_LINGER_MS);
}

/* What the client sends after its answer: dropped until it closes. */
static void
client_drain(struct client *c)
{
	char	buf[4096];
	ssize_t	n;

	for (;;) {
		n = recv(c->fd, buf, sizeof(buf), 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			client_close(c, false);
			return;
		}
	}
}

/*
 * The next bytes to write: the rest of the head, then the rest of the
 * document's piece, then its next piece.  Their length (0 at the end),
 * -1 when the document cannot be made, or -2 when the piece just made
 * is empty (its steps wrote nothing): the worker's turn is over.
 */
static ssize_t
client_next(struct client *c, const char **p)
{
	int rc;

	if (c->head_off < c->head_len) {
		*p = c->head + c->head_off;
		return (ssize_t)(c->head_len - c->head_off);
	}
	if (c->doc == NULL)
		return 0;
	if (c->piece_off == c->piece_len) {
		c->piece_off = c->piece_len = 0;
		if ((rc = stats_stream_next(c->doc, &c->piece,
		    &c->piece_len)) <= 0)
			return rc;
		if (c->piece_len == 0)
			return -2;
	}
	*p = c->piece + c->piece_off;
	return (ssize_t)(c->piece_len - c->piece_off);
}

/*
 * Write what the socket takes, a piece of the document at a time, then
 * linger: each turn of the loop writes at most STATS_HTTP_TURN bytes,
 * so that a large document to a fast reader shares the worker.
 */
static void
client_write(struct client *c)
{
	const char	*p = NULL;
	ssize_t		 want, n;
	size_t		 turn = 0;

	while (turn < STATS_HTTP_TURN) {
		if ((want = client_next(c, &p)) == -1) {
			client_close(c, true);	/* out of memory: cut */
			return;
		}
		if (want == -2)
			return;		/* the socket is still writable */
		if (want == 0) {
			client_linger(c);
			return;
		}
		n = send(c->fd, p, (size_t)want, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;		/* EV_WRITE says when */
		if (n <= 0) {
			client_close(c, true);
			return;
		}
		if (c->head_off < c->head_len)
			c->head_off += (size_t)n;
		else
			c->piece_off += (size_t)n;
		turn += (size_t)n;
		if (client_timer(c, STATS_HTTP_IDLE_TIMEOUT_MS) == -1)
			return;
	}
}

static void
client_io(struct event_loop *loop, int fd, int events, void *data)
{
	struct client *c = data;

	(void)loop;
	(void)fd;
	(void)events;
	switch (c->state) {
	case CLIENT_READING:
		if (client_read(c) == 0 && c->state == CLIENT_WRITING)
			client_write(c);
		break;
	case CLIENT_WRITING:
		client_write(c);
		break;
	default:
		client_drain(c);
		break;
	}
}

/*
 * Room for one more client: the oldest lingering one, else the oldest
 * still reading its request, else the oldest of all is closed.
 */
static void
stats_make_room(struct stats_http *sh)
{
	static struct log_limit	 limit;
	struct client		*c, *victim = NULL;

	TAILQ_FOREACH(c, &sh->clients, link)
		if (c->state == CLIENT_LINGERING)
			break;
	if ((victim = c) == NULL)
		TAILQ_FOREACH(c, &sh->clients, link)
			if (c->state == CLIENT_READING) {
				victim = c;
				break;
			}
	if (victim == NULL)
		victim = TAILQ_FIRST(&sh->clients);
	if (victim->state != CLIENT_LINGERING)
		log_limited_at(&limit, LOG_LEVEL_NOTICE, "stats: %d clients at "
		    "once; the oldest not answered closed for a new one",
		    STATS_HTTP_MAX);
	client_close(victim, victim->state != CLIENT_LINGERING);
}

/* A client of stats_listen: allowed in by allow/deny, within the limit. */
static void
stats_accept(struct event_loop *loop, int fd, int events, void *data)
{
	static struct log_limit	 limit;
	static const struct acl	 none;		/* no rule of its own */
	struct stats_http	*sh = data;
	struct sockaddr_any	 peer;
	struct client		*c;
	char			 addr[ADDR_STRLEN];
	int			 cfd, n;

	(void)loop;
	(void)events;
	if (stats_superseded()) {
		/* A newer generation answers: what is queued is theirs. */
		stats_http_stop(sh);
		return;
	}
	for (n = 0; n < 16; n++) {
		if ((cfd = sock_accept(fd, &peer)) == -1)
			return;		/* none left, or another took it */
		if (peer.ss.ss_family != AF_UNIX && !acl_permits(sh->acl,
		    &none, (const struct sockaddr *)&peer.ss)) {
			log_limited_at(&limit, LOG_LEVEL_INFO, "stats: client "
			    "%s denied by allow/deny rules", addr_format(
			    (const struct sockaddr *)&peer.ss, addr,
			    sizeof(addr)));
			close(cfd);
			continue;
		}
		if (sh->count >= STATS_HTTP_MAX)
			stats_make_room(sh);
		if ((c = calloc(1, sizeof(*c))) == NULL) {
			log_limited_at(&limit, LOG_LEVEL_WARNING, "stats: out "
			    "of memory; a client closed");
			close(cfd);
			continue;
		}
		c->owner = sh;
		c->fd = cfd;
		c->state = CLIENT_READING;
		event_timer_init(&c->timer, client_on_timer, c);
		TAILQ_INSERT_TAIL(&sh->clients, c, link);
		sh->count++;
		if (event_set(sh->loop, cfd, EV_READ, client_io, c) == -1 ||
		    event_timer_arm(sh->loop, &c->timer, event_now(sh->loop) +
		    STATS_HTTP_HEADER_TIMEOUT_MS) == -1)
			client_close(c, true);

	}
}

struct stats_http *
stats_http_new(struct event_loop *loop, const struct stats_source *src,
    const struct acl *acl, int fd)
{
	struct stats_http *sh = calloc(1, sizeof(*sh));

	if (sh == NULL)
		return NULL;
	sh->loop = loop;
	sh->src = *src;
	sh->acl = acl;
	sh->fd = fd;
	TAILQ_INIT(&sh->clients);
	if (fd != -1 && event_set(loop, fd, EV_READ, stats_accept, sh) == -1) {
		free(sh);
		return NULL;
	}
	return sh;
}

void
stats_http_stop(struct stats_http *sh)
{
	if (sh == NULL || sh->fd == -1)
		return;
	event_close(sh->loop, sh->fd);
	close(sh->fd);
	sh->fd = -1;
}

void
stats_http_free(struct stats_http *sh)
{
	if (sh == NULL)
		return;
	stats_http_stop(sh);
	while (!TAILQ_EMPTY(&sh->clients))
		client_close(TAILQ_FIRST(&sh->clients), true);
	free(sh);
}
