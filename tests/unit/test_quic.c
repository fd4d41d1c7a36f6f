/*
 * test_quic.c - unit tests of the QUIC Initial reader (quic_initial.c):
 * the client Initials of RFC 9001 A.2 (v1) and RFC 9369 A.2 (v2) and
 * gtlsclient's first datagrams (ngtcp2, tests/kit/quic/), read for their
 * server name and ALPN; ClientHellos sealed here (quic_seal.c) over
 * several packets and datagrams in any order, in shuffled and
 * overlapping CRYPTO frames, beside 0-RTT packets; and every outcome
 * that is not a hello: a corrupted tag, truncated packets, unknown
 * versions, Version Negotiation, frames an Initial may not hold, a hello
 * past the bounds.
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quic_initial.h"
#include "../kit/quic_seal.h"
#include "testlib.h"

#define DGRAM_MAX	2048
#define DGRAMS_MAX	4
#define HELLO_MAX	(QUIC_CRYPTO_MAX + 4096)
#define CLIENT_DGRAM	1200	/* a client's Initial datagrams' least size */

/* Datagrams of a file in tests/kit/quic/: hex, blank lines between them. */
struct dgrams {
	size_t	n;
	size_t	len[DGRAMS_MAX];
	uint8_t	data[DGRAMS_MAX][DGRAM_MAX];
};

static struct quic_initial	q;
static uint8_t			hello[HELLO_MAX];	/* RFC 9001 A.2's */
static size_t			hello_len;
static const uint8_t		dcid[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static const uint8_t		scid[4] = { 0xa1, 0xa2, 0xa3, 0xa4 };

static void
load(const char *name, struct dgrams *d)
{
	const char	*srcdir = getenv("top_srcdir");
	char		 path[4096], line[256], hex[2 * DGRAM_MAX + 1];
	size_t		 used = 0, k;
	FILE		*f;

	snprintf(path, sizeof(path), "%s/tests/kit/quic/%s",
	    srcdir != NULL ? srcdir : ".", name);
	if ((f = fopen(path, "r")) == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	d->n = 0;
	hex[0] = '\0';
	while (d->n < DGRAMS_MAX) {
		bool	end = fgets(line, sizeof(line), f) == NULL;

		if (end || line[0] == '\n') {
			if (used > 0) {
				d->len[d->n] = unhex(hex, d->data[d->n],
				    DGRAM_MAX);
				d->n++;
			}
			used = 0;
			hex[0] = '\0';
			if (end)
				break;
			continue;
		}
		k = strcspn(line, "\n");
		if (line[0] == '#' || used + k >= sizeof(hex))
			continue;
		memcpy(hex + used, line, k);
		used += k;
		hex[used] = '\0';
	}
	fclose(f);
}

static size_t
put_varint(uint8_t *p, uint64_t v)
{
	if (v < 64) {
		p[0] = (uint8_t)v;
		return 1;
	}
	p[0] = (uint8_t)(0x40 | v >> 8);
	p[1] = (uint8_t)v;
	return 2;
}

/* A CRYPTO frame of hello[off..off+n). */
static size_t
crypto_frame(uint8_t *p, const uint8_t *data, size_t off, size_t n)
{
	size_t	at = 0;

	p[at++] = 0x06;
	at += put_varint(p + at, off);
	at += put_varint(p + at, n);
	memcpy(p + at, data + off, n);
	return at + n;
}

/* An Initial of frames (padded to fill a 1200-byte datagram) at out. */
static size_t
initial(uint32_t version, uint32_t pn, const uint8_t *frames, size_t len,
    uint8_t *out, size_t size)
{
	uint8_t			payload[DGRAM_MAX];
	size_t			overhead = 10 + sizeof(dcid) + sizeof(scid) + 4 +
	    16;
	struct quic_packet	pkt = { version, false, dcid, scid,
	    sizeof(dcid), sizeof(scid), pn, 4, payload, len };

	memset(payload, 0, sizeof(payload));	/* PADDING */
	memcpy(payload, frames, len);
	if (len + overhead < CLIENT_DGRAM)
		pkt.len = CLIENT_DGRAM - overhead;
	return quic_seal(&pkt, out, size);
}

/* Feed datagrams d[order[0]], d[order[1]], ...: the last outcome. */
static enum quic_outcome
feed(const struct dgrams *d, const size_t *order, size_t n)
{
	enum quic_outcome	o = QUIC_MORE;
	size_t			i;

	quic_initial_init(&q);
	for (i = 0; i < n; i++)
		o = quic_initial_datagram(&q, d->data[order[i]],
		    d->len[order[i]]);
	return o;
}

static enum quic_outcome
feed_one(const uint8_t *p, size_t len)
{
	quic_initial_init(&q);
	return quic_initial_datagram(&q, p, len);
}

/* Decided on this server name, with alpn among the protocols; what it
 * got instead on standard error. */
static bool
decided(enum quic_outcome o, const char *sni, const char *alpn)
{
	int	i;

	if (o == QUIC_DECIDED && q.tls.has_sni && strcmp(q.tls.sni, sni) == 0)
		for (i = 0; i < q.tls.nalpn; i++)
			if (strcmp(q.tls.alpn[i], alpn) == 0)
				return true;
	fprintf(stderr, "# %s, sni \"%s\", %d ALPN names, the first \"%s\"\n",
	    quic_outcome_name(o), q.tls.has_sni ? q.tls.sni : "",
	    q.tls.nalpn, q.tls.nalpn > 0 ? q.tls.alpn[0] : "");
	return false;
}

static void
test_rfc(const char *file, const char *what, uint32_t version)
{
	static const uint8_t	want_dcid[8] = { 0x83, 0x94, 0xc8, 0xf0, 0x3e,
	    0x51, 0x57, 0x08 };
	static struct dgrams	d, copy;
	enum quic_outcome	o;

	load(file, &d);
	copy = d;
	o = feed_one(d.data[0], d.len[0]);
	check(d.n == 1 && d.len[0] == 1200 && decided(o, "example.com", "alpn"),
	    "%s: \"example.com\", ALPN \"alpn\" (%s)", what,
	    quic_outcome_name(o));
	check(q.version == version && q.dcid_len == 8 &&
	    memcmp(q.dcid, want_dcid, 8) == 0 && q.scid_len == 0 &&
	    q.initials == 1, "%s: the version, DCID and empty SCID", what);
	check(memcmp(&d, &copy, sizeof(d)) == 0, "%s: the datagram unchanged",
	    what);
	check(quic_initial_datagram(&q, (const uint8_t *)"x", 1) ==
	    QUIC_DECIDED && q.datagrams == 1,
	    "%s: once decided, later datagrams are not read", what);
	if (version == QUIC_V1) {
		hello_len = q.hello_end;
		memcpy(hello, q.crypto, hello_len);
	}
	d.data[0][1199] ^= 0x01;
	check(feed_one(d.data[0], d.len[0]) == QUIC_UNDECRYPTABLE,
	    "%s: a bit of the tag flipped: undecryptable", what);
	d = copy;
	d.data[0][600] ^= 0x80;
	check(feed_one(d.data[0], d.len[0]) == QUIC_UNDECRYPTABLE,
	    "%s: a bit of the payload flipped: undecryptable", what);
	d = copy;
	d.data[0][10] ^= 0x01;
	check(feed_one(d.data[0], d.len[0]) == QUIC_UNDECRYPTABLE,
	    "%s: a bit of the DCID flipped: undecryptable", what);
}

static void
test_gtlsclient(void)
{
	static struct dgrams	d;
	static const size_t	order[] = { 0, 1 };
	enum quic_outcome	o;

	load("gtlsclient-v1.hex", &d);
	o = feed(&d, order, 1);
	check(d.n == 2 && decided(o, "www.example.org", "h3"),
	    "gtlsclient: \"www.example.org\", ALPN h3 (%s)",
	    quic_outcome_name(o));
	check(q.dcid_len >= 8 && q.scid_len > 0,
	    "gtlsclient: its DCID and SCID (%u, %u bytes)", q.dcid_len,
	    q.scid_len);
	o = feed(&d, order + 1, 1);
	check(decided(o, "www.example.org", "h3"),
	    "gtlsclient: its retransmission alone says the same");
}

/* A hello of total bytes: RFC 9001's with a padding extension (RFC 7685)
 * grown to fit. */
static size_t
grow_hello(uint8_t *out, size_t total)
{
	size_t	at = 4 + 2 + 32, pad = total - hello_len - 4, ext, msg;

	memcpy(out, hello, hello_len);
	at += 1 + out[at];
	at += 2 + ((size_t)out[at] << 8 | out[at + 1]);
	at += 1 + out[at];
	ext = ((size_t)out[at] << 8 | out[at + 1]) + 4 + pad;
	out[at] = (uint8_t)(ext >> 8);
	out[at + 1] = (uint8_t)ext;
	msg = total - 4;
	out[1] = (uint8_t)(msg >> 16);
	out[2] = (uint8_t)(msg >> 8);
	out[3] = (uint8_t)msg;
	out += hello_len;
	out[0] = 0;
	out[1] = 21;
	out[2] = (uint8_t)(pad >> 8);
	out[3] = (uint8_t)pad;
	memset(out + 4, 0, pad);
	return total;
}

/* A hello of 3000 bytes over three Initials in three datagrams. */
static void
test_split(uint32_t version, const char *what)
{
	static struct dgrams	d;
	static uint8_t		big[HELLO_MAX];
	uint8_t			frames[DGRAM_MAX];
	size_t			len = grow_hello(big, 3000), i, n;
	static const size_t	orders[][3] = { { 0, 1, 2 }, { 2, 0, 1 },
	    { 1, 2, 0 }, { 2, 1, 0 } };

	for (i = 0; i < 3; i++) {
		n = crypto_frame(frames, big, i * 1000, 1000);
		d.len[i] = initial(version, (uint32_t)i, frames, n, d.data[i],
		    DGRAM_MAX);
	}
	d.n = 3;
	check(len == 3000 && feed(&d, orders[0], 2) == QUIC_MORE &&
	    q.initials == 2, "%s: two of three packets: more", what);
	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++)
		check(decided(feed(&d, orders[i], 3), "example.com", "alpn") &&
		    q.initials == 3,
		    "%s: three datagrams in order %zu %zu %zu", what,
		    orders[i][0], orders[i][1], orders[i][2]);
}

/*
 * One datagram: an Initial of shuffled and overlapping CRYPTO frames
 * with PING and ACK frames, an Initial with the rest, then a 0-RTT
 * packet; and a 0-RTT packet first, then the Initial.
 */
static void
test_coalesced(void)
{
	static const uint8_t	ack_ecn[] = { 0x03, 0x05, 0x00, 0x01, 0x01,
	    0x00, 0x01, 0x07, 0x00, 0x00 };
	uint8_t			frames[DGRAM_MAX], dgram[3 * DGRAM_MAX];
	uint8_t			junk[100];
	size_t			n = 0, at;
	struct quic_packet	zero_rtt = { QUIC_V1, true, dcid, scid,
	    sizeof(dcid), sizeof(scid), 0, 2, junk, sizeof(junk) };

	memset(junk, 0x5a, sizeof(junk));
	n += crypto_frame(frames + n, hello, 150, hello_len - 150);
	frames[n++] = 0x01;				/* PING */
	memcpy(frames + n, ack_ecn, sizeof(ack_ecn));	/* ACK_ECN */
	n += sizeof(ack_ecn);
	n += crypto_frame(frames + n, hello, 0, 60);
	n += crypto_frame(frames + n, hello, 40, 80);	/* overlapping */
	at = quic_seal(&(struct quic_packet){ QUIC_V1, false, dcid, scid,
	    sizeof(dcid), sizeof(scid), 0, 2, frames, n }, dgram, DGRAM_MAX);
	n = crypto_frame(frames, hello, 100, 60);	/* the gap, 120..150 */
	at += quic_seal(&(struct quic_packet){ QUIC_V1, false, dcid, scid,
	    sizeof(dcid), sizeof(scid), 1, 1, frames, n }, dgram + at, DGRAM_MAX);
	at += quic_seal(&zero_rtt, dgram + at, DGRAM_MAX);
	check(decided(feed_one(dgram, at), "example.com", "alpn") &&
	    q.initials == 2,
	    "coalesced Initials of shuffled, overlapping CRYPTO frames, "
	    "and a 0-RTT packet");
	at = quic_seal(&zero_rtt, dgram, DGRAM_MAX);
	check(feed_one(dgram, at) == QUIC_MORE,
	    "a datagram of a 0-RTT packet alone: more");
	n = crypto_frame(frames, hello, 0, hello_len);
	at += initial(QUIC_V1, 0, frames, n, dgram + at, DGRAM_MAX);
	check(decided(feed_one(dgram, at), "example.com", "alpn"),
	    "a 0-RTT packet, then the Initial, in one datagram");
}

/* An Initial of these frames alone, its outcome. */
static enum quic_outcome
frames_outcome(const uint8_t *frames, size_t len)
{
	uint8_t	dgram[DGRAM_MAX];

	return feed_one(dgram, initial(QUIC_V1, 0, frames, len, dgram,
	    sizeof(dgram)));
}

static void
test_bad_frames(void)
{
	static const uint8_t	stream[] = { 0x08, 0x00, 0x01, 'x' };
	static const uint8_t	cut_ack[] = { 0x02, 0x00, 0x00, 0x7f };
	static const uint8_t	cut_crypto[] = { 0x06, 0x00, 0x40, 0x80, 1 };
	static const uint8_t	server_hello[] = { 0x06, 0x00, 0x04, 2, 0, 0, 0 };
	static const uint8_t	close[] = { 0x1c, 0x00, 0x00, 0x02, 'h', 'i' };
	static uint8_t		big[HELLO_MAX];
	uint8_t			frames[64];
	size_t			n;

	check(frames_outcome(stream, sizeof(stream)) == QUIC_PROTOCOL_ERROR,
	    "a STREAM frame in an Initial: protocol error");
	check(frames_outcome(cut_ack, sizeof(cut_ack)) == QUIC_PROTOCOL_ERROR,
	    "an ACK frame of 63 ranges cut short: protocol error");
	check(frames_outcome(cut_crypto, sizeof(cut_crypto)) ==
	    QUIC_PROTOCOL_ERROR, "a CRYPTO frame longer than its packet: "
	    "protocol error");
	check(frames_outcome(server_hello, sizeof(server_hello)) ==
	    QUIC_PROTOCOL_ERROR, "a handshake message other than ClientHello: "
	    "protocol error");
	check(frames_outcome(close, sizeof(close)) == QUIC_MORE,
	    "CONNECTION_CLOSE is allowed: more");
	grow_hello(big, QUIC_CRYPTO_MAX + 1);
	n = crypto_frame(frames, big, 0, 8);
	check(frames_outcome(frames, n) == QUIC_TOO_BIG,
	    "a ClientHello longer than the CRYPTO buffer: too big");
	n = 0;
	frames[n++] = 0x06;
	frames[n++] = 0x80;		/* offset 16384, 4 bytes */
	frames[n++] = 0x00;
	frames[n++] = 0x40;
	frames[n++] = 0x00;
	frames[n++] = 0x01;
	frames[n++] = 'x';
	check(frames_outcome(frames, n) == QUIC_TOO_BIG,
	    "CRYPTO data past the buffer: too big");
	grow_hello(big, 3000);
	n = crypto_frame(frames, big, 0, 40);
	check(frames_outcome(frames, n) == QUIC_MORE,
	    "the start of a hello: more");
	check(frames_outcome((const uint8_t *)"", 0) == QUIC_MORE,
	    "an Initial of PADDING alone: more");
}

static void
test_headers(void)
{
	static struct dgrams	d, copy;
	static const char	dns[] = "\x12\x34\x01\x00\x00\x01\x00\x00";
	uint8_t			dgram[DGRAM_MAX], junk[16];
	size_t			i;
	struct quic_packet	zero_rtt = { QUIC_V1, true, dcid, scid,
	    sizeof(dcid), sizeof(scid), 0, 2, junk, sizeof(junk) };

	load("rfc9001-a2.hex", &d);
	copy = d;
	check(feed_one(d.data[0], 1199) == QUIC_PROTOCOL_ERROR,
	    "an Initial cut by a byte: protocol error");
	check(feed_one(d.data[0], 30) == QUIC_PROTOCOL_ERROR,
	    "an Initial cut after its header: protocol error");
	check(feed_one(d.data[0], 12) == QUIC_PROTOCOL_ERROR,
	    "an Initial cut in its DCID: protocol error");
	check(feed_one(d.data[0], 3) == QUIC_NOT_QUIC,
	    "three bytes: not QUIC");
	check(feed_one((const uint8_t *)dns, sizeof(dns) - 1) == QUIC_NOT_QUIC,
	    "a DNS query: not QUIC");
	d.data[0][1] = 0xff;	/* draft-29: 0xff00001d */
	d.data[0][4] = 0x1d;
	check(feed_one(d.data[0], d.len[0]) == QUIC_UNKNOWN_VERSION,
	    "version 0xff00001d: unknown version");
	memset(d.data[0] + 1, 0, 4);
	check(feed_one(d.data[0], d.len[0]) == QUIC_VERSION_NEGOTIATION,
	    "version 0: version negotiation");
	d = copy;
	d.data[0][5] = 21;	/* a DCID of 21 bytes */
	check(feed_one(d.data[0], d.len[0]) == QUIC_PROTOCOL_ERROR,
	    "a DCID of 21 bytes: protocol error");
	d = copy;
	quic_initial_init(&q);
	for (i = 0; i < QUIC_DATAGRAMS_MAX; i++)
		quic_initial_datagram(&q, dgram, quic_seal(&zero_rtt, dgram,
		    sizeof(dgram)));
	check(q.outcome == QUIC_MORE && quic_initial_datagram(&q, d.data[0],
	    d.len[0]) == QUIC_TOO_BIG, "past %d datagrams: too big",
	    QUIC_DATAGRAMS_MAX);
	check(quic_initial_datagram(&q, d.data[0], d.len[0]) == QUIC_TOO_BIG,
	    "a final outcome stays");
}

/* Another DCID or version in the session's second Initial. */
static void
test_mixed(void)
{
	uint8_t			frames[DGRAM_MAX], a[DGRAM_MAX], b[DGRAM_MAX];
	size_t			alen, blen, n;
	static const uint8_t	other[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	struct quic_packet	pkt = { QUIC_V1, false, other, scid,
	    sizeof(other), sizeof(scid), 1, 4, frames, 0 };

	n = crypto_frame(frames, hello, 0, 100);
	alen = initial(QUIC_V1, 0, frames, n, a, sizeof(a));
	pkt.len = crypto_frame(frames, hello, 100, hello_len - 100);
	blen = quic_seal(&pkt, b, sizeof(b));
	quic_initial_init(&q);
	check(quic_initial_datagram(&q, a, alen) == QUIC_MORE &&
	    quic_initial_datagram(&q, b, blen) == QUIC_PROTOCOL_ERROR,
	    "a second Initial of another DCID: protocol error");
	pkt.dcid = dcid;
	pkt.version = QUIC_V2;
	blen = quic_seal(&pkt, b, sizeof(b));
	quic_initial_init(&q);
	check(quic_initial_datagram(&q, a, alen) == QUIC_MORE &&
	    quic_initial_datagram(&q, b, blen) == QUIC_PROTOCOL_ERROR,
	    "a second Initial of another version: protocol error");
}

int
main(void)
{
	test_rfc("rfc9001-a2.hex", "RFC 9001 A.2 (v1)", QUIC_V1);
	test_rfc("rfc9369-a2.hex", "RFC 9369 A.2 (v2)", QUIC_V2);
	test_gtlsclient();
	test_split(QUIC_V1, "v1");
	test_split(QUIC_V2, "v2");
	test_coalesced();
	test_bad_frames();
	test_headers();
	test_mixed();
	return test_summary();
}
