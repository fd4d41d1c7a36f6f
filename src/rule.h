/*
 * rule.h - one rule of the configuration: where it listens, where it
 * forwards to (upstream.h), and its own settings (timeouts, limits,
 * health checks, keepalive, PROXY, access control).
 */
#ifndef FERRYD_RULE_H
#define FERRYD_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl.h"
#include "addr.h"
#include "sock.h"	/* struct keepalive */
#include "upstream.h"

/* What a rule forwards; its listeners' handler follows from it. */
enum rule_protocol {
	RULE_TCP = 0,		/* a stream: accept, connect, relay */
	RULE_UDP		/* datagrams: a session per client address */
};

#define HEALTH_CHECK_TEXT_MAX	256	/* send and expect, with a NUL */
#define DEFAULT_CHECK_INTERVAL	2000	/* ms */
#define DEFAULT_CHECK_TIMEOUT	1000	/* ms */
#define DEFAULT_CHECK_RISE	2
#define DEFAULT_CHECK_FALL	3

/*
 * Active health checks: the checker process probes every backend of the
 * rule each interval, and fall failures in a row mark it down, rise
 * successes up.  TCP: connect, send, find expect in the reply; UDP: send,
 * a reply (with expect in it) within timeout.
 */
struct health_check {
	bool    enabled;
	int     interval, timeout;           /* ms */
	int     rise, fall;
	char    send[HEALTH_CHECK_TEXT_MAX];   /* "" = nothing */
	char    expect[HEALTH_CHECK_TEXT_MAX]; /* "" = anything */
};

#define DEFAULT_KEEPALIVE_IDLE		60000	/* ms */
#define DEFAULT_KEEPALIVE_INTERVAL	10000	/* ms */
#define DEFAULT_KEEPALIVE_COUNT		6

/* One item of a rule's connect list, as written. */
struct connect_item {
	char   *address;                     /* "host:port" */
	int     weight, max_fails, fail_timeout, max_connections;
	int     slow_start;                  /* ms; UNSET: the rule's */
	bool    backup;
};

/*
 * A Unix listener (conf_unix.c): its socket file's mode, owner and
 * group, and the clients let in by the credentials of their process
 * (SO_PEERCRED): a uid in allow_uid or a gid in allow_gid; both lists
 * empty lets every client in.
 */
struct rule_unix {
	int		 mode;		/* file mode, 0 to 0777 */
	long		 owner, group;	/* -1: the master's */
	unsigned	*allow_uid;
	size_t		 nallow_uid;
	unsigned	*allow_gid;
	size_t		 nallow_gid;
};

#define RULE_UNIX_MODE_DEFAULT	0666	/* as reachable as a TCP port */

/* A rule's name: letters, digits and these; at most RULE_NAME_MAX bytes. */
#define RULE_NAME_CHARS	"._-:/[]@+"
#define RULE_NAME_MAX	64

struct route;

struct rule {
	char               *listen;          /* as written, e.g. "[::]:8080" */
	char               *name;            /* as written, or listen as
					      * written (a range whole),
					      * "/udp" after it for UDP */
	bool                name_given;      /* name was written */
	unsigned            stat;            /* its counters (stats.h): a
					      * range's ports share them */
	char               *connect;         /* as written, or the list's
					      * addresses joined by ", " */
	struct connect_item *items;          /* connect's items */
	size_t              nitems;
	struct sockaddr_any listen_addr;     /* resolved at load time */
	int                 protocol;        /* enum rule_protocol: listen's */
	int                 connect_protocol; /* enum rule_protocol: connect's */
	int                 framing;         /* enum rule_framing (framing.h),
					      * if they differ */
	struct upstream     upstream;        /* connect, resolved */
	struct health_check health_check;    /* its own, or the top level's */
	struct keepalive    keepalive;       /* its own, or the top level's */
	size_t              buffer_size;     /* bytes */
	int                 connect_timeout; /* ms, > 0 */
	int                 idle_timeout;    /* ms, 0 = never */
	int                 session_timeout; /* ms, either side UDP: silence */
	int                 max_sessions;    /* UDP listeners, per worker */
	/*
	 * The limits per client of client_limit.c: TCP connections, or for
	 * a UDP listener sessions (max_sessions_per_client, session_rate,
	 * copied here when the rule is loaded).
	 */
	int                 max_connections_per_client; /* open from one
					      * address, over all workers;
					      * 0 = no limit */
	int                 connection_rate; /* new per second from one
					      * address; 0 = none */
	int                 max_sessions_per_client; /* as written, or UNSET */
	int                 session_rate;    /* as written, or UNSET */
	uint64_t            client_key;      /* its name hashed: the rule in
					      * client_limit.c's tables,
					      * across reloads */
	int                 splice;          /* enum splice_mode (tcp_relay.h) */
	int                 sndbuf;          /* SO_SNDBUF, 0 = system's */
	int                 rcvbuf;          /* SO_RCVBUF, 0 = system's */
	char               *source;          /* as written (a list's items
					      * joined by ", "), NULL = not
					      * set */
	struct source_pool *source_pool[2];  /* source's IPv4 and IPv6
					      * addresses, NULL: none */
	bool                ipv6_only;       /* IPV6_V6ONLY on IPv6 listeners */
	int                 send_proxy;      /* enum proxy_version (proxy_proto.h) */
	bool                accept_proxy;    /* clients start with a header */
	bool                proxy_optional;  /* ... or may: "optional" */
	int                 proxy_timeout;   /* ms, for that header */
	int                 slow_start;      /* ms, its backends' default */
	int                 queue_timeout;   /* ms a client waits while every
					      * backend is at max_connections;
					      * 0: refused at once */
	int                 queue_max;       /* clients waiting, per worker */
	struct acl          accept_proxy_from; /* who may send one; empty: all */
	bool                transparent;     /* backends see the client's address */
	bool                stats_histograms; /* /metrics has its latency
					      * histograms (stats_prom.c) */
	bool                no_access_log;   /* its connections write no
					      * access log line (sslh's
					      * log_level: 0) */
	int                 tcp_fastopen;    /* TFO queue on the listener, 0: off */
	bool                tcp_fastopen_connect; /* TFO towards backends */
	int                 defer_accept;    /* TCP_DEFER_ACCEPT s, 0: off */
	int                 rate_limit;      /* bytes/s each way per
					      * connection or UDP session,
					      * 0: none */
	int                 rule_rate_limit; /* bytes/s each way, all its
					      * connections and sessions
					      * in every worker, 0: none */
	int                 rate_cell;       /* its shared budget (rate.h),
					      * set by the master; 0: none */
	struct acl          acl;             /* this rule's allow and deny */
	struct rule_unix    unix_sock;       /* listen = "unix:...": the
					      * file and who may connect */
	char               *file;            /* file the rule is in */
	int                 line;            /* line of the rule in the file */
	int                 elem;            /* its group's index in rules */
	/*
	 * A port range is a rule per port.  The first port's shares with the
	 * others what does not change with the port: file, connect, items,
	 * source, acl, accept_proxy_from, maglev.  NULL: this rule is the
	 * first, or alone.
	 */
	const struct rule  *range_first;
	unsigned            nports;          /* a range's first: its ports */
	/*
	 * routes (route.h): the first bytes pick where a connection goes.
	 * With them, upstream holds every route's backends (each route's
	 * own upstream is a slice of it) and connect names the routes.
	 */
	struct route       *routes;
	size_t              nroutes;
	int                 peek_timeout;    /* ms, for the first bytes */
	int                 on_timeout;      /* a route's index, or -1 */
	char               *on_timeout_name; /* as written, NULL = close */
	int                 probes;          /* enum route_probes: whose */
	const struct rule  *parent;          /* a route's dest: its rule */
};

/* What log lines call rule r: its name if it has one, else its listen. */
static inline const char *
rule_log_name(const struct rule *r)
{
	return r->name_given ? r->name : r->listen;
}

#endif
