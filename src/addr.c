/*
 * addr.c - parsing "host:port" specifications and printing socket addresses.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "addr.h"
#include "lookup.h"

/* Split spec into host and port; host may be bracketed for IPv6. */
static int
addr_split(const char *spec, char *host, size_t hostlen, char *port,
    size_t portlen, char *err, size_t errlen)
{
	const char *colon, *hstart, *hend;

	if (spec[0] == '[') {
		hstart = spec + 1;
		hend = strchr(hstart, ']');
		if (hend == NULL) {
			snprintf(err, errlen, "missing ']' in address \"%s\"", spec);
			return -1;
		}
		if (hend[1] != ':') {
			snprintf(err, errlen, "missing port after ']' in address \"%s\" "
			    "(expected \"[addr]:port\")", spec);
			return -1;
		}
		colon = hend + 1;
	} else {
		hstart = spec;
		colon = strrchr(spec, ':');
		if (colon == NULL) {
			snprintf(err, errlen, "missing port in address \"%s\" "
			    "(expected \"host:port\")", spec);
			return -1;
		}
		if (strchr(spec, ':') != colon) {
			snprintf(err, errlen, "IPv6 address \"%s\" must be written "
			    "as \"[addr]:port\"", spec);
			return -1;
		}
		hend = colon;
	}
	if (hend == hstart) {
		snprintf(err, errlen, "missing host in address \"%s\"", spec);
		return -1;
	}
	if (colon[1] == '\0') {
		snprintf(err, errlen, "missing port in address \"%s\"", spec);
		return -1;
	}
	if ((size_t)(hend - hstart) >= hostlen || strlen(colon + 1) >= portlen) {
		snprintf(err, errlen, "address \"%s\" is too long", spec);
		return -1;
	}
	memcpy(host, hstart, hend - hstart);
	host[hend - hstart] = '\0';
	strcpy(port, colon + 1);
	return 0;
}

/*
 * The fuzzing harnesses' build (-DFERRYD_FUZZING) resolves no name: a
 * fuzzed configuration must not send queries to the resolver.
 */
#ifdef FERRYD_FUZZING
#define NUMERIC_ONLY	1
#else
#define NUMERIC_ONLY	0
#endif

/* Say why getaddrinfo() could not resolve what was written as spec. */
static int
resolve_error(int rc, const char *spec, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot resolve \"%s\": %s", spec,
	    rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	return -1;
}

static void
store(struct sockaddr_any *out, const struct addrinfo *ai)
{
	memset(out, 0, sizeof(*out));
	memcpy(&out->ss, ai->ai_addr, ai->ai_addrlen);
	out->len = ai->ai_addrlen;
}

/*
 * A port is decimal digits, 1 to 65535, or a service name, which starts
 * with a letter.  getaddrinfo() reads a number with strtoul(): it takes
 * "+80", " 80" and "-1", wraps "99999" to 34463, and port 0 (also "+0")
 * would give every worker's socket a different random port.
 */
static int
check_port(const char *port, const char *spec, char *err, size_t errlen)
{
	static const char	digits[] = "0123456789";
	static const char	name[] = "0123456789abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.";
	size_t			n = strspn(port, digits);

	if (n > 0 && port[n] == '\0') {
		if (n <= 5 && atoi(port) >= 1 && atoi(port) <= 65535)
			return 0;
		snprintf(err, errlen, "port %s in address \"%s\" must be "
		    "between 1 and 65535", port, spec);
		return -1;
	}
	if (isalpha((unsigned char)port[0]) && port[strspn(port, name)] == '\0')
		return 0;
	snprintf(err, errlen, "port \"%s\" in address \"%s\" is neither a "
	    "number from 1 to 65535 nor a service name", port, spec);
	return -1;
}

int
addr_is_unix_spec(const char *spec)
{
	return strncmp(spec, ADDR_UNIX_PREFIX, strlen(ADDR_UNIX_PREFIX)) == 0;
}

/*
 * "unix:/path" or "unix:@name" into out: a path is absolute, and either
 * fits sun_path (an abstract name's leading NUL counts).  Names nothing
 * up: no resolver, no file looked at.
 */
static int
unix_resolve(const char *spec, struct sockaddr_any *out, char *err,
    size_t errlen)
{
	struct sockaddr_un	*sun = (struct sockaddr_un *)(void *)&out->ss;
	const char		*path = spec + strlen(ADDR_UNIX_PREFIX);
	size_t			 len = strlen(path);

	memset(out, 0, sizeof(*out));
	if (path[0] != '/' && path[0] != '@') {
		snprintf(err, errlen, "\"%s\": a Unix socket address is "
		    "\"unix:/absolute/path\" or \"unix:@abstract-name\"", spec);
		return -1;
	}
	if (len < 2 || len >= sizeof(sun->sun_path)) {
		snprintf(err, errlen, "\"%s\": the path or name of a Unix "
		    "socket has 1 to %zu bytes", spec,
		    sizeof(sun->sun_path) - 2);
		return -1;
	}
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, len);
	if (path[0] == '@')
		sun->sun_path[0] = '\0';	/* Linux's abstract namespace */
	out->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	return 0;
}

const char *
addr_unix_path(const struct sockaddr_any *a)
{
	const struct sockaddr_un *sun = (const void *)&a->ss;

	if (a->ss.ss_family != AF_UNIX || sun->sun_path[0] == '\0')
		return NULL;
	return sun->sun_path;
}

/*
 * accept() fills a Unix peer's address only as far as its length (two
 * bytes for an unnamed client): the rest, which the PROXY header copies
 * and the credentials follow, must hold no stale bytes.
 */
static void
addr_unix_clear_tail(struct sockaddr_any *a)
{
	if (a->len < sizeof(a->ss))
		memset((char *)&a->ss + a->len, 0, sizeof(a->ss) - a->len);
}

int
addr_unix_take_cred(struct sockaddr_any *a, int fd)
{
	struct addr_unix_peer	*p = (struct addr_unix_peer *)(void *)&a->ss;
#ifdef SO_PEERCRED
	struct ucred		 cr;
	socklen_t		 len = sizeof(cr);

	addr_unix_clear_tail(a);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1)
		return -1;
	p->pid = (int)cr.pid;
	p->uid = (unsigned)cr.uid;
	p->gid = (unsigned)cr.gid;
#else
	uid_t			 uid;
	gid_t			 gid;

	addr_unix_clear_tail(a);
	if (getpeereid(fd, &uid, &gid) == -1)
		return -1;
	p->pid = 0;
	p->uid = (unsigned)uid;
	p->gid = (unsigned)gid;
#endif
	p->has_cred = 1;
	return 0;
}

const struct addr_unix_peer *
addr_unix_cred(const struct sockaddr *sa)
{
	const struct addr_unix_peer *p = (const void *)sa;

	return sa->sa_family == AF_UNIX && p->has_cred ? p : NULL;
}

/* Format a Unix address (the path ends where len says, or at a NUL). */
static const char *
unix_format(const struct sockaddr *sa, char *buf, size_t len)
{
	const struct sockaddr_un	*sun = (const void *)sa;
	size_t				 n = sizeof(sun->sun_path) - 1;

	if (sun->sun_path[0] == '\0' && sun->sun_path[1] != '\0')
		snprintf(buf, len, "unix:@%.*s", (int)(n - 1),
		    sun->sun_path + 1);
	else
		snprintf(buf, len, "unix:%.*s", (int)n, sun->sun_path);
	return buf;
}

/*
 * getaddrinfo() for spec ("host:port"), checked as addr_resolve() says;
 * *res is the list, to be freed with lookup_free().
 */
static int
resolve_spec(const char *spec, int passive, struct addrinfo **res, char *err,
    size_t errlen)
{
	char             host[256], port[64];
	struct addrinfo  hints;
	int              rc;

	if (addr_split(spec, host, sizeof(host), port, sizeof(port),
	    err, errlen) == -1)
		return -1;
	if (check_port(port, spec, err, errlen) == -1)
		return -1;
	if (strcmp(host, "*") == 0)
		strcpy(host, "0.0.0.0");

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = passive ? AI_PASSIVE : 0;
	if (spec[0] == '[' || NUMERIC_ONLY)
		hints.ai_flags |= AI_NUMERICHOST;
	rc = lookup_getaddrinfo(host, port, &hints, res);
	if (rc != 0)
		return resolve_error(rc, spec, err, errlen);
	if (spec[0] == '[' && (*res)->ai_family != AF_INET6) {
		lookup_free(*res);
		snprintf(err, errlen, "\"%s\" is not an IPv6 address", host);
		return -1;
	}
	return 0;
}

int
addr_resolve(const char *spec, int passive, struct sockaddr_any *out,
    char *err, size_t errlen)
{
	struct addrinfo	*res;

	if (addr_is_unix_spec(spec))
		return unix_resolve(spec, out, err, errlen);
	if (resolve_spec(spec, passive, &res, err, errlen) == -1)
		return -1;
	store(out, res);
	lookup_free(res);
	return 0;
}

int
addr_resolve_all(const char *spec, int passive, struct sockaddr_any **out,
    size_t *n,
    char *err, size_t errlen)
{
	struct addrinfo		*res, *ai;
	struct sockaddr_any	*v, a;
	size_t			 count = 0, i;

	if (addr_is_unix_spec(spec)) {
		if ((v = calloc(1, sizeof(*v))) == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (unix_resolve(spec, v, err, errlen) == -1) {
			free(v);
			return -1;
		}
		*out = v;
		*n = 1;
		return 0;
	}
	if (resolve_spec(spec, passive, &res, err, errlen) == -1)
		return -1;
	for (ai = res; ai != NULL; ai = ai->ai_next)
		count++;
	if ((v = calloc(count, sizeof(*v))) == NULL) {
		lookup_free(res);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*n = 0;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		store(&a, ai);
		for (i = 0; i < *n && !addr_equal(&v[i], &a); i++)
			continue;
		if (i == *n)
			v[(*n)++] = a;
	}
	lookup_free(res);
	*out = v;
	return 0;
}

/* Copy host into name, without the brackets of "[ipv6]"; -1 with err. */
static int
host_unbracket(const char *host, char *name, size_t namelen, char *err,
    size_t errlen)
{
	const char	*start = host, *colon;
	size_t		 len = strlen(host);

	if (host[0] == '[') {
		if (len < 3 || host[len - 1] != ']') {
			snprintf(err, errlen, "missing ']' in address \"%s\"",
			    host);
			return -1;
		}
		start++;
		len -= 2;
	} else if ((colon = strchr(host, ':')) != NULL &&
	    strchr(colon + 1, ':') == NULL) {
		snprintf(err, errlen, "\"%s\" must be an address without a "
		    "port", host);
		return -1;
	}
	if (len == 0) {
		snprintf(err, errlen, "missing address");
		return -1;
	}
	if (len >= namelen) {
		snprintf(err, errlen, "address \"%s\" is too long", host);
		return -1;
	}
	memcpy(name, start, len);
	name[len] = '\0';
	return 0;
}

int
addr_resolve_host(const char *host, int family, struct sockaddr_any *out,
    char *err, size_t errlen)
{
	char             name[256];
	struct addrinfo  hints, *res, *ai;
	int              rc;

	if (host_unbracket(host, name, sizeof(name), err, errlen) == -1)
		return -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = host[0] == '[' ? AF_INET6 : AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = host[0] == '[' || NUMERIC_ONLY ? AI_NUMERICHOST : 0;
	rc = lookup_getaddrinfo(name, NULL, &hints, &res);
	if (rc != 0)
		return resolve_error(rc, host, err, errlen);
	for (ai = res; ai != NULL; ai = ai->ai_next)
		if (family == AF_UNSPEC || ai->ai_family == family)
			break;
	if (ai == NULL) {
		lookup_free(res);
		snprintf(err, errlen, "\"%s\" is not an %s address", host,
		    family == AF_INET ? "IPv4" : "IPv6");
		return -1;
	}
	store(out, ai);
	lookup_free(res);
	return 0;
}

const char *
addr_host(const struct sockaddr *sa, char *buf, size_t len)
{
	const struct sockaddr_in6	*sin6 = (const void *)sa;
	const struct addr_unix_peer	*cred;

	if ((cred = addr_unix_cred(sa)) != NULL)
		snprintf(buf, len, "pid=%d,uid=%u", cred->pid, cred->uid);
	else if (sa->sa_family == AF_UNIX)
		unix_format(sa, buf, len);
	else if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
		    buf, len);
	else if (sa->sa_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
		inet_ntop(AF_INET, sin6->sin6_addr.s6_addr + 12, buf, len);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &sin6->sin6_addr, buf, len);
	else
		snprintf(buf, len, "?");
	return buf;
}

unsigned int
addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

const char *
addr_format(const struct sockaddr *sa, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	switch (sa->sa_family) {
	case AF_INET: {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(sin->sin_port));
		break;
	}
	case AF_INET6: {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ntohs(sin6->sin6_port));
		break;
	}
	case AF_UNIX:
		/* A client of a Unix socket: who it is, not its "unix:". */
		if (addr_unix_cred(sa) != NULL)
			(void)addr_host(sa, buf, len);
		else
			unix_format(sa, buf, len);
		break;
	default:
		snprintf(buf, len, "(address family %d)", sa->sa_family);
	}
	return buf;
}

int
addr_equal(const struct sockaddr_any *a, const struct sockaddr_any *b)
{
	if (a->ss.ss_family != b->ss.ss_family)
		return 0;
	if (a->ss.ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)&a->ss;
		const struct sockaddr_in *y = (const void *)&b->ss;

		return x->sin_port == y->sin_port &&
		    x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)&a->ss;
		const struct sockaddr_in6 *y = (const void *)&b->ss;

		return x->sin6_port == y->sin6_port &&
		    x->sin6_scope_id == y->sin6_scope_id &&
		    memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0;
	}
	return a->len == b->len && memcmp(&a->ss, &b->ss, a->len) == 0;
}

/* Where the port of "host:port" starts (after the last ':'), or NULL. */
static const char *
port_part(const char *spec)
{
	const char	*colon = strrchr(spec, ':');

	/* "[v6]" alone, or a bare IPv6 address: no port to look at. */
	if (colon == NULL || strchr(colon, ']') != NULL)
		return NULL;
	return colon + 1;
}

int
addr_split_range(const char *spec, char *out, size_t outlen, unsigned *count,
    char *err, size_t errlen)
{
	const char	*port = port_part(spec), *dash;
	unsigned long	 lo, hi;
	char		*end;

	*count = 1;
	if (port == NULL || addr_is_unix_spec(spec) ||
	    (dash = strchr(port, '-')) == NULL ||
	    !isdigit((unsigned char)port[0])) {
		if ((size_t)snprintf(out, outlen, "%s", spec) >= outlen) {
			snprintf(err, errlen, "\"%s\" is too long", spec);
			return -1;
		}
		return 0;
	}
	lo = strtoul(port, &end, 10);
	if (end != dash || !isdigit((unsigned char)dash[1]) ||
	    (hi = strtoul(dash + 1, &end, 10), *end != '\0')) {
		snprintf(err, errlen, "\"%s\": a port range is two port "
		    "numbers, \"low-high\"", spec);
		return -1;
	}
	if (lo == 0 || hi > 65535 || lo > hi) {
		snprintf(err, errlen, "\"%s\": a port range goes from a port "
		    "to a higher one, within 1..65535", spec);
		return -1;
	}
	*count = (unsigned)(hi - lo + 1);
	return addr_with_port(spec, (unsigned)lo, out, outlen) == -1 ?
	    (snprintf(err, errlen, "\"%s\" is too long", spec), -1) : 0;
}

int
addr_with_port(const char *spec, unsigned port, char *out, size_t outlen)
{
	const char	*p = addr_is_unix_spec(spec) ? NULL : port_part(spec);
	int		 n;

	n = p == NULL ? snprintf(out, outlen, "%s", spec) :
	    snprintf(out, outlen, "%.*s%u", (int)(p - spec), spec, port);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

void
addr_set_port(struct sockaddr_any *a, unsigned port)
{
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)(void *)&a->ss)->sin_port =
		    htons((uint16_t)port);
	else if (a->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)(void *)&a->ss)->sin6_port =
		    htons((uint16_t)port);
}
