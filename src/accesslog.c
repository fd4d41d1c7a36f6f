/*
 * accesslog.c - the access log: which client used which rule, how many
 * bytes went each way, how it ended and how long it took.  This file
 * keeps the file (or syslog) and writes each line whole;
 * accesslog_format.c makes the lines.
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
static bool	al_syslog;		/* access_log = "syslog" */
static struct log_episode al_lost;	/* lines lost while writes fail */
static bool	al_no_reserve;		/* al_fd cannot have room reserved */
static bool	al_cut;			/* its last line was cut: end it */

const struct accesslog_times accesslog_no_times = { -1, -1, NULL, NULL };
static char	al_path[PATH_MAX];

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
	if (strcmp(path, ACCESSLOG_SYSLOG) == 0) {
		accesslog_close();
		log_syslog_open();
		al_syslog = true;
		return 0;
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
	al_syslog = false;
}

bool
accesslog_enabled(void)
{
	return al_fd != -1 || al_syslog;
}

/* Whether the connections of rule (or of its route) write lines. */
static bool
rule_logged(const struct rule *rule)
{
	return accesslog_enabled() && !rule->no_access_log;
}

void
accesslog_session(const struct rule *rule, const struct sockaddr *client,
    const struct sockaddr *backend, unsigned attempts, const char *result,
    uint64_t in, uint64_t out, int64_t start_ms, int64_t end_ms,
    const struct accesslog_times *times)
{
	accesslog_session_end(rule, client, backend, attempts, result,
	    ACCESSLOG_SIDE_UNKNOWN, in, out, start_ms, end_ms, times);
}

void
accesslog_session_end(const struct rule *rule, const struct sockaddr *client,
    const struct sockaddr *backend, unsigned attempts, const char *result,
    int closed_first, uint64_t in, uint64_t out, int64_t start_ms,
    int64_t end_ms, const struct accesslog_times *times)
{
	struct accesslog_entry e;

	if (!rule_logged(rule) || accesslog_logs_connected())
		return;
	/*
	 * rinetd 0.73 writes no line when a UDP session ends (both its
	 * sockets are gone before its last line would be): its exact lines
	 * have the "opened" one only.
	 */
	if (accesslog_logs_opened() && rule->protocol == RULE_UDP &&
	    strcmp(result, ACCESSLOG_DENIED) != 0 &&
	    strcmp(result, ACCESSLOG_NOT_ALLOWED) != 0)
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
	e.closed_first = closed_first;
	accesslog_write(&e);
}

/* An entry of a connection that is starting: no times, no bytes yet. */
static void
entry_start(struct accesslog_entry *e, const struct rule *rule,
    const struct sockaddr *client, const struct sockaddr *backend)
{
	memset(e, 0, sizeof(*e));
	e->client = client;
	e->rule = rule;
	e->backend = backend;
	e->connect_us = e->first_byte_us = -1;
}

void
accesslog_opened(const struct rule *rule, const struct sockaddr *client,
    const struct sockaddr *backend, uint64_t in)
{
	struct accesslog_entry e;

	if (!rule_logged(rule) || !accesslog_logs_opened())
		return;
	entry_start(&e, rule, client, backend);
	e.bytes_in = in;
	e.result = ACCESSLOG_OPENED;
	accesslog_write(&e);
}

void
accesslog_connected(const struct rule *rule, const char *route,
    const struct sockaddr *client, const struct sockaddr *backend,
    int client_fd, int backend_fd)
{
	struct accesslog_entry	e;
	struct sockaddr_storage	here, from;
	socklen_t		hlen = sizeof(here), flen = sizeof(from);

	if (!rule_logged(rule) || !accesslog_logs_connected())
		return;
	entry_start(&e, rule, client, backend);
	e.route = route;
	/* sslh's: where the client came to, where we came from. */
	if (getsockname(client_fd, (struct sockaddr *)&here, &hlen) == 0)
		e.client_local = (const struct sockaddr *)&here;
	if (getsockname(backend_fd, (struct sockaddr *)&from, &flen) == 0)
		e.backend_local = (const struct sockaddr *)&from;
	accesslog_write(&e);
}

/*
 * access_log = "syslog": the line to syslog, and to standard error too
 * where log messages go there (in the foreground), as sslh -f prints
 * its lines.
 */
static void
write_syslog(const char *line, size_t len)
{
	if (len == 0)
		return;
	log_syslog_line(line, len - 1);
	if (log_to_stderr())
		(void)!write(STDERR_FILENO, line, len);
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

	if (!accesslog_enabled())
		return;
	len = accesslog_format(e, accesslog_get_format(), p,
	    sizeof(line) - 1);
	if (al_syslog) {
		write_syslog(p, len);
		return;
	}
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
