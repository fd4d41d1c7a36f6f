#!/usr/bin/env python3
"""udproutes.py - the datagrams of tests/e2e/udp-routes.test.

  udproutes.py backend NAME PORTFILE LOGFILE [peers]
      a UDP backend on 127.0.0.1: logs each datagram's bytes (hex, a line
      each, in the order they came; with "peers", "PORT HEX": the port
      it came from, ferryd's socket of the session), answers "NAME:"
      and the datagram
  udproutes.py client HOST PORT STEP...
      one client socket (one session), the steps in order:
        SPEC            send it, print the reply's NAME (exit 1 if none)
        burst:SPEC,...  send them back to back, then print each reply's
                        NAME (exit 1 unless all come)
        quiet:SPEC      send it, expect no reply within 1 s
        fire:SPEC,...   send them back to back, read no reply
        run:COMMAND     run a shell command (exit 1 if it fails)
  udproutes.py moving PORT WORKERS STEP...
      a QUIC client (tests/kit/quiccraft.py's) that moves between ferryd's
      workers, on 127.0.0.1; the steps in order:
        SOCK=SLOT       bind socket SOCK to a port that ferryd's steering
                        gives to worker SLOT (of WORKERS): src/listen.c's
        SOCK:init:SCENARIO:SNI
                        send the scenario's long-header datagrams back to
                        back, print SOCK and each reply's NAME
        SOCK:fire:SCENARIO:SNI
                        the same, reading no reply
        SOCK:short:SCENARIO:SNI:N
                        send N short-header datagrams to the scenario's
                        DCID ("#0" to "#N-1" at their ends) back to back,
                        print SOCK and each reply's NAME (exit 1 unless
                        each echoes its datagram, in the order sent)
        SOCK:greased:SCENARIO:SNI:N
                        the same, their fixed bit greased (0, RFC 9287)
        SOCK:large:SCENARIO:SNI:SIZE
                        the same with two, the second SIZE bytes long
        run:COMMAND     as above
      A SCENARIO "NAME@OTHER" is NAME's, with the connection IDs of
      OTHER's client.
      With SENT set in the environment, each datagram sent is appended
      to that file as "SOCK HEX".
  A SPEC is "wg" (a WireGuard handshake initiation), "ovpn" (an OpenVPN
  hard reset, tls-auth shaped), "ts3" (TeamSpeak 3's first packet), or
  "t:TEXT" (those bytes), or "q:SCENARIO:SNI" (a QUIC client's first
  datagrams, several, as tests/kit/quiccraft.py makes them).
"""
import os
import socket
import subprocess
import sys


def quic():
    """tests/kit/quiccraft.py, imported when a step needs QUIC."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import quiccraft
    return quiccraft


def datagrams(spec):
    """The datagrams of a SPEC: one, but for q:SCENARIO:SNI."""
    if spec.startswith("q:"):
        return quic().scenario(*spec[2:].split(":", 1))
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


def backend(name, portfile, logfile, peers=False):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    log = open(logfile, "a")
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        data, peer = s.recvfrom(65536)
        log.write(("%d " % peer[1] if peers else "") + data.hex() + "\n")
        log.flush()
        s.sendto(name.encode() + b":" + data, peer)


def reply_name(s, timeout):
    s.settimeout(timeout)
    try:
        data = s.recv(65536)
    except socket.timeout:
        return None
    return data.split(b":", 1)[0].decode()


def run(step):
    """A run:COMMAND step: the command, which must succeed."""
    if subprocess.call(step[4:], shell=True) != 0:
        raise SystemExit("step %s failed" % step)


def client(host, port, steps):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((host, int(port)))
    for step in steps:
        if step.startswith("run:"):
            run(step)
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


STEER_MULT = 2654435761


def slot_of(port, workers):
    """The worker listen.c's program steers a client port to."""
    return (((port * STEER_MULT) & 0xffffffff) >> 16) % workers


def bind_to_slot(slot, workers):
    for _ in range(1000):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        if slot_of(s.getsockname()[1], workers) == slot:
            return s
        s.close()
    raise SystemExit("no port steered to worker %d" % slot)


def echoed(s, sent):
    """The replies to sent, their NAMEs, checked to echo them in order."""
    names = []
    s.settimeout(10)
    for d in sent:
        try:
            data = s.recv(65536)
        except socket.timeout:
            raise SystemExit("no reply to datagram %d" % len(names))
        name, echo = data.split(b":", 1)
        if echo != d:
            raise SystemExit("reply %d echoes another datagram" % len(names))
        names.append(name.decode())
    return names


def moving(port, workers, steps):
    socks = {}
    to = ("127.0.0.1", int(port))
    for step in steps:
        if step.startswith("run:"):
            run(step)
            continue
        if "=" in step:
            name, slot = step.split("=")
            socks[name] = bind_to_slot(int(slot), int(workers))
            continue
        name, kind, rest = step.split(":", 2)
        s = socks[name]
        if kind in ("init", "fire"):
            sent = [d for d in quic().scenario(*rest.split(":"))
                    if d[0] & 0x80]
        else:
            scen, sni, n = rest.split(":")
            dcid = quic().dcid_of(scen, sni)
            sent = [quic().short_header(dcid) + b"#%d" % i
                    for i in range(2 if kind == "large" else int(n))]
            if kind == "large":
                sent[1] += b"." * (int(n) - len(sent[1]))
            if kind == "greased":   # the fixed bit 0 (RFC 9287)
                sent = [bytes([d[0] & ~0x40]) + d[1:] for d in sent]
        for d in sent:
            s.sendto(d, to)
        if "SENT" in os.environ:
            with open(os.environ["SENT"], "a") as f:
                f.writelines("%s %s\n" % (name, d.hex()) for d in sent)
        if kind != "fire":
            print(name, " ".join(echoed(s, sent)))
            sys.stdout.flush()


def main():
    if len(sys.argv) in (5, 6) and sys.argv[1] == "backend":
        backend(*sys.argv[2:5], peers=sys.argv[5:] == ["peers"])
    elif len(sys.argv) >= 4 and sys.argv[1] == "client":
        client(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "moving":
        moving(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        raise SystemExit(__doc__)


main()
