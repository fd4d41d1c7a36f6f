/*
 * master_status.c - the daemon's totals told (master_status.h).
 *
 * The totals are those of the master's last line (stats_read_life: every
 * rule of every table still mapped, and what the rules reloads removed
 * counted), so that the file, the periodic line and the last line agree
 * and none goes down at a reload.  The split by kind (TCP, UDP, Unix) is
 * rinetd-uv's: a connection is of the kind of the backend it reached,
 * counted when it reached it.  That is what the backends' counters say,
 * read for the running configuration (with what they counted before the
 * reloads that kept them); a rule a reload removed stays in the totals,
 * no longer in a kind.
 *
 * The master writes the file between two turns of its loop: a few
 * hundred bytes, whole, to PATH.tmp, renamed over PATH, never synced (a
 * power cut may lose it, which costs nothing), so the loop never waits
 * for the disk.  A write that fails is a warning once, until one works.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "event.h"
#include "log.h"
#include "master_state.h"
#include "master_status.h"
#include "rule.h"
#include "safefile.h"
#include "stats.h"
#include "upstream.h"

/* rinetd-uv's kinds of connections: by the socket of their backend. */
enum conn_kind { KIND_TCP, KIND_UDP, KIND_UNIX, KINDS };

/* What is told, read at one moment. */
struct totals {
	struct stats_rule	 life;		/* the whole life's counters */
	uint64_t		 total, active;	/* connections and sessions */
	uint64_t		 reached[KINDS]; /* ... that reached a backend */
	uint64_t		 open[KINDS];	/* ... open now */
	long long		 uptime;	/* seconds */
	unsigned		 reloads;	/* generations after the first */
	time_t			 now, loaded;	/* wall clock */
	size_t			 rules;
};

/* A backend's opened and active, read as one part of its counters. */
_Static_assert(offsetof(struct stats_backend, active) ==
    offsetof(struct stats_backend, opened) + sizeof(uint64_t),
    "opened and active are read together");

static enum conn_kind
backend_kind(const struct rule *r, const struct backend *b)
{
	if (r->connect_protocol == RULE_UDP)
		return KIND_UDP;
	return b->addr.ss.ss_family == AF_UNIX ? KIND_UNIX : KIND_TCP;
}

/* The running configuration's backends, added up by kind into t. */
static void
totals_by_kind(const struct conf *cfg, struct totals *t)
{
	const struct rule	*r;
	const struct backend	*b;
	struct stats_backend	 sb;
	size_t			 i, j;

	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		if (r->range_first != NULL)	/* counted in the first port */
			continue;
		for (j = 0; j < r->upstream.nbackends; j++) {
			b = &r->upstream.backends[j];
			if (!stats_read_backend_part(b->stat, offsetof(struct
			    stats_backend, opened), 2 * sizeof(uint64_t), &sb))
				continue;
			t->reached[backend_kind(r, b)] += sb.opened;
			t->open[backend_kind(r, b)] += sb.active;
		}
	}
}

static void
totals_read(const struct master *m, struct totals *t)
{
	int64_t now = clock_ms();

	memset(t, 0, sizeof(*t));
	stats_read_life(&t->life);	/* a round of reading starts there */
	t->total = t->life.accepted + t->life.sessions;
	t->active = t->life.active + t->life.active_sessions;
	totals_by_kind(m->cfg, t);
	t->uptime = (now - m->born) / 1000;
	t->reloads = m->gen > 0 ? m->gen - 1 : 0;
	t->now = time(NULL);
	t->loaded = t->now - (time_t)((now - m->gen_started) / 1000);
	t->rules = m->cfg->nrules;
}

/* n bytes as rinetd-uv says them: "512B", "1.5K", ... "2.0T". */
static void
human_bytes(uint64_t n, char *buf, size_t size)
{
	static const char	units[] = "KMGT";
	double			v = (double)n;
	int			i = -1;

	while (i < 3 && v >= 1024) {
		v /= 1024;	/* exact: a power of two */
		i++;
	}
	if (i < 0)
		snprintf(buf, size, "%lluB", (unsigned long long)n);
	else
		snprintf(buf, size, "%.1f%c", v, units[i]);
}

/* Seconds as rinetd-uv's text says them: "2 days, 3:04:05", "0:00:09". */
static void
human_uptime(long long s, char *buf, size_t size)
{
	long long	days = s / 86400;

	if (days > 0)
		snprintf(buf, size, "%lld day%s, %lld:%02lld:%02lld", days,
		    days == 1 ? "" : "s", s % 86400 / 3600, s % 3600 / 60,
		    s % 60);
	else
		snprintf(buf, size, "%lld:%02lld:%02lld", s / 3600,
		    s % 3600 / 60, s % 60);
}

static void
utc(time_t when, char *buf, size_t size)
{
	struct tm	tm;

	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&when, &tm));
}

#define ULL(x)	((unsigned long long)(x))

/* rinetd-uv's JSON: the fields ferryd knows (ferryd.conf(5) says which). */
static void
put_json(FILE *f, const struct totals *t)
{
	char	now[32], loaded[32];

	utc(t->now, now, sizeof(now));
	utc(t->loaded, loaded, sizeof(loaded));
	fprintf(f, "{\n  \"timestamp\": \"%s\",\n  \"version\": \"%s\",\n"
	    "  \"uptime_seconds\": %lld,\n  \"config_reloads\": %u,\n"
	    "  \"stats_since_reload\": \"%s\",\n  \"connections\": {\n"
	    "    \"active\": %llu,\n    \"active_tcp\": %llu,\n"
	    "    \"active_udp\": %llu,\n    \"active_unix\": %llu,\n"
	    "    \"total\": %llu,\n    \"total_tcp\": %llu,\n"
	    "    \"total_udp\": %llu,\n    \"total_unix\": %llu\n  },\n"
	    "  \"traffic\": {\n    \"bytes_in\": %llu,\n"
	    "    \"bytes_out\": %llu\n  },\n  \"errors\": {\n"
	    "    \"accept\": %llu,\n    \"connect\": %llu,\n"
	    "    \"denied\": %llu\n  },\n  \"servers\": %zu\n}\n", now,
	    PACKAGE_VERSION, t->uptime, t->reloads, loaded, ULL(t->active),
	    ULL(t->open[KIND_TCP]), ULL(t->open[KIND_UDP]),
	    ULL(t->open[KIND_UNIX]), ULL(t->total),
	    ULL(t->reached[KIND_TCP]), ULL(t->reached[KIND_UDP]),
	    ULL(t->reached[KIND_UNIX]), ULL(t->life.bytes_in),
	    ULL(t->life.bytes_out), ULL(t->life.accept_errors),
	    ULL(t->life.no_backend), ULL(t->life.denied), t->rules);
}

/* rinetd-uv's text, for a human; its first line names the layout. */
static void
put_text(FILE *f, const struct totals *t)
{
	char		now[32], up[64], in[32], out[32];
	struct tm	tm;

	strftime(now, sizeof(now), "%Y-%m-%d %H:%M:%S",
	    localtime_r(&t->now, &tm));
	human_uptime(t->uptime, up, sizeof(up));
	human_bytes(t->life.bytes_in, in, sizeof(in));
	human_bytes(t->life.bytes_out, out, sizeof(out));
	fprintf(f, "rinetd-uv Status Report\nUpdated: %s\n"
	    "Version: ferryd %s\nUptime: %s\nConfig reloads: %u\n\n"
	    "CONNECTIONS\nActive: %llu (TCP: %llu, UDP: %llu, Unix: %llu)\n"
	    "Total: %llu (TCP: %llu, UDP: %llu, Unix: %llu)\n\n"
	    "TRAFFIC\nBytes in: %s\nBytes out: %s\n\n"
	    "ERRORS\nAccept: %llu\nConnect: %llu\nDenied: %llu\n\n"
	    "SERVERS\nCount: %zu\n", now, PACKAGE_VERSION, up, t->reloads,
	    ULL(t->active), ULL(t->open[KIND_TCP]), ULL(t->open[KIND_UDP]),
	    ULL(t->open[KIND_UNIX]), ULL(t->total),
	    ULL(t->reached[KIND_TCP]), ULL(t->reached[KIND_UDP]),
	    ULL(t->reached[KIND_UNIX]), in, out, ULL(t->life.accept_errors),
	    ULL(t->life.no_backend), ULL(t->life.denied), t->rules);
}

/* Failed writes of the status file: said once, until one works. */
static struct log_episode unwritten;

/* The status file's text, in cfg's layout: 0, or -1 (no memory). */
static int
status_text(const struct master *m, char **text, size_t *len)
{
	struct totals	 t;
	FILE		*f;

	*text = NULL;
	if ((f = open_memstream(text, len)) == NULL)
		return -1;
	totals_read(m, &t);
	if (m->cfg->status_format == STATUS_TEXT)
		put_text(f, &t);
	else
		put_json(f, &t);
	if (fclose(f) == 0)
		return 0;
	free(*text);
	return -1;
}

static void
status_write(const struct master *m)
{
	const char	*path = m->cfg->status_file;
	char		*text, err[CONF_ERR_MAX];
	size_t		 len;
	uint64_t	 n;
	int64_t		 ms;
	int		 rc;

	if (status_text(m, &text, &len) == -1) {
		snprintf(err, sizeof(err), "cannot write status file %s: out "
		    "of memory", path);
		goto fail;
	}
	rc = safefile_replace_unsynced(path, text, len, 0644, "status file",
	    err, sizeof(err));
	free(text);
	if (rc == -1)
		goto fail;
	if ((n = log_episode_end(&unwritten, &ms)) > 0)
		log_notice("status file %s written again, after %llu failed "
		    "write(s) in %.1f s", path, ULL(n), (double)ms / 1000);
	return;
fail:
	log_episode_hit(&unwritten, "%s (said once until a write works)",
	    err);
}

/* rinetd-uv's "STATS:" line, for a log that tails its totals. */
static void
stats_log_line(const struct master *m)
{
	struct totals	t;
	char		in[32], out[32];

	totals_read(m, &t);
	human_bytes(t.life.bytes_in, in, sizeof(in));
	human_bytes(t.life.bytes_out, out, sizeof(out));
	log_info("STATS: uptime=%llds conns=%llu/%llu tcp=%llu/%llu "
	    "udp=%llu/%llu unix=%llu/%llu traffic=%s/%s errors=%llu/%llu/%llu",
	    t.uptime, ULL(t.active), ULL(t.total), ULL(t.open[KIND_TCP]),
	    ULL(t.reached[KIND_TCP]), ULL(t.open[KIND_UDP]),
	    ULL(t.reached[KIND_UDP]), ULL(t.open[KIND_UNIX]),
	    ULL(t.reached[KIND_UNIX]), in, out, ULL(t.life.accept_errors),
	    ULL(t.life.no_backend), ULL(t.life.denied));
}

/* t due in ms from now; a timer that cannot be armed is said. */
static void
arm(struct master *m, struct event_timer *t, int ms, const char *what)
{
	if (event_timer_arm(m->loop, t, clock_ms() + ms) == -1)
		log_err("cannot arm the timer of %s: %s; it stops until a "
		    "reload", what, strerror(errno));
}

static void
on_status_due(struct event_timer *t, void *data)
{
	struct master *m = data;

	status_write(m);
	arm(m, t, m->cfg->status_interval, "status_file");
}

static void
on_stats_log_due(struct event_timer *t, void *data)
{
	struct master *m = data;

	stats_log_line(m);
	arm(m, t, m->cfg->stats_log_interval, "stats_log_interval");
}

void
master_status_start(struct master *m)
{
	int64_t	ms;

	event_timer_cancel(m->loop, &m->report.status_due);
	event_timer_cancel(m->loop, &m->report.stats_log_due);
	event_timer_init(&m->report.status_due, on_status_due, m);
	event_timer_init(&m->report.stats_log_due, on_stats_log_due, m);
	(void)log_episode_end(&unwritten, &ms);	/* a new file: said anew */
	/* As rinetd-uv: the first write one interval from now. */
	if (m->cfg->status_file != NULL)
		arm(m, &m->report.status_due, m->cfg->status_interval,
		    "status_file");
	if (m->cfg->stats_log_interval > 0)
		arm(m, &m->report.stats_log_due, m->cfg->stats_log_interval,
		    "stats_log_interval");
}

void
master_status_last_line(void)
{
	struct stats_rule t;

	stats_read_life(&t);
	log_notice("stopped: %llu connection(s) relayed, %llu refused, "
	    "%llu failed to connect; %llu UDP session(s), %llu datagram(s) "
	    "in, %llu out, %llu dropped; %llu bytes in, %llu bytes out",
	    ULL(t.closed), ULL(t.denied + t.refused_max +
	    t.refused_per_client + t.refused_rate), ULL(t.no_backend),
	    ULL(t.sessions), ULL(t.datagrams_in), ULL(t.datagrams_out),
	    ULL(t.dropped + t.truncated), ULL(t.bytes_in), ULL(t.bytes_out));
}
