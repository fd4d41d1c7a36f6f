/*
 * conf_upstream.c - a rule's connect: one address or a list of them,
 * each with its weight, backup flag and passive health limits; the
 * balance that picks among them; every address resolved, and for
 * balance = "hash" the Maglev table built once, at load.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "conf_schema.h"
#include "maglev.h"
#include "rule.h"
#include "upstream.h"

#define MAX_FAILS_MAX		1000
#define FAIL_TIMEOUT_MAX	86400000	/* a day */
#define CHECK_INTERVAL_MIN	100		/* ms */
#define CHECK_INTERVAL_MAX	3600000
#define CHECK_COUNT_MAX		100		/* rise, fall */

static conf_key_parser parse_check_text;

static const struct conf_key check_keys[] = {
	{ "interval", conf_parse_duration, CHECK_INTERVAL_MIN,
	    CHECK_INTERVAL_MAX, offsetof(struct health_check, interval) },
	{ "timeout", conf_parse_duration, 1, CHECK_INTERVAL_MAX,
	    offsetof(struct health_check, timeout) },
	{ "rise", conf_parse_int, 1, CHECK_COUNT_MAX,
	    offsetof(struct health_check, rise) },
	{ "fall", conf_parse_int, 1, CHECK_COUNT_MAX,
	    offsetof(struct health_check, fall) },
	{ "send", parse_check_text, 0, 0,
	    offsetof(struct health_check, send), NULL, conf_show_text },
	{ "expect", parse_check_text, 0, 0,
	    offsetof(struct health_check, expect), NULL, conf_show_text },
};

#define KEEPALIVE_TIME_MAX	86400000	/* a day */
#define KEEPALIVE_COUNT_MAX	127		/* Linux's TCP_KEEPCNT */

const char *const conf_keepalive_legs_names[] = { "both", "client",
	"backend", NULL };

static const struct conf_key keepalive_keys[] = {
	{ "idle", conf_parse_duration, 1000, KEEPALIVE_TIME_MAX,
	    offsetof(struct keepalive, idle) },
	{ "interval", conf_parse_duration, 1000, KEEPALIVE_TIME_MAX,
	    offsetof(struct keepalive, interval) },
	{ "count", conf_parse_int, 1, KEEPALIVE_COUNT_MAX,
	    offsetof(struct keepalive, count) },
	{ "legs", conf_parse_choice, 0, 0, offsetof(struct keepalive, legs),
	    conf_keepalive_legs_names, conf_show_choice },
};

const struct conf_keys conf_keepalive_keys = {
	keepalive_keys, CONF_NKEYS(keepalive_keys), "in keepalive",
	"in keepalive", { NULL, NULL }
};

const struct conf_keys conf_check_keys = {
	check_keys, CONF_NKEYS(check_keys), "in health_check",
	"in health_check", { NULL, NULL }
};

static const struct conf_key item_keys[] = {
	/* First: a plain string item is parsed as this key. */
	{ "address", conf_parse_string, 0, 0,
	    offsetof(struct connect_item, address) },
	{ "weight", conf_parse_int, 1, BACKEND_WEIGHT_MAX,
	    offsetof(struct connect_item, weight) },
	{ "backup", conf_parse_bool, 0, 0,
	    offsetof(struct connect_item, backup) },
	{ "max_fails", conf_parse_int, 0, MAX_FAILS_MAX,
	    offsetof(struct connect_item, max_fails) },
	{ "fail_timeout", conf_parse_duration, 1, FAIL_TIMEOUT_MAX,
	    offsetof(struct connect_item, fail_timeout) },
	{ "max_connections", conf_parse_int, 0, MAX_CONNECTIONS_MAX,
	    offsetof(struct connect_item, max_connections) },
	{ "slow_start", conf_parse_duration, 0, SLOW_START_MAX,
	    offsetof(struct connect_item, slow_start) },
};

const struct conf_keys conf_item_keys = {
	item_keys, CONF_NKEYS(item_keys), "in a connect group",
	"for a backend, in its group of connect: connect = ( { address = "
	"\"host:port\"; ... } )", { &conf_rule_keys, &conf_global_keys }
};

/* send and expect: a string that fits its array. */
static int
parse_check_text(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	const char	*v = "";

	if (conf_get_string(ld, k, s, &v) == -1)
		return -1;
	if (strlen(v) >= HEALTH_CHECK_TEXT_MAX)
		return conf_fail(ld, s, "\"%s\" is %zu bytes long; at most %d "
		    "are allowed", k->name, strlen(v), HEALTH_CHECK_TEXT_MAX - 1);
	strcpy(conf_field(base, k), v);
	return 0;
}

/* health_check = { interval = 2; ... }, at the top level or in a rule. */
int
conf_parse_health_check(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct health_check	*hc = conf_field(base, k);

	if (!config_setting_is_group(s))
		return conf_fail(ld, s, "\"%s\" must be a group { interval = 2; "
		    "timeout = 1; ... } (got %s)", k->name, conf_type_name(s));
	memset(hc, 0, sizeof(*hc));
	hc->enabled = true;
	hc->interval = DEFAULT_CHECK_INTERVAL;
	hc->timeout = DEFAULT_CHECK_TIMEOUT;
	hc->rise = DEFAULT_CHECK_RISE;
	hc->fall = DEFAULT_CHECK_FALL;
	return conf_parse_members(ld, s, &conf_check_keys, hc);
}

/* keepalive = { idle = 60; interval = 10; count = 6; } */
int
conf_parse_keepalive(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct keepalive	*ka = conf_field(base, k);

	if (!config_setting_is_group(s))
		return conf_fail(ld, s, "\"%s\" must be a group { idle = 60; "
		    "interval = 10; count = 6; } (got %s)", k->name,
		    conf_type_name(s));
	ka->enabled = true;
	ka->idle = DEFAULT_KEEPALIVE_IDLE;
	ka->interval = DEFAULT_KEEPALIVE_INTERVAL;
	ka->count = DEFAULT_KEEPALIVE_COUNT;
	if (conf_parse_members(ld, s, &conf_keepalive_keys, ka) == -1)
		return -1;
	/* The kernel counts whole seconds. */
	ka->idle = (ka->idle + 999) / 1000 * 1000;
	ka->interval = (ka->interval + 999) / 1000 * 1000;
	return 0;
}

static void
item_defaults(struct connect_item *it)
{
	memset(it, 0, sizeof(*it));
	it->weight = 1;
	it->max_fails = DEFAULT_MAX_FAILS;
	it->fail_timeout = DEFAULT_FAIL_TIMEOUT;
	it->slow_start = UNSET;		/* the rule's, once it is read */
}

/* One element of a connect list: "host:port" or { address = ...; ... }. */
static int
parse_item(struct conf_loader *ld, const config_setting_t *e,
    struct connect_item *it)
{
	item_defaults(it);
	if (config_setting_type(e) == CONFIG_TYPE_STRING)
		return conf_parse_string(ld, &item_keys[0], e, it);
	if (!config_setting_is_group(e))
		return conf_fail(ld, e, "items of \"connect\" must be \"host:port\" "
		    "strings or groups { address = \"host:port\"; ... } (got %s)",
		    conf_type_name(e));
	if (conf_parse_members(ld, e, &conf_item_keys, it) == -1)
		return -1;
	if (it->address == NULL)
		return conf_fail(ld, e, "a connect group is missing required "
		    "setting \"address\"");
	return 0;
}

/* The list's addresses joined, to name the rule's upstream in logs. */
static char *
join_addresses(const struct connect_item *items, size_t n)
{
	size_t	len = 1, i;
	char	*s;

	for (i = 0; i < n; i++)
		len += strlen(items[i].address) + 2;
	if ((s = malloc(len)) == NULL)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(s, ", ");
		strcat(s, items[i].address);
	}
	return s;
}

/* connect: a string, or a list of strings and groups. */
int
conf_parse_connect(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	struct rule	*r = base;
	int		 i, n = 1;

	(void)k;
	if (config_setting_is_list(s) || config_setting_is_array(s)) {
		if ((n = config_setting_length(s)) == 0)
			return conf_fail(ld, s, "\"connect\" is an empty list: "
			    "at least one address is needed");
		if (n > UPSTREAM_MAX)
			return conf_fail(ld, s, "\"connect\" lists %d "
			    "addresses; at most %d are allowed", n,
			    UPSTREAM_MAX);
	} else if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return conf_fail(ld, s, "\"connect\" must be a \"host:port\" "
		    "string or a list of them (got %s)", conf_type_name(s));
	if ((r->items = calloc(n, sizeof(*r->items))) == NULL)
		return conf_fail(ld, s, "out of memory");
	for (i = 0; i < n; i++) {
		if (parse_item(ld, n == 1 && !config_setting_is_aggregate(s) ?
		    s : config_setting_get_elem(s, i), &r->items[i]) == -1) {
			r->nitems = i + 1;
			return -1;
		}
		r->nitems = i + 1;
	}
	if ((r->connect = join_addresses(r->items, r->nitems)) == NULL)
		return conf_fail(ld, s, "out of memory");
	return 0;
}

/* In enum balance order. */
const char *const conf_balance_names[] = { "round-robin",
    "least-connections", "random", "hash", NULL };

void
conf_items_free(struct rule *r)
{
	size_t	i;

	for (i = 0; i < r->nitems; i++)
		free(r->items[i].address);
	free(r->items);
	r->items = NULL;
	r->nitems = 0;
}

/* The setting an item came from, to point errors at its line. */
static const config_setting_t *
item_setting(const config_setting_t *rule, size_t i)
{
	const config_setting_t	*c = config_setting_get_member(rule,
	    "connect");

	return config_setting_is_aggregate(c) ?
	    config_setting_get_elem(c, (unsigned)i) : c;
}

/* IPv4 before IPv6, then by address and port. */
static int
addr_order(const void *pa, const void *pb)
{
	const struct sockaddr_any	*a = pa, *b = pb;
	const struct sockaddr_in	*a4 = (const void *)&a->ss;
	const struct sockaddr_in	*b4 = (const void *)&b->ss;
	const struct sockaddr_in6	*a6 = (const void *)&a->ss;
	const struct sockaddr_in6	*b6 = (const void *)&b->ss;
	int				 c;

	if (a->ss.ss_family != b->ss.ss_family)
		return a->ss.ss_family == AF_INET ? -1 : 1;
	c = a->ss.ss_family == AF_INET ? memcmp(&a4->sin_addr, &b4->sin_addr,
	    sizeof(a4->sin_addr)) : memcmp(&a6->sin6_addr, &b6->sin6_addr,
	    sizeof(a6->sin6_addr));
	if (c != 0)
		return c;
	return addr_port((const void *)&a->ss) < addr_port((const void *)&b->ss) ?
	    -1 : addr_port((const void *)&a->ss) > addr_port((const void *)&b->ss);
}

/*
 * Add the addresses of item it to u.  With source, each backend binds to the
 * source's address of its own family; addresses of a family the source
 * has none of are left out (*family: the last one seen).
 */
static int
add_item(struct conf_loader *ld, const config_setting_t *where,
    const struct rule *r, const struct connect_item *it, unsigned nports,
    struct upstream *u, int *family)
{
	struct sockaddr_any	*addrs;
	struct backend		*b, *grown;
	char			 why[CONF_ERR_MAX], spec[CONF_ERR_MAX];
	size_t			 n = 0, i, j;
	unsigned		 ports;

	/* A port range: as many ports as listen's, port i for port i. */
	if (addr_split_range(it->address, spec, sizeof(spec), &ports, why,
	    sizeof(why)) == -1)
		return conf_fail(ld, where, "\"connect\": %s", why);
	if (ports > 1 && ports != nports)
		return conf_fail(ld, where, "\"connect\": \"%s\" has %u ports "
		    "and listen %u: a connect port range must be as long as "
		    "listen's", it->address, ports, nports);
	if (addr_resolve_all(spec, 0, &addrs, &n, why, sizeof(why)) == -1) {
		ld->failure = CONF_FAILED_ADDRESS;
		return conf_fail(ld, where, "\"connect\": %s", why);
	}
	/*
	 * In one order whatever the resolver's (which rotates, and differs
	 * between hosts): hash tables alike on every host, and a name
	 * resolved again compares equal when its addresses are.
	 */
	qsort(addrs, n, sizeof(*addrs), addr_order);
	grown = realloc(u->backends, (u->nbackends + n) * sizeof(*grown));
	if (grown == NULL) {
		free(addrs);
		return conf_fail(ld, where, "out of memory");
	}
	u->backends = grown;
	for (i = 0; i < n; i++) {
		for (j = 0; j < u->nbackends; j++)
			if (addr_equal(&u->backends[j].addr, &addrs[i])) {
				addr_format((const void *)&addrs[i].ss, why,
				    sizeof(why));
				free(addrs);
				return conf_fail(ld, where, "\"connect\": %s "
				    "(\"%s\") is already in the list", why,
				    it->address);
			}
		b = &u->backends[u->nbackends];
		memset(b, 0, sizeof(*b));
		b->addr = addrs[i];
		b->backup = it->backup;
		b->weight = it->weight;
		b->max_fails = it->max_fails;
		b->fail_timeout = it->fail_timeout;
		b->max_connections = it->max_connections;
		b->slow_start = it->slow_start;
		b->ranged = ports > 1;
		*family = addrs[i].ss.ss_family;
		if (r->source != NULL && *family == AF_UNIX) {
			free(addrs);
			return conf_fail(ld, where, "\"connect\": \"%s\" is "
			    "a Unix socket, which \"source\" (an IP address "
			    "to leave from) cannot apply to", it->address);
		}
		if (r->source != NULL) {
			/* The source may have addresses of both families. */
			b->pool = r->source_pool[*family == AF_INET6];
			if (b->pool == NULL)
				continue;
			b->source = b->pool->addr[0];
			b->has_source = true;
		}
		u->has_backup |= b->backup;
		u->nbackends++;
	}
	free(addrs);
	return 0;
}

/* balance = "hash": the table every host with this list builds alike. */
static int
build_maglev(struct conf_loader *ld, const config_setting_t *rule,
    struct upstream *u)
{
	uint64_t	*keys;
	int		*weights;
	char		 name[ADDR_STRLEN];
	size_t		 i;
	int		 rc = 0;

	keys = calloc(u->nbackends, sizeof(*keys));
	weights = calloc(u->nbackends, sizeof(*weights));
	u->maglev = malloc(MAGLEV_SIZE * sizeof(*u->maglev));
	if (keys != NULL && weights != NULL && u->maglev != NULL) {
		for (i = 0; i < u->nbackends; i++) {
			/* The address as text: the same on every host. */
			addr_format((const void *)&u->backends[i].addr.ss,
			    name, sizeof(name));
			keys[i] = maglev_key(name, strlen(name));
			weights[i] = u->backends[i].weight;
		}
		rc = maglev_build(u->maglev, keys, weights, u->nbackends);
	} else
		rc = -1;
	free(keys);
	free(weights);
	if (rc == -1)
		return conf_fail(ld, rule, "out of memory");
	return 0;
}

int
conf_upstream_state(struct upstream *u)
{
	size_t	i;

	u->state = calloc(1, sizeof(*u->state) +
	    u->nbackends * sizeof(u->state->load[0]));
	if (u->state == NULL)
		return -1;
	for (i = 0; i < u->nbackends; i++)
		u->backends[i].load = &u->state->load[i];
	return 0;
}

int
conf_rule_upstream(struct conf_loader *ld, const config_setting_t *rule,
    struct rule *r, unsigned nports)
{
	const config_setting_t	*m = config_setting_get_member(rule, "source");
	struct upstream		*u = &r->upstream;
	size_t			 i;
	int			 family = AF_INET;

	if (r->nitems == 0)
		return conf_fail(ld, rule, "rule is missing required setting "
		    "\"connect\"");
	if (conf_source_addr_pools(ld, rule, r) == -1)
		return -1;
	/* Items say what they inherit, so that -T writes it in each. */
	for (i = 0; i < r->nitems; i++)
		if (r->items[i].slow_start == UNSET)
			r->items[i].slow_start = r->slow_start;
	for (i = 0; i < r->nitems; i++)
		if (add_item(ld, item_setting(rule, i), r, &r->items[i], nports,
		    u, &family) == -1)
			return -1;
	if (u->nbackends == 0)
		return conf_fail(ld, m, "\"source\" \"%s\" is not an %s "
		    "address, as the connect address \"%s\" is", r->source,
		    family == AF_INET ? "IPv4" : "IPv6", r->connect);
	if (u->nbackends > UPSTREAM_MAX)
		return conf_fail(ld, config_setting_get_member(rule, "connect"),
		    "\"connect\" resolves to %zu addresses; at most %d are "
		    "allowed", u->nbackends, UPSTREAM_MAX);
	if (conf_upstream_state(u) == -1)
		return conf_fail(ld, rule, "out of memory");
	if (u->balance == BALANCE_HASH)
		return build_maglev(ld, rule, u);
	return 0;
}
