/*
 * probe_syslog.c - the syslog-over-TCP probe (probe.h): a
 * message's priority.
 */
#include "ferryd.h"

#include <ctype.h>

#include "probe.h"

/*
 * Syslog over TCP (RFC 6587): a message starts with its priority, "<N>"
 * of 1 to 3 digits (RFC 5424, 3164), after its length and a space where
 * octet counting frames it ("15 <12>..."), as sslh's pattern has it.
 */
enum probe_verdict
probe_syslog(const uint8_t *buf, size_t len)
{
	size_t	i = 0, d;

	/* The octet count: any number of digits (sslh's %d), 10 here. */
	for (d = 0; i < len && isdigit(buf[i]) && d < 10; i++, d++)
		continue;
	if (d > 0) {
		if (i == len)
			return PROBE_AGAIN;
		if (buf[i++] != ' ')
			return PROBE_NO;
	}
	if (i == len)
		return PROBE_AGAIN;
	if (buf[i++] != '<')
		return PROBE_NO;
	for (d = 0; i < len && isdigit(buf[i]) && d < 3; i++, d++)
		continue;
	if (i == len)
		return PROBE_AGAIN;
	return d > 0 && buf[i] == '>' ? PROBE_MATCH : PROBE_NO;
}
