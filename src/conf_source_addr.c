/*
 * conf_source_addr.c - a rule's source: the addresses its connections and
 * sessions to backends leave from.  One address, as before, or a list of
 * addresses, host names and prefixes ("192.0.2.8/29"), taken in turn:
 * each address has the host's whole range of ephemeral ports towards a
 * backend, so a pool of k addresses holds k times the flows one can.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "conf_schema.h"
#include "rule.h"
#include "sock.h"

/* At most this many addresses in one family's pool (a /24, a /120). */
#define SOURCE_POOL_MAX	256

/* One family's addresses as they are gathered. */
struct gather {
	struct source_pool	*pool;
	int			 family;
};

/* source: a string, or a list of strings; kept joined by ", ". */
int
conf_parse_source(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct rule	*r = base;
	const char	*item;
	size_t		 len = 1;
	int		 i, n;

	(void)k;
	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return conf_store_string(ld, s, &r->source,
		    config_setting_get_string(s));
	if (!config_setting_is_list(s) && !config_setting_is_array(s))
		return conf_fail(ld, s, "\"source\" must be an address string "
		    "or a list of them (got %s)", conf_type_name(s));
	if ((n = config_setting_length(s)) == 0)
		return conf_fail(ld, s, "\"source\" is an empty list");
	for (i = 0; i < n; i++) {
		if ((item = config_setting_get_string_elem(s, i)) == NULL)
			return conf_fail(ld, config_setting_get_elem(s, i),
			    "items of \"source\" must be address strings");
		len += strlen(item) + 2;
	}
	free(r->source);
	if ((r->source = malloc(len)) == NULL)
		return conf_fail(ld, s, "out of memory");
	r->source[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(r->source, ", ");
		strcat(r->source, config_setting_get_string_elem(s, i));
	}
	return 0;
}

/* Add a to g's pool unless it is there; -1 when the pool is full. */
static int
pool_add(struct gather *g, const struct sockaddr_any *a)
{
	unsigned i;

	if (g->pool == NULL &&
	    (g->pool = calloc(1, sizeof(*g->pool) +
	    SOURCE_POOL_MAX * sizeof(g->pool->addr[0]))) == NULL)
		return -1;
	for (i = 0; i < g->pool->n; i++)
		if (addr_equal(&g->pool->addr[i], a))
			return 0;
	if (g->pool->n == SOURCE_POOL_MAX)
		return -1;
	g->pool->addr[g->pool->n++] = *a;
	return 0;
}

/*
 * "address/bits": every address of the prefix into its family's pool.
 * 0 done, 1 not a prefix, -1 with why.
 */
static int
add_prefix(const char *item, struct gather g[2], char *why, size_t whylen)
{
	char			 host[ADDR_STRLEN];
	const char		*slash = strchr(item, '/');
	struct sockaddr_any	 a;
	unsigned char		*bytes;
	unsigned long		 bits, count, i, j;
	int			 v6, total;

	if (slash == NULL)
		return 1;
	if ((size_t)(slash - item) >= sizeof(host)) {
		snprintf(why, whylen, "\"%.100s\" is not an address prefix", item);
		return -1;
	}
	memcpy(host, item, (size_t)(slash - item));
	host[slash - item] = '\0';
	memset(&a, 0, sizeof(a));
	v6 = strchr(host, ':') != NULL;
	total = v6 ? 128 : 32;
	bytes = v6 ? ((struct sockaddr_in6 *)&a.ss)->sin6_addr.s6_addr :
	    (unsigned char *)&((struct sockaddr_in *)&a.ss)->sin_addr.s_addr;
	bits = strtoul(slash + 1, NULL, 10);
	if (inet_pton(v6 ? AF_INET6 : AF_INET, host, bytes) != 1 ||
	    slash[1] < '0' || slash[1] > '9' ||
	    strspn(slash + 1, "0123456789") != strlen(slash + 1) ||
	    bits > (unsigned long)total) {
		snprintf(why, whylen, "\"%.100s\" is not an address prefix", item);
		return -1;
	}
	if ((unsigned long)total - bits > 8) {
		snprintf(why, whylen, "\"%.100s\" holds more than %d addresses",
		    item, SOURCE_POOL_MAX);
		return -1;
	}
	a.ss.ss_family = v6 ? AF_INET6 : AF_INET;
	a.len = v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	count = 1ul << (total - bits);
	/* The host bits (at most 8: the last byte) count from zero. */
	bytes[total / 8 - 1] &= (unsigned char)~(count - 1);
	for (i = 0; i < count; i++) {
		j = bytes[total / 8 - 1];
		if (pool_add(&g[v6], &a) == -1) {
			snprintf(why, whylen, "\"source\" has more than %d "
			    "%s addresses", SOURCE_POOL_MAX, v6 ? "IPv6" :
			    "IPv4");
			return -1;
		}
		bytes[total / 8 - 1] = (unsigned char)(j + 1);
	}
	return 0;
}

/* An address or a host name: its address of each family it has. */
static int
add_host(const char *item, struct gather g[2], char *why, size_t whylen)
{
	struct sockaddr_any	a;
	int			i, found = 0;

	for (i = 0; i < 2; i++) {
		if (addr_resolve_host(item, g[i].family, &a, why, whylen) == -1)
			continue;
		if (pool_add(&g[i], &a) == -1) {
			snprintf(why, whylen, "\"source\" has more than %d "
			    "%s addresses", SOURCE_POOL_MAX, i ? "IPv6" :
			    "IPv4");
			return -1;
		}
		found = 1;
	}
	/* why says what the last lookup found wrong. */
	return found ? 0 : -1;
}

int
conf_source_addr_pools(struct conf_loader *ld, const config_setting_t *rule,
    struct rule *r)
{
	const config_setting_t	*m = config_setting_get_member(rule, "source");
	struct gather		 g[2] = { { NULL, AF_INET }, { NULL, AF_INET6 } };
	char			 item[CONF_ERR_MAX], why[CONF_ERR_MAX];
	const char		*p, *end;
	int			 i, rc;

	if (r->source == NULL)
		return 0;
	for (p = r->source;; p = end + 2) {
		if ((end = strstr(p, ", ")) == NULL)
			end = p + strlen(p);
		snprintf(item, sizeof(item), "%.*s", (int)(end - p), p);
		if ((rc = add_prefix(item, g, why, sizeof(why))) == 1)
			rc = add_host(item, g, why, sizeof(why));
		if (rc == -1) {
			free(g[0].pool);
			free(g[1].pool);
			return conf_fail(ld, m, "\"source\": %s", why);
		}
		if (*end == '\0')
			break;
	}
	for (i = 0; i < 2; i++)
		r->source_pool[i] = g[i].pool;
	return 0;
}

bool
conf_source_addr_same(const struct source_pool *a, const struct source_pool *b)
{
	unsigned i;

	if (a == NULL || b == NULL)
		return a == b;
	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!addr_equal(&a->addr[i], &b->addr[i]))
			return false;
	return true;
}

/* -T: one address as a string, a pool as the list it was written as. */
void
conf_show_source(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct rule	*r = base;
	char			 list[CONF_ERR_MAX * 2];
	const char		*p, *end;
	size_t			 len = 0;

	if (r->source == NULL || strstr(r->source, ", ") == NULL) {
		conf_show_string(sh, k, &r->source);
		return;
	}
	len += (size_t)snprintf(list, sizeof(list), "[ ");
	for (p = r->source; len < sizeof(list); p = end + 2) {
		if ((end = strstr(p, ", ")) == NULL)
			end = p + strlen(p);
		len += (size_t)snprintf(list + len, sizeof(list) - len,
		    "%s\"%.*s\"", p == r->source ? "" : ", ", (int)(end - p), p);
		if (*end == '\0')
			break;
	}
	if (len < sizeof(list))
		snprintf(list + len, sizeof(list) - len, " ]");
	conf_show_line(sh, k->name, "%s", list);
}
