/*
 * master_adopt.h - binary upgrade in place, the new image's side
 * (master_upgrade.h is the old one's): what the old image described is
 * taken over as a reload takes over the running configuration's.
 */
#ifndef FERRYD_MASTER_ADOPT_H
#define FERRYD_MASTER_ADOPT_H

#include <stdbool.h>
#include <stddef.h>

struct conf;
struct listen_set;
struct master;
struct options;

/*
 * In main(), before the configuration is loaded: 1 when this image was
 * exec'd by an upgrade (opt's file and syntax become the running
 * master's), 0 when not, -1 with err when the description is unreadable.
 */
int	master_adopt_take(struct options *opt, char *err, size_t errlen);
bool	master_adopting(void);

/* The old image's locked pidfile descriptor, or -1 (pidfile_adopt). */
int	master_adopt_pidfile(void);

/*
 * The new image cannot start: open the log the old one wrote to (its
 * standard error is no one's), so that what went wrong is said there.
 */
void	master_adopt_failed(const struct conf *cfg, bool foreground);

/* The generation to start (1 without an upgrade). */
unsigned master_adopt_gen(void);

/*
 * The listen set of cfg, taking over the old image's sockets (what cfg
 * dropped is closed); NULL with err.  Without an upgrade, a new set.
 */
struct listen_set *master_adopt_listen(const struct conf *cfg, int mode,
    char *err, size_t errlen);

/* The health table of cfg, with the old image's state of its backends. */
int	master_adopt_health(const struct conf *cfg);

/*
 * Once the loop runs: the old image's workers become m's old generation
 * (drained once the new one is ready, as after a reload).
 */
void	master_adopt(struct master *m);

/* Each turn of the loop: answer the control clients that asked. */
void	master_adopt_answer(struct master *m);

#endif
