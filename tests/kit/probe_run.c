/*
 * probe_run.c - the probes behind one interface, for the unit tests and
 * the fuzz harness (probe_run.h).
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
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

	/* The names are read only where has_sni and nalpn say. */
	if ((st->has_sni && (!terminated(st->sni, sizeof(st->sni)) ||
	    st->sni[0] == '\0')) || st->nalpn < 0 || st->nalpn > PROBE_ALPN_MAX)
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

static void
start_tls(void *st)
{
	probe_tls_start(st);
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

	if (st->has_host && (!terminated(st->host, sizeof(st->host)) ||
	    st->host[0] == '\0'))
		return false;
	snprintf(out, size, "%s", st->has_host ? st->host : "-");
	return true;
}

static void
start_http(void *st)
{
	probe_http_start(st);
}

static bool
describe_none(const void *st, char *out, size_t size)
{
	(void)st;
	snprintf(out, size, "-");
	return true;
}

const struct probe_kind probe_kinds[] = {
	{ "tls", sizeof(struct probe_tls), run_tls, NULL, describe_tls,
	    start_tls },
	{ "http", sizeof(struct probe_http), run_http, NULL, describe_http,
	    start_http },
	{ "ssh", 0, NULL, probe_ssh, describe_none, NULL },
	{ "openvpn", 0, NULL, probe_openvpn, describe_none, NULL },
	{ "socks5", 0, NULL, probe_socks5, describe_none, NULL },
	{ "xmpp", 0, NULL, probe_xmpp, describe_none, NULL },
	{ "adb", 0, NULL, probe_adb, describe_none, NULL },
	{ "syslog", 0, NULL, probe_syslog, describe_none, NULL },
	{ "msrdp", 0, NULL, probe_msrdp, describe_none, NULL },
};
const size_t nprobe_kinds = sizeof(probe_kinds) / sizeof(probe_kinds[0]);

const struct probe_kind *
probe_kind(const char *name)
{
	const struct probe_kind	*k = probe_kinds;
	size_t			 i, n = nprobe_kinds;

	if (strncmp(name, "sslh-", 5) == 0) {
		k = sslh_probe_kinds;
		n = nsslh_probe_kinds;
	}
	for (i = 0; i < n; i++)
		if (strcmp(k[i].name, name) == 0)
			return &k[i];
	return NULL;
}

/*
 * The names sslh's TLS probe asks for: each must be a string of at most
 * PROBE_NAME_MAX bytes (else the harness's abort catches it).
 */
static bool
match_example(void *ctx, bool alpn, const char *name)
{
	(void)ctx;
	if (strlen(name) > PROBE_NAME_MAX)
		abort();
	return strcmp(name, alpn ? "h2" : "www.example.org") == 0;
}

static enum probe_verdict
sslh_tls_with(const uint8_t *buf, size_t len, bool sni, bool alpn)
{
	struct probe_sslh_names	names = { sni, alpn, match_example, NULL };

	return probe_sslh_tls(buf, len, &names);
}

static enum probe_verdict
sslh_tls(const uint8_t *buf, size_t len)
{
	return probe_sslh_tls(buf, len, NULL);
}

static enum probe_verdict
sslh_tls_sni(const uint8_t *buf, size_t len)
{
	return sslh_tls_with(buf, len, true, false);
}

static enum probe_verdict
sslh_tls_alpn(const uint8_t *buf, size_t len)
{
	return sslh_tls_with(buf, len, false, true);
}

static enum probe_verdict
sslh_tls_both(const uint8_t *buf, size_t len)
{
	return sslh_tls_with(buf, len, true, true);
}

#define SSLH(name, fn)	{ "sslh-" name, 0, NULL, fn, describe_none, NULL }
const struct probe_kind sslh_probe_kinds[] = {
	SSLH("ssh", probe_sslh_ssh), SSLH("openvpn", probe_sslh_openvpn),
	SSLH("xmpp", probe_sslh_xmpp), SSLH("http", probe_sslh_http),
	SSLH("adb", probe_sslh_adb), SSLH("socks5", probe_sslh_socks5),
	SSLH("syslog", probe_sslh_syslog), SSLH("msrdp", probe_sslh_msrdp),
	SSLH("tls", sslh_tls), SSLH("tls-sni", sslh_tls_sni),
	SSLH("tls-alpn", sslh_tls_alpn), SSLH("tls-both", sslh_tls_both),
};
#undef SSLH
const size_t nsslh_probe_kinds = sizeof(sslh_probe_kinds) /
    sizeof(sslh_probe_kinds[0]);

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

	/*
	 * Over what an earlier client left, as the peek's pool hands it
	 * out: only what start sets may be read before it is written.
	 */
	if (st != NULL && k->start != NULL) {
		memset(st, 0xa5, k->state_size);
		k->start(st);
	}
	for (i = 0; i <= ncuts && v == PROBE_AGAIN; i++)
		v = probe_call(k, st, buf, i < ncuts ? cuts[i] : len);
	return v;
}
