/*
 * stats_http.c - the stats endpoint's HTTP server (stats_http.h).
 *
 * Each client gets a small record: the request as it comes, then the
 * response, written as the socket takes it; one timer bounds the whole
 * exchange.  Nothing the client sends is kept past the request line and
 * headers, and nothing is read once the request is whole.
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
#include "conf.h"
#include "event.h"
#include "log.h"
#include "sock.h"
#include "stats.h"
#include "stats_export.h"
#include "stats_http.h"
#include "stats_request.h"

struct client {
	TAILQ_ENTRY(client)	 link;
	struct stats_http	*owner;
	int			 fd;
	size_t			 got;		/* request bytes so far */
	char			*out;		/* the response, once made */
	size_t			 out_len, out_off;
	struct event_timer	 timer;
	char			 req[STATS_HTTP_REQUEST_MAX];
};

struct stats_http {
	struct event_loop	*loop;
	const struct conf	*cfg;
	int			 fd;		/* listening, or -1 */
	int			 count;
	bool			 full;		/* not watching fd: at the most */
	TAILQ_HEAD(, client)	 clients;
};

static void client_io(struct event_loop *, int, int, void *);

static void
client_close(struct client *c)
{
	struct stats_http *sh = c->owner;

	event_close(sh->loop, c->fd);
	/* A FIN after a whole response; a reset cuts anything else off. */
	sock_abort_on_close(c->fd, c->out == NULL || c->out_off < c->out_len);
	close(c->fd);
	event_timer_cancel(sh->loop, &c->timer);
	TAILQ_REMOVE(&sh->clients, c, link);
	sh->count--;
	free(c->out);
	free(c);
	/* Room again: take new clients from the other workers' share. */
	if (sh->full && sh->fd != -1 &&
	    event_mask(sh->loop, sh->fd, EV_READ) == 0)
		sh->full = false;
}

static void
client_on_timer(struct event_timer *t, void *data)
{
	struct client		*c = data;
	static struct log_limit	 limit;

	(void)t;
	log_limited_at(&limit, LOG_LEVEL_INFO, "stats: a client took more "
	    "than %d ms; closed", STATS_HTTP_TIMEOUT_MS);
	client_close(c);
}

/*
 * The response: status line, headers, body (malloc'd or NULL; taken).
 * 0, or -1 when c was closed for want of memory.
 */
static int
client_respond(struct client *c, const char *status, const char *type,
    char *body, size_t len)
{
	char	head[256];
	int	n;

	n = snprintf(head, sizeof(head), "HTTP/1.0 %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\nCache-Control: no-store\r\n"
	    "Connection: close\r\n\r\n", status, type, len);
	if (n < 0 || (size_t)n >= sizeof(head) ||
	    (c->out = malloc((size_t)n + len)) == NULL) {
		free(body);
		client_close(c);
		return -1;
	}
	memcpy(c->out, head, (size_t)n);
	if (len > 0)
		memcpy(c->out + n, body, len);
	free(body);
	c->out_len = (size_t)n + len;
	c->out_off = 0;
	return 0;
}

/* A short plain-text response: the status again. */
static int
client_error(struct client *c, const char *status)
{
	char	*body;
	size_t	 len = strlen(status) + 1;

	if ((body = malloc(len)) == NULL) {
		client_close(c);
		return -1;
	}
	memcpy(body, status, len - 1);
	body[len - 1] = '\n';
	return client_respond(c, status, "text/plain; charset=utf-8", body,
	    len);
}

/* Answer a whole request: 0, or -1 when c was closed. */
static int
client_serve(struct client *c)
{
	const struct stats_doc	*doc = NULL;
	char			*body;
	size_t			 len;

	switch (stats_request_parse(c->req, c->got, &doc)) {
	case STATS_REQ_BAD:
		return client_error(c, "400 Bad Request");
	case STATS_REQ_METHOD:
		return client_error(c, "405 Method Not Allowed");
	case STATS_REQ_NOT_FOUND:
		return client_error(c, "404 Not Found");
	default:
		break;
	}
	if (stats_render(c->owner->cfg, doc->format, &body, &len) == -1)
		return client_error(c, "503 Service Unavailable");
	return client_respond(c, "200 OK", doc->type, body, len);
}

/*
 * Read until the request is whole (a blank line after the headers), then
 * answer it: 0 (still reading, or a response to write), -1 (closed).
 */
static int
client_read(struct client *c)
{
	ssize_t n;

	for (;;) {
		if (c->got == sizeof(c->req))
			return client_error(c, "400 Bad Request");
		n = recv(c->fd, c->req + c->got, sizeof(c->req) - c->got, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;	/* more to come */
		if (n <= 0) {
			client_close(c);
			return -1;
		}
		c->got += (size_t)n;
		if (stats_request_whole(c->req, c->got))
			return client_serve(c);
	}
}

/* Write what the socket takes; close once all is written. */
static void
client_write(struct client *c)
{
	ssize_t n;

	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
		    MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (event_mask(c->owner->loop, c->fd, EV_WRITE) == -1)
				client_close(c);
			return;
		}
		if (n <= 0) {
			client_close(c);
			return;
		}
		c->out_off += (size_t)n;
		/* A large document to a slow reader: 3 s of no progress. */
		(void)event_timer_arm(c->owner->loop, &c->timer,
		    event_now(c->owner->loop) + STATS_HTTP_TIMEOUT_MS);
	}
	client_close(c);
}

static void
client_io(struct event_loop *loop, int fd, int events, void *data)
{
	struct client *c = data;

	(void)loop;
	(void)fd;
	(void)events;
	if (c->out == NULL && client_read(c) == -1)
		return;
	if (c->out != NULL)
		client_write(c);
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
		if (peer.ss.ss_family != AF_UNIX && !acl_permits(&sh->cfg->acl,
		    &none, (const struct sockaddr *)&peer.ss)) {
			log_limited_at(&limit, LOG_LEVEL_INFO, "stats: client "
			    "%s denied by allow/deny rules", addr_format(
			    (const struct sockaddr *)&peer.ss, addr,
			    sizeof(addr)));
			close(cfd);
			continue;
		}
		if ((c = calloc(1, sizeof(*c))) == NULL) {
			log_limited_at(&limit, LOG_LEVEL_WARNING, "stats: out "
			    "of memory; a client closed");
			close(cfd);
			continue;
		}
		c->owner = sh;
		c->fd = cfd;
		event_timer_init(&c->timer, client_on_timer, c);
		TAILQ_INSERT_TAIL(&sh->clients, c, link);
		sh->count++;
		if (event_set(sh->loop, cfd, EV_READ, client_io, c) == -1 ||
		    event_timer_arm(sh->loop, &c->timer, event_now(sh->loop) +
		    STATS_HTTP_TIMEOUT_MS) == -1) {
			client_close(c);
			continue;
		}
		/* At the most: leave new clients to the other workers. */
		if (sh->count >= STATS_HTTP_MAX) {
			if (event_mask(sh->loop, fd, 0) == 0)
				sh->full = true;
			return;
		}
	}
}

struct stats_http *
stats_http_new(struct event_loop *loop, const struct conf *cfg, int fd)
{
	struct stats_http *sh = calloc(1, sizeof(*sh));

	if (sh == NULL)
		return NULL;
	sh->loop = loop;
	sh->cfg = cfg;
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
		client_close(TAILQ_FIRST(&sh->clients));
	free(sh);
}
