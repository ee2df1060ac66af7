#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-cat --compact-memory and --expand-memory on real captures: Debian
# Sysprof 3.46's memprof fixture, and (as root, where the tracker is built) a
# recording of tests/workloads/memory-workload with ALLOCATION frames.  The
# compacted capture is much smaller and holds every event (sysprof-dump
# decodes its streams); expanded again it holds the same events as the
# recording (all fields but the CPU, each thread's in the same order), Debian's Sysprof
# 3.46 library reads them with the same counts and sums, and sysprof-report
# finds the workload's exact numbers in it.  Damaged stream blocks: expansion
# completes, keeps every other event and says what it left out.
#   test-sysprof-cat-memory.sh SYSPROF_CAT SYSPROF_DUMP COMPAT_OURS DATA_DIR SYSPROF_REPORT \
#                              [SYSPROF_CLI MEMORY_WORKLOAD] [-- UPSTREAM_ORACLE]
set -euo pipefail
cat_=$1 dump=$2 ours=$3 data=$4 report=$5
shift 5
cli= workload= oracle=
if [ $# -ge 2 ] && [ "$1" != -- ]; then cli=$1 workload=$2; shift 2; fi
if [ "${1:-}" = -- ]; then oracle=${2:-}; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
skip () { n=$((n + 1)); echo "ok $n # SKIP $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }
stat_of () { awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$1"; }

# The allocation events of a capture as our reader sees the frames, without
# the CPU (streams do not keep it), thread by thread in capture order (events
# of different threads at the same nanosecond may come in either order).
by_thread () { { grep '^ALLOCATION ' || true; } | sed 's/ cpu=[-0-9]*//' | sort -s -k2,2 -k4,4; }
events () { "$ours" dump "$1" | by_thread; }
# Allocation count, free count, allocated bytes, from the canonical dump of
# either library.
sums () { awk '/^ALLOCATION / { for (i = 1; i <= NF; i++) if ($i ~ /^size=/) { s = substr($i, 6) + 0; if (s > 0) { a++; b += s } else f++ } }
               END { printf "%d %d %d\n", a, f, b }'; }
# The allocation events sysprof-dump lists, from ALLOCATION frames or
# decoded from streams: "tid time address size frames...", sorted.
listed () {
  "$dump" "$1" | awk '
    function flush() { if (ev != "") print ev; ev = "" }
    /^[A-Z_]+ @/ { flush(); t = ""; for (i = 1; i <= NF; i++) if ($i ~ /^time=/) t = substr($i, 6); next }
    /^  alloc tid: / { flush(); ev = ($4 == "time:") ? $3 " " $5 " " $7 " " $9 : $3 " " t " " $5 " " $7; next }
    /^  free tid: / { flush(); ev = ($4 == "time:") ? $3 " " $5 " " $7 " 0" : $3 " " t " " $5 " 0"; next }
    /^    0x/ { if (ev != "") ev = ev " " $1; next }
    /^  / { flush() }
    END { flush() }' | sort
}
# The frames other than allocation records, as our reader sees them.
others () { "$ours" dump "$1" | grep -vE '^(ALLOCATION |JITMAP )' | grep -v 'path="sysprof/memory-stream/' \
              | grep -v 'id="sysprof.memory-stream"' || true; }

# round_trip NAME CAPTURE: compacts and expands CAPTURE, checks both.
round_trip () {
  local name=$1 capture=$2
  "$cat_" --compact-memory "$capture" > "$tmp/$name-c.syscap" 2> "$tmp/err" || fail "$name: compaction failed: $(cat "$tmp/err")"
  [ ! -s "$tmp/err" ] || fail "$name: compaction said: $(cat "$tmp/err")"
  "$dump" --stats "$capture" > "$tmp/$name.stats"
  "$dump" --stats "$tmp/$name-c.syscap" > "$tmp/$name-c.stats" || fail "$name: the compacted capture does not read cleanly"
  [ "$(stat_of "$tmp/$name-c.stats" ALLOCATION)" -eq 0 ] || fail "$name: ALLOCATION frames left after compaction"
  for k in ALLOCS FREES ALLOC_BYTES; do
    [ "$(stat_of "$tmp/$name-c.stats" $k)" -eq "$(stat_of "$tmp/$name.stats" $k)" ] \
      || fail "$name: $k $(stat_of "$tmp/$name-c.stats" $k) in the streams, $(stat_of "$tmp/$name.stats" $k) recorded"
  done
  grep -q '^FILE sysprof/memory-stream/' "$tmp/$name-c.stats" && fail "$name: streams listed as embedded files"
  "$dump" --list-files "$tmp/$name-c.syscap" | grep -q '^sysprof/memory-stream/' && fail "$name: --list-files lists streams"
  listed "$capture" > "$tmp/a"
  listed "$tmp/$name-c.syscap" > "$tmp/b"
  [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" || fail "$name: sysprof-dump lists other events in the streams: $(diff "$tmp/a" "$tmp/b" | head -5)"
  # One stream per thread that allocated, each ended, none damaged.
  local nthreads
  nthreads=$("$ours" dump "$capture" | awk '/^ALLOCATION / { print $3, $5 }' | sort -u | wc -l)
  [ "$(grep -c '^STREAM ' "$tmp/$name-c.stats")" -eq "$nthreads" ] || fail "$name: $(grep -c '^STREAM ' "$tmp/$name-c.stats") streams for $nthreads threads"
  grep '^STREAM ' "$tmp/$name-c.stats" | grep -qv 'errors=0$' && fail "$name: damaged streams: $(grep '^STREAM ' "$tmp/$name-c.stats")"
  "$ours" dump "$tmp/$name-c.syscap" | grep 'path="sysprof/memory-stream/' > "$tmp/chunks"
  [ "$(grep -c 'is_last=1' "$tmp/chunks")" -eq "$nthreads" ] || fail "$name: not one last block per stream"

  "$cat_" --expand-memory "$tmp/$name-c.syscap" > "$tmp/$name-e.syscap" 2> "$tmp/err" || fail "$name: expansion failed: $(cat "$tmp/err")"
  [ ! -s "$tmp/err" ] || fail "$name: expansion said: $(cat "$tmp/err")"
  events "$capture" > "$tmp/$name.events"
  events "$tmp/$name-e.syscap" > "$tmp/$name-e.events"
  cmp -s "$tmp/$name.events" "$tmp/$name-e.events" \
    || fail "$name: expanded events differ: $(diff "$tmp/$name.events" "$tmp/$name-e.events" | head -5)"
  others "$capture" > "$tmp/a"
  others "$tmp/$name-e.syscap" > "$tmp/b"
  cmp -s "$tmp/a" "$tmp/b" || fail "$name: the other frames changed: $(diff "$tmp/a" "$tmp/b" | head -5)"
}

# 1. Debian Sysprof 3.46's memprof fixture (ALLOCATION frames, 3.46 layout).
round_trip fixture "$data/sysprof-3.46-memprof.syscap"
ok "Sysprof 3.46 fixture: $(stat_of "$tmp/fixture.stats" ALLOCATION) events compacted into $(grep -c '^STREAM ' "$tmp/fixture-c.stats") stream(s) (sysprof-dump lists and counts them), expanded back to the same events and frames"

# 2. A recording with ALLOCATION frames (root: sysprof-cli records in-process).
if [ -n "$cli" ] && [ "$(id -u)" = 0 ]; then
  threads=2 per=100000
  "$cli" -f "$tmp/rec.syscap" --memprof --memprof-format frames --no-perf --no-cpu --no-memory --no-disk --no-network \
    -- "$workload" $threads $per 100 10 7 50 > "$tmp/cli.log" 2>&1 || fail "recording failed: $(cat "$tmp/cli.log")"
  grep -q "^ok threads=$threads n=$per" "$tmp/cli.log" || fail "the workload did not finish: $(cat "$tmp/cli.log")"
  round_trip rec "$tmp/rec.syscap"
  size=$(stat -c %s "$tmp/rec.syscap") csize=$(stat -c %s "$tmp/rec-c.syscap")
  stored=$("$dump" "$tmp/rec-c.syscap" | awk '/^  id: sysprof.memory-stream$/ { m = 1; next } m && /^blocks=/ { for (i = 1; i <= NF; i++) if ($i ~ /^stored-bytes=/) print substr($i, 14); exit }')
  frames=$("$dump" "$tmp/rec.syscap" | awk '/^ALLOCATION @/ { sub(/.*len=/, ""); s += $1 } END { print s }')
  # The file shrinks by nearly all of its allocation records (what else it
  # holds, the kernel's symbols for one, depends on the machine and stays).
  [ -n "$frames" ] && [ $(((size - csize) * 10)) -gt $((frames * 9)) ] ||
    fail "compacted $size bytes into $csize only, for ${frames:-?} bytes of ALLOCATION frames"
  [ -n "$stored" ] && [ $((stored * 20)) -lt "$frames" ] || fail "streams of ${stored:-?} bytes for $frames bytes of ALLOCATION frames"
  ok "recording of $threads x $per allocations: $size bytes compacted to $csize ($frames bytes of ALLOCATION frames to $stored of streams), expanded back to the same $(stat_of "$tmp/rec.stats" ALLOCATION) events"

  # The workload's exact numbers, from the expanded capture.
  "$report" top --memory --format tsv --limit 0 "$tmp/rec-e.syscap" > "$tmp/top.tsv" || fail "sysprof-report on the expanded capture"
  for spec in churn_alloc:$((threads * per)) cross_alloc:$((threads * 10)) temp_alloc:$((threads * 100)) leak_alloc:7 grow_alloc:50; do
    got=$(awk -F'\t' -v f="${spec%:*}" '$1 == f { print $3 }' "$tmp/top.tsv")
    [ "$got" = "${spec#*:}" ] || fail "${spec%:*}: ${got:-no} allocations in the expanded capture, expected ${spec#*:}"
  done
  ok "expanded recording: sysprof-report finds every site's exact allocation count"

  if [ -n "$oracle" ]; then
    # Debian's Sysprof 3.46 library: the compacted capture reads (the
    # streams are file chunks to it), the expanded one has every event.
    "$oracle" dump "$tmp/rec-c.syscap" > "$tmp/c-346.txt" || fail "Sysprof 3.46 cannot read the compacted capture"
    ! grep -q '^ALLOCATION ' "$tmp/c-346.txt" || fail "Sysprof 3.46 sees ALLOCATION frames in the compacted capture"
    "$oracle" dump "$tmp/rec-e.syscap" > "$tmp/e-346.txt" || fail "Sysprof 3.46 cannot read the expanded capture"
    want="$(stat_of "$tmp/rec.stats" ALLOCS) $(stat_of "$tmp/rec.stats" FREES) $(stat_of "$tmp/rec.stats" ALLOC_BYTES)"
    got=$(sums < "$tmp/e-346.txt")
    [ "$got" = "$want" ] || fail "Sysprof 3.46 reads allocations, frees, bytes $got from the expanded capture; recorded $want"
    [ "$(by_thread < "$tmp/e-346.txt")" = "$(cat "$tmp/rec.events")" ] \
      || fail "Sysprof 3.46 reads other events from the expanded capture"
    ok "Sysprof 3.46's library reads the expanded capture: $got (allocations, frees, bytes) as recorded, every event equal"
  else
    skip "Debian's Sysprof 3.46 library (compat) not built"
  fi
  damaged_input="$tmp/rec-c.syscap"

  # 2b. The tracker's own streams (--memprof-format stream), expanded: the
  #     same exact numbers, and Sysprof 3.46 reads every event of them.
  "$cli" -f "$tmp/srec.syscap" --memprof --memprof-format stream --no-perf --no-cpu --no-memory --no-disk \
    --no-network -- "$workload" $threads $per 100 10 7 50 > "$tmp/cli.log" 2>&1 || fail "stream recording failed: $(cat "$tmp/cli.log")"
  "$dump" --stats "$tmp/srec.syscap" > "$tmp/srec.stats" || fail "the stream recording does not read cleanly"
  [ "$(stat_of "$tmp/srec.stats" ALLOCATION)" -eq 0 ] || fail "ALLOCATION frames in a stream recording"
  "$cat_" --expand-memory "$tmp/srec.syscap" > "$tmp/srec-e.syscap" 2> "$tmp/err" || fail "stream expansion failed: $(cat "$tmp/err")"
  [ ! -s "$tmp/err" ] || fail "stream expansion said: $(cat "$tmp/err")"
  "$dump" --stats "$tmp/srec-e.syscap" > "$tmp/srec-e.stats"
  for k in ALLOCS FREES ALLOC_BYTES; do
    [ "$(stat_of "$tmp/srec-e.stats" $k)" -eq "$(stat_of "$tmp/srec.stats" $k)" ] \
      || fail "stream recording: $k $(stat_of "$tmp/srec-e.stats" $k) expanded, $(stat_of "$tmp/srec.stats" $k) in the streams"
  done
  [ "$(stat_of "$tmp/srec-e.stats" ALLOCATION)" -eq "$(($(stat_of "$tmp/srec.stats" ALLOCS) + $(stat_of "$tmp/srec.stats" FREES)))" ] \
    || fail "stream recording: $(stat_of "$tmp/srec-e.stats" ALLOCATION) ALLOCATION frames expanded"
  "$report" top --memory --format tsv --limit 0 "$tmp/srec-e.syscap" > "$tmp/stop.tsv" || fail "sysprof-report on the expanded streams"
  for spec in churn_alloc:$((threads * per)) cross_alloc:$((threads * 10)) temp_alloc:$((threads * 100)) leak_alloc:7 grow_alloc:50; do
    got=$(awk -F'\t' -v f="${spec%:*}" '$1 == f { print $3 }' "$tmp/stop.tsv")
    [ "$got" = "${spec#*:}" ] || fail "${spec%:*}: ${got:-no} allocations in the expanded streams, expected ${spec#*:}"
  done
  if [ -n "$oracle" ]; then
    "$oracle" dump "$tmp/srec.syscap" > /dev/null || fail "Sysprof 3.46 cannot read the stream recording"
    "$oracle" dump "$tmp/srec-e.syscap" > "$tmp/se-346.txt" || fail "Sysprof 3.46 cannot read the expanded streams"
    want="$(stat_of "$tmp/srec.stats" ALLOCS) $(stat_of "$tmp/srec.stats" FREES) $(stat_of "$tmp/srec.stats" ALLOC_BYTES)"
    got=$(sums < "$tmp/se-346.txt")
    [ "$got" = "$want" ] || fail "Sysprof 3.46 reads allocations, frees, bytes $got from the expanded streams; recorded $want"
    ok "the tracker's streams ($(stat_of "$tmp/srec.stats" ALLOCS) allocations): expanded, every site's exact count, and Sysprof 3.46 reads $got (allocations, frees, bytes) from them"
  else
    ok "the tracker's streams ($(stat_of "$tmp/srec.stats" ALLOCS) allocations): expanded, every site's exact count (Sysprof 3.46's library not built)"
  fi
else
  skip "recording: needs root and the memory tracker"
  skip "recording: exact numbers"
  skip "recording: Sysprof 3.46"
  skip "stream recording: expanded"
  damaged_input="$tmp/fixture-c.syscap"
fi

# 3. Damaged stream blocks: one with a broken zstd frame, one of an unknown
#    type.  Expansion completes and keeps every event of the other blocks.
"$dump" "$damaged_input" > "$tmp/listing"
# Blocks that define no stack, so that the later blocks of their streams
# still decode (a lost definition would make them unsound too).
awk '/^[A-Z_]+ @/ { if (off != "") print off, defs; off = ""; defs = 0 }
     /^FILE_CHUNK @/ { o = substr($2, 2) + 0 } /^  path: sysprof\/memory-stream\// { off = o }
     /^  stacks defined:/ { defs = 1 } END { if (off != "") print off, defs }' "$tmp/listing" > "$tmp/blocks"
mapfile -t offs < <(awk '$2 == 0 { print $1 }' "$tmp/blocks")
[ "${#offs[@]}" -ge 2 ] || mapfile -t offs < <(awk '{ print $1 }' "$tmp/blocks")
[ "${#offs[@]}" -ge 1 ] || fail "no stream chunks to damage"
bad1=${offs[$((${#offs[@]} / 3))]} bad2=${offs[$((${#offs[@]} - 1))]}
nbad=$(printf '%s\n' "$bad1" "$bad2" | sort -u | wc -l)
# Events the damaged blocks carry (their lines in the listing).
lost=$(awk -v a="$bad1" -v b="$bad2" '/^[A-Z_]+ @/ { o = substr($2, 2) + 0; in_ = (o == a || o == b) } in_ && /^  (alloc|free) tid:/ { c++ } END { print c + 0 }' "$tmp/listing")
cp "$damaged_input" "$tmp/damaged.syscap"
python3 - "$tmp/damaged.syscap" "$bad1" "$bad2" <<'EOF'
import sys
path, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, 'r+b') as f:
    data = 284  # the block's first byte in its FILE_CHUNK frame
    f.seek(a + data); block = f.read(64)
    if block[0:1] == b'Z':
        i = block.index(b'\x28\xb5\x2f\xfd')  # the zstd frame's magic number
        f.seek(a + data + i); f.write(b'\x00\x00\x00\x00')
    else:
        f.seek(a + data); f.write(b'Q')
    f.seek(b + data); f.write(b'Q')
EOF
set +e
"$dump" --stats "$tmp/damaged.syscap" > "$tmp/damaged.stats" 2> "$tmp/dump.err"; dstatus=$?
"$cat_" --expand-memory "$tmp/damaged.syscap" > "$tmp/damaged-e.syscap" 2> "$tmp/err"; status=$?
set -e
[ $dstatus -eq 1 ] || fail "sysprof-dump: exit status $dstatus on damaged streams"
grep -q "offset $bad2" "$tmp/dump.err" || fail "sysprof-dump: $(cat "$tmp/dump.err")"
[ "$(awk '/^STREAM / { for (i = 1; i <= NF; i++) if ($i ~ /^errors=/) s += substr($i, 8) } END { print s + 0 }' "$tmp/damaged.stats")" -eq "$nbad" ] \
  || fail "sysprof-dump: errors not counted: $(grep '^STREAM ' "$tmp/damaged.stats")"
[ $status -eq 1 ] || fail "damaged streams: exit status $status"
grep -q "^sysprof-cat: .*damaged.syscap: $nbad unsound memory stream blocks or allocation frames left out: .*offset " "$tmp/err" \
  || fail "damaged streams: $(cat "$tmp/err")"
"$dump" --stats "$tmp/damaged-e.syscap" > "$tmp/de.stats" || fail "the expanded damaged capture does not read cleanly"
base=${damaged_input%-c.syscap}
want=$(($(stat_of "$base.stats" ALLOCATION) - lost))
[ "$(stat_of "$tmp/de.stats" ALLOCATION)" -eq "$want" ] \
  || fail "damaged streams: $(stat_of "$tmp/de.stats" ALLOCATION) events expanded, expected $want ($lost in the damaged blocks)"
events "$tmp/damaged-e.syscap" | sort > "$tmp/kept"
sort "$base.events" > "$tmp/all"
[ -z "$(comm -23 "$tmp/kept" "$tmp/all")" ] || fail "damaged streams: events that were not recorded"
ok "damaged stream blocks: exit 1, described; $want events kept, the $lost of the $nbad damaged blocks left out"

# 4. Several inputs: each one's events, merged.
"$cat_" --expand-memory "$tmp/fixture-c.syscap" "$data/sysprof-3.46-memprof.syscap" > "$tmp/two.syscap"
"$dump" --stats "$tmp/two.syscap" > "$tmp/two.stats"
[ "$(stat_of "$tmp/two.stats" ALLOCATION)" -eq $((2 * $(stat_of "$tmp/fixture.stats" ALLOCATION))) ] \
  || fail "two inputs: $(stat_of "$tmp/two.stats" ALLOCATION) events"
ok "two inputs, one compacted: every event of both expanded"

set +e
"$cat_" --expand-memory --compact-memory "$data/sysprof-3.46-memprof.syscap" > /dev/null 2> "$tmp/err"; s=$?
set -e
[ $s -eq 2 ] && grep -q 'exclude each other' "$tmp/err" || fail "both options: exit $s, $(cat "$tmp/err")"
ok "--expand-memory with --compact-memory is a usage error"
echo "1..$n"
