#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report export --format perf-script (issue 19) on Sysprof 3.46's
# captures, parsed back by a strict reader of perf script's text
# (check-perf-script.py: Debian 12 packages none; test-export checks that
# reader against perf's own output): every line is a sample header, a
# frame or the empty line after a sample, the samples are in time order,
# and counted per function they give the self and total of `sysprof-report
# top`, with the shared filters and for the allocations (the periods summed
# for bytes); standard output without -o; hostile names stay on their
# lines; a damaged capture is an error that writes no file.
#
# Usage: test-sysprof-report-perf-script.sh SYSPROF_REPORT DATA_DIR
set -euo pipefail
report=$1 data=$2
here=$(cd "$(dirname "$0")" && pwd)
check="python3 $here/check-perf-script.py"
perf=$data/sysprof-3.46-perf.syscap
memprof=$data/sysprof-3.46-memprof.syscap
work=$(mktemp -d /tmp/test-perf-script.XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

echo "1..7"

# NAME CAPTURE SELF_COLUMN TOTAL_COLUMN PERIOD_UNIT [OPTIONS]: the export
# parsed, and its functions against top's tsv columns, per function name
# (names that more than one library has are summed for self and left out
# for total, as the text names no library for inlined functions).  Context
# rows ("- - kernel - -") are perf's kernel frames, not frames of their
# own, except where --no-kernel left a sample ending in one: only their
# self is compared.  PERIOD_UNIT 0 counts samples, N sums periods / N.
agree () {
  local name=$1 capture=$2 self_column=$3 total_column=$4 unit=$5
  shift 5
  "$report" export --format perf-script "$@" -o "$work/$name.txt" "$capture" 2> "$work/err" ||
    fail "$name: export: $(cat "$work/err")"
  [ "$(cat "$work/err")" = "$work/$name.txt" ] || fail "$name: stderr is not the path: $(cat "$work/err")"
  if [ "$unit" = 0 ]; then
    $check functions "$work/$name.txt" > "$work/$name.got" 2> "$work/err" || fail "$name: $(cat "$work/err")"
  else
    $check functions "$work/$name.txt" --period "$unit" > "$work/$name.got" 2> "$work/err" ||
      fail "$name: $(cat "$work/err")"
  fi
  "$report" top --format tsv --limit 0 "$@" "$capture" > "$work/$name.tsv"
  awk -F'\t' -v s="$self_column" -v t="$total_column" 'NR > 1 { self[$1] += $s; total[$1] = $t; count[$1]++ }
       END { for (f in self) { context = f ~ /^- - .* - -$/
             if (context && self[f] == 0) continue
             print f "\t" self[f] "\t" (count[f] == 1 && !context ? total[f] : "-") } }' "$work/$name.tsv" |
    LC_ALL=C sort > "$work/$name.want"
  LC_ALL=C sort -o "$work/$name.got" "$work/$name.got"
  LC_ALL=C join -t $'\t' -a 1 -a 2 -e none -o 0,1.2,1.3,2.2,2.3 "$work/$name.got" "$work/$name.want" |
    awk -F'\t' '$2 != $4 || ($5 != "-" && $3 != $5) { bad++; if (bad < 4) print } END { exit bad > 0 }' \
      > "$work/$name.bad" ||
    fail "$name: perf-script and top differ (function, self, total; top's self, total): $(tr '\n' '|' < "$work/$name.bad")"
  [ -s "$work/$name.got" ] || fail "$name: no function"
  echo "$(wc -l < "$work/$name.got") functions"
}

# --- 1. CPU samples ------------------------------------------------------------
got=$(agree cpu "$perf" 3 4 0)
$check stats "$work/cpu.txt" > "$work/cpu.stats"
samples=$("$report" top "$perf" | head -n 1 | sed "s|^$perf: ||" | grep -o '^[0-9]*')
grep -qx "samples=$samples" "$work/cpu.stats" || fail "cpu: $(tr '\n' ' ' < "$work/cpu.stats"), top: $samples samples"
grep -qx "events=cpu-clock" "$work/cpu.stats" || fail "cpu: $(tr '\n' ' ' < "$work/cpu.stats")"
# Each sample stands for 1/997 s, in nanoseconds.
grep -qx "periods=$((samples * 1003009))" "$work/cpu.stats" || fail "cpu: periods: $(tr '\n' ' ' < "$work/cpu.stats")"
# Sysprof 3.46 wrote its CPUs' samples in turns; perf script is in time order.
grep -qx "ordered=1" "$work/cpu.stats" || fail "cpu: the samples are not in time order"
# As perf prints them: the process's command name, pid/tid (no CPU: Sysprof
# 3.46 recorded none); the kernel's frames absolute, the user ones as
# addresses in their file.
grep -qE '^sh +17/17 +[0-9]+\.[0-9]{6}: +1003009 cpu-clock: $' "$work/cpu.txt" ||
  fail "cpu: no header of sh 17/17: $(grep -m 3 '^sh ' "$work/cpu.txt" | tr '\n' '|')"
grep -qE $'^\tffffffff[0-9a-f]{8} [^ ]+\\+0x[0-9a-f]+ \\(\\[kernel.kallsyms\\]\\)$' "$work/cpu.txt" || fail "cpu: no kernel frame"
grep -qE $'^\t {6,}[0-9a-f]{1,10} .*\\+0x[0-9a-f]+ \\(/usr/lib/x86_64-linux-gnu/libc.so.6\\)$' "$work/cpu.txt" ||
  fail "cpu: no libc frame at an address in the file"
ok "CPU samples of Sysprof 3.46's capture: $samples samples in time order, per function top's self and total ($got)"

# --- 2. the shared filters -------------------------------------------------------
for options in "--no-kernel" "--comm sh --begin 0.1 --end 0.6" "--hide __strcmp_evex --no-kernel" \
  "--focus __strcmp_evex" "--pid 17,18" "--tid 17"; do
  name=filtered-$(echo "$options" | tr -c 'a-z0-9' '-')
  # shellcheck disable=SC2086
  agree "$name" "$perf" 3 4 0 $options > /dev/null
done
# --lines: perf's source lines under the frames; top's rows are lines, the
# functions the same (its SOURCE column moves the counts one column on).
agree lines "$perf" 4 5 0 --lines > /dev/null
grep -q $'^\t *0 - - kernel - - (\\[kernel.kallsyms\\])$' "$work/filtered---no-kernel-.txt" ||
  fail "--no-kernel: no sample ends in the kernel's context frame"
[ "$($check stats "$work/filtered---tid-17-.txt" | grep threads=)" = threads=1 ] || fail "--tid 17: not one thread"
ok "--no-kernel, --comm with --begin/--end, --hide, --focus, --pid, --tid, --lines: top's self and total"

# --- 3. allocations ----------------------------------------------------------------
got=$(agree memory "$memprof" 3 4 0 --memory)
got2=$(agree memory-bytes "$memprof" 3 4 1 --memory=bytes)
agree leaked "$memprof" 3 4 0 --memory=leaked > /dev/null
agree leaked-bytes "$memprof" 3 4 1 --memory=leaked-bytes > /dev/null
for f in memory:allocations memory-bytes:allocated-bytes leaked:leaked-allocations leaked-bytes:leaked-bytes; do
  $check stats "$work/${f%%:*}.txt" > "$work/${f%%:*}.stats"
  grep -qx "events=${f#*:}" "$work/${f%%:*}.stats" || fail "${f%%:*}: not the event ${f#*:}"
done
ok "allocations: one sample each, counted or their bytes as periods, leaked or not, as top counts them ($got; $got2)"

# --- 4. standard output ---------------------------------------------------------------
"$report" export --format perf-script "$perf" > "$work/stdout.txt" 2> "$work/err" || fail "no -o: $(cat "$work/err")"
[ ! -s "$work/err" ] || fail "no -o: stderr: $(cat "$work/err")"
cmp -s "$work/stdout.txt" "$work/cpu.txt" || fail "no -o: not the file -o writes"
"$report" export --format perf-script -o - "$perf" > "$work/dash.txt" 2> /dev/null || fail "-o -: failed"
cmp -s "$work/dash.txt" "$work/cpu.txt" || fail "-o -: not the file -o writes"
ok "without -o and with -o -, the same text on standard output"

# --- 5. hostile names ----------------------------------------------------------------
# The process name "sleep 0.2" made of control characters, an invalid
# byte, a line break and U+2028 (same length: the frames stay sound).
python3 - "$perf" "$work/hostile.syscap" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
bad = b'\x01\xff"\\\n\x1f\xe2\x80\xa8'
assert len(bad) == len(b"sleep 0.2") and data.count(b"sleep 0.2") > 0
open(sys.argv[2], "wb").write(data.replace(b"sleep 0.2", bad))
EOF
agree hostile "$work/hostile.syscap" 3 4 0 > /dev/null
python3 - "$work/hostile.txt" <<'EOF' || fail "hostile: the comm of pid 14 is not as expected"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
comms = {l.split(" 14/14 ")[0].rstrip(" ") for l in lines if " 14/14 " in l}
sys.exit(comms != {'?\ufffd"\\??\u2028'})
EOF
ok "hostile process names: control characters become ?, invalid bytes U+FFFD, every line parses"

# --- 6. damage ---------------------------------------------------------------------
size=$(stat -c %s "$perf")
head -c $((size / 2 + 13)) "$perf" > "$work/truncated.syscap"
rc=0
"$report" export --format perf-script -o "$work/truncated.txt" "$work/truncated.syscap" > /dev/null 2> "$work/err" || rc=$?
[ $rc -eq 1 ] || fail "truncated capture: exit $rc, want 1: $(cat "$work/err")"
[ "$(wc -l < "$work/err")" -eq 1 ] || fail "truncated capture: not one line: $(cat "$work/err")"
for f in "$work"/truncated.txt*; do
  [ ! -e "$f" ] || fail "truncated capture: a file was written: $f"
done
ok "a truncated capture: exit 1, one line, no file"

# --- 7. usage ----------------------------------------------------------------------
for args in "--format perf-script --max-threads 3 $perf" "--format perf-scripts $perf"; do
  rc=0
  # shellcheck disable=SC2086
  "$report" export $args > /dev/null 2> "$work/err" || rc=$?
  [ $rc -eq 2 ] || fail "export $args: exit $rc, want 2: $(cat "$work/err")"
done
ok "usage errors: --max-threads is speedscope's, an unknown format"
