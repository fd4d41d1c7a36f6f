#!/usr/bin/env python3
# ctl-loop.py SOCKET STOPFILE [COMMAND]: connect to ferryd's control
# socket in a loop, one COMMAND ("show info") a connection read up to its
# "ok", until STOPFILE exists (120 s at most); then print one line:
# ok=N refused=N other=N
# gens=G1,G2,... (the generations the answers named).  Refused counts
# ECONNREFUSED and ENOENT (no socket file); other, any other failure,
# each also printed as "error: ...".
import os
import socket
import sys
import time

path, stop = sys.argv[1], sys.argv[2]
command = (sys.argv[3] if len(sys.argv) > 3 else "show info").encode()
refused = other = ok = 0
gens = set()
end = time.time() + 120
while time.time() < end and not os.path.exists(stop):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    try:
        s.connect(path)
        s.sendall(command + b"\n")
        buf = b""
        while not buf.endswith(b"ok\n"):
            b = s.recv(4096)
            if not b:
                raise ConnectionError("closed before ok")
            buf += b
        ok += 1
        for line in buf.decode().splitlines():
            if line.startswith("generation "):
                gens.add(int(line.split()[1]))
    except (ConnectionRefusedError, FileNotFoundError):
        refused += 1
    except OSError as e:
        other += 1
        print("error:", e)
    finally:
        s.close()
print("ok=%d refused=%d other=%d gens=%s" % (ok, refused, other,
      ",".join(str(g) for g in sorted(gens))))
