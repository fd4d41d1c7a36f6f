/*
 * conf_sslh.c - sslh's command line and sslh.cfg, read as sslh reads them.
 *
 * sslh 1.20 (Debian 12's) parses its command line with getopt_long_only
 * and its file with libconfig; sslh 2.x generates both from sslhconf.cfg,
 * where '-' and '_' are alike in key names.  Both are taken here: the file
 * first, then the command line over it (a listen address is added, a
 * protocol replaces the address of the file's protocol of that name or
 * is added after the others, the rest replace the file's value), as sslh
 * does.  What ferryd cannot do as sslh does is an error at its line, or
 * a warning where sslh 2.x would skip it too; what changes nothing
 * (fork, tfo_ok) becomes a comment (conf_sslh_notes.c).
 * conf_sslh_out.c writes the result as ferryd.conf.
 */
#include "ferryd.h"

#include <libconfig.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "conf_file.h"
#include "conf_schema.h"
#include "conf_sslh.h"
#include "route.h"
#include "conf_sslh_model.h"

#define MSG_MAX		512
#define KEY_MAX		64
#define PORT_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
			"0123456789-_"
#define HOST_CHARS	PORT_CHARS ".:%[]"

/* The file, and its lines for the comments above what is made of them. */
struct source {
	config_t	 lc;
	bool		 lc_used;
	char		*text;		/* split into lines */
	char		**lines;
	size_t		 nlines;
};

static struct sslh_origin
origin_of(const struct source *src, const config_setting_t *c)
{
	struct sslh_origin	o = { config_setting_source_line(c), "" };

	if (o.line > 0 && (size_t)o.line <= src->nlines)
		o.text = src->lines[o.line - 1];
	return o;
}

/* The key as sslh 2.x compares it: '-' and '_' alike. */
static void
key_of(const config_setting_t *c, char *key)
{
	const char	*name = config_setting_name(c);
	size_t		 i;

	for (i = 0; name != NULL && name[i] != '\0' && i < KEY_MAX - 1; i++)
		key[i] = name[i] == '-' ? '_' : name[i];
	key[i] = '\0';
}

static int
get_string(struct sslh *s, const struct sslh_origin *from,
    const config_setting_t *c, const char **out)
{
	if (config_setting_type(c) != CONFIG_TYPE_STRING)
		return sslh_unreadable(s, from, "\"%s\" must be a string",
		    config_setting_name(c));
	*out = config_setting_get_string(c);
	return 0;
}

/* sslh takes booleans as libconfig booleans, and verbose as a number too. */
static int
get_number(struct sslh *s, const struct sslh_origin *from,
    const config_setting_t *c, bool boolean, long *out)
{
	int	t = config_setting_type(c);

	if (t == CONFIG_TYPE_BOOL)
		*out = config_setting_get_bool(c);
	else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
		*out = (long)config_setting_get_int64(c);
	else
		return sslh_unreadable(s, from, "\"%s\" must be %s",
		    config_setting_name(c), boolean ? "true or false" :
		    "a whole number");
	if (!boolean && (*out < 0 || *out > INT_MAX))
		return sslh_fail(s, from, "\"%s\" is out of range",
		    config_setting_name(c));
	return 0;
}

/* Is the string a port sslh would take: a number or a service name? */
static int
check_port(struct sslh *s, const struct sslh_origin *from, const char *port)
{
	long	n;

	if (port[0] == '\0' || port[strspn(port, PORT_CHARS)] != '\0')
		return sslh_fail(s, from, "port \"%s\" is not a port number or "
		    "a service name", port);
	if (port[strspn(port, "0123456789")] == '\0' &&
	    ((n = strtol(port, NULL, 10)) < 1 || n > 65535 ||
	    strlen(port) > 5))
		return sslh_fail(s, from, "port %s is out of range (1 to "
		    "65535)", port);
	return 0;
}

/* host and port as ferryd writes an address: "[::1]:22", "a.b:https". */
static int
make_hostport(struct sslh *s, const struct sslh_origin *from,
    const char *host, const char *port, char *out)
{
	size_t	len = strlen(host);
	bool	v6 = memchr(host, ':', len) != NULL && host[0] != '[';

	if (len == 0 || host[strspn(host, HOST_CHARS)] != '\0')
		return sslh_fail(s, from, "host \"%s\" is not an address or a "
		    "host name", host);
	if (check_port(s, from, port) == -1)
		return -1;
	if (len + strlen(port) + 4 > SSLH_HOSTPORT_MAX)
		return sslh_fail(s, from, "address \"%s\" is too long", host);
	sprintf(out, "%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port);
	return 0;
}

/* "host:port" of the command line: the last ':' splits, as sslh's does. */
static int
split_hostport(struct sslh *s, const struct sslh_origin *from,
    const char *spec, char *out)
{
	char		 host[SSLH_HOSTPORT_MAX];
	const char	*colon = strrchr(spec, ':');
	size_t		 n;

	if (colon == NULL || colon == spec)
		return sslh_unreadable(s, from, "\"%s\" is not HOST:PORT",
		    spec);
	n = (size_t)(colon - spec);
	if (n >= sizeof(host))
		return sslh_fail(s, from, "address \"%s\" is too long", spec);
	memcpy(host, spec, n);
	host[n] = '\0';
	return make_hostport(s, from, host, colon + 1, out);
}

/* host and port of a listen or protocol entry; port as a string or a number. */
static int
entry_hostport(struct sslh *s, const struct sslh_origin *from,
    const config_setting_t *e, char *out)
{
	const config_setting_t	*h = config_setting_get_member(e, "host");
	const config_setting_t	*p = config_setting_get_member(e, "port");
	const char		*host = NULL, *port = NULL;
	char			 num[16];

	const config_setting_t	*u = config_setting_get_member(e, "is_unix");

	/* is_unix: host is the path of a Unix socket; port is not read. */
	/* A boolean, or a number as get_number takes it: 1 is true. */
	if (u != NULL && (config_setting_type(u) == CONFIG_TYPE_BOOL ?
	    config_setting_get_bool(u) : config_setting_type(u) ==
	    CONFIG_TYPE_INT ? config_setting_get_int(u) != 0 : 0)) {
		if (h == NULL || get_string(s, from, h, &host) == -1)
			return h == NULL ? sslh_fail(s, from, "a Unix socket "
			    "entry needs host, its path") : -1;
		if (host[0] != '/')
			return sslh_fail(s, from, "is_unix: host \"%s\" is not "
			    "an absolute path", host);
		if (strlen(host) + 6 > SSLH_HOSTPORT_MAX)
			return sslh_fail(s, from, "path \"%s\" is too long",
			    host);
		sprintf(out, "unix:%s", host);
		return 0;
	}
	if (h == NULL || p == NULL)
		return sslh_unreadable(s, from, "an entry needs host and port");
	if (get_string(s, from, h, &host) == -1)
		return -1;
	if (config_setting_type(p) == CONFIG_TYPE_INT) {
		snprintf(num, sizeof(num), "%d", config_setting_get_int(p));
		port = num;
	} else if (get_string(s, from, p, &port) == -1)
		return -1;
	return make_hostport(s, from, host, port, out);
}

static int
get_list(struct sslh *s, const struct source *src, const config_setting_t *c,
    struct sslh_list *l)
{
	const config_setting_t	*e;
	struct sslh_origin	 from = origin_of(src, c);
	int			 i, n = config_setting_length(c);

	if (!config_setting_is_array(c) && !config_setting_is_list(c))
		return sslh_unreadable(s, &from, "\"%s\" must be a list of "
		    "strings [ \"...\", ... ]", config_setting_name(c));
	l->from = from;
	l->given = true;
	if ((l->v = calloc(n + 1, sizeof(*l->v))) == NULL ||
	    (l->line = calloc(n + 1, sizeof(*l->line))) == NULL)
		return sslh_fail(s, &from, "out of memory");
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(c, i);
		if (get_string(s, &from, e, &l->v[i]) == -1)
			return -1;
		l->line[i] = config_setting_source_line(e);
	}
	l->n = (size_t)n;
	return 0;
}

/* libwrap's files: whether any line of them is a rule. */
static bool
wrap_has_rules(const char *dir, const char *name)
{
	char	 path[PATH_MAX], line[1024];
	FILE	*f;
	bool	 rules = false;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "r")) == NULL)
		return false;		/* no file: no rule, as libwrap has it */
	while (!rules && fgets(line, sizeof(line), f) != NULL)
		rules = line[strspn(line, " \t\r\n")] != '\0' &&
		    line[strspn(line, " \t")] != '#';
	fclose(f);
	return rules;
}

/*
 * service: sslh asks libwrap (hosts_access(5)) whether the client may
 * connect to it.  Without a rule in hosts.allow or hosts.deny libwrap
 * lets everyone in, as ferryd does; with rules, they must be written as
 * ferryd's allow and deny.
 */
static int
check_service(struct sslh *s, const struct sslh_origin *from,
    const char *service)
{
	const char	*dir = s->hosts_dir != NULL ? s->hosts_dir : "/etc";

	if (wrap_has_rules(dir, "hosts.allow") ||
	    wrap_has_rules(dir, "hosts.deny"))
		return sslh_fail(s, from, "service \"%s\": libwrap's rules in "
		    "%s/hosts.allow and hosts.deny decide who may connect, and "
		    "ferryd does not read them: write them as allow and deny "
		    "(ferryd.conf(5)) and remove service", service, dir);
	return add_note(s, from, "service \"%s\": %s/hosts.allow and "
	    "hosts.deny hold no rule, so libwrap lets everyone in, as ferryd "
	    "does", service, dir);
}

/* The probes sslh knows; those ferryd cannot make are refused by name. */
static const char *const probes[] = {
	"ssh", "tls", "ssl", "openvpn", "tinc", "xmpp", "http", "socks5",
	"anyprot", "regex", "timeout", "adb", "syslog", "msrdp", "wireguard",
	"teamspeak", NULL
};

static int
check_probe(struct sslh *s, const struct sslh_origin *from, const char *name)
{
	size_t	i;

	for (i = 0; probes[i] != NULL && strcmp(probes[i], name) != 0; i++)
		;
	if (probes[i] == NULL)
		return sslh_fail(s, from, "probe \"%s\" is unknown (sslh knows "
		    "ssh, tls, openvpn, tinc, xmpp, http, socks5, adb, syslog, "
		    "msrdp, wireguard, teamspeak, regex, anyprot, timeout)",
		    name);
	return 0;
}

static struct sslh_proto *
new_proto(struct sslh *s, const struct sslh_origin *from, const char *name)
{
	struct sslh_proto	*p;

	if (check_probe(s, from, name) == -1)
		return NULL;
	if ((p = conf_grow(s->ps, &s->capps, s->nps + 1, sizeof(*p))) ==
	    NULL) {
		sslh_fail(s, from, "out of memory");
		return NULL;
	}
	s->ps = p;
	p = &s->ps[s->nps++];
	memset(p, 0, sizeof(*p));
	p->from = *from;
	/* sslh 1.20 reads "ssl" as "tls" (and says it is deprecated). */
	snprintf(p->name, sizeof(p->name), "%s", strcmp(name, "ssl") == 0 ?
	    "tls" : name);
	p->udp_timeout = -1;
	p->proxyprotocol = -1;
	return p;
}

static bool
is(const char *key, const char *name)
{
	return strcmp(key, name) == 0;
}

/* A protocol's settings that change nothing in ferryd: a comment each. */
static const struct {
	const char	*key;
	const char	*note;
} proto_notes[] = {
	{ "fork", "ferryd's workers serve every connection" },
	{ "tfo_ok", "ferryd connects without TCP Fast Open" },
	{ "resolve_on_forward", "ferryd looks names up again every "
	    "resolve_interval" }
};

/* A member of a protocol entry other than name, host and port. */
static int
proto_member(struct sslh *s, const struct source *src, struct sslh_proto *p,
    const config_setting_t *c)
{
	struct sslh_origin	 from = origin_of(src, c);
	const char		*str = NULL;
	char			 key[KEY_MAX];
	long			 v = 0;
	size_t			 i;

	key_of(c, key);
	if (strcmp(key, "sni_hostnames") == 0)
		return get_list(s, src, c, &p->sni);
	if (strcmp(key, "alpn_protocols") == 0)
		return get_list(s, src, c, &p->alpn);
	if (strcmp(key, "regex_patterns") == 0)
		return get_list(s, src, c, &p->regex);
	if (strcmp(key, "service") == 0)
		return get_string(s, &from, c, &str) == -1 ? -1 :
		    check_service(s, &from, str);
	if (strcmp(key, "udp_timeout") == 0) {
		if (get_number(s, &from, c, false, &p->udp_timeout) == -1)
			return -1;
		return p->udp_timeout > 0 ? 0 : sslh_fail(s, &from,
		    "udp_timeout must be at least 1 second");
	}
	if (strcmp(key, "proxyprotocol") == 0) {
		if (get_number(s, &from, c, false, &v) == -1)
			return -1;
		if (v > 2)
			return sslh_fail(s, &from, "proxyprotocol must be 1 "
			    "or 2 (the PROXY protocol's version), or 0 (a "
			    "client's header taken away)");
		p->proxyprotocol = (int)v;
		return 0;
	}
	if (is(key, "max_connections") || is(key, "minlength")) {
		if (get_number(s, &from, c, false, &v) == -1)
			return -1;
		if (v < 0 || v > (is(key, "minlength") ? ROUTE_MIN_LENGTH_MAX :
		    INT_MAX))
			return sslh_fail(s, &from, "%s: %ld is out of range",
			    config_setting_name(c), v);
		*(is(key, "minlength") ? &p->minlength :
		    &p->max_connections) = v;
		return v == 0 || is(key, "minlength") ? 0 : add_note(s, &from,
		    "max_connections: ferryd's backend max_connections, for "
		    "each worker");
	}
	if (is(key, "keepalive") || is(key, "is_udp") || is(key, "is_unix") ||
	    is(key, "transparent")) {
		if (get_number(s, &from, c, true, &v) == -1)
			return -1;
		/* is_unix: the address is "unix:..." (entry_hostport). */
		if (!is(key, "is_unix"))
			*(is(key, "keepalive") ? &p->keepalive :
			    is(key, "transparent") ? &p->transparent :
			    &p->is_udp) = v != 0;
		return 0;
	}
	if (is(key, "log_level")) {
		if (get_number(s, &from, c, false, &v) == -1)
			return -1;
		p->quiet = v == 0;	/* no line for its connections */
		return 0;
	}
	for (i = 0; i < sizeof(proto_notes) / sizeof(proto_notes[0]); i++) {
		if (!is(key, proto_notes[i].key))
			continue;
		if (get_number(s, &from, c, true, &v) == -1)
			return -1;
		return v == 0 ? 0 : add_note(s, &from, "%s: %s", key,
		    proto_notes[i].note);
	}
	/* sslh 2.x skips what it does not know, with a warning. */
	return add_warning(s, &from, "unknown protocol setting \"%s\": "
	    "skipped", config_setting_name(c));
}

static int
proto_entry(struct sslh *s, const struct source *src,
    const config_setting_t *e)
{
	struct sslh_origin	 from = origin_of(src, e);
	const config_setting_t	*c, *n = config_setting_get_member(e, "name");
	struct sslh_proto	*p;
	const char		*name = NULL;
	int			 i;

	if (!config_setting_is_group(e))
		return sslh_unreadable(s, &from, "a protocol must be a group "
		    "{ name: \"ssh\"; host: ...; port: ...; }");
	if (n == NULL)
		return sslh_unreadable(s, &from, "a protocol needs name, host "
		    "and port");
	if (get_string(s, &from, n, &name) == -1 ||
	    (p = new_proto(s, &from, name)) == NULL ||
	    entry_hostport(s, &from, e, p->hostport) == -1)
		return -1;
	for (i = 0; (c = config_setting_get_elem(e, i)) != NULL; i++)
		if (strcmp(config_setting_name(c), "name") != 0 &&
		    strcmp(config_setting_name(c), "host") != 0 &&
		    strcmp(config_setting_name(c), "port") != 0 &&
		    proto_member(s, src, p, c) == -1)
			return -1;
	return 0;
}

static int
listen_entry(struct sslh *s, const struct source *src,
    const config_setting_t *e)
{
	struct sslh_origin	 from = origin_of(src, e);
	struct sslh_listen	*l;
	const config_setting_t	*c;
	char			 key[KEY_MAX];
	long			 v;
	int			 i;

	if (!config_setting_is_group(e))
		return sslh_unreadable(s, &from, "a listen entry must be a "
		    "group { host: ...; port: ...; }");
	if ((l = conf_grow(s->ls, &s->capls, s->nls + 1, sizeof(*l))) == NULL)
		return sslh_fail(s, &from, "out of memory");
	s->ls = l;
	l = &s->ls[s->nls++];
	memset(l, 0, sizeof(*l));
	l->from = from;
	if (entry_hostport(s, &from, e, l->hostport) == -1)
		return -1;
	for (i = 0; (c = config_setting_get_elem(e, i)) != NULL; i++) {
		key_of(c, key);
		from = origin_of(src, c);
		if (is(key, "host") || is(key, "port"))
			continue;
		if (!is(key, "keepalive") && !is(key, "is_udp") &&
		    !is(key, "proxyprotocol") && !is(key, "is_unix") &&
		    !is(key, "max_connections")) {
			/* sslh 2.x skips it, with a warning. */
			if (add_warning(s, &from, "unknown listen setting "
			    "\"%s\": skipped", config_setting_name(c)) == -1)
				return -1;
			continue;
		}
		if (get_number(s, &from, c, !is(key, "max_connections"),
		    &v) == -1)
			return -1;
		if (is(key, "keepalive"))
			l->keepalive = v != 0;
		else if (is(key, "proxyprotocol"))
			l->proxyprotocol = v != 0;
		else if (is(key, "is_udp"))
			l->is_udp = v != 0;
		else if (is(key, "is_unix"))
			;	/* the address is "unix:..." (entry_hostport) */
		else if (v != 0 && add_warning(s, &from, "max_connections "
		    "for one listen address: not done; ferryd's "
		    "max_connections is for each worker, all rules "
		    "together") == -1)
			return -1;
	}
	return 0;
}

/* A list of groups: listen, protocols. */
static int
entries(struct sslh *s, const struct source *src, const config_setting_t *c,
    int (*entry)(struct sslh *, const struct source *,
    const config_setting_t *))
{
	struct sslh_origin	 from = origin_of(src, c);
	int			 i, n = config_setting_length(c);

	if (!config_setting_is_list(c))
		return sslh_unreadable(s, &from, "\"%s\" must be a list "
		    "( { ... }, ... )", config_setting_name(c));
	for (i = 0; i < n; i++)
		if (entry(s, src, config_setting_get_elem(c, i)) == -1)
			return -1;
	return 0;
}

/* The top level's settings sslh stores as they are. */
static const struct {
	const char	*key;
	size_t		 offset;	/* of a struct sslh_str or _num */
	int		 type;		/* 's' string, 'b' boolean, 'n' number */
} top_keys[] = {
	{ "user", offsetof(struct sslh, user), 's' },
	{ "pidfile", offsetof(struct sslh, pidfile), 's' },
	{ "chroot", offsetof(struct sslh, chroot), 's' },
	{ "logfile", offsetof(struct sslh, logfile), 's' },
	{ "syslog_facility", offsetof(struct sslh, facility), 's' },
	{ "numeric", offsetof(struct sslh, numeric), 'b' },
	{ "on_timeout", offsetof(struct sslh, on_timeout), 's' },
	{ "timeout", offsetof(struct sslh, timeout), 'n' },
	{ "udp_max_connections", offsetof(struct sslh, udp_max), 'n' },
	{ "verbose", offsetof(struct sslh, verbose), 'n' },
	{ "foreground", offsetof(struct sslh, foreground), 'b' },
	{ "transparent", offsetof(struct sslh, transparent), 'b' }
};

static int
top_known(struct sslh *s, const struct sslh_origin *from,
    const config_setting_t *c, const char *key, bool *done)
{
	struct sslh_str	*str;
	struct sslh_num	*num;
	size_t		 i;

	*done = false;
	for (i = 0; i < sizeof(top_keys) / sizeof(top_keys[0]); i++) {
		if (strcmp(key, top_keys[i].key) != 0)
			continue;
		*done = true;
		str = (void *)((char *)s + top_keys[i].offset);
		num = (void *)((char *)s + top_keys[i].offset);
		/* "on-timeout" and "on_timeout" are one setting to sslh 2.x */
		if (str->from.text != NULL)
			return sslh_fail(s, from, "\"%s\" is given twice (also at "
			    "line %d)", config_setting_name(c), str->from.line);
		if (top_keys[i].type == 's') {
			str->from = *from;
			return get_string(s, from, c, &str->value);
		}
		num->from = *from;
		return get_number(s, from, c, top_keys[i].type == 'b' ||
		    strcmp(key, "verbose") == 0, &num->value);
	}
	return 0;
}

/* The rest of the top level: ferryd's way, a comment, or an error. */
static int
top_other(struct sslh *s, const struct source *src, const config_setting_t *c,
    const char *key)
{
	struct sslh_origin	 from = origin_of(src, c);
	long			 v = 0;

	if (strcmp(key, "listen") == 0)
		return entries(s, src, c, listen_entry);
	if (strcmp(key, "protocols") == 0)
		return entries(s, src, c, proto_entry);
	if (strcmp(key, "inetd") == 0 || strcmp(key, "version") == 0 ||
	    strncmp(key, "verbose_", 8) == 0) {
		/* verbose_*: sslh 2.x's levels, numbers; the rest flags */
		if (get_number(s, &from, c, strncmp(key, "verbose_", 8) != 0,
		    &v) == -1)
			return -1;
		if (is(key, "inetd")) {
			s->inetd.from = from;
			s->inetd.value = v;
			return 0;
		}
		return v == 0 ? 0 : add_note(s, &from, "%s: %s", key,
		    is(key, "version") ? "ferryd -V says its version" :
		    "ferryd's log_level (from verbose) says how much it logs");
	}
	/* sslh 2.x skips what it does not know, with a warning. */
	return add_warning(s, &from, "unknown setting \"%s\": skipped",
	    config_setting_name(c));
}

static int
read_top(struct sslh *s, const struct source *src)
{
	const config_setting_t	*root = config_root_setting(&src->lc), *c;
	struct sslh_origin	 from;
	char			 key[KEY_MAX];
	bool			 done;
	int			 i;

	for (i = 0; (c = config_setting_get_elem(root, i)) != NULL; i++) {
		key_of(c, key);
		from = origin_of(src, c);
		if (top_known(s, &from, c, key, &done) == -1 ||
		    (!done && top_other(s, src, c, key) == -1))
			return -1;
	}
	return 0;
}

/* Read the file: its lines kept for the comments, libconfig's parse. */
static int
read_file(struct sslh *s, const char *path, struct source *src)
{
	char	*p;
	size_t	 len = 0, i;

	if ((src->text = conf_file_read(path, &len, s->err, s->errlen)) ==
	    NULL || conf_file_check_nul(path, src->text, len, s->err,
	    s->errlen) == -1) {
		s->unreadable = true;	/* sslh cannot read it either */
		return -1;
	}
	config_init(&src->lc);
	src->lc_used = true;
	if (!config_read_string(&src->lc, src->text))
		return sslh_unreadable(s, &(struct sslh_origin){
		    config_error_line(&src->lc), "" }, "%s",
		    config_error_text(&src->lc));
	for (p = src->text, i = 1; *p != '\0'; p++)
		i += *p == '\n';
	if ((src->lines = calloc(i, sizeof(*src->lines))) == NULL)
		return sslh_fail(s, NULL, "out of memory");
	for (p = src->text; p != NULL; src->nlines++) {
		src->lines[src->nlines] = p + strspn(p, " \t");
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
		len = strlen(src->lines[src->nlines]);
		while (len > 0 && (src->lines[src->nlines][len - 1] == '\r' ||
		    src->lines[src->nlines][len - 1] == ' '))
			src->lines[src->nlines][--len] = '\0';
	}
	return read_top(s, src);
}

/* --ssh host:22: the file's protocol of that name takes the address. */
static int
cmdline_proto(struct sslh *s, const struct sslh_origin *from,
    const struct sslh_opt *o)
{
	struct sslh_proto	*p;
	const char		*name = strcmp(o->name, "ssl") == 0 ? "tls" :
				    o->name;
	size_t			 i;

	for (i = 0; i < s->nps; i++)
		if (strcmp(s->ps[i].name, name) == 0)
			return split_hostport(s, from, o->value,
			    s->ps[i].hostport);
	if ((p = new_proto(s, from, o->name)) == NULL)
		return -1;
	return split_hostport(s, from, o->value, p->hostport);
}

static int
cmdline_listen(struct sslh *s, const struct sslh_origin *from,
    const char *value)
{
	struct sslh_listen	*l;

	if ((l = conf_grow(s->ls, &s->capls, s->nls + 1, sizeof(*l))) == NULL)
		return sslh_fail(s, from, "out of memory");
	s->ls = l;
	l = &s->ls[s->nls++];
	memset(l, 0, sizeof(*l));
	l->from = *from;
	return split_hostport(s, from, value, l->hostport);
}

static int
cmdline_number(struct sslh *s, const struct sslh_origin *from,
    const char *value, struct sslh_num *n)
{
	char	*end;

	n->from = *from;
	errno = 0;
	n->value = strtol(value, &end, 10);
	if (value[0] == '\0' || *end != '\0' || errno != 0 || n->value < 0 ||
	    n->value > INT_MAX)
		return sslh_unreadable(s, from, "\"%s\" is not a number of "
		    "seconds", value);
	return 0;
}

/* The command line over the file, in its order. */
static int
apply_cmdline(struct sslh *s, const struct sslh_cmdline *cl)
{
	const struct sslh_opt	*o;
	struct sslh_origin	 from;
	struct sslh_str		*str;
	size_t			 i;
	int			 rc = 0;

	for (i = 0; rc == 0 && i < cl->nopts; i++) {
		o = &cl->opts[i];
		from.line = -1;
		from.text = o->shown;
		str = strcmp(o->name, "user") == 0 ? &s->user :
		    strcmp(o->name, "pidfile") == 0 ? &s->pidfile :
		    strcmp(o->name, "chroot") == 0 ? &s->chroot :
		    strcmp(o->name, "logfile") == 0 ? &s->logfile :
		    strcmp(o->name, "syslog-facility") == 0 ? &s->facility :
		    strcmp(o->name, "on-timeout") == 0 ? &s->on_timeout : NULL;
		if (str != NULL) {
			str->from = from;
			str->value = o->value;
		} else if (strcmp(o->name, "listen") == 0)
			rc = cmdline_listen(s, &from, o->value);
		else if (strcmp(o->name, "timeout") == 0)
			rc = cmdline_number(s, &from, o->value, &s->timeout);
		else if (strcmp(o->name, "udp-max-connections") == 0)
			rc = cmdline_number(s, &from, o->value, &s->udp_max);
		else if (strcmp(o->name, "verbose") == 0 && o->value != NULL)
			/* sslh 2.x's level: 1 and up log connections */
			rc = cmdline_number(s, &from, o->value, &s->verbose);
		else if (strncmp(o->name, "verbose-", 8) == 0)
			rc = add_note(s, &from, "%s: ferryd's log_level (from "
			    "verbose) says how much it logs", o->shown);
		else if (strcmp(o->name, "prefix") == 0)
			/* Its settings table is echosrv's too. */
			rc = add_note(s, &from, "--prefix is for sslh's test "
			    "server, echosrv: sslh takes it and does nothing");
		else if (o->value == NULL) {
			/* foreground, background, inetd, transparent,
			 * numeric, verbose */
			struct sslh_num *n = is(o->name, "foreground") ?
			    &s->foreground : is(o->name, "inetd") ?
			    &s->inetd : is(o->name, "background") ?
			    &s->background : is(o->name, "transparent") ?
			    &s->transparent : is(o->name, "numeric") ?
			    &s->numeric : &s->verbose;

			n->value = n == &s->verbose && n->from.text != NULL ?
			    n->value + 1 : 1;
			n->from = from;
		} else
			rc = cmdline_proto(s, &from, o);
	}
	return rc;
}

static void
sslh_free(struct sslh *s, struct source *src)
{
	size_t	i;

	for (i = 0; i < s->nps; i++) {
		free(s->ps[i].sni.v);
		free(s->ps[i].sni.line);
		free(s->ps[i].alpn.v);
		free(s->ps[i].alpn.line);
		free(s->ps[i].regex.v);
		free(s->ps[i].regex.line);
	}
	free(s->ps);
	free(s->ls);
	free(s->notes);
	if (src->lc_used)
		config_destroy(&src->lc);
	free(src->lines);
	free(src->text);
}

int
sslh_convert(const struct sslh_cmdline *cl, struct conf_conv *out,
    struct sslh_run *run, char *err, size_t errlen)
{
	struct sslh	s;
	struct source	src;
	int		rc = 0;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	memset(&src, 0, sizeof(src));
	s.path = sslh_source(cl);
	s.err = err;
	s.errlen = errlen;
	s.hosts_dir = cl->hosts_dir;
	if (cl->config != NULL)
		rc = read_file(&s, cl->config, &src);
	if (rc == 0)
		rc = apply_cmdline(&s, cl);
	/* What ferryd's peek_timeout takes, said at sslh's setting. */
	if (rc == 0 && s.timeout.from.text != NULL &&
	    (s.timeout.value < 1 || s.timeout.value > 3600))
		rc = sslh_fail(&s, &s.timeout.from, "timeout must be 1 to 3600 "
		    "seconds");
	if (rc == 0 && s.nps == 0)
		rc = sslh_fail(&s, NULL, "no protocol to forward to (give "
		    "--ssh, --tls, ... or protocols in the file)");
	/* sslh -i needs no listen: the rule is the connection's address. */
	if (rc == 0 && s.nls == 0 && s.inetd.value != 0 &&
	    cl->stdin_address != NULL)
		rc = cmdline_listen(&s, &s.inetd.from, cl->stdin_address);
	if (rc == 0 && s.nls == 0)
		rc = sslh_fail(&s, s.inetd.value != 0 ? &s.inetd.from : NULL,
		    s.inetd.value != 0 ? "inetd mode "
		    "without listen, and standard input is not a TCP "
		    "connection to take the address from" : "no address to "
		    "listen on (give --listen HOST:PORT or listen in the "
		    "file)");
	if (rc == 0)
		rc = sslh_write(&s, out);
	if (rc == 0 && (out->warnings = sslh_warnings(&s)) == NULL)
		rc = sslh_fail(&s, NULL, "out of memory");
	run->foreground = s.foreground.value != 0 && s.background.value == 0;
	run->inetd = s.inetd.value != 0;
	sslh_free(&s, &src);
	return rc == 0 ? 0 : s.unreadable ? SSLH_EXIT_USAGE : SSLH_EXIT_FAILURE;
}

struct conf *
conf_load_sslh(const struct sslh_cmdline *cl, int *status, char *err,
    size_t errlen)
{
	struct conf_loader	 ld = { sslh_source(cl), err, errlen, NULL,
	    false };
	struct conf_conv	 conv;
	struct conf_text	 ctext;
	struct conf		*cfg = NULL;
	char			*files[2] = { NULL, NULL };
	int			*filemap = NULL;
	size_t			 i;
	struct sslh_run		 run;
	int			 rc, unwanted;
	int			*st = status != NULL ? status : &unwanted;

	*st = SSLH_EXIT_FAILURE;
	if ((rc = sslh_convert(cl, &conv, &run, err, errlen)) != 0) {
		*st = rc;
		return NULL;
	}
	conf_warn_lines(conv.warnings);
	/*
	 * Lines made from the command line (-1) name no line of the file:
	 * what the loader finds wrong in them is the command line's.
	 */
	if ((files[0] = strdup(ld.path)) != NULL &&
	    (files[1] = strdup(SSLH_CMDLINE)) != NULL &&
	    (filemap = calloc(conv.nlines + 1, sizeof(*filemap))) != NULL) {
		for (i = 0; i < conv.nlines; i++)
			filemap[i] = conv.linemap[i] < 0;
	}
	if (filemap != NULL && conf_text_from_lines(files, 2, conv.text,
	    filemap, conv.linemap, conv.nlines, &ctext) == 0) {
		ld.text = &ctext;
		cfg = conf_load_text(&ld, CONF_SYNTAX_SSLH, &ctext);
		conf_text_free(&ctext);
		/* sslh's status for what the loader failed on */
		if (cfg == NULL)
			*st = ld.failure == CONF_FAILED_ADDRESS ?
			    SSLH_EXIT_RESOLVE : ld.failure == CONF_FAILED_USER ?
			    SSLH_EXIT_USER : ld.failure == CONF_FAILED_PIDFILE ?
			    SSLH_EXIT_PIDFILE : SSLH_EXIT_FAILURE;
	} else
		snprintf(err, errlen, "%s: out of memory", ld.path);
	conf_conv_free(&conv);
	free(files[0]);
	free(files[1]);
	free(filemap);
	return cfg;
}
