#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Our libsysprof-capture as a drop-in for upstream's libsysprof-capture-4:
# installed from this build (meson install --tags devel into a scratch
# root), it is found as upstream's is (pkg-config sysprof-capture-4,
# include/sysprof-6, libsysprof-capture-4.a), every header builds on its own
# in C and C++, and programs written against upstream's API build with
# -Werror and behave as with Debian's Sysprof 3.46 (libsysprof-4-dev) when
# that is installed: capture-api.c (the whole reader/writer/cursor API) prints
# the same, collector-api.c (GLib's and GTK's collector calls) puts the same
# marks, logs and counters into a capture recorded by our sysprof-cli.
#
# Usage: run-dropin.sh BUILD_DIR SOURCE_DIR SYSPROF_CLI SYSPROF_DUMP [SANITIZE]
# (SANITIZE: the build's b_sanitize; the programs are built with it too.)
set -euo pipefail
BUILD=$1 SRC=$2 CLI=$3 DUMP=$4 SANITIZE=${5:-none}

W=$(mktemp -d /tmp/test-dropin.XXXXXX)
trap 'rm -rf "$W"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
skip () { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }
CFLAGS_STRICT=(-Wall -Wextra -Werror -Wno-sign-compare -Wno-unused-parameter)
# A sanitized build installs a sanitized archive: its users link the runtime.
SAN=()
[ "$SANITIZE" = none ] || SAN=(-fsanitize="$SANITIZE")

echo "1..7"

# 1. Installed under upstream's names.
meson install -C "$BUILD" --no-rebuild --quiet --tags devel --destdir "$W/root" > "$W/install.log" 2>&1 ||
  fail "meson install: $(tail -n 5 "$W/install.log")"
pc=$(find "$W/root" -name sysprof-capture-4.pc | head -n 1)
[ -n "$pc" ] || fail "no sysprof-capture-4.pc installed"
ours () { PKG_CONFIG_LIBDIR=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$W/root pkg-config "$@"; }
ours --atleast-version=3.38.0 sysprof-capture-4 || fail "version $(ours --modversion sysprof-capture-4) < 3.38 (GLib asks for >= 3.38.0)"
cflags=$(ours --cflags sysprof-capture-4) libs=$(ours --libs sysprof-capture-4)
grep -q -- '/include/sysprof-6' <<< "$cflags" || fail "Cflags without include/sysprof-6: $cflags"
grep -q -- '-lsysprof-capture-4' <<< "$libs" || fail "Libs without -lsysprof-capture-4: $libs"
incdir=$(sed -n 's/.*-I\([^ ]*sysprof-6\).*/\1/p' <<< "$cflags")
[ -f "$incdir/sysprof-capture.h" ] && [ -f "$incdir/sysprof-version.h" ] && [ -f "$incdir/sysprof-platform.h" ] ||
  fail "headers missing in $incdir"
ok "installed as sysprof-capture-4 $(ours --modversion sysprof-capture-4): $cflags $libs"

# 2. Every installed header on its own, in C and in C++; C++ calls through
# upstream's exact prototypes.
for h in "$incdir"/*.h; do
  name=$(basename "$h")
  printf '#include <%s>\nint main (void) { return 0; }\n' "$name" > "$W/one.c"
  # shellcheck disable=SC2086
  cc -std=gnu11 "${CFLAGS_STRICT[@]}" "${SAN[@]}" $cflags -c "$W/one.c" -o "$W/one.o" 2> "$W/cc.err" ||
    fail "<$name> alone in C: $(head -n 3 "$W/cc.err")"
  # shellcheck disable=SC2086
  c++ -Wall -Wextra -Werror "${SAN[@]}" -DHEADER="<$name>" $cflags "$SRC/headers.cc" -o "$W/headers" $libs 2> "$W/cc.err" ||
    fail "<$name> in C++: $(head -n 3 "$W/cc.err")"
done
"$W/headers" || fail "the C++ program failed"
ok "$(ls "$incdir" | wc -l) headers build alone in C and C++ (-Werror); C++ takes upstream's prototypes"

# 3-4. The whole capture API.
# shellcheck disable=SC2086
cc -std=gnu11 "${CFLAGS_STRICT[@]}" "${SAN[@]}" $cflags "$SRC/capture-api.c" -o "$W/capture-api-ours" $libs 2> "$W/cc.err" ||
  fail "capture-api.c against ours: $(head -n 5 "$W/cc.err")"
mkdir "$W/ours"
"$W/capture-api-ours" "$W/ours" > "$W/ours.out" || fail "capture-api (ours): $(grep FAIL "$W/ours.out")"
grep -q '^--- 45$' "$W/ours.out" || fail "ours does not say it has Sysprof 45's API"
sed -n '/^--- 45$/,$p' "$W/ours.out" | tr '\n' '|' | grep -q 'trace entering=1|trace entering=0|dbus bus=1 len=8|done' ||
  fail "45's frames: $(sed -n '/^--- 45$/,$p' "$W/ours.out" | tr '\n' '|')"
ok "capture-api.c builds with -Werror against ours and runs: $(grep -c . "$W/ours.out") lines, 45's TRACE and D-Bus frames"
if pkg-config --exists sysprof-capture-4 && [ "$(pkg-config --modversion sysprof-capture-4)" = 3.46.0 ]; then
  # shellcheck disable=SC2046
  cc -std=gnu11 -w "$SRC/capture-api.c" -o "$W/capture-api-346" $(pkg-config --cflags --libs sysprof-capture-4) 2> "$W/cc.err" ||
    fail "capture-api.c against Debian's 3.46: $(head -n 5 "$W/cc.err")"
  mkdir "$W/346"
  "$W/capture-api-346" "$W/346" > "$W/346.out" || fail "capture-api (3.46): $(grep FAIL "$W/346.out")"
  sed '/^--- 45$/,$d' "$W/ours.out" > "$W/ours.common"
  grep -v '^done$' "$W/346.out" > "$W/346.common"
  diff -u "$W/346.common" "$W/ours.common" >&2 || fail "capture-api prints differently with ours and with Debian's 3.46"
  ok "capture-api: ours prints what Debian's 3.46 prints, line for line ($(wc -l < "$W/346.common") lines)"
else
  skip "Debian's libsysprof-4-dev 3.46 is not installed"
fi

# 5. The collector without a profiler, and told late.
# shellcheck disable=SC2086
cc -std=gnu11 "${CFLAGS_STRICT[@]}" "${SAN[@]}" $cflags "$SRC/collector-api.c" -o "$W/collector-ours" $libs 2> "$W/cc.err" ||
  fail "collector-api.c against ours: $(head -n 5 "$W/cc.err")"
env -u SYSPROF_CONTROL_FD "$W/collector-ours" inactive > /dev/null || fail "collector calls without a profiler"
env -u SYSPROF_CONTROL_FD "$W/collector-ours" late > /dev/null || fail "is_active with the variable set late"
ok "collector: no-ops and no counter ids without a profiler; is_active sees a variable set late and asks for no ring"

# 6. GLib's and GTK's collector calls, recorded by our sysprof-cli.
canon () { # CAPTURE -> the program's marks, logs and counters, ids left out
  # 3.46's collector numbers its counters from 1, as the recorder's own are:
  # the drainer gives them ids of the capture, or the recorder's CPU and
  # memory values would show up as the program's here.
  "$DUMP" "$1" | awk '
    /^[A-Z]/ { type = $1 }
    type == "MARK" && /^  duration:/ { d = $2 }
    type == "MARK" && /^  group:/ { sub(/^  group: ?/, ""); g = $0 }
    type == "MARK" && /^  name:/ { sub(/^  name: ?/, ""); nm = $0 }
    type == "MARK" && /^  message:/ { sub(/^  message: ?/, ""); print "mark", g, nm, d, $0 }
    type == "LOG" && /^  severity:/ { s = $2 }
    type == "LOG" && /^  domain:/ { sub(/^  domain: ?/, ""); dom = $0 }
    type == "LOG" && /^  message:/ { sub(/^  message: ?/, ""); print "log", s, dom, $0 }
    type == "CTRDEF" && /^  counter [0-9]+: \[gtk\]/ { id = $2; sub(/:$/, "", id); name[id] = $4; sub(/^  counter [0-9]+:/, ""); print "define" $0 }
    type == "CTRSET" && /^  counter / && ($2 in name) { print "set", name[$2], $4, $5, $6, $7 }'
}
if [ "$(id -u)" != 0 ]; then
  skip "not root: sysprof-cli cannot record in-process here"
else
  record () { # PROGRAM NAME
    "$CLI" -f --no-perf --no-decode "$W/$2.syscap" -- "$1" report 50 > "$W/$2.log" 2>&1 ||
      fail "sysprof-cli with $2: $(tail -n 3 "$W/$2.log")"
    canon "$W/$2.syscap" > "$W/$2.canon"
  }
  record "$W/collector-ours" collector-ours
  [ "$(grep -c '^mark ' "$W/collector-ours.canon")" -eq 200 ] && [ "$(grep -c '^log ' "$W/collector-ours.canon")" -eq 100 ] &&
    [ "$(grep -c '^set ' "$W/collector-ours.canon")" -eq 100 ] ||
    fail "ours: $(grep -c '^mark ' "$W/collector-ours.canon") marks, $(grep -c '^log ' "$W/collector-ours.canon") logs, $(grep -c '^set ' "$W/collector-ours.canon") counter values (want 200, 100, 100)"
  if pkg-config --exists sysprof-capture-4 && [ "$(pkg-config --modversion sysprof-capture-4)" = 3.46.0 ]; then
    # shellcheck disable=SC2046
    cc -std=gnu11 -w "$SRC/collector-api.c" -o "$W/collector-346" $(pkg-config --cflags --libs sysprof-capture-4) 2> "$W/cc.err" ||
      fail "collector-api.c against Debian's 3.46: $(head -n 5 "$W/cc.err")"
    record "$W/collector-346" collector-346
    diff -u "$W/collector-346.canon" "$W/collector-ours.canon" >&2 ||
      fail "the collector reports differently with ours and with Debian's 3.46"
    ok "collector: GLib's and GTK's calls give the same 200 marks, 100 logs and 100 counter values with ours and with Debian's 3.46"
  else
    ok "collector: GLib's and GTK's calls give 200 marks, 100 logs and 100 counter values (no Debian 3.46 to compare)"
  fi
fi

# 7. A shared library that links it (as libgtk-4 does) exports none of it.
printf '#include <sysprof-capture.h>\nvoid lib_mark (void);\n__attribute__ ((visibility ("default"))) void lib_mark (void) { sysprof_collector_mark (0, 0, "g", "n", NULL); }\n' > "$W/lib.c"
# shellcheck disable=SC2086
cc -shared -fPIC -fvisibility=hidden "${SAN[@]}" $cflags "$W/lib.c" -o "$W/libuser.so" $libs || fail "a shared library linking ours"
exported=$(nm -D --defined-only "$W/libuser.so" | awk '$3 ~ /^_?sysprof_/' | wc -l)
[ "$exported" -eq 0 ] || fail "a shared library linking ours exports $exported sysprof_ symbols"
# Loadable late (a GTK or GIO module is dlopen()ed): no static TLS needed.
if readelf -d "$W/libuser.so" | grep -q STATIC_TLS; then fail "a shared library linking ours needs static TLS"; fi
ok "a shared library linking it exports no sysprof_ symbol and needs no static TLS"
