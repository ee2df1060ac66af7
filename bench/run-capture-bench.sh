#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Capture write/read throughput: our libsysprof-capture against Debian's
# Sysprof 3.46 libsysprof-capture-4.  Builds bench-capture-{ours,upstream} if
# needed, runs them alternately REPS times, drops the first repetition
# (warm-up) and prints the medians, the ratios and the targets.
#
# Usage: bench/run-capture-bench.sh [-r REPS] [-d DIR] [-n FRAMES] [-k DEPTH] [-c CPU] [-B BUILDDIR]
#   -r REPS      repetitions per side, first one dropped (default 5)
#   -d DIR       where the capture files go (default $TMPDIR, else /tmp)
#   -n FRAMES    SAMPLE frames per capture (default 2000000)
#   -k DEPTH     addresses per frame (default 24)
#   -c CPU       pin both programs to this CPU with taskset (default: not pinned;
#                pin when vCPUs differ in speed, see bench/README.md)
#   -B BUILDDIR  meson build directory (default build/ at the repository root)

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
reps=5
dir=${TMPDIR:-/tmp}
frames=2000000
depth=24
builddir=$root/build
cpu=

while getopts 'r:d:n:k:c:B:h' opt; do
  case $opt in
    r) reps=$OPTARG ;;
    d) dir=$OPTARG ;;
    n) frames=$OPTARG ;;
    k) depth=$OPTARG ;;
    c) cpu=$OPTARG ;;
    B) builddir=$OPTARG ;;
    h) sed -n '3,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [[ $# -ne 0 || ! $reps =~ ^[0-9]+$ || $reps -lt 2 ]]; then
  echo "run-capture-bench.sh: need REPS >= 2 and no extra arguments" >&2
  exit 2
fi
[[ -d $dir ]] || { echo "run-capture-bench.sh: no directory $dir" >&2; exit 2; }
pin=()
if [[ -n $cpu ]]; then
  pin=(taskset -c "$cpu")
fi

# --- build -------------------------------------------------------------------
if [[ ! -f $builddir/build.ninja ]]; then
  meson setup "$builddir" "$root" -Dsystem_service=false
fi
# Regenerate first if meson files changed, so the target queries below are current.
ninja -C "$builddir" build.ninja >/dev/null
ours=$builddir/bench/bench-capture-ours
upstream=$builddir/bench/bench-capture-upstream
if ! ninja -C "$builddir" -t query bench/bench-capture-ours >/dev/null 2>&1; then
  echo "run-capture-bench.sh: benchmarks are disabled; run: meson configure $builddir -Dbenchmarks=true" >&2
  exit 1
fi
targets=(bench/bench-capture-ours)
if ninja -C "$builddir" -t query bench/bench-capture-upstream >/dev/null 2>&1; then
  targets+=(bench/bench-capture-upstream)
else
  upstream=
  echo "note: libsysprof-4-dev (sysprof-capture-4) not found; measuring our side only" >&2
fi
ninja -C "$builddir" "${targets[@]}" >/dev/null

# The library's speed depends on how the build directory compiles it; Debian's
# archive is -O2.
if command -v python3 >/dev/null && [[ -f $builddir/meson-info/intro-buildoptions.json ]]; then
  opt_level=$(python3 -c 'import json,sys
print(next((o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "optimization"), "?"))' \
    "$builddir/meson-info/intro-buildoptions.json")
  if [[ $opt_level != 2 && $opt_level != 3 ]]; then
    echo "warning: $builddir builds our library with optimization=$opt_level, not -O2" >&2
  fi
fi

# --- run ---------------------------------------------------------------------
results=$(mktemp "${TMPDIR:-/tmp}/capture-bench.XXXXXX")
trap 'rm -f "$results"' EXIT

run_side() { # rep side program
  local line
  line=$("${pin[@]}" "$3" -d "$dir" -n "$frames" -k "$depth")
  echo "rep=$1 $line" >>"$results"
  awk -v rep="$1" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
       printf "  rep %2d %-8s  write %8.1f ms   read %8.1f ms%s\n", rep, v["side"],
              v["write_ns"] / 1e6, v["read_ns"] / 1e6, rep == 1 ? "   (warm-up, dropped)" : "" }' \
    <<<"$line"
}

echo "Capture benchmark: $frames SAMPLE frames x $depth addresses, files in $dir, $reps repetitions${cpu:+, pinned to CPU $cpu}"
for ((rep = 1; rep <= reps; rep++)); do
  # Alternate who goes first so neither side always runs on a warmer system.
  if [[ -z $upstream ]]; then
    run_side "$rep" ours "$ours"
  elif ((rep % 2)); then
    run_side "$rep" ours "$ours"; run_side "$rep" upstream "$upstream"
  else
    run_side "$rep" upstream "$upstream"; run_side "$rep" ours "$ours"
  fi
done

# --- report ------------------------------------------------------------------
awk '
function median(list,    a, n, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++)              # insertion sort, n is small
    for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function verdict(ok) { return ok ? "MET" : "NOT MET" }
{
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  s = v["side"]; sides[s] = 1; bytes = v["bytes"]; frames = v["frames"]
  if (v["rep"] == 1) next
  w[s] = w[s] " " v["write_ns"]; r[s] = r[s] " " v["read_ns"]; n[s]++
}
END {
  printf "\nMedians of %d repetitions per side (first dropped); capture file %.1f MB.\n", n["ours"], bytes / 1e6
  printf "MB = 10^6 bytes, GB = 10^9 bytes; times include open, flush and close.\n\n"
  printf "%-10s %-9s %14s %14s %10s\n", "phase", "library", "frames/s", "throughput", "time"
  for (p = 0; p < 2; p++) {
    for (q = 0; q < 2; q++) {
      s = q ? "upstream" : "ours"
      if (!(s in sides)) continue
      t = median(p ? r[s] : w[s]) / 1e9
      rate[p, s] = bytes / t
      if (p)
        printf "%-10s %-9s %14.0f %9.2f GB/s %7.1f ms\n", "read", s, frames / t, bytes / t / 1e9, t * 1e3
      else
        printf "%-10s %-9s %14.0f %9.1f MB/s %7.1f ms\n", "write", s, frames / t, bytes / t / 1e6, t * 1e3
    }
  }
  printf "\nTargets:\n"
  if ("upstream" in sides) {
    wr = rate[0, "ours"] / rate[0, "upstream"]
    rr = rate[1, "ours"] / rate[1, "upstream"]
    printf "  ratio ours/upstream  write %.2fx  read %.2fx\n", wr, rr
    printf "  writer >= 1.5x upstream throughput   %5.2fx      %s\n", wr, verdict(wr >= 1.5)
    printf "  reader >= 1.5x upstream throughput   %5.2fx      %s\n", rr, verdict(rr >= 1.5)
  } else {
    printf "  writer/reader >= 1.5x upstream       (upstream not built)\n"
  }
  printf "  reader >= 1 GB/s                     %5.2f GB/s %s\n", rate[1, "ours"] / 1e9, verdict(rate[1, "ours"] >= 1e9)
}' "$results"
