#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-cli --profiler-peer (issue 17): a program exporting
# org.gnome.Sysprof3.Profiler on the user's session bus (profiler-peer, as
# gnome-shell does) writes a capture of its own into the descriptor Start
# hands it; it is merged.  A peer that never answers, refuses, or writes
# garbage: the recording completes, valid, with a clear warning.  Run under
# tools/with-sysprofd.sh, as an unprivileged user with a session bus of its
# own:
#   test-profiler-peer.sh SYSPROF_CLI SYSPROF_DUMP PROFILER_PEER
set -euo pipefail
cli=$(realpath "$1") dump=$(realpath "$2") peer=$(realpath "$3")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u"
install -m 755 "$cli" "$dump" "$peer" "$W/bin/"
chown "$U" "$W/u"
# The user's session bus: a dbus-daemon of its own on a socket in its home.
bus="unix:path=$W/u/bus"
runuser -u "$U" -- dbus-daemon --session --address="$bus" --fork --print-pid > "$W/bus.pid" ||
  fail "the session bus did not start"
trap 'kill "$(cat "$W/bus.pid")" 2>/dev/null || true' EXIT
# Runs, as the user on that bus: the peer in MODE, then sysprof-cli
# --profiler-peer for 2 s into CAPTURE.  Output in $W/out.
with_peer () { # MODE CAPTURE [MARKS]
  rc=0
  runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" \
    DBUS_SESSION_BUS_ADDRESS="$bus" timeout 120 bash -c '
      cd "$HOME"
      profiler-peer org.example.TestPeer "$1" "${3:-10}" > peer.out &
      peer=$!
      for _ in $(seq 100); do grep -q ready peer.out && break; sleep 0.05; done
      grep -q ready peer.out || { echo "the peer did not start"; kill $peer; exit 9; }
      start=$(date +%s%N)
      sysprof-cli --no-decode --duration 2 --no-perf -f "$2" --profiler-peer org.example.TestPeer 2>&1
      s=$?
      echo "took $((($(date +%s%N) - start) / 1000000)) ms"
      kill $peer; wait $peer || true
      exit $s' _ "$@" > "$W/out" 2>&1 || rc=$?
}
out () { tr '\n' '|' < "$W/out"; }
marks () { "$dump" "$1" | grep -c '^  group: peer-test$' || true; }

echo "1..4"

with_peer good good.syscap 25
[ $rc -eq 0 ] || fail "sysprof-cli with a peer failed ($rc): $(out)"
if grep -qi 'warning' "$W/out"; then fail "warnings with a good peer: $(out)"; fi
"$dump" --stats "$W/u/good.syscap" > /dev/null || fail "the capture with the peer's is not valid"
[ "$(marks "$W/u/good.syscap")" -eq 50 ] || fail "not the peer's 50 marks: $(marks "$W/u/good.syscap")"
ok "a peer's capture (25 marks at Start, 25 at Stop) merged"

with_peer silent silent.syscap
[ $rc -eq 0 ] || fail "sysprof-cli failed with a silent peer ($rc): $(out)"
grep -q 'profiler peer org.example.TestPeer: Start failed' "$W/out" || fail "no warning for a silent peer: $(out)"
took=$(sed -n 's/^took \([0-9]*\) ms$/\1/p' "$W/out")
[ "$took" -lt 15000 ] || fail "a silent peer held the recording for $took ms"
"$dump" --stats "$W/u/silent.syscap" > /dev/null || fail "the capture with a silent peer is not valid"
ok "a peer that never answers: a warning, the recording completes ($took ms), the capture valid"

with_peer refuse refuse.syscap
[ $rc -eq 0 ] || fail "sysprof-cli failed with a refusing peer ($rc): $(out)"
grep -q 'Start failed.*already running' "$W/out" || fail "no warning for a refusing peer: $(out)"
ok "a peer that refuses Start: its reason in a warning"

with_peer garbage garbage.syscap
[ $rc -eq 0 ] || fail "sysprof-cli failed with a peer writing garbage ($rc): $(out)"
grep -q 'profiler peer org.example.TestPeer: the capture it wrote is not a capture' "$W/out" ||
  fail "no warning for garbage: $(out)"
"$dump" --stats "$W/u/garbage.syscap" > /dev/null || fail "the capture with a garbage peer is not valid"
ok "a peer writing garbage: a warning, the capture valid"
