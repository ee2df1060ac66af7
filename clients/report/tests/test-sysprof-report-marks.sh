#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report marks on a capture this script writes byte by byte (random
# durations; the expected rows computed here by awk from the same list), on
# Sysprof 3.46's marks fixture (against sysprof-dump's MARK frames), with
# its filters, on a truncated capture and on bad command lines.
#   test-sysprof-report-marks.sh SYSPROF_REPORT SYSPROF_DUMP DATA_DIR
set -euo pipefail
report=$(realpath "$1") dump=$(realpath "$2") data=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }
status_of () { set +e; "$@" >"$tmp/out" 2>"$tmp/err"; local s=$?; set -e; echo $s; }

# Little-endian hex; a frame is its 24-byte header then its payload padded to 8.
le () {
  local v=$1 i out=
  for ((i = 0; i < $2; i++)); do out+=$(printf '%02x' $(((v >> (8 * i)) & 255))); done
  printf '%s' "$out"
}
str () { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
zeros () { local i out=; for ((i = 0; i < $1; i++)); do out+=00; done; printf '%s' "$out"; }
frame () { # TYPE PID TIME PAYLOAD_HEX
  local payload=$4 len
  while (((${#payload} / 2 + 24) % 8)); do payload+=00; done
  len=$((${#payload} / 2 + 24))
  printf '%s' "$(le "$len" 2)$(le -1 2)$(le "$2" 4)$(le "$3" 8)$(le "$1" 1)$(zeros 3)$(zeros 4)$payload"
}
start=1000000000
header () {
  printf '%s' "$(le 0xFDCA975E 4)$(le 0x101 4)$(str 2024-01-01T00:00:00Z)$(zeros 44)$(le $start 8)$(le $((start + 10000000000)) 8)$(zeros 168)"
}
mark () { # PID TIME_NS_FROM_START DURATION GROUP NAME MESSAGE (frame type 10)
  local g n
  g=$(str "$4") n=$(str "$5")
  frame 10 "$1" $((start + $2)) "$(le "$3" 8)$g$(zeros $((24 - ${#g} / 2)))$n$(zeros $((40 - ${#n} / 2)))$(str "$6")00"
}
write () { printf "$(printf '%s' "$2" | sed 's/../\\x&/g')" > "$1"; }

# 300 marks: pid 10 or 20, group gtk (names layout, snapshot) or app (step),
# durations random (some negative: counted as 0), times 0.01 s apart.
RANDOM=17
hex=$(header)
: > "$tmp/list"
for i in $(seq 0 299); do
  pid=$((i % 3 == 0 ? 20 : 10))
  case $((i % 5)) in 0 | 1 | 2) g=gtk nm=layout ;; 3) g=gtk nm=snapshot ;; *) g=app nm=step ;; esac
  d=$((RANDOM * 37 - 100000))
  t=$((i * 10000000))
  hex+=$(mark $pid $t $d $g $nm "mark $i")
  echo "$pid $t $d $g $nm" >> "$tmp/list"
done
cap=$tmp/marks.syscap
write "$cap" "$hex"
[ "$("$dump" --stats "$cap" | awk '$1 == "MARK" { print $2 }')" = 300 ] || fail "the written capture has not 300 marks"
ok "a capture of 300 marks, read back by sysprof-dump"

# The rows sysprof-report must print for the marks of $tmp/sel ("pid t d group name"):
# group, name, count, total, min, mean, median (of an even count the mean of the middle two), max;
# most total first.
expected () {
  awk '{ d = $3 < 0 ? 0 : $3; print $4 "\t" $5 "\t" d }' "$tmp/sel" | sort -t$'\t' -k1,1 -k2,2 -k3,3n |
    awk -F'\t' '
      function flush() { if (c) { m = c % 2 ? v[(c - 1) / 2] : (v[c / 2 - 1] + v[c / 2]) / 2; printf "%s\t%s\t%d\t%d\t%d\t%.1f\t%.1f\t%d\n", g, nm, c, s, v[0], s / c, m, v[c - 1] } }
      $1 != g || $2 != nm { flush(); g = $1; nm = $2; c = 0; s = 0 }
      { v[c++] = $3; s += $3 }
      END { flush() }' | sort -t$'\t' -k4,4nr -k1,1 -k2,2
}
check () { # DESCRIPTION ARGS...
  local what=$1
  shift
  "$report" marks --format tsv "$@" "$cap" > "$tmp/got" || fail "$what: sysprof-report marks exited with $?"
  expected > "$tmp/want"
  head -n 1 "$tmp/got" | grep -qx $'group\tname\tcount\ttotal_ns\tmin_ns\tmean_ns\tmedian_ns\tmax_ns' ||
    fail "$what: the TSV header is $(head -n 1 "$tmp/got")"
  tail -n +2 "$tmp/got" | diff "$tmp/want" - > "$tmp/diff" || fail "$what: $(tr '\n' '|' < "$tmp/diff")"
  [ -s "$tmp/want" ] || fail "$what: nothing selected"
}
cp "$tmp/list" "$tmp/sel"
check "all marks"
ok "every group and name: count, total, min, mean, median, max as computed from the marks written"

awk '$1 == 20' "$tmp/list" > "$tmp/sel"
check "--pid 20" --pid 20
awk '$4 == "gtk"' "$tmp/list" > "$tmp/sel"
check "--group gtk" --group gtk
awk '$2 >= 500000000 && $2 <= 1500000000' "$tmp/list" > "$tmp/sel"
check "--begin 0.5 --end 1.5" --begin 0.5 --end 1.5
ok "--pid, --group, --begin/--end select the marks they say"

"$report" marks "$cap" > "$tmp/text" || fail "text report failed"
head -n 1 "$tmp/text" | grep -qx "$cap: 300 marks in 3 groups and names" || fail "text: $(head -n 1 "$tmp/text")"
grep -q '^GROUP  *NAME  *COUNT  *TOTAL  *MIN  *MEAN  *MEDIAN  *MAX$' "$tmp/text" || fail "text: no header"
[ "$("$report" marks --limit 1 "$cap" | grep -c '^gtk \|^app ')" = 1 ] || fail "--limit 1 printed other than one row"
"$report" marks --limit 1 "$cap" | grep -q '^(2 more rows; --limit 0 shows all)$' || fail "--limit 1: no note"
ok "text report: summary line, aligned table, --limit with its note"

# Sysprof 3.46's fixture against sysprof-dump.
"$dump" "$data/sysprof-3.46-marks.syscap" | awk '
  /^[A-Z_]+ @/ { m = ($1 == "MARK") }
  m && /^  group:/ { g = $2 } m && /^  name:/ { c[g "\t" $2]++ }
  END { for (k in c) print k "\t" c[k] }' | sort > "$tmp/want346"
"$report" marks --format tsv "$data/sysprof-3.46-marks.syscap" | tail -n +2 | cut -f1-3 | sort > "$tmp/got346"
[ -s "$tmp/want346" ] || fail "the 3.46 fixture has no marks"
diff "$tmp/want346" "$tmp/got346" > "$tmp/diff" || fail "3.46 fixture: $(tr '\n' '|' < "$tmp/diff")"
ok "Sysprof 3.46's fixture: one row per group and name, counts as in its MARK frames"

# No marks; a truncated capture; bad command lines.
write "$tmp/none.syscap" "$(header)"
[ "$(status_of "$report" marks "$tmp/none.syscap")" = 0 ] || fail "no marks: $(cat "$tmp/err")"
grep -q '^No marks' "$tmp/out" || fail "no marks: $(cat "$tmp/out")"
head -c $(($(stat -c %s "$cap") - 30)) "$cap" > "$tmp/cut.syscap"
[ "$(status_of "$report" marks "$tmp/cut.syscap")" = 1 ] || fail "a truncated capture did not exit 1"
grep -q 'truncated\|offset' "$tmp/err" || fail "truncated: the error does not say where: $(cat "$tmp/err")"
[ "$(status_of "$report" marks)" = 2 ] || fail "no capture: not a usage error"
[ "$(status_of "$report" marks --format csv "$cap")" = 2 ] || fail "--format csv: not a usage error"
[ "$(status_of "$report" marks --begin 2 --end 1 "$cap")" = 2 ] || fail "--begin after --end: not a usage error"
[ "$(status_of "$report" marks --limit -1 "$cap")" = 2 ] || fail "--limit -1: not a usage error"
[ "$(status_of "$report" marks "$tmp/missing.syscap")" = 1 ] || fail "a missing capture did not exit 1"
"$report" marks --help | grep -q 'median' || fail "--help does not explain the columns"
ok "no marks (said), a truncated capture (exit 1, where), bad command lines (exit 2), --help"

echo "1..$n"
