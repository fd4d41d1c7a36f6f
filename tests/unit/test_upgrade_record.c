/*
 * test_upgrade_record.c - what crosses an upgrade's exec
 * (upgrade_record.h): a loaded configuration, its listen set, a child
 * list and the rest of an old image's state written as a description,
 * read back line by line as the new image reads it, and every field
 * compared; then what a failed new image appends for the way back.
 * Every record kind of the table is seen written and read.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "health.h"
#include "listen.h"
#include "rule.h"
#include "stats.h"
#include "testlib.h"
#include "upgrade_record.h"
#include "upstream.h"

static const char text[] =
    "stats_listen = \"127.0.0.1:18490\";\n"
    "rules = (\n"
    "  { name = \"web\"; listen = \"127.0.0.1:18480\";\n"
    "    routes = ( { name = \"a\"; sni = \"a.example.org\";\n"
    "        connect = \"127.0.0.1:18481\"; },\n"
    "      { name = \"b\"; connect = \"[::1]:18482\"; } ); },\n"
    "  { name = \"dns\"; listen = \"[::1]:18483\"; protocol = \"udp\";\n"
    "    connect = \"127.0.0.1:18484\"; }\n"
    ");\n";

static const struct upgrade_worker workers[] = {
	{ .pid = 4101, .slot = 0, .gen = 3, .state = 1, .accepting = 1,
	  .chan = 31 },
	{ .pid = 4102, .slot = 1, .gen = 3, .state = 0, .accepting = 1,
	  .chan = 32 },
	{ .pid = 3907, .slot = 0, .gen = 2, .state = 2, .accepting = 0,
	  .chan = 33 },
};
static const int covers[] = { -7, 4321 };
static const int clients[] = { 41, 42 };
static const char *const argv[] = {
	"/usr/sbin/ferryd", "-c", "/etc/ferryd with space.conf", "", NULL
};
static const pid_t gone[] = { 4102, 3907 };

/* The set the old image listens on: two rules, three sockets each. */
static int fds[] = { 10, 11, -1, 12, -1, 13 };
static const struct listen_set ls = {
	.nrules = 2, .nslots = 2, .nsock = 3, .mode = LISTEN_SHARED,
	.fds = fds, .stats_fd = 14
};

/* The description of src, each line read back into d. */
static void
round_trip(const struct upgrade_source *src, enum upgrade_part part,
    struct upgrade_desc *d, char *kinds, size_t kindslen)
{
	FILE   *f = tmpfile();
	char   *line = NULL;
	size_t  cap = 0, len;
	int     rc = 0;

	if (f == NULL) {
		check(0, "a scratch file for the description");
		return;
	}
	check(upgrade_record_write(f, src, part) == 0,
	    "the description is written");
	rewind(f);
	kinds[0] = '\0';
	while (rc == 0 && getline(&line, &cap, f) != -1) {
		len = strcspn(line, " \n");
		if (strlen(kinds) + len + 2 < kindslen)
			snprintf(kinds + strlen(kinds), kindslen -
			    strlen(kinds), " %.*s ", (int)len, line);
		rc = upgrade_record_read(line, d);
	}
	check(rc == 0, "each line makes sense to the reader");
	free(line);
	fclose(f);
}

static void
test_rules(const struct conf *cfg, const struct upgrade_desc *d)
{
	const struct rule *r, *o;
	size_t             i, j;
	int                same = 1;

	check(d->cfg.nrules == cfg->nrules && d->ls.nrules == ls.nrules &&
	    d->ls.nsock == ls.nsock && d->ls.nslots == ls.nsock &&
	    d->ls.mode == ls.mode, "set: two rules, three sockets, shared");
	check(memcmp(d->ls.fds, fds, sizeof(fds)) == 0,
	    "fd: each listening socket in its place, the holes kept");
	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		o = &d->cfg.rules[i];
		same &= o->protocol == r->protocol &&
		    o->connect_protocol == r->connect_protocol &&
		    o->ipv6_only == r->ipv6_only &&
		    o->listen_addr.len == r->listen_addr.len &&
		    memcmp(&o->listen_addr.ss, &r->listen_addr.ss,
		    r->listen_addr.len) == 0 &&
		    o->upstream.nbackends == r->upstream.nbackends;
		for (j = 0; same && j < r->upstream.nbackends; j++)
			same &= o->upstream.backends[j].id ==
			    r->upstream.backends[j].id &&
			    o->upstream.backends[j].addr.len ==
			    r->upstream.backends[j].addr.len &&
			    memcmp(&o->upstream.backends[j].addr.ss,
			    &r->upstream.backends[j].addr.ss,
			    r->upstream.backends[j].addr.len) == 0;
	}
	check(same, "rule, backend: protocol, address and backends of each");
	check(d->ls.stats_fd == 14 && d->cfg.stats_listen != NULL &&
	    d->cfg.stats_addr.len == cfg->stats_addr.len &&
	    memcmp(&d->cfg.stats_addr.ss, &cfg->stats_addr.ss,
	    cfg->stats_addr.len) == 0 && d->cfg.stats_path == NULL,
	    "stats: stats_listen's socket and address");
}

/* Whether w are workers[], field by field. */
static int
same_workers(const struct upgrade_worker *w)
{
	size_t i;

	for (i = 0; i < sizeof(workers) / sizeof(workers[0]); i++)
		if (w[i].pid != workers[i].pid ||
		    w[i].slot != workers[i].slot ||
		    w[i].gen != workers[i].gen ||
		    w[i].state != workers[i].state ||
		    w[i].accepting != workers[i].accepting ||
		    w[i].chan != workers[i].chan)
			return 0;
	return 1;
}

static void
test_image(const struct conf *cfg, const char *path)
{
	unsigned char       cells[2 * sizeof(struct health_cell)];
	struct stats_rule   life;
	struct upgrade_desc d;
	char                seen[1024], want[64];
	const char         *k;
	size_t              i;
	struct upgrade_source src = {
		.cfg = cfg, .config = path, .syntax = CONF_SYNTAX_LIBCONFIG,
		.gen = 3, .ls = &ls, .workers = workers, .nworkers = 3,
		.checker = 4199, .control_fd = 15,
		.control_path = "/run/ferryd/control sock",
		.cells = cells, .ncells = 2, .life = &life,
		.host_drain = true, .host_since = 1795000000,
		.covers = covers, .ncovers = 2, .clients = clients,
		.nclients = 2, .image = 16, .snapshot = 17, .argv = argv,
		.pid_fd = 18
	};

	for (i = 0; i < sizeof(cells); i++)
		cells[i] = (unsigned char)(i * 7 + 1);
	memset(&life, 0, sizeof(life));
	life.accepted = 123456789;
	life.bytes_out = 42;
	upgrade_desc_init(&d);
	round_trip(&src, UPGRADE_PART_IMAGE, &d, seen, sizeof(seen));
	check(streq(d.config, path) && d.syntax == CONF_SYNTAX_LIBCONFIG &&
	    d.gen == 3, "config, gen: the file, its syntax, the generation");
	test_rules(cfg, &d);
	check(d.nworkers == 3 && same_workers(d.workers),
	    "worker: pid, slot, generation, state, accepting, channel");
	check(d.checker == 4199, "checker: its pid");
	check(d.control_fd == 15 &&
	    streq(d.control_path, "/run/ferryd/control sock"),
	    "control: the socket and its file");
	check(d.ncells == 2 && !d.cells_broken &&
	    memcmp(d.cells, cells, sizeof(cells)) == 0,
	    "cell: the health table, byte for byte");
	check(d.has_life && memcmp(&d.life, &life, sizeof(life)) == 0,
	    "life: the totals");
	check(d.host_drain == 1 && d.host_since == 1795000000,
	    "host: drained, and since when");
	check(d.ncovers == 2 && d.covers[0] == -7 && d.covers[1] == 4321 &&
	    d.nclients == 2 && d.clients[0] == 41 && d.clients[1] == 42,
	    "covers, client: who waits for the answer");
	check(d.image == 16 && d.snapshot == 17 && d.pid_fd == 18 &&
	    d.stable == stats_table_fd() && d.stable != -1,
	    "image, snapshot, pidfile, stable: the descriptors");
	for (i = 0; argv[i] != NULL && i < d.nargv; i++)
		if (!streq(d.argv[i], argv[i]))
			break;
	check(d.nargv == 4 && argv[i] == NULL && d.argv[4] == NULL,
	    "arg: the old image's arguments, the empty one and spaces kept");
	check(d.failed[0] == '\0' && d.ngone == 0 && !d.checker_gone,
	    "no way-back record in the old image's part");
	for (i = 0; (k = upgrade_record_kind(i)) != NULL; i++) {
		snprintf(want, sizeof(want), " %s ", k);
		if (strcmp(k, "failed") == 0)
			break;	/* the way back's, below */
		check(strstr(seen, want) != NULL, "a %s record is written", k);
	}

	/* A new image that failed: why, and what it did meanwhile. */
	memset(&src, 0, sizeof(src));
	src.failed = "/usr/sbin/ferryd failed before it served: bad\nline";
	src.gone = gone;
	src.ngone = 2;
	src.checker_gone = true;
	src.answered = true;
	round_trip(&src, UPGRADE_PART_WAY_BACK, &d, seen, sizeof(seen));
	check(streq(d.failed, "/usr/sbin/ferryd failed before it served: bad"),
	    "failed: why, on one line");
	check(d.ngone == 2 && d.gone[0] == 4102 && d.gone[1] == 3907,
	    "gone: the workers it reaped");
	check(d.checker_gone && d.nclients == 0,
	    "checker-gone, answered: the checker killed, the clients told");
	check(strstr(seen, " config ") == NULL && strstr(seen, " failed ") &&
	    strstr(seen, " gone ") && strstr(seen, " checker-gone ") &&
	    strstr(seen, " answered "), "the way back writes its part only");
	upgrade_desc_free(&d);
}

/* Lines the reader does not know, or that make no sense. */
static void
test_refused(void)
{
	struct upgrade_desc d;
	char                unknown[] = "futurekind 1 2 3\n";
	char                early[] = "fd 0 0 9\n";
	char                set[] = "set 1 0 0\n";

	upgrade_desc_init(&d);
	check(upgrade_record_read(unknown, &d) == 0,
	    "a kind a newer image wrote is skipped");
	check(upgrade_record_read(early, &d) == -1,
	    "a socket before its set makes no sense");
	check(upgrade_record_read(set, &d) == -1,
	    "a set of no sockets makes no sense");
	upgrade_desc_free(&d);
}

int
main(void)
{
	struct conf *cfg;
	char         path[1024];

	make_tmpdir("test_upgrade_record");
	cfg = load_good("up.conf", text, path, sizeof(path),
	    "two rules, backends and stats_listen");
	if (cfg != NULL) {
		check(stats_table_new(cfg, NULL, 1) == 0,
		    "a counters table, for the srule and stable records");
		test_image(cfg, path);
		conf_free(cfg);
	}
	test_refused();
	remove_tmpdir();
	return test_summary();
}
