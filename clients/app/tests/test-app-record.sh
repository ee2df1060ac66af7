#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The app's recording flow, driven through its widgets by an unprivileged
# user against the real sysprofd and polkitd: launch a workload from the
# recorder page, Stop after two seconds, and the capture opens with its
# callgraph (the workload's hot functions in it).  With "Its own capture"
# on, a program writing a capture into $SYSPROF_TRACE_FD has its marks and
# JavaScript frames merged.  With "Scheduler details" on, the capture has
# Sysprof 48's Scheduler marks of the switches.  A user polkit refuses gets a clear message on
# the page.  Runs under tools/with-sysprofd.sh and
# tools/with-xvfb.sh.
#
# Usage: test-app-record.sh TEST_APP HOT_FUNCTIONS HOTLIB SHOT_DIR TRACE_WORKLOAD BLOCKING_WORKLOAD

set -euo pipefail

TEST_APP=$1 HOT_FUNCTIONS=$2 HOTLIB=$3 SHOT_DIR=$4 TRACE_WORKLOAD=$5 BLOCKING_WORKLOAD=$6
: "${SYSPROFD_TEST_WORKDIR:?run under tools/with-sysprofd.sh}" "${DISPLAY:?run under tools/with-xvfb.sh}"

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

bin="$SYSPROFD_TEST_WORKDIR/bin"
mkdir -p "$bin"
cp "$TEST_APP" "$HOT_FUNCTIONS" "$HOTLIB" "$TRACE_WORKLOAD" "$BLOCKING_WORKLOAD" "$bin/"
chmod -R a+rX "$bin"

# Run test-app as USER with a home, cache and runtime directory of its own.
as_user () { # USER NAME ARGS...
    local user=$1 name=$2 home="$SYSPROFD_TEST_WORKDIR/home-$2"
    shift 2
    mkdir -p "$home/runtime" "$home/shots"
    chmod 700 "$home/runtime"
    chown -R "$user" "$home"
    runuser -u "$user" -- env -i ${TEST_APP_SWITCHES:+TEST_APP_SWITCHES="$TEST_APP_SWITCHES"} PATH=/usr/bin:/bin HOME="$home" XDG_CACHE_HOME="$home/cache" \
        XDG_RUNTIME_DIR="$home/runtime" DISPLAY="$DISPLAY" GDK_BACKEND=x11 GSK_RENDERER="$GSK_RENDERER" \
        GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 GTK_A11Y=none \
        DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" "$bin/test-app" "$@"
}

collect_shots () { # NAME
    mkdir -p "$SHOT_DIR"
    cp "$SYSPROFD_TEST_WORKDIR/home-$1/shots/"*.png "$SHOT_DIR/" 2>/dev/null || true
}

echo "1..5"

out=$(as_user sysprof-test-allowed allowed record "$SYSPROFD_TEST_WORKDIR/home-allowed/shots" \
    "$bin/hot-functions" 20 2>"$SYSPROFD_TEST_WORKDIR/record.err") || true
collect_shots allowed
capture=$(sed -n 's/^capture //p' <<<"$out")
samples=$(sed -n 's/^samples //p' <<<"$out")
if [ -z "$capture" ] || [ -z "$samples" ]; then
    not_ok "record: the capture did not open with a callgraph"
    not_ok "record: no callgraph to look into"
    sed 's/^/# /' "$SYSPROFD_TEST_WORKDIR/record.err"
else
    ok "record: the capture opened with a callgraph of $samples samples ($capture)"
    # Two seconds at 997 Hz of a CPU-bound program: well over a thousand
    # samples of it, with its hot functions.
    if [ "$samples" -ge 1000 ] && grep -q $'^hot_compute_a\t' <<<"$out" && grep -q $'^hot_compute_b\t' <<<"$out" &&
        grep -q '^unwind method=dwarf stack-size=8192 samples=[1-9]' <<<"$out"; then
        ok "record: $samples samples, hot_compute_a and hot_compute_b in the callgraph, stacks unwound with DWARF"
    else
        not_ok "record: $samples samples; functions:"
        head -n 20 <<<"$out" | sed 's/^/# /'
    fi
fi

# 1000 samples and 100 marks, 1 ms apart: it exits (and so ends the
# recording) before the two seconds are up; its writer flushes on exit.
out=$(TEST_APP_SWITCHES=trace-fd-switch as_user sysprof-test-allowed allowed record \
    "$SYSPROFD_TEST_WORKDIR/home-allowed/shots" "$bin/trace-workload" sysprof 1000 100 \
    2>"$SYSPROFD_TEST_WORKDIR/trace.err") || true
if grep -q '^marks trace-test 100$' <<<"$out" && grep -q $'^js:inner (app.js:7)\t' <<<"$out"; then
    ok "its own capture: the 100 marks the command wrote and its JavaScript frames are in the capture"
else
    not_ok "its own capture: not merged: $(head -n 12 <<<"$out" | tr '\n' '|')"
    sed 's/^/# /' "$SYSPROFD_TEST_WORKDIR/trace.err"
fi

# Scheduler details through the page: the switches of the whole system,
# Sysprof 48's marks among them.
out=$(TEST_APP_SWITCHES=scheduler-switch as_user sysprof-test-allowed allowed record \
    "$SYSPROFD_TEST_WORKDIR/home-allowed/shots" "$bin/blocking-workload" 4 \
    2>"$SYSPROFD_TEST_WORKDIR/sched.err") || true
sched=$(sed -n 's/^marks Scheduler //p' <<<"$out")
if [ "${sched:-0}" -gt 10 ]; then
    ok "scheduler details: $sched Scheduler marks in the capture recorded through the page"
else
    not_ok "scheduler details: ${sched:-no} Scheduler marks: $(head -n 12 <<<"$out" | tr '\n' '|')"
    sed 's/^/# /' "$SYSPROFD_TEST_WORKDIR/sched.err"
fi

out=$(as_user sysprof-test-denied denied refused "$SYSPROFD_TEST_WORKDIR/home-denied/shots" \
    2>"$SYSPROFD_TEST_WORKDIR/refused.err") || true
collect_shots denied
if grep -q '^error Recording was refused: .*polkit' <<<"$out"; then
    ok "refused: the page says why: $(sed -n 's/^error //p' <<<"$out" | cut -c1-160)"
else
    not_ok "refused: no clear refusal: $out"
    sed 's/^/# /' "$SYSPROFD_TEST_WORKDIR/refused.err"
fi

[ "$failed" -eq 0 ]
