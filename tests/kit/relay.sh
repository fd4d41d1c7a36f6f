# relay.sh - end-to-end relaying through the real ferryd, sourced by
# relay.test (event_backend "auto", i.e. epoll, and splice on Linux),
# relay-poll.test (the poll(2) backend) and relay-copy.test (splice =
# "off": read/write through buffers), so that every backend and both data
# paths pass the same checks.

. "$top_srcdir/tests/kit/lib.sh"

start_server echo_port echo --mode echo
start_server reply_port reply --mode sink-reply --reply-bytes 3000000 \
    --delay-ms 200
dead_port=$(free_port)
start_blackhole hole_port
p_echo=$(free_port); p_reply=$(free_port); p_dead=$(free_port)
p_hole=$(free_port); p_idle=$(free_port); p_urg=$(free_port)
# The urgent-data rule splices from the first byte where splicing is on
# (with SPLICE=off it is the echo rule again, so it is checked once).
urg_splice=${SPLICE:-auto}
[ "$urg_splice" = auto ] && urg_splice=on
urg_ports=$p_echo
[ "$urg_splice" = off ] || urg_ports="$p_echo $p_urg"

conf=$(config relay <<EOF
workers = 2;
log_level = "debug";
splice = "${SPLICE:-auto}";
rules = (
  { listen = "127.0.0.1:$p_echo";  connect = "127.0.0.1:$echo_port"; },
  { listen = "[::1]:$p_echo";      connect = "127.0.0.1:$echo_port"; },
  { listen = "127.0.0.1:$p_reply"; connect = "127.0.0.1:$reply_port";
    buffer_size = 4096; },
  { listen = "127.0.0.1:$p_dead";  connect = "127.0.0.1:$dead_port"; },
  { listen = "127.0.0.1:$p_hole";  connect = "127.0.0.1:$hole_port";
    connect_timeout = 0.5; },
  { listen = "127.0.0.1:$p_idle";  connect = "127.0.0.1:$echo_port";
    idle_timeout = 1; },
  { listen = "127.0.0.1:$p_urg";   connect = "127.0.0.1:$echo_port";
    splice = "$urg_splice"; }
);
EOF
)
start_ferryd "$conf"

# 100 MB each way through one connection, byte-exact: the client checks
# every byte of the echo against what it sent, and the backend's own count
# and checksum of what it received must match the client's.
check "100 MB each way through one connection" \
    "$TCPKIT" stream 127.0.0.1 "$p_echo" 100000000 --seed 5
sent_sum=$(sed -n 's/.*sum=\([0-9a-f]*\).*/\1/p' "$T/out")
wait_for 50 grep -q "in=100000000 " "$T/echo.log" ||
    fail "echo backend did not log a 100000000 byte connection"
grep "in=100000000 " "$T/echo.log" | grep -q "in_sum=$sent_sum" ||
    fail "backend checksum differs from the client's ($sent_sum): $(cat "$T/echo.log")"
ok "backend received the same 100 MB (checksum $sent_sum)"

check "1000 concurrent connections echo their own data" \
    "$TCPKIT" --timeout 60 concurrent 127.0.0.1 "$p_echo" 1000 4096

check "IPv6 listener forwards to an IPv4 backend" \
    "$TCPKIT" stream ::1 "$p_echo" 1000000

# Half-close: the client sends, shuts down its write side, and must still
# get the whole reply the backend sends after seeing EOF.
check "half-close: reply arrives after the client's FIN" \
    "$TCPKIT" halfclose 127.0.0.1 "$p_reply" 500000 3000000
grep -q "in=500000 out=3000000" "$T/reply.log" ||
    fail "reply backend did not see 500000 bytes then EOF: $(cat "$T/reply.log")"
ok "backend saw all 500000 bytes and the EOF"

# TCP urgent data (MSG_OOB): the byte is dropped, as rinetd does, and
# the rest still flows, without the client closing first.  splice(2)
# alone would stop at the urgent mark (and, level-triggered, spin).
for p in $urg_ports; do
	check "urgent byte mid-stream: the rest still relayed (port $p)" \
	    "$TCPKIT" --timeout 5 urgent 127.0.0.1 "$p"
done

# A refused backend closes the client at once and says why.  The log line
# proves it was the refusal (the connect timeout is 10 s); the 3 s bound
# only keeps a stalled, shared CI machine from failing the test.
check "backend refused: client closed at once" \
    "$TCPKIT" expect-close 127.0.0.1 "$p_dead" 3000
wait_for 20 log_has "cannot connect to 127.0.0.1:$dead_port for client 127.0.0.1:[0-9]*: Connection refused" ||
    fail "no log line saying the connect was refused"
ok "log says: $(grep -m1 "127.0.0.1:$dead_port" "$FERRYD_LOG" | sed 's/.*: warning: //')"

# A backend that never answers the SYN: connect_timeout (0.5 s) applies.
start=$(date +%s%N)
check "blackholed backend: client closed at connect_timeout" \
    "$TCPKIT" expect-close 127.0.0.1 "$p_hole" 3000
elapsed=$((($(date +%s%N) - start) / 1000000))
[ "$elapsed" -ge 450 ] || fail "closed after $elapsed ms, before the 500 ms timeout"
wait_for 20 log_has "cannot connect to 127.0.0.1:$hole_port .*timed out after 500 ms" ||
    fail "no log line saying the connect timed out"
ok "closed after $elapsed ms; log says the connect timed out"

# idle_timeout = 1: a connection with no traffic is closed.
check "idle connection closed by idle_timeout" \
    "$TCPKIT" expect-close 127.0.0.1 "$p_idle" 3000
wait_for 20 log_has "closed (idle timeout)" || fail "no idle timeout in the log"
ok "log says the connection was closed for idle timeout"
# ... but one that keeps moving bytes lives on: its timer, armed for the
# first second, finds it active and waits again.
check "a busy connection outlives idle_timeout = 1 (3 s of traffic)" \
    "$TCPKIT" stream 127.0.0.1 "$p_idle" 100000000 --rate 200000 --duration 3

if [ "$BACKEND" != auto ]; then
	log_has "$BACKEND backend" || fail "workers did not use the $BACKEND backend"
	ok "workers ran the $BACKEND backend"
fi
stop_ferryd
ok "ferryd stopped with status 0"
done_testing
