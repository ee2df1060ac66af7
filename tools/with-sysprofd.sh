#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a command against a private system bus with the real polkitd and (unless
# --no-daemon) the freshly built sysprofd on it, confined as
# data/systemd/sysprof3.service.in confines it under systemd:
#
#   tools/with-sysprofd.sh [--build-dir DIR] [--no-daemon] [--unconfined] [--unit FILE] CMD ARGS...
#
# Must run as root (it creates test users, bind-mounts over polkit's dirs in a
# private mount namespace and starts the daemon). Nothing global is changed
# except the test users and group, which are kept for the next run, and an
# empty /run/DIR for each RuntimeDirectory=DIR of the unit (the daemon sees a
# private directory mounted there):
#   sysprof-test-allowed  member of sysprof-users: polkit says yes
#   sysprof-test-other    member of sysprof-users: polkit says yes (a second user),
#                         also to org.gnome.sysprof3.continuous-many
#   sysprof-test-denied   not a member:            polkit says no
# The test rule answers YES/NO directly because without logind every subject is
# inactive and non-local, and there is no agent to authenticate with; it says
# YES to everyone for org.gnome.sysprof3.profile-own-processes (as its default
# does for an active local user).
#
# The confinement, read from the unit's [Service] section (a setting it cannot
# emulate or does not know makes it fail rather than run with less):
#   CapabilityBoundingSet=, NoNewPrivileges=  setpriv drops every other capability
#       from the bounding, inheritable and ambient sets; uid 0 then execs with
#       only those permitted and effective.  Checked on the running daemon in
#       /proc/PID/status: Cap{Eff,Prm,Bnd} must equal the set, Cap{Inh,Amb} be
#       empty, NoNewPrivs 1.
#   SystemCallFilter= (groups expanded by `systemd-analyze syscall-filter`, with
#       @default as systemd adds it), SystemCallErrorNumber=,
#       SystemCallArchitectures=native, RestrictAddressFamilies=,
#       RestrictNamespaces=, MemoryDenyWriteExecute=, RestrictRealtime=,
#       LockPersonality=, RestrictSUIDSGID=  seccomp filters installed by
#       DIR/tests/tools/run-with-syscall-filter (built with libseccomp; without
#       it these are not applied and a note says so).  Seccomp_filters checked.
#   PrivateMounts=, ProtectSystem=, ProtectHome=, PrivateTmp=, PrivateDevices=,
#       ProtectKernelModules=, ProtectKernelTunables=, ProtectKernelLogs=,
#       ProtectControlGroups=, ProtectProc=, ProcSubset=, RuntimeDirectory=
#       (+Mode), ReadWritePaths=, PrivateNetwork=, ProtectHostname=  a mount
#       (+ UTS, + network) namespace laid out as systemd lays it out; / read-only
#       and the /proc options checked.  A private /tmp holds only what the
#       daemon must reach: run/ (the bus socket) and confinement/ (the system
#       call list) read-only, logs/ writable, and DIR if it lies in /tmp.
#   ProtectClock=, ProtectKernelLogs=, PrivateDevices=, ProtectKernelModules=
#       also take capabilities out of the bounding set, as in systemd.
#   UMask=, LimitNOFILE=, LimitMEMLOCK= (8M, systemd's default, when unset;
#       both lowered to this script's hard limits, with a note, when it cannot
#       raise them), and a clean environment as systemd gives.
# Not emulated (listed in data/systemd/README.md): the cgroup parts
# (IPAddressDeny=, the device policy), D-Bus activation, RuntimeDirectoryPreserve=.
#
# CMD sees:
#   DBUS_SYSTEM_BUS_ADDRESS  the private bus (also honoured by busctl, gdbus, pkcheck)
#   SYSPROFD_TEST_WORKDIR    the work dir (mode 755). Unprivileged test users cannot
#                            reach a checkout under /root: copy the binaries they run
#                            into $SYSPROFD_TEST_WORKDIR/bin first. Its logs/ holds
#                            bus.log, polkitd.log (polkit.log() output) and sysprofd.log.
#   SYSPROFD_TEST_CONFINED   1 when the daemon runs confined, else 0
#   SYSPROFD_TEST_SANITIZED  1 when the daemon is built with ASan or UBSan, else 0
#   SYSPROFD_TEST_RUNTIME_DIR  what the daemon sees as /run/sysprofd
# Run a client as a test user with
#   runuser -u sysprof-test-allowed -- env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" CMD
#
# --build-dir DIR  where daemon/sysprofd is (default: build/ in the repository;
#                  a relative DIR is taken from the current directory)
# --no-daemon      only the bus and polkitd
# --daemon-arg ARG pass ARG to sysprofd (repeatable)
# --unconfined     start the daemon without the unit's restrictions (also:
#                  SYSPROFD_TEST_UNCONFINED=1), to compare or debug
# --unit FILE      the unit to read (also: SYSPROFD_TEST_UNIT; default
#                  data/systemd/sysprof3.service.in), to measure a variant
#
# A daemon built with ASan or UBSan (libasan/libubsan or their symbols, or
# SYSPROFD_SANITIZED=1) runs with ASAN_OPTIONS=abort_on_error=1:detect_leaks=0,
# UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1, G_SLICE=always-malloc and
# its reports in logs/asan.PID and logs/ubsan.PID.
#
# Exit status: CMD's; 77 (meson's "skipped") when not run as root; 1 when the
# set-up fails (the daemon not confined as the unit says included), or when
# CMD passed but the daemon died while it ran (a non-zero status or a signal;
# an exit with status 0, its idle timeout or CMD stopping it, is only noted),
# did not exit with status 0 within 10 s of the final SIGTERM, or left a
# sanitizer report. Everything this script started is stopped on exit, the
# work dir is removed, and when the status is not 0 the last 30 lines of every
# log are printed to stderr.

# shellcheck disable=SC2317  # the functions called from traps look unreachable to it
set -euo pipefail

readonly ALLOWED_USER=sysprof-test-allowed
readonly OTHER_USER=sysprof-test-other
readonly DENIED_USER=sysprof-test-denied
readonly TEST_GROUP=sysprof-users
readonly SERVICE_NAME=org.gnome.Sysprof3
readonly ACTION_ID=org.gnome.sysprof3.profile
readonly OWN_ACTION_ID=org.gnome.sysprof3.profile-own-processes
readonly CONTINUOUS_MANY_ACTION_ID=org.gnome.sysprof3.continuous-many

PROG=$(basename "$0")
REPO=$(cd "$(dirname "$0")/.." && pwd)

usage () {
  echo "usage: $PROG [--build-dir DIR] [--no-daemon] [--unconfined] [--unit FILE] [--daemon-arg ARG]... CMD ARGS..." >&2
  exit "${1:-2}"
}

die () {
  echo "$PROG: $*" >&2
  exit 1
}

build_dir=$REPO/build
start_daemon=1
daemon_args=()
confined=1
[ "${SYSPROFD_TEST_UNCONFINED:-0}" = 1 ] && confined=0
unit_file=${SYSPROFD_TEST_UNIT:-$REPO/data/systemd/sysprof3.service.in}
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) [ $# -ge 2 ] || usage; build_dir=$2; shift 2 ;;
    --build-dir=*) build_dir=${1#--build-dir=}; shift ;;
    --no-daemon) start_daemon=0; shift ;;
    --daemon-arg) [ $# -ge 2 ] || usage; daemon_args+=("$2"); shift 2 ;;
    --daemon-arg=*) daemon_args+=("${1#--daemon-arg=}"); shift ;;
    --unconfined) confined=0; shift ;;
    --unit) [ $# -ge 2 ] || usage; unit_file=$2; shift 2 ;;
    --unit=*) unit_file=${1#--unit=}; shift ;;
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

# ---------------------------------------------------------------------------
# The unit, as systemd reads it: [Service] only, "\" continues a line, "#"
# and ";" start comments.

# The value of every assignment of $1, in order.
unit_assignments () {
  awk -v key="$1" '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    {
      line = $0
      while (line ~ /\\$/ && (getline more) > 0)
        line = substr(line, 1, length(line) - 1) " " more
      t = trim(line)
      if (t == "" || t ~ /^[#;]/) next
      if (t ~ /^\[/) { section = t; next }
      eq = index(t, "=")
      if (section != "[Service]" || eq == 0) next
      if (key == "" ) print trim(substr(t, 1, eq - 1))
      else if (trim(substr(t, 1, eq - 1)) == key) print trim(substr(t, eq + 1))
    }' "$unit_file"
}

# The last assignment wins.
unit_value () {
  unit_assignments "$1" | tail -n 1
}

unit_bool () {
  case $(unit_value "$1") in
    yes|true|on|1) return 0 ;;
    ""|no|false|off|0) return 1 ;;
    *) die "$unit_file: $1=$(unit_value "$1") is not a boolean" ;;
  esac
}

# Lists accumulate; an empty assignment empties them.
unit_list () {
  local value words=() w
  while IFS= read -r value; do
    if [ -z "$value" ]; then
      words=()
    else
      read -ra w <<< "$value"
      words+=("${w[@]}")
    fi
  done < <(unit_assignments "$1")
  [ ${#words[@]} -eq 0 ] || printf '%s\n' "${words[@]}"
}

# Everything with-sysprofd.sh knows.  Emulated: see the header.  Ignored
# (listed there as not emulated): the rest.
readonly KNOWN_KEYS="CapabilityBoundingSet NoNewPrivileges SystemCallFilter SystemCallErrorNumber
  SystemCallArchitectures RestrictAddressFamilies RestrictNamespaces MemoryDenyWriteExecute RestrictRealtime
  LockPersonality RestrictSUIDSGID ProtectSystem ProtectHome PrivateTmp PrivateDevices ProtectKernelModules
  ProtectKernelTunables ProtectKernelLogs ProtectControlGroups ProtectClock ProtectProc ProcSubset RuntimeDirectory
  RuntimeDirectoryMode ReadWritePaths PrivateMounts PrivateNetwork ProtectHostname UMask LimitNOFILE LimitMEMLOCK
  Type BusName ExecStart IPAddressDeny RuntimeDirectoryPreserve"

# Appends the system calls $1 names (a call, or a group with its nested
# groups expanded) to the array "expanded".
declare -A group_cache=()
expand_syscalls () {
  local name=$1 line
  case $name in
    @*) ;;
    *) expanded+=("$name"); return 0 ;;
  esac
  if [ -z "${group_cache[$name]+set}" ]; then
    group_cache[$name]=$(systemd-analyze --no-pager syscall-filter "$name" 2>/dev/null) \
      || die "$unit_file: systemd-analyze does not know the system call group $name"
  fi
  while read -r line; do
    case $line in
      ""|"#"*|"$name") ;;
      @*) expand_syscalls "$line" ;;
      *) expanded+=("$line") ;;
    esac
  done <<< "${group_cache[$name]}"
}

# SystemCallFilter= as systemd 252 builds it, into the array "syscalls": the
# first assignment decides between allow and deny list; an allow list starts
# with @default; a later "~" assignment takes names out of it.
syscall_allow_list () {
  local value invert word started=0 name
  local -A allowed=()
  local -a expanded
  while IFS= read -r value; do
    if [ -z "$value" ]; then
      allowed=(); started=0; continue
    fi
    invert=0
    case $value in "~"*) invert=1; value=${value#\~} ;; esac
    if [ $started -eq 0 ]; then
      [ $invert -eq 0 ] || die "$unit_file: a deny-list SystemCallFilter= is not emulated (only allow lists)"
      value="@default $value"
      started=1
    fi
    for word in $value; do
      case $word in *:*) die "$unit_file: SystemCallFilter=...:ERRNO is not emulated ($word)" ;; esac
      expanded=()
      expand_syscalls "$word"
      for name in "${expanded[@]}"; do
        if [ $invert -eq 0 ]; then allowed[$name]=1; else unset "allowed[$name]"; fi
      done
    done
  done < <(unit_assignments SystemCallFilter)
  mapfile -t syscalls < <(printf '%s\n' "${!allowed[@]}" | grep . | sort)
}

# CAP_X names -> the numbers setpriv lists them by.
mapfile -t ALL_CAPS < <(setpriv --list-caps 2>/dev/null || true)
cap_number () {
  local want=${1,,} i
  want=${want#cap_}
  for i in "${!ALL_CAPS[@]}"; do
    [ "${ALL_CAPS[$i]}" = "$want" ] && { echo "$i"; return 0; }
  done
  return 1
}
cap_names () {
  local mask=$((16#$1)) i names=()
  for i in "${!ALL_CAPS[@]}"; do
    (( (mask >> i) & 1 )) && names+=("cap_${ALL_CAPS[$i]}")
  done
  echo "${names[*]:-none}"
}

# ---------------------------------------------------------------------------
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

# Sanitized daemon?
sanitized=0
if [ $start_daemon -eq 1 ]; then
  if [ "${SYSPROFD_SANITIZED:-0}" = 1 ] || ldd "$sysprofd" 2>/dev/null | grep -qE 'lib(asan|ubsan)\.so' \
     || nm -D --defined-only "$sysprofd" 2>/dev/null | grep -qE ' __(asan|ubsan)_'; then
    sanitized=1
  fi
fi
export SYSPROFD_TEST_SANITIZED=$sanitized

# The confinement, from the unit.
filter_tool=
filter_args=()
n_filters=0
syscalls=()
setpriv_args=()
cap_mask=0
declare -A ns=() # the namespace settings, for enter_namespace
runtime_dirs=()
read_write=()
if [ $start_daemon -eq 1 ] && [ $confined -eq 1 ]; then
  case $unit_file in /*) ;; *) unit_file=$PWD/$unit_file ;; esac
  [ -f "$unit_file" ] || die "no unit at $unit_file (--unit FILE, SYSPROFD_TEST_UNIT)"
  for tool in setpriv unshare mount; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install -y util-linux mount)"
  done
  [ ${#ALL_CAPS[@]} -gt 0 ] || die "setpriv --list-caps lists nothing"
  read -ra known_keys <<< "${KNOWN_KEYS//$'\n'/ }"
  while read -r key; do
    case " ${known_keys[*]} " in
      *" $key "*) ;;
      *) die "$unit_file: $key= is neither emulated nor known to be harmless to skip: teach $PROG about it" ;;
    esac
  done < <(unit_assignments "" | sort -u)

  # Capabilities.  systemd takes some out of the bounding set for other settings.
  mapfile -t caps < <(unit_list CapabilityBoundingSet)
  implied_drops=()
  unit_bool ProtectKernelLogs && implied_drops+=(CAP_SYSLOG)
  unit_bool ProtectClock && implied_drops+=(CAP_SYS_TIME CAP_WAKE_ALARM)
  unit_bool PrivateDevices && implied_drops+=(CAP_MKNOD CAP_SYS_RAWIO)
  unit_bool ProtectKernelModules && implied_drops+=(CAP_SYS_MODULE)
  # None: all that systemd holds, here all that this script holds.
  if [ -z "$(unit_assignments CapabilityBoundingSet)" ]; then
    own=$((16#$(awk '$1 == "CapBnd:" { print $2 }' /proc/self/status)))
    caps=()
    for n in "${!ALL_CAPS[@]}"; do
      (( (own >> n) & 1 )) && caps+=("${ALL_CAPS[$n]}")
    done
  fi
  bounding="-all"
  for cap in "${caps[@]}"; do
    case $cap in "~"*) die "$unit_file: an inverted CapabilityBoundingSet= is not emulated" ;; esac
    case " ${implied_drops[*]^^} " in *" ${cap^^} "*|*" CAP_${cap^^} "*) continue ;; esac
    n=$(cap_number "$cap") || die "$unit_file: setpriv does not know the capability $cap"
    cap_mask=$((cap_mask | (1 << n)))
    bounding+=",+${ALL_CAPS[$n]}"
  done
  setpriv_args=(--inh-caps=-all --ambient-caps=-all "--bounding-set=$bounding")
  unit_bool NoNewPrivileges && setpriv_args=(--no-new-privs "${setpriv_args[@]}")

  # Seccomp.
  if [ -x "$build_dir/tests/tools/run-with-syscall-filter" ]; then
    filter_tool=$build_dir/tests/tools/run-with-syscall-filter
    if [ -n "$(unit_assignments SystemCallFilter)" ]; then
      command -v systemd-analyze >/dev/null || die "systemd-analyze not found (apt-get install -y systemd)"
      syscall_allow_list
      filter_args+=(--errno "$(unit_value SystemCallErrorNumber | sed 's/^$/kill/')")
      n_filters=$((n_filters + 1))
    fi
    case $(unit_value SystemCallArchitectures) in
      ""|native) ;; # every filter of the tool covers the native architecture only
      *) die "$unit_file: SystemCallArchitectures=$(unit_value SystemCallArchitectures) is not emulated" ;;
    esac
    mapfile -t families < <(unit_list RestrictAddressFamilies)
    if [ ${#families[@]} -gt 0 ]; then
      case ${families[0]} in "~"*) die "$unit_file: a deny-list RestrictAddressFamilies= is not emulated" ;; esac
      filter_args+=(--address-families "$(IFS=,; echo "${families[*]}")")
      n_filters=$((n_filters + 1))
    fi
    case $(unit_value RestrictNamespaces) in
      ""|no|false) ;;
      yes|true) filter_args+=(--restrict-namespaces); n_filters=$((n_filters + 1)) ;;
      *) die "$unit_file: RestrictNamespaces=$(unit_value RestrictNamespaces) is not emulated (only yes or no)" ;;
    esac
    for pair in MemoryDenyWriteExecute:--memory-deny-write-execute RestrictRealtime:--restrict-realtime \
                LockPersonality:--lock-personality RestrictSUIDSGID:--restrict-suid-sgid; do
      if unit_bool "${pair%%:*}"; then
        filter_args+=("${pair#*:}")
        n_filters=$((n_filters + 1))
      fi
    done
  else
    echo "$PROG: note: $build_dir/tests/tools/run-with-syscall-filter is not built (libseccomp-dev):" \
         "SystemCallFilter= and the other seccomp settings are not applied" >&2
  fi

  # Namespaces.
  ns[system]=$(unit_value ProtectSystem)
  ns[home]=$(unit_value ProtectHome)
  for key in PrivateTmp PrivateDevices ProtectKernelModules ProtectKernelTunables ProtectKernelLogs \
             ProtectControlGroups PrivateNetwork ProtectHostname; do
    ns[$key]=0
    if unit_bool $key; then ns[$key]=1; fi
  done
  case ${ns[system]} in ""|no|false|yes|true|full|strict) ;; *) die "$unit_file: ProtectSystem=${ns[system]}?" ;; esac
  case ${ns[home]} in ""|no|false|yes|true|read-only|tmpfs) ;; *) die "$unit_file: ProtectHome=${ns[home]}?" ;; esac
  proc_options=()
  case $(unit_value ProtectProc) in
    ""|default) ;;
    invisible|noaccess|ptraceable) proc_options+=("hidepid=$(unit_value ProtectProc)") ;;
    *) die "$unit_file: ProtectProc=$(unit_value ProtectProc)?" ;;
  esac
  case $(unit_value ProcSubset) in
    ""|all) ;;
    pid) proc_options+=(subset=pid) ;;
    *) die "$unit_file: ProcSubset=$(unit_value ProcSubset)?" ;;
  esac
  ns[proc]=$(IFS=,; echo "${proc_options[*]}")
  mapfile -t runtime_dirs < <(unit_list RuntimeDirectory)
  for d in "${runtime_dirs[@]}"; do
    case $d in */*|.*|"") die "$unit_file: RuntimeDirectory=$d: only plain names are emulated" ;; esac
  done
  read_write=()
  while read -r p; do
    case $p in
      -/*) [ ! -e "${p#-}" ] || read_write+=("${p#-}") ;;
      /*) [ -e "$p" ] || die "$unit_file: ReadWritePaths=$p does not exist here"; read_write+=("$p") ;;
      *) die "$unit_file: ReadWritePaths=$p is not emulated (only absolute paths, maybe with -)" ;;
    esac
  done < <(unit_list ReadWritePaths)
  ns[runtime_mode]=$(unit_value RuntimeDirectoryMode)
  ns[umask]=$(unit_value UMask)
  ns[nofile]=$(unit_value LimitNOFILE)
  ns[memlock]=$(unit_value LimitMEMLOCK)
  [ -n "${ns[memlock]}" ] || ns[memlock]=8M
  # ulimit counts KiB; the unit bytes, K or M.
  case ${ns[memlock]} in
    infinity) ns[memlock]=unlimited ;;
    *[0-9]K) ns[memlock]=${ns[memlock]%K} ;;
    *[0-9]M) ns[memlock]=$((${ns[memlock]%M} * 1024)) ;;
    *[0-9]) ns[memlock]=$((ns[memlock] / 1024)) ;;
    *) die "$unit_file: LimitMEMLOCK=${ns[memlock]}: only N, NK, NM and infinity are emulated" ;;
  esac
  case ${ns[nofile]} in
    infinity) ns[nofile]=unlimited ;;
    *[!0-9]*) die "$unit_file: LimitNOFILE=${ns[nofile]}: only a number or infinity is emulated" ;;
  esac
  # Without CAP_SYS_RESOURCE (a container) a hard limit cannot be raised.
  for pair in nofile:n memlock:l; do
    key=${pair%%:*} hard=$(ulimit -H"${pair#*:}")
    if [ -n "${ns[$key]}" ] && [ "$hard" != unlimited ] &&
       { [ "${ns[$key]}" = unlimited ] || [ "${ns[$key]}" -gt "$hard" ]; }; then
      echo "$PROG: note: the daemon gets ulimit -${pair#*:} $hard, not ${ns[$key]}: this process cannot raise its hard limit" >&2
      ns[$key]=$hard
    fi
  done
  case ${ns[home]}:$build_dir in
    yes:/home/*|yes:/root/*|true:/home/*|true:/root/*|tmpfs:/home/*|tmpfs:/root/*)
      die "ProtectHome=${ns[home]} would hide $build_dir from the daemon: build elsewhere to measure it" ;;
  esac
fi

# ---------------------------------------------------------------------------
# Runs as root in the daemon's new mount namespace, lays it out as systemd
# would from the NS_* variables, then execs "$@".  Propagation is "slave", as
# under systemd: mounts of the host still appear, nothing leaks out.
enter_namespace () {
  set -euo pipefail
  local stage=$NS_STAGE d p rel opts mp private fd
  local -a keep_ro keep_rw writable ro_roots forced_ro runtime_dirs read_write

  # Lists are one item a line.
  mapfile -t keep_ro < <(printf '%s\n' "$NS_KEEP_RO" | grep .)
  mapfile -t keep_rw < <(printf '%s\n' "$NS_KEEP_RW" | grep .)
  mapfile -t runtime_dirs < <(printf '%s\n' "$NS_RUNTIME_DIRS" | grep .)
  mapfile -t read_write < <(printf '%s\n' "$NS_READ_WRITE" | grep .)
  # $1 equals $2 or lies below it.
  under () { [ "$2" = / ] || [ "$1" = "$2" ] || [[ $1 == "$2"/* ]]; }
  # Whether mount point $1 becomes read-only: what forced_ro names; else
  # what lies below ro_roots, except the API file systems, the private /tmp
  # and /var/tmp themselves (not what is bound into them), the runtime
  # directories and the writable paths.
  made_read_only () {
    local d
    for d in "${forced_ro[@]}"; do
      ! under "$1" "$d" || return 0
    done
    for d in /dev /proc /sys "${writable[@]}"; do
      case $d in
        /tmp|/var/tmp) [ "$1" != "$d" ] || return 1 ;;
        *) ! under "$1" "$d" || return 1 ;;
      esac
    done
    for d in "${ro_roots[@]}"; do
      ! under "$1" "$d" || return 0
    done
    return 1
  }

  # PrivateDevices=: a tmpfs with the harmless device nodes only.
  if [ "$NS_PRIVATE_DEVICES" = 1 ]; then
    mount -t tmpfs -o mode=0755,nosuid,noexec tmpfs "$stage/dev"
    for d in null zero full random urandom tty; do
      : > "$stage/dev/$d"
      mount --bind "/dev/$d" "$stage/dev/$d"
    done
    for d in pts shm mqueue hugepages; do
      if [ -d "/dev/$d" ]; then
        mkdir "$stage/dev/$d"
        mount --bind "/dev/$d" "$stage/dev/$d"
      fi
    done
    ln -s pts/ptmx "$stage/dev/ptmx"
    ln -s /run/systemd/journal/dev-log "$stage/dev/log"
    ln -s /proc/self/fd "$stage/dev/fd"
    ln -s /proc/self/fd/0 "$stage/dev/stdin"
    ln -s /proc/self/fd/1 "$stage/dev/stdout"
    ln -s /proc/self/fd/2 "$stage/dev/stderr"
    mount --move "$stage/dev" /dev
  fi

  # ProtectProc=, ProcSubset=: a procfs instance of its own.
  [ -z "$NS_PROC" ] || mount -t proc -o "nosuid,nodev,noexec,$NS_PROC" proc /proc

  # ProtectKernelLogs=: the kernel log files become inaccessible.
  if [ "$NS_PROTECT_KERNEL_LOGS" = 1 ]; then
    : > "$stage/inaccessible"
    chmod 000 "$stage/inaccessible"
    for p in /proc/kmsg /dev/kmsg; do
      [ ! -e "$p" ] || mount --bind "$stage/inaccessible" "$p"
    done
  fi

  # RuntimeDirectory=: writable, and private to this daemon.
  writable=()
  for d in "${runtime_dirs[@]}"; do
    mount --bind "$stage/runtime/$d" "/run/$d"
    writable+=("/run/$d")
  done
  # ReadWritePaths=, and the paths the harness must write.
  for p in "${read_write[@]}" "${keep_rw[@]}"; do
    mount --bind "$p" "$p"
    writable+=("$p")
  done

  # PrivateTmp=: a new /tmp and /var/tmp, with the kept paths bound into
  # them.  The stage may lie in either: both are opened before either is
  # covered, and mounted from the descriptors.
  if [ "$NS_PRIVATE_TMP" = 1 ]; then
    local -A private_fd=()
    for d in /tmp /var/tmp; do
      private=$stage/private${d//\//-}
      for p in "${keep_ro[@]}" "${keep_rw[@]}"; do
        if [[ $p == "$d"/* ]]; then
          rel=${p#"$d"/}
          mkdir -p "$private/$rel"
          mount --rbind "$p" "$private/$rel"
        fi
      done
      exec {fd}< "$private"
      private_fd[$d]=$fd
    done
    for d in /tmp /var/tmp; do
      fd=${private_fd[$d]}
      mount --no-canonicalize --rbind "/proc/self/fd/$fd" "$d"
      exec {fd}<&-
      writable+=("$d")
    done
  fi

  # ProtectHome=yes|tmpfs: inaccessible or empty.
  case $NS_PROTECT_HOME in
    yes|true|tmpfs)
      [ "$NS_PROTECT_HOME" = tmpfs ] && opts=mode=0755 || opts=mode=0000
      for d in /home /root /run/user; do
        [ ! -d "$d" ] || mount -t tmpfs -o "ro,nosuid,nodev,noexec,$opts" tmpfs "$d"
      done ;;
  esac

  # ProtectKernelModules=: no module directory.
  if [ "$NS_PROTECT_KERNEL_MODULES" = 1 ]; then
    for d in /usr/lib/modules /lib/modules; do
      if [ -d "$d" ] && [ ! -L "$d" ] && { [ "$d" = /usr/lib/modules ] || [ ! "$d" -ef /usr/lib/modules ]; }; then
        mount -t tmpfs -o ro,mode=0000 tmpfs "$d"
      fi
    done
  fi

  # ProtectSystem=, ProtectHome=read-only: every mount below these roots
  # becomes read-only, except the API file systems and the writable paths;
  # ProtectControlGroups= and ProtectKernelTunables= reach into /sys and /proc.
  case $NS_PROTECT_SYSTEM in
    strict) ro_roots=(/) ;;
    full) ro_roots=(/usr /boot /efi /etc) ;;
    yes|true) ro_roots=(/usr /boot /efi) ;;
    *) ro_roots=() ;;
  esac
  [ "$NS_PROTECT_HOME" != read-only ] || ro_roots+=(/home /root /run/user)
  forced_ro=()
  [ "$NS_PROTECT_CONTROL_GROUPS" != 1 ] || forced_ro+=(/sys/fs/cgroup)
  [ "$NS_PROTECT_KERNEL_TUNABLES" != 1 ] || forced_ro+=(/sys /proc/sys /proc/sysrq-trigger)
  for d in "${ro_roots[@]}" "${forced_ro[@]}"; do
    if [ -e "$d" ] && ! mountpoint -q "$d"; then
      mount --rbind "$d" "$d"
    fi
  done
  while read -r opts mp; do
    case $mp in *\\*) mp=$(printf '%b' "$mp") ;; esac
    case ,$opts, in *,ro,*) continue ;; esac
    # Covered since (the staged /tmp binds): out of reach anyway.
    mountpoint -q "$mp" || continue
    if made_read_only "$mp"; then
      mount -o remount,bind,ro "$mp"
    fi
  done < <(awk '{ print $6, $5 }' /proc/self/mountinfo)

  [ -z "$NS_UMASK" ] || umask "$NS_UMASK"
  [ -z "$NS_NOFILE" ] || ulimit -n "$NS_NOFILE"
  [ -z "$NS_MEMLOCK" ] || ulimit -l "$NS_MEMLOCK"
  exec "$@"
}

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

# Stops $1 (SIGTERM, then SIGKILL after $2 seconds, default 2.5) and puts its
# exit status in stop_status and whether it needed SIGKILL in stop_killed.
stop_status=0
stop_killed=0
stop () {
  local pid=$1 tenths=${2:-25} _
  stop_status=0
  stop_killed=0
  [ -n "$pid" ] || return 0
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq $((tenths * 2))); do
      alive "$pid" || break
      sleep 0.05
    done
    if alive "$pid"; then
      echo "$PROG: pid $pid ignored SIGTERM for $((tenths / 10)).$((tenths % 10)) s; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      stop_killed=1
    fi
  fi
  wait "$pid" 2>/dev/null || stop_status=$?
}

describe_status () {
  if [ "$1" -gt 128 ]; then
    echo "killed by SIG$(kill -l $(($1 - 128)) 2>/dev/null || echo $(($1 - 128)))"
  else
    echo "exit status $1"
  fi
}

cleanup () {
  local status=$1 log
  [ "$cleaned" -eq 0 ] || return 0
  cleaned=1
  trap - INT TERM
  # Reverse order of start: the daemon, then polkitd, then the bus.
  stop "$daemon_pid" 100
  stop "$polkitd_pid"
  stop "$bus_pid"
  if [ -n "$WORK" ] && [ -d "$WORK" ]; then
    if [ "$status" -ne 0 ]; then
      if [ "$cmd_ran" -eq 1 ]; then
        echo "$PROG: exiting with status $status" >&2
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
    // Several continuous sessions: sysprof-test-other only, so that tests
    // see both the limit and the grant.
    if (action.id == "$CONTINUOUS_MANY_ACTION_ID") {
        var many = subject.user == "sysprof-test-other";
        polkit.log("$CONTINUOUS_MANY_ACTION_ID: user=" + subject.user + " => " + (many ? "YES" : "NO"));
        return many ? polkit.Result.YES : polkit.Result.NO;
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
# A waiter that fails before the time is up (seen once in CI: gdbus gave up
# within a second, its connection refused while the bus was starting) is
# started again; its last words go into the message.
wait_for_name () {
  local name=$1 pid=$2 what=$3 waiter rc _ left deadline
  deadline=$((SECONDS + 11))
  gdbus wait --system --timeout 10 "$name" </dev/null >/dev/null 2>"$WORK/logs/wait.err" &
  waiter=$!
  for _ in $(seq 220); do
    if ! alive "$waiter"; then
      rc=0; wait "$waiter" || rc=$?
      [ $rc -eq 0 ] && return 0
      left=$((deadline - SECONDS))
      [ $left -gt 1 ] || fail_start "$what did not own $name within 10 s (see logs; gdbus: $(tr '\n' ' ' < "$WORK/logs/wait.err"))"
      sleep 0.1
      gdbus wait --system --timeout $((left - 1)) "$name" </dev/null >/dev/null 2>"$WORK/logs/wait.err" &
      waiter=$!
      continue
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


# ---------------------------------------------------------------------------
# The daemon.

# Fails unless the running daemon holds exactly the capabilities, no_new_privs
# and seccomp filters the unit gives it, in a mount namespace of its own with
# / read-only (ProtectSystem=strict) and /proc mounted as ProtectProc= says.
check_confinement () {
  local status=/proc/$daemon_pid/status field value extra missing problems=()
  field_of () { awk -v f="$1:" '$1 == f { print $2 }' "$status"; }

  [ "/proc/$daemon_pid/exe" -ef "$sysprofd" ] || problems+=("pid $daemon_pid does not run $sysprofd")
  [ "$(readlink "/proc/$daemon_pid/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] \
    || problems+=("it shares the harness's mount namespace")
  # Two samples of the layout: its / and its /proc as it sees them.
  if [ "${ns[system]}" = strict ]; then
    awk '$5 == "/" { o = $6 } END { exit !(o ~ /^ro(,|$)/) }' "/proc/$daemon_pid/mountinfo" \
      || problems+=("its / is writable, the unit says ProtectSystem=strict")
  fi
  if [ -n "${ns[proc]}" ]; then
    awk -v want="${ns[proc]}" '$5 == "/proc" { o = $NF } END { n = split(want, w, ","); for (i = 1; i <= n; i++) if (index("," o ",", "," w[i] ",") == 0) exit 1 }' \
      "/proc/$daemon_pid/mountinfo" || problems+=("its /proc is not mounted with ${ns[proc]}")
  fi
  for field in CapEff CapPrm CapBnd; do
    value=$((16#$(field_of $field)))
    extra=$((value & ~cap_mask))
    missing=$((cap_mask & ~value))
    [ $extra -eq 0 ] || problems+=("$field holds capabilities outside CapabilityBoundingSet: $(cap_names "$(printf %x $extra)")")
    [ $missing -eq 0 ] || problems+=("$field lacks capabilities the unit grants (does the harness itself hold them?): $(cap_names "$(printf %x $missing)")")
  done
  for field in CapInh CapAmb; do
    value=$((16#$(field_of $field)))
    [ $value -eq 0 ] || problems+=("$field is not empty: $(cap_names "$(printf %x $value)")")
  done
  if printf '%s\n' "${setpriv_args[@]}" | grep -qx -- --no-new-privs; then
    [ "$(field_of NoNewPrivs)" = 1 ] || problems+=("NoNewPrivs is $(field_of NoNewPrivs), the unit says NoNewPrivileges=yes")
  fi
  if [ $n_filters -gt 0 ]; then
    [ "$(field_of Seccomp)" = 2 ] || problems+=("Seccomp is $(field_of Seccomp), not 2 (filtering)")
    [ "$(field_of Seccomp_filters)" = $n_filters ] \
      || problems+=("Seccomp_filters is $(field_of Seccomp_filters), expected $n_filters")
  fi
  if [ ${#problems[@]} -gt 0 ]; then
    fail_start "sysprofd is not confined as $unit_file says:$(printf '\n  %s' "${problems[@]}")"
  fi
}

# Both run in the background and exec, so that $! is the daemon's pid (and
# bash's note about a daemon killed by a signal stays short).
confined_sysprofd () {
  # shellcheck disable=SC2016  # "$@" is expanded by the inner bash
  exec env NS_STAGE="$stage" NS_KEEP_RO="$WORK/run"$'\n'"$WORK/confinement"$'\n'"$build_dir" NS_KEEP_RW="$WORK/logs" \
      NS_RUNTIME_DIRS="$(printf '%s\n' "${runtime_dirs[@]}")" NS_READ_WRITE="$(printf '%s\n' "${read_write[@]}")" \
      NS_PROTECT_SYSTEM="${ns[system]}" NS_PROTECT_HOME="${ns[home]}" NS_PRIVATE_TMP="${ns[PrivateTmp]}" \
      NS_PRIVATE_DEVICES="${ns[PrivateDevices]}" NS_PROTECT_KERNEL_MODULES="${ns[ProtectKernelModules]}" \
      NS_PROTECT_KERNEL_TUNABLES="${ns[ProtectKernelTunables]}" NS_PROTECT_KERNEL_LOGS="${ns[ProtectKernelLogs]}" \
      NS_PROTECT_CONTROL_GROUPS="${ns[ProtectControlGroups]}" NS_PROC="${ns[proc]}" NS_UMASK="${ns[umask]}" \
      NS_NOFILE="${ns[nofile]}" NS_MEMLOCK="${ns[memlock]}" \
    unshare "${unshare_args[@]}" -- bash -c "$(declare -f enter_namespace); enter_namespace \"\$@\"" \
      enter_namespace "${daemon_cmd[@]}"
}

unconfined_sysprofd () {
  # Its own state dir, not the machine's /run/sysprofd.
  exec env "${sanitizer_env[@]}" "$sysprofd" --state-dir "$WORK/state" "${daemon_args[@]}"
}

if [ $start_daemon -eq 1 ]; then
  sanitizer_env=()
  if [ $sanitized -eq 1 ]; then
    # Ours last: they win over the caller's (tools/test.sh asks for leaks).
    sanitizer_env=(
      "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}abort_on_error=1:detect_leaks=0:log_path=$WORK/logs/asan"
      "UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1:log_path=$WORK/logs/ubsan"
      G_SLICE=always-malloc
    )
  fi
  if [ $confined -eq 1 ]; then
    stage=$WORK/ns
    mkdir -p "$stage"/{dev,private-tmp,private-var-tmp,runtime} "$WORK/confinement"
    chmod 1777 "$stage/private-tmp" "$stage/private-var-tmp"
    mode=${ns[runtime_mode]:-0755}
    for d in "${runtime_dirs[@]}"; do
      mkdir -p "$stage/runtime/$d"
      chmod "$mode" "$stage/runtime/$d"
      # The mount point (the one global change for the daemon, see the header).
      [ -d "/run/$d" ] || install -d -m "$mode" "/run/$d"
    done
    export SYSPROFD_TEST_RUNTIME_DIR=$stage/runtime/sysprofd
    # The clean environment systemd gives a service, plus the private bus.
    daemon_cmd=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
                "DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS" "${sanitizer_env[@]}")
    [ -z "${G_MESSAGES_DEBUG:-}" ] || daemon_cmd+=("G_MESSAGES_DEBUG=$G_MESSAGES_DEBUG")
    daemon_cmd+=(setpriv "${setpriv_args[@]}" --)
    if [ -n "$filter_tool" ]; then
      if [ ${#syscalls[@]} -gt 0 ] || [ -n "$(unit_assignments SystemCallFilter)" ]; then
        printf '%s\n' "${syscalls[@]}" > "$WORK/confinement/syscall-allow.txt"
        filter_args+=(--allow-file "$WORK/confinement/syscall-allow.txt")
      fi
      daemon_cmd+=("$filter_tool" "${filter_args[@]}" --)
    fi
    daemon_cmd+=("$sysprofd" "${daemon_args[@]}")
    unshare_args=(--mount --propagation slave)
    [ "${ns[ProtectHostname]}" = 0 ] || unshare_args+=(--uts)
    [ "${ns[PrivateNetwork]}" = 0 ] || unshare_args+=(--net)
    confined_sysprofd </dev/null >"$WORK/logs/sysprofd.log" 2>&1 &
    daemon_pid=$!
    export SYSPROFD_TEST_CONFINED=1
  else
    unconfined_sysprofd </dev/null >"$WORK/logs/sysprofd.log" 2>&1 &
    daemon_pid=$!
    export SYSPROFD_TEST_CONFINED=0 SYSPROFD_TEST_RUNTIME_DIR=$WORK/state
  fi
  wait_for_name "$SERVICE_NAME" "$daemon_pid" sysprofd
  [ $confined -eq 0 ] || check_confinement
fi

# ---------------------------------------------------------------------------
cmd_ran=1
status=0
"$@" || status=$?

# The daemon must have lived through the command, stop cleanly and leave no
# sanitizer report.
if [ -n "$daemon_pid" ]; then
  problems=()
  if ! alive "$daemon_pid"; then
    rc=0
    wait "$daemon_pid" 2>/dev/null || rc=$?
    if [ $rc -eq 0 ]; then
      # Its idle timeout, or the command stopped it: not a failure.
      echo "$PROG: note: sysprofd (pid $daemon_pid) exited with status 0 while the command ran" >&2
    else
      problems+=("sysprofd (pid $daemon_pid) died while the command ran: $(describe_status $rc) (see logs/sysprofd.log)")
    fi
  else
    stop "$daemon_pid" 100
    if [ $stop_killed -eq 1 ]; then
      problems+=("sysprofd did not exit within 10 s of SIGTERM")
    elif [ $stop_status -ne 0 ]; then
      problems+=("sysprofd ended with $(describe_status $stop_status) after SIGTERM (see logs/sysprofd.log)")
    fi
  fi
  daemon_pid=
  for report in "$WORK"/logs/asan.* "$WORK"/logs/ubsan.*; do
    [ -f "$report" ] || continue
    problems+=("sanitizer report ${report#"$WORK"/} (below)")
  done
  if [ ${#problems[@]} -gt 0 ]; then
    printf "$PROG: %s\n" "${problems[@]}" >&2
    [ $status -ne 0 ] || status=1
  fi
fi
exit $status
