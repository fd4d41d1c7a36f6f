/*
 * log.c - where messages go: stderr in the foreground, syslog when
 * daemonized, or a log file (reopened on SIGUSR1 for logrotate).
 *
 * Every line is written with a single write(2), so lines from the master
 * and the workers never interleave in a shared file or on stderr.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <paths.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "safefile.h"

static enum log_target log_target = LOG_TO_STDERR;
static int             log_level = LOG_LEVEL_INFO;
static int             log_fd = -1;
static char            log_path[1024];
static char            log_role[32] = "ferryd";
static char            syslog_ident[SYSLOG_IDENT_MAX + 1] = "ferryd";
static int             syslog_facility = LOG_DAEMON;
static bool            syslog_opened;
/*
 * syslog(3)'s socket blocks while the syslog daemon's queue is full,
 * which would stop a worker and every connection in it (with sslh's
 * line per connection, any client can fill it): ferryd sends its own
 * datagrams without waiting, and says how many it had to drop.
 */
static int             syslog_fd = -1;
static unsigned long   syslog_dropped;
/* Lines a full disk took, said at the first line written again. */
static unsigned long    log_lost;
static int              log_lost_errno;

static const char *const level_names[] = {
	"error", "warning", "notice", "info", "debug"
};
static const int syslog_priorities[] = {
	LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG
};

/* The facilities of syslog.h, in log_facility_names' order. */
const char *const log_facility_names[] = {
	"auth", "authpriv", "cron", "daemon", "ftp", "kern", "lpr", "mail",
	"news", "syslog", "user", "uucp", "local0", "local1", "local2",
	"local3", "local4", "local5", "local6", "local7", NULL
};
static const int facilities[] = {
	LOG_AUTH, LOG_AUTHPRIV, LOG_CRON, LOG_DAEMON, LOG_FTP, LOG_KERN,
	LOG_LPR, LOG_MAIL, LOG_NEWS, LOG_SYSLOG, LOG_USER, LOG_UUCP,
	LOG_LOCAL0, LOG_LOCAL1, LOG_LOCAL2, LOG_LOCAL3, LOG_LOCAL4,
	LOG_LOCAL5, LOG_LOCAL6, LOG_LOCAL7
};

static int
log_open_file(const char *path, char *err, size_t errlen)
{
	int fd;

	fd = safefile_open(path, O_WRONLY | O_APPEND | O_CREAT, 0640,
	    "log file", err, errlen);
	if (fd == -1)
		return -1;
	if (log_fd != -1)
		close(log_fd);
	log_fd = fd;
	return 0;
}

int
log_open(enum log_target target, const char *path, char *err, size_t errlen)
{
	if (target == LOG_TO_FILE) {
		if (strlen(path) >= sizeof(log_path)) {
			snprintf(err, errlen, "log file name too long: %s", path);
			return -1;
		}
		if (log_open_file(path, err, errlen) == -1)
			return -1;
		strcpy(log_path, path);
	} else {
		if (log_fd != -1)
			close(log_fd);	/* log_file gone from the config */
		log_fd = -1;
		if (target == LOG_TO_SYSLOG)
			log_syslog_open();
	}
	log_target = target;
	return 0;
}

int
log_reopen(void)
{
	char err[512];	/* "cannot open log file PATH: reason" */

	if (log_target != LOG_TO_FILE)
		return 0;
	if (log_open_file(log_path, err, sizeof(err)) == -1) {
		log_err("%s", err);
		return -1;
	}
	log_info("reopened log file %s", log_path);
	return 0;
}

int
log_file_fd(void)
{
	return log_target == LOG_TO_FILE ? log_fd : -1;
}

void
log_adopt_fd(int fd)
{
	if (log_target != LOG_TO_FILE) {
		close(fd);
		return;
	}
	if (log_fd != -1)
		close(log_fd);
	log_fd = fd;
	log_info("reopened log file %s", log_path);
}

bool
log_to_syslog(void)
{
	return log_target == LOG_TO_SYSLOG;
}

bool
log_to_stderr(void)
{
	return log_target == LOG_TO_STDERR;
}

void
log_syslog_as(const char *ident, int facility)
{
	int	f = facility >= 0 && (size_t)facility < sizeof(facilities) /
		    sizeof(facilities[0]) ? facilities[facility] : LOG_DAEMON;

	if (strcmp(ident, syslog_ident) == 0 && f == syslog_facility)
		return;
	snprintf(syslog_ident, sizeof(syslog_ident), "%s", ident);
	syslog_facility = f;
}

/* (Again) connected to the syslog daemon's socket; -1 if not. */
static int
syslog_connect(void)
{
	struct sockaddr_un	sun;

	if (syslog_fd == -1 && (syslog_fd = socket(AF_UNIX, SOCK_DGRAM |
	    SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", _PATH_LOG);
	return connect(syslog_fd, (struct sockaddr *)&sun, sizeof(sun));
}

void
log_syslog_open(void)
{
	(void)syslog_connect();	/* else at the first line */
	syslog_opened = true;
}

/* One datagram, as syslog(3) writes it, sent if the daemon has room. */
static bool
syslog_send(int priority, const char *msg)
{
	char		buf[2400], stamp[32];
	time_t		now = time(NULL);
	struct tm	tm;
	int		n;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%b %e %H:%M:%S", &tm);
	n = snprintf(buf, sizeof(buf), "<%d>%s %s[%ld]: %s",
	    syslog_facility | priority, stamp, syslog_ident, (long)getpid(),
	    msg);
	if (n < 0)
		return false;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (send(syslog_fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    n)
		return true;
	/* The daemon restarted: once more on a new connection. */
	return errno != EAGAIN && errno != EWOULDBLOCK && syslog_connect() ==
	    0 && send(syslog_fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    n;
}

/* msg to syslog, after a word on the lines dropped before it. */
static void
syslog_line(int priority, const char *msg)
{
	char	note[128];

	if (syslog_dropped > 0) {
		snprintf(note, sizeof(note), "%s: warning: %lu log lines "
		    "dropped: the syslog daemon took no more", log_role,
		    syslog_dropped);
		if (!syslog_send(LOG_WARNING, note)) {
			syslog_dropped++;
			return;
		}
		syslog_dropped = 0;
	}
	if (!syslog_send(priority, msg))
		syslog_dropped++;
}

bool
log_syslog_opened(void)
{
	return syslog_opened;
}

void
log_syslog_line(const char *line, size_t len)
{
	char	msg[2048];
	int	saved_errno = errno;

	snprintf(msg, sizeof(msg), "%.*s", (int)len, line);
	syslog_line(LOG_INFO, msg);
	errno = saved_errno;
}

void
log_set_level(int level)
{
	log_level = level;
}

int
log_get_level(void)
{
	return log_level;
}

void
log_set_role(const char *role)
{
	snprintf(log_role, sizeof(log_role), "%s", role);
	log_lost = 0;	/* a new process: the master's losses are its own */
}

void
log_limited(struct log_limit *lim, int level, const char *fmt, ...)
{
	char	line[1024];
	int64_t	now;
	va_list	ap;

	if (level > log_level)
		return;
	now = clock_ms();
	if (now - lim->window >= 1000) {
		lim->window = now;
		lim->sent = 0;
	}
	if (lim->sent >= LOG_LIMIT_BURST) {
		lim->suppressed++;
		return;
	}
	lim->sent++;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (lim->suppressed > 0)
		log_msg(level, "%s (%lu similar messages suppressed)", line,
		    lim->suppressed);
	else
		log_msg(level, "%s", line);
	lim->suppressed = 0;
}

void
log_episode_hit(struct log_episode *ep, const char *fmt, ...)
{
	char	line[1024];
	va_list	ap;

	if (ep->hits++ > 0)
		return;
	ep->since = clock_ms();
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_msg(LOG_LEVEL_WARNING, "%s", line);
}

uint64_t
log_episode_end(struct log_episode *ep, int64_t *ms)
{
	uint64_t hits = ep->hits;

	if (hits > 0)
		*ms = clock_ms() - ep->since;
	ep->hits = 0;
	return hits;
}

void
log_msg(int level, const char *fmt, ...)
{
	char       line[2048];
	char       stamp[32];
	int        n, fd, saved_errno = errno;
	size_t     len;
	va_list    ap;
	time_t     now;
	struct tm  tm;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	if (log_target == LOG_TO_SYSLOG) {
		n = snprintf(line, sizeof(line), "%s: ", log_role);
		if (n > 0 && (size_t)n < sizeof(line))
			vsnprintf(line + n, sizeof(line) - n, fmt, ap);
		syslog_line(syslog_priorities[level], line);
		va_end(ap);
		errno = saved_errno;
		return;
	}
	now = time(NULL);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	n = snprintf(line, sizeof(line), "%s ferryd[%ld] %s: %s: ", stamp,
	    (long)getpid(), log_role, level_names[level]);
	if (n > 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	len = strlen(line);
	if (len == sizeof(line) - 1)
		len--;		/* make room for the newline of a cut line */
	line[len++] = '\n';
	fd = log_target == LOG_TO_FILE ? log_fd : STDERR_FILENO;
	if ((n = (int)write(fd, line, len)) != (int)len) {
		/*
		 * A full disk: nowhere to say it now.  Counted, and said
		 * with the count by the first line that is written again.
		 * A line cut short is ended, if a byte still fits, so that
		 * the next one starts a line of its own.
		 */
		if (n >= 0) {
			(void)!write(fd, "\n", 1);
			errno = ENOSPC;
		}
		if (log_lost++ == 0)
			log_lost_errno = errno;
	} else if (log_lost > 0) {
		unsigned long lost = log_lost;

		log_lost = 0;	/* at error: said whatever the log_level */
		log_msg(LOG_LEVEL_ERR, "%lu log line(s) before this one "
		    "could not be written (%s) and were lost", lost,
		    strerror(log_lost_errno));
	}
	errno = saved_errno;
}
