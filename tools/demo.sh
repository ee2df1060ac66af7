#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The main job, on a fresh Debian 12 machine, as root from the checkout:
# install what is missing, build, start the stack (a private system bus, the
# real polkitd and our sysprofd: tools/with-sysprofd.sh), record the whole
# system for a few seconds as an unprivileged, polkit-authorized user while a
# demo workload with known hot functions runs (tests/workloads/hot-functions:
# 40 % hot_compute_a, 30 % hot_compute_b in libhotlib.so, 20 % hot_compute_c,
# 10 % hot_syscalls in the kernel), then show where the time went.
#
#   tools/demo.sh [SECONDS]       (default 5)
#
# Then the same user traces every allocation of tests/workloads/memory-workload
# (sysprof-cli --memprof) and sysprof-report memory shows the heap.
#
# Leaves build/demo/demo.syscap, build/demo/flamegraph.svg and
# build/demo/memory.syscap behind.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
seconds=${1:-5}

sysprof_install_packages "${SYSPROF_BUILD_PACKAGES[@]}" dbus polkitd

if [ ! -f build/build.ninja ]; then
  meson setup build -Dsystem_service=false >/dev/null
fi
echo "== Building (ninja -C build)"
ninja -C build >/dev/null

out=$PWD/build/demo
mkdir -p "$out"
rm -f "$out/demo.syscap" "$out/flamegraph.svg"

echo
echo "== Recording the whole system for $seconds s through sysprofd, as the unprivileged user sysprof-test-allowed"
tools/with-sysprofd.sh bash tools/demo-record.sh "$out/demo.syscap" "$seconds"

echo
echo "== What the capture holds (build/clients/tools/sysprof-dump --stats)"
build/clients/tools/sysprof-dump --stats "$out/demo.syscap" | grep -v '^FILE /proc/[0-9]'

echo
echo "== Where the workload spent its time: sysprof-report top --comm hot-functions"
build/clients/report/sysprof-report top --comm hot-functions --limit 12 "$out/demo.syscap"

echo
echo "== Where the whole system spent its time: sysprof-report top"
build/clients/report/sysprof-report top --limit 12 "$out/demo.syscap"

echo
echo "== Flamegraph"
build/clients/report/sysprof-report flamegraph -o "$out/flamegraph.svg" "$out/demo.syscap" >/dev/null
echo "Wrote $out/flamegraph.svg (open it in a web browser; hover a frame for its samples)"

echo
echo "== Memory: every allocation of tests/workloads/memory-workload (2 threads x 500000, 7 leaks), through sysprofd"
rm -f "$out/memory.syscap"
tools/with-sysprofd.sh bash tools/demo-record.sh memory "$out/memory.syscap"
echo
echo "== sysprof-report memory (the summary)"
build/clients/report/sysprof-report memory "$out/memory.syscap" | sed -n '1,16p'
echo
echo "== sysprof-report memory --leaks"
build/clients/report/sysprof-report memory --leaks --limit 5 "$out/memory.syscap"
echo
echo "== sysprof-report top --memory (allocations by function)"
build/clients/report/sysprof-report top --memory --limit 6 "$out/memory.syscap"
