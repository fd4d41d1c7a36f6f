/*
 * probe_ssh.c - the SSH probe (probe.h): the client's
 * identification string.
 */
#include "ferryd.h"

#include <stdbool.h>

#include "probe.h"

/*
 * SSH (RFC 4253 4.2): the client's identification string starts
 * "SSH-protoversion-"; a match once its version (digits, a dot, digits,
 * at most 8 bytes) and the dash after it are in.
 */
enum probe_verdict
probe_ssh(const uint8_t *buf, size_t len)
{
	size_t	i;
	bool	dot = false;

	if (!probe_starts(buf, len, "SSH-"))
		return PROBE_NO;
	for (i = 4; i < len && i < 4 + 8; i++) {
		if (buf[i] == '-')
			return dot && buf[i - 1] != '.' ? PROBE_MATCH :
			    PROBE_NO;
		if (buf[i] == '.') {
			if (dot || i == 4)
				return PROBE_NO;
			dot = true;
		} else if (buf[i] < '0' || buf[i] > '9')
			return PROBE_NO;
	}
	return i < 4 + 8 ? PROBE_AGAIN : PROBE_NO;
}
