/*
 * probe_xmpp.c - the XMPP probe (probe.h): the client's
 * stream header.
 */
#include "ferryd.h"

#include <string.h>

#include "probe.h"

/*
 * XMPP (RFC 6120 4.2): the client opens with an XML stream header,
 * "<?xml ...?><stream:stream ... xmlns='jabber:client' ...>", so its
 * first byte is '<' and the jabber namespace comes within its first
 * few hundred bytes.  (sslh looks for "jabber" anywhere in any bytes.)
 */
#define XMPP_HEAD_MAX	512

enum probe_verdict
probe_xmpp(const uint8_t *buf, size_t len)
{
	size_t	n = len < XMPP_HEAD_MAX ? len : XMPP_HEAD_MAX;

	if (len < 1)
		return PROBE_AGAIN;
	if (buf[0] != '<')
		return PROBE_NO;
	if (memmem(buf, n, "jabber:", 7) != NULL)
		return PROBE_MATCH;
	return len < XMPP_HEAD_MAX ? PROBE_AGAIN : PROBE_NO;
}
