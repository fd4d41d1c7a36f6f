/*
 * probe_udp.c - the UDP probes (probe.h): each judges one datagram, the
 * first a client sends (or the next, while a session is undecided), on
 * its own.  A datagram is whole or absent, so none waits for more bytes:
 * each says PROBE_MATCH or PROBE_NO.  ferryd's own, and sslh's (for
 * rules with probes = "sslh"), where they differ.
 */
#include "ferryd.h"

#include <string.h>

#include "probe.h"

/* OpenVPN's opcodes (the top five bits) of a client's first packet. */
#define OVPN_HARD_RESET_CLIENT_V1	1
#define OVPN_HARD_RESET_CLIENT_V2	7
#define OVPN_HARD_RESET_CLIENT_V3	10
/* Opcode and key id, session id, an empty ACK array, a packet id. */
#define OVPN_RESET_MIN			(1 + 8 + 1 + 4)

/* Whether the opcode of b is one of a client's hard resets. */
static bool
openvpn_hard_reset(uint8_t b)
{
	unsigned op = b >> 3;

	return op == OVPN_HARD_RESET_CLIENT_V1 ||
	    op == OVPN_HARD_RESET_CLIENT_V2 || op == OVPN_HARD_RESET_CLIENT_V3;
}

/*
 * OpenVPN over UDP: a client starts with a hard reset, of key id 0,
 * long enough for a session id and a packet id.
 */
enum probe_verdict
probe_udp_openvpn(const uint8_t *buf, size_t len)
{
	if (len < OVPN_RESET_MIN || !openvpn_hard_reset(buf[0]) ||
	    (buf[0] & 7) != 0)
		return PROBE_NO;
	return PROBE_MATCH;
}

/*
 * The big-endian 32-bit packet id at off is one of the first five an
 * OpenVPN client sends (it counts from 1 or so, a packet each).
 */
static bool
openvpn_early_id(const uint8_t *buf, size_t len, size_t off)
{
	uint32_t id;

	if (len <= off + 4)
		return false;
	id = (uint32_t)buf[off] << 24 | (uint32_t)buf[off + 1] << 16 |
	    (uint32_t)buf[off + 2] << 8 | buf[off + 3];
	return id <= 5;
}

/*
 * sslh's: a hard reset of any key id whose replay packet id, after a
 * tls-auth HMAC of 16 or 20 bytes (offset 9 + HMAC), is 5 or less.
 */
enum probe_verdict
probe_sslh_udp_openvpn(const uint8_t *buf, size_t len)
{
	if (len < 1 || !openvpn_hard_reset(buf[0]))
		return PROBE_NO;
	if (openvpn_early_id(buf, len, 9 + 16) ||
	    openvpn_early_id(buf, len, 9 + 20))
		return PROBE_MATCH;
	return PROBE_NO;
}

/* WireGuard's handshake initiation: type 1, three zero bytes, 148 long. */
#define WG_INITIATION_LEN	148

enum probe_verdict
probe_wireguard(const uint8_t *buf, size_t len)
{
	static const uint8_t	type[4] = { 1, 0, 0, 0 };

	if (len != WG_INITIATION_LEN || memcmp(buf, type, sizeof(type)) != 0)
		return PROBE_NO;
	return PROBE_MATCH;
}

/* TeamSpeak 3's first packet: "TS3INIT1", then packet id 101. */
#define TS3_INIT	"TS3INIT1"
#define TS3_INIT_LEN	8

enum probe_verdict
probe_teamspeak(const uint8_t *buf, size_t len)
{
	if (len < TS3_INIT_LEN + 2 || memcmp(buf, TS3_INIT, TS3_INIT_LEN) != 0 ||
	    buf[TS3_INIT_LEN] != 0 || buf[TS3_INIT_LEN + 1] != 101)
		return PROBE_NO;
	return PROBE_MATCH;
}

/*
 * sslh's: "TS3INIT1" compared as a C string against the whole
 * datagram, so that the byte after it, if any, must be a NUL.
 */
enum probe_verdict
probe_sslh_teamspeak(const uint8_t *buf, size_t len)
{
	if (len < TS3_INIT_LEN || memcmp(buf, TS3_INIT, TS3_INIT_LEN) != 0 ||
	    (len > TS3_INIT_LEN && buf[TS3_INIT_LEN] != 0))
		return PROBE_NO;
	return PROBE_MATCH;
}
