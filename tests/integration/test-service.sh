#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# org.gnome.Sysprof3.Service against the real polkitd, a private system bus and
# real unprivileged users.  Run under tools/with-sysprofd.sh:
#   test-service.sh PERF_CLIENT SYSPROF_DUMP INTERFACE_XML
set -euo pipefail
perf_client=$(realpath "$1") dump=$(realpath "$2") xml=$3
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

# Test users must reach the binaries: copy them into the harness's 755 dir.
mkdir -p "$W/bin" "$W/home-allowed"
install -m 755 "$perf_client" "$dump" "$W/bin/"
chown sysprof-test-allowed "$W/home-allowed"

as () { local user=$1; shift; runuser -u "$user" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
call () { local user=$1 method=$2; shift 2
  as "$user" gdbus call --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 -m "org.gnome.Sysprof3.Service.$method" -- "$@"; }

# Every method of the interface, from its introspection, with arguments of the right types.
mapfile -t methods < <(gdbus introspect --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 \
  | sed -n '/interface org.gnome.Sysprof3.Service/,/};/p' | sed -n 's/^ *\([A-Z][A-Za-z]*\)(.*/\1/p')
[ ${#methods[@]} -eq 7 ] || fail "expected 7 Service methods, introspection shows: ${methods[*]}"
grep -c '<method' "$xml" | grep -qx 7 || fail "interface XML and daemon disagree"
args_for () {
  case $1 in
    PerfEventOpen) echo "{} -1 0 5 0" ;;      # the handle names fd 5, passed below
    GetProcFile|GetProcFd) echo "b'/proc/mounts'" ;;
    ListProcesses) echo "" ;;
    GetProcessInfo) echo "'pid,cmdline'" ;;
    SetGovernor) echo "'performance'" ;;
    SetParanoid) echo "2" ;;
  esac
}
for m in "${methods[@]}"; do
  # shellcheck disable=SC2046
  if out=$(call sysprof-test-denied "$m" $(args_for "$m") 5</dev/null 2>&1); then
    fail "denied user called $m: $out"
  fi
  echo "$out" | grep -q 'org.freedesktop.DBus.Error.AccessDenied: Not authorized to make request: polkit denied' \
    || fail "$m for the denied user: unexpected answer: $out"
done
ok "denied user: all ${#methods[@]} methods refused by polkit with AccessDenied"

# Allowed user: processes.
sleep 30 & sleeper=$!
out=$(call sysprof-test-allowed ListProcesses)
echo "$out" | grep -qE "[[ ]$sleeper[],]" || fail "ListProcesses lacks pid $sleeper"
out=$(call sysprof-test-allowed GetProcessInfo 'pid,cmdline,comm,maps,statm,mountinfo,cgroup')
echo "$out" | grep -q "'pid': <$sleeper>, 'cmdline': <'sleep 30'>, 'comm': <'sleep'>" \
  || fail "GetProcessInfo lacks the sleeper: $(echo "$out" | head -c 300)"
kill $sleeper
ok "ListProcesses and GetProcessInfo"

# /proc and /sys files, and every way out of them.
call sysprof-test-allowed GetProcFile "b'/proc/mounts'" | grep -q '0x70, 0x72, 0x6f, 0x63' || fail "/proc/mounts unreadable"
call sysprof-test-allowed GetProcFd "b'/sys/devices/system/cpu/online'" | grep -q '^(handle' || fail "GetProcFd failed"
mkdir -p "$W/home-allowed/d"
chown sysprof-test-allowed "$W/home-allowed/d"
escapes=(/proc/self/root/etc/shadow /proc/thread-self/root/etc/shadow /proc/1/root/etc/shadow
         /proc/../etc/shadow /sys/../etc/shadow /proc/self/cwd/../../etc/shadow /etc/shadow)
for p in "${escapes[@]}"; do
  for form in nul bytes; do
    if [ $form = nul ]; then arg="b'$p'"; else arg="[$(printf '%s' "$p" | od -An -tu1 -v | xargs | sed 's/ /, /g' | sed 's/\([0-9]\+\)/byte \1/g')]"; fi
    for m in GetProcFile GetProcFd; do
      if out=$(call sysprof-test-allowed $m "$arg" 2>&1); then fail "$m $p ($form) answered: $(echo "$out" | head -c 200)"; fi
      echo "$out" | grep -q 'org.freedesktop.DBus.Error.AccessDenied' || fail "$m $p ($form): $out"
    done
  done
done
# A symlink the caller plants in its own directory, reached through /proc/PID/cwd.
out=$(cd "$W/home-allowed/d" && runuser -u sysprof-test-allowed -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" \
  sh -c 'ln -sf /etc/shadow link && exec gdbus call --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 \
           -m org.gnome.Sysprof3.Service.GetProcFile "b'"'"'/proc/$$/cwd/link'"'"'"' 2>&1) && fail "planted symlink: $out"
echo "$out" | grep -q 'AccessDenied' || fail "planted symlink: $out"
ok "path escapes refused: ${#escapes[@]} paths x 2 encodings x 2 methods, and a planted symlink"

# A perf event opened by the daemon, mapped and read by the unprivileged user.
out=$(as sysprof-test-allowed "$W/bin/perf-client" 0) || fail "perf-client: $out"
echo "$out" | grep -qE '^samples [1-9]' || fail "perf-client: $out"
if as sysprof-test-denied "$W/bin/perf-client" 0 > /dev/null 2>&1; then fail "denied user got a perf event"; fi
ok "PerfEventOpen fd mmapped and sampled by the allowed user ($out)"

# SetParanoid is undone when its caller leaves the bus.
before=$(cat /proc/sys/kernel/perf_event_paranoid)
target=$(( before == 1 ? 0 : 1 ))
call sysprof-test-allowed SetParanoid $target | grep -qx "($before,)" || fail "SetParanoid did not return the old value"
for _ in $(seq 50); do [ "$(cat /proc/sys/kernel/perf_event_paranoid)" = "$before" ] && break; sleep 0.1; done
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" = "$before" ] || fail "perf_event_paranoid not restored after the caller left"
ok "SetParanoid restored after its caller left"

echo "1..$n"
