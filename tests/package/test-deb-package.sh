#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian packages, built from the tree (tools/build-deb.sh), installed by
# apt into a fresh Debian 12: a copy of debootstrap's minbase (made once by
# tools/deps.sh's sysprof_make_chroot), apt taking the dependencies from
# Debian's archive.  In that chroot, without systemd as on a Debian machine
# started by sysvinit, run the system bus (dbus-daemon --system: Debian's own
# configuration and activation helper) and polkitd; a user whom the package's
# example polkit rule lets profile (installed as the rule says) records with
# the installed sysprof-cli, and D-Bus activation must start the installed
# sysprofd, which did not run before.  The installed sysprof-report finds the
# samples.  Then `dpkg -r` leaves no file of the package (it has no
# conffile) and the bus forgets the name, `apt-get remove --purge` leaves no
# trace of either package, and the package replaces Debian's sysprof
# installed before it (Conflicts), whose colliding files are listed.
#
# Usage: test-deb-package.sh SOURCE_DIR BUILD_DIR
#   BUILD_DIR: a configured build of SOURCE_DIR, whose version the packages
#   must have.
# Needs root (exit 77 otherwise) and Debian's archive.  It runs in a private
# mount namespace: /proc, /sys (with tracefs), /dev, a /run and the apt cache
# (/var/cache/sysprof-tests/apt-archives, kept so that a rerun downloads
# nothing) are mounted into the chroot there, and on exit, failed or not,
# every process of the chroot is killed, every mount undone and the copy
# removed.  Logs: BUILD_DIR/meson-logs/test-deb-package/.

# shellcheck disable=SC2016  # dpkg-query's ${Field} formats are not the shell's
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "1..0 # SKIP needs root (chroot, mounts)"
  exit 77
fi
# A mount namespace of its own, and a PID namespace: package scripts in the
# chroot stop daemons by executable (polkitd's postinst runs start-stop-daemon
# --stop --exec /usr/lib/polkit-1/polkitd), which in the machine's PID
# namespace would kill every polkitd of the machine, the other tests' too.
# Here they see the test's processes only, and all of them end with it.
if [ -z "${SYSPROF_TEST_DEB_NAMESPACE:-}" ]; then
  exec unshare --mount --propagation private --pid --fork --mount-proc --kill-child=TERM \
    env SYSPROF_TEST_DEB_NAMESPACE=1 "$0" "$@"
fi

SOURCE_DIR=$(cd "$1" && pwd)
BUILD_DIR=$(cd "$2" && pwd)
readonly PKG=sysprof-ng DEV_PKG=libsysprof-capture-ng-dev USER_NAME=sysprof-user
# shellcheck source-path=SCRIPTDIR source=../../tools/deps.sh
source "$SOURCE_DIR/tools/deps.sh"

logs=$BUILD_DIR/meson-logs/test-deb-package
rm -rf "$logs"
mkdir -p "$logs"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/test-deb-package.XXXXXX")
root=$work/root
apt_cache=/var/cache/sysprof-tests/apt-archives
started=$SECONDS

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
note () { echo "# $*"; }
# A step the rest depends on failed: the end, with its log.
bail () {
  local log=${2:-}
  [ -n "$log" ] && [ -f "$log" ] && tail -n 40 "$log" | sed 's/^/# /'
  echo "Bail out! $1"
  exit 1
}

# Every process whose root is the chroot.
chroot_pids () {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
  done
  return 0
}
# The mount points under the chroot, deepest first.
chroot_mounts () {
  awk -v root="$root" '$5 == root || index($5, root "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}
# shellcheck disable=SC2317  # called from the trap
cleanup () {
  local status=$? pids m
  for _ in $(seq 50); do
    mapfile -t pids < <(chroot_pids)
    [ ${#pids[@]} -eq 0 ] && break
    kill -KILL "${pids[@]}" 2>/dev/null || true
    sleep 0.1
  done
  for m in $(chroot_mounts); do
    umount "$m" 2>/dev/null || umount -l "$m" || true
  done
  # Never remove through a mount (/dev, /sys are the machine's own).
  if [ -n "$(chroot_mounts)" ]; then
    echo "# still mounted under $root, not removed: $(chroot_mounts | tr '\n' ' ')" >&2
  else
    rm -rf --one-file-system "$work"
  fi
  echo "# $((SECONDS - started)) s in all"
  exit "$status"
}
trap cleanup EXIT
# meson's timeout: SIGTERM, then the exit above.
trap 'exit 143' TERM INT

# A command inside the chroot, in a clean environment.
in_root () {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}
as_user () {
  in_root runuser -u "$USER_NAME" -- /usr/bin/env -i PATH=/usr/bin:/bin HOME="/home/$USER_NAME" LANG=C.UTF-8 "$@"
}
bus_call () {
  in_root dbus-send --system --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus "$@"
}
# dbus-send's literal replies: "boolean true", "uint32 42".
has_owner () {
  [ "$(bus_call org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | awk '{ print $2 }')" = true ]
}
owner_pid () {
  bus_call org.freedesktop.DBus.GetConnectionUnixProcessID "string:$1" 2>/dev/null | awk '{ print $2 }'
}
activatable () {
  local names
  names=$(bus_call org.freedesktop.DBus.ListActivatableNames) || return 1
  tr -s ' ' '\n' <<< "$names" | grep -x "$1" > /dev/null
}
sysprofd_pids () {
  local p
  for p in $(chroot_pids); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sysprofd ] && echo "$p"
  done
  return 0
}
# The files (not directories) a package's .deb holds, as absolute paths.
deb_files () {
  dpkg-deb --fsys-tarfile "$1" | tar -t | grep -v '/$' | sed 's|^\./|/|' | sort
}

echo "1..11"

# --- 1. Build.
t=$SECONDS
"$SOURCE_DIR/tools/build-deb.sh" "$work/debs" > "$logs/build-deb.log" 2>&1 ||
  bail "tools/build-deb.sh failed" "$logs/build-deb.log"
deb=$(ls "$work"/debs/"${PKG}"_*.deb)
dev_deb=$(ls "$work"/debs/"${DEV_PKG}"_*.deb)
version=$(meson introspect "$BUILD_DIR" --projectinfo | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
deb_version=$(dpkg-deb -f "$deb" Version)
if [ "$deb_version" = "$version" ] && [ "$(dpkg-deb -f "$dev_deb" Version)" = "$version" ]; then
  ok "the packages build from the tree in $((SECONDS - t)) s, version $deb_version as meson.build's"
else
  not_ok "package version $deb_version, meson.build's $version (debian/changelog)"
fi

# --- 2. What the package declares.
depends=$(dpkg-deb -f "$deb" Depends)
problems=
for want in dbus polkitd; do
  grep -qE "(^|, )$want(,|$| )" <<< "$depends" || problems="$problems; no Depends on $want"
done
[ "$(dpkg-deb -f "$deb" Conflicts)" = sysprof ] || problems="$problems; Conflicts: $(dpkg-deb -f "$deb" Conflicts)"
[ "$(dpkg-deb -f "$deb" Replaces)" = sysprof ] || problems="$problems; Replaces: $(dpkg-deb -f "$deb" Replaces)"
deb_files "$deb" > "$work/files"
deb_files "$dev_deb" > "$work/dev-files"
for f in /usr/libexec/sysprofd /usr/libexec/sysprof-unwinder /usr/share/dbus-1/system.d/org.gnome.Sysprof3.conf \
    /usr/share/dbus-1/system-services/org.gnome.Sysprof3.service /usr/share/polkit-1/actions/org.gnome.sysprof3.policy \
    /lib/systemd/system/sysprof3.service /usr/bin/sysprof-cli /usr/bin/sysprof-report /usr/bin/sysprof \
    /usr/share/applications/org.sysprof.Sysprof.desktop /usr/share/icons/hicolor/scalable/apps/org.sysprof.Sysprof.svg \
    /usr/share/metainfo/org.sysprof.Sysprof.metainfo.xml /usr/share/man/man1/sysprof-cli.1.gz \
    /usr/share/man/man8/sysprofd.8.gz /usr/share/bash-completion/completions/sysprof-cli \
    /usr/share/zsh/site-functions/_sysprof-report /usr/share/doc/sysprof/50-sysprof-headless.rules.example; do
  grep -qx "$f" "$work/files" || problems="$problems; no $f"
done
if [ -z "$problems" ]; then
  ok "$PKG: Depends on dbus and polkitd, Conflicts/Replaces sysprof, the service files at Debian's paths ($(wc -l < "$work/files") files)"
else
  not_ok "$PKG:${problems#;}"
fi

# --- 3. A fresh Debian 12, and apt.
t=$SECONDS
sysprof_make_chroot > "$logs/debootstrap.log" 2>&1 || bail "cannot make the Debian 12 chroot" "$logs/debootstrap.log"
mkdir "$root"
cp -a "$SYSPROF_CHROOT_DIR/." "$root/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# As in any chroot: package scripts start no daemon (dbus's would start the bus).
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
if [ -d "$root/sys/kernel/tracing" ] && [ ! -e "$root/sys/kernel/tracing/events" ]; then
  mount -t tracefs nodev "$root/sys/kernel/tracing" || note "tracefs not mounted"
fi
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=755 tmpfs "$root/run"
mkdir -p "$apt_cache/partial"
mount --bind "$apt_cache" "$root/var/cache/apt/archives"
mkdir "$root/root/debs"
cp "$deb" "$dev_deb" "$root/root/debs/"
note "chroot ready in $((SECONDS - t)) s (debootstrap minbase of $SYSPROF_CHROOT_SUITE, copied from $SYSPROF_CHROOT_DIR)"

t=$SECONDS
in_root dpkg-query -W -f '${Package}\n' > "$work/before-packages"
if ! { in_root apt-get update -q && in_root apt-get install -y -q --no-install-recommends \
         "/root/debs/$(basename "$deb")" "/root/debs/$(basename "$dev_deb")"; } > "$logs/apt-install.log" 2>&1; then
  bail "apt-get install of the packages failed" "$logs/apt-install.log"
fi
in_root dpkg-query -W -f '${Package}\n' > "$work/after-packages"
# The kept archives: only what the archive still has.
in_root apt-get autoclean -q >> "$logs/apt-install.log" 2>&1 || true
status=$(in_root dpkg-query -W -f '${db:Status-Status}' "$PKG")
conffiles=$(in_root dpkg-query -W -f '${Conffiles}' "$PKG" "$DEV_PKG")
if [ "$status" = installed ] && [ -z "$conffiles" ]; then
  ok "apt installs $PKG and $DEV_PKG into a fresh Debian 12 in $((SECONDS - t)) s, with $(($(wc -l < "$work/after-packages") - $(wc -l < "$work/before-packages"))) packages from the archive; no conffile"
else
  not_ok "$PKG is '$status' after apt-get install; conffiles: $conffiles"
fi

# --- 4. The system bus and polkitd, as Debian starts them without systemd,
# and the admin's polkit rule, as the example says.
{
  in_root useradd --create-home "$USER_NAME"
  in_root groupadd --system sysprof
  in_root usermod -aG sysprof "$USER_NAME"
  in_root install -m 0644 /usr/share/doc/sysprof/50-sysprof-headless.rules.example \
    /etc/polkit-1/rules.d/50-sysprof-headless.rules
  in_root dbus-uuidgen --ensure
  in_root install -d -o messagebus -g messagebus /run/dbus
} > "$logs/setup.log" 2>&1 || bail "cannot set up the user, the rule or /run/dbus" "$logs/setup.log"
# Its log (stderr, with --nofork) gets the activations and what the services
# it starts print.
in_root dbus-daemon --system --nofork --nopidfile > "$logs/bus.log" 2>&1 &
for _ in $(seq 100); do
  [ -S "$root/run/dbus/system_bus_socket" ] && break
  sleep 0.1
done
[ -S "$root/run/dbus/system_bus_socket" ] || bail "the system bus did not start" "$logs/bus.log"
bus_pid=$(owner_pid org.freedesktop.DBus)
in_root /usr/lib/polkit-1/polkitd --no-debug > "$logs/polkitd.log" 2>&1 &
for _ in $(seq 100); do
  has_owner org.freedesktop.PolicyKit1 && break
  sleep 0.1
done
has_owner org.freedesktop.PolicyKit1 || bail "polkitd did not take its name" "$logs/polkitd.log"
before=$(sysprofd_pids)
if [ -z "$before" ] && ! has_owner org.gnome.Sysprof3 && activatable org.gnome.Sysprof3; then
  ok "system bus (pid $bus_pid) and polkitd run; org.gnome.Sysprof3 is activatable and no sysprofd runs"
else
  not_ok "before recording: sysprofd pids '$before', owner: $(has_owner org.gnome.Sysprof3 && echo yes || echo no), activatable: $(activatable org.gnome.Sysprof3 && echo yes || echo no)"
fi

# --- 5. Record as the user, through the activated daemon.
workload='i=0; while [ $i -lt 400000 ]; do i=$((i + 1)); done'
if as_user sh -c "cd && sysprof-cli capture.syscap -- sh -c '$workload'" > "$logs/sysprof-cli.log" 2>&1 &&
   [ -s "$root/home/$USER_NAME/capture.syscap" ]; then
  ok "$USER_NAME records a command with the installed sysprof-cli ($(stat -c %s "$root/home/$USER_NAME/capture.syscap") bytes)"
else
  not_ok "sysprof-cli failed"
fi
sed 's/^/# sysprof-cli: /' "$logs/sysprof-cli.log"

# --- 6. Who answered: the installed sysprofd, which the bus started through
# its activation helper (the helper's child, then adopted by init).
daemon_pid=$(sysprofd_pids | head -n 1)
name_pid=$(owner_pid org.gnome.Sysprof3)
if [ -n "$daemon_pid" ] && [ "$name_pid" = "$daemon_pid" ] &&
   [ "$(readlink "/proc/$daemon_pid/exe")" = "$root/usr/libexec/sysprofd" ] &&
   grep -q "Activating service name='org.gnome.Sysprof3' .*(using servicehelper)" "$logs/bus.log" &&
   grep -q "Successfully activated service 'org.gnome.Sysprof3'" "$logs/bus.log"; then
  ok "D-Bus activation (the bus's service helper) started /usr/libexec/sysprofd (pid $daemon_pid), owner of org.gnome.Sysprof3"
else
  not_ok "sysprofd pid '$daemon_pid', owner of the name '$name_pid', exe $(readlink "/proc/${daemon_pid:-0}/exe" 2>/dev/null)"
fi
grep -E 'Sysprof3|sysprofd' "$logs/bus.log" | sed 's/^/# bus: /'

# --- 7. The capture, read by the installed sysprof-report: samples, and
# samples of the command (sh).
if as_user sysprof-report top --limit 5 "/home/$USER_NAME/capture.syscap" > "$logs/sysprof-report.log" 2>&1 &&
   as_user sysprof-report top --comm sh --limit 5 "/home/$USER_NAME/capture.syscap" > "$logs/sysprof-report-sh.log" 2>&1; then
  samples=$(sed -n '1s/.*: \([0-9]*\) samples$/\1/p' "$logs/sysprof-report.log")
  sh_samples=$(sed -n '1s/.*: \([0-9]*\) of [0-9]* samples pass the filters$/\1/p' "$logs/sysprof-report-sh.log")
  if [ "${samples:-0}" -gt 0 ] && [ "${sh_samples:-0}" -gt 0 ]; then
    ok "the installed sysprof-report reads $samples samples, $sh_samples of them of the command"
  else
    not_ok "sysprof-report: '$samples' samples, '$sh_samples' of the command"
  fi
else
  not_ok "sysprof-report failed"
fi
sed 's/^/# sysprof-report: /' "$logs/sysprof-report.log" "$logs/sysprof-report-sh.log"

# --- 8. dpkg -r sysprof-ng: no file left (it has no conffile to keep; dpkg
# keeps its own record of the package, for its postrm's purge), the bus
# forgets the name.
t=$SECONDS
in_root dpkg -r "$PKG" > "$logs/dpkg-remove.log" 2>&1 || bail "dpkg -r failed" "$logs/dpkg-remove.log"
left=$(while read -r f; do [ -e "$root$f" ] || [ -L "$root$f" ] && echo "$f"; done < "$work/files"; true)
status=$(in_root dpkg-query -W -f '${db:Status-Status}' "$PKG" 2>/dev/null || echo unknown)
for _ in $(seq 50); do
  activatable org.gnome.Sysprof3 || break
  sleep 0.1
done
if [ -z "$left" ] && [ "$status" != installed ] && ! activatable org.gnome.Sysprof3; then
  ok "dpkg -r $PKG removes its $(wc -l < "$work/files") files in $((SECONDS - t)) s (dpkg: $status); org.gnome.Sysprof3 is no longer activatable"
else
  not_ok "after dpkg -r $PKG ($status): left $(tr '\n' ' ' <<< "$left"); activatable: $(activatable org.gnome.Sysprof3 && echo yes || echo no)"
fi

# --- 9. apt-get remove --purge of both: no trace of either in dpkg's
# database or on disk.
in_root apt-get remove --purge -y -q "$PKG" "$DEV_PKG" > "$logs/apt-purge.log" 2>&1 || bail "apt-get remove --purge failed" "$logs/apt-purge.log"
rm -f "$root/etc/polkit-1/rules.d/50-sysprof-headless.rules"  # the admin's copy, not the package's
traces=$( (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \
            -o -path "./home/$USER_NAME" -o -path ./root/debs -o -path ./var/cache/apt \) -prune -o \
            \( -iname '*sysprof*' -o -iname '*Sysprof3*' \) -print) | sed 's|^\.||')
in_db=$(in_root dpkg-query -W -f '${Package} ${db:Status-Status}\n' "$PKG" "$DEV_PKG" 2>/dev/null | grep -v ' not-installed$'; true)
if [ -z "$traces" ] && [ -z "$in_db" ]; then
  ok "apt-get remove --purge: dpkg knows neither package, no file named *sysprof* is left"
else
  not_ok "after the purge: dpkg: '$in_db', files: $(tr '\n' ' ' <<< "$traces")"
fi

# --- 10. Debian's sysprof installed first: ours replaces it (Conflicts).
t=$SECONDS
if in_root apt-get install -y -q --no-install-recommends sysprof > "$logs/apt-sysprof.log" 2>&1 &&
   in_root dpkg-query -L sysprof | sort > "$work/theirs"; then
  collide=$(while read -r f; do [ -f "$root$f" ] && grep -qx "$f" "$work/files" && echo "$f"; done < "$work/theirs"; true)
  note "files both ship: $(tr '\n' ' ' <<< "$collide")"
  if in_root apt-get install -y -q --no-install-recommends "/root/debs/$(basename "$deb")" > "$logs/apt-replace.log" 2>&1 &&
     [ "$(in_root dpkg-query -W -f '${db:Status-Status}' sysprof)" != installed ] &&
     [ "$(in_root dpkg-query -W -f '${db:Status-Status}' "$PKG")" = installed ] &&
     in_root dpkg --verify "$PKG" > "$logs/dpkg-verify.log" 2>&1 && [ ! -s "$logs/dpkg-verify.log" ] &&
     [ -n "$collide" ]; then
    ok "$PKG replaces Debian's sysprof ($(wc -l <<< "$collide") files in common), its files verified, in $((SECONDS - t)) s"
  else
    sed 's/^/# /' "$logs/dpkg-verify.log"
    not_ok "$PKG over Debian's sysprof: sysprof is $(in_root dpkg-query -W -f '${db:Status-Status}' sysprof), $PKG $(in_root dpkg-query -W -f '${db:Status-Status}' "$PKG" 2>/dev/null)"
  fi
else
  tail -n 20 "$logs/apt-sysprof.log" | sed 's/^/# /'
  not_ok "Debian's sysprof does not install in the chroot"
fi

# --- 11. And goes without restoring theirs.
if in_root apt-get remove --purge -y -q "$PKG" > "$logs/apt-purge-2.log" 2>&1 &&
   [ ! -e "$root/usr/libexec/sysprofd" ] && [ ! -e "$root/usr/share/dbus-1/system-services/org.gnome.Sysprof3.service" ]; then
  ok "purged again: no sysprofd, no activation file"
else
  not_ok "the second purge left $(ls "$root/usr/libexec/sysprofd" "$root/usr/share/dbus-1/system-services/"*Sysprof3* 2>/dev/null)"
fi

[ "$failed" -eq 0 ]
