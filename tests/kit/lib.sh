# lib.sh - shared by the integration tests: start the real ferryd and the
# tcpkit helpers on loopback, check what came out, and stop everything we
# started, even when a check fails.
#
# Sourced by tests/*.test (bash).  Needs top_builddir and top_srcdir, which
# `make check` exports; run by hand, they default to the current directory.

set -u
top_builddir=${top_builddir:-$(pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
FERRYD=$top_builddir/src/ferryd
TCPKIT=$top_builddir/tests/kit/tcpkit
UDPKIT=$top_builddir/tests/kit/udpkit
TEST_NAME=$(basename "$0" .test)
T=$(mktemp -d "${TMPDIR:-/tmp}/ferryd-$TEST_NAME.XXXXXX")
BG_PIDS=()
FERRYD_PID=
FERRYD_LOG=$T/ferryd.log
BACKEND=${BACKEND:-auto}
CHECKS=0

cleanup() {
	local pid kids=
	if [ -n "$FERRYD_PID" ] && kill -0 "$FERRYD_PID" 2>/dev/null; then
		kids=$(workers)
		kill -TERM "$FERRYD_PID" 2>/dev/null
		wait_gone "$FERRYD_PID" 50 || kill -KILL "$FERRYD_PID" 2>/dev/null
	fi
	for pid in "${BG_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	# No process of this test may outlive it: workers of a master that
	# did not stop, and any master whose title names our directory.
	for pid in $kids; do
		kill -KILL "$pid" 2>/dev/null
	done
	pkill -KILL -f -- "ferryd: master process $T/" 2>/dev/null
	if [ -n "${KEEP_TEST_DIR:-}" ]; then echo "# kept $T" >&2; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# fail MESSAGE: say what went wrong, with the end of ferryd's log.
fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	if [ -s "$FERRYD_LOG" ]; then
		echo "--- last lines of the ferryd log:" >&2
		tail -n 20 "$FERRYD_LOG" >&2
	fi
	exit 1
}

# ok MESSAGE: record a passed check.
ok() {
	CHECKS=$((CHECKS + 1))
	echo "ok $CHECKS - $*"
}

# check DESCRIPTION COMMAND...: run the command, fail if it fails.
check() {
	local what=$1
	shift
	if ! "$@" >"$T/out" 2>&1; then
		cat "$T/out" >&2
		fail "$what"
	fi
	ok "$what: $(tail -n 1 "$T/out")"
}

# running PID: PID exists and has not exited.  A process that exited is
# a zombie until its parent reaps it, and an orphan's new parent (init,
# or a container's process manager) may take a second or more to do so.
running() {
	local st
	st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# wait_gone PID TENTHS: wait until PID is gone, at most TENTHS/10 s.
wait_gone() {
	local i
	for ((i = 0; i < $2; i++)); do
		running "$1" || return 0
		sleep 0.1
	done
	return 1
}

# wait_for TENTHS COMMAND...: retry until the command succeeds.
# wait_for TENTHS 'CONDITION': the same for one string, evaluated anew each
# time, so that a $(...) in it is too (quote it with single quotes).
wait_for() {
	local i n=$1
	shift
	for ((i = 0; i < n; i++)); do
		if [ $# = 1 ]; then
			eval "$1" >/dev/null 2>&1 && return 0
		else
			"$@" >/dev/null 2>&1 && return 0
		fi
		sleep 0.1
	done
	return 1
}

# free_port: a TCP port free now and not handed out before in this test
# (two calls may otherwise get the same one: nothing holds it between).
# free_udp_port [--tcp-too]: the same for UDP (and TCP too).
free_port() {
	new_port "$TCPKIT" freeport
}
free_udp_port() {
	new_port "$UDPKIT" freeport "$@"
}
# free_range N: the first of N consecutive ports (below the ephemeral
# range) that nothing listens on now.
free_range() {
	local n=$1 base try
	for ((try = 0; try < 50; try++)); do
		base=$((10000 + RANDOM % 20000))
		if ! ss -Htuln | awk -v lo="$base" -v hi="$((base + n - 1))" '
		    { sub(/.*:/, "", $5); if ($5 >= lo && $5 <= hi) found = 1 }
		    END { exit !found }'; then
			echo "$base"
			return
		fi
	done
	fail "no $n free ports in a row"
}
# free_quiet_port: a port (TCP and UDP) below the kernel's ephemeral
# range that no socket uses now, not even as a connection's local port:
# for wildcard listeners ([::] or 0.0.0.0), which clash with any socket
# on their port, and the ephemeral range is where other tests' clients
# take theirs.
free_quiet_port() {
	new_port quiet_port
}
quiet_port() {
	local lo hi p try r
	read -r lo hi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null ||
	    lo=32768
	for ((try = 0; try < 100; try++)); do
		r=$(od -An -N2 -tu2 /dev/urandom)
		p=$((10000 + r % (lo - 10000)))
		if ! ss -Htuan "( sport = :$p )" | grep -q .; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
# new_port COMMAND...: what COMMAND prints, once not handed out before.
# The ports handed out are kept in a file: callers run this in $(...).
new_port() {
	local p i
	for ((i = 0; i < 50; i++)); do
		p=$("$@") || return 1
		if ! grep -qx "$p" "$T/.ports" 2>/dev/null; then
			echo "$p" >>"$T/.ports"
			echo "$p"
			return 0
		fi
	done
	echo "no new free port from $*" >&2
	return 1
}

# start_server VAR NAME [tcpkit server options]: start a backend and set
# VAR to its port.  Runs in the test's own shell (not inside $(...)), so
# that cleanup stops it and a failure ends the test.
start_server() {
	local var=$1 name=$2
	shift 2
	"$TCPKIT" server --port-file "$T/$name.port" --log "$T/$name.log" \
	    "$@" >/dev/null 2>"$T/$name.err" &
	BG_PIDS+=($!)
	wait_for 50 test -s "$T/$name.port" || fail "server $name did not start"
	printf -v "$var" '%s' "$(cat "$T/$name.port")"
}

# start_udp_server VAR NAME [udpkit server options]: the same for UDP.
start_udp_server() {
	local var=$1 name=$2
	shift 2
	"$UDPKIT" server --port-file "$T/$name.port" "$@" >/dev/null \
	    2>"$T/$name.err" &
	BG_PIDS+=($!)
	wait_for 50 test -s "$T/$name.port" || fail "UDP server $name did not start"
	printf -v "$var" '%s' "$(cat "$T/$name.port")"
}

# start_blackhole VAR: set VAR to a port whose connects never complete.
start_blackhole() {
	"$TCPKIT" blackhole --port-file "$T/blackhole.port" >/dev/null \
	    2>"$T/blackhole.err" &
	BG_PIDS+=($!)
	wait_for 100 test -s "$T/blackhole.port" || fail "blackhole did not start"
	printf -v "$1" '%s' "$(cat "$T/blackhole.port")"
}

# config NAME: write stdin to $T/NAME.conf, adding the test's settings.
config() {
	{
		echo "event_backend = \"$BACKEND\";"
		echo "pidfile = \"$T/ferryd.pid\";"
		cat
	} >"$T/$1.conf"
	echo "$T/$1.conf"
}

# start_ferryd CONF [options]: run ferryd in the foreground; return once
# its listening sockets are bound (the pidfile is written after that).
start_ferryd() {
	local conf=$1
	shift
	rm -f "$T/ferryd.pid"
	"$FERRYD" -f -c "$conf" "$@" >>"$FERRYD_LOG" 2>&1 &
	FERRYD_PID=$!
	wait_for 100 test -s "$T/ferryd.pid" ||
	    fail "ferryd did not start with $conf"
}

# stop_ferryd [SIGNAL]: stop it and check it exits with status 0.
stop_ferryd() {
	local status
	kill -"${1:-TERM}" "$FERRYD_PID"
	wait_gone "$FERRYD_PID" 100 || fail "ferryd did not stop on ${1:-TERM}"
	wait "$FERRYD_PID"
	status=$?
	[ "$status" = 0 ] || fail "ferryd exited with status $status"
	FERRYD_PID=
}

# workers: the pids of the running ferryd's workers.
workers() {
	pgrep -P "$FERRYD_PID" | sort
}

# log_has PATTERN: the ferryd log has a line matching PATTERN.
log_has() {
	grep -q -- "$1" "$FERRYD_LOG"
}

# stats_get PORT PATH: the body of the answer of the stats endpoint on
# 127.0.0.1:PORT to GET PATH.
stats_get() {
	exec 3<>"/dev/tcp/127.0.0.1/$1" || fail "cannot reach the stats endpoint"
	printf 'GET %s HTTP/1.0\r\nHost: test\r\n\r\n' "$2" >&3
	sed '1,/^\r$/d' <&3
	exec 3<&-
}

# stats_metric PORT 'NAME{LABELS}': its value in /metrics now ("missing"
# if there is none).
stats_metric() {
	stats_get "$1" /metrics | awk -v s="$2" 'index($0, s " ") == 1 {
	    print $2; found = 1 } END { if (!found) print "missing" }'
}

# done_testing: the closing line, counted by .ci/run.
done_testing() {
	echo "$CHECKS checks passed"
}
