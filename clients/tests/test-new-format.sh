#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Captures laid out as Sysprof 45+ writes them read like the originals.
#
# Debian 12 cannot record with Sysprof 45+, so each Sysprof 3.46 fixture is
# rewritten in the NEW layout by tests/tools/capture-to-new-format (gzipped
# embedded files under PATH.gz, including __symbols__.gz, MAP frames with a
# build-id, reverse frame-index frames, the NEW metadata keys, TRACE and
# DBUS_MESSAGE frames).  Then:
#   - sysprof-dump sees the NEW frames and the .gz files (the layout really
#     changed);
#   - every sysprof-report command gives the same answer on both, with the
#     embedded symbols only (--no-local-files), so the names must come from
#     __symbols__.gz: the kernel functions of the fixtures are only there.
#   test-new-format.sh SYSPROF_REPORT SYSPROF_DUMP CAPTURE_TO_NEW_FORMAT DATA_DIR
set -euo pipefail
report=$1 dump=$2 convert=$3 data=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
stat_of () { awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$1"; }
# The report without its first line, which names the file.
report_body () { "$report" "$@" 2>&1 | tail -n +2; }

echo "1..10"
for fixture in perf marks memprof; do
    old=$data/sysprof-3.46-$fixture.syscap new=$tmp/new-$fixture.syscap
    if ! "$convert" "$old" "$new" 2>"$tmp/err"; then
        not_ok "$fixture: conversion failed: $(cat "$tmp/err")"
        continue
    fi
    "$dump" --stats "$old" >"$tmp/old.stats"
    "$dump" --stats "$new" >"$tmp/new.stats"
    if [ "$(stat_of "$tmp/new.stats" TRACE)" -gt 0 ] || [ "$(stat_of "$tmp/old.stats" SAMPLE)" = 0 ]; then
        if grep -q '^FILE .*\.gz$' "$tmp/new.stats" && ! grep -q '^FILE .*[^z]$' "$tmp/new.stats" &&
            [ "$(stat_of "$tmp/new.stats" SAMPLE)" = "$(stat_of "$tmp/old.stats" SAMPLE)" ]; then
            ok "$fixture: NEW layout ($(grep -c '^FILE ' "$tmp/new.stats") gzipped files, $(stat_of "$tmp/new.stats" TRACE) traces, $(stat_of "$tmp/new.stats" DBUS_MESSAGE) D-Bus messages)"
        else
            not_ok "$fixture: the converted capture is not in the NEW layout"
            sed 's/^/# /' "$tmp/new.stats"
        fi
    else
        not_ok "$fixture: no TRACE frames in the converted capture"
    fi
    case $fixture in
        memprof) commands=("memory" "memory --leaks" "top --memory=bytes") ;;
        marks) commands=("top") ;;
        *) commands=("top" "tree --threshold 1" "collapsed") ;;
    esac
    for command in "${commands[@]}"; do
        # shellcheck disable=SC2086 # the command's words
        report_body $command --no-local-files "$old" >"$tmp/old.out"
        # shellcheck disable=SC2086
        report_body $command --no-local-files "$new" >"$tmp/new.out"
        if cmp -s "$tmp/old.out" "$tmp/new.out"; then
            ok "$fixture: sysprof-report $command --no-local-files: the same ($(wc -l <"$tmp/new.out") lines)"
        else
            not_ok "$fixture: sysprof-report $command --no-local-files differs"
            { diff "$tmp/old.out" "$tmp/new.out" || true; } | head -20 | sed 's/^/# /'
        fi
    done
done
[ "$n" = 10 ] || { echo "not ok - ran $n checks, planned 10"; exit 1; }
[ "$failed" = 0 ]
