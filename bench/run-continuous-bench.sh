#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Cost of continuous profiling (issue 19): `sysprof-cli --continuous` at its
# defaults (19 Hz per CPU, DWARF unwinding, a capture a minute, its pprof
# export) through our sysprofd, as the unprivileged test user, for SECONDS,
# on an idle machine or with every CPU busy.  Measured, every INTERVAL
# seconds: the CPU time of sysprofd with its unwinding helper, and of
# sysprof-cli with the sysprof-report exports it runs (their own and their
# reaped children's times, from /proc/PID/stat), and their resident memory.
# Printed: each interval's line, then the CPU used per hour of recording as a
# share of one CPU (the target: under 1 %), and the resident memory of the
# first and the last quarter of the run (the target: flat).  The peer is no
# recording: the same processes' cost without a session is nil (sysprofd
# sleeps in poll; it is measured over the first interval before recording).
#
# Usage (as root): bench/run-continuous-bench.sh [-s SECONDS] [-i INTERVAL] [-l idle|busy] [-P PERIOD] [-B BUILDDIR]
#   -s SECONDS   how long to record (default 3600)
#   -i INTERVAL  seconds between measurements (default 60)
#   -l LOAD      idle (default: nothing started) or busy (bench/cpu-workload on every
#                CPU, at nice 19: the CPUs are as busy, the machine stays usable; not
#                tests/workloads/hot-functions, which tests beside it record by name)
#   -P PERIOD    the --continuous period (default 60)
#   -B BUILDDIR  the build to measure (default build)
set -euo pipefail

self=$(realpath "$0")
root=$(cd "$(dirname "$self")/.." && pwd)
seconds=3600 interval=60 load=idle period=60 builddir=$root/build
die () { echo "run-continuous-bench.sh: $*" >&2; exit 1; }
while getopts s:i:l:P:B: opt; do
  case $opt in
    s) seconds=$OPTARG ;;
    i) interval=$OPTARG ;;
    l) load=$OPTARG ;;
    P) period=$OPTARG ;;
    B) builddir=$(realpath "$OPTARG") ;;
    *) die "unknown option" ;;
  esac
done
case $load in idle | busy) ;; *) die "-l is idle or busy, not $load" ;; esac

# --- outer half: build, then re-run this script under with-sysprofd.sh ------------
if [[ -z ${CONTINUOUS_BENCH_INNER:-} ]]; then
  [[ $(id -u) -eq 0 ]] || die "must run as root (test user, sysprofd)"
  if [[ ! -f $builddir/build.ninja ]]; then
    meson setup "$builddir" "$root" -Dsystem_service=false -Dbenchmarks=true
  fi
  if ! out=$(ninja -C "$builddir" clients/cli/sysprof-cli clients/report/sysprof-report bench/cpu-workload \
    daemon/sysprofd daemon/unwinder/sysprof-unwinder 2>&1); then
    tail -n 30 <<<"$out" >&2
    die "the build failed"
  fi
  CONTINUOUS_BENCH_INNER=1 exec "$root/tools/with-sysprofd.sh" --build-dir "$builddir" \
    "$self" -s "$seconds" -i "$interval" -l "$load" -P "$period" -B "$builddir"
fi

# --- inner half: under with-sysprofd.sh ------------------------------------------
W=$SYSPROFD_TEST_WORKDIR
# sysprof-test-other: test-attacks ends every process of sysprof-test-allowed,
# so a benchmark beside the test suite would be stopped by it.
U=sysprof-test-other
mkdir -p "$W/bin" "$W/u"
install -m 755 "$builddir/clients/cli/sysprof-cli" "$builddir/clients/report/sysprof-report" \
  "$builddir/bench/cpu-workload" "$W/bin/"
chown "$U" "$W/u"
as_user=(runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS"
  LD_LIBRARY_PATH="$W/bin")

daemon_pid=$(gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.GetConnectionUnixProcessID org.gnome.Sysprof3 | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p')
[[ -r /proc/$daemon_pid/stat ]] || die "cannot find sysprofd's pid"
ticks=$(getconf CLK_TCK)
# CPU seconds of PID with its reaped children, plus its live children's own.
cpu_of () {
  local pid=$1 total
  total=$(awk -v t="$ticks" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13 + $14 + $15) / t }' "/proc/$pid/stat" 2> /dev/null || echo 0)
  for c in $(pgrep -P "$pid" || true); do
    total=$(awk -v a="$total" -v t="$ticks" '{ sub(/^.*\) /, ""); printf "%.2f", a + ($12 + $13) / t }' "/proc/$c/stat" 2> /dev/null || echo "$total")
  done
  echo "$total"
}
# Resident kB of PID and its live children.
rss_of () {
  local kb=0
  for p in "$1" $(pgrep -P "$1" || true); do
    kb=$((kb + $(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2> /dev/null || echo 0)))
  done
  echo "$kb"
}

nproc=$(nproc)
echo "# continuous profiling, $load, ${seconds} s, a period every ${period} s, $nproc CPUs, $(date -u +%FT%TZ)"
busy_pids=()
if [[ $load == busy ]]; then
  nice -n 19 "${as_user[@]}" cpu-workload -j "$nproc" -t $((seconds + 2 * interval + 60)) > /dev/null &
  busy_pids+=($!)
fi

# The peer: sysprofd without a session, over one interval.
d0=$(cpu_of "$daemon_pid")
sleep "$interval"
d1=$(cpu_of "$daemon_pid")
idle_daemon=$(awk -v a="$d0" -v b="$d1" -v s="$interval" 'BEGIN { printf "%.3f", 100 * (b - a) / s }')
echo "# no recording: sysprofd ${idle_daemon} % of one CPU"

out=$W/u/periods
"${as_user[@]}" sysprof-cli --continuous "$period" --pprof --keep-age 0 --keep-size 0 --duration "$seconds" \
  --output-dir "$out" > "$W/cli.log" 2>&1 &
sudo_pid=$!
cli_pid=
for _ in $(seq 100); do
  cli_pid=$(pgrep -u "$U" -x sysprof-cli || true)
  [[ -n $cli_pid ]] && break
  sleep 0.1
done
[[ -n $cli_pid ]] || die "sysprof-cli did not start: $(cat "$W/cli.log")"
start=$(date +%s.%N)
d_start=$(cpu_of "$daemon_pid")
printf '%s\t%s\t%s\t%s\t%s\n' elapsed_s daemon_cpu_s client_cpu_s daemon_rss_kb client_rss_kb
samples=$W/samples
: > "$samples"
while kill -0 "$cli_pid" 2> /dev/null; do
  sleep "$interval"
  kill -0 "$cli_pid" 2> /dev/null || break
  now=$(date +%s.%N)
  line=$(printf '%.0f\t%.2f\t%.2f\t%s\t%s' "$(awk -v a="$start" -v b="$now" 'BEGIN { print b - a }')" \
    "$(awk -v a="$d_start" -v b="$(cpu_of "$daemon_pid")" 'BEGIN { print b - a }')" "$(cpu_of "$cli_pid")" \
    "$(rss_of "$daemon_pid")" "$(rss_of "$cli_pid")")
  echo "$line"
  echo "$line" >> "$samples"
done
wait "$sudo_pid" || die "sysprof-cli failed: $(tail -n 5 "$W/cli.log")"
for p in "${busy_pids[@]}"; do kill "$p" 2> /dev/null || true; done
pkill -u "$U" -x cpu-workload 2> /dev/null || true

[[ -s $samples ]] || die "no measurement: the run was shorter than one interval"
periods=$(find "$out" -name 'sysprof-*.syscap' | wc -l)
exports=$(find "$out" -name 'sysprof-*.pb.gz' | wc -l)
bytes=$(du -cb "$out" | tail -n 1 | cut -f1)
awk -F'\t' -v n="$(wc -l < "$samples")" -v periods="$periods" -v exports="$exports" -v bytes="$bytes" '
  { e[NR] = $1; d[NR] = $2; c[NR] = $3; dr[NR] = $4; cr[NR] = $5 }
  END {
    q = int(n / 4); if (q < 1) q = 1
    for (i = 1; i <= q; i++) { fd += dr[i]; fc += cr[i] }
    for (i = n - q + 1; i <= n; i++) { ld += dr[i]; lc += cr[i] }
    printf "# CPU per hour of recording, as a share of one CPU: sysprofd and its helper %.3f %%, sysprof-cli and its exports %.3f %%, together %.3f %%\n",
      100 * d[n] / e[n], 100 * c[n] / e[n], 100 * (d[n] + c[n]) / e[n]
    printf "# resident memory, first and last quarter (means): sysprofd and helper %.0f -> %.0f kB, sysprof-cli %.0f -> %.0f kB\n",
      fd / q, ld / q, fc / q, lc / q
    printf "# %d periods, %d pprof exports, %.1f MB on disk (%.2f MB per hour)\n", periods, exports, bytes / 1e6, bytes / 1e6 * 3600 / e[n]
  }' "$samples"
