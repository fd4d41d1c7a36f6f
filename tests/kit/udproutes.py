#!/usr/bin/env python3
"""udproutes.py - the datagrams of tests/e2e/udp-routes.test.

  udproutes.py backend NAME PORTFILE LOGFILE
      a UDP backend on 127.0.0.1: logs each datagram's bytes (hex, a line
      each, in the order they came), answers "NAME:" and the datagram
  udproutes.py client HOST PORT STEP...
      one client socket (one session), the steps in order:
        SPEC            send it, print the reply's NAME (exit 1 if none)
        burst:SPEC,...  send them back to back, then print each reply's
                        NAME (exit 1 unless all come)
        quiet:SPEC      send it, expect no reply within 1 s
        fire:SPEC,...   send them back to back, read no reply
        run:COMMAND     run a shell command (exit 1 if it fails)
  A SPEC is "wg" (a WireGuard handshake initiation), "ovpn" (an OpenVPN
  hard reset, tls-auth shaped), "ts3" (TeamSpeak 3's first packet), or
  "t:TEXT" (those bytes), or "q:SCENARIO:SNI" (a QUIC client's first
  datagrams, several, as tests/kit/quiccraft.py makes them).
"""
import os
import socket
import subprocess
import sys


def datagrams(spec):
    """The datagrams of a SPEC: one, but for q:SCENARIO:SNI."""
    if spec.startswith("q:"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import quiccraft
        return quiccraft.scenario(*spec[2:].split(":", 1))
    return [datagram(spec)]


def datagram(spec):
    if spec == "wg":
        # Type 1, three reserved zero bytes, 144 more: 148 in all.
        return bytes([1, 0, 0, 0]) + bytes(range(144))
    if spec == "ovpn":
        # P_CONTROL_HARD_RESET_CLIENT_V2, key id 0; session id; a
        # 20-byte HMAC; replay packet id 1; time; empty ACK; packet id 0.
        return (bytes([7 << 3]) + b"\x11" * 8 + b"\xee" * 20 +
                b"\x00\x00\x00\x01" + b"\x5f\x00\x00\x00" + b"\x00" +
                b"\x00\x00\x00\x00")
    if spec == "ts3":
        return b"TS3INIT1" + b"\x00\x65\x88" + b"\x03\x07\x08\x09" + \
            b"\x00" * 20
    if spec.startswith("t:"):
        return spec[2:].encode()
    raise SystemExit("unknown datagram spec " + spec)


def backend(name, portfile, logfile):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    log = open(logfile, "a")
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        data, peer = s.recvfrom(65536)
        log.write(data.hex() + "\n")
        log.flush()
        s.sendto(name.encode() + b":" + data, peer)


def reply_name(s, timeout):
    s.settimeout(timeout)
    try:
        data = s.recv(65536)
    except socket.timeout:
        return None
    return data.split(b":", 1)[0].decode()


def client(host, port, steps):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((host, int(port)))
    for step in steps:
        if step.startswith("run:"):
            if subprocess.call(step[4:], shell=True) != 0:
                raise SystemExit("step %s failed" % step)
            continue
        if step.startswith("quiet:"):
            for d in datagrams(step[6:]):
                s.send(d)
            name = reply_name(s, 1)
            if name is not None:
                raise SystemExit("a reply from %s to %s" % (name, step))
            print("none")
            continue
        if step.startswith("fire:"):
            for spec in step[5:].split(","):
                for d in datagrams(spec):
                    s.send(d)
            continue
        specs = step[6:].split(",") if step.startswith("burst:") else [step]
        sent = [(spec, d) for spec in specs for d in datagrams(spec)]
        for spec, d in sent:
            s.send(d)
        for spec, d in sent:
            name = reply_name(s, 10)
            if name is None:
                raise SystemExit("no reply to %s" % spec)
            print(name)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "backend":
        backend(*sys.argv[2:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "client":
        client(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        raise SystemExit(__doc__)


main()
