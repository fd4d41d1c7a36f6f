/*
 * kit_netns.h - whether a test tool runs in a network namespace made
 * with ip netns (one of /run/netns), where addresses other than
 * loopback reach nothing but the test's own namespaces: tcpkit and
 * udpkit refuse them anywhere else.
 */
#ifndef KIT_NETNS_H
#define KIT_NETNS_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

static int
in_own_netns(void)
{
	struct stat	 self, st;
	struct dirent	*e;
	DIR		*d;
	char		 path[PATH_MAX];
	int		 found = 0;

	if (stat("/proc/self/ns/net", &self) == -1 ||
	    (d = opendir("/run/netns")) == NULL)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		found = e->d_name[0] != '.' && stat(path, &st) == 0 &&
		    st.st_ino == self.st_ino && st.st_dev == self.st_dev;
	}
	closedir(d);
	return found;
}

#endif
