#!/usr/bin/env python3
"""quiccraft.py - a QUIC client's first datagrams as real clients shape
them and Debian's gtlsclient never does, sealed here with
python3-cryptography (RFC 9001 section 5, RFC 9369): an independent
writer of what ferryd's quic_initial.c reads.

  quiccraft.py SCENARIO SNI
      print the scenario's datagrams, hex, one a line, in the order a
      client sends them (udproutes.py sends them: "q:SCENARIO:SNI")

The bytes depend on SCENARIO and SNI alone (the connection IDs are
hashed from them), so that a test can compare what a backend got.
Scenarios:
  split3     a 3000-byte ClientHello over three Initial packets in three
             datagrams, sent third, first, second
  shuffled   one Initial of eight CRYPTO frames in a shuffled order,
             with PING and PADDING between them
  coalesced  an Initial and a 0-RTT packet in one datagram, then a
             0-RTT datagram
  v2         a QUIC version 2 Initial
  badtag     an Initial whose AEAD tag's last byte is flipped
  version    a long header of an unknown version (0x1a2a3a4a)
  partial    the first two datagrams of split3 alone: never decided
Each but partial ends with a short-header datagram, as a client's
after the handshake: it must follow the session.
"""
import hashlib
import hmac
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

V1, V2 = 0x00000001, 0x6b3343cf
# The salt and labels of each version (RFC 9001 5.2, RFC 9369 3.3.1),
# and its long header packet types (RFC 9369 3.2).
VERSIONS = {
    V1: (bytes.fromhex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a"),
         "quic ", {"initial": 0, "0rtt": 1}),
    V2: (bytes.fromhex("0dede3def700a6db819381be6e269dcbf9bd2ed9"),
         "quicv2 ", {"initial": 1, "0rtt": 2}),
}
CLIENT_DATAGRAM = 1200      # a client's Initial datagrams' least size
TAG = 16


def expand_label(secret, label, length):
    """HKDF-Expand-Label (RFC 8446 7.1), empty context."""
    full = b"tls13 " + label.encode()
    info = struct.pack(">HB", length, len(full)) + full + b"\x00"
    out, block, i = b"", b"", 1
    while len(out) < length:
        block = hmac.new(secret, block + info + bytes([i]),
                         hashlib.sha256).digest()
        out += block
        i += 1
    return out[:length]


def client_keys(version, dcid):
    """The client's Initial key, IV and header protection key."""
    salt, prefix, _ = VERSIONS[version]
    initial = hmac.new(salt, dcid, hashlib.sha256).digest()
    secret = expand_label(initial, "client in", 32)
    return (expand_label(secret, prefix + "key", 16),
            expand_label(secret, prefix + "iv", 12),
            expand_label(secret, prefix + "hp", 16))


def varint(v):
    if v < 64:
        return bytes([v])
    if v < 16384:
        return struct.pack(">H", 0x4000 | v)
    return struct.pack(">I", 0x80000000 | v)


def long_header(version, ptype, dcid, scid, pn_len, token):
    first = 0xc0 | VERSIONS.get(version, VERSIONS[V1])[2][ptype] << 4
    head = bytes([first | (pn_len - 1)]) + struct.pack(">I", version)
    head += bytes([len(dcid)]) + dcid + bytes([len(scid)]) + scid
    return head + (varint(0) if token else b"")


def initial(version, dcid, scid, pn, frames, pad_to=CLIENT_DATAGRAM):
    """An Initial packet of frames, sealed, PADDING to fill pad_to."""
    key, iv, hp = client_keys(version, dcid)
    pn_len = 2
    head = long_header(version, "initial", dcid, scid, pn_len, True)
    room = pad_to - len(head) - 2 - pn_len - TAG
    frames += b"\x00" * max(0, room - len(frames))
    head += struct.pack(">H", 0x4000 | (pn_len + len(frames) + TAG))
    pn_at = len(head)
    head += pn.to_bytes(pn_len, "big")
    nonce = (int.from_bytes(iv, "big") ^ pn).to_bytes(12, "big")
    sealed = AESGCM(key).encrypt(nonce, frames, head)
    packet = bytearray(head + sealed)
    sample = bytes(packet[pn_at + 4:pn_at + 20])
    enc = Cipher(algorithms.AES(hp), modes.ECB()).encryptor()
    mask = enc.update(sample) + enc.finalize()
    packet[0] ^= mask[0] & 0x0f
    for i in range(pn_len):
        packet[pn_at + i] ^= mask[1 + i]
    return bytes(packet)


def zero_rtt(version, dcid, scid, pn, size):
    """A 0-RTT packet: the reader skips it, its payload is opaque."""
    head = long_header(version, "0rtt", dcid, scid, 2, False)
    body = pn.to_bytes(2, "big") + hashlib.sha256(dcid).digest() * (
        size // 32 + 1)
    body = body[:size]
    return head + struct.pack(">H", 0x4000 | len(body)) + body


def extension(kind, data):
    return struct.pack(">HH", kind, len(data)) + data


def client_hello(sni, size=0):
    """A TLS 1.3 ClientHello naming sni, ALPN h3; padded to size."""
    name = sni.encode()
    exts = extension(0, struct.pack(">HBH", len(name) + 3, 0, len(name)) +
                     name)
    exts += extension(16, struct.pack(">HB", 3, 2) + b"h3")
    exts += extension(43, b"\x02\x03\x04")      # supported_versions
    exts += extension(57, b"\x01\x04\x80\x01\x00\x00")  # transport params
    body = b"\x03\x03" + hashlib.sha256(name).digest() + b"\x00"
    body += b"\x00\x02\x13\x01" + b"\x01\x00"
    pad = size - (4 + len(body) + 2 + len(exts) + 4)
    if pad >= 0:
        exts += extension(21, b"\x00" * pad)    # padding (RFC 7685)
    body += struct.pack(">H", len(exts)) + exts
    return b"\x01" + len(body).to_bytes(3, "big") + body


def crypto(hello, off, n):
    return b"\x06" + varint(off) + varint(n) + hello[off:off + n]


def short_header(dcid):
    return b"\x41" + dcid + b"after the handshake"


def seed_of(name, sni):
    """The bytes a scenario's IDs come from; "NAME@OTHER": OTHER's."""
    name, _, ids = name.partition("@")
    return hashlib.sha256(((ids or name) + "/" + sni).encode()).digest()


def dcid_of(name, sni):
    """The DCID of the scenario's client (its Initials' and after)."""
    return seed_of(name, sni)[:8]


def scenario(name, sni):
    dcid, scid = dcid_of(name, sni), seed_of(name, sni)[8:12]
    name = name.partition("@")[0]
    if name in ("split3", "partial"):
        hello = client_hello(sni, 3000)
        parts = [initial(V1, dcid, scid, i, crypto(hello, i * 1000, 1000))
                 for i in range(3)]
        if name == "partial":
            return parts[:2]
        return [parts[2], parts[0], parts[1], short_header(dcid)]
    if name == "shuffled":
        hello = client_hello(sni, 900)
        step = (len(hello) + 7) // 8
        frames = b""
        for i in (5, 2, 7, 0, 3, 6, 1, 4):
            frames += crypto(hello, i * step, min(step, len(hello) -
                                                  i * step))
            frames += b"\x01\x00" if i % 2 else b""   # PING, PADDING
        return [initial(V1, dcid, scid, 0, frames), short_header(dcid)]
    if name == "coalesced":
        hello = client_hello(sni)
        first = initial(V1, dcid, scid, 0, crypto(hello, 0, len(hello)),
                        pad_to=0)
        first += zero_rtt(V1, dcid, scid, 1, CLIENT_DATAGRAM - len(first) -
                          24)
        return [first, zero_rtt(V1, dcid, scid, 2, 300), short_header(dcid)]
    if name == "v2":
        hello = client_hello(sni)
        return [initial(V2, dcid, scid, 0, crypto(hello, 0, len(hello))),
                short_header(dcid)]
    if name == "badtag":
        hello = client_hello(sni)
        bad = bytearray(initial(V1, dcid, scid, 0,
                                crypto(hello, 0, len(hello))))
        bad[-1] ^= 1
        return [bytes(bad), short_header(dcid)]
    if name == "version":
        hello = client_hello(sni)
        head = long_header(0x1a2a3a4a, "initial", dcid, scid, 2, True)
        body = b"\x00\x00" + crypto(hello, 0, len(hello))
        return [head + struct.pack(">H", 0x4000 | len(body)) + body,
                short_header(dcid)]
    raise SystemExit("unknown QUIC scenario " + name)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    for d in scenario(sys.argv[1], sys.argv[2]):
        print(d.hex())


if __name__ == "__main__":
    main()
