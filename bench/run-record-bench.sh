#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Recording overhead: how much slower bench/cpu-workload (a fixed amount of
# CPU-bound work) runs while a profiler records it, ours against perf and
# Debian's Sysprof 3.46.  Every repetition runs every mode once, in an order
# that rotates from one repetition to the next; the table gives the median of
# the workload's own elapsed time per mode and its ratio to "alone".
#
# Usage (as root): bench/run-record-bench.sh [-n REPS] [-r ROUNDS] [-m MODES] [-c CPU] [-B BUILDDIR] [-k]
#   -n REPS      repetitions of every mode (default 5)
#   -r ROUNDS    cpu-workload rounds (default: its own, ~6 s alone)
#   -m MODES     comma-separated, any of: alone ours ours-root perf perf-a sysprof346
#                (default alone,ours,ours-root,perf,perf-a,sysprof346)
#                  alone       the workload by itself, as the test user
#                  ours        our sysprof-cli --frequency 997, whole system, as
#                              sysprof-test-allowed through our sysprofd
#                  ours-root   the same as root with no daemon: records in-process
#                  perf        perf record -F 997 -g (root, the workload's processes only)
#                  perf-a      perf record -a -F 997 -g (root, whole system, like ours)
#                  sysprof346  Debian's /usr/bin/sysprof-cli 3.46, whole system, as
#                              sysprof-test-allowed through our sysprofd
#   -c CPU       pin the workload (not the recorders) to CPU with taskset
#   -B BUILDDIR  meson build directory (default build-bench/ at the repository root,
#                configured with -Dbenchmarks=true if it does not exist)
#   -k           keep the last capture of every mode (the directory is printed)
#
# Runs under tools/with-sysprofd.sh (private system bus, polkitd, our sysprofd);
# Sysprof 3.46's client talks to our daemon there, as the test user.  Captures
# go to a directory under /var/tmp, removed at the end unless -k.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/bench/$(basename "${BASH_SOURCE[0]}")
reps=5
rounds=
modes=alone,ours,ours-root,perf,perf-a,sysprof346
cpu=
builddir=$root/build-bench
keep=0

while getopts 'n:r:m:c:B:kh' opt; do
  case $opt in
    n) reps=$OPTARG ;;
    r) rounds=$OPTARG ;;
    m) modes=$OPTARG ;;
    c) cpu=$OPTARG ;;
    B) builddir=$OPTARG ;;
    k) keep=1 ;;
    h) sed -n '3,30s/^# \{0,1\}//p' "$self"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
die () { echo "run-record-bench.sh: $*" >&2; exit 2; }
[[ $# -eq 0 ]] || die "no arguments expected besides options"
[[ $reps =~ ^[0-9]+$ && $reps -ge 1 ]] || die "-n needs a number >= 1"
[[ -z $rounds || $rounds =~ ^[0-9]+$ ]] || die "-r needs a number"
case $builddir in /*) ;; *) builddir=$PWD/$builddir ;; esac
IFS=, read -r -a mode_list <<<"$modes"
for m in "${mode_list[@]}"; do
  case $m in alone | ours | ours-root | perf | perf-a | sysprof346) ;; *) die "unknown mode $m" ;; esac
done

# --- outer half: build, then re-run this script under with-sysprofd.sh ------------
if [[ -z ${RECORD_BENCH_INNER:-} ]]; then
  [[ $(id -u) -eq 0 ]] || die "must run as root (test user, sysprofd, perf, drop-in recording)"
  if [[ ! -f $builddir/build.ninja ]]; then
    meson setup "$builddir" "$root" -Dsystem_service=false -Dcompat=enabled -Dbenchmarks=true
  fi
  ninja -C "$builddir" build.ninja >/dev/null
  if ! out=$(ninja -C "$builddir" bench/cpu-workload clients/cli/sysprof-cli clients/tools/sysprof-dump daemon/sysprofd 2>&1); then
    tail -n 30 <<<"$out" >&2
    echo "run-record-bench.sh: the build failed" >&2; exit 1
  fi
  for m in "${mode_list[@]}"; do
    case $m in
      perf | perf-a) command -v perf >/dev/null || die "perf not found (apt-get install linux-perf)" ;;
      sysprof346) [[ -x /usr/bin/sysprof-cli ]] || die "/usr/bin/sysprof-cli not found (apt-get install sysprof)" ;;
    esac
  done
  capdir=$(mktemp -d /var/tmp/record-bench.XXXXXX)
  chmod 777 "$capdir"
  if ((keep)); then
    trap 'echo "captures kept in $capdir"' EXIT
  else
    trap 'rm -rf "$capdir"' EXIT
  fi
  status=0
  RECORD_BENCH_INNER=$capdir "$root/tools/with-sysprofd.sh" --build-dir "$builddir" \
    "$self" -n "$reps" ${rounds:+-r "$rounds"} -m "$modes" ${cpu:+-c "$cpu"} -B "$builddir" || status=$?
  exit $status
fi

# --- inner half: under with-sysprofd.sh ------------------------------------------
capdir=$RECORD_BENCH_INNER
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
mkdir -p "$W/bin" "$W/u"
install -m 755 "$builddir/bench/cpu-workload" "$builddir/clients/cli/sysprof-cli" "$W/bin/"
chown "$U" "$W/u"
cd "$W/u"
as_user=(runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A")

workload=("$W/bin/cpu-workload" ${rounds:+-r "$rounds"})
warmup=("$W/bin/cpu-workload" -r "$(((${rounds:-160000} + 19) / 20))")
pin=()
[[ -z $cpu ]] || pin=(taskset -c "$cpu")

results=$(mktemp "$W/results.XXXXXX")
log=$W/run.log
timefile=$W/time

# Our daemon records for "ours"; its CPU time counts as the recorder's.
daemon_pid=$(gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.GetConnectionUnixProcessID org.gnome.Sysprof3 | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p')
[[ -r /proc/$daemon_pid/stat ]] || { echo "run-record-bench.sh: cannot find sysprofd's pid" >&2; exit 1; }
ticks=$(getconf CLK_TCK)
daemon_cpu () { # user + system seconds of sysprofd and the children it waited for
  awk -v t="$ticks" '{ sub(/^.*\) /, ""); print ($12 + $13 + $14 + $15) / t }' "/proc/$daemon_pid/stat"
}

# set_cmd MODE CAPTURE-STEM WORKLOAD...: the command line that runs the workload under MODE.
set_cmd () {
  local mode=$1 cap=$capdir/$2
  shift 2
  case $mode in
    alone) cmd=("${as_user[@]}" "${pin[@]}" "$@") ;;
    ours) cmd=("${as_user[@]}" "$W/bin/sysprof-cli" --frequency 997 --no-battery -f "$cap.syscap" -- "${pin[@]}" "$@") ;;
    ours-root)
      # No bus at that address, so sysprof-cli, as root, records in-process.
      cmd=(env DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent "$builddir/clients/cli/sysprof-cli" --frequency 997
        --no-battery -f "$cap.syscap" -- "${pin[@]}" "$@") ;;
    perf) cmd=(perf record -F 997 -g -o "$cap.data" -- "${pin[@]}" "$@") ;;
    perf-a) cmd=(perf record -a -F 997 -g -o "$cap.data" -- "${pin[@]}" "$@") ;;
    sysprof346) cmd=("${as_user[@]}" /usr/bin/sysprof-cli --no-battery -f "$cap.syscap" -- "${pin[@]}" "$@") ;;
  esac
}

# samples MODE CAPTURE-STEM: SAMPLE frames in the capture (perf: the count it printed).
samples () {
  case $1 in
    perf | perf-a) sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$log" | tail -1 ;;
    alone) echo - ;;
    *) "$builddir/clients/tools/sysprof-dump" --stats "$capdir/$2.syscap" 2>/dev/null | awk '$1 == "SAMPLE" { print $2 }' ;;
  esac
}

one_run () { # rep mode
  local rep=$1 mode=$2 elapsed wcpu wall user sys d0 d1 rcpu n rc attempt cmd
  set_cmd "$mode" "$mode" "${workload[@]}"
  # On this shared machine a run is now and then cut short by a signal from
  # outside (the recorder says it was stopped, the workload prints nothing):
  # such a run is retried, twice at most, and reported.
  for attempt in 1 2 3; do
    rc=0
    d0=$(daemon_cpu)
    /usr/bin/time -o "$timefile" -f '%e %U %S' "${cmd[@]}" </dev/null >"$log" 2>&1 || rc=$?
    d1=$(daemon_cpu)
    elapsed=$(sed -n 's/^cpu-workload: .* elapsed=\([0-9.]*\) s .*/\1/p' "$log" | tail -1)
    wcpu=$(sed -n 's/^cpu-workload: .* cpu=\([0-9.]*\) s .*/\1/p' "$log" | tail -1)
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
  n=$(samples "$mode" "$mode")
  echo "rep=$rep mode=$mode elapsed=$elapsed wcpu=$wcpu wall=$wall rcpu=$rcpu samples=${n:--}" >>"$results"
  printf '  rep %2d  %-10s  workload %7.3f s (cpu %7.3f s)   command %7.3f s   recorder cpu %6.2f s   samples %s\n' \
    "$rep" "$mode" "$elapsed" "$wcpu" "$wall" "$rcpu" "${n:--}"
}

echo "Recording overhead: $(basename "${workload[0]}") ${rounds:+-r $rounds }(fixed work), $reps repetitions," \
  "modes ${mode_list[*]}${cpu:+, workload pinned to CPU $cpu}"
echo "Warm-up (one short run per mode, not counted):"
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

# --- report ----------------------------------------------------------------------
awk -v order="${mode_list[*]}" '
function median(list,    a, n, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# Median over repetitions of x[rep, m] / x[rep, base] (base: alone by default).
function paired(x, m, base,    r, list) {
  if (base == "") base = "alone"
  list = ""
  for (r in reps)
    if ((r, m) in x && (r, base) in x) list = list " " x[r, m] / x[r, base]
  return median(list)
}
function verdict(ok) { return ok ? "MET" : "NOT MET" }
{
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  m = v["mode"]; r = v["rep"]
  el[m] = el[m] " " v["elapsed"]; wc[m] = wc[m] " " v["wcpu"]; wl[m] = wl[m] " " v["wall"]; rc[m] = rc[m] " " v["rcpu"]
  if (v["samples"] != "-") { sm[m] = sm[m] " " v["samples"]; us[m] = us[m] " " v["rcpu"] / v["samples"] * 1e6 }
  e[r, m] = v["elapsed"]; c[r, m] = v["wcpu"]; reps[r] = 1; cnt[m]++
}
END {
  nm = split(order, modes, " ")
  printf "\nMedians of %d repetitions.\n", cnt[modes[1]]
  printf "  wall     the elapsed time cpu-workload measured itself (CLOCK_MONOTONIC)\n"
  printf "  cpu      its user + system time (getrusage): leaves out waiting for a CPU, not a busy sibling vCPU\n"
  printf "  ratio    median / median of alone; paired: median over repetitions of (mode / alone of that repetition)\n"
  printf "  command  the whole recorder invocation, including start-up, finishing and decoding\n"
  printf "  rec cpu  CPU time of the recorder: its process tree less the workload, plus sysprofd\n"
  printf "  samples  in the capture (ours, sysprof346, perf-a: every process; perf: the workload only)\n"
  printf "  us/smp   rec cpu per sample, in microseconds\n\n"
  printf "%-11s %9s %7s %7s %9s %7s %7s %9s %8s %8s %6s\n", "mode", "wall", "ratio", "paired", "cpu", "ratio", "paired",
    "command", "rec cpu", "samples", "us/smp"
  have_alone = "alone" in cnt
  for (k = 1; k <= nm; k++) {
    m = modes[k]; med[m] = median(el[m]); medc[m] = median(wc[m])
    printf "%-11s %7.3f s %7s %7s %7.3f s %7s %7s %7.3f s %6.2f s %8s %6s\n", m, med[m],
      have_alone ? sprintf("%.3fx", med[m] / median(el["alone"])) : "-",
      have_alone ? sprintf("%.3fx", paired(e, m)) : "-",
      medc[m],
      have_alone ? sprintf("%.3fx", medc[m] / median(wc["alone"])) : "-",
      have_alone ? sprintf("%.3fx", paired(c, m)) : "-",
      median(wl[m]), median(rc[m]), m in sm ? median(sm[m]) : "-", m in us ? sprintf("%.0f", median(us[m])) : "-"
  }
  if (("ours" in cnt) && ("perf" in cnt)) {
    printf "\nTarget: ours no slower than perf record -F 997 -g\n"
    printf "  wall: ours/perf = %.3fx (paired %.3fx)  %s\n", med["ours"] / med["perf"], paired(e, "ours", "perf"),
      verdict(med["ours"] <= med["perf"])
    printf "  cpu:  ours/perf = %.3fx (paired %.3fx)  %s\n", medc["ours"] / medc["perf"], paired(c, "ours", "perf"),
      verdict(medc["ours"] <= medc["perf"])
    if ("ours-root" in cnt)
      printf "  (in-process as root: wall %.3fx, cpu %.3fx of perf)\n", med["ours-root"] / med["perf"],
        medc["ours-root"] / medc["perf"]
  }
  if (("ours" in cnt) && ("sysprof346" in cnt))
    printf "ours/sysprof346: wall %.3fx, cpu %.3fx\n", med["ours"] / med["sysprof346"], medc["ours"] / medc["sysprof346"]
}' "$results"
