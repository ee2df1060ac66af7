#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report on a capture this script writes byte by byte (exact answers
# known), on the Sysprof 3.46 fixtures (consistency of every command), and on
# damaged input and bad command lines.
#   test-sysprof-report.sh SYSPROF_REPORT SYSPROF_DUMP DATA_DIR
set -euo pipefail
report=$(realpath "$1") dump=$(realpath "$2") data=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }
# Runs the report and fails the test on a non-zero exit.
r () { "$report" "$@" || fail "sysprof-report $* exited with $?"; }
# Exit status of a command expected to fail.
status_of () { set +e; "$@" >"$tmp/out" 2>"$tmp/err"; local s=$?; set -e; echo $s; }

# --- a capture written here -------------------------------------------------------
# Little-endian bytes as hex; a frame is its 24-byte header then its payload,
# padded to 8.  Layouts: reference §1 (header 256 bytes, frames, SAMPLE,
# PROCESS, FILE_CHUNK) and §5.3 (__symbols__).
le () { # VALUE NBYTES
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
ms () { echo $((start + $1 * 1000000)); }
KERNEL=-128 USER=-512
MAIN=0x1000 COMPUTE=0x2000 HASH=0x3000 IO=0x4000 KREAD=0xffffffff81000000
sample () { # PID TID MS ADDR...
  local pid=$1 tid=$2 t=$3 hex
  shift 3
  hex=$(le $# 2)$(zeros 2)$(le "$tid" 4)
  for a in "$@"; do hex+=$(le $((a)) 8); done
  frame 2 "$pid" "$(ms "$t")" "$hex"
}

symbols_hex () {
  local strings= records= base=$(((2 * 5 + 1) * 32)) pid
  declare -A off
  for s in libwork.so kernel main compute hash io k_read; do
    off[$s]=$((base + ${#strings} / 2))
    strings+=$(str "$s")00
  done
  for pid in 42 43; do
    for f in main:$MAIN compute:$COMPUTE hash:$HASH io:$IO; do
      records+=$(le $((${f#*:})) 8)$(le $((${f#*:} + 0xfff)) 8)$(le $pid 4)$(le "${off[${f%%:*}]}" 4)
      records+=$(le "${off[libwork.so]}" 4)$(zeros 4)
    done
    records+=$(le $((KREAD)) 8)$(le $((KREAD + 0xfff)) 8)$(le $pid 4)$(le "${off[k_read]}" 4)
    records+=$(le "${off[kernel]}" 4)$(zeros 4)
  done
  printf '%s' "$records$(zeros 32)$strings"
}

write_capture () {
  local hex symbols path
  # Header: magic, version 1 + little-endian bit, capture_time, start, end.
  hex=$(le 0xFDCA975E 4)$(le 0x101 4)$(str 2024-01-01T00:00:00Z)$(zeros 44)$(le $start 8)$(le $((start + 1000000000)) 8)
  hex+=$(zeros 168)
  hex+=$(frame 4 42 $start "$(str worker)00")
  hex+=$(frame 4 43 $start "$(str '/usr/libexec/helper --serve')00")
  symbols=$(symbols_hex)
  path=$(str __symbols__)
  hex+=$(frame 13 -1 $start "$(le $((1 | (${#symbols} / 2) << 16)) 4)$path$(zeros $((256 - ${#path} / 2)))$symbols")
  hex+=$(sample 42 42 100 $((HASH + 0x10)) $((COMPUTE + 0x20)) $((MAIN + 0x30)))
  hex+=$(sample 42 42 200 $((HASH + 0x14)) $((COMPUTE + 0x20)) $((MAIN + 0x30)))
  hex+=$(sample 42 42 300 $((HASH + 0x18)) $((COMPUTE + 0x24)) $((MAIN + 0x30)))
  hex+=$(sample 42 42 400 $((COMPUTE + 0x40)) $((MAIN + 0x30)))
  hex+=$(sample 42 42 500 $KERNEL $((KREAD + 8)) $USER $((IO + 0x10)) $((MAIN + 0x38)))
  hex+=$(sample 42 42 600 $KERNEL $((KREAD + 8)) $USER $((IO + 0x10)) $((MAIN + 0x38)))
  hex+=$(sample 42 44 700 $((HASH + 0x10)) $((COMPUTE + 0x20)) $((MAIN + 0x30)))
  hex+=$(sample 43 43 800 $((HASH + 0x10)) $((MAIN + 0x40)))
  hex+=$(sample 43 43 900)
  hex+=$(sample 43 43 950 $((MAIN + 0x10)))
  # shellcheck disable=SC2059 # the bytes are the format
  printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" > "$1"
}

cap=$tmp/written.syscap
write_capture "$cap"
"$dump" --stats "$cap" > "$tmp/stats" || fail "sysprof-dump cannot read the written capture"
grep -qx 'SAMPLE 10' "$tmp/stats" || fail "written capture: $(cat "$tmp/stats")"
ok "written capture: 10 samples, read back by sysprof-dump"

R () { r "$@" --no-local-files "$cap"; }

R top --format tsv > "$tmp/top"
cat > "$tmp/expected" <<'EOF'
function	library	self_samples	total_samples	self_percent	total_percent
hash	libwork.so	5	5	50.00	50.00
k_read	kernel	2	2	20.00	20.00
main	libwork.so	1	9	10.00	90.00
compute	libwork.so	1	5	10.00	50.00
- - kernel - -		0	2	0.00	20.00
io	libwork.so	0	2	0.00	20.00
EOF
diff -u "$tmp/expected" "$tmp/top" || fail "top --format tsv"
R top --format tsv --sort total --limit 2 > "$tmp/top"
printf 'function\tlibrary\tself_samples\ttotal_samples\tself_percent\ttotal_percent\nmain\tlibwork.so\t1\t9\t10.00\t90.00\nhash\tlibwork.so\t5\t5\t50.00\t50.00\n' \
  | diff -u - "$tmp/top" || fail "top --sort total --limit 2"
R top > "$tmp/top"
grep -q "written.syscap: 10 samples" "$tmp/top" || fail "top text: no summary line"
grep -Eq '^hash +libwork\.so +5 +5 +50\.00% +50\.00%$' "$tmp/top" || fail "top text: $(cat "$tmp/top")"
ok "top: exact self/total, percentages, sorting, --limit, text table"

R callers hash --format tsv > "$tmp/out"
printf 'function\tlibrary\tsamples\tpercent\ncompute\tlibwork.so\t4\t40.00\nmain\tlibwork.so\t1\t10.00\n' \
  | diff -u - "$tmp/out" || fail "callers hash"
R callees main --format tsv > "$tmp/out"
printf 'function\tlibrary\tsamples\tpercent\ncompute\tlibwork.so\t5\t50.00\nio\tlibwork.so\t2\t20.00\nhash\tlibwork.so\t1\t10.00\n' \
  | diff -u - "$tmp/out" || fail "callees main"
R callers k_read --format tsv > "$tmp/out"
grep -qx -- $'- - kernel - -\t\t2\t20.00' "$tmp/out" || fail "callers k_read"
R callers main > "$tmp/out"
grep -q 'Callers of main (libwork.so): total 9 samples (90.00%), self 1 samples (10.00%)' "$tmp/out" \
  || fail "callers text: $(cat "$tmp/out")"
grep -Eq '^\[worker\] +7 +70\.00%$' "$tmp/out" || fail "callers text rows: $(cat "$tmp/out")"
ok "callers, callees: exact counts (the context node is the kernel's caller)"

R tree --format tsv --threshold 0 > "$tmp/out"
cat > "$tmp/expected" <<'EOF'
depth	function	library	total_samples	self_samples	total_percent
0	[Everything]		10	0	100.00
1	[worker]		7	0	70.00
2	main	libwork.so	7	0	70.00
3	compute	libwork.so	5	1	50.00
4	hash	libwork.so	4	4	40.00
3	io	libwork.so	2	0	20.00
4	- - kernel - -		2	0	20.00
5	k_read	kernel	2	2	20.00
1	[/usr/libexec/helper --serve]		3	1	30.00
2	main	libwork.so	2	1	20.00
3	hash	libwork.so	1	1	10.00
EOF
diff -u "$tmp/expected" "$tmp/out" || fail "tree --format tsv"
[ "$(R tree --format tsv --threshold 25 | tail -n +2 | cut -f2 | tr '\n' ,)" = \
  "[Everything],[worker],main,compute,hash,[/usr/libexec/helper --serve]," ] || fail "tree --threshold 25"
R tree > "$tmp/out"
grep -Eq '^ +20\.00% +20\.00% +          k_read \(kernel\)$' "$tmp/out" || fail "tree text: $(cat "$tmp/out")"
ok "tree: exact nodes, process and kernel nodes, threshold pruning, indentation"

R collapsed | sort > "$tmp/out"
cat > "$tmp/expected" <<'EOF'
[/usr/libexec/helper --serve] 1
[/usr/libexec/helper --serve];main 1
[/usr/libexec/helper --serve];main;hash 1
[worker];main;compute 1
[worker];main;compute;hash 4
[worker];main;io;- - kernel - -;k_read 2
EOF
diff -u "$tmp/expected" "$tmp/out" || fail "collapsed"
R collapsed --no-kernel > "$tmp/out"
grep -qx '\[worker\];main;io;- - kernel - - 2' "$tmp/out" || fail "collapsed --no-kernel"
ok "collapsed: one line per distinct stack, --no-kernel keeps the context node"

count () { r collapsed --no-local-files "$@" "$cap" | awk '{ s += $NF } END { print s + 0 }'; }
[ "$(count --pid 43)" -eq 3 ] || fail "--pid 43"
[ "$(count --pid 42,43)" -eq 10 ] || fail "--pid 42,43"
[ "$(count --comm helper)" -eq 3 ] || fail "--comm helper (base name of the first word)"
[ "$(count --comm worker --comm helper)" -eq 10 ] || fail "--comm twice"
[ "$(count --comm work)" -eq 0 ] || fail "--comm matches whole names only"
[ "$(count --tid 44)" -eq 1 ] || fail "--tid 44"
[ "$(count --begin 0.25 --end 0.65)" -eq 4 ] || fail "--begin 0.25 --end 0.65"
[ "$(count --begin 0.3 --end 0.3)" -eq 1 ] || fail "--begin/--end include their ends"
[ "$(count --end 0.0999)" -eq 0 ] || fail "--end before the first sample"
R top --format tsv --pid 43 > "$tmp/out"
grep -qx $'hash\tlibwork.so\t1\t1\t33.33\t33.33' "$tmp/out" || fail "percentages of the filtered samples"
ok "filters: --pid, --comm, --tid, --begin/--end; percentages of the filtered samples"

# --- focus and hide ----------------------------------------------------------------
R collapsed --focus compute | LC_ALL=C sort > "$tmp/out"
printf 'compute 1\ncompute;hash 4\n' | diff -u - "$tmp/out" || fail "collapsed --focus compute"
R collapsed --focus compute --focus io | LC_ALL=C sort > "$tmp/out"
printf 'compute 1\ncompute;hash 4\nio;- - kernel - -;k_read 2\n' | diff -u - "$tmp/out" || fail "--focus twice"
R top --focus compute --format tsv > "$tmp/out"
cat > "$tmp/expected" <<'EOF'
function	library	self_samples	total_samples	self_percent	total_percent
hash	libwork.so	4	4	80.00	80.00
compute	libwork.so	1	5	20.00	100.00
EOF
diff -u "$tmp/expected" "$tmp/out" || fail "top --focus compute: percentages of the focused samples"
R top --focus compute > "$tmp/out"
grep -q "written.syscap: 5 of 10 samples pass the filters" "$tmp/out" || fail "top --focus text: $(cat "$tmp/out")"
R tree --focus hash --format tsv --threshold 0 > "$tmp/out"
printf 'depth\tfunction\tlibrary\ttotal_samples\tself_samples\ttotal_percent\n0\t[Everything]\t\t5\t0\t100.00\n1\thash\tlibwork.so\t5\t5\t100.00\n' \
  | diff -u - "$tmp/out" || fail "tree --focus hash"
R callers compute --focus compute --format tsv > "$tmp/out"
printf 'function\tlibrary\tsamples\tpercent\n[Everything]\t\t5\t100.00\n' | diff -u - "$tmp/out" \
  || fail "callers --focus: the root is where the stacks were cut"
R collapsed --hide compute | LC_ALL=C sort > "$tmp/out"
cat > "$tmp/expected" <<'EOF'
[/usr/libexec/helper --serve] 1
[/usr/libexec/helper --serve];main 1
[/usr/libexec/helper --serve];main;hash 1
[worker];main 1
[worker];main;hash 4
[worker];main;io;- - kernel - -;k_read 2
EOF
diff -u "$tmp/expected" "$tmp/out" || fail "collapsed --hide compute"
R collapsed --hide main --hide k_read | LC_ALL=C sort > "$tmp/out"
cat > "$tmp/expected" <<'EOF'
[/usr/libexec/helper --serve] 2
[/usr/libexec/helper --serve];hash 1
[worker];compute 1
[worker];compute;hash 4
[worker];io;- - kernel - - 2
EOF
diff -u "$tmp/expected" "$tmp/out" || fail "--hide: samples go to the process and context nodes"
R collapsed --focus main --hide io | LC_ALL=C sort > "$tmp/out"
printf 'main 1\nmain;- - kernel - -;k_read 2\nmain;compute 1\nmain;compute;hash 4\nmain;hash 1\n' \
  | diff -u - "$tmp/out" || fail "--focus main --hide io"
R collapsed --focus main --hide main | LC_ALL=C sort > "$tmp/out"
printf '[Everything] 1\ncompute 1\ncompute;hash 4\nhash 1\nio;- - kernel - -;k_read 2\n' \
  | diff -u - "$tmp/out" || fail "--focus main --hide main: the samples of main stay on the root"
R flamegraph --focus hash -o - > "$tmp/out"
grep -q '>5 samples (of 10 in the capture, filtered)<' "$tmp/out" || fail "flamegraph --focus: total"
grep -q '<title>hash (libwork.so) 5 samples, 100.00%</title>' "$tmp/out" || fail "flamegraph --focus: tooltip"
[ "$(status_of "$report" callers compute --hide compute --no-local-files "$cap")" -eq 1 ] || fail "callers of a hidden function: exit"
grep -q 'no function “compute”' "$tmp/err" || fail "callers of a hidden function: $(cat "$tmp/err")"
[ "$(status_of "$report" top --focus comptue --no-local-files "$cap")" -eq 0 ] || fail "--focus nothing: exit"
grep -q '0 of 10 samples pass the filters' "$tmp/out" || fail "--focus nothing: $(cat "$tmp/out")"
grep -q 'note: no sample has “comptue” on its stack' "$tmp/err" || fail "--focus nothing: no note in $(cat "$tmp/err")"
ok "--focus, --hide and both: exact stacks, percentages of the focused samples, tree, callers, flamegraph"

(cd "$tmp" && r flamegraph --no-local-files "$cap") > "$tmp/out"
[ "$(cat "$tmp/out")" = written.svg ] || fail "flamegraph prints its default path: $(cat "$tmp/out")"
svg=$tmp/written.svg
if command -v xmllint >/dev/null; then
  xmllint --noout "$svg" || fail "flamegraph: not well-formed XML"
fi
grep -q '<title>hash (libwork.so) 4 samples, 40.00%</title>' "$svg" || fail "flamegraph: tooltip"
grep -q '>10 samples<' "$svg" || fail "flamegraph: total"
[ "$(grep -c '<rect x=.*rx="2" fill=' "$svg")" -ge 11 ] || fail "flamegraph: one box per node"
# Standalone: nothing fetched, the script inline (report-flame-script.c).
! grep -Eq 'href|src=|@import|url\(' "$svg" || fail "flamegraph: not standalone"
if [ "$(grep -c '<script' "$svg")" -ne 1 ] || ! grep -q '^<script><!\[CDATA\[$' "$svg"; then
  fail "flamegraph: not one inline script"
fi
R flamegraph -o - > "$tmp/out"
cmp -s "$tmp/out" "$svg" || fail "flamegraph -o - differs from the file"
ok "flamegraph: default path printed, well-formed, tooltips, total, standalone"

# The differential flame graph of two parts of the written capture: before
# 0.45 s, 4 samples of worker (main;compute;hash 3, main;compute 1); after,
# 6 (worker: main;io;kernel 2, main;compute;hash 1; helper: 3).  Each
# frame's title has its shares and change, its colour scales with the
# change, the largest (compute, -83.33 points) at full blue.
r diff --no-local-files --before 0:0.45 --after 0.45: --format svg -o "$tmp/diff.svg" "$cap" "$cap" > "$tmp/out"
[ "$(cat "$tmp/out")" = "$tmp/diff.svg" ] || fail "diff --format svg prints its path: $(cat "$tmp/out")"
if command -v xmllint >/dev/null; then
  xmllint --noout "$tmp/diff.svg" || fail "diff --format svg: not well-formed XML"
fi
while IFS='|' read -r title fill; do
  grep -F "<title>$title</title><rect x=" "$tmp/diff.svg" | grep -qF "fill=\"rgb($fill)\"" ||
    fail "diff --format svg: no box \"$title\" in rgb($fill)"
done <<'EOF'
[Everything] 6 samples; before 100.00%, after 100.00%, change +0.00 points|226,226,222
[worker] 3 samples; before 100.00%, after 50.00%, change -50.00 points|114,148,226
compute (libwork.so) 1 samples; before 100.00%, after 16.67%, change -83.33 points|40,96,228
hash (libwork.so) 1 samples; before 75.00%, after 16.67%, change -58.33 points|96,135,226
io (libwork.so) 2 samples; before 0.00% (no such frame), after 33.33%, change +33.33 points|224,152,146
[/usr/libexec/helper --serve] 3 samples; before 0.00% (no such frame), after 50.00%, change +50.00 points|224,114,108
EOF
[ "$(grep -c '<g class="frame" id="f[0-9]*" ' "$tmp/diff.svg")" -eq 11 ] || fail "diff --format svg: not one box per frame of AFTER"
grep -q '>-83.33 points</text>' "$tmp/diff.svg" && grep -q '>+83.33 points</text>' "$tmp/diff.svg" ||
  fail "diff --format svg: legend"
! grep -Eq 'href|src=|@import|url\(' "$tmp/diff.svg" || fail "diff --format svg: not standalone"
(cd "$tmp" && r diff --no-local-files --format svg "$cap" "$cap") > "$tmp/out"
[ "$(cat "$tmp/out")" = written-diff.svg ] || fail "diff --format svg: default path $(cat "$tmp/out")"
! grep -Eq 'fill="rgb\((40,96,228|222,40,32)\)"' "$tmp/written-diff.svg" ||
  fail "diff --format svg: a capture against itself has a change"
ok "diff --format svg: exact shares and changes per frame, colours scaled to the largest change, legend, default path"

# --- the Sysprof 3.46 fixtures ------------------------------------------------------
# Their embedded symbols only: the answers must not depend on this machine's binaries.
r () { "$report" "$@" --no-local-files || fail "sysprof-report $* exited with $?"; }
for f in "$data"/sysprof-3.46-*.syscap; do
  base=$(basename "$f" .syscap)
  samples=$("$dump" --stats "$f" | awk '$1 == "SAMPLE" { print $2 }')
  samples=${samples:-0}

  r top --format tsv --limit 0 "$f" > "$tmp/top"
  head -n 1 "$tmp/top" | grep -qx $'function\tlibrary\tself_samples\ttotal_samples\tself_percent\ttotal_percent' \
    || fail "$base: top header"
  awk -F '\t' -v n="$samples" 'NR > 1 {
      if (NF != 6 || $3 > $4 || $4 > n || $6 > 100.005) bad = 1
      self += $3; sp += $5
    }
    END { exit (bad || self > n || sp > 100 + 0.005 * (NR - 1) || (n > 0 && sp < 90)) }' "$tmp/top" \
    || fail "$base: top rows inconsistent (self sum, percentages)"

  r collapsed "$f" > "$tmp/collapsed"
  [ "$(awk '{ s += $NF } END { print s + 0 }' "$tmp/collapsed")" -eq "$samples" ] \
    || fail "$base: collapsed counts do not add up to the $samples samples of sysprof-dump --stats"
  [ "$(sort "$tmp/collapsed" | awk '{ $NF = ""; print }' | uniq -d | wc -l)" -eq 0 ] \
    || fail "$base: collapsed repeats a stack"

  r tree --format tsv --threshold 0 "$f" > "$tmp/tree"
  sed -n 2p "$tmp/tree" | grep -qx $'0\t\\[Everything\\]\t\t'"$samples"$'\t0\t'"$([ "$samples" -gt 0 ] && echo 100.00 || echo 0.00)" \
    || fail "$base: tree root: $(sed -n 2p "$tmp/tree")"
  # Every node's total is its self plus its children's totals.
  awk -F '\t' 'NR > 1 {
      d = $1; while (top > 0 && depth[top] >= d) { if (sum[top] + self[top] != total[top]) bad = 1; sum[top - 1] += total[top]; top-- }
      top++; depth[top] = d; total[top] = $4; self[top] = $5; sum[top] = 0
    }
    END { while (top > 0) { if (sum[top] + self[top] != total[top]) bad = 1; sum[top - 1] += total[top]; top-- } exit bad }' "$tmp/tree" \
    || fail "$base: tree totals do not add up"

  r flamegraph -o "$tmp/$base.svg" "$f" > /dev/null
  if command -v xmllint >/dev/null; then
    xmllint --noout "$tmp/$base.svg" || fail "$base: flamegraph is not well-formed XML"
  fi

  if [ "$samples" -gt 0 ]; then
    fn=$(sed -n 2p "$tmp/top" | cut -f1)
    lib=$(sed -n 2p "$tmp/top" | cut -f2)
    total=$(sed -n 2p "$tmp/top" | cut -f4)
    selfn=$(sed -n 2p "$tmp/top" | cut -f3)
    r callers --format tsv --library "$lib" "$fn" "$f" > "$tmp/callers"
    awk -F '\t' -v t="$total" 'NR > 1 { if ($3 > t) bad = 1; s += $3 } END { exit (bad || s < t) }' "$tmp/callers" \
      || fail "$base: callers of $fn do not cover its $total samples"
    r callees --format tsv --library "$lib" "$fn" "$f" > "$tmp/callees"
    awk -F '\t' -v t="$total" -v s0="$selfn" 'NR > 1 { if ($3 > t) bad = 1; s += $3 } END { exit (bad || s < t - s0) }' \
      "$tmp/callees" || fail "$base: callees of $fn do not cover its $((total - selfn)) samples below it"
  fi
  ok "$base: top, collapsed (= $samples samples), tree, flamegraph, callers/callees agree"
done

perf="$data/sysprof-3.46-perf.syscap"
[ "$(r collapsed --pid 17 "$perf" | awk '{ s += $NF } END { print s }')" -eq 517 ] || fail "perf fixture: --pid 17"
[ "$(r collapsed --pid 17 --pid 18 "$perf" | awk '{ s += $NF } END { print s }')" -eq 857 ] || fail "perf fixture: --pid 17,18"
r collapsed --no-kernel "$perf" > "$tmp/out"
grep -q -- '- - kernel - -;' "$tmp/out" && fail "perf fixture: --no-kernel left kernel frames"
ok "perf fixture: per-process sample counts of tests/data/README.md, --no-kernel"

r () { "$report" "$@" || fail "sysprof-report $* exited with $?"; }

# --- damage and usage ---------------------------------------------------------------
size=$(stat -c %s "$perf")
head -c $((size - 100)) "$perf" > "$tmp/truncated.syscap"
[ "$(status_of "$report" top "$tmp/truncated.syscap")" -eq 1 ] || fail "truncated capture: exit status"
grep -q 'offset [0-9]' "$tmp/err" || fail "truncated capture: no offset in $(cat "$tmp/err")"
[ "$(status_of "$report" top "$tmp/missing.syscap")" -eq 1 ] || fail "missing capture: exit status"
grep -q 'missing.syscap' "$tmp/err" || fail "missing capture: $(cat "$tmp/err")"
printf 'not a capture at all, just text................................' > "$tmp/text.syscap"
[ "$(status_of "$report" top "$tmp/text.syscap")" -eq 1 ] || fail "not a capture: exit status"
ok "damaged, missing and foreign files: exit 1 with the reason"

[ "$(status_of "$report" callers no_such_function --no-local-files "$cap")" -eq 1 ] || fail "unknown function: exit"
grep -q 'no function “no_such_function”' "$tmp/err" || fail "unknown function: $(cat "$tmp/err")"
[ "$(status_of "$report" callers comput --no-local-files "$cap")" -eq 1 ] || fail "near miss: exit"
grep -q '^  compute (libwork.so)$' "$tmp/err" || fail "near miss: no suggestion in $(cat "$tmp/err")"
ok "unknown function: exit 1, close names suggested"

[ "$(status_of "$report" top --format csv "$cap")" -eq 2 ] || fail "--format csv: exit"
[ "$(status_of "$report" top --pid abc "$cap")" -eq 2 ] || fail "--pid abc: exit"
[ "$(status_of "$report" top --begin 2 --end 1 "$cap")" -eq 2 ] || fail "--begin after --end: exit"
[ "$(status_of "$report" callers "$cap")" -eq 2 ] || fail "callers without FUNCTION: exit"
[ "$(status_of "$report" frobnicate)" -eq 2 ] || fail "unknown command: exit"
[ "$(status_of "$report")" -eq 2 ] || fail "no arguments: exit"
for c in top callers callees tree flamegraph collapsed; do
  "$report" "$c" --help > "$tmp/out" || fail "$c --help"
  grep -q "^  sysprof-report $c \[OPTION…\]" "$tmp/out" || fail "$c --help: usage line"
  grep -q 'Exit status' "$tmp/out" || fail "$c --help: exit status"
  grep -q -- '--focus=FUNCTION  ' "$tmp/out" || fail "$c --help: --focus"
  grep -q -- '--hide=FUNCTION  ' "$tmp/out" || fail "$c --help: --hide"
done
"$report" --help > "$tmp/out" || fail "--help"
grep -q '^  collapsed ' "$tmp/out" || fail "--help lists the commands"
"$report" --version > "$tmp/out" || fail "--version"
grep -q '^sysprof-report ' "$tmp/out" || fail "--version"
r "$cap" --no-local-files > "$tmp/out"
grep -q '^hash ' "$tmp/out" || fail "no command means top"
ok "usage errors exit 2; --help per command and overall; default command"

echo "1..$n"
