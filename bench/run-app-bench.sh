#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# App: opening a large capture.  How long the GTK app (clients/app/) takes to
# open a capture of about a million samples and show its callgraph, against
# our `sysprof-report top` on the same file and against Debian Sysprof 3.46's
# library building the same callgraph (tests/compat/callgraph-346).
#
# Usage (as root): bench/run-app-bench.sh [-n REPS] [-c CAPTURE] [-F HZ] [-j JOBS] [-t SECONDS]
#                                         [-p PEER_REPS] [-T PEER_LIMIT] [-d DIR] [-B BUILDDIR] [-k]
#   -n REPS        timed runs of the app and of sysprof-report (default 5)
#   -c CAPTURE     use this capture instead of recording one
#   -F HZ          sampling frequency of the recording (default 10000)
#   -j JOBS        copies of cpu-workload running in parallel (default 2, one per vCPU here)
#   -t SECONDS     how long the copies run (default 50: 2 vCPUs x 10000 Hz x 50 s is
#                  about 1,000,000 samples, however busy the machine is)
#   -p PEER_REPS   timed runs of the peer (default REPS; 0 skips the peer)
#   -T PEER_LIMIT  seconds a run of the peer may take (default 900); a run cut off
#                  there counts as "more than PEER_LIMIT" and ends the peer's runs
#   -d DIR         where the capture goes (default /var/tmp)
#   -B BUILDDIR    meson build directory (default build-bench/ at the repository root,
#                  configured with -Dbenchmarks=true if it does not exist)
#   -k             keep the recorded capture (the directory is printed)
#
# The recording is run-report-bench.sh's: `sysprof-cli --frequency HZ --no-battery
# -- cpu-workload -j JOBS -t SECONDS`, whole system, as root with no bus at
# DBUS_SYSTEM_BUS_ADDRESS (in-process), with its table of symbol names.
# Then, after one untimed run of each, REPS times in rotating order:
#   app     tools/with-xvfb.sh test-app time CAPTURE: a real window opens the
#           capture; test-app prints loaded_ms (the views are added) and
#           callgraph_ms (the callgraph view shows its table), both from the
#           window's creation, so without process start-up and Xvfb's
#   report  sysprof-report top CAPTURE > /dev/null (whole process, wall)
#   peer    callgraph-346 CAPTURE: libsysprof-4 3.46 opens the capture and
#           generates its callgraph profile, the program prints every
#           function's self samples (whole process, wall)
# and prints medians, app/report and app/peer, and the target: the callgraph
# shown within 2 s.  Sysprof 3.46's GUI is not timed: it has no way to say when
# its callgraph is on screen (see bench/README.md).

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/bench/$(basename "${BASH_SOURCE[0]}")
reps=5
capture=
freq=10000
jobs=2
seconds=50
peer_reps=
peer_limit=900
dir=/var/tmp
builddir=$root/build-bench
keep=0

while getopts 'n:c:F:j:t:p:T:d:B:kh' opt; do
  case $opt in
    n) reps=$OPTARG ;;
    c) capture=$OPTARG ;;
    F) freq=$OPTARG ;;
    j) jobs=$OPTARG ;;
    t) seconds=$OPTARG ;;
    p) peer_reps=$OPTARG ;;
    T) peer_limit=$OPTARG ;;
    d) dir=$OPTARG ;;
    B) builddir=$OPTARG ;;
    k) keep=1 ;;
    h) sed -n '4,39s/^# \{0,1\}//p' "$self"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
die () { echo "run-app-bench.sh: $*" >&2; exit 2; }
[[ $# -eq 0 ]] || die "no arguments expected besides options"
peer_reps=${peer_reps:-$reps}
for v in "$reps" "$freq" "$jobs" "$seconds" "$peer_reps" "$peer_limit"; do
  [[ $v =~ ^[0-9]+$ ]] || die "options take numbers"
done
((reps >= 1 && freq >= 1 && jobs >= 1 && seconds >= 1 && peer_limit >= 1)) ||
  die "-n, -F, -j, -t and -T need at least 1"
[[ -z $capture || -f $capture ]] || die "no capture $capture"
[[ -z $capture ]] || capture=$(cd "$(dirname "$capture")" && pwd)/$(basename "$capture")
[[ -d $dir ]] || die "no directory $dir"
case $builddir in /*) ;; *) builddir=$PWD/$builddir ;; esac
[[ $(id -u) -eq 0 ]] || die "must run as root (in-process recording, packages)"

# --- packages and build ------------------------------------------------------------
# shellcheck source=tools/deps.sh
. "$root/tools/deps.sh"
# GNU time; Xvfb and friends for the app; libsysprof-4-dev for the peer.
sysprof_install_packages time "${SYSPROF_APP_TEST_PACKAGES[@]}" libsysprof-4-dev libgtk-4-dev libadwaita-1-dev ||
  die "could not install the benchmark's packages"
if [[ ! -f $builddir/build.ninja ]]; then
  meson setup "$builddir" "$root" -Dsystem_service=false -Dcompat=enabled -Dbenchmarks=true
fi
ninja -C "$builddir" build.ninja >/dev/null
targets=(bench/cpu-workload clients/cli/sysprof-cli clients/report/sysprof-report clients/tools/sysprof-dump
  clients/app/tests/test-app)
((peer_reps == 0)) || targets+=(tests/compat/callgraph-346)
if ! out=$(ninja -C "$builddir" "${targets[@]}" 2>&1); then
  tail -n 30 <<<"$out" >&2
  echo "run-app-bench.sh: the build failed (the app needs -Dapp, the peer -Dcompat and libsysprof-4-dev)" >&2
  exit 1
fi
cli=$builddir/clients/cli/sysprof-cli
report=$builddir/clients/report/sysprof-report
dump=$builddir/clients/tools/sysprof-dump
test_app=$builddir/clients/app/tests/test-app
peer=$builddir/tests/compat/callgraph-346
xvfb=$root/tools/with-xvfb.sh

work=$(mktemp -d "$dir/app-bench.XXXXXX")
if ((keep)) && [[ -z $capture ]]; then
  trap 'rm -f "$work"/log "$work"/time "$work"/out "$work"/results; echo "capture kept in $work"' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi
results=$work/results
log=$work/log
timefile=$work/time

# --- record ------------------------------------------------------------------------
if [[ -z $capture ]]; then
  capture=$work/ours.syscap
  echo "Recording cpu-workload -j $jobs -t $seconds at $freq Hz, whole system, into $capture:"
  t0=$(date +%s.%N)
  # No bus at that address: as root, sysprof-cli records in-process.
  if ! DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent "$cli" --frequency "$freq" --no-battery -f "$capture" \
    -- "$builddir/bench/cpu-workload" -j "$jobs" -t "$seconds" </dev/null >"$log" 2>&1; then
    echo "run-app-bench.sh: recording failed:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  printf '  %.1f s   %s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(grep '^cpu-workload: ' "$log")"
fi
samples=$("$dump" --stats "$capture" | awk '$1 == "SAMPLE" { print $2 }')
stacks=$("$report" collapsed "$capture" 2>/dev/null | wc -l || true)
printf 'Capture %s: %s samples, %s distinct stacks (sysprof-report collapsed), %.1f MB\n' "$capture" "$samples" "$stacks" \
  "$(awk -v s="$(stat -c %s "$capture")" 'BEGIN { print s / 1e6 }')"

# --- one run of a side ---------------------------------------------------------------
# run_side SIDE: runs it once; sets wall (s), cpu (s), rss (KB) and, for the
# app, loaded and cg (ms); n is the samples the side counted.  Returns 1 when
# the peer hit its limit.
run_side () {
  local side=$1 user sys rc=0
  loaded=- cg=- n=-
  case $side in
    app) /usr/bin/time -o "$timefile" -f '%e %U %S %M' "$xvfb" "$test_app" time "$capture" >"$work/out" 2>"$log" || rc=$? ;;
    report) /usr/bin/time -o "$timefile" -f '%e %U %S %M' "$report" top "$capture" >/dev/null 2>"$log" || rc=$? ;;
    peer) /usr/bin/time -o "$timefile" -f '%e %U %S %M' timeout "$peer_limit" "$peer" "$capture" >"$work/out" 2>"$log" ||
      rc=$? ;;
  esac
  if [[ $side == peer && $rc -eq 124 ]]; then
    wall=$peer_limit cpu=- rss=-
    return 1
  fi
  if ((rc != 0)); then
    echo "run-app-bench.sh: $side failed (status $rc):" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  read -r wall user sys rss < <(tail -n 1 "$timefile")
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
  case $side in
    app)
      loaded=$(awk '$1 == "loaded_ms" { print $2 }' "$work/out")
      cg=$(awk '$1 == "callgraph_ms" { print $2 }' "$work/out")
      n=$(awk '$1 == "samples" { print $2 }' "$work/out") ;;
    report) n=$samples ;;
    # The self samples of every function of 3.46's tree.
    peer) n=$(awk -F '\t' '{ s += $NF } END { print s + 0 }' "$work/out") ;;
  esac
  return 0
}

timed () { # rep side
  local rep=$1 side=$2
  if [[ $side == peer ]] && ((peer_done)); then
    return
  fi
  if ! run_side "$side"; then
    echo "rep=$rep side=$side wall=$wall cpu=- rss=- loaded=- cg=- n=- cut=1" >>"$results"
    printf '  rep %2d  %-6s  more than %d s: cut off, no further runs of the peer\n' "$rep" "$side" "$peer_limit"
    peer_done=1
    return
  fi
  [[ $side != peer ]] || ((++peer_runs < peer_reps)) || peer_done=1
  echo "rep=$rep side=$side wall=$wall cpu=$cpu rss=$rss loaded=$loaded cg=$cg n=$n cut=0" >>"$results"
  if [[ $side == app ]]; then
    printf '  rep %2d  %-6s  callgraph %8.1f ms  loaded %8.1f ms  command %6.2f s  cpu %6.2f s  %5.0f MB  samples %s\n' \
      "$rep" "$side" "$cg" "$loaded" "$wall" "$cpu" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$n"
  else
    printf '  rep %2d  %-6s  %8.2f s wall  cpu %6.2f s  %5.0f MB  samples %s\n' "$rep" "$side" "$wall" "$cpu" \
      "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$n"
  fi
}

sides=(app report)
peer_done=1
peer_runs=0
if ((peer_reps > 0)); then
  sides+=(peer)
  peer_done=0
fi
: >"$results"
echo "Warm-up (one run each, not counted):"
for side in "${sides[@]}"; do
  if run_side "$side"; then
    printf '  %-6s %8.2f s\n' "$side" "$wall"
  else
    # Its one run took all the time allowed: that is the result.
    echo "rep=0 side=peer wall=$wall cpu=- rss=- loaded=- cg=- n=- cut=1" >>"$results"
    printf '  peer   more than %d s: cut off, no timed runs of the peer\n' "$peer_limit"
    peer_done=1
  fi
done
for ((rep = 1; rep <= reps; rep++)); do
  for ((i = 0; i < ${#sides[@]}; i++)); do
    timed "$rep" "${sides[$(((i + rep - 1) % ${#sides[@]}))]}"
  done
done

# --- summary -----------------------------------------------------------------------
awk -v samples="$samples" -v limit="$peer_limit" '
function median(list,    a, n, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function verdict(ok) { return ok ? "MET" : "NOT MET" }
{
  delete v
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  s = v["side"]
  if (v["cut"]) { cut[s] = 1; next }
  w[s] = w[s] " " v["wall"]; c[s] = c[s] " " v["cpu"]; m[s] = m[s] " " v["rss"]; n[s]++; count[s] = v["n"]
  if (s == "app") { lo = lo " " v["loaded"]; cg = cg " " v["cg"] }
}
END {
  printf "\nMedians (the capture: %d samples).\n\n", samples
  printf "%-40s %5s %11s %9s %9s %9s\n", "", "runs", "time", "cpu", "max RSS", "samples"
  if (n["app"]) {
    app = median(cg) / 1000
    printf "%-40s %5d %9.0f ms\n", "app: callgraph shown (callgraph_ms)", n["app"], median(cg)
    printf "%-40s %5d %9.0f ms\n", "app: views added (loaded_ms)", n["app"], median(lo)
    printf "%-40s %5d %9.2f s %7.2f s %6.0f MB %9s\n", "app: whole command (Xvfb, GTK start-up)", n["app"],
      median(w["app"]), median(c["app"]), median(m["app"]) / 1024, count["app"]
  }
  if (n["report"]) {
    rep = median(w["report"])
    printf "%-40s %5d %9.2f s %7.2f s %6.0f MB %9s\n", "report: sysprof-report top", n["report"], rep,
      median(c["report"]), median(m["report"]) / 1024, count["report"]
  }
  if (n["peer"]) {
    peer = median(w["peer"])
    printf "%-40s %5d %9.2f s %7.2f s %6.0f MB %9s\n", "peer: libsysprof-4 3.46 callgraph", n["peer"], peer,
      median(c["peer"]), median(m["peer"]) / 1024, count["peer"]
  } else if (cut["peer"])
    printf "%-40s %5s %9s\n", "peer: libsysprof-4 3.46 callgraph", "-", sprintf("> %d s", limit)
  printf "\nRatios (the app'"'"'s callgraph_ms against whole processes):\n"
  if (n["report"]) printf "  app / report  %6.2fx\n", app / rep
  if (n["peer"]) printf "  app / peer    %6.3fx   (peer / app %.1fx)\n", app / peer, peer / app
  else if (cut["peer"]) printf "  app / peer    < %.4fx  (the peer took more than %d s)\n", app / limit, limit
  printf "\nTarget: the callgraph of a million-sample capture shown within 2 s: %.2f s  %s\n", app, verdict(app <= 2)
}' "$results"
