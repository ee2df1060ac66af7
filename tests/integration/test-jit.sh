#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# JIT code named from perf maps: the unprivileged user records
# tests/workloads/jit-workload (machine code in an anonymous mapping, named in
# /tmp/perf-PID.map) through sysprofd with sysprof-cli, once as the command
# (the map read after it exited) and once by --pid while it runs (read
# through its /proc/PID/root), and another user's processes in whole-system
# recordings, one running, one that exits before the end (their maps embedded
# by sysprofd); sysprof-report names the JIT functions with
# their shares, from the map embedded in the capture.  Run under
# tools/with-sysprofd.sh:
#   test-jit.sh SYSPROF_CLI SYSPROF_REPORT SYSPROF_DUMP JIT_WORKLOAD
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") dump=$(realpath "$3") workload=$(realpath "$4")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP the JIT workload writes x86-64 code"; exit 0; }

mkdir -p "$W/bin" "$W/u"
install -m 755 "$cli" "$report" "$dump" "$workload" "$W/bin/"
chown -R "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
field () { awk -F'\t' -v f="$1" -v c="$2" '$1 == f { print $c; exit }'; }
near () { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
maps=()
cleanup () { rm -f "${maps[@]}"; }
trap cleanup EXIT

# The perf map is embedded, and the JIT functions have their shares of the
# workload's samples.
check () {
  local name=$1 capture=$2
  "$W/bin/sysprof-dump" --stats "$capture" | grep -qx 'FILE /tmp/perf-[0-9]*\.map' \
    || fail "$name: no perf map embedded: $("$W/bin/sysprof-dump" --stats "$capture" | grep '^FILE' | grep -v mountinfo | tr '\n' ' ')"
  as "$W/bin/sysprof-report" top --comm jit-workload --format tsv "$capture" > "$W/$name.tsv" \
    || fail "$name: sysprof-report failed"
  for spec in jit_hot_loop_a:75 jit_hot_loop_b:25; do
    local fn=${spec%:*} want=${spec#*:} got
    got=$(field "$fn" 5 < "$W/$name.tsv")
    [ -n "$got" ] || fail "$name: $fn missing: $(head -5 "$W/$name.tsv" | tr '\n' '|')"
    [ "$(field "$fn" 2 < "$W/$name.tsv")" = JIT ] || fail "$name: $fn not in the JIT library"
    near "$got" "$want" 8 || fail "$name: $fn has $got % of the samples, expected $want ± 8"
  done
}

# 1. As the command: the workload has exited when the map is read.
cd "$W/u"
as "$W/bin/sysprof-cli" --force "$W/u/jit.syscap" -- "$W/bin/jit-workload" 3 > "$W/cli.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli.out")"
map=$("$W/bin/sysprof-dump" --stats "$W/u/jit.syscap" | grep -o '/tmp/perf-[0-9]*\.map' | head -1 || true)
maps+=(${map:+"$map"})
check command "$W/u/jit.syscap"
ok "the command's JIT functions: $(awk -F'\t' '$1 ~ /^jit_/ { printf "%s %s%% ", $1, $5 }' "$W/command.tsv")"

# Starts the workload as the user for $1 seconds: $runner (runuser) and
# $wpid (the workload, once its map is written).
start_workload () {
  local user=${2:-$U}
  runuser -u "$user" -- env -i PATH="$W/bin:/usr/bin:/bin" "$W/bin/jit-workload" "$1" &
  runner=$!
  wpid=
  for _ in $(seq 50); do
    wpid=$(pgrep -u "$user" -x jit-workload | head -1 || true)
    [ -n "$wpid" ] && [ -s "/tmp/perf-$wpid.map" ] && break
    sleep 0.1
  done
  [ -n "$wpid" ] && [ -s "/tmp/perf-$wpid.map" ] || fail "the workload did not start"
  maps+=("/tmp/perf-$wpid.map")
}

# 2. A running process recorded by --pid: its map is read through its root.
start_workload 6
as "$W/bin/sysprof-cli" --force --duration 2 -p "$wpid" "$W/u/jit-pid.syscap" > "$W/cli2.out" 2>&1 \
  || fail "sysprof-cli -p failed: $(cat "$W/cli2.out")"
kill -0 "$wpid" 2> /dev/null || fail "the workload ended before the recording did"
check pid "$W/u/jit-pid.syscap"
wait "$runner" || fail "the workload failed"
ok "a running process's JIT functions: $(awk -F'\t' '$1 ~ /^jit_/ { printf "%s %s%% ", $1, $5 }' "$W/pid.tsv")"

# 3. A perf map that is not the process's user's is not read: the same
# recording with the map handed to root.
start_workload 4
chown root "/tmp/perf-$wpid.map"
as "$W/bin/sysprof-cli" --force --duration 2 -p "$wpid" "$W/u/jit-root.syscap" > "$W/cli3.out" 2>&1 \
  || fail "sysprof-cli -p failed: $(cat "$W/cli3.out")"
wait "$runner" || fail "the workload failed"
"$W/bin/sysprof-dump" --stats "$W/u/jit-root.syscap" | grep -q 'FILE /tmp/perf-' \
  && fail "a perf map owned by root was embedded for the user's process"
as "$W/bin/sysprof-report" top --comm jit-workload --format tsv "$W/u/jit-root.syscap" | grep -q '^jit_hot_loop' \
  && fail "a perf map owned by root named the user's code"
ok "a perf map owned by another user than the process's is ignored"

# 4. Another user's running process, in a whole-system recording (polkit's
# profile action): only sysprofd may look into its /tmp, and embeds its map.
start_workload 5 sysprof-test-other
as "$W/bin/sysprof-cli" --force --duration 2 "$W/u/jit-other.syscap" > "$W/cli4.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli4.out")"
kill -0 "$wpid" 2> /dev/null || fail "the other user's workload ended before the recording did"
check other "$W/u/jit-other.syscap"
wait "$runner" || fail "the workload failed"
ok "another user's running process's JIT functions, from the map sysprofd embedded: $(awk -F'\t' '$1 ~ /^jit_/ { printf "%s %s%% ", $1, $5 }' "$W/other.tsv")"

# 5. Another user's process that exits before the recording ends, its map
# readable by that user only: sysprofd learnt its owner and its /tmp while it
# ran, and embeds the map it left in /tmp.
start_workload 1.5 sysprof-test-other
chmod 600 "/tmp/perf-$wpid.map"
as cat "/tmp/perf-$wpid.map" > /dev/null 2>&1 && fail "the recording user can read the other user's map: the test proves nothing"
as "$W/bin/sysprof-cli" --force --duration 3 "$W/u/jit-exited.syscap" > "$W/cli5.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli5.out")"
wait "$runner" || fail "the workload failed"
kill -0 "$wpid" 2> /dev/null && fail "the other user's workload still runs: it did not exit during the recording"
check exited "$W/u/jit-exited.syscap"
ok "another user's exited process's JIT functions, from the map it left in /tmp (mode 600), embedded by sysprofd: $(awk -F'\t' '$1 ~ /^jit_/ { printf "%s %s%% ", $1, $5 }' "$W/exited.tsv")"

echo "1..$n"
