/*
 * conf_rinetd_out.c - a rinetd.conf, gathered, written as ferryd.conf:
 * each setting under the rinetd line it was made from (as a comment),
 * and a map from each line written back to its file and line, so that
 * what the loader finds wrong later is reported at the rinetd line.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_emit.h"
#include "conf_rinetd.h"
#include "conf_rinetd_int.h"

/* The converted text (map: LOC() of each line) and the files it names. */
struct out {
	struct conf_out		 t;
	const struct rconf	*rc;
};

static void out_path(struct out *o, int num, const char *path);

/*
 * "# line N: what it said", above what was made from it ("# FILE:N:"
 * for a line of an included file).
 */
static void
out_origin(struct out *o, const char *indent, const struct origin *from)
{
	int	file = LOC_FILE(from->num), line = LOC_LINE(from->num);

	if (file == 0)
		conf_out_printf(&o->t, from->num, "%s# line %d: ", indent, line);
	else {
		conf_out_printf(&o->t, from->num, "%s# ", indent);
		out_path(o, from->num, o->rc->files[file].path);
		conf_out_printf(&o->t, from->num, ":%d: ", line);
	}
	conf_out_bytes(&o->t, from->num, from->text, strlen(from->text));
	conf_out_bytes(&o->t, from->num, "\n", 1);
}

/* key = [ ... ]; the closing bracket on the last element's line, for
 * libconfig dates an element by the token after it. */
static void
out_patterns(struct out *o, const char *indent, const char *key,
    const struct patterns *list)
{
	char	inner[16];
	size_t	i;
	int	num;

	if (list->n == 0)
		return;
	snprintf(inner, sizeof(inner), "%s  ", indent);
	conf_out_printf(&o->t, list->v[0].from.num, "%s%s = [\n", indent, key);
	for (i = 0; i < list->n; i++) {
		num = list->v[i].from.num;
		out_origin(o, inner, &list->v[i].from);
		conf_out_printf(&o->t, num, "%s", inner);
		conf_out_quoted(&o->t, num, list->v[i].text);
		conf_out_printf(&o->t, num, "%s\n", i + 1 < list->n ? "," : " ];");
	}
}

static void
out_setting(struct out *o, const struct setting *st, const char *key,
    const char *value)
{
	if (st->from.num == 0)
		return;
	out_origin(o, "", &st->from);
	conf_out_printf(&o->t, st->from.num, "%s = ", key);
	conf_out_quoted(&o->t, st->from.num, value);
	conf_out_printf(&o->t, st->from.num, ";\n");
}

/* The places of the lines split into file and line, and the files. */
static int
out_maps(struct out *o, struct rconf *rc, struct rinetd_conv *conv)
{
	size_t	i;

	conv->linemap = calloc(o->t.nlines + 1, sizeof(*conv->linemap));
	conv->filemap = calloc(o->t.nlines + 1, sizeof(*conv->filemap));
	conv->files = calloc(rc->nfiles, sizeof(*conv->files));
	if (conv->linemap == NULL || conv->filemap == NULL ||
	    conv->files == NULL)
		goto fail;
	for (i = 0; i < o->t.nlines; i++) {
		conv->linemap[i] = LOC_LINE(o->t.map[i]);
		conv->filemap[i] = LOC_FILE(o->t.map[i]);
	}
	for (i = 0; i < rc->nfiles; i++, conv->nfiles++)
		if ((conv->files[i] = strdup(rc->files[i].path)) == NULL)
			goto fail;
	/* The warnings go with the text, for the caller to say. */
	conv->warnings = rc->warnings;
	rc->warnings = NULL;
	return 0;
fail:
	rinetd_conv_free(conv);
	return -1;
}

static void
out_forward(struct out *o, const struct forward *f, bool last)
{
	int	num = f->from.num;

	out_origin(o, "  ", &f->from);
	conf_out_printf(&o->t, num, "  {\n    listen = \"%s\";\n", f->listen);
	conf_out_printf(&o->t, num, "    connect = \"%s\";\n", f->connect);
	/* rinetd leaves IPV6_V6ONLY at the system's default: dual stack. */
	if (f->listen_v6)
		conf_out_printf(&o->t, num, "    ipv6_only = false;\n");
	/*
	 * rinetd's timeout is the idle time of a UDP session (72 s unless
	 * given), also where only one side is UDP; for TCP to TCP ferryd
	 * takes it as the idle timeout.  Without one, rinetd (and
	 * rinetd-uv) never close an idle TCP connection: 0, not ferryd's
	 * hour, or a migrated ssh or database session would drop after
	 * it.  Mixed lines go raw, as rinetd carries them.
	 */
	if (f->udp)
		conf_out_printf(&o->t, num, "    protocol = \"udp\";\n");
	if (f->udp != f->to_udp)
		conf_out_printf(&o->t, num, "    connect_protocol = \"%s\";\n",
		    f->to_udp ? "udp" : "tcp");
	if (f->udp || f->to_udp)
		conf_out_printf(&o->t, num, "    session_timeout = %ld;\n",
		    f->timeout != -1 ? f->timeout : RINETD_UDP_TIMEOUT);
	else
		conf_out_printf(&o->t, num, "    idle_timeout = %ld;%s\n",
		    f->timeout != -1 ? f->timeout : 0, f->timeout != -1 ? "" :
		    "  # rinetd never closes an idle connection");
	if (f->source[0] != '\0')
		conf_out_printf(&o->t, num, "    source = \"%s\";\n", f->source);
	if (f->mode[0] != '\0')
		conf_out_printf(&o->t, num, "    mode = \"%s\";\n", f->mode);
	/* rinetd-uv's [connect-timeout=N]: 0 is its "none". */
	if (f->connect_timeout > 0)
		conf_out_printf(&o->t, num, "    connect_timeout = %ld;\n",
		    f->connect_timeout);
	/* [keepalive=on]: the kernel's probes at ferryd's defaults. */
	if (f->keepalive == 1)
		conf_out_printf(&o->t, num, "    keepalive = { };\n");
	out_patterns(o, "    ", "allow", &f->allow);
	out_patterns(o, "    ", "deny", &f->deny);
	conf_out_printf(&o->t, num, "  }%s\n", last ? "" : ",");
}

/* n bytes of text in a comment: control characters made '?'. */
static void
out_comment(struct out *o, int num, const char *text, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		conf_out_bytes(&o->t, num, (unsigned char)text[i] < ' ' ? "?" :
		    text + i, 1);
}

/* A file name in a comment. */
static void
out_path(struct out *o, int num, const char *path)
{
	out_comment(o, num, path, strlen(path));
}

/* Each warning as a comment line. */
static void
out_warnings(struct out *o, const char *warnings)
{
	const char	*p, *nl;

	if (warnings == NULL)
		return;
	conf_out_printf(&o->t, 0, "# Kept with a warning (not carried over):\n");
	for (p = warnings; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		conf_out_printf(&o->t, 0, "#   ");
		/* A file name may hold a newline: not in a comment. */
		out_comment(o, 0, p, (size_t)(nl - p));
		conf_out_bytes(&o->t, 0, "\n", 1);
	}
	conf_out_printf(&o->t, 0, "\n");
}

/*
 * rinetd-uv's global words, in ferryd's names (enum uv_setting order),
 * and whether the value is a string.
 */
static const struct uv_key {
	const char	*name;
	bool		 string;
} uv_keys[UV_SETTINGS] = {
	{ "connect_timeout", false }, { "resolve_interval", false },
	{ "buffer_size", false }, { "backlog", false },
	{ "status_file", true }, { "status_interval", false },
	{ "status_format", true }, { "stats_log_interval", false }
};

static void
out_uv_settings(struct out *o, const struct rconf *rc)
{
	int	i;

	for (i = 0; i < UV_SETTINGS; i++) {
		/* A rule's shorter [dns-refresh=N] wins: see rule_refresh. */
		if (i == UV_DNS_REFRESH && rc->rule_refresh > 0 &&
		    (rc->uv[i].from.num == 0 ||
		    atol(rc->uv[i].value) > rc->rule_refresh)) {
			out_origin(o, "", &rc->rule_refresh_from);
			conf_out_printf(&o->t, rc->rule_refresh_from.num,
			    "%s = %ld;\n", uv_keys[i].name, rc->rule_refresh);
			continue;
		}
		if (rc->uv[i].from.num == 0)
			continue;
		if (uv_keys[i].string) {
			out_setting(o, &rc->uv[i], uv_keys[i].name,
			    rc->uv[i].value);
			continue;
		}
		out_origin(o, "", &rc->uv[i].from);
		conf_out_printf(&o->t, rc->uv[i].from.num, "%s = %s;\n",
		    uv_keys[i].name, rc->uv[i].value);
	}
}

/* The whole converted text, with its maps back to the rinetd files. */
int
rinetd_emit(struct rconf *rc, struct rinetd_conv *conv)
{
	struct out	o;
	size_t		i;

	memset(&o, 0, sizeof(o));
	o.rc = rc;
	conf_out_header(&o.t, NULL, rc->path, "# Each setting comes after the "
	    "rinetd line it was made from.");
	out_warnings(&o, rc->warnings);
	out_setting(&o, &rc->logfile, "access_log", rc->logfile.value);
	/* rinetd's own lines, two per connection, byte for byte. */
	if (rc->logcommon.from.num != 0)
		out_setting(&o, &rc->logcommon, "access_log_format",
		    "common-exact");
	else if (rc->logfile.from.num != 0)
		conf_out_printf(&o.t, rc->logfile.from.num,
		    "access_log_format = \"rinetd-exact\";\n");
	out_setting(&o, &rc->pidfile, "pidfile", rc->pidfile.value);
	out_uv_settings(&o, rc);
	if (rc->allow.n + rc->deny.n > 0)
		conf_out_printf(&o.t, 0, "\n");
	out_patterns(&o, "", "allow", &rc->allow);
	out_patterns(&o, "", "deny", &rc->deny);
	conf_out_printf(&o.t, rc->fwd[0].from.num, "\nrules = (\n");
	for (i = 0; i < rc->nfwd; i++)
		out_forward(&o, &rc->fwd[i], i + 1 == rc->nfwd);
	conf_out_printf(&o.t, rc->fwd[rc->nfwd - 1].from.num, ");\n");
	if (o.t.oom || out_maps(&o, rc, conv) == -1) {
		free(o.t.buf);
		free(o.t.map);
		return rconf_fail(rc, 0, "out of memory");
	}
	conv->text = o.t.buf;
	conv->nlines = o.t.nlines;
	free(o.t.map);
	return 0;
}
