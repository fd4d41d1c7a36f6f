/*
 * probe_pending.c - stand-ins for the probes the probes branch has not
 * landed yet (probe_http.c, probe_stateless.c): ssh by its "SSH-"
 * prefix only, the others never match.  Removed when they land.
 */
#include "ferryd.h"

#include <string.h>

#include "probe.h"

enum probe_verdict
probe_http(struct probe_http *st, const uint8_t *buf, size_t len)
{
	(void)st;
	(void)buf;
	(void)len;
	return PROBE_NO;
}

enum probe_verdict
probe_ssh(const uint8_t *buf, size_t len)
{
	size_t	n = len < 4 ? len : 4;

	if (memcmp(buf, "SSH-", n) != 0)
		return PROBE_NO;
	return len < 4 ? PROBE_AGAIN : PROBE_MATCH;
}

enum probe_verdict
probe_openvpn(const uint8_t *buf, size_t len)
{
	(void)buf;
	(void)len;
	return PROBE_NO;
}

enum probe_verdict
probe_socks5(const uint8_t *buf, size_t len)
{
	(void)buf;
	(void)len;
	return PROBE_NO;
}

enum probe_verdict
probe_xmpp(const uint8_t *buf, size_t len)
{
	(void)buf;
	(void)len;
	return PROBE_NO;
}
