/*
 * conf_rinetd_unix.h - rinetd-uv's Unix socket addresses in rinetd.conf:
 * "unix:/path" or "unix:@name" in the place of an address and its port,
 * and the [mode=0660] option of a rule bound to a path.  Pure checks of
 * the words; conf_rinetd.c walks the line and writes the result.
 */
#ifndef FERRYD_CONF_RINETD_UNIX_H
#define FERRYD_CONF_RINETD_UNIX_H

#include <stdbool.h>
#include <stddef.h>

/* Whether word is written as a Unix socket address ("unix:..."). */
bool rinetd_unix_word(const char *word);

/*
 * Check rinetd-uv's unix:/absolute/path or unix:@name (what, "bind" or
 * "connect", names it in the reason): 0 with it copied into out as the
 * ferryd.conf address, or -1 with the reason in why.
 */
int  rinetd_unix_address(const char *what, const char *s, char *out,
    size_t outlen, char *why, size_t whylen);

/*
 * [mode=VALUE] of a rule bound to listen (as ferryd writes it): an octal
 * file mode of a unix:/path bind address.  0 with it in out, or -1 with
 * the reason in why.
 */
int  rinetd_unix_mode(const char *listen, const char *value, char *out,
    size_t outlen, char *why, size_t whylen);

#endif
