/*
 * child.c - what a child of the master (worker or health checker) does
 * first: let go of the master's pidfile and readiness pipe, catch its own
 * signals, take the configured user and group, and ask for a signal at
 * the master's death.
 */
#include "ferryd.h"

#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif

#include "child.h"
#include "daemon.h"
#include "log.h"
#include "pidfile.h"
#include "sig.h"

static int
privs_drop(const struct conf *cfg)
{
	if (cfg->user == NULL && cfg->group == NULL)
		return 0;
	if (getuid() != 0 && geteuid() != 0) {
		log_warn("not running as root: ignoring user/group settings");
		return 0;
	}
	if (cfg->user != NULL ?
	    initgroups(cfg->user, cfg->gid) == -1 :
	    setgroups(1, &cfg->gid) == -1) {
		log_err("cannot set supplementary groups: %s", strerror(errno));
		return -1;
	}
	if (setgid(cfg->gid) == -1) {
		log_err("cannot change group to %u: %s", (unsigned)cfg->gid,
		    strerror(errno));
		return -1;
	}
	if (cfg->user != NULL && setuid(cfg->uid) == -1) {
		log_err("cannot change user to %s: %s", cfg->user,
		    strerror(errno));
		return -1;
	}
	return 0;
}

void
child_begin(const struct conf *cfg, int death_signal)
{
	pidfile_forget();
	daemon_forget();
	if (sig_child_setup() == -1) {
		log_err("cannot set up signals: %s", strerror(errno));
		_exit(2);
	}
	if (privs_drop(cfg) == -1)
		_exit(2);
#if defined(HAVE_SYS_PRCTL_H) && HAVE_DECL_PR_SET_PDEATHSIG
	/*
	 * A second way to learn of the master's death.  After the privilege
	 * drop: changing credentials clears it.
	 */
	if (prctl(PR_SET_PDEATHSIG, death_signal) == -1)
		log_warn("cannot ask for a signal at the master's death: %s",
		    strerror(errno));
#else
	(void)death_signal;
#endif
}
