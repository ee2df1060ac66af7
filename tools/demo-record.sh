#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Part of tools/demo.sh, run under tools/with-sysprofd.sh: the unprivileged,
# polkit-authorized user sysprof-test-allowed records the whole system with
# sysprof-cli through sysprofd while the demo workload runs for SECONDS.
#   demo-record.sh OUTPUT SECONDS
set -euo pipefail
out=$1 seconds=$2
user=sysprof-test-allowed
W=$SYSPROFD_TEST_WORKDIR
B=$(cd "$(dirname "$0")/.." && pwd)/build

# The test user cannot reach a checkout under /root: copy what it runs.
mkdir -p "$W/bin" "$W/demo"
install -m 755 "$B/clients/sysprof-cli" "$W/bin/"
install -m 755 "$B/tests/workloads/hot-functions" "$B/tests/workloads/libhotlib.so" "$W/demo/"
chown "$user" "$W/demo"

echo "\$ sysprof-cli $W/demo/demo.syscap -- $W/demo/hot-functions $seconds      (as $user)"
runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$W/demo" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
  "$W/bin/sysprof-cli" "$W/demo/demo.syscap" -- "$W/demo/hot-functions" "$seconds"
cp "$W/demo/demo.syscap" "$out"
