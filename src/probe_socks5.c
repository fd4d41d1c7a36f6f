/*
 * probe_socks5.c - the SOCKS5 probe (probe.h): the
 * client's method selection.
 */
#include "ferryd.h"

#include "probe.h"

/*
 * SOCKS5 (RFC 1928 3): version 5, a count of methods (1 or more), then
 * the methods, each one assigned by IANA (0 to 9) or private (0x80 to
 * 0xfe); 0xff means "none acceptable" and is never offered.
 */
enum probe_verdict
probe_socks5(const uint8_t *buf, size_t len)
{
	size_t	i;

	if (len < 1)
		return PROBE_AGAIN;
	if (buf[0] != 5 || (len >= 2 && buf[1] == 0))
		return PROBE_NO;
	for (i = 2; i < len && i < 2 + (size_t)buf[1]; i++)
		if (buf[i] > 9 && (buf[i] < 0x80 || buf[i] == 0xff))
			return PROBE_NO;
	return len >= 2 && len >= 2 + (size_t)buf[1] ? PROBE_MATCH :
	    PROBE_AGAIN;
}
