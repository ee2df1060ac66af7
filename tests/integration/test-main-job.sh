#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The main job end to end: the unprivileged user records the whole system
# through sysprofd with sysprof-cli while tests/workloads/hot-functions runs,
# and sysprof-report tells where the time went, with real names, also once the
# binaries are gone, and Debian's Sysprof 3.46 library reads the same names.
# Run under tools/with-sysprofd.sh:
#   test-main-job.sh SYSPROF_CLI SYSPROF_REPORT SYSPROF_DUMP HOT_FUNCTIONS LIBHOTLIB [CALLGRAPH_346]
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") dump=$(realpath "$3")
workload=$(realpath "$4") hotlib=$(realpath "$5") cg346=${6:+$(realpath "$6")}
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u" "$W/u/work"
install -m 755 "$cli" "$report" "$dump" "$W/bin/"
install -m 755 "$workload" "$hotlib" "$W/u/work/"
chown -R "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }

# Field $2 (1-based) of the tsv row whose first column is $1.
field () { awk -F'\t' -v f="$1" -v c="$2" '$1 == f { print $c; exit }'; }
# |$1 - $2| <= $3, decimals allowed.
near () { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# 1. Record: whole system, the workload launched by sysprof-cli as the user.
cd "$W/u"
as "$W/bin/sysprof-cli" --force "$W/u/main.syscap" -- "$W/u/work/hot-functions" 4 > "$W/cli.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli.out")"
[ "$(stat -c %U "$W/u/main.syscap")" = "$U" ] || fail "the capture does not belong to the user"
"$dump" --stats "$W/u/main.syscap" > "$W/stats" || fail "capture invalid"
grep -qE '^SAMPLE [1-9]' "$W/stats" || fail "no samples: $(tr '\n' ' ' < "$W/stats")"
for f in __symbols__ /proc/kallsyms; do
  grep -qx "FILE $f" "$W/stats" || fail "$f not embedded: $(grep ^FILE "$W/stats" | tr '\n' ' ')"
done
ok "sysprof-cli recorded as $U through sysprofd ($(grep -E '^SAMPLE ' "$W/stats")), symbols and kallsyms embedded"

# 2. Shares of the hot functions, of the workload's samples.
as "$W/bin/sysprof-report" top --comm hot-functions --format tsv "$W/u/main.syscap" > "$W/top.tsv" \
  || fail "sysprof-report top failed"
head -1 "$W/top.tsv" | grep -qx $'function\tlibrary\tself_samples\ttotal_samples\tself_percent\ttotal_percent' \
  || fail "top tsv header: $(head -1 "$W/top.tsv")"
for spec in hot_compute_a:40 hot_compute_b:30 hot_compute_c:20; do
  fn=${spec%:*} want=${spec#*:}
  got=$(field "$fn" 5 < "$W/top.tsv")
  [ -n "$got" ] || fail "$fn missing from the report: $(head -8 "$W/top.tsv" | tr '\n' '|')"
  near "$got" "$want" 5 || fail "$fn has $got % of the samples, expected $want ± 5"
done
got=$(field hot_syscalls 6 < "$W/top.tsv")
near "${got:-0}" 10 5 || fail "hot_syscalls total is ${got:-none} %, expected 10 ± 5"
[ "$(field hot_compute_b 2 < "$W/top.tsv")" = libhotlib.so ] || fail "hot_compute_b not attributed to libhotlib.so"
[ "$(field hot_compute_a 2 < "$W/top.tsv")" = hot-functions ] || fail "hot_compute_a not attributed to hot-functions"
ok "shares: $(for f in hot_compute_a hot_compute_b hot_compute_c; do printf '%s %s%% ' $f "$(field $f 5 < "$W/top.tsv")"; done)hot_syscalls total $got%"

# 3. Kernel frames have kernel names (the syscall loop spends its time there).
kernel_named=$(awk -F'\t' 'NR > 1 && $2 == "kernel" && $1 !~ /^kernel\+0x/ { n += $3 } END { print n + 0 }' "$W/top.tsv")
kernel_unnamed=$(awk -F'\t' 'NR > 1 && $1 ~ /^kernel\+0x/ { n += $3 } END { print n + 0 }' "$W/top.tsv")
[ "$kernel_named" -gt 0 ] || fail "no symbolized kernel frame"
[ "$kernel_unnamed" -le $((kernel_named / 10)) ] || fail "$kernel_unnamed kernel samples unresolved vs $kernel_named named"
as "$W/bin/sysprof-report" collapsed --comm hot-functions "$W/u/main.syscap" > "$W/collapsed" \
  || fail "sysprof-report collapsed failed"
# Stacks through hot_syscalls into the kernel: their first kernel frame named.
into_kernel=$(awk '{ n = $NF; sub(/ [0-9]+$/, "") } /;hot_syscalls;- - kernel - -;[a-z_]/ && !/;hot_syscalls;- - kernel - -;kernel\+0x/ { s += n } END { print s + 0 }' "$W/collapsed")
[ "$into_kernel" -gt 0 ] || fail "no named kernel frame under hot_syscalls: $(grep hot_syscalls "$W/collapsed" | head -3 | tr '\n' '|')"
ok "kernel frames symbolized: $kernel_named self samples named, $kernel_unnamed not; $into_kernel samples from hot_syscalls into named kernel functions"

# 4. Portability: the binaries are deleted after recording; names stay.
mkdir -p "$W/u/gone"
install -m 755 "$W/u/work/hot-functions" "$W/u/work/libhotlib.so" "$W/u/gone/"
chown -R "$U" "$W/u/gone"
as "$W/bin/sysprof-cli" --force "$W/u/gone.syscap" -- "$W/u/gone/hot-functions" 2 > "$W/cli2.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli2.out")"
rm -rf "$W/u/gone"
as "$W/bin/sysprof-report" top --comm hot-functions --format tsv "$W/u/gone.syscap" > "$W/gone.tsv" \
  || fail "report after deleting the binaries failed"
for fn in hot_compute_a hot_compute_b hot_compute_c; do
  [ -n "$(field "$fn" 3 < "$W/gone.tsv")" ] || fail "$fn lost once the binary is deleted: $(head -5 "$W/gone.tsv" | tr '\n' '|')"
done
ok "the binaries deleted, the report still names hot_compute_a/b/c"

# 5. Debian's Sysprof 3.46 library shows our names with the same counts.
if [ -n "$cg346" ]; then
  "$cg346" "$W/u/gone.syscap" > "$W/346.tsv" || fail "libsysprof-4 cannot build a callgraph of our capture"
  for fn in hot_compute_a hot_compute_b hot_compute_c; do
    theirs=$(field "$fn" 2 < "$W/346.tsv")
    ours=$(field "$fn" 3 < "$W/gone.tsv")
    [ -n "$theirs" ] || fail "3.46 does not name $fn: $(sort -t$'\t' -k2 -nr "$W/346.tsv" | head -5 | tr '\n' '|')"
    near "$theirs" "$ours" $(( ours / 50 + 1 )) || fail "$fn: 3.46 counts $theirs self samples, we count $ours"
  done
  ok "Sysprof 3.46's callgraph profile names hot_compute_a/b/c with our counts"
else
  echo "ok $((n + 1)) # SKIP libsysprof-4 (Debian's Sysprof 3.46) not available"
  n=$((n + 1))
fi

# 6. A process in another mount namespace: there, DIR/mnt is a bind mount of
# DIR/real holding the workload; on the host DIR/mnt holds other files under
# the same names.  The capture's mountinfo leads the symbolizer to DIR/real.
ns=$W/ns
mkdir -p "$ns/real" "$ns/mnt"
install -m 755 "$W/u/work/hot-functions" "$W/u/work/libhotlib.so" "$ns/real/"
install -m 755 /usr/bin/true "$ns/mnt/hot-functions"
install -m 755 "$(realpath /lib/x86_64-linux-gnu/libm.so.6)" "$ns/mnt/libhotlib.so"
unshare -m --propagation private sh -c "mount --bind '$ns/real' '$ns/mnt' && exec '$ns/mnt/hot-functions' 5" &
ns_pid=$!
sleep 1   # running before the recording starts: its mountinfo is in the snapshot
as "$W/bin/sysprof-cli" --force --duration 3 "$W/u/ns.syscap" > "$W/cli3.out" 2>&1 \
  || fail "sysprof-cli failed: $(cat "$W/cli3.out")"
wait "$ns_pid" || fail "the namespaced workload failed"
as "$W/bin/sysprof-report" top --comm hot-functions --format tsv "$W/u/ns.syscap" > "$W/ns.tsv" \
  || fail "sysprof-report on the namespace capture failed"
for spec in hot_compute_a:hot-functions:40 hot_compute_b:libhotlib.so:30; do
  IFS=: read -r fn lib want <<< "$spec"
  [ "$(field "$fn" 2 < "$W/ns.tsv")" = "$lib" ] || fail "$fn of the namespaced process not resolved: $(head -5 "$W/ns.tsv" | tr '\n' '|')"
  near "$(field "$fn" 5 < "$W/ns.tsv")" "$want" 5 || fail "$fn: $(field "$fn" 5 < "$W/ns.tsv") %, expected $want ± 5"
done
ok "a workload in its own mount namespace (bind mount over decoys) is symbolized from the right files"

# 6b. The same, started while the recording runs: sysprofd embeds the
# mountinfo of processes that map files from another mount namespace.
as "$W/bin/sysprof-cli" --force --duration 4 "$W/u/ns-late.syscap" > "$W/cli5.out" 2>&1 &
cli_pid=$!
# Started once the recording runs (a loaded machine takes seconds to get there).
for _ in $(seq 600); do grep -q '^Recording into' "$W/cli5.out" 2>/dev/null && break; sleep 0.1; done
grep -q '^Recording into' "$W/cli5.out" || fail "the late recording did not start within 60 s: $(cat "$W/cli5.out")"
unshare -m --propagation private sh -c "mount --bind '$ns/real' '$ns/mnt' && exec '$ns/mnt/hot-functions' 2" \
  || fail "the namespaced workload failed"
wait "$cli_pid" || fail "sysprof-cli failed: $(cat "$W/cli5.out")"
as "$W/bin/sysprof-report" top --comm hot-functions --format tsv "$W/u/ns-late.syscap" > "$W/ns-late.tsv" \
  || fail "sysprof-report on the late namespace capture failed"
for fn in hot_compute_a hot_compute_c; do
  [ "$(field "$fn" 2 < "$W/ns-late.tsv")" = hot-functions ] \
    || fail "$fn of the namespaced process started during the recording not resolved: $(head -5 "$W/ns-late.tsv" | tr '\n' '|'); sysprof-cli said: $(tr '\n' '|' < "$W/cli5.out"); processes: $("$W/bin/sysprof-dump" "$W/u/ns-late.syscap" 2>&1 | grep -a -m 20 'hot-functions\|PROCESS.*unshare\|EXIT' | tr '\n' '|')"
done
ok "a namespaced workload started during the recording is symbolized too (its mountinfo is embedded)"

# 7. A Flatpak-like sandbox (bubblewrap: /app bound from the host, a
# /.flatpak-info naming it) running a stripped binary: its static functions
# are only in the debug file, which lies in the app's lib/debug, a directory
# only sysprofd's ListDebugDirectories tells about.
if command -v bwrap > /dev/null && command -v objcopy > /dev/null; then
  app=$W/flatpak/app
  mkdir -p "$app/bin"
  install -m 755 "$W/u/work/hot-functions" "$W/u/work/libhotlib.so" "$app/bin/"
  build_id=$(readelf -n "$app/bin/hot-functions" | awk '/Build ID/ { print $3 }')
  [ -n "$build_id" ] || fail "hot-functions has no build-id"
  mkdir -p "$app/lib/debug/.build-id/${build_id:0:2}"
  objcopy --only-keep-debug "$app/bin/hot-functions" "$app/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
  objcopy --strip-all "$app/bin/hot-functions"
  printf '[Application]\nname=org.example.Hot\n\n[Instance]\napp-path=%s\narch=x86_64\nbranch=master\n' "$app" \
    > "$W/flatpak/info"
  bwrap --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin \
    --proc /proc --dev /dev --bind "$app" /app --ro-bind "$W/flatpak/info" /.flatpak-info \
    /app/bin/hot-functions 6 &
  fp_pid=$!
  sleep 1
  as "$W/bin/sysprof-cli" --force --duration 2 "$W/u/flatpak.syscap" > "$W/cli4.out" 2>&1 \
    || fail "sysprof-cli failed: $(cat "$W/cli4.out")"
  wait "$fp_pid" || fail "the sandboxed workload failed"
  as "$W/bin/sysprof-report" top --comm hot-functions --format tsv "$W/u/flatpak.syscap" > "$W/fp.tsv" \
    || fail "sysprof-report on the sandbox capture failed"
  for fn in hot_compute_a hot_compute_c; do
    [ "$(field "$fn" 2 < "$W/fp.tsv")" = hot-functions ] \
      || fail "$fn (static, only in the app's debug file) not found: $(head -5 "$W/fp.tsv" | tr '\n' '|')"
  done
  ok "a stripped binary in a Flatpak-like sandbox is symbolized with the debug file of its app's lib/debug"
else
  n=$((n + 1))
  echo "ok $n # SKIP bwrap or objcopy missing"
fi

echo "1..$n"
