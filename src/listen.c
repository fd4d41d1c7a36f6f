/*
 * listen.c - binding the listen set and handing sockets over on reload.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "listen.h"
#include "sock.h"

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
			LISTEN_FD(ls, r, s) = sock_listen(
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
