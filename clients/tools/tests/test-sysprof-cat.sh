#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-cat: merging keeps every frame, renumbers JIT addresses and counter
# ids, works into pipes, refuses terminals, survives damaged inputs.
#   test-sysprof-cat.sh SYSPROF_CAT SYSPROF_DUMP COMPAT_OURS DATA_DIR
set -euo pipefail
cat_=$1 dump=$2 ours=$3 data=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

frame_counts () { "$dump" --stats "$1" | grep -E '^[A-Z_]+ [0-9]+$' | grep -vE '^(SAMPLE_ADDRS|ALLOCS|FREES|ALLOC_BYTES) '; }

# Three real captures: per-type counts add up.
"$cat_" "$data"/sysprof-3.46-*.syscap > "$tmp/merged.syscap"
for f in "$data"/sysprof-3.46-*.syscap; do frame_counts "$f"; done \
  | awk '{c[$1]+=$2} END {for (k in c) print k, c[k]}' | sort > "$tmp/expected"
frame_counts "$tmp/merged.syscap" | sort > "$tmp/got"
diff -u "$tmp/expected" "$tmp/got" || fail "merged counts are not the sums"
"$dump" "$tmp/merged.syscap" > /dev/null || fail "merged capture does not read cleanly"
ok "three Sysprof 3.46 captures merged, every frame kept"

# Two captures with colliding JIT addresses and counter ids.
"$ours" write "$tmp/a.syscap"
"$ours" write "$tmp/b.syscap"
"$cat_" "$tmp/a.syscap" "$tmp/b.syscap" > "$tmp/ab.syscap"
"$ours" dump "$tmp/ab.syscap" > "$tmp/ab.txt"
grep -q '^CTRDEF .* {id=1 .* {id=2 ' "$tmp/ab.txt" || fail "first counters not 1,2"
grep -q '^CTRDEF .* {id=3 .* {id=4 ' "$tmp/ab.txt" || fail "second capture's counters not renumbered to 3,4"
grep -q '^CTRSET .* {3:0x000000000000002a,4:0x4002000000000000,' "$tmp/ab.txt" || fail "CTRSET ids not translated"
# Each input's names get addresses of their own in one JIT map (a map
# written out starts the writer's table over, as upstream's does), ahead of
# the samples that use them.
[ "$(grep -c '^JITMAP ' "$tmp/ab.txt")" -eq 2 ] || fail "expected a JIT map per input"
grep -q 'n=2 0xe000000000000001="jit_func_one" 0xe000000000000002="jit_func_two"' "$tmp/ab.txt" \
  || fail "the first input's JIT names"
grep -q 'n=2 0xe000000000000003="jit_func_one" 0xe000000000000004="jit_func_two"' "$tmp/ab.txt" \
  || fail "the second input's JIT names"
[ "$(grep -c '^SAMPLE .*0xe000000000000001,0xe000000000000002\]' "$tmp/ab.txt")" -eq 1 ] &&
  [ "$(grep -c '^SAMPLE .*0xe000000000000003,0xe000000000000004\]' "$tmp/ab.txt")" -eq 1 ] \
  || fail "JIT addresses in samples not translated"
awk '/^JITMAP / { j++ } /^SAMPLE .*0xe0000000000000/ && j < ++s { bad = 1 } END { exit bad }' "$tmp/ab.txt" \
  || fail "a sample before the JIT map that names it"
ok "JIT addresses and counter ids renumbered"

# Into a pipe.
"$cat_" "$tmp/a.syscap" "$data/sysprof-3.46-marks.syscap" | cat > "$tmp/piped.syscap"
frame_counts "$tmp/piped.syscap" > /dev/null
"$dump" "$tmp/piped.syscap" > /dev/null || fail "capture written through a pipe is damaged"
ok "output through a pipe"

# Refuses a terminal (script gives it a pty as standard output).
if command -v script > /dev/null; then
  set +e
  script -qec "'$cat_' '$tmp/a.syscap'" /dev/null > "$tmp/tty.out" 2>&1
  status=$?
  set -e
  [ $status -eq 2 ] || fail "terminal: exit status $status"
  grep -q 'refusing to write a binary capture to a terminal' "$tmp/tty.out" || fail "terminal: no message"
  ok "refuses a terminal"
fi

# A damaged input: merged up to the damage, the others whole, exit 1.
size=$(stat -c %s "$data/sysprof-3.46-perf.syscap")
head -c $((size - 100)) "$data/sysprof-3.46-perf.syscap" > "$tmp/cut.syscap"
set +e
"$cat_" "$tmp/cut.syscap" "$tmp/a.syscap" "$tmp/missing.syscap" > "$tmp/partial.syscap" 2> "$tmp/err"
status=$?
set -e
[ $status -eq 1 ] || fail "damaged input: exit status $status"
grep -q "cut.syscap: merged up to the damage: truncated frame at offset" "$tmp/err" || fail "damaged input: $(cat "$tmp/err")"
grep -q "missing.syscap: cannot open" "$tmp/err" || fail "missing input not reported"
total=$(($(frame_counts "$data/sysprof-3.46-perf.syscap" | awk '{s+=$2} END {print s}') - 1 + $(frame_counts "$tmp/a.syscap" | awk '{s+=$2} END {print s}')))
got=$(frame_counts "$tmp/partial.syscap" | awk '{s+=$2} END {print s}')
[ "$got" -eq "$total" ] || fail "damaged input: $got frames merged, expected $total"
ok "damaged and missing inputs: everything readable merged, exit 1"

set +e
"$cat_" > /dev/null 2>&1; s=$?
set -e
[ $s -eq 2 ] || fail "no inputs must exit 2"
ok "usage error"
echo "1..$n"
