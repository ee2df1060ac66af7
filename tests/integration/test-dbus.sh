#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# D-Bus messages (issue 18): sysprof-cli --session-bus records every message
# of the user's session bus (a dbus-daemon of its own started here), and
# sysprof-report dbus pairs the calls with their replies: N calls of a method
# the server answers after a known delay, all there, with that latency
# within 10 %.  A flood of 200000 signals and messages above the frame
# maximum: the recording stays within its budget, counts what it lost or cut
# and says so, the capture stays valid.  --system-bus through sysprofd: a
# call on the system bus is recorded for an allowed user; refused to a
# polkit-denied user, also for a session of its own processes (which polkit
# grants it).  Run under
# tools/with-sysprofd.sh:
#   test-dbus.sh SYSPROF_CLI SYSPROF_DUMP SYSPROF_REPORT DBUS_WORKLOAD
set -euo pipefail
cli=$(realpath "$1") dump=$(realpath "$2") report=$(realpath "$3") workload=$(realpath "$4")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
D=sysprof-test-denied
N=20
DELAY_MS=100
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u" "$W/d"
install -m 755 "$cli" "$dump" "$report" "$workload" "$W/bin/"
chown "$U" "$W/u"
chown "$D" "$W/d"
# The user's session bus: a dbus-daemon of its own on a socket in its home.
bus="unix:path=$W/u/bus"
runuser -u "$U" -- dbus-daemon --session --address="$bus" --fork --print-pid > "$W/bus.pid" ||
  fail "the session bus did not start"
trap 'kill "$(cat "$W/bus.pid")" 2>/dev/null || true' EXIT
as () { # USER HOME CMD...: in HOME, on the user's session bus and sysprofd's system bus
  local user=$1 home=$2
  shift 2
  (cd "$home" && runuser -u "$user" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$home" DBUS_SYSTEM_BUS_ADDRESS="$A" \
    DBUS_SESSION_BUS_ADDRESS="$bus" timeout 240 "$@")
}
out () { tr '\n' '|' < "$W/out"; }

echo "1..5"

# 1. Calls with a known delay, their replies and an error, from the session bus.
runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" DBUS_SESSION_BUS_ADDRESS="$bus" \
  dbus-workload server org.example.SysprofTest $DELAY_MS > "$W/server.out" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q ready "$W/server.out" && break; sleep 0.05; done
grep -q ready "$W/server.out" || fail "the test service did not start: $(tr '\n' '|' < "$W/server.out")"
rc=0
as "$U" "$W/u" sysprof-cli --no-decode --no-perf --session-bus -f calls.syscap -- \
  dbus-workload client org.example.SysprofTest $N > "$W/out" 2>&1 || rc=$?
kill $server
wait $server || true
[ $rc -eq 0 ] || fail "sysprof-cli --session-bus failed ($rc): $(out)"
grep -q "^done $N\$" "$W/out" || fail "the client's calls failed: $(out)"
if grep -q 'warning' "$W/out"; then fail "warnings: $(out)"; fi
"$dump" --stats "$W/u/calls.syscap" > "$W/stats" || fail "calls.syscap is not valid"
"$report" dbus --format tsv "$W/u/calls.syscap" > "$W/list" || fail "sysprof-report dbus failed"
# time_ns bus type sender destination path interface member serial reply_serial size error_name
awk -F'\t' '$3 == "call" && $8 == "Sleep" && $2 == "session" && $6 == "/org/example/Test" { print $4, $9 }' "$W/list" \
  > "$W/calls"
[ "$(wc -l < "$W/calls")" -eq $N ] || fail "$(wc -l < "$W/calls") Sleep calls recorded, not $N"
# Every call's reply: destination its sender, reply serial its serial.
awk -F'\t' '$3 == "return" { print $5, $10 }' "$W/list" | sort > "$W/returns"
missing=$(sort "$W/calls" | comm -23 - "$W/returns" | wc -l)
[ "$missing" -eq 0 ] || fail "$missing Sleep calls without their reply in the capture"
grep -qP '\terror\t.*\torg\.example\.SysprofTest\.Error\.Failed$' "$W/list" || fail "the error reply is missing"
"$report" dbus --summary --format tsv "$W/u/calls.syscap" > "$W/summary" || fail "sysprof-report dbus --summary failed"
# type name count replies errors no_reply min_ns median_ns max_ns
row=$(grep -P '^call\torg\.example\.SysprofTest\.Sleep\t' "$W/summary") || fail "no Sleep row: $(tr '\n' '|' < "$W/summary")"
read -r _ _ count replies errors no_reply min median max <<< "$row"
[ "$count" -eq $N ] && [ "$replies" -eq $N ] && [ "$errors" -eq 0 ] && [ "$no_reply" -eq 0 ] ||
  fail "Sleep: $row"
awk -v m="$median" -v lo="$min" -v d=$DELAY_MS 'BEGIN { exit !(m >= d * 0.9e6 && m <= d * 1.1e6 && lo >= d * 0.9e6) }' ||
  fail "Sleep's latency is not ${DELAY_MS} ms within 10 %: $row"
grep -qP '^call\torg\.example\.SysprofTest\.Fail\t1\t1\t1\t0\t' "$W/summary" || fail "Fail: $(tr '\n' '|' < "$W/summary")"
"$report" dbus --summary "$W/u/calls.syscap" | grep -q 'org.example.SysprofTest.Sleep' || fail "text summary"
ok "--session-bus: the $N calls with their replies (median latency $((${median%.*} / 1000)) µs for $DELAY_MS ms) and the error"

# 2. A flood: 200000 signals of 200 bytes (about 60 MB) and 5 of 100 kB.
rc=0
as "$U" "$W/u" sysprof-cli --no-decode --no-perf --session-bus -f flood.syscap -- \
  dbus-workload flood 200000 200 5 > "$W/out" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "sysprof-cli through a flood failed ($rc): $(out)"
grep -q '^flooded$' "$W/out" || fail "the flood did not complete: $(out)"
grep -qE 'warning: the session bus: [0-9]+ of its messages recorded, [1-9][0-9]* lost .* 5 recorded without their body' \
  "$W/out" || fail "no warning of the losses: $(out)"
"$dump" --stats "$W/u/flood.syscap" > "$W/stats" || fail "flood.syscap is not valid"
size=$(stat -c %s "$W/u/flood.syscap")
[ "$size" -lt $((48 << 20)) ] || fail "the capture grew to $size bytes: the budget is 32 MiB"
"$report" dbus --limit 1 "$W/u/flood.syscap" > "$W/head" || fail "sysprof-report dbus on the flood failed"
grep -qE 'session bus: [0-9]+ recorded, 5 without body \(too large\), [1-9][0-9]* lost' "$W/head" ||
  fail "the report does not count the losses: $(head -1 "$W/head")"
[ "$("$report" dbus --format tsv "$W/u/flood.syscap" | grep -c $'\ttoo-large\t')" -eq 5 ] ||
  fail "not the 5 messages above the maximum, without body"
ok "a flood: $size bytes of capture, losses counted in it and in a warning, the 5 large messages without body"

# 3. The system bus through sysprofd, for an allowed user: its own call to the bus is there.
rc=0
as "$U" "$W/u" sysprof-cli --no-decode --no-perf --system-bus -f system.syscap -- \
  gdbus call --system -d org.freedesktop.DBus -o /org/freedesktop/DBus -m org.freedesktop.DBus.GetId \
  > "$W/out" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "sysprof-cli --system-bus failed ($rc): $(out)"
"$report" dbus --format tsv --bus system "$W/u/system.syscap" > "$W/list" || fail "sysprof-report dbus failed"
serial=$(awk -F'\t' '$3 == "call" && $8 == "GetId" && $5 == "org.freedesktop.DBus" { print $4, $9 }' "$W/list")
[ -n "$serial" ] || fail "the GetId call is not in the capture: $(head -5 "$W/list" | tr '\n' '|')"
awk -F'\t' '$3 == "return" { print $5, $10 }' "$W/list" | grep -qx "$serial" || fail "GetId's reply is missing"
if "$report" dbus --format tsv --bus session "$W/u/system.syscap" | grep -q $'\tsession\t'; then
  fail "session-bus messages without --session-bus"
fi
ok "--system-bus: an allowed user's GetId call and its reply, recorded by sysprofd"

# 4. Refused: a polkit-denied user cannot record the system bus at all...
rc=0
as "$D" "$W/d" sysprof-cli --no-decode --no-perf --system-bus -f denied.syscap -- true > "$W/out" 2>&1 || rc=$?
[ $rc -eq 1 ] || fail "a denied user's --system-bus: exit $rc: $(out)"
grep -qi 'not authorized\|denied' "$W/out" || fail "no refusal said: $(out)"
[ ! -e "$W/d/denied.syscap" ] || fail "a refused recording left a capture"
ok "a polkit-denied user: refused ($(head -1 "$W/out"))"

# 5. ...nor through a session of its own processes, which polkit grants it
# (org.gnome.sysprof3.profile-own-processes): the session refuses the option.
rc=0
as "$D" "$W/d" bash -c 'sysprof-cli --no-decode --no-perf --system-bus --pid $$ -f own.syscap; exit $?' \
  > "$W/out" 2>&1 || rc=$?
[ $rc -eq 1 ] || fail "--system-bus of its own process: exit $rc: $(out)"
grep -q "the system bus carries every user's messages" "$W/out" || fail "not the refusal: $(out)"
grep -q 'profile-own-processes' "$W/out" || fail "the refusal does not name the grant: $(out)"
[ ! -e "$W/d/own.syscap" ] || fail "a refused recording left a capture"
ok "a session of one's own processes: system-bus refused (AccessDenied)"
