/*
 * master_statefile.c - the runtime state in a file (master_statefile.h).
 *
 * One entry a line, words split by blanks, '#' starts a comment:
 *
 *	host drain since=1795662000
 *	backend RULE ADDRESS admin=drain weight=3 since=1795662000
 *
 * RULE and ADDRESS as "show backends" names them (RULE/ADDRESS); admin
 * is ready, drain or disabled, weight 1 to BACKEND_WEIGHT_MAX or 0 for
 * the configured one; since the wall clock second the drain (host) or
 * the admin state (backend) was said, which "show host" and "show
 * backends" give.  A file without since (written before it was kept)
 * still loads: the drain counts from the start, as it did then.  Only backends with something said of them are
 * written.  A backend is matched by rule and address, as a reload
 * matches health cells and the control socket names them: the rules of
 * a named port range all take an entry of its name (an unnamed one's
 * ports are a rule each).
 */
#include "ferryd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "health.h"
#include "log.h"
#include "master_statefile.h"
#include "rule.h"
#include "safefile.h"
#include "scoreboard.h"
#include "upstream.h"

#define STATEFILE_LINE_MAX	1024

/* The file (state_file; NULL: none) and the rules whose backends it keeps. */
struct statefile {
	const char		*path;
	const struct rule	*rules;
	size_t			 nrules;
};

static int	file_save(const struct statefile *, char *, size_t);

/* One entry read: what it says of a backend. */
struct entry {
	const char	*rule, *addr;
	int		 admin;		/* enum health_admin, -1: not said */
	int		 weight;	/* -1: not said */
	int64_t		 since;		/* -1: not said */
};

/* The index of word in words (n of them), or -1. */
static int
word_index(const char *word, const char *const *words, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(word, words[i]) == 0)
			return i;
	return -1;
}

/* "since=SECONDS" into *since: 0, or -1 with why. */
static int
since_key(const char *kv, int64_t *since, const char **why)
{
	char		*end;
	long long	 s;

	if (strncmp(kv, "since=", 6) != 0) {
		*why = "expected since=SECONDS";
		return -1;
	}
	errno = 0;
	s = strtoll(kv + 6, &end, 10);
	if (kv[6] == '\0' || *end != '\0' || s <= 0 || errno != 0) {
		*why = "since is a time in seconds since 1970";
		return -1;
	}
	*since = s;
	return 0;
}

/* "admin=...", "weight=N" or "since=S" into e: 0, or -1 with why. */
static int
entry_key(struct entry *e, const char *kv, const char **why)
{
	char	*end;
	long	 w;

	if (strncmp(kv, "since=", 6) == 0)
		return since_key(kv, &e->since, why);
	if (strncmp(kv, "admin=", 6) == 0) {
		if ((e->admin = word_index(kv + 6, health_admin_names,
		    HEALTH_ADMINS)) == -1)
			*why = "admin is ready, drain or disabled";
		return e->admin == -1 ? -1 : 0;
	}
	if (strncmp(kv, "weight=", 7) == 0) {
		w = strtol(kv + 7, &end, 10);
		if (kv[7] == '\0' || *end != '\0' || w < 0 ||
		    w > BACKEND_WEIGHT_MAX) {
			*why = "weight is 0 (as configured) to 256";
			return -1;
		}
		e->weight = (int)w;
		return 0;
	}
	*why = "expected admin=STATE, weight=N or since=SECONDS";
	return -1;
}

/* e given to every backend of sf it names: how many. */
static int
entry_apply(const struct statefile *sf, const struct entry *e)
{
	const struct rule	*r;
	const struct backend	*b;
	struct health_cell	*cell;
	char			 a[ADDR_STRLEN];
	size_t			 i, j;
	int			 n = 0;

	for (i = 0; i < sf->nrules; i++) {
		r = &sf->rules[i];
		if (strcmp(rule_log_name(r), e->rule) != 0)
			continue;
		for (j = 0; j < r->upstream.nbackends; j++) {
			b = &r->upstream.backends[j];
			if (strcmp(addr_format((const void *)&b->addr.ss, a,
			    sizeof(a)), e->addr) != 0 ||
			    (cell = health_cell(b->id)) == NULL)
				continue;
			if (e->admin != -1) {
				cell->admin = (uint8_t)e->admin;
				cell->admin_since = e->since != -1 ? e->since :
				    e->admin != HEALTH_READY ?
				    (int64_t)time(NULL) : 0;
				/* /metrics' last change: the drain's, as before. */
				if (e->since != -1 && e->admin != HEALTH_READY)
					cell->changed = e->since;
			}
			if (e->weight != -1)
				cell->weight = (uint16_t)e->weight;
			n++;
		}
	}
	return n;
}

/*
 * One line (no newline) of the file: 0 when taken or dropped, -1 with
 * why when it cannot be read.
 */
static int
line_take(const struct statefile *sf, char *line, int lineno,
    const char **why)
{
	struct entry	 e = { NULL, NULL, -1, -1, -1 };
	char		*w[8], *save = NULL, *p;
	int64_t		 since = -1;
	int		 n = 0, i;

	if ((p = strchr(line, '#')) != NULL)
		*p = '\0';
	for (p = strtok_r(line, " \t\r", &save); p != NULL && n < 8;
	    p = strtok_r(NULL, " \t\r", &save))
		w[n++] = p;
	if (n == 0)
		return 0;
	if (strcmp(w[0], "host") == 0) {
		if (n < 2 || n > 3 ||
		    (i = word_index(w[1], health_admin_names, 2)) == -1) {
			*why = "expected \"host ready\" or \"host drain\", "
			    "and since=SECONDS";
			return -1;
		}
		if (n == 3 && since_key(w[2], &since, why) == -1)
			return -1;
		if (since == -1)
			scoreboard_set_host_drain(i == HEALTH_DRAIN);
		else
			scoreboard_host_drain_restore(i == HEALTH_DRAIN, since);
		return 0;
	}
	if (strcmp(w[0], "backend") != 0 || n < 4 || p != NULL) {
		*why = "expected \"backend RULE ADDRESS admin=STATE "
		    "weight=N since=SECONDS\" or \"host STATE\"";
		return -1;
	}
	e.rule = w[1];
	e.addr = w[2];
	for (i = 3; i < n; i++)
		if (entry_key(&e, w[i], why) == -1)
			return -1;
	if (entry_apply(sf, &e) == 0)
		log_info("%s:%d: no backend %s/%s in the configuration: its "
		    "state is dropped", sf->path, lineno, e.rule,
		    e.addr);
	return 0;
}

/* Read what f holds: each line taken, or a warning. */
static void
file_read(const struct statefile *sf, FILE *f)
{
	char		 line[STATEFILE_LINE_MAX];
	const char	*why;
	size_t		 len;
	int		 lineno = 0, c;

	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		len = strlen(line);
		why = NULL;
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		else if (!feof(f)) {
			why = "line too long";
			while ((c = getc(f)) != EOF && c != '\n')
				continue;
		}
		if (why != NULL || line_take(sf, line, lineno, &why) == -1)
			log_warn("%s:%d: %s; the line is ignored",
			    sf->path, lineno, why);
	}
	if (ferror(f))
		log_warn("cannot read state file %s: %s; what was not read "
		    "is as configured", sf->path, strerror(errno));
}

/* sf's file open for reading, NULL (and a warning) if it is not. */
static FILE *
file_open(const struct statefile *sf)
{
	char		 err[512];
	const char	*why;
	struct stat	 st;
	FILE		*f;
	int		 fd;

	errno = 0;	/* a directory refused leaves it so: said */
	fd = safefile_open(sf->path, O_RDONLY, 0, "state file", err,
	    sizeof(err));
	if (fd == -1) {
		if (errno != ENOENT)	/* none yet: nothing was said */
			log_warn("%s; every backend starts as configured", err);
		return NULL;
	}
	if (fstat(fd, &st) == -1)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if ((f = fdopen(fd, "r")) == NULL)
		why = strerror(errno);
	else
		return f;
	log_warn("cannot read state file %s: %s; every backend starts as "
	    "configured", sf->path, why);
	close(fd);
	return NULL;
}

void
master_statefile_load(const char *path, const struct rule *rules,
    size_t nrules)
{
	const struct statefile	 file = { path, rules, nrules };
	const struct statefile	*sf = &file;
	char			 err[512];
	FILE			*f;

	if (sf->path == NULL)
		return;
	if ((f = file_open(sf)) != NULL) {
		file_read(sf, f);
		fclose(f);
	}
	if (scoreboard_host_drain(NULL))
		log_notice("the host is drained (state file %s): /ready "
		    "answers 503 until \"ready host\"", sf->path);
	if (file_save(sf, err, sizeof(err)) == -1)
		log_warn("%s", err);
}

/*
 * Whether backend j of r has the entry of its range's first port: a
 * named range is one name, and a backend that does not follow the
 * port is one address (a command and an entry name them all at once).
 */
static bool
range_said(const struct rule *r, size_t j)
{
	const struct rule *first = r->range_first;

	return first != NULL && strcmp(rule_log_name(r),
	    rule_log_name(first)) == 0 && j < first->upstream.nbackends &&
	    addr_equal(&r->upstream.backends[j].addr,
	    &first->upstream.backends[j].addr);
}

/* The state of each backend with something said of it, into f. */
static void
file_backends(const struct statefile *sf, FILE *f)
{
	const struct rule		*r;
	const struct backend		*b;
	const struct health_cell	*cell;
	char				 a[ADDR_STRLEN];
	size_t				 i, j;

	for (i = 0; i < sf->nrules; i++) {
		r = &sf->rules[i];
		for (j = 0; j < r->upstream.nbackends; j++) {
			b = &r->upstream.backends[j];
			if (range_said(r, j) ||
			    (cell = health_cell(b->id)) == NULL ||
			    (cell->admin == HEALTH_READY && cell->weight == 0))
				continue;
			fprintf(f, "backend %s %s admin=%s weight=%d",
			    rule_log_name(r), addr_format((const void *)
			    &b->addr.ss, a, sizeof(a)),
			    health_admin_names[cell->admin], (int)cell->weight);
			if (cell->admin != HEALTH_READY &&
			    cell->admin_since > 0)
				fprintf(f, " since=%lld",
				    (long long)cell->admin_since);
			fputc('\n', f);
		}
	}
}

/*
 * The directory of the state file could not be synced (a file system
 * that refuses, a disk going bad): said once, not at every command.
 */
static struct log_episode dir_unsynced;

/* What safefile_replace said (rc, err): a directory not synced is no error. */
static int
save_result(const struct statefile *sf, int rc, const char *err)
{
	uint64_t	n;
	int64_t		ms;

	if (rc == 1)
		log_episode_hit(&dir_unsynced, "%s (said once until it works "
		    "again)", err);
	else if (rc == 0 && (n = log_episode_end(&dir_unsynced, &ms)) > 0)
		log_notice("state file %s: its directory is synced again, "
		    "after %llu writes not synced in %lld ms", sf->path,
		    (unsigned long long)n, (long long)ms);
	return rc == -1 ? -1 : 0;
}

static int
file_save(const struct statefile *sf, char *err, size_t errlen)
{
	char	*text = NULL;
	size_t	 len = 0;
	int64_t	 since;
	FILE	*f;
	bool	 drain;
	int	 rc;

	if (sf->path == NULL)
		return 0;
	if ((f = open_memstream(&text, &len)) == NULL) {
		snprintf(err, errlen, "cannot write state file %s: %s",
		    sf->path, strerror(errno));
		return -1;
	}
	drain = scoreboard_host_drain(&since);
	fprintf(f, "# ferryd's runtime state (state_file), written by ferryd "
	    "at each change\n# and read at its start.\nhost %s",
	    drain ? "drain" : "ready");
	if (drain && since > 0)
		fprintf(f, " since=%lld", (long long)since);
	fputc('\n', f);
	file_backends(sf, f);
	if (fclose(f) != 0) {
		free(text);
		snprintf(err, errlen, "cannot write state file %s: out of "
		    "memory", sf->path);
		return -1;
	}
	rc = safefile_replace(sf->path, text, len, 0644, "state file",
	    err, errlen);
	free(text);
	return save_result(sf, rc, err);
}

int
master_statefile_save(const char *path, const struct rule *rules,
    size_t nrules, char *err, size_t errlen)
{
	const struct statefile file = { path, rules, nrules };

	return file_save(&file, err, errlen);
}
