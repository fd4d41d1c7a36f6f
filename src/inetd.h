/*
 * inetd.h - ferryd -i: the one connection on standard input (from inetd
 * or a socket unit with Accept=yes), served in this process.
 */
#ifndef FERRYD_INETD_H
#define FERRYD_INETD_H

#include <stdbool.h>

struct conf;

/*
 * Serve the connection on standard input with the rule of cfg it came
 * to, and return when it is over: 0, or 1 after logging why (standard
 * input is no connection, no TCP rule).  foreground: log to stderr
 * (unless inetd_spare_client() took it).
 */
int	inetd_serve(const struct conf *cfg, bool foreground);

/*
 * Before anything is said: when stderr is the connection (inetd gives it
 * as 0, 1 and 2), what ferryd has to say goes to syslog, never to the
 * client.
 */
void	inetd_spare_client(void);

#endif
