#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report memory and --memory on captures this script writes byte by
# byte (exact answers known), on Sysprof 3.46's memprof fixture, on a capture
# without allocation records and on bad command lines.
#   test-sysprof-report-memory.sh SYSPROF_REPORT SYSPROF_DUMP DATA_DIR
set -euo pipefail
report=$(realpath "$1") dump=$(realpath "$2") data=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }
r () { "$report" "$@" || fail "sysprof-report $* exited with $?"; }
status_of () { set +e; "$@" >"$tmp/out" 2>"$tmp/err"; local s=$?; set -e; echo $s; }
xml_ok () { xmllint --noout "$1" 2>"$tmp/xmlerr" || fail "$1 is not well-formed XML: $(cat "$tmp/xmlerr")"; }

# --- captures written here ------------------------------------------------------
# Little-endian hex; a frame is its 24-byte header then its payload padded to
# 8 (reference §1): PROCESS (4), METADATA (11), FILE_CHUNK (13, the
# __symbols__ table of §5.3), ALLOCATION (14: addr, size, tid, n_addrs, addrs).
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
ms () { echo $((start + $1 * 1000000)); }
MAIN=0x1000 LEAKY=0x2000 TEMP=0x3000 CROSSY=0x4000 MALLOC=0x5000
alloc () { # PID TID MS ADDR SIZE FRAME...
  local pid=$1 tid=$2 t=$3 addr=$4 size=$5 hex
  shift 5
  hex=$(le $((addr)) 8)$(le "$size" 8)$(le "$tid" 4)$(le $# 2)$(zeros 2)
  for a in "$@"; do hex+=$(le $((a)) 8); done
  frame 14 "$pid" "$(ms "$t")" "$hex"
}
free_ () { alloc "$1" "$2" "$3" "$4" 0; }
lost () { # PID TEXT
  local id
  id=$(str sysprof.lost-events)
  frame 11 "$1" "$start" "$id$(zeros $((40 - ${#id} / 2)))$(str "$2")00"
}

symbols_hex () { # PID
  local strings= records= base=$(((5 + 1) * 32))
  declare -A off
  for s in libapp.so libc.so.6 main leaky temp crossy malloc; do
    off[$s]=$((base + ${#strings} / 2))
    strings+=$(str "$s")00
  done
  for f in main:$MAIN:libapp.so leaky:$LEAKY:libapp.so temp:$TEMP:libapp.so crossy:$CROSSY:libapp.so \
    malloc:$MALLOC:libc.so.6; do
    IFS=: read -r name addr lib <<<"$f"
    records+=$(le $((addr)) 8)$(le $((addr + 0xfff)) 8)$(le "$1" 4)$(le "${off[$name]}" 4)$(le "${off[$lib]}" 4)$(zeros 4)
  done
  printf '%s' "$records$(zeros 32)$strings"
}

header () {
  printf '%s' "$(le 0xFDCA975E 4)$(le 0x101 4)$(str 2024-01-01T00:00:00Z)$(zeros 44)$(le $start 8)$(le $((start + 1000000000)) 8)$(zeros 168)"
}
process_and_symbols () { # PID
  local symbols path
  symbols=$(symbols_hex "$1")
  path=$(str __symbols__)
  frame 4 "$1" $start "$(str worker)00"
  frame 13 -1 $start "$(le $((1 | (${#symbols} / 2) << 16)) 4)$path$(zeros $((256 - ${#path} / 2)))$symbols"
}
write () { printf "$(printf '%s' "$2" | sed 's/../\\x&/g')" > "$1"; }

# Process 42 "worker": 3 leaks of 1000 (leaky, below malloc) at 100 ms, two
# temporaries of 50 (temp) at 200 ms, 200 bytes (crossy) allocated by 42 at
# 300 ms and freed by thread 43 at 400 ms, a free of an unknown block at
# 500 ms, one more leak of 500 at 600 ms; 3 lost events.
hex=$(header)$(process_and_symbols 42)$(lost 42 "3 collector: ring full")
for a in 0x10000 0x11000 0x12000; do
  hex+=$(alloc 42 42 100 $a 1000 $((MALLOC + 0x10)) $((LEAKY + 0x10)) $((MAIN + 0x10)))
done
for i in 1 2; do
  hex+=$(alloc 42 42 200 0x20000 50 $((TEMP + 0x10)) $((MAIN + 0x20)))$(free_ 42 42 200 0x20000)
done
hex+=$(alloc 42 42 300 0x30000 200 $((CROSSY + 0x10)) $((MAIN + 0x30)))$(free_ 42 43 400 0x30000)
hex+=$(free_ 42 42 500 0x90000)
hex+=$(alloc 42 42 600 0x13000 500 $((MALLOC + 0x10)) $((LEAKY + 0x10)) $((MAIN + 0x10)))
cap=$tmp/mem.syscap
write "$cap" "$hex"
# A second capture: one leak of 100 at leaky, one of 70 at temp.
hex=$(header)$(process_and_symbols 7)
hex+=$(alloc 7 7 100 0x10000 100 $((LEAKY + 0x10)) $((MAIN + 0x10)))
hex+=$(alloc 7 7 100 0x20000 70 $((TEMP + 0x10)) $((MAIN + 0x10)))
cap2=$tmp/mem2.syscap
write "$cap2" "$hex"
# No allocation records: a process and its symbols only.
nocap=$tmp/none.syscap
write "$nocap" "$(header)$(process_and_symbols 42)"

"$dump" --stats "$cap" > "$tmp/stats" || fail "sysprof-dump cannot read the written capture"
grep -qx 'ALLOCATION 11' "$tmp/stats" || fail "written capture: $(cat "$tmp/stats")"
ok "written captures, read back by sysprof-dump"

M () { r memory --no-local-files "$@"; }

# --- summary ---------------------------------------------------------------------
M "$cap" --format tsv > "$tmp/out"
head -1 "$tmp/out" | grep -qx $'metric\tvalue' || fail "summary tsv header"
for kv in allocations:7 frees:3 bytes_allocated:3800 bytes_freed:300 peak_bytes:3500 live_allocations:4 \
  live_bytes:3500 temporary_allocations:2 temporary_bytes:100 cross_thread_frees:1 cross_thread_bytes:200 \
  unmatched_frees:1 unmatched_allocations:0 lost_events:3 threads:2 processes:1 size_512_1023_allocations:3 size_256_511_allocations:1 \
  size_32_63_allocations:2 size_128_255_bytes:200; do
  grep -qx "${kv%%:*}	${kv#*:}" "$tmp/out" || fail "summary: no ${kv%%:*} = ${kv#*:}: $(cat "$tmp/out")"
done
grep -qx $'peak_time_s\t0.600000000' "$tmp/out" || fail "summary: peak time"
M "$cap" > "$tmp/out"
grep -Eq '^lost events +3 ' "$tmp/out" || fail "summary text: lost events: $(cat "$tmp/out")"
grep -Eq '^peak live bytes +3500 .* at 0\.600 s' "$tmp/out" || fail "summary text: peak"
M "$cap2" > "$tmp/out"
grep -Eq '^lost events +0$' "$tmp/out" || fail "summary text shows lost events even when 0"
ok "summary: exact totals, TSV metric/value, lost events always shown"

# --- leaks, temporary, cross-thread ------------------------------------------------
M --leaks --format tsv "$cap" > "$tmp/out"
printf 'function\tlibrary\tleaked_allocations\tleaked_bytes\nleaky\tlibapp.so\t4\t3500\n' \
  | diff -u - "$tmp/out" || fail "leaks tsv"
M --leaks "$cap" > "$tmp/out"
grep -Eq '^leaky +libapp\.so +4 +3500$' "$tmp/out" || fail "leaks text: $(cat "$tmp/out")"
grep -q '^3 lost events: ' "$tmp/out" || fail "leaks text: no lost-events footer"
M --leaks "$cap2" > "$tmp/out"
grep -q 'lost events' "$tmp/out" && fail "leaks text: lost-events footer without lost events"
M --temporary --format tsv "$cap" > "$tmp/out"
printf 'function\tlibrary\ttemporary_allocations\ttemporary_bytes\ntemp\tlibapp.so\t2\t100\n' \
  | diff -u - "$tmp/out" || fail "temporary tsv"
M --cross-thread --format tsv "$cap" > "$tmp/out"
printf 'function\tlibrary\talloc_tid\tfree_tid\tfrees\tbytes\ncrossy\tlibapp.so\t42\t43\t1\t200\n' \
  | diff -u - "$tmp/out" || fail "cross-thread tsv"
M --cross-thread "$cap" > "$tmp/out"
grep -q '^3 lost events: ' "$tmp/out" || fail "cross-thread text: no lost-events footer"
M --leaks --format tsv --end 0.55 "$cap" > "$tmp/out"
grep -qx $'leaky\tlibapp.so\t3\t3000' "$tmp/out" || fail "leaks --end: $(cat "$tmp/out")"
M --leaks --format tsv --pid 1 "$cap" > "$tmp/out"
[ "$(wc -l < "$tmp/out")" = 1 ] || fail "leaks --pid 1: $(cat "$tmp/out")"
ok "leaks (site past malloc), temporary, cross-thread: exact rows, footers, --end, --pid"

# --- over time ---------------------------------------------------------------------
M --over-time --points 3 --format tsv "$cap" > "$tmp/out"
printf 'time_s\tlive_bytes\tlive_allocations\tpeak_bytes\n0.000000000\t0\t0\t0\n0.500000000\t3000\t3\t3200\n1.000000000\t3500\t4\t3500\n' \
  | diff -u - "$tmp/out" || fail "over-time tsv"
M --over-time --points 3 "$cap" > "$tmp/out"
grep -Eq '^ +0\.500 +3000 +3 +3200$' "$tmp/out" || fail "over-time text: $(cat "$tmp/out")"
M --over-time --svg "$tmp/heap.svg" "$cap" > "$tmp/out"
grep -qx "$tmp/heap.svg" "$tmp/out" || fail "over-time --svg does not print the path"
xml_ok "$tmp/heap.svg"
grep -q '<polyline' "$tmp/heap.svg" || fail "the chart has no line"
M --svg - --points 5 "$cap" > "$tmp/stdout.svg"
xml_ok "$tmp/stdout.svg"
[ "$(grep -c '<circle' "$tmp/stdout.svg")" = 5 ] || fail "--svg - --points 5: not 5 points"
ok "over time: exact points, text table, SVG chart (valid XML, to a file and to stdout)"

# --- diff --------------------------------------------------------------------------
M --diff 0.55 0.65 "$cap" --format tsv > "$tmp/out"
printf 'function\tlibrary\tallocations_a\tbytes_a\tallocations_b\tbytes_b\tdelta_allocations\tdelta_bytes\tstatus\nleaky\tlibapp.so\t3\t3000\t4\t3500\t1\t500\tgrown\n' \
  | diff -u - "$tmp/out" || fail "diff T1 T2"
M --diff 0.25 0.35 "$cap" --format tsv > "$tmp/out"
grep -qx $'crossy\tlibapp.so\t0\t0\t1\t200\t1\t200\tnew' "$tmp/out" || fail "diff: new site: $(cat "$tmp/out")"
M --diff "$cap" "$cap2" --format tsv > "$tmp/out"
printf 'function\tlibrary\tallocations_a\tbytes_a\tallocations_b\tbytes_b\tdelta_allocations\tdelta_bytes\tstatus\nleaky\tlibapp.so\t4\t3500\t1\t100\t-3\t-3400\tshrunk\ntemp\tlibapp.so\t0\t0\t1\t70\t1\t70\tnew\n' \
  | diff -u - "$tmp/out" || fail "diff CAPTURE_A CAPTURE_B"
M --diff "$cap" "$cap2" > "$tmp/out"
grep -Eq '^leaky +libapp\.so +4 +3500 +1 +100 +-3 +-3400 +shrunk$' "$tmp/out" || fail "diff text: $(cat "$tmp/out")"
grep -q '^A: 3 lost events: ' "$tmp/out" || fail "diff text: no lost-events footer for A"
ok "diff: two times of a capture, two captures (grown, shrunk, new)"

# --- --memory on the callgraph commands -----------------------------------------------
r top --memory --no-local-files --format tsv "$cap" > "$tmp/out"
cat > "$tmp/expected" <<'EOF'
function	library	self_allocations	total_allocations	self_bytes	total_bytes	self_percent	total_percent
leaky	libapp.so	4	4	3500	3500	57.14	57.14
temp	libapp.so	2	2	100	100	28.57	28.57
crossy	libapp.so	1	1	200	200	14.29	14.29
main	libapp.so	0	7	0	3800	0.00	100.00
EOF
diff -u "$tmp/expected" "$tmp/out" || fail "top --memory"
r top --memory=bytes --no-local-files --format tsv "$cap" > "$tmp/out"
head -2 "$tmp/out" | diff -u <(printf 'function\tlibrary\tself_bytes\ttotal_bytes\tself_percent\ttotal_percent\nleaky\tlibapp.so\t3500\t3500\t92.11\t92.11\n') - \
  || fail "top --memory=bytes"
r top --memory=leaked --no-local-files --format tsv "$cap" > "$tmp/out"
grep -qx $'leaky\tlibapp.so\t4\t4\t3500\t3500\t100.00\t100.00' "$tmp/out" || fail "top --memory=leaked: $(cat "$tmp/out")"
grep -q '^temp' "$tmp/out" && fail "top --memory=leaked lists a function without leaks"
r top -m --no-local-files "$cap" > "$tmp/out"
grep -q 'mem.syscap: 7 allocations, 3800 bytes' "$tmp/out" || fail "top -m text: $(cat "$tmp/out")"
r collapsed --memory=bytes --no-local-files "$cap" | sort > "$tmp/out"
printf '[worker];main;crossy 200\n[worker];main;leaky 3500\n[worker];main;temp 100\n' | diff -u - "$tmp/out" \
  || fail "collapsed --memory=bytes"
r tree --memory --no-local-files --format tsv --threshold 0 "$cap" > "$tmp/out"
head -1 "$tmp/out" | grep -qx $'depth\tfunction\tlibrary\ttotal_allocations\tself_allocations\ttotal_bytes\tself_bytes\ttotal_percent' \
  || fail "tree --memory header"
grep -qx $'3\tleaky\tlibapp.so\t4\t4\t3500\t3500\t57.14' "$tmp/out" || fail "tree --memory: $(cat "$tmp/out")"
r callers leaky --memory --no-local-files --format tsv "$cap" > "$tmp/out"
printf 'function\tlibrary\tallocations\tbytes\tpercent\nmain\tlibapp.so\t4\t3500\t57.14\n' | diff -u - "$tmp/out" \
  || fail "callers --memory"
r flamegraph --memory=bytes --no-local-files -o "$tmp/flame.svg" "$cap" > /dev/null
xml_ok "$tmp/flame.svg"
grep -q 'leaky (libapp.so) 3500 bytes' "$tmp/flame.svg" || fail "flamegraph --memory=bytes tooltips"
ok "--memory, --memory=bytes, --memory=leaked on top, tree, callers, collapsed, flamegraph"

r collapsed --memory=bytes --focus leaky --no-local-files "$cap" > "$tmp/out"
printf 'leaky 3500\n' | diff -u - "$tmp/out" || fail "collapsed --memory=bytes --focus leaky"
r top --memory --focus leaky --no-local-files --format tsv "$cap" > "$tmp/out"
grep -qx $'leaky\tlibapp.so\t4\t4\t3500\t3500\t100.00\t100.00' "$tmp/out" || fail "top --memory --focus: $(cat "$tmp/out")"
r collapsed --memory --hide leaky --no-local-files "$cap" | sort > "$tmp/out"
printf '[worker];main 4\n[worker];main;crossy 1\n[worker];main;temp 2\n' | diff -u - "$tmp/out" \
  || fail "collapsed --memory --hide leaky"
r collapsed --memory=leaked --focus main --hide leaky --no-local-files "$cap" > "$tmp/out"
printf 'main 4\n' | diff -u - "$tmp/out" || fail "collapsed --memory=leaked --focus main --hide leaky"
# The allocator's frames are left out of the stacks: nothing to focus on.
r collapsed --memory --focus malloc --no-local-files "$cap" > "$tmp/out" 2> "$tmp/err"
[ ! -s "$tmp/out" ] || fail "--focus malloc: $(cat "$tmp/out")"
grep -q 'note: no allocation has “malloc” on its stack' "$tmp/err" || fail "--focus malloc: $(cat "$tmp/err")"
ok "--memory with --focus and --hide: exact stacks, counts and bytes"

# --- Sysprof 3.46's memprof fixture ---------------------------------------------------
fixture=$data/sysprof-3.46-memprof.syscap
r memory --format tsv "$fixture" > "$tmp/out"
grep -qx $'allocations\t164' "$tmp/out" || fail "fixture: allocations"
grep -qx $'records_read\t290' "$tmp/out" || fail "fixture: records"
r memory --leaks --format tsv "$fixture" > "$tmp/out"
head -1 "$tmp/out" | grep -qx $'function\tlibrary\tleaked_allocations\tleaked_bytes' || fail "fixture leaks header"
grep -q 'libsysprof-memory' "$tmp/out" && fail "fixture: the preload library is a leak site"
cut -f1 "$tmp/out" | grep -Eqx 'malloc|calloc|realloc' && fail "fixture: malloc is a leak site"
total=$(awk -F'\t' 'NR > 1 { s += $3 } END { print s }' "$tmp/out")
grep -qx "live_allocations	$total" <(r memory --format tsv "$fixture") || fail "fixture: leaks do not add up"
r top --memory --format tsv "$fixture" > "$tmp/out"
awk -F'\t' 'NR > 1 && $5 > 0 && $3 == 0 { exit 1 }' "$tmp/out" || fail "fixture top --memory: bytes without count"
ok "3.46 fixture: 164 allocations, sites past the preload and allocator frames, leaks add up"

# --- errors ---------------------------------------------------------------------------
[ "$(status_of "$report" memory "$nocap")" = 1 ] || fail "memory on a capture without allocations"
grep -q 'the capture has no allocation records; record with sysprof-cli --memprof' "$tmp/err" \
  || fail "no-allocations message: $(cat "$tmp/err")"
[ "$(status_of "$report" top --memory "$nocap")" = 1 ] || fail "top --memory without allocations"
grep -q 'no allocation records' "$tmp/err" || fail "top --memory message"
[ "$(status_of "$report" memory "$tmp/missing.syscap")" = 1 ] || fail "missing capture"
[ "$(status_of "$report" memory --leaks --temporary "$cap")" = 2 ] || fail "two modes"
[ "$(status_of "$report" memory --diff "$cap")" = 2 ] || fail "--diff with one capture"
[ "$(status_of "$report" memory --diff x 1 "$cap")" = 2 ] || fail "--diff with a bad time"
[ "$(status_of "$report" memory --points 0 --over-time "$cap")" = 2 ] || fail "--points 0"
[ "$(status_of "$report" memory --svg x.svg --leaks "$cap")" = 2 ] || fail "--svg with --leaks"
[ "$(status_of "$report" memory --format xml "$cap")" = 2 ] || fail "--format xml"
[ "$(status_of "$report" top --memory=weird "$cap")" = 2 ] || fail "--memory=weird"
grep -q 'count, bytes, leaked, leaked-bytes' "$tmp/err" || fail "--memory=weird message"
[ "$(status_of "$report" memory "$cap" "$cap")" = 2 ] || fail "two captures without --diff"
r help memory > "$tmp/out"
grep -q 'temporary_allocations' "$tmp/out" || fail "help memory: columns"
grep -q 'allocated and freed right away' "$tmp/out" || fail "help memory: temporary rule"
r help top > "$tmp/out"
grep -q -- '--memory=leaked-bytes' "$tmp/out" || fail "help top: --memory"
ok "errors: no allocation records (1), unreadable capture (1), usage errors (2); help texts"

echo "1..$n"
