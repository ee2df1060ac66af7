#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-cli against the real sysprofd, polkitd and users.  Run under
# tools/with-sysprofd.sh (with --no-daemon for the second mode):
#   test-sysprof-cli.sh SYSPROF_CLI SYSPROF_DUMP [no-daemon]
set -euo pipefail
cli=$(realpath "$1") dump=$(realpath "$2") mode=${3:-daemon}
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
D=sysprof-test-denied
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u" "$W/d" "$W/r"
install -m 755 "$cli" "$dump" "$W/bin/"
chown "$U" "$W/u"
chown "$D" "$W/d"
as () { local user=$1; shift; runuser -u "$user" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W" \
  DBUS_SYSTEM_BUS_ADDRESS="$A" timeout 120 "$@"; }
# Runs sysprof-cli as $1 (root: directly) in $2, output into $W/out, status into $rc.
run () {
  local user=$1 dir=$2; shift 2
  rc=0
  if [ "$user" = root ]; then
    (cd "$dir" && env -i PATH="$W/bin:/usr/bin:/bin" DBUS_SYSTEM_BUS_ADDRESS="$A" timeout 120 sysprof-cli "$@") \
      > "$W/out" 2>&1 < /dev/null || rc=$?
  else
    (cd "$dir" && as "$user" sysprof-cli "$@") > "$W/out" 2>&1 < /dev/null || rc=$?
  fi
}
out () { tr '\n' '|' < "$W/out"; }
# Something to sample: a busy loop of $1 seconds, as root, in the background.
busy () { bash -c 'end=$((SECONDS + $1)); while [ $SECONDS -lt $end ]; do :; done' _ "$1" & }
stats () { "$dump" --stats "$1" > "$W/stats" || fail "$1 is not a valid capture"; }
samples () { awk '$1 == "SAMPLE" { print $2 }' "$W/stats"; }
# The command the tests record: writes its pid and $SYSPROF_TEST_VAR to the
# marker file $1, then spins for $2 seconds.
workload='echo "$$ ${SYSPROF_TEST_VAR:-}" > "$1"; end=$((SECONDS + $2)); while [ $SECONDS -lt $end ]; do :; done'
# Sends signal $1 to our sysprof-cli whose command line contains $2 (other
# harnesses may run sysprof-cli as the same user).
signal_cli () { pkill "-$1" -u "$U" -f "^sysprof-cli .*$2"; }
# Other harnesses may run as the same users: only look at our processes,
# whose command lines name our work dir.
no_process_left () {
  local user=$1
  for _ in $(seq 20); do
    pgrep -u "$user" -f "$W/" > /dev/null || return 0
    sleep 0.1
  done
  fail "processes of $user are still running: $(pgrep -a -u "$user" -f "$W/" | tr '\n' ' ')"
}

if [ "$mode" = no-daemon ]; then
  # No sysprofd on the bus.
  busctl --system status org.gnome.Sysprof3 > /dev/null 2>&1 && fail "sysprofd is on the bus in no-daemon mode"

  run "$U" "$W/u" -- bash -c "$workload" _ "$W/u/marker" 1
  [ $rc -ne 0 ] || fail "sysprof-cli succeeded without sysprofd: $(out)"
  grep -q 'sysprofd is not running' "$W/out" || fail "no sysprofd message: $(out)"
  [ ! -e "$W/u/capture.syscap" ] || fail "a capture file was left behind"
  [ ! -e "$W/u/marker" ] || fail "the command ran although recording never started"
  no_process_left "$U"
  ok "no sysprofd, unprivileged: exit $rc, '$(grep -m1 'sysprofd is not running' "$W/out")', no file, command never ran"

  busy 3
  run root "$W/r" --duration 1 --no-decode root.syscap
  [ $rc -eq 0 ] || fail "in-process recording as root failed ($rc): $(out)"
  grep -qx 'sysprofd is not running; recording in-process as root' "$W/out" || fail "mode not announced: $(out)"
  stats "$W/r/root.syscap"
  [ "$(samples)" -gt 0 ] || fail "no samples in-process: $(tr '\n' ' ' < "$W/stats")"
  for f in /proc/kallsyms /proc/mounts; do
    grep -qx "FILE $f" "$W/stats" || fail "$f missing from the in-process capture"
  done
  grep -qE '^CTRSET [1-9]' "$W/stats" || fail "no counters in-process"
  wait
  ok "no sysprofd, root: recorded in-process ($(samples) samples, kernel symbols, counters)"
  echo "1..$n"
  exit 0
fi

# --help and --version.
help=$("$W/bin/sysprof-cli" --help) || fail "--help failed"
for o in -f --force -c --command -e --env -C --directory -p --pid --frequency --duration --no-perf --no-cpu --no-memory --no-disk \
  --no-network --no-battery --no-decode --merge --version 'Exit status' 'Examples'; do
  grep -q -- "$o" <<< "$help" || fail "--help does not mention $o"
done
"$W/bin/sysprof-cli" --version | grep -q '^sysprof-cli ' || fail "--version"
ok "--help documents every option, examples and exit status; --version"

# Usage errors exit 2 and record nothing.
for bad in "--frequency 0" "--frequency 20000" "--duration -1" "a.syscap b.syscap" "-e NOEQUALS -- true" \
  "-c true -- true" "-p abc" "--no-such-option" "-C /tmp x.syscap" "--max-size 100K" "--max-size 17G" \
  "--max-size 2X"; do
  # shellcheck disable=SC2086
  run "$U" "$W/u" $bad
  [ $rc -eq 2 ] || fail "'$bad' exited $rc, not 2: $(out)"
done
[ -z "$(ls "$W/u")" ] || fail "usage errors left files: $(ls "$W/u")"
ok "usage errors exit 2 and create nothing"

# A command, as the authorized user: its start is recorded, the file is the user's.
run "$U" "$W/u" -e SYSPROF_TEST_VAR=hello cmd.syscap -- bash -c "$workload" _ "$W/u/marker" 2
[ $rc -eq 0 ] || fail "recording a command failed ($rc): $(out)"
[ "$(stat -c %U "$W/u/cmd.syscap")" = "$U" ] || fail "capture not owned by $U"
[ "$(stat -c %a "$W/u/cmd.syscap")" = 644 ] || fail "capture mode $(stat -c %a "$W/u/cmd.syscap")"
read -r cmd_pid cmd_var < "$W/u/marker" || fail "the command did not run"
[ "$cmd_var" = hello ] || fail "--env not passed: '$cmd_var'"
stats "$W/u/cmd.syscap"
[ "$(samples)" -gt 0 ] || fail "no samples: $(tr '\n' ' ' < "$W/stats")"
"$dump" "$W/u/cmd.syscap" > "$W/frames"
grep -q "^SAMPLE @[0-9]*: pid=$cmd_pid " "$W/frames" || fail "no sample of the command (pid $cmd_pid)"
grep -q '^Recording into cmd.syscap while bash runs, press ^C to stop$' "$W/out" || fail "no start line: $(out)"
grep -qE '^Recorded [0-9.]+ s into cmd.syscap: [1-9][0-9]* samples, .* \(the command exited; bash exited with status 0\)$' \
  "$W/out" || fail "no summary line: $(out)"
if ! grep -qx 'FILE __symbols__' "$W/stats"; then
  grep -q 'warning: the symbol table could not be added' "$W/out" || fail "neither symbols nor a warning: $(out)"
fi
ok "-- COMMAND as $U: exit 0, capture $U's (0644), command ran with --env and was sampled (pid $cmd_pid), summary line"

# --directory: the command runs there, a relative program is found there,
# and a missing directory is a clear error that records nothing.
mkdir -p "$W/u/cwd"
printf '#!/bin/sh\npwd > "$1"\n' > "$W/u/cwd/where.sh"
chmod 755 "$W/u/cwd/where.sh"
chown -R "$U" "$W/u/cwd"
run "$U" "$W/u" --no-decode -C "$W/u/cwd" dir.syscap -- ./where.sh "$W/u/cwd/pwd.out"
[ $rc -eq 0 ] || fail "--directory failed ($rc): $(out)"
[ "$(cat "$W/u/cwd/pwd.out")" = "$W/u/cwd" ] || fail "--directory: the command ran in $(cat "$W/u/cwd/pwd.out")"
run "$U" "$W/u" --no-decode -C "$W/u/no-such-dir" nodir.syscap -- true
[ $rc -ne 0 ] || fail "--directory with a missing directory succeeded"
grep -q 'no such directory' "$W/out" || fail "--directory with a missing directory: unclear error: $(out)"
ok "--directory DIR: the command (./where.sh) runs in DIR; a missing DIR is a clear error"

# -c, with the command's failure reported but not failing the recording.
run "$U" "$W/u" --no-decode -c "bash -c 'exit 3'" c.syscap
[ $rc -eq 0 ] || fail "-c with a failing command exited $rc: $(out)"
grep -q 'bash exited with status 3' "$W/out" || fail "command status not reported: $(out)"
ok "-c CMD: the command's exit status 3 is reported, sysprof-cli exits 0"

# --duration, whole system.
busy 3
start=$SECONDS
run "$U" "$W/u" --duration 1 --no-decode dur.syscap
[ $rc -eq 0 ] || fail "--duration 1 failed ($rc): $(out)"
[ $((SECONDS - start)) -le 10 ] || fail "--duration 1 took $((SECONDS - start)) s"
stats "$W/u/dur.syscap"
[ "$(samples)" -gt 0 ] || fail "no samples in the whole-system recording"
grep -qx 'FILE /proc/kallsyms' "$W/stats" || fail "capture not finalized (no kernel symbols)"
grep -qE '^CTRSET [1-9]' "$W/stats" || fail "no counter values"
grep -q '(stopped after the maximum duration)' "$W/out" || fail "stop reason: $(out)"
wait
ok "--duration 1, whole system: $(samples) samples, counters, kernel symbols"

# --max-size: sysprofd ends the recording at that size (10,000 samples a
# second fill 1 MiB in a few seconds), the capture stays readable.
if [ "$mode" = daemon ]; then
  busy 3
  start=$SECONDS
  run "$U" "$W/u" --duration 20 --frequency 10000 --no-decode --max-size 1M small.syscap
  [ $rc -eq 1 ] || fail "--max-size 1M: exit $rc: $(out)"
  grep -q 'stopped at the max-bytes limit' "$W/out" || fail "--max-size 1M: $(out)"
  [ $((SECONDS - start)) -lt 15 ] || fail "--max-size 1M did not stop the recording early"
  stats "$W/u/small.syscap"
  size=$(stat -c %s "$W/u/small.syscap")
  [ "$size" -lt $((6 * 1024 * 1024)) ] || fail "--max-size 1M: a capture of $size bytes"
  wait
  ok "--max-size 1M: sysprofd stops at the limit ($size bytes with what finishing adds), a readable capture, exit 1"
fi

# No overwriting without --force.
before=$(md5sum < "$W/u/dur.syscap")
run "$U" "$W/u" --duration 1 --no-decode dur.syscap
[ $rc -eq 1 ] || fail "overwrote without --force (exit $rc): $(out)"
grep -q 'dur.syscap already exists; use --force to overwrite it' "$W/out" || fail "message: $(out)"
[ "$(md5sum < "$W/u/dur.syscap")" = "$before" ] || fail "the existing capture was changed"
run "$U" "$W/u" --duration 1 --no-decode --force dur.syscap
[ $rc -eq 0 ] || fail "--force failed ($rc): $(out)"
[ "$(md5sum < "$W/u/dur.syscap")" != "$before" ] || fail "--force did not replace the capture"
stats "$W/u/dur.syscap"
ok "an existing capture is refused (exit 1, unchanged) and replaced with --force"

# --pid: only that process is sampled.
runuser -u "$U" -- bash -c "$workload" _ "$W/u/spin" 3 &
for _ in $(seq 50); do [ -s "$W/u/spin" ] && break; sleep 0.1; done
read -r spin_pid _ < "$W/u/spin" || fail "no spinning process"
busy 2
run "$U" "$W/u" --duration 1 --no-decode -p "$spin_pid" pid.syscap
[ $rc -eq 0 ] || fail "--pid failed ($rc): $(out)"
"$dump" "$W/u/pid.syscap" | sed -n 's/^SAMPLE @[0-9]*: pid=\([0-9-]*\) .*/\1/p' | sort -u > "$W/pids"
[ "$(cat "$W/pids")" = "$spin_pid" ] || fail "--pid $spin_pid sampled: $(tr '\n' ' ' < "$W/pids")"
wait
ok "--pid $spin_pid: every sample is of that process"

# SIGTERM and SIGINT stop cleanly; a command still running is terminated.
as "$U" sysprof-cli --no-decode "$W/u/term.syscap" > "$W/term.out" 2>&1 &
cli_job=$!
for _ in $(seq 100); do grep -q '^Recording into' "$W/term.out" 2>/dev/null && break; sleep 0.1; done
busy 1
sleep 1
signal_cli TERM "$W/u/term.syscap" || fail "sysprof-cli not found"
rc=0; wait $cli_job || rc=$?
[ $rc -eq 0 ] || fail "SIGTERM: exit $rc: $(tr '\n' '|' < "$W/term.out")"
stats "$W/u/term.syscap"
grep -qx 'FILE /proc/kallsyms' "$W/stats" || fail "SIGTERM: capture not finalized"
grep -q '(stopped)$' "$W/term.out" || fail "SIGTERM: summary: $(tr '\n' '|' < "$W/term.out")"
wait
(cd "$W/u" && as "$U" sysprof-cli --no-decode int.syscap -- bash -c "$workload" _ "$W/u/int-marker" 60) \
  > "$W/int.out" 2>&1 &
cli_job=$!
for _ in $(seq 100); do grep -q '^Recording into' "$W/int.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.5
signal_cli INT "$W/u/int-marker" || fail "sysprof-cli not found"
rc=0; wait $cli_job || rc=$?
[ $rc -eq 0 ] || fail "SIGINT: exit $rc: $(tr '\n' '|' < "$W/int.out")"
grep -q 'bash was killed by signal 15' "$W/int.out" || fail "SIGINT: command: $(tr '\n' '|' < "$W/int.out")"
stats "$W/u/int.syscap"
no_process_left "$U"
ok "SIGTERM and SIGINT finalize the capture and exit 0; the running command is terminated"

# ^C stops recording; a second ^C while the symbol table is built skips it
# and keeps the capture as recorded.
busy 4
as "$U" sysprof-cli --frequency 4000 "$W/u/twice.syscap" > "$W/twice.out" 2>&1 &
cli_job=$!
for _ in $(seq 100); do grep -q '^Recording into' "$W/twice.out" 2>/dev/null && break; sleep 0.1; done
sleep 2
signal_cli INT "$W/u/twice.syscap" || fail "sysprof-cli not found"
for _ in $(seq 1000); do grep -q '^Decoding symbols' "$W/twice.out" 2>/dev/null && break; sleep 0.01; done
if signal_cli INT "$W/u/twice.syscap"; then
  rc=0; wait $cli_job || rc=$?
  [ $rc -eq 0 ] || fail "second ^C: exit $rc: $(tr '\n' '|' < "$W/twice.out")"
  grep -q 'warning: decoding was abandoned: the capture has no symbol table' "$W/twice.out" \
    || fail "second ^C: $(tr '\n' '|' < "$W/twice.out")"
  stats "$W/u/twice.syscap"
  grep -qx 'FILE /proc/kallsyms' "$W/stats" || fail "second ^C: capture not finalized"
  grep -qx 'FILE __symbols__' "$W/stats" && fail "second ^C: a symbol table was added anyway"
  ok "a second ^C while decoding: exit 0, the capture is kept, valid, without a symbol table"
else
  wait $cli_job || true
  ok "# SKIP decoding ended before the second ^C could be sent"
fi
wait

# A command that does not exist: nothing recorded, nothing left.
run "$U" "$W/u" nocmd.syscap -- /nonexistent/program
[ $rc -eq 1 ] || fail "missing command: exit $rc"
grep -q 'Cannot run /nonexistent/program: command not found' "$W/out" || fail "missing command: $(out)"
[ ! -e "$W/u/nocmd.syscap" ] || fail "missing command: capture left"
ok "a missing command: exit 1, no capture file"

# polkit says no: non-zero, a clear message, and the command never runs.
run "$D" "$W/d" -- bash -c "$workload" _ "$W/d/marker" 1
[ $rc -eq 1 ] || fail "denied user: exit $rc: $(out)"
grep -q 'not authorized to profile (polkit action org.gnome.sysprof3.profile)' "$W/out" || fail "denied: $(out)"
[ ! -e "$W/d/marker" ] || fail "denied user: the command ran"
[ ! -e "$W/d/capture.syscap" ] || fail "denied user: capture file left behind"
no_process_left "$D"
ok "polkit-denied user: exit 1, '$(grep -m1 -o 'not authorized.*' "$W/out" | cut -c1-70)...', command never ran"

# --merge.
"$W/bin/sysprof-cli" --merge "$W/u/dur.syscap" "$W/u/term.syscap" > "$W/merged.syscap" || fail "--merge failed"
a=$("$dump" --stats "$W/u/dur.syscap" | awk '$1 == "SAMPLE" { print $2 }')
b=$("$dump" --stats "$W/u/term.syscap" | awk '$1 == "SAMPLE" { print $2 }')
stats "$W/merged.syscap"
[ "$(samples)" -eq $((a + b)) ] || fail "--merge: $(samples) samples, not $a + $b"
rc=0; script -qec "$W/bin/sysprof-cli --merge $W/u/dur.syscap" /dev/null > "$W/out" 2>&1 || rc=$?
[ $rc -eq 1 ] && grep -q 'refusing to write a binary capture to a terminal' "$W/out" || fail "--merge to a tty: $rc $(out)"
ok "--merge: $a + $b samples into one capture on stdout; a terminal is refused"

echo "1..$n"
