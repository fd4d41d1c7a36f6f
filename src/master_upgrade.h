/*
 * master_upgrade.h - binary upgrade in place ("ferryd -s upgrade", the
 * control command "upgrade"), the old image's side: the master checks
 * the binary on disk with -t, then execs it, keeping its pid, its
 * listening sockets and its workers, which the new image
 * (master_adopt.h) drains as an old generation.
 *
 * What crosses exec is written, as lines of text, to a memfd whose
 * number is in MASTER_UPGRADE_ENV (upgrade_record.h, each kind of line): the configuration file, the
 * generation, each rule's address, protocol and backends, each
 * listening socket (rule, slot, descriptor), each worker (pid, slot,
 * generation, channel), the checker's pid, the health table's cells,
 * the life totals, who waits for the answer, and the old image itself
 * (a descriptor of its file, opened at start, and its arguments), which
 * the new one executes again if it fails before it serves.
 */
#ifndef FERRYD_MASTER_UPGRADE_H
#define FERRYD_MASTER_UPGRADE_H

#include <stddef.h>

#define MASTER_UPGRADE_ENV	"FERRYD_UPGRADE"

struct master;

/* At start: the binary we run from (upgrades exec that path). */
void	master_upgrade_init(const char *argv0);
const char *master_upgrade_exe(void);

/*
 * The descriptor of our binary, opened at start, or -1: the master's
 * own, no child's (master_own_fd).
 */
int	master_upgrade_image(void);

/*
 * With every signal blocked, before an exec: those caught and not yet
 * looked at are sent again, to wait in the kernel for the next image.
 */
void	master_upgrade_carry_signals(void);

/*
 * In -t, asked by a master about to upgrade: say that this binary can
 * take a running master over (an older one would start anew and find
 * its own ports in use).
 */
void	master_upgrade_probe(void);
/* Whether this -t runs for a master about to upgrade (which reads its notes). */
bool	master_upgrade_probing(void);

/*
 * Upgrade, at once or once the reload or generation under way is done:
 * the requests asked (pids of "ferryd -s upgrade", control tokens) are
 * answered through the outcome, and control clients waiting for theirs
 * by the new image.  Returns when the upgrade is queued or failed,
 * having said why.
 */
void	master_upgrade(struct master *m, const int *asked, size_t n);

/* Each turn of the loop: a queued upgrade whose time has come. */
void	master_upgrade_follow(struct master *m);

#endif
