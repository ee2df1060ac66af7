#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Part of tools/demo.sh, run under tools/with-sysprofd.sh: an unprivileged,
# polkit-authorized user records the whole system for SECONDS through sysprofd
# using nothing but busctl, and fetches the capture with ReadCapture.
#   demo-record.sh OUTPUT SECONDS
set -euo pipefail
out=$1 seconds=$2
user=sysprof-test-allowed
W=$SYSPROFD_TEST_WORKDIR
b () { runuser -u "$user" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" busctl --system "$@"; }

echo "\$ busctl call org.gnome.Sysprof3 /org/gnome/Sysprof3 org.gnome.Sysprof3.SessionManager CreateSession 'a{sv}' 1 detached b true"
S=$(b call org.gnome.Sysprof3 /org/gnome/Sysprof3 org.gnome.Sysprof3.SessionManager CreateSession 'a{sv}' 1 detached b true \
  | awk '{print $2}' | tr -d '"')
echo "  (as $user) -> $S"
b call org.gnome.Sysprof3 "$S" org.gnome.Sysprof3.Session Start
echo "  recording for $seconds s while a shell loop keeps a CPU busy ..."
(end=$((SECONDS + seconds)); while [ $SECONDS -lt "$end" ]; do :; done) &
sleep "$seconds"
wait
b call org.gnome.Sysprof3 "$S" org.gnome.Sysprof3.Session Stop
b get-property org.gnome.Sysprof3 "$S" org.gnome.Sysprof3.Session State BytesWritten FramesWritten LostFrames \
  | paste -sd ' ' | sed 's/^/  State, BytesWritten, FramesWritten, LostFrames: /'
off=0
: > "$W/demo.syscap"
while :; do
  n=$(b --json=short call org.gnome.Sysprof3 "$S" org.gnome.Sysprof3.Session ReadCapture tu "$off" 1048576 \
    | python3 -c 'import json,sys; d=bytes(json.load(sys.stdin)["data"][0]); open(sys.argv[1],"ab").write(d); print(len(d))' \
      "$W/demo.syscap")
  [ "$n" -gt 0 ] || break
  off=$((off + n))
done
b call org.gnome.Sysprof3 "$S" org.gnome.Sysprof3.Session Close
cp "$W/demo.syscap" "$out"
echo "  fetched $off bytes with ReadCapture into $out"
