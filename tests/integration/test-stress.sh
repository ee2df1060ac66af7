#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Many clients at once, for a bounded time, as both authorized users and the
# one polkit refuses: sessions created, recorded, read, stopped and closed,
# or left with calls pending by SIGKILL or a closed connection; hostile ring
# producers killed mid-write; Service and Host calls beyond the per-user
# limits; the refused user hammering everything.  Then: the same daemon,
# answering everyone, with no session left and its file descriptors and
# memory back where they were; and another user was served within a bounded
# time throughout.  Run under tools/with-sysprofd.sh:
#   test-stress.sh STRESS_CLIENT [SEED]
# Every random choice (the clients', which one to kill, how long each runs)
# follows from SEED (default: STRESS_SEED from the environment, else a fixed
# one), printed first.  Replaying a seed replays the choices, not the timing
# between them.
# STRESS_KEEP=DIR keeps every client's output, the daemon's log and the
# samples of its fds, RSS and threads in DIR.
set -euo pipefail
client=$(realpath "$1")
seed=${2:-${STRESS_SEED:-4242}}
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
# The storm, in seconds, and the bounds checked after it.
STORM=20
# Each call of the other user's probe is answered within this (a starved
# user would wait for the storm's end); the sanitized daemon is about 3
# times slower (its Stop of a whole-system session: up to 3 s here, idle).
LATENCY_BOUND_MS=5000
[ "${SYSPROFD_TEST_SANITIZED:-0}" = 1 ] && LATENCY_BOUND_MS=10000
FD_TOLERANCE=2
# See the memory check below for where this comes from.
RSS_BOUND_KB=$((48 * 1024))
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $* (seed $seed)" >&2; exit 1; }
echo "# seed $seed (replay: STRESS_SEED=$seed)"

mkdir -p "$W/bin" "$W/out"
install -m 755 "$client" "$W/bin/stress-client"
# The probe under a name of its own, so that the killer never picks it.
install -m 755 "$client" "$W/bin/stress-probe"
as () { local user=$1; shift; runuser -u "$user" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
pid=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
  GetConnectionUnixProcessID s org.gnome.Sysprof3 | awk '{print $2}')
[ -n "$pid" ] || fail "sysprofd is not on the bus"
log=$W/logs/sysprofd.log

fds () { ls "/proc/$pid/fd" | wc -l; }
status_kb () { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$pid/status"; }
sessions () {
  gdbus introspect --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3/Session 2>/dev/null \
    | grep -c '^ *node [0-9]' || true
}
now_ms () { echo $(( $(date +%s%N) / 1000000 )); }
# Sums "KEY N" over the clients' outputs (those whose name starts with
# PREFIX, if given).
total () {
  { cat "$W"/out/"${2:-}"* 2>/dev/null || true; } | awk -v k="$1" '$1 == k { s += $2 } END { print s + 0 }'
}

# Whatever this script started dies with it, even when a check fails.
cleanup () {
  local rc=$?
  jobs -p | xargs -r kill 2>/dev/null || true
  pkill -KILL -f "^$W/bin/stress-" 2>/dev/null || true
  if [ -n "${STRESS_KEEP:-}" ]; then
    mkdir -p "$STRESS_KEEP"
    cp -r "$W/out" "$W/logs" "$STRESS_KEEP/" 2>/dev/null || true
    cp "$W/samples" "$W/killed" "$STRESS_KEEP/" 2>/dev/null || true
  fi
  exit $rc
}
trap cleanup EXIT

# A deterministic stream of numbers per caller (bash reseeds $RANDOM in
# subshells): lcg VAR advances the state in VAR and leaves a number in R.
lcg () {
  local -n lcg_state=$1
  lcg_state=$(( (lcg_state * 1103515245 + 12345) & 0x7fffffff ))
  R=$(( lcg_state >> 8 ))
}
# The clients of this run, by the path they run from: their ring producers
# (forked, not exec'd) included, nothing of another test's.
clients () { pgrep -f "^$W/bin/stress-client " || true; }

# Closes, as USER, the detached sessions whose paths FILE holds; appends
# what it got to FILE.close.
close_detached () {
  local user=$1 file=$2 seed=$3 paths rc=0
  mapfile -t paths < <(awk '$1 == "detached-path" { print $2 }' "$file")
  [ "${#paths[@]}" -gt 0 ] || return 0
  as "$user" "$W/bin/stress-client" close "$seed" 10 "${paths[@]}" >> "$file.close" 2>&1 || rc=$?
  case $rc in
    0) ;;
    137) echo "killed 1" >> "$file.close" ;;
    *) echo "client-failed $rc" >> "$file.close" ;;
  esac
}

# Runs MODE again and again as USER, for random lengths of 1-6 s, until the
# storm ends.  Each run's output goes to out/NAME.I; a run that ends other
# than by its end or a SIGKILL is recorded as a failure.  After each run the
# owner closes the detached sessions the run may have left (the client was
# killed, or left them on purpose), as a user would come back to them.
slot () {
  local user=$1 name=$2 mode=$3 arg=$4 end=$5 state=$6 i=0 left len rc
  while :; do
    left=$(( end - $(now_ms) ))
    [ "$left" -gt 300 ] || break
    lcg state
    len=$(( 1000 + R % 5000 ))
    [ "$len" -le "$left" ] || len=$left
    lcg state
    rc=0
    as "$user" "$W/bin/stress-client" "$mode" "$R" "$((len / 1000)).$(printf %03d $((len % 1000)))" "$arg" \
      > "$W/out/$name.$i" 2>&1 || rc=$?
    case $rc in
      0) ;;
      137) echo "killed 1" >> "$W/out/$name.$i" ;;
      # Not the killer's: another test on this machine that cleans up with
      # pkill -u (the test users are shared), not a fault of the daemon.
      143) echo "terminated 1" >> "$W/out/$name.$i" ;;
      *) echo "client-failed $rc" >> "$W/out/$name.$i" ;;
    esac
    lcg state
    close_detached "$user" "$W/out/$name.$i" "$R"
    i=$((i + 1))
  done
}

# SIGKILL to a random storm client (or ring producer, which runs from the
# same file) every 0.5-2 s.
killer () {
  # shellcheck disable=SC2034  # state is advanced by lcg, through its name
  local end=$1 state=$2 victims victim ms
  while [ "$(now_ms)" -lt "$end" ]; do
    lcg state
    ms=$(( 500 + R % 1500 ))
    sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
    mapfile -t victims < <(clients | sort -n)
    [ "${#victims[@]}" -gt 0 ] || continue
    lcg state
    victim=${victims[$(( R % ${#victims[@]} ))]}
    kill -KILL "$victim" 2>/dev/null && echo "$victim" >> "$W/killed" || true
  done
}

# The daemon's fds, RSS and threads every 0.25 s, for the peaks.
sampler () {
  while :; do
    echo "$(fds) $(status_kb VmRSS) $(status_kb Threads)" >> "$W/samples" 2>/dev/null || true
    sleep 0.25
  done
}

wait_idle () {
  local limit=$1 start
  start=$(now_ms)
  while [ $(( $(now_ms) - start )) -lt $((limit * 1000)) ]; do
    [ "$(sessions)" -eq 0 ] && [ "$(fds)" -le "${2:-100000}" ] && return 0
    sleep 0.2
  done
  return 1
}

# --- Warm-up: every kind of call once, so that what the daemon sets up on
# first use (polkit's connection, caches, the allocator's arenas at the
# size the heaviest calls need) is there before the baseline.
s=$seed
warm_end=$(( $(now_ms) + 3000 ))
slot sysprof-test-allowed warm-lifecycle lifecycle 0 "$warm_end" $((s + 1)) &
slot sysprof-test-allowed warm-rings rings 4 "$warm_end" $((s + 2)) &
slot sysprof-test-allowed warm-service service 100 "$warm_end" $((s + 3)) &
slot sysprof-test-other warm-service-other service 20 "$warm_end" $((s + 4)) &
slot sysprof-test-denied warm-denied denied 80 "$warm_end" $((s + 5)) &
# GetKernelSymbols is the biggest answer (tens of MiB while it is built):
# as many at once as the workers run.
for u in sysprof-test-allowed sysprof-test-allowed sysprof-test-other sysprof-test-other; do
  as "$u" gdbus call --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 \
    -m org.gnome.Sysprof3.Host.GetKernelSymbols > /dev/null &
done
wait
if grep -l '^client-failed' "$W"/out/warm-* > "$W/warm-failed"; then
  fail "a warm-up client failed: $(xargs -r tail -n 3 < "$W/warm-failed")"
fi
grep -h '^error ' "$W"/out/warm-* > "$W/warm-errors" || true
[ ! -s "$W/warm-errors" ] || fail "unexpected answers in the warm-up: $(head -5 "$W/warm-errors")"
wait_idle 15 || fail "sessions left after the warm-up: $(sessions)"
sleep 1
fds0=$(fds)
rss0=$(status_kb VmRSS)
threads0=$(status_kb Threads)
rm -f "$W"/out/warm-*

# --- The storm.
start=$(now_ms)
end=$(( start + STORM * 1000 ))
sampler &
sampler_pid=$!
as sysprof-test-other "$W/bin/stress-probe" probe $((s + 10)) "$STORM" > "$W/out/probe" 2>&1 &
probe_pid=$!
# sysprof-test-allowed: sessions (detached ones too, and one client also
# SIGKILLs itself now and then), hostile rings, and Service and Host calls
# past its 64 calls at once; its sessions reach its limit of 4 at times.
slot sysprof-test-allowed lifecycle-a lifecycle 2 "$end" $((s + 11)) &
slot sysprof-test-allowed lifecycle-b lifecycle 1 "$end" $((s + 12)) &
slot sysprof-test-allowed rings-a rings 4 "$end" $((s + 13)) &
slot sysprof-test-allowed service-a service 100 "$end" $((s + 14)) &
slot sysprof-test-allowed service-b service 100 "$end" $((s + 15)) &
# sysprof-test-other, beside its probe: within its limits, so that the
# probe is never refused (two sessions of its own at a time, none detached,
# fewer calls at once than its limit).
slot sysprof-test-other lifecycle-o lifecycle 0 "$end" $((s + 16)) &
slot sysprof-test-other rings-o rings 3 "$end" $((s + 17)) &
slot sysprof-test-other service-o service 20 "$end" $((s + 18)) &
# sysprof-test-denied: everything, refused.
slot sysprof-test-denied denied-a denied 80 "$end" $((s + 19)) &
slot sysprof-test-denied denied-b denied 80 "$end" $((s + 20)) &
killer "$end" $((s + 21)) &
killer_pid=$!

# Every client ends by itself at the end of the storm; one that does not
# within 20 s (a polkitd stall, below, lasts 15) waits for a call that
# never comes back.
wait "$killer_pid"
wait "$probe_pid" || fail "the probe failed: $(tail -5 "$W/out/probe")"
for _ in $(seq 200); do
  [ -n "$(clients)" ] || break
  sleep 0.1
done
if [ -n "$(clients)" ]; then
  fail "clients still running 20 s after the end of the storm (a call hangs): $(clients | head -5 | xargs -r ps -o pid,args -p | tr '\n' ';')"
fi
# The slots.
for job in $(jobs -p); do
  [ "$job" = "$sampler_pid" ] || wait "$job" || true
done
storm_ms=$(( $(now_ms) - start ))
[ "$(kill -0 "$pid" 2>/dev/null && echo alive)" = alive ] || fail "sysprofd died during the storm"

# --- What the clients saw.
runs=$(find "$W/out" -name '*.[0-9]*' ! -name '*.close' | wc -l)
killed=$(total killed)
dying=$(cat "$W"/out/* | grep -c '^dying$' || true)
failed=$(total client-failed)
terminated=$(total terminated)
[ "$terminated" -eq 0 ] || echo "# $terminated client runs were ended by a SIGTERM from outside this test"
[ "$failed" -eq 0 ] || fail "clients failed: $(grep -l '^client-failed' "$W"/out/* | head -5 | xargs -r tail -n 3)"
grep -h '^error ' "$W"/out/* > "$W/errors" || true
if [ -s "$W/errors" ]; then
  fail "$(wc -l < "$W/errors") unexpected answers, e.g.: $(sort "$W/errors" | uniq -c | sort -rn | head -5)"
fi
calls=$(total calls)
limited=$(total limited)
denied_ok=$(total ok denied-)
denied_refused=$(total denied denied-)
[ "$denied_ok" -eq 0 ] || fail "the refused user got $denied_ok answers"
[ "$denied_refused" -gt 0 ] || fail "the refused user was never refused: did its clients run?"
[ "$limited" -gt 0 ] || fail "no call was refused with LimitsExceeded: the limits were not reached"
ok "a ${storm_ms} ms storm, seed $seed: $runs client runs ($killed SIGKILLed by the killer, $dying by themselves), $calls answers checked in the runs that reached their end (ok $(total ok), LimitsExceeded $limited, AccessDenied $(total denied), gone $(total gone), InvalidArgs $(total invalid), FileNotFound $(total not-found), Failed $(total failed)); $(total sessions) sessions, $(total captures-read) captures read back whole ($(( $(total bytes-read) / 1048576 )) MiB), $(total abandoned) connections closed with calls pending, $(total close-races) Close races, $(total rings) rings, $(total producers-killed) producers killed mid-write; the refused user: $denied_refused AccessDenied, $(total empty denied-) GetAll answered empty, 0 served"

# --- Another user, throughout.
# polkitd 122 (Debian 12) now and then loses the wakeup of its rule
# evaluation when the CPUs are busy: the thread running the rules signals
# the condition variable without taking the mutex and the main thread waits
# without a predicate, so a rule that ends before the main thread waits
# leaves it waiting for the whole runaway-script timeout (15 s), after which
# it logs "Terminating runaway script".  Every sysprofd call waits for
# polkit, so nobody is served meanwhile, whatever sysprofd does.  Probes
# that overlap such a stall are left out of the bound, and counted.
stalls=$(sed -n 's/^\([0-9:.]*\): Terminating runaway script after \([0-9]*\) seconds$/\1 \2/p' "$W/logs/polkitd.log" |
  while read -r t secs; do echo "$(date -d "$(date +%F) $t" +%s%3N):$((secs * 1000))"; done | tr '\n' ' ')
read -r probes excused max_list max_call slowest < <(awk -v stalls="$stalls" '
  BEGIN { k = split(stalls, s, " "); for (i = 1; i <= k; i++) { split(s[i], p, ":"); e[i] = p[1]; d[i] = p[2] } }
  $1 == "probe" {
    at = $4; fin = at + $6 + $8; x = 0
    for (i = 1; i <= k; i++) if (at < e[i] + 500 && fin > e[i] - d[i] - 500) x = 1
    if (x) { excused++; next }
    n++; if ($6 > ml) ml = $6
    k = split($10, step, "/"); for (i = 1; i <= k; i++) if (step[i] > ms) { ms = step[i]; slow = i }
  }
  END { split("CreateSession Start ReadCapture Stop Close", name, " ");
        print n + 0, excused + 0, ml + 0, ms + 0, (slow ? name[slow] : "-") }' "$W/out/probe")
n_stalls=$(echo "$stalls" | wc -w)
[ "$n_stalls" -eq 0 ] || echo "# polkitd stalled $n_stalls times for 15 s (its runaway-script timeout): $excused probes left out"
[ "$(awk '$1 == "unexpected" { print $2 }' "$W/out/probe")" = 0 ] || fail "the probe was refused: $(grep '^error' "$W/out/probe" | head -3)"
# One probe a second, each allowed up to the bound.
min_probes=$(( (STORM - 16 * n_stalls) * 1000 / LATENCY_BOUND_MS ))
[ "$probes" -ge "$min_probes" ] || fail "only $probes probes (of at least $min_probes) in $STORM s: $(tail -5 "$W/out/probe")"
[ "$max_list" -lt "$LATENCY_BOUND_MS" ] || fail "ListProcesses of another user took $max_list ms during the storm"
[ "$max_call" -lt "$LATENCY_BOUND_MS" ] || fail "$slowest of another user took $max_call ms during the storm: $(awk '$1 == "probe"' "$W/out/probe" | sort -k8 -n | tail -3 | tr '\n' ';')"
ok "another user served throughout: $probes probes, ListProcesses at most $max_list ms, each call of CreateSession+Start+ReadCapture+Stop+Close at most $max_call ms ($slowest; bound $LATENCY_BOUND_MS); $n_stalls polkitd stalls ($excused probes during them left out)"

# --- Detached sessions: those whose closing client was killed too are
# closed now.
cat "$W"/out/lifecycle-[ab].* | awk '$1 == "detached-path"' | sort -u > "$W/out/detached"
close_detached sysprof-test-allowed "$W/out/detached" $((s + 30))
[ "$(total client-failed detached)" -eq 0 ] || fail "closing detached sessions: $(cat "$W/out/detached.close")"
[ "$(total unexpected detached)" -eq 0 ] || fail "closing detached sessions: $(cat "$W/out/detached.close")"
n_detached=$(wc -l < "$W/out/detached")
closed_during=$({ cat "$W"/out/lifecycle-[ab].*.close 2>/dev/null || true; } | awk '$1 == "ok" { s += $2 } END { print s + 0 }')
closed_after=$(total ok detached)
start=$(now_ms)
wait_idle 20 $((fds0 + FD_TOLERANCE)) || true
# A client killed between CreateSession's reply and its "detached-path"
# line leaves a detached session nobody heard of: by design it outlives its
# client.  The daemon's log names the detached sessions; those of the user
# are closed by it, as it would come back to them.  Any other session left
# is a fault.
unheard=0
mapfile -t remaining < <(gdbus introspect --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3/Session 2>/dev/null |
  sed -n 's|^ *node \([0-9][0-9]*\) .*|/org/gnome/Sysprof3/Session/\1|p')
for p in "${remaining[@]}"; do
  if grep -q "Created session $p for uid $(id -u sysprof-test-allowed) (.*), detached\$" "$W/logs/sysprofd.log" &&
    ! grep -qx "detached-path $p" "$W/out/detached"; then
    echo "detached-path $p" >> "$W/out/unheard"
    unheard=$((unheard + 1))
  fi
done
if [ "$unheard" -gt 0 ]; then
  close_detached sysprof-test-allowed "$W/out/unheard" $((s + 31))
  wait_idle 10 $((fds0 + FD_TOLERANCE)) || true
fi
idle_ms=$(( $(now_ms) - start ))
left=$(sessions)
[ "$left" -eq 0 ] || fail "$left sessions left 20 s after the storm: $(gdbus introspect --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3/Session | tr '\n' ' ')"
ok "no session left: of $n_detached detached sessions, $closed_during were left by their client and closed by their owner during the storm, $closed_after after it, $unheard more whose client was killed before it could say (closed by their owner); none under /org/gnome/Sysprof3/Session $idle_ms ms after the storm"

# --- File descriptors and threads.
kill "$sampler_pid" 2>/dev/null || true
wait "$sampler_pid" 2>/dev/null || true
fds1=$(fds)
threads1=$(status_kb Threads)
peak_fds=$(awk '{ if ($1 > m) m = $1 } END { print m + 0 }' "$W/samples")
peak_threads=$(awk '{ if ($3 > m) m = $3 } END { print m + 0 }' "$W/samples")
[ "$fds1" -le $((fds0 + FD_TOLERANCE)) ] || fail "fds: $fds0 before the storm, $fds1 after: $(ls -l "/proc/$pid/fd" | tail -n +2 | awk '{ print $NF }' | sort | uniq -c | sort -rn | head -5 | tr '\n' ' ')"
[ "$threads1" -le "$threads0" ] || fail "threads: $threads0 before the storm, $threads1 after"
ok "file descriptors back: $fds0 before, $peak_fds at the peak, $fds1 after; threads $threads0 before, $peak_threads at the peak, $threads1 after"

# --- Memory.  Measured (tools/with-sysprofd.sh, 2 cores, GLib 2.74,
# glibc 2.36): the warm-up takes VmRSS from ~7 MiB to 240-330 MiB, nearly
# all of it freed memory the allocator keeps at the size of the largest
# calls that ran at once: GetKernelSymbols builds ~70 MiB of small
# GVariants, up to four of them at once.  With G_SLICE=always-malloc,
# malloc_trim(0) in the daemon after a whole storm brings it back to 15 MiB
# with 1.1 MiB in use, and LeakSanitizer finds nothing at exit.  Over the
# storm itself VmRSS changed by -10 to +21 MiB in 21 runs, depending on how
# the heaviest calls overlapped.  The bound is over twice that: a leak of
# 8 KiB per call (5000-8000 of them are checked per storm, more are made)
# or of 1 MiB per session (40-60 of them) would exceed it.  Under
# AddressSanitizer (its quarantine keeps freed memory) the change is shown,
# not checked.
rss1=$(status_kb VmRSS)
peak_rss=$(awk '{ if ($2 > m) m = $2 } END { print m + 0 }' "$W/samples")
growth=$((rss1 - rss0))
if grep -q 'libasan' "/proc/$pid/maps"; then
  ok "VmRSS $rss0 kB before the storm, $peak_rss kB at the peak, $rss1 kB after ($growth kB; AddressSanitizer build: not checked)"
else
  [ "$growth" -lt "$RSS_BOUND_KB" ] || fail "VmRSS grew by $growth kB over the storm ($rss0 -> $rss1 kB; bound $RSS_BOUND_KB kB)"
  ok "VmRSS $rss0 kB before the storm, $peak_rss kB at the peak, $rss1 kB after: grew by $growth kB (bound $RSS_BOUND_KB kB)"
fi

# --- The same daemon, answering everyone, and a clean log.
[ "$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
  GetConnectionUnixProcessID s org.gnome.Sysprof3 | awk '{print $2}')" = "$pid" ] || fail "sysprofd is not the same process"
for u in sysprof-test-allowed sysprof-test-other; do
  out=$(timeout 20 runuser -u "$u" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" \
    "$W/bin/stress-probe" probe $((s + 40)) 0.1) || fail "$u is not served after the storm: $out"
  [ "$(echo "$out" | awk '$1 == "unexpected" { print $2 }')" = 0 ] || fail "$u after the storm: $out"
done
out=$(timeout 20 runuser -u sysprof-test-denied -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" \
  "$W/bin/stress-client" denied $((s + 41)) 0.1 20) || fail "the refused user is not answered after the storm: $out"
[ "$(echo "$out" | awk '$1 == "unexpected" { print $2 }')" = 0 ] || fail "the refused user after the storm: $out"
refused_after=$(echo "$out" | awk '$1 == "calls" { print $2 }')
# Whole-system sessions amid process churn: the unwinding helpers meet every
# kind of program; none may die of its own seccomp filter.
if grep -E 'CRITICAL|WARNING|ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: |outside its seccomp filter' "$log" > "$W/log-problems"; then
  fail "the daemon's log: $(head -5 "$W/log-problems")"
fi
ok "the same sysprofd (pid $pid) records and lists processes for both authorized users and refuses the third ($refused_after calls, none served) after the storm; its log ($(wc -l < "$log") lines) has no warning, critical, sanitizer report or helper killed by its filter"

echo "1..$n"
