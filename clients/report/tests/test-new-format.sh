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
#     __symbols__.gz: the kernel functions of the fixtures are only there;
#     and the answers name functions (not only addresses);
#   - the marks and logs read the same (sysprof-dump, offsets left out).
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
# The MARK and LOG frames of a capture as sysprof-dump prints them, without
# their byte offsets.
marks_and_logs () {
    "$dump" "$1" | awk '/^[A-Z_]+ @/ { keep = ($1 == "MARK" || $1 == "LOG"); sub(/ @[0-9]+:/, ":") } keep'
}
# Rows naming a function rather than an address (0x..., LIB+0x...).
named_rows () { grep -cvE '(^|[ +])0x[0-9a-f]+ ' "$1" || true; }

echo "1..12"
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
        memprof) commands=("memory --temporary" "memory --leaks" "top --memory=bytes") ;;
        marks) commands=() ;;
        # The fixture is dash without frame pointers: once the data its walk took
        # for return addresses is cut, few nodes are above 1 %.
        *) commands=("top -n 0" "tree --threshold 0.2" "collapsed") ;;
    esac
    for command in "${commands[@]}"; do
        # shellcheck disable=SC2086 # the command's words
        report_body $command --no-local-files "$old" >"$tmp/old.out"
        # shellcheck disable=SC2086
        report_body $command --no-local-files "$new" >"$tmp/new.out"
        named=$(named_rows "$tmp/new.out")
        if [ "$named" -lt 5 ]; then
            not_ok "$fixture: sysprof-report $command --no-local-files names only $named functions"
            sed 's/^/# /' "$tmp/new.out" | head -10
        elif cmp -s "$tmp/old.out" "$tmp/new.out"; then
            ok "$fixture: sysprof-report $command --no-local-files: the same ($(wc -l <"$tmp/new.out") lines, $named naming functions)"
        else
            not_ok "$fixture: sysprof-report $command --no-local-files differs"
            { diff "$tmp/old.out" "$tmp/new.out" || true; } | head -20 | sed 's/^/# /'
        fi
    done
    marks_and_logs "$old" >"$tmp/old.marks"
    marks_and_logs "$new" >"$tmp/new.marks"
    if cmp -s "$tmp/old.marks" "$tmp/new.marks"; then
        ok "$fixture: the same marks and logs ($(grep -cE '^(MARK|LOG):' "$tmp/new.marks") frames)"
    else
        not_ok "$fixture: the marks and logs differ"
        { diff "$tmp/old.marks" "$tmp/new.marks" || true; } | head -10 | sed 's/^/# /'
    fi
done
[ "$n" = 12 ] || { echo "not ok - ran $n checks, planned 12"; exit 1; }
[ "$failed" = 0 ]
