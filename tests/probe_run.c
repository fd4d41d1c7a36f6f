/*
 * probe_run.c - the probes behind one interface, for the unit tests and
 * the fuzz harness (probe_run.h).
 */
#include "ferryd.h"

#include <stdio.h>
#include <string.h>

#include "probe_run.h"

static bool
terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static enum probe_verdict
run_tls(void *st, const uint8_t *buf, size_t len)
{
	return probe_tls(st, buf, len);
}

static bool
describe_tls(const void *vst, char *out, size_t size)
{
	const struct probe_tls	*st = vst;
	size_t			 n;
	int			 i;

	if (!terminated(st->sni, sizeof(st->sni)) || st->nalpn < 0 ||
	    st->nalpn > PROBE_ALPN_MAX || (st->has_sni && st->sni[0] == '\0'))
		return false;
	n = (size_t)snprintf(out, size, "%s ", st->has_sni ? st->sni : "-");
	for (i = 0; i < st->nalpn && n < size; i++) {
		if (!terminated(st->alpn[i], sizeof(st->alpn[i])) ||
		    st->alpn[i][0] == '\0')
			return false;
		n += (size_t)snprintf(out + n, size - n, "%s%s",
		    i > 0 ? "," : "", st->alpn[i]);
	}
	if (st->nalpn == 0 && n < size)
		snprintf(out + n, size - n, "-");
	return true;
}

static enum probe_verdict
run_http(void *st, const uint8_t *buf, size_t len)
{
	return probe_http(st, buf, len);
}

static bool
describe_http(const void *vst, char *out, size_t size)
{
	const struct probe_http	*st = vst;

	if (!terminated(st->host, sizeof(st->host)) ||
	    (st->has_host && st->host[0] == '\0'))
		return false;
	snprintf(out, size, "%s", st->has_host ? st->host : "-");
	return true;
}

static bool
describe_none(const void *st, char *out, size_t size)
{
	(void)st;
	snprintf(out, size, "-");
	return true;
}

const struct probe_kind probe_kinds[] = {
	{ "tls", sizeof(struct probe_tls), run_tls, NULL, describe_tls },
	{ "http", sizeof(struct probe_http), run_http, NULL, describe_http },
	{ "ssh", 0, NULL, probe_ssh, describe_none },
	{ "openvpn", 0, NULL, probe_openvpn, describe_none },
	{ "socks5", 0, NULL, probe_socks5, describe_none },
	{ "xmpp", 0, NULL, probe_xmpp, describe_none },
	{ "adb", 0, NULL, probe_adb, describe_none },
	{ "syslog", 0, NULL, probe_syslog, describe_none },
	{ "msrdp", 0, NULL, probe_msrdp, describe_none },
};
const size_t nprobe_kinds = sizeof(probe_kinds) / sizeof(probe_kinds[0]);

const struct probe_kind *
probe_kind(const char *name)
{
	size_t	i;

	for (i = 0; i < nprobe_kinds; i++)
		if (strcmp(probe_kinds[i].name, name) == 0)
			return &probe_kinds[i];
	return NULL;
}

static enum probe_verdict
probe_call(const struct probe_kind *k, void *st, const uint8_t *buf,
    size_t len)
{
	return k->probe != NULL ? k->probe(st, buf, len) :
	    k->stateless(buf, len);
}

enum probe_verdict
probe_run(const struct probe_kind *k, void *st, const uint8_t *buf,
    size_t len, const size_t *cuts, size_t ncuts)
{
	enum probe_verdict	v = PROBE_AGAIN;
	size_t			i;

	if (st != NULL)
		memset(st, 0, k->state_size);
	for (i = 0; i <= ncuts && v == PROBE_AGAIN; i++)
		v = probe_call(k, st, buf, i < ncuts ? cuts[i] : len);
	return v;
}
