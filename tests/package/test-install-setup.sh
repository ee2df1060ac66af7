#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What `meson setup` decides to install for sysprofd, checked against the
# readers themselves rather than their pkg-config files (which meson.build
# reads): the directories in Debian's /usr/share/dbus-1/system.conf and
# dbus-daemon's built-in service directories, the actions directory built
# into polkitd, `systemd-analyze unit-paths`.
#   --prefix=/usr              every file where its reader reads it, the
#                              activation file and the unit naming the
#                              installed daemon
#   the default (/usr/local)   the setup stops, naming the options to use
#   -Dsystem_service=false     no sysprofd, no service file, no sysprofd(8)
# Setups only, nothing is built.
#
# Usage: test-install-setup.sh SOURCE_DIR

set -euo pipefail

SOURCE_DIR=$1
work=$(mktemp -d /tmp/test-install-setup.XXXXXX)
trap 'rm -rf "$work"' EXIT

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

echo "1..6"

# Only what decides where files go: no tests, benchmarks or app to configure.
setup () {
  local dir=$1; shift
  meson setup "$work/$dir" "$SOURCE_DIR" -Dtests=false -Dbenchmarks=false -Dcompat=disabled -Dapp=disabled "$@" \
    > "$work/$dir.log" 2>&1
}
installed () {
  meson introspect "$work/$1" --installed | python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin).values()))'
}

# The readers' directories.
polkitd=
for p in /usr/lib/polkit-1/polkitd /usr/libexec/polkitd /usr/libexec/polkit-1/polkitd; do
  [ -x "$p" ] && { polkitd=$p; break; }
done
mapfile -t polkit_read < <(strings "$polkitd" | grep -E '^/.*/polkit-1/actions$')
mapfile -t policy_read < <(python3 - <<'EOF'
import os, xml.etree.ElementTree as ET
conf = "/usr/share/dbus-1/system.conf"
for d in ET.parse(conf).getroot().iter("includedir"):
    print(os.path.normpath(os.path.join(os.path.dirname(conf), d.text.strip())))
EOF
)
# dbus-daemon's standard system service directories: a list of data
# directories to which it appends /dbus-1/system-services.
mapfile -t services_read < <(strings /usr/bin/dbus-daemon | grep -E '^/usr/local/share:' | grep -v ':$' | head -n 1 |
  tr ':' '\n' | sed 's|$|/dbus-1/system-services|')
mapfile -t units_read < <(systemd-analyze unit-paths 2>/dev/null)
if [ ${#polkit_read[@]} -eq 0 ] || [ ${#policy_read[@]} -eq 0 ] || [ ${#services_read[@]} -eq 0 ] ||
   [ ${#units_read[@]} -eq 0 ]; then
  echo "Bail out! cannot tell where polkitd ($polkitd), dbus-daemon or systemd read their files"
  exit 1
fi
echo "# polkitd reads ${polkit_read[*]}"
echo "# dbus-daemon reads policies in ${policy_read[*]}, activation files in ${services_read[*]}"

in_list () {
  local want=$1 d; shift
  for d in "$@"; do [ "$d" = "$want" ] && return 0; done
  return 1
}

if setup usr --prefix=/usr; then
  files=$(installed usr)
  problems=
  check_in () {
    local name=$1; shift
    local path
    path=$(grep -E "/$name\$" <<< "$files" || true)
    if [ -z "$path" ]; then
      problems="$problems; $name not installed"
    elif ! in_list "$(dirname "$path")" "$@"; then
      problems="$problems; $path is not read"
    else
      echo "# $path"
    fi
  }
  check_in org.gnome.Sysprof3.conf "${policy_read[@]}"
  check_in org.gnome.Sysprof3.service "${services_read[@]}"
  check_in org.gnome.sysprof3.policy "${polkit_read[@]}"
  check_in sysprof3.service "${units_read[@]}"
  if [ -z "$problems" ]; then
    ok "--prefix=/usr: the D-Bus policy, activation file, polkit actions and unit are where their readers read"
  else
    not_ok "--prefix=/usr:${problems#;}"
  fi

  exec_line=$(sed -n 's/^Exec=//p' "$work/usr/data/org.gnome.Sysprof3.service")
  exec_start=$(sed -n 's/^ExecStart=//p' "$work/usr/data/sysprof3.service")
  if [ "$exec_line" = /usr/libexec/sysprofd ] && [ "$exec_start" = /usr/libexec/sysprofd ] &&
     grep -qx /usr/libexec/sysprofd <<< "$files"; then
    ok "--prefix=/usr: Exec= and ExecStart= name the installed /usr/libexec/sysprofd"
  else
    not_ok "--prefix=/usr: Exec=$exec_line, ExecStart=$exec_start, installed: $(grep sysprofd <<< "$files" | tr '\n' ' ')"
  fi

  others=$(grep -vE '^/usr/|^/lib/systemd/system/' <<< "$files" || true)
  if [ -z "$others" ]; then
    ok "--prefix=/usr: nothing outside /usr but the unit"
  else
    not_ok "--prefix=/usr installs outside /usr: $others"
  fi
else
  sed 's/^/# /' "$work/usr.log"
  not_ok "--prefix=/usr: setup failed"
  not_ok "--prefix=/usr: not checked"
  not_ok "--prefix=/usr: not checked"
fi

if setup local; then
  not_ok "the default prefix: setup passed, installing $(installed local | grep -c sysprof3) service files"
elif grep -q -- '-Dpolkit_actions_dir=DIR' "$work/local.log" && grep -q -- '-Ddbus_system_policy_dir=DIR' "$work/local.log" &&
     grep -q -- '--prefix=/usr' "$work/local.log" && grep -q -- '-Dsystem_service=false' "$work/local.log"; then
  ok "the default prefix (/usr/local): the setup stops and names --prefix=/usr, the directory options and -Dsystem_service=false"
  sed -n '/ERROR/,$p' "$work/local.log" | sed 's/^/# /'
else
  sed 's/^/# /' "$work/local.log"
  not_ok "the default prefix: the setup failed without naming the options"
fi

if setup local-no-service -Dsystem_service=false; then
  found=$(installed local-no-service | grep -E 'sysprofd|Sysprof3|sysprof3' || true)
  if [ -z "$found" ]; then
    ok "-Dsystem_service=false: neither sysprofd nor its D-Bus, polkit and systemd files nor sysprofd(8)"
  else
    not_ok "-Dsystem_service=false installs $found"
  fi
else
  sed 's/^/# /' "$work/local-no-service.log"
  not_ok "-Dsystem_service=false: setup failed"
fi

if setup local-named -Dpolkit_actions_dir=/usr/share/polkit-1/actions -Ddbus_system_policy_dir=/usr/share/dbus-1/system.d &&
   installed local-named | grep -x /usr/local/share/dbus-1/system-services/org.gnome.Sysprof3.service > /dev/null &&
   installed local-named | grep -x /usr/share/polkit-1/actions/org.gnome.sysprof3.policy > /dev/null; then
  ok "/usr/local with the two directories named: the activation file in /usr/local/share (dbus-daemon reads it), the action where named"
else
  sed 's/^/# /' "$work/local-named.log"
  not_ok "/usr/local with the directories named"
fi

[ "$failed" -eq 0 ]
