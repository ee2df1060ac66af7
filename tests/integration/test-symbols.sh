#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Symbols through libdw, recorded for real: the unprivileged user records
# the inline workload (libsysprof/symbols/tests/elf: -O2 -g, no frame pointers:
# its stacks are unwound with DWARF while recording,
# an always_inline function, lines marked LINE:… in its source) through
# sysprofd, with its library of static functions stripped to .dynsym; and
# Debian's xz, whose liblzma is stripped and has no frame pointers.
#   - the inlined function is a frame of its own, and every line is the one
#     the source marks (the callers' lines are those of their calls);
#   - the same once the binaries are gone (the capture's __symbol_frames__),
#     from a stripped copy whose debug file is found by build-id, and from
#     one whose debug file is only on a debuginfod server (Debian's, run
#     here); ≥ 99 % of the samples reach main in each;
#   - the stripped library: one row per static function, named after its
#     start (nm of the unstripped library says where);
#   - xz: liblzma is a handful of rows, and no frame is an address outside
#     every executable mapping (the data frame pointers led to);
#   - Debian's Sysprof 3.46 library reads the capture.
# Run under tools/with-sysprofd.sh:
#   test-symbols.sh SYSPROF_CLI SYSPROF_REPORT SYSPROF_DUMP WORKLOAD LIBGROUPED SOURCE [CALLGRAPH_346]
set -euo pipefail
# shellcheck source=tests/integration/debuginfod-server.sh
source "$(dirname "$0")/debuginfod-server.sh"
cli=$(realpath "$1") report=$(realpath "$2") dump=$(realpath "$3")
workload=$(realpath "$4") lib=$(realpath "$5") source=$(realpath "$6") cg346=${7:+$(realpath "$7")}
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u/work"
install -m 755 "$cli" "$report" "$dump" "$W/bin/"
install -m 755 "$workload" "$W/u/work/inline-workload"
objcopy --strip-all "$lib" "$W/u/work/libgrouped.so"
chown -R "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
line_of () { grep -n "LINE:$1 " "$source" | cut -d: -f1; }
mix_a=$(line_of mix-a) mix_b=$(line_of mix-b) mix_c=$(line_of mix-c)
chain="main (inline-workload.c:$(line_of middle-call));inline_middle (inline-workload.c:$(line_of outer-call));inline_outer (inline-workload.c:$(line_of mix-call));inline_mix (inline-workload.c:"
# Samples of the folded stacks ($1) that match the awk regex $2.
samples () { awk -v re="$2" '{ c = $NF; sub(/ [0-9]+$/, "") } $0 ~ re { s += c } END { print s + 0 }' "$1"; }

# Every stack through inline_mix is main → inline_middle → inline_outer →
# inline_mix at the marked lines, and they are most of the workload's time.
check_inline () {
  local folded=$1 what=$2 total through exact main
  total=$(samples "$folded" '.')
  through=$(samples "$folded" 'inline_mix')
  exact=$(samples "$folded" "$(printf '%s' "$chain" | sed 's/[().]/\\&/g')($mix_a|$mix_b|$mix_c)\\)(;|\$)")
  [ "$through" -gt 0 ] || fail "$what: no inline_mix frame: $(sort -k2 -t' ' -nr "$folded" | head -3 | tr '\n' '|')"
  [ "$exact" = "$through" ] \
    || fail "$what: $((through - exact)) of $through samples in inline_mix are not at the marked lines under main → inline_middle → inline_outer: $(grep inline_mix "$folded" | grep -vF "$chain" | head -3 | tr '\n' '|')"
  [ $((exact * 100)) -ge $((total * 40)) ] || fail "$what: only $exact of $total samples in inline_mix"
  # Built without frame pointers: the stacks reach main by DWARF unwinding.
  main=$(samples "$folded" '(^|;)main( |;|$)')
  [ $((main * 100)) -ge $((total * 99)) ] || fail "$what: only $main of $total samples reach main"
  echo "$exact of $total, $main reaching main"
}

# 1. Recorded through sysprofd as the user, symbols embedded by sysprof-cli.
cd "$W/u"
as "$W/bin/sysprof-cli" --force "$W/u/inline.syscap" -- "$W/u/work/inline-workload" 3 > "$W/cli.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli.out")"
"$dump" --stats "$W/u/inline.syscap" > "$W/stats" || fail "capture invalid"
for f in __symbols__ __symbol_frames__; do
  grep -qx "FILE $f" "$W/stats" || fail "$f not embedded: $(grep ^FILE "$W/stats" | tr '\n' ' ')"
done
as "$W/bin/sysprof-report" collapsed --lines --comm inline-workload "$W/u/inline.syscap" > "$W/inline.folded" \
  || fail "sysprof-report collapsed --lines failed"
got=$(check_inline "$W/inline.folded" "recorded")
ok "inline_mix is a frame of its own at lines $mix_a-$mix_c, its callers at the lines of their calls ($got)"

# 2. The stripped library: one row per static function, named by its start.
as "$W/bin/sysprof-report" top --comm inline-workload --format tsv -n 0 "$W/u/inline.syscap" > "$W/top.tsv" \
  || fail "sysprof-report top failed"
rows=$(awk -F'\t' '$2 == "libgrouped.so"' "$W/top.tsv" | wc -l)
for fn in grouped_crc_step grouped_match_len grouped_range_encode; do
  start=$(nm --defined-only "$lib" | awk -v f="$fn" '$3 == f { print $1 }' | sed 's/^0*//')
  name="libgrouped.so+0x$start"
  self=$(awk -F'\t' -v f="$name" '$1 == f { print $3 }' "$W/top.tsv")
  [ "${self:-0}" -gt 0 ] || fail "$fn of the stripped library is not the row $name: $(awk -F'\t' '$2 == "libgrouped.so"' "$W/top.tsv" | head -8 | tr '\n' '|')"
done
# Every row is a whole function: a name the stripped file exports, or
# +0xSTART where a function of the unstripped file starts (a rare sample in
# _init, which ld.so runs at load, is a row of its own, rightly).
starts=$(nm --defined-only "$lib" | awk '$2 ~ /^[tTwW]$/ { sub(/^0+/, "", $1); print "libgrouped.so+0x" $1 } $2 ~ /^[TW]$/ { print $3 }')
bad=$(awk -F'\t' '$2 == "libgrouped.so" { print $1 }' "$W/top.tsv" | grep -vxF "$starts" || true)
[ -z "$bad" ] || fail "the stripped library has rows that are not functions (one per address?): $(echo "$bad" | head -8 | tr '\n' ' ')"
ok "the stripped library is $rows rows, its static functions named by their start"

# 3. The binaries gone: the capture's own tables say the same.
mv "$W/u/work" "$W/u/work.gone"
as "$W/bin/sysprof-report" collapsed --lines --comm inline-workload --no-local-files "$W/u/inline.syscap" \
  > "$W/gone.folded" || fail "report without the binaries failed"
got=$(check_inline "$W/gone.folded" "embedded")
as "$W/bin/sysprof-report" top --comm inline-workload --format tsv -n 0 --no-local-files "$W/u/inline.syscap" \
  > "$W/gone.tsv" || fail "top without the binaries failed"
[ "$(awk -F'\t' '$2 == "libgrouped.so"' "$W/gone.tsv" | wc -l)" = "$rows" ] || fail "the library's rows differ without the files"
mv "$W/u/work.gone" "$W/u/work"
ok "without the binaries, the embedded tables give the same frames and lines ($got)"

if [ -n "$cg346" ]; then
  "$cg346" "$W/u/inline.syscap" > "$W/346.tsv" || fail "libsysprof-4 cannot read our capture"
  grep -q inline_outer "$W/346.tsv" || fail "3.46 does not name inline_outer: $(head -5 "$W/346.tsv" | tr '\n' '|')"
  ok "Debian's Sysprof 3.46 reads the capture (names from __symbols__)"
else
  n=$((n + 1)); echo "ok $n # SKIP libsysprof-4 (Debian's Sysprof 3.46) not available"
fi

# 4. A stripped copy whose debug file is only in a debug directory, by
# build-id; recorded without the table, resolved by the report.
mkdir -p "$W/u/strip" "$W/debug"
objcopy --strip-all "$workload" "$W/u/strip/inline-workload"
cp "$W/u/work/libgrouped.so" "$W/u/strip/"
build_id=$(readelf -n "$workload" | awk '/Build ID/ { print $3 }')
mkdir -p "$W/debug/.build-id/${build_id:0:2}"
objcopy --only-keep-debug "$workload" "$W/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
chown -R "$U" "$W/u/strip" "$W/debug"
as "$W/bin/sysprof-cli" --force --no-decode "$W/u/strip.syscap" -- "$W/u/strip/inline-workload" 3 > "$W/cli2.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli2.out")"
as "$W/bin/sysprof-report" collapsed --lines --comm inline-workload --debug-dir "$W/debug" "$W/u/strip.syscap" \
  > "$W/strip.folded" || fail "report of the stripped binary failed"
got=$(check_inline "$W/strip.folded" "stripped + debug file")
ok "a stripped binary with its debug file found by build-id: the same frames and lines ($got)"

# 5. The same stripped copy with its debug file only on a debuginfod server
# (Debian's, started here over a directory holding only that file).
if command -v debuginfod > /dev/null; then
  mkdir -p "$W/server"
  cp "$W/debug/.build-id/${build_id:0:2}/${build_id:2}.debug" "$W/server/inline-workload.debug"
  start_debuginfod "$W/server"
  as env DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$W/u/debuginfod-cache" \
    "$W/bin/sysprof-report" collapsed --lines --comm inline-workload "$W/u/strip.syscap" > "$W/served.folded" \
    || { kill "$server"; fail "report with debuginfod failed"; }
  kill "$server"
  wait "$server" 2> /dev/null || true
  got=$(check_inline "$W/served.folded" "stripped + debuginfod")
  ok "a stripped binary with its debug file only on a debuginfod server: the same frames and lines ($got)"
else
  n=$((n + 1)); echo "ok $n # SKIP debuginfod missing"
fi

# 6. Debian's xz (liblzma stripped, no frame pointers), whole system.
python3 -c "
import random
random.seed(1)
w = [''.join(random.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(random.randint(2, 9))) for _ in range(5000)]
print(' '.join(random.choice(w) for _ in range(300000)))" > "$W/u/input.txt"
chown "$U" "$W/u/input.txt"
as "$W/bin/sysprof-cli" --force "$W/u/xz.syscap" -- sh -c "xz -9 -T1 -c '$W/u/input.txt' > /dev/null" > "$W/cli3.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli3.out")"
as "$W/bin/sysprof-report" top --comm xz --format tsv -n 0 "$W/u/xz.syscap" > "$W/xz.tsv" || fail "top of xz failed"
lzma_rows=$(awk -F'\t' '$2 ~ /^liblzma/' "$W/xz.tsv" | wc -l)
lzma_self=$(awk -F'\t' '$2 ~ /^liblzma/ { s += $3 } END { print s + 0 }' "$W/xz.tsv")
[ "$lzma_self" -gt 100 ] || fail "xz spent only $lzma_self samples in liblzma: $(head -5 "$W/xz.tsv" | tr '\n' '|')"
[ "$lzma_rows" -le 60 ] || fail "liblzma has $lzma_rows rows, not a handful of functions"
if awk -F'\t' '$2 ~ /^liblzma/ && $1 !~ /^liblzma[^+]*\+0x[0-9a-f]+$/ && $1 !~ /^lzma_/' "$W/xz.tsv" | grep -q .; then
  fail "liblzma rows neither named nor LIB+0xSTART: $(awk -F'\t' '$2 ~ /^liblzma/ { print $1 }' "$W/xz.tsv" | head -5 | tr '\n' ' ')"
fi
as "$W/bin/sysprof-report" collapsed --comm xz "$W/u/xz.syscap" > "$W/xz.folded" || fail "collapsed of xz failed"
garbage=$(samples "$W/xz.folded" '(^|;)0x[0-9a-f]+(;|$)')
[ "$garbage" = 0 ] || fail "$garbage xz samples have a frame outside every mapping: $(grep -E '(^|;)0x[0-9a-f]+(;| )' "$W/xz.folded" | head -3 | tr '\n' '|')"
ok "xz: liblzma is $lzma_rows rows for $lzma_self samples, no frame outside an executable mapping"

echo "1..$n"
