#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Part of tools/demo.sh, run under tools/with-sysprofd.sh: the unprivileged,
# polkit-authorized user sysprof-test-allowed records the whole system with
# sysprof-cli through sysprofd while the demo workload runs for SECONDS; with
# "memory", every allocation of tests/workloads/memory-workload instead.
#   demo-record.sh OUTPUT SECONDS
#   demo-record.sh memory OUTPUT
set -euo pipefail
mode=cpu
if [ "$1" = memory ]; then
  mode=memory
  shift
fi
out=$1 seconds=${2:-0}
user=sysprof-test-allowed
W=$SYSPROFD_TEST_WORKDIR
B=$(cd "$(dirname "$0")/.." && pwd)/build

# The test user cannot reach a checkout under /root: copy what it runs.
mkdir -p "$W/bin" "$W/demo"
install -m 755 "$B/clients/cli/sysprof-cli" "$W/bin/"

if [ "$mode" = memory ]; then
  install -m 755 "$B/tests/workloads/memory-workload" "$W/demo/"
  install -m 644 "$B/preload/libsysprof-memory.so" "$W/bin/"
  chown "$user" "$W/demo"
  echo "\$ sysprof-cli --memprof --no-perf $W/demo/memory.syscap -- $W/demo/memory-workload 2 500000      (as $user)"
  runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$W/demo" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
    SYSPROF_MEMORY_PRELOAD="$W/bin/libsysprof-memory.so" \
    "$W/bin/sysprof-cli" --memprof --no-perf "$W/demo/memory.syscap" -- "$W/demo/memory-workload" 2 500000
  cp "$W/demo/memory.syscap" "$out"
  exit 0
fi
install -m 755 "$B/tests/workloads/hot-functions" "$B/tests/workloads/libhotlib.so" "$W/demo/"
chown "$user" "$W/demo"

echo "\$ sysprof-cli $W/demo/demo.syscap -- $W/demo/hot-functions $seconds      (as $user)"
runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$W/demo" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
  "$W/bin/sysprof-cli" "$W/demo/demo.syscap" -- "$W/demo/hot-functions" "$seconds"
cp "$W/demo/demo.syscap" "$out"
