#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Compares our libsysprof-capture with Debian's Sysprof 3.46 library through
# files (the two cannot share a binary; see FORMAT.md).
#   run-compat.sh OURS ORACLE SYSPROF_DUMP CASE [FIXTURE]
# CASE: ours-written   our writer's spec capture, read by both readers
#       upstream-written  upstream's spec capture, read by both readers
#       fixture          a capture recorded by the real Sysprof 3.46
set -euo pipefail
ours=$1 oracle=$2 dump=$3 case=$4 fixture=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail () { echo "FAIL: $*" >&2; exit 1; }

# JIT maps are position-independent: upstream writes its JITMAP frame ahead
# of the buffered frames at flush, we append it.  Compare them at the end.
jit_last () { grep -v '^JITMAP ' "$1"; grep '^JITMAP ' "$1" || true; }

same () {
  if ! diff -u "$1" "$2" > "$tmp/diff"; then
    head -n 40 "$tmp/diff" >&2
    fail "$3"
  fi
}

case $case in
  ours-written)
    "$ours" write "$tmp/ours.syscap"
    "$oracle" dump "$tmp/ours.syscap" > "$tmp/by-upstream.txt" || fail "Sysprof 3.46 could not read our capture"
    "$ours" dump "$tmp/ours.syscap" > "$tmp/by-ours.txt"
    same "$tmp/by-upstream.txt" "$tmp/by-ours.txt" "upstream and our reader disagree on our capture"
    # Same content as upstream's writer produces for the same calls.
    "$oracle" write "$tmp/upstream.syscap"
    "$oracle" dump "$tmp/upstream.syscap" > "$tmp/upstream-self.txt"
    jit_last "$tmp/upstream-self.txt" > "$tmp/a"
    jit_last "$tmp/by-upstream.txt" > "$tmp/b"
    same "$tmp/a" "$tmp/b" "our writer's capture differs from Sysprof 3.46's for the same calls"
    [ "$(grep -c . "$tmp/by-upstream.txt")" -eq 18 ] || fail "expected 18 frames (17 + JITMAP)"
    ;;
  upstream-written)
    "$oracle" write "$tmp/upstream.syscap"
    "$oracle" dump "$tmp/upstream.syscap" > "$tmp/by-upstream.txt"
    "$ours" dump "$tmp/upstream.syscap" > "$tmp/by-ours.txt" || fail "our reader failed on Sysprof 3.46's capture"
    same "$tmp/by-upstream.txt" "$tmp/by-ours.txt" "our reader reads Sysprof 3.46's capture differently"
    ;;
  fixture)
    [ -f "$fixture" ] || fail "no fixture $fixture"
    "$oracle" dump "$fixture" > "$tmp/by-upstream.txt"
    "$ours" dump "$fixture" > "$tmp/by-ours.txt" || fail "our reader failed on $fixture"
    same "$tmp/by-upstream.txt" "$tmp/by-ours.txt" "frame contents differ on $fixture"
    "$oracle" stats "$fixture" > "$tmp/stats-upstream.txt"
    "$dump" --stats "$fixture" | grep -E '^[A-Z_]+ [0-9]+$' \
      | grep -vE '^(SAMPLE_ADDRS|ALLOCS|FREES|ALLOC_BYTES) ' > "$tmp/stats-dump.txt"
    same "$tmp/stats-upstream.txt" "$tmp/stats-dump.txt" "sysprof-dump --stats counts differ from Sysprof 3.46's on $fixture"
    [ -s "$tmp/stats-upstream.txt" ] || fail "no frames in $fixture"
    ;;
  *)
    fail "unknown case $case"
    ;;
esac
echo "ok: $case ${fixture:+$(basename "$fixture")}"
