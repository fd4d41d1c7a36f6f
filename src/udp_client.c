/*
 * udp_client.c - a UDP listener's limits per client address
 * (max_sessions_per_client, session_rate): client_limit.c's tables,
 * which count TCP connections, count sessions here; and its allow and
 * deny.
 */
#include "ferryd.h"

#include <string.h>

#include "accesslog.h"
#include "acl.h"
#include "addr.h"
#include "client_limit.h"
#include "event.h"
#include "log.h"
#include "rule.h"
#include "stats.h"
#include "udp_client.h"
#include "udp_types.h"

/*
 * Count s against its client's limits (client_limit.c), from its start:
 * a session handed over at a reload is counted again by its new worker,
 * not as a new one.  What client_limit_release() takes, or -1.
 */
int
udp_client_hold(const struct udp_session *s)
{
	struct sockaddr_any peer;

	if (!client_limited(s->rule))
		return -1;
	memcpy(&peer.ss, &s->client, s->client_len);
	peer.len = s->client_len;
	return client_limit_hold(s->rule, &peer, s->started);
}

/*
 * A new session from from->client would go over its limits per client:
 * refused, counted and logged (rate-limited).
 */
bool
udp_client_refused(struct udp_sessions *us,
    const struct udp_from *from)
{
	static struct log_limit	 per_client, rate;
	const struct rule	*rule = from->rule;
	struct sockaddr_any	 peer;
	enum client_verdict	 verdict;
	unsigned		 seen = 0;
	char			 client[ADDR_STRLEN];

	if (!client_limited(rule))
		return false;
	memcpy(&peer.ss, from->client, from->client_len);
	peer.len = from->client_len;
	verdict = client_limit_check(rule, &peer, event_now(us->loop), &seen);
	if (verdict == CLIENT_ADMIT)
		return false;
	/* The address alone: the limits are per address, not per port. */
	addr_host(from->client, client, sizeof(client));
	if (verdict == CLIENT_OVER_MAX) {
		stats_rule(rule)->refused_per_client++;
		log_limited_at(&per_client, LOG_LEVEL_WARNING, "%s: refused a "
		    "UDP session for %s: %u session%s from it already "
		    "(max_sessions_per_client %d)", rule_log_name(rule),
		    client, seen, seen == 1 ? "" : "s",
		    rule->max_connections_per_client);
	} else {
		stats_rule(rule)->refused_rate++;
		log_limited_at(&rate, LOG_LEVEL_WARNING, "%s: refused a UDP "
		    "session for %s: %u new session%s from it in the last "
		    "second (session_rate %d)", rule_log_name(rule), client,
		    seen, seen == 1 ? "" : "s", rule->connection_rate);
	}
	return true;
}

/*
 * Whether a new session from from->client may be made (allow and deny):
 * a denied client is counted and logged (rate-limited).
 */
bool
udp_client_allowed(struct udp_sessions *us, const struct udp_from *from)
{
	static struct log_limit	limit;
	char			client[ADDR_STRLEN];
	int			verdict;
	int64_t			now = event_now(us->loop);

	if ((verdict = acl_verdict(us->acl, &from->rule->acl,
	    from->client)) == ACL_PERMITTED)
		return true;
	log_limited_at(&limit, LOG_LEVEL_INFO, "%s: client %s denied by "
	    "allow/deny rules", rule_log_name(from->rule),
	    addr_format(from->client, client, sizeof(client)));
	stats_rule(from->rule)->denied++;
	/* rinetd logs each datagram of a refused client: so do its lines. */
	if (accesslog_logs_opened())
		accesslog_session(from->rule, from->client,
		    (const struct sockaddr *)&from->rule->upstream.backends[0].
		    addr.ss, 0, verdict == ACL_NOT_ALLOWED ?
		    ACCESSLOG_NOT_ALLOWED : ACCESSLOG_DENIED, 0, 0, now, now,
		    &accesslog_no_times);
	return false;
}
