/*
 * log.h - error and debug logging to stderr, a file or syslog.
 *
 * Until log_open() is called messages go to stderr, so that errors found
 * while starting are seen by whoever started ferryd.
 */
#ifndef FERRYD_LOG_H
#define FERRYD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum log_level {
	LOG_LEVEL_ERR = 0,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_NOTICE,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG
};

enum log_target {
	LOG_TO_STDERR,
	LOG_TO_SYSLOG,
	LOG_TO_FILE
};

/* Direct messages to target (path is used with LOG_TO_FILE); -1 on error. */
int  log_open(enum log_target target, const char *path, char *err,
    size_t errlen);
/* Reopen the log file (SIGUSR1, after logrotate moved it). */
int  log_reopen(void);
/* The log file's descriptor, or -1 when not logging to a file. */
int  log_file_fd(void);
/* Whether lines go to syslog (its socket may need making again). */
bool log_to_syslog(void);

/* The longest syslog_ident. */
#define SYSLOG_IDENT_MAX	32

/* syslog's facilities by name (syslog_facility), NULL-terminated. */
extern const char *const log_facility_names[];
/*
 * The name and facility (an index of log_facility_names) of this
 * process's syslog lines, "ferryd" and daemon until set (syslog_ident,
 * syslog_facility): syslog's socket, if open, is opened again under them.
 */
void log_syslog_as(const char *ident, int facility);
/*
 * Open syslog's socket now, as the lines to come want it (a worker's
 * chroot and seccomp filter keep it from opening it later).
 */
void log_syslog_open(void);
/* Whether anything of this process opened syslog's socket. */
bool log_syslog_opened(void);
/* line (len bytes, no newline) to syslog at info: an access log line. */
void log_syslog_line(const char *line, size_t len);
/* Whether log messages go to standard error (in the foreground). */
bool log_to_stderr(void);
/*
 * Log to fd from now on, a reopened log file the master passed on (a
 * worker running as another user cannot open it itself); the old file
 * is closed.  Logging to stderr or syslog, fd is only closed.
 */
void log_adopt_fd(int fd);
void log_set_level(int level);
int  log_get_level(void);
/* Name this process in every line, e.g. "worker 2". */
void log_set_role(const char *role);

void log_msg(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * A rate limit for messages a peer can provoke at will (one per refused
 * client, per failed backend connect): at most LOG_LIMIT_BURST lines per
 * second from one call site, then silence; the first line let through
 * after a silence says how many were left out.  Zero-initialized.
 */
#define LOG_LIMIT_BURST	10

struct log_limit {
	int64_t		window;		/* start of this second, ms */
	unsigned	sent;		/* lines in this window */
	unsigned long	suppressed;	/* left out since the last line */
};

void log_limited(struct log_limit *lim, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* log_limited(), with the level checked before the arguments are made. */
#define log_limited_at(lim, level, ...) \
	do { if (log_get_level() >= (level)) \
		log_limited((lim), (level), __VA_ARGS__); } while (0)

/*
 * An episode of shortage (descriptors, memory, disk): said once when it
 * starts, counted while it lasts, and its end said by the caller with
 * the count and how long it lasted.  Zero-initialized.
 */
struct log_episode {
	uint64_t	hits;		/* 0: no episode */
	int64_t		since;		/* clock_ms() at its start */
};

/* Count a hit; the first of an episode logs the warning fmt. */
void log_episode_hit(struct log_episode *ep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * The resource is back: the episode's hits (0 when there was none, and
 * then nothing to say) and its length in ms; the episode is over.
 */
uint64_t log_episode_end(struct log_episode *ep, int64_t *ms);

#define log_err(...)     log_msg(LOG_LEVEL_ERR, __VA_ARGS__)
#define log_warn(...)    log_msg(LOG_LEVEL_WARNING, __VA_ARGS__)
/*
 * Below warning, the level is checked before the arguments are evaluated:
 * formatting an address for a line nobody reads costs per connection.
 */
#define log_at(level, ...) \
	do { if (log_get_level() >= (level)) \
		log_msg((level), __VA_ARGS__); } while (0)
#define log_notice(...)  log_at(LOG_LEVEL_NOTICE, __VA_ARGS__)
#define log_info(...)    log_at(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...)   log_at(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
