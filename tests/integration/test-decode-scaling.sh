#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Decoding after a recording costs per mount namespace and binary, not per
# process: whole-system recordings by sysprof-cli as an unprivileged user
# through sysprofd, during a fork-heavy load of N short processes in the host's
# namespace and N in another one (a bind mount over decoys, as test-main-job's
# namespace test), with N = 100 and then 1,000.  Counted on the real bus and
# the real polkitd: the questions sysprof-cli asks sysprofd's Host interface
# (each pid of ResolvePath, ListDebugDirectories and of their batches, read
# by dbus-monitor), the Host calls, and polkit's checks for the user (its test
# rule logs each).  Ten times the processes may not cost more questions or
# checks, and the other namespace's workload is still symbolized from the
# right files.  Run under tools/with-sysprofd.sh:
#   test-decode-scaling.sh SYSPROF_CLI SYSPROF_REPORT HOT_FUNCTIONS LIBHOTLIB
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") hot=$(realpath "$3") hotlib=$(realpath "$4")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok $((n + 1)) - $*" | sed '2,$s/^/# /'; exit 1; }

pids=()
cleanup () { local p; for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done; wait 2> /dev/null || true; }
trap cleanup EXIT

mkdir -p "$W/bin" "$W/u"
install -m 755 "$cli" "$report" "$W/bin/"
chown "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
field () { awk -F'\t' -v k="$1" -v c="$2" '$1 == k { print $c; exit }'; }

# There, DIR/mnt is a bind mount of DIR/real (the workload and a copy of
# true); on the host DIR/mnt holds decoys under the same names.
ns=$W/ns
mkdir -p "$ns/real" "$ns/mnt"
install -m 755 "$hot" "$hotlib" /usr/bin/true "$ns/real/"
install -m 755 /usr/bin/true "$ns/mnt/hot-functions"
install -m 755 /usr/bin/true "$ns/mnt/true"
install -m 755 "$(realpath /lib/x86_64-linux-gnu/libm.so.6)" "$ns/mnt/libhotlib.so"

dbus-monitor --system "type='method_call',interface='org.gnome.Sysprof3.Host'" > "$W/monitor.log" 2>&1 &
pids+=($!)
sleep 0.5

# Host questions (a pid each) and calls in the monitor's log from line $1 on.
host_counts () {
  tail -n "+$1" "$W/monitor.log" | awk '
    /^method call / { m = $0; sub(/.*member=/, "", m)
                      asking = (m ~ /^(ResolvePaths?|ListDebugDirectories(ForPids)?)$/); calls += asking; next }
    asking && /^ *int32 / { questions++ }
    END { print questions + 0, calls + 0 }'
}
polkit_checks () { grep -c "org.gnome.sysprof3.profile: user=$U " "$W/logs/polkitd.log" || true; }

# record NAME N: the recording, and "questions calls checks" of its decoding.
record () {
  local name=$1 count=$2 cli_pid line checks
  line=$(($(wc -l < "$W/monitor.log") + 1))
  checks=$(polkit_checks)
  as "$W/bin/sysprof-cli" --force --duration 4 "$W/u/$name.syscap" > "$W/$name.out" 2>&1 &
  cli_pid=$!
  for _ in $(seq 600); do grep -q '^Recording into' "$W/$name.out" 2> /dev/null && break; sleep 0.1; done
  grep -q '^Recording into' "$W/$name.out" || fail "the $name recording did not start: $(cat "$W/$name.out")"
  # Both loads at once, short processes only but for the workload, which
  # runs throughout so that its files are sampled.  The namespace's shell
  # stays (as a container's init would) so that sysprofd can be asked about
  # its namespace: the host is never asked about a process that exited.
  rm -f "$W/ns-done"
  unshare -m --propagation private sh -c "mount --bind '$ns/real' '$ns/mnt' && '$ns/mnt/hot-functions' 2 &
    i=0; while [ \$i -lt $count ]; do '$ns/mnt/true'; i=\$((i + 1)); done; wait; touch '$W/ns-done'; exec sleep 120" &
  local ns_load=$!
  pids+=("$ns_load")
  i=0
  while [ $i -lt "$count" ]; do /bin/true; i=$((i + 1)); done
  for _ in $(seq 600); do [ -e "$W/ns-done" ] && break; sleep 0.1; done
  [ -e "$W/ns-done" ] || fail "the namespaced load did not finish"
  wait "$cli_pid" || fail "sysprof-cli failed: $(cat "$W/$name.out")"
  kill "$ns_load"
  sleep 0.5 # the monitor and polkitd write as they see
  echo "$(host_counts "$line") $(($(polkit_checks) - checks))"
}

read -r q_small c_small p_small < <(record small 100)
read -r q_big c_big p_big < <(record big 1000)
detail="100 processes: $q_small questions in $c_small calls, $p_small polkit checks; 1000: $q_big in $c_big, $p_big"

# The other namespace was asked about (else this would prove nothing), and
# its workload is named from DIR/real, not from the decoys.
[ "$q_small" -gt 0 ] && [ "$q_big" -gt 0 ] || fail "sysprofd was never asked about the other namespace: $detail"
as "$W/bin/sysprof-report" top --comm hot-functions --format tsv "$W/u/big.syscap" > "$W/big.tsv" \
  || fail "sysprof-report on the big capture failed"
for spec in hot_compute_a:hot-functions hot_compute_b:libhotlib.so; do
  IFS=: read -r fn lib <<< "$spec"
  [ "$(field "$fn" 2 < "$W/big.tsv")" = "$lib" ] || fail "$fn of the namespaced workload not resolved: $(head -5 "$W/big.tsv" | tr '\n' '|')"
done
# Ten times the processes: no more questions or calls than for the distinct
# namespaces and binaries (a few may differ in what was sampled: another
# namespace's helper, a library), far fewer than one per process, and no
# more polkit checks however many calls sysprof-cli's connection made.
asked () { tail -n "+$1" "$W/monitor.log" | grep -E 'member=|int32|bytes' | sed 's/.*member=/member=/' | tr '\n' ' '; }
[ "$q_big" -le $((q_small + 10)) ] && [ "$q_big" -lt 100 ] || fail "questions grow with processes: $detail
$(asked 1)"
[ "$c_big" -le $((c_small + 2)) ] || fail "Host calls grow with processes: $detail"
# (CreateSession may allow a password prompt: polkit is asked again for the
# calls after it, whose grant is kept.)
[ "$p_small" -le 2 ] && [ "$p_big" -le 2 ] || fail "polkit checks grow with calls: $detail"
ok "decoding asks per namespace and binary: $detail; the namespaced workload symbolized"

echo "1..$n"
