/*
 * tcp_peek.c - which route a client's first bytes pick (route.h): take
 * them with a plain read, run each probe a route needs once per look
 * (the stateful ones, TLS and HTTP, go on where they stopped: nothing
 * is parsed twice), and take the first route in order that matches.  A
 * route whose probe wants more bytes holds back the routes after it, so
 * the order written is the order of preference.
 *
 * The bytes are read, not peeked (MSG_PEEK) and left in the socket:
 * that would have the relay read them a second time, one more system
 * call per connection.  The session hands them to the relay to write
 * to the chosen backend first (tcp_relay_preamble).
 */
#include "ferryd.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "pool.h"
#include "probe.h"
#include "route.h"
#include "rule.h"
#include "tcp_peek.h"
#include "xprt.h"

/*
 * A first look's bytes: a worker runs one look at a time, and most
 * clients say what picks their route in their first segment, whose
 * bytes the session hands on at once; so one buffer serves every
 * session, and only an undecided one keeps its bytes (kept, from the
 * pool).  One more byte for a NUL, for regexec.
 */
static uint8_t	first_look[PROBE_PEEK_MAX + 1];
#define KEPT_SIZE	(PROBE_PEEK_MAX + 1)

void
tcp_peek_init(struct tcp_peek *p)
{
	memset(p, 0, sizeof(*p));
	p->tls_v = p->http_v = PROBE_AGAIN;
}

void
tcp_peek_end(struct tcp_peek *p, struct pool *pool)
{
	if (p->kept != NULL)
		pool_put(pool, p->kept, KEPT_SIZE);
	p->kept = NULL;
}

const uint8_t *
tcp_peek_bytes(const struct tcp_peek *p)
{
	return p->kept != NULL ? p->kept : first_look;
}

/* Protocol proto's verdict on the len bytes so far (once per look). */
static enum probe_verdict
protocol_verdict(struct tcp_peek *p, int proto, const uint8_t *look,
    size_t len)
{
	switch (proto) {
	case ROUTE_TLS:
		if (p->tls_v == PROBE_AGAIN)
			p->tls_v = (uint8_t)probe_tls(&p->tls, look, len);
		return (enum probe_verdict)p->tls_v;
	case ROUTE_HTTP:
		if (p->http_v == PROBE_AGAIN)
			p->http_v = (uint8_t)probe_http(&p->http, look, len);
		return (enum probe_verdict)p->http_v;
	case ROUTE_SSH:
		return probe_ssh(look, len);
	case ROUTE_OPENVPN:
		return probe_openvpn(look, len);
	case ROUTE_SOCKS5:
		return probe_socks5(look, len);
	case ROUTE_XMPP:
		return probe_xmpp(look, len);
	case ROUTE_ADB:
		return probe_adb(look, len);
	case ROUTE_SYSLOG:
		return probe_syslog(look, len);
	case ROUTE_MSRDP:
		return probe_msrdp(look, len);
	default:
		return PROBE_MATCH;
	}
}

/* A ClientHello's SNI and ALPN against the route's lists. */
static bool
tls_matches(const struct route *rt, const struct probe_tls *tls)
{
	size_t	i;
	int	j;

	if ((rt->sni.n > 0 || rt->no_sni) && (!tls->has_sni ? !rt->no_sni :
	    !route_name_match(&rt->sni, tls->sni)))
		return false;
	if (rt->alpn.n == 0)
		return true;
	/* The client offers any of them. */
	for (j = 0; j < tls->nalpn && j < PROBE_ALPN_MAX; j++)
		for (i = 0; i < rt->alpn.n; i++)
			if (route_glob_match(rt->alpn.v[i], tls->alpn[j]))
				return true;
	return false;
}

/* Whether a pattern of rt matches the len bytes so far. */
static bool
regex_matches(const struct route *rt, uint8_t *look, size_t len)
{
	regmatch_t	m[1];
	size_t		i;
	int		flags = 0;

	look[len] = '\0';
#ifdef REG_STARTEND
	/* The bytes as they are, a NUL among them included. */
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)len;
	flags = REG_STARTEND;
#endif
	for (i = 0; i < rt->nregex; i++)
		if (regexec(&rt->regex[i], (const char *)look, 1, m, flags) == 0)
			return true;
	return false;
}

/*
 * Route rt's verdict on the len bytes so far.  A regex is judged on
 * the bytes at hand (as sslh does): it matches or it does not, and is
 * judged again at a later look only if a route before it held on.
 */
static enum probe_verdict
route_verdict(struct tcp_peek *p, const struct route *rt, uint8_t *look,
    size_t len)
{
	enum probe_verdict	v;

	/* min_length: not judged before then (sslh's minlength). */
	if (len < (size_t)rt->min_length)
		return PROBE_AGAIN;
	if ((v = protocol_verdict(p, rt->protocol, look, len)) != PROBE_MATCH)
		return v;
	if (rt->protocol == ROUTE_TLS && !tls_matches(rt, &p->tls))
		return PROBE_NO;
	if (rt->protocol == ROUTE_HTTP && rt->host.n > 0 &&
	    (!p->http.has_host || !route_name_match(&rt->host, p->http.host)))
		return PROBE_NO;
	if (rt->nregex > 0 && !regex_matches(rt, look, len))
		return PROBE_NO;
	return PROBE_MATCH;
}

/* What the chosen route matched, kept for PROXY v2 and the access log. */
static void
peek_note(struct tcp_peek *p, const struct route *rt)
{
	const char	*name = "";

	if (rt->protocol == ROUTE_TLS && p->tls.has_sni)
		name = p->tls.sni;
	else if (rt->protocol == ROUTE_HTTP && p->http.has_host)
		name = p->http.host;
	snprintf(p->sni, sizeof(p->sni), "%s", name);
}

enum tcp_peek_status
tcp_peek_look(struct tcp_peek *p, int fd, const struct xprt_ops *xprt,
    struct pool *pool, const struct rule *rule, const struct route **route,
    int *err)
{
	enum probe_verdict	v = PROBE_NO;
	uint8_t			*at = p->kept != NULL ? p->kept : first_look;
	size_t			 room = PROBE_PEEK_MAX - p->len, i;
	ssize_t			 n;

	*err = 0;
	/* Bytes and then the end: on_timeout's route may still take them. */
	if (p->eof)
		return TCP_PEEK_AGAIN;
	n = xprt->rcv_buf(fd, at + p->len, room);
	if (n == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return TCP_PEEK_AGAIN;
		*err = errno;
		return TCP_PEEK_CLOSED;
	}
	if (n == 0) {
		if (p->len == 0)
			return TCP_PEEK_CLOSED;
		p->eof = true;
		return TCP_PEEK_AGAIN;
	}
	p->len += (uint32_t)n;
	/* A short read emptied the socket (as the relay's, tcp_relay.c). */
	p->drained = (size_t)n < room;
	for (i = 0; i < rule->nroutes; i++) {
		v = route_verdict(p, &rule->routes[i], at, p->len);
		if (v == PROBE_MATCH) {
			*route = &rule->routes[i];
			peek_note(p, *route);
			return TCP_PEEK_ROUTE;
		}
		if (v == PROBE_AGAIN)
			break;
	}
	if (v == PROBE_NO)
		return TCP_PEEK_UNMATCHED;
	if (p->len == PROBE_PEEK_MAX)
		return TCP_PEEK_OVERSIZED;
	/* Undecided: the bytes so far wait with the session. */
	if (p->kept == NULL) {
		if ((p->kept = pool_get(pool, KEPT_SIZE)) == NULL) {
			*err = ENOMEM;
			return TCP_PEEK_SHORTAGE;
		}
		memcpy(p->kept, first_look, p->len);
	}
	return TCP_PEEK_AGAIN;
}
