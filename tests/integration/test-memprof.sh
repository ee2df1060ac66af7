#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Memory tracing end to end: the unprivileged user records
# tests/workloads/memory-workload with `sysprof-cli --memprof` (rings from
# sysprofd's session, or drained by sysprof-cli itself without the daemon),
# and every analysis of `sysprof-report memory` gives the workload's exact
# numbers; nothing is lost at 2 threads x 1 million allocations; hostile and
# crashing programs leave a valid capture.  Run under tools/with-sysprofd.sh:
#   test-memprof.sh SYSPROF_CLI SYSPROF_REPORT SYSPROF_DUMP LIBSYSPROF_MEMORY MEMORY_WORKLOAD MEMORY_HOSTILE MODE [UPSTREAM_ORACLE]
# MODE: daemon or no-daemon, optionally followed by :stream (the tracker
# writes compact memory streams, sysprof-cli --memprof-format=stream; the
# same steps give the same numbers); UPSTREAM_ORACLE (tests/compat) reads
# with Debian's Sysprof 3.46 library.
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") dump=$(realpath "$3") preload=$(realpath "$4")
workload=$(realpath "$5") hostile=$(realpath "$6") mode=${7%:stream} oracle=${8:+$(realpath "$8")}
format=frames && [ "$7" != "$mode" ] && format=stream
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u"
install -m 755 "$cli" "$report" "$dump" "$workload" "$hostile" "$W/bin/"
install -m 644 "$preload" "$W/bin/"
chown -R "$U" "$W/u"
as () {
  runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" \
    SYSPROF_MEMORY_PRELOAD="$W/bin/libsysprof-memory.so" "$@"
}
# Column $2 of the tsv row whose first column is $1 (empty when absent).
field () { awk -F'\t' -v f="$1" -v c="$2" '$1 == f { print $c; exit }'; }
metric () { awk -F'\t' -v m="$1" '$1 == m { print $2; exit }'; }
expect () { [ "$2" = "$3" ] || fail "$1: expected $3, got ${2:-nothing}"; }
record () {
  local out=$1; shift
  as "$W/bin/sysprof-cli" --force --memprof-format=$format "$@" > "$W/cli.out" 2>&1 || fail "sysprof-cli $*: $(cat "$W/cli.out")"
  [ "$(stat -c %U "$out")" = "$U" ] || fail "$out does not belong to the user"
}

if [ "$mode" = no-daemon ]; then
  # Without sysprofd nothing but the command's allocations can be recorded;
  # asking for CPU sampling as well says so, and records the allocations.
  record "$W/u/warn.syscap" --memprof "$W/u/warn.syscap" -- "$W/bin/memory-workload" 1 1000 10 1 3 5
  grep -q 'recording memory allocations only' "$W/cli.out" || fail "no warning about CPU sampling: $(cat "$W/cli.out")"
  as "$W/bin/sysprof-report" memory --leaks --format tsv "$W/u/warn.syscap" > "$W/warn.tsv" || fail "report failed"
  expect "leak_alloc leaks without sysprofd" "$(field leak_alloc 3 < "$W/warn.tsv")" 3
  ok "no sysprofd, CPU sampling asked: a warning, and the allocations are recorded by sysprof-cli"
fi

# 1. 2 threads x 1,000,000 allocations, 100 temporaries and 10 cross-thread
#    frees each, 7 leaks, 50 blocks grown between two marks.
record "$W/u/mem.syscap" --memprof --no-perf "$W/u/mem.syscap" -- "$W/bin/memory-workload" 2 1000000 100 10 7 50
grep -q '^ok threads=2 n=1000000' "$W/cli.out" || fail "the workload did not finish: $(cat "$W/cli.out")"
"$dump" --stats "$W/u/mem.syscap" > "$W/stats" || fail "the capture is not valid"
as "$W/bin/sysprof-report" memory --summary --format tsv "$W/u/mem.syscap" > "$W/summary.tsv" || fail "summary failed"
expect "lost events" "$(metric lost_events < "$W/summary.tsv")" 0
expect "unmatched frees" "$(metric unmatched_frees < "$W/summary.tsv")" 0
as "$W/bin/sysprof-report" top --memory --format tsv --limit 0 "$W/u/mem.syscap" > "$W/top.tsv" || fail "top --memory failed"
head -1 "$W/top.tsv" | grep -q $'^function\tlibrary\tself_allocations\t' || fail "top --memory header: $(head -1 "$W/top.tsv")"
for spec in churn_alloc:2000000 cross_alloc:20 temp_alloc:200 leak_alloc:7 grow_alloc:50; do
  expect "allocations in ${spec%:*}" "$(field "${spec%:*}" 3 < "$W/top.tsv")" "${spec#*:}"
done
expect "churn_alloc bytes" "$(field churn_alloc 5 < "$W/top.tsv")" $((2 * 1000000 / 64 * 33280))
expect "workload library" "$(field churn_alloc 2 < "$W/top.tsv")" memory-workload
# ALLOCATION frames, or the events of the streams, which the analyses read.
records=$(awk '$1 == "ALLOCATION" { print $2 }' "$W/stats") records_frames=$records
[ $format = frames ] || records=$(metric records_read < "$W/summary.tsv")
[ $format = frames ] || [ "${records_frames:-0}" = 0 ] || fail "$records_frames ALLOCATION frames in stream mode"
expect "record errors" "$(metric record_errors < "$W/summary.tsv")" 0
grep -q "^Recorded .* $records allocation records, .*, 0 lost" "$W/cli.out" || fail "sysprof-cli's summary: $(tail -1 "$W/cli.out")"
ok "2 x 1000000 allocations through $mode as $format: every one in the capture, by site, 0 lost ($records records, as sysprof-cli said)"

# 2. Leaks: exactly leak_alloc's 7 blocks of 1000 bytes among the workload's sites.
as "$W/bin/sysprof-report" memory --leaks --format tsv --limit 0 "$W/u/mem.syscap" > "$W/leaks.tsv" || fail "--leaks failed"
expect "leaks header" "$(head -1 "$W/leaks.tsv")" $'function\tlibrary\tleaked_allocations\tleaked_bytes'
expect "leak_alloc leaked" "$(field leak_alloc 3 < "$W/leaks.tsv") $(field leak_alloc 4 < "$W/leaks.tsv")" "7 7000"
for fn in churn_alloc cross_alloc temp_alloc grow_alloc; do
  [ -z "$(field $fn 3 < "$W/leaks.tsv")" ] || fail "$fn reported as leaking: $(grep "$fn" "$W/leaks.tsv")"
done
ok "leaks: leak_alloc 7 allocations, 7000 bytes; no other workload site"

# 3. Temporaries: temp_alloc's 200; the last grow_alloc block, freed before
#    main allocates again, is one too (by the rule); churn_alloc none.
as "$W/bin/sysprof-report" memory --temporary --format tsv --limit 0 "$W/u/mem.syscap" > "$W/temp.tsv" || fail "--temporary failed"
expect "temp_alloc temporaries" "$(field temp_alloc 3 < "$W/temp.tsv") $(field temp_alloc 4 < "$W/temp.tsv")" "200 9600"
expect "grow_alloc temporaries" "$(field grow_alloc 3 < "$W/temp.tsv")" 1
[ -z "$(field churn_alloc 3 < "$W/temp.tsv")" ] || fail "churn_alloc has temporaries"
ok "temporary: temp_alloc 200 (9600 bytes), grow_alloc 1, churn_alloc none"

# 4. Cross-thread frees: each worker's 10 cross_alloc blocks, freed by main.
as "$W/bin/sysprof-report" memory --cross-thread --format tsv --limit 0 "$W/u/mem.syscap" > "$W/cross.tsv" || fail "--cross-thread failed"
expect "cross header" "$(head -1 "$W/cross.tsv")" $'function\tlibrary\talloc_tid\tfree_tid\tfrees\tbytes'
rows=$(awk -F'\t' 'NR > 1 && $1 == "cross_alloc" && $5 == 10 && $6 == 1000 && $3 != $4 { print $3, $4 }' "$W/cross.tsv")
[ "$(echo "$rows" | wc -l)" -eq 2 ] || fail "cross_alloc rows: $(cat "$W/cross.tsv")"
[ "$(echo "$rows" | awk '{ print $2 }' | sort -u | wc -l)" -eq 1 ] || fail "not freed by one thread: $rows"
[ "$(echo "$rows" | awk '{ print $1 }' | sort -u | wc -l)" -eq 2 ] || fail "not allocated by two threads: $rows"
[ "$(awk -F'\t' 'NR > 1 { s += $5 } END { print s }' "$W/cross.tsv")" -eq 20 ] || fail "other cross-thread frees: $(cat "$W/cross.tsv")"
ok "cross-thread: 2 x 10 cross_alloc blocks, 1000 bytes each, freed by the main thread"

# 5. Heap diff between the two marks: grow_alloc's 50 blocks are new.  (A
#    smaller recording: the marks are found in the text dump.)
record "$W/u/diff.syscap" --memprof --no-perf "$W/u/diff.syscap" -- "$W/bin/memory-workload" 2 20000 100 10 7 50
"$dump" "$W/u/diff.syscap" > "$W/diff.txt" || fail "the capture is not valid"
start=$(awk '/^Start time:/ { print $3 }' "$W/diff.txt")
marks=$(awk '/^MARK / { split($0, a, "time="); split(a[2], b, " "); t = b[1] } /^  name: grow-/ { print $2, t }' "$W/diff.txt")
t1=$(echo "$marks" | awk -v s="$start" '$1 == "grow-begin" { printf "%.9f", ($2 - s) / 1e9 }')
t2=$(echo "$marks" | awk -v s="$start" '$1 == "grow-end" { printf "%.9f", ($2 - s) / 1e9 }')
[ -n "$t1" ] && [ -n "$t2" ] || fail "the workload's marks are missing: $marks"
as "$W/bin/sysprof-report" memory --diff "$t1" "$t2" --format tsv --limit 0 "$W/u/diff.syscap" > "$W/diff.tsv" || fail "--diff failed"
expect "grow_alloc diff" "$(awk -F'\t' '$1 == "grow_alloc" { print $3, $5, $8, $9 }' "$W/diff.tsv")" "0 50 204800 new"
expect "leak_alloc diff" "$(awk -F'\t' '$1 == "leak_alloc" { print $3, $5, $9 }' "$W/diff.tsv")" "7 7 unchanged"
[ -z "$(field churn_alloc 1 < "$W/diff.tsv")" ] || fail "churn_alloc in the diff: $(grep churn_alloc "$W/diff.tsv")"
if [ -n "$oracle" ] && [ $format = frames ]; then
  # Debian's Sysprof 3.46 library reads the same capture to its end, with
  # the same number of allocation records.
  "$oracle" stats "$W/u/diff.syscap" > "$W/diff-346.txt" || fail "Sysprof 3.46 cannot read the memory capture"
  "$dump" --stats "$W/u/diff.syscap" > "$W/diff-ours.txt"
  expect "ALLOCATION frames read by Sysprof 3.46" "$(grep '^ALLOCATION ' "$W/diff-346.txt")" "$(grep '^ALLOCATION ' "$W/diff-ours.txt")"
fi
ok "diff between the marks ($t1 s, $t2 s): grow_alloc new, 50 blocks, 204800 bytes; leak_alloc unchanged"

# 6. Heap over time: ends at what is live at the end; SVG chart valid.
as "$W/bin/sysprof-report" memory --over-time --points 50 --format tsv "$W/u/mem.syscap" > "$W/time.tsv" || fail "--over-time failed"
expect "over-time rows" "$(($(wc -l < "$W/time.tsv") - 1))" 50
expect "live bytes at the end" "$(tail -1 "$W/time.tsv" | cut -f2)" "$(metric live_bytes < "$W/summary.tsv")"
peak=$(awk -F'\t' 'NR > 1 && $4 > p { p = $4 } END { print p + 0 }' "$W/time.tsv")
[ "$peak" -ge $((204800 + 7000)) ] || fail "peak $peak below the grown heap"
as "$W/bin/sysprof-report" memory --over-time --svg - "$W/u/mem.syscap" > "$W/time.svg" || fail "--svg failed"
xmllint --noout "$W/time.svg" || fail "the SVG chart is not well-formed"
ok "over time: 50 points, live bytes at the end as in the summary, peak $peak bytes, SVG well-formed"

# 7. Hostile and crashing programs: the recording completes, the capture is
#    valid and keeps what came before the damage.
record "$W/u/abort.syscap" --memprof --no-perf "$W/u/abort.syscap" -- "$W/bin/memory-hostile" abort
grep -q 'killed by signal 6' "$W/cli.out" || fail "abort: $(cat "$W/cli.out")"
"$dump" --stats "$W/u/abort.syscap" > /dev/null || fail "abort: the capture is not valid"
as "$W/bin/sysprof-report" memory --summary --format tsv "$W/u/abort.syscap" > "$W/abort.tsv" || fail "abort: summary failed"
# (Streams: the blocks not yet written when the program dies are written by
# the tracker's handler of the fatal signal, so nothing is lost either.)
[ "$(metric allocations < "$W/abort.tsv")" -ge 40000 ] || fail "abort: allocations before the crash lost: $(cat "$W/abort.tsv")"
record "$W/u/garbage.syscap" --memprof --no-perf "$W/u/garbage.syscap" -- "$W/bin/memory-hostile" garbage
"$dump" --stats "$W/u/garbage.syscap" > /dev/null || fail "garbage: the capture is not valid"
as "$W/bin/sysprof-report" memory --summary --format tsv "$W/u/garbage.syscap" > "$W/garbage.tsv" || fail "garbage: summary failed"
[ "$(metric lost_events < "$W/garbage.tsv")" -gt 0 ] || fail "garbage: no lost events counted"
as "$W/bin/sysprof-report" memory --leaks --format tsv "$W/u/garbage.syscap" > "$W/garbage-leaks.tsv" || fail "garbage: leaks failed"
expect "good_alloc before the garbage" "$(field good_alloc 3 < "$W/garbage-leaks.tsv") $(field good_alloc 4 < "$W/garbage-leaks.tsv")" "1000 4242000"
record "$W/u/trunc.syscap" --memprof --no-perf "$W/u/trunc.syscap" -- "$W/bin/memory-hostile" truncated
"$dump" --stats "$W/u/trunc.syscap" > /dev/null || fail "truncated: the capture is not valid"
# (Streams: the 100 allocations are in the thread's block when it aborts; the
# handler of SIGABRT writes it.)
as "$W/bin/sysprof-report" memory --leaks --format tsv "$W/u/trunc.syscap" > "$W/trunc.tsv" || fail "truncated: leaks failed"
expect "good_alloc before the truncated frame" "$(field good_alloc 3 < "$W/trunc.tsv")" 100
# Hostile memory-stream blocks (the program writes them into its own ring):
# each unsound block is one counted error, named by sysprof-report on every
# verb; the sound events around them are all there (15 x 777, 3 x 778,
# 4 x 779, 2 x 780 bytes) and so are good_alloc's 1000 blocks.
record "$W/u/streams.syscap" --memprof --no-perf "$W/u/streams.syscap" -- "$W/bin/memory-hostile" streams
as "$W/bin/sysprof-report" memory --summary --format tsv "$W/u/streams.syscap" > "$W/streams.tsv" 2> "$W/streams.err" \
  || fail "hostile streams: summary failed: $(cat "$W/streams.err")"
expect "hostile stream blocks" "$(metric record_errors < "$W/streams.tsv")" 6
expect "sound hostile-stream events" "$(metric size_512_1023_allocations < "$W/streams.tsv")" 24
grep -q ': 6 errors in the allocation records (their records are left out); the first: memory stream of thread 100000' "$W/streams.err" \
  || fail "hostile streams: no error on stderr: $(cat "$W/streams.err")"
as "$W/bin/sysprof-report" memory --leaks --format tsv "$W/u/streams.syscap" > "$W/streams-leaks.tsv" 2> /dev/null || fail "hostile streams: leaks failed"
[ "$(field good_alloc 3 < "$W/streams-leaks.tsv")" -ge 1000 ] || fail "good_alloc beside hostile streams: $(cat "$W/streams-leaks.tsv")"
[ "$(metric size_4096_8191_allocations < "$W/streams.tsv")" -ge 1000 ] || fail "good_alloc's 1000 blocks of 4242 bytes: $(cat "$W/streams.tsv")"
ok "hostile: abort mid-write ($(metric allocations < "$W/abort.tsv") allocations kept), garbage ring ($(metric lost_events < "$W/garbage.tsv") lost, 1000 good blocks kept), truncated frame: valid captures; 6 hostile stream blocks counted and named, the 24 sound events and 1000 good blocks kept"

# 8. Children: untraced by default, traced with --memprof-children.
twice="$W/bin/memory-workload 1 100 1 1 3 1; $W/bin/memory-workload 1 100 1 1 3 1"
record "$W/u/kids0.syscap" --memprof --no-perf "$W/u/kids0.syscap" -- /bin/sh -c "$twice"
as "$W/bin/sysprof-report" memory --leaks --format tsv --limit 0 "$W/u/kids0.syscap" > "$W/kids0.tsv" \
  || [ $? -eq 1 ] || fail "children: report failed"
[ -z "$(field leak_alloc 3 < "$W/kids0.tsv")" ] || fail "children traced without --memprof-children"
record "$W/u/kids.syscap" --memprof --memprof-children --no-perf "$W/u/kids.syscap" -- /bin/sh -c "$twice"
as "$W/bin/sysprof-report" memory --leaks --format tsv --limit 0 "$W/u/kids.syscap" > "$W/kids.tsv" || fail "children: --leaks failed"
expect "leak_alloc of both children" "$(field leak_alloc 3 < "$W/kids.tsv")" 6
as "$W/bin/sysprof-report" memory --format tsv "$W/u/kids.syscap" > "$W/kids-summary.tsv" || fail "children: summary failed"
[ "$(metric processes < "$W/kids-summary.tsv")" -ge 3 ] || fail "children: $(metric processes < "$W/kids-summary.tsv") processes"
expect "children lost events" "$(metric lost_events < "$W/kids-summary.tsv")" 0
ok "children: not traced by default; with --memprof-children both programs sh starts ($(metric processes < "$W/kids-summary.tsv") processes, 6 leaks)"

# 9. Debian's python3 (built without frame pointers, only .dynsym) under the
# tracker: with the default DWARF unwinding the allocation stacks reach the
# interpreter's loop and its entry point (main is not exported: Py_BytesMain,
# which main calls, stands for it); walking frame pointers they stop at once.
# (Frames per allocation are counted in sysprof-dump's text of ALLOCATION
# frames: frames format only.)
if [ -x /usr/bin/python3 ] && [ $format = frames ]; then
  # Strings of more than 512 bytes come from malloc, not from pymalloc's arenas.
  py='blocks = [("x" * 1000) + str(i) for i in range(20000)]'
  # Frames per allocation (not free) of a capture.
  frames_per_alloc () { "$dump" "$1" | awk '/^  alloc tid/ { n++; f += $NF } END { if (n) printf "%.2f", f / n; else print 0 }'; }
  for unwind in default fp; do
    opt=() && [ $unwind = fp ] && opt=(--memprof-unwind fp)
    record "$W/u/py-$unwind.syscap" --memprof --no-perf "${opt[@]}" "$W/u/py-$unwind.syscap" -- /usr/bin/python3 -c "$py"
    as "$W/bin/sysprof-report" top --memory=count --format tsv --limit 0 "$W/u/py-$unwind.syscap" > "$W/py-$unwind.tsv" \
      || fail "python3 ($unwind): report failed"
  done
  eval_share=$(field _PyEval_EvalFrameDefault 8 < "$W/py-default.tsv")
  entry_share=$(field Py_BytesMain 8 < "$W/py-default.tsv")
  frames_dwarf=$(frames_per_alloc "$W/u/py-default.syscap")
  frames_fp=$(frames_per_alloc "$W/u/py-fp.syscap")
  awk -v e="${eval_share:-0}" -v m="${entry_share:-0}" 'BEGIN { exit !(e >= 80 && m >= 95) }' \
    || fail "python3: _PyEval_EvalFrameDefault in ${eval_share:-no} %, Py_BytesMain in ${entry_share:-no} % of the allocation stacks (expected >= 80 and >= 95); $(head -5 "$W/py-default.tsv" | tr '\n' '|')"
  awk -v d="$frames_dwarf" -v f="$frames_fp" 'BEGIN { exit !(d >= 10 * f && d >= 10) }' \
    || fail "python3: $frames_dwarf frames per allocation by default, $frames_fp with --memprof-unwind fp"
  [ -z "$(field Py_BytesMain 8 < "$W/py-fp.tsv")" ] || fail "python3: frame pointers reached Py_BytesMain (is python3 built with them now?)"
  ok "python3: _PyEval_EvalFrameDefault in $eval_share %, Py_BytesMain in $entry_share % of the allocation stacks; $frames_dwarf frames per allocation (--memprof-unwind fp: $frames_fp)"
else
  n=$((n + 1))
  echo "ok $n # SKIP /usr/bin/python3 missing, or streams"
fi

if [ "$mode" = daemon ]; then
  # 10. Allocations and CPU samples together, the default.
  record "$W/u/both.syscap" --memprof "$W/u/both.syscap" -- "$W/bin/memory-workload" 2 300000 10 5 3 5
  "$dump" --stats "$W/u/both.syscap" > "$W/both.stats" || fail "combined: capture invalid"
  grep -qE '^SAMPLE [1-9]' "$W/both.stats" || fail "combined: no CPU samples: $(tr '\n' ' ' < "$W/both.stats")"
  as "$W/bin/sysprof-report" top --memory --format tsv "$W/u/both.syscap" > "$W/both.tsv" || fail "combined: report failed"
  expect "combined churn_alloc" "$(field churn_alloc 3 < "$W/both.tsv")" 600000
  ok "with CPU sampling: $(grep -E '^SAMPLE ' "$W/both.stats") and all 600000 churn allocations"
fi

echo "1..$n"
