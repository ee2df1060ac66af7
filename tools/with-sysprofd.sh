#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a command against a private system bus with the real polkitd and (unless
# --no-daemon) the freshly built sysprofd on it:
#
#   tools/with-sysprofd.sh [--build-dir DIR] [--no-daemon] CMD ARGS...
#
# Must run as root (it creates test users, bind-mounts over polkit's dirs in a
# private mount namespace and starts the daemon). Nothing global is changed
# except the test users and group, which are kept for the next run:
#   sysprof-test-allowed  member of sysprof-users: polkit says yes
#   sysprof-test-other    member of sysprof-users: polkit says yes (a second user)
#   sysprof-test-denied   not a member:            polkit says no
# The test rule answers YES/NO directly because without logind every subject is
# inactive and non-local, and there is no agent to authenticate with; it says
# YES to everyone for org.gnome.sysprof3.profile-own-processes (as its default
# does for an active local user).
#
# CMD sees:
#   DBUS_SYSTEM_BUS_ADDRESS  the private bus (also honoured by busctl, gdbus, pkcheck)
#   SYSPROFD_TEST_WORKDIR    the work dir (mode 755). Unprivileged test users cannot
#                            reach a checkout under /root: copy the binaries they run
#                            into $SYSPROFD_TEST_WORKDIR/bin first. Its logs/ holds
#                            bus.log, polkitd.log (polkit.log() output) and sysprofd.log.
# Run a client as a test user with
#   runuser -u sysprof-test-allowed -- env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" CMD
#
# --build-dir DIR  where daemon/sysprofd is (default: build/ in the repository;
#                  a relative DIR is taken from the current directory)
# --no-daemon      only the bus and polkitd
# --daemon-arg ARG pass ARG to sysprofd (repeatable)
#
# Exit status: CMD's; 77 (meson's "skipped") when not run as root; 1 when the
# set-up fails. Everything this script started is stopped on exit, the work dir
# is removed, and when the status is not 0 the last 30 lines of every log are
# printed to stderr.

# shellcheck disable=SC2317  # the functions called from traps look unreachable to it
set -euo pipefail

readonly ALLOWED_USER=sysprof-test-allowed
readonly OTHER_USER=sysprof-test-other
readonly DENIED_USER=sysprof-test-denied
readonly TEST_GROUP=sysprof-users
readonly SERVICE_NAME=org.gnome.Sysprof3
readonly ACTION_ID=org.gnome.sysprof3.profile
readonly OWN_ACTION_ID=org.gnome.sysprof3.profile-own-processes

PROG=$(basename "$0")
REPO=$(cd "$(dirname "$0")/.." && pwd)

usage () {
  echo "usage: $PROG [--build-dir DIR] [--no-daemon] [--daemon-arg ARG]... CMD ARGS..." >&2
  exit "${1:-2}"
}

die () {
  echo "$PROG: $*" >&2
  exit 1
}

build_dir=$REPO/build
start_daemon=1
daemon_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) [ $# -ge 2 ] || usage; build_dir=$2; shift 2 ;;
    --build-dir=*) build_dir=${1#--build-dir=}; shift ;;
    --no-daemon) start_daemon=0; shift ;;
    --daemon-arg) [ $# -ge 2 ] || usage; daemon_args+=("$2"); shift 2 ;;
    --daemon-arg=*) daemon_args+=("${1#--daemon-arg=}"); shift ;;
    -h|--help) usage 0 ;;
    --) shift; break ;;
    -*) echo "$PROG: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || usage

if [ "$(id -u)" -ne 0 ]; then
  echo "$PROG: must be run as root (test users, mount namespace, sysprofd)" >&2
  exit 77
fi

# Check everything before changing anything.
sysprofd=
if [ $start_daemon -eq 1 ]; then
  case $build_dir in /*) ;; *) build_dir=$PWD/$build_dir ;; esac
  sysprofd=$build_dir/daemon/sysprofd
  [ -x "$sysprofd" ] || die "no daemon at $sysprofd: build it first (ninja -C $build_dir), pass --build-dir DIR, or use --no-daemon"
fi
polkitd=
for p in /usr/lib/polkit-1/polkitd /usr/libexec/polkitd /usr/libexec/polkit-1/polkitd; do
  if [ -x "$p" ]; then polkitd=$p; break; fi
done
[ -n "$polkitd" ] || die "polkitd not found (apt-get install -y polkitd)"
for tool in dbus-daemon gdbus unshare useradd groupadd flock; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install -y dbus polkitd libglib2.0-bin)"
done
polkit_policy=/usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf
[ -f "$polkit_policy" ] || die "$polkit_policy not found (apt-get install -y polkitd)"
for d in /usr/share/polkit-1/actions /etc/polkit-1/rules.d; do
  [ -d "$d" ] || die "$d is missing (apt-get install -y polkitd)"
done

# ---------------------------------------------------------------------------
# Teardown, from here on.
WORK=
bus_pid=
polkitd_pid=
daemon_pid=
cmd_ran=0
cleaned=0

alive () {
  local pid=$1 stat
  kill -0 "$pid" 2>/dev/null || return 1
  # A zombie still answers kill -0; field 3 of /proc/PID/stat is the state.
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

stop () {
  local pid=$1 _
  [ -n "$pid" ] || return 0
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      alive "$pid" || break
      sleep 0.05
    done
    if alive "$pid"; then
      echo "$PROG: pid $pid ignored SIGTERM for 2.5 s; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup () {
  local status=$1 log
  [ "$cleaned" -eq 0 ] || return 0
  cleaned=1
  trap - INT TERM
  # Reverse order of start: the daemon, then polkitd, then the bus.
  stop "$daemon_pid"
  stop "$polkitd_pid"
  stop "$bus_pid"
  if [ -n "$WORK" ] && [ -d "$WORK" ]; then
    if [ "$status" -ne 0 ]; then
      if [ "$cmd_ran" -eq 1 ]; then
        echo "$PROG: command exited with status $status" >&2
      fi
      for log in "$WORK"/logs/*; do
        [ -f "$log" ] || continue
        echo "----- ${log#"$WORK"/} (last 30 lines) -----" >&2
        tail -n 30 "$log" >&2
      done
    fi
    rm -rf "$WORK"
  fi
}

trap 'cleanup $?' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------
# Work dir. mode 755 so the test users can reach the socket and copied binaries.
WORK=$(mktemp -d -t sysprofd-test.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK"/{run,logs,bin,bus/system.d,bus/services,polkit/actions,polkit/rules.d}
chmod -R a+rX "$WORK"

# ---------------------------------------------------------------------------
# Test users, idempotently. The lock keeps parallel harnesses from racing on
# /etc/passwd (useradd fails rather than waits when it is locked).
lock_dir=/run/lock
[ -d "$lock_dir" ] || lock_dir=/tmp
(
  flock 9
  groupadd -f "$TEST_GROUP"
  for user in "$ALLOWED_USER" "$OTHER_USER"; do
    if ! id "$user" >/dev/null 2>&1; then
      useradd -M -s /usr/sbin/nologin -G "$TEST_GROUP" "$user"
    elif ! id -nG "$user" | tr ' ' '\n' | grep -qx "$TEST_GROUP"; then
      usermod -aG "$TEST_GROUP" "$user"
    fi
  done
  if ! id "$DENIED_USER" >/dev/null 2>&1; then
    useradd -M -s /usr/sbin/nologin "$DENIED_USER"
  elif id -nG "$DENIED_USER" | tr ' ' '\n' | grep -qx "$TEST_GROUP"; then
    gpasswd -d "$DENIED_USER" "$TEST_GROUP" >/dev/null
  fi
) 9>"$lock_dir/sysprofd-test-users.lock"
runuser -u "$DENIED_USER" -- test -x "$WORK" \
  || die "test users cannot reach $WORK: point TMPDIR at a directory everyone may traverse"

# ---------------------------------------------------------------------------
# Private system bus: /usr/share/dbus-1/system.conf without <user>, <fork>,
# <pidfile>, <syslog>, <servicehelper> and the standard service dirs; only
# polkit's policy and ours are included.
cat > "$WORK/bus/system.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <auth>EXTERNAL</auth>
  <listen>unix:path=$WORK/run/system_bus_socket</listen>
  <servicedir>$WORK/bus/services</servicedir>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus" send_member="UpdateActivationEnvironment"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
  </policy>
  <policy user="root">
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
  </policy>
  <include>$polkit_policy</include>
  <includedir>$WORK/bus/system.d</includedir>
</busconfig>
EOF
cp "$REPO/data/dbus-1/system.d/org.gnome.Sysprof3.conf" "$WORK/bus/system.d/"

# ---------------------------------------------------------------------------
# polkit: only our actions, and a rule that decides by group.
cp "$REPO"/data/polkit-1/actions/*.policy "$WORK/polkit/actions/"
cat > "$WORK/polkit/rules.d/50-sysprof-test.rules" <<EOF
// Written by $PROG: members of $TEST_GROUP may profile, everyone else is denied.
polkit.addRule(function(action, subject) {
    if (action.id == "$ACTION_ID") {
        var yes = subject.isInGroup("$TEST_GROUP");
        polkit.log("$ACTION_ID: user=" + subject.user + " pid=" + subject.pid +
                   " groups=" + subject.groups + " local=" + subject.local +
                   " active=" + subject.active + " => " + (yes ? "YES" : "NO"));
        return yes ? polkit.Result.YES : polkit.Result.NO;
    }
    // Profiling one's own programs: what its default allows an active local
    // user (nobody here has a logind session to be active in).
    if (action.id == "$OWN_ACTION_ID") {
        polkit.log("$OWN_ACTION_ID: user=" + subject.user + " => YES");
        return polkit.Result.YES;
    }
});
EOF
chmod -R a+rX "$WORK/bus" "$WORK/polkit"

# ---------------------------------------------------------------------------
# Start-up helpers.
fail_start () {
  echo "$PROG: $1" >&2
  exit 1
}

# Waits for a bus name while watching the process that should own it, so a
# crash is reported at once instead of after the timeout.
wait_for_name () {
  local name=$1 pid=$2 what=$3 waiter rc _
  gdbus wait --system --timeout 10 "$name" </dev/null >/dev/null 2>&1 &
  waiter=$!
  for _ in $(seq 220); do
    if ! alive "$waiter"; then
      rc=0; wait "$waiter" || rc=$?
      [ $rc -eq 0 ] || fail_start "$what did not own $name within 10 s (see logs)"
      return 0
    fi
    if ! alive "$pid"; then
      kill "$waiter" 2>/dev/null || true
      wait "$waiter" 2>/dev/null || true
      fail_start "$what exited before owning $name (see logs)"
    fi
    sleep 0.05
  done
  kill "$waiter" 2>/dev/null || true
  wait "$waiter" 2>/dev/null || true
  fail_start "timed out waiting for $name"
}

# ---------------------------------------------------------------------------
# The bus.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$WORK/run/system_bus_socket
export SYSPROFD_TEST_WORKDIR=$WORK

dbus-daemon --config-file="$WORK/bus/system.conf" --nofork --nopidfile \
  </dev/null >"$WORK/logs/bus.log" 2>&1 &
bus_pid=$!
for _ in $(seq 100); do
  [ -S "$WORK/run/system_bus_socket" ] && break
  alive "$bus_pid" || fail_start "dbus-daemon exited at start-up (see logs)"
  sleep 0.05
done
[ -S "$WORK/run/system_bus_socket" ] || fail_start "no bus socket after 5 s"

# polkitd in its own mount namespace, with our dirs over the compiled-in ones.
# unshare without --fork execs sh, which execs polkitd: $! is polkitd's pid.
# shellcheck disable=SC2016  # $1..$3 are expanded by the inner sh
unshare -m --propagation private sh -c '
  mount --bind "$1" /usr/share/polkit-1/actions &&
  mount --bind "$2" /etc/polkit-1/rules.d &&
  exec "$3"' sh "$WORK/polkit/actions" "$WORK/polkit/rules.d" "$polkitd" \
  </dev/null >"$WORK/logs/polkitd.log" 2>&1 &
polkitd_pid=$!
wait_for_name org.freedesktop.PolicyKit1 "$polkitd_pid" polkitd

# The daemon.
if [ $start_daemon -eq 1 ]; then
  "$sysprofd" --state-dir "$WORK/state" "${daemon_args[@]}" </dev/null >"$WORK/logs/sysprofd.log" 2>&1 &
  daemon_pid=$!
  wait_for_name "$SERVICE_NAME" "$daemon_pid" sysprofd
fi

# ---------------------------------------------------------------------------
cmd_ran=1
status=0
"$@" || status=$?
exit $status
