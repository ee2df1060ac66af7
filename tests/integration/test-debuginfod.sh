#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Debug files from debuginfod: the unprivileged user records a stripped
# tests/workloads/hot-functions through sysprofd with DEBUGINFOD_URLS naming
# Debian's real debuginfod server, started here on 127.0.0.1 over a directory
# that holds only the workload's separated debug file.  Its static functions,
# only in that file, are named; with the server stopped, and with a server
# that accepts and never answers, the recording ends in bounded time, says
# which files stayed without debug info and why, and names the rest.
# Run under tools/with-sysprofd.sh:
#   test-debuginfod.sh SYSPROF_CLI SYSPROF_REPORT HOT_FUNCTIONS LIBHOTLIB
set -euo pipefail
# shellcheck source=tests/integration/debuginfod-server.sh
source "$(dirname "$0")/debuginfod-server.sh"
cli=$(realpath "$1") report=$(realpath "$2") workload=$(realpath "$3") hotlib=$(realpath "$4")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

for tool in debuginfod objcopy python3 script; do
  command -v "$tool" > /dev/null || { echo "1..0 # SKIP $tool missing"; exit 0; }
done

mkdir -p "$W/bin" "$W/u/work" "$W/server"
install -m 755 "$cli" "$report" "$W/bin/"
install -m 755 "$workload" "$hotlib" "$W/u/work/"
build_id=$(readelf -n "$W/u/work/hot-functions" | awk '/Build ID/ { print $3 }')
[ -n "$build_id" ] || fail "hot-functions has no build-id"
objcopy --only-keep-debug "$W/u/work/hot-functions" "$W/server/hot-functions.debug"
objcopy --strip-all "$W/u/work/hot-functions"
nm "$W/u/work/hot-functions" 2>&1 | grep -q hot_compute_a && fail "the workload is not stripped"
chown -R "$U" "$W/u"

# Field $2 (1-based) of the tsv row whose first column is $1.
field () { awk -F'\t' -v f="$1" -v c="$2" '$1 == f { print $c; exit }'; }
pids=()
cleanup () { for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done; wait 2> /dev/null || true; }
trap cleanup EXIT

# The server, scanning $W/server once (no rescans), on a free port.
start_debuginfod "$W/server"
pids+=("$server")
http_get "$port" "/buildid/$build_id/debuginfo" > /dev/null || fail "debuginfod does not serve $build_id"

# A process of the user's own to record beside the workload: with --pid the
# recording holds the workload and it only, so the note on missing debug
# files names the workload's files rather than the rest of the system's.
runuser -u "$U" -- sleep 600 &
sleeper=$!
pids+=("$sleeper")
for _ in $(seq 50); do
  sleeper_pid=$(pgrep -u "$U" -x sleep -P "$sleeper" || pgrep -u "$U" -x sleep | head -1 || true)
  [ -n "$sleeper_pid" ] && break
  sleep 0.1
done
[ -n "$sleeper_pid" ] || fail "the user's sleep did not start"
# Killed first, so that runuser ends quietly with it.
pids=("$sleeper_pid" "${pids[@]}")

# Records the workload as the user with the given DEBUGINFOD_* settings, then
# reports; $1 names the run.  Sets $elapsed (whole seconds).
record () {
  local name=$1 start
  shift
  start=$(date +%s)
  runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" \
    DEBUGINFOD_CACHE_PATH="$W/u/cache-$name" "$@" \
    "$W/bin/sysprof-cli" --force -p "$sleeper_pid" "$W/u/$name.syscap" -- "$W/u/work/hot-functions" 2 > "$W/$name.out" 2>&1 \
    || fail "sysprof-cli ($name) failed: $(cat "$W/$name.out")"
  elapsed=$(($(date +%s) - start))
  runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" \
    "$W/bin/sysprof-report" top --comm hot-functions --format tsv "$W/u/$name.syscap" > "$W/$name.tsv" \
    || fail "sysprof-report ($name) failed"
}

# 1. The server has the debug file: the static functions of the stripped
# binary are named, the file is in libdebuginfod's cache, no progress text
# when stderr is not a terminal, and only the files the server lacks are named
# as missing.
record served DEBUGINFOD_URLS="http://127.0.0.1:$port"
for fn in hot_compute_a hot_compute_c; do
  [ "$(field "$fn" 2 < "$W/served.tsv")" = hot-functions ] \
    || fail "$fn (only in the served debug file) not named: $(head -5 "$W/served.tsv" | tr '\n' '|'); sysprof-cli: $(tr '\n' '|' < "$W/served.out")"
done
[ -s "$W/u/cache-served/$build_id/debuginfo" ] || fail "the debug file is not in DEBUGINFOD_CACHE_PATH"
grep -q 'Fetching' "$W/served.out" && fail "progress text while stderr is not a terminal: $(cat "$W/served.out")"
grep -E 'without debug info' "$W/served.out" | grep -qw 'hot-functions' \
  && fail "hot-functions said to be missing: $(cat "$W/served.out")"
ok "stripped hot-functions symbolized from debuginfod: $(awk -F'\t' '$1 ~ /^hot_compute/ { printf "%s %s%% ", $1, $5 }' "$W/served.tsv")"

# 2. The server stopped: no wait, a note naming the binary and the reason,
# the unstripped library still named.
kill "$server"
wait "$server" 2> /dev/null || true
record down DEBUGINFOD_URLS="http://127.0.0.1:$port"
grep -qE 'warning: [0-9]+ files? without debug info: .*hot-functions.*\(debuginfod: server unreachable\)' "$W/down.out" \
  || fail "no note on the missing debug file with the server down: $(cat "$W/down.out")"
[ "$(field hot_compute_b 2 < "$W/down.tsv")" = libhotlib.so ] || fail "hot_compute_b not named with the server down"
[ -z "$(field hot_compute_a 2 < "$W/down.tsv")" ] || fail "hot_compute_a named without its debug file"
[ "$elapsed" -le 20 ] || fail "a recording of 2 s took ${elapsed} s with the server down"
ok "server down: $(grep -o '[0-9]* files\? without debug info.*' "$W/down.out"), recorded in ${elapsed} s"

# 3. A server that accepts and never answers, on a terminal: cut off after
# DEBUGINFOD_TIMEOUT, the file being fetched shown meanwhile.
hang_port=$(free_port)
python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
held = []
while True:
    held.append(s.accept()[0])
' "$hang_port" &
pids+=($!)
for _ in $(seq 50); do
  python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$hang_port" 2> /dev/null && break
  sleep 0.1
done
start=$(date +%s)
# script(1) gives sysprof-cli a terminal; its output is the typescript.
runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" TERM=dumb \
  DEBUGINFOD_CACHE_PATH="$W/u/cache-hang" DEBUGINFOD_URLS="http://127.0.0.1:$hang_port" DEBUGINFOD_TIMEOUT=2 \
  script -qefc "$W/bin/sysprof-cli --force -p $sleeper_pid $W/u/hang.syscap -- $W/u/work/hot-functions 2" /dev/null > "$W/hang.out" 2>&1 \
  || fail "sysprof-cli (hanging server) failed: $(cat "$W/hang.out")"
elapsed=$(($(date +%s) - start))
grep -q 'Fetching the debug info of hot-functions from debuginfod' "$W/hang.out" \
  || fail "no progress line on a terminal: $(tr '\r' '\n' < "$W/hang.out" | tail -5)"
grep -qE 'without debug info: .*hot-functions.*\(debuginfod: timeout\)' "$W/hang.out" \
  || fail "no timeout note: $(tr '\r' '\n' < "$W/hang.out" | tail -5)"
# 2 s of recording, 2 s of timeout, the rest given up at once; generous
# for a loaded machine, far below libdebuginfod's own 90 s and retries.
[ "$elapsed" -le 25 ] || fail "the hanging server held the recording for ${elapsed} s"
runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" \
  "$W/bin/sysprof-report" top --comm hot-functions --format tsv "$W/u/hang.syscap" > "$W/hang.tsv"
[ "$(field hot_compute_b 2 < "$W/hang.tsv")" = libhotlib.so ] || fail "hot_compute_b not named with a hanging server"
ok "hanging server cut off: recorded and decoded in ${elapsed} s, $(grep -ao '[0-9]* files\? without debug info[^;]*timeout)' "$W/hang.out" | head -1)"

echo "1..$n"
