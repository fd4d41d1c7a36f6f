#!/usr/bin/env python3
# edges.py - the ends of a TCP stream through a forwarder, scripted on
# both sides: the client here connects through each forwarder ("via"),
# the backend here takes what comes out, and each scenario checks the
# exact bytes each side received, in order, and how its stream ended
# (eof or rst).  Used by edges.test on ferryd's relay modes and on the
# peers (nginx stream, HAProxy, socat) side by side, the peers as the
# oracle: what all of them deliver, ferryd must deliver every time.
#
# edges.py [--reps N] [--only NAME,...] VIA...
#   VIA is NAME=LISTEN=BACKEND_PORT[=FLAGS]: the forwarder NAME listens
#   on LISTEN (HOST:PORT, or a Unix socket's path) and forwards to
#   127.0.0.1:BACKEND_PORT, where this program listens.  FLAGS, comma-
#   separated: "ferryd" (held to every scenario), "proxy" (a PROXY v2
#   header comes first: the backend reads it before the scenario).
# Prints a table, one row a scenario, one column a via ("20/20 rst");
# exits 1 when a ferryd via lost, reordered or ended otherwise than the
# scenario says, 2 on usage or setup errors.
import argparse
import fcntl
import os
import random
import select
import socket
import struct
import sys
import termios
import threading
import time

RUN_TIMEOUT = 10.0		# one run, client and backend, at most
LINGER0 = struct.pack("ii", 1, 0)


def blob(n, seed):
    return random.Random(seed).randbytes(n)


def reset_close(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER0)
    s.close()


def outq(s):
    return struct.unpack("i", fcntl.ioctl(s.fileno(), termios.TIOCOUTQ,
                                          b"\0" * 4))[0]


def drain_out(s, limit=3.0):
    """Wait until the kernel sent (and the peer acked) all we wrote."""
    end = time.monotonic() + limit
    while outq(s) > 0 and time.monotonic() < end:
        time.sleep(0.005)


def read_all(s, delay=0.0, deadline=None, chunk=65536, pace=0.0):
    """Everything s receives to its end: (bytes, "eof"|"rst"|"timeout")."""
    if delay:
        time.sleep(delay)
    got = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(got), "timeout"
        r, _, _ = select.select([s], [], [], left)
        if not r:
            continue
        try:
            b = s.recv(chunk)
        except ConnectionResetError:
            return bytes(got), "rst"
        except OSError as e:
            return bytes(got), "error:%d" % e.errno
        if not b:
            return bytes(got), "eof"
        got += b
        if pace:
            time.sleep(pace)


def send_all(s, data):
    """Send data, stopping quietly at the first error: bytes sent."""
    try:
        s.sendall(data)
        return len(data)
    except OSError:
        return -1


def recv_exactly(s, n):
    got = b""
    while len(got) < n:
        b = s.recv(n - len(got))
        if not b:
            raise ConnectionError("closed within a PROXY header")
        got += b
    return got


def take_proxy(s):
    """Read the PROXY v2 header the forwarder sends first, and no more."""
    head = recv_exactly(s, 16)
    if not head.startswith(b"\r\n\r\n\x00\r\nQUIT\n"):
        raise ConnectionError("no PROXY v2 header: %r" % head)
    recv_exactly(s, struct.unpack("!H", head[14:16])[0])


# Each scenario: a client function and a backend function, each given
# its socket and the run's deadline, each returning what it received and
# how its stream ended; "want" is what each must have received, and
# "ends" the endings ferryd must give them (None: not checked).

class Scenario:
    def __init__(self, name, client, backend, want_client, want_backend,
                 end_client, end_backend, rcvbuf=0, about=""):
        self.name, self.client, self.backend = name, client, backend
        self.want_client, self.want_backend = want_client, want_backend
        self.end_client, self.end_backend = end_client, end_backend
        self.rcvbuf, self.about = rcvbuf, about


REQ = blob(32 * 1024, 1)
ANSWER = b"HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n" + \
    blob(1500, 2)
LAST = blob(16 * 1024, 3)
EARLY = blob(300, 4)
BIG = blob(200 * 1000, 5)
HUGE = blob(256 * 1024, 6)
BANNER = b"220 edges.test ESMTP ready\r\n"
UPLOAD = blob(1024 * 1024, 7)
SMALL = blob(1000, 8)


def c_send_then_read(s, dl):
    send_all(s, REQ)
    return read_all(s, deadline=dl)


def b_answer_close_unread(s, dl):
    got = s.recv(100)
    time.sleep(0.05)		# the rest of the request is in, unread
    s.sendall(ANSWER)
    s.close()			# unread input: the kernel sends RST
    return got, "closed"


def c_last_linger0(s, dl):
    s.sendall(LAST)
    reset_close(s)
    return b"", "closed"


def b_read(s, dl):
    return read_all(s, deadline=dl)


def b_read_slowly(s, dl):
    return read_all(s, delay=0.3, deadline=dl, chunk=4096, pace=0.002)


def c_early_reset(s, dl):
    s.sendall(EARLY)
    reset_close(s)
    return b"", "closed"


def c_read_slowly(s, dl):
    return read_all(s, delay=0.3, deadline=dl, chunk=4096, pace=0.002)


def b_big_reset(s, dl):
    s.sendall(BIG)
    drain_out(s)		# all of it left this socket
    reset_close(s)
    return b"", "closed"


def c_halfclose_read_slowly(s, dl):
    s.sendall(SMALL)
    s.shutdown(socket.SHUT_WR)
    return read_all(s, delay=0.3, deadline=dl, chunk=4096, pace=0.002)


def b_read_to_eof_answer(s, dl):
    got, end = read_all(s, deadline=dl)
    s.sendall(HUGE)
    s.close()
    return got, end


def b_banner_halfclose_read_slowly(s, dl):
    s.sendall(BANNER)
    s.shutdown(socket.SHUT_WR)
    return read_all(s, delay=0.3, deadline=dl, chunk=16384)


def c_read_eof_upload(s, dl):
    got, end = read_all(s, deadline=dl)
    s.sendall(UPLOAD)
    s.close()
    return got, end


def c_halfclose_read(s, dl):
    s.sendall(SMALL)
    s.shutdown(socket.SHUT_WR)
    return read_all(s, deadline=dl)


def b_read_eof_answer_halfclose(s, dl):
    got, end = read_all(s, deadline=dl)
    s.sendall(BIG)
    s.shutdown(socket.SHUT_WR)
    time.sleep(0.05)
    s.close()
    return got, end


def b_banner_close(s, dl):
    s.sendall(BANNER)
    s.close()
    return b"", "closed"


def c_read(s, dl):
    return read_all(s, deadline=dl)


def c_stream_then_reset(s, dl):
    s.sendall(BIG)
    drain_out(s)
    reset_close(s)
    return b"", "closed"


def b_banner_reset(s, dl):
    s.sendall(BANNER)
    reset_close(s)		# at once: the banner may not even be acked
    return b"", "closed"


def c_read_nothing_sent(s, dl):
    return read_all(s, deadline=dl)


def b_read_eof_answer_reset(s, dl):
    got, end = read_all(s, deadline=dl)
    s.sendall(BIG)
    drain_out(s)
    reset_close(s)
    return got, end


def c_read_eof_send_reset(s, dl):
    got, end = read_all(s, deadline=dl)
    s.sendall(SMALL)
    reset_close(s)
    return got, end


def b_banner_halfclose_read(s, dl):
    s.sendall(BANNER)
    s.shutdown(socket.SHUT_WR)
    return read_all(s, deadline=dl)


def b_answer_fin_reset(s, dl):
    got = s.recv(100)
    s.sendall(ANSWER)
    s.shutdown(socket.SHUT_WR)
    time.sleep(0.1)             # the upload goes on, unread
    s.close()                   # unread input: the kernel sends RST
    return got, "closed"


def c_read_eof_then_upload(s, dl):
    """Read the answer to its FIN, then upload until the reset stops it."""
    s.sendall(SMALL)
    got, end = read_all(s, deadline=dl)
    s.settimeout(max(0.1, min(5.0, dl - time.monotonic())))
    try:
        for _ in range(200):
            s.sendall(BIG)
    except socket.timeout:
        return got, "timeout"   # nobody reads and nobody resets
    except OSError:
        return got, "stopped"   # a reset, or EPIPE (a Unix socket)
    return got, "no-end"


def c_bytewise(s, dl):
    for i in range(1000):
        s.send(SMALL[i:i + 1])
    s.shutdown(socket.SHUT_WR)
    return read_all(s, deadline=dl)


def b_bytewise_echo(s, dl):
    got, end = read_all(s, deadline=dl)
    for i in range(len(got)):
        s.send(got[i:i + 1])
    s.close()
    return got, end


SCENARIOS = [
    Scenario("answer-close-unread", c_send_then_read, b_answer_close_unread,
             ANSWER, None, "rst", None,
             about="backend answers, closes with unread input (RST)"),
    Scenario("last-message-linger0", c_last_linger0, b_read,
             b"", LAST, None, "rst",
             about="client sends a last message, closes with SO_LINGER 0"),
    Scenario("early-data-reset", c_early_reset, b_read,
             b"", EARLY, None, "rst",
             about="client sends at once and resets (connect pending)"),
    Scenario("big-reset-slow-reader", c_read_slowly, b_big_reset,
             BIG, b"", "rst", None, rcvbuf=4096,
             about="backend sends 200 KB and resets; client reads slowly"),
    Scenario("halfclose-slow-reader", c_halfclose_read_slowly,
             b_read_to_eof_answer, HUGE, SMALL, "eof", "eof", rcvbuf=4096,
             about="client half-closes, reads a 256 KB answer slowly"),
    Scenario("backend-halfclose-upload", c_read_eof_upload,
             b_banner_halfclose_read_slowly, BANNER, UPLOAD, "eof", "eof",
             about="backend half-closes, reads a 1 MB upload slowly"),
    Scenario("halfclose-both", c_halfclose_read, b_read_eof_answer_halfclose,
             BIG, SMALL, "eof", "eof",
             about="client FIN, then the backend's answer and FIN"),
    Scenario("banner-fin", c_read_nothing_sent, b_banner_close,
             BANNER, None, "eof", None,
             about="backend greets and closes at once"),
    Scenario("banner-reset", c_read_nothing_sent, b_banner_reset,
             BANNER, None, "rst", None,
             about="backend greets and resets at once (connect just done)"),
    Scenario("client-reset-slow-backend", c_stream_then_reset,
             b_read_slowly, b"", BIG, None, "rst",
             about="client sends 200 KB and resets; backend reads slowly"),
    Scenario("halfclose-then-reset", c_halfclose_read_slowly,
             b_read_eof_answer_reset, BIG, SMALL, "rst", "eof", rcvbuf=4096,
             about="client FIN; the backend answers 200 KB and resets"),
    Scenario("fin-then-client-reset", c_read_eof_send_reset,
             b_banner_halfclose_read, BANNER, SMALL, "eof", "rst",
             about="backend greets and FINs; the client sends, resets"),
    Scenario("fin-then-backend-reset", c_read_eof_then_upload,
             b_answer_fin_reset, ANSWER, None, "stopped", None,
             about="backend answers, FINs, resets while the client uploads"),
    Scenario("bytewise-echo", c_bytewise, b_bytewise_echo,
             SMALL, SMALL, "eof", "eof",
             about="1000 one-byte writes each way, in order"),
]


class Via:
    def __init__(self, spec):
        parts = spec.split("=")
        if len(parts) < 3:
            raise ValueError("via %r: NAME=LISTEN=BACKEND_PORT[=FLAGS]" % spec)
        self.name, self.listen = parts[0], parts[1]
        self.backend_port = int(parts[2])
        self.flags = set(parts[3].split(",")) if len(parts) > 3 else set()
        self.ferryd = "ferryd" in self.flags
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", self.backend_port))
        self.lsock.listen(64)
        self.results = {}

    def connect(self, rcvbuf):
        if self.listen.startswith("/"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            addr = self.listen
        else:
            host, port = self.listen.rsplit(":", 1)
            fam = socket.AF_INET6 if ":" in host else socket.AF_INET
            s = socket.socket(fam, socket.SOCK_STREAM)
            addr = (host.strip("[]"), int(port))
            if rcvbuf:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.connect(addr)
        return s

    def run_once(self, sc):
        """One run of sc: (client's (bytes, end), backend's (bytes, end))."""
        dl = time.monotonic() + RUN_TIMEOUT
        out = {}

        def backend():
            self.lsock.settimeout(RUN_TIMEOUT)
            try:
                b, _ = self.lsock.accept()
            except OSError:
                out["b"] = (b"", "no-connection")
                return
            b.settimeout(None)
            try:
                if "proxy" in self.flags:
                    take_proxy(b)
                out["b"] = sc.backend(b, dl)
            except OSError as e:
                out["b"] = (b"", "error:%s" % e)
            finally:
                try:
                    b.close()
                except OSError:
                    pass

        t = threading.Thread(target=backend)
        t.start()
        try:
            c = self.connect(sc.rcvbuf)
            try:
                out["c"] = sc.client(c, dl)
            finally:
                try:
                    c.close()
                except OSError:
                    pass
        except OSError as e:
            out["c"] = (b"", "error:%s" % e)
        t.join(RUN_TIMEOUT + 2)
        return out.get("c", (b"", "?")), out.get("b", (b"", "hung"))

    def ended(self, want, end):
        """A Unix socket has no reset: its end is an EOF either way."""
        if want == "rst" and self.listen.startswith("/"):
            want = "eof"
        return want is None or end == want

    def run(self, scenarios, reps):
        for sc in scenarios:
            res = self.results[sc.name] = {"ok": 0, "ends": {}, "bad": []}
            for _ in range(reps):
                (cgot, cend), (bgot, bend) = self.run_once(sc)
                delivered = (sc.want_client is None or
                             cgot == sc.want_client) and \
                    (sc.want_backend is None or bgot == sc.want_backend)
                ended = "%s/%s" % (cend, bend)
                res["ends"][ended] = res["ends"].get(ended, 0) + 1
                good = delivered and \
                    self.ended(sc.end_client, cend) and \
                    self.ended(sc.end_backend, bend)
                if delivered:
                    res["ok"] += 1
                if not good:
                    res["bad"].append("client %d/%s bytes %s, backend %d/%s "
                                      "bytes %s" % (len(cgot), sc.want_client and
                                      len(sc.want_client), cend, len(bgot),
                                      sc.want_backend and len(sc.want_backend),
                                      bend))
            # The backend connection of a run that gave up may still come.
            self.lsock.settimeout(0)
            try:
                while True:
                    self.lsock.accept()[0].close()
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--only", default="")
    ap.add_argument("vias", nargs="+")
    a = ap.parse_args()
    try:
        vias = [Via(v) for v in a.vias]
    except (ValueError, OSError) as e:
        print("edges.py: %s" % e, file=sys.stderr)
        return 2
    scs = [s for s in SCENARIOS if not a.only or s.name in a.only.split(",")]
    threads = [threading.Thread(target=v.run, args=(scs, a.reps))
               for v in vias]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    failed = 0
    width = max(len(s.name) for s in scs)
    print("%-*s  %s" % (width, "scenario", "  ".join(
        "%-18s" % v.name for v in vias)))
    for sc in scs:
        row = []
        for v in vias:
            r = v.results[sc.name]
            main_end = max(r["ends"], key=r["ends"].get)
            row.append("%-18s" % ("%d/%d %s" % (r["ok"], a.reps, main_end)))
        print("%-*s  %s" % (width, sc.name, "  ".join(row)))
    for sc in scs:
        peers = [v for v in vias if not v.ferryd]
        for v in vias:
            r = v.results[sc.name]
            if v.ferryd and r["bad"]:
                failed += 1
                print("FAIL %s via %s (%s): %d of %d runs wrong, e.g. %s; "
                      "peers delivered: %s" % (sc.name, v.name, sc.about,
                      len(r["bad"]), a.reps, r["bad"][0], ", ".join(
                          "%s %d/%d" % (p.name, p.results[sc.name]["ok"],
                                        a.reps) for p in peers) or "none run"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
