/*
 * conf_sslh_out.c - sslh's settings (conf_sslh_model.h) written as the
 * equivalent ferryd.conf: a rule per listen address, whose routes are
 * sslh's protocols in their order.
 *
 * Each TCP rule has probes = "sslh": its routes judge the first bytes
 * with sslh's probes and in sslh's order (tcp_peek.c), which gives a
 * connection that no probe matched to the last protocol, whatever it
 * is; a last anyprot, which sslh never probes, becomes the route without
 * a match key.  A silent client goes, after
 * sslh's timeout, to the protocol on_timeout names (by default "ssh"),
 * or to the first one if there is none of that name: on_timeout always
 * names a route.  sslh's patterns are fnmatch(3) globs (SNI, ALPN) and
 * PCRE (regex_patterns, Debian builds sslh with pcreposix): what has the
 * same meaning in ferryd's matches is written so, the rest is an error.
 */
#include "ferryd.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_sslh.h"
#include "conf_sslh_model.h"

#define REGEX_MAX	1024
#define ERE_SPECIAL	".[]()*+?{}|^$\\"

/* The kernel's keepalive timers, which sslh's SO_KEEPALIVE keeps. */
#define KEEPALIVE_LINUX	"idle = 7200; interval = 75; count = 9;"

static void
out_origin(struct conf_out *o, const char *indent,
    const struct sslh_origin *from)
{
	char	what[32];

	if (from->line > 0) {
		snprintf(what, sizeof(what), "line %d", from->line);
		conf_out_comment(o, from->line, indent, what, from->text);
	} else
		conf_out_comment(o, from->line, indent, SSLH_CMDLINE, from->text);
}

static int
hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The byte a PCRE escape stands for (\x41, \t, ...), or -1. */
static int
escaped_byte(const char **p)
{
	const char	*s = *p;
	static const char from[] = "tnrfvea", to[] = "\t\n\r\f\v\033\a";
	const char	*c;

	if (s[1] == 'x' && hex(s[2]) >= 0 && hex(s[3]) >= 0) {
		*p = s + 3;
		return hex(s[2]) * 16 + hex(s[3]);
	}
	if (s[1] != '\0' && (c = strchr(from, s[1])) != NULL) {
		*p = s + 1;
		return to[c - from];
	}
	return -1;
}

/* Append n bytes to the ERE being made. */
static bool
put(char *out, size_t *len, const char *s, size_t n)
{
	if (*len + n >= REGEX_MAX)
		return false;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
	return true;
}

/* A bracket expression from p ('['), its escapes made bytes; NULL: no. */
static const char *
bracket(const char *p, char *out, size_t *len, const char **why)
{
	const char	*start = p++;
	char		 b;
	int		 c;

	p += *p == '^';
	p += *p == ']';
	for (; *p != ']'; p++) {
		if (*p == '\0') {
			*why = "a '[' without its ']'";
			return NULL;
		}
		if (*p == '[' && p[1] != '\0' && strchr(":=.", p[1]) != NULL) {
			/* [:alpha:], [=a=], [.a.]: to their own end */
			char	end[3] = { p[1], ']', '\0' };

			if ((p = strstr(p + 2, end)) == NULL) {
				*why = "a '[:' without its ':]'";
				return NULL;
			}
			p++;
			continue;
		}
		if (*p != '\\')
			continue;
		if (!put(out, len, start, (size_t)(p - start)))
			return NULL;
		if ((c = escaped_byte(&p)) <= 0 || c == ']' || c == '^' ||
		    c == '-' || c == '[') {
			*why = "an escape in a bracket expression (POSIX "
			    "takes '\\' there as itself)";
			return NULL;
		}
		b = (char)c;
		if (!put(out, len, &b, 1))
			return NULL;
		start = p + 1;
	}
	return put(out, len, start, (size_t)(p + 1 - start)) ? p : NULL;
}

/* One PCRE escape at *p into the ERE; false with why if it has none. */
static bool
escape(const char **p, char *out, size_t *len, const char **why)
{
	const char	*s = *p;
	char		 b[2] = { '\\', 0 };
	int		 c;

	if (s[1] == 'd' || s[1] == 'D') {
		*p = s + 1;
		return put(out, len, s[1] == 'd' ? "[0-9]" : "[^0-9]", 5 +
		    (s[1] == 'D'));
	}
	if (s[1] != '\0' && strchr("wWsSbB", s[1]) != NULL) {
		*p = s + 1;		/* glibc's regcomp has these */
		return put(out, len, s, 2);
	}
	if ((c = escaped_byte(p)) > 0) {
		b[1] = (char)c;
		return strchr(ERE_SPECIAL, c) != NULL ? put(out, len, b, 2) :
		    put(out, len, b + 1, 1);
	}
	if (c == 0 || s[1] == '\0' || (s[1] >= 'a' && s[1] <= 'z') ||
	    (s[1] >= 'A' && s[1] <= 'Z') || (s[1] >= '0' && s[1] <= '9')) {
		*why = c == 0 ? "a NUL byte" : "a PCRE escape with no POSIX "
		    "equivalent";
		return false;
	}
	*p = s + 1;
	return put(out, len, s, 2);
}

/*
 * A PCRE pattern as an equivalent POSIX ERE in out, or -1 with why:
 * escapes of bytes become the bytes, \d a class; (?...), lazy and
 * possessive quantifiers and back references have no equivalent.
 */
static int
pcre_to_ere(const char *re, char *out, const char **why)
{
	const char	*p;
	size_t		 len = 0;

	*why = "too long";
	out[0] = '\0';
	for (p = re; *p != '\0'; p++) {
		if (*p == '[') {
			if ((p = bracket(p, out, &len, why)) == NULL)
				return -1;
			continue;
		}
		if (*p == '\\') {
			if (!escape(&p, out, &len, why))
				return -1;
			continue;
		}
		if (*p == '(' && p[1] == '?') {
			*why = "a PCRE group (?...)";
			return -1;
		}
		if (strchr("*+?}", *p) != NULL && (p[1] == '?' || p[1] == '+')) {
			*why = "a lazy or possessive quantifier";
			return -1;
		}
		if (!put(out, &len, p, 1))
			return -1;
	}
	return 0;
}

/* Check each regex; write them as regex = [ ... ] unless o is NULL. */
static int
out_regex(struct sslh *s, struct conf_out *o, const struct sslh_list *l)
{
	struct sslh_origin	 from = l->from;
	const char		*why;
	char			 ere[REGEX_MAX], msg[256];
	regex_t			 rx;
	size_t			 i;
	int			 rc;

	for (i = 0; i < l->n; i++) {
		from.line = l->line[i];
		if (pcre_to_ere(l->v[i], ere, &why) == -1)
			return sslh_fail(s, &from, "regex_patterns \"%s\": %s",
			    l->v[i], why);
		if ((rc = regcomp(&rx, ere, REG_EXTENDED | REG_NOSUB)) != 0) {
			regerror(rc, &rx, msg, sizeof(msg));
			return sslh_fail(s, &from, "regex_patterns \"%s\": %s",
			    l->v[i], msg);
		}
		regfree(&rx);
		if (o == NULL)
			continue;
		conf_out_printf(o, from.line, "%s", i == 0 ? "regex = [ " :
		    ", ");
		conf_out_quoted(o, from.line, ere);
	}
	if (o != NULL)
		conf_out_printf(o, l->from.line, " ]; ");
	return 0;
}

/*
 * sni_hostnames and alpn_protocols are fnmatch(3) globs, as ferryd's
 * sni and alpn take them (route_glob_match); "*." and a name matches
 * one label or more, in ferryd as in sslh (a '*' matches dots too).
 * A backslash escape has no equivalent.
 */
static int
out_globs(struct sslh *s, struct conf_out *o, const struct sslh_list *l,
    const char *key, bool sni)
{
	struct sslh_origin	from = l->from;
	const char		*g;
	size_t			 i;

	for (i = 0; i < l->n; i++) {
		g = l->v[i];
		from.line = l->line[i];
		if (strchr(g, '\\') != NULL || g[0] == '\0')
			return sslh_fail(s, &from, "%s \"%s\": ferryd matches "
			    "fnmatch(3) globs without a backslash escape; this "
			    "pattern has no equivalent", sni ? "sni_hostnames" :
			    "alpn_protocols", g);
		conf_out_printf(o, from.line, "%s", i == 0 ? "" : ", ");
		if (i == 0)
			conf_out_printf(o, from.line, "%s = [ ", key);
		conf_out_quoted(o, from.line, g);
	}
	if (l->n > 0)
		conf_out_printf(o, l->from.line, " ]; ");
	return 0;
}

/* What a protocol matches, as a route's keys. */
static int
out_match(struct sslh *s, struct conf_out *o, const struct sslh_proto *p,
    bool last)
{
	int	num = p->from.line;
	long	minlength = p->minlength;

	/* sslh never probes a last anyprot, nor checks its minlength. */
	if (last && strcmp(p->name, "anyprot") == 0)
		return 0;
	/* sslh's tinc probe waits for its two bytes, "0 ". */
	if (strcmp(p->name, "tinc") == 0 && minlength < 2)
		minlength = 2;
	if (minlength > 0)
		conf_out_printf(o, num, "min_length = %ld; ", minlength);
	if (strcmp(p->name, "tls") == 0 && p->sni.n + p->alpn.n > 0)
		return out_globs(s, o, &p->sni, "sni", true) == -1 ||
		    out_globs(s, o, &p->alpn, "alpn", false) == -1 ? -1 : 0;
	if (strcmp(p->name, "regex") == 0) {
		if (p->regex.n == 0)
			return sslh_fail(s, &p->from, "a regex protocol needs "
			    "regex_patterns");
		return out_regex(s, o, &p->regex);
	}
	if (strcmp(p->name, "tinc") == 0)
		conf_out_printf(o, num, "regex = [ \"^0 \" ]; ");
	else if (last && strcmp(p->name, "timeout") == 0)
		/* sslh's timeout probe takes anything, even while another
		 * waits: a pattern, not the default route, which waits. */
		conf_out_printf(o, num, "regex = [ \"\" ]; ");
	else
		conf_out_printf(o, num, "protocol = \"%s\"; ",
		    strcmp(p->name, "anyprot") == 0 ||
		    strcmp(p->name, "timeout") == 0 ? "any" : p->name);
	return 0;
}

/*
 * The PROXY header protocol p's backend gets.  A client's own header (a
 * listen entry with proxyprotocol: true) goes on as it came, unless p
 * says 0 (taken away) or a version (a header of ferryd's, in its place).
 */
static const char *
route_send_proxy(const struct sslh_proto *p, const struct sslh_listen *l)
{
	switch (p->proxyprotocol) {
	case 1:
		return " send_proxy = \"v1\";";
	case 2:
		return " send_proxy = \"v2\";";
	case -1:
		return l->proxyprotocol ? " send_proxy = \"pass\";" : "";
	default:
		return "";
	}
}

/* The route of protocol p, for listen l: what it matches, where it goes. */
static int
out_route(struct sslh *s, struct conf_out *o, const struct sslh_proto *p,
    const struct sslh_listen *l, bool last, bool comma)
{
	int	num = p->from.line;

	out_origin(o, "      ", &p->from);
	if (last)
		conf_out_printf(o, num, "      # the last protocol: sslh gives "
		    "it what no probe matched\n");
	conf_out_printf(o, num, "      { name = \"%s\"; ", p->route);
	if (out_match(s, o, p, last) == -1)
		return -1;
	conf_out_printf(o, num, "connect = ");
	if (p->max_connections > 0) {
		conf_out_printf(o, num, "( { address = ");
		conf_out_quoted(o, num, p->hostport);
		conf_out_printf(o, num, "; max_connections = %ld; } )",
		    p->max_connections);
	} else
		conf_out_quoted(o, num, p->hostport);
	/* A Unix client has no address to leave from. */
	conf_out_printf(o, num, ";%s%s%s%s }%s\n", route_send_proxy(p, l),
	    p->transparent && strncmp(l->hostport, "unix:", 5) != 0 ?
	    " transparent = true;" : "", p->keepalive ? " keepalive = { "
	    KEEPALIVE_LINUX " };" : "", p->quiet ? " no_access_log = true;" :
	    "", comma ? "," : "");
	return 0;
}

/* The protocols a listen address of this kind (TCP, UDP) goes to. */
static size_t
count_kind(const struct sslh *s, bool udp, size_t *last)
{
	size_t	i, n = 0;

	for (i = 0; i < s->nps; i++)
		if (s->ps[i].is_udp == udp) {
			n++;
			*last = i;
		}
	return n;
}

/*
 * on_timeout: sslh looks for the protocol of that name (by default ssh),
 * the first of them; none: the first protocol.
 */
static const struct sslh_proto *
timeout_route(const struct sslh *s)
{
	const char	*name = s->on_timeout.value != NULL ?
			    s->on_timeout.value : "ssh";
	size_t		 i;

	for (i = 0; i < s->nps; i++)
		if (!s->ps[i].is_udp && strcmp(s->ps[i].name, name) == 0)
			return &s->ps[i];
	for (i = 0; s->ps[i].is_udp; i++)
		;
	return &s->ps[i];
}

static void
out_rule_head(struct sslh *s, struct conf_out *o, const struct sslh_listen *l,
    size_t i)
{
	int	num = l->from.line;

	out_origin(o, "  ", &l->from);
	if (s->nls == 1)
		conf_out_printf(o, num, "  {\n    name = \"sslh\";\n");
	else
		conf_out_printf(o, num, "  {\n    name = \"sslh%zu\";\n", i + 1);
	conf_out_printf(o, num, "    listen = ");
	conf_out_quoted(o, num, l->hostport);
	conf_out_printf(o, num, ";\n");
}

/* Whether ferryd runs sslh's probe name on datagrams (udp_route.c). */
static bool
probe_on_udp(const char *name)
{
	static const char *const names[] = { "openvpn", "wireguard",
	    "teamspeak", "regex", "anyprot" };
	size_t	i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/*
 * Whether protocol p may be a route of a listen address of its kind:
 * ferryd probes WireGuard and TeamSpeak on UDP only, and of sslh's
 * probes only these on UDP.
 */
static int
check_route_kind(struct sslh *s, const struct sslh_proto *p)
{
	if (p->is_udp && !probe_on_udp(p->name))
		return sslh_fail(s, &p->from, "probe \"%s\" on UDP: ferryd's "
		    "UDP probes are openvpn, wireguard, teamspeak, regex and "
		    "anyprot", p->name);
	if (!p->is_udp && (strcmp(p->name, "wireguard") == 0 ||
	    strcmp(p->name, "teamspeak") == 0))
		return sslh_fail(s, &p->from, "probe \"%s\": ferryd probes "
		    "it on UDP only (is_udp: true)", p->name);
	return 0;
}

/* The routes of l, its kind's protocols in sslh's order. */
static int
out_routes(struct sslh *s, struct conf_out *o, const struct sslh_listen *l)
{
	size_t	j, last = 0;

	(void)count_kind(s, l->is_udp, &last);
	conf_out_printf(o, l->from.line, "    routes = (\n");
	for (j = 0; j < s->nps; j++)
		if (s->ps[j].is_udp == l->is_udp &&
		    (check_route_kind(s, &s->ps[j]) == -1 ||
		    out_route(s, o, &s->ps[j], l, j == last, j != last) == -1))
			return -1;
	conf_out_printf(o, l->from.line, "    );\n");
	return 0;
}

/*
 * sslh's udp_timeout is each protocol's, ferryd's session_timeout its
 * rule's: the longest of them.
 */
static void
out_udp_timeout(struct sslh *s, struct conf_out *o, int num)
{
	long	t, longest = 0;
	bool	differ = false;
	size_t	i;

	for (i = 0; i < s->nps; i++) {
		if (!s->ps[i].is_udp)
			continue;
		t = s->ps[i].udp_timeout != -1 ? s->ps[i].udp_timeout :
		    SSLH_UDP_TIMEOUT;
		differ |= longest != 0 && t != longest;
		if (t > longest)
			longest = t;
	}
	if (differ)
		conf_out_comment(o, num, "    ", "  note", "the protocols' "
		    "udp_timeout differ: ferryd's session_timeout is the "
		    "rule's, the longest of them");
	conf_out_printf(o, num, "    session_timeout = %ld;\n", longest);
}

/*
 * A UDP listen address: its one protocol; or several, routes that sslh's
 * UDP probes pick from each new client's first datagram.
 */
static int
out_udp_rule(struct sslh *s, struct conf_out *o, const struct sslh_listen *l,
    size_t i)
{
	const struct sslh_proto	*p;
	size_t			 last = 0, n = count_kind(s, true, &last);
	int			 num = l->from.line;

	if (n == 0)
		return sslh_fail(s, &l->from, "no protocol is_udp for this "
		    "UDP address");
	p = &s->ps[last];
	out_rule_head(s, o, l, i);
	conf_out_printf(o, num, "    protocol = \"udp\";\n");
	if (n == 1) {	/* sslh's last protocol takes what none matched */
		out_origin(o, "    ", &p->from);
		conf_out_printf(o, p->from.line, "    connect = ");
		conf_out_quoted(o, p->from.line, p->hostport);
		conf_out_printf(o, p->from.line, ";\n");
		num = p->from.line;
	} else {
		conf_out_printf(o, num, "    # sslh's UDP probes, on each new "
		    "client's first datagram\n    probes = \"sslh\";\n");
		if (out_routes(s, o, l) == -1)
			return -1;
	}
	out_udp_timeout(s, o, num);
	if (s->udp_max.from.text != NULL) {
		out_origin(o, "    ", &s->udp_max.from);
		conf_out_printf(o, s->udp_max.from.line, "    max_sessions = "
		    "%ld;\n", s->udp_max.value);
	}
	return 0;
}

/* The rule-wide settings of a TCP listen address. */
static void
out_rule_settings(struct sslh *s, struct conf_out *o,
    const struct sslh_listen *l)
{
	int	num = l->from.line;

	/* A protocol's keepalive is its route's (the backend's leg). */
	if (l->keepalive)
		conf_out_printf(o, num, "    # keepalive on the client's leg, "
		    "with the kernel's timers as sslh has them\n"
		    "    keepalive = { " KEEPALIVE_LINUX " legs = \"client\"; "
		    "};\n");
	if (l->proxyprotocol)
		conf_out_printf(o, num, "    # a client's PROXY header is "
		    "optional, as in sslh\n    accept_proxy = \"optional\";\n");
	if (s->transparent.value != 0) {
		out_origin(o, "    ", &s->transparent.from);
		conf_out_printf(o, s->transparent.from.line,
		    "    transparent = true;\n");
	}
	if (s->timeout.from.text != NULL) {
		out_origin(o, "    ", &s->timeout.from);
		conf_out_printf(o, s->timeout.from.line, "    peek_timeout = "
		    "%ld;\n", s->timeout.value);
	} else
		conf_out_printf(o, num, "    peek_timeout = %d;   # sslh's "
		    "default\n", SSLH_TIMEOUT_DEFAULT);
	if (s->on_timeout.from.text != NULL)
		out_origin(o, "    ", &s->on_timeout.from);
	else
		conf_out_printf(o, num, "    # sslh's on-timeout: ssh, else "
		    "the first protocol\n");
	conf_out_printf(o, s->on_timeout.from.line, "    on_timeout = \"%s\";\n",
	    timeout_route(s)->route);
	conf_out_printf(o, num, "    # sslh's probes, in sslh's order\n"
	    "    probes = \"sslh\";\n");
}

static int
out_tcp_rule(struct sslh *s, struct conf_out *o, const struct sslh_listen *l,
    size_t i)
{
	size_t	last = 0;

	if (count_kind(s, false, &last) == 0)
		return sslh_fail(s, &l->from, "no TCP protocol for this "
		    "address (all are is_udp)");
	out_rule_head(s, o, l, i);
	out_rule_settings(s, o, l);
	return out_routes(s, o, l);
}

/*
 * Route names: sslh's protocol names, "_2" and on for the same again
 * (among those of one kind, TCP or UDP: they make routes of rules apart).
 */
static void
name_routes(struct sslh *s)
{
	size_t	i, j, n;

	for (i = 0; i < s->nps; i++) {
		for (j = 0, n = 1; j < i; j++)
			n += strcmp(s->ps[j].name, s->ps[i].name) == 0 &&
			    s->ps[j].is_udp == s->ps[i].is_udp;
		if (n == 1)
			snprintf(s->ps[i].route, sizeof(s->ps[i].route), "%s",
			    s->ps[i].name);
		else
			snprintf(s->ps[i].route, sizeof(s->ps[i].route),
			    "%s_%zu", s->ps[i].name, n);
	}
}

static void
out_string(struct conf_out *o, const struct sslh_str *st, const char *key)
{
	if (st->from.text == NULL)
		return;
	out_origin(o, "", &st->from);
	conf_out_printf(o, st->from.line, "%s = ", key);
	conf_out_quoted(o, st->from.line, st->value);
	conf_out_printf(o, st->from.line, ";\n");
}

/*
 * sslh's line per connection (its log_connection), to syslog as "sslh"
 * under its facility (auth by default; "none": no syslog); with
 * numeric, ports as numbers.
 */
static void
out_syslog(struct sslh *s, struct conf_out *o)
{
	const struct sslh_str	*f = &s->facility;
	int			 num = f->from.line;

	conf_out_printf(o, 0, "# sslh's name in syslog, and its line for "
	    "each connection\nsyslog_ident = \"sslh\";\n");
	if (f->from.text != NULL)
		out_origin(o, "", &f->from);
	if (f->from.text != NULL && strcmp(f->value, "none") == 0) {
		conf_out_comment(o, num, "", "  note", "no line for each "
		    "connection; ferryd's own messages go to syslog all the "
		    "same, as a daemon's");
		return;
	}
	conf_out_printf(o, num, "syslog_facility = ");
	conf_out_quoted(o, num, f->from.text != NULL ? f->value : "auth");
	conf_out_printf(o, num, ";%s\naccess_log = \"syslog\";\n",
	    f->from.text != NULL ? "" : "   # sslh's default");
	if (s->numeric.value != 0)
		out_origin(o, "", &s->numeric.from);
	conf_out_printf(o, s->numeric.from.line, "access_log_format = "
	    "\"%s\";\n", s->numeric.value != 0 ? "sslh-numeric" : "sslh");
}

static void
out_globals(struct sslh *s, struct conf_out *o)
{
	size_t	i;

	for (i = 0; i < s->nnotes; i++) {
		out_origin(o, "", &s->notes[i].from);
		conf_out_comment(o, s->notes[i].from.line, "", "  note",
		    s->notes[i].text);
	}
	out_string(o, &s->user, "user");
	out_string(o, &s->pidfile, "pidfile");
	out_string(o, &s->chroot, "chroot");
	out_string(o, &s->logfile, "log_file");
	out_syslog(s, o);
	if (s->verbose.value > 0) {
		out_origin(o, "", &s->verbose.from);
		conf_out_printf(o, s->verbose.from.line, "log_level = \"%s\";\n",
		    s->verbose.value > 1 ? "debug" : "info");
	}
	if (s->foreground.value != 0) {
		out_origin(o, "", &s->foreground.from);
		conf_out_comment(o, s->foreground.from.line, "", "  note",
		    "ferryd --sslh stays in the foreground; with this file: "
		    "ferryd -f");
	}
	if (s->inetd.value != 0) {
		out_origin(o, "", &s->inetd.from);
		conf_out_comment(o, s->inetd.from.line, "", "  note",
		    "sslh's inetd mode; with this file: ferryd -i");
	}
}


int
sslh_write(struct sslh *s, struct conf_conv *conv)
{
	struct conf_out	o;
	size_t		i;
	int		rc = 0;
	bool		cmdline;

	memset(&o, 0, sizeof(o));
	name_routes(s);
	cmdline = strcmp(s->path, SSLH_CMDLINE) == 0;
	conf_out_header(&o, cmdline ? "sslh's command line" : "sslh.cfg",
	    cmdline ? NULL : s->path, "# Each setting comes after the sslh "
	    "setting it was made from (a line of\n# sslh.cfg or an option).");
	out_globals(s, &o);
	conf_out_printf(&o, 0, "\nrules = (\n");
	for (i = 0; rc == 0 && i < s->nls; i++) {
		rc = s->ls[i].is_udp ? out_udp_rule(s, &o, &s->ls[i], i) :
		    out_tcp_rule(s, &o, &s->ls[i], i);
		conf_out_printf(&o, s->ls[i].from.line, "  }%s\n",
		    i + 1 < s->nls ? "," : "");
	}
	conf_out_printf(&o, 0, ");\n");
	if (rc == -1) {
		free(o.buf);
		free(o.map);
		return -1;
	}
	if (conf_out_finish(&o, conv) == -1)
		return sslh_fail(s, NULL, "out of memory");
	return 0;
}
