/*
 * conf_unix.c - what a rule with a Unix-domain address means: the
 * listening file's mode, owner and group, the clients it lets in by
 * their credentials (allow_uid, allow_gid), and the settings that make
 * no sense with a Unix address on either side, refused at their line.
 */
#include "ferryd.h"

#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "conf_schema.h"
#include "proxy_proto.h"
#include "route.h"
#include "rule.h"
#include "upstream.h"

#define UNIX_ID_LIST_MAX	1024	/* uids or gids in one list */

/*
 * A user or group as written: a number, or a name looked up in the
 * password or group database.  -1 with the error reported.
 */
static int
unix_id(struct conf_loader *ld, const config_setting_t *s, bool group,
    const char *key, long *out)
{
	const char	*name;
	struct passwd	*pw;
	struct group	*gr;

	if (conf_is_integer(s)) {
		long long v = config_setting_get_int64(s);

		if (v < 0 || v > 0x7fffffffLL)
			return conf_fail(ld, s, "\"%s\": %lld is not a %s id",
			    key, v, group ? "group" : "user");
		*out = (long)v;
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return conf_fail(ld, s, "\"%s\" must be a %s name or number "
		    "(got %s)", key, group ? "group" : "user",
		    conf_type_name(s));
	name = config_setting_get_string(s);
	if (group ? (gr = getgrnam(name)) == NULL :
	    (pw = getpwnam(name)) == NULL)
		return conf_fail(ld, s, "\"%s\": unknown %s \"%s\"", key,
		    group ? "group" : "user", name);
	*out = group ? (long)gr->gr_gid : (long)pw->pw_uid;
	return 0;
}

int
conf_parse_unix_owner(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	return unix_id(ld, s, false, k->name, conf_field(base, k));
}

int
conf_parse_unix_group(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	return unix_id(ld, s, true, k->name, conf_field(base, k));
}

/*
 * allow_uid, allow_gid: one user (group) or a list of them, by name or
 * number, stored as an array of ids after the field's pointer and count
 * (struct rule_unix lays out each list as a pointer and its count).
 */
static int
parse_ids(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base, bool group)
{
	unsigned	**v = conf_field(base, k);
	size_t		 *n = (size_t *)(void *)(v + 1);
	const config_setting_t *e;
	int		  i, count = 1;
	long		  id;
	bool		  list = config_setting_is_list(s) ||
			      config_setting_is_array(s);

	if (list && ((count = config_setting_length(s)) == 0 ||
	    count > UNIX_ID_LIST_MAX))
		return conf_fail(ld, s, "\"%s\" must list 1 to %d %s", k->name,
		    UNIX_ID_LIST_MAX, group ? "groups" : "users");
	free(*v);
	*n = 0;
	if ((*v = calloc((size_t)count, sizeof(**v))) == NULL)
		return conf_fail(ld, s, "out of memory");
	for (i = 0; i < count; i++) {
		e = list ? config_setting_get_elem(s, (unsigned)i) : s;
		if (unix_id(ld, e, group, k->name, &id) == -1)
			return -1;
		(*v)[(*n)++] = (unsigned)id;
	}
	return 0;
}

int
conf_parse_unix_uids(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	return parse_ids(ld, k, s, base, false);
}

int
conf_parse_unix_gids(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base)
{
	return parse_ids(ld, k, s, base, true);
}

/* The first backend of r with a Unix address, or NULL. */
static const struct backend *
unix_backend(const struct rule *r)
{
	size_t	i;

	for (i = 0; i < r->upstream.nbackends; i++)
		if (r->upstream.backends[i].addr.ss.ss_family == AF_UNIX)
			return &r->upstream.backends[i];
	return NULL;
}

/* Refuse key in rule, if it is there, with why. */
static int
refuse_key(struct conf_loader *ld, const config_setting_t *rule,
    const char *key, const char *why)
{
	const config_setting_t *m = config_setting_get_member(rule, key);

	if (m == NULL)
		return 0;
	return conf_fail(ld, m, "\"%s\" %s", key, why);
}

/*
 * The settings of a rule that does not listen on a Unix socket file:
 * unix_listen, it listens on an abstract name.
 */
static int
check_not_unix_file(struct conf_loader *ld, const config_setting_t *rule,
    bool unix_listen)
{
	static const char *const file_keys[] = { "mode", "owner", "group" };
	static const char *const cred_keys[] = { "allow_uid", "allow_gid" };
	size_t	i;

	for (i = 0; i < sizeof(file_keys) / sizeof(file_keys[0]); i++)
		if (refuse_key(ld, rule, file_keys[i], unix_listen ?
		    "is for a Unix socket file: an abstract name "
		    "(\"unix:@...\") has no file" : "is for a listen address "
		    "\"unix:/path\": the socket file's") == -1)
			return -1;
	for (i = 0; i < sizeof(cred_keys) / sizeof(cred_keys[0]) &&
	    !unix_listen; i++)
		if (refuse_key(ld, rule, cred_keys[i], "needs a listen address "
		    "\"unix:...\": credentials are those of a Unix client's "
		    "process (use allow and deny for addresses)") == -1)
			return -1;
	return 0;
}

/*
 * What needs the client's address to send d's backends, set in where
 * (a rule, or one of its routes).
 */
static int
refuse_by_address(struct conf_loader *ld, const config_setting_t *where,
    const struct rule *d)
{
	if (d->send_proxy == PROXY_V1 && refuse_key(ld, where, "send_proxy",
	    "= \"v1\" cannot describe a Unix client: use \"v2\", which "
	    "carries its address") == -1)
		return -1;
	if (d->upstream.balance == BALANCE_HASH)
		return refuse_key(ld, where, "balance", "= \"hash\" picks by "
		    "the client's address, which Unix clients have none of");
	return 0;
}

/* What a Unix listener cannot do: its clients have no address. */
static int
check_unix_listener(struct conf_loader *ld, const config_setting_t *rule,
    const struct rule *r)
{
	static const char *const addr_keys[] = { "allow", "deny",
	    "accept_proxy_from" };
	static const char *const tcp_keys[] = { "tcp_fastopen",
	    "defer_accept", "rate_limit" };
	size_t	i;

	for (i = 0; i < sizeof(addr_keys) / sizeof(addr_keys[0]); i++)
		if (refuse_key(ld, rule, addr_keys[i], "judges client "
		    "addresses, which Unix clients have none of: use "
		    "allow_uid and allow_gid on a Unix listener") == -1)
			return -1;
	for (i = 0; i < sizeof(tcp_keys) / sizeof(tcp_keys[0]); i++)
		if (refuse_key(ld, rule, tcp_keys[i], "is a TCP socket's "
		    "option, which a Unix listener has not") == -1)
			return -1;
	if (refuse_by_address(ld, rule, r) == -1)
		return -1;
	/* A route's own send_proxy and balance too. */
	for (i = 0; i < r->nroutes; i++)
		if (refuse_by_address(ld, config_setting_get_elem(
		    config_setting_get_member(rule, "routes"), (unsigned)i),
		    &r->routes[i].dest) == -1)
			return -1;
	return 0;
}

/*
 * The "connect" setting that names backend b of r: the rule's, or its
 * route's (a route's backends are a slice of its rule's), for the line.
 */
static const config_setting_t *
connect_setting(const config_setting_t *rule, const struct rule *r,
    const struct backend *b)
{
	const struct rule	*d = rule_dest_of(r, b);
	unsigned		 i;

	for (i = 0; i < r->nroutes; i++)
		if (d == &r->routes[i].dest)
			return config_setting_get_member(config_setting_get_elem(
			    config_setting_get_member(rule, "routes"), i),
			    "connect");
	return config_setting_get_member(rule, "connect");
}

int
conf_rule_unix(struct conf_loader *ld, const config_setting_t *rule,
    struct rule *r)
{
	const config_setting_t	*where = config_setting_get_member(rule,
	    "listen");
	bool			 unix_listen =
	    r->listen_addr.ss.ss_family == AF_UNIX;
	const struct backend	*b = unix_backend(r);
	char			 addr[ADDR_STRLEN];

	if (unix_listen && r->protocol == RULE_UDP)
		return conf_fail(ld, where, "\"listen\": \"%s\" is a Unix "
		    "stream socket; a rule with protocol = \"udp\" cannot "
		    "listen on one", r->listen);
	if (unix_listen && r->connect_protocol == RULE_UDP)
		return conf_fail(ld, config_setting_get_member(rule,
		    "connect_protocol"), "\"connect_protocol\" = \"udp\": "
		    "a Unix listener's clients are streams, forwarded to "
		    "stream backends only");
	if (b != NULL && (r->protocol == RULE_UDP ||
	    r->connect_protocol == RULE_UDP))
		return conf_fail(ld, connect_setting(rule, r, b), "\"connect\": "
		    "%s is a Unix stream socket; "
		    "UDP datagrams cannot be forwarded to one",
		    addr_format((const void *)&b->addr.ss, addr, sizeof(addr)));
	if (b != NULL && refuse_key(ld, rule, "tcp_fastopen_connect", "is "
	    "a TCP connect's option, which a Unix backend has not") == -1)
		return -1;
	if (b != NULL && r->transparent)
		return refuse_key(ld, rule, "transparent", "sends from the "
		    "client's IP address, which a Unix backend has no use for");
	if (unix_listen && rule_any_transparent(r))
		return refuse_key(ld, rule, "transparent", "needs clients "
		    "with IP addresses; Unix clients have none");
	if (addr_unix_path(&r->listen_addr) == NULL &&
	    check_not_unix_file(ld, rule, unix_listen) == -1)
		return -1;
	if (unix_listen && check_unix_listener(ld, rule, r) == -1)
		return -1;
	return 0;
}

/* The defaults before a rule's settings are read. */
void
conf_rule_unix_init(struct rule *r)
{
	r->unix_sock.mode = RULE_UNIX_MODE_DEFAULT;
	r->unix_sock.owner = r->unix_sock.group = -1;
}

void
conf_rule_unix_free(struct rule *r)
{
	free(r->unix_sock.allow_uid);
	free(r->unix_sock.allow_gid);
}

/* -T: owner and group, a number, or a comment when not set. */
void
conf_show_unix_id(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	long v = *(const long *)conf_field((void *)(uintptr_t)base, k);

	if (v < 0)
		conf_show_comment(sh, "%s is not set", k->name);
	else
		conf_show_line(sh, k->name, "%ld", v);
}

/* -T: allow_uid and allow_gid, a list of numbers. */
void
conf_show_unix_ids(struct conf_show *sh, const struct conf_key *k,
    const void *base)
{
	const struct rule	*r = base;
	bool			 uids = strcmp(k->name, "allow_uid") == 0;
	const unsigned		*v = uids ? r->unix_sock.allow_uid :
	    r->unix_sock.allow_gid;
	size_t			 n = uids ? r->unix_sock.nallow_uid :
	    r->unix_sock.nallow_gid, i, len;
	char			 list[CONF_ERR_MAX];

	if (n == 0) {
		conf_show_comment(sh, "%s is not set", k->name);
		return;
	}
	len = (size_t)snprintf(list, sizeof(list), "[");
	for (i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len,
		    "%s %u", i > 0 ? "," : "", v[i]);
	if (len < sizeof(list))
		snprintf(list + len, sizeof(list) - len, " ]");
	conf_show_line(sh, k->name, "%s", list);
}

/* Whether -T writes key k of rule r: what conf_rule_unix() accepts. */
bool
conf_unix_key_applies(const struct rule *r, const struct conf_key *k)
{
	static const char *const file_keys[] = { "mode", "owner", "group" };
	static const char *const listener_keys[] = { "allow_uid",
	    "allow_gid" };
	static const char *const tcp_keys[] = { "tcp_fastopen",
	    "defer_accept", "rate_limit" };
	bool	unix_listen = r->listen_addr.ss.ss_family == AF_UNIX;
	size_t	i;

	for (i = 0; i < sizeof(file_keys) / sizeof(file_keys[0]); i++)
		if (strcmp(k->name, file_keys[i]) == 0)
			return addr_unix_path(&r->listen_addr) != NULL;
	for (i = 0; i < sizeof(listener_keys) / sizeof(listener_keys[0]); i++)
		if (strcmp(k->name, listener_keys[i]) == 0)
			return unix_listen;
	for (i = 0; i < sizeof(tcp_keys) / sizeof(tcp_keys[0]); i++)
		if (strcmp(k->name, tcp_keys[i]) == 0)
			return !unix_listen;
	if (strcmp(k->name, "tcp_fastopen_connect") == 0)
		return unix_backend(r) == NULL;
	return true;
}
