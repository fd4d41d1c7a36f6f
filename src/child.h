/*
 * child.h - the start every child of the master shares.
 */
#ifndef FERRYD_CHILD_H
#define FERRYD_CHILD_H

struct conf;

/*
 * Right after the fork: forget the master's pidfile and readiness pipe,
 * set up signals (sig_child_setup), switch to cfg's user and group when
 * set and we are root (net_admin: keeping CAP_NET_ADMIN, and no other
 * capability, for transparent rules), and have death_signal sent at the
 * master's death (0: none, for ferryd -i, whose parent is inetd).
 * Exits with status 2 after logging why when one of these fails.
 */
void	child_begin(const struct conf *cfg, int death_signal,
    bool net_admin);

/*
 * A short-lived helper of the master (the resolver, the upgrade's -t),
 * right after the fork: killed at the master's death, its own signal
 * pipe closed, the master's signals back to their defaults and
 * unblocked.
 */
void	child_helper_begin(void);
/*
 * ... and then every descriptor from from on closed: the master's
 * channels are its workers' lifelines, which must close when the master
 * dies, whatever the helper is doing.
 */
void	child_close_from(int from);

#endif
