/*
 * accesslog.h - one line per finished (or refused) connection, in rinetd's
 * tab-separated format, in the web servers' common log format, or as a
 * JSON object; or rinetd 0.73's two lines per connection, exactly; or
 * sslh's line per connection, when its backend is connected.
 *
 * Each line is formatted on the stack and written with one write(2) to a
 * descriptor opened with O_APPEND, so the lines of all workers sharing the
 * file never interleave, and logging a connection allocates nothing.
 */
#ifndef FERRYD_ACCESSLOG_H
#define FERRYD_ACCESSLOG_H

#include <stdint.h>
#include <time.h>
#include <sys/socket.h>

struct rule;

/* Layout of the lines of access_log, documented in ferryd.conf(5). */
enum access_log_format {
	ACCESS_LOG_RINETD = 0,	/* rinetd's tab-separated fields, ferryd's
				 * words, one line, the duration at the end */
	ACCESS_LOG_COMMON,	/* web servers' common log format (logcommon) */
	ACCESS_LOG_RINETD_EXACT, /* rinetd 0.73's lines, byte for byte: an
				 * "opened" line, then a "done-..." line */
	ACCESS_LOG_COMMON_EXACT, /* the same in rinetd's logcommon layout */
	ACCESS_LOG_JSON,	/* one JSON object per line */
	ACCESS_LOG_SSLH,	/* sslh's line, at the backend's connect:
				 * hosts numeric, ports by their names */
	ACCESS_LOG_SSLH_NUMERIC	/* the same, ports numeric (sslh -n) */
};

/* access_log's value that sends the lines to syslog (log.h). */
#define ACCESSLOG_SYSLOG	"syslog"

/* Fields access_log_fields adds at the end of each line, in its order. */
enum access_log_field {
	ACCESS_FIELD_RULE = 0,		/* the rule's name */
	ACCESS_FIELD_CONNECT_TIME,	/* accept to backend connected, s */
	ACCESS_FIELD_FIRST_BYTE_TIME,	/* connected to its first byte, s */
	ACCESS_FIELD_ROUTE,		/* the route taken (routes), or - */
	ACCESS_FIELD_SNI,		/* the TLS SNI or HTTP Host it
					 * matched, else its protocol, or - */
	ACCESS_FIELD_CLOSED_BY,		/* the side that ended it first
					 * (FIN or reset), or - */
	ACCESS_FIELDS			/* how many there are */
};

/* Longest line written; longer result strings are cut. */
#define ACCESSLOG_LINE_MAX	1024

/*
 * Result words for the last-but-one field.  "denied" is rinetd's word; the
 * others are ferryd's, as rinetd has no connect timeout or idle timeout.
 */
#define ACCESSLOG_DONE			"done"
#define ACCESSLOG_DENIED		"denied"	/* a deny pattern */
#define ACCESSLOG_NOT_ALLOWED		"not-allowed"	/* no allow pattern */
#define ACCESSLOG_OPENED		"opened"	/* the exact formats' */
#define ACCESSLOG_CONNECT_FAILED	"connect-failed"
#define ACCESSLOG_TIMEOUT		"timeout"
#define ACCESSLOG_IDLE_TIMEOUT		"idle-timeout"
#define ACCESSLOG_RESET			"reset"
#define ACCESSLOG_REFUSED_MAX		"refused-max-connections"
#define ACCESSLOG_REFUSED_PER_CLIENT	"refused-per-client"
#define ACCESSLOG_REFUSED_RATE		"refused-rate"
#define ACCESSLOG_SHUTDOWN		"shutdown"
#define ACCESSLOG_EVICTED		"evicted"	/* UDP: max_sessions */
#define ACCESSLOG_PROXY_ERROR		"proxy-error"	/* accept_proxy */
#define ACCESSLOG_PROXY_TIMEOUT		"proxy-timeout"
#define ACCESSLOG_QUEUE_TIMEOUT		"queue-timeout"	/* queue_timeout */

/* Which side closed a connection first (rinetd's done-... words). */
enum accesslog_side {
	ACCESSLOG_SIDE_UNKNOWN = 0,
	ACCESSLOG_SIDE_CLIENT,		/* rinetd's "remote" */
	ACCESSLOG_SIDE_BACKEND		/* rinetd's "local" */
};
#define ACCESSLOG_UNMATCHED		"unmatched"	/* routes */
#define ACCESSLOG_PEEK_TIMEOUT		"peek-timeout"	/* routes */

/* One connection, as the relay knows it when the connection ends. */
struct accesslog_entry {
	const struct sockaddr	*client;	/* peer of the accepted socket */
	const struct rule	*rule;		/* listen_addr */
	const struct sockaddr	*backend;	/* used or tried; NULL: none */
	uint64_t		 bytes_in;	/* received from the client */
	uint64_t		 bytes_out;	/* sent to the client */
	const char		*result;	/* ACCESSLOG_*, or any word */
	time_t			 date;		/* wall clock of the end; 0: now */
	int64_t			 start_ms;	/* any monotonic ms clock ... */
	int64_t			 end_ms;	/* ... for the duration field */
	unsigned		 attempts;	/* backends tried ... */
	bool			 attempts_field; /* ... as a field of its own */
	int64_t			 connect_us;	/* accept to connected, or -1 */
	int64_t			 first_byte_us;	/* then the first byte, or -1 */
	int			 closed_first;	/* enum accesslog_side */
	const char		*route;		/* route taken, or NULL */
	const char		*matched;	/* what it matched, or NULL */
	/* The sslh formats': the local ends of both sockets, or NULL. */
	const struct sockaddr	*client_local;	/* where the client came */
	const struct sockaddr	*backend_local;	/* where we connected from */
};

/*
 * Open (create) path for appending, or ACCESSLOG_SYSLOG: lines to
 * syslog (and to standard error where log messages go there); it
 * replaces any log already open.  Returns 0, or -1 with "cannot open
 * access log PATH: reason" in err.
 */
int  accesslog_open(const char *path, char *err, size_t errlen);

/* Open the same path again (SIGUSR1, after logrotate moved the file). */
int  accesslog_reopen(void);

/* The log's descriptor, or -1 when none is open. */
int  accesslog_fd(void);

/* Write to fd, the log reopened by the master, from now on. */
void accesslog_adopt_fd(int fd);

/* Close the log; accesslog_write() does nothing until the next open. */
void accesslog_close(void);

/*
 * enum access_log_format (ACCESS_LOG_RINETD until set), and the fields
 * (n of enum access_log_field) added at the end of each line.  For
 * ACCESS_LOG_SSLH, the names of /etc/services' TCP ports are read now:
 * the master sets the format, and its workers, chrooted and filtered,
 * could not read the file.
 */
void accesslog_set_format(int format, const int *fields, int n);

/* The format set last. */
int  accesslog_get_format(void);

/* Whether the format set writes an "opened" line at the start. */
bool accesslog_logs_opened(void);

/*
 * Whether the format set writes its line when the backend is connected
 * (sslh's), and none at the end.
 */
bool accesslog_logs_connected(void);

/* Whether a log is open: callers may skip gathering an entry otherwise. */
bool accesslog_enabled(void);

/* Append e as one line; does nothing when no log is open. */
void accesslog_write(const struct accesslog_entry *e);

/*
 * How long a connection took to connect, then to its first byte (us);
 * on a rule with routes, the route it took and what that matched.
 */
struct accesslog_times {
	int64_t	connect_us, first_byte_us;	/* -1: never */
	const char *route, *matched;		/* NULL: none */
};
/* No connect, no first byte (a refusal, a UDP backend). */
extern const struct accesslog_times accesslog_no_times;

/*
 * The line of a session of rule, from client to backend, that ended with
 * result: in and out bytes, start and end in monotonic ms, its times.
 */
void accesslog_session(const struct rule *rule, const struct sockaddr *client,
    const struct sockaddr *backend, unsigned attempts, const char *result,
    uint64_t in, uint64_t out, int64_t start_ms, int64_t end_ms,
    const struct accesslog_times *times);

/*
 * The same, for a session that knows which side closed first
 * (enum accesslog_side): the exact formats' done-... words need it.
 */
void accesslog_session_end(const struct rule *rule,
    const struct sockaddr *client, const struct sockaddr *backend,
    unsigned attempts, const char *result, int closed_first, uint64_t in,
    uint64_t out, int64_t start_ms, int64_t end_ms,
    const struct accesslog_times *times);

/*
 * The exact formats' first line of a connection just accepted (TCP) or
 * a session just made (UDP; in: its first datagram's bytes); nothing in
 * the other formats.
 */
void accesslog_opened(const struct rule *rule, const struct sockaddr *client,
    const struct sockaddr *backend, uint64_t in);

/*
 * The sslh formats' line of a connection of rule (by route, NULL: none)
 * from client whose backend is just connected: client_fd and backend_fd
 * say the local addresses.  Nothing in the other formats.
 */
void accesslog_connected(const struct rule *rule, const char *route,
    const struct sockaddr *client, const struct sockaddr *backend,
    int client_fd, int backend_fd);

/*
 * Format e as a line in format, with its newline, into buf (at most len
 * bytes, cut to fit).  Returns the length.  What accesslog_write() writes.
 */
size_t accesslog_format(const struct accesslog_entry *e, int format,
    char *buf, size_t len);

#endif
