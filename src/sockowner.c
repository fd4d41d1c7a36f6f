/*
 * sockowner.c - see sockowner.h.
 *
 * The kernel lists every socket with its inode in /proc/net/{tcp,tcp6,
 * udp,udp6,unix}, and every process's descriptors as links to
 * "socket:[INODE]" in /proc/PID/fd: the socket on the address, then the
 * process holding it.
 */
#include "ferryd.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "sockowner.h"

/* The address and port of a /proc/net/{tcp,udp}[6] entry. */
struct net_entry {
	uint32_t	addr[4];	/* as the kernel prints them */
	unsigned	port;
	unsigned	state;
	unsigned long	inode;
};

/* One line of /proc/net/{tcp,udp}[6] into e: 0, or -1 (the header). */
static int
net_entry_parse(const char *line, bool v6, struct net_entry *e)
{
	char	addr[33];
	int	i;

	if (sscanf(line, " %*u: %32[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*s "
	    "%*s %lu", addr, &e->port, &e->state, &e->inode) != 4 ||
	    strlen(addr) != (v6 ? 32u : 8u))
		return -1;
	memset(e->addr, 0, sizeof(e->addr));
	for (i = 0; i < (v6 ? 4 : 1); i++) {
		char word[9];

		memcpy(word, addr + 8 * i, 8);
		word[8] = '\0';
		e->addr[i] = (uint32_t)strtoul(word, NULL, 16);
	}
	return 0;
}

/* Whether a bind of a would clash with the socket e (of family v6). */
static bool
net_entry_clashes(const struct net_entry *e, bool v6,
    const struct sockaddr_any *a, int type)
{
	static const uint32_t	any[4];
	uint32_t		want[4] = { 0, 0, 0, 0 };
	bool			e_any = memcmp(e->addr, any, sizeof(any)) == 0;
	bool			a_v6 = a->ss.ss_family == AF_INET6;

	/* Only a listener clashes with a listener bound with SO_REUSEADDR. */
	if (type == SOCK_STREAM && e->state != 0x0A)
		return false;
	if (a_v6)
		memcpy(want, &((const struct sockaddr_in6 *)(const void *)
		    &a->ss)->sin6_addr, sizeof(want));
	else
		want[0] = ((const struct sockaddr_in *)(const void *)
		    &a->ss)->sin_addr.s_addr;
	if (e->port != addr_port((const void *)&a->ss))
		return false;
	if (v6 != a_v6)		/* only a dual-stack wildcard spans both */
		return (v6 && e_any) || (a_v6 && memcmp(want, any,
		    sizeof(any)) == 0);
	return e_any || memcmp(want, any, sizeof(any)) == 0 ||
	    memcmp(want, e->addr, sizeof(want)) == 0;
}

/* The inode of a socket in /proc/net/NAME that a clashes with, or 0. */
static unsigned long
net_inode(const char *name, bool v6, const struct sockaddr_any *a, int type)
{
	char			 path[64], line[512];
	struct net_entry	 e;
	unsigned long		 inode = 0;
	FILE			*f;

	snprintf(path, sizeof(path), "/proc/net/%s", name);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (inode == 0 && fgets(line, sizeof(line), f) != NULL)
		if (net_entry_parse(line, v6, &e) == 0 && e.inode != 0 &&
		    net_entry_clashes(&e, v6, a, type))
			inode = e.inode;
	fclose(f);
	return inode;
}

#define UNIX_LISTENING	0x10000UL	/* __SO_ACCEPTCON, /proc/net/unix */

/* The inode of the Unix socket listening on a's name, or 0. */
static unsigned long
unix_inode(const struct sockaddr_any *a)
{
	const struct sockaddr_un *sun = (const void *)&a->ss;
	char			  line[PATH_MAX + 128], name[PATH_MAX + 2];
	unsigned long		  inode = 0, ino, flags;
	size_t			  len;
	int			  at;
	FILE			 *f;

	/* Abstract names are listed with '@' for their leading NUL. */
	len = a->len - offsetof(struct sockaddr_un, sun_path);
	if (sun->sun_path[0] == '\0')
		snprintf(name, sizeof(name), "@%.*s", (int)(len - 1),
		    sun->sun_path + 1);
	else
		snprintf(name, sizeof(name), "%s", sun->sun_path);
	if ((f = fopen("/proc/net/unix", "re")) == NULL)
		return 0;
	/*
	 * The listening socket only (__SO_ACCEPTCON in its flags): the
	 * connections it accepted carry its name too, and one may be a
	 * closed client's, held by no process.
	 */
	while (inode == 0 && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %lu %n", &flags, &ino,
		    &at) == 2 && (flags & UNIX_LISTENING) != 0 &&
		    strcmp(line + at, name) == 0)
			inode = ino;
	}
	fclose(f);
	return inode;
}

/* Whether process pid has a descriptor on the socket inode. */
static bool
holds(long pid, unsigned long inode)
{
	char		 dir[64], path[PATH_MAX], link[64], want[64];
	struct dirent	*d;
	ssize_t		 n;
	bool		 found = false;
	DIR		*fds;

	snprintf(dir, sizeof(dir), "/proc/%ld/fd", pid);
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	if ((fds = opendir(dir)) == NULL)
		return false;	/* gone, or not ours to look at */
	while (!found && (d = readdir(fds)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if ((n = readlink(path, link, sizeof(link) - 1)) > 0) {
			link[n] = '\0';
			found = strcmp(link, want) == 0;
		}
	}
	closedir(fds);
	return found;
}

/* The first process (lowest pid: a master before its workers) holding inode. */
static pid_t
inode_holder(unsigned long inode)
{
	struct dirent	*d;
	long		 pid, best = 0;
	DIR		*proc;

	if ((proc = opendir("/proc")) == NULL)
		return 0;
	while ((d = readdir(proc)) != NULL)
		if (isdigit((unsigned char)d->d_name[0]) &&
		    (pid = strtol(d->d_name, NULL, 10)) > 0 &&
		    (best == 0 || pid < best) && holds(pid, inode))
			best = pid;
	closedir(proc);
	return (pid_t)best;
}

pid_t
sockowner_find(const struct sockaddr_any *a, int type, char *name,
    size_t namelen)
{
	unsigned long	 inode;
	char		 path[64];
	pid_t		 pid;
	FILE		*f;

	if (a->ss.ss_family == AF_UNIX)
		inode = unix_inode(a);
	else if ((inode = net_inode(type == SOCK_DGRAM ? "udp" : "tcp",
	    false, a, type)) == 0)
		inode = net_inode(type == SOCK_DGRAM ? "udp6" : "tcp6", true,
		    a, type);
	if (inode == 0 || (pid = inode_holder(inode)) == 0)
		return 0;
	snprintf(name, namelen, "?");
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	if ((f = fopen(path, "re")) != NULL) {
		if (fgets(name, (int)namelen, f) != NULL)
			name[strcspn(name, "\n")] = '\0';
		fclose(f);
	}
	return pid;
}
