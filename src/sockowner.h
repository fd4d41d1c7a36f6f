/*
 * sockowner.h - which process holds the address a bind found in use, for
 * ferryd -t to say so (Linux /proc; elsewhere nothing is found).
 */
#ifndef FERRYD_SOCKOWNER_H
#define FERRYD_SOCKOWNER_H

#include <stddef.h>
#include <sys/types.h>

#include "addr.h"

/*
 * The lowest pid of the processes holding a socket of type that a bind
 * of a clashes with (a TCP listener, any UDP socket, the Unix listener
 * on the name), its command name (/proc/PID/comm) in name; or 0 when
 * none is found (none, or only other users' processes, whose
 * descriptors this one may not read).
 */
pid_t	sockowner_find(const struct sockaddr_any *a, int type, char *name,
	    size_t namelen);

#endif
