#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# True stacks through code built without frame pointers: the unprivileged
# user records the whole system through sysprofd, whose confined helper
# unwinds the copied user stacks with DWARF CFI, while
#   - tests/workloads/nofp-chain (-O2 -fomit-frame-pointer, one chain
#     through libc's qsort) runs: its samples reach main with the exact
#     chains; with --unwind fp they do not (the test can tell);
#   - tests/workloads/debug-frames (no unwind tables: .debug_frame
#     only) runs: its samples reach main too, and the helper, which reads
#     the file's DWARF for it, is not killed by its seccomp filter;
#   - Debian's own xz (no frame pointers, stripped liblzma) compresses: its
#     samples reach the start of the program;
# and the helper is confined as it says; killed, it is restarted and the
# client is told.  Run under tools/with-sysprofd.sh:
#   test-unwind.sh SYSPROF_CLI SYSPROF_REPORT SYSPROF_DUMP NOFP_CHAIN DEBUG_FRAMES
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") dump=$(realpath "$3") workload=$(realpath "$4")
debug_frame_workload=$(realpath "$5")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u/work"
install -m 755 "$cli" "$report" "$dump" "$W/bin/"
install -m 755 "$workload" "$debug_frame_workload" "$W/u/work/"
chown -R "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
# Field $2 (1-based) of the tsv row whose first column is $1.
field () { awk -F'\t' -v f="$1" -v c="$2" '$1 == f { print $c; exit }'; }
# $1 >= $2, decimals allowed.
at_least () { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
near () { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
cd "$W/u"

# 1. DWARF, the default: every sample of the workload reaches main, through
# the exact chains, qsort's included.
as "$W/bin/sysprof-cli" --force "$W/u/dwarf.syscap" -- "$W/u/work/nofp-chain" 3 > "$W/cli1.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli1.out")"
grep -q 'frame pointers' "$W/cli1.out" && fail "the recording fell back to frame pointers: $(cat "$W/cli1.out")"
as "$W/bin/sysprof-report" top --comm nofp-chain --format tsv "$W/u/dwarf.syscap" > "$W/dwarf.tsv" \
  || fail "sysprof-report failed"
main_total=$(field main 6 < "$W/dwarf.tsv")
at_least "${main_total:-0}" 99 || fail "only ${main_total:-0} % of the samples reach main: $(head -6 "$W/dwarf.tsv" | tr '\n' '|')"
leaf=$(field chain_leaf 5 < "$W/dwarf.tsv") cmp=$(field compare_keys 5 < "$W/dwarf.tsv")
near "${leaf:-0}" 57 10 || fail "chain_leaf has ${leaf:-0} % of the samples, expected 57 ± 10"
near "${cmp:-0}" 40 10 || fail "compare_keys has ${cmp:-0} % of the samples, expected 40 ± 10"
# Every function of a chain holds (at least) the time of the one it calls.
for pair in chain_middle:chain_leaf chain_outer:chain_leaf run:chain_leaf sort_round:compare_keys run:compare_keys; do
  caller=${pair%:*} callee=${pair#*:}
  at_least "$(field "$caller" 6 < "$W/dwarf.tsv")" "$(awk -v a="$(field "$callee" 5 < "$W/dwarf.tsv")" 'BEGIN { print a - 0.5 }')" \
    || fail "$caller does not hold the time of $callee: $(field "$caller" 6 < "$W/dwarf.tsv") % < $(field "$callee" 5 < "$W/dwarf.tsv") %"
done
# compare_keys is called by qsort's merge sort in libc, not by sort_round.
as "$W/bin/sysprof-report" callers --comm nofp-chain --format tsv compare_keys "$W/u/dwarf.syscap" > "$W/callers.tsv" \
  || fail "sysprof-report callers failed"
awk -F'\t' 'NR > 1 && $2 == "libc.so.6" { found = 1 } END { exit !found }' "$W/callers.tsv" \
  || fail "compare_keys's callers are not in libc: $(head -4 "$W/callers.tsv" | tr '\n' '|')"
as "$W/bin/sysprof-report" top "$W/u/dwarf.syscap" > "$W/dwarf.txt" || fail "sysprof-report top (text) failed"
grep -q '^User stacks: DWARF, 8192 bytes copied per sample' "$W/dwarf.txt" \
  || fail "the report does not say how the stacks were unwound: $(head -3 "$W/dwarf.txt" | tr '\n' '|')"
"$dump" "$W/u/dwarf.syscap" | grep -A2 'id: sysprof.unwind' | grep -q 'method=dwarf stack-size=8192 samples=[1-9]' \
  || fail "no sysprof.unwind METADATA frame"
ok "DWARF: main holds ${main_total} % of nofp-chain's samples; chain_leaf ${leaf} %, compare_keys ${cmp} % (called from libc's sort)"

# 2. Frame pointers: the same workload loses its stacks (what DWARF fixes).
as "$W/bin/sysprof-cli" --force --unwind fp "$W/u/fp.syscap" -- "$W/u/work/nofp-chain" 2 > "$W/cli2.out" 2>&1 \
  || fail "sysprof-cli --unwind fp failed: $(cat "$W/cli2.out")"
as "$W/bin/sysprof-report" top --comm nofp-chain --format tsv "$W/u/fp.syscap" > "$W/fp.tsv" || fail "report failed"
fp_main=$(field main 6 < "$W/fp.tsv")
at_least 50 "${fp_main:-0}" || fail "with frame pointers main still has ${fp_main} %: the workload does not test DWARF"
as "$W/bin/sysprof-report" top "$W/u/fp.syscap" | grep -q '^User stacks: frame pointers' \
  || fail "the report does not say the stacks followed frame pointers"
ok "frame pointers: main holds ${fp_main:-0} % of the samples (DWARF: ${main_total} %)"

# 3. Call frame information in .debug_frame only (no .eh_frame for the
# program's own code): libdw opens the file's DWARF for it, which inside the
# helper's seccomp filter must fail softly (it asks for the file's directory
# by name), not kill the helper.
readelf -S "$W/u/work/debug-frames" | grep -q '\.debug_frame' || fail "debug-frames has no .debug_frame"
leaf_addr=$(nm "$W/u/work/debug-frames" | awk '$3 == "frame_leaf" { sub(/^0+/, "", $1); print $1 }')
readelf --debug-dump=frames "$W/u/work/debug-frames" 2>/dev/null \
  | awk '/^Contents of the / { in_eh = ($4 == ".eh_frame") } in_eh' | grep -q "pc=0*$leaf_addr" \
  && fail "debug-frames's frame_leaf has an .eh_frame entry: the workload does not test .debug_frame"
as "$W/bin/sysprof-cli" --force "$W/u/df.syscap" -- "$W/u/work/debug-frames" 2 > "$W/cli-df.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli-df.out")"
# sysprofd's warnings reach the client: a helper killed would be one.
grep -q 'helper' "$W/cli-df.out" && fail "the unwinding helper failed: $(cat "$W/cli-df.out")"
as "$W/bin/sysprof-report" top --comm debug-frames --format tsv "$W/u/df.syscap" > "$W/df.tsv" || fail "report failed"
df_main=$(field main 6 < "$W/df.tsv") df_leaf=$(field frame_leaf 5 < "$W/df.tsv") df_outer=$(field frame_outer 6 < "$W/df.tsv")
# Of the samples in its own code (not those of exec and exit, in the kernel
# and ld.so), those that reach main: every one unwound through .debug_frame.
as "$W/bin/sysprof-report" collapsed --comm debug-frames "$W/u/df.syscap" > "$W/df.folded" || fail "collapsed failed"
read -r df_in df_reach < <(awk '{ n = $NF; if ($0 ~ /;frame_leaf(;| )/) { t += n; if ($0 ~ /;main;run;frame_outer;frame_leaf/) r += n } }
  END { print t + 0, r + 0 }' "$W/df.folded")
[ "$df_in" -gt 0 ] || fail "no sample in frame_leaf: $(head -3 "$W/df.folded" | tr '\n' '|')"
at_least "$((df_reach * 1000 / df_in))" 990 \
  || fail "only $df_reach of $df_in samples in frame_leaf reach main through frame_outer and run: $(grep frame_leaf "$W/df.folded" | grep -v ';main;run;frame_outer;frame_leaf' | head -3 | tr '\n' '|')"
at_least "${df_leaf:-0}" 90 || fail "frame_leaf has ${df_leaf:-0} % of the samples, expected >= 90"
at_least "${df_outer:-0}" "$(awk -v a="$df_leaf" 'BEGIN { print a - 0.5 }')" || fail "frame_outer does not hold frame_leaf's time"
ok ".debug_frame only: $df_reach of $df_in samples in frame_leaf reach main (main holds ${df_main} % of the process's samples, frame_leaf ${df_leaf} %); the helper survived"

# 4. A larger stack copy works; bad values are usage errors.
as "$W/bin/sysprof-cli" --force --stack-size 65528 "$W/u/big.syscap" -- "$W/u/work/nofp-chain" 1 > "$W/cli3.out" 2>&1 \
  || fail "--stack-size 65528 failed: $(cat "$W/cli3.out")"
"$dump" "$W/u/big.syscap" | grep -A2 'id: sysprof.unwind' | grep -q 'stack-size=65528' \
  || fail "--stack-size 65528 not used"
for bad in "--stack-size 12" "--stack-size 70000" "--unwind frames" "--unwind fp --stack-size 4096"; do
  set +e
  # shellcheck disable=SC2086
  as "$W/bin/sysprof-cli" --force $bad "$W/u/bad.syscap" -- /bin/true > "$W/bad.out" 2>&1
  status=$?
  set -e
  [ "$status" = 2 ] || fail "sysprof-cli $bad: exit status $status, expected 2: $(cat "$W/bad.out")"
done
ok "--stack-size 65528 copies that much; bad --stack-size and --unwind values are usage errors"

# 5. Debian's xz, recorded whole-system while it runs on its own: stripped,
# without frame pointers, most of its time in liblzma.  Its stacks reach the
# start of the program (libc's __libc_start_main, which calls main).
head -c 8000000 /dev/urandom | od -An -tx1 > "$W/u/input.txt"
chown "$U" "$W/u/input.txt"
as timeout 6 xz -9 -T1 -c "$W/u/input.txt" > /dev/null &
xz_pid=$!
sleep 0.5
as "$W/bin/sysprof-cli" --force --duration 3 "$W/u/xz.syscap" > "$W/cli4.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli4.out")"
kill "$xz_pid" 2>/dev/null || true
wait "$xz_pid" 2>/dev/null || true
as "$W/bin/sysprof-report" top --comm xz --format tsv "$W/u/xz.syscap" > "$W/xz.tsv" || fail "report failed"
start_total=$(awk -F'\t' '$1 ~ /^__libc_start_main/ { print $6; exit }' "$W/xz.tsv")
at_least "${start_total:-0}" 99 \
  || fail "only ${start_total:-0} % of xz's samples reach __libc_start_main: $(head -8 "$W/xz.tsv" | tr '\n' '|')"
lzma_self=$(awk -F'\t' 'NR > 1 && $2 ~ /^liblzma/ { s += $5 } END { print s + 0 }' "$W/xz.tsv")
at_least "$lzma_self" 50 || fail "liblzma has only $lzma_self % of xz's samples"
ok "Debian's xz: ${start_total} % of its samples reach __libc_start_main, ${lzma_self} % in liblzma"

# $helper: the unwinding helper of the session being recorded, ours: its
# standard error is our sysprofd's log (the machine may run others).
find_helper () {
  helper=
  for _ in $(seq 100); do
    for pid in $(pgrep -x sysprof-unwinde || true); do
      if [ "$(readlink "/proc/$pid/fd/2" 2>/dev/null)" = "$W/logs/sysprofd.log" ]; then
        helper=$pid
        return 0
      fi
    done
    sleep 0.1
  done
  fail "no sysprof-unwinder of our sysprofd while a session records"
}

# 6. The helper of a running session: no capability, no_new_privs, a seccomp
# filter, not dumpable, its parent sysprofd, and no descriptor but its
# socket, the standard ones and the files it was handed (read-only).
as "$W/bin/sysprof-cli" --force --duration 3 "$W/u/conf.syscap" > "$W/cli5.out" 2>&1 &
cli_pid=$!
find_helper
status=/proc/$helper/status
for cap in CapInh CapPrm CapEff CapAmb; do
  grep -q "^$cap:[[:space:]]*0000000000000000$" "$status" || fail "the helper holds capabilities: $(grep "^$cap" "$status")"
done
grep -q '^NoNewPrivs:[[:space:]]*1$' "$status" || fail "the helper has no no_new_privs"
grep -q '^Seccomp:[[:space:]]*2$' "$status" || fail "the helper has no seccomp filter: $(grep ^Seccomp "$status")"
limits=/proc/$helper/limits
if [ "${SYSPROFD_TEST_SANITIZED:-0}" != 1 ]; then
  grep -Eq '^Max data size +1073741824 +1073741824 ' "$limits" || fail "the helper's memory is not bounded: $(grep '^Max data' "$limits")"
fi
grep -Eq '^Max file size +0 +0 ' "$limits" || fail "the helper may write files: $(grep '^Max file size' "$limits")"
ppid=$(awk '/^PPid:/ { print $2 }' "$status")
[ "$(cat "/proc/$ppid/comm")" = sysprofd ] || fail "the helper's parent is $(cat "/proc/$ppid/comm"), not sysprofd"
for fd in /proc/"$helper"/fd/*; do
  num=${fd##*/}
  # Closed meanwhile (the helper drops the states of old processes).
  target=$(readlink "$fd" 2>/dev/null) || continue
  flags=$(awk '/^flags:/ { print $2 }' "/proc/$helper/fdinfo/$num" 2>/dev/null) || continue
  case $num in
    0 | 1 | 2) continue ;;
    3) [[ $target == socket:* ]] || fail "descriptor 3 of the helper is $target, not its socket" ;;
    *)
      [[ $target == /* || $target == /memfd:* ]] || fail "the helper holds $target (descriptor $num)"
      [ $((8#$flags & 3)) = 0 ] || fail "the helper holds $target open for writing (flags $flags)"
      ;;
  esac
done
# It maps none of the files it was handed, only its own program and
# libraries: it reads the others through pread (a mapping would cost the
# whole file against its data limit, for each process that maps it, and
# kill the helper with SIGBUS when the file shrinks).  Looked at once it
# has unwound the samples of a second of the whole system.
sleep 1.5
own=$({ readlink -f "/proc/$helper/exe"; ldd "/proc/$helper/exe" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' \
  | xargs -r readlink -f; } | sort -u)
mapped=$(awk '$6 ~ /^\// { print $6 }' "/proc/$helper/maps" | xargs -r readlink -f | sort -u)
[ -n "$mapped" ] || fail "cannot read the helper's mappings"
foreign=$(comm -13 <(echo "$own") <(echo "$mapped"))
[ -z "$foreign" ] || fail "the helper maps files it was handed: $(echo "$foreign" | tr '\n' ' ')"
wait "$cli_pid" || fail "sysprof-cli failed: $(cat "$W/cli5.out")"
for _ in $(seq 50); do kill -0 "$helper" 2>/dev/null || break; sleep 0.1; done
kill -0 "$helper" 2>/dev/null && fail "the helper outlived its session"
ok "the helper (pid $helper) runs without capabilities, with no_new_privs, seccomp, 1 GiB of data at most, no file writes, its socket and read-only files, maps only its own program and libraries, and ends with the session"

# 7. A helper killed while recording is restarted, and the client is told
# (sysprofd's session Warnings reach sysprof-cli).
as "$W/bin/sysprof-cli" --force --duration 3 "$W/u/killed.syscap" > "$W/cli7.out" 2>&1 &
cli_pid=$!
find_helper
sleep 0.5
kill -KILL "$helper"
wait "$cli_pid" || fail "sysprof-cli failed after its helper was killed: $(cat "$W/cli7.out")"
grep -q 'warning: the unwinding helper was restarted 1 time (first: .*killed by signal 9' "$W/cli7.out" \
  || fail "sysprof-cli does not say its helper was restarted: $(cat "$W/cli7.out")"
"$dump" "$W/u/killed.syscap" | grep -A2 'id: sysprof.unwind' | grep -q 'method=dwarf stack-size=8192 samples=[1-9]' \
  || fail "no sysprof.unwind METADATA frame after the restart"
ok "a helper killed mid-recording is restarted and sysprof-cli says so: $(grep -o 'the unwinding helper was restarted[^;]*' "$W/cli7.out")"

echo "1..$n"
