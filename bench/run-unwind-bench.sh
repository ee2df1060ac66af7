#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# DWARF unwinding while recording, against perf: CPU recording at 997 Hz of
# a fixed amount of work in code without frame pointers, ours (sysprof-cli's
# default, --unwind dwarf, unwound by sysprofd's confined helper) against
# `perf record --call-graph dwarf`, `perf record -g`, and ours with --unwind
# fp, side by side in one run.  Per mode and workload: the workload's
# slowdown against running alone, the capture's size, the recorder's CPU,
# the helper's CPU per unwound sample, the share of the workload's samples
# that reach main, and the time of the report afterwards.  Every repetition
# runs every mode once per workload, in an order that rotates; medians.
#
# Usage (as root): bench/run-unwind-bench.sh [-n REPS] [-r ROUNDS] [-x BYTES] [-w WORKLOADS] [-m MODES] [-B BUILDDIR] [-k]
#   -n REPS       repetitions of every mode (default 5)
#   -r ROUNDS     rounds of bench/nofp-workload (default 2500, ~4.5 s alone)
#   -x BYTES      random bytes behind xz's input (default 1000000: ~3 MB of
#                 hex text, ~4.5 s of `xz -9 -T1` alone)
#   -w WORKLOADS  comma-separated, any of: chain xz (default chain,xz)
#                   chain  bench/nofp-workload -r ROUNDS (-O2 -fomit-frame-pointer,
#                          chains through libc's qsort); reaching "main"
#                   xz     Debian's xz -9 -T1 on one fixed input, timed by
#                          nofp-workload; reaching "__libc_start_main" (xz is
#                          stripped: main has no name, libc's caller of it has)
#   -m MODES      comma-separated, any of: alone ours ours-fp perf-dwarf perf-fp
#                 (default all, in that order)
#                   alone       the workload by itself, as the test user
#                   ours        sysprof-cli --frequency 997 --pid IDLE -- WORKLOAD as
#                               sysprof-test-allowed through our confined sysprofd
#                               (the default unwinding: dwarf, 8192 bytes of stack)
#                   ours-fp     the same with --unwind fp
#                   perf-dwarf  perf record --call-graph dwarf -F 997 -- WORKLOAD (root)
#                   perf-fp     perf record -g -F 997 -- WORKLOAD (root)
#                 Scope: the workload's processes for every recorder.  perf
#                 records the command it runs; ours records the command plus
#                 --pid IDLE, a `sleep` of the test user that never runs, since
#                 without --pid sysprof-cli records the whole system (which on
#                 this shared machine would unwind other people's work too).
#   -B BUILDDIR   meson build directory (default build-bench/, configured with
#                 -Dcompat=enabled -Dbenchmarks=true if it does not exist)
#   -k            keep the last capture of every mode (the directory is printed)
#
# Runs itself again under tools/with-sysprofd.sh (private system bus, real
# polkitd, our sysprofd confined as its unit says).  Captures go to a directory
# under /var/tmp, removed at the end unless -k.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/bench/$(basename "${BASH_SOURCE[0]}")
reps=5
rounds=2500
xz_bytes=1000000
workloads=chain,xz
modes=alone,ours,ours-fp,perf-dwarf,perf-fp
builddir=$root/build-bench
keep=0

while getopts 'n:r:x:w:m:B:kh' opt; do
  case $opt in
    n) reps=$OPTARG ;;
    r) rounds=$OPTARG ;;
    x) xz_bytes=$OPTARG ;;
    w) workloads=$OPTARG ;;
    m) modes=$OPTARG ;;
    B) builddir=$OPTARG ;;
    k) keep=1 ;;
    h) sed -n '3,45s/^# \{0,1\}//p' "$self"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
die () { echo "run-unwind-bench.sh: $*" >&2; exit 2; }
[[ $# -eq 0 ]] || die "no arguments expected besides options"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "-n needs a number >= 1"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "-r needs a number >= 1"
[[ $xz_bytes =~ ^[1-9][0-9]*$ ]] || die "-x needs a number of bytes >= 1"
case $builddir in /*) ;; *) builddir=$PWD/$builddir ;; esac
IFS=, read -r -a mode_list <<<"$modes"
IFS=, read -r -a work_list <<<"$workloads"
for m in "${mode_list[@]}"; do
  case $m in alone | ours | ours-fp | perf-dwarf | perf-fp) ;; *) die "unknown mode $m" ;; esac
done
for w in "${work_list[@]}"; do
  case $w in chain | xz) ;; *) die "unknown workload $w" ;; esac
done

# --- outer half: build, then re-run this script under with-sysprofd.sh ------------
if [[ -z ${UNWIND_BENCH_INNER:-} ]]; then
  [[ $(id -u) -eq 0 ]] || die "must run as root (test user, sysprofd, perf)"
  # shellcheck source=/dev/null
  . "$root/tools/deps.sh"
  sysprof_install_packages "${SYSPROF_BENCH_PACKAGES[@]}" xz-utils || die "cannot install the benchmark's peers"
  if [[ ! -f $builddir/build.ninja ]]; then
    meson setup "$builddir" "$root" -Dsystem_service=false -Dcompat=enabled -Dbenchmarks=true
  fi
  if ! out=$(ninja -C "$builddir" bench/nofp-workload clients/cli/sysprof-cli clients/report/sysprof-report \
    clients/tools/sysprof-dump daemon/sysprofd daemon/unwinder/sysprof-unwinder 2>&1); then
    tail -n 30 <<<"$out" >&2
    die "the build failed"
  fi
  capdir=$(mktemp -d /var/tmp/unwind-bench.XXXXXX)
  chmod 777 "$capdir"
  if ((keep)); then
    trap 'echo "captures kept in $capdir"' EXIT
  else
    trap 'rm -rf "$capdir"' EXIT
  fi
  status=0
  UNWIND_BENCH_INNER=$capdir "$root/tools/with-sysprofd.sh" --build-dir "$builddir" \
    "$self" -n "$reps" -r "$rounds" -x "$xz_bytes" -w "$workloads" -m "$modes" -B "$builddir" || status=$?
  exit $status
fi

# --- inner half: under with-sysprofd.sh ------------------------------------------
capdir=$UNWIND_BENCH_INNER
W=$SYSPROFD_TEST_WORKDIR
U=sysprof-test-allowed
mkdir -p "$W/bin" "$W/u"
install -m 755 "$builddir/bench/nofp-workload" "$builddir/clients/cli/sysprof-cli" \
  "$builddir/clients/report/sysprof-report" "$W/bin/"
chown "$U" "$W/u"
cd "$W/u"
as_user=(runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS")
dump=$builddir/clients/tools/sysprof-dump

# xz's input: random bytes as hex text (compressible, as text is), the same
# file for every run of this invocation.
head -c "$xz_bytes" /dev/urandom | od -An -tx1 >"$W/u/xz-input.txt"
chown "$U" "$W/u/xz-input.txt"

# The process ours records besides the command (see -m): it sleeps throughout.
# A copy of sleep under its own name, exec'd directly as the test user (so
# its pid is the sleeping process), and started again should anything on
# this shared machine end it: --pid of a process that is gone fails.
install -m 755 /bin/sleep "$W/bin/unwind-bench-idle"
idle_pid=
start_idle () {
  if [[ -n $idle_pid ]] && kill -0 "$idle_pid" 2>/dev/null; then return; fi
  [[ -z $idle_pid ]] || echo "  (the idle process $idle_pid was gone; started another)" >&2
  setpriv --reuid="$U" --regid="$U" --init-groups "$W/bin/unwind-bench-idle" infinity &
  idle_pid=$!
}
start_idle
trap 'kill "$idle_pid" 2>/dev/null || true' EXIT

daemon_pid=$(gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.GetConnectionUnixProcessID org.gnome.Sysprof3 | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p')
[[ -r /proc/$daemon_pid/stat ]] || die "cannot find sysprofd's pid"
ticks=$(getconf CLK_TCK)
# sysprofd's own CPU seconds, and those of the children it has reaped: the
# unwinding helpers, which it waits for before the recording ends.
daemon_cpu () { awk -v t="$ticks" '{ sub(/^.*\) /, ""); printf "%.2f %.2f\n", ($12 + $13) / t, ($14 + $15) / t }' "/proc/$daemon_pid/stat"; }

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
    ours) cmd=("${as_user[@]}" sysprof-cli --frequency 997 --no-battery --pid "$idle_pid" -f "$cap.syscap" -- "$@") ;;
    ours-fp) cmd=("${as_user[@]}" sysprof-cli --frequency 997 --no-battery --unwind fp --pid "$idle_pid" -f "$cap.syscap"
      -- "$@") ;;
    perf-dwarf) cmd=(perf record --call-graph dwarf -F 997 -o "$cap.data" -- "$@") ;;
    perf-fp) cmd=(perf record -g -F 997 -o "$cap.data" -- "$@") ;;
  esac
}

workload_cmd () { # WORKLOAD: its command line in ${wcmd[@]}, its comm, and a regex of the frame that means "reached main"
  case $1 in
    chain) wcmd=("$W/bin/nofp-workload" -r "$rounds") comm=nofp-workload top='^main$' ;;
    # xz is stripped: its main has no name; libc's __libc_start_call_main
    # (perf names the frame so) or __libc_start_main (ours) called it.
    xz) wcmd=("$W/bin/nofp-workload" -- xz -9 -T1 -c "$W/u/xz-input.txt") comm=xz top='^__libc_start_' ;;
  esac
}

# reach MODE STEM COMM TOP: prints the percent of COMM's samples whose stack
# holds a function matching the regex TOP (ours: the largest total of such a
# function in sysprof-report top; perf: counted in perf script), then the wall seconds of the report (sysprof-report top, or perf
# report --stdio with its default call graphs).
reach () {
  local mode=$1 cap=$capdir/$2 comm=$3 top=$4
  case $mode in
    ours | ours-fp)
      /usr/bin/time -o "$timefile" -f '%e' "${as_user[@]}" sysprof-report top "$cap.syscap" >/dev/null 2>&1 || echo "report failed" >&2
      "${as_user[@]}" sysprof-report top --comm "$comm" --format tsv "$cap.syscap" 2>/dev/null |
        awk -F'\t' -v t="$top" 'NR > 1 && $1 ~ t && $6 + 0 > best { best = $6 + 0 } END { print best + 0 }'
      tail -n 1 "$timefile"
      ;;
    perf-*)
      /usr/bin/time -o "$timefile" -f '%e' perf report --stdio -i "$cap.data" >/dev/null 2>&1 || echo "perf report failed" >&2
      # One block per sample: "COMM", then a line "\tIP SYMBOL" per frame.
      perf script -i "$cap.data" -F comm,ip,sym 2>/dev/null | awk -v c="$comm" -v t="$top" '
        /^[^\t]/ { if (in_c) { n++; hit += got } in_c = ($1 == c); got = 0; next }
        /^\t/ && in_c && $2 ~ t { got = 1 }
        END { if (in_c) { n++; hit += got } printf "%.1f\n", n ? 100 * hit / n : 0 }'
      tail -n 1 "$timefile"
      ;;
  esac
}

one_run () { # REP WORKLOAD MODE
  local rep=$1 work=$2 mode=$3 stem=$2-$3 rc attempt elapsed wcpu wall user sys self0 kids0 self1 kids1
  local rcpu helper=- n=- unwound=- complete=- size=- sbytes=- fbytes=- main=- report_s=-
  workload_cmd "$work"
  set_cmd "$mode" "$stem" "${wcmd[@]}"
  rm -f "$capdir/$stem".*
  for attempt in 1 2 3; do
    rc=0
    start_idle
    set_cmd "$mode" "$stem" "${wcmd[@]}"
    read -r self0 kids0 < <(daemon_cpu)
    /usr/bin/time -o "$timefile" -f '%e %U %S' "${cmd[@]}" </dev/null >"$log" 2>&1 || rc=$?
    read -r self1 kids1 < <(daemon_cpu)
    elapsed=$(sed -n 's/^nofp-workload: .* elapsed=\([0-9.]*\) s .*/\1/p' "$log" | tail -1)
    wcpu=$(sed -n 's/^nofp-workload: .* cpu=\([0-9.]*\) s .*/\1/p' "$log" | tail -1)
    [[ $rc -ne 0 || -z $elapsed ]] || break
    echo "  rep $rep $work $mode: attempt $attempt failed (status $rc): $(grep -v '^$' "$log" | tail -n 1)" >&2
    ((attempt < 3)) || { tail -n 20 "$log" >&2; exit 1; }
  done
  read -r wall user sys < <(tail -n 1 "$timefile")
  # The recorder: the command's process tree less the workload, plus sysprofd
  # (its own time and its reaped helper's).
  rcpu=$(awk -v u="$user" -v s="$sys" -v w="$wcpu" -v a="$self0" -v b="$self1" -v c="$kids0" -v d="$kids1" \
    'BEGIN { printf "%.2f", u + s - w + (b - a) + (d - c) }')
  case $mode in
    ours | ours-fp)
      size=$(stat -c %s "$capdir/$stem.syscap")
      n=$("$dump" --stats "$capdir/$stem.syscap" 2>/dev/null | awk '$1 == "SAMPLE" { print $2 }')
      helper=$(awk -v c="$kids0" -v d="$kids1" 'BEGIN { printf "%.2f", d - c }')
      local summary
      summary=$("$dump" "$capdir/$stem.syscap" 2>/dev/null | grep -A2 'id: sysprof.unwind' | grep -o 'method=.*' | head -1 || true)
      unwound=$(sed -n 's/.* samples=\([0-9]*\).*/\1/p' <<<"$summary")
      # Bytes of SAMPLE frames, and of FILE_CHUNK frames (the embedded
      # kallsyms, mountinfo and symbol tables): where the capture's size goes.
      read -r sbytes fbytes < <("$dump" "$capdir/$stem.syscap" 2>/dev/null |
        awk '/^SAMPLE @/ || /^FILE_CHUNK @/ { for (i = 2; i <= NF; i++) if ($i ~ /^len=/) b[$1] += substr($i, 5) }
             END { print b["SAMPLE"] + 0, b["FILE_CHUNK"] + 0 }')
      complete=$(sed -n 's/.* complete=\([0-9]*\).*/\1/p' <<<"$summary")
      ;;
    perf-*)
      size=$(stat -c %s "$capdir/$stem.data")
      n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$log" | tail -1)
      sbytes=$size
      ;;
  esac
  if [[ $mode != alone ]]; then
    { read -r main; read -r report_s; } < <(reach "$mode" "$stem" "$comm" "$top")
  fi
  echo "rep=$rep work=$work mode=$mode elapsed=$elapsed wcpu=$wcpu wall=$wall rcpu=$rcpu helper=$helper" \
    "samples=${n:--} unwound=${unwound:--} complete=${complete:--} size=$size sbytes=$sbytes fbytes=$fbytes" \
    "main=$main report=$report_s" >>"$results"
  printf '  rep %d %-5s %-10s workload %6.3f s (cpu %6.3f)  command %6.2f s  rec cpu %5.2f s  helper %4s s  samples %5s  %9s B  reach %5s %%  report %s s\n' \
    "$rep" "$work" "$mode" "$elapsed" "$wcpu" "$wall" "$rcpu" "$helper" "${n:--}" "$size" "$main" "$report_s"
}

echo "Unwinding while recording: ${work_list[*]} at 997 Hz, $reps repetitions, modes ${mode_list[*]}"
echo "Warm-up (one run per mode on 1/10 of the chain work, not counted):"
saved_rounds=$rounds
rounds=$(((rounds + 9) / 10))
for mode in "${mode_list[@]}"; do
  workload_cmd chain
  start_idle
  set_cmd "$mode" warmup "${wcmd[@]}"
  "${cmd[@]}" </dev/null >"$log" 2>&1 || { echo "warm-up of $mode failed:" >&2; tail -n 20 "$log" >&2; exit 1; }
  rm -f "$capdir"/warmup.*
done
rounds=$saved_rounds
echo "  done"

n_modes=${#mode_list[@]}
for ((rep = 1; rep <= reps; rep++)); do
  for work in "${work_list[@]}"; do
    for ((i = 0; i < n_modes; i++)); do
      one_run "$rep" "$work" "${mode_list[$(((i + rep - 1) % n_modes))]}"
    done
  done
done

# --- report ----------------------------------------------------------------------
awk -v modes="${mode_list[*]}" -v works="${work_list[*]}" '
function median(list,    a, n, i, j, t) {
  n = split(list, a, " ")
  if (n == 0) return ""
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# Median over repetitions of elapsed[rep, w, m] / elapsed[rep, w, base].
function paired(w, m, base,    r, list) {
  list = ""
  for (r in reps)
    if ((r, w, m) in el && (r, w, base) in el) list = list " " el[r, w, m] / el[r, w, base]
  return median(list)
}
# The same for the workload'"'"'s CPU time.
function pairedc(w, m, base,    r, list) {
  list = ""
  for (r in reps)
    if ((r, w, m) in cp && (r, w, base) in cp) list = list " " cp[r, w, m] / cp[r, w, base]
  return median(list)
}
function add(key, value) { if (value != "-" && value != "") L[key] = L[key] " " value }
function verdict(ok) { return ok ? "MET" : "NOT MET" }
{
  delete v
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  w = v["work"]; m = v["mode"]; r = v["rep"]; reps[r] = 1; k = w SUBSEP m
  el[r, w, m] = v["elapsed"]; cp[r, w, m] = v["wcpu"]
  add(k SUBSEP "elapsed", v["elapsed"]); add(k SUBSEP "wcpu", v["wcpu"]); add(k SUBSEP "wall", v["wall"])
  add(k SUBSEP "rcpu", v["rcpu"]); add(k SUBSEP "size", v["size"]); add(k SUBSEP "samples", v["samples"])
  add(k SUBSEP "main", v["main"]); add(k SUBSEP "report", v["report"])
  add(k SUBSEP "fbytes", v["fbytes"])
  if (v["samples"] != "-" && v["samples"] > 0) {
    add(k SUBSEP "rus", v["rcpu"] / v["samples"] * 1e6)
    add(k SUBSEP "bps", v["sbytes"] / v["samples"])
  }
  if (v["unwound"] != "-" && v["unwound"] > 0) {
    add(k SUBSEP "hus", v["helper"] / v["unwound"] * 1e6)
    add(k SUBSEP "complete", 100 * v["complete"] / v["unwound"])
  }
}
function med(w, m, what) { return median(L[w SUBSEP m SUBSEP what]) }
END {
  nm = split(modes, M, " "); nw = split(works, Wk, " ")
  print ""
  print "Medians over the repetitions."
  print "  wall      the workload'"'"'s own elapsed time (nofp-workload, CLOCK_MONOTONIC)"
  print "  ratio     median / median of alone; paired: median over repetitions of mode / alone of that repetition"
  print "  cpu       the workload'"'"'s user + system time (getrusage), and its paired ratio to alone"
  print "  rec cpu   the recorder'"'"'s CPU: its process tree less the workload, plus sysprofd and its helper"
  print "  rec us    rec cpu per sample"
  print "  unwind us the helper'"'"'s CPU (reaped by sysprofd) per stack it unwound"
  print "  reach     % of the workload'"'"'s samples whose stack holds main (xz, stripped: libc'"'"'s __libc_start_*, its caller)"
  print "  capture   the file: .syscap (ours) or perf.data"
  print "  B/smp     bytes per sample: ours its SAMPLE frame, perf the whole perf.data / samples"
  print "  embedded  ours: bytes of embedded files (kallsyms, mountinfo, symbol tables), whatever the length"
  print "  complete  ours: % of unwound stacks that reached their outermost frame (METADATA sysprof.unwind)"
  print "  report    sysprof-report top / perf report --stdio on the capture, wall seconds"
  for (x = 1; x <= nw; x++) {
    w = Wk[x]
    printf "\n%s\n", w
    printf "%-10s %8s %7s %7s %8s %7s %8s %8s %6s %7s %8s %10s %6s %9s %7s %8s %7s\n", "mode", "wall", "ratio", "paired", "cpu", "paired", "command",
      "rec cpu", "rec us", "samples", "unwnd us", "capture", "B/smp", "embedded", "reach", "complete", "report"
    a = med(w, "alone", "elapsed")
    for (y = 1; y <= nm; y++) {
      m = M[y]
      e = med(w, m, "elapsed")
      printf "%-10s %6.3f s %7s %7s %6.3f s %7s %6.2f s %8s %6s %7s %8s %7.2f MB %6s %6.2f MB %6s%% %7s%% %5s s\n", m, e,
        a != "" ? sprintf("%.3fx", e / a) : "-", a != "" ? sprintf("%.3fx", paired(w, m, "alone")) : "-",
        med(w, m, "wcpu"), a != "" ? sprintf("%.3fx", pairedc(w, m, "alone")) : "-", med(w, m, "wall"), m == "alone" ? "-" : sprintf("%.2f s", med(w, m, "rcpu")),
        med(w, m, "rus") != "" ? sprintf("%.0f", med(w, m, "rus")) : "-",
        med(w, m, "samples") != "" ? med(w, m, "samples") : "-",
        med(w, m, "hus") != "" ? sprintf("%.0f", med(w, m, "hus")) : "-",
        med(w, m, "size") / 1e6, med(w, m, "bps") != "" ? sprintf("%.0f", med(w, m, "bps")) : "-",
        med(w, m, "fbytes") / 1e6, med(w, m, "main") != "" ? sprintf("%.1f", med(w, m, "main")) : "-",
        med(w, m, "complete") != "" ? sprintf("%.1f", med(w, m, "complete")) : "-",
        med(w, m, "report") != "" ? med(w, m, "report") : "-"
    }
    if (L[w SUBSEP "ours" SUBSEP "elapsed"] != "" && L[w SUBSEP "perf-dwarf" SUBSEP "elapsed"] != "") {
      eo = med(w, "ours", "elapsed"); ep = med(w, "perf-dwarf", "elapsed")
      so = med(w, "ours", "size"); sp = med(w, "perf-dwarf", "size")
      printf "Targets (%s):\n", w
      printf "  overhead no more than perf --call-graph dwarf: wall ours/perf-dwarf = %.3fx (paired %.3fx)  %s\n",
        eo / ep, paired(w, "ours", "perf-dwarf"), verdict(eo <= ep)
      printf "    the workload'"'"'s cpu: ours/perf-dwarf = %.3fx (paired %.3fx)\n", med(w, "ours", "wcpu") / med(w, "perf-dwarf", "wcpu"),
        pairedc(w, "ours", "perf-dwarf")
      if (a != "")
        printf "    slowdown vs alone: ours %+.1f %%, perf-dwarf %+.1f %% (paired %+.1f %%, %+.1f %%)\n",
          100 * (eo / a - 1), 100 * (ep / a - 1), 100 * (paired(w, "ours", "alone") - 1), 100 * (paired(w, "perf-dwarf", "alone") - 1)
      printf "  capture at most 1/10 of perf.data: %.2f MB / %.2f MB = %.3f  %s\n", so / 1e6, sp / 1e6, so / sp,
        verdict(so * 10 <= sp)
      printf "    per sample: %s B / %s B = 1/%.0f (ours less its %.2f MB of embedded files: %.3f of perf.data)\n",
        med(w, "ours", "bps"), med(w, "perf-dwarf", "bps"), med(w, "perf-dwarf", "bps") / med(w, "ours", "bps"),
        med(w, "ours", "fbytes") / 1e6, (so - med(w, "ours", "fbytes")) / sp
      printf "  unwinding cost per sample (helper CPU / stacks unwound): %.0f us; whole recorder %s us/sample against perf-dwarf %s\n",
        med(w, "ours", "hus"), sprintf("%.0f", med(w, "ours", "rus")), sprintf("%.0f", med(w, "perf-dwarf", "rus"))
    }
  }
}' "$results"
