#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The marks and logs views narrowed to one source: each view's drop-down
# lists "All …" and then every group (marks) or domain (logs) with its
# count, most frequent first; choosing an entry shows that many.  The
# expectations come from sysprof-dump, an independent reader, over a
# capture written by make-marks-logs-capture and Debian's Sysprof 3.46
# fixture.
#
# Usage: test-app-groups.sh TEST_APP MAKE_MARKS_LOGS SYSPROF_DUMP FIXTURE
set -euo pipefail
TEST_APP=$1 MAKE_MARKS_LOGS=$2 SYSPROF_DUMP=$3 FIXTURE=$4

work=$(mktemp -d /tmp/test-app-groups.XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

# CAPTURE TYPE KEY ALL WORD: the lines test-app groups must print.  KEY is
# the dump's field naming the source (group: or domain:).
expected () {
    "$SYSPROF_DUMP" "$1" | awk -v type="$2" -v key="$3" -v all="$4" -v word="$5" '
        /^[A-Z]/ { inside = ($1 == type) }
        inside && $1 == key ":" { sub("^  " key ": ?", ""); count[$0]++; total++ }
        function shown(k) {
            if (word == "mark") return k " mark" (k == 1 ? "" : "s")
            return k == total ? k " message" (k == 1 ? "" : "s") : k " of " total " messages"
        }
        END {
            print all "\t" shown(total)
            for (g in count) printf "%d\t%s\t%s (%d)\t%s\n", count[g], g, g == "" ? "(no name)" : g, count[g], shown(count[g]) | "sort -t \"\t\" -k1,1nr -k2,2 | cut -f3-"
        }'
}

"$MAKE_MARKS_LOGS" "$work/marks-logs.syscap"
echo "1..3"
for case in "marks-logs marks" "marks-logs logs" "fixture marks"; do
    set -- $case
    capture=$work/marks-logs.syscap
    [ "$1" = fixture ] && capture=$FIXTURE
    if [ "$2" = marks ]; then
        expected "$capture" MARK group "All groups" mark > "$work/want"
    else
        expected "$capture" LOG domain "All domains" message > "$work/want"
    fi
    [ "$(wc -l < "$work/want")" -ge 3 ] || fail "$1: the capture should have two sources or more"
    "$TEST_APP" groups "$capture" "$2" | tr -d '\342\200\257' > "$work/got" || fail "$1 $2: test-app groups failed"
    diff -u "$work/want" "$work/got" >&2 || fail "$1: the $2 view's sources differ from sysprof-dump's"
    ok "$1: the $2 view narrows to each of its $(($(wc -l < "$work/want") - 1)) sources with the dump's counts"
done
