/*
 * tcp_proxy_wait.c - reading the PROXY header of accept_proxy rules.
 *
 * The socket is watched for reading, level-triggered.  Each time, what
 * is there is peeked at after what was taken before: while it is only a
 * part of a header, all of it is taken (it can be nothing but header),
 * so that the socket is empty and the loop does not spin; once the
 * header is whole, only the rest of its bytes are taken.
 *
 * A header that is "optional" cannot be taken before it is whole: the
 * bytes may turn out to be the client's own.  So they are only peeked
 * at, and SO_RCVLOWAT keeps the socket quiet until one more byte than
 * seen is there (or its end: then they were not a header).
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include "accesslog.h"
#include "acl.h"
#include "bug.h"
#include "addr.h"
#include "event.h"
#include "log.h"
#include "proxy_proto.h"
#include "rule.h"
#include "stats.h"
#include "tcp_proxy_wait.h"
#include "tcp_session.h"
#include "upstream.h"

struct proxy_wait {
	TAILQ_ENTRY(proxy_wait)	 link;
	struct proxy_waits	*owner;
	const struct rule	*rule;
	int			 fd;
	size_t			 got;		/* header bytes taken so far */
	size_t			 seen;		/* "optional": bytes peeked */
	bool			 lowat;		/* SO_RCVLOWAT raised */
	bool			 believed;	/* its header names the client */
	bool			 passed;	/* ... goes on with "pass" */
	int64_t			 started;
	struct sockaddr_any	 peer;
	struct event_timer	 timer;		/* proxy_timeout */
	unsigned char		 buf[PROXY_IN_MAX];
};

struct proxy_waits {
	struct event_loop	*loop;
	TAILQ_HEAD(, proxy_wait) list;
	int			 count;
	proxy_admit_fn		*admit;
	void			*arg;
};

static void
wait_free(struct proxy_wait *w)
{
	struct proxy_waits	*pw = w->owner;

	event_timer_cancel(pw->loop, &w->timer);
	TAILQ_REMOVE(&pw->list, w, link);
	pw->count--;
	free(w);
}

/* The header did not come, or not as one: close, count, say so now and then. */
static void
wait_reject(struct proxy_wait *w, const char *result, const char *why)
{
	static struct log_limit	 limit;
	struct proxy_waits	*pw = w->owner;
	char			 client[ADDR_STRLEN];
	int64_t			 now = event_now(pw->loop);

	stats_rule(w->rule)->proxy_errors++;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: client %s: %s; "
	    "closed (%llu PROXY header errors in this slot so far)",
	    rule_log_name(w->rule), addr_format((const struct sockaddr *)&w->peer.ss,
	    client, sizeof(client)), why,
	    (unsigned long long)stats_rule(w->rule)->proxy_errors);
	/* rinetd names the rule's backend on such lines too. */
	accesslog_session(w->rule, (const struct sockaddr *)&w->peer.ss,
	    (const struct sockaddr *)&w->rule->upstream.backends[0].addr.ss,
	    0, result, 0, 0, w->started, now, &accesslog_no_times);
	event_close(pw->loop, w->fd);
	close(w->fd);
	wait_free(w);
}

/*
 * The whole header is taken (info; NULL: "optional", and none came): on
 * to the session, with its addresses and its bytes.
 */
static void
wait_done(struct proxy_wait *w, const struct proxy_info *info)
{
	struct proxy_waits	*pw = w->owner;
	struct sockaddr_any	 peer = w->peer, local;
	struct tcp_proxied	 said;
	unsigned char		 header[PROXY_IN_MAX];
	const struct rule	*rule = w->rule;
	int			 fd = w->fd, one = 1;
	/* A datagram's addresses say nothing of this connection. */
	bool			 has = info != NULL && w->believed &&
				    info->has_addresses && info->stream;

	if (has) {
		memcpy(&peer.ss, &info->src, info->src_len);
		peer.len = info->src_len;
		memcpy(&local.ss, &info->dst, info->dst_len);
		local.len = info->dst_len;
	}
	/* The relay wants to hear of every byte again. */
	if (w->lowat)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &one,
		    sizeof(one));
	said.accepted = w->started;
	said.local = has ? &local : NULL;
	said.header = header;
	said.header_len = info != NULL && w->passed ? w->got : 0;
	memcpy(header, w->buf, said.header_len);
	/* Unwatched, not closed: the session watches it anew. */
	(void)event_mask(pw->loop, fd, 0);
	wait_free(w);
	pw->admit(pw->arg, fd, rule, &peer, &said);
}

/*
 * "optional": the n bytes there start a header but are not all of it.
 * Wait for one more, unless none came since the last look (the client
 * ended there): then they were its own bytes.
 */
static void
wait_more(struct proxy_wait *w, size_t n)
{
	int	lowat = (int)n + 1;

	if (n <= w->seen || setsockopt(w->fd, SOL_SOCKET, SO_RCVLOWAT, &lowat,
	    sizeof(lowat)) == -1) {
		wait_done(w, NULL);
		return;
	}
	w->seen = n;
	w->lowat = true;
}

/* Take exactly n bytes that a peek showed are there. */
static bool
take(struct proxy_wait *w, size_t n)
{
	ssize_t	r;

	BUG_ON(w->got + n > sizeof(w->buf));	/* the peek's own bound */
	do
		r = recv(w->fd, w->buf + w->got, n, 0);
	while (r == -1 && errno == EINTR);
	if (r != (ssize_t)n)
		return false;
	w->got += n;
	return true;
}

static void
wait_on_read(struct event_loop *loop, int fd, int events, void *data)
{
	struct proxy_wait	*w = data;
	struct proxy_info	 info;
	const char		*why;
	ssize_t			 n;
	int			 rc;

	(void)loop;
	/*
	 * No header has urgent data; and a peek would step over it, leaving
	 * it to wake a level-triggered loop again and again.
	 */
	if (events & EV_URGENT) {
		if (w->rule->proxy_optional)	/* nothing taken: its own */
			wait_done(w, NULL);
		else
			wait_reject(w, ACCESSLOG_PROXY_ERROR,
			    "urgent data instead of a PROXY header");
		return;
	}
	do
		n = recv(fd, w->buf + w->got, sizeof(w->buf) - w->got,
		    MSG_PEEK);
	while (n == -1 && errno == EINTR);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		wait_reject(w, ACCESSLOG_PROXY_ERROR, n == 0 ?
		    "closed before its PROXY header was whole" :
		    "connection failed before its PROXY header");
		return;
	}
	rc = proxy_parse(w->buf, w->got + (size_t)n, &info, &why);
	if (rc == PROXY_PARSE_BAD) {
		if (w->rule->proxy_optional)	/* nothing taken: its own */
			wait_done(w, NULL);
		else
			wait_reject(w, ACCESSLOG_PROXY_ERROR, why);
		return;
	}
	if (rc == PROXY_PARSE_MORE && w->rule->proxy_optional) {
		wait_more(w, (size_t)n);
		return;
	}
	if (rc == PROXY_PARSE_MORE) {
		/* All of it is header: take it, so that nothing is pending. */
		if (!take(w, (size_t)n))
			wait_reject(w, ACCESSLOG_PROXY_ERROR,
			    "cannot read its PROXY header");
		return;
	}
	if ((size_t)rc < w->got || !take(w, (size_t)rc - w->got)) {
		wait_reject(w, ACCESSLOG_PROXY_ERROR,
		    "cannot read its PROXY header");
		return;
	}
	wait_done(w, &info);
}

static void
wait_on_timer(struct event_timer *t, void *data)
{
	struct proxy_wait	*w = data;

	(void)t;
	/* A client that speaks second, or stopped short of a header. */
	if (w->rule->proxy_optional) {
		wait_done(w, NULL);
		return;
	}
	wait_reject(w, ACCESSLOG_PROXY_TIMEOUT, w->got == 0 ?
	    "no PROXY header within proxy_timeout" :
	    "PROXY header not whole within proxy_timeout");
}

struct proxy_waits *
proxy_waits_new(struct event_loop *loop, proxy_admit_fn *admit, void *arg)
{
	struct proxy_waits	*pw;

	if ((pw = calloc(1, sizeof(*pw))) == NULL)
		return NULL;
	pw->loop = loop;
	TAILQ_INIT(&pw->list);
	pw->admit = admit;
	pw->arg = arg;
	return pw;
}

void
proxy_waits_free(struct proxy_waits *pw)
{
	if (pw == NULL)
		return;
	proxy_waits_close_all(pw);
	free(pw);
}

int
proxy_wait_start(struct proxy_waits *pw, int fd, const struct rule *rule,
    const struct sockaddr_any *peer)
{
	static struct log_limit	 limit;
	static const struct acl	 none;
	struct proxy_wait	*w;
	char			 client[ADDR_STRLEN];
	int64_t			 now = event_now(pw->loop);
	bool			 listed = rule->accept_proxy_from.nallow > 0 ||
				    rule->accept_proxy_from.ndeny > 0;
	/*
	 * Only these peers may say who the client is.  "optional" takes
	 * anyone's header off the stream, and believes only theirs.
	 */
	bool			 believed = listed ? acl_permits(&none,
				    &rule->accept_proxy_from, (const struct
				    sockaddr *)&peer->ss) : !rule->proxy_optional;

	if (!believed && !rule->proxy_optional) {
		stats_rule(rule)->denied++;
		log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: client %s is "
		    "not in accept_proxy_from; closed", rule_log_name(rule),
		    addr_format((const struct sockaddr *)&peer->ss, client,
		    sizeof(client)));
		accesslog_session(rule, (const struct sockaddr *)&peer->ss,
		    (const struct sockaddr *)&rule->upstream.backends[0].addr.ss,
		    0, ACCESSLOG_DENIED, 0, 0, now, now, &accesslog_no_times);
		close(fd);
		return 0;
	}
	if ((w = malloc(sizeof(*w))) == NULL) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	memset(w, 0, offsetof(struct proxy_wait, buf));
	w->owner = pw;
	w->rule = rule;
	w->fd = fd;
	w->peer = *peer;
	w->started = now;
	w->believed = believed;
	/*
	 * "pass" hands on what it believes; with no accept_proxy_from to
	 * say whom (sslh's way), any header, which the backend must judge.
	 */
	w->passed = believed || !listed;
	event_timer_init(&w->timer, wait_on_timer, w);
	TAILQ_INSERT_TAIL(&pw->list, w, link);
	pw->count++;
	if (event_set(pw->loop, fd, EV_READ, wait_on_read, w) == -1 ||
	    event_timer_arm(pw->loop, &w->timer, now + rule->proxy_timeout) ==
	    -1) {
		event_close(pw->loop, fd);
		close(fd);
		wait_free(w);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int
proxy_waits_count(const struct proxy_waits *pw)
{
	return pw != NULL ? pw->count : 0;
}

void
proxy_waits_close_all(struct proxy_waits *pw)
{
	struct proxy_wait	*w;

	while ((w = TAILQ_FIRST(&pw->list)) != NULL) {
		accesslog_session(w->rule, (const struct sockaddr *)&w->peer.ss,
		    (const struct sockaddr *)&w->rule->upstream.backends[0].
		    addr.ss, 0, ACCESSLOG_SHUTDOWN, 0, 0, w->started,
		    event_now(pw->loop), &accesslog_no_times);
		event_close(pw->loop, w->fd);
		close(w->fd);
		wait_free(w);
	}
}
