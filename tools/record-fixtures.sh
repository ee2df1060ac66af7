#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Re-record the reference capture fixtures in tests/data/ with the real
# Sysprof 3.46 from Debian 12 (packages sysprof, libsysprof-4, libsysprof-4-dev).
#
# Usage (as root):  tools/record-fixtures.sh [OUTPUT_DIR]     (default: tests/data)
#
# How it works, per fixture:
#   * A fresh PID + mount namespace "A" is created (unshare --pid --fork
#     --mount-proc). There every mount except / /proc /sys /dev /dev/pts
#     /dev/shm is detached (only in that namespace, propagation is private)
#     and fresh tmpfs are mounted on /tmp, /run and /usr/local, so the
#     /proc/mounts and /proc/PID/mountinfo files that Sysprof embeds show no
#     host-specific paths. A "system" dbus-daemon (stock Debian config, socket
#     in A's own /run/dbus) and polkitd run in A.
#   * A nested PID namespace "B" runs Debian's /usr/libexec/sysprofd and
#     /usr/bin/sysprof-cli. sysprofd opens the perf events (PerfEventOpen over
#     D-Bus; root is authorized by polkit without an agent) and reads /proc
#     inside B, so the capture only describes B's few processes (B's PID 1,
#     sysprofd, sysprof-cli, the profiled command), never the host's.
#   * sysprof-cli runs from cwd / with `env -i PATH=/usr/bin:/bin`; the capture
#     is written to /run/capture.syscap (namespace-private tmpfs) and streamed
#     out through an inherited file descriptor. Traps stop the daemons. The
#     files are NOT modified afterwards: they are byte-for-byte what Sysprof
#     3.46 wrote. A final strings check refuses to publish a capture that
#     mentions /work, /root, /home, /tmp/, the repository or scratch path, the
#     host name, a non-root user name or common environment variables.
#
# Requirements: root, CAP_SYS_ADMIN (unshare), sysprof 3.46, dbus-daemon,
# polkitd, gdbus, gcc + pkg-config + libsysprof-4-dev (for the marks helper).
# Recordings are timing dependent: counts and sizes vary a little per run.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR=${1:-"$SCRIPT_DIR/../tests/data"}

SYSPROF_CLI=/usr/bin/sysprof-cli
SYSPROFD=/usr/libexec/sysprofd
POLKITD=/usr/lib/polkit-1/polkitd

die () { echo "record-fixtures: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (sysprofd, namespaces)"
for f in "$SYSPROF_CLI" "$SYSPROFD" "$POLKITD"; do
    [ -x "$f" ] || die "missing $f (apt-get install -y sysprof polkitd)"
done
for c in dbus-daemon gdbus unshare gcc pkg-config; do
    command -v "$c" >/dev/null || die "missing command: $c"
done
pkg-config --exists sysprof-capture-4 || die "missing libsysprof-4-dev"
"$SYSPROF_CLI" --version | grep -q '^Sysprof 3\.46' \
    || die "expected Sysprof 3.46, got: $("$SYSPROF_CLI" --version)"

REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
HOST_NAME=$(hostname 2>/dev/null || true)
mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)

# Sysprof 3.46 lowers kernel.perf_event_paranoid while recording and restores
# it when it stops; put it back ourselves if a recording is interrupted.
PARANOID=/proc/sys/kernel/perf_event_paranoid
PARANOID_SAVED=$(cat "$PARANOID" 2>/dev/null || true)

WORK=$(mktemp -d /tmp/sysprof-fixtures.XXXXXX)
chmod 755 "$WORK"
NS_PID=

cleanup () {
    if [ -n "$NS_PID" ] && kill -0 "$NS_PID" 2>/dev/null; then
        kill -TERM "$NS_PID" 2>/dev/null || true
        for _ in $(seq 25); do kill -0 "$NS_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$NS_PID" 2>/dev/null || true
    fi
    if [ -n "$PARANOID_SAVED" ] && [ "$(cat "$PARANOID")" != "$PARANOID_SAVED" ]; then
        echo "$PARANOID_SAVED" > "$PARANOID" || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --------------------------------------------------------------------------
# Helper program for the marks/logs fixture. It uses the collector API of
# libsysprof-capture-4.a (SYSPROF_CONTROL_FD, provided by sysprof-cli's
# control source) and, when --use-trace-fd is given, a capture writer on
# SYSPROF_TRACE_FD.
cat > "$WORK/sysprof-fixture-marks.c" <<'EOF'
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sysprof-capture.h>

static volatile unsigned long sink;

static void
spin (int64_t ns)
{
  int64_t end = SYSPROF_CAPTURE_CURRENT_TIME + ns;
  while (SYSPROF_CAPTURE_CURRENT_TIME < end)
    sink++;
}

int
main (void)
{
  SysprofCaptureWriter *tw = sysprof_capture_writer_new_from_env (0);
  SysprofCaptureCounter ctr;
  unsigned int ctr_id;

  sysprof_collector_init ();

  memset (&ctr, 0, sizeof ctr);
  ctr_id = sysprof_collector_request_counters (1);
  ctr.id = ctr_id;
  ctr.type = SYSPROF_CAPTURE_COUNTER_INT64;
  snprintf (ctr.category, sizeof ctr.category, "Fixture");
  snprintf (ctr.name, sizeof ctr.name, "Iteration");
  snprintf (ctr.description, sizeof ctr.description, "Loop iteration number");
  sysprof_collector_define_counters (&ctr, 1);

  sysprof_collector_log (32 /* G_LOG_LEVEL_MESSAGE */, "Fixture", "starting");

  for (int i = 0; i < 5; i++)
    {
      int64_t begin = SYSPROF_CAPTURE_CURRENT_TIME;
      SysprofCaptureCounterValue v = { .v64 = i };

      spin (20 * 1000 * 1000);
      sysprof_collector_mark_printf (begin, SYSPROF_CAPTURE_CURRENT_TIME - begin,
                                     "Fixture", "iteration", "iteration %d", i);
      sysprof_collector_set_counters (&ctr_id, &v, 1);
      if (i == 2)
        sysprof_collector_log_printf (16 /* G_LOG_LEVEL_WARNING */, "Fixture",
                                      "halfway at iteration %d", i);
    }

  sysprof_collector_log (64 /* G_LOG_LEVEL_INFO */, "Fixture", "done");

  if (tw != NULL)
    {
      int64_t now = SYSPROF_CAPTURE_CURRENT_TIME;

      sysprof_capture_writer_add_mark (tw, now, -1, getpid (), 1000,
                                       "TraceFd", "hello", "written through SYSPROF_TRACE_FD");
      sysprof_capture_writer_add_log (tw, now, -1, getpid (), 32, "TraceFd",
                                      "log line written through SYSPROF_TRACE_FD");
      sysprof_capture_writer_flush (tw);
      sysprof_capture_writer_unref (tw);
    }

  return 0;
}
EOF
# No -g: nothing about the build directory ends up in the binary.
# shellcheck disable=SC2046 # pkg-config output must be split into words
gcc -O1 -fno-omit-frame-pointer -o "$WORK/sysprof-fixture-marks" "$WORK/sysprof-fixture-marks.c" \
    $(pkg-config --cflags --libs sysprof-capture-4)
strip "$WORK/sysprof-fixture-marks"

# --------------------------------------------------------------------------
# Two nested PID namespaces are used per fixture:
#   outer (A): PID 1 = bash running $WORK/outer.sh; detaches the host mounts,
#              mounts tmpfs on /tmp /run /usr/local, runs dbus-daemon + polkitd;
#   inner (B): PID 1 = "bash /run/record.sh"; runs sysprofd and sysprof-cli.
# sysprofd opens the perf events and reads /proc from inside B, so pids in the
# capture are B's pids and only B's processes (PID 1, sysprofd, sysprof-cli
# and the profiled command) are described by PROCESS/MAP frames. The bus and
# polkitd see B's processes under their A pids, which is all polkit needs.

write_outer () {
    cat <<EOF
set -euo pipefail
exec 3<&- </dev/null
unset DBUS_SYSTEM_BUS_ADDRESS DBUS_SESSION_BUS_ADDRESS
cd /

# Keep only the basic mounts (this namespace only; propagation is private).
keep=" / /proc /sys /dev /dev/pts /dev/shm "
for _ in 1 2 3; do
    awk '{print \$5}' /proc/self/mountinfo | sort -ru | while read -r m; do
        case "\$keep" in *" \$m "*) ;; *) umount -l "\$m" 2>/dev/null || true ;; esac
    done
done
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=755 tmpfs /usr/local
mkdir -p /run/dbus /usr/local/bin
cat <&5 > /usr/local/bin/sysprof-fixture-marks
chmod 755 /usr/local/bin/sysprof-fixture-marks
cat <&6 > /run/record.sh
exec 5<&- 6<&-

pids=()
teardown () {
    local i p alive
    for (( i=\${#pids[@]}-1; i>=0; i-- )); do kill -TERM "\${pids[i]}" 2>/dev/null || true; done
    for _ in \$(seq 25); do
        alive=0
        for p in "\${pids[@]}"; do kill -0 "\$p" 2>/dev/null && alive=1; done
        [ \$alive = 0 ] && break
        sleep 0.1
    done
    for p in "\${pids[@]}"; do kill -KILL "\$p" 2>/dev/null || true; done
}
trap teardown EXIT

E="env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin"
\$E dbus-daemon --system --nofork --nopidfile 4>&- 2>/run/bus.log &
pids+=(\$!)
for _ in \$(seq 100); do [ -S /run/dbus/system_bus_socket ] && break; sleep 0.05; done
[ -S /run/dbus/system_bus_socket ] || { cat /run/bus.log >&2; exit 1; }
\$E $POLKITD --no-debug 4>&- 2>/run/polkitd.log &
pids+=(\$!)
gdbus wait --system --timeout 10 org.freedesktop.PolicyKit1

rc=0
\$E unshare --pid --fork --mount-proc bash /run/record.sh 4>&- || rc=\$?
[ \$rc = 0 ] || { echo "recording failed (\$rc)" >&2; cat /run/*.log >&2; exit 1; }
cat /run/capture.syscap >&4
EOF
}

write_record () {
    local cli_args=$1
    cat <<EOF
set -euo pipefail
cd /
sysprofd_pid=
trap '[ -z "\$sysprofd_pid" ] || kill -TERM "\$sysprofd_pid" 2>/dev/null || true' EXIT
env -i PATH=/usr/bin:/bin $SYSPROFD 2>/run/sysprofd.log &
sysprofd_pid=\$!
gdbus wait --system --timeout 10 org.gnome.Sysprof3
env -i PATH=/usr/bin:/bin $SYSPROF_CLI $cli_args /run/capture.syscap >&2
grep -q PerfEventOpen /run/sysprofd.log && echo "  (perf fds were opened by sysprofd)" >&2
exit 0
EOF
}

record () {
    local name=$1 cli_args=$2
    echo "== $name: sysprof-cli $cli_args /run/capture.syscap" >&2
    write_outer > "$WORK/outer.sh"
    write_record "$cli_args" > "$WORK/record.sh"
    unshare --pid --fork --kill-child --mount-proc --mount --propagation private -- \
        bash /dev/fd/3 3<"$WORK/outer.sh" 4>"$WORK/$name" \
        5<"$WORK/sysprof-fixture-marks" 6<"$WORK/record.sh" &
    NS_PID=$!
    wait "$NS_PID" || die "recording $name failed"
    NS_PID=
    [ -s "$WORK/$name" ] || die "$name is empty"
    # Refuse to publish captures that mention host-specific things.
    local leaks
    leaks=$(strings -n 3 "$WORK/$name" | grep -F -e /work -e /root -e /home -e /tmp/ -e "$REPO_DIR" -e "$WORK" || true)
    leaks+=$(strings -n 3 "$WORK/$name" | grep -E '(HOME|USER|LOGNAME|SUDO_[A-Z]+|SSH_[A-Z_]+|XDG_[A-Z_]+|DISPLAY|DBUS_[A-Z_]+|LD_[A-Z_]+)=' || true)
    for u in "${SUDO_USER:-}" "${USER:-}" "${LOGNAME:-}"; do
        [ -z "$u" ] || [ "$u" = root ] || leaks+=$(strings -n 2 "$WORK/$name" | grep -w -F -e "$u" || true)
    done
    if [ -n "${HOST_NAME}" ]; then
        leaks+=$(strings -n 2 "$WORK/$name" | grep -w -F -e "$HOST_NAME" || true)
    fi
    if [ -n "$leaks" ]; then
        echo "$leaks" | head -20 >&2
        die "$name contains host-specific strings (see above); not published"
    fi
    mv -f "$WORK/$name" "$OUT_DIR/$name"
    echo "   -> $OUT_DIR/$name ($(stat -c %s "$OUT_DIR/$name") bytes)" >&2
}

# 1. Stack sampling + counters of a CPU-busy shell command. The leading sleep
#    makes the forks happen after perf is enabled (FORK frames); the trailing
#    sleep is a fork+exec seen by perf (FORK, PROCESS from COMM, MAP from MMAP, EXIT).
record sysprof-3.46-perf.syscap \
  "--no-battery -f -c \"sh -c 'sleep 0.2; for p in 1 2; do (i=0; while [ \\\$i -lt 400000 ]; do i=\\\$((i+1)); done) & done; wait; sleep 0.1'\""

# 2. Memory allocation tracking (LD_PRELOAD libsysprof-memory-4.so); ls -lR does
#    a few hundred mallocs/frees with a minimal environment.
record sysprof-3.46-memprof.syscap \
  "--memprof --no-battery --no-cpu --no-disk --no-memory --no-network -f -c \"ls -lR /usr/share/dbus-1\""

# 3. Marks, logs and a counter from the collector API, plus a SYSPROF_TRACE_FD writer.
record sysprof-3.46-marks.syscap \
  "--use-trace-fd --no-perf --no-battery --no-cpu --no-disk --no-memory --no-network -f -c /usr/local/bin/sysprof-fixture-marks"

echo "done." >&2
