#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Export speed (issue 19): `sysprof-report export --format pprof`,
# `--format speedscope` and `--format perf-script` of a capture of about a
# million samples, against `sysprof-report top` on the same capture plus the
# time to write a file of the export's size (a copy of the export, in the
# same directory).  The target: no export slower than that sum.  Every
# repetition runs every command once, in an order that rotates; medians.
#
# Usage (as root): bench/run-export-bench.sh [-n REPS] [-c CAPTURE] [-F HZ] [-t SECONDS] [-B BUILDDIR] [-k]
#   -n REPS      repetitions (default 5)
#   -c CAPTURE   the capture to export (default: recorded first, as below)
#   -F HZ        sampling frequency of the recording (default 10000)
#   -t SECONDS   how long bench/cpu-workload runs on every CPU (default 50: 2
#                vCPUs x 10000 Hz x 50 s is about 1,000,000 samples)
#   -B BUILDDIR  meson build directory (default build-bench/ at the repository root,
#                configured with -Dbenchmarks=true -Dsystem_service=false if missing)
#   -k           keep the capture and the exports (the directory is printed)
# The recording: sysprof-cli --frequency HZ as root with no sysprofd on the
# bus (in-process), whole system, with its symbol table, while
# `cpu-workload -j NPROC -t SECONDS` runs.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
reps=5 capture= freq=10000 seconds=50 builddir=$root/build-bench keep=0
die () { echo "run-export-bench.sh: $*" >&2; exit 1; }
while getopts 'n:c:F:t:B:kh' opt; do
  case $opt in
    n) reps=$OPTARG ;;
    c) capture=$(realpath "$OPTARG") ;;
    F) freq=$OPTARG ;;
    t) seconds=$OPTARG ;;
    B) builddir=$(realpath -m "$OPTARG") ;;
    k) keep=1 ;;
    h) sed -n '3,23s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done

if [[ ! -f $builddir/build.ninja ]]; then
  meson setup "$builddir" "$root" -Dbenchmarks=true -Dsystem_service=false > /dev/null
fi
ninja -C "$builddir" clients/cli/sysprof-cli clients/report/sysprof-report bench/cpu-workload > /dev/null ||
  die "the build failed"
report=$builddir/clients/report/sysprof-report
dir=$(mktemp -d /var/tmp/export-bench.XXXXXX)
if ((keep)); then trap 'echo "kept in $dir"' EXIT; else trap 'rm -rf "$dir"' EXIT; fi

if [[ -z $capture ]]; then
  [[ $(id -u) -eq 0 ]] || die "recording needs root (or give -c CAPTURE)"
  capture=$dir/capture.syscap
  "$builddir/clients/cli/sysprof-cli" --frequency "$freq" --force "$capture" -- \
    "$builddir/bench/cpu-workload" -j "$(nproc)" -t "$seconds" > "$dir/record.log" 2>&1 ||
    die "recording failed: $(tail -n 3 "$dir/record.log")"
fi
samples=$("$report" top --format tsv "$capture" 2> /dev/null | awk -F'\t' 'NR > 1 { s += $3 } END { print s + 0 }')
echo "# $capture: $samples samples ($(du -h "$capture" | cut -f1)), $(date -u +%FT%TZ), load $(cut -d' ' -f1 /proc/loadavg)"

# Seconds of wall time of a command, its output to FILE.
timed () {
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1 || die "failed: $*"
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}
modes=(top pprof speedscope perf-script)
declare -A times
for ((r = 0; r < reps; r++)); do
  for ((i = 0; i < ${#modes[@]}; i++)); do
    m=${modes[$(((i + r) % ${#modes[@]}))]}
    case $m in
      top) t=$(timed "$report" top "$capture") ;;
      perf-script) t=$(timed "$report" export --format perf-script -o "$dir/out.perf-script" "$capture") ;;
      *) t=$(timed "$report" export --format "$m" -o "$dir/out.$m" "$capture") ;;
    esac
    times[$m]="${times[$m]:-} $t"
  done
  for m in pprof speedscope perf-script; do
    rm -f "$dir/copy"
    t=$(timed cp "$dir/out.$m" "$dir/copy")
    times[write-$m]="${times[write-$m]:-} $t"
  done
done
median () { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
top=$(median <<< "${times[top]}")
printf '%-12s %8s %10s %10s %8s\n' format median_s write_s size_MB "ratio"
printf '%-12s %8.3f\n' top "$top"
for m in pprof speedscope perf-script; do
  t=$(median <<< "${times[$m]}") w=$(median <<< "${times[write-$m]}")
  size=$(stat -c %s "$dir/out.$m")
  printf '%-12s %8.3f %10.3f %10.1f %8.2f\n' "$m" "$t" "$w" "$(awk -v s="$size" 'BEGIN { print s / 1e6 }')" \
    "$(awk -v t="$t" -v a="$top" -v w="$w" 'BEGIN { print t / (a + w) }')"
done
echo "# ratio: the export's median over top's plus the copy's; the target is at most 1"
