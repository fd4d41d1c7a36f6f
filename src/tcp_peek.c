/*
 * tcp_peek.c - which route a client's first bytes pick (route.h): take
 * them with a plain read, run each probe a route needs once per look
 * (the stateful ones, TLS and HTTP, go on where they stopped: nothing
 * is parsed twice), and take the first route in order that matches.  A
 * route whose probe wants more bytes holds back the routes after it, so
 * the order written is the order of preference.  A rule with
 * probes = "sslh" is judged as sslh judges instead (pick_sslh).
 *
 * The bytes are read, not peeked (MSG_PEEK) and left in the socket:
 * that would have the relay read them a second time, one more system
 * call per connection.  The session hands them to the relay to write
 * to the chosen backend first (tcp_relay_preamble).
 */
#include "ferryd.h"

#include <string.h>

#include "bug.h"
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

/*
 * Per connection: the probes' states and flags are zeroed, not their
 * names' buffers (most of the struct), which are read only once written.
 */
void
tcp_peek_init(struct tcp_peek *p)
{
	probe_tls_start(&p->tls);
	probe_http_start(&p->http);
	p->kept = NULL;
	p->tls_v = p->http_v = PROBE_AGAIN;
	p->drained = p->eof = false;
	p->len = 0;
	p->sni[0] = '\0';
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

typedef enum probe_verdict stateless_probe(const uint8_t *, size_t);

/* The stateless probes by enum route_protocol: ferryd's, and sslh's. */
static stateless_probe *const own_probes[ROUTE_PROTOCOLS] = {
	[ROUTE_SSH] = probe_ssh, [ROUTE_OPENVPN] = probe_openvpn,
	[ROUTE_SOCKS5] = probe_socks5, [ROUTE_XMPP] = probe_xmpp,
	[ROUTE_ADB] = probe_adb, [ROUTE_SYSLOG] = probe_syslog,
	[ROUTE_MSRDP] = probe_msrdp
};
static stateless_probe *const sslh_probes[ROUTE_PROTOCOLS] = {
	[ROUTE_HTTP] = probe_sslh_http, [ROUTE_SSH] = probe_sslh_ssh,
	[ROUTE_OPENVPN] = probe_sslh_openvpn,
	[ROUTE_SOCKS5] = probe_sslh_socks5, [ROUTE_XMPP] = probe_sslh_xmpp,
	[ROUTE_ADB] = probe_sslh_adb, [ROUTE_SYSLOG] = probe_sslh_syslog,
	[ROUTE_MSRDP] = probe_sslh_msrdp
};

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
	default:
		/* ROUTE_ANY: anything. */
		return own_probes[proto] != NULL ? own_probes[proto](look, len) :
		    PROBE_MATCH;
	}
}

/* Route rt's protocol and names, by ferryd's own probes. */
static enum probe_verdict
strict_verdict(struct tcp_peek *p, const struct route *rt, uint8_t *look,
    size_t len)
{
	enum probe_verdict	v;

	if ((v = protocol_verdict(p, rt->protocol, look, len)) != PROBE_MATCH)
		return v;
	if (rt->protocol == ROUTE_TLS && !route_tls_match(rt, &p->tls))
		return PROBE_NO;
	if (rt->protocol == ROUTE_HTTP && rt->host.n > 0 &&
	    (!p->http.has_host || !route_name_match(&rt->host, p->http.host)))
		return PROBE_NO;
	return PROBE_MATCH;
}

/* Who sslh's TLS reader asks for names: a route, for a peek. */
struct sslh_asker {
	struct tcp_peek		*p;
	const struct route	*rt;
};

/* sslh's TLS reader asks for a name: route_name_match's, any case. */
static bool
sslh_name_match(void *ctx, bool alpn, const char *name)
{
	struct tcp_peek		*p = ((struct sslh_asker *)ctx)->p;
	const struct route	*rt = ((struct sslh_asker *)ctx)->rt;
	size_t			 i;

	if (alpn)
		return route_alpn_match(rt, name);
	/* The name noted for PROXY v2 and the access log, lower-cased. */
	for (i = 0; name[i] != '\0'; i++)
		p->sni[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ?
		    name[i] + 32 : name[i]);
	p->sni[i] = '\0';
	return route_name_match(&rt->sni, p->sni);
}

/*
 * TLS, probes = "sslh": a match if ferryd's reader matches (a hello over
 * several records, a name in another case: where sslh misroutes, ferryd
 * does not) or sslh's does (its first record alone: it lets a flawed
 * hello through); undecided while either waits.
 */
static enum probe_verdict
sslh_tls_verdict(struct tcp_peek *p, const struct route *rt, uint8_t *look,
    size_t len)
{
	struct sslh_asker	 asker = { p, rt };
	struct probe_sslh_names	 names = { rt->sni.n > 0 || rt->no_sni,
				    rt->alpn.n > 0, sslh_name_match, &asker };
	enum probe_verdict	 strict, v;

	if ((strict = strict_verdict(p, rt, look, len)) == PROBE_MATCH)
		return PROBE_MATCH;
	if ((v = probe_sslh_tls(look, len, &names)) == PROBE_MATCH)
		return PROBE_MATCH;
	return v == PROBE_AGAIN || strict == PROBE_AGAIN ? PROBE_AGAIN :
	    PROBE_NO;
}

/*
 * Route rt's protocol, probes = "sslh": sslh's probe of its name; HTTP
 * with host is ferryd's (sslh has no Host to match).
 */
static enum probe_verdict
sslh_verdict(struct tcp_peek *p, const struct route *rt, uint8_t *look,
    size_t len)
{
	if (rt->protocol == ROUTE_TLS)
		return sslh_tls_verdict(p, rt, look, len);
	if (rt->protocol == ROUTE_HTTP && rt->host.n > 0)
		return strict_verdict(p, rt, look, len);
	return sslh_probes[rt->protocol] != NULL ?
	    sslh_probes[rt->protocol](look, len) : PROBE_MATCH;
}

/*
 * Route rt's verdict on the len bytes so far, by sslh's probes or
 * ferryd's.  A regex is judged on the bytes at hand (as sslh does): it
 * matches or it does not, and is judged again at a later look only if a
 * route before it held on (always, with sslh's).
 */
static enum probe_verdict
route_verdict(struct tcp_peek *p, const struct route *rt, uint8_t *look,
    size_t len, bool sslh)
{
	enum probe_verdict	v;

	/* min_length: not judged before then (sslh's minlength). */
	if (len < (size_t)rt->min_length)
		return PROBE_AGAIN;
	v = sslh ? sslh_verdict(p, rt, look, len) :
	    strict_verdict(p, rt, look, len);
	if (v != PROBE_MATCH)
		return v;
	if (rt->nregex > 0 && !route_regex_match(rt, look, len))
		return PROBE_NO;
	return PROBE_MATCH;
}

/*
 * What the chosen route matched, kept for PROXY v2 and the access log.
 * A TLS route that sslh's reader took has what it noted (pick_sslh).
 */
static void
peek_note(struct tcp_peek *p, const struct route *rt)
{
	const char	*name = "";
	size_t		 len;

	if (rt->protocol == ROUTE_TLS && p->tls_v != PROBE_MATCH)
		return;
	if (rt->protocol == ROUTE_TLS && p->tls.has_sni)
		name = p->tls.sni;
	else if (rt->protocol == ROUTE_HTTP && p->http_v == PROBE_MATCH &&
	    p->http.has_host)
		name = p->http.host;
	/* A copy, not snprintf: a tenth of the instructions, per client. */
	len = strnlen(name, sizeof(p->sni) - 1);
	memcpy(p->sni, name, len);
	p->sni[len] = '\0';
}

/*
 * ferryd's order: the first route that matches; one that waits for more
 * bytes holds back those after it (*v PROBE_AGAIN).  NULL and *v
 * PROBE_NO: none matches.
 */
static const struct route *
pick_strict(struct tcp_peek *p, const struct rule *rule, uint8_t *look,
    enum probe_verdict *v)
{
	size_t	i;

	*v = PROBE_NO;
	for (i = 0; i < rule->nroutes; i++) {
		*v = route_verdict(p, &rule->routes[i], look, p->len, false);
		if (*v == PROBE_MATCH)
			return &rule->routes[i];
		if (*v == PROBE_AGAIN)
			break;
	}
	return NULL;
}

/*
 * sslh's order (its probe_buffer): every route is asked at every look,
 * and the first that matches wins, even past routes that wait for more
 * bytes; when none matches and none waits, the last route takes the
 * client, as sslh gives its last protocol what no probe matched.  A last
 * route that matches anything (sslh's last anyprot) is not asked: it
 * takes a client only once no other route waits.  NULL: undecided.
 */
static const struct route *
pick_sslh(struct tcp_peek *p, const struct rule *rule, uint8_t *look,
    enum probe_verdict *v)
{
	size_t	n = rule->nroutes, i;
	bool	again = false;

	BUG_ON(n == 0);	/* a rule with probes has routes */
	if (route_is_default(&rule->routes[n - 1]))
		n--;
	for (i = 0; i < n; i++) {
		*v = route_verdict(p, &rule->routes[i], look, p->len, true);
		if (*v == PROBE_MATCH)
			return &rule->routes[i];
		again |= *v == PROBE_AGAIN;
	}
	*v = PROBE_AGAIN;
	if (!again)
		return &rule->routes[rule->nroutes - 1];
	/* Undecided: no name for on_timeout's route, or the last's. */
	p->sni[0] = '\0';
	return NULL;
}

/* probes = "sslh": a client that ends undecided, to the last route. */
static enum tcp_peek_status
sslh_ended(struct tcp_peek *p, const struct rule *rule,
    const struct route **route)
{
	*route = &rule->routes[rule->nroutes - 1];
	peek_note(p, *route);
	return TCP_PEEK_ROUTE;
}

enum tcp_peek_status
tcp_peek_look(struct tcp_peek *p, int fd, const struct xprt_ops *xprt,
    struct pool *pool, const struct rule *rule, bool fin,
    const struct route **route, int *err)
{
	enum probe_verdict	 v;
	uint8_t			*at = p->kept != NULL ? p->kept : first_look;
	size_t			 room = PROBE_PEEK_MAX - p->len;
	bool			 sslh = rule->probes == ROUTE_PROBES_SSLH;
	ssize_t			 n;

	*err = 0;
	/* Bytes and then the end: on_timeout's route may still take them. */
	if (p->eof)
		return TCP_PEEK_AGAIN;
	/* first_look is every session's: bytes that wait are in kept */
	BUG_ON(p->len > PROBE_PEEK_MAX || (p->len > 0 && p->kept == NULL));
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
		if (!sslh)
			return TCP_PEEK_AGAIN;
		/* The relay's own read is to see the end again. */
		p->drained = false;
		return sslh_ended(p, rule, route);
	}
	BUG_ON((size_t)n > room);
	p->len += (uint32_t)n;
	/* A short read emptied the socket (as the relay's, tcp_relay.c). */
	p->drained = (size_t)n < room;
	*route = sslh ? pick_sslh(p, rule, at, &v) :
	    pick_strict(p, rule, at, &v);
	if (*route != NULL) {
		/* a route of this rule, and a match or sslh's last resort */
		BUG_ON(*route < rule->routes ||
		    *route >= rule->routes + rule->nroutes);
		peek_note(p, *route);
		return TCP_PEEK_ROUTE;
	}
	if (v == PROBE_NO)
		return TCP_PEEK_UNMATCHED;
	/* All it sent is in: the end that came with it is its end. */
	if (sslh && fin && p->drained)
		return sslh_ended(p, rule, route);
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
