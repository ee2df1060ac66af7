#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The unmodified Sysprof 3.46 client from Debian records a profile through our
# daemon as an unprivileged, polkit-authorized user.  Run under tools/with-sysprofd.sh:
#   test-sysprof-cli-346.sh SYSPROF_DUMP
set -euo pipefail
dump=$(realpath "$1")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
fail () { echo "not ok - $*" >&2; exit 1; }
[ -x /usr/bin/sysprof-cli ] || fail "Debian's sysprof package is not installed"

before=$(cat /proc/sys/kernel/perf_event_paranoid)
for user in sysprof-test-allowed sysprof-test-denied; do
  mkdir -p "$W/$user"
  chown "$user" "$W/$user"
  set +e
  (cd "$W/$user" && runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$W/$user" DBUS_SYSTEM_BUS_ADDRESS="$A" \
     timeout 60 /usr/bin/sysprof-cli --no-battery -f \
     -c "sh -c 'i=0; while [ \$i -lt 300000 ]; do i=\$((i+1)); done'" "$W/$user/capture.syscap") \
     > "$W/$user/cli.log" 2>&1
  echo "status $?" >> "$W/$user/cli.log"
  set -e
done

"$dump" --stats "$W/sysprof-test-allowed/capture.syscap" > "$W/stats" \
  || fail "the allowed user's capture does not read cleanly: $(cat "$W/sysprof-test-allowed/cli.log")"
grep -qE '^SAMPLE [1-9]' "$W/stats" || fail "no samples recorded: $(cat "$W/stats" "$W/sysprof-test-allowed/cli.log")"
grep -qE '^PROCESS [1-9]' "$W/stats" || fail "no processes recorded"
grep -qE '^MAP [1-9]' "$W/stats" || fail "no maps recorded"
grep -q '^status 0$' "$W/sysprof-test-allowed/cli.log" || fail "sysprof-cli failed: $(cat "$W/sysprof-test-allowed/cli.log")"
# Everything it asked of /proc and /sys is on the daemon's allowlist.
uid=$(id -u sysprof-test-allowed)
if grep -E "GetProc(File|Fd) of uid $uid refused" "$W/logs/sysprofd.log"; then
  fail "sysprofd refused a file Sysprof 3.46 asked for"
fi
echo "ok 1 - sysprof-cli 3.46 recorded as sysprof-test-allowed: $(grep -E '^(SAMPLE|PROCESS|MAP) ' "$W/stats" | tr '\n' ' '), nothing it asked refused"

# The denied user gets no samples: polkit refuses every call.
if [ -f "$W/sysprof-test-denied/capture.syscap" ] && "$dump" --stats "$W/sysprof-test-denied/capture.syscap" 2>/dev/null | grep -qE '^SAMPLE [1-9]'; then
  fail "the denied user recorded samples"
fi
echo "ok 2 - sysprof-cli 3.46 as sysprof-test-denied records no samples"

[ "$(cat /proc/sys/kernel/perf_event_paranoid)" = "$before" ] || fail "perf_event_paranoid left changed"
echo "ok 3 - perf_event_paranoid back to $before"
echo "1..3"
