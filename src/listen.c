/*
 * listen.c - binding the listen set and handing sockets over on reload.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "listen.h"

/* A bound, listening, non-blocking socket for addr, or -1 and err. */
static int
listen_socket(const struct sockaddr_any *addr, int backlog, char *err,
    size_t errlen)
{
	char        name[ADDR_STRLEN];
	const char *what;
	int         fd, on = 1;

	fd = socket(addr->ss.ss_family, SOCK_STREAM, 0);
	if (fd == -1) {
		what = "create a socket for";
		goto fail;
	}
	what = "set socket options on";
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) == -1)
		goto fail;
	/* "[::]:80" must not also take 0.0.0.0:80 from another rule. */
	if (addr->ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &on, sizeof(on)) == -1)
		goto fail;
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		goto fail;
	what = "bind";
	if (bind(fd, (const struct sockaddr *)&addr->ss, addr->len) == -1)
		goto fail;
	what = "listen on";
	if (listen(fd, backlog) == -1)
		goto fail;
	return fd;
fail:
	snprintf(err, errlen, "cannot %s %s: %s", what,
	    addr_format((const struct sockaddr *)&addr->ss, name, sizeof(name)),
	    strerror(errno));
	if (fd != -1)
		close(fd);
	return -1;
}

/* The index of the rule of cfg listening on addr, or -1. */
static int
rule_by_listen(const struct config *cfg, const struct sockaddr_any *addr)
{
	size_t i;

	for (i = 0; cfg != NULL && i < cfg->nrules; i++)
		if (addr_equal(&cfg->rules[i].listen_addr, addr))
			return (int)i;
	return -1;
}

static void
listen_set_free(struct listen_set *ls)
{
	free(ls->fds);
	free(ls);
}

struct listen_set *
listen_set_open(const struct config *cfg, struct listen_set *old,
    const struct config *oldcfg, char *err, size_t errlen)
{
	struct listen_set *ls;
	size_t             r, n;
	int                s, o, *fd;

	ls = calloc(1, sizeof(*ls));
	n = cfg->nrules * cfg->workers;
	if (ls == NULL || (ls->fds = malloc(n * sizeof(int))) == NULL) {
		free(ls);
		snprintf(err, errlen, "cannot allocate the listen set: %s",
		    strerror(errno));
		return NULL;
	}
	ls->nrules = cfg->nrules;
	ls->nslots = cfg->workers;
	for (r = 0; r < n; r++)
		ls->fds[r] = -1;

	/* First bind what is new, so that a failure leaves old untouched. */
	for (r = 0; r < cfg->nrules; r++) {
		o = old != NULL ? rule_by_listen(oldcfg, &cfg->rules[r].listen_addr)
		    : -1;
		for (s = 0; s < ls->nslots; s++) {
			if (o != -1 && s < old->nslots && LISTEN_FD(old, o, s) != -1)
				continue;
			LISTEN_FD(ls, r, s) = listen_socket(
			    &cfg->rules[r].listen_addr, cfg->backlog, err, errlen);
			if (LISTEN_FD(ls, r, s) == -1) {
				listen_set_close(ls);
				return NULL;
			}
		}
	}
	/* Then take over the rest from old. */
	for (r = 0; r < cfg->nrules && old != NULL; r++) {
		o = rule_by_listen(oldcfg, &cfg->rules[r].listen_addr);
		for (s = 0; o != -1 && s < ls->nslots && s < old->nslots; s++) {
			fd = &LISTEN_FD(old, o, s);
			if (*fd == -1)
				continue;
			LISTEN_FD(ls, r, s) = *fd;
			*fd = -1;
			/* The backlog may have changed; listen() updates it. */
			if (listen(LISTEN_FD(ls, r, s), cfg->backlog) == -1) {
				/* Keeps working with the old backlog. */
			}
		}
	}
	return ls;
}

void
listen_set_close(struct listen_set *ls)
{
	size_t i;

	if (ls == NULL)
		return;
	for (i = 0; i < ls->nrules * ls->nslots; i++)
		if (ls->fds[i] != -1)
			close(ls->fds[i]);
	listen_set_free(ls);
}
