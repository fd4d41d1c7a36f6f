/*
 * accesslog.c - the access log: which client used which rule, how many
 * bytes went each way, how it ended and how long it took.
 *
 * The two layouts are rinetd's, field for field, so that scripts and web
 * log analyzers written for rinetd's log keep working; ferryd adds the
 * duration as one more field at the end of both (rinetd's manual lists
 * its absence as a bug).
 */
#include "ferryd.h"

#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "accesslog.h"
#include "addr.h"
#include "log.h"
#include "rule.h"
#include "safefile.h"
#include "upstream.h"

static int	al_fd = -1;
static int	al_format = ACCESS_LOG_RINETD;
static int	al_fields[ACCESS_FIELDS];	/* access_log_fields */
static int	al_nfields;
static struct log_episode al_lost;	/* lines lost while writes fail */
static bool	al_no_reserve;		/* al_fd cannot have room reserved */
static bool	al_cut;			/* its last line was cut: end it */

const struct accesslog_times accesslog_no_times = { -1, -1, NULL, NULL };
static char	al_path[PATH_MAX];

/* Month names of the C locale, whatever locale the process runs in. */
static const char *const months[12] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};

/* The addresses and times of a line, as text. */
struct fields {
	char		client[INET6_ADDRSTRLEN];
	char		lhost[INET6_ADDRSTRLEN];
	char		chost[INET6_ADDRSTRLEN];
	unsigned int	lport, cport;
	char		date[32];	/* "21/Nov/2026:23:29:52", local time */
	char		zone[8];	/* "+0100" */
	long long	sec;		/* duration, whole seconds ... */
	int		msec;		/* ... and milliseconds */
};

/*
 * Non-blocking, so that a FIFO without a reader drops lines instead of
 * stopping a worker; a regular file is unaffected.
 */
static int
open_log(const char *path, char *err, size_t errlen)
{
	int	fd;

	fd = safefile_open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY |
	    O_NONBLOCK, 0640, "access log", err, errlen);
	return fd;
}

int
accesslog_open(const char *path, char *err, size_t errlen)
{
	int	fd;

	if (strlen(path) >= sizeof(al_path)) {
		snprintf(err, errlen, "access log name too long: %s", path);
		return -1;
	}
	if ((fd = open_log(path, err, errlen)) == -1)
		return -1;
	accesslog_close();
	al_fd = fd;
	al_no_reserve = al_cut = false;
	strcpy(al_path, path);
	return 0;
}

int
accesslog_reopen(void)
{
	char	err[PATH_MAX + 256];
	int	fd;

	if (al_fd == -1)
		return 0;
	if ((fd = open_log(al_path, err, sizeof(err))) == -1) {
		log_err("%s", err);
		return -1;
	}
	close(al_fd);
	al_fd = fd;
	al_no_reserve = al_cut = false;
	log_info("reopened access log %s", al_path);
	return 0;
}

int
accesslog_fd(void)
{
	return al_fd;
}

void
accesslog_adopt_fd(int fd)
{
	if (al_fd == -1) {
		close(fd);	/* no log configured: nothing to replace */
		return;
	}
	close(al_fd);
	al_fd = fd;
	al_no_reserve = al_cut = false;
	log_info("reopened access log %s", al_path);
}

void
accesslog_close(void)
{
	if (al_fd != -1)
		close(al_fd);
	al_fd = -1;
}

void
accesslog_set_format(int format, const int *fields, int n)
{
	al_nfields = n > 0 && n <= ACCESS_FIELDS ? n : 0;
	if (al_nfields > 0)
		memcpy(al_fields, fields, (size_t)al_nfields * sizeof(*fields));
	al_format = format;
}

bool
accesslog_enabled(void)
{
	return al_fd != -1;
}

static void
fields_fill(struct fields *f, const struct accesslog_entry *e)
{
	struct tm	tm;
	time_t		when = e->date != 0 ? e->date : time(NULL);
	int64_t		ms = e->end_ms - e->start_ms;

	memset(f, 0, sizeof(*f));
	strcpy(f->client, "?");
	strcpy(f->lhost, "?");
	strcpy(f->chost, "?");
	if (e->client != NULL)
		addr_host(e->client, f->client, sizeof(f->client));
	if (e->rule != NULL) {
		addr_host((const void *)&e->rule->listen_addr.ss, f->lhost,
		    sizeof(f->lhost));
		f->lport = addr_port((const void *)&e->rule->listen_addr.ss);
	}
	if (e->backend != NULL) {
		addr_host(e->backend, f->chost, sizeof(f->chost));
		f->cport = addr_port(e->backend);
	}
	if (localtime_r(&when, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	snprintf(f->date, sizeof(f->date), "%02d/%s/%04d:%02d:%02d:%02d",
	    tm.tm_mday, months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour,
	    tm.tm_min, tm.tm_sec);
	if (strftime(f->zone, sizeof(f->zone), "%z", &tm) == 0)
		strcpy(f->zone, "+0000");
	if (ms < 0)
		ms = 0;
	f->sec = (long long)(ms / 1000);
	f->msec = (int)(ms % 1000);
}

/* A time in seconds with microseconds ("0.000128"), or "-". */
static void
put_time(char *buf, size_t len, int64_t us)
{
	if (us < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld.%06lld", (long long)(us / 1000000),
		    (long long)(us % 1000000));
}

/* access_log_fields: each after sep, into buf. */
static void
extra_fields(const struct accesslog_entry *e, char sep, char *buf,
    size_t len)
{
	size_t	used = 0;
	char	v[256 + 8];	/* a rule's name, a host name */
	int	i;

	buf[0] = '\0';
	for (i = 0; i < al_nfields && used < len; i++) {
		switch (al_fields[i]) {
		case ACCESS_FIELD_RULE:
			snprintf(v, sizeof(v), "%s", e->rule != NULL &&
			    e->rule->name != NULL ? e->rule->name : "-");
			break;
		case ACCESS_FIELD_CONNECT_TIME:
			put_time(v, sizeof(v), e->connect_us);
			break;
		case ACCESS_FIELD_ROUTE:
			snprintf(v, sizeof(v), "%s", e->route != NULL ?
			    e->route : "-");
			break;
		case ACCESS_FIELD_SNI:
			snprintf(v, sizeof(v), "%s", e->matched != NULL &&
			    e->matched[0] != '\0' ? e->matched : "-");
			break;
		default:
			put_time(v, sizeof(v), e->first_byte_us);
			break;
		}
		used += (size_t)snprintf(buf + used, len - used, "%c%s", sep,
		    v);
	}
}

size_t
accesslog_format(const struct accesslog_entry *e, int format, char *buf,
    size_t len)
{
	struct fields	 f;
	const char	*result = e->result != NULL ? e->result : "unknown";
	char		 attempts[16] = "", extra[ACCESSLOG_LINE_MAX];
	char		 sep = format == ACCESS_LOG_COMMON ? ' ' : '\t';
	int		 n;

	fields_fill(&f, e);
	/* Several backends: how many were tried, as one more field. */
	if (e->attempts_field)
		snprintf(attempts, sizeof(attempts), "%c%u", sep, e->attempts);
	extra_fields(e, sep, extra, sizeof(extra));
	if (format == ACCESS_LOG_COMMON)
		/*
		 * rinetd's logcommon: a fake HTTP request whose "URL" holds
		 * the rule and the result, the bytes sent to the client as
		 * the response size, and the bytes received after the
		 * placeholders for referrer, user agent and server name.
		 */
		n = snprintf(buf, len, "%s - - [%s %s] \"GET /rinetd-services/"
		    "%s/%u/%s/%u/%s HTTP/1.0\" 200 %llu - - - %llu %lld.%03d%s%s\n",
		    f.client, f.date, f.zone, f.lhost, f.lport, f.chost,
		    f.cport, result, (unsigned long long)e->bytes_out,
		    (unsigned long long)e->bytes_in, f.sec, f.msec, attempts,
		    extra);
	else
		/* rinetd ends its date with a space, then the tab. */
		n = snprintf(buf, len, "%s \t%s\t%s\t%u\t%s\t%u\t%llu\t%llu\t"
		    "%s\t%lld.%03d%s%s\n", f.date, f.client, f.lhost, f.lport,
		    f.chost, f.cport, (unsigned long long)e->bytes_in,
		    (unsigned long long)e->bytes_out, result, f.sec, f.msec,
		    attempts, extra);
	if (n < 0 || len < 2)
		return 0;
	if ((size_t)n >= len) {
		/* Cut, but still a line of its own. */
		n = (int)len - 1;
		buf[n - 1] = '\n';
	}
	return (size_t)n;
}

void
accesslog_session(const struct rule *rule, const struct sockaddr *client,
    const struct sockaddr *backend, unsigned attempts, const char *result,
    uint64_t in, uint64_t out, int64_t start_ms, int64_t end_ms,
    const struct accesslog_times *times)
{
	struct accesslog_entry e;

	if (al_fd == -1)
		return;
	memset(&e, 0, sizeof(e));
	/* Refusals too (0), so that a rule's lines have one layout. */
	e.attempts_field = rule->upstream.nbackends > 1;
	e.attempts = attempts;
	e.client = client;
	e.rule = rule;
	e.backend = backend;
	e.bytes_in = in;
	e.bytes_out = out;
	e.result = result;
	e.start_ms = start_ms;
	e.end_ms = end_ms;
	e.connect_us = times->connect_us;
	e.first_byte_us = times->first_byte_us;
	e.route = times->route;
	e.matched = times->matched;
	accesslog_write(&e);
}

/*
 * Room for len more bytes at the end of the access log, taken before a
 * line is written, so that a full disk refuses the line whole instead
 * of taking its first bytes (the slack of the file's last block): the
 * blocks of the line's place are allocated, the file's size unchanged.
 * Exactly the line's place, so that nothing is held past the end.
 * Several workers append to the file: one that appends between this
 * and the write moves the line past its room, a window of two system
 * calls; should the disk fill in it, the cut line is ended before the
 * next one (al_cut).  A FIFO, a device or a file system without
 * fallocate(2) is written as it is (a FIFO takes a line of at most
 * PIPE_BUF bytes whole or not at all).  false, with errno, when there
 * is no room.
 */
static bool
reserve(size_t len)
{
#ifdef FALLOC_FL_KEEP_SIZE
	off_t	end;

	if (al_no_reserve)
		return true;
	if ((end = lseek(al_fd, 0, SEEK_END)) == -1) {
		al_no_reserve = true;	/* a FIFO */
		return true;
	}
	while (fallocate(al_fd, FALLOC_FL_KEEP_SIZE, end, (off_t)len) == -1) {
		if (errno == EINTR)
			continue;
		if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
			return false;
		al_no_reserve = true;	/* a device, or not supported */
		break;
	}
#else
	(void)len;
#endif
	return true;
}

/*
 * A line goes out whole with one write(2), or not at all: lost lines
 * are counted, and said with their number when lines are written again.
 */
void
accesslog_write(const struct accesslog_entry *e)
{
	char	line[ACCESSLOG_LINE_MAX + 1];
	char	*p = line + 1;
	size_t	len;
	ssize_t	rc = -1;
	int	saved_errno = errno;
	uint64_t lost;
	int64_t	ms;

	if (al_fd == -1)
		return;
	len = accesslog_format(e, al_format, p, sizeof(line) - 1);
	if (al_cut) {
		*--p = '\n';	/* end the line a short write cut */
		len++;
	}
	if (reserve(len)) {
		do
			rc = write(al_fd, p, len);
		while (rc == -1 && errno == EINTR);
	}
	if (rc > 0 && (size_t)rc < len)
		al_cut = p[rc - 1] != '\n';
	else if (rc > 0)
		al_cut = false;
	/*
	 * A full disk or a FIFO nobody reads loses the line: the relay must
	 * not wait for the log.  Said once when it starts, and once with
	 * the count when lines are written again.
	 */
	if (rc == -1 || (size_t)rc != len)
		log_episode_hit(&al_lost, "cannot write to access log %s: %s; "
		    "its lines are lost until it can be written again",
		    al_path, rc == -1 ? strerror(errno) : "short write");
	else if ((lost = log_episode_end(&al_lost, &ms)) > 0)
		log_notice("access log %s is written again; %llu line(s) were "
		    "lost over %.1f s", al_path, (unsigned long long)lost,
		    (double)ms / 1000);
	errno = saved_errno;
}
