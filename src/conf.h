/*
 * conf.h - the validated, immutable configuration of ferryd.
 *
 * conf_load() turns a libconfig file into a struct conf; every value is
 * checked and every hostname resolved before it returns, so the rest of the
 * daemon never sees a half-valid configuration.  A loaded config is never
 * modified: a reload builds a new one and swaps it in.
 */
#ifndef FERRYD_CONF_H
#define FERRYD_CONF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

#include "acl.h"

#define CONF_ERR_MAX 512

/* Defaults, documented in ferryd.conf(5). */
#define DEFAULT_BUFFER_SIZE      65536
#define DEFAULT_CONNECT_TIMEOUT  10000  /* ms */
/*
 * A client that vanished without a FIN or a RST (a machine switched off, a
 * NAT that forgot the flow) would hold its connection forever; an hour is
 * Envoy's tcp_proxy default.  0 still means never.
 */
#define DEFAULT_IDLE_TIMEOUT     3600000 /* ms, 0 = never */
/*
 * Draining workers (after a reload, SIGQUIT or the master's death) keep
 * their connections as long as those live, as nginx and HAProxy do
 * unless told otherwise: an ssh session must survive any reload.
 */
#define DEFAULT_SHUTDOWN_TIMEOUT 0      /* ms, 0 = no limit */
#define DEFAULT_WATCHDOG_TIMEOUT 10000  /* ms, 0 = off */
#define DEFAULT_BACKLOG          511
#define DEFAULT_MAX_CONNECTIONS  4096
#define DEFAULT_SESSION_TIMEOUT  120000 /* ms: RFC 4787's floor for UDP */
#define DEFAULT_MAX_SESSIONS     65536  /* UDP sessions per rule, worker */
#define DEFAULT_PROXY_TIMEOUT    3000   /* ms: the PROXY spec's minimum */
#define MAX_WORKERS              256
#define DEFAULT_RESOLVE_INTERVAL 60000  /* ms, 0 = only at load */

/* A socket address with its length, as bind(2) and connect(2) want it. */
struct sockaddr_any {
	struct sockaddr_storage ss;
	socklen_t               len;
};

/* How bytes are moved: splice(2) through a pipe, or read/write. */
enum splice_mode {
	SPLICE_AUTO = 0,	/* splice where the system has it */
	SPLICE_ON,		/* splice; an error where it is missing */
	SPLICE_OFF		/* always copy through a buffer */
};

/* Layout of the lines of access_log, documented in ferryd.conf(5). */
enum access_log_format {
	ACCESS_LOG_RINETD = 0,	/* rinetd's tab-separated fields */
	ACCESS_LOG_COMMON	/* web servers' common log format (logcommon) */
};

/* Fields access_log_fields adds at the end of each line, in its order. */
enum access_log_field {
	ACCESS_FIELD_RULE = 0,		/* the rule's name */
	ACCESS_FIELD_CONNECT_TIME,	/* accept to backend connected, s */
	ACCESS_FIELD_FIRST_BYTE_TIME,	/* connected to its first byte, s */
	ACCESS_FIELDS			/* how many there are */
};

/* The syntax a file is read in. */
enum conf_syntax {
	CONF_SYNTAX_AUTO = 0,	/* libconfig, else rinetd if it looks like it */
	CONF_SYNTAX_LIBCONFIG,
	CONF_SYNTAX_RINETD	/* a rinetd.conf, converted when loaded */
};

enum log_level {
	LOG_LEVEL_ERR = 0,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_NOTICE,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG
};

/* What a rule forwards; its listeners' handler follows from it. */
enum rule_protocol {
	RULE_TCP = 0,		/* a stream: accept, connect, relay */
	RULE_UDP		/* datagrams: a session per client address */
};

/*
 * How datagrams travel in a stream when a rule's two sides differ in
 * protocol (UDP to TCP or TCP to UDP).
 */
enum rule_framing {
	FRAMING_NONE = 0,	/* raw bytes: one read makes one datagram */
	FRAMING_LENGTH16	/* a 2-byte big-endian length, then the payload */
};

/* How a rule picks the backend of each new connection or session. */
enum balance {
	BALANCE_ROUND_ROBIN = 0,	/* smooth weighted round robin */
	BALANCE_LEAST_CONNECTIONS,	/* fewest open per weight */
	BALANCE_RANDOM,			/* the less loaded of two, by weight */
	BALANCE_HASH			/* Maglev on the client's address */
};

#define DEFAULT_MAX_FAILS	1
#define DEFAULT_FAIL_TIMEOUT	10000	/* ms */
#define BACKEND_WEIGHT_MAX	256
#define UPSTREAM_MAX		1024	/* backends of one rule */

/*
 * One address a rule forwards to: an item of connect, or one of the
 * addresses its name resolved to, each with the item's settings.
 */
struct backend {
	struct sockaddr_any addr;            /* resolved at load time */
	struct sockaddr_any source;          /* bind before connect; port 0 */
	bool                has_source;      /* the rule's source, this family */
	bool                backup;          /* only while no primary is up */
	bool                ranged;          /* its port moves with listen's */
	int                 weight;          /* 1..BACKEND_WEIGHT_MAX */
	int                 max_fails;       /* 0 = no passive accounting */
	int                 fail_timeout;    /* ms */
	int                 max_connections; /* per worker, 0 = no limit */
	unsigned            id;              /* among all of the config's */
	unsigned            stat;            /* its counters (stats.h); a
					      * range's ports share them */
};

/*
 * Where a rule forwards to: every address of every item of connect, in
 * the order written (a name's in the resolver's order).  Each connection
 * picks one by the rule's balance; a connect that fails moves on to
 * another while connect_timeout lasts.
 */
struct upstream {
	struct backend *backends;
	size_t          nbackends;           /* 1..UPSTREAM_MAX */
	int             balance;             /* enum balance */
	bool            has_backup;
	uint16_t       *maglev;              /* hash: MAGLEV_SIZE entries */
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

/* TCP keepalive on both legs of a connection, when enabled. */
struct keepalive {
	bool    enabled;
	int     idle, interval;              /* ms, whole seconds */
	int     count;                       /* probes before giving up */
};

/* One item of a rule's connect list, as written. */
struct connect_item {
	char   *address;                     /* "host:port" */
	int     weight, max_fails, fail_timeout, max_connections;
	bool    backup;
};

/* A rule's name: letters, digits and these; at most RULE_NAME_MAX bytes. */
#define RULE_NAME_CHARS	"._-:/[]@+"
#define RULE_NAME_MAX	64

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
	int                 framing;         /* enum rule_framing, if they differ */
	struct upstream     upstream;        /* connect, resolved */
	struct health_check health_check;    /* its own, or the top level's */
	struct keepalive    keepalive;       /* its own, or the top level's */
	size_t              buffer_size;     /* bytes */
	int                 connect_timeout; /* ms, > 0 */
	int                 idle_timeout;    /* ms, 0 = never */
	int                 session_timeout; /* ms, either side UDP: silence */
	int                 max_sessions;    /* UDP listeners, per worker */
	int                 max_connections_per_client; /* TCP listeners:
					      * open from one address, over
					      * all workers; 0 = no limit */
	int                 connection_rate; /* TCP listeners: new per second
					      * from one address; 0 = none */
	uint64_t            client_key;      /* its name hashed: the rule in
					      * client_limit.c's tables,
					      * across reloads */
	int                 splice;          /* enum splice_mode */
	int                 sndbuf;          /* SO_SNDBUF, 0 = system's */
	int                 rcvbuf;          /* SO_RCVBUF, 0 = system's */
	char               *source;          /* as written, NULL = not set */
	bool                ipv6_only;       /* IPV6_V6ONLY on IPv6 listeners */
	int                 send_proxy;      /* enum proxy_version */
	bool                accept_proxy;    /* clients start with a header */
	int                 proxy_timeout;   /* ms, for that header */
	struct acl          accept_proxy_from; /* who may send one; empty: all */
	bool                transparent;     /* backends see the client's address */
	struct acl          acl;             /* this rule's allow and deny */
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
};

/* What log lines call rule r: its name if it has one, else its listen. */
static inline const char *
rule_log_name(const struct rule *r)
{
	return r->name_given ? r->name : r->listen;
}

struct conf_text;

struct conf {
	char          *path;             /* file it was loaded from */
	int            workers;          /* resolved: "auto" = online CPUs */
	char          *user;             /* NULL = keep the master's user */
	char          *group;            /* NULL = user's primary group */
	uid_t          uid;              /* valid when user != NULL */
	gid_t          gid;              /* valid when user or group != NULL */
	char          *pidfile;          /* NULL = not set in the file */
	char          *log_file;         /* NULL = stderr / syslog */
	int            log_level;        /* enum log_level */
	char          *event_backend;    /* "auto", "epoll" or "poll" */
	size_t         buffer_size;      /* bytes, default for rules */
	int            connect_timeout;  /* ms, default for rules */
	int            idle_timeout;     /* ms, default for rules */
	int            shutdown_timeout; /* ms, 0 = no limit */
	int            watchdog_timeout; /* ms, 0 = no watchdog */
	int            backlog;
	int            max_connections;  /* per worker */
	int            max_connections_per_client; /* default for TCP rules */
	int            connection_rate;  /* default for TCP rules */
	int            session_timeout;  /* ms, default for UDP rules */
	int            max_sessions;     /* default for UDP rules */
	int            splice;           /* enum splice_mode, default for rules */
	int            sndbuf;           /* bytes, default for rules */
	int            rcvbuf;           /* bytes, default for rules */
	bool           cpu_affinity;     /* pin worker i to CPU i */
	bool           seccomp;          /* children filter system calls */
	char          *chroot_dir;       /* NULL = children keep "/" */
	char          *access_log;       /* NULL = no access log */
	int            access_log_format; /* enum access_log_format */
	int            access_log_fields[ACCESS_FIELDS]; /* enum ...field */
	int            naccess_log_fields; /* ... written in the file */
	struct acl     acl;              /* global allow and deny */
	char          *stats_listen;     /* as written; NULL = no endpoint */
	struct sockaddr_any stats_addr;  /* its address, unless a path */
	const char    *stats_path;       /* "unix:PATH": PATH, in it */
	struct health_check health_check; /* default for rules */
	struct keepalive keepalive;      /* default for rules */
	int            resolve_interval; /* ms: names resolved again, 0 = no */
	int            syntax;           /* enum conf_syntax it was read as */
	struct rule   *rules;
	size_t         nrules;
	size_t         nbackends;        /* of every rule: backend ids */
	size_t         nrule_stats;      /* rules as written: stat ids */
	size_t         nbackend_stats;   /* their backends: stat ids */
	struct conf_text *text;          /* what it was loaded from */
};

/*
 * Load and validate the file at path.  On success returns a new config.
 * On failure returns NULL and writes one line to err, of the form
 * "FILE:LINE: problem" (or "FILE: problem" when no line applies).
 */
struct conf *conf_load(const char *path, char *err, size_t errlen);

/*
 * conf_load() in a given syntax.  CONF_SYNTAX_AUTO (what conf_load()
 * does) reads the file as libconfig and, only when that fails with a
 * syntax error and the file looks like a rinetd.conf, as rinetd.
 */
struct conf *conf_load_syntax(const char *path, int syntax, char *err,
    size_t errlen);

/*
 * Load a rinetd.conf: convert it to libconfig (conf_rinetd.h) and load that
 * with every check conf_load() makes.  Errors name path and the line of
 * the rinetd file.
 */
struct conf *conf_load_rinetd(const char *path, char *err,
    size_t errlen);

void conf_free(struct conf *cfg);

/*
 * cfg loaded again from the text it was loaded from (not the file, which
 * may have changed since), every name resolved anew.  The new config
 * has no text of its own until conf_move_text() gives it cfg's (once it
 * replaces cfg).  NULL with the error in err.
 */
struct conf *conf_reresolve(const struct conf *cfg, char *err,
    size_t errlen);
void conf_move_text(struct conf *to, struct conf *from);

/* Whether a and b have the same rules forwarding to the same addresses. */
bool conf_same_backends(const struct conf *a, const struct conf *b);

/*
 * A config's rules by protocol and listen address, to find in it the
 * counterpart of another config's rule (at a reload) without comparing
 * every pair: a port range makes thousands of rules.
 */
struct rule_map;
struct rule_map *conf_rule_map_new(const struct conf *cfg);
/* The rule with like's protocol and listen address, or NULL. */
const struct rule *conf_rule_map_find(const struct rule_map *map,
    const struct rule *like);
void conf_rule_map_free(struct rule_map *map);

/* "err", "warning", ... -> enum log_level, or -1. */
int conf_log_level_parse(const char *name);

#endif
