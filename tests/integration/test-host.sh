#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# org.gnome.Sysprof3.Host against the real polkitd, a private system bus, real
# unprivileged users, a private mount namespace and a bubblewrap sandbox laid
# out like a Flatpak instance.  Run under tools/with-sysprofd.sh:
#   test-host.sh HOST_PARSE INTERFACE_XML
# Creates (and removes on exit) a test-private branch of org.example.App.Debug
# under /var/lib/flatpak and under the allowed test user's home directory.
set -euo pipefail
host_parse=$(realpath "$1") xml=$2
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
# Details after the first line become TAP comments.
fail () { echo "not ok $((n + 1)) - $*" | sed '2,$s/^/# /'; exit 1; }

for tool in cc readelf unshare bwrap findmnt pgrep; do
  command -v "$tool" > /dev/null || fail "$tool not found (tools/deps.sh installs what the tests need)"
done

# Everything started or created here goes away on exit, by pid and by path.
# Sandboxed processes go first, so that the runuser above them exits on its
# own instead of complaining about a signal.
pids=()
sandboxes=() # runuser processes, which end when their sandbox does
inner=()     # the processes in the sandboxes
created=()
alive () { local stat; stat=$(cat "/proc/$1/stat" 2> /dev/null) || return 1; stat=${stat##*) }; [ "${stat%% *}" != Z ]; }
cleanup () {
  local p _
  for p in "${inner[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${sandboxes[@]}"; do
    for _ in $(seq 50); do alive "$p" || break; sleep 0.05; done
  done
  for p in "${sandboxes[@]}" "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${sandboxes[@]}" "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
  for p in "${created[@]}"; do rm -rf -- "$p"; done
}
trap cleanup EXIT

# Makes directory $1 and remembers the topmost directory that did not exist.
mkdir_tracked () {
  local d=$1 top=
  while [ ! -e "$d" ]; do top=$d; d=$(dirname "$d"); done
  if [ -n "$top" ]; then created+=("$top"); fi
  mkdir -p "$1"
}

as () { local user=$1; shift; runuser -u "$user" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
call_as () { local user=$1 method=$2; shift 2
  as "$user" gdbus call --system --timeout 20 -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 \
    -m "org.gnome.Sysprof3.Host.$method" -- "$@"; }
call () { call_as sysprof-test-allowed "$@"; }
# A call that must fail with D-Bus error $1 and a message matching $2.
call_fails () { local error=$1 pattern=$2 method=$3 out; shift 3
  if out=$(call "$method" "$@" 2>&1); then fail "$method $* answered: $(echo "$out" | head -c 200)"; fi
  echo "$out" | grep -q "GDBus.Error:org.freedesktop.DBus.Error.$error: .*$pattern" \
    || fail "$method $*: expected $error matching '$pattern', got: $out"; }
# Any string as gdbus's byte array literal, so that any byte gets through.
bytes_of () { printf '[%s]' "$(printf '%s' "$1" | od -An -tx1 -v | xargs | sed 's/\([0-9a-f][0-9a-f]\)/byte 0x\1,/g; s/,$//')"; }
# ResolvePath's answer as a plain path.
resolve () { call ResolvePath "$1" "b'$2'" | sed -n "s/^(b'\(.*\)',)$/\1/p"; }
# ListDebugDirectories' answer, one path a line, in order.
debug_dirs () { call ListDebugDirectories "$1" | grep -o "b'[^']*'" | sed "s/^b'//; s/'$//"; }
build_id () { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }
wait_mapped () { local pid=$1 _
  for _ in $(seq 200); do
    grep -q libdemo.so "/proc/$pid/maps" 2> /dev/null && return 0
    kill -0 "$pid" 2> /dev/null || fail "process $pid exited before loading libdemo.so"
    sleep 0.05
  done
  fail "process $pid did not load libdemo.so within 10 s"; }
# The process below $1 (itself included) that mapped libdemo.so.
find_loader () { local queue=("$1") p
  while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}; queue=("${queue[@]:1}")
    if grep -q libdemo.so "/proc/$p/maps" 2> /dev/null; then echo "$p"; return 0; fi
    mapfile -t -O ${#queue[@]} queue < <(pgrep -P "$p")
  done
  return 1; }

# ---------------------------------------------------------------------------
# Authorization: every method, from introspection, refused to the denied user.
mapfile -t methods < <(gdbus introspect --system -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 \
  | sed -n '/interface org.gnome.Sysprof3.Host /,/};/p' | sed -n 's/^ *\([A-Z][A-Za-z]*\)(.*/\1/p')
[ ${#methods[@]} -eq 6 ] || fail "expected 6 Host methods, introspection shows: ${methods[*]}"
grep -c '<method' "$xml" | grep -qx 6 || fail "interface XML and daemon disagree"
args_for () {
  case $1 in
    GetKernelSymbols) echo "" ;;
    GetMountInfo|ListDebugDirectories) echo "$$" ;;
    ResolvePath) echo "$$ b'/'" ;;
    ResolvePaths) echo "[($$,b'/')]" ;;
    ListDebugDirectoriesForPids) echo "[$$]" ;;
  esac
}
for m in "${methods[@]}"; do
  # shellcheck disable=SC2046
  if out=$(call_as sysprof-test-denied "$m" $(args_for "$m") 2>&1); then
    fail "denied user called $m: $(echo "$out" | head -c 200)"
  fi
  echo "$out" | grep -q 'org.freedesktop.DBus.Error.AccessDenied: Not authorized to make request: polkit denied' \
    || fail "$m for the denied user: unexpected answer: $out"
done
ok "denied user: all ${#methods[@]} Host methods refused by polkit with AccessDenied"

# ---------------------------------------------------------------------------
# Kernel symbols: real addresses, even where the user's own read shows zeros.
call GetKernelSymbols > "$W/ksyms.txt"
nonzero=$(tr '(' '\n' < "$W/ksyms.txt" | grep -cE "^(uint64 )?[1-9][0-9]*, (byte )?0x[0-9a-f]+, '" || true)
[ "$nonzero" -gt 1000 ] || fail "GetKernelSymbols: only $nonzero non-zero addresses"
grep -qE "[1-9][0-9]*, (byte )?0x[0-9a-f]+, '(_stext|_text|start_kernel)'" "$W/ksyms.txt" \
  || fail "GetKernelSymbols lacks a non-zero _stext, _text or start_kernel"
# shellcheck disable=SC2016  # an awk program
if [ -z "$(as sysprof-test-allowed awk '$1 !~ /^0+$/ { print; exit }' /proc/kallsyms)" ]; then
  own="the user's own /proc/kallsyms shows only zeros"
else
  own="this kernel shows the user real addresses too (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid), kptr_restrict $(cat /proc/sys/kernel/kptr_restrict))"
fi
rm -f "$W/ksyms.txt"
ok "GetKernelSymbols: $nonzero symbols with real addresses; $own"

# ---------------------------------------------------------------------------
# The mountinfo parser on malformed input (the kernel never writes any).
{
  printf '%s\n' '36 35 98:0 /mnt1 /mnt\0402 rw,noatime master:1 - ext3 /dev/root rw,errors=continue'
  printf '%s\n' '37 35 0:5 /a\011b /t\134u\012v rw - tmpfs  rw,size=1k'
  printf '%s\n' '38 35 0:6 / /opt rw shared:1 master:2 propagate_from:3 unbindable - proc proc rw'
  printf '%s\n' '39 35 1:2 / /p\04 rw - x\040y s\000 o\054p'
  printf '%s\n' '40 35 1:2 / /\377 rw - x y z'
  printf '%s\n' '' garbage '1 2 3' '- - - - - - - - - -'
  printf '%s\n' 'x 35 98:0 / /m rw - ext4 /dev/sda rw' '41 35 98 / /m rw - ext4 /dev/sda rw'
  printf '%s\n' '42 35 98:0 / /m rw ext4 /dev/sda rw' '43 35 98:0 / /m rw - ext4 /dev/sda'
  printf '%s\n' '44 35 98:0 / /m rw - ext4 /dev/sda rw extra' '45 35 4294967296:0 / /m rw - x y z'
  printf '%s\n' '46 35 1:2 / relative rw - x y z' '99999999999 35 1:2 / /m rw - x y z'
  printf '%s\n' '47  35 1:2 / /m rw - x y z' '48 35 1:2  /m rw - x y z' '49 35 1:-2 / /m rw - x y z'
  printf '50 35 1:2 / /m\0 rw - x y z\n51 35 1:2 / /m rw - x y z\r\n'
  head -c 300000 /dev/zero | tr '\0' 'a'; printf '\n'
  printf '52 35 1:2 / /last rw - x y z'
} > "$W/bad-mountinfo"
"$host_parse" mountinfo < "$W/bad-mountinfo" > "$W/parsed" || fail "host-parse mountinfo failed"
[ "$(wc -l < "$W/parsed")" -eq 7 ] || fail "expected 7 parsed lines, got: $(cat "$W/parsed")"
# As g_variant_print() shows them: a tab as \t, a backslash as \\, \377 as U+FFFD.
wants=("'mount-point': <'/mnt 2'>" "'root': <'/mnt1'>" "'source': <'/dev/root'>" "'major': <uint32 98>"
       "'super-options': <'rw,errors=continue'>" "'root': <'/a\tb'>" "'mount-point': <'/t\\\\u\nv'>"
       "'source': <''>" "'options': <'rw'>" "'mount-point': <'/opt'>" "'mount-point': <'/p\\\\04'>"
       "'fstype': <'x y'>" "'source': <'s\\\\000'>" "'super-options': <'o\\\\054p'>"
       "'mount-point': <'/�'>" "'mount-point': <'/last'>" "'super-options': <'z\r'>")
for want in "${wants[@]}"; do
  grep -qF -- "$want" "$W/parsed" || fail "parsed mountinfo lacks $want:
$(cat "$W/parsed")"
done
# What the kernel writes, through the daemon: nothing is left out.
sleep 60 & sleeper=$!; pids+=("$sleeper")
got=$(call GetMountInfo "$sleeper" | grep -o "'mount-id'" | wc -l)
[ "$got" -eq "$(wc -l < "/proc/$sleeper/mountinfo")" ] || fail "GetMountInfo($sleeper): $got mounts, the kernel lists more"
ok "mountinfo: the 7 good lines of $(($(wc -l < "$W/bad-mountinfo") + 1)) parsed with escapes decoded, malformed ones skipped; GetMountInfo lists all $got real mounts"

# The /.flatpak-info parser keeps sandbox-chosen names from climbing out.
printf '[Application]\nname=../../../etc\nruntime=runtime/../x/y\n[Instance]\napp-path=relative\nbranch=a/b\narch=..\nruntime-path=/r/../../s\n' \
  > "$W/bad-info"
out=$("$host_parse" flatpak-info /home/u < "$W/bad-info") || fail "host-parse flatpak-info failed"
[ "$out" = /s/lib/debug ] || fail "hostile .flatpak-info gave: $out"
printf '[Application]\nname=org.example.App\nruntime=runtime/org.example.Platform/x86_64/23.08\n[Instance]\nbranch=b1\n' > "$W/good-info"
out=$("$host_parse" flatpak-info /home/u < "$W/good-info" | tr '\n' ' ')
[ "$out" = "/var/lib/flatpak/app/org.example.App.Debug/x86_64/b1/active/files /home/u/.local/share/flatpak/app/org.example.App.Debug/x86_64/b1/active/files /var/lib/flatpak/runtime/org.example.Platform.Debug/x86_64/23.08/active/files /home/u/.local/share/flatpak/runtime/org.example.Platform.Debug/x86_64/23.08/active/files " ] \
  || fail "flatpak-info candidates: $out"
for junk in '\x00\xff[[[' 'garbage\n[[[' '[Instance]\napp-path=/\xff\n'; do
  rc=0; out=$(printf '%b' "$junk" | "$host_parse" flatpak-info /home/u 2> /dev/null) || rc=$?
  if [ $rc -gt 1 ] || [ -n "$out" ]; then fail "junk .flatpak-info '$junk': status $rc, output: $out"; fi
done
ok ".flatpak-info: names with '/' or '..' and relative paths ignored, extension paths as documented"

# ---------------------------------------------------------------------------
# Two builds of one library that differ in a string, so in build-id, and a
# loader that dlopens one and waits.
ns=$W/ns
mkdir -p "$ns/src" "$ns/host lib" "$ns/app/lib"
for variant in host app; do
  printf 'const char *demo_variant (void);\nconst char *demo_variant (void) { return "%s"; }\n' "$variant" \
    > "$ns/src/demo-$variant.c"
done
cc -shared -fPIC -Wl,--build-id=sha1 -o "$ns/host lib/libdemo.so" "$ns/src/demo-host.c"
cc -shared -fPIC -Wl,--build-id=sha1 -o "$ns/app/lib/libdemo.so" "$ns/src/demo-app.c"
cat > "$ns/src/loader.c" << 'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  if (dlopen (argv[1], RTLD_NOW) == NULL)
    {
      fprintf (stderr, "loader: %s\n", dlerror ());
      return 1;
    }
  for (;;)
    pause ();
}
EOF
cc -o "$ns/loader" "$ns/src/loader.c" -ldl
host_id=$(build_id "$ns/host lib/libdemo.so") app_id=$(build_id "$ns/app/lib/libdemo.so")
if [ -z "$host_id" ] || [ "$host_id" = "$app_id" ]; then fail "build-ids: '$host_id' '$app_id'"; fi
# Seen from inside the namespace, this absolute link leads to the app build.
ln -s "$ns/host lib/libdemo.so" "$ns/app/lib/link.so"
chmod -R a+rX "$ns"

# The app build bind-mounted over the host's directory, in a private mount
# namespace; a tmpfs there that the host cannot reach.
mkdir -p "$ns/private"
# shellcheck disable=SC2016  # expanded by the inner sh
unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && mount -t tmpfs tmpfs "$4" &&
    cp "$1/libdemo.so" "$4/" && exec "$3" "$2/libdemo.so"' \
  sh "$ns/app/lib" "$ns/host lib" "$ns/loader" "$ns/private" &
ns_pid=$!; pids+=("$ns_pid")
wait_mapped "$ns_pid"
[ "$(readlink "/proc/$ns_pid/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] || fail "no new mount namespace"
[ "$(build_id "$ns/host lib/libdemo.so")" = "$host_id" ] || fail "the bind mount leaked to the host"

# GetMountInfo shows the bind mount as the kernel does.
kernel_line=$(MP="${ns}/host\\040lib" awk '$5 == ENVIRON["MP"]' "/proc/$ns_pid/mountinfo" | tail -1)
[ -n "$kernel_line" ] || fail "the kernel shows no bind mount in /proc/$ns_pid/mountinfo"
kernel_root=$(echo "$kernel_line" | awk '{ print $4 }' | sed 's/\\040/ /g')
case $kernel_root in */ns/app/lib) ;; *) fail "unexpected root in the kernel's line: $kernel_line" ;; esac
call GetMountInfo "$ns_pid" | sed 's/}, {/}\n{/g' | grep -F "'mount-point': <'$ns/host lib'>" \
  | grep -qF "'root': <'$kernel_root'>" || fail "GetMountInfo($ns_pid) lacks the bind mount of root $kernel_root"
call GetMountInfo "$ns_pid" | sed 's/}, {/}\n{/g' | grep -F "'mount-point': <'$ns/private'>" \
  | grep -qF "'fstype': <'tmpfs'>" || fail "GetMountInfo($ns_pid) lacks the private tmpfs"
ok "GetMountInfo($ns_pid): the bind mount at '$ns/host lib' (root $kernel_root, \\040 decoded) and the private tmpfs"

# ResolvePath: through the bind mount to the host path of the app build.
app_lib=$(realpath "$ns/app/lib/libdemo.so")
for p in "$ns/host lib/libdemo.so" "$ns/host lib/link.so" "$ns/host lib/../host lib/./libdemo.so" \
         "/..$ns//host lib/libdemo.so"; do
  got=$(resolve "$ns_pid" "$p")
  [ "$got" = "$app_lib" ] || fail "ResolvePath($ns_pid, $p) = '$got', expected $app_lib"
  [ "$(build_id "$got")" = "$app_id" ] || fail "ResolvePath($ns_pid, $p): wrong build-id"
done
# Trailing NUL or not: both forms.
bytes=$(printf '%s' "$ns/host lib/libdemo.so" | od -An -tu1 -v | xargs | sed 's/\([0-9]\+\)/byte \1/g; s/ byte/, byte/g')
got=$(call ResolvePath "$ns_pid" "[$bytes]" | sed -n "s/^(b'\(.*\)',)$/\1/p")
[ "$got" = "$app_lib" ] || fail "ResolvePath without trailing NUL = '$got'"
# Unreachable from the host: /proc/PID/root + the canonical path.
got=$(resolve "$ns_pid" "$ns/private/libdemo.so")
[ "$got" = "/proc/$ns_pid/root$ns/private/libdemo.so" ] || fail "ResolvePath of the private tmpfs = '$got'"
[ "$(build_id "$got")" = "$app_id" ] || fail "ResolvePath of the private tmpfs: wrong build-id"
got=$(resolve "$sleeper" /bin/sh)
[ "$got" = "$(readlink -f /bin/sh)" ] || fail "ResolvePath($sleeper, /bin/sh) = '$got' in the host's own namespace"
ok "ResolvePath($ns_pid): host path $app_lib with the sandboxed build-id ${app_id:0:12}… (host's is ${host_id:0:12}…), via symlink, '..', with and without NUL; private tmpfs -> /proc/PID/root/…"

# ---------------------------------------------------------------------------
# A Flatpak-like instance: bubblewrap run by the allowed user, the app at
# /app, a /.flatpak-info naming host directories, the runtime's lib/debug at
# /usr/lib/debug as flatpak mounts it (when the host has that mount point).
fp=$W/flatpak
arch=x86_64 branch=test-sysprof-$$
app_path=$fp/app/commit1/files
runtime_path=$fp/runtime/active/files # "active" is a link, as in flatpak
mkdir -p "$app_path/lib/debug" "$app_path/bin" "$fp/runtime/commit2/files/lib/debug"
ln -s commit2 "$fp/runtime/active"
cp "$ns/app/lib/libdemo.so" "$app_path/lib/"
cp "$ns/loader" "$app_path/bin/"
# Links that climb: inside the sandbox they stay in it.
ln -s ../lib/libdemo.so "$app_path/bin/rel.so"
ln -s ../../../../../../../../../etc/passwd "$app_path/bin/escape"
cat > "$fp/flatpak-info" << EOF
[Application]
name=org.example.App
runtime=runtime/org.example.Platform/$arch/23.08

[Instance]
instance-id=4242
app-path=$app_path
runtime-path=$runtime_path
branch=$branch
arch=$arch
EOF
chmod -R a+rX "$fp"

# Installed debug extensions: the app's, system-wide and per user; none for
# the runtime, which must then not be listed.
sys_ext=/var/lib/flatpak/app/org.example.App.Debug/$arch/$branch
mkdir_tracked "$sys_ext/c0ffee/files"
ln -s c0ffee "$sys_ext/active"
home=$(getent passwd sysprof-test-allowed | cut -d: -f6)
user_ext=$home/.local/share/flatpak/app/org.example.App.Debug/$arch/$branch
mkdir_tracked "$user_ext/active/files"

bwrap_args=(--ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin
            --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$app_path" /app
            --ro-bind "$fp/flatpak-info" /.flatpak-info --unshare-pid --unshare-user --die-with-parent)
dedup=""
if [ -d /usr/lib/debug ]; then
  bwrap_args+=(--ro-bind "$runtime_path/lib/debug" /usr/lib/debug)
  dedup=", /usr/lib/debug = runtime-path/lib/debug listed once"
fi
runuser -u sysprof-test-allowed -- bwrap "${bwrap_args[@]}" -- /app/bin/loader /app/lib/libdemo.so &
runuser_pid=$!; sandboxes+=("$runuser_pid")
for _ in $(seq 200); do fp_pid=$(find_loader "$runuser_pid") && break; sleep 0.05; done
[ -n "${fp_pid:-}" ] || fail "the sandboxed loader did not start"
inner+=("$fp_pid")
grep -q '^NSpid:.*[[:space:]]2$' "/proc/$fp_pid/status" || fail "the loader is not in a new pid namespace"
grep -q ' /app/lib/libdemo.so$' "/proc/$fp_pid/maps" || fail "the loader did not map /app/lib/libdemo.so"

got=$(resolve "$fp_pid" /app/lib/libdemo.so)
[ "$got" = "$app_path/lib/libdemo.so" ] || fail "ResolvePath($fp_pid, /app/lib/libdemo.so) = '$got'"
[ "$(build_id "$got")" = "$app_id" ] || fail "ResolvePath($fp_pid, /app/lib/libdemo.so): wrong build-id"
got=$(resolve "$fp_pid" /.flatpak-info)
[ "$got" = "$fp/flatpak-info" ] || fail "ResolvePath($fp_pid, /.flatpak-info) = '$got'"
got=$(resolve "$fp_pid" /bin/sh)
[ "$got" = "$(readlink -f /bin/sh)" ] || fail "ResolvePath($fp_pid, /bin/sh) through /bin -> usr/bin = '$got'"
got=$(resolve "$fp_pid" /tmp)
[ "$got" = "/proc/$fp_pid/root/tmp" ] || fail "ResolvePath($fp_pid, /tmp) = '$got'"
[ "$(resolve "$fp_pid" /app/bin/rel.so)" = "$app_path/lib/libdemo.so" ] || fail "ResolvePath($fp_pid, /app/bin/rel.so)"
call_fails FileNotFound "/app/lib/libdemo.so.9 does not exist for process $fp_pid" ResolvePath "$fp_pid" "b'/app/lib/libdemo.so.9'"
# The sandbox has no /etc: neither ".." nor a climbing link reaches the host's.
call_fails FileNotFound "does not exist for process $fp_pid" ResolvePath "$fp_pid" "b'/app/../../../etc/passwd'"
call_fails FileNotFound "does not exist for process $fp_pid" ResolvePath "$fp_pid" "b'/app/bin/escape'"
ok "ResolvePath($fp_pid) in bwrap: /app/lib/libdemo.so -> $app_path/lib/libdemo.so with the sandboxed build-id; a bound file, /bin and relative symlinks, sandbox tmpfs, missing file, no way out through '..'"

mapfile -t dirs < <(debug_dirs "$fp_pid")
expected=()
if [ -d /usr/lib/debug ]; then expected+=("$fp/runtime/commit2/files/lib/debug"); fi
expected+=("$app_path/lib/debug")
if [ ! -d /usr/lib/debug ]; then expected+=("$runtime_path/lib/debug"); fi
expected+=("$sys_ext/active/files" "$user_ext/active/files")
[ "${dirs[*]}" = "${expected[*]}" ] \
  || fail "ListDebugDirectories($fp_pid):$(printf '\n  %s' "${dirs[@]}")
expected:$(printf '\n  %s' "${expected[@]}")"
ok "ListDebugDirectories($fp_pid): ${#dirs[@]} existing directories in order$dedup, app .Debug system and user, no runtime .Debug"

# A process outside any sandbox: the host's own /usr/lib/debug, if any.
mapfile -t dirs < <(debug_dirs "$sleeper")
if [ -d /usr/lib/debug ]; then want=/usr/lib/debug; else want=""; fi
[ "${dirs[*]}" = "$want" ] || fail "ListDebugDirectories($sleeper) = ${dirs[*]}"
# A hostile sandbox whose /.flatpak-info is a FIFO: skipped, not waited on.
mkfifo "$fp/fifo"
chmod a+r "$fp/fifo"
runuser -u sysprof-test-allowed -- bwrap --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
  --proc /proc --dev /dev --ro-bind "$app_path" /app --ro-bind "$fp/fifo" /.flatpak-info \
  --unshare-pid --unshare-user --die-with-parent -- /app/bin/loader /app/lib/libdemo.so &
fifo_runuser=$!; sandboxes+=("$fifo_runuser")
for _ in $(seq 200); do fifo_pid=$(find_loader "$fifo_runuser") && break; sleep 0.05; done
[ -n "${fifo_pid:-}" ] || fail "the second sandbox did not start"
inner+=("$fifo_pid")
start=$SECONDS
mapfile -t dirs < <(debug_dirs "$fifo_pid")
[ $((SECONDS - start)) -lt 5 ] || fail "ListDebugDirectories waited on a FIFO"
[ "${dirs[*]}" = "$want" ] || fail "ListDebugDirectories($fifo_pid) with a FIFO .flatpak-info = ${dirs[*]}"
ok "ListDebugDirectories: plain process -> '${want}'; a FIFO as /.flatpak-info is ignored without blocking"

# ---------------------------------------------------------------------------
# ResolvePath with the caller's rights: the authorized user probing directories
# it cannot search.  The kernel's own answer to the user is checked first, so
# that each case is what it claims to be.
allowed_uid=$(id -u sysprof-test-allowed) allowed_gid=$(id -g sysprof-test-allowed)
sleep 600 & probe=$!; pids+=("$probe")
cred=$W/cred secret=$W/cred/secret
mkdir -p "$cred/open" "$cred/attack"
mkdir -m 700 "$secret"
chmod 755 "$cred" "$cred/open"
echo key > "$secret/key"
echo file > "$cred/open/file"
cp "$ns/host lib/libdemo.so" "$secret/libmapped.so"
echo gone > "$secret/gone.so"
ln -s "$secret/key" "$cred/abs-link"
ln -s "$secret/absent-$$" "$cred/abs-link-absent"
ln -s secret "$cred/rel-link"
as sysprof-test-allowed stat "$cred/open/file" > /dev/null || fail "the user cannot reach $cred/open/file"
as sysprof-test-allowed stat "$secret" > /dev/null || fail "the user cannot stat $secret itself"
if as sysprof-test-allowed stat "$secret/key" > /dev/null 2>&1; then fail "the user can search $secret"; fi

# ResolvePath($2, $3) as user $1: the path, or the error (which then fails
# the comparison that follows and shows in its message).
resolve_as () { local out
  out=$(call_as "$1" ResolvePath "$2" "$(bytes_of "$3")" 2>&1) || { echo "$out"; return 0; }
  echo "$out" | sed -n "s/^(b'\(.*\)',)$/\1/p"; }
# ResolvePath($1, $2) by the allowed user must be refused by the search check
# on directory $3; the whole answer is left in $answer.
expect_denied () { local pid=$1 path=$2 dir=$3
  if answer=$(call ResolvePath "$pid" "$(bytes_of "$path")" 2>&1); then fail "ResolvePath($pid, $path) answered: $answer"; fi
  echo "$answer" | grep -qxF "Error: GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: Access denied: uid $allowed_uid cannot search $dir as process $pid sees it" \
    || fail "ResolvePath($pid, $path): expected AccessDenied on $dir for uid $allowed_uid, got: $answer"; }

# A name that exists and one that does not: the same answer, without the name.
expect_denied "$probe" "$secret/key" "$secret"; first=$answer
for p in "$secret/absent-$$" "$secret/key/x" "$secret/../secret/key" "$secret/." "$cred/abs-link" \
         "$cred/abs-link-absent" "$cred/rel-link/key" "$cred/rel-link/absent-$$"; do
  expect_denied "$probe" "$p" "$secret"
  [ "$answer" = "$first" ] || fail "ResolvePath($probe, $p) answers differently from $secret/key: $answer"
done
case $first in *key*|*absent*) fail "the refusal names the file looked for: $first" ;; esac
got=$(resolve_as sysprof-test-allowed "$probe" "$secret")
[ "$got" = "$secret" ] || fail "ResolvePath of $secret itself (its parent is searchable): $got"
got=$(resolve_as sysprof-test-allowed "$probe" "$cred/open/file")
[ "$got" = "$cred/open/file" ] || fail "ResolvePath of a reachable file: $got"
got=$(resolve_as root "$probe" "$secret/key")
[ "$got" = "$secret/key" ] || fail "ResolvePath($secret/key) as root: $got"
got=$(resolve_as root "$probe" "$cred/abs-link")
[ "$got" = "$secret/key" ] || fail "ResolvePath($cred/abs-link) as root: $got"
if out=$(call_as root ResolvePath "$probe" "$(bytes_of "$secret/absent-$$")" 2>&1); then fail "root: absent file answered $out"; fi
echo "$out" | grep -q 'Error.FileNotFound: .*does not exist' || fail "root: absent file: $out"
# The batched method: each request answered as ResolvePath answers it, with
# the same search check, in order, one failure not failing the others.
batch=$(call ResolvePaths "[($probe, $(bytes_of "$cred/open/file")), ($probe, $(bytes_of "$secret/key")), \
  ($probe, $(bytes_of "$secret")), ($probe, $(bytes_of "$secret/absent-$$")), ($probe, b'relative')]" 2>&1) \
  || fail "ResolvePaths: $batch"
echo "$batch" | grep -qF "(b'$cred/open/file', '', '')" || fail "ResolvePaths: the reachable file: $batch"
echo "$batch" | grep -qF "(b'$secret', '', '')" || fail "ResolvePaths: $secret itself: $batch"
[ "$(echo "$batch" | grep -oF "'org.freedesktop.DBus.Error.AccessDenied', 'Access denied: uid $allowed_uid cannot search $secret as process $probe sees it'" | wc -l)" = 2 ] \
  || fail "ResolvePaths: the two names in $secret were not refused alike by the search check: $batch"
echo "$batch" | grep -qF "'org.freedesktop.DBus.Error.InvalidArgs', 'The path \"relative\" is not absolute: " \
  || fail "ResolvePaths: the relative path: $batch"
order=$(echo "$batch" | grep -o "'org.freedesktop.DBus.Error.[A-Za-z]*'\|b'[^']*', ''" | tr '\n' ' ')
[ "$order" = "b'$cred/open/file', '' 'org.freedesktop.DBus.Error.AccessDenied' b'$secret', '' 'org.freedesktop.DBus.Error.AccessDenied' 'org.freedesktop.DBus.Error.InvalidArgs' " ] \
  || fail "ResolvePaths: answers out of order: $order"
got=$(call_as root ResolvePaths "[($probe, $(bytes_of "$secret/key"))]")
[ "$got" = "([(b'$secret/key', '', '')],)" ] || fail "ResolvePaths as root: $got"
ok "ResolvePaths: five requests answered in order as ResolvePath answers them (a reachable file, two names refused alike by the search check, the directory itself, a relative path); root resolves the secret"

ok "ResolvePath as uid $allowed_uid into a 0700 root directory, directly, through '..', an absolute and a relative symlink: one AccessDenied naming $secret, the same for existing and missing names; the directory itself and reachable files resolve; root resolves everything"

# POSIX ACLs: a named user or the owning group can be refused what the mode
# bits show, and a named user granted what they do not.  Entries are
# tag:perm:id (acl.h tags: 1 owner, 2 user, 4 group, 16 mask, 32 other).
set_acl () { python3 -c 'import os, struct, sys
entries = [tuple(int(x) for x in e.split(":")) for e in sys.argv[2:]]
os.setxattr(sys.argv[1], "system.posix_acl_access", struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries))' "$@"; }
none=4294967295
mkdir -m 755 "$cred/acl-user-refused" "$cred/acl-group-refused" "$cred/acl-user-granted"
chgrp "$allowed_gid" "$cred/acl-group-refused"
set_acl "$cred/acl-user-refused" 1:7:$none 2:0:"$allowed_uid" 4:5:$none 16:5:$none 32:5:$none \
  || fail "cannot set a POSIX ACL in $cred (a file system without ACLs?)"
set_acl "$cred/acl-group-refused" 1:7:$none 2:5:65534 4:0:$none 16:5:$none 32:0:$none
set_acl "$cred/acl-user-granted" 1:7:$none 2:5:"$allowed_uid" 4:0:$none 16:5:$none 32:0:$none
for d in acl-user-refused acl-group-refused acl-user-granted; do echo f > "$cred/$d/f"; done
[ "$(stat -c %a "$cred/acl-group-refused")" = 750 ] || fail "the group-refused ACL shows mode $(stat -c %a "$cred/acl-group-refused")"
for d in acl-user-refused acl-group-refused; do
  if as sysprof-test-allowed stat "$cred/$d/f" > /dev/null 2>&1; then fail "the kernel lets the user into $d"; fi
  expect_denied "$probe" "$cred/$d/f" "$cred/$d"
done
as sysprof-test-allowed stat "$cred/acl-user-granted/f" > /dev/null || fail "the kernel keeps the user out of acl-user-granted"
got=$(resolve_as sysprof-test-allowed "$probe" "$cred/acl-user-granted/f")
[ "$got" = "$cred/acl-user-granted/f" ] || fail "ResolvePath into a 0750 root:root directory whose ACL grants the user: $got"
ok "ResolvePath follows POSIX ACLs as the kernel does: a named user refused in a 755 directory, the owning group refused under a mask that shows 750, a named user granted in a root:root 750 directory"

# A small program that maps files, optionally detaches a mount afterwards,
# says "ready PID" and waits.
cat > "$cred/mapper.c" << 'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  const char *detach = NULL;
  int         first = 1;

  if (argc > 2 && strcmp (argv[1], "--detach") == 0)
    {
      detach = argv[2];
      first = 3;
    }
  for (int i = first; i < argc; i++)
    {
      int fd = open (argv[i], O_RDONLY | O_CLOEXEC);

      if (fd < 0 || mmap (NULL, 1, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
        {
          perror (argv[i]);
          return 1;
        }
      close (fd);
    }
  if (detach != NULL && umount2 (detach, MNT_DETACH) < 0)
    {
      perror (detach);
      return 1;
    }
  printf ("ready %d\n", (int) getpid ());
  fflush (stdout);
  for (;;)
    pause ();
}
EOF
cc -o "$cred/mapper" "$cred/mapper.c"
chmod a+rx "$cred/mapper"
# Sets variable $1 to the pid of the mapper started as job $3 with its output
# in $2, once it has mapped everything.
wait_ready () { local _ p=
  for _ in $(seq 200); do
    # The job creates $2 when it starts, maybe after this first look: under
    # set -e a missing file (sed's status 2) would end the test silently.
    p=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$2" 2> /dev/null || true)
    [ -n "$p" ] && break
    kill -0 "$3" 2> /dev/null || fail "the mapper writing $2 exited: $(cat "$2")"
    sleep 0.05
  done
  [ -n "$p" ] || fail "the mapper writing $2 was not ready within 10 s"
  printf -v "$1" %s "$p"; }

# A root process that maps a library of the secret directory: the profiler
# must be able to find it.  Only that name, for that process, and only while
# it is that very file.
root_mapper='' attacker=''
"$cred/mapper" "$secret/libmapped.so" "$secret/gone.so" > "$cred/root-mapper.out" & job=$!; pids+=("$job")
wait_ready root_mapper "$cred/root-mapper.out" "$job"
got=$(resolve_as sysprof-test-allowed "$root_mapper" "$secret/libmapped.so")
[ "$got" = "$secret/libmapped.so" ] || fail "ResolvePath($root_mapper, $secret/libmapped.so), a file it maps: $got"
[ "$(build_id "$got")" = "$host_id" ] || fail "ResolvePath of the mapped library: wrong build-id"
expect_denied "$root_mapper" "$secret/key" "$secret"
expect_denied "$probe" "$secret/libmapped.so" "$secret"
# Replaced after it was mapped: maps shows "NAME (deleted)", and the name now
# leads to another file, or to none.
rm "$secret/gone.so"; echo new > "$secret/gone.so"
grep -qF " $secret/gone.so (deleted)" "/proc/$root_mapper/maps" || fail "maps does not show the replaced file as deleted"
expect_denied "$root_mapper" "$secret/gone.so" "$secret"; first=$answer
expect_denied "$root_mapper" "$secret/gone.so (deleted)" "$secret"
rm "$secret/gone.so"
expect_denied "$root_mapper" "$secret/gone.so" "$secret"
[ "$answer" = "$first" ] || fail "a replaced mapped file: the answer depends on whether the name exists: $answer"

# The user's own process in its own user and mount namespaces maps decoys
# from a tmpfs laid out like the secret directory, then detaches the tmpfs:
# maps then shows the decoys under the secret directory's names.
# shellcheck disable=SC2016  # expanded by the inner sh
as sysprof-test-allowed unshare -Urm sh -c 'mount -t tmpfs tmpfs "$1" && mkdir -p "$1$2" && echo decoy > "$1$2/key" &&
    echo decoy > "$1$2/$3" && exec "$4" --detach "$1" "$1$2/key" "$1$2/$3"' \
  sh "$cred/attack" "$secret" "absent-$$" "$cred/mapper" > "$cred/attacker.out" & job=$!; sandboxes+=("$job")
wait_ready attacker "$cred/attacker.out" "$job"
inner+=("$attacker")
if ! grep -qF " $secret/key" "/proc/$attacker/maps" || ! grep -qF " $secret/absent-$$" "/proc/$attacker/maps"; then
  fail "the detached decoys do not show under $secret in maps:
$(cat "/proc/$attacker/maps")"
fi
expect_denied "$attacker" "$secret/key" "$secret"; first=$answer
expect_denied "$attacker" "$secret/absent-$$" "$secret"
[ "$answer" = "$first" ] || fail "decoys in maps: the answer depends on whether the name exists: $answer"
ok "maps exception: a library a root process maps from $secret resolves for that process only; a replaced mapped file ('(deleted)' in maps) and decoys from a detached mount named like files of $secret are refused alike"

# ---------------------------------------------------------------------------
# Paths that are not UTF-8: clean errors with the bytes escaped, no GLib
# criticals in the daemon.
mkdir -m 700 "$cred/$(printf '\376\377')"
call_fails FileNotFound "/nonexistent-\\\\xff/x does not exist for process $$" ResolvePath "$$" \
  "$(bytes_of "$(printf '/nonexistent-\377/x')")"
call_fails InvalidArgs 'The path "a\\xffb" is not absolute' ResolvePath "$$" "$(bytes_of "$(printf 'a\377b')")"
expect_denied "$$" "$(printf '%s/\376\377/x' "$cred")" "$cred/\\xfe\\xff"
for p in '/proc/\xff' '/\xffetc'; do
  if out=$(as sysprof-test-allowed gdbus call --system --timeout 20 -d org.gnome.Sysprof3 -o /org/gnome/Sysprof3 \
             -m org.gnome.Sysprof3.Service.GetProcFile -- "$(bytes_of "$(printf '%b' "$p")")" 2>&1); then
    fail "GetProcFile($p) answered: $(echo "$out" | head -c 200)"
  fi
  # The message shows the path as written here: \xff for the byte.
  echo "$out" | grep -E 'Error\.(FileNotFound|AccessDenied): ' | grep -qF -- "$p" || fail "GetProcFile($p): $out"
done
if grep -E 'CRITICAL|WARNING' "$W/logs/sysprofd.log"; then fail "the daemon logged criticals or warnings"; fi
ok "paths with invalid UTF-8 (ResolvePath missing, relative and refused; GetProcFile): errors show the bytes as \\xNN, the daemon logs no criticals or warnings"

# ---------------------------------------------------------------------------
# Bad input: clear errors, and the daemon keeps answering.
sh -c 'exit 0' & dead=$!
wait "$dead" || true
call_fails InvalidArgs "Invalid pid -1" GetMountInfo -1
call_fails InvalidArgs "Invalid pid 0" ListDebugDirectories 0
call_fails InvalidArgs "No process with pid $dead" GetMountInfo "$dead"
call_fails InvalidArgs "No process with pid $dead" ResolvePath "$dead" "b'/'"
call_fails InvalidArgs "No process with pid $dead" ListDebugDirectories "$dead"
call_fails InvalidArgs "not absolute" ResolvePath "$$" "b'usr/lib'"
call_fails InvalidArgs "The path is empty" ResolvePath "$$" "b''"
call_fails InvalidArgs "empty or contains a NUL" ResolvePath "$$" "[byte 0x2f, byte 0x00, byte 0x61]"
call_fails FileNotFound "does not exist for process $$" ResolvePath "$$" "b'/nonexistent-$$/x'"
call_fails FileNotFound "does not exist for process $$" ResolvePath "$$" "b'/etc/passwd/x'"
ln -s loop "$W/loop"
call_fails Failed "Too many levels of symbolic links" ResolvePath "$$" "b'$W/loop'"
# The batches: a pid that has exited is told apart from an invalid one.
got=$(call ResolvePaths "[($dead, b'/'), (0, b'/'), ($$, b'/'), ($$, b'usr'), ($$, b'/nonexistent-$$/x')]")
expected="([(b'', 'org.freedesktop.DBus.Error.UnixProcessIdUnknown', 'No process with pid $dead'), \
(b'', 'org.freedesktop.DBus.Error.InvalidArgs', 'Invalid pid 0: process ids are positive'), (b'/', '', ''), \
(b'', 'org.freedesktop.DBus.Error.InvalidArgs', 'The path \"usr\" is not absolute: give it as process $$ sees it from its root directory'), \
(b'', 'org.freedesktop.DBus.Error.FileNotFound', '/nonexistent-$$/x does not exist for process $$')],)"
[ "$got" = "$expected" ] || fail "ResolvePaths with bad requests: $got"
got=$(call ListDebugDirectoriesForPids "[$dead, -1, $$]")
expected="([(@aay [], 'org.freedesktop.DBus.Error.UnixProcessIdUnknown', 'No process with pid $dead'), \
([], 'org.freedesktop.DBus.Error.InvalidArgs', 'Invalid pid -1: process ids are positive'), \
($(call ListDebugDirectories "$$" | sed 's/^(\(.*\),)$/\1/'), '', '')],)"
[ "$got" = "$expected" ] || fail "ListDebugDirectoriesForPids: $got, expected $expected"
got=$(call ResolvePaths "@a(iay) []" 2>&1)
[ "$got" = "(@a(ayss) [],)" ] || fail "an empty ResolvePaths: $got"
call GetMountInfo "$$" | grep -q "'mount-point': <'/'>" || fail "the daemon stopped answering"
[ "$(resolve "$$" /)" = / ] || fail "ResolvePath($$, /) is not /"
ok "bad pids, relative/empty/NUL paths, missing files and a symlink loop: clear errors, in batches too (an exited pid as UnixProcessIdUnknown); the daemon still answers"

echo "1..$n"
