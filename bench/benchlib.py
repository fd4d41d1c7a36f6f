#!/usr/bin/env python3
"""benchlib.py - parsing and reporting for ferryd's benchmark harness.

bench/run calls this with a subcommand; standard library only.

  iperf FILE           iperf3 -J output -> "GBITS BYTES" (receiver side)
  proc SID cpu|pss|pids|count
                       over every process of session SID: user+sys CPU
                       seconds (children that were reaped included), PSS in
                       kB from smaps_rollup, the pids, or how many
  strace FILE          strace -c -f output -> "CALLS DETAIL" for the
                       data-moving syscalls
  sockperf FILE        sockperf --full-rtt output -> "P50 P99" (us)
  pingpong FILE        benchkit pingpong output -> "P50 P99" (us)
  wrk FILE             wrk output -> "REQ_PER_S REQUESTS ERRORS"
  http_bytes HOST PORT PATH
                       the length of the body of GET PATH
  report DIR OUTDIR [SUMMARY]
                       raw figures in DIR -> table on stdout, OUTDIR/*.tsv,
                       OUTDIR/*.svg, OUTDIR/SUMMARY (summary.txt)
"""

import http.client
import json
import os
import re
import statistics
import sys

DATA_SYSCALLS = ("read", "write", "recvfrom", "sendto", "readv", "writev",
                 "splice", "recvmsg", "sendmsg", "recvmmsg", "sendmmsg",
                 "vmsplice", "tee", "sendfile", "copy_file_range")

# id, column header, title, unit, better ("high"/"low"), format
METRICS = [
    ("throughput_p1", "P1 Gb/s", "Throughput, iperf3 -P 1", "Gbit/s",
     "high", "{:.2f}"),
    ("throughput_p8", "P8 Gb/s", "Throughput, iperf3 -P 8", "Gbit/s",
     "high", "{:.2f}"),
    ("cpu_per_gb", "CPU s/GB", "Forwarder CPU (user+sys) per GB, iperf3 -P 1",
     "CPU s/GB", "low", "{:.3f}"),
    ("bytes_per_syscall", "B/syscall",
     "Bytes forwarded per read/write/splice-family syscall (strace -c)",
     "bytes/syscall", "high", "{:.0f}"),
    ("latency_p50", "RTT p50", "Ping-pong RTT p50, 64-byte messages",
     "us", "low", "{:.1f}"),
    ("latency_p99", "RTT p99", "Ping-pong RTT p99, 64-byte messages",
     "us", "low", "{:.1f}"),
    ("conn_rate", "conn/s", "Connection rate, wrk Connection: close",
     "conn/s", "high", "{:.0f}"),
    ("cpu_per_conn", "CPU us/conn",
     "Forwarder CPU (user+sys) per connection, wrk Connection: close",
     "CPU us/conn", "low", "{:.1f}"),
    ("keepalive_rps", "KA req/s", "Keep-alive requests, wrk", "req/s",
     "high", "{:.0f}"),
    ("ka_cpu", "KA CPU us",
     "Forwarder CPU (user+sys) per keep-alive request, wrk",
     "CPU us/request", "low", "{:.2f}"),
    ("latency_p99_idle", "p99 idle",
     "Ping-pong RTT p99, 64-byte messages, with the idle connections "
     "of the memory test open through the forwarder (benchkit)",
     "us", "low", "{:.1f}"),
    ("pss_per_conn", "PSS/conn",
     "Memory (PSS) per idle connection", "bytes", "low", "{:.0f}"),
    ("udp_pps", "UDP kpps", "UDP datagrams delivered, iperf3 -u -l 64 -b 0",
     "kdatagrams/s", "high", "{:.0f}"),
    ("udp_loss", "UDP loss", "UDP datagrams lost, iperf3 -u -l 64 -b 0",
     "%", "low", "{:.1f}"),
    ("udp_cpu", "UDP CPU/M", "Forwarder CPU (user+sys) per million UDP "
     "datagrams delivered", "CPU s/Mdgram", "low", "{:.2f}"),
    ("udp_dgrams_per_syscall", "UDP dg/sc",
     "UDP datagrams delivered per forwarder data syscall (strace -c), "
     "iperf3 -u -l 64 -b 0", "datagrams/syscall", "high", "{:.1f}"),
    ("udp_rr", "UDP RR/s", "UDP round trips, 100 clients, 64-byte "
     "request and answer", "round trips/s", "high", "{:.0f}"),
    ("udp_rr_cpu", "RR CPU us", "Forwarder CPU (user+sys) per UDP round "
     "trip, 100 clients", "CPU us/round trip", "low", "{:.2f}"),
    ("pss_per_session", "PSS/sess",
     "Memory (PSS) per idle UDP session", "bytes", "low", "{:.0f}"),
    ("mux_tls_rate", "mux TLS/s", "One port shared by TLS and SSH: "
     "TLS-first connections routed by SNI", "conn/s", "high", "{:.0f}"),
    ("mux_ssh_rate", "mux SSH/s", "One port shared by TLS and SSH: "
     "SSH-first connections", "conn/s", "high", "{:.0f}"),
    ("mux_cpu_per_conn", "mux CPU us", "Forwarder CPU (user+sys, by "
     "cgroup) per TLS or SSH connection on the shared port",
     "CPU us/conn", "low", "{:.1f}"),
    ("mux_lost", "mux lost%", "Connections lost on the shared port (closed "
     "before the backend's answer, misrouted, refused, unanswered)",
     "%", "low", "{:.2f}"),
    ("udp_flow_loss", "flow loss%", "One UDP flow of 64-byte datagrams at "
     "78,000 a second: datagrams lost", "%", "low", "{:.2f}"),
    ("reload_5k", "reload s", "Reload of 5,000 TCP rules: ferryd -s reload "
     "answered; nginx: SIGHUP to its old workers gone", "s", "low",
     "{:.3f}"),
    ("reload_5k_new", "reload new", "Reload of 5,000 TCP rules: ferryd -s "
     "reload answered; nginx: SIGHUP to its new workers running", "s",
     "low", "{:.3f}"),
    ("scrape_bytes", "scrape B", "One scrape of /metrics with 5,000 idle "
     "rules", "bytes", "low", "{:.0f}"),
]
METRIC = {m[0]: m for m in METRICS}


def die(msg):
    sys.stderr.write("benchlib: %s\n" % msg)
    sys.exit(1)


# ---------------------------------------------------------------- parsers

def iperf_received(path):
    """end.sum_received of an iperf3 -J report; dies on an error."""
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        die("%s: %s" % (path, e))
    if "error" in j:
        die("iperf3: %s" % j["error"])
    try:
        return j["end"]["sum_received"]
    except (KeyError, TypeError):
        die("%s: no end.sum_received" % path)


def cmd_iperf(path):
    s = iperf_received(path)
    try:
        print("%.4f %d" % (s["bits_per_second"] / 1e9, s["bytes"]))
    except (KeyError, TypeError):
        die("%s: no bits_per_second or bytes" % path)


def cmd_iperf_udp(path):
    """kdatagrams/s delivered, % lost, datagrams delivered."""
    s = iperf_received(path)
    try:
        got = s["packets"] - s["lost_packets"]
        if got <= 0:
            die("no datagram came through")
        print("%.3f %.3f %d" % (got / s["seconds"] / 1e3,
                                s["lost_percent"], got))
    except (KeyError, TypeError, ZeroDivisionError):
        die("%s: no UDP packets, lost_packets or seconds" % path)


def session_procs(sid):
    """(pid, fields after the comm) of every process in session sid."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rfind(")") + 2:].split()
        # rest[0] is field 3 (state); session is field 6
        if len(rest) > 14 and rest[3] == str(sid):
            out.append((int(d), rest))
    return out


def cmd_proc(sid, what):
    procs = session_procs(sid)
    if what == "pids":
        print(" ".join(str(p) for p, _ in sorted(procs)))
    elif what == "count":
        print(len(procs))
    elif what == "cpu":
        hz = os.sysconf("SC_CLK_TCK")
        # utime stime cutime cstime are fields 14-17
        ticks = sum(sum(int(x) for x in r[11:15]) for _, r in procs)
        print("%.4f" % (ticks / hz))
    elif what == "pss":
        total = 0
        for pid, _ in procs:
            try:
                with open("/proc/%d/smaps_rollup" % pid) as f:
                    for line in f:
                        if line.startswith("Pss:"):
                            total += int(line.split()[1])
                            break
            except OSError:
                pass
        print(total)
    else:
        die("proc: unknown %s" % what)


def cmd_strace(path):
    """Failed calls (EAGAIN) count too: they cost a syscall all the same."""
    calls, errors = {}, {}
    with open(path) as f:
        for line in f:
            p = line.split()
            # % time, seconds, usecs/call, calls, [errors], syscall
            if len(p) >= 5 and re.match(r"^[0-9.]+$", p[0]) and \
                    p[-1] in DATA_SYSCALLS and p[3].isdigit():
                calls[p[-1]] = calls.get(p[-1], 0) + int(p[3])
                if len(p) == 6 and p[4].isdigit():
                    errors[p[-1]] = errors.get(p[-1], 0) + int(p[4])
    total = sum(calls.values())
    detail = ",".join("%s=%d%s" % (k, v, "(failed:%d)" % errors[k]
                                   if errors.get(k) else "")
                      for k, v in sorted(calls.items()))
    print("%d %s" % (total, detail or "-"))


def cmd_sockperf(path):
    p = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"percentile\s+([0-9.]+)\s*=\s*([0-9.]+)", line)
            if m:
                p[float(m.group(1))] = float(m.group(2))
    if 50.0 not in p or 99.0 not in p:
        die("%s: no percentiles" % path)
    print("%.3f %.3f" % (p[50.0], p[99.0]))


def cmd_pingpong(path):
    with open(path) as f:
        m = re.search(r"p50 ([0-9.]+) p99 ([0-9.]+)", f.read())
    if not m:
        die("%s: no result" % path)
    print("%s %s" % (m.group(1), m.group(2)))


def cmd_wrk(path):
    text = open(path, errors="replace").read()
    m = re.search(r"Requests/sec:\s*([0-9.]+)", text)
    if not m:
        die("%s: no Requests/sec" % path)
    n = re.search(r"([0-9]+) requests in", text)
    errors = 0
    e = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), "
                  r"timeout (\d+)", text)
    if e:
        errors += sum(int(x) for x in e.groups())
    e = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if e:
        errors += int(e.group(1))
    print("%s %s %d" % (m.group(1), n.group(1) if n else "0", errors))


def cmd_http_bytes(host, port, path):
    """A Prometheus scrape's size: the body, whatever its framing."""
    try:
        c = http.client.HTTPConnection(host, int(port), timeout=60)
        c.request("GET", path)
        r = c.getresponse()
        body = r.read()
    except (OSError, http.client.HTTPException) as e:
        die("GET %s: %s" % (path, e))
    if r.status != 200:
        die("GET %s: status %d" % (path, r.status))
    print(len(body))


# ---------------------------------------------------------------- report

def read_tsv(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line:
                    rows.append(line.split("\t"))
    return rows


def fmt(metric, v):
    if v is None:
        return "-"
    return METRIC[metric][5].format(v)


def is_ferryd(peer):
    return peer.startswith("ferryd")


def is_base(peer):
    """An earlier ferryd build (FERRYD_BASE), not a competitor."""
    return peer.startswith("base")


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


class Data:
    def __init__(self, d):
        self.peers = []          # (id, label, status, note)
        for r in read_tsv(os.path.join(d, "peers.tsv")):
            r += [""] * (4 - len(r))
            self.peers.append(tuple(r[:4]))
        self.label = {p[0]: p[1] for p in self.peers}
        self.values = {}         # (metric, peer) -> {run: value}
        for m, peer, run, val in read_tsv(os.path.join(d, "raw.tsv")):
            self.values.setdefault((m, peer), {})[int(run)] = float(val)
        self.notes = read_tsv(os.path.join(d, "notes.tsv"))
        self.meta = read_tsv(os.path.join(d, "meta.tsv"))
        self.metrics = [m for m in
                        (x.strip() for x in
                         dict(self.meta).get("metrics", "").split(","))
                        if m in METRIC]
        self.runs = int(dict(self.meta).get("runs", "1"))

    def run_values(self, metric, peer):
        return self.values.get((metric, peer), {})

    def med(self, metric, peer):
        return median(self.run_values(metric, peer).values())

    def others(self):
        return [p[0] for p in self.peers
                if p[0] != "direct" and not is_ferryd(p[0]) and
                not is_base(p[0]) and p[2] == "ok"]

    def ferryds(self):
        return [p[0] for p in self.peers if is_ferryd(p[0]) and p[2] == "ok"]


def best_of(values, better):
    """(peer, value) of the best entry of {peer: value}, or (None, None)."""
    if not values:
        return None, None
    key = max if better == "high" else min
    peer = key(values, key=lambda p: values[p])
    return peer, values[peer]


def ratios(data, metric, fpeer, added=False):
    """Per-run ratio of fpeer to the best other peer of the same run.
    Returns (median ratio, median ferryd figure, best peer label, median
    best figure, runs left out); with added=True the figures are
    differences to direct, and a run where some forwarder measured faster
    than direct is left out: it cannot resolve what forwarding adds."""
    better = METRIC[metric][4]
    rs, fs, bs, bests, unresolved = [], [], [], {}, 0
    for run in range(1, data.runs + 1):
        fv = data.run_values(metric, fpeer).get(run)
        if fv is None:
            continue
        vals = {p: data.run_values(metric, p).get(run)
                for p in data.others()}
        vals = {p: v for p, v in vals.items() if v is not None}
        if added:
            dv = data.run_values(metric, "direct").get(run)
            if dv is None:
                continue
            fv -= dv
            vals = {p: v - dv for p, v in vals.items()}
        bp, bv = best_of(vals, better)
        if added and bp is not None and bv <= 0:
            unresolved += 1
            continue
        fs.append(fv)
        if bp is None:
            continue
        bests[bp] = bests.get(bp, 0) + 1
        bs.append(bv)
        if bv > 0 and fv >= 0:
            rs.append(fv / bv)
        elif added and fv <= 0:
            rs.append(0.0)       # ferryd adds nothing measurable
    if not fs:
        return None, None, None, None, unresolved
    if not bests:
        return None, median(fs), None, None, unresolved
    bp = max(bests, key=lambda p: bests[p])
    return (median(rs), median(fs), data.label.get(bp, bp), median(bs),
            unresolved)


TARGETS = [
    # metric, description, kind, threshold, added-over-direct
    ("throughput_p1", "iperf3 -P1 throughput", ">=", 1.3, False),
    ("throughput_p8", "iperf3 -P8 throughput", ">=", 1.3, False),
    ("cpu_per_gb", "CPU s/GB", "<=", 0.5, False),
    ("conn_rate", "connection rate", ">=", 1.3, False),
    ("cpu_per_conn", "CPU per connection (no target)", None, None, False),
    ("keepalive_rps", "keep-alive req/s", ">=", 1.3, False),
    ("ka_cpu", "CPU per keep-alive request (no target)", None, None,
     False),
    ("latency_p50", "p50 latency added over direct", "<=", 0.5, True),
    ("latency_p99", "p99 latency added over direct", "<=", 0.5, True),
    ("latency_p99_idle", "p99 with idle conns (no target)", None, None,
     False),
    ("bytes_per_syscall", "bytes per syscall (no target)", None, None,
     False),
    ("pss_per_conn", "PSS per idle connection", "abs<=", 1024, False),
    ("udp_pps", "UDP datagrams/s, 64 bytes", ">=", 1.5, False),
    ("udp_cpu", "UDP CPU per datagram", "<=", 0.5, False),
    ("udp_loss", "UDP loss (no target)", None, None, False),
    ("udp_dgrams_per_syscall", "UDP dgrams/syscall (no target)",
     None, None, False),
    ("udp_rr", "UDP round trips/s (no target)", None, None, False),
    ("udp_rr_cpu", "UDP CPU per round trip (no target)", None, None,
     False),
    ("pss_per_session", "PSS per idle UDP session", "abs<=", 512, False),
    # issue 25: ahead of every one of them, losing none
    ("mux_tls_rate", "mux: TLS-first conn/s", ">", 1.0, False),
    ("mux_ssh_rate", "mux: SSH-first conn/s", ">", 1.0, False),
    ("mux_cpu_per_conn", "mux: CPU per connection", "<", 1.0, False),
    ("mux_lost", "mux: connections lost", "every<=", 0, False),
]


def target_lines(data):
    out = []
    if not any(t[0] in data.metrics for t in TARGETS):
        return out
    for fpeer in data.ferryds():
        out.append("%s vs the best other forwarder of each run (median of "
                   "the per-run ratios; \"vs\" gives the median of the "
                   "per-run best figures):" % data.label[fpeer])
        for metric, desc, kind, thr, added in TARGETS:
            if metric not in data.metrics:
                continue
            r, fv, bl, bv, unresolved = ratios(data, metric, fpeer, added)
            unit = METRIC[metric][3]
            if fv is None and unresolved:
                out.append("  %-32s n/a     unresolved: a forwarder measured "
                           "faster than direct in %d of %d runs (noise)"
                           % (desc, unresolved, data.runs))
                continue
            if fv is None:
                # the rows that do not route (ferryd copy-only) have
                # no mux figures, and that is no news
                if metric not in MUX_METRICS:
                    out.append("  %-32s no figures" % desc)
                continue
            if bl is None:
                what = "%s %s (no other forwarder measured)" % (
                    fmt(metric, fv), unit)
            elif added:
                what = "adds %s us vs %s us (%s)" % (
                    fmt(metric, fv), fmt(metric, bv), bl)
            else:
                what = "%s vs %s %s (%s)" % (
                    fmt(metric, fv), fmt(metric, bv), unit, bl)
            if unresolved:
                what += "; %d of %d runs left out (a forwarder measured " \
                    "faster than direct)" % (unresolved, data.runs)
            rtxt = "%.2fx" % r if r is not None else "n/a"
            if kind is None:
                verdict, goal = "", ""
            elif kind == "abs<=":
                goal = "target <= %d B" % thr
                verdict = "PASS" if fv <= thr else "MISS"
            elif kind == "every<=":
                # not the median: every run
                worst = max(data.run_values(metric, fpeer).values())
                goal = "target %g %s, every run" % (thr, unit)
                verdict = "PASS" if worst <= thr else "MISS"
                what += "; worst run %s" % fmt(metric, worst)
            else:
                goal = "target %s %.1fx" % (kind, thr)
                if r is None:
                    verdict = "n/a"
                elif kind == ">=":
                    verdict = "PASS" if r >= thr else "MISS"
                elif kind == ">":
                    verdict = "PASS" if r > thr else "MISS"
                elif kind == "<":
                    verdict = "PASS" if r < thr else "MISS"
                else:
                    verdict = "PASS" if r <= thr else "MISS"
            out.append("  %-32s %-7s %-17s %-4s  %s" % (
                desc, rtxt, goal, verdict, what))
        out.append("")
    return out


def pair_ratio(data, metric, a, b):
    """The median of peer a's figure divided by peer b's, run by run."""
    rs = []
    for run in range(1, data.runs + 1):
        av = data.run_values(metric, a).get(run)
        bv = data.run_values(metric, b).get(run)
        if av is not None and bv:
            rs.append(av / bv)
    return median(rs)


# Issue 28's goals, each against the peer it names: (metric, what,
# against: "best" for the best other forwarder of each run or a peer id,
# kind, threshold).
PERF_GOALS = [
    ("throughput_p1", "bulk, one stream", "best", ">=", 1.2),
    ("cpu_per_conn", "CPU per short connection", "best", "<=", 0.8),
    ("ka_cpu", "CPU per keep-alive request", "nginx", "<=", 0.85),
    ("latency_p99", "ping-pong p99", "nginx", "<=", 1.0),
    ("latency_p99_idle", "ping-pong p99, idle conns open", "nginx", "<=",
     1.0),
]


def pair_diff(data, metric, a, b):
    """The median of peer a's figure less peer b's, run by run."""
    ds = []
    for run in range(1, data.runs + 1):
        av = data.run_values(metric, a).get(run)
        bv = data.run_values(metric, b).get(run)
        if av is not None and bv is not None:
            ds.append(av - bv)
    return median(ds)


def goal_lines(data, heading, goals):
    """Goals as (metric, what, against, kind, threshold): against is
    "best" (the best other forwarder of each run), a peer id, or a
    number (a figure measured before, in the metric's unit); kind is
    ">=", "<=" or "<" for ratios (the median of the per-run ratios,
    each taken in one run), "+<=" for a difference (the median of the
    per-run differences to the peer), or None for no goal."""
    present = [g for g in goals if g[0] in data.metrics]
    if not present:
        return []
    out = []
    for fpeer in data.ferryds():
        out.append("%s: %s against the peer each names:" % (
            heading, data.label[fpeer]))
        for metric, what, against, kind, thr in present:
            fv = data.med(metric, fpeer)
            if isinstance(against, (int, float)):
                r = fv / against if fv is not None else None
                bv, bl = against, "measured before"
            elif against == "best":
                r, fv, bl, bv, _ = ratios(data, metric, fpeer)
            else:
                if not data.run_values(metric, against):
                    out.append("  %-36s n/a     (%s not measured)" % (
                        what, against))
                    continue
                r = (pair_diff if kind == "+<=" else pair_ratio)(
                    data, metric, fpeer, against)
                bv = data.med(metric, against)
                bl = data.label.get(against, against)
            if r is None:
                out.append("  %-36s n/a" % what)
                continue
            got = "%+.2f" % r if kind == "+<=" else "%.2fx" % r
            if kind is None:
                goal, verdict = "(no goal)", ""
            else:
                goal = ("goal <= %+.2f" % thr if kind == "+<=" else
                        "goal %s %.2fx" % (kind, thr))
                ok = (r >= thr if kind == ">=" else r < thr if kind == "<"
                      else r <= thr)
                verdict = "PASS" if ok else "MISS"
            out.append("  %-36s %-7s %-14s %-4s  %s vs %s %s (%s)" % (
                what, got, goal, verdict,
                fmt(metric, fv), fmt(metric, bv), METRIC[metric][3], bl))
        out.append("")
    return out


def perf_goal_lines(data):
    """Issue 28's goals, against the best other forwarder or against
    nginx stream where the goal names it."""
    return goal_lines(data, "issue 28's goals (median of the per-run "
                      "ratios)", PERF_GOALS)


# Issue 40's goals: one UDP flow's loss within a point of direct's (a
# difference of percentages, run by run); a reload of 5,000 rules no
# slower than nginx's; a scrape of 5,000 idle rules smaller than
# HAProxy's and at most a quarter of the 12.9 MB issue 40 measured.
ISSUE40_GOALS = [
    ("udp_flow_loss", "one UDP flow: loss over direct, pt",
     "direct", "+<=", 1.0),
    ("reload_5k", "reload 5k rules (nginx: old gone)", "nginx", "<=",
     1.0),
    ("reload_5k_new", "reload 5k rules (nginx: new up)", "nginx", None,
     None),
    ("scrape_bytes", "/metrics, 5k idle rules", "haproxy", "<", 1.0),
    ("scrape_bytes", "/metrics vs issue 40's 12.9 MB", 12.9e6, "<=", 0.25),
]


def issue40_lines(data):
    return goal_lines(data, "issue 40's goals (ratios and differences: "
                      "the median of the per-run ones)", ISSUE40_GOALS)


MUX_GOAL = ("mux_tls_rate", "mux_ssh_rate", "mux_cpu_per_conn")


def mux_lines(data):
    """Issue 25's goal for the shared port: ferryd ahead of every other
    forwarder in TLS-first and SSH-first connections per second and CPU
    per connection (median of the per-run ratios, so each pair is taken
    in one run), and no connection lost in any run."""
    if not any(m in data.metrics for m in MUX_METRICS):
        return []
    out = []
    for fpeer in data.ferryds():
        if not any(data.run_values(m, fpeer) for m in MUX_METRICS):
            continue
        out.append("mux (issue 25): %s against each forwarder, median of "
                   "the per-run ratios (rates: > 1 is ahead; CPU: < 1 is "
                   "ahead); lost: %% of connections, worst run:" %
                   data.label[fpeer])
        out.append("  %-18s %10s %10s %10s %12s" % (
            "", "TLS conn/s", "SSH conn/s", "CPU/conn", "lost %"))
        flost = list(data.run_values("mux_lost", fpeer).values())
        out.append("  %-18s %10s %10s %10s %12s" % (
            data.label[fpeer] + " (figures)",
            fmt("mux_tls_rate", data.med("mux_tls_rate", fpeer)),
            fmt("mux_ssh_rate", data.med("mux_ssh_rate", fpeer)),
            fmt("mux_cpu_per_conn", data.med("mux_cpu_per_conn", fpeer)),
            fmt("mux_lost", max(flost) if flost else None)))
        ahead, behind, missing = 0, [], []
        for p in data.others():
            if not any(data.run_values(m, p) for m in MUX_METRICS):
                continue
            cells = []
            for m in MUX_GOAL:
                r = pair_ratio(data, m, fpeer, p)
                if m not in data.metrics:
                    cells.append("-")
                    continue
                if r is None:
                    cells.append("n/a")
                    missing.append("%s %s" % (data.label[p], m))
                    continue
                better = METRIC[m][4] == "high"
                if (r > 1) if better else (r < 1):
                    ahead += 1
                else:
                    behind.append("%s %s %.2fx" % (data.label[p], m, r))
                cells.append("%.2fx" % r)
            plost = list(data.run_values("mux_lost", p).values())
            out.append("  %-18s %10s %10s %10s %12s" % (
                data.label[p], cells[0], cells[1], cells[2],
                fmt("mux_lost", max(plost) if plost else None)))
        lost_ok = bool(flost) and max(flost) <= 0
        if "mux_lost" not in data.metrics:
            lost_txt = "not measured"
        else:
            lost_txt = "none lost" if lost_ok else "LOST %s%% in the worst " \
                "run" % fmt("mux_lost", max(flost) if flost else None)
        verdict = "PASS" if (ahead and not behind and not missing and
                             (lost_ok or "mux_lost" not in data.metrics)) \
            else "MISS"
        out.append("  goal: ahead of every one, losing none: %s (%d "
                   "ratios ahead%s%s; %s)" % (
                       verdict, ahead,
                       "; behind: " + ", ".join(behind) if behind else "",
                       "; no figure: " + ", ".join(missing)
                       if missing else "", lost_txt))
        out.append("")
    return out


MUX_METRICS = ("mux_tls_rate", "mux_ssh_rate", "mux_cpu_per_conn",
               "mux_lost")


# Within this much of the base build, a figure counts as the same: the
# machines are shared and the runs noisy.
BASE_NOISE = 0.05


def base_lines(data):
    """This build against FERRYD_BASE, mode by mode, in the same run."""
    out = []
    ok = {p[0] for p in data.peers if p[2] == "ok"}
    for fpeer, bpeer in (("ferryd", "base"), ("ferryd-copy", "base-copy"),
                         ("ferryd-splice", "base-splice")):
        if fpeer not in ok or bpeer not in ok:
            continue
        out.append("%s vs %s, the earlier build (median of the per-run "
                   "ratios; within %d%% counts as the same):" % (
                       data.label[fpeer], data.label[bpeer],
                       BASE_NOISE * 100))
        for metric in data.metrics:
            better = METRIC[metric][4]
            r = pair_ratio(data, metric, fpeer, bpeer)
            if r is None:
                continue	# a metric the base build cannot do
            gain = r - 1 if better == "high" else 1 - r
            verdict = ("same" if abs(gain) <= BASE_NOISE else
                       "better" if gain > 0 else "WORSE")
            out.append("  %-32s %.2fx   %-6s  %s vs %s %s" % (
                METRIC[metric][2][:32], r, verdict,
                fmt(metric, data.med(metric, fpeer)),
                fmt(metric, data.med(metric, bpeer)), METRIC[metric][3]))
        out.append("")
    return out


def table_lines(data):
    cols = [m for m in data.metrics]
    w0 = max([len("forwarder")] + [len(p[1]) for p in data.peers]) + 2
    head = "%-*s" % (w0, "forwarder") + "".join(
        "%11s" % METRIC[m][1] for m in cols)
    out = [head, "-" * len(head)]
    for pid, label, status, note in data.peers:
        if status != "ok":
            out.append("%-*s%s" % (w0, label, "skipped: " + note))
            continue
        line = "%-*s" % (w0, label)
        for m in cols:
            v = data.med(m, pid)
            cell = fmt(m, v)
            if v is not None and any(n[0] == pid and n[1] == m
                                     for n in data.notes):
                cell += "*"
            elif v is None and any(n[0] == pid and n[1] == m
                                   for n in data.notes):
                cell = "fail*"
            line += "%11s" % cell
        out.append(line)
    return out


def esc(s):
    return (s.replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


def svg_chart(data, metric, subtitle):
    _, _, title, unit, better, _ = METRIC[metric]
    rows = [(pid, label, data.med(metric, pid))
            for pid, label, status, _ in data.peers if status == "ok"]
    if metric in ("cpu_per_gb", "cpu_per_conn", "ka_cpu",
                  "bytes_per_syscall",
                  "pss_per_conn", "pss_per_session",
                  "udp_dgrams_per_syscall", "mux_cpu_per_conn"):
        rows = [r for r in rows if r[0] != "direct"]
    # a peer the metric is not for (issue 40's rows have a few) has no
    # figure and no note: no bar either
    rows = [r for r in rows if r[2] is not None or
            any(n[0] == r[0] and n[1] == metric for n in data.notes)]
    vmax = max([v for _, _, v in rows if v is not None] + [0]) or 1
    left, barw, rowh, top = 200, 430, 26, 62
    width = left + barw + 110
    height = top + rowh * len(rows) + 30
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="13">' % (width, height),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="10" y="22" font-size="15" font-weight="bold">%s</text>'
         % esc(title),
         '<text x="10" y="42" fill="#555">%s, %s is better; %s</text>'
         % (esc(unit), "higher" if better == "high" else "lower",
            esc(subtitle))]
    for i, (pid, label, v) in enumerate(rows):
        y = top + i * rowh
        colour = ("#e8590c" if is_ferryd(pid) else
                  "#adb5bd" if pid == "direct" else "#4c6ef5")
        weight = ' font-weight="bold"' if is_ferryd(pid) else ""
        s.append('<text x="%d" y="%d" text-anchor="end"%s>%s</text>'
                 % (left - 8, y + 17, weight, esc(label)))
        if v is None:
            s.append('<text x="%d" y="%d" fill="#888">n/a</text>'
                     % (left + 4, y + 17))
            continue
        w = max(1, int(barw * v / vmax))
        s.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>'
                 % (left, y + 4, w, rowh - 8, colour))
        s.append('<text x="%d" y="%d"%s>%s</text>'
                 % (left + w + 6, y + 17, weight, esc(fmt(metric, v))))
    s.append('</svg>')
    return "\n".join(s) + "\n"


def tsv_figure(v):
    """Six significant digits; a figure of a million or more (the bytes
    of a scrape) whole, not with an exponent."""
    if v is None:
        return ""
    return "%.0f" % v if abs(v) >= 1e6 else "%.6g" % v


def cmd_report(d, outdir, summary="summary.txt"):
    data = Data(d)
    meta = dict(data.meta)
    os.makedirs(outdir, exist_ok=True)
    subtitle = "%s, %s CPUs, median of %d run%s" % (
        meta.get("topo", "loopback"), meta.get("cpus", "?"), data.runs,
        "" if data.runs == 1 else "s")
    for metric in data.metrics:
        unit = METRIC[metric][3]
        with open(os.path.join(outdir, metric + ".tsv"), "w") as f:
            f.write("peer\tmedian\t%s\tunit\tnote\n" % "\t".join(
                "run%d" % r for r in range(1, data.runs + 1)))
            for pid, label, status, pnote in data.peers:
                rv = data.run_values(metric, pid)
                note = "; ".join(n[2] for n in data.notes
                                 if n[0] == pid and n[1] == metric)
                if status != "ok":
                    note = "skipped: " + pnote
                med = data.med(metric, pid)
                f.write("%s\t%s\t%s\t%s\t%s\n" % (
                    label, tsv_figure(med),
                    "\t".join(tsv_figure(rv.get(r))
                              for r in range(1, data.runs + 1)),
                    unit, note))
        with open(os.path.join(outdir, metric + ".svg"), "w") as f:
            f.write(svg_chart(data, metric, subtitle))
    lines = []
    lines.append("ferryd benchmark - %s" % meta.get("date", ""))
    lines.append("")
    for k in ("machine", "cpus", "kernel", "memory", "ferryd", "base",
              "topology",
              "congestion", "peers_as", "runs", "workers", "durations", "idle_conns", "limits", "tools",
              "mux", "issue40", "command", "skipped", "elapsed", "load"):
        if k in meta:
            lines.append("%-11s %s" % (k + ":", meta[k]))
    lines.append("")
    lines.append("Medians of %d run%s.  Columns:" % (
        data.runs, "" if data.runs == 1 else "s"))
    for m in data.metrics:
        lines.append("  %-10s %s, %s (%s is better)" % (
            METRIC[m][1], METRIC[m][2], METRIC[m][3],
            "higher" if METRIC[m][4] == "high" else "lower"))
    lines.append("")
    lines += table_lines(data)
    lines.append("")
    if data.notes:
        lines.append("* Notes:")
        for pid, metric, text in data.notes:
            lines.append("  %s, %s: %s" % (data.label.get(pid, pid),
                                           metric, text))
        lines.append("")
    lines += target_lines(data)
    lines += perf_goal_lines(data)
    lines += issue40_lines(data)
    lines += mux_lines(data)
    lines += base_lines(data)
    text = "\n".join(lines).rstrip("\n") + "\n"
    with open(os.path.join(outdir, summary), "w") as f:
        f.write(text)
    sys.stdout.write(text)


def main(argv):
    if len(argv) < 2:
        die("usage: see the header of this file")
    cmd, args = argv[1], argv[2:]
    table = {"iperf": (cmd_iperf, 1), "iperf_udp": (cmd_iperf_udp, 1),
             "proc": (cmd_proc, 2),
             "strace": (cmd_strace, 1), "sockperf": (cmd_sockperf, 1),
             "pingpong": (cmd_pingpong, 1), "wrk": (cmd_wrk, 1),
             "http_bytes": (cmd_http_bytes, 3),
             "report": (cmd_report, 2)}
    if cmd == "report" and len(args) == 3:
        table[cmd] = (cmd_report, 3)	# with the summary's name
    if cmd not in table or len(args) != table[cmd][1]:
        die("bad command line: %s" % " ".join(argv[1:]))
    table[cmd][0](*args)


if __name__ == "__main__":
    main(sys.argv)
