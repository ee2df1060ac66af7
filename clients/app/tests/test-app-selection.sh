#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A selection on the app's timeline changes the callgraph to exactly what
# `sysprof-report top --begin B --end E` computes over the same range: the
# same sample count and the same self and total of every function.  Also on
# the 3.46 fixture laid out as Sysprof 45+ writes captures (gzipped symbol
# table and files: see tests/tools/capture-to-new-format.c).
#
# Usage: test-app-selection.sh TEST_APP SYSPROF_CLI SYSPROF_REPORT HOT_FUNCTIONS DATA_DIR CAPTURE_TO_NEW_FORMAT

set -euo pipefail

TEST_APP=$1 SYSPROF_CLI=$2 SYSPROF_REPORT=$3 HOT_FUNCTIONS=$4 DATA_DIR=$5 TO_NEW_FORMAT=$6

work=$(mktemp -d /tmp/test-app-selection.XXXXXX)
trap 'rm -rf "$work"' EXIT

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip () { n=$((n + 1)); echo "ok $n - # SKIP $*"; }

report_samples () { # CAPTURE [OPTIONS...] -> the sample count of the text report's first line
    local capture=$1
    shift
    "$SYSPROF_REPORT" top -n 1 "$@" "$capture" | sed -n '1s/^.*: \([0-9][0-9]*\) .*samples.*$/\1/p'
}

check_selection () { # NAME CAPTURE FROM TO
    local name=$1 capture=$2 from=$3 to=$4 out begin end samples all want
    if ! out=$("$TEST_APP" selection "$capture" "$from" "$to" 2>"$work/err"); then
        not_ok "$name: the app did not compute the selection"
        sed 's/^/# /' "$work/err"
        return
    fi
    read -r begin end < <(sed -n 's/^selection //p' <<<"$out")
    samples=$(sed -n 's/^samples //p' <<<"$out")
    all=$(report_samples "$capture")
    want=$(report_samples "$capture" --begin "$begin" --end "$end")
    if [ -z "$samples" ] || [ "$samples" != "$want" ]; then
        not_ok "$name: $samples samples in the app from $begin s to $end s, sysprof-report says $want"
        return
    fi
    if [ "$samples" -ge "$all" ] || [ "$samples" -eq 0 ]; then
        not_ok "$name: the selection ($samples of $all samples) does not restrict anything"
        return
    fi
    grep -v '^selection \|^samples ' <<<"$out" | sort >"$work/app.tsv"
    "$SYSPROF_REPORT" top -n 0 --format tsv --begin "$begin" --end "$end" "$capture" |
        tail -n +2 | cut -f1-4 | sort >"$work/report.tsv"
    if ! diff -u "$work/report.tsv" "$work/app.tsv" >"$work/diff"; then
        not_ok "$name: functions differ from sysprof-report top over $begin..$end s"
        head -n 30 "$work/diff" | sed 's/^/# /'
        return
    fi
    ok "$name: $samples of $all samples from $begin s to $end s, $(wc -l <"$work/app.tsv") functions, same as sysprof-report top"
}

echo "1..4"
check_selection sysprof-3.46-perf "$DATA_DIR/sysprof-3.46-perf.syscap" 0.2 0.55
check_selection sysprof-3.46-perf-narrow "$DATA_DIR/sysprof-3.46-perf.syscap" 0.45 0.5
"$TO_NEW_FORMAT" "$DATA_DIR/sysprof-3.46-perf.syscap" "$work/new-layout-perf.syscap"
check_selection new-layout-perf "$work/new-layout-perf.syscap" 0.2 0.55
if [ "$(id -u)" = 0 ]; then
    if "$SYSPROF_CLI" -f "$work/cpu.syscap" --no-cpu --no-memory --no-disk --no-network -- "$HOT_FUNCTIONS" 2 \
        >"$work/cli.log" 2>&1; then
        check_selection recorded "$work/cpu.syscap" 0.3 0.7
    else
        not_ok "recording with sysprof-cli failed"
        sed 's/^/# /' "$work/cli.log"
    fi
else
    skip "recording needs root"
fi
[ "$failed" -eq 0 ]
