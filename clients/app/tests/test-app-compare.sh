#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The app's comparison of two captures (issue 18) on real recordings:
# hot-functions with hot_compute_a, _b and _c given 4, 3, 2 units a round,
# then 2, 3, 4, recorded by sysprof-cli through sysprofd as an unprivileged
# user (as tests/integration/test-report-diff.sh does).  The comparison
# view, opened as "Compare With…" does, must list exactly the rows of
# `sysprof-report diff --format tsv` on the same captures, in the same
# order.  Focused on the three (the shares then do not depend on what else
# the system ran), hot_compute_a's share must fall by 22 points (4/9 to
# 2/9) and its frame be drawn blue, hot_compute_c's rise by 22 and be red,
# hot_compute_b's stay and be near grey, as diff --focus says.
# A damaged or missing capture to compare with is a message, the window
# keeps its capture; `sysprof --compare` without AFTER is a usage error.
# Runs under tools/with-sysprofd.sh and tools/with-xvfb.sh.
#
# Usage: test-app-compare.sh TEST_APP SYSPROF_CLI SYSPROF_REPORT HOT_FUNCTIONS HOTLIB SHOT_DIR SYSPROF_APP

set -euo pipefail

TEST_APP=$1 SYSPROF_CLI=$2 SYSPROF_REPORT=$3 HOT_FUNCTIONS=$4 HOTLIB=$5 SHOT_DIR=$6 SYSPROF_APP=$7
: "${SYSPROFD_TEST_WORKDIR:?run under tools/with-sysprofd.sh}" "${DISPLAY:?run under tools/with-xvfb.sh}"
W=$SYSPROFD_TEST_WORKDIR
U=sysprof-test-allowed

n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok $((n + 1)) - $*"; exit 1; }

mkdir -p "$W/bin" "$W/u"
install -m 755 "$SYSPROF_CLI" "$HOT_FUNCTIONS" "$HOTLIB" "$W/bin/"
chown "$U" "$W/u"
record () { # CAPTURE COMMAND...
    (cd "$W/u" && runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" \
        DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" timeout 120 sysprof-cli -f "$1" -- "${@:2}") \
        > "$W/out" 2>&1 || fail "sysprof-cli $*: $(tr '\n' '|' < "$W/out")"
}

echo "1..4"

# 1. The rows of the comparison view against sysprof-report diff.
record before.syscap hot-functions 2 4 3 2
record after.syscap hot-functions 2 2 3 4
"$TEST_APP" compare "$W/u/before.syscap" "$W/u/after.syscap" "$SHOT_DIR" > "$W/app.out" 2> "$W/app.err" ||
    fail "test-app compare: $(tr '\n' '|' < "$W/app.err") $(head -n 3 "$W/app.out" | tr '\n' '|')"
[ -s "$SHOT_DIR/comparison.png" ] || fail "no screenshot $SHOT_DIR/comparison.png"
grep -v '^frame ' "$W/app.out" > "$W/app.tsv"
"$SYSPROF_REPORT" diff -n 0 --format tsv "$W/u/before.syscap" "$W/u/after.syscap" |
    tail -n +2 | cut -f1,2,5,6,7,10,11,12 > "$W/report.tsv"
if ! diff -u "$W/report.tsv" "$W/app.tsv" > "$W/diff"; then
    head -n 30 "$W/diff" | sed 's/^/# /'
    fail "the comparison view's rows differ from sysprof-report diff"
fi
rows=$(wc -l < "$W/app.tsv")
[ "$rows" -ge 3 ] || fail "only $rows rows"
ok "comparison view: the $rows rows of sysprof-report diff --format tsv, in its order"

# 2. Focused on the three functions (in AFTER, and so in BEFORE), the
# shares are of the samples in them whatever else the system ran: 4/9, 3/9,
# 2/9 before, 2/9, 3/9, 4/9 after, so changes of -22.2, 0, +22.2 points; the
# rows are those of diff --focus, and the frames are drawn blue, grey, red.
focus=hot_compute_a,hot_compute_b,hot_compute_c
"$TEST_APP" compare "$W/u/before.syscap" "$W/u/after.syscap" "$SHOT_DIR/focus" "$focus" > "$W/focus.out" \
    2> "$W/focus.err" || fail "test-app compare with a focus: $(tr '\n' '|' < "$W/focus.err")"
grep -v '^frame ' "$W/focus.out" > "$W/focus.tsv"
"$SYSPROF_REPORT" diff -n 0 --format tsv --focus hot_compute_a --focus hot_compute_b --focus hot_compute_c \
    "$W/u/before.syscap" "$W/u/after.syscap" | tail -n +2 | cut -f1,2,5,6,7,10,11,12 > "$W/focus-report.tsv"
if ! diff -u "$W/focus-report.tsv" "$W/focus.tsv" > "$W/diff"; then
    head -n 30 "$W/diff" | sed 's/^/# /'
    fail "focused: the rows differ from sysprof-report diff --focus"
fi
got=$(awk -F'\t' -v out="$W/focus.out" '
    function abs(x) { return x < 0 ? -x : x }
    function near(v, w) { return v != "" && abs(v - w) <= 5 }
    $1 == "hot_compute_a" { a = $8 } $1 == "hot_compute_b" { b = $8 } $1 == "hot_compute_c" { c = $8 }
    END {
        while ((getline line < out) > 0) {
            split(line, f, " ")
            if (f[1] == "frame") rgb[f[2]] = f[3] " " f[4] " " f[5]
        }
        split(rgb["hot_compute_a"], ra, " "); split(rgb["hot_compute_b"], rb, " "); split(rgb["hot_compute_c"], rc, " ")
        if (!(near(a, -22.2) && near(b, 0) && near(c, 22.2))) {
            print "total changes a=" a " b=" b " c=" c ", want -22.2, 0, +22.2 within 5"; exit 1
        }
        if (!(ra[3] - ra[1] > 60 && ra[3] > ra[2] + 30)) { print "hot_compute_a fell but is drawn rgb(" rgb["hot_compute_a"] ")"; exit 1 }
        if (!(rc[1] - rc[3] > 60 && rc[1] - rc[2] > 60)) { print "hot_compute_c rose but is drawn rgb(" rgb["hot_compute_c"] ")"; exit 1 }
        if (!(rb[1] > 150 && abs(rb[1] - rb[3]) * 2 < ra[3] - ra[1] && abs(rb[1] - rb[3]) * 2 < rc[1] - rc[3])) {
            print "hot_compute_b stayed but is drawn rgb(" rgb["hot_compute_b"] ")"; exit 1
        }
        printf "a %s rgb(%s), b %s rgb(%s), c %s rgb(%s)", a, rgb["hot_compute_a"], b, rgb["hot_compute_b"], c, rgb["hot_compute_c"]
    }' "$W/focus.tsv") || fail "focused: $got"
ok "focused on the three functions: the rows of diff --focus; a, b, c changed by $got"

# 3. The comparison follows a selection of AFTER's timeline, as diff --after.
"$TEST_APP" compare "$W/u/before.syscap" "$W/u/after.syscap" "$SHOT_DIR/selection" - 0.25 0.6 > "$W/sel.out" \
    2> "$W/sel.err" || fail "test-app compare with a selection: $(tr '\n' '|' < "$W/sel.err")"
read -r begin end < <(sed -n 's/^selection //p' "$W/sel.out")
[ -n "$begin" ] && [ -n "$end" ] || fail "no selection: $(head -n 2 "$W/sel.out" | tr '\n' '|')"
grep -v '^frame \|^selection ' "$W/sel.out" > "$W/sel.tsv"
"$SYSPROF_REPORT" diff -n 0 --format tsv --after "$begin:$end" "$W/u/before.syscap" "$W/u/after.syscap" |
    tail -n +2 | cut -f1,2,5,6,7,10,11,12 > "$W/sel-report.tsv"
if ! diff -u "$W/sel-report.tsv" "$W/sel.tsv" > "$W/diff"; then
    head -n 30 "$W/diff" | sed 's/^/# /'
    fail "with a selection: the rows differ from sysprof-report diff --after $begin:$end"
fi
cmp -s "$W/sel.tsv" "$W/app.tsv" && fail "the selection changed nothing"
ok "a selection of AFTER ($begin s to $end s): the $(wc -l < "$W/sel.tsv") rows of sysprof-report diff --after"

# 4. Bad captures to compare with: a message naming them, the window keeps
# its own; the command line without AFTER: exit 2.
# Cut in the middle of a frame (3 bytes past a multiple of 8: frames are
# aligned), never between two, which would read as a shorter sound capture.
head -c "$(($(stat -c %s "$W/u/before.syscap") / 16 * 8 + 3))" "$W/u/before.syscap" > "$W/cut.syscap"
for bad in "$W/cut.syscap" "$W/missing.syscap"; do
    rc=0
    "$TEST_APP" compare "$bad" "$W/u/after.syscap" "$SHOT_DIR/bad" > "$W/bad.out" 2> "$W/bad.err" || rc=$?
    name=$(basename "$bad")
    [ $rc -eq 1 ] && grep -q "^error Cannot compare with $name: " "$W/bad.out" && grep -qx 'page capture' "$W/bad.out" ||
        fail "comparing with $name: exit $rc: $(tr '\n' '|' < "$W/bad.out") $(tr '\n' '|' < "$W/bad.err")"
done
rc=0
GSETTINGS_BACKEND=memory timeout 60 "$SYSPROF_APP" --compare "$W/u/before.syscap" > "$W/app-cli.out" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q -- "--compare BEFORE needs the capture AFTER" "$W/app-cli.out" ||
    fail "sysprof --compare without AFTER: exit $rc: $(tr '\n' '|' < "$W/app-cli.out")"
ok "a damaged and a missing capture: a message naming them, the window keeps its capture; sysprof --compare BEFORE: exit 2"
