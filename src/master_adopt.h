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
/*
 * Executed again after a failed upgrade: the configuration we ran, as
 * ferryd -T printed it before the exec (the file on disk is what the
 * new image could not serve); NULL otherwise, or if it cannot be read
 * back: then the file.
 */
struct conf *master_adopt_config(void);

/*
 * The pidfile at path locked (path NULL: none): an upgrade's new image
 * takes the old one's lock, which crossed exec held, when it is the same
 * file; else it is taken anew.  0, or -1 with err.
 */
int	master_adopt_pidfile_lock(const char *path, char *err, size_t errlen);
/*
 * The pidfile to lock: -p's, else the configuration's, else a daemon's
 * default; NULL for none ("", or in the foreground without one).
 */
const char *master_adopt_pidfile_path(const struct conf *cfg,
    const struct options *opt);

/*
 * The new image cannot start: open the log the old one wrote to (its
 * standard error is no one's), so that what went wrong is said there.
 */
void	master_adopt_failed(struct master *m, bool foreground,
	    const char *why);

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

/*
 * Each turn of the loop: once our generation serves, what was kept for
 * the way back goes; answer the control clients that asked.
 */
void	master_adopt_answer(struct master *m);

/*
 * The new image failed before its generation served (m NULL before the
 * master runs): log why and execute the old image again, which takes
 * the description over with why added, and says it to whoever asked
 * for the upgrade.  Returns if there is no way back (no upgrade, served
 * already, we are that old image, or the exec failed).
 */
void	master_adopt_fail(struct master *m, const char *why);

#endif
