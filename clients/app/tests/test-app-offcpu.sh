#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The app on a capture recorded with --scheduler: the callgraph view's
# source drop-down switches it to the off-CPU callgraph, whose functions
# weigh exactly what `sysprof-report top --off-cpu` says; the threads view
# draws the threads that waited and lists every thread's time off the CPU
# as `sysprof-report threads` does.  Screenshots of both.
#
# Usage: test-app-offcpu.sh TEST_APP SYSPROF_CLI SYSPROF_REPORT BLOCKING_WORKLOAD SHOT_DIR

set -euo pipefail

TEST_APP=$1 SYSPROF_CLI=$2 SYSPROF_REPORT=$3 WORKLOAD=$4 SHOT_DIR=$5

work=$(mktemp -d /tmp/test-app-offcpu.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$SHOT_DIR"

echo "1..2"
if [ "$(id -u)" != 0 ] || [ ! -e /sys/kernel/tracing/events/sched/sched_switch/format ]; then
    echo "ok 1 - # SKIP recording scheduler details needs root and tracefs"
    echo "ok 2 - # SKIP"
    exit 0
fi
"$SYSPROF_CLI" -f --scheduler --no-cpu --no-memory --no-disk --no-network "$work/sched.syscap" -- "$WORKLOAD" 4 \
    > "$work/record.out" 2>&1 || { echo "not ok 1 - recording failed: $(tr '\n' '|' < "$work/record.out")"; exit 1; }

if ! "$TEST_APP" offcpu "$work/sched.syscap" "$SHOT_DIR" > "$work/app.out" 2> "$work/err"; then
    echo "not ok 1 - the app: $(tr '\n' '|' < "$work/err")"
    exit 1
fi

# 1. The off-CPU callgraph: the total and each wait_in_ function as the report.
"$SYSPROF_REPORT" top --off-cpu --format tsv --limit 0 "$work/sched.syscap" > "$work/top.tsv"
total=$(sed -n 's/^total //p' "$work/app.out")
want=$("$SYSPROF_REPORT" top --off-cpu "$work/sched.syscap" | sed -n '1s/^.*: \([0-9.]*\) s off CPU.*$/\1/p')
awk -v t="$total" -v w="$want" 'BEGIN { d = t / 1e6 - w; exit !(t > 0 && d < 0.0006 && d > -0.0006) }' ||
    { echo "not ok 1 - off-CPU total: the app $total us, the report $want s"; exit 1; }
for f in wait_in_sleep wait_in_pipe_read wait_in_mutex; do
    app=$(awk -F'\t' -v f="$f" '$1 == f { print $4; exit }' "$work/app.out")
    report=$(awk -F'\t' -v f="$f" 'NR > 1 && $1 == f { print $4; exit }' "$work/top.tsv")
    [ -n "$app" ] && [ "$app" = "$report" ] ||
        { echo "not ok 1 - $f: the app's off-CPU callgraph says $app us, sysprof-report $report"; exit 1; }
done
echo "ok 1 - the off-CPU callgraph through the drop-down: $total us, wait_in_* as sysprof-report top --off-cpu"

# 2. The threads view: a chart of the threads that waited, the table as the report.
rows=$(sed -n 's/^chart_rows //p' "$work/app.out")
[ "${rows:-0}" -ge 3 ] || { echo "not ok 2 - the threads chart has ${rows:-no} rows"; exit 1; }
grep $'^thread\t' "$work/app.out" | cut -f2-5 | sort > "$work/app-threads"
"$SYSPROF_REPORT" threads --format tsv "$work/sched.syscap" | awk -F'\t' 'NR > 1 { print $1 "\t" $2 "\t" $4 "\t" $5 }' |
    sort > "$work/report-threads"
if ! diff -q "$work/app-threads" "$work/report-threads" > /dev/null; then
    echo "not ok 2 - the threads table differs from sysprof-report threads: $(diff "$work/app-threads" "$work/report-threads" | head -n 4 | tr '\n' '|')"
    exit 1
fi
[ -s "$SHOT_DIR/threads.png" ] && [ -s "$SHOT_DIR/offcpu-callgraph.png" ] || { echo "not ok 2 - screenshots missing"; exit 1; }
echo "ok 2 - the threads view: $rows chart rows, $(wc -l < "$work/app-threads") threads as sysprof-report threads; screenshots"
