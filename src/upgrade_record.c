/*
 * upgrade_record.c - the records of an upgrade's description
 * (upgrade_record.h): for each kind, the line the old image writes and
 * how the new one reads it, side by side, and the one table of kinds
 * that both follow.  Neither touches a descriptor: the numbers are
 * written and read, what they are is the images' business.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "master_carry.h"
#include "rule.h"
#include "upgrade_record.h"
#include "upstream.h"

#define RECORD_FDS_MAX	(1024 * 1024)	/* a set's sockets, at most */

/* " HEX\n" of len bytes at p: a record's last field. */
static void
put_hex_line(FILE *f, const void *p, size_t len)
{
	fputc(' ', f);
	master_hex_put(f, p, len);
	fputc('\n', f);
}

/* ---- the running configuration and its sockets ---- */

static void
write_config(FILE *f, const struct upgrade_source *s)
{
	fprintf(f, "config %d %s\n", s->syntax, s->config);
}

static int
read_config(char *line, struct upgrade_desc *d)
{
	(void)sscanf(line, "config %d %4095[^\n]", &d->syntax, d->config);
	return 0;
}

static void
write_gen(FILE *f, const struct upgrade_source *s)
{
	fprintf(f, "gen %u\n", s->gen);
}

static int
read_gen(char *line, struct upgrade_desc *d)
{
	(void)sscanf(line, "gen %u", &d->gen);
	return 0;
}

static void
write_set(FILE *f, const struct upgrade_source *s)
{
	fprintf(f, "set %zu %d %d\n", s->ls->nrules, s->ls->nsock,
	    (int)s->ls->mode);
}

/* The set's shape: room for its sockets and a stand-in of its rules. */
static int
read_set(char *line, struct upgrade_desc *d)
{
	size_t i, n;
	int    mode;

	if (sscanf(line, "set %zu %d %d", &d->ls.nrules, &d->ls.nsock,
	    &mode) != 3)
		return 0;
	d->ls.mode = (enum listen_mode)mode;
	n = d->ls.nrules * (size_t)d->ls.nsock;
	if (d->ls.nrules > RECORD_FDS_MAX || d->ls.nsock <= 0 ||
	    d->ls.nsock > MAX_WORKERS || d->ls.fds != NULL ||
	    (d->ls.fds = malloc((n + 1) * sizeof(int))) == NULL ||
	    (d->cfg.rules = calloc(d->ls.nrules + 1,
	    sizeof(*d->cfg.rules))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		d->ls.fds[i] = -1;
	d->cfg.nrules = d->ls.nrules;
	d->ls.nslots = d->ls.nsock;
	return 0;
}

static void
write_rules(FILE *f, const struct upgrade_source *s)
{
	const struct rule *r;
	size_t             i;

	for (i = 0; i < s->cfg->nrules; i++) {
		r = &s->cfg->rules[i];
		fprintf(f, "rule %zu %d %d %d %u", i, r->protocol,
		    r->connect_protocol, (int)r->ipv6_only,
		    (unsigned)r->listen_addr.len);
		put_hex_line(f, &r->listen_addr.ss, r->listen_addr.len);
	}
}

static int
read_rule(char *line, struct upgrade_desc *d)
{
	struct rule *r;
	char         hex[2 * sizeof(struct sockaddr_storage) + 2];
	unsigned     len;
	size_t       i;
	int          proto, cproto, v6;

	if (sscanf(line, "rule %zu %d %d %d %u %257s", &i, &proto, &cproto,
	    &v6, &len, hex) != 6)
		return 0;
	if (i >= d->cfg.nrules || len > sizeof(r->listen_addr.ss))
		return -1;
	r = &d->cfg.rules[i];
	r->protocol = proto;
	r->connect_protocol = cproto;
	r->ipv6_only = v6 != 0;
	r->listen_addr.len = len;
	return master_hex_get(hex, &r->listen_addr.ss, len);
}

static void
write_fds(FILE *f, const struct upgrade_source *s)
{
	size_t i;
	int    k;

	for (i = 0; i < s->cfg->nrules; i++)
		for (k = 0; k < s->ls->nsock; k++)
			if (LISTEN_FD(s->ls, i, k) != -1)
				fprintf(f, "fd %zu %d %d\n", i, k,
				    LISTEN_FD(s->ls, i, k));
}

static int
read_fd(char *line, struct upgrade_desc *d)
{
	size_t i, k;
	int    fd;

	if (sscanf(line, "fd %zu %zu %d", &i, &k, &fd) != 3)
		return 0;
	if (i >= d->ls.nrules || k >= (size_t)d->ls.nsock)
		return -1;
	LISTEN_FD(&d->ls, i, k) = fd;
	return 0;
}

static void
write_backends(FILE *f, const struct upgrade_source *s)
{
	const struct backend *b;
	size_t                i, j;

	for (i = 0; i < s->cfg->nrules; i++)
		for (j = 0; j < s->cfg->rules[i].upstream.nbackends; j++) {
			b = &s->cfg->rules[i].upstream.backends[j];
			fprintf(f, "backend %zu %u %u", i, b->id,
			    (unsigned)b->addr.len);
			put_hex_line(f, &b->addr.ss, b->addr.len);
		}
}

static int
read_backend(char *line, struct upgrade_desc *d)
{
	struct upstream *u;
	struct backend  *b;
	char             hex[2 * sizeof(struct sockaddr_storage) + 2];
	unsigned         len, id;
	size_t           i;

	if (sscanf(line, "backend %zu %u %u %257s", &i, &id, &len, hex) != 4)
		return 0;
	if (i >= d->cfg.nrules || len > sizeof(b->addr.ss))
		return -1;
	u = &d->cfg.rules[i].upstream;
	b = realloc(u->backends, (u->nbackends + 1) * sizeof(*b));
	if (b == NULL)
		return -1;
	u->backends = b;
	b = &b[u->nbackends++];
	memset(b, 0, sizeof(*b));
	b->id = id;
	b->addr.len = len;
	return master_hex_get(hex, &b->addr.ss, len);
}

static void
write_stats(FILE *f, const struct upgrade_source *s)
{
	if (s->ls->stats_fd == -1)
		return;
	fprintf(f, "stats %d %u ", s->ls->stats_fd,
	    (unsigned)s->cfg->stats_addr.len);
	master_hex_put(f, &s->cfg->stats_addr.ss, s->cfg->stats_addr.len);
	fprintf(f, " %s\n", s->cfg->stats_path != NULL ? s->cfg->stats_path :
	    "-");
}

static int
read_stats(char *line, struct upgrade_desc *d)
{
	char     hex[2 * sizeof(struct sockaddr_storage) + 2];
	char     path[PATH_MAX];
	unsigned len;

	if (sscanf(line, "stats %d %u %257s %4095s", &d->ls.stats_fd, &len,
	    hex, path) != 4)
		return 0;
	d->cfg.stats_listen = d->config;	/* any: it is set */
	d->cfg.stats_addr.len = len;
	if (strcmp(path, "-") != 0 && (d->stats_path = strdup(path)) == NULL)
		return -1;
	d->cfg.stats_path = d->stats_path;
	return len > sizeof(d->cfg.stats_addr.ss) ? -1 : len == 0 ? 0 :
	    master_hex_get(hex, &d->cfg.stats_addr.ss, len);
}

/* ---- the processes ---- */

static void
write_workers(FILE *f, const struct upgrade_source *s)
{
	const struct upgrade_worker *w;
	size_t                       i;

	for (i = 0; i < s->nworkers; i++) {
		w = &s->workers[i];
		fprintf(f, "worker %ld %d %u %d %d %d\n", w->pid, w->slot,
		    w->gen, w->state, w->accepting, w->chan);
	}
}

static int
read_worker(char *line, struct upgrade_desc *d)
{
	struct upgrade_worker w, *p;

	if (sscanf(line, "worker %ld %d %u %d %d %d", &w.pid, &w.slot, &w.gen,
	    &w.state, &w.accepting, &w.chan) != 6)
		return 0;
	if ((p = realloc(d->workers, (d->nworkers + 1) * sizeof(*p))) == NULL)
		return -1;
	d->workers = p;
	d->workers[d->nworkers++] = w;
	return 0;
}

static void
write_checker(FILE *f, const struct upgrade_source *s)
{
	if (s->checker > 0)
		fprintf(f, "checker %ld\n", s->checker);
}

static int
read_checker(char *line, struct upgrade_desc *d)
{
	(void)sscanf(line, "checker %ld", &d->checker);
	return 0;
}

static void
write_control(FILE *f, const struct upgrade_source *s)
{
	if (s->control_fd == -1 || s->control_path == NULL)
		return;
	fprintf(f, "control %d %zu", s->control_fd, strlen(s->control_path));
	put_hex_line(f, s->control_path, strlen(s->control_path));
}

static int
read_control(char *line, struct upgrade_desc *d)
{
	char     path[PATH_MAX];
	unsigned len;
	int      fd;

	if (sscanf(line, "control %d %u %4095s", &fd, &len, path) != 3)
		return 0;
	if (len >= sizeof(d->control_path) || strlen(path) != 2 * len ||
	    master_hex_get(path, d->control_path, len) == -1)
		return -1;
	d->control_path[len] = '\0';
	d->control_fd = fd;
	return 0;
}

/* ---- what the backends and the counters are at ---- */

static void
write_cells(FILE *f, const struct upgrade_source *s)
{
	size_t i, size = sizeof(struct health_cell);

	for (i = 0; i < s->ncells; i++) {
		fprintf(f, "cell %zu %zu", i, size);
		put_hex_line(f, s->cells + i * size, size);
	}
}

/* A cell of another layout, or out of order: the backends start anew. */
static int
read_cell(char *line, struct upgrade_desc *d)
{
	char           hex[512];
	size_t         i, size;
	unsigned char *p;

	if (sscanf(line, "cell %zu %zu %511s", &i, &size, hex) != 3 ||
	    d->cells_broken)
		return 0;
	if (size != sizeof(struct health_cell) || i != d->ncells ||
	    (p = realloc(d->cells, (i + 1) * size)) == NULL) {
		d->cells_broken = true;
		return 0;
	}
	d->cells = p;
	if (master_hex_get(hex, p + i * size, size) == -1)
		d->cells_broken = true;
	else
		d->ncells++;
	return 0;
}

static void
write_life(FILE *f, const struct upgrade_source *s)
{
	if (s->life == NULL)
		return;
	fprintf(f, "life %zu", sizeof(*s->life));
	put_hex_line(f, s->life, sizeof(*s->life));
}

/* Another layout is not taken: the last line then counts from the exec. */
static int
read_life(char *line, struct upgrade_desc *d)
{
	char  *hex;
	size_t size;

	if (sscanf(line, "life %zu ", &size) != 1)
		return 0;
	hex = strchr(line + 5, ' ');
	if (size == sizeof(d->life) && hex != NULL &&
	    strlen(hex + 1) == 2 * size + 1 && (hex[2 * size + 1] = '\0',
	    master_hex_get(hex + 1, &d->life, size)) == 0)
		d->has_life = true;
	return 0;
}

/* srule ... stable: master_carry.c's lines, all written here. */
static void
write_carry(FILE *f, const struct upgrade_source *s)
{
	master_carry_describe(f, s->cfg);
}

static int
read_carry(char *line, struct upgrade_desc *d)
{
	(void)d;
	(void)master_carry_line(line);
	return 0;
}

static int
read_stable(char *line, struct upgrade_desc *d)
{
	(void)sscanf(line, "stable %d", &d->stable);
	return 0;
}

static void
write_host(FILE *f, const struct upgrade_source *s)
{
	fprintf(f, "host %d %lld\n", s->host_drain ? 1 : 0,
	    (long long)s->host_since);
}

static int
read_host(char *line, struct upgrade_desc *d)
{
	(void)sscanf(line, "host %d %lld", &d->host_drain, &d->host_since);
	return 0;
}

/* ---- who waits for the answer ---- */

static void
write_covers(FILE *f, const struct upgrade_source *s)
{
	size_t i;

	for (i = 0; i < s->ncovers; i++)
		fprintf(f, "covers %d\n", s->covers[i]);
}

static int
read_covers(char *line, struct upgrade_desc *d)
{
	int k;

	if (sscanf(line, "covers %d", &k) == 1 &&
	    d->ncovers < OUTCOME_COVERS_MAX)
		d->covers[d->ncovers++] = k;
	return 0;
}

static void
write_clients(FILE *f, const struct upgrade_source *s)
{
	size_t i;

	for (i = 0; i < s->nclients; i++)
		fprintf(f, "client %d\n", s->clients[i]);
}

static int
read_client(char *line, struct upgrade_desc *d)
{
	int fd;

	if (sscanf(line, "client %d", &fd) == 1 &&
	    d->nclients < OUTCOME_COVERS_MAX)
		d->clients[d->nclients++] = fd;
	return 0;
}

/* ---- the way back: the old image, executed again on a failure ---- */

static void
write_image(FILE *f, const struct upgrade_source *s)
{
	if (s->image != -1)
		fprintf(f, "image %d\n", s->image);
}

static int
read_image(char *line, struct upgrade_desc *d)
{
	(void)sscanf(line, "image %d", &d->image);
	return 0;
}

static void
write_snapshot(FILE *f, const struct upgrade_source *s)
{
	if (s->image != -1 && s->snapshot != -1)
		fprintf(f, "snapshot %d\n", s->snapshot);
}

static int
read_snapshot(char *line, struct upgrade_desc *d)
{
	(void)sscanf(line, "snapshot %d", &d->snapshot);
	return 0;
}

static void
write_args(FILE *f, const struct upgrade_source *s)
{
	size_t i;

	for (i = 0; s->argv != NULL && s->argv[i] != NULL; i++) {
		fputs("arg ", f);
		master_hex_put(f, s->argv[i], strlen(s->argv[i]));
		fputc('\n', f);
	}
}

static int
read_arg(char *line, struct upgrade_desc *d)
{
	char   **v;
	size_t   len = strcspn(line + 4, "\n");

	line[4 + len] = '\0';
	if ((v = realloc(d->argv, (d->nargv + 2) * sizeof(*v))) == NULL)
		return -1;
	d->argv = v;
	if ((v[d->nargv] = calloc(1, len / 2 + 1)) == NULL)
		return -1;
	v[++d->nargv] = NULL;
	return master_hex_get(line + 4, v[d->nargv - 1], len / 2);
}

/* Its lock with it: "ferryd -s" and status never see it free. */
static void
write_pidfile(FILE *f, const struct upgrade_source *s)
{
	if (s->pid_fd != -1)
		fprintf(f, "pidfile %d\n", s->pid_fd);
}

static int
read_pidfile(char *line, struct upgrade_desc *d)
{
	(void)sscanf(line, "pidfile %d", &d->pid_fd);
	return 0;
}

static void
write_failed(FILE *f, const struct upgrade_source *s)
{
	char line[sizeof(((struct upgrade_desc *)NULL)->failed)];

	if (s->failed == NULL)
		return;
	snprintf(line, sizeof(line), "%s", s->failed);
	line[strcspn(line, "\n")] = '\0';
	fprintf(f, "failed %s\n", line);
}

static int
read_failed(char *line, struct upgrade_desc *d)
{
	(void)sscanf(line, "failed %511[^\n]", d->failed);
	return 0;
}

static void
write_gone(FILE *f, const struct upgrade_source *s)
{
	size_t i;

	for (i = 0; i < s->ngone; i++)
		fprintf(f, "gone %ld\n", (long)s->gone[i]);
}

static int
read_gone(char *line, struct upgrade_desc *d)
{
	pid_t *g;
	long   pid;

	if (sscanf(line, "gone %ld", &pid) != 1)
		return 0;
	if ((g = realloc(d->gone, (d->ngone + 1) * sizeof(*g))) == NULL)
		return -1;
	d->gone = g;
	d->gone[d->ngone++] = (pid_t)pid;
	return 0;
}

static void
write_checker_gone(FILE *f, const struct upgrade_source *s)
{
	if (s->checker_gone)
		fputs("checker-gone\n", f);
}

static int
read_checker_gone(char *line, struct upgrade_desc *d)
{
	(void)line;
	d->checker_gone = true;
	return 0;
}

static void
write_answered(FILE *f, const struct upgrade_source *s)
{
	if (s->answered)
		fputs("answered\n", f);
}

/* The clients were answered: their descriptors are closed. */
static int
read_answered(char *line, struct upgrade_desc *d)
{
	(void)line;
	d->nclients = 0;
	return 0;
}

/*
 * Every kind, in the order written.  A reader needs set before rule, fd
 * and backend, and answered after client; srule's writer writes the
 * counters' kinds after it.
 */
static const struct record_kind {
	const char        *name;
	enum upgrade_part  part;
	void             (*write)(FILE *, const struct upgrade_source *);
	int              (*read)(char *, struct upgrade_desc *);
} kinds[] = {
	{ "config",	  UPGRADE_PART_IMAGE, write_config, read_config },
	{ "gen",	  UPGRADE_PART_IMAGE, write_gen, read_gen },
	{ "set",	  UPGRADE_PART_IMAGE, write_set, read_set },
	{ "rule",	  UPGRADE_PART_IMAGE, write_rules, read_rule },
	{ "fd",		  UPGRADE_PART_IMAGE, write_fds, read_fd },
	{ "backend",	  UPGRADE_PART_IMAGE, write_backends, read_backend },
	{ "stats",	  UPGRADE_PART_IMAGE, write_stats, read_stats },
	{ "worker",	  UPGRADE_PART_IMAGE, write_workers, read_worker },
	{ "checker",	  UPGRADE_PART_IMAGE, write_checker, read_checker },
	{ "control",	  UPGRADE_PART_IMAGE, write_control, read_control },
	{ "cell",	  UPGRADE_PART_IMAGE, write_cells, read_cell },
	{ "life",	  UPGRADE_PART_IMAGE, write_life, read_life },
	{ "srule",	  UPGRADE_PART_IMAGE, write_carry, read_carry },
	{ "sroute",	  UPGRADE_PART_IMAGE, NULL, read_carry },
	{ "sbackend",	  UPGRADE_PART_IMAGE, NULL, read_carry },
	{ "scount",	  UPGRADE_PART_IMAGE, NULL, read_carry },
	{ "sown",	  UPGRADE_PART_IMAGE, NULL, read_carry },
	{ "stable",	  UPGRADE_PART_IMAGE, NULL, read_stable },
	{ "host",	  UPGRADE_PART_IMAGE, write_host, read_host },
	{ "covers",	  UPGRADE_PART_IMAGE, write_covers, read_covers },
	{ "client",	  UPGRADE_PART_IMAGE, write_clients, read_client },
	{ "image",	  UPGRADE_PART_IMAGE, write_image, read_image },
	{ "snapshot",	  UPGRADE_PART_IMAGE, write_snapshot, read_snapshot },
	{ "arg",	  UPGRADE_PART_IMAGE, write_args, read_arg },
	{ "pidfile",	  UPGRADE_PART_IMAGE, write_pidfile, read_pidfile },
	{ "failed",	  UPGRADE_PART_WAY_BACK, write_failed, read_failed },
	{ "gone",	  UPGRADE_PART_WAY_BACK, write_gone, read_gone },
	{ "checker-gone", UPGRADE_PART_WAY_BACK, write_checker_gone,
	  read_checker_gone },
	{ "answered",	  UPGRADE_PART_WAY_BACK, write_answered,
	  read_answered },
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

int
upgrade_record_write(FILE *f, const struct upgrade_source *src,
    enum upgrade_part part)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (kinds[i].part == part && kinds[i].write != NULL)
			kinds[i].write(f, src);
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}

void
upgrade_desc_init(struct upgrade_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->ls.stats_fd = -1;
	d->control_fd = -1;
	d->image = -1;
	d->snapshot = -1;
	d->stable = -1;
	d->pid_fd = -1;
}

void
upgrade_desc_free(struct upgrade_desc *d)
{
	size_t	i;

	for (i = 0; d->cfg.rules != NULL && i < d->cfg.nrules; i++)
		free(d->cfg.rules[i].upstream.backends);
	free(d->cfg.rules);
	free(d->ls.fds);
	free(d->stats_path);
	free(d->workers);
	free(d->cells);
	for (i = 0; d->argv != NULL && i < d->nargv; i++)
		free(d->argv[i]);
	free(d->argv);
	free(d->gone);
	upgrade_desc_init(d);
}

int
upgrade_record_read(char *line, struct upgrade_desc *d)
{
	size_t i, len = strcspn(line, " \n");

	for (i = 0; i < NKINDS; i++)
		if (strlen(kinds[i].name) == len &&
		    strncmp(line, kinds[i].name, len) == 0)
			return kinds[i].read(line, d);
	return 0;
}

const char *
upgrade_record_kind(size_t i)
{
	return i < NKINDS ? kinds[i].name : NULL;
}
