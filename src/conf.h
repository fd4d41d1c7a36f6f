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
#include <stdio.h>
#include <sys/types.h>
#include <sys/socket.h>

#include "accesslog.h"	/* enum access_log_field */
#include "acl.h"
#include "addr.h"
#include "rule.h"
#include "upstream.h"


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
#define DEFAULT_QUEUE_MAX        1024   /* waiting clients, rule, worker */
#define DEFAULT_STATUS_INTERVAL  30000  /* ms: status_file, as rinetd-uv */

/* status_file's layouts (rinetd-uv's), in status_format's order. */
enum status_format {
	STATUS_JSON,
	STATUS_TEXT
};

/* The syntax a file is read in. */
enum conf_syntax {
	CONF_SYNTAX_AUTO = 0,	/* libconfig, else rinetd if it looks like it */
	CONF_SYNTAX_LIBCONFIG,
	CONF_SYNTAX_RINETD,	/* a rinetd.conf, converted when loaded */
	CONF_SYNTAX_SSLH	/* sslh's command line and sslh.cfg, ditto */
};

struct conf_text;
struct sslh_cmdline;

/*
 * Which worker's socket of a rule's SO_REUSEPORT group a new TCP
 * connection goes to (listen.c): by a hash of the client's port, or the
 * worker pinned to the CPU that took the packet.  UDP rules always go by
 * port: a flow must stay with the worker that holds its session.
 */
enum steer_mode {
	STEER_PORT,
	STEER_CPU
};

struct conf {
	char          *path;             /* file it was loaded from */
	int            workers;          /* resolved: "auto" = online CPUs */
	char          *user;             /* NULL = keep the master's user */
	char          *group;            /* NULL = user's primary group */
	uid_t          uid;              /* valid when user != NULL */
	gid_t          gid;              /* valid when user or group != NULL */
	char          *pidfile;          /* NULL = not set in the file */
	char          *log_file;         /* NULL = stderr / syslog */
	int            log_level;        /* enum log_level (log.h) */
	char          *syslog_ident;     /* syslog's name for our lines */
	int            syslog_facility;  /* of log_facility_names (log.h) */
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
	int            max_sessions_per_client; /* default for UDP rules */
	int            session_rate;     /* default for UDP rules */
	int            session_timeout;  /* ms, default for UDP rules */
	int            max_sessions;     /* default for UDP rules */
	int            splice;           /* enum splice_mode, default */
	int            sndbuf;           /* bytes, default for rules */
	int            rcvbuf;           /* bytes, default for rules */
	bool           cpu_affinity;     /* pin worker i to CPU i */
	int            steer;            /* enum steer_mode */
	bool           seccomp;          /* children filter system calls */
	bool           stats_histograms; /* /metrics has every rule's
					  * latency histograms */
	char          *chroot_dir;       /* NULL = children keep "/" */
	char          *access_log;       /* NULL = no access log; a path or
					  * ACCESSLOG_SYSLOG */
	int            access_log_format; /* enum access_log_format */
	int            access_log_fields[ACCESS_FIELDS]; /* enum ...field */
	int            naccess_log_fields; /* ... written in the file */
	struct acl     acl;              /* global allow and deny */
	char          *control_socket;   /* its path; NULL = none */
	int            control_mode;     /* its file mode */
	char          *control_group;    /* its file's group; NULL = root's */
	gid_t          control_gid;      /* ... resolved */
	char          *state_file;       /* drains, weights kept; NULL = no */
	char          *stats_listen;     /* as written; NULL = no endpoint */
	char          *status_file;      /* the totals written; NULL = no */
	int            status_interval;  /* ms between its writes */
	int            status_format;    /* enum status_format */
	int            stats_log_interval; /* ms: a totals line; 0 = none */
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

/* A converter's warnings, "FILE:LINE: ...\n" each (or NULL), to the log. */
void conf_warn_lines(const char *warnings);

/*
 * Load a rinetd.conf: convert it to libconfig (conf_rinetd.h) and load that
 * with every check conf_load() makes.  Errors name path and the line of
 * the rinetd file.
 */
struct conf *conf_load_rinetd(const char *path, char *err,
    size_t errlen);

/*
 * Load sslh's settings: its command line (conf_sslh.h) and the sslh.cfg
 * it names, converted and loaded with every check conf_load() makes.
 * Errors name the sslh.cfg line (or the command line); status (unless
 * NULL) gets the status sslh exits with for the error (SSLH_EXIT_*).
 */
struct conf *conf_load_sslh(const struct sslh_cmdline *cl, int *status,
    char *err, size_t errlen);

/*
 * conf_load_syntax(), or conf_load_sslh(sslh, NULL, ...) when sslh is
 * not NULL (the only way to load CONF_SYNTAX_SSLH: it needs sslh's
 * command line).
 */
struct conf *conf_load_as(const char *path, int syntax,
    const struct sslh_cmdline *sslh, char *err, size_t errlen);

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

/* Whether cfg has a rule that receives datagrams (UDP sessions). */
bool conf_has_udp(const struct conf *cfg);
/* Whether a rule of cfg connects to a Unix socket (the sandbox asks). */
bool conf_has_unix_backends(const struct conf *cfg);
/* Whether a rule of cfg connects from its clients' addresses. */
bool conf_has_transparent(const struct conf *cfg);

/* Whether a and b have the same rules forwarding to the same addresses. */
bool conf_same_backends(const struct conf *a, const struct conf *b);
/*
 * Whether a and b have the same rules with as many backends each (and so
 * the same backend ids), each of the same address family and source,
 * and no Maglev table (built from addresses): then a backend's new
 * address may take the old one's place, nothing else changing.
 */
bool conf_same_shape(const struct conf *a, const struct conf *b);

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

/*
 * ferryd -T: cfg as ferryd.conf text on out, every setting with its
 * value (conf_show.c).  0, or -1 if out failed.
 */
int conf_show(FILE *out, const struct conf *cfg);

/* "err", "warning", ... -> enum log_level, or -1. */
int conf_log_level_parse(const char *name);

/* Rule r's listen as written: a port range whole ("host:lo-hi"). */
const char *conf_rule_listen(const struct rule *r, char *buf, size_t len);

#endif
