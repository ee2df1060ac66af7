#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What programs send through libsysprof-capture's collector reaches the
# capture of any recording that starts them, not only --memprof ones (issue
# 17): marks and logs of a program of ours, exact to the mark, and GTK 4's
# own marks (group "gtk") from Debian's GTK in our app, recorded by our
# sysprof-cli through sysprofd as an unprivileged user.  Run under
# tools/with-sysprofd.sh, and tools/with-xvfb.sh for the GTK part:
#   test-collector-marks.sh SYSPROF_CLI SYSPROF_DUMP SYSPROF_REPORT COLLECTOR_WORKLOAD MEMORY_HOSTILE
#                           PRELOAD|none [APP FIXTURE]
set -euo pipefail
cli=$(realpath "$1") dump=$(realpath "$2") report=$(realpath "$3") workload=$(realpath "$4")
hostile=$(realpath "$5") preload=$6
app=${7:+$(realpath "$7")} fixture=${8:+$(realpath "$8")}
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u"
install -m 755 "$cli" "$dump" "$workload" "$hostile" "$W/bin/"
[ "$preload" = none ] || install -m 755 "$preload" "$W/bin/libsysprof-memory.so"
[ -z "$app" ] || install -m 755 "$app" "$W/bin/sysprof"
[ -z "$fixture" ] || install -m 644 "$fixture" "$W/u/fixture.syscap"
chown -R "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" \
  SYSPROF_MEMORY_PRELOAD="$W/bin/libsysprof-memory.so" \
  ${DISPLAY:+DISPLAY="$DISPLAY"} GDK_BACKEND=x11 GSK_RENDERER=cairo GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 \
  GTK_A11Y=none XDG_RUNTIME_DIR="$W/u/runtime" timeout 120 "$@"; }
mkdir -p "$W/u/runtime"
chmod 700 "$W/u/runtime"
chown "$U" "$W/u/runtime"

# MARK frames of group $2 in capture $1, one line each: "pid name duration message".
marks () {
  "$dump" "$1" | awk -v group="$2" '
    /^[A-Z_]+ @/ { in_mark = ($1 == "MARK"); if (in_mark) { pid = $3; sub(/^pid=/, "", pid) } }
    in_mark && /^  duration:/ { duration = $2 }
    in_mark && /^  group:/ { g = $2 }
    in_mark && /^  name:/ { name = $2 }
    in_mark && /^  message:/ { sub(/^  message: /, ""); if (g == group) print pid, name, duration, $0 }'
}

echo "1..5"

# 1. Our program's marks and logs, without --memprof: every one, from its
# process, with the durations it wrote.
rc=0
(cd "$W/u" && as sysprof-cli --no-decode -f col.syscap -- collector-workload 3 200) > "$W/out" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "sysprof-cli failed ($rc): $(tr '\n' '|' < "$W/out")"
grep -q '^active 1$' "$W/out" || fail "the command's collector found no profiler: $(tr '\n' '|' < "$W/out")"
"$dump" "$W/u/col.syscap" > "$W/dump" || fail "col.syscap is not a valid capture"
marks "$W/u/col.syscap" collector-test > "$W/marks"
[ "$(wc -l < "$W/marks")" -eq 600 ] || fail "$(wc -l < "$W/marks") marks of collector-test, not 600"
[ "$(awk '{ print $1 }' "$W/marks" | sort -u | wc -l)" -eq 1 ] || fail "the marks name several processes"
for t in 0 1 2; do
  for i in 0 57 199; do
    grep -qx "[0-9]* step $((1000 + i)) thread $t mark $i" "$W/marks" ||
      fail "mark $i of thread $t is missing or changed: $(grep "thread $t mark $i\$" "$W/marks" || true)"
  done
done
[ "$(grep -c '^LOG @' "$W/dump")" -ge 3 ] || fail "the 3 logs are missing"
for t in 0 1 2; do
  grep -q "thread $t done" "$W/dump" || fail "the log of thread $t is missing"
done
# sysprof-report marks sums them up: durations 1000 to 1199 ns, three times.
"$report" marks --format tsv --group collector-test "$W/u/col.syscap" > "$W/report" || fail "sysprof-report marks failed"
grep -qx $'collector-test\tstep\t600\t659700\t1000\t1099.5\t1099.5\t1199' "$W/report" ||
  fail "sysprof-report marks: $(tr '\n' '|' < "$W/report")"
ok "a command without --memprof: its 600 marks (durations and messages as written) and 3 logs, from its process"

# 2. With --memprof the same channel carries both.
if [ "$preload" = none ]; then
  ok "# SKIP no memory tracker in this build (sanitizers)"
else
rc=0
(cd "$W/u" && as sysprof-cli --no-decode --no-perf --memprof -f colmem.syscap -- collector-workload 2 50) \
  > "$W/out" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "sysprof-cli --memprof failed ($rc): $(tr '\n' '|' < "$W/out")"
[ "$(marks "$W/u/colmem.syscap" collector-test | wc -l)" -eq 100 ] || fail "--memprof: not the 100 marks"
"$dump" --stats "$W/u/colmem.syscap" | grep -q '^ALLOCS [1-9]' || fail "--memprof: no allocations"
ok "with --memprof: the marks and the allocations"
fi

# 3. A command that does not use the collector: nothing changes for it.
rc=0
(cd "$W/u" && as sysprof-cli --no-decode -f plain.syscap -- sh -c 'echo "fd=${SYSPROF_CONTROL_FD:-none}"') \
  > "$W/out" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "sysprof-cli failed on a plain command ($rc): $(tr '\n' '|' < "$W/out")"
grep -q '^fd=[0-9][0-9]*$' "$W/out" || fail "the command got no SYSPROF_CONTROL_FD: $(tr '\n' '|' < "$W/out")"
if grep -qi 'warning' "$W/out"; then fail "warnings for a plain command: $(tr '\n' '|' < "$W/out")"; fi
ok "a plain command gets \$SYSPROF_CONTROL_FD and records without warnings"

# 4. A program that fills the ring it asks for with garbage (memory-hostile
# garbage), beside a well-behaved one, both started by the command: the
# recording completes, the capture reads whole, the other program's 200
# marks are all there, and the garbage is counted as lost.
rc=0
(cd "$W/u" && as sysprof-cli --no-decode -f hostile.syscap -- \
  sh -c 'collector-workload 2 100 > good.out & memory-hostile garbage; wait') > "$W/out" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "sysprof-cli with a hostile collector failed ($rc): $(tr '\n' '|' < "$W/out")"
"$dump" "$W/u/hostile.syscap" > "$W/dump" || fail "the capture with a hostile ring does not read whole"
[ "$(marks "$W/u/hostile.syscap" collector-test | wc -l)" -eq 200 ] ||
  fail "the well-behaved program lost marks: $(marks "$W/u/hostile.syscap" collector-test | wc -l) of 200"
grep -q ' [1-9][0-9]* lost' "$W/out" || fail "the garbage was not counted as lost: $(tr '\n' '|' < "$W/out")"
ok "a hostile collector ring: the capture is valid, the other program's 200 marks all there, the garbage lost"

# 5. Debian's GTK 4 in our app: its own marks, group "gtk".
if [ -z "$app" ] || [ -z "${DISPLAY:-}" ]; then
  ok "# SKIP the GTK 4 app is not built or no X server"
  exit 0
fi
rc=0
(cd "$W/u" && as sysprof-cli --no-decode --duration 4 -f gtk.syscap -- sysprof fixture.syscap) > "$W/out" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "sysprof-cli on the app failed ($rc): $(tr '\n' '|' < "$W/out")"
marks "$W/u/gtk.syscap" gtk > "$W/gtk"
names=$(awk '{ print $2 }' "$W/gtk" | sort | uniq -c | sort -rn | awk '{ printf "%s %s, ", $2, $1 }')
[ "$(wc -l < "$W/gtk")" -ge 3 ] || fail "$(wc -l < "$W/gtk") GTK marks in 4 s of the app: $names"
ok "GTK 4's marks from the app: $(wc -l < "$W/gtk") ($names)"
