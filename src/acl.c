/*
 * acl.c - compiling allow/deny patterns and checking client addresses
 * against them.
 *
 * Address and CIDR patterns become a (family, prefix, bytes) block that is
 * compared bit by bit; rinetd's wildcards stay text and are matched
 * against the client's address as inet_ntop() writes it, which is what
 * rinetd compares them with.  All the work that can fail or allocate is
 * done by acl_compile(), at load time.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"

/* Characters a wildcard may hold: what an address is written with. */
#define WILDCARD_CHARS	"0123456789abcdefABCDEF.:*?"

/* A client address, seen as IPv4 and/or IPv6, and as text on demand. */
struct client {
	bool	 has_v4;
	bool	 has_v6;
	uint8_t	 v4[4];
	uint8_t	 v6[16];
	char	 text[INET6_ADDRSTRLEN];	/* "" until a wildcard needs it */
};

/* Parse a numeric address into p (family and bytes); -1 if it is none. */
static int
parse_ip(const char *s, struct acl_pattern *p)
{
	if (inet_pton(AF_INET, s, p->addr) == 1) {
		p->family = AF_INET;
		p->prefix = 32;
		return 0;
	}
	if (inet_pton(AF_INET6, s, p->addr) == 1) {
		p->family = AF_INET6;
		p->prefix = 128;
		return 0;
	}
	return -1;
}

/* Clear the bits of addr after the first bits ones; 1 if any was set. */
static int
mask_host_bits(uint8_t *addr, size_t size, int bits)
{
	size_t	i;
	int	was_set = 0, keep;
	uint8_t	mask;

	for (i = 0; i < size; i++) {
		keep = bits - (int)i * 8;
		mask = keep >= 8 ? 0xff : keep <= 0 ? 0 : 0xff << (8 - keep);
		was_set |= (addr[i] & ~mask) != 0;
		addr[i] &= mask;
	}
	return was_set;
}

static int
compile_cidr(struct acl_pattern *p, const char *pattern, char *err,
    size_t errlen)
{
	char		 host[INET6_ADDRSTRLEN + 1], net[INET6_ADDRSTRLEN];
	const char	*slash = strchr(pattern, '/'), *len = slash + 1;
	int		 max;

	if ((size_t)(slash - pattern) >= sizeof(host))
		goto bad_address;
	memcpy(host, pattern, slash - pattern);
	host[slash - pattern] = '\0';
	if (parse_ip(host, p) == -1)
		goto bad_address;
	max = p->prefix;
	if (len[0] == '\0' || strspn(len, "0123456789") != strlen(len) ||
	    strlen(len) > 3 || atoi(len) > max) {
		snprintf(err, errlen, "\"%s\": the prefix length after '/' "
		    "must be a number from 0 to %d", pattern, max);
		return -1;
	}
	p->prefix = atoi(len);
	if (mask_host_bits(p->addr, p->family == AF_INET ? 4 : 16,
	    p->prefix)) {
		inet_ntop(p->family, p->addr, net, sizeof(net));
		snprintf(err, errlen, "\"%s\" has bits set after the first %d "
		    "(did you mean \"%s/%d\"?)", pattern, p->prefix, net,
		    p->prefix);
		return -1;
	}
	return 0;

bad_address:
	snprintf(err, errlen, "\"%s\": \"%.*s\" is not an IPv4 or IPv6 "
	    "address", pattern, (int)(slash - pattern), pattern);
	return -1;
}

static int
compile_wildcard(struct acl_pattern *p, const char *pattern, char *err,
    size_t errlen)
{
	size_t	bad = strspn(pattern, WILDCARD_CHARS);

	if (pattern[bad] != '\0') {
		snprintf(err, errlen, "\"%s\": a wildcard pattern may only "
		    "contain digits, a-f, '.', ':', '*' and '?' (not '%c')",
		    pattern, pattern[bad]);
		return -1;
	}
	p->family = AF_UNSPEC;
	p->prefix = 0;
	return 0;
}

/*
 * An IPv4-mapped pattern (::ffff:10.0.0.1, ::ffff:10.0.0.0/104) is meant
 * for IPv4 clients: an IPv4 listener sees them as plain IPv4, and mapped
 * clients are matched as IPv4 too.  Compile it as the IPv4 block it names
 * so that it matches both; as an IPv6 block it would never match the
 * first.
 */
static void
unmap_ipv4(struct acl_pattern *p)
{
	static const uint8_t	mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				    0xff, 0xff };

	if (p->family != AF_INET6 || p->prefix < 96 ||
	    memcmp(p->addr, mapped, sizeof(mapped)) != 0)
		return;
	memmove(p->addr, p->addr + 12, 4);
	memset(p->addr + 4, 0, sizeof(p->addr) - 4);
	p->family = AF_INET;
	p->prefix -= 96;
}

/* Compile pattern into p, without the text. */
static int
compile(struct acl_pattern *p, const char *pattern, char *err, size_t errlen)
{
	if (pattern[0] == '\0') {
		snprintf(err, errlen, "empty pattern");
		return -1;
	}
	if (strpbrk(pattern, "*?") != NULL)
		return compile_wildcard(p, pattern, err, errlen);
	if (strchr(pattern, '/') != NULL) {
		if (compile_cidr(p, pattern, err, errlen) == -1)
			return -1;
		unmap_ipv4(p);
		return 0;
	}
	if (parse_ip(pattern, p) == 0) {
		unmap_ipv4(p);
		return 0;
	}
	snprintf(err, errlen, "\"%s\" is not an address, a CIDR block "
	    "(10.0.0.0/8) or a wildcard pattern (192.168.1.*); host names are "
	    "not allowed", pattern);
	return -1;
}

/*
 * Room for one more pattern in *v: the capacity doubles, so that a list
 * of n patterns costs O(log n) reallocations, not n.
 */
static int
make_room(struct acl_pattern **v, const size_t *n, size_t *cap)
{
	struct acl_pattern	*grown;
	size_t			 ncap;

	if (*n < *cap)
		return 0;
	ncap = *cap > 0 ? *cap * 2 : 4;
	if ((grown = realloc(*v, ncap * sizeof(**v))) == NULL)
		return -1;
	*v = grown;
	*cap = ncap;
	return 0;
}

int
acl_compile(struct acl *acl, enum acl_list list, const char *pattern,
    char *err, size_t errlen)
{
	struct acl_pattern	  p, **v;
	size_t			 *n, *cap, i;

	memset(&p, 0, sizeof(p));
	if (compile(&p, pattern, err, errlen) == -1)
		return -1;
	v = list == ACL_ALLOW ? &acl->allow : &acl->deny;
	n = list == ACL_ALLOW ? &acl->nallow : &acl->ndeny;
	cap = list == ACL_ALLOW ? &acl->capallow : &acl->capdeny;
	if ((p.text = strdup(pattern)) == NULL ||
	    make_room(v, n, cap) == -1) {
		free(p.text);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* inet_ntop() writes hex digits in lower case. */
	for (i = 0; p.family == AF_UNSPEC && p.text[i] != '\0'; i++)
		if (p.text[i] >= 'A' && p.text[i] <= 'F')
			p.text[i] += 'a' - 'A';
	(*v)[(*n)++] = p;
	return 0;
}

static void
client_init(struct client *c, const struct sockaddr *sa)
{
	const struct sockaddr_in	*sin;
	const struct sockaddr_in6	*sin6;

	memset(c, 0, sizeof(*c));
	if (sa->sa_family == AF_INET) {
		sin = (const struct sockaddr_in *)sa;
		memcpy(c->v4, &sin->sin_addr, 4);
		c->has_v4 = true;
	} else if (sa->sa_family == AF_INET6) {
		sin6 = (const struct sockaddr_in6 *)sa;
		memcpy(c->v6, &sin6->sin6_addr, 16);
		c->has_v6 = true;
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			memcpy(c->v4, c->v6 + 12, 4);
			c->has_v4 = true;
		}
	}
}

/* The address as wildcards see it: IPv4 (also when mapped) or IPv6. */
static const char *
client_text(struct client *c)
{
	if (c->text[0] == '\0') {
		if (c->has_v4)
			inet_ntop(AF_INET, c->v4, c->text, sizeof(c->text));
		else if (c->has_v6)
			inet_ntop(AF_INET6, c->v6, c->text, sizeof(c->text));
	}
	return c->text;
}

static bool
prefix_match(const uint8_t *net, const uint8_t *addr, int bits)
{
	int	full = bits / 8, rest = bits % 8;

	if (memcmp(net, addr, full) != 0)
		return false;
	return rest == 0 ||
	    ((net[full] ^ addr[full]) & (0xff << (8 - rest))) == 0;
}

/* Shell-style '*' and '?' matching, without recursion. */
static bool
wildcard_match(const char *p, const char *s)
{
	const char	*star = NULL, *resume = s;

	while (*s != '\0') {
		if (*p == '?' || (*p != '*' && *p == *s)) {
			p++;
			s++;
		} else if (*p == '*') {
			star = p++;
			resume = s;
		} else if (star != NULL) {
			p = star + 1;
			s = ++resume;
		} else
			return false;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

static bool
pattern_matches(const struct acl_pattern *p, struct client *c)
{
	switch (p->family) {
	case AF_INET:
		return c->has_v4 && prefix_match(p->addr, c->v4, p->prefix);
	case AF_INET6:
		return c->has_v6 && prefix_match(p->addr, c->v6, p->prefix);
	default:
		return (c->has_v4 || c->has_v6) &&
		    wildcard_match(p->text, client_text(c));
	}
}

static bool
any_matches(const struct acl_pattern *v, size_t n, struct client *c)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (pattern_matches(&v[i], c))
			return true;
	return false;
}

static int
level_verdict(const struct acl *acl, struct client *c)
{
	if (acl == NULL)
		return ACL_PERMITTED;
	if (acl->nallow > 0 && !any_matches(acl->allow, acl->nallow, c))
		return ACL_NOT_ALLOWED;
	return any_matches(acl->deny, acl->ndeny, c) ? ACL_DENIED :
	    ACL_PERMITTED;
}

int
acl_verdict(const struct acl *global, const struct acl *rule,
    const struct sockaddr *client)
{
	struct client	c;
	int		v;

	if (acl_is_empty(global) && acl_is_empty(rule))
		return ACL_PERMITTED;
	client_init(&c, client);
	if ((v = level_verdict(global, &c)) != ACL_PERMITTED)
		return v;
	return level_verdict(rule, &c);
}

bool
acl_permits(const struct acl *global, const struct acl *rule,
    const struct sockaddr *client)
{
	return acl_verdict(global, rule, client) == ACL_PERMITTED;
}

bool
acl_is_empty(const struct acl *acl)
{
	return acl == NULL || (acl->nallow == 0 && acl->ndeny == 0);
}

static void
free_list(struct acl_pattern *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

void
acl_free(struct acl *acl)
{
	if (acl == NULL)
		return;
	free_list(acl->allow, acl->nallow);
	free_list(acl->deny, acl->ndeny);
	memset(acl, 0, sizeof(*acl));
}
