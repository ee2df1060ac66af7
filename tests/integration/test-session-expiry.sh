#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sessions that are never started do not live forever: with nobody starting
# them, they and the ring memory they pin go away after the start timeout
# (sysprofd --start-timeout, 2 s here; 300 s by default).  Run under
# tools/with-sysprofd.sh --daemon-arg --start-timeout=2:
#   test-session-expiry.sh ATTACK_CLIENT
set -euo pipefail
attack=$(realpath "$1")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin"
install -m 755 "$attack" "$W/bin/"
as () { local user=$1; shift; runuser -u "$user" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
bctl () { as sysprof-test-allowed busctl --system "$@"; }
has_session () { busctl --system introspect org.gnome.Sysprof3 "$1" 2>/dev/null | grep -q '^org.gnome.Sysprof3.Session '; }
create () {
  bctl call org.gnome.Sysprof3 /org/gnome/Sysprof3 org.gnome.Sysprof3.SessionManager CreateSession 'a{sv}' "$@" \
    | awk '{print $2}' | tr -d '"'
}
cleanup () { local rc=$?; jobs -p | xargs -r kill 2>/dev/null || true; exit $rc; }
trap cleanup EXIT

# Detached sessions holding rings, never started: the attack pinned 1 GiB
# of shared memory per session for the daemon's whole life.
paths=()
for _ in 1 2 3; do
  p=$(create 1 detached b true)
  [[ $p == /org/gnome/Sysprof3/Session/* ]] || fail "CreateSession returned '$p'"
  bctl call org.gnome.Sysprof3 "$p" org.gnome.Sysprof3.Session CreateRingBuffer u 1024 > /dev/null
  paths+=("$p")
done
# A started one next to them is not touched.
started=$(create 2 detached b true cpu-sampling b false)
bctl call org.gnome.Sysprof3 "$started" org.gnome.Sysprof3.Session Start
out=$(as sysprof-test-allowed busctl --system call org.gnome.Sysprof3 /org/gnome/Sysprof3 \
  org.gnome.Sysprof3.SessionManager CreateSession 'a{sv}' 1 detached b true 2>&1) && fail "a fifth session: $out"
echo "$out" | grep -q 'limit per user is 4' || fail "a fifth session: $out"
gone=0
for _ in $(seq 60); do
  gone=0
  for p in "${paths[@]}"; do has_session "$p" || gone=$((gone + 1)); done
  [ $gone -eq 3 ] && break
  sleep 0.1
done
[ $gone -eq 3 ] || fail "only $gone of 3 never-started sessions went away within 6 s"
has_session "$started" || fail "the started session went away too"
grep -q "not started within 2 s" "$W/logs/sysprofd.log" || fail "the daemon did not say why it removed them"
# Their budget is back: three new sessions fit again beside the started one.
for _ in 1 2 3; do
  p=$(create 1 detached b true)
  [[ $p == /org/gnome/Sysprof3/Session/* ]] || fail "no session after the expiry: '$p'"
done
bctl call org.gnome.Sysprof3 "$started" org.gnome.Sysprof3.Session Close
ok "3 detached sessions holding 4 MiB rings, never started: removed after the 2 s start timeout, their budget given back; a started session kept"

# A session bound to a connection that stays, never started.
as sysprof-test-allowed sh -c "sleep 30 | '$W/bin/attack-client' ring-exhaust 1 32" > "$W/hold.out" 2>&1 &
for _ in $(seq 50); do grep -q '^refused' "$W/hold.out" && break; sleep 0.1; done
grep -q '^rings 32' "$W/hold.out" || fail "ring-exhaust: $(cat "$W/hold.out")"
sleep 3
fds=$(ls "/proc/$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
  GetConnectionUnixProcessID s org.gnome.Sysprof3 | awk '{print $2}')/fd" | wc -l)
[ "$fds" -lt 30 ] || fail "the never-started session's 32 rings still hold $fds fds"
ok "a never-started session of a connected client: removed with its 32 rings (daemon back to $fds fds)"
echo "1..$n"
