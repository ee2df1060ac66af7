#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-cli --use-trace-fd and --gjs (issue 17): the command writes a whole
# capture of its own (trace-workload: "JavaScript" stacks through a JIT map,
# marks, a counter) into the descriptor it is handed; it is merged into the
# recording through sysprofd, as an unprivileged user: its marks at their
# times, its JIT names in sysprof-report top, its counter under an id of its
# own.  A capture with garbage after it, or none, gives a clear warning.
# Run under tools/with-sysprofd.sh:
#   test-trace-fd.sh SYSPROF_CLI SYSPROF_DUMP SYSPROF_REPORT TRACE_WORKLOAD
set -euo pipefail
cli=$(realpath "$1") dump=$(realpath "$2") report=$(realpath "$3") workload=$(realpath "$4")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u"
install -m 755 "$cli" "$dump" "$report" "$workload" "$W/bin/"
chown "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" timeout 120 "$@"; }
record () { # CAPTURE OPTION MODE [SAMPLES MARKS]
  rc=0
  (cd "$W/u" && as sysprof-cli --no-decode -f "$1" "$2" -- trace-workload "${@:3}") > "$W/out" 2>&1 || rc=$?
}
out () { tr '\n' '|' < "$W/out"; }
# The times of the MARK frames of group trace-test in capture $1, one a line.
mark_times () {
  "$dump" "$1" | awk '
    /^[A-Z_]+ @/ { m = ($1 == "MARK"); t = $0; sub(/.*time=/, "", t); sub(/ .*/, "", t) }
    m && /^  group: trace-test$/ { print t }' | sort -n
}

echo "1..5"

# 1. --use-trace-fd: 200 samples and 50 marks, merged.
record trace.syscap --use-trace-fd sysprof 200 50
[ $rc -eq 0 ] || fail "sysprof-cli --use-trace-fd failed ($rc): $(out)"
grep -q '^trace ok [0-9]*$' "$W/out" || fail "the workload found no \$SYSPROF_TRACE_FD: $(out)"
if grep -qi 'warning' "$W/out"; then fail "warnings for a sound trace: $(out)"; fi
pid=$(sed -n 's/^trace ok //p' "$W/out")
cap=$W/u/trace.syscap
"$dump" "$cap" > "$W/dump" || fail "the merged capture does not read whole"
[ "$(grep -c '^  group: trace-test$' "$W/dump")" -eq 50 ] || fail "not the 50 marks: $(grep -c '^  group: trace-test$' "$W/dump")"
# The marks at the times the program stamped them: inside the recording
# (after its start as the header says), over the ~50 ms they were written in.
awk -v pid="$pid" '/^MARK @/ && $3 != "pid=" pid { bad = 1 } END { exit bad }' "$W/dump" || fail "marks of another pid"
mark_times "$cap" > "$W/times"
first=$(head -1 "$W/times") last=$(tail -1 "$W/times")
t0=$(awk '/^Start time:/ { print $3 }' "$W/dump")
[ -n "$first" ] && [ "$first" -ge "$t0" ] || fail "the first mark ($first) is before the recording's start ($t0)"
[ $((last - first)) -ge 40000000 ] && [ $((last - first)) -lt 5000000000 ] ||
  fail "the marks span $((last - first)) ns, not the ~50 ms they were written over"
ok "--use-trace-fd: the program's 50 marks merged, from its process, at their times within the recording"

# The JIT names in sysprof-report top (the symbol table built after the merge).
(cd "$W/u" && as sysprof-cli --duration 60 -f trace2.syscap --use-trace-fd -- trace-workload sysprof 300 10) \
  > "$W/out" 2>&1 || fail "sysprof-cli with decoding failed: $(out)"
pid2=$(sed -n 's/^trace ok //p' "$W/out")
[ -n "$pid2" ] || fail "the workload did not run: $(out)"
"$report" top --format tsv --pid "$pid2" "$W/u/trace2.syscap" > "$W/top" || fail "sysprof-report top failed"
grep -q $'^js:inner (app.js:7)\t' "$W/top" || fail "js:inner is not in top: $(head -5 "$W/top" | tr '\n' '|')"
grep -q $'^js:outer (app.js:1)\t' "$W/top" || fail "js:outer is not in top: $(head -5 "$W/top" | tr '\n' '|')"
inner_self=$(awk -F'\t' '$1 == "js:inner (app.js:7)" { print $3 }' "$W/top")
[ "$inner_self" -ge 300 ] || fail "js:inner has $inner_self self samples, not the 300 written: $(grep js: "$W/top" | tr '\n' '|')"
ok "the JIT names reach sysprof-report top: js:inner with its 300 samples, js:outer its caller"

# The counter: an id of its own, not one of sysprofd's.
"$dump" "$cap" | awk '/^CTRDEF @/ { d = 1; next } /^[A-Z_]+ @/ { d = 0 } d && /^  counter/ { print }' > "$W/ctrdefs"
grep -q '\[trace-test\] ticks' "$W/ctrdefs" || fail "the program's counter is not defined: $(tr '\n' '|' < "$W/ctrdefs")"
[ "$(grep -c . "$W/ctrdefs")" -ge 2 ] || fail "sysprofd's counters are missing: $(tr '\n' '|' < "$W/ctrdefs")"
[ "$(awk '{ print $2 }' "$W/ctrdefs" | sort | uniq -d | wc -l)" -eq 0 ] || fail "counter ids collide: $(tr '\n' '|' < "$W/ctrdefs")"
ok "the program's counter got an id of its own beside sysprofd's"

# 2. --gjs: the same through GJS's variable.
record gjs.syscap --gjs gjs 50 20
[ $rc -eq 0 ] || fail "sysprof-cli --gjs failed ($rc): $(out)"
grep -q '^trace ok' "$W/out" || fail "the workload found no \$GJS_TRACE_FD with GJS_ENABLE_PROFILER=1: $(out)"
[ "$("$dump" "$W/u/gjs.syscap" | grep -c '^  group: trace-test$')" -eq 20 ] || fail "--gjs: not the 20 marks"
ok "--gjs: GJS_TRACE_FD and GJS_ENABLE_PROFILER=1 handed over, the capture merged"

# 3. Garbage after a sound capture; nothing at all.
record garbage.syscap --use-trace-fd garbage 20 10
[ $rc -eq 0 ] || fail "sysprof-cli failed on a damaged trace ($rc): $(out)"
grep -q 'could not be merged whole' "$W/out" || fail "no warning for the damaged trace: $(out)"
"$dump" "$W/u/garbage.syscap" > "$W/dump" || fail "the capture with a damaged trace does not read whole"
[ "$(grep -c '^  group: trace-test$' "$W/dump")" -eq 10 ] || fail "the marks before the damage were not kept"
record nothing.syscap --use-trace-fd nothing
[ $rc -eq 0 ] || fail "sysprof-cli failed when nothing was written ($rc): $(out)"
grep -q 'wrote no capture to \$SYSPROF_TRACE_FD' "$W/out" || fail "no warning when nothing was written: $(out)"
"$dump" --stats "$W/u/nothing.syscap" > /dev/null || fail "the capture is not valid when nothing was merged"
ok "garbage after the trace: merged up to it with a warning; no trace: a warning; both captures valid"
