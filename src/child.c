/*
 * child.c - what a child of the master (worker or health checker) does
 * first: let go of the master's pidfile and readiness pipe, catch its own
 * signals, take the configured user, group and chroot (keeping
 * CAP_NET_ADMIN alone where transparent rules need it), and ask for a
 * signal at the master's death.
 */
#include "ferryd.h"

#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif
#ifdef HAVE_LINUX_CAPABILITY_H
#include <linux/capability.h>
#include <sys/syscall.h>
#define CAN_KEEP_CAPS	1
#endif

#include "child.h"
#include "conf.h"
#include "daemon.h"
#include "log.h"
#include "pidfile.h"
#include "sig.h"

#ifdef CAN_KEEP_CAPS
#define CAP_BIT(c)	(1u << (c))

/*
 * Make caps (CAP_BIT()s, all below 32) the permitted and effective
 * capabilities, and no other.  libc has no wrapper for capset, so it is
 * the system call.  0, or -1 with errno.
 */
static int
caps_set(uint32_t caps)
{
	struct __user_cap_header_struct	hdr;
	struct __user_cap_data_struct	data[2];

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	data[0].permitted = data[0].effective = caps;
	return (int)syscall(SYS_capset, &hdr, data);
}

/*
 * Before the switch to user: keep only what the switch (and a chroot
 * before it) needs and
 * CAP_NET_ADMIN (IP_TRANSPARENT), and keep them through it.  false, with
 * a warning, where this cannot be (a capability bounding set without
 * CAP_NET_ADMIN, capset filtered): the switch then drops everything, as
 * it does without transparent rules.
 */
static bool
caps_keep_net_admin(const char *user, bool chroot_too)
{
	if (caps_set(CAP_BIT(CAP_NET_ADMIN) | CAP_BIT(CAP_SETUID) |
	    CAP_BIT(CAP_SETGID) | (chroot_too ? CAP_BIT(CAP_SYS_CHROOT) :
	    0)) == -1 || prctl(PR_SET_KEEPCAPS, 1) == -1) {
		log_warn("cannot keep CAP_NET_ADMIN as user %s for transparent "
		    "rules (%s): their backend connections will fail", user,
		    strerror(errno));
		return false;
	}
	return true;
}

/* After the switch: CAP_NET_ADMIN alone, nothing else. */
static int
caps_net_admin_only(void)
{
	if (caps_set(CAP_BIT(CAP_NET_ADMIN)) == -1) {
		log_err("cannot drop capabilities but CAP_NET_ADMIN: %s",
		    strerror(errno));
		return -1;
	}
	(void)prctl(PR_SET_KEEPCAPS, 0);
	return 0;
}
#endif

/*
 * chroot: what the child reads by name from now on is under dir.  Root's
 * to do, after the user's groups were looked up and before the user is
 * taken.
 */
static int
enter_chroot(const char *dir)
{
	if (chroot(dir) == -1 || chdir("/") == -1) {
		log_err("cannot chroot to %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Take cfg's user and group and its chroot; net_admin: keep
 * CAP_NET_ADMIN alone through the switch.
 */
static int
privs_drop(const struct conf *cfg, bool net_admin)
{
	if (cfg->user == NULL && cfg->group == NULL && cfg->chroot_dir == NULL)
		return 0;
	if (getuid() != 0 && geteuid() != 0) {
		log_warn("not running as root: ignoring user, group and chroot "
		    "settings");
		return 0;
	}
	if (cfg->user == NULL && cfg->group == NULL)
		return enter_chroot(cfg->chroot_dir);
	net_admin = net_admin && cfg->user != NULL;
#ifdef CAN_KEEP_CAPS
	if (net_admin)
		net_admin = caps_keep_net_admin(cfg->user,
		    cfg->chroot_dir != NULL);
#else
	if (net_admin)
		log_warn("transparent rules need CAP_NET_ADMIN, which this "
		    "system cannot keep for user %s", cfg->user);
#endif
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
	if (cfg->chroot_dir != NULL && enter_chroot(cfg->chroot_dir) == -1)
		return -1;
	if (cfg->user != NULL && setuid(cfg->uid) == -1) {
		log_err("cannot change user to %s: %s", cfg->user,
		    strerror(errno));
		return -1;
	}
#ifdef CAN_KEEP_CAPS
	if (net_admin && caps_net_admin_only() == -1)
		return -1;
#endif
	return 0;
}

void
child_begin(const struct conf *cfg, int death_signal, bool net_admin)
{
	pidfile_forget();
	daemon_forget();
	if (sig_child_setup() == -1) {
		log_err("cannot set up signals: %s", strerror(errno));
		_exit(2);
	}
	/*
	 * The local time zone of log lines, read now: neither a chroot
	 * nor the seccomp filter lets /etc/localtime be read later, and
	 * localtime_r() does not read it again once it has.
	 */
	tzset();
	if (privs_drop(cfg, net_admin) == -1)
		_exit(2);
#if defined(HAVE_SYS_PRCTL_H) && HAVE_DECL_PR_SET_PDEATHSIG
	/*
	 * A second way to learn of the master's death.  After the privilege
	 * drop: changing credentials clears it.
	 */
	if (death_signal != 0 && prctl(PR_SET_PDEATHSIG, death_signal) == -1)
		log_warn("cannot ask for a signal at the master's death: %s",
		    strerror(errno));
#else
	(void)death_signal;
#endif
}

void
child_helper_begin(void)
{
	static const int caught[] = {
		SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2, SIGURG,
		SIGCHLD
	};
	size_t	i;

#if defined(HAVE_SYS_PRCTL_H) && HAVE_DECL_PR_SET_PDEATHSIG
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	sig_close();
	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sig_default(caught[i]);
	sig_block_all(0);
}

void
child_close_from(int from)
{
	int	fd, max;

#ifdef HAVE_CLOSE_RANGE
	if (close_range((unsigned)from, ~0U, 0) == 0)
		return;
#endif
	max = (int)sysconf(_SC_OPEN_MAX);
	for (fd = from; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		close(fd);
}
