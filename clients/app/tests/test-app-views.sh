#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The views the app shows for a capture are exactly those it has data for.
#
# Captures: CPU samples only, memory allocations only (with the marks the
# workload writes around its growth phase), counters only (all
# recorded here with our sysprof-cli, as root, without sysprofd), marks and
# logs (written by make-marks-logs-capture), the three fixtures of Debian's
# Sysprof 3.46, and the same three laid out as Sysprof 45+ writes captures
# (tests/tools/capture-to-new-format.c: gzipped embedded files, frame index,
# TRACE and DBUS_MESSAGE frames), which must show the same views.  The expected views come from sysprof-dump --stats
# (an independent reader): SAMPLE frames -> samples, callgraph, flamegraph;
# allocations -> memory; CTRSET -> counters; MARK -> marks; LOG -> logs;
# processes (PROCESS/FORK/EXIT, or samples or allocations of a pid) ->
# processes; embedded files -> files; details always.  For the fixed files
# they are also spelled out, so the oracle cannot drift with the app.
# Screenshots of every view go to SHOT_DIR/<capture>/<view>.png.
#
# Captures also open by drag and drop (the window's drop target given a file
# list) and from the command line of the installed program, `sysprof FILE`.
#
# The memory recording compacted into memory streams (sysprof-cat
# --compact-memory) shows the same views, its streams are not embedded
# files, and the details view counts their events with the allocations.
#
# Usage: test-app-views.sh TEST_APP MAKE_MARKS_LOGS SYSPROF_CLI SYSPROF_DUMP HOT_FUNCTIONS MEMORY_WORKLOAD DATA_DIR SHOT_DIR SYSPROF_APP TO_NEW_FORMAT SYSPROF_CAT

set -euo pipefail

TEST_APP=$1 MAKE_MARKS_LOGS=$2 SYSPROF_CLI=$3 SYSPROF_DUMP=$4 HOT_FUNCTIONS=$5 MEMORY_WORKLOAD=$6
DATA_DIR=$7 SHOT_DIR=$8 SYSPROF_APP=$9 TO_NEW_FORMAT=${10} SYSPROF_CAT=${11}

work=$(mktemp -d /tmp/test-app-views.XXXXXX)
trap 'rm -rf "$work"' EXIT

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip () { n=$((n + 1)); echo "ok $n - # SKIP $*"; }

stat_of () { # FILE NAME -> the count, 0 when absent
    awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$1"
}

expected_views () { # CAPTURE -> sorted, comma-separated ids
    local stats="$work/stats" views=(details)
    "$SYSPROF_DUMP" --stats "$1" >"$stats"
    local samples allocs
    samples=$(stat_of "$stats" SAMPLE)
    allocs=$(stat_of "$stats" ALLOCS)
    [ "$samples" -gt 0 ] && views+=(samples callgraph flamegraph)
    [ "$allocs" -gt 0 ] && views+=(memory)
    [ "$(stat_of "$stats" CTRSET)" -gt 0 ] && views+=(counters)
    [ "$(stat_of "$stats" MARK)" -gt 0 ] && views+=(marks)
    [ "$(stat_of "$stats" LOG)" -gt 0 ] && views+=(logs)
    [ "$(stat_of "$stats" DBUS_MESSAGE)" -gt 0 ] && views+=(dbus)
    if [ $(($(stat_of "$stats" PROCESS) + $(stat_of "$stats" FORK) + $(stat_of "$stats" EXIT) + samples + allocs)) -gt 0 ]; then
        views+=(processes)
    fi
    grep -q '^FILE ' "$stats" && views+=(files)
    printf '%s\n' "${views[@]}" | sort | paste -sd, -
}

sorted () { tr ',' '\n' <<<"$1" | sort | paste -sd, -; }

check_capture () { # NAME CAPTURE [SPELLED-OUT EXPECTATION]
    local name=$1 capture=$2 spelled=${3:-} want got out
    want=$(expected_views "$capture")
    if [ -n "$spelled" ] && [ "$(sorted "$spelled")" != "$want" ]; then
        not_ok "$name: sysprof-dump's frames give $want, expected $(sorted "$spelled")"
        return
    fi
    if ! out=$("$TEST_APP" views "$capture" "$want" "$SHOT_DIR/$name" 2>"$work/err"); then
        not_ok "$name: views (expected $want)"
        sed 's/^/# /' "$work/err"
        echo "# $out"
        return
    fi
    got=$(sed -n 's/^views //p' <<<"$out")
    ok "$name: exactly the views with data ($got); screenshots in $SHOT_DIR/$name"
}

check_streams () { # CAPTURE with ALLOCATION frames
    local stats="$work/frames.stats" cstats="$work/streams.stats" rows="$work/rows" want got files
    "$SYSPROF_DUMP" --stats "$1" >"$stats"
    "$SYSPROF_CAT" --compact-memory "$1" >"$work/streams.syscap"
    "$SYSPROF_DUMP" --stats "$work/streams.syscap" >"$cstats"
    if [ "$(stat_of "$cstats" ALLOCATION)" -ne 0 ] || ! grep -q '^STREAM ' "$cstats"; then
        not_ok "memory streams: sysprof-cat did not compact the recording"; return
    fi
    if ! "$TEST_APP" details "$work/streams.syscap" >"$rows" 2>"$work/err"; then
        not_ok "memory streams: details"; sed 's/^/# /' "$work/err"; return
    fi
    # Counts are shown with digit groups.
    row () { awk -F'\t' -v t="$1" '$1 == t { gsub(/[^0-9]/, "", $2); print $2; exit }' "$rows"; }
    want=$(($(stat_of "$stats" ALLOCS) + $(stat_of "$stats" FREES)))
    got=$(row "Allocations and frees")
    files=$(grep -c '^FILE ' "$cstats" || true)
    if [ "$got" != "$want" ]; then
        not_ok "memory streams: details says ${got:-no} allocations and frees, recorded $want"
    elif [ "$(row Allocations)" != "$(stat_of "$stats" ALLOCS)" ]; then
        not_ok "memory streams: details says $(row Allocations) allocations, recorded $(stat_of "$stats" ALLOCS)"
    elif [ "$(row "Embedded files")" != "$files" ]; then
        not_ok "memory streams: details says $(row "Embedded files") embedded files, $files without the streams"
    else
        check_capture memory-streams "$work/streams.syscap" details,memory,marks,processes,files
        return
    fi
    sed 's/^/# /' "$rows"
}

echo "1..14"

quiet=(--no-cpu --no-memory --no-disk --no-network)
if [ "$(id -u)" = 0 ]; then
    if "$SYSPROF_CLI" -f "$work/cpu.syscap" "${quiet[@]}" -- "$HOT_FUNCTIONS" 1.5 >"$work/cli.log" 2>&1; then
        check_capture cpu "$work/cpu.syscap" details,samples,callgraph,flamegraph,processes,files
    else
        not_ok "cpu: sysprof-cli failed"; sed 's/^/# /' "$work/cli.log"
    fi
    if "$SYSPROF_CLI" -f "$work/memory.syscap" --memprof --no-perf "${quiet[@]}" -- "$MEMORY_WORKLOAD" 2 2000 100 50 10 1000 >"$work/cli.log" 2>&1; then
        check_capture memory "$work/memory.syscap" details,memory,marks,processes,files
        check_streams "$work/memory.syscap"
    else
        not_ok "memory: sysprof-cli --memprof failed"; sed 's/^/# /' "$work/cli.log"
        skip "memory streams: no recording"
    fi
    if "$SYSPROF_CLI" -f "$work/counters.syscap" --no-perf --duration 2 >"$work/cli.log" 2>&1; then
        check_capture counters "$work/counters.syscap"
    else
        not_ok "counters: sysprof-cli --no-perf failed"; sed 's/^/# /' "$work/cli.log"
    fi
else
    skip "cpu: recording needs root"
    skip "memory: recording needs root"
    skip "memory streams: recording needs root"
    skip "counters: recording needs root"
fi

"$MAKE_MARKS_LOGS" "$work/marks-logs.syscap"
check_capture marks-logs "$work/marks-logs.syscap" details,marks,logs

check_capture sysprof-3.46-perf "$DATA_DIR/sysprof-3.46-perf.syscap" \
    details,samples,callgraph,flamegraph,counters,processes,files
check_capture sysprof-3.46-marks "$DATA_DIR/sysprof-3.46-marks.syscap" \
    details,counters,marks,logs,processes,files
check_capture sysprof-3.46-memprof "$DATA_DIR/sysprof-3.46-memprof.syscap" \
    details,samples,callgraph,flamegraph,memory,processes,files
for fixture in perf marks memprof; do
    "$TO_NEW_FORMAT" "$DATA_DIR/sysprof-3.46-$fixture.syscap" "$work/new-layout-$fixture.syscap"
done
# The converter adds Sysprof 45's TRACE and DBUS_MESSAGE frames beside the
# samples: the D-Bus view lists the latter.
check_capture new-layout-perf "$work/new-layout-perf.syscap" \
    details,samples,callgraph,flamegraph,counters,dbus,processes,files
check_capture new-layout-marks "$work/new-layout-marks.syscap" \
    details,counters,marks,logs,processes,files
check_capture new-layout-memprof "$work/new-layout-memprof.syscap" \
    details,samples,callgraph,flamegraph,memory,dbus,processes,files

# A damaged file: a clear error on the error page, no crash.
head -c 100 "$DATA_DIR/sysprof-3.46-perf.syscap" >"$work/damaged.syscap"
if out=$("$TEST_APP" views "$work/damaged.syscap" details "$SHOT_DIR/damaged" 2>&1); then
    not_ok "damaged: opened without an error"
elif grep -q 'damaged.syscap' <<<"$out"; then
    ok "damaged: refused with a message naming the file: $(head -n1 <<<"$out")"
else
    not_ok "damaged: unclear error: $out"
fi

# Drag and drop onto an empty window.
fixture=$DATA_DIR/sysprof-3.46-marks.syscap
if out=$("$TEST_APP" drop "$fixture" 2>&1) &&
    [ "$(sorted "$(sed -n 's/^views //p' <<<"$out")")" = "$(expected_views "$fixture")" ]; then
    ok "drop: a dropped capture opens with its views ($(sed -n 's/^views //p' <<<"$out"))"
else
    not_ok "drop: $out"
fi

# `sysprof FILE`: a window titled with the file's name appears.
cp "$fixture" "$work/from-command-line.syscap"
"$SYSPROF_APP" "$work/from-command-line.syscap" >"$work/app.log" 2>&1 &
app_pid=$!
found=no
for _ in $(seq 1 300); do
    if xwininfo -root -tree 2>/dev/null | grep -q '"from-command-line.syscap"'; then
        found=yes
        break
    fi
    kill -0 "$app_pid" 2>/dev/null || break
    sleep 0.1
done
kill "$app_pid" 2>/dev/null || true
wait "$app_pid" 2>/dev/null || true
if [ "$found" = yes ]; then
    ok "sysprof FILE: a window for from-command-line.syscap appears"
else
    not_ok "sysprof FILE: no window after 30 s"
    sed 's/^/# /' "$work/app.log"
fi

[ "$failed" -eq 0 ]
