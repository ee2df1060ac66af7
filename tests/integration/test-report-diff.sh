#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report diff (issue 18) on real recordings: hot-functions run with
# hot_compute_a, _b and _c given 4, 3, 2 units a round, then 2, 3, 4 (the
# system calls one unit), recorded by our sysprof-cli through sysprofd as an
# unprivileged user.  Their shares of the process's samples go from 40, 30,
# 20 % to 20, 30, 40 %: diff must report -20, 0, +20 points (within 5), the
# biggest changes first; the same from two parts of one recording of both
# runs (--before, --after); bad command lines are usage errors.
# Run under tools/with-sysprofd.sh:
#   test-report-diff.sh SYSPROF_CLI SYSPROF_REPORT HOT_FUNCTIONS HOTLIB
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") workload=$(realpath "$3") hotlib=$(realpath "$4")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u"
install -m 755 "$cli" "$report" "$workload" "$hotlib" "$W/bin/"
chown "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" timeout 120 "$@"; }
record () { # CAPTURE COMMAND...
  (cd "$W/u" && as sysprof-cli -f "$1" -- "${@:2}") > "$W/out" 2>&1 ||
    fail "sysprof-cli $*: $(tr '\n' '|' < "$W/out")"
}
# FUNCTION COLUMN < TSV: the value of COLUMN (1-based) in FUNCTION's row.
field () { awk -F'\t' -v f="$1" -v c="$2" 'NR > 1 && $1 == f { print $c; exit }'; }
near () { # VALUE WANT TOLERANCE
  awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(v != "" && d <= t) }'
}
check_changes () { # TSV WHAT
  local a b c
  a=$(field hot_compute_a 7 < "$1") b=$(field hot_compute_b 7 < "$1") c=$(field hot_compute_c 7 < "$1")
  near "$a" -20 5 && near "$b" 0 5 && near "$c" 20 5 ||
    fail "$2: self changes a=$a b=$b c=$c, want -20, 0, +20: $(head -n 6 "$1" | tr '\n' '|')"
  # Biggest change first: the first two rows are a and c.
  [ "$(awk -F'\t' 'NR == 2 || NR == 3 { print $1 }' "$1" | sort | tr '\n' ' ')" = "hot_compute_a hot_compute_c " ] ||
    fail "$2: not sorted by change: $(head -n 4 "$1" | tr '\n' '|')"
  echo "a $a, b $b, c $c"
}

echo "1..3"

# 1. Two recordings.
record before.syscap hot-functions 2 4 3 2
record after.syscap hot-functions 2 2 3 4
as sysprof-report diff --comm hot-functions --format tsv "$W/u/before.syscap" "$W/u/after.syscap" > "$W/diff.tsv" ||
  fail "sysprof-report diff failed"
[ "$(head -n 1 "$W/diff.tsv" | cut -f1-7)" = $'function\tlibrary\tbefore_self_samples\tafter_self_samples\tbefore_self_percent\tafter_self_percent\tself_change' ] ||
  fail "tsv header: $(head -n 1 "$W/diff.tsv")"
got=$(check_changes "$W/diff.tsv" "two captures")
as sysprof-report diff --comm hot-functions "$W/u/before.syscap" "$W/u/after.syscap" > "$W/diff.txt" ||
  fail "sysprof-report diff (text) failed"
grep -q "before.syscap: [0-9]* samples; .*after.syscap: [0-9]* samples" "$W/diff.txt" || fail "text summary: $(head -n 1 "$W/diff.txt")"
ok "two recordings: self changes in points ($got), biggest first, text and tsv"

# 2. Two parts of one recording of both runs (each about 1.5 s, the second
# starting after the first).
record both.syscap sh -c 'hot-functions 1.5 4 3 2 && hot-functions 1.5 2 3 4'
as sysprof-report diff --comm hot-functions --format tsv --before 0.3:1.3 --after 2.0:2.9 \
  "$W/u/both.syscap" "$W/u/both.syscap" > "$W/parts.tsv" || fail "sysprof-report diff --before --after failed"
got=$(check_changes "$W/parts.tsv" "two parts")
ok "two parts of one recording (--before 0.3:1.3 --after 2.0:2.9): $got"

# 3. Bad command lines: exit 2; an unreadable capture: exit 1.
for args in "x.syscap" "--before 3:1 a b" "--after nonsense a b" "--sort size a b"; do
  rc=0
  # shellcheck disable=SC2086
  as sysprof-report diff $args > /dev/null 2> "$W/err" || rc=$?
  [ $rc -eq 2 ] || fail "diff $args: exit $rc, want 2: $(cat "$W/err")"
done
rc=0
as sysprof-report diff "$W/u/before.syscap" "$W/u/missing.syscap" > /dev/null 2> "$W/err" || rc=$?
[ $rc -eq 1 ] && grep -q missing.syscap "$W/err" || fail "a missing capture: exit $rc: $(cat "$W/err")"
ok "usage errors exit 2 (a capture short, a backwards range, a bad range, a bad --sort), a missing capture 1"
