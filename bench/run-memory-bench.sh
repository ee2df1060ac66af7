#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Memory profiling: how much slower bench/malloc-workload (THREADS threads,
# each making PAIRS malloc/free pairs of mixed sizes) runs while a memory
# profiler records every allocation, how many of its allocations each profiler
# keeps, and how fast each analyses what it recorded.  Every repetition runs
# every mode once, in an order that rotates from one repetition to the next;
# the table gives medians and ratios to "alone".
#
# Usage (as root): bench/run-memory-bench.sh [-n REPS] [-p PAIRS] [-t THREADS] [-m MODES] [-a AREPS]
#                                            [-d DIR] [-B BUILDDIR] [-k]
#   -n REPS      repetitions of every mode (default 3)
#   -p PAIRS     malloc/free pairs per thread (default 10000000)
#   -t THREADS   workload threads (default 2)
#   -m MODES     comma-separated, any of: alone ours ours-perf heaptrack sysprof346 sysprof346-noperf
#                (default alone,ours,ours-perf,heaptrack,sysprof346,sysprof346-noperf)
#                  alone              the workload by itself
#                  ours               our sysprof-cli --memprof --no-perf, through our sysprofd
#                  ours-perf          the same with stack sampling (no --no-perf)
#                  heaptrack          Debian's heaptrack 1.4 (interprets while recording)
#                  sysprof346         Debian's /usr/bin/sysprof-cli 3.46 --memprof (perf on,
#                                     its default), through our sysprofd
#                  sysprof346-noperf  the same with --no-perf, like ours
#                every mode runs as sysprof-test-allowed; ours' modes are skipped, with a
#                message, while our sysprof-cli does not know --memprof
#   -a AREPS     timed runs of every analysis (default 3), after the recordings:
#                `sysprof-report memory --leaks` on ours' capture against `heaptrack_print`
#                (all reports, then leaks only) on heaptrack's file, both of the last repetition
#   -d DIR       where the capture directory is made (default /var/tmp)
#   -B BUILDDIR  meson build directory (default build-bench/ at the repository root,
#                configured with -Dbenchmarks=true if it does not exist)
#   -k           keep the last capture of every mode (the directory is printed)
#
# Runs under tools/with-sysprofd.sh (private system bus, polkitd, our sysprofd).
# Captures of every allocation are big: ~100 bytes per allocation and per free,
# so several GB for the default 2 x 10 million pairs.  The free space is
# checked first.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/bench/$(basename "${BASH_SOURCE[0]}")
reps=3
pairs=10000000
threads=2
modes=alone,ours,ours-perf,heaptrack,sysprof346,sysprof346-noperf
areps=3
dir=/var/tmp
builddir=$root/build-bench
keep=0

while getopts 'n:p:t:m:a:d:B:kh' opt; do
  case $opt in
    n) reps=$OPTARG ;;
    p) pairs=$OPTARG ;;
    t) threads=$OPTARG ;;
    m) modes=$OPTARG ;;
    a) areps=$OPTARG ;;
    d) dir=$OPTARG ;;
    B) builddir=$OPTARG ;;
    k) keep=1 ;;
    h) sed -n '3,38s/^# \{0,1\}//p' "$self"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
die () { echo "run-memory-bench.sh: $*" >&2; exit 2; }
[[ $# -eq 0 ]] || die "no arguments expected besides options"
[[ $reps =~ ^[0-9]+$ && $reps -ge 1 ]] || die "-n needs a number >= 1"
[[ $pairs =~ ^[0-9]+$ && $pairs -ge 1 ]] || die "-p needs a number >= 1"
[[ $threads =~ ^[0-9]+$ && $threads -ge 1 && $threads -le 64 ]] || die "-t needs a number from 1 to 64"
[[ $areps =~ ^[0-9]+$ ]] || die "-a needs a number"
case $builddir in /*) ;; *) builddir=$PWD/$builddir ;; esac
IFS=, read -r -a mode_list <<<"$modes"
for m in "${mode_list[@]}"; do
  case $m in alone | ours | ours-perf | heaptrack | sysprof346 | sysprof346-noperf) ;; *) die "unknown mode $m" ;; esac
done

# --- outer half: packages, build, checks, then this script under with-sysprofd.sh -------
if [[ -z ${MEMORY_BENCH_INNER:-} ]]; then
  [[ $(id -u) -eq 0 ]] || die "must run as root (test user, sysprofd, packages)"
  # shellcheck source=tools/deps.sh
  . "$root/tools/deps.sh"
  sysprof_install_packages "${SYSPROF_BENCH_PACKAGES[@]}" || die "could not install the benchmark's packages"
  if [[ ! -f $builddir/build.ninja ]]; then
    meson setup "$builddir" "$root" -Dcompat=enabled -Dbenchmarks=true
  fi
  ninja -C "$builddir" build.ninja >/dev/null
  targets=(bench/malloc-workload clients/cli/sysprof-cli clients/tools/sysprof-dump daemon/sysprofd)
  # The allocation tracker our sysprof-cli preloads, once the tree has it.
  while read -r t; do targets+=("$t"); done < <(ninja -C "$builddir" -t targets all 2>/dev/null |
    sed -n 's/^\(preload\/[^:]*\.so\): .*/\1/p')
  if ! out=$(ninja -C "$builddir" "${targets[@]}" 2>&1); then
    tail -n 30 <<<"$out" >&2
    echo "run-memory-bench.sh: the build failed" >&2; exit 1
  fi
  # Only the analysis needs sysprof-report: without it, that part is skipped.
  if ! out=$(ninja -C "$builddir" clients/report/sysprof-report 2>&1); then
    tail -n 10 <<<"$out" >&2
    echo "run-memory-bench.sh: sysprof-report failed to build; the analysis of ours will be skipped" >&2
  fi

  # Our side of memory profiling arrives in steps: skip what is not there yet.
  # (The help is read whole first: grep -q would stop reading early, and under
  # pipefail the writer's SIGPIPE would fail the test now and then.)
  cli_help=$("$builddir/clients/cli/sysprof-cli" --help 2>&1 || true)
  kept_modes=()
  for m in "${mode_list[@]}"; do
    case $m in
      ours | ours-perf)
        if [[ $cli_help != *--memprof* ]]; then
          echo "run-memory-bench.sh: skipping $m: $builddir/clients/cli/sysprof-cli --help does not mention --memprof yet" >&2
          continue
        fi ;;
    esac
    kept_modes+=("$m")
  done
  [[ ${#kept_modes[@]} -gt 0 ]] || die "no mode left to run"
  modes=$(IFS=,; echo "${kept_modes[*]}")

  mkdir -p "$dir"
  # Estimate: a kept allocation and its free are two frames of ~100 bytes
  # (ours); heaptrack's file is ~4 bytes per event, Sysprof 3.46's captures are
  # small because it keeps few.  Only the last capture of each mode is kept.
  n_ours=$(tr , '\n' <<<"$modes" | grep -c '^ours' || true)
  need=$((threads * pairs * 2 * 110 * n_ours + threads * pairs * 10 + 1000000000))
  avail=$(df -B1 --output=avail "$dir" | tail -n 1 | tr -d ' ')
  echo "Free space in $dir: $((avail / 1000000)) MB; this run needs about $((need / 1000000)) MB"
  ((avail >= need)) || die "not enough free space in $dir (df -h $dir); use -d DIR, fewer pairs (-p) or fewer modes (-m)"

  capdir=$(mktemp -d "$dir/memory-bench.XXXXXX")
  chmod 777 "$capdir"
  if ((keep)); then
    trap 'echo "captures kept in $capdir"' EXIT
  else
    trap 'rm -rf "$capdir"' EXIT
  fi
  status=0
  MEMORY_BENCH_INNER=$capdir "$root/tools/with-sysprofd.sh" --build-dir "$builddir" \
    "$self" -n "$reps" -p "$pairs" -t "$threads" -m "$modes" -a "$areps" -B "$builddir" || status=$?
  exit $status
fi

# --- inner half: under with-sysprofd.sh ------------------------------------------------
capdir=$MEMORY_BENCH_INNER
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
mkdir -p "$W/u"
chown "$U" "$W/u"
cd "$W/u"
# The test user runs the programs where they were built (the tree is world-
# readable here), and our sysprof-cli preloads the tracker of the same build,
# not an installed one.  heaptrack makes its FIFO in /tmp.
as_user=(runuser -u "$U" -- env -i PATH="/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A")
ours_env=()
[[ ! -f $builddir/preload/libsysprof-memory.so ]] || ours_env=(SYSPROF_MEMORY_PRELOAD="$builddir/preload/libsysprof-memory.so")
runuser -u "$U" -- test -x "$builddir/bench/malloc-workload" ||
  { echo "run-memory-bench.sh: $U cannot run programs in $builddir: use a build directory everyone can reach (-B)" >&2; exit 1; }

workload=("$builddir/bench/malloc-workload" -t "$threads" -n "$pairs")
warmup=("$builddir/bench/malloc-workload" -t "$threads" -n "$(((pairs + 19) / 20))")
results=$(mktemp "$W/results.XXXXXX")
log=$W/run.log
timefile=$W/time

# Our daemon records the stacks of ours-perf and sysprof346: its CPU time counts as the recorder's.
daemon_pid=$(gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.GetConnectionUnixProcessID org.gnome.Sysprof3 | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p')
[[ -r /proc/$daemon_pid/stat ]] || { echo "run-memory-bench.sh: cannot find sysprofd's pid" >&2; exit 1; }
ticks=$(getconf CLK_TCK)
daemon_cpu () { # user + system seconds of sysprofd and the children it waited for
  awk -v t="$ticks" '{ sub(/^.*\) /, ""); print ($12 + $13 + $14 + $15) / t }' "/proc/$daemon_pid/stat"
}

# set_cmd MODE CAPTURE-STEM WORKLOAD...: the command line that runs the workload under MODE.
set_cmd () {
  local mode=$1 cap=$capdir/$2
  shift 2
  case $mode in
    alone) cmd=("${as_user[@]}" "$@") ;;
    ours) cmd=("${as_user[@]}" "${ours_env[@]}" "$builddir/clients/cli/sysprof-cli" --memprof --no-perf --no-battery
      -f "$cap.syscap" -- "$@") ;;
    ours-perf) cmd=("${as_user[@]}" "${ours_env[@]}" "$builddir/clients/cli/sysprof-cli" --memprof --no-battery
      -f "$cap.syscap" -- "$@") ;;
    heaptrack) cmd=("${as_user[@]}" heaptrack -o "$cap" "$@") ;;
    sysprof346) cmd=("${as_user[@]}" /usr/bin/sysprof-cli --memprof --no-battery -f "$cap.syscap" -- "$@") ;;
    sysprof346-noperf)
      cmd=("${as_user[@]}" /usr/bin/sysprof-cli --memprof --no-perf --no-battery -f "$cap.syscap" -- "$@") ;;
  esac
}

# capture_of MODE STEM: the file the mode wrote (heaptrack adds .zst or .gz itself).
capture_of () {
  case $1 in
    alone) ;;
    heaptrack)
      local f
      for f in "$capdir/$2".zst "$capdir/$2".gz; do
        if [[ -f $f ]]; then echo "$f"; break; fi
      done ;;
    *) echo "$capdir/$2.syscap" ;;
  esac
}

# kept MODE STEM: the allocations the profiler kept.  Captures: ALLOCATION
# frames with a size (sysprof-dump --stats, ALLOCS).  heaptrack: the count its
# interpreter prints at the end, the same as heaptrack_print's "calls to
# allocation functions" (checked again in the analysis part).
kept () {
  case $1 in
    alone) echo - ;;
    heaptrack) sed -n 's/^[[:space:]]*allocations:[[:space:]]*\([0-9]*\)[[:space:]]*$/\1/p' "$log" | tail -n 1 ;;
    *) "$builddir/clients/tools/sysprof-dump" --stats "$(capture_of "$1" "$2")" 2>/dev/null | awk '$1 == "ALLOCS" { print $2 }' ;;
  esac
}

one_run () { # rep mode
  local rep=$1 mode=$2 elapsed wcpu allocs wall user sys d0 d1 rcpu n rc attempt size file
  set_cmd "$mode" "$mode" "${workload[@]}"
  # On this shared machine a run is now and then cut short by a signal from
  # outside: such a run is retried, twice at most, and reported.
  for attempt in 1 2 3; do
    rm -f "$capdir/$mode".*
    rc=0
    d0=$(daemon_cpu)
    /usr/bin/time -o "$timefile" -f '%e %U %S' "${cmd[@]}" </dev/null >"$log" 2>&1 || rc=$?
    d1=$(daemon_cpu)
    elapsed=$(sed -n 's/^malloc-workload: .* elapsed=\([0-9.]*\) s .*/\1/p' "$log" | tail -n 1)
    wcpu=$(sed -n 's/^malloc-workload: .* cpu=\([0-9.]*\) s .*/\1/p' "$log" | tail -n 1)
    allocs=$(sed -n 's/^malloc-workload: .* allocations=\([0-9]*\) .*/\1/p' "$log" | tail -n 1)
    [[ $rc -ne 0 || -z $elapsed ]] || break
    echo "  rep $rep $mode: attempt $attempt failed (status $rc): $(grep -v '^$' "$log" | tail -n 1)" >&2
    if ((attempt == 3)); then
      tail -n 20 "$log" >&2
      exit 1
    fi
  done
  read -r wall user sys < <(tail -n 1 "$timefile")
  # CPU of the command's whole process tree, less the workload's own, plus the daemon's.
  rcpu=$(awk -v u="$user" -v s="$sys" -v w="$wcpu" -v a="$d0" -v b="$d1" 'BEGIN { printf "%.2f", u + s - w + b - a }')
  n=$(kept "$mode" "$mode")
  file=$(capture_of "$mode" "$mode")
  size=-
  [[ -z $file || ! -f $file ]] || size=$(stat -c %s "$file")
  echo "rep=$rep mode=$mode elapsed=$elapsed wcpu=$wcpu wall=$wall rcpu=$rcpu allocs=$allocs kept=${n:--} size=$size" >>"$results"
  printf '  rep %2d  %-17s  workload %8.3f s (cpu %8.3f s)   command %8.3f s   recorder cpu %7.2f s   kept %9s of %s   file %s\n' \
    "$rep" "$mode" "$elapsed" "$wcpu" "$wall" "$rcpu" "${n:--}" "$allocs" \
    "$([[ $size == - ]] && echo - || echo "$((size / 1000000)) MB")"
}

echo "Memory profiling: malloc-workload -t $threads -n $pairs ($((threads * pairs)) allocations), $reps repetitions," \
  "modes ${mode_list[*]}"
echo "Warm-up (one run per mode on 1/20 of the pairs, not counted):"
for mode in "${mode_list[@]}"; do
  set_cmd "$mode" warmup-"$mode" "${warmup[@]}"
  "${cmd[@]}" </dev/null >"$log" 2>&1 || { echo "warm-up of $mode failed:" >&2; tail -n 20 "$log" >&2; exit 1; }
  rm -f "$capdir/warmup-$mode".*
done
echo "  done"

n_modes=${#mode_list[@]}
for ((rep = 1; rep <= reps; rep++)); do
  # Rotate the order, so that every mode takes every position in turn.
  for ((i = 0; i < n_modes; i++)); do
    one_run "$rep" "${mode_list[$(((i + rep - 1) % n_modes))]}"
  done
done

# --- analysis: sysprof-report memory --leaks against heaptrack_print -------------------
# Both read the files of the last repetition, as root (which reads the test
# user's files), output to /dev/null.  One untimed run each first: it warms the
# page cache, and its output is checked.
analysis=$(mktemp "$W/analysis.XXXXXX")
ours_file=
for m in ours ours-perf; do
  if [[ " ${mode_list[*]} " == *" $m "* ]]; then ours_file=$(capture_of "$m" "$m"); ours_from=$m; break; fi
done
ht_file=
[[ " ${mode_list[*]} " != *" heaptrack "* ]] || ht_file=$(capture_of heaptrack heaptrack)
anames=()
if [[ -n $ours_file ]]; then
  if [[ -x $builddir/clients/report/sysprof-report ]] && "$builddir/clients/report/sysprof-report" memory --help >/dev/null 2>&1; then
    anames+=(ours-leaks)
  else
    echo "Analysis: skipping ours: $builddir/clients/report/sysprof-report has no memory command yet" >&2
  fi
fi
[[ -z $ht_file ]] || anames+=(heaptrack-print heaptrack-leaks)

acmd () {
  case $1 in
    ours-leaks) cmd=("$builddir/clients/report/sysprof-report" memory --leaks "$ours_file") ;;
    heaptrack-print) cmd=(heaptrack_print "$ht_file") ;;
    # Leaks only: no peaks, no allocators, no temporary allocations.
    heaptrack-leaks) cmd=(heaptrack_print --print-peaks 0 --print-allocators 0 --print-temporary 0 --print-leaks 1 "$ht_file") ;;
  esac
}

if ((areps > 0 && ${#anames[@]} > 0)); then
  echo
  echo "Analysis: ${anames[*]}, $areps timed runs each"
  for a in "${anames[@]}"; do
    acmd "$a"
    "${cmd[@]}" >"$W/$a.out" 2>&1 || { echo "analysis $a failed:" >&2; tail -n 20 "$W/$a.out" >&2; exit 1; }
  done
  [[ -z $ht_file ]] ||
    echo "  heaptrack_print: $(grep -m1 '^calls to allocation functions:' "$W/heaptrack-print.out")" \
      "| $(grep -m1 '^total memory leaked:' "$W/heaptrack-print.out")"
  if [[ " ${anames[*]} " == *" ours-leaks "* ]]; then
    echo "  sysprof-report memory --leaks ($ours_from): $(wc -l <"$W/ours-leaks.out") lines, first: $(head -n 1 "$W/ours-leaks.out")"
    # The report's own count of what was kept, against sysprof-dump's ALLOCS above.
    if "$builddir/clients/report/sysprof-report" memory --summary --format tsv "$ours_file" >"$W/summary.out" 2>&1; then
      echo "  sysprof-report memory --summary --format tsv ($ours_from):"
      head -n 20 "$W/summary.out" | sed 's/^/    /'
    fi
  fi
  na=${#anames[@]}
  for ((rep = 1; rep <= areps; rep++)); do
    for ((i = 0; i < na; i++)); do
      a=${anames[$(((i + rep - 1) % na))]}
      acmd "$a"
      /usr/bin/time -o "$timefile" -f '%e %U %S %M' "${cmd[@]}" >/dev/null 2>&1 || { echo "analysis $a failed" >&2; exit 1; }
      read -r wall user sys rss < <(tail -n 1 "$timefile")
      echo "rep=$rep analysis=$a wall=$wall cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') rss=$rss" >>"$analysis"
      printf '  rep %2d  %-16s  %8.2f s  (cpu %.2f s, max RSS %d MB)\n' "$rep" "$a" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$((rss / 1024))"
    done
  done
fi

# --- report ----------------------------------------------------------------------------
awk -v order="${mode_list[*]}" '
function median(list,    a, n, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# Median over repetitions of x[rep, m] / x[rep, base].
function paired(x, m, base,    r, list) {
  list = ""
  for (r in reps)
    if ((r, m) in x && (r, base) in x) list = list " " x[r, m] / x[r, base]
  return median(list)
}
function verdict(ok) { return ok ? "MET" : "NOT MET" }
FNR == 1 { file++ }
file == 1 {
  delete v
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  m = v["mode"]; r = v["rep"]
  el[m] = el[m] " " v["elapsed"]; wc[m] = wc[m] " " v["wcpu"]; wl[m] = wl[m] " " v["wall"]; rc[m] = rc[m] " " v["rcpu"]
  if (v["kept"] != "-") { kp[m] = kp[m] " " v["kept"]; pc[m] = pc[m] " " v["kept"] / v["allocs"] * 100 }
  if (v["size"] != "-") sz[m] = sz[m] " " v["size"]
  allocs = v["allocs"]
  e[r, m] = v["elapsed"]; w[r, m] = v["wall"]; reps[r] = 1; cnt[m]++
  next
}
{
  delete v
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  a = v["analysis"]; aw[a] = aw[a] " " v["wall"]; ac[a] = ac[a] " " v["cpu"]; ar[a] = ar[a] " " v["rss"]; acnt[a]++; aruns = acnt[a]
}
END {
  nm = split(order, modes, " ")
  printf "\nMedians of %d repetitions, %d allocations and as many frees per run.\n", cnt[modes[1]], allocs
  printf "  wall     the elapsed time malloc-workload measured itself (CLOCK_MONOTONIC, threads start to join)\n"
  printf "  ratio    median / median of alone; paired: median over repetitions of (mode / alone of that repetition)\n"
  printf "  cpu      the workload process'"'"'s user + system time (getrusage): with a preload, includes the tracker'"'"'s work\n"
  printf "  command  the whole profiler invocation, including start-up and writing or interpreting the file\n"
  printf "  rec cpu  the command'"'"'s process tree less the workload, plus sysprofd\n"
  printf "  kept     allocations in the file (captures: ALLOCATION frames with a size; heaptrack: its count),\n"
  printf "           and as a share of the workload'"'"'s own (the C library'"'"'s few allocations can take it past 100%%)\n\n"
  printf "%-17s %9s %8s %8s %9s %9s %8s %10s %8s %9s\n", "mode", "wall", "ratio", "paired", "cpu", "command", "rec cpu",
    "kept", "kept %", "file"
  have_alone = "alone" in cnt
  for (k = 1; k <= nm; k++) {
    m = modes[k]; med[m] = median(el[m]); cmdm[m] = median(wl[m])
    printf "%-17s %7.3f s %8s %8s %7.3f s %7.3f s %6.2f s %10s %8s %9s\n", m, med[m],
      have_alone ? sprintf("%.2fx", med[m] / median(el["alone"])) : "-",
      have_alone ? sprintf("%.2fx", paired(e, m, "alone")) : "-",
      median(wc[m]), cmdm[m], median(rc[m]),
      m in kp ? median(kp[m]) : "-", m in pc ? sprintf("%.2f%%", median(pc[m])) : "-",
      m in sz ? sprintf("%.0f MB", median(sz[m]) / 1e6) : "-"
  }
  printf "\nTargets\n"
  for (k = 1; k <= nm; k++) {
    m = modes[k]
    if (m != "ours" && m != "ours-perf") continue
    printf "  %s keeps every allocation: %s%%  %s\n", m, m in pc ? sprintf("%.2f", median(pc[m])) : "-",
      verdict(m in pc && median(pc[m]) >= 100)
    if ("heaptrack" in cnt)
      printf "  %s at least 4x faster than heaptrack: workload wall heaptrack/%s = %.2fx (paired %.2fx), command %.2fx  %s\n",
        m, m, med["heaptrack"] / med[m], paired(e, "heaptrack", m), cmdm["heaptrack"] / cmdm[m],
        verdict(med["heaptrack"] / med[m] >= 4)
  }
  if (!("ours" in cnt) && !("ours-perf" in cnt))
    printf "  ours: not measured (our sysprof-cli has no --memprof yet)\n"
  if ("heaptrack" in cnt && "sysprof346" in cnt)
    printf "  (peers: heaptrack/sysprof346 workload wall %.2fx)\n", med["heaptrack"] / med["sysprof346"]
  if (aruns > 0) {
    printf "\nAnalysis of the last repetition'"'"'s files, medians of %d runs\n", aruns
    printf "%-16s %9s %9s %9s\n", "analysis", "wall", "cpu", "max RSS"
    split("ours-leaks heaptrack-print heaptrack-leaks", an, " ")
    for (k = 1; k <= 3; k++)
      if (an[k] in acnt)
        printf "%-16s %7.2f s %7.2f s %6.0f MB\n", an[k], median(aw[an[k]]), median(ac[an[k]]), median(ar[an[k]]) / 1024
    if ("ours-leaks" in acnt) {
      for (k = 2; k <= 3; k++)
        if (an[k] in acnt)
          printf "  target: sysprof-report memory --leaks at least 2x faster than %s: %.2fx  %s\n", an[k],
            median(aw[an[k]]) / median(aw["ours-leaks"]), verdict(median(aw[an[k]]) / median(aw["ours-leaks"]) >= 2)
    } else
      printf "  ours: not measured (no capture of ours, or sysprof-report has no memory command yet)\n"
  }
}' "$results" "$analysis"
