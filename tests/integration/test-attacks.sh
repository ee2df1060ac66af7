#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The attacks of the sysprofd security review, as an authorized user and as a
# hostile profiled program would make them: each is refused or survived, and
# the daemon still serves another user afterwards.  Run under
# tools/with-sysprofd.sh:
#   test-attacks.sh ATTACK_CLIENT RING_CLIENT SYSPROF_DUMP
set -euo pipefail
attack=$(realpath "$1") ring=$(realpath "$2") dump=$(realpath "$3")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/att"
install -m 755 "$attack" "$ring" "$dump" "$W/bin/"
chown sysprof-test-allowed "$W/att"
as () { local user=$1; shift; runuser -u "$user" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
daemon_pid () {
  busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
    GetConnectionUnixProcessID s org.gnome.Sysprof3 | awk '{print $2}'
}
pid=$(daemon_pid)
# After every attack: the same daemon, serving another authorized user.
still_serves () {
  local out
  [ "$(daemon_pid)" = "$pid" ] || fail "after $1: sysprofd is not the same process any more (it died)"
  out=$(timeout 20 runuser -u sysprof-test-other -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" \
    "$W/bin/attack-client" latency 1) || fail "after $1: another user's ListProcesses failed: $out"
}
field () { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }'; }
# Whatever this script started dies with it, even when a check fails.
cleanup () { local rc=$?; jobs -p | xargs -r kill 2>/dev/null || true; pkill -u sysprof-test-allowed 2>/dev/null || true; exit $rc; }
trap cleanup EXIT

# --- 1. Root's memory and secrets through GetProcFile / GetProcFd.
secret="sysprof-secret-$RANDOM$RANDOM"
env SYSPROF_TEST_SECRET="$secret" sleep 600 > /dev/null 2>&1 &
root_pid=$!
sleep 0.2
tid=$(ls "/proc/$pid/task" | grep -vx "$pid" | head -n 1)
denied=(mem environ pagemap stack syscall fd/0 fdinfo/0 root/etc/shadow cwd exe auxv status smaps io map_files
        task/$root_pid/environ)
for f in "${denied[@]}"; do
  out=$(as sysprof-test-allowed "$W/bin/attack-client" proc-file "/proc/$root_pid/$f")
  echo "$out" | grep -q '^error org.freedesktop.DBus.Error.AccessDenied' || fail "/proc/ROOT/$f: $out"
  echo "$out" | grep -q "$secret" && fail "the secret leaked through $f"
done
for p in /proc/self/maps /proc/self/environ /proc/thread-self/environ "/proc/$pid/maps" "/proc/$pid/environ" \
         "/proc/$pid/status" "/proc/$tid/maps" "/proc/$pid/task/$tid/stat" /proc/kmsg /proc/kcore /proc/1/environ \
         /proc/sysrq-trigger /proc/sys/kernel/random/uuid /sys/kernel/debug/tracing/trace_pipe \
         /sys/kernel/tracing/trace_pipe /proc/self/../1/environ "/proc/$root_pid/./environ"; do
  out=$(timeout 10 runuser -u sysprof-test-allowed -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" \
    "$W/bin/attack-client" proc-file "$p") || fail "$p did not answer within 10 s: $out"
  echo "$out" | grep -q '^error org.freedesktop.DBus.Error.AccessDenied' || fail "$p: $out"
done
# GetProcFd is the same gate.
out=$(as sysprof-test-allowed gdbus call --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 \
  -m org.gnome.Sysprof3.Service.GetProcFd "b'/proc/$root_pid/mem'" 2>&1) && fail "GetProcFd of mem: $out"
echo "$out" | grep -q 'AccessDenied' || fail "GetProcFd of mem: $out"
# What a profiler needs still works, for anyone's process and for one's own.
for f in maps mountinfo cmdline comm stat statm cgroup; do
  out=$(as sysprof-test-allowed "$W/bin/attack-client" proc-file "/proc/$root_pid/$f")
  echo "$out" | grep -qE '^ok [0-9]+' || fail "/proc/ROOT/$f refused: $out"
done
as sysprof-test-allowed sleep 60 > /dev/null 2>&1 &
own_pid=
for _ in $(seq 50); do own_pid=$(pgrep -n -u sysprof-test-allowed -x sleep) && break; sleep 0.1; done
[ -n "$own_pid" ] || fail "the user's own process did not start"
for f in status auxv smaps_rollup maps; do
  out=$(as sysprof-test-allowed "$W/bin/attack-client" proc-file "/proc/$own_pid/$f")
  echo "$out" | grep -qE '^ok [1-9]' || fail "own /proc/PID/$f refused: $out"
done
for p in /proc/kallsyms /proc/mounts /proc/cpuinfo /proc/stat /proc/meminfo /proc/net/dev /proc/diskstats \
         /sys/devices/system/cpu/online; do
  out=$(as sysprof-test-allowed "$W/bin/attack-client" proc-file "$p")
  echo "$out" | grep -qE '^ok [1-9]' || fail "$p refused: $out"
done
kill "$root_pid" 2>/dev/null || true
pkill -u sysprof-test-allowed -x sleep || true
still_serves "the /proc attacks"
ok "root's mem, environ, pagemap, stack, syscall, fd/ and the daemon's own files refused (${#denied[@]} + 17 paths, the secret never seen); /proc/kmsg refused at once; maps/mountinfo/cmdline/comm/stat/statm/cgroup of any process and status/auxv/smaps_rollup of one's own still served"

# --- 2. Close (or the owner leaving) racing pipelined calls on the session.
out=$(as sysprof-test-allowed "$W/bin/attack-client" close-race 30) || fail "close-race: $out"
[ "$(echo "$out" | field rounds)" = 30 ] || fail "close-race: $out"
[ "$(echo "$out" | field read-other)" = 0 ] || fail "close-race: reads failed otherwise than 'closed': $out"
[ "$(echo "$out" | field close-ok)" = 30 ] || fail "close-race: Close failed: $out"
out2=$(as sysprof-test-allowed "$W/bin/attack-client" leave-race 30) || fail "leave-race: $out2"
still_serves "Close and the owner leaving with pipelined calls"
ok "Close pipelined with six ReadCapture, 30 rounds (read $(echo "$out" | field read-ok), answered 'closed' $(echo "$out" | field read-closed)), and 30 owners leaving with calls pending: the daemon survives"

# --- 3. A profiled program's ring full of digits behind a lost-events header.
out=$(as sysprof-test-allowed "$W/bin/ring-client" digits "$W/att/digits.syscap") || fail "ring-client digits: $out"
echo "$out" | grep -qx 'state stopped' || fail "digits: $out"
"$dump" "$W/att/digits.syscap" > "$W/digits.txt" || fail "the capture after the digits ring is not valid"
[ "$(grep -c '^  message: after-digits [0-9]*$' "$W/digits.txt")" -eq 10 ] || fail "the sound ring's marks are missing"
still_serves "a ring of digits"
ok "a ring of ASCII digits behind a lost-events METADATA header: the daemon survives, the next ring's 10 marks are kept"

# --- 4. Wedging the workers: 400 heavy calls at once from one user.
as sysprof-test-allowed "$W/bin/attack-client" flood 400 > "$W/flood.out" 2>&1 &
flooder=$!
sleep 0.5
lat=$(runuser -u sysprof-test-other -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" \
  timeout 60 "$W/bin/attack-client" latency 5) || fail "another user was not served during the flood: $lat"
wait $flooder || fail "flood: $(cat "$W/flood.out")"
limited=$(field limited < "$W/flood.out")
served=$(field ok < "$W/flood.out")
[ "${limited:-0}" -gt 0 ] || fail "400 calls at once were all admitted: $(cat "$W/flood.out")"
grep -q '^first-limited .*LimitsExceeded: uid [0-9]* already has 64 calls waiting or running, the limit per user' "$W/flood.out" \
  || fail "flood refusal: $(cat "$W/flood.out")"
max_ms=$(echo "$lat" | field max-ms)
# The wedge kept others waiting for minutes; here another user waits at most
# for one worker to finish a call.
[ "$max_ms" -lt 10000 ] || fail "another user waited $max_ms ms during the flood"
still_serves "the flood"
ok "400 GetProcessInfo at once: $served served, $limited refused with LimitsExceeded at once; another user's ListProcesses took at most $max_ms ms meanwhile"

# --- 5. File descriptors: 4 sessions x 256 rings.
fd_limit=$(awk '/Max open files/ {print $4}' "/proc/$pid/limits")
mkfifo "$W/hold"
chmod 666 "$W/hold"
as sysprof-test-allowed sh -c "exec '$W/bin/attack-client' ring-exhaust 4 < '$W/hold'" > "$W/exhaust.out" 2>&1 &
exhauster=$!
exec 9> "$W/hold"
for _ in $(seq 200); do grep -q '^refused' "$W/exhaust.out" && break; sleep 0.1; done
rings=$(field rings < "$W/exhaust.out")
grep -q '^refused .*the limit per user is 512' "$W/exhaust.out" || fail "ring exhaustion: $(cat "$W/exhaust.out")"
fds=$(ls "/proc/$pid/fd" | wc -l)
[ "$fds" -lt "$fd_limit" ] || fail "the daemon holds $fds fds, its limit is $fd_limit"
out=$(runuser -u sysprof-test-other -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" \
  timeout 60 "$W/bin/attack-client" session-latency) || fail "another user cannot record while rings are exhausted: $out"
echo "$out" | grep -qx 'state stopped' || fail "another user's session: $out"
exec 9>&-
wait $exhauster || true
for _ in $(seq 100); do [ "$(ls "/proc/$pid/fd" | wc -l)" -lt $((fds - 400)) ] && break; sleep 0.1; done
fds_after=$(ls "/proc/$pid/fd" | wc -l)
[ "$fds_after" -lt $((fds - 400)) ] || fail "the rings' fds were not given back: $fds -> $fds_after"
still_serves "ring exhaustion"
ok "4 sessions x 256 rings: refused at $rings rings (per-user budget), the daemon held $fds of $fd_limit fds; another user recorded meanwhile; fds back to $fds_after when the attacker left"

# --- 6. Hostile rings kept full by 64 writers, with a 32 MiB max-bytes.
as sysprof-test-allowed "$W/bin/attack-client" hostile-writers 8 33554432 64 > "$W/writers.out" 2>&1 &
writers=$!
sleep 2
worst=0
for _ in 1 2 3; do
  out=$(runuser -u sysprof-test-other -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" \
    timeout 60 "$W/bin/attack-client" session-latency) || fail "another user's session during hostile rings: $out"
  ms=$(echo "$out" | field ms)
  [ "$ms" -gt "$worst" ] && worst=$ms
done
wait $writers || fail "hostile-writers: $(cat "$W/writers.out")"
bytes=$(field bytes < "$W/writers.out")
# max-bytes is enforced as frames are written: the capture ends at the cap,
# plus what finalizing it adds (kernel symbols, a few MiB).
[ "$bytes" -le $((32 * 1024 * 1024 + 16 * 1024 * 1024)) ] || fail "a 32 MiB session wrote $bytes bytes"
grep -qx 'state failed' "$W/writers.out" || fail "the capped session did not stop at max-bytes: $(cat "$W/writers.out")"
[ "$worst" -lt 5000 ] || fail "another user's CreateSession..Close took $worst ms during hostile rings"
still_serves "hostile rings"
ok "64 rings kept full of jumbled and garbage frames: the session stopped at max-bytes ($bytes bytes written); another user's CreateSession, Start, Stop, Close took at most $worst ms meanwhile"

# A cap too small for even the /proc snapshot: the client is told why its
# capture is partial, and the daemon does not call that its own warning.
out=$(as sysprof-test-allowed "$W/bin/attack-client" capped-session 16384)
echo "$out" | grep -q '^finished false stopped at the max-bytes limit; the /proc snapshot is incomplete' ||
  fail "a session capped below its /proc snapshot did not say so at Finished: $out"
ok "a session capped at 16 KiB ended with: ${out#finished }"

# --- 10. Sessions of one's own processes: the weaker polkit action.
mkdir -p "$W/own"
chown sysprof-test-denied "$W/own"
busy_as () { as "$1" sh -c 'i=0; while [ $i -lt 100000000 ]; do i=$((i+1)); done' > /dev/null 2>&1 & }
find_busy () { local p=; for _ in $(seq 50); do p=$(pgrep -n -u "$1" -x sh) && break; sleep 0.1; done; echo "$p"; }
busy_as sysprof-test-denied
denied_busy=$(find_busy sysprof-test-denied)
[ -n "$denied_busy" ] || fail "the denied user's workload did not start"
# The user polkit denies the machine records its own program...
out=$(as sysprof-test-denied "$W/bin/attack-client" pids-session "$W/own/own.syscap" 2 "$denied_busy")
echo "$out" | grep -qx 'state stopped' || fail "own-processes session of the denied user: $out"
"$dump" --stats "$W/own/own.syscap" > "$W/own.stats" || fail "own-processes capture is not valid"
grep -qE '^SAMPLE [1-9]' "$W/own.stats" || fail "own-processes capture has no samples: $(tr '\n' ' ' < "$W/own.stats")"
if grep -qx "FILE /proc/kallsyms" "$W/own.stats"; then fail "own-processes capture embeds the kernel symbols"; fi
"$dump" "$W/own/own.syscap" > "$W/own.txt"
if grep -q '(- - kernel - -)' "$W/own.txt"; then fail "own-processes capture has kernel stacks"; fi
others=$(awk -v me="pid=$denied_busy" '/^PROCESS / && $3 != me {print $3}' "$W/own.txt" | sort -u | tr '\n' ' ')
[ -z "$others" ] || fail "own-processes capture describes other processes: $others"
# ...but not another user's, nor can it read /proc through the daemon.
out=$(as sysprof-test-denied "$W/bin/attack-client" pids-session "$W/own/other.syscap" 1 "$denied_busy" 1)
echo "$out" | grep -q '^error org.freedesktop.DBus.Error.AccessDenied: .*polkit denied org.gnome.sysprof3.profile ' \
  || fail "a session including pid 1 for the denied user: $out"
out=$(as sysprof-test-denied "$W/bin/attack-client" proc-file "/proc/$denied_busy/maps")
echo "$out" | grep -q '^error org.freedesktop.DBus.Error.AccessDenied' || fail "GetProcFile for the denied user: $out"
kill "$denied_busy" 2>/dev/null || true
# A user trusted with the machine keeps kernel symbols for its own processes.
mkdir -p "$W/own2"
chown sysprof-test-allowed "$W/own2"
busy_as sysprof-test-allowed
allowed_busy=$(find_busy sysprof-test-allowed)
out=$(as sysprof-test-allowed "$W/bin/attack-client" pids-session "$W/own2/full.syscap" 1 "$allowed_busy")
echo "$out" | grep -qx 'state stopped' || fail "a pids session of the allowed user: $out"
"$dump" --stats "$W/own2/full.syscap" | grep -qx 'FILE /proc/kallsyms' || fail "the trusted user lost kernel symbols"
kill "$allowed_busy" 2>/dev/null || true
still_serves "own-processes sessions"
ok "org.gnome.sysprof3.profile-own-processes: a user polkit denies the machine recorded its own program ($(grep -E '^SAMPLE ' "$W/own.stats")) with no kernel stacks, no kernel symbols, no other process; pid 1 and GetProcFile still refused; a trusted user keeps kernel symbols"

# --- 11. Host batches: too many, too big, wrong types, hostile pids and paths.
hb () { as sysprof-test-allowed "$W/bin/attack-client" "$@"; }
out=$(hb host-batch 257 $$ /)
echo "$out" | grep -qx 'error org.freedesktop.DBus.Error.LimitsExceeded: 257 paths in one call; at most 256 are allowed' \
  || fail "257 paths in one ResolvePaths: $out"
out=$(hb host-call ListDebugDirectoriesForPids "([$(seq -s , 1 300)],)")
echo "$out" | grep -qx 'error org.freedesktop.DBus.Error.LimitsExceeded: 300 pids in one call; at most 256 are allowed' \
  || fail "300 pids in one ListDebugDirectoriesForPids: $out"
out=$(hb host-batch 256 $$ "/$(head -c 300 /dev/zero | tr '\0' a)")
echo "$out" | grep -q '^error org.freedesktop.DBus.Error.LimitsExceeded: A call to sysprofd carries at most 65536 bytes' \
  || fail "256 paths of 300 bytes: $out"
start=$SECONDS
deep=$(for _ in $(seq 12); do printf '/./usr/lib/../..'; done)/bin/sh
out=$(hb host-batch 256 $$ "$deep")
echo "$out" | grep -qx 'ok 256' && echo "$out" | grep -qx 'answers  256' || fail "256 deep paths: $out"
out=$(hb host-batch 256 2147483647 /)
echo "$out" | grep -qx 'answers org.freedesktop.DBus.Error.UnixProcessIdUnknown 256' || fail "256 absent pids: $out"
out=$(hb host-call ResolvePaths "([(-2147483648, b'/'), (0, b''), ($$, [byte 0x2f, 0x00, 0x61]), ($$, b'/proc/self/root/x'), (1, b'$W/../../../../etc')],)")
echo "$out" | grep -qx 'ok 5' && echo "$out" | grep -qx 'answers org.freedesktop.DBus.Error.InvalidArgs 3' \
  || fail "hostile requests: $out"
out=$(hb host-call ListDebugDirectoriesForPids "([-1, 0, 2147483647, 1, $$],)")
echo "$out" | grep -qx 'ok 5' && echo "$out" | grep -qx 'answers org.freedesktop.DBus.Error.InvalidArgs 2' &&
  echo "$out" | grep -qx 'answers org.freedesktop.DBus.Error.UnixProcessIdUnknown 1' || fail "hostile pids: $out"
[ $((SECONDS - start)) -lt 30 ] || fail "the hostile batches took $((SECONDS - start)) s"
for args in "(['a'],)" "(@a(iay) [], 1)" "([(1, 'x')],)" "(1,)" "(@a(iayi) [(1, b'/', 2)],)"; do
  out=$(hb host-call ResolvePaths "$args")
  echo "$out" | grep -q '^error org.freedesktop.DBus.Error.InvalidArgs: ' || fail "ResolvePaths$args: $out"
done
for args in "([(1, b'/')],)" "(@ax [1],)" "(@ai [], @ai [])"; do
  out=$(hb host-call ListDebugDirectoriesForPids "$args")
  echo "$out" | grep -q '^error org.freedesktop.DBus.Error.InvalidArgs: ' || fail "ListDebugDirectoriesForPids$args: $out"
done
still_serves "hostile batches"
ok "Host batches: 257 paths and 300 pids refused with LimitsExceeded, 256 x 300-byte paths by the call size limit; 256 deep paths, 256 absent pids and hostile pids/paths answered item by item in $((SECONDS - start)) s; 8 calls of the wrong types refused with InvalidArgs"

# --- 12. polkit's grants kept per connection (the rule logs each check);
# refusals never kept, nor grants carried to another connection or user.
checks () { grep -c "org.gnome.sysprof3.profile: user=$1 " "$W/logs/polkitd.log" || true; }
settle () { sleep 0.3; } # polkitd's log is written as it answers
before=$(checks sysprof-test-allowed)
out=$(as sysprof-test-allowed "$W/bin/attack-client" tries 20)
echo "$out" | grep -qx 'ok 20' || fail "20 calls of the allowed user: $out"
settle
one=$(($(checks sysprof-test-allowed) - before))
[ "$one" -eq 1 ] || fail "20 calls on one connection cost $one polkit checks"
out=$(as sysprof-test-allowed "$W/bin/attack-client" tries 5)
echo "$out" | grep -qx 'ok 5' || fail "5 calls on a second connection: $out"
settle
[ $(($(checks sysprof-test-allowed) - before)) -eq 2 ] || fail "a second connection was not checked by polkit again"
before=$(checks sysprof-test-denied)
out=$(as sysprof-test-denied "$W/bin/attack-client" tries 5)
echo "$out" | grep -qx 'denied 5' || fail "the denied user right after a grant: $out"
settle
[ $(($(checks sysprof-test-denied) - before)) -eq 5 ] || fail "the denied user's 5 calls were not each asked of polkit"
# The same user's connections at once: each its own check, none served unchecked.
before=$(checks sysprof-test-other)
for _ in 1 2 3; do as sysprof-test-other "$W/bin/attack-client" tries 4 > "$W/other.$_" & done
wait
settle
for f in "$W"/other.*; do grep -qx 'ok 4' "$f" || fail "the other user: $(cat "$f")"; done
[ $(($(checks sysprof-test-other) - before)) -eq 3 ] || fail "3 connections of one user: $(($(checks sysprof-test-other) - before)) checks"
still_serves "cached grants"
ok "polkit grants: 20 calls on one connection cost 1 check, a second connection its own; the denied user's 5 calls right after were each refused by polkit; 3 connections of another user at once: 3 checks"

echo "1..$n"
