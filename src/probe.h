/*
 * probe.h - pure parsers of a client's first bytes: what a TLS
 * ClientHello names (SNI, ALPN), an HTTP request's Host, an SSH banner,
 * OpenVPN, SOCKS5, XMPP.  The peek stage (tcp_peek.c) reads the first
 * bytes into one bounded buffer and calls a probe after every read with
 * all the bytes so far; a probe keeps in its state how far it got, so
 * that nothing is parsed twice.  No probe allocates, reads past len or
 * does I/O; each is fuzzed (tests/fuzz).
 */
#ifndef FERRYD_PROBE_H
#define FERRYD_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The most a peek reads: a ClientHello of 16 KiB plus its headers. */
#define PROBE_PEEK_MAX	(16384 + 5 + 4)

enum probe_verdict {
	PROBE_AGAIN = 0,	/* not yet: call again with more bytes */
	PROBE_MATCH,		/* it is this protocol; results are set */
	PROBE_NO		/* it is not (or is malformed): final */
};

#define PROBE_NAME_MAX	255	/* a DNS name, an HTTP host */
#define PROBE_ALPN_MAX	16	/* protocols kept of a ClientHello */
#define PROBE_ALPN_LEN	32	/* longest protocol name kept, with NUL */

/*
 * A TLS ClientHello, which may span several records and segments.
 * sni is lower-cased (ASCII only, IDNA names as sent); an ALPN name
 * longer than PROBE_ALPN_LEN - 1 or past the first PROBE_ALPN_MAX is
 * not kept.  The hello is parsed as it passes: the state is counters,
 * not a copy of it (under 1 KiB in all, most of it the results).
 */
struct probe_tls {
	/* parser's own state: probe_tls_start (or zero it) before the
	 * first call */
	size_t		pos;		/* bytes of buf consumed */
	uint32_t	need;		/* bytes left of the record's body */
	uint32_t	hello_len;	/* bytes of the handshake consumed */
	uint32_t	msg_len;	/* the handshake's, once its header is
					 * in */
	uint16_t	acc;		/* the integer field being read */
	uint16_t	ext;		/* bytes left of the server_name or
					 * ALPN extension being read */
	uint16_t	run;		/* bytes left of the vector or name
					 * being read */
	uint16_t	name_len;	/* that vector's or name's */
	uint16_t	ext_type;	/* of the extension being read */
	uint8_t		stage;		/* the record layer's */
	uint8_t		rec_got;	/* bytes of a record header in */
	uint8_t		field;		/* where in the hello's body */
	uint8_t		got;		/* bytes of the integer field in */
	bool		bad;		/* a flaw seen: PROBE_NO at the end */
	bool		seen_sni, seen_alpn;
	bool		host_name;	/* the server name read is one */
	bool		keep;		/* the ALPN name read is kept */
	/* results, valid after PROBE_MATCH; the names are written (with
	 * their NUL) before has_sni or nalpn says they are there */
	bool		has_sni;
	char		sni[PROBE_NAME_MAX + 1];
	int		nalpn;
	char		alpn[PROBE_ALPN_MAX][PROBE_ALPN_LEN];
};

/*
 * Ready for a first call: the state and the results' flags zeroed, not
 * the names' buffers (a tenth of the size), which are written before
 * they are read: what a peek per connection costs.
 */
void	probe_tls_start(struct probe_tls *st);
enum probe_verdict probe_tls(struct probe_tls *st, const uint8_t *buf,
    size_t len);
/*
 * The same for a whole handshake message (type, 24-bit length, body)
 * with no record around it, as QUIC's CRYPTO frames carry it: st is
 * zeroed first; PROBE_MATCH or PROBE_NO (never PROBE_AGAIN when msg
 * holds the message's every byte).
 */
enum probe_verdict probe_tls_hello(struct probe_tls *st, const uint8_t *msg,
    size_t len);

/*
 * An HTTP/1.x request: a known method, a request line, and its Host
 * header (lower-cased, the port cut off) once the headers are complete.
 * An IPv6 literal keeps its brackets ("[2001:db8::1]").  The host of an
 * absolute-form target ("GET http://a.example/ HTTP/1.1") wins over the
 * Host header, as at the origin server (RFC 9112 3.2.2).  When len
 * reaches PROBE_PEEK_MAX before the blank line: PROBE_MATCH without a
 * host.  The HTTP/2 preface ("PRI * HTTP/2.0...", h2c with prior
 * knowledge) is a match without a host: the host is in its HPACK frames.
 */
struct probe_http {
	/* parser's own state: probe_http_start (or zero it) before the
	 * first call */
	size_t		pos;		/* bytes of buf looked at */
	size_t		line;		/* where the current line starts */
	uint32_t	stage;
	bool		host_seen;	/* a Host header, even empty */
	/* results, valid after PROBE_MATCH */
	bool		has_host;
	char		host[PROBE_NAME_MAX + 1];
};

/* Ready for a first call, as probe_tls_start: host is not zeroed. */
void	probe_http_start(struct probe_http *st);
enum probe_verdict probe_http(struct probe_http *st, const uint8_t *buf,
    size_t len);

/*
 * The probes that need no state, one file each (probe_ssh.c, ...): each
 * judges the bytes so far afresh and looks at a bounded prefix, so
 * calling it again after every read costs little; each says PROBE_NO at
 * the first byte that rules its protocol out, so that the probes after
 * it in a route list are not held up.
 */
enum probe_verdict probe_ssh(const uint8_t *buf, size_t len);
enum probe_verdict probe_openvpn(const uint8_t *buf, size_t len);
enum probe_verdict probe_socks5(const uint8_t *buf, size_t len);
enum probe_verdict probe_xmpp(const uint8_t *buf, size_t len);
enum probe_verdict probe_adb(const uint8_t *buf, size_t len);
enum probe_verdict probe_syslog(const uint8_t *buf, size_t len);
enum probe_verdict probe_msrdp(const uint8_t *buf, size_t len);

/* Whether the len bytes at buf are a prefix of the n at want, or those
 * a prefix of them; the same for the string s. */
static inline bool
probe_starts_n(const uint8_t *buf, size_t len, const void *want, size_t n)
{
	return memcmp(buf, want, len < n ? len : n) == 0;
}

static inline bool
probe_starts(const uint8_t *buf, size_t len, const char *s)
{
	return probe_starts_n(buf, len, s, strlen(s));
}

/*
 * sslh's probes, for rules with probes = "sslh" (tcp_peek.c): each
 * decides as sslh 2.x's of the same name does, on all the bytes so far,
 * asked afresh at every look.  Their verdicts hold for one look only:
 * PROBE_NO is sslh's "next" (the same protocol may match at a later
 * look: "HTTP" or "jabber" anywhere, an OpenVPN length equal to what
 * came), and PROBE_AGAIN does not hold back the routes after it.  They
 * are looser than ferryd's own (ferryd-routes(7) says where), and, like
 * those, read nothing past len and allocate nothing.
 */
enum probe_verdict probe_sslh_ssh(const uint8_t *buf, size_t len);
enum probe_verdict probe_sslh_openvpn(const uint8_t *buf, size_t len);
enum probe_verdict probe_sslh_xmpp(const uint8_t *buf, size_t len);
enum probe_verdict probe_sslh_http(const uint8_t *buf, size_t len);
enum probe_verdict probe_sslh_adb(const uint8_t *buf, size_t len);
enum probe_verdict probe_sslh_socks5(const uint8_t *buf, size_t len);
enum probe_verdict probe_sslh_syslog(const uint8_t *buf, size_t len);
enum probe_verdict probe_sslh_msrdp(const uint8_t *buf, size_t len);

/*
 * The UDP probes (probe_udp.c): each judges one whole datagram, so none
 * says PROBE_AGAIN.  WireGuard's is sslh's too.
 */
enum probe_verdict probe_udp_openvpn(const uint8_t *buf, size_t len);
enum probe_verdict probe_sslh_udp_openvpn(const uint8_t *buf, size_t len);
enum probe_verdict probe_wireguard(const uint8_t *buf, size_t len);
enum probe_verdict probe_teamspeak(const uint8_t *buf, size_t len);
enum probe_verdict probe_sslh_teamspeak(const uint8_t *buf, size_t len);

/*
 * The names a route of sslh's TLS probe wants: sni, alpn say which of
 * its lists it has; match says whether a name of the hello (a server
 * name, or a protocol offered; NUL-terminated, cut at a NUL byte as
 * sslh's are) is on the list.
 */
struct probe_sslh_names {
	bool	sni, alpn;
	bool	(*match)(void *ctx, bool alpn, const char *name);
	void	*ctx;
};

/*
 * sslh's TLS probe: the first record alone, judged as far as sslh's
 * reader looks (a handshake record of version 3 or more holding a
 * ClientHello whose lengths fit, up to its extensions), and with names
 * (NULL: none wanted) its server_name and ALPN extensions walked as
 * sslh walks them.
 */
enum probe_verdict probe_sslh_tls(const uint8_t *buf, size_t len,
    const struct probe_sslh_names *names);

#endif
