/*
 * test_stats.c - unit tests of the counters (stats.c, stats_hist.c):
 * every histogram bound is exact and inclusive (a value equal to a bound
 * lands in its bucket, one more in the next), powers of two are bounds,
 * quantiles and seconds are written exactly; and the shared tables keep
 * counters monotonic across a worker that dies and across reloads, with
 * a table read while its generation drains and folded once it is gone;
 * the whole life's totals keep what rules a reload removed counted;
 * histograms have rows only for the rules that ask (the others' go to
 * a sink nobody reads), and go on across a reload and its fold; and
 * the master's readers, fold, samples and upgrade skip a row, a map
 * entry that a worker wrote out of range into the table it maps, and do
 * not crash.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_shm.h"
#include "stats_int.h"
#include "testlib.h"

static void
test_buckets(void)
{
	uint64_t	b, prev = 0;
	unsigned	i, wrong = 0, pow2 = 0;

	for (i = 0; i < HIST_FINITE; i++) {
		b = hist_bound(i);
		if (b <= prev || hist_index(b) != i || hist_index(b + 1) !=
		    i + 1 || (prev > 0 && hist_index(prev + 1) != i))
			wrong++;
		if ((b & (b - 1)) == 0)
			pow2++;
		prev = b;
	}
	check(wrong == 0, "%u bounds rising, each inclusive: bound in its "
	    "bucket, bound + 1 in the next (%u wrong)", HIST_FINITE, wrong);
	check(pow2 == 37 && hist_bound(0) == 1 &&
	    hist_bound(HIST_FINITE - 1) == UINT64_C(1) << 36,
	    "every power of two from 1 us to 2^36 us is a bound (%u)", pow2);
	check(hist_index(0) == 0 && hist_index((UINT64_C(1) << 36) + 1) ==
	    HIST_FINITE && hist_index(UINT64_MAX) == HIST_FINITE,
	    "0 in the first bucket, past 2^36 us in +Inf");
	check(hist_bound(4) == 5 && hist_bound(7) == 8 && hist_bound(8) == 10 &&
	    hist_bound(11) == 16, "four buckets per power of two: 5 6 7 8, "
	    "10 12 14 16");
}

static void
test_quantiles(void)
{
	struct hist	h;
	char		buf[32];
	unsigned	i;

	memset(&h, 0, sizeof(h));
	check(hist_quantile(&h, 0.5) == 0 && hist_count(&h) == 0,
	    "an empty histogram has no quantile");
	for (i = 1; i <= 100; i++)
		hist_add(&h, i * 10);	/* 10 us .. 1000 us */
	check(hist_count(&h) == 100 && h.sum == 50500, "100 values, their "
	    "sum exact");
	check(hist_quantile(&h, 0.5) == 512 && hist_quantile(&h, 0.99) ==
	    1024 && hist_quantile(&h, 0.01) == 10, "p50 512 us, p99 1024 us, "
	    "p1 10 us (upper bounds of their buckets)");
	hist_add(&h, UINT64_C(1) << 40);
	check(hist_quantile(&h, 1.0) == UINT64_MAX, "a value past the last "
	    "bound is +Inf");
	hist_seconds(128, buf, sizeof(buf));
	check(strcmp(buf, "0.000128") == 0, "128 us is \"%s\"", buf);
	hist_seconds(UINT64_C(1) << 20, buf, sizeof(buf));
	check(strcmp(buf, "1.048576") == 0, "2^20 us is \"%s\"", buf);
	hist_seconds(3000000, buf, sizeof(buf));
	check(strcmp(buf, "3") == 0, "3 s is \"%s\"", buf);
	hist_seconds(1500, buf, sizeof(buf));
	check(strcmp(buf, "0.0015") == 0, "1500 us is \"%s\"", buf);
}

/* The total accepted of rule stat id 0 now. */
static uint64_t
accepted(void)
{
	struct stats_rule r;

	return stats_read_rule(0, &r) ? r.accepted : UINT64_MAX;
}

/* Every rule's accepted in the daemon's whole life (the last line's). */
static uint64_t
life(void)
{
	struct stats_rule r;

	stats_read_life(&r);
	return r.accepted;
}

static bool	gen_alive[8];

static bool
alive(unsigned gen, void *arg)
{
	(void)arg;
	return gen < 8 && gen_alive[gen];
}

static void
test_tables(void)
{
	struct conf		*a, *b, *c;
	char			 path[1024];
	struct stats_rule	 r;

	a = load_good("a.conf", "workers = 2;\nrules = (\n"
	    " { name = \"web\"; listen = \"127.0.0.1:18000\"; connect = "
	    "\"127.0.0.1:18081\"; },\n { listen = \"127.0.0.1:18001\"; "
	    "connect = \"127.0.0.1:18082\"; } );\n", path, sizeof(path),
	    "two rules");
	/* The next configuration has a rule before "web": ids move. */
	b = load_good("b.conf", "workers = 1;\nrules = (\n"
	    " { name = \"new\"; listen = \"127.0.0.1:18002\"; connect = "
	    "\"127.0.0.1:18083\"; },\n { name = \"web\"; listen = "
	    "\"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\"; } );\n",
	    path, sizeof(path), "web, after another rule");
	c = load_good("c.conf", "workers = 3;\nrules = (\n"
	    " { name = \"web\"; listen = \"127.0.0.1:18000\"; connect = "
	    "\"127.0.0.1:18081\"; } );\n", path, sizeof(path), "web alone");
	if (a == NULL || b == NULL || c == NULL)
		return;
	check(stats_table_new(a, NULL, 1) == 0, "a table for generation 1");
	gen_alive[1] = true;
	stats_worker_begin(a, 0);
	stats_rule(&a->rules[0])->accepted += 5;
	stats_rule(&a->rules[0])->active += 2;
	stats_worker_begin(a, 1);
	stats_rule(&a->rules[0])->accepted += 3;
	stats_rule(&a->rules[0])->active += 1;
	check(accepted() == 8, "two workers' columns summed: %llu",
	    (unsigned long long)accepted());
	/* The second rule, which the next reload removes. */
	stats_rule(&a->rules[1])->accepted += 7;
	/* Slot 1's worker dies: its count stays, its open one is closed. */
	stats_worker_gone(1, 1);
	(void)stats_read_rule(0, &r);
	check(r.accepted == 8 && r.active == 2 && r.closed == 1,
	    "a dead worker's counts stay (%llu); what it had open counts as "
	    "closed (%llu open, %llu closed)", (unsigned long long)r.accepted,
	    (unsigned long long)r.active, (unsigned long long)r.closed);
	/* A reload: web is rule 1 of b, its old counts still read. */
	check(stats_table_new(b, a, 2) == 0, "a table for generation 2");
	check(stats_superseded() == false, "the newest table is not "
	    "superseded");
	gen_alive[2] = true;
	stats_worker_begin(b, 0);
	stats_rule(&b->rules[1])->accepted += 10;
	(void)stats_read_rule(1, &r);
	check(r.accepted == 18, "while generation 1 drains, web reads its old "
	    "counts too: %llu", (unsigned long long)r.accepted);
	(void)stats_read_rule(0, &r);
	check(r.accepted == 0, "the new rule starts at 0: %llu",
	    (unsigned long long)r.accepted);
	/* ... and counts; the reload after this one removes it. */
	stats_rule(&b->rules[0])->accepted += 20;
	check(life() == 45, "the whole life: every rule of every table read "
	    "(%llu)", (unsigned long long)life());
	/* Another reload while generation 1 still drains. */
	check(stats_table_new(c, b, 3) == 0, "a table for generation 3");
	gen_alive[3] = true;
	stats_worker_begin(c, 2);
	stats_rule(&c->rules[0])->accepted += 100;
	check(accepted() == 118, "three generations read: %llu",
	    (unsigned long long)accepted());
	stats_settle(alive, NULL);
	check(accepted() == 118, "nothing folds while they live");
	/* Generation 2, in the middle, ends first. */
	stats_worker_gone(2, 0);
	gen_alive[2] = false;
	stats_settle(alive, NULL);
	check(accepted() == 118, "generation 2 folded into 3, which reads 1 "
	    "through it: %llu", (unsigned long long)accepted());
	check(life() == 145, "the rule generation 3 removed is retired, not "
	    "lost: %llu in the whole life", (unsigned long long)life());
	stats_worker_gone(1, 0);
	gen_alive[1] = false;
	stats_settle(alive, NULL);
	(void)stats_read_rule(0, &r);
	check(r.accepted == 118 && r.active == 0 && r.closed == 3,
	    "then generation 1: %llu accepted, %llu open, %llu closed",
	    (unsigned long long)r.accepted, (unsigned long long)r.active,
	    (unsigned long long)r.closed);
	check(life() == 145, "and so is the one generation 2 removed: %llu "
	    "in the whole life", (unsigned long long)life());
	check(stats_generation() == 3 && stats_slots() == 3,
	    "generation 3 with 3 slots");
	conf_free(a);
	conf_free(b);
	conf_free(c);
}

/* Rule stat id's connect histogram's count now, or -1 without one. */
static int64_t
connects(unsigned id)
{
	struct stats_rule_hist h;

	memset(&h, 0, sizeof(h));
	return stats_read_rule_hist(id, 0, 0, &h) ?
	    (int64_t)hist_count(&h.connect) : -1;
}

static void
test_hists(void)
{
	struct conf	*a, *b;
	char		 path[1024];

	a = load_good("h1.conf", "workers = 1;\nrules = (\n"
	    " { name = \"hot\"; listen = \"127.0.0.1:18000\"; connect = "
	    "\"127.0.0.1:18081\"; stats_histograms = true; },\n"
	    " { name = \"cold\"; listen = \"127.0.0.1:18001\"; connect = "
	    "\"127.0.0.1:18082\"; } );\n", path, sizeof(path),
	    "a rule with histograms, one without");
	/* The next one asks for every rule's; cold comes first. */
	b = load_good("h2.conf", "workers = 1;\nstats_histograms = true;\n"
	    "rules = (\n { name = \"cold\"; listen = \"127.0.0.1:18001\"; "
	    "connect = \"127.0.0.1:18082\"; },\n { name = \"hot\"; listen "
	    "= \"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\"; } );\n",
	    path, sizeof(path), "every rule's histograms");
	if (a == NULL || b == NULL)
		return;
	check(stats_table_new(a, NULL, 4) == 0, "a table for generation 4");
	gen_alive[4] = true;
	stats_worker_begin(a, 0);
	hist_add(&stats_rule_hist(&a->rules[0])->connect, 100);
	hist_add(&stats_rule_hist(&a->rules[0])->connect, 200);
	check(stats_rule_hist(&a->rules[1]) == &stats_sink_rule_hist &&
	    stats_backend_hist(&a->rules[1].upstream.backends[0]) ==
	    &stats_sink_backend_hist, "cold's histograms go to the sinks");
	check(connects(0) == 2 && connects(1) == -1, "hot has its 2 "
	    "connects (%lld), cold no histogram (%lld)",
	    (long long)connects(0), (long long)connects(1));
	check(stats_table_new(b, a, 5) == 0, "a table for generation 5");
	gen_alive[5] = true;
	stats_worker_begin(b, 0);
	hist_add(&stats_rule_hist(&b->rules[1])->connect, 300);
	hist_add(&stats_rule_hist(&b->rules[0])->connect, 300);
	check(connects(1) == 3 && connects(0) == 1, "after the reload hot "
	    "reads its old connects too (%lld), cold has its row (%lld)",
	    (long long)connects(1), (long long)connects(0));
	stats_worker_gone(4, 0);
	gen_alive[4] = false;
	stats_settle(alive, NULL);
	check(connects(1) == 3 && connects(0) == 1, "and once folded: "
	    "%lld, %lld", (long long)connects(1), (long long)connects(0));
	conf_free(a);
	conf_free(b);
}

/* Shared memory whose holes a reader skips: what it reads, what it sees. */
static void
test_shm(void)
{
	struct shm		*m = shm_new(256 * 4096 + 1, "test_stats");
	volatile uint64_t	*w, *sum;
	size_t			 per, i, n;

	if (m == NULL) {
		check(false, "a shared mapping: %s", strerror(errno));
		return;
	}
	per = ((size_t)1 << m->shift) / sizeof(uint64_t);
	w = (volatile uint64_t *)(void *)m->base;
	check(m->size >= 256 * 4096 + 1 && m->size % 4096 == 0,
	    "%zu bytes mapped, whole pages", m->size);
	w[10 * per + 3] = 7;
	w[11 * per] = 5;
	check(shm_written(m, &w[10 * per]) && shm_word(m, &w[10 * per + 3]) == 7,
	    "a page written reads as written");
	if (m->fd == -1) {
		check(shm_written(m, &w[50 * per]), "no memfd here: every page "
		    "is taken as written");
		shm_free(m);
		return;
	}
	check(!shm_written(m, &w[0]) && !shm_written(m, &w[50 * per]) &&
	    !shm_written(m, &w[m->pages * per - 1]),
	    "pages before, between and after the written ones are holes");
	/* Across the end of a hole, two written pages and another hole. */
	n = 3 * per;
	if ((sum = calloc(n, sizeof(*sum))) == NULL) {
		shm_free(m);
		return;
	}
	shm_add_words(m, sum, &w[9 * per + per / 2], n);
	check(sum[per / 2 + 3] == 7 && sum[per / 2 + per] == 5,
	    "words added across pages: %llu, %llu",
	    (unsigned long long)sum[per / 2 + 3],
	    (unsigned long long)sum[per / 2 + per]);
	for (i = 0; i < n; i++)
		if (sum[i] != 0 && i != per / 2 + 3 && i != per / 2 + per)
			break;
	check(i == n, "and the rest are zeros");
	free((void *)sum);
	/* Page 50 is known as a hole until the holes are forgotten. */
	w[50 * per] = 9;
	check(shm_word(m, &w[50 * per]) == 0, "a hole written since is read "
	    "as it was");
	shm_forget_holes(m);
	check(shm_word(m, &w[50 * per]) == 9 && !shm_written(m, &w[49 * per]),
	    "until the holes are forgotten: then 9, the page before a hole");
	shm_free(m);
}

/*
 * What a worker could write into the table it maps read-write: rows of
 * histograms and maps out of range, in t.
 */
static void
spoil(struct stats_table *t)
{
	t->rule_hist_row[0] = 50000000;
	t->backend_hist_row[0] = INT32_MAX;
	t->rule_map[0] = 50000000;
	t->backend_map[0] = INT32_MAX;
	t->rule_hist_map[0] = 50000000;
	t->backend_hist_map[0] = INT32_MAX;
	t->ring_next = 50000000;
}

/* The master reads, folds and adopts tables whose rows a worker spoilt. */
static void
test_spoilt(void)
{
	struct conf		*a;
	char			 path[1024];
	union stats_record	 rec;
	struct stats_rule	 r;
	struct stats_records	 own[STATS_KINDS];
	void			*recs[STATS_KINDS];
	unsigned		 k;
	bool			 adopted, read;

	a = load_good("s.conf", "workers = 1;\nstats_histograms = true;\n"
	    "rules = (\n { name = \"hot\"; listen = \"127.0.0.1:18000\"; "
	    "connect = \"127.0.0.1:18081\"; } );\n", path, sizeof(path),
	    "a rule with histograms");
	if (a == NULL)
		return;
	check(stats_table_new(a, NULL, 6) == 0, "a table for generation 6");
	gen_alive[6] = true;
	stats_worker_begin(a, 0);
	stats_rule(&a->rules[0])->accepted += 4;
	check(stats_table_new(a, a, 7) == 0, "a table for generation 7");
	gen_alive[7] = true;
	stats_worker_begin(a, 0);
	/* The upgrade's new image maps this table before it is spoilt. */
	adopted = stats_table_fd() != -1 && stats_adopt(stats_table_fd()) == 0;
	spoil(stats_table_current());
	check(!stats_read_rule_hist(0, 0, 0, &rec.rh) &&
	    !stats_read_own(STATS_RULE_HISTS, 0, &rec, false) &&
	    !stats_read(STATS_BACKEND_HISTS, 0, &rec),
	    "histograms of a row out of range are not read");
	read = stats_read_rule(0, &r);
	check(read && r.accepted == 0, "a map entry out of range reads "
	    "nothing of the table before: %llu", (unsigned long long)r.accepted);
	(void)stats_read_backend(0, &rec.b);
	stats_read_life(&r);
	stats_sample(1000);
	stats_sample(2000);
	check(stats_table_current()->ring_next < STATS_RING, "the master's "
	    "samples for rates are written in the ring, whatever its next");
	gen_alive[6] = false;
	stats_settle(alive, NULL);
	check(stats_read_rule(0, &r), "the table before folded past the "
	    "spoilt maps");
	if (!adopted) {
		check(stats_table_fd() == -1, "its table mapped again: %s",
		    strerror(errno));
		conf_free(a);
		return;
	}
	check(!stats_read_own(STATS_RULE_HISTS, 0, &rec, true),
	    "nor by the upgrade's new image, in the table it adopted");
	/* The end of the upgrade, with a record of each kind to add. */
	for (k = 0; k < STATS_KINDS; k++) {
		recs[k] = calloc(1, sizeof(union stats_record));
		own[k].by_id = &recs[k];
		own[k].n = recs[k] != NULL;
	}
	stats_carried();
	stats_adopt_end(a, a, own);
	check(true, "the upgrade ended without writing out of the table");
	for (k = 0; k < STATS_KINDS; k++)
		free(recs[k]);
	/* Spoilt once more, now in what an upgrade reads of it. */
	spoil(stats_table_current());
	check(stats_adopt(stats_table_fd()) == -1 && errno == EPROTO,
	    "a table whose rows are out of range is not adopted");
	conf_free(a);
}

int
main(void)
{
	make_tmpdir("test_stats");
	test_buckets();
	test_quantiles();
	test_shm();
	test_tables();
	test_hists();
	test_spoilt();
	remove_tmpdir();
	return test_summary();
}
