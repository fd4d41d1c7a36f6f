/*
 * master_upgrade.h - binary upgrade in place ("ferryd -s upgrade", the
 * control command "upgrade"): the master checks the binary on disk with
 * -t, then execs it, keeping its pid, its listening sockets and its
 * workers, which the new image drains as an old generation.
 *
 * What crosses exec is written, as lines of text, to a memfd whose
 * number is in FERRYD_UPGRADE: the configuration file, the generation,
 * each listening socket (rule, slot, descriptor, and the rule's address
 * and protocol, so that listen_set_open() takes them over as on a
 * reload), each worker (pid, slot, generation, channel), the checker's
 * pid, a snapshot of the health table with the backends it belongs to,
 * and who waits for the answer.
 */
#ifndef FERRYD_MASTER_UPGRADE_H
#define FERRYD_MASTER_UPGRADE_H

#include <stdbool.h>
#include <stddef.h>

struct conf;
struct listen_set;
struct master;
struct options;

/* At start: the binary we run from (upgrades exec that path). */
void	master_upgrade_init(const char *argv0);

/*
 * In main(), before the configuration is loaded: 1 when this image was
 * exec'd by an upgrade (opt's file and syntax become the running
 * master's), 0 when not, -1 with err when the description is unreadable.
 */
int	master_upgrade_take(struct options *opt, char *err, size_t errlen);
bool	master_upgrading(void);

/*
 * In -t, asked by a master about to upgrade: say that this binary can
 * take a running master over (an older one would start anew and find
 * its own ports in use).
 */
void	master_upgrade_probe(void);

/* The generation to start (1 without an upgrade). */
unsigned master_upgrade_gen(void);

/*
 * The listen set of cfg, taking over the old image's sockets (what cfg
 * dropped is closed); NULL with err.  Without an upgrade, a new set.
 */
struct listen_set *master_upgrade_listen(const struct conf *cfg, int mode,
    char *err, size_t errlen);

/* The health table of cfg, with the old image's state of its backends. */
int	master_upgrade_health(const struct conf *cfg);

/*
 * Once the loop runs: the old image's workers become m's old generation
 * (drained once the new one is ready, as after a reload).
 */
void	master_upgrade_adopt(struct master *m);

/*
 * Each turn of the loop: a queued upgrade whose time has come; in a new
 * image, the answer to control clients that asked.
 */
void	master_upgrade_follow(struct master *m);

/*
 * Upgrade, at once or once the reload or generation under way is done:
 * the requests asked (pids of "ferryd -s upgrade", control tokens) are
 * answered through the outcome, and control clients waiting for theirs
 * by the new image.  Returns when the upgrade is queued or failed,
 * having said why.
 */
void	master_upgrade(struct master *m, const int *asked, size_t n);

#endif
