/*
 * route_match.c - what a route matches, at run time: names (exact, "*."
 * and globs), regular expressions, and a ClientHello's SNI and ALPN,
 * whether it came in a TCP stream (tcp_peek.c) or in QUIC Initial
 * packets (udp_route.c).
 */
#include "ferryd.h"

#include <fnmatch.h>
#include <regex.h>
#include <string.h>

#include "probe.h"
#include "route.h"

bool
route_glob_match(const char *pattern, const char *name)
{
	if (strpbrk(pattern, ROUTE_GLOB_CHARS) == NULL)
		return strcmp(pattern, name) == 0;
	return fnmatch(pattern, name, 0) == 0;
}

bool
route_name_match(const struct route_names *names, const char *name)
{
	size_t	i, len = strlen(name), tail;

	for (i = 0; i < names->n; i++) {
		const char *w = names->v[i];

		if (strncmp(w, "*.", 2) != 0 ||
		    strpbrk(w + 2, ROUTE_GLOB_CHARS) != NULL) {
			if (route_glob_match(w, name))
				return true;
			continue;
		}
		/* "*.x": a label or more, then ".x". */
		tail = strlen(w + 1);
		if (len > tail && strcmp(name + len - tail, w + 1) == 0)
			return true;
	}
	return false;
}

bool
route_regex_match(const struct route *rt, uint8_t *look, size_t len)
{
	regmatch_t	m[1];
	size_t		i;
	int		flags = 0;

	look[len] = '\0';
#ifdef REG_STARTEND
	/* The bytes as they are, a NUL among them included. */
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)len;
	flags = REG_STARTEND;
#endif
	for (i = 0; i < rt->nregex; i++)
		if (regexec(&rt->regex[i], (const char *)look, 1, m, flags) == 0)
			return true;
	return false;
}

bool
route_alpn_match(const struct route *rt, const char *name)
{
	size_t	i;

	for (i = 0; i < rt->alpn.n; i++)
		if (route_glob_match(rt->alpn.v[i], name))
			return true;
	return false;
}

bool
route_tls_match(const struct route *rt, const struct probe_tls *tls)
{
	int	j;

	if ((rt->sni.n > 0 || rt->no_sni) && (!tls->has_sni ? !rt->no_sni :
	    !route_name_match(&rt->sni, tls->sni)))
		return false;
	if (rt->alpn.n == 0)
		return true;
	/* The client offers any of them. */
	for (j = 0; j < tls->nalpn && j < PROBE_ALPN_MAX; j++)
		if (route_alpn_match(rt, tls->alpn[j]))
			return true;
	return false;
}

