/*
 * test_balance.c - unit tests of several backends per rule: the connect
 * list and its errors; smooth weighted round robin (nginx's sequence,
 * exact shares); least connections and two random choices by weight;
 * Maglev hashing (stable, shares by weight, removing a backend moves
 * almost only its clients, the same on every build); backups only while
 * no primary is up; passive health (max_fails within fail_timeout, one
 * trial); max_connections; backends a connection tried are skipped;
 * a drained backend is the last resort, a disabled one never.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance.h"
#include "conf.h"
#include "health.h"
#include "maglev.h"
#include "testlib.h"

static char path[1024];

static struct conf *
load(const char *text, const char *desc)
{
	struct conf	*cfg = load_good("balance.conf", text, path,
	    sizeof(path), desc);

	if (cfg == NULL)
		exit(1);
	if (health_table_new(cfg, NULL) == -1) {
		perror("health_table_new");
		exit(2);
	}
	balance_init(cfg->rules, cfg->nrules);
	return cfg;
}

/* Index of a pick in its upstream, or -1 for none. */
static int
pick(const struct rule *r, const struct sockaddr *client, uint64_t tried,
    int64_t now)
{
	const struct backend	*b;
	bool			 trial;

	b = balance_pick(r, client, tried, now, &trial);
	return b == NULL ? -1 : (int)(b - r->upstream.backends);
}

static void
client_v4(struct sockaddr_in *sin, uint32_t n)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0x0a000000u + n);	/* 10.0.0.0/8 */
}

static void
test_config(void)
{
	static const struct bad_case bad[] = {
		{ "empty connect list", "rules = ({ listen = \"127.0.0.1:1\"; "
		    "connect = (); });", 1, "empty list" },
		{ "a number in the list", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = ( \"127.0.0.1:2\", 5 ); });", 2, "strings or groups" },
		{ "weight 0", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = ( { address = \"127.0.0.1:2\";\n weight = 0; } ); });",
		    3, "weight" },
		{ "weight 257", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = ( { address = \"127.0.0.1:2\"; weight = 257; } ); });",
		    2, "weight" },
		{ "a misspelt key", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = ( { address = \"127.0.0.1:2\"; wieght = 2; } ); });",
		    2, "did you mean \"weight\"" },
		{ "a rule's key in a group", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = ( { address = \"127.0.0.1:2\";\n balance = \"hash\"; } ); });",
		    3, "only be set inside a rule" },
		{ "a group without address", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = ( \"127.0.0.1:3\",\n { weight = 2; } ); });",
		    3, "address" },
		{ "an address twice", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = ( \"127.0.0.1:3\",\n \"127.0.0.1:3\" ); });",
		    3, "already in the list" },
		{ "an address that does not resolve", "rules = ({ listen = "
		    "\"127.0.0.1:1\";\nconnect = ( \"127.0.0.1:3\",\n"
		    " \"127.0.0.1:x-no-such-port\" ); });", 3, "connect" },
		{ "an unknown balance", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = \"127.0.0.1:2\";\n balance = \"fastest\"; });",
		    3, "round-robin" },
		{ "max_fails too large", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = ( { address = \"127.0.0.1:2\"; max_fails = 1001; } );"
		    " });", 2, "max_fails" },
		{ "health_check not a group", "health_check = 2;\n"
		    "rules = ({ listen = \"127.0.0.1:1\"; connect = \"127.0.0.1:2\"; });",
		    1, "must be a group" },
		{ "a check interval too short", "rules = ({ listen = \"127.0.0.1:1\";\n"
		    "connect = \"127.0.0.1:2\";\n health_check = { interval = 0.01; }; });",
		    3, "interval" },
		{ "an unknown check setting", "health_check = {\n intervall = 1; };\n"
		    "rules = ({ listen = \"127.0.0.1:1\"; connect = \"127.0.0.1:2\"; });",
		    2, "did you mean \"interval\"" },
		{ "rise 0", "health_check = { rise = 0; };\n"
		    "rules = ({ listen = \"127.0.0.1:1\"; connect = \"127.0.0.1:2\"; });",
		    1, "rise" },
	};
	struct conf		*cfg;
	const struct upstream	*u;

	check_bad_cases(bad, sizeof(bad) / sizeof(bad[0]), "bad-balance",
	    conf_load);
	cfg = load("rules = ({ listen = \"127.0.0.1:1\"; connect = ( "
	    "\"127.0.0.1:2\", { address = \"127.0.0.1:3\"; weight = 3; "
	    "max_fails = 0; max_connections = 9; }, { address = "
	    "\"127.0.0.1:4\"; backup = true; fail_timeout = 2.5; } ); "
	    "balance = \"least-connections\"; });", "a connect list");
	u = &cfg->rules[0].upstream;
	check(u->nbackends == 3 && u->balance == BALANCE_LEAST_CONNECTIONS &&
	    u->has_backup && cfg->nbackends == 3,
	    "three backends, least-connections, with a backup");
	check(u->backends[0].weight == 1 && u->backends[0].max_fails == 1 &&
	    u->backends[0].fail_timeout == 10000 &&
	    u->backends[0].max_connections == 0 && !u->backends[0].backup,
	    "a plain string item has the defaults");
	check(u->backends[1].weight == 3 && u->backends[1].max_fails == 0 &&
	    u->backends[1].max_connections == 9 &&
	    u->backends[2].backup && u->backends[2].fail_timeout == 2500,
	    "a group's settings are kept");
	check(strcmp(cfg->rules[0].connect, "127.0.0.1:2, 127.0.0.1:3, "
	    "127.0.0.1:4") == 0, "the list is named by its addresses: %s",
	    cfg->rules[0].connect);
	check(u->backends[0].id == 0 && u->backends[2].id == 2,
	    "backends are numbered");
	check(!cfg->rules[0].health_check.enabled, "no health_check: none");
	conf_free(cfg);
	cfg = load("health_check = { interval = 5; send = \"a\\r\\n\"; };\n"
	    "rules = ({ listen = \"127.0.0.1:1\"; connect = \"127.0.0.1:2\"; },"
	    " { listen = \"127.0.0.1:3\"; connect = \"127.0.0.1:2\"; "
	    "health_check = { fall = 5; expect = \"ok\"; }; });",
	    "a top-level health_check and a rule's own");
	check(cfg->rules[0].health_check.enabled &&
	    cfg->rules[0].health_check.interval == 5000 &&
	    cfg->rules[0].health_check.timeout == 1000 &&
	    cfg->rules[0].health_check.rise == 2 &&
	    cfg->rules[0].health_check.fall == 3 &&
	    strcmp(cfg->rules[0].health_check.send, "a\r\n") == 0,
	    "a rule without its own takes the top level's, with defaults");
	check(cfg->rules[1].health_check.interval == 2000 &&
	    cfg->rules[1].health_check.fall == 5 &&
	    cfg->rules[1].health_check.send[0] == '\0' &&
	    strcmp(cfg->rules[1].health_check.expect, "ok") == 0,
	    "a rule's own replaces the top level's");
	conf_free(cfg);
}

static void
test_round_robin(void)
{
	struct conf		*cfg;
	const struct rule	*r;
	char			 seq[8];
	int			 n[3] = { 0, 0, 0 }, i;

	cfg = load("rules = ({ listen = \"127.0.0.1:1\"; connect = ( "
	    "{ address = \"127.0.0.1:2\"; weight = 5; }, \"127.0.0.1:3\", "
	    "\"127.0.0.1:4\" ); });", "weights 5/1/1");
	r = &cfg->rules[0];
	for (i = 0; i < 7; i++)
		seq[i] = (char)('a' + pick(r, NULL, 0, 0));
	seq[7] = '\0';
	check(strcmp(seq, "aabacaa") == 0, "smooth: nginx's sequence %s",
	    seq);
	conf_free(cfg);

	cfg = load("rules = ({ listen = \"127.0.0.1:1\"; connect = ( "
	    "\"127.0.0.1:2\", \"127.0.0.1:3\", { address = \"127.0.0.1:4\"; "
	    "weight = 2; } ); });", "weights 1/1/2");
	for (i = 0; i < 4000; i++)
		n[pick(&cfg->rules[0], NULL, 0, 0)]++;
	check(n[0] == 1000 && n[1] == 1000 && n[2] == 2000,
	    "4000 picks by weights 1/1/2: %d/%d/%d", n[0], n[1], n[2]);
	check(pick(&cfg->rules[0], NULL, BALANCE_TRIED(0) | BALANCE_TRIED(2),
	    0) == 1, "backends already tried are skipped");
	check(pick(&cfg->rules[0], NULL, 7, 0) == -1,
	    "all tried: none left");
	conf_free(cfg);
}

static void
test_least_connections(void)
{
	struct conf		*cfg;
	const struct rule	*r;
	const struct backend	*b;
	bool			 trial;
	int			 i, k;

	cfg = load("rules = ({ listen = \"127.0.0.1:1\"; connect = ( "
	    "\"127.0.0.1:2\", \"127.0.0.1:3\", { address = \"127.0.0.1:4\"; "
	    "weight = 2; } ); balance = \"least-connections\"; });",
	    "least-connections, weights 1/1/2");
	r = &cfg->rules[0];
	for (i = 0; i < 400; i++) {
		b = balance_pick(r, NULL, 0, 0, &trial);
		balance_acquire(b);
	}
	check(balance_active(&r->upstream.backends[0]) == 100 &&
	    balance_active(&r->upstream.backends[1]) == 100 &&
	    balance_active(&r->upstream.backends[2]) == 200,
	    "open connections follow the weights: %d/%d/%d",
	    balance_active(&r->upstream.backends[0]),
	    balance_active(&r->upstream.backends[1]),
	    balance_active(&r->upstream.backends[2]));
	/* Close 50 on the first: the next 50 go there. */
	for (i = 0; i < 50; i++)
		balance_release(&r->upstream.backends[0]);
	for (i = 0, k = 0; i < 50; i++) {
		b = balance_pick(r, NULL, 0, 0, &trial);
		balance_acquire(b);
		k += b == &r->upstream.backends[0];
	}
	check(k == 50, "new connections fill the emptied backend (%d of 50)",
	    k);
	conf_free(cfg);

	cfg = load("rules = ({ listen = \"127.0.0.1:1\"; connect = ( "
	    "\"127.0.0.1:2\", \"127.0.0.1:3\", \"127.0.0.1:4\" ); "
	    "balance = \"random\"; });", "random");
	r = &cfg->rules[0];
	for (i = 0; i < 3000; i++) {
		b = balance_pick(r, NULL, 0, 0, &trial);
		balance_acquire(b);
	}
	for (i = 0, k = 0; i < 3; i++)
		if (abs(balance_active(&r->upstream.backends[i]) - 1000) > 30)
			k++;
	check(k == 0, "two random choices keep 3000 open within 3%%: "
	    "%d/%d/%d", balance_active(&r->upstream.backends[0]),
	    balance_active(&r->upstream.backends[1]),
	    balance_active(&r->upstream.backends[2]));
	conf_free(cfg);
}

#define CLIENTS	20000

static void
test_hash(void)
{
	static const char *five = "rules = ({ listen = \"127.0.0.1:1\"; "
	    "balance = \"hash\"; connect = ( \"10.1.0.1:80\", \"10.1.0.2:80\", "
	    "\"10.1.0.3:80\", \"10.1.0.4:80\", \"10.1.0.5:80\" ); });";
	static const char *four = "rules = ({ listen = \"127.0.0.1:1\"; "
	    "balance = \"hash\"; connect = ( \"10.1.0.1:80\", \"10.1.0.2:80\", "
	    "\"10.1.0.4:80\", \"10.1.0.5:80\" ); });";
	static const int was_index[] = { 0, 1, 3, 4 };	/* four's in five */
	static int	 before[CLIENTS];
	struct conf	*cfg;
	struct sockaddr_in sin;
	int		 n[5] = { 0 }, i, moved = 0, lost = 0, again = 0, after;

	cfg = load(five, "hash over five backends");
	for (i = 0; i < CLIENTS; i++) {
		client_v4(&sin, (uint32_t)i * 7919u);
		before[i] = pick(&cfg->rules[0], (void *)&sin, 0, 0);
		n[before[i]]++;
		again += pick(&cfg->rules[0], (void *)&sin, 0, 0) != before[i];
	}
	check(again == 0, "a client always gets the same backend");
	for (i = 0; i < 5; i++)
		if (abs(n[i] - CLIENTS / 5) > CLIENTS / 50)
			break;
	check(i == 5, "each of five has a fifth of the clients, within 2%%: "
	    "%d %d %d %d %d", n[0], n[1], n[2], n[3], n[4]);
	check(cfg->rules[0].upstream.maglev[0] == 0 &&
	    cfg->rules[0].upstream.maglev[1] == 3 &&
	    cfg->rules[0].upstream.maglev[MAGLEV_SIZE - 1] == 3,
	    "the table is the same on every host and build (%u %u %u)",
	    cfg->rules[0].upstream.maglev[0], cfg->rules[0].upstream.maglev[1],
	    cfg->rules[0].upstream.maglev[MAGLEV_SIZE - 1]);
	conf_free(cfg);

	cfg = load(four, "the same list less its third");
	for (i = 0; i < CLIENTS; i++) {
		client_v4(&sin, (uint32_t)i * 7919u);
		after = was_index[pick(&cfg->rules[0], (void *)&sin, 0, 0)];
		if (before[i] == 2)
			lost++;
		else if (after != before[i])
			moved++;
	}
	check(moved <= CLIENTS / 50, "removing one of five moves %d of the "
	    "other backends' clients (at most 2%% of %d) and its own %d",
	    moved, CLIENTS, lost);
	conf_free(cfg);
}

static void
test_health_and_backup(void)
{
	struct conf		*cfg;
	const struct rule	*r;
	const struct backend	*a, *b, *c;
	bool			 trial;
	int			 i, k;

	cfg = load("rules = ({ listen = \"127.0.0.1:1\"; connect = ( "
	    "{ address = \"127.0.0.1:2\"; max_fails = 2; fail_timeout = 5; },"
	    " { address = \"127.0.0.1:3\"; max_connections = 1; },"
	    " { address = \"127.0.0.1:4\"; backup = true; } ); });",
	    "primaries with limits, a backup");
	r = &cfg->rules[0];
	a = &r->upstream.backends[0];
	b = &r->upstream.backends[1];
	c = &r->upstream.backends[2];
	for (i = 0, k = 0; i < 100; i++)
		k += pick(r, NULL, 0, 1000) == 2;
	check(k == 0, "the backup takes nothing while primaries are up");
	health_failed(r, a, ECONNREFUSED, false, 1000);
	check(health_state(a, 1000) == HEALTH_UP, "one failure of two: up");
	health_failed(r, a, ECONNREFUSED, false, 7000);
	check(health_state(a, 7000) == HEALTH_UP,
	    "the next one after fail_timeout starts the count anew");
	health_succeeded(r, a, false);
	health_failed(r, a, ECONNREFUSED, false, 8000);
	check(health_state(a, 8000) == HEALTH_DOWN,
	    "max_fails within fail_timeout, a success between: down");
	balance_acquire(b);
	check(pick(r, NULL, 0, 9000) == 2,
	    "a primary down, the other at max_connections: the backup");
	balance_release(b);
	check(pick(r, NULL, 0, 9000) == 1, "room again: the primary");
	check(health_state(a, 13000) == HEALTH_TRIAL,
	    "fail_timeout over: a trial is due");
	check(health_claim_trial(a, 13000) && !health_claim_trial(a, 13000),
	    "one trial, claimed once");
	check(health_state(a, 13001) == HEALTH_DOWN,
	    "down while the trial is out");
	health_succeeded(r, a, true);
	check(health_state(a, 13002) == HEALTH_UP, "a trial that works: up");
	/* b down (max_fails 1) and a down: the backup. */
	health_failed(r, b, ETIMEDOUT, false, 20000);
	health_failed(r, a, ECONNREFUSED, false, 20000);
	health_failed(r, a, ECONNREFUSED, false, 20000);
	check(pick(r, NULL, 0, 20001) == 2, "every primary down: the backup");
	health_failed(r, c, ECONNREFUSED, false, 20000);
	k = pick(r, NULL, 0, 20001);
	check(k == 0 || k == 1, "all down: a primary is tried anyway (%d)",
	    k);
	(void)balance_pick(r, NULL, 0, 26000, &trial);
	check(trial, "once fail_timeout is over, a pick is a trial");
	conf_free(cfg);
}

/* The operator's states: drained is the last resort, disabled never. */
static void
test_admin(void)
{
	struct conf		*cfg;
	const struct rule	*r;
	const struct backend	*a, *b, *c;
	int			 i, k;

	cfg = load("rules = ({ listen = \"127.0.0.1:1\"; connect = ( "
	    "\"127.0.0.1:2\", \"127.0.0.1:3\","
	    " { address = \"127.0.0.1:4\"; backup = true; } ); });",
	    "two primaries and a backup");
	r = &cfg->rules[0];
	a = &r->upstream.backends[0];
	b = &r->upstream.backends[1];
	c = &r->upstream.backends[2];
	health_cell(a->id)->admin = HEALTH_DRAIN;
	for (i = 0, k = 0; i < 100; i++)
		k += pick(r, NULL, 0, 1000) == 1;
	check(k == 100, "a drained: b takes every new connection (%d)", k);
	health_failed(r, b, ECONNREFUSED, false, 1000);
	check(pick(r, NULL, 0, 1001) == 2,
	    "a drained, b down: the backup before the drained one");
	health_failed(r, c, ECONNREFUSED, false, 1000);
	check(pick(r, NULL, 0, 1001) == 0,
	    "nothing else up: the drained one, as the last resort");
	check(pick(r, NULL, BALANCE_TRIED(0), 1001) == 1,
	    "the drained one tried: those that are down");
	health_failed(r, a, ECONNREFUSED, false, 1000);
	k = pick(r, NULL, 0, 1001);
	check(k >= 0, "all down: one of them is tried anyway (%d)", k);
	health_cell(a->id)->admin = HEALTH_DISABLED;
	for (i = 0, k = 0; i < 100; i++)
		k += pick(r, NULL, 0, 1001) == 0;
	check(k == 0, "disabled: never, not even with all down");
	check(pick(r, NULL, BALANCE_TRIED(1) | BALANCE_TRIED(2), 1001) == -1,
	    "disabled and the rest tried: none");
	conf_free(cfg);
}

int
main(void)
{
	make_tmpdir("test_balance");
	test_config();
	test_round_robin();
	test_least_connections();
	test_hash();
	test_health_and_backup();
	test_admin();
	remove_tmpdir();
	return test_summary();
}
