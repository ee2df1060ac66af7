#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Recording sessions over org.gnome.Sysprof3.SessionManager / Session, with the
# real polkitd and users.  Run under tools/with-sysprofd.sh:
#   test-sessions.sh SESSION_CLIENT SYSPROF_DUMP
set -euo pipefail
client=$(realpath "$1") dump=$(realpath "$2")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u"
install -m 755 "$client" "$dump" "$W/bin/"
chown sysprof-test-allowed "$W/u"
as () { local user=$1; shift; runuser -u "$user" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
bctl () { local user=$1; shift; as "$user" busctl --system "$@"; }
# Something to sample while a session records.
busy () { local end=$((SECONDS + $1)); while [ $SECONDS -lt $end ]; do :; done; }
daemon_pid=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
  GetConnectionUnixProcessID s org.gnome.Sysprof3 | awk '{print $2}')

# busctl alone, every step its own connection: a detached session.
path=$(bctl sysprof-test-allowed call org.gnome.Sysprof3 /org/gnome/Sysprof3 org.gnome.Sysprof3.SessionManager \
  CreateSession 'a{sv}' 2 detached b true counters as 4 cpu memory disk network | awk '{print $2}' | tr -d '"')
[[ $path == /org/gnome/Sysprof3/Session/* ]] || fail "CreateSession returned '$path'"
bctl sysprof-test-allowed introspect org.gnome.Sysprof3 "$path" > /dev/null
# The state machine over the bus: what each state refuses, as the XML says.
refused () { # STATE_WORD METHOD MESSAGE
  local out
  out=$(bctl sysprof-test-allowed call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session "$2" 2>&1) \
    && fail "$2 while $1 was accepted"
  [[ $out == *"$3"* ]] || fail "$2 while $1: $out"
}
refused created Stop "The session was never started"
bctl sysprof-test-allowed call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session Start
refused recording Start "The session was already started"
busy 1
bctl sysprof-test-allowed get-property org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session State | grep -qx 's "recording"' \
  || fail "not recording"
bctl sysprof-test-allowed call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session Stop
bctl sysprof-test-allowed get-property org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session State | grep -qx 's "stopped"' \
  || fail "not stopped"
bctl sysprof-test-allowed call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session Stop \
  || fail "Stop of a stopped session is an error"
refused stopped Start "The session was already started"
out=$(bctl sysprof-test-allowed call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session CreateRingBuffer u 0 2>&1) \
  && fail "CreateRingBuffer while stopped was accepted"
[[ $out == *"no longer recording"* ]] || fail "CreateRingBuffer while stopped: $out"
: > "$W/u/busctl.syscap"
offset=0
while :; do
  bctl sysprof-test-allowed --json=short call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session ReadCapture tu "$offset" 65536 \
    > "$W/chunk.json"
  got=$(python3 -c 'import json,sys; d=bytes(json.load(open(sys.argv[1]))["data"][0]); open(sys.argv[2],"ab").write(d); print(len(d))' \
        "$W/chunk.json" "$W/u/busctl.syscap")
  [ "$got" -eq 0 ] && break
  offset=$((offset + got))
done
[ "$offset" -ge 256 ] || fail "ReadCapture returned $offset bytes"
"$dump" --stats "$W/u/busctl.syscap" > "$W/stats" || fail "capture read over busctl is not valid"
for t in SAMPLE PROCESS MAP FILE_CHUNK CTRDEF CTRSET; do
  grep -qE "^$t [1-9]" "$W/stats" || fail "no $t frames in the busctl capture: $(tr '\n' ' ' < "$W/stats")"
done
grep -qx 'FILE /proc/kallsyms' "$W/stats" || fail "kernel symbols not embedded"
grep -qx 'FILE /proc/mounts' "$W/stats" || fail "/proc snapshot missing"
bctl sysprof-test-allowed call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session Close
has_session () { busctl --system introspect org.gnome.Sysprof3 "$1" 2>/dev/null | grep -q '^org.gnome.Sysprof3.Session '; }
has_session "$path" && fail "closed session still there"
ok "busctl only: CreateSession (detached), Start, Stop (each refused in the wrong state), ReadCapture ($offset bytes: $(grep -E '^(SAMPLE|PROCESS|MAP) ' "$W/stats" | tr '\n' ' ')), Close"

# A session writing into the caller's own file.
busy 3 & busy_pid=$!   # something to sample at the client's 99 Hz
out=$(as sysprof-test-allowed "$W/bin/session-client" record "$W/u/own.syscap" 1) || fail "session-client: $out"
wait $busy_pid
echo "$out" | grep -qx 'state stopped' || fail "session-client: $out"
[ "$(stat -c %U "$W/u/own.syscap")" = sysprof-test-allowed ] || fail "capture not owned by the caller"
"$dump" --stats "$W/u/own.syscap" | grep -qE '^SAMPLE [1-9]' || fail "capture written through SetCaptureFd has no samples"
ok "SetCaptureFd: the capture lands in the caller's file and is valid"

# Another user's session: the polkit-denied user and root (authorized, other uid).
path=$(bctl sysprof-test-allowed call org.gnome.Sysprof3 /org/gnome/Sysprof3 org.gnome.Sysprof3.SessionManager \
  CreateSession 'a{sv}' 1 detached b true | awk '{print $2}' | tr -d '"')
mapfile -t methods < <(busctl --system introspect org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session \
  | awk '$2 == "method" {print substr($1, 2)}')
[ ${#methods[@]} -eq 9 ] || fail "expected 9 Session methods, got: ${methods[*]}"
for who in sysprof-test-denied root; do
  for m in "${methods[@]}"; do
    case $m in
      SetCaptureFd) args=() ;;
      ReadCapture) args=(0 10) ;;
      CreateRingBuffer) args=(1) ;;
      ReadPeriod) args=(1 0 10) ;;
      ForgetPeriods) args=(1) ;;
      *) args=() ;;
    esac
    if [ "$m" = SetCaptureFd ]; then
      # busctl cannot send fds; gdbus can.
      res=$(runuser -u "$who" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" gdbus call --system \
        -d org.gnome.Sysprof3 -o "$path" -m org.gnome.Sysprof3.Session.SetCaptureFd 0 2>&1 < /dev/null) \
        && fail "$who called SetCaptureFd on another user's session"
    else
      res=$(runuser -u "$who" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" gdbus call --system \
        -d org.gnome.Sysprof3 -o "$path" -m "org.gnome.Sysprof3.Session.$m" -- "${args[@]}" 2>&1) \
        && fail "$who called $m on another user's session"
    fi
    echo "$res" | grep -q 'org.freedesktop.DBus.Error.AccessDenied' || fail "$who $m: $res"
  done
  res=$(runuser -u "$who" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" busctl --system get-property \
    org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session State 2>&1) && fail "$who read State of another user's session"
done
res=$(as sysprof-test-denied gdbus call --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 \
  -m org.gnome.Sysprof3.SessionManager.CreateSession '{}' 2>&1) && fail "denied user created a session"
echo "$res" | grep -q 'AccessDenied: Not authorized to make request: polkit denied' || fail "CreateSession denied: $res"
bctl sysprof-test-allowed call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session Close
ok "another user's session: ${#methods[@]} methods and State refused (polkit-denied user and root); CreateSession refused"

# A client killed mid-session: its session goes away and its capture is valid.
as sysprof-test-allowed "$W/bin/session-client" record "$W/u/killed.syscap" 0 > "$W/killed.out" &
client_pid=$!
for _ in $(seq 50); do grep -q '^path ' "$W/killed.out" 2>/dev/null && break; sleep 0.1; done
path=$(sed -n 's/^path //p' "$W/killed.out")
[ -n "$path" ] || fail "session-client did not create a session"
sleep 1
has_session "$path" || fail "session $path missing while its client runs"
# runuser forks: kill the client process itself.
pkill -KILL -u sysprof-test-allowed -f "session-client record $W/u/killed.syscap" || fail "client not found"
wait $client_pid 2>/dev/null || true
gone=0
for _ in $(seq 20); do
  if ! has_session "$path"; then gone=1; break; fi
  sleep 0.1
done
[ $gone = 1 ] || fail "session $path of a killed client still exists after 2 s"
"$dump" "$W/u/killed.syscap" > /dev/null || fail "the killed client's capture is not valid"
ok "SIGKILLed client: session closed within 2 s, capture valid"

# Per-uid limit.
out=$(as sysprof-test-allowed "$W/bin/session-client" limit)
echo "$out" | grep -q '^refused after 4: .*LimitsExceeded' || fail "limit: $out"
for bad in "frequency u 20000" "max-bytes t 99999999999999" "max-duration u 999999"; do
  # shellcheck disable=SC2086
  res=$(bctl sysprof-test-allowed call org.gnome.Sysprof3 /org/gnome/Sysprof3 org.gnome.Sysprof3.SessionManager \
    CreateSession 'a{sv}' 1 $bad 2>&1) && fail "CreateSession accepted $bad"
done
res=$(as sysprof-test-allowed gdbus call --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 \
  -m org.gnome.Sysprof3.SessionManager.CreateSession "{'frequency': <uint32 20000>}" 2>&1) && fail "frequency 20000 accepted"
echo "$res" | grep -q 'LimitsExceeded: frequency 20000 is outside the limit of 1..10000 Hz' || fail "frequency limit: $res"
ok "a fifth session for one uid is refused with LimitsExceeded, and out-of-bound options with errors naming the limit"

# 200 sessions later the daemon holds no more fds and little more memory.
fds_before=$(ls /proc/$daemon_pid/fd | wc -l)
rss_before=$(awk '/^VmRSS/ {print $2}' /proc/$daemon_pid/status)
as sysprof-test-allowed "$W/bin/session-client" churn 200 | grep -qx 'churned 200' || fail "churn failed"
sleep 0.5
fds_after=$(ls /proc/$daemon_pid/fd | wc -l)
rss_after=$(awk '/^VmRSS/ {print $2}' /proc/$daemon_pid/status)
[ "$fds_after" -le "$fds_before" ] || fail "fds grew from $fds_before to $fds_after over 200 sessions"
# ASan keeps freed memory in quarantine: there, only the fds tell.
if [ "${SYSPROFD_TEST_SANITIZED:-0}" = 0 ]; then
  [ $((rss_after - rss_before)) -le 2048 ] || fail "RSS grew from $rss_before kB to $rss_after kB over 200 sessions"
fi
ok "200 sessions: fds $fds_before -> $fds_after, RSS $rss_before -> $rss_after kB"
# SIGTERM to the daemon finalizes running captures (kernel symbols, header) before it exits.
busy 3 &
as sysprof-test-allowed "$W/bin/session-client" record "$W/u/term.syscap" 0 > "$W/term.out" &
for _ in $(seq 50); do grep -q '^path ' "$W/term.out" 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -TERM "$daemon_pid"
for _ in $(seq 50); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$daemon_pid" 2>/dev/null && fail "sysprofd did not exit on SIGTERM"
pkill -KILL -u sysprof-test-allowed -f "session-client record $W/u/term.syscap" || true
"$dump" --stats "$W/u/term.syscap" > "$W/term.stats" || fail "capture cut by SIGTERM is not valid"
grep -qx 'FILE /proc/kallsyms' "$W/term.stats" || fail "SIGTERM did not finalize the capture (no kernel symbols)"
grep -qE '^SAMPLE [1-9]' "$W/term.stats" || fail "no samples before SIGTERM"
ok "SIGTERM: sysprofd finalized the running capture and exited"
echo "1..$n"
