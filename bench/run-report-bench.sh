#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Report speed: our `sysprof-report top` against `perf report --stdio` on
# captures of about a million samples of bench/cpu-workload, and the cold and
# warm cost of resolving every address of such a capture.
#
# Usage (as root): bench/run-report-bench.sh [-n REPS] [-c COLD] [-F HZ] [-j JOBS] [-t SECONDS] [-d DIR] [-B BUILDDIR] [-k]
#   -n REPS      warm repetitions of every report (default 5)
#   -c COLD      cold/warm pairs per capture (default 3; 0 skips them)
#   -F HZ        sampling frequency of both recordings (default 10000)
#   -j JOBS      copies of cpu-workload running in parallel (default 2, one per vCPU here)
#   -t SECONDS   how long the copies run (default 50: 2 vCPUs x 10000 Hz x 50 s is
#                about 1,000,000 samples, however busy the machine is)
#   -d DIR       where the captures go (default /var/tmp)
#   -B BUILDDIR  meson build directory (default build-bench/ at the repository root,
#                configured with -Dbenchmarks=true if it does not exist)
#   -k           keep the captures (the directory is printed)
#
# Three recordings of the same command, `cpu-workload -j JOBS -t SECONDS`, both
# profilers sampling the whole system (every CPU) at HZ with call chains:
#   ours.syscap           sysprof-cli --frequency HZ (as root with no daemon on the
#                         bus: in-process), with its table of symbol names
#   ours-nodecode.syscap  the same with --no-decode: no table, so sysprof-report
#                         resolves every address from the ELF files and kallsyms
#   perf.data             perf record -a -F HZ -g
# Then, REPS times in rotating order, with output to /dev/null:
#   ours           sysprof-report top ours.syscap
#   ours-nodecode  sysprof-report top ours-nodecode.syscap
#   perf           perf report --stdio -i perf.data              (the target's peer)
#   perf-flat      perf report --stdio --no-children -g none -i perf.data
#                  (a flat table like ours, for reference)
# and COLD times, for ours, ours-nodecode and perf-flat: drop the page cache
# (sync; echo 3 > /proc/sys/vm/drop_caches), run once (cold), run again (warm).

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/bench/$(basename "${BASH_SOURCE[0]}")
reps=5
cold=3
freq=10000
jobs=2
seconds=50
dir=/var/tmp
builddir=$root/build-bench
keep=0

while getopts 'n:c:F:j:t:d:B:kh' opt; do
  case $opt in
    n) reps=$OPTARG ;;
    c) cold=$OPTARG ;;
    F) freq=$OPTARG ;;
    j) jobs=$OPTARG ;;
    t) seconds=$OPTARG ;;
    d) dir=$OPTARG ;;
    B) builddir=$OPTARG ;;
    k) keep=1 ;;
    h) sed -n '3,34s/^# \{0,1\}//p' "$self"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
die () { echo "run-report-bench.sh: $*" >&2; exit 2; }
[[ $# -eq 0 ]] || die "no arguments expected besides options"
for v in "$reps" "$cold" "$freq" "$jobs" "$seconds"; do
  [[ $v =~ ^[0-9]+$ ]] || die "options take numbers"
done
((reps >= 1 && freq >= 1 && jobs >= 1 && seconds >= 1)) || die "-n, -F, -j and -t need at least 1"
[[ -d $dir ]] || die "no directory $dir"
[[ $(id -u) -eq 0 ]] || die "must run as root (in-process recording, perf -a, drop_caches)"
command -v perf >/dev/null || die "perf not found (apt-get install linux-perf)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"

# --- build -----------------------------------------------------------------------
if [[ ! -f $builddir/build.ninja ]]; then
  meson setup "$builddir" "$root" -Dsystem_service=false -Dcompat=enabled -Dbenchmarks=true
fi
ninja -C "$builddir" build.ninja >/dev/null
if ! out=$(ninja -C "$builddir" bench/cpu-workload clients/cli/sysprof-cli clients/report/sysprof-report clients/tools/sysprof-dump 2>&1); then
  tail -n 30 <<<"$out" >&2
  echo "run-report-bench.sh: the build failed" >&2; exit 1
fi
cli=$builddir/clients/cli/sysprof-cli
report=$builddir/clients/report/sysprof-report
dump=$builddir/clients/tools/sysprof-dump
workload=("$builddir/bench/cpu-workload" -j "$jobs" -t "$seconds")

capdir=$(mktemp -d "$dir/report-bench.XXXXXX")
if ((keep)); then
  trap 'echo "captures kept in $capdir"' EXIT
else
  trap 'rm -rf "$capdir"' EXIT
fi
results=$capdir/results
log=$capdir/log

# --- record ------------------------------------------------------------------------
record () { # name command...
  local name=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  if ! "$@" </dev/null >"$log" 2>&1; then
    echo "run-report-bench.sh: recording $name failed:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  printf '  %-22s %6.1f s   %s\n' "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
    "$(grep '^cpu-workload: ' "$log")"
}

echo "Recording ${workload[*]##*/} at $freq Hz, whole system, into $capdir:"
# No bus at that address: as root, sysprof-cli records in-process.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent
record ours.syscap "$cli" --frequency "$freq" --no-battery -f "$capdir/ours.syscap" -- "${workload[@]}"
grep -o '[0-9]* lost' "$log" | sed 's/^/    ours: /' || true
record ours-nodecode.syscap "$cli" --frequency "$freq" --no-battery --no-decode -f "$capdir/ours-nodecode.syscap" \
  -- "${workload[@]}"
record perf.data perf record -a -F "$freq" -g -o "$capdir/perf.data" -- "${workload[@]}"
perf_lost=$(sed -n 's/.*Processed [0-9]* events and lost \([0-9]*\) chunks.*/\1/p' "$log" | tail -1)
perf_samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$log" | tail -1)

samples_of () { "$dump" --stats "$1" | awk '$1 == "SAMPLE" { print $2 }'; }
ours_samples=$(samples_of "$capdir/ours.syscap")
nodecode_samples=$(samples_of "$capdir/ours-nodecode.syscap")
printf '  samples: ours %s, ours-nodecode %s, perf %s%s\n' "$ours_samples" "$nodecode_samples" "$perf_samples" \
  "${perf_lost:+ (perf lost $perf_lost chunks)}"
printf '  sizes:   ours %s, ours-nodecode %s, perf %s bytes\n' "$(stat -c %s "$capdir/ours.syscap")" \
  "$(stat -c %s "$capdir/ours-nodecode.syscap")" "$(stat -c %s "$capdir/perf.data")"

# --- time the reports -------------------------------------------------------------
report_cmd () { # side: sets cmd
  case $1 in
    ours) cmd=("$report" top "$capdir/ours.syscap") ;;
    ours-nodecode) cmd=("$report" top "$capdir/ours-nodecode.syscap") ;;
    perf) cmd=(perf report --stdio -i "$capdir/perf.data") ;;
    perf-flat) cmd=(perf report --stdio --no-children -g none -i "$capdir/perf.data") ;;
  esac
}

samples_for () {
  case $1 in
    ours) echo "$ours_samples" ;;
    ours-nodecode) echo "$nodecode_samples" ;;
    *) echo "$perf_samples" ;;
  esac
}

timed () { # kind rep side
  local kind=$1 rep=$2 side=$3 line wall user sys rss cmd
  report_cmd "$side"
  if ! /usr/bin/time -o "$capdir/time" -f '%e %U %S %M' "${cmd[@]}" >/dev/null 2>"$log"; then
    echo "run-report-bench.sh: $side failed:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  line=$(tail -1 "$capdir/time")
  read -r wall user sys rss <<<"$line"
  echo "kind=$kind rep=$rep side=$side wall=$wall cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') rss=$rss samples=$(samples_for "$side")" >>"$results"
  printf '  %-5s rep %2d  %-14s %7.2f s wall  %7.2f s cpu  %7.0f MB rss\n' "$kind" "$rep" "$side" "$wall" \
    "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
}

sides=(ours ours-nodecode perf perf-flat)
echo "Warm-up (one run each, not counted):"
for side in "${sides[@]}"; do
  report_cmd "$side"
  "${cmd[@]}" >/dev/null 2>&1
done
echo "  done"
for ((rep = 1; rep <= reps; rep++)); do
  for ((i = 0; i < ${#sides[@]}; i++)); do
    timed warm "$rep" "${sides[$(((i + rep - 1) % ${#sides[@]}))]}"
  done
done

cold_sides=(ours ours-nodecode perf-flat)
for ((rep = 1; rep <= cold; rep++)); do
  for ((i = 0; i < ${#cold_sides[@]}; i++)); do
    side=${cold_sides[$(((i + rep - 1) % ${#cold_sides[@]}))]}
    sync
    echo 3 >/proc/sys/vm/drop_caches
    timed cold "$rep" "$side"
    timed again "$rep" "$side"
  done
done

# --- summary -----------------------------------------------------------------------
awk '
function median(list,    a, n, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function verdict(ok) { return ok ? "MET" : "NOT MET" }
{
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  k = v["kind"]; s = v["side"]
  w[k, s] = w[k, s] " " v["wall"]; c[k, s] = c[k, s] " " v["cpu"]; m[k, s] = m[k, s] " " v["rss"]
  n[k, s]++; samples[s] = v["samples"]
}
END {
  split("ours ours-nodecode perf perf-flat", sides, " ")
  printf "\nWarm: medians of %d runs per report, output to /dev/null.\n\n", n["warm", "ours"]
  printf "%-14s %9s %9s %9s %9s %12s %14s\n", "report", "samples", "wall", "cpu", "max RSS", "samples/s", "per cpu-second"
  for (i = 1; i <= 4; i++) {
    s = sides[i]
    t[s] = median(w["warm", s])
    printf "%-14s %9d %7.2f s %7.2f s %6.0f MB %12.0f %14.0f\n", s, samples[s], t[s], median(c["warm", s]),
      median(m["warm", s]) / 1024, samples[s] / t[s], samples[s] / median(c["warm", s])
  }
  rate = samples["ours"] / t["ours"]
  # Per sample, so that slightly different sample counts compare fairly.
  sp = (t["perf"] / samples["perf"]) / (t["ours"] / samples["ours"])
  spn = (t["perf"] / samples["perf"]) / (t["ours-nodecode"] / samples["ours-nodecode"])
  sf = (t["perf-flat"] / samples["perf"]) / (t["ours"] / samples["ours"])
  sfn = (t["perf-flat"] / samples["perf"]) / (t["ours-nodecode"] / samples["ours-nodecode"])
  printf "\nSpeed-up per sample (time per sample of perf / of ours):\n"
  printf "  perf report --stdio   / ours %6.2fx    / ours-nodecode %6.2fx\n", sp, spn
  printf "  perf-flat             / ours %6.2fx    / ours-nodecode %6.2fx\n", sf, sfn
  printf "\nTargets:\n"
  printf "  sysprof-report top >= 2x faster than perf report --stdio  %6.2fx  %s\n", sp, verdict(sp >= 2)
  printf "  sysprof-report top >= 5 million samples/s                 %6.2f M  %s\n", rate / 1e6, verdict(rate >= 5e6)
  if (n["cold", "ours"]) {
    printf "\nSymbolization, cold (page cache dropped) and warm (the run right after): medians of %d.\n\n", n["cold", "ours"]
    printf "%-14s %9s %9s %9s %9s\n", "report", "cold", "cold cpu", "warm", "warm cpu"
    split("ours ours-nodecode perf-flat", cs, " ")
    for (i = 1; i <= 3; i++) {
      s = cs[i]
      printf "%-14s %7.2f s %7.2f s %7.2f s %7.2f s\n", s, median(w["cold", s]), median(c["cold", s]),
        median(w["again", s]), median(c["again", s])
    }
    # The two captures are separate recordings with different sample counts,
    # so compare them per sample: the difference estimates what resolving
    # from the ELF files and kallsyms costs over looking up the embedded table.
    printf "\nPer sample: ours %.2f us cold, %.2f us warm; ours-nodecode %.2f us cold, %.2f us warm\n",
      median(w["cold", "ours"]) / samples["ours"] * 1e6, median(w["again", "ours"]) / samples["ours"] * 1e6,
      median(w["cold", "ours-nodecode"]) / samples["ours-nodecode"] * 1e6,
      median(w["again", "ours-nodecode"]) / samples["ours-nodecode"] * 1e6
  }
}' "$results"
