#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What sysprofd changes for its callers, kernel.perf_event_paranoid and the CPU
# frequency governors, comes back: when the callers leave the bus, when the
# daemon exits, and after a crash from the state file the next daemon finds.
# A hostile state file restores nothing harmful and writes nothing elsewhere.
# Run under tools/with-sysprofd.sh --no-daemon: this test starts, kills and
# restarts the real daemon itself.
#   test-system-state.sh SYSPROFD STATE_CLIENT
#
# The real sysctl is lowered by one step (2 -> 1 on a default kernel) for a
# second or so at a time, and put back on exit whatever happens.  Another test
# changing it meanwhile (test-service.sh, sysprof-cli 3.46 in another checkout)
# makes this one fail.  The governor tests give the daemon a mount namespace of
# its own in which a fake tree is bound over /sys/devices/system/cpu (this VM
# has no cpufreq); the daemon has no test hook for it.
set -euo pipefail
sysprofd=$(realpath "$1") client=$(realpath "$2")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
P=/proc/sys/kernel/perf_event_paranoid
S=$W/state
F=$S/saved-settings
FAKE=$W/fake-cpu
OUT=$W/outside
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

# Other runs of this test change the same sysctl: one at a time.  (What this
# script starts gets 8>&-, so that nothing left over holds the lock.)  Other
# tests that change perf_event_paranoid could take the same lock.
lock_dir=/run/lock
[ -d "$lock_dir" ] || lock_dir=/tmp
exec 8> "$lock_dir/sysprofd-test-perf-event-paranoid.lock"
flock -w 120 8 || fail "another test-system-state.sh holds $lock_dir/sysprofd-test-perf-event-paranoid.lock"

R=$(cat "$P")
pids=()
cleanup () {
  local pid
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2> /dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  if [ "$(cat "$P")" != "$R" ]; then
    echo "# putting kernel.perf_event_paranoid back to $R (it was $(cat "$P"))" >&2
    echo "$R" > "$P"
  fi
}
trap cleanup EXIT
# Killed (meson's timeout, ^C, a closed pipe): through the EXIT trap as well.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

# The value the callers ask for: lower than the machine's, as sysprof does.
if [ "$R" -ge 2 ]; then T=1; elif [ "$R" -ge 0 ]; then T=$((R - 1)); else
  echo "1..0 # SKIP perf_event_paranoid is already $R: nothing to lower"
  exit 0
fi

mkdir -p "$W/bin"
install -m 755 "$client" "$W/bin/state-client"
ugid=$(id -g "$U")

# ---------------------------------------------------------------------------
# Helpers.
paranoid () { cat "$P"; }
# Polls CMD... for up to 10 s (the machine may be busy with other tests).
eventually () {
  local _
  for _ in $(seq 200); do
    "$@" && return 0
    sleep 0.05
  done
  return 1
}
is_paranoid () { [ "$(paranoid)" = "$1" ]; }
no_state () { [ ! -e "$F" ] && [ ! -L "$F" ]; }

# start_daemon NAME [FAKE_CPU_DIR] [STATE_DIR]: sysprofd in the background, its
# log in $W/logs/sysprofd-NAME.log, its pid in $dpid and $dlog its log; returns
# once it owns the name.
dcount=0
start_daemon () {
  local fake=${2:-} state=${3:-$S} owner _
  dcount=$((dcount + 1))
  dlog=$W/logs/sysprofd-$(printf %02d $dcount)-$1.log
  if [ -n "$fake" ]; then
    # unshare without --fork execs sh, which execs sysprofd: $! is the daemon.
    # shellcheck disable=SC2016  # expanded by the inner sh
    unshare -m --propagation private sh -c 'mount --bind "$1" /sys/devices/system/cpu && shift && exec "$@"' \
      sh "$fake" "$sysprofd" --state-dir "$state" --idle-timeout 0 < /dev/null > "$dlog" 2>&1 8>&- &
  else
    "$sysprofd" --state-dir "$state" --idle-timeout 0 < /dev/null > "$dlog" 2>&1 8>&- &
  fi
  dpid=$!
  pids+=("$dpid")
  # The name's owner must be this daemon, not one killed a moment ago.
  for _ in $(seq 200); do
    owner=$(gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
      --method org.freedesktop.DBus.GetConnectionUnixProcessID org.gnome.Sysprof3 2> /dev/null) || owner=
    [ "$owner" = "(uint32 $dpid,)" ] && return 0
    kill -0 "$dpid" 2> /dev/null || fail "sysprofd ($1) exited at start: $(tr '\n' '|' < "$dlog")"
    sleep 0.05
  done
  fail "sysprofd ($1) did not own org.gnome.Sysprof3 within 10 s: $(tr '\n' '|' < "$dlog")"
}
stop_daemon () { # stop_daemon SIGNAL
  kill "-$1" "$dpid"
  wait "$dpid" 2> /dev/null || true
}

# state-client as the authorized user.  A command, not a function: env and
# setpriv exec, so the pid of "${as_user[@]}" ... & is the client's own.
as_user=(env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A"
  setpriv --reuid="$U" --regid="$ugid" --init-groups "$W/bin/state-client")
# hold NAME ARGS...: a client that keeps what it asked for; $cpid, $cout.
hold () {
  local name=$1 _
  shift
  cout=$W/client-$name.out
  : > "$cout"
  "${as_user[@]}" "$@" > "$cout" 2>&1 < /dev/null 8>&- &
  cpid=$!
  pids+=("$cpid")
  for _ in $(seq 200); do
    grep -qE '^(old |error |ready$)' "$cout" 2> /dev/null && return 0
    kill -0 "$cpid" 2> /dev/null || fail "client $name exited: $(tr '\n' '|' < "$cout")"
    sleep 0.05
  done
  fail "client $name got no answer within 10 s"
}
release () { # release: the last client leaves the bus
  kill -TERM "$cpid"
  wait "$cpid" 2> /dev/null || true
}
once () { # once ARGS...: a client that leaves at once; its output in $cout
  cout=$W/client-once.out
  "${as_user[@]}" --exit "$@" > "$cout" 2>&1 < /dev/null 8>&- || true
}
saved () { # saved GROUP KEY: the value in the state file
  awk -v g="[$1]" -v k="$2" '/^\[/ { in_g = ($0 == g) } in_g && index($0, k "=") == 1 { print substr($0, length(k) + 2) }' "$F"
}
logged () { grep -qF -- "$1" "$dlog" || fail "the log does not say '$1': $(tr '\n' '|' < "$dlog")"; }

# ---------------------------------------------------------------------------
# 1. perf_event_paranoid.
start_daemon fresh
[ "$(stat -c '%a %U' "$S")" = "700 root" ] || fail "state dir is $(stat -c '%a %U' "$S"), not 700 root"
no_state || fail "a state file exists although nothing was changed"
ok "a fresh state dir is created 0700; no state file while nothing is changed"

hold h1 paranoid "$T"
grep -qx "old $R" "$cout" || fail "SetParanoid did not answer old $R: $(cat "$cout")"
is_paranoid "$T" || fail "perf_event_paranoid is $(paranoid), not $T"
[ -f "$F" ] || fail "no state file while perf_event_paranoid is changed"
[ "$(stat -c '%a %U' "$F")" = "600 root" ] || fail "state file is $(stat -c '%a %U' "$F"), not 600 root"
[ "$(saved paranoid original)" = "$R" ] || fail "state file does not hold original=$R: $(cat "$F")"
logged "kernel.perf_event_paranoid $R -> $T"
ok "SetParanoid($T) from a caller that stays: $R -> $T, state file (0600) holds original=$R"

stop_daemon KILL
sleep 0.2
is_paranoid "$T" || fail "after kill -9 perf_event_paranoid is $(paranoid), expected it left at $T"
[ -f "$F" ] || fail "the state file went with the daemon"
ok "kill -9 of the daemon leaves perf_event_paranoid at $T (the review's finding) and the state file"

start_daemon restart
is_paranoid "$R" || fail "the restarted daemon did not restore $R: $(paranoid)"
no_state || fail "state file left after the restore: $(cat "$F")"
logged "Restoring what an earlier sysprofd left changed"
logged "Restored kernel.perf_event_paranoid to $R"
release
sleep 0.2
is_paranoid "$R" || fail "perf_event_paranoid changed when the old caller left: $(paranoid)"
ok "the next daemon restores $R from the state file, removes it and says so"

hold h2 paranoid "$T"
is_paranoid "$T" || fail "perf_event_paranoid is $(paranoid), not $T"
release
eventually is_paranoid "$R" || fail "not restored after the caller left: $(paranoid)"
eventually no_state || fail "state file left after the caller left"
ok "the caller leaves the bus: $R restored, state file removed"

once paranoid "$T"
grep -qx "old $R" "$cout" || fail "SetParanoid: $(cat "$cout")"
eventually is_paranoid "$R" || fail "not restored after a caller that left at once: $(paranoid)"
eventually no_state || fail "state file left"
ok "a caller that leaves as soon as it has the answer: restored"

hold h3 paranoid "$T"
h3=$cpid
hold h4 paranoid "$T"
grep -qx "old $T" "$cout" || fail "second SetParanoid: $(cat "$cout")"
kill -TERM "$h3"
wait "$h3" 2> /dev/null || true
sleep 0.3
is_paranoid "$T" || fail "restored although a second caller still holds it: $(paranoid)"
[ "$(saved paranoid original)" = "$R" ] || fail "state file lost the original while held"
release
eventually is_paranoid "$R" || fail "not restored after the last caller left: $(paranoid)"
eventually no_state || fail "state file left"
ok "two callers: restored only when the last one leaves"

# Callers that leave while others' calls are running: the value must hold for
# those who stay (a holder is counted at once, not later from the main loop).
for round in 1 2 3; do
  hold race$round race 24 "$T"
  grep -qx ready "$cout" || fail "race: $(tr '\n' '|' < "$cout")"
  sleep 0.3
  is_paranoid "$T" || fail "round $round: restored while 12 callers still hold it: $(paranoid)"
  [ -f "$F" ] || fail "round $round: no state file while held"
  release
  eventually is_paranoid "$R" || fail "round $round: not restored after all left: $(paranoid)"
  eventually no_state || fail "round $round: state file left"
done
ok "3 rounds of 24 concurrent callers, half leaving at once: held while any stays, then restored"

hold h5 paranoid "$T"
stop_daemon TERM
is_paranoid "$R" || fail "SIGTERM: not restored at exit: $(paranoid)"
no_state || fail "SIGTERM: state file left"
logged "Restored kernel.perf_event_paranoid to $R"
release
ok "SIGTERM of the daemon while a caller holds it: restored at exit, state file removed"

# Without a state file a crash could not be undone: the daemon refuses.
: > "$W/a-file"
start_daemon no-state-dir "" "$W/a-file/state"
once paranoid "$T"
grep -q '^error org.freedesktop.DBus.Error.Failed ' "$cout" || fail "SetParanoid without a state dir: $(cat "$cout")"
is_paranoid "$R" || fail "perf_event_paranoid changed without a state file: $(paranoid)"
stop_daemon TERM
ok "no usable state dir: SetParanoid is refused, nothing changed"

# ---------------------------------------------------------------------------
# 2. Governors, in a fake /sys/devices/system/cpu laid out as the kernel does:
# cpuN/cpufreq is a link to ../cpufreq/policyN.
mkdir -p "$FAKE/cpufreq/policy0" "$FAKE/cpufreq/policy1" "$FAKE/cpu0" "$FAKE/cpu1"
for i in 0 1; do
  echo "performance powersave schedutil" > "$FAKE/cpufreq/policy$i/scaling_available_governors"
  ln -s "../cpufreq/policy$i" "$FAKE/cpu$i/cpufreq"
done
echo 0-1 | tee "$FAKE/online" "$FAKE/possible" "$FAKE/present" > /dev/null
reset_governors () {
  echo powersave > "$FAKE/cpufreq/policy0/scaling_governor"
  echo schedutil > "$FAKE/cpufreq/policy1/scaling_governor"
}
governors () { echo "$(cat "$FAKE/cpu0/cpufreq/scaling_governor") $(cat "$FAKE/cpu1/cpufreq/scaling_governor")"; }
governors_are () { [ "$(governors)" = "$1" ]; }
reset_governors

start_daemon governors "$FAKE"
hold g1 governor performance
grep -qx "old powersave" "$cout" || fail "SetGovernor did not answer CPU 0's governor: $(cat "$cout")"
governors_are "performance performance" || fail "governors are $(governors)"
[ "$(saved governor cpu0) $(saved governor cpu1)" = "powersave schedutil" ] || fail "state file: $(cat "$F")"
[ "$(stat -c '%a' "$F")" = 600 ] || fail "state file mode $(stat -c '%a' "$F")"
ok "SetGovernor(performance) from a caller that stays: both CPUs changed, state file holds each original"

release
eventually governors_are "powersave schedutil" || fail "governors not restored: $(governors)"
eventually no_state || fail "state file left"
ok "the caller leaves: each CPU's own governor restored, state file removed"

hold g2 governor performance
governors_are "performance performance" || fail "governors are $(governors)"
stop_daemon KILL
sleep 0.2
governors_are "performance performance" || fail "governors changed by kill -9: $(governors)"
[ -f "$F" ] || fail "state file gone"
release
start_daemon governors-restart "$FAKE"
governors_are "powersave schedutil" || fail "restart did not restore the governors: $(governors)"
no_state || fail "state file left after the restore"
logged "Restored the governor of cpu0 to powersave"
logged "Restored the governor of cpu1 to schedutil"
ok "kill -9 leaves the governors changed; the next daemon restores them from the state file"

for bad in turbo ../performance "performance/x" $'performance\nschedutil' "" "performance powersave"; do
  once governor "$bad"
  grep -q '^error org.freedesktop.DBus.Error.InvalidArgs ' "$cout" || fail "SetGovernor('$bad'): $(cat "$cout")"
  governors_are "powersave schedutil" || fail "SetGovernor('$bad') changed the governors: $(governors)"
  no_state || fail "SetGovernor('$bad') left a state file"
done
ok "unknown, path-like, multi-line and empty governor names: InvalidArgs, nothing changed"

hold g3 governor schedutil
grep -qx "old powersave" "$cout" || fail "SetGovernor: $(cat "$cout")"
governors_are "schedutil schedutil" || fail "governors are $(governors)"
[ "$(saved governor cpu0)/$(saved governor cpu1)" = powersave/ ] || fail "state file: $(cat "$F")"
stop_daemon TERM
governors_are "powersave schedutil" || fail "SIGTERM: governors not restored: $(governors)"
no_state || fail "SIGTERM: state file left"
release
ok "only the CPUs that changed are saved; SIGTERM restores them at exit"

# ---------------------------------------------------------------------------
# 3. Hostile or broken state files.  Bait the daemon must never write: a
# cpufreq/cpufreq/scaling_governor inside the tree, and a cpu7 whose cpufreq
# links out of it.
mkdir -p "$FAKE/cpufreq/cpufreq" "$OUT/cpufreq" "$FAKE/cpu7"
echo bait > "$FAKE/cpufreq/cpufreq/scaling_governor"
echo "performance powersave schedutil" | tee "$FAKE/cpufreq/cpufreq/scaling_available_governors" \
  "$OUT/cpufreq/scaling_available_governors" > /dev/null
echo outside > "$OUT/cpufreq/scaling_governor"
ln -s "$OUT/cpufreq" "$FAKE/cpu7/cpufreq"
printf '[paranoid]\noriginal=%s\n[governor]\ncpu1=powersave\n' "$R" > "$OUT/target"
# Everything but the two governors must stay as it is.
snapshot () {
  local f
  (cd "$W" && find fake-cpu outside -path '*/policy[01]/scaling_governor' -prune -o -print) | sort | while read -r f; do
    if [ -L "$W/$f" ]; then echo "$f -> $(readlink "$W/$f")"
    elif [ -f "$W/$f" ]; then echo "$f $(md5sum < "$W/$f")"
    else echo "$f/"; fi
  done
}
snapshot > "$W/snapshot.before"

# hostile NAME EXPECTED_GOVERNORS: start on the state file in place and check.
hostile () {
  start_daemon "hostile-$1" "$FAKE"
  is_paranoid "$R" || fail "$1: perf_event_paranoid is $(paranoid), not $R"
  governors_are "$2" || fail "$1: governors are $(governors), expected $2"
  snapshot | diff -u "$W/snapshot.before" - >&2 || fail "$1: the daemon wrote where it must not"
  no_state || fail "$1: the rejected state file was kept"
}
after_hostile () {
  stop_daemon TERM
  is_paranoid "$R" || fail "$1: exit changed perf_event_paranoid: $(paranoid)"
  reset_governors
}

head -c 3000 /dev/urandom > "$F"
hostile garbage "powersave schedutil"
logged "Ignoring $F"
after_hostile garbage
ok "a state file of random bytes: the daemon starts, says so, removes it, changes nothing"

# A valid line among hostile ones proves the file was read.
echo performance > "$FAKE/cpufreq/policy1/scaling_governor"
cat > "$F" << 'EOF'
[governor]
cpu1=schedutil
cpu0=/etc/passwd
cpufreq=performance
../x=performance
cpu0/../cpu1=performance
cpu7=performance
cpu99=performance
cpu=performance
EOF
hostile bad-names "powersave schedutil"
logged "Restored the governor of cpu1 to schedutil"
for key in cpufreq ../x cpu0/../cpu1 cpu99 cpu; do logged "Ignoring the saved governor of \"$key\""; done
logged "Ignoring the saved governor of \"cpu0\""
logged "Ignoring the saved governor of \"cpu7\""
after_hostile bad-names
ok "CPU names that are not cpuN, a cpuN leading out of the tree, a governor naming a path: ignored; the valid one restored"

echo performance > "$FAKE/cpufreq/policy0/scaling_governor"
echo performance > "$FAKE/cpufreq/policy1/scaling_governor"
printf '[governor]\ncpu0=powersave\\nperformance\ncpu1=userspace\n' > "$F"
hostile bad-governors "performance performance"
logged "Ignoring the saved governor of \"cpu0\""
logged "Ignoring the saved governor of \"cpu1\""
after_hostile bad-governors
ok "a governor with a newline, a governor the CPU does not offer: ignored"

for value in -1 -5 "$((T - 1))" 99999999999 abc; do
  printf '[paranoid]\noriginal=%s\n' "$value" > "$F"
  hostile "paranoid=$value" "powersave schedutil"
  grep -qE 'Not lowering kernel.perf_event_paranoid|Ignoring the saved kernel.perf_event_paranoid' "$dlog" \
    || fail "paranoid=$value: nothing logged: $(tr '\n' '|' < "$dlog")"
  after_hostile "paranoid=$value"
done
ok "saved perf_event_paranoid values that would lower it or are no int: not applied, logged"

# Huge: an entry after a 16 MiB comment must not be read.
{ head -c $((16 << 20)) /dev/zero | tr '\0' '#'; printf '\n[paranoid]\noriginal=-1\n'; } > "$F"
hostile huge "powersave schedutil"
logged "Ignoring $F"
after_hostile huge
ok "a 16 MiB state file: not read, removed"

mkfifo -m 600 "$F"
hostile fifo "powersave schedutil"
logged "Ignoring $F"
after_hostile fifo
ok "a FIFO as state file: the daemon does not block on it"

echo performance > "$FAKE/cpufreq/policy1/scaling_governor"
ln -s "$OUT/target" "$F"
hostile symlink "powersave performance"
logged "Ignoring $F"
[ -f "$OUT/target" ] || fail "the symlink's target was removed"
after_hostile symlink
ok "a symbolic link as state file: not followed, the link removed, its target untouched"

# A state dir others may write to is made private again.
rm -rf "$S"
mkdir -m 777 "$S"
chmod 777 "$S"
start_daemon open-state-dir "$FAKE"
[ "$(stat -c %a "$S")" = 700 ] || fail "state dir left at $(stat -c %a "$S")"
logged "Made $S private (it was 777)"
stop_daemon TERM
ok "a state dir open to others is made 0700"

# SetGovernor never follows cpu7's link out of the tree either.
start_daemon bait "$FAKE"
hold g4 governor performance
governors_are "performance performance" || fail "governors are $(governors)"
[ "$(cat "$OUT/cpufreq/scaling_governor")" = outside ] || fail "SetGovernor wrote through cpu7's link out of the tree"
[ "$(cat "$FAKE/cpufreq/cpufreq/scaling_governor")" = bait ] || fail "SetGovernor wrote the bait"
[ -z "$(saved governor cpu7)" ] || fail "cpu7 saved: $(cat "$F")"
release
eventually governors_are "powersave schedutil" || fail "governors not restored: $(governors)"
snapshot | diff -u "$W/snapshot.before" - >&2 || fail "SetGovernor wrote where it must not"
stop_daemon TERM
ok "SetGovernor with a cpuN linking out of the tree: that CPU is left alone, the others changed and restored"

is_paranoid "$R" || fail "perf_event_paranoid is $(paranoid) at the end, not $R"
echo "1..$n"
