#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Session.CreateRingBuffer: frames written by an unprivileged producer into a
# ring land in the capture; a hostile ring costs lost frames, never the daemon.
# Run under tools/with-sysprofd.sh:
#   test-ring-buffer.sh RING_CLIENT SYSPROF_DUMP
set -euo pipefail
client=$(realpath "$1") dump=$(realpath "$2")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/ring"
install -m 755 "$client" "$dump" "$W/bin/"
chown sysprof-test-allowed "$W/ring"
as () { local user=$1; shift; runuser -u "$user" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
daemon_pid () {
  busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
    GetConnectionUnixProcessID s org.gnome.Sysprof3 | awk '{print $2}'
}
pid=$(daemon_pid)

# (a) 1000 marks through one ring, crossing its end several times.
out=$(as sysprof-test-allowed "$W/bin/ring-client" roundtrip "$W/ring/round.syscap" 1000) || fail "ring-client: $out"
echo "$out" | grep -qx 'state stopped' || fail "roundtrip: $out"
echo "$out" | grep -qx 'lost 0' || fail "roundtrip lost frames: $out"
"$dump" "$W/ring/round.syscap" > "$W/round.txt" || fail "the capture is not valid"
got=$(grep -c '^  message: ring message [0-9]*$' "$W/round.txt" || true)
[ "$got" -eq 1000 ] || fail "expected 1000 ring marks in the capture, found $got"
for i in 0 1 499 998 999; do
  grep -qx "  message: ring message $i" "$W/round.txt" || fail "mark $i missing"
done
[ "$(grep -c '^  message: ring message' "$W/round.txt")" -eq \
  "$(grep '^  message: ring message' "$W/round.txt" | sort -u | wc -l)" ] || fail "duplicated marks"
ok "round trip: 1000 MARK frames written into the ring are in the capture, once each"

# (b) hostile rings.
out=$(as sysprof-test-allowed "$W/bin/ring-client" hostile "$W/ring/hostile.syscap") || fail "ring-client hostile: $out"
[ "$(daemon_pid)" = "$pid" ] || fail "sysprofd was restarted"
busctl --system introspect org.gnome.Sysprof3 /org/gnome/Sysprof3 > /dev/null || fail "sysprofd no longer answers"
echo "$out" | grep -qx 'state stopped' || fail "hostile: $out"
lost=$(echo "$out" | awk '$1 == "lost" {print $2}')
[ "${lost:-0}" -gt 0 ] || fail "hostile rings cost no lost frames: $out"
echo "$out" | grep -q '^refused n_pages 3: .*power of two' || fail "n_pages 3: $out"
echo "$out" | grep -q '^refused n_pages 2048: .*LimitsExceeded.*1024' || fail "n_pages 2048: $out"
# The 257th open ring is refused; the drainer may already have closed a
# hostile ring it gave up on, which makes room for one more.
refused=$(echo "$out" | sed -n 's/^refused ring \([0-9]*\): .*LimitsExceeded.*at most 256.*/\1/p')
[ -n "$refused" ] && [ "$refused" -ge 257 ] && [ "$refused" -le 270 ] || fail "ring limit: $out"
"$dump" "$W/ring/hostile.syscap" > "$W/hostile.txt" || fail "the hostile session's capture is not valid"
got=$(grep -c '^  message: survivor [0-9]*$' "$W/hostile.txt" || true)
[ "$got" -eq 100 ] || fail "expected 100 marks of the sound ring, found $got"
ok "hostile rings: sysprofd survives, LostFrames $lost, the sound ring's 100 marks kept, valid capture"
ok "limits: $(echo "$out" | grep '^refused' | tr '\n' ' ')"

echo "1..$n"
