/*
 * accesslog_format.c - the lines of the access log, as text.
 *
 * ferryd's own two layouts follow rinetd's, field for field, so that
 * scripts and web log analyzers written for rinetd's log keep working,
 * and add the duration as one more field at the end (rinetd's manual
 * lists its absence as a bug).  The exact layouts are rinetd 0.73's byte
 * for byte (its logEvent()): two lines per connection, rinetd's words,
 * the hosts as the configuration wrote them, nothing added.  JSON is one
 * object per line for Loki, Elasticsearch and jq.  sslh's is the line its
 * log_connection() writes for each connection, on which fail2ban's sslh
 * filter works.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accesslog.h"
#include "addr.h"
#include "rule.h"

static int	al_format = ACCESS_LOG_RINETD;
static int	al_fields[ACCESS_FIELDS];	/* access_log_fields */
static int	al_nfields;

/* A TCP port's name in /etc/services, as getnameinfo() would say it. */
struct port_name {
	unsigned short	port;
	char		name[NI_MAXSERV];
};
static struct port_name	*port_names;	/* by port, the first of each */
static size_t		 nport_names;

/* Month names of the C locale, whatever locale the process runs in. */
static const char *const months[12] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};

/* In enum access_log_field order: the JSON keys. */
static const char *const field_keys[ACCESS_FIELDS] = {
	"rule", "connect_time", "first_byte_time", "route", "sni", "closed_by"
};

/* closed_by: the side that ended the connection first, or NULL. */
static const char *
closed_by(const struct accesslog_entry *e)
{
	return e->closed_first == ACCESSLOG_SIDE_CLIENT ? "client" :
	    e->closed_first == ACCESSLOG_SIDE_BACKEND ? "backend" : NULL;
}

/* The addresses and times of a line, as text. */
struct fields {
	char		client[ADDR_STRLEN];
	char		lhost[ADDR_STRLEN];
	char		chost[ADDR_STRLEN];
	unsigned int	lport, cport;
	char		date[32];	/* "21/Nov/2026:23:29:52", local time */
	char		zone[8];	/* "+0100" */
	long long	sec;		/* duration, whole seconds ... */
	int		msec;		/* ... and milliseconds */
};

static int
port_order(const void *a, const void *b)
{
	const struct port_name	*x = a, *y = b;

	return (x->port > y->port) - (x->port < y->port);
}

/* The entry of port in v[0..n), or NULL. */
static const struct port_name *
port_find(const struct port_name *v, size_t n, unsigned short port)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (v[i].port == port)
			return &v[i];
	return NULL;
}

/*
 * /etc/services' TCP ports and the first name of each, as
 * getservbyport(3) finds them, sorted by port.  A name longer than
 * getnameinfo() writes is left out (sslh then writes the number).
 */
static void
read_port_names(void)
{
	struct servent		*se;
	struct port_name	*v = NULL, *grown;
	size_t			 n = 0, cap = 0;
	unsigned short		 port;

	setservent(1);
	while ((se = getservent()) != NULL) {
		port = ntohs((unsigned short)se->s_port);
		if (strcmp(se->s_proto, "tcp") != 0 ||
		    strlen(se->s_name) >= sizeof(v->name) ||
		    port_find(v, n, port) != NULL)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 256 : cap * 2;
			if ((grown = realloc(v, cap * sizeof(*v))) == NULL)
				break;	/* the names read so far, then */
			v = grown;
		}
		v[n].port = port;
		snprintf(v[n].name, sizeof(v[n].name), "%s", se->s_name);
		n++;
	}
	endservent();
	if (n > 0)
		qsort(v, n, sizeof(*v), port_order);
	free(port_names);
	port_names = v;
	nport_names = n;
}

void
accesslog_set_format(int format, const int *fields, int n)
{
	al_nfields = n > 0 && n <= ACCESS_FIELDS ? n : 0;
	if (al_nfields > 0)
		memcpy(al_fields, fields, (size_t)al_nfields * sizeof(*fields));
	al_format = format;
	if (format == ACCESS_LOG_SSLH)
		read_port_names();
}

int
accesslog_get_format(void)
{
	return al_format;
}

bool
accesslog_logs_opened(void)
{
	return al_format == ACCESS_LOG_RINETD_EXACT ||
	    al_format == ACCESS_LOG_COMMON_EXACT;
}

bool
accesslog_logs_connected(void)
{
	return al_format == ACCESS_LOG_SSLH ||
	    al_format == ACCESS_LOG_SSLH_NUMERIC;
}

static void
fields_fill(struct fields *f, const struct accesslog_entry *e)
{
	struct tm	tm;
	time_t		when = e->date != 0 ? e->date : time(NULL);
	int64_t		ms = e->end_ms - e->start_ms;

	memset(f, 0, sizeof(*f));
	strcpy(f->client, "?");
	strcpy(f->lhost, "?");
	strcpy(f->chost, "?");
	if (e->client != NULL)
		addr_host(e->client, f->client, sizeof(f->client));
	if (e->rule != NULL) {
		addr_host((const void *)&e->rule->listen_addr.ss, f->lhost,
		    sizeof(f->lhost));
		f->lport = addr_port((const void *)&e->rule->listen_addr.ss);
	}
	if (e->backend != NULL) {
		addr_host(e->backend, f->chost, sizeof(f->chost));
		f->cport = addr_port(e->backend);
	}
	if (localtime_r(&when, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	snprintf(f->date, sizeof(f->date), "%02d/%s/%04d:%02d:%02d:%02d",
	    tm.tm_mday, months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour,
	    tm.tm_min, tm.tm_sec);
	if (strftime(f->zone, sizeof(f->zone), "%z", &tm) == 0)
		strcpy(f->zone, "+0000");
	if (ms < 0)
		ms = 0;
	f->sec = (long long)(ms / 1000);
	f->msec = (int)(ms % 1000);
}

/* A time in seconds with microseconds ("0.000128"), or none. */
static void
put_time(char *buf, size_t len, int64_t us, const char *none)
{
	if (us < 0)
		snprintf(buf, len, "%s", none);
	else
		snprintf(buf, len, "%lld.%06lld", (long long)(us / 1000000),
		    (long long)(us % 1000000));
}

static const char *
rule_name(const struct accesslog_entry *e)
{
	if (e->rule == NULL)
		return NULL;
	return e->rule->name != NULL ? e->rule->name : e->rule->listen;
}

/* access_log_fields: each after sep, into buf. */
static void
extra_fields(const struct accesslog_entry *e, char sep, char *buf,
    size_t len)
{
	size_t		 used = 0;
	char		 v[256 + 8];	/* a rule's name, a host name */
	const char	*name;
	int		 i;

	buf[0] = '\0';
	for (i = 0; i < al_nfields && used < len; i++) {
		switch (al_fields[i]) {
		case ACCESS_FIELD_RULE:
			name = rule_name(e);
			snprintf(v, sizeof(v), "%s", name != NULL ? name : "-");
			break;
		case ACCESS_FIELD_CONNECT_TIME:
			put_time(v, sizeof(v), e->connect_us, "-");
			break;
		case ACCESS_FIELD_ROUTE:
			snprintf(v, sizeof(v), "%s", e->route != NULL ?
			    e->route : "-");
			break;
		case ACCESS_FIELD_SNI:
			snprintf(v, sizeof(v), "%s", e->matched != NULL &&
			    e->matched[0] != '\0' ? e->matched : "-");
			break;
		case ACCESS_FIELD_CLOSED_BY:
			name = closed_by(e);
			snprintf(v, sizeof(v), "%s", name != NULL ? name : "-");
			break;
		default:
			put_time(v, sizeof(v), e->first_byte_us, "-");
			break;
		}
		used += (size_t)snprintf(buf + used, len - used, "%c%s", sep,
		    v);
	}
}

/* ferryd's one line: rinetd's fields, ferryd's words, the duration. */
static int
format_ferryd(const struct accesslog_entry *e, int format, char *buf,
    size_t len)
{
	struct fields	 f;
	const char	*result = e->result != NULL ? e->result : "unknown";
	char		 attempts[16] = "", extra[ACCESSLOG_LINE_MAX];
	char		 sep = format == ACCESS_LOG_COMMON ? ' ' : '\t';

	/* These lines always said "denied" for both: they still do. */
	if (strcmp(result, ACCESSLOG_NOT_ALLOWED) == 0)
		result = ACCESSLOG_DENIED;
	fields_fill(&f, e);
	/* Several backends: how many were tried, as one more field. */
	if (e->attempts_field)
		snprintf(attempts, sizeof(attempts), "%c%u", sep, e->attempts);
	extra_fields(e, sep, extra, sizeof(extra));
	if (format == ACCESS_LOG_COMMON)
		/*
		 * rinetd's logcommon: a fake HTTP request whose "URL" holds
		 * the rule and the result, the bytes sent to the client as
		 * the response size, and the bytes received after the
		 * placeholders for referrer, user agent and server name.
		 */
		return snprintf(buf, len, "%s - - [%s %s] \"GET "
		    "/rinetd-services/%s/%u/%s/%u/%s HTTP/1.0\" 200 %llu - - - "
		    "%llu %lld.%03d%s%s\n", f.client, f.date, f.zone, f.lhost,
		    f.lport, f.chost, f.cport, result,
		    (unsigned long long)e->bytes_out,
		    (unsigned long long)e->bytes_in, f.sec, f.msec, attempts,
		    extra);
	/* rinetd ends its date with a space, then the tab. */
	return snprintf(buf, len, "%s \t%s\t%s\t%u\t%s\t%u\t%llu\t%llu\t"
	    "%s\t%lld.%03d%s%s\n", f.date, f.client, f.lhost, f.lport, f.chost,
	    f.cport, (unsigned long long)e->bytes_in,
	    (unsigned long long)e->bytes_out, result, f.sec, f.msec, attempts,
	    extra);
}

/*
 * The host of "host:port" as the configuration wrote it (rinetd logs its
 * bind and connect addresses so), or NULL when written is not one such
 * address (a list of backends).
 */
static bool
written_host(const char *written, char *buf, size_t len)
{
	const char	*colon;

	if (written != NULL && strncmp(written, "unix:", 5) == 0) {
		snprintf(buf, len, "%s", written);	/* a path, whole */
		return true;
	}
	if (written == NULL || strpbrk(written, ", ") != NULL ||
	    (colon = strrchr(written, ':')) == NULL ||
	    (size_t)(colon - written) >= len)
		return false;
	memcpy(buf, written, (size_t)(colon - written));
	buf[colon - written] = '\0';
	return true;
}

/*
 * rinetd's word for how a connection ended: done-remote-closed when the
 * client closed (or reset) first, done-local-closed when the backend did
 * (a refused connect too: rinetd reads the error as the backend's close).
 * What rinetd never does (ferryd's timeouts and limits) keeps
 * ferryd's word.  rinetd 0.73's table of words lacks the one for
 * "allowed" that its enum has, so a client no allow pattern matched is
 * logged "denied" and one a deny pattern matched "(null)" (glibc's text
 * for the NULL past the table's end): what its users' parsers have seen
 * since 2021, written the same here.
 */
static const char *
exact_word(const struct accesslog_entry *e)
{
	const char	*r = e->result != NULL ? e->result : "unknown-error";

	if (strcmp(r, ACCESSLOG_NOT_ALLOWED) == 0)
		return "denied";
	if (strcmp(r, ACCESSLOG_DENIED) == 0)
		return "(null)";
	if (strcmp(r, ACCESSLOG_DONE) == 0 || strcmp(r, ACCESSLOG_RESET) == 0 ||
	    strcmp(r, ACCESSLOG_CONNECT_FAILED) == 0)
		return e->closed_first == ACCESSLOG_SIDE_CLIENT ?
		    "done-remote-closed" : "done-local-closed";
	return r;
}

/* The client as rinetd's getnameinfo(NI_NUMERICHOST) writes it. */
static void
exact_client(const struct sockaddr *sa, char *buf, size_t len)
{
	const void	*a = NULL;

	snprintf(buf, len, "?");
	if (sa == NULL)
		return;
	if (sa->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	if (a == NULL || inet_ntop(sa->sa_family, a, buf, (socklen_t)len) ==
	    NULL)
		snprintf(buf, len, "?");
}

/* rinetd 0.73's logEvent(), both layouts. */
static int
format_exact(const struct accesslog_entry *e, int format, char *buf,
    size_t len)
{
	struct fields	 f;
	const char	*word = exact_word(e);

	fields_fill(&f, e);
	exact_client(e->client, f.client, sizeof(f.client));
	if (e->rule != NULL) {
		(void)written_host(e->rule->listen, f.lhost, sizeof(f.lhost));
		(void)written_host(e->rule->connect, f.chost, sizeof(f.chost));
	}
	/* rinetd's date is strftime("%d/%b/%Y:%H:%M:%S "): a space last. */
	if (format == ACCESS_LOG_COMMON_EXACT)
		return snprintf(buf, len, "%s - - [%s  %s] \"GET "
		    "/rinetd-services/%s/%u/%s/%u/%s HTTP/1.0\" 200 %llu - - - "
		    "%llu\n", f.client, f.date, f.zone, f.lhost, f.lport,
		    f.chost, f.cport, word, (unsigned long long)e->bytes_out,
		    (unsigned long long)e->bytes_in);
	return snprintf(buf, len, "%s \t%s\t%s\t%u\t%s\t%u\t%llu\t%llu\t%s\n",
	    f.date, f.client, f.lhost, f.lport, f.chost, f.cport,
	    (unsigned long long)e->bytes_in, (unsigned long long)e->bytes_out,
	    word);
}

/*
 * An address as sslh writes it ("%s:%s" of getnameinfo()'s host and
 * service): the host as a number (sslh would look its name up unless
 * --numeric; a worker does not wait on DNS), the port by its name in
 * /etc/services unless numeric; "?:?" for what is not IP.
 */
static void
sslh_address(const struct sockaddr *sa, bool numeric, char *buf,
    size_t len)
{
	char			 host[ADDR_STRLEN];
	const struct port_name	*pn = NULL;
	struct port_name	 key;

	if (sa == NULL || (sa->sa_family != AF_INET &&
	    sa->sa_family != AF_INET6)) {
		snprintf(buf, len, "?:?");
		return;
	}
	exact_client(sa, host, sizeof(host));
	key.port = (unsigned short)addr_port(sa);
	if (!numeric && nport_names > 0)
		pn = bsearch(&key, port_names, nport_names,
		    sizeof(*port_names), port_order);
	if (pn != NULL)
		snprintf(buf, len, "%s:%s", host, pn->name);
	else
		snprintf(buf, len, "%s:%u", host, (unsigned)key.port);
}

/*
 * The protocol sslh names: the route's name without the "_N" that
 * ferryd --sslh adds to a protocol given again (tls_2 is sslh's tls);
 * without a route, the rule's name.
 */
static void
sslh_protocol(const struct accesslog_entry *e, char *buf, size_t len)
{
	const char	*name = e->route != NULL ? e->route : rule_name(e);
	const char	*under = e->route != NULL ? strrchr(name, '_') : NULL;
	size_t		 n = name != NULL ? strlen(name) : 0;

	if (under != NULL && under[1] != '\0' &&
	    under[1 + strspn(under + 1, "0123456789")] == '\0')
		n = (size_t)(under - name);
	snprintf(buf, len, "%.*s", (int)n, name != NULL ? name : "?");
}

/*
 * sslh's log_connection(): "PROTOCOL:connection from CLIENT to LISTEN
 * forwarded from LOCAL to BACKEND", LISTEN the address the client
 * reached, LOCAL the backend connection's own end.
 */
static int
format_sslh(const struct accesslog_entry *e, int format, char *buf,
    size_t len)
{
	char	proto[RULE_NAME_MAX + 1], peer[ADDR_STRLEN + NI_MAXSERV];
	char	service[sizeof(peer)], local[sizeof(peer)];
	char	target[sizeof(peer)];
	bool	numeric = format == ACCESS_LOG_SSLH_NUMERIC;

	sslh_protocol(e, proto, sizeof(proto));
	sslh_address(e->client, numeric, peer, sizeof(peer));
	sslh_address(e->client_local != NULL ? e->client_local :
	    e->rule != NULL ? (const void *)&e->rule->listen_addr.ss : NULL,
	    numeric, service, sizeof(service));
	sslh_address(e->backend_local, numeric, local, sizeof(local));
	sslh_address(e->backend, numeric, target, sizeof(target));
	return snprintf(buf, len, "%s:connection from %s to %s forwarded from "
	    "%s to %s\n", proto, peer, service, local, target);
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static size_t
json_str(char *buf, size_t len, const char *s)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 n = 0;
	unsigned char		 c;

	if (s == NULL)
		return (size_t)snprintf(buf, len, "null");
	for (buf[n++] = '"'; *s != '\0' && n + 8 < len; s++) {
		c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			memcpy(buf + n, "\\u00", 4);
			buf[n + 4] = hex[c >> 4];
			buf[n + 5] = hex[c & 15];
			n += 6;
		} else
			buf[n++] = (char)c;
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return n;
}

/* "2026-11-25T23:00:00.123Z": the end of the connection, UTC. */
static void
json_time(const struct accesslog_entry *e, char *buf, size_t len)
{
	struct timespec	ts = { e->date, 0 };
	struct tm	tm;

	if (e->date == 0 && clock_gettime(CLOCK_REALTIME, &ts) == -1)
		ts.tv_sec = time(NULL);
	if (gmtime_r(&ts.tv_sec, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (ts.tv_nsec / 1000000) % 1000);
}

/* access_log_fields other than the rule (always there) as JSON members. */
static size_t
json_extra(const struct accesslog_entry *e, char *buf, size_t len)
{
	size_t	used = 0;
	char	v[2 * 256 + 8];	/* a host name, escaped */
	int	i;

	buf[0] = '\0';
	for (i = 0; i < al_nfields && used < len; i++) {
		if (al_fields[i] == ACCESS_FIELD_RULE)
			continue;
		if (al_fields[i] == ACCESS_FIELD_ROUTE)
			json_str(v, sizeof(v), e->route);
		else if (al_fields[i] == ACCESS_FIELD_SNI)
			json_str(v, sizeof(v), e->matched != NULL &&
			    e->matched[0] != '\0' ? e->matched : NULL);
		else if (al_fields[i] == ACCESS_FIELD_CLOSED_BY)
			json_str(v, sizeof(v), closed_by(e));
		else
			put_time(v, sizeof(v), al_fields[i] ==
			    ACCESS_FIELD_CONNECT_TIME ? e->connect_us :
			    e->first_byte_us, "null");
		used += (size_t)snprintf(buf + used, len - used, ",\"%s\":%s",
		    field_keys[al_fields[i]], v);
	}
	return used;
}

static int
format_json(const struct accesslog_entry *e, char *buf, size_t len)
{
	struct fields	f;
	char		when[64], rule[2 * RULE_NAME_MAX + 8], result[256];
	char		listen[ADDR_STRLEN + 2] = "null";
	char		backend[ADDR_STRLEN + 2] = "null";
	char		extra[ACCESSLOG_LINE_MAX / 2], attempts[32] = "";

	fields_fill(&f, e);
	json_time(e, when, sizeof(when));
	json_str(rule, sizeof(rule), rule_name(e));
	json_str(result, sizeof(result), e->result != NULL ? e->result :
	    "unknown");
	if (e->rule != NULL)
		snprintf(listen, sizeof(listen), "\"%s\"", addr_format(
		    (const void *)&e->rule->listen_addr.ss, extra,
		    sizeof(extra)));
	if (e->backend != NULL)
		snprintf(backend, sizeof(backend), "\"%s\"",
		    addr_format(e->backend, extra, sizeof(extra)));
	if (e->attempts_field)
		snprintf(attempts, sizeof(attempts), ",\"attempts\":%u",
		    e->attempts);
	json_extra(e, extra, sizeof(extra));
	return snprintf(buf, len, "{\"time\":\"%s\",\"rule\":%s,"
	    "\"client\":\"%s\",\"client_port\":%u,\"listen\":%s,"
	    "\"backend\":%s,\"bytes_in\":%llu,\"bytes_out\":%llu,"
	    "\"duration\":%lld.%03d,\"outcome\":%s%s%s}\n", when, rule,
	    f.client, e->client != NULL ? addr_port(e->client) : 0, listen,
	    backend, (unsigned long long)e->bytes_in,
	    (unsigned long long)e->bytes_out, f.sec, f.msec, result, attempts,
	    extra);
}

size_t
accesslog_format(const struct accesslog_entry *e, int format, char *buf,
    size_t len)
{
	int	n;

	if (len < 2)
		return 0;
	switch (format) {
	case ACCESS_LOG_RINETD_EXACT:
	case ACCESS_LOG_COMMON_EXACT:
		n = format_exact(e, format, buf, len);
		break;
	case ACCESS_LOG_JSON:
		n = format_json(e, buf, len);
		break;
	case ACCESS_LOG_SSLH:
	case ACCESS_LOG_SSLH_NUMERIC:
		n = format_sslh(e, format, buf, len);
		break;
	default:
		n = format_ferryd(e, format, buf, len);
		break;
	}
	if (n < 0)
		return 0;
	if ((size_t)n >= len) {
		/* Cut, but still a line of its own. */
		n = (int)len - 1;
		buf[n - 1] = '\n';
	}
	return (size_t)n;
}
