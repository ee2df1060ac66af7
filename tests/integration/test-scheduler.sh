#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Scheduler details (issue 18), recorded by our sysprof-cli through sysprofd
# as an unprivileged user: blocking-workload waits in wait_in_sleep (nanosleep),
# wait_in_pipe_read (read of a pipe written 40 ms later) and wait_in_mutex (a
# mutex held 30 ms by another thread), and measures how long each took; the
# off-CPU analysis must attribute each function within 10 % of that.  The
# capture carries Sysprof 48's Scheduler marks and our counts, and Debian's
# Sysprof 3.46 reads it with the waits apart under "[off-CPU]".  A per-thread
# recording (--pid) sees the waits of the process it follows; the off-CPU
# and wall-clock exports (pprof, speedscope, perf script) weigh what top
# says.  A session of
# one's own processes (the weaker polkit action) cannot have them.  Tens of
# thousands of switches a second: the recording keeps up or counts what it
# lost, and the capture stays whole.
# Run under tools/with-sysprofd.sh:
#   test-scheduler.sh SYSPROF_CLI SYSPROF_REPORT SYSPROF_DUMP BLOCKING_WORKLOAD [CALLGRAPH_346]
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") dump=$(realpath "$3") workload=$(realpath "$4")
callgraph_346=${5:+$(realpath "$5")}
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u" "$W/d"
install -m 755 "$cli" "$report" "$dump" "$workload" "$W/bin/"
chown "$U" "$W/u"
chown sysprof-test-denied "$W/d"
as () { # USER COMMAND...
  runuser -u "$1" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" timeout 120 "${@:2}"
}
# FUNCTION COLUMN < TSV: the value of COLUMN (1-based) in FUNCTION's row.
field () { awk -F'\t' -v f="$1" -v c="$2" 'NR > 1 && $1 == f { print $c; exit }'; }
within () { # VALUE WANT FRACTION
  awk -v v="$1" -v w="$2" -v f="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(v != "" && w > 0 && d <= f * w) }'
}

echo "1..6"

# 1. The waits of the workload, attributed to the functions that waited.
(cd "$W/u" && as "$U" sysprof-cli -f --scheduler sched.syscap -- blocking-workload 8) > "$W/out" 2>&1 ||
  fail "sysprof-cli --scheduler: $(tr '\n' '|' < "$W/out")"
as "$U" sysprof-report top --off-cpu --comm blocking-workload --format tsv --limit 0 "$W/u/sched.syscap" > "$W/off.tsv" ||
  fail "sysprof-report top --off-cpu failed"
[ "$(head -n 1 "$W/off.tsv")" = $'function\tlibrary\tself_usec\ttotal_usec\tself_percent\ttotal_percent' ] ||
  fail "tsv header: $(head -n 1 "$W/off.tsv")"
got=
for f in wait_in_sleep wait_in_pipe_read wait_in_mutex; do
  measured=$(awk -v f="$f" '$1 == f { print $2 }' "$W/out")
  [ -n "$measured" ] || fail "the workload did not report $f: $(tr '\n' '|' < "$W/out")"
  seconds=$(field "$f" 4 < "$W/off.tsv" | awk '{ if ($1 != "") printf "%.6f", $1 / 1e6 }')
  within "$seconds" "$measured" 0.10 ||
    fail "$f: $seconds s off CPU in the capture, the workload measured $measured s: $(grep wait_in "$W/off.tsv" | tr '\n' '|')"
  got="$got $f ${seconds}s/${measured}s"
done
# The main thread's time off the CPU: those waits, and short ones between.
wpid=$(as "$U" sysprof-report threads --format tsv "$W/u/sched.syscap" | awk -F'\t' '$3 == "blocking-worklo" && $1 == $2 && !p { p = $1 } END { print p }')
[ -n "$wpid" ] || fail "sysprof-report threads does not list the workload's main thread"
main_off=$(as "$U" sysprof-report threads --pid "$wpid" --format tsv "$W/u/sched.syscap" | awk -F'\t' -v p="$wpid" '$2 == p { print $4 / 1e9 }')
want=$(awk '/^wait_in_/ { s += $2 } END { print s }' "$W/out")
within "$main_off" "$want" 0.10 || fail "threads: the main thread waited $main_off s, the three waits took $want s"
[ "$(as "$U" sysprof-report threads --pid "$wpid" --format tsv "$W/u/sched.syscap" | awk -F'\t' 'NR > 1' | wc -l)" -ge 3 ] ||
  fail "threads: the workload's helper threads are not listed"
# The same waits in the pprof export, read by Google's pprof (when built:
# tools/test.sh builds it).
if command -v pprof > /dev/null; then
  as "$U" sysprof-report export --format pprof --off-cpu --comm blocking-workload -o "$W/u/off.pb.gz" \
    "$W/u/sched.syscap" 2> /dev/null || fail "sysprof-report export --off-cpu failed"
  pprof -top -unit=us -nodecount=1000000 -nodefraction=0 "$W/u/off.pb.gz" > "$W/off.pprof" 2> /dev/null ||
    fail "pprof cannot read the off-CPU export"
  for f in wait_in_sleep wait_in_pipe_read wait_in_mutex; do
    cum=$(awk -v f="$f" '$6 == f { sub(/us$/, "", $4); print $4 }' "$W/off.pprof")
    [ "$cum" = "$(field "$f" 4 < "$W/off.tsv")" ] ||
      fail "pprof's cum of $f is $cum us, sysprof-report's total $(field "$f" 4 < "$W/off.tsv") us"
  done
  got="$got; pprof agrees"
fi
# And in speedscope's format: each function's weight over the samples
# whose stack holds it is its total.
as "$U" sysprof-report export --format speedscope --off-cpu --comm blocking-workload -o "$W/u/off.speedscope.json" \
  "$W/u/sched.syscap" 2> /dev/null || fail "sysprof-report export --format speedscope --off-cpu failed"
for f in wait_in_sleep wait_in_pipe_read wait_in_mutex; do
  weight=$(python3 - "$W/u/off.speedscope.json" "$f" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
names = [frame['name'] for frame in doc['shared']['frames']]
total = 0
for profile in doc['profiles']:
    for sample, weight in zip(profile['samples'], profile['weights']):
        if any(names[i] == sys.argv[2] for i in sample):
            total += weight
print(int(total))
PY
)
  [ "$weight" = "$(field "$f" 4 < "$W/off.tsv")" ] ||
    fail "speedscope's weight of $f is $weight us, sysprof-report's total $(field "$f" 4 < "$W/off.tsv") us"
done
got="$got; speedscope agrees"
# And in perf script's text, read by the strict reader of the perf-script
# tests: each function's periods (nanoseconds waited) over the samples whose
# stack holds it, in microseconds, are its total; the wall-clock export's
# are top --wall-clock's for every function.
check_script="python3 $(dirname "$0")/../../clients/report/tests/check-perf-script.py"
as "$U" sysprof-report export --format perf-script --off-cpu --comm blocking-workload -o "$W/u/off.txt" \
  "$W/u/sched.syscap" 2> /dev/null || fail "sysprof-report export --format perf-script --off-cpu failed"
$check_script functions "$W/u/off.txt" --period 1000 > "$W/off.script" || fail "the reader refuses the off-CPU perf script"
$check_script stats "$W/u/off.txt" > "$W/off.stats"
grep -qx 'events=offcpu-time' "$W/off.stats" || fail "the off-CPU perf script's event is not offcpu-time"
for f in wait_in_sleep wait_in_pipe_read wait_in_mutex; do
  total=$(awk -F'\t' -v f="$f" '$1 == f { print $3 }' "$W/off.script")
  [ "$total" = "$(field "$f" 4 < "$W/off.tsv")" ] ||
    fail "perf script's periods of $f are $total us, sysprof-report's total $(field "$f" 4 < "$W/off.tsv") us"
done
as "$U" sysprof-report export --format perf-script --wall-clock --comm blocking-workload -o "$W/u/wall.txt" \
  "$W/u/sched.syscap" 2> /dev/null || fail "sysprof-report export --format perf-script --wall-clock failed"
$check_script functions "$W/u/wall.txt" --period 1000 | LC_ALL=C sort > "$W/wall.script" ||
  fail "the reader refuses the wall-clock perf script"
as "$U" sysprof-report top --wall-clock --comm blocking-workload --format tsv --limit 0 "$W/u/sched.syscap" |
  awk -F'\t' 'NR > 1 && $1 !~ /^- - .* - -$/ { self[$1] += $3; total[$1] = $4; c[$1]++ }
       END { for (f in self) print f "\t" self[f] "\t" (c[f] == 1 ? total[f] : "-") }' | LC_ALL=C sort > "$W/wall.want"
LC_ALL=C join -t $'\t' "$W/wall.script" "$W/wall.want" |
  awk -F'\t' '$2 != $4 || ($5 != "-" && $3 != $5) { bad++; if (bad < 4) print } END { exit bad > 0 || NR < 3 }' \
    > "$W/wall.bad" || fail "wall-clock perf script and top differ: $(tr '\n' '|' < "$W/wall.bad")"
got="$got; perf script agrees"
ok "off-CPU time per function (capture/measured):$got; per thread: the main thread ${main_off}s (${want}s measured)"

# 2. Sysprof 48's marks, one per slice, and our counts.
as "$U" sysprof-report marks --format tsv "$W/u/sched.syscap" > "$W/marks.tsv" || fail "sysprof-report marks failed"
slices=$(awk -F'\t' '$1 == "Scheduler" && $2 ~ /^CPU [0-9]+$/ { n += $3 } END { print n + 0 }' "$W/marks.tsv")
[ "$slices" -gt 10 ] || fail "Scheduler marks: $slices: $(head -n 5 "$W/marks.tsv" | tr '\n' '|')"
"$dump" "$W/u/sched.syscap" > "$W/dump.txt"
counts=$(grep -A2 'id: sysprof.scheduler' "$W/dump.txt" | grep -o 'switches=[0-9]* off-cpu=[0-9]* marks=[0-9]* dropped=[0-9]* frequency=[0-9]*' | tail -n 1)
[ -n "$counts" ] || fail "no sysprof.scheduler counts in the capture"
off=$(echo "$counts" | sed 's/.*off-cpu=\([0-9]*\).*/\1/')
[ "$off" -gt 0 ] && [ "$(grep -c ' off-cpu: [0-9]* us' "$W/dump.txt")" -eq "$off" ] ||
  fail "off-CPU samples in the capture vs the count ($counts)"
ok "$slices Scheduler marks (group Scheduler, name CPU N); $counts"

# 3. Debian's Sysprof 3.46 reads the capture, the waits apart.
if [ -n "$callgraph_346" ]; then
  "$callgraph_346" "$W/u/sched.syscap" > "$W/346.txt" || fail "Sysprof 3.46 cannot read the capture"
  grep -q $'^\\[off-CPU\\]\t' "$W/346.txt" && grep -q $'^wait_in_sleep\t' "$W/346.txt" ||
    fail "Sysprof 3.46 does not show [off-CPU] and wait_in_sleep: $(grep -c . "$W/346.txt") functions"
  if grep -q $'^kernel+0xe0' "$W/346.txt"; then fail "Sysprof 3.46 takes the [off-CPU] address for a kernel one"; fi
  ok "Sysprof 3.46's callgraph shows [off-CPU] and the workload's functions"
else
  ok "# SKIP Debian's libsysprof-4 is not installed"
fi

# 4. A per-thread recording (--pid) of the running workload.
as "$U" blocking-workload 40 > /dev/null 2>&1 &
wpid=
for _ in $(seq 50); do wpid=$(pgrep -n -u "$U" -x blocking-worklo) && break; sleep 0.1; done
[ -n "$wpid" ] || fail "the workload did not start"
(cd "$W/u" && as "$U" sysprof-cli -f --scheduler --pid "$wpid" --duration 2 pid.syscap) > "$W/pid.out" 2>&1 ||
  fail "sysprof-cli --scheduler --pid: $(tr '\n' '|' < "$W/pid.out")"
wait
as "$U" sysprof-report top --off-cpu --pid "$wpid" --format tsv --limit 0 "$W/u/pid.syscap" > "$W/pid.tsv"
s=$(field wait_in_sleep 4 < "$W/pid.tsv") p=$(field wait_in_pipe_read 4 < "$W/pid.tsv") m=$(field wait_in_mutex 4 < "$W/pid.tsv")
# 50, 40 and 30 ms a round: the shares of 120 ms, within a round at each end.
total=$(awk -v a="$s" -v b="$p" -v c="$m" 'BEGIN { print a + b + c }')
within "$total" 2000000 0.15 ||
  fail "per-thread recording: $total us off CPU in the three functions over 2 s (sleep $s, pipe $p, mutex $m)"
within "$s" "$(awk -v t="$total" 'BEGIN { print t * 50 / 120 }')" 0.15 ||
  fail "per-thread recording: wait_in_sleep $s us of $total"
grep -q $'^Scheduler\tCPU' <(as "$U" sysprof-report marks --format tsv "$W/u/pid.syscap") ||
  fail "per-thread recording: no Scheduler marks"
ok "per-thread recording: $total us in the three functions over 2 s (sleep $s, pipe $p, mutex $m), Scheduler marks"

# 5. Not for sessions of one's own processes: the user polkit denies the
# machine gets AccessDenied, and nothing runs.
as sysprof-test-denied sh -c 'i=0; while [ $i -lt 30000000 ]; do i=$((i+1)); done' > /dev/null 2>&1 &
busy=
for _ in $(seq 50); do busy=$(pgrep -n -u sysprof-test-denied -x sh) && break; sleep 0.1; done
[ -n "$busy" ] || fail "the denied user's workload did not start"
rc=0
(cd "$W/d" && as sysprof-test-denied sysprof-cli -f --scheduler --pid "$busy" --duration 1 own.syscap) > "$W/own.out" 2>&1 || rc=$?
kill "$busy" 2> /dev/null || true
wait
[ $rc -ne 0 ] && grep -q 'scheduler' "$W/own.out" && grep -qi 'not authorized' "$W/own.out" ||
  fail "--scheduler in an own-processes session: exit $rc: $(tr '\n' '|' < "$W/own.out")"
rc=0
(cd "$W/d" && as sysprof-test-denied sysprof-cli -f --scheduler --duration 1 all.syscap) > "$W/all.out" 2>&1 || rc=$?
[ $rc -ne 0 ] && grep -qi 'not authorized' "$W/all.out" || fail "--scheduler of the whole system as the denied user: exit $rc"
ok "refused to the denied user: $(grep -i 'not authorized' "$W/own.out" | head -n 1)"

# 6. Switches as fast as two threads can pass a byte: every voluntary switch
# the kernel counted for them is an off-CPU sample, or the recording says it
# lost records; the capture reads to its end either way.
(cd "$W/u" && as "$U" sysprof-cli -f --scheduler ping.syscap -- blocking-workload ping 20000) > "$W/ping.out" 2>&1 ||
  fail "sysprof-cli --scheduler (ping): $(tr '\n' '|' < "$W/ping.out")"
waits=$(awk '$1 == "waits" { print $2 }' "$W/ping.out")
lost=$(sed -n 's/^Recorded .* \([0-9][0-9]*\) lost.*$/\1/p' "$W/ping.out")
[ -n "$waits" ] && [ -n "$lost" ] || fail "ping: no waits or lost count: $(tr '\n' '|' < "$W/ping.out")"
"$dump" --stats "$W/u/ping.syscap" > /dev/null || fail "ping: the capture does not read to its end"
as "$U" sysprof-report threads --format tsv "$W/u/ping.syscap" > "$W/ping.tsv"
recorded=$(awk -F'\t' '$3 == "blocking-worklo" { n += $5 } END { print n + 0 }' "$W/ping.tsv")
counts=$("$dump" "$W/u/ping.syscap" | grep -A2 'id: sysprof.scheduler' | grep -o 'switches=[0-9]* .*' | tail -n 1)
[ -n "$counts" ] || fail "ping: no sysprof.scheduler counts"
if [ "$lost" -eq 0 ]; then
  awk -v r="$recorded" -v w="$waits" 'BEGIN { exit !(r >= 0.95 * w) }' ||
    fail "ping: nothing lost, but $recorded off-CPU samples of the workload for the $waits waits the kernel counted"
  ok "switch-heavy: all $waits waits of the workload recorded ($recorded off-CPU samples), nothing lost; $counts"
else
  ok "switch-heavy: $recorded of the workload's $waits waits recorded, $lost records lost and counted; $counts"
fi
