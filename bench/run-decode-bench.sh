#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Decoding after a fork-heavy recording: the time from the end of the
# recorded command to the finished capture (symbols included), ours against
# Debian's Sysprof 3.46 in the same run.  The command, spawned by the
# recorder as sysprof-test-allowed while it records the whole system, runs
# LOOPS shell loops of PROCS/LOOPS `/bin/true` each, in parallel with a small
# compile (gcc -O2 -c of bench/*.c, over and over, until the loops end); its
# last act writes the time, and the recorder's exit is the end.  Every
# repetition runs every mode once, in an order that rotates; the table gives
# the medians and the ratio to Sysprof 3.46.
#
# Usage (as root): bench/run-decode-bench.sh [-n REPS] [-p PROCS] [-m MODES] [-O OLD_CLI] [-B BUILDDIR]
#   -n REPS      repetitions of every mode (default 3)
#   -p PROCS     short processes per recording (default 8000)
#   -m MODES     comma-separated, any of: ours sysprof346 before (default ours,sysprof346,
#                and before when -O is given)
#                  ours        our sysprof-cli, whole system, through our sysprofd
#                  sysprof346  Debian's /usr/bin/sysprof-cli 3.46, the same way
#                  before      OLD_CLI (an older build of our sysprof-cli), the same way
#   -O OLD_CLI   the older sysprof-cli for "before"
#   -B BUILDDIR  meson build directory (default build/ at the repository root)
#
# Runs under tools/with-sysprofd.sh (private system bus, polkitd, our sysprofd).

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/bench/$(basename "${BASH_SOURCE[0]}")
reps=3
procs=8000
modes=
old_cli=
builddir=$root/build

while getopts 'n:p:m:O:B:h' opt; do
  case $opt in
    n) reps=$OPTARG ;;
    p) procs=$OPTARG ;;
    m) modes=$OPTARG ;;
    O) old_cli=$(realpath "$OPTARG") ;;
    B) builddir=$(realpath "$OPTARG") ;;
    h) sed -n '3,24s/^# \{0,1\}//p' "$self"; exit 0 ;;
    *) exit 2 ;;
  esac
done
die () { echo "run-decode-bench.sh: $*" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "-n needs a number >= 1"
[[ $procs =~ ^[1-9][0-9]*$ ]] || die "-p needs a number >= 1"
[[ -n $modes ]] || modes=ours,sysprof346${old_cli:+,before}

if [[ -z ${DECODE_BENCH_INNER:-} ]]; then
  [[ $(id -u) -eq 0 ]] || die "must run as root (tools/with-sysprofd.sh)"
  [[ -x /usr/bin/sysprof-cli ]] || die "/usr/bin/sysprof-cli not found (apt-get install sysprof)"
  ninja -C "$builddir" clients/cli/sysprof-cli daemon/sysprofd > /dev/null
  DECODE_BENCH_INNER=1 exec "$root/tools/with-sysprofd.sh" --build-dir "$builddir" \
    env DECODE_BENCH_INNER=1 "$self" -n "$reps" -p "$procs" -m "$modes" ${old_cli:+-O "$old_cli"} -B "$builddir"
fi

# --- inner half: under with-sysprofd.sh ------------------------------------
W=$SYSPROFD_TEST_WORKDIR
U=sysprof-test-allowed
mkdir -p "$W/bin" "$W/d/src"
install -m 755 "$builddir/clients/cli/sysprof-cli" "$W/bin/"
[[ -n $old_cli ]] && install -m 755 "$old_cli" "$W/bin/sysprof-cli-before"
cp "$root"/bench/*.c "$W/d/src/"
cat > "$W/bin/load.sh" << 'EOF'
#!/bin/sh
# load.sh PROCS END_FILE: the fork-heavy build-like load.
procs=$1 end=$2 loops=4
cd "$(dirname "$0")/../d/src" || exit 1
(while [ ! -e "$end.loops" ]; do for f in *.c; do gcc -O2 -c -w "$f" -o /dev/null -I.; done; done) &
compile=$!
pids=
for _ in $(seq $loops); do
  (i=0; while [ $i -lt $((procs / loops)) ]; do /bin/true; i=$((i + 1)); done) &
  pids="$pids $!"
done
wait $pids
touch "$end.loops"
wait "$compile"
date +%s%N > "$end"
EOF
chmod 755 "$W/bin/load.sh"
chown -R "$U" "$W/d"
as_user=(runuser -u "$U" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS")

IFS=, read -r -a mode_list <<< "$modes"
declare -A results
for rep in $(seq "$reps"); do
  for k in $(seq 0 $((${#mode_list[@]} - 1))); do
    m=${mode_list[$(((k + rep) % ${#mode_list[@]}))]}
    cap=$W/d/$m-$rep
    case $m in
      ours) cmd=("$W/bin/sysprof-cli" --force "$cap.syscap") ;;
      before) cmd=("$W/bin/sysprof-cli-before" --force "$cap.syscap") ;;
      sysprof346) cmd=(/usr/bin/sysprof-cli --no-battery -f "$cap.syscap") ;;
      *) die "unknown mode $m" ;;
    esac
    rm -f "$cap.end" "$cap.end.loops"
    "${as_user[@]}" "${cmd[@]}" -- "$W/bin/load.sh" "$procs" "$cap.end" > "$cap.log" 2>&1 || die "$m failed: $(tail -3 "$cap.log")"
    done_ns=$(date +%s%N)
    [[ -s $cap.end ]] || die "$m: the load did not finish: $(tail -3 "$cap.log")"
    ms=$(((done_ns - $(cat "$cap.end")) / 1000000))
    size=$(stat -c %s "$cap.syscap")
    echo "rep $rep $m: ${ms} ms from the end of the load to the finished capture ($((size / 1048576)) MiB)" >&2
    results[$m]+="$ms "
    rm -f "$cap.syscap"
  done
done

median () { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ref=$(echo "${results[sysprof346]:-}" | median)
printf '\n%-12s %12s %10s   %s\n' mode "median ms" "vs 3.46" "all runs (ms)"
for m in "${mode_list[@]}"; do
  med=$(echo "${results[$m]}" | median)
  ratio=$([[ -n $ref && $ref -gt 0 ]] && awk -v a="$med" -v b="$ref" 'BEGIN { printf "%.2fx", a / b }' || echo -)
  printf '%-12s %12s %10s   %s\n' "$m" "$med" "$ratio" "${results[$m]}"
done
echo "($procs short processes per recording, $reps repetitions)"
