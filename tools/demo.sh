#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The main job, on a fresh Debian 12 machine, as root from the checkout:
# install what is missing, build, and show what the project does today.
# Until the recording client and the symbolizer land (issue 4) that is: read
# captures recorded by Debian's Sysprof 3.46 (tests/data) with our own reader,
# then record the whole system through our sysprofd as an unprivileged user,
# on a private system bus with the real polkitd (tools/with-sysprofd.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh

sysprof_install_packages "${SYSPROF_BUILD_PACKAGES[@]}" dbus polkitd

if [ ! -f build/build.ninja ]; then
  meson setup build >/dev/null
fi
ninja -C build >/dev/null

capture=tests/data/sysprof-3.46-perf.syscap
echo "== Summary of $capture (recorded by Sysprof 3.46, read by our libsysprof-capture)"
build/clients/sysprof-dump --stats "$capture"
echo
echo "== The first frames (build/clients/sysprof-dump $capture shows all of them)"
{ build/clients/sysprof-dump "$capture" || true; } | head -n 60
echo
echo "== Merging the three bundled captures with sysprof-cat and summarizing the result"
merged=$(mktemp --suffix=.syscap)
trap 'rm -f "$merged"' EXIT
build/clients/sysprof-cat tests/data/sysprof-3.46-*.syscap > "$merged"
build/clients/sysprof-dump --stats "$merged" | grep -v '^FILE '

echo
echo "== Recording through sysprofd as an unprivileged user (polkit-authorized), with busctl alone"
recorded=$(mktemp --suffix=.syscap)
trap 'rm -f "$merged" "$recorded"' EXIT
tools/with-sysprofd.sh bash tools/demo-record.sh "$recorded" 3
build/clients/sysprof-dump --stats "$recorded" | grep -v '^FILE /proc/[0-9]'
