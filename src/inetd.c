/*
 * inetd.c - ferryd -i (sslh -i): serve the one connection inetd, or a
 * socket unit with Accept=yes, hands over on standard input, then exit.
 * No master, no worker, nothing bound, no pidfile: the rule is the one
 * whose listen address the connection came to, and the connection goes
 * the way a worker would take it (PROXY header, allow/deny, routes,
 * backends, the relay), in this process.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl.h"
#include "balance.h"
#include "child.h"
#include "conf.h"
#include "event.h"
#include "inetd.h"
#include "log.h"
#include "master_reload.h"
#include "pool.h"
#include "sandbox.h"
#include "sig.h"
#include "tcp_proxy_wait.h"
#include "tcp_session.h"

#define INETD_FD	0	/* the connection: standard input */

struct inetd {
	struct event_loop	*loop;
	struct pool		*pool;
	struct tcp_sessions	*sessions;
	struct proxy_waits	*waits;
	const struct conf	*cfg;
};

/* a with its address the wildcard of its family (its port kept). */
static void
wildcard(struct sockaddr_any *a)
{
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_addr.s_addr =
		    htonl(INADDR_ANY);
	else if (a->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->ss)->sin6_addr = in6addr_any;
}

/* An IPv4-mapped IPv6 address (a dual-stack socket's) as IPv4 in v4. */
static bool
unmapped(const struct sockaddr_any *a, struct sockaddr_any *v4)
{
	const struct sockaddr_in6	*s6 = (const void *)&a->ss;
	struct sockaddr_in		*s4 = (void *)&v4->ss;

	if (a->ss.ss_family != AF_INET6 ||
	    !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return false;
	memset(v4, 0, sizeof(*v4));
	s4->sin_family = AF_INET;
	s4->sin_port = s6->sin6_port;
	memcpy(&s4->sin_addr, &s6->sin6_addr.s6_addr[12], 4);
	v4->len = sizeof(*s4);
	return true;
}

/* Whether rule r's address is a, or the wildcard of a's port. */
static bool
listens_on(const struct rule *r, const struct sockaddr_any *a)
{
	struct sockaddr_any	any = *a;

	wildcard(&any);
	return addr_equal(&r->listen_addr, a) ||
	    addr_equal(&r->listen_addr, &any);
}

/*
 * Whether TCP rule r listens where the connection came (local): its
 * address, its family's wildcard, and for an IPv4 client of a
 * dual-stack socket (systemd's ListenStream=PORT) the IPv4 ones too.
 */
static bool
listens_at(const struct rule *r, const struct sockaddr_any *local)
{
	struct sockaddr_any	v4;

	if (r->protocol != RULE_TCP || r->connect_protocol != RULE_TCP)
		return false;
	return listens_on(r, local) ||
	    (unmapped(local, &v4) && listens_on(r, &v4));
}

/*
 * The rule of a connection to local: the one listening there, else the
 * first TCP rule (an inetd line names no address: sslh -i takes its one
 * set of protocols).  NULL when there is no TCP rule.
 */
static const struct rule *
inetd_rule(const struct conf *cfg, const struct sockaddr_any *local)
{
	const struct rule	*first = NULL;
	size_t			 i;

	for (i = 0; i < cfg->nrules; i++) {
		const struct rule *r = &cfg->rules[i];

		if (listens_at(r, local))
			return r;
		if (first == NULL && r->protocol == RULE_TCP &&
		    r->connect_protocol == RULE_TCP &&
		    r->listen_addr.ss.ss_family != AF_UNIX)
			first = r;
	}
	return first;
}

void
inetd_spare_client(void)
{
	struct stat	in, err;
	int		null;

	if (fstat(INETD_FD, &in) == -1 || fstat(STDERR_FILENO, &err) == -1 ||
	    in.st_dev != err.st_dev || in.st_ino != err.st_ino)
		return;
	log_open(LOG_TO_SYSLOG, NULL, NULL, 0);
	if ((null = open("/dev/null", O_WRONLY)) != -1) {
		(void)dup2(null, STDERR_FILENO);
		close(null);
	}
}

/* Logs: the file when there is one, else syslog but in the foreground. */
static int
inetd_logs(const struct conf *cfg, bool foreground)
{
	char		why[CONF_ERR_MAX];

	if (cfg->log_file != NULL &&
	    log_open(LOG_TO_FILE, cfg->log_file, why, sizeof(why)) == -1) {
		log_open(LOG_TO_SYSLOG, NULL, NULL, 0);
		log_err("%s", why);
		return -1;
	}
	if (cfg->log_file == NULL && !foreground)
		log_open(LOG_TO_SYSLOG, NULL, NULL, 0);
	return 0;
}

/* allow/deny, then the session; the header's client when there was one. */
static void
inetd_admit(void *arg, int fd, const struct rule *rule,
    const struct sockaddr_any *peer, const struct tcp_proxied *proxied)
{
	struct inetd	*in = arg;
	char		 client[ADDR_STRLEN];
	int		 acl;

	if ((acl = acl_verdict(&in->cfg->acl, &rule->acl,
	    (const struct sockaddr *)&peer->ss)) != ACL_PERMITTED) {
		log_info("%s: client %s denied by allow/deny rules",
		    rule_log_name(rule), addr_format((const struct sockaddr *)
		    &peer->ss, client, sizeof(client)));
		tcp_session_refuse(in->sessions, fd, rule, peer,
		    acl == ACL_NOT_ALLOWED ? ACCESSLOG_NOT_ALLOWED :
		    ACCESSLOG_DENIED);
	} else if (tcp_session_start(in->sessions, fd, rule, peer,
	    proxied) == -1)
		log_err("%s: cannot relay the connection: %s",
		    rule_log_name(rule), strerror(errno));
}

/* The connection, from its start to its end; SIGTERM ends it early. */
static int
inetd_run(struct inetd *in, const struct rule *rule,
    const struct sockaddr_any *peer)
{
	char	err[CONF_ERR_MAX];

	if ((in->loop = event_loop_new(in->cfg->event_backend, 1024, err,
	    sizeof(err))) == NULL) {
		log_err("%s", err);
		return 1;
	}
	if ((in->pool = pool_new()) == NULL || (in->sessions =
	    tcp_sessions_new(in->loop, in->pool)) == NULL || (in->waits =
	    proxy_waits_new(in->loop, inetd_admit, in)) == NULL ||
	    event_set(in->loop, sig_fd(), EV_READ, sig_on_readable, NULL) ==
	    -1) {
		log_err("cannot set up: %s", strerror(errno));
		return 1;
	}
	if (sandbox_enter(in->cfg->seccomp, conf_has_unix_backends(in->cfg),
	    "inetd") == -1)
		return 1;
	if (rule->accept_proxy) {
		if (proxy_wait_start(in->waits, INETD_FD, rule, peer) == -1)
			return 1;
	} else
		inetd_admit(in, INETD_FD, rule, peer, NULL);
	while (tcp_sessions_count(in->sessions) +
	    proxy_waits_count(in->waits) > 0) {
		if (sig_take(SIGTERM) || sig_take(SIGINT)) {
			proxy_waits_close_all(in->waits);
			tcp_sessions_close_all(in->sessions, "shutdown");
			break;
		}
		if (event_loop_run_once(in->loop) == -1) {
			log_err("event loop failed: %s", strerror(errno));
			return 1;
		}
	}
	return 0;
}

int
inetd_serve(const struct conf *cfg, bool foreground)
{
	struct inetd		 in;
	struct sockaddr_any	 local, peer;
	const struct rule	*rule;
	char			 err[CONF_ERR_MAX];
	int			 type = 0, rc;
	socklen_t		 len = sizeof(type);

	local.len = sizeof(local.ss);
	peer.len = sizeof(peer.ss);
	if (getsockopt(INETD_FD, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    type != SOCK_STREAM ||
	    getsockname(INETD_FD, (struct sockaddr *)&local.ss, &local.len) ==
	    -1 || getpeername(INETD_FD, (struct sockaddr *)&peer.ss,
	    &peer.len) == -1) {
		log_err("-i: standard input is not a connected TCP socket (it "
		    "is the connection inetd or a socket unit with "
		    "Accept=yes hands over)");
		return 1;
	}
	if (inetd_logs(cfg, foreground) == -1)
		return 1;
	if (master_open_access_log(cfg, NULL, err, sizeof(err)) == -1) {
		log_err("%s", err);
		return 1;
	}
	if ((rule = inetd_rule(cfg, &local)) == NULL) {
		log_err("-i: no TCP rule to serve the connection with");
		return 1;
	}
	(void)fcntl(INETD_FD, F_SETFL, fcntl(INETD_FD, F_GETFL) | O_NONBLOCK);
	log_set_role("inetd");
	child_begin(cfg, 0, conf_has_transparent(cfg));
	balance_init(cfg->rules, cfg->nrules);
	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	rc = inetd_run(&in, rule, &peer);
	if (in.waits != NULL)
		proxy_waits_free(in.waits);
	if (in.sessions != NULL)
		tcp_sessions_free(in.sessions);
	pool_free(in.pool);
	event_loop_free(in.loop);
	return rc;
}
