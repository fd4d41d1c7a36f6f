/*
 * test_client_limit.c - unit tests of the tables behind
 * max_connections_per_client and connection_rate (client_limit.c): a
 * client's connections are summed over every live worker's table, a
 * worker reaped takes its counts with it, a rule is known by its name,
 * the rate is a sliding second, and a full table lets clients in
 * uncounted.  One process plays every worker by switching tables, as
 * the master's fork would leave them.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "client_limit.h"
#include "testlib.h"

/* A rule named name with the two limits. */
static void
rule_make(struct rule *r, const char *name, int max, int rate)
{
	static char	listen[] = "127.0.0.1:80";
	uint64_t	h = 0xcbf29ce484222325ULL;
	const char	*p;

	memset(r, 0, sizeof(*r));
	r->listen = listen;
	r->name = (char *)name;
	r->name_given = true;
	r->max_connections_per_client = max;
	r->connection_rate = rate;
	for (p = name; *p != '\0'; p++)		/* as conf_rule.c does */
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	r->client_key = h;
}

/* 127.0.0.0/8 address n (IPv4), or ::ffff: of it (mapped). */
static struct sockaddr_any
client(unsigned n, bool mapped)
{
	struct sockaddr_any	 a;
	struct sockaddr_in	*s4 = (struct sockaddr_in *)&a.ss;
	struct sockaddr_in6	*s6 = (struct sockaddr_in6 *)&a.ss;
	uint32_t		 ip = htonl(0x7f000000u | (n & 0xffffff));

	memset(&a, 0, sizeof(a));
	if (mapped) {
		s6->sin6_family = AF_INET6;
		s6->sin6_addr.s6_addr[10] = s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&s6->sin6_addr.s6_addr[12], &ip, 4);
		a.len = sizeof(*s6);
	} else {
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = ip;
		a.len = sizeof(*s4);
	}
	return a;
}

static unsigned
open_of(const struct rule *r, const struct sockaddr_any *a, int64_t now)
{
	unsigned seen;

	return client_limit_check(r, a, now, &seen) == CLIENT_OVER_MAX ?
	    seen : 0;
}

static void
test_per_client(void)
{
	struct rule		 web, again;
	struct sockaddr_any	 a = client(2, false), b = client(3, false);
	struct sockaddr_any	 a6 = client(2, true);
	enum client_verdict	 v;
	int			 h0[3], hb, h, i;
	unsigned		 seen;
	int64_t			 now = 50000;

	rule_make(&web, "web", 3, 0);
	client_limit_table_start(0);
	client_limit_table_start(1);
	client_limit_worker_begin(0);
	check(client_limit_check(&web, &a, now, &seen) == CLIENT_ADMIT &&
	    seen == 0, "a new client is admitted");
	for (i = 0; i < 2; i++)
		h0[i] = client_limit_hold(&web, &a, now);
	client_limit_worker_begin(1);
	h0[2] = client_limit_hold(&web, &a6, now);
	check(h0[0] >= 0 && h0[1] == h0[0] && h0[2] >= 0,
	    "holds: one entry per pair in each worker's table");
	v = client_limit_check(&web, &a, now, &seen);
	check(v == CLIENT_OVER_MAX && seen == 3,
	    "3 open over two workers: the 4th is refused (%u open)", seen);
	check(client_limit_check(&web, &b, now, &seen) == CLIENT_ADMIT,
	    "... while another client is admitted");
	hb = client_limit_hold(&web, &b, now);
	client_limit_release(h0[2]);
	check(open_of(&web, &a, now) == 0,
	    "one closed: the client is under its limit again");
	h0[2] = client_limit_hold(&web, &a, now);

	rule_make(&again, "web", 3, 0);
	again.listen = (char *)"127.0.0.1:81";
	check(open_of(&again, &a, now) == 3,
	    "a reloaded rule of the same name sees the same counts");
	rule_make(&again, "web2", 3, 0);
	check(open_of(&again, &a, now) == 0, "... another name does not");

	/* Worker 0 is SIGKILLed and reaped: its two are gone. */
	client_limit_table_gone(0);
	check(client_limit_check(&web, &a, now, &seen) == CLIENT_ADMIT,
	    "a reaped worker's connections no longer count");
	client_limit_table_start(0);
	client_limit_worker_begin(0);
	h = client_limit_hold(&web, &a, now);
	check(h >= 0 && open_of(&web, &b, now) == 0 &&
	    client_limit_check(&web, &a, now, &seen) == CLIENT_ADMIT,
	    "its cell's next worker starts from an empty table");
	client_limit_release(h);
	client_limit_worker_begin(1);
	client_limit_release(h0[2]);
	client_limit_release(hb);
	check(client_limit_check(&web, &a, now, &seen) == CLIENT_ADMIT &&
	    client_limit_check(&web, &b, now, &seen) == CLIENT_ADMIT,
	    "all closed: nothing counted");
	client_limit_release(-1);	/* nothing held: nothing happens */
	client_limit_table_gone(0);
	client_limit_table_gone(1);
}

static void
test_rate(void)
{
	struct rule		 burst, plain;
	struct sockaddr_any	 a = client(4, false), b = client(5, false);
	enum client_verdict	 v;
	unsigned		 seen, admitted = 0, refused = 0;
	int64_t			 t;
	int			 i;

	rule_make(&burst, "burst", 0, 5);
	client_limit_table_start(2);
	client_limit_table_start(3);
	/* Two workers take turns with one client's flood. */
	for (t = 100000, i = 0; t < 103000; t += 10, i++) {
		client_limit_worker_begin(2 + i % 2);
		if (client_limit_check(&burst, &a, t, &seen) == CLIENT_ADMIT) {
			client_limit_release(client_limit_hold(&burst, &a, t));
			admitted++;
		} else
			refused++;
	}
	check(admitted >= 10 && admitted <= 5 * 4,
	    "300 connections over 3 s at connection_rate 5: %u admitted "
	    "(at most 5 per second the window spans), %u refused", admitted,
	    refused);
	check(client_limit_check(&burst, &b, 102990, &seen) == CLIENT_ADMIT,
	    "another client is not limited by the first one's rate");
	v = client_limit_check(&burst, &a, 102999, &seen);
	check(v == CLIENT_OVER_RATE && seen >= 5 && seen <= 10,
	    "the flooding client is over its rate (%u in the last second)",
	    seen);
	check(client_limit_check(&burst, &a, 105000, &seen) == CLIENT_ADMIT,
	    "two quiet seconds later it is admitted again");
	rule_make(&plain, "plain", 0, 0);
	check(!client_limited(&plain) && client_limit_hold(&plain, &a,
	    100000) == -1, "a rule without limits counts nothing");
	client_limit_table_gone(2);
	client_limit_table_gone(3);
}

/*
 * The window slides: the last second counts for the part of it the
 * window still covers.  A fixed window would admit the third below.
 */
static void
test_sliding(void)
{
	struct rule		 r;
	struct sockaddr_any	 a = client(7, false);
	enum client_verdict	 v;
	unsigned		 seen;
	int			 i;

	rule_make(&r, "sliding", 0, 5);
	client_limit_table_start(5);
	client_limit_table_start(6);
	client_limit_worker_begin(5);
	for (i = 0; i < 5; i++)		/* 5 in second 110 */
		client_limit_release(client_limit_hold(&r, &a, 110000 + i));
	for (i = 0; i < 2; i++)		/* 2 in the first half of 111 */
		client_limit_release(client_limit_hold(&r, &a, 111400 + i));
	check(client_limit_check(&r, &a, 111500, &seen) == CLIENT_ADMIT,
	    "at 111.5 s: 2 + 5/2 started in the last second, under 5");
	client_limit_release(client_limit_hold(&r, &a, 111500));
	v = client_limit_check(&r, &a, 111500, &seen);
	check(v == CLIENT_OVER_RATE && seen == 6,
	    "one more: 3 + 5/2, over 5 (said as %u)", seen);
	check(client_limit_check(&r, &a, 112999, &seen) == CLIENT_ADMIT,
	    "at 112.999 s only the 3 of second 111, a thousandth of them");
	/* Another worker's clock already in the next second. */
	client_limit_worker_begin(6);
	for (i = 0; i < 5; i++)
		client_limit_release(client_limit_hold(&r, &a, 121000));
	check(client_limit_check(&r, &a, 120999, &seen) == CLIENT_OVER_RATE,
	    "a worker whose clock is a millisecond ahead is counted");
	client_limit_table_gone(5);
	client_limit_table_gone(6);
}

static void
test_full(void)
{
	struct rule		 web;
	struct sockaddr_any	 a;
	unsigned		 seen, n, counted = 0, uncounted = 0;
	int			 holds[CLIENT_LIMIT_ENTRIES * 2], h;
	int64_t			 now = 200000;

	rule_make(&web, "full", 1, 0);
	client_limit_table_start(4);
	client_limit_worker_begin(4);
	for (n = 0; n < CLIENT_LIMIT_ENTRIES * 2; n++) {
		a = client(n + 10, false);
		holds[n] = client_limit_hold(&web, &a, now);
		if (holds[n] >= 0)
			counted++;
		else
			uncounted++;
	}
	check(counted >= CLIENT_LIMIT_ENTRIES * 3 / 4 &&
	    counted <= CLIENT_LIMIT_ENTRIES && uncounted > 0,
	    "a full table: %u of %u clients counted (%d entries), the rest "
	    "let in uncounted", counted, n, CLIENT_LIMIT_ENTRIES);
	for (n = 0; n < CLIENT_LIMIT_ENTRIES * 2 && holds[n] >= 0; n++)
		;
	a = client(n + 10, false);
	check(client_limit_check(&web, &a, now, &seen) == CLIENT_ADMIT,
	    "an uncounted client is not refused: the table fails open");
	for (n = 0; n < CLIENT_LIMIT_ENTRIES * 2; n++)
		client_limit_release(holds[n]);
	a = client(CLIENT_LIMIT_ENTRIES * 4, false);
	h = client_limit_hold(&web, &a, now + 500);
	check(h >= 0 && open_of(&web, &a, now + 500) == 1,
	    "a released table takes a new client");
	client_limit_release(h);
	h = client_limit_hold(&web, &a, now + 600);
	check(h >= 0 && open_of(&web, &a, now + 600) == 1,
	    "without a connection_rate, closed entries take new clients at "
	    "once");
	client_limit_release(h);
	client_limit_table_gone(4);
}

int
main(void)
{
	if (client_limit_open() == -1) {
		perror("client_limit_open");
		return 1;
	}
	test_per_client();
	test_rate();
	test_sliding();
	test_full();
	return test_summary();
}
