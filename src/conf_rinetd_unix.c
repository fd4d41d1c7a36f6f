/*
 * conf_rinetd_unix.c - rinetd-uv's unix: addresses and [mode=...] in
 * rinetd.conf, checked before they are written into ferryd.conf text
 * (as strings: nothing that would end or escape one gets through).
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_rinetd_unix.h"

bool
rinetd_unix_word(const char *word)
{
	return strncmp(word, "unix:", 5) == 0;
}

int
rinetd_unix_address(const char *what, const char *s, char *out,
    size_t outlen, char *why, size_t whylen)
{
	size_t	i;

	if ((s[5] != '/' && s[5] != '@') || s[6] == '\0') {
		snprintf(why, whylen, "%s address \"%s\": a Unix socket is "
		    "unix:/absolute/path or unix:@abstract-name", what, s);
		return -1;
	}
	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] < ' ' || s[i] == '"' || s[i] == '\\') {
			snprintf(why, whylen, "%s address \"%s\": control "
			    "characters, quotes and backslashes are not "
			    "allowed in a socket path", what, s);
			return -1;
		}
	if ((size_t)snprintf(out, outlen, "%s", s) >= outlen) {
		snprintf(why, whylen, "%s address is too long", what);
		return -1;
	}
	return 0;
}

int
rinetd_unix_mode(const char *listen, const char *value, char *out,
    size_t outlen, char *why, size_t whylen)
{
	if (out[0] != '\0') {
		snprintf(why, whylen, "option mode is given twice");
		return -1;
	}
	if (strncmp(listen, "unix:/", 6) != 0) {
		snprintf(why, whylen, "option mode is for a bind address "
		    "unix:/path (the socket file's mode), not %s", listen);
		return -1;
	}
	if (value[0] == '\0' || strlen(value) >= outlen ||
	    value[strspn(value, "01234567")] != '\0' ||
	    strtol(value, NULL, 8) > 0777) {
		snprintf(why, whylen, "mode must be a file mode in octal, such "
		    "as 0660 (got \"%s\")", value);
		return -1;
	}
	snprintf(out, outlen, "%s", value);
	return 0;
}
