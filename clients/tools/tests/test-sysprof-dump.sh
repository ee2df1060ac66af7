#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-dump on real Sysprof 3.46 captures, big-endian copies and damaged files.
#   test-sysprof-dump.sh SYSPROF_DUMP COMPAT_OURS TO_BIG_ENDIAN DATA_DIR
set -euo pipefail
dump=$1 ours=$2 to_be=$3 data=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

names='TIMESTAMP|SAMPLE|MAP|PROCESS|FORK|EXIT|JITMAP|CTRDEF|CTRSET|MARK|METADATA|LOG|FILE_CHUNK|ALLOCATION|OVERLAY|TRACE|DBUS_MESSAGE'

for f in "$data"/sysprof-3.46-*.syscap; do
  base=$(basename "$f")
  "$dump" --stats "$f" > "$tmp/stats"
  # Shape: frame lines, then the four totals, then FILE lines; nothing else.
  grep -Ev "^(($names) [1-9][0-9]*|(SAMPLE_ADDRS|ALLOCS|FREES|ALLOC_BYTES) [0-9]+|FILE .+)$" "$tmp/stats" \
    && fail "$base: unexpected --stats line"
  [ "$(grep -cE '^(SAMPLE_ADDRS|ALLOCS|FREES|ALLOC_BYTES) ' "$tmp/stats")" -eq 4 ] || fail "$base: totals missing"
  # Totals agree with an independent walk (compat-ours dump, one line per frame).
  "$ours" dump "$f" > "$tmp/frames"
  addrs=$({ grep '^SAMPLE ' "$tmp/frames" || true; } | sed 's/.* n=\([0-9]*\) .*/\1/' | awk '{s+=$1} END {print s+0}')
  grep -qx "SAMPLE_ADDRS $addrs" "$tmp/stats" || fail "$base: SAMPLE_ADDRS is not $addrs"
  allocs=$(grep -c '^ALLOCATION .* size=[1-9]' "$tmp/frames" || true)
  frees=$(grep -c '^ALLOCATION .* size=0 ' "$tmp/frames" || true)
  bytes=$({ grep '^ALLOCATION ' "$tmp/frames" || true; } | sed 's/.* size=\([0-9-]*\) .*/\1/' | awk '$1 > 0 {s+=$1} END {print s+0}')
  grep -qx "ALLOCS $allocs" "$tmp/stats" || fail "$base: ALLOCS is not $allocs"
  grep -qx "FREES $frees" "$tmp/stats" || fail "$base: FREES is not $frees"
  grep -qx "ALLOC_BYTES $bytes" "$tmp/stats" || fail "$base: ALLOC_BYTES is not $bytes"
  # --list-files equals the FILE lines.
  "$dump" --list-files "$f" > "$tmp/files"
  diff <(sed -n 's/^FILE //p' "$tmp/stats") "$tmp/files" >/dev/null || fail "$base: --list-files differs from --stats"
  grep -qx '__symbols__' "$tmp/files" || fail "$base: __symbols__ not listed"
  # One block per frame.
  "$dump" "$f" > "$tmp/full"
  [ "$(grep -cE "^($names) @[0-9]+: " "$tmp/full")" -eq "$(wc -l < "$tmp/frames")" ] || fail "$base: block count"
  # A big-endian copy dumps the same, except the byte order line.
  "$to_be" "$f" "$tmp/be.syscap"
  "$dump" "$tmp/be.syscap" > "$tmp/full-be"
  grep -qx 'Byte order: big-endian' "$tmp/full-be" || fail "$base: byte order not reported"
  diff <(grep -v '^Byte order' "$tmp/full") <(grep -v '^Byte order' "$tmp/full-be") >/dev/null \
    || fail "$base: big-endian copy dumps differently"
  cmp -s <("$dump" --stats "$f") <("$dump" --stats "$tmp/be.syscap") || fail "$base: big-endian stats differ"
  # Through a pipe: one pass, same answer.
  cat "$f" | "$dump" --stats /dev/stdin > "$tmp/stats-pipe"
  cmp -s "$tmp/stats" "$tmp/stats-pipe" || fail "$base: --stats through a pipe differs"
  ok "$base: stats, totals, files, blocks, big-endian, pipe"
done

perf="$data/sysprof-3.46-perf.syscap"
size=$(stat -c %s "$perf")

# Truncated inside a frame: everything before is printed, the error names the offset, exit 1.
head -c $((size - 100)) "$perf" > "$tmp/truncated.syscap"
set +e
"$dump" "$tmp/truncated.syscap" > "$tmp/out" 2> "$tmp/err"
status=$?
set -e
[ $status -eq 1 ] || fail "truncated capture: exit status $status, expected 1"
grep -q 'truncated frame at offset [0-9]*: it is [0-9]* bytes long but only [0-9]* bytes remain' "$tmp/err" \
  || fail "truncated capture: error does not name the offset: $(cat "$tmp/err")"
last=$(grep -oE '@[0-9]+' "$tmp/out" | tail -n 1 | tr -d @)
cut=$(sed -n 's/.*truncated frame at offset \([0-9]*\).*/\1/p' "$tmp/err")
[ "$last" -lt "$cut" ] || fail "truncated capture: printed past the damage"
[ "$(grep -cE "^($names) @" "$tmp/out")" -eq $(($(wc -l < <("$ours" dump "$perf")) - 1)) ] \
  || fail "truncated capture: frames before the damage were not all printed"
ok "truncated capture: partial output, offset named, exit 1"

# A SAMPLE whose address count lies: reported with its offset, the rest still printed.
off=$("$dump" "$perf" | sed -n 's/^SAMPLE @\([0-9]*\): .*/\1/p' | sed -n 10p)
cp "$perf" "$tmp/corrupt.syscap"
printf '\xff\x7f' | dd of="$tmp/corrupt.syscap" bs=1 seek=$((off + 24)) conv=notrunc status=none
set +e
"$dump" --stats "$tmp/corrupt.syscap" > "$tmp/out" 2> "$tmp/err"
status=$?
set -e
[ $status -eq 1 ] || fail "corrupt sample: exit status $status"
grep -q "corrupt SAMPLE frame at offset $off: it claims 32767 addresses" "$tmp/err" || fail "corrupt sample: $(cat "$tmp/err")"
expected=$(($(sed -n 's/^SAMPLE //p' <("$dump" --stats "$perf")) - 1))
grep -qx "SAMPLE $expected" "$tmp/out" || fail "corrupt sample: the other samples were not all counted"
ok "corrupt frame payload: offset named, other frames kept, exit 1"

# Not a capture / missing / usage.
head -c 300 /dev/urandom > "$tmp/noise"
printf 'NOPE' | dd of="$tmp/noise" bs=1 conv=notrunc status=none
set +e
"$dump" "$tmp/noise" 2> "$tmp/err"; s1=$?
"$dump" "$tmp/missing.syscap" 2> "$tmp/err2"; s2=$?
"$dump" 2> /dev/null; s3=$?
"$dump" --bogus "$perf" 2> /dev/null; s4=$?
set -e
[ $s1 -eq 1 ] && grep -q 'bad magic 4e 4f 50 45 at offset 0' "$tmp/err" || fail "noise: $s1 $(cat "$tmp/err")"
[ $s2 -eq 1 ] && grep -q 'No such file or directory' "$tmp/err2" || fail "missing file: $s2"
[ $s3 -eq 2 ] && [ $s4 -eq 2 ] || fail "usage errors must exit 2 ($s3, $s4)"
"$dump" --help | grep -q -- '--stats' || fail "--help does not document --stats"
ok "bad input and usage errors"
echo "1..$n"
