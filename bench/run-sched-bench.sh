#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Recording overhead of the scheduler details (issue 18): how much slower
# bench/switch-workload (thread pairs passing a token over pipes, a fixed
# number of context switches) runs while `sysprof-cli --scheduler` records
# the whole system, against `perf sched record` and `perf record -a -e
# sched:sched_switch` with stacks, side by side in one run.  Per mode: the
# workload's slowdown against running alone (median and paired), the
# switches a second it reached, the capture's size, the switches recorded
# and the records lost, the recorder's CPU.  Every repetition runs every
# mode once, in an order that rotates; medians.
#
# Usage (as root): bench/run-sched-bench.sh [-n REPS] [-t TRIPS] [-w WORK] [-p PAIRS] [-m MODES] [-B BUILDDIR] [-k]
#   -n REPS      repetitions of every mode (default 5)
#   -t TRIPS     round trips per pair (default 30000: 3-5 s alone)
#   -w WORK      switch-workload's arithmetic per round trip (default 20000:
#                25,000-50,000 switches/s alone on the 2-vCPU machine; 8000:
#                70,000-120,000)
#   -p PAIRS     thread pairs (default 2)
#   -m MODES     comma-separated, any of the following (default
#                alone,ours,ours-fp,perf-sched,perf-g,perf-dwarf)
#                  alone       the workload by itself, as the test user
#                  ours        sysprof-cli --scheduler, whole system, as
#                              sysprof-test-allowed through our sysprofd: every
#                              sched_switch with the leaving task's registers
#                              and 8 KiB of its stack, unwound by sysprofd's
#                              helper (the default --unwind dwarf), plus CPU
#                              samples at 997 Hz
#                  ours-fp     the same with --unwind fp (the kernel's
#                              frame-pointer walk on every switch)
#                  ours-root   ours as root with no daemon: records in-process
#                  perf-sched  perf sched record -- WORKLOAD (whole system;
#                              sched_switch, sched_stat_runtime, sched_waking,
#                              sched_migrate_task, fork, wakeup_new: no stacks)
#                  perf-g      perf record -a -e sched:sched_switch -g
#                              (frame-pointer stacks, as ours-fp)
#                  perf-dwarf  perf record -a -e sched:sched_switch --call-graph
#                              dwarf (8 KiB stack copies written to perf.data, as
#                              ours copies them; perf's default ring size)
#   -B BUILDDIR  meson build directory (default build-bench/ at the repository
#                root, configured with -Dcompat=enabled if it does not exist)
#   -k           keep the last capture of every mode (the directory is printed)
#
# Runs itself again under tools/with-sysprofd.sh (private system bus, real
# polkitd, our sysprofd confined as its unit says).  Mounts tracefs at
# /sys/kernel/tracing if it is not.  Every recorder records the whole system,
# so on a shared machine other people's switches are recorded too.  Captures
# go to a directory under /var/tmp, removed at the end unless -k.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/bench/$(basename "${BASH_SOURCE[0]}")
reps=5
trips=30000
work=20000
pairs=2
modes=alone,ours,ours-fp,perf-sched,perf-g,perf-dwarf
builddir=$root/build-bench
keep=0

while getopts 'n:t:w:p:m:B:kh' opt; do
  case $opt in
    n) reps=$OPTARG ;;
    t) trips=$OPTARG ;;
    w) work=$OPTARG ;;
    p) pairs=$OPTARG ;;
    m) modes=$OPTARG ;;
    B) builddir=$OPTARG ;;
    k) keep=1 ;;
    h) sed -n '3,48s/^# \{0,1\}//p' "$self"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
die () { echo "run-sched-bench.sh: $*" >&2; exit 2; }
[[ $# -eq 0 ]] || die "no arguments expected besides options"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "-n needs a number >= 1"
[[ $trips =~ ^[1-9][0-9]*$ ]] || die "-t needs a number >= 1"
[[ $work =~ ^[0-9]+$ ]] || die "-w needs a number"
[[ $pairs =~ ^[1-9][0-9]*$ ]] || die "-p needs a number >= 1"
case $builddir in /*) ;; *) builddir=$PWD/$builddir ;; esac
IFS=, read -r -a mode_list <<<"$modes"
for m in "${mode_list[@]}"; do
  case $m in alone | ours | ours-fp | ours-root | perf-sched | perf-g | perf-dwarf) ;; *) die "unknown mode $m" ;; esac
done

# --- outer half: build, then re-run this script under with-sysprofd.sh ------------
if [[ -z ${SCHED_BENCH_INNER:-} ]]; then
  [[ $(id -u) -eq 0 ]] || die "must run as root (test user, sysprofd, perf, tracefs)"
  # shellcheck source=/dev/null
  . "$root/tools/deps.sh"
  sysprof_install_packages linux-perf time dbus polkitd || die "cannot install the benchmark's peers"
  # Both recorders read the tracepoint's id and format from tracefs.
  if [[ ! -e /sys/kernel/tracing/events/sched/sched_switch/format ]]; then
    mount -t tracefs nodev /sys/kernel/tracing || die "cannot mount tracefs at /sys/kernel/tracing"
  fi
  if [[ ! -f $builddir/build.ninja ]]; then
    meson setup "$builddir" "$root" -Dsystem_service=false -Dcompat=enabled
  fi
  if ! out=$(ninja -C "$builddir" bench/switch-workload clients/cli/sysprof-cli clients/tools/sysprof-dump \
    daemon/sysprofd daemon/unwinder/sysprof-unwinder 2>&1); then
    tail -n 30 <<<"$out" >&2
    die "the build failed"
  fi
  capdir=$(mktemp -d /var/tmp/sched-bench.XXXXXX)
  chmod 777 "$capdir"
  if ((keep)); then
    trap 'echo "captures kept in $capdir"' EXIT
  else
    trap 'rm -rf "$capdir"' EXIT
  fi
  status=0
  SCHED_BENCH_INNER=$capdir "$root/tools/with-sysprofd.sh" --build-dir "$builddir" \
    "$self" -n "$reps" -t "$trips" -w "$work" -p "$pairs" -m "$modes" -B "$builddir" || status=$?
  exit $status
fi

# --- inner half: under with-sysprofd.sh ------------------------------------------
capdir=$SCHED_BENCH_INNER
W=$SYSPROFD_TEST_WORKDIR
U=sysprof-test-allowed
mkdir -p "$W/bin" "$W/u"
install -m 755 "$builddir/bench/switch-workload" "$builddir/clients/cli/sysprof-cli" "$W/bin/"
chown "$U" "$W/u"
cd "$W/u"
as_user=(runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS")
dump=$builddir/clients/tools/sysprof-dump

daemon_pid=$(gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.GetConnectionUnixProcessID org.gnome.Sysprof3 | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p')
[[ -r /proc/$daemon_pid/stat ]] || die "cannot find sysprofd's pid"
ticks=$(getconf CLK_TCK)
# sysprofd's CPU seconds, its own and those of the children it reaped (the
# unwinding helper, which it waits for before a recording ends).
daemon_cpu () { awk -v t="$ticks" '{ sub(/^.*\) /, ""); printf "%.2f\n", ($12 + $13 + $14 + $15) / t }' "/proc/$daemon_pid/stat"; }

results=$W/results
: >"$results"
log=$W/run.log
timefile=$W/time

# set_cmd MODE CAPTURE-STEM WORKLOAD...: the command that runs the workload under MODE.
set_cmd () {
  local mode=$1 cap=$capdir/$2
  shift 2
  case $mode in
    alone) cmd=("${as_user[@]}" "$@") ;;
    ours) cmd=("${as_user[@]}" sysprof-cli --scheduler --no-battery -f "$cap.syscap" -- "$@") ;;
    ours-fp) cmd=("${as_user[@]}" sysprof-cli --scheduler --unwind fp --no-battery -f "$cap.syscap" -- "$@") ;;
    ours-root)
      # No bus at that address, so sysprof-cli, as root, records in-process.
      cmd=(env DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent "$builddir/clients/cli/sysprof-cli" --scheduler
        --no-battery -f "$cap.syscap" -- "$@") ;;
    perf-sched) cmd=(perf sched record -o "$cap.data" -- "$@") ;;
    perf-g) cmd=(perf record -a -e sched:sched_switch -g -o "$cap.data" -- "$@") ;;
    perf-dwarf) cmd=(perf record -a -e sched:sched_switch --call-graph dwarf -o "$cap.data" -- "$@") ;;
  esac
}

workload=("$W/bin/switch-workload" -p "$pairs" -n "$trips" -w "$work")
warmup=("$W/bin/switch-workload" -p "$pairs" -n "$(((trips + 9) / 10))" -w "$work")

# field NAME < LINE: the value of NAME=VALUE in the workload's line.
field () { sed -n "s/^switch-workload: .* $1=\\([0-9.]*\\).*/\\1/p" | tail -n 1; }

one_run () { # REP MODE
  local rep=$1 mode=$2 rc attempt elapsed wcpu switches sps wall user sys d0 d1 rcpu
  local size=- recorded=- lost=- dropped=- offcpu=- marks=- stats counts
  set_cmd "$mode" "$mode" "${workload[@]}"
  rm -f "$capdir/$mode".*
  # On this shared machine a run is now and then cut short by a signal from
  # outside: such a run is retried, twice at most, and reported.
  for attempt in 1 2 3; do
    rc=0
    d0=$(daemon_cpu)
    /usr/bin/time -o "$timefile" -f '%e %U %S' "${cmd[@]}" </dev/null >"$log" 2>&1 || rc=$?
    d1=$(daemon_cpu)
    elapsed=$(field elapsed <"$log")
    [[ $rc -ne 0 || -z $elapsed ]] || break
    echo "  rep $rep $mode: attempt $attempt failed (status $rc): $(grep -v '^$' "$log" | tail -n 1)" >&2
    ((attempt < 3)) || { tail -n 20 "$log" >&2; exit 1; }
  done
  wcpu=$(field cpu <"$log")
  switches=$(field switches <"$log")
  sps=$(field switches_per_s <"$log")
  read -r wall user sys < <(tail -n 1 "$timefile")
  # The recorder: the command's process tree less the workload, plus sysprofd
  # and its reaped helper (which record nothing for the other modes).
  rcpu=$(awk -v u="$user" -v s="$sys" -v w="$wcpu" -v a="$d0" -v b="$d1" 'BEGIN { printf "%.2f", u + s - w + b - a }')
  case $mode in
    ours*)
      size=$(stat -c %s "$capdir/$mode.syscap")
      # sysprof-cli's last line: "Recorded ...: N samples, SIZE, L lost (...)".
      lost=$(sed -n 's/^Recorded .*, \([0-9]*\) lost (.*/\1/p' "$log" | tail -n 1)
      # METADATA sysprof.scheduler: switches=N off-cpu=N marks=N dropped=N (the last, at stop).
      counts=$("$dump" "$capdir/$mode.syscap" 2>/dev/null | grep -o 'switches=[0-9]* off-cpu=[0-9]* marks=[0-9]* dropped=[0-9]*' |
        tail -n 1 || true)
      recorded=$(sed -n 's/.*switches=\([0-9]*\).*/\1/p' <<<"$counts")
      offcpu=$(sed -n 's/.*off-cpu=\([0-9]*\).*/\1/p' <<<"$counts")
      marks=$(sed -n 's/.*marks=\([0-9]*\).*/\1/p' <<<"$counts")
      dropped=$(sed -n 's/.*dropped=\([0-9]*\).*/\1/p' <<<"$counts")
      ;;
    perf-*)
      size=$(stat -c %s "$capdir/$mode.data")
      # Per event: "sched:sched_switch stats:", then its SAMPLE events and the
      # samples the kernel could not write (LOST_SAMPLES, summed from the
      # PERF_RECORD_LOST(_SAMPLES) counts: what perf's "lost" warning counts).
      stats=$(perf report --stats -i "$capdir/$mode.data" 2>/dev/null || true)
      recorded=$(awk '/ stats:$/ { ev = $1 } ev == "sched:sched_switch" && $1 == "SAMPLE" { print $3; exit }' <<<"$stats")
      lost=$(awk '/ stats:$/ { in_ev = 1 } in_ev && $1 == "LOST_SAMPLES" { n += $3 } END { print n + 0 }' <<<"$stats")
      ;;
  esac
  echo "rep=$rep mode=$mode elapsed=$elapsed wcpu=$wcpu switches=$switches sps=$sps wall=$wall rcpu=$rcpu size=$size" \
    "recorded=${recorded:--} lost=${lost:--} dropped=${dropped:--} offcpu=${offcpu:--} marks=${marks:--}" >>"$results"
  printf '  rep %d %-10s workload %6.3f s (cpu %6.3f)  %6s sw/s  command %6.2f s  rec cpu %5.2f s  %9s B  recorded %7s  lost %7s  dropped %s\n' \
    "$rep" "$mode" "$elapsed" "$wcpu" "$sps" "$wall" "$rcpu" "$size" "${recorded:--}" "${lost:--}" "${dropped:--}"
  # perf.data with DWARF stacks is ~1.5 GB: not kept longer than needed.
  ((keep)) || rm -f "$capdir/$mode".*
}

echo "Scheduler recording overhead: switch-workload -p $pairs -n $trips -w $work, $reps repetitions," \
  "modes ${mode_list[*]}; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Warm-up (one run per mode on 1/10 of the round trips, not counted):"
for mode in "${mode_list[@]}"; do
  set_cmd "$mode" warmup "${warmup[@]}"
  "${cmd[@]}" </dev/null >"$log" 2>&1 || { echo "warm-up of $mode failed:" >&2; tail -n 20 "$log" >&2; exit 1; }
  rm -f "$capdir"/warmup.*
done
echo "  done"

n_modes=${#mode_list[@]}
for ((rep = 1; rep <= reps; rep++)); do
  for ((i = 0; i < n_modes; i++)); do
    one_run "$rep" "${mode_list[$(((i + rep - 1) % n_modes))]}"
  done
done
echo "Load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- report ----------------------------------------------------------------------
awk -v modes="${mode_list[*]}" '
function median(list,    a, n, i, j, t) {
  n = split(list, a, " ")
  if (n == 0) return ""
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# Median over repetitions of elapsed[rep, m] / elapsed[rep, base].
function paired(m, base,    r, list) {
  list = ""
  for (r in reps)
    if ((r, m) in el && (r, base) in el) list = list " " el[r, m] / el[r, base]
  return median(list)
}
function add(key, value) { if (value != "-" && value != "") L[key] = L[key] " " value }
function med(m, what) { return median(L[m SUBSEP what]) }
function show(x, fmt) { return x == "" ? "-" : sprintf(fmt, x) }
{
  delete v
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  m = v["mode"]; r = v["rep"]; reps[r] = 1
  el[r, m] = v["elapsed"]
  add(m SUBSEP "elapsed", v["elapsed"]); add(m SUBSEP "wcpu", v["wcpu"]); add(m SUBSEP "sps", v["sps"])
  add(m SUBSEP "wall", v["wall"]); add(m SUBSEP "rcpu", v["rcpu"]); add(m SUBSEP "size", v["size"])
  add(m SUBSEP "recorded", v["recorded"]); add(m SUBSEP "lost", v["lost"]); add(m SUBSEP "dropped", v["dropped"])
  if (v["recorded"] != "-" && v["lost"] != "-" && v["recorded"] + v["lost"] > 0)
    add(m SUBSEP "lostpct", 100 * v["lost"] / (v["recorded"] + v["lost"]))
  if (v["recorded"] != "-" && v["recorded"] > 0) {
    add(m SUBSEP "bpsw", v["size"] / v["recorded"])
    add(m SUBSEP "uspsw", v["rcpu"] / v["recorded"] * 1e6)
  }
}
END {
  nm = split(modes, M, " ")
  print ""
  print "Medians over the repetitions."
  print "  wall      the workload'"'"'s own elapsed time (CLOCK_MONOTONIC)"
  print "  ratio     median / median of alone; paired: median over repetitions of mode / alone of that repetition"
  print "  cpu       the workload'"'"'s user + system time (getrusage)"
  print "  sw/s      the workload'"'"'s threads'"'"' switches a second (getrusage RUSAGE_THREAD), as it measured them"
  print "  command   the whole recorder invocation, start-up and finishing included"
  print "  rec cpu   the recorder'"'"'s CPU: its process tree less the workload, plus sysprofd and its helper"
  print "  capture   the file: .syscap (ours) or perf.data"
  print "  recorded  sched_switch records kept, every task of the system (ours: METADATA sysprof.scheduler switches=;"
  print "            perf: the sched_switch event'"'"'s SAMPLE count in perf report --stats)"
  print "  lost      records the kernel could not write to a full ring (ours: the count sysprof-cli prints, every"
  print "            event: switches and CPU samples; perf: LOST_SAMPLES of every event)"
  print "  lost %    lost / (recorded + lost)"
  print "  dropped   ours: off-CPU stacks dropped after the ring (METADATA dropped=)"
  print "  B/sw      capture bytes per switch recorded; us/sw: rec cpu per switch recorded"
  printf "\n%-10s %8s %7s %7s %8s %7s %8s %8s %9s %8s %8s %6s %7s %6s %6s\n", "mode", "wall", "ratio", "paired", "cpu", "sw/s",
    "command", "rec cpu", "capture", "recorded", "lost", "lost %", "dropped", "B/sw", "us/sw"
  a = med("alone", "elapsed")
  for (y = 1; y <= nm; y++) {
    m = M[y]; e = med(m, "elapsed")
    printf "%-10s %6.3f s %7s %7s %6.3f s %7.0f %6.2f s %8s %6.2f MB %8s %8s %6s %7s %6s %6s\n", m, e,
      a != "" ? sprintf("%.3fx", e / a) : "-", a != "" ? sprintf("%.3fx", paired(m, "alone")) : "-",
      med(m, "wcpu"), med(m, "sps"), med(m, "wall"), m == "alone" ? "-" : sprintf("%.2f s", med(m, "rcpu")),
      med(m, "size") / 1e6, show(med(m, "recorded"), "%d"), show(med(m, "lost"), "%d"), show(med(m, "lostpct"), "%.1f"),
      show(med(m, "dropped"), "%d"), show(med(m, "bpsw"), "%.0f"), show(med(m, "uspsw"), "%.1f")
  }
  if (L["ours" SUBSEP "elapsed"] == "") exit
  eo = med("ours", "elapsed")
  print ""
  print "Target: recording overhead with --scheduler no more than perf sched record'"'"'s"
  for (y = 1; y <= nm; y++) {
    m = M[y]
    if (m !~ /^perf-/ || L[m SUBSEP "elapsed"] == "") continue
    ep = med(m, "elapsed")
    printf "  ours/%-10s wall %.3fx (paired %.3fx)%s", m, eo / ep, paired("ours", m),
      m == "perf-sched" ? (eo <= ep ? "  MET" : "  NOT MET") : ""
    if (a != "")
      printf "   slowdown ours %+.1f %%, %s %+.1f %% (paired %+.1f %%, %+.1f %%)", 100 * (eo / a - 1), m, 100 * (ep / a - 1),
        100 * (paired("ours", "alone") - 1), 100 * (paired(m, "alone") - 1)
    printf "\n"
    printf "    capture ours/%s %.2f MB / %.2f MB = %.3f\n", m, med("ours", "size") / 1e6, med(m, "size") / 1e6,
      med("ours", "size") / med(m, "size")
  }
  if (L["ours-fp" SUBSEP "elapsed"] != "" && L["perf-g" SUBSEP "elapsed"] != "")
    printf "  frame pointers: ours-fp/perf-g wall %.3fx (paired %.3fx)\n", med("ours-fp", "elapsed") / med("perf-g", "elapsed"),
      paired("ours-fp", "perf-g")
}' "$results"
