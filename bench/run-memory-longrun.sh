#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A long memory recording (issue 16, "Long runs"): a program allocating about
# a million times a second for minutes, recorded whole by our sysprof-cli
# --memprof through our sysprofd as an unprivileged user, in the compact
# format.  While it runs, every few seconds: the capture's size, and the
# resident memory of sysprofd, of sysprof-cli and of the traced program (the
# tracker lives in it: its memory is the program's minus what the program
# takes alone, measured first).  Then how long `sysprof-report memory`
# (--summary, --leaks) takes on the capture, and whether every allocation
# is in it.
#
# Usage (as root): bench/run-memory-longrun.sh [-s SECONDS] [-r RATE] [-t THREADS] [-i INTERVAL]
#                                              [-f FORMAT] [-d DIR] [-B BUILDDIR] [-k]
#   -s SECONDS   how long the program allocates (default 600)
#   -r RATE      allocations a second, all threads together (default 1000000);
#                each is freed again (bench/malloc-workload -r: paced pairs)
#   -t THREADS   workload threads (default 2)
#   -i INTERVAL  seconds between two measurements (default 10)
#   -f FORMAT    --memprof-format: stream (default) or frames
#   -d DIR       where the capture goes (default /var/tmp)
#   -B BUILDDIR  meson build directory (default build-bench/ at the repository root,
#                configured with -Dbenchmarks=true if it does not exist)
#   -k           keep the capture (its path is printed)
#   -h           print this help
#
# Output: one line per measurement (seconds, capture MB, bytes per event so
# far, resident MB of sysprofd, sysprof-cli and the program), then a summary:
# the events recorded against the program's own count, the bytes per event,
# each process's largest resident size in the first and the last third of the
# run (bounded memory: the last third is not above the first by more than a
# few MB), and the report times.
#
# Runs under tools/with-sysprofd.sh (private system bus, polkitd, our sysprofd).
# Exit status: 0 when the run and the reports finished (whatever the numbers);
# 1 when one failed; 2 on a usage error or when the run cannot start.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/bench/$(basename "${BASH_SOURCE[0]}")
seconds=600
rate=1000000
threads=2
interval=10
format=stream
dir=/var/tmp
builddir=$root/build-bench
keep=0

while getopts 's:r:t:i:f:d:B:kh' opt; do
  case $opt in
    s) seconds=$OPTARG ;;
    r) rate=$OPTARG ;;
    t) threads=$OPTARG ;;
    i) interval=$OPTARG ;;
    f) format=$OPTARG ;;
    d) dir=$OPTARG ;;
    B) builddir=$OPTARG ;;
    k) keep=1 ;;
    h) awk 'NR < 4 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$self"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
die () { echo "run-memory-longrun.sh: $*" >&2; exit 2; }
[[ $# -eq 0 ]] || die "no arguments expected besides options"
[[ $seconds =~ ^[0-9]+$ && $seconds -ge 5 ]] || die "-s needs a number of seconds >= 5"
[[ $rate =~ ^[0-9]+$ && $rate -ge 1000 ]] || die "-r needs a number >= 1000"
[[ $threads =~ ^[0-9]+$ && $threads -ge 1 && $threads -le 64 ]] || die "-t needs a number from 1 to 64"
[[ $interval =~ ^[0-9]+$ && $interval -ge 1 ]] || die "-i needs a number >= 1"
case $format in stream | frames) ;; *) die "-f needs stream or frames, not $format" ;; esac
case $builddir in /*) ;; *) builddir=$PWD/$builddir ;; esac
# Pairs (an allocation and its free) a second per thread, and in all per thread.
per_thread=$(((rate + threads - 1) / threads))
pairs=$((per_thread * seconds))

# --- outer half: packages, build, then this script under with-sysprofd.sh ----------------
if [[ -z ${LONGRUN_INNER:-} ]]; then
  [[ $(id -u) -eq 0 ]] || die "must run as root (test user, sysprofd, packages)"
  # shellcheck source=tools/deps.sh
  . "$root/tools/deps.sh"
  sysprof_install_packages "${SYSPROF_BENCH_PACKAGES[@]}" || die "could not install the benchmark's packages"
  [[ -f $builddir/build.ninja ]] || meson setup "$builddir" "$root" -Dsystem_service=false -Dcompat=enabled -Dbenchmarks=true
  if ! out=$(ninja -C "$builddir" bench/malloc-workload clients/cli/sysprof-cli clients/report/sysprof-report \
    daemon/sysprofd preload/libsysprof-memory.so 2>&1); then
    tail -n 30 <<<"$out" >&2
    echo "run-memory-longrun.sh: the build failed" >&2; exit 1
  fi
  mkdir -p "$dir"
  capdir=$(mktemp -d "$dir/memory-longrun.XXXXXX")
  chmod 777 "$capdir"
  if ((keep)); then
    trap 'echo "capture kept in $capdir"' EXIT
  else
    trap 'rm -rf "$capdir"' EXIT
  fi
  status=0
  LONGRUN_INNER=$capdir "$root/tools/with-sysprofd.sh" --build-dir "$builddir" --daemon-arg=--idle-timeout=0 \
    "$self" -s "$seconds" -r "$rate" -t "$threads" -i "$interval" -f "$format" -B "$builddir" || status=$?
  exit $status
fi

# --- inner half: under with-sysprofd.sh ------------------------------------------------
capdir=$LONGRUN_INNER
W=$SYSPROFD_TEST_WORKDIR
U=sysprof-test-allowed
cap=$capdir/long.syscap
mkdir -p "$W/u"
chown "$U" "$W/u"
cd "$W/u"
as_user=(runuser -u "$U" -- env -i PATH="/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS")
work=("$builddir/bench/malloc-workload" -t "$threads" -n "$pairs" -r "$per_thread")

daemon_pid=$(gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.GetConnectionUnixProcessID org.gnome.Sysprof3 | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p')
[[ -r /proc/$daemon_pid/status ]] || { echo "run-memory-longrun.sh: cannot find sysprofd's pid" >&2; exit 1; }

rss_mb () { # resident MB of pid $1 ("-" when it is gone)
  awk '/^VmRSS:/ { printf "%.1f", $2 / 1024; found = 1 } END { if (!found) printf "-" }' "/proc/$1/status" 2>/dev/null ||
    printf -- "-"
}

# The program alone, for a few seconds at the same rate: its own resident size.
"${as_user[@]}" "$builddir/bench/malloc-workload" -t "$threads" -n $((per_thread * 3)) -r "$per_thread" >/dev/null &
alone=$!
sleep 2
alone_rss=$(rss_mb "$alone")
wait "$alone"

echo "Recording ${seconds} s of $threads threads at $rate allocations/s ($pairs pairs per thread), format $format"
"${as_user[@]}" SYSPROF_MEMORY_PRELOAD="$builddir/preload/libsysprof-memory.so" \
  "$builddir/clients/cli/sysprof-cli" --memprof --no-perf --no-battery --memprof-format "$format" --max-size 16G -f "$cap" \
  -- "${work[@]}" >"$W/cli.out" 2>&1 &
cli=$!
start=$(date +%s.%N)
samples=$W/samples
: >"$samples"
printf '%8s %10s %8s %10s %10s %10s\n' seconds capture_MB B/event sysprofd_MB cli_MB program_MB
while kill -0 "$cli" 2>/dev/null; do
  sleep "$interval"
  kill -0 "$cli" 2>/dev/null || break
  prog=$(pgrep -n -u "$U" -x malloc-workload || true)
  t=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.0f", n - s }')
  size=$(stat -c %s "$cap" 2>/dev/null || echo 0)
  # Events so far, from the program's pace: 2 a pair.
  events=$(awk -v t="$t" -v r="$rate" -v s="$seconds" 'BEGIN { if (t > s) t = s; printf "%.0f", 2 * r * t }')
  line=$(printf '%8s %10.1f %8.2f %10s %10s %10s' "$t" "$(awk -v b="$size" 'BEGIN { print b / 1e6 }')" \
    "$(awk -v b="$size" -v e="$events" 'BEGIN { print e ? b / e : 0 }')" \
    "$(rss_mb "$daemon_pid")" "$(rss_mb "$cli")" "$([[ -n $prog ]] && rss_mb "$prog" || echo -)")
  echo "$line"
  echo "$line" >>"$samples"
done
status=0
wait "$cli" || status=$?
tail -n 1 "$W/cli.out"
((status == 0)) || { echo "run-memory-longrun.sh: sysprof-cli failed:" >&2; tail -n 20 "$W/cli.out" >&2; exit 1; }
expected=$(sed -n 's/.* allocations=\([0-9]*\) .*/\1/p' "$W/cli.out" | tail -n 1)

report () { # seconds sysprof-report memory "$@" takes; its output in $W/report.out
  local t0 t1
  t0=$(date +%s.%N)
  "$builddir/clients/report/sysprof-report" memory "$@" "$cap" >"$W/report.out" 2>"$W/report.err" ||
    { echo "run-memory-longrun.sh: sysprof-report memory $* failed: $(tail -n 3 "$W/report.err")" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}
t_summary=$(report --summary --format tsv)
recorded=$(awk -F'\t' '$1 == "allocations" { print $2 }' "$W/report.out")
lost=$(awk -F'\t' '$1 == "lost_events" { print $2 }' "$W/report.out")
t_leaks=$(report --leaks --format tsv)
size=$(stat -c %s "$cap")

# Largest resident size per column in the first and the last third of the samples.
thirds=$(awk -v alone="$alone_rss" '
  { rows[NR] = $0 }
  END {
    n = NR; a = int(n / 3); if (a < 1) a = 1
    for (c = 4; c <= 6; c++) { f[c] = 0; l[c] = 0
      for (i = 1; i <= n; i++) { split(rows[i], v, " "); if (v[c] == "-") continue; x = v[c] + 0
        if (i <= a && x > f[c]) f[c] = x
        if (i > n - a && x > l[c]) l[c] = x } }
    printf "sysprofd %.1f -> %.1f MB; sysprof-cli %.1f -> %.1f MB; program %.1f -> %.1f MB (alone %.1f MB: the tracker %.1f -> %.1f MB)\n",
      f[4], l[4], f[5], l[5], f[6], l[6], alone, f[6] - alone, l[6] - alone }' "$samples")
echo
echo "events: the program made $expected allocations (and as many frees); the capture holds $recorded allocations" \
  "(the C library's own included), $lost lost"
echo "capture: $(awk -v b="$size" 'BEGIN { printf "%.1f MB", b / 1e6 }'), $(awk -v b="$size" -v e="$expected" 'BEGIN { printf "%.2f", b / (2 * e) }') bytes per event"
echo "resident, largest in the first third -> last third: $thirds"
echo "sysprof-report memory: --summary ${t_summary} s, --leaks ${t_leaks} s"
# The C library and the loader allocate a few blocks of their own (stdio's
# buffer...), which the program does not count.
if [[ -z $recorded || $recorded -lt $expected ]]; then
  echo "run-memory-longrun.sh: NOT every allocation was recorded" >&2
fi
exit 0
