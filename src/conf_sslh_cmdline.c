/*
 * conf_sslh_cmdline.c - sslh's command line, read as sslh 1.20 reads it
 * (getopt_long_only: "--ssh", "-ssh" and "--ssh=" alike, letters
 * grouped, -F's file optional) and as sslh 2.x reads it ("-F FILE").
 * The options are kept in their order, copied (the protocols in sslh
 * 2.x's): conf_sslh.c applies them over the file, at every load.
 */
#include "ferryd.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf_sslh.h"

#define MSG_MAX		512

/* sslh's options; a protocol's name is an option that takes an address. */
enum opt_kind {
	OPT_FLAG,
	OPT_VALUE,
	OPT_CONFIG,	/* -F, its file optional */
	OPT_PROTO,
	OPT_LEVEL	/* sslh 2.x's -v N, --verbose-X=N; 1.x's -v alone */
};

static const struct {
	const char	*name;
	char		 letter;	/* 0: none */
	enum opt_kind	 kind;
} options[] = {
	{ "inetd", 'i', OPT_FLAG }, { "foreground", 'f', OPT_FLAG },
	{ "background", 0, OPT_FLAG }, { "transparent", 0, OPT_FLAG },
	{ "numeric", 'n', OPT_FLAG }, { "verbose", 'v', OPT_LEVEL },
	{ "verbose-config", 0, OPT_LEVEL },
	{ "verbose-config-error", 0, OPT_LEVEL },
	{ "verbose-connections", 0, OPT_LEVEL },
	{ "verbose-connections-try", 0, OPT_LEVEL },
	{ "verbose-connections-error", 0, OPT_LEVEL },
	{ "verbose-fd", 0, OPT_LEVEL }, { "verbose-packets", 0, OPT_LEVEL },
	{ "verbose-probe-info", 0, OPT_LEVEL },
	{ "verbose-probe-error", 0, OPT_LEVEL },
	{ "verbose-system-error", 0, OPT_LEVEL },
	{ "verbose-int-error", 0, OPT_LEVEL },
	{ "syslog-facility", 0, OPT_VALUE }, { "logfile", 0, OPT_VALUE },
	{ "udp-max-connections", 0, OPT_VALUE }, { "prefix", 0, OPT_VALUE },
	{ "version", 'V', OPT_FLAG }, { "convert", 0, OPT_FLAG },
	{ "user", 'u', OPT_VALUE }, { "config", 'F', OPT_CONFIG },
	{ "pidfile", 'P', OPT_VALUE }, { "chroot", 'C', OPT_VALUE },
	{ "timeout", 't', OPT_VALUE }, { "on-timeout", 0, OPT_VALUE },
	{ "listen", 'p', OPT_VALUE },
	{ "ssh", 0, OPT_PROTO }, { "openvpn", 0, OPT_PROTO },
	{ "tinc", 0, OPT_PROTO }, { "xmpp", 0, OPT_PROTO },
	{ "http", 0, OPT_PROTO }, { "tls", 0, OPT_PROTO },
	{ "ssl", 0, OPT_PROTO }, { "adb", 0, OPT_PROTO },
	{ "socks5", 0, OPT_PROTO }, { "anyprot", 0, OPT_PROTO },
	{ "wireguard", 0, OPT_PROTO }, { "syslog", 0, OPT_PROTO },
	{ "msrdp", 0, OPT_PROTO }, { "teamspeak", 0, OPT_PROTO }
};
#define NOPTIONS	(sizeof(options) / sizeof(options[0]))

static int __attribute__((format(printf, 3, 4)))
cmdline_fail(char *err, size_t errlen, const char *fmt, ...)
{
	char	msg[MSG_MAX];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: %s", SSLH_CMDLINE, msg);
	return -1;
}

static int
find_long(const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < NOPTIONS; i++)
		if (strlen(options[i].name) == len &&
		    strncmp(options[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

static int
find_short(char c)
{
	size_t	i;

	for (i = 0; i < NOPTIONS; i++)
		if (options[i].letter == c)
			return (int)i;
	return -1;
}

/* -F alone: the files sslh looks for. */
static const char *
default_config(void)
{
	return access("/etc/sslh/sslh.cfg", F_OK) == 0 ?
	    "/etc/sslh/sslh.cfg" : "/etc/sslh.cfg";
}

static int
add_opt(struct sslh_cmdline *cl, int o, const char *value, char *err,
    size_t errlen)
{
	char		 path[PATH_MAX];
	struct sslh_opt	*v;

	if (options[o].kind == OPT_CONFIG) {
		if (value == NULL)
			value = default_config();
		free(cl->config);
		cl->config = strdup(realpath(value, path) != NULL ? path :
		    value);
		return cl->config != NULL ? 0 :
		    cmdline_fail(err, errlen, "out of memory");
	}
	if (strcmp(options[o].name, "convert") == 0 ||
	    strcmp(options[o].name, "version") == 0) {
		*(options[o].name[0] == 'c' ? &cl->convert : &cl->version) =
		    true;
		return 0;
	}
	if ((v = realloc(cl->opts, (cl->nopts + 1) * sizeof(*v))) == NULL)
		return cmdline_fail(err, errlen, "out of memory");
	cl->opts = v;
	v = &cl->opts[cl->nopts];
	v->name = strdup(options[o].name);
	v->value = value != NULL ? strdup(value) : NULL;
	if ((v->shown = malloc(strlen(v->name) + (value != NULL ?
	    strlen(value) : 0) + 4)) != NULL)
		sprintf(v->shown, "--%s%s%s", v->name, value != NULL ? " " :
		    "", value != NULL ? value : "");
	if (v->name == NULL || (value != NULL && v->value == NULL) ||
	    v->shown == NULL) {
		free(v->name);
		free(v->value);
		free(v->shown);
		return cmdline_fail(err, errlen, "out of memory");
	}
	cl->nopts++;
	return 0;
}

/* Whether s is all decimal digits ("" is: nothing follows a letter). */
static bool
digits(const char *s)
{
	return strspn(s, "0123456789") == strlen(s);
}

/*
 * One argument at argv[*i] and the value it may take from the next.
 * getopt_long_only's way: "--name", "-name" and "--name=value" are long
 * options; otherwise "-fv" are letters, "-pHOST:PORT" or "-p HOST:PORT".
 */
static int
parse_one(struct sslh_cmdline *cl, int argc, char *const argv[], int *i,
    char *err, size_t errlen)
{
	const char	*a = argv[*i], *name = a + 1, *eq, *value = NULL;
	int		 o;

	if (a[0] != '-' || a[1] == '\0')
		return cmdline_fail(err, errlen, "unexpected argument \"%s\"",
		    a);
	if (a[1] == '-')
		name++;
	eq = strchr(name, '=');
	o = find_long(name, eq != NULL ? (size_t)(eq - name) : strlen(name));
	if (o == -1 && a[1] == '-')
		return cmdline_fail(err, errlen, "unknown option \"%s\"", a);
	if (o != -1) {
		if (eq != NULL && options[o].kind == OPT_FLAG)
			return cmdline_fail(err, errlen, "option \"%s\" takes "
			    "no value", a);
		value = eq != NULL ? eq + 1 : NULL;
	} else {
		/* Letters: flags, then perhaps one that takes a value. */
		for (name = a + 1; *name != '\0'; name++) {
			if ((o = find_short(*name)) == -1 && a[2] == '\0')
				return cmdline_fail(err, errlen, "unknown "
				    "option \"%s\"", a);
			if (o == -1)
				return cmdline_fail(err, errlen, "unknown "
				    "option \"-%c\" in \"%s\"", *name, a);
			/* "-vf": sslh 1.x's -v, a flag among others. */
			if (options[o].kind != OPT_FLAG &&
			    (options[o].kind != OPT_LEVEL || digits(name + 1)))
				break;
			if (add_opt(cl, o, NULL, err, errlen) == -1)
				return -1;
		}
		if (*name == '\0')
			return 0;
		value = name[1] != '\0' ? name + 1 : NULL;
	}
	/* A level is the next argument only if it is one: "-v 3", "-v -f". */
	if (value == NULL && options[o].kind != OPT_FLAG &&
	    *i + 1 < argc && (options[o].kind != OPT_CONFIG ||
	    argv[*i + 1][0] != '-') && (options[o].kind != OPT_LEVEL ||
	    (argv[*i + 1][0] != '\0' && digits(argv[*i + 1]))))
		value = argv[++*i];
	if (value == NULL && (options[o].kind == OPT_VALUE ||
	    options[o].kind == OPT_PROTO))
		return cmdline_fail(err, errlen, "option \"%s\" needs a value",
		    a);
	return add_opt(cl, o, value, err, errlen);
}

/*
 * sslh 2.x takes the protocols of its command line in this order,
 * whatever the order written (its options table's); 1.x took them as
 * written, which is the same for every line that puts anyprot last.
 */
static const char *const proto_order[] = { "ssh", "tls", "ssl", "openvpn",
    "tinc", "wireguard", "xmpp", "http", "adb", "socks5", "syslog", "msrdp",
    "teamspeak", "anyprot" };
#define NPROTO_ORDER	(sizeof(proto_order) / sizeof(proto_order[0]))

/* A protocol option's place in proto_order; NPROTO_ORDER: not one. */
static size_t
proto_rank(const struct sslh_opt *o)
{
	size_t	i;

	for (i = 0; o->value != NULL && i < NPROTO_ORDER; i++)
		if (strcmp(o->name, proto_order[i]) == 0)
			return i;
	return NPROTO_ORDER;
}

/*
 * The protocol options into proto_order, stably, each in a slot one of
 * them had: the other options stay where they are.
 */
static void
order_protocols(struct sslh_cmdline *cl)
{
	struct sslh_opt	 o;
	size_t		 i, j, k;

	for (i = 0; i < cl->nopts; i++) {
		if (proto_rank(&cl->opts[i]) == NPROTO_ORDER)
			continue;
		/* Insertion: shift the later-ranked protocols before i up. */
		o = cl->opts[i];
		for (j = i, k = i; k-- > 0;) {
			if (proto_rank(&cl->opts[k]) == NPROTO_ORDER)
				continue;
			if (proto_rank(&cl->opts[k]) <= proto_rank(&o))
				break;
			cl->opts[j] = cl->opts[k];
			j = k;
		}
		cl->opts[j] = o;
	}
}

int
sslh_cmdline_parse(int argc, char *const argv[], struct sslh_cmdline *cl,
    char *err, size_t errlen)
{
	int	i;

	memset(cl, 0, sizeof(*cl));
	for (i = 0; i < argc; i++)
		if (parse_one(cl, argc, argv, &i, err, errlen) == -1) {
			sslh_cmdline_free(cl);
			return -1;
		}
	order_protocols(cl);
	return 0;
}

void
sslh_cmdline_free(struct sslh_cmdline *cl)
{
	size_t	i;

	for (i = 0; i < cl->nopts; i++) {
		free(cl->opts[i].name);
		free(cl->opts[i].value);
		free(cl->opts[i].shown);
	}
	free(cl->opts);
	free(cl->config);
	memset(cl, 0, sizeof(*cl));
}

const char *
sslh_source(const struct sslh_cmdline *cl)
{
	return cl->config != NULL ? cl->config : SSLH_CMDLINE;
}
