/*
 * test_acl.c - unit tests for acl_compile() and acl_permits().
 *
 * Each case is a rule set (global and per-rule allow and deny patterns)
 * and a client address, with the answer rinetd's semantics give; then
 * every kind of bad pattern must be refused with a message that says why.
 * Prints "ok N - ..." / "not ok N - ..." lines and exits 1 if anything
 * failed.
 */
#include "ferryd.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "addr.h"
#include "testlib.h"

/* Patterns are separated by spaces; NULL or "" for none. */
struct permit_case {
	const char	*gallow, *gdeny;	/* global */
	const char	*rallow, *rdeny;	/* the rule's */
	const char	*client;
	bool		 want;
};

static const struct permit_case permit_cases[] = {
	/* IPv4 blocks and single addresses */
	{ NULL, NULL, NULL, NULL, "192.0.2.1", true },
	{ "10.0.0.0/8", NULL, NULL, NULL, "10.1.2.3", true },
	{ "10.0.0.0/8", NULL, NULL, NULL, "11.0.0.1", false },
	{ "10.0.0.0/8", NULL, NULL, NULL, "10.255.255.255", true },
	{ "10.0.0.0/8", NULL, NULL, NULL, "9.255.255.255", false },
	{ "0.0.0.0/0", NULL, NULL, NULL, "203.0.113.9", true },
	{ "0.0.0.0/0", NULL, NULL, NULL, "2001:db8::1", false },
	{ "192.0.2.1/32", NULL, NULL, NULL, "192.0.2.1", true },
	{ "192.0.2.1/32", NULL, NULL, NULL, "192.0.2.2", false },
	{ "192.0.2.1", NULL, NULL, NULL, "192.0.2.1", true },
	{ "172.16.0.0/12", NULL, NULL, NULL, "172.31.255.255", true },
	{ "172.16.0.0/12", NULL, NULL, NULL, "172.32.0.0", false },
	{ "192.0.2.128/25", NULL, NULL, NULL, "192.0.2.127", false },
	{ NULL, "192.168.1.0/24", NULL, NULL, "192.168.1.77", false },
	{ NULL, "192.168.1.0/24", NULL, NULL, "192.168.2.1", true },
	/* rinetd wildcards, matched against the text */
	{ "192.168.1.*", NULL, NULL, NULL, "192.168.1.200", true },
	{ "192.168.1.*", NULL, NULL, NULL, "192.168.10.1", false },
	{ NULL, "192.168.2.1?", NULL, NULL, "192.168.2.15", false },
	{ NULL, "192.168.2.1?", NULL, NULL, "192.168.2.1", true },
	{ NULL, "192.168.2.1?", NULL, NULL, "192.168.2.150", true },
	{ "10.0.?.1", NULL, NULL, NULL, "10.0.5.1", true },
	{ "10.0.?.1", NULL, NULL, NULL, "10.0.15.1", false },
	{ "*", NULL, NULL, NULL, "198.51.100.7", true },
	{ "1*1", NULL, NULL, NULL, "10.0.0.1", true },
	{ "1*1", NULL, NULL, NULL, "10.0.0.2", false },
	/* IPv6 */
	{ "2001:db8::/32", NULL, NULL, NULL, "2001:db8:1::5", true },
	{ "2001:db8::/32", NULL, NULL, NULL, "2001:db9::1", false },
	{ "::/0", NULL, NULL, NULL, "::1", true },
	{ "::/0", NULL, NULL, NULL, "127.0.0.1", false },
	{ "::1/128", NULL, NULL, NULL, "::1", true },
	{ "::1/128", NULL, NULL, NULL, "::2", false },
	{ "2001:db8::1", NULL, NULL, NULL, "2001:0db8:0:0::1", true },
	{ "fe80:*", NULL, NULL, NULL, "fe80::1", true },
	{ "fe80:*", NULL, NULL, NULL, "fe81::1", false },
	{ "FE80:*", NULL, NULL, NULL, "fe80::abcd", true },
	{ NULL, "2001:618:*:e43f", NULL, NULL, "2001:618:1:2::e43f", false },
	{ NULL, "2001:618:*:e43f", NULL, NULL, "2001:618:1:2::e43e", true },
	/* IPv4-mapped IPv6 clients */
	{ "127.0.0.0/8", NULL, NULL, NULL, "::ffff:127.0.0.1", true },
	{ "192.168.1.*", NULL, NULL, NULL, "::ffff:192.168.1.5", true },
	{ NULL, "10.0.0.1", NULL, NULL, "::ffff:10.0.0.1", false },
	/* ... and mapped patterns match IPv4 clients, mapped or not */
	{ "::ffff:0:0/96", NULL, NULL, NULL, "::ffff:1.2.3.4", true },
	{ "::ffff:0:0/96", NULL, NULL, NULL, "1.2.3.4", true },
	{ "::ffff:0:0/96", NULL, NULL, NULL, "2001:db8::1", false },
	{ "::ffff:10.0.0.1", NULL, NULL, NULL, "10.0.0.1", true },
	{ "::ffff:10.0.0.1", NULL, NULL, NULL, "::ffff:10.0.0.1", true },
	{ "::ffff:10.0.0.1", NULL, NULL, NULL, "10.0.0.2", false },
	{ NULL, "::ffff:10.0.0.0/104", NULL, NULL, "10.9.8.7", false },
	{ NULL, "::ffff:10.0.0.0/104", NULL, NULL, "::ffff:10.9.8.7", false },
	{ NULL, "::ffff:10.0.0.0/104", NULL, NULL, "11.0.0.1", true },
	{ NULL, "::ffff:a00:0/104", NULL, NULL, "10.1.1.1", false },
	{ "127.0.0.1", NULL, NULL, NULL, "::1", false },
	/* global before the rule; allow lists and deny lists */
	{ "10.0.0.0/8", NULL, "192.168.0.0/16", NULL, "192.168.1.1", false },
	{ "10.0.0.0/8", NULL, "192.168.0.0/16", NULL, "10.0.0.1", false },
	{ "10.0.0.0/8", NULL, "10.1.0.0/16", NULL, "10.1.2.3", true },
	{ NULL, "10.0.0.5", "10.0.0.5", NULL, "10.0.0.5", false },
	{ "10.0.0.0/8", NULL, NULL, "10.0.0.5", "10.0.0.5", false },
	{ "10.0.0.0/8", NULL, NULL, "10.0.0.5", "10.0.0.6", true },
	{ "10.0.0.0/8", "10.0.0.0/24", NULL, NULL, "10.0.0.9", false },
	{ "10.0.0.0/8", "10.0.0.0/24", NULL, NULL, "10.0.1.9", true },
	{ NULL, NULL, NULL, "10.*", "8.8.8.8", true },
	{ NULL, NULL, "192.168.1.* 10.0.0.0/8 ::1", NULL, "::1", true },
	{ NULL, NULL, "192.168.1.* 10.0.0.0/8 ::1", NULL, "10.9.9.9", true },
	{ NULL, NULL, "192.168.1.* 10.0.0.0/8 ::1", NULL, "172.16.0.1", false },
	{ "127.*", "127.0.0.2", "127.0.0.0/30", "127.0.0.3", "127.0.0.1",
	    true },
	{ "127.*", "127.0.0.2", "127.0.0.0/30", "127.0.0.3", "127.0.0.3",
	    false },
	{ "127.*", "127.0.0.2", "127.0.0.0/30", "127.0.0.3", "127.0.0.2",
	    false },
	{ "127.*", "127.0.0.2", "127.0.0.0/30", "127.0.0.3", "127.0.0.4",
	    false },
};

/* A bad pattern and a word of the message that must say why. */
struct bad_pattern {
	const char	*pattern;
	const char	*keyword;
};

static const struct bad_pattern bad_patterns[] = {
	{ "", "empty pattern" },
	{ "10.0.0.0/33", "the prefix length after '/' must be a number from "
	    "0 to 32" },
	{ "::/129", "from 0 to 128" },
	{ "10.0.0.0/", "from 0 to 32" },
	{ "10.0.0.0/-1", "from 0 to 32" },
	{ "10.0.0.0/0008", "from 0 to 32" },
	{ "10.0.0.0/8/8", "from 0 to 32" },
	{ "10.0.0/8", "\"10.0.0\" is not an IPv4 or IPv6 address" },
	{ "/8", "\"\" is not an IPv4 or IPv6 address" },
	{ "10.0.0.1/8", "did you mean \"10.0.0.0/8\"?" },
	{ "2001:db8::1/32", "did you mean \"2001:db8::/32\"?" },
	{ "host.example", "host names are not allowed" },
	{ "1.2.3.4.5", "is not an address, a CIDR block" },
	{ " 10.0.0.1", "is not an address" },
	{ "192.168.1.x*", "may only contain digits, a-f, '.', ':', '*' and "
	    "'?' (not 'x')" },
	{ "10.0.*/8", "(not '/')" },
	{ "10.0.0.* ", "(not ' ')" },
};

/* Add the space-separated patterns of list to acl. */
static void
compile_list(struct acl *acl, enum acl_list list, const char *patterns)
{
	char	 copy[256], err[256], *p, *next;

	if (patterns == NULL)
		return;
	snprintf(copy, sizeof(copy), "%s", patterns);
	for (p = copy; p != NULL && *p != '\0'; p = next) {
		if ((next = strchr(p, ' ')) != NULL)
			*next++ = '\0';
		if (acl_compile(acl, list, p, err, sizeof(err)) == -1) {
			printf("# cannot compile \"%s\": %s\n", p, err);
			exit(1);
		}
	}
}

static struct sockaddr_any
address(const char *host)
{
	struct sockaddr_any	a;
	char			err[256];

	if (addr_resolve_host(host, AF_UNSPEC, &a, err, sizeof(err)) == -1) {
		printf("# %s\n", err);
		exit(1);
	}
	return a;
}

/* "allow [10.0.0.0/8] deny [] / rule allow [...] deny [...]" */
static void
describe(const struct permit_case *c, char *buf, size_t len)
{
	snprintf(buf, len, "global allow [%s] deny [%s], rule allow [%s] "
	    "deny [%s]", c->gallow ? c->gallow : "", c->gdeny ? c->gdeny : "",
	    c->rallow ? c->rallow : "", c->rdeny ? c->rdeny : "");
}

static void
test_permits(void)
{
	const struct permit_case	*c;
	struct acl			 global, rule;
	struct sockaddr_any		 a;
	char				 desc[512];
	size_t				 i;
	bool				 got;

	for (i = 0; i < sizeof(permit_cases) / sizeof(permit_cases[0]); i++) {
		c = &permit_cases[i];
		memset(&global, 0, sizeof(global));
		memset(&rule, 0, sizeof(rule));
		compile_list(&global, ACL_ALLOW, c->gallow);
		compile_list(&global, ACL_DENY, c->gdeny);
		compile_list(&rule, ACL_ALLOW, c->rallow);
		compile_list(&rule, ACL_DENY, c->rdeny);
		a = address(c->client);
		got = acl_permits(&global, &rule, (struct sockaddr *)&a.ss);
		describe(c, desc, sizeof(desc));
		check(got == c->want, "%s %s: %s", c->want ? "permits" :
		    "refuses", c->client, desc);
		acl_free(&global);
		acl_free(&rule);
	}
}

static void
test_bad_patterns(void)
{
	const struct bad_pattern	*b;
	struct acl			 acl;
	char				 err[256];
	size_t				 i;
	int				 rc;

	memset(&acl, 0, sizeof(acl));
	compile_list(&acl, ACL_ALLOW, "10.0.0.0/8");
	for (i = 0; i < sizeof(bad_patterns) / sizeof(bad_patterns[0]); i++) {
		b = &bad_patterns[i];
		err[0] = '\0';
		rc = acl_compile(&acl, i % 2 ? ACL_DENY : ACL_ALLOW, b->pattern,
		    err, sizeof(err));
		check(rc == -1 && strstr(err, b->keyword) != NULL &&
		    acl.nallow == 1 && acl.ndeny == 0,
		    "pattern \"%s\" is refused, acl unchanged", b->pattern);
		if (rc != -1 || strstr(err, b->keyword) == NULL)
			printf("#   want \"%s\"\n#   got  \"%s\"\n", b->keyword,
			    err);
	}
	acl_free(&acl);
}

static void
test_empty_and_free(void)
{
	struct acl		acl;
	struct sockaddr_any	a = address("192.0.2.1");

	memset(&acl, 0, sizeof(acl));
	check(acl_is_empty(&acl) && acl_is_empty(NULL),
	    "zeroed and NULL acls are empty");
	check(acl_permits(NULL, NULL, (struct sockaddr *)&a.ss) &&
	    acl_permits(&acl, NULL, (struct sockaddr *)&a.ss),
	    "empty and NULL acls permit everyone");
	compile_list(&acl, ACL_DENY, "192.0.2.0/24");
	check(!acl_is_empty(&acl) &&
	    !acl_permits(NULL, &acl, (struct sockaddr *)&a.ss),
	    "a deny list alone at the rule level refuses");
	check(!acl_permits(&acl, NULL, (struct sockaddr *)&a.ss),
	    "a deny list alone at the global level refuses");
	acl_free(&acl);
	check(acl_is_empty(&acl) && acl.allow == NULL && acl.deny == NULL,
	    "acl_free leaves an empty acl");
	compile_list(&acl, ACL_ALLOW, "198.51.100.1");
	check(!acl_permits(&acl, NULL, (struct sockaddr *)&a.ss),
	    "a freed acl can be used again");
	acl_free(&acl);
}

/* Checking a client must not allocate: count the heap around it. */
static void
test_no_allocation(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	struct acl		acl;
	struct sockaddr_any	a = address("::ffff:192.168.1.5");
	struct mallinfo2	before, after;
	int			i, n = 0;

	memset(&acl, 0, sizeof(acl));
	compile_list(&acl, ACL_ALLOW, "10.0.0.0/8 2001:db8::/32 192.168.1.*");
	compile_list(&acl, ACL_DENY, "192.168.1.1? fe80:*");
	before = mallinfo2();
	for (i = 0; i < 10000; i++)
		n += acl_permits(&acl, &acl, (struct sockaddr *)&a.ss);
	after = mallinfo2();
	check(n == 10000 && before.uordblks == after.uordblks &&
	    before.hblkhd == after.hblkhd,
	    "10000 checks with wildcards allocate nothing");
	acl_free(&acl);
#else
	check(1, "# SKIP allocation count needs glibc 2.33");
#endif
}

/* A long list reallocates O(log n) times, not once per pattern. */
static void
test_growth(void)
{
	struct acl	 acl;
	char		 err[256], pattern[32];
	size_t		 cap = 0, grows = 0;
	int		 i, ok = 1;

	memset(&acl, 0, sizeof(acl));
	for (i = 0; i < 10000 && ok; i++) {
		snprintf(pattern, sizeof(pattern), "10.%d.%d.1", i / 256,
		    i % 256);
		ok = acl_compile(&acl, ACL_DENY, pattern, err,
		    sizeof(err)) == 0 && acl.capdeny >= acl.ndeny;
		if (acl.capdeny != cap) {
			cap = acl.capdeny;
			grows++;
		}
	}
	check(ok && acl.ndeny == 10000, "growth: 10000 patterns compiled");
	check(grows <= 20, "growth: %zu reallocations for 10000 patterns",
	    grows);
	acl_free(&acl);
	check(acl.capdeny == 0 && acl.deny == NULL, "growth: acl_free "
	    "empties the list");
}

int
main(void)
{
	test_permits();
	test_bad_patterns();
	test_empty_and_free();
	test_no_allocation();
	test_growth();
	return test_summary();
}
