#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The app's D-Bus view on a real recording: sysprof-cli --session-bus (as
# root, in-process, or through sysprofd when it runs) of dbus-workload's 5
# calls on a private session bus; the view lists every message of the
# capture, the 5 Sleep calls among them, and shows a call's body; the
# timeline has a D-Bus row of one tick per message, whose tooltip counts the
# calls as sysprof-report does.  Run under
# tools/with-xvfb.sh:
#   test-app-dbus.sh TEST_APP SYSPROF_CLI SYSPROF_REPORT DBUS_WORKLOAD SHOTDIR
set -euo pipefail
app=$(realpath "$1") cli=$(realpath "$2") report=$(realpath "$3") workload=$(realpath "$4") shots=$5
W=$(mktemp -d)
bus="unix:path=$W/bus"
fail () { echo "not ok - $*" >&2; exit 1; }
dbus-daemon --session --address="$bus" --fork --print-pid > "$W/bus.pid" || fail "the session bus did not start"
trap 'kill "$(cat "$W/bus.pid")" 2>/dev/null || true; kill "${server:-0}" 2>/dev/null || true; rm -rf "$W"' EXIT
export DBUS_SESSION_BUS_ADDRESS=$bus
echo "1..2"
[ "$(id -u)" -eq 0 ] || { echo "ok 1 # SKIP records in-process: needs root"; echo "ok 2 # SKIP needs root"; exit 0; }
"$workload" server org.example.SysprofTest 10 > "$W/server.out" &
server=$!
for _ in $(seq 100); do grep -q ready "$W/server.out" && break; sleep 0.05; done
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$W/none "$cli" --no-decode --no-perf --no-cpu --no-memory --no-disk --no-network \
  --session-bus -f "$W/dbus.syscap" -- "$workload" client org.example.SysprofTest 5 > "$W/out" 2>&1 ||
  fail "sysprof-cli --session-bus: $(tr '\n' '|' < "$W/out")"
"$report" dbus --format tsv "$W/dbus.syscap" | tail -n +2 > "$W/report.tsv"
total=$(wc -l < "$W/report.tsv")
calls=$(awk -F'\t' '$3 == "call"' "$W/report.tsv" | wc -l)
[ "$total" -gt 0 ] || fail "sysprof-report lists no message"
"$app" dbus "$W/dbus.syscap" "$shots" Sleep > "$W/app" || fail "test-app dbus failed"
grep -qx "count $total messages" "$W/app" || fail "the view's count is not the capture's $total: $(tr '\n' '|' < "$W/app")"
grep -qx "member Sleep 5" "$W/app" || fail "not the 5 Sleep calls: $(tr '\n' '|' < "$W/app")"
grep -qx "body (uint32 0,)" "$W/app" || fail "the first call's body is not shown: $(tr '\n' '|' < "$W/app")"
[ -s "$shots/dbus.png" ] || fail "no screenshot"
echo "ok 1 - the D-Bus view lists the capture's $total messages, the 5 Sleep calls, and a call's body"
grep -qx "timeline_ticks $total" "$W/app" || fail "the timeline's D-Bus row has not the capture's $total ticks: $(tr '\n' '|' < "$W/app")"
grep -qx "timeline_width_matches 1" "$W/app" || fail "the D-Bus row is not as wide as the ruler"
grep -Eqx "timeline_tooltip D-Bus \| $calls calls, .* on the session bus \| .*: [1-9][0-9]* messages in .*" "$W/app" ||
  fail "the tooltip over the first message: $(grep timeline_tooltip "$W/app")"
echo "ok 2 - the timeline's D-Bus row has one tick per message ($total), its tooltip the $calls calls"
