#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every test suite, on a fresh Debian 12 machine, as root from the checkout:
# installs what is missing, builds three configurations and runs them.
#   build/       the normal build: all suites (unit, compat, fuzz replay, slow)
#   build-asan/  ASan+UBSan: libsysprof-capture, libsysprof, the clients, fuzz replay, compat, and
#                the integration suite with the sanitized sysprofd
#   build-fuzz/  clang + libFuzzer: a short fuzzing run of every target
# The normal build's suites run last so meson's summary ends the output.
# None of them is installed: they take the default prefix (/usr/local) with
# -Dsystem_service=false (no sysprofd service files, which nothing reads
# there).  What is installed is the Debian package (debian/): the suite
# package builds it and installs it into a fresh Debian 12 chroot.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh

sysprof_install_packages "${SYSPROF_BUILD_PACKAGES[@]}" "${SYSPROF_TEST_PACKAGES[@]}" "${SYSPROF_APP_TEST_PACKAGES[@]}" \
  "${SYSPROF_PACKAGE_PACKAGES[@]}"
sysprof_build_pprof
sysprof_fetch_speedscope
sysprof_make_chroot

# Scheduler details read the sched_switch tracepoint's format from tracefs,
# which a machine without systemd may not have mounted.
if [ ! -e /sys/kernel/tracing/events/sched/sched_switch/format ] && [ -d /sys/kernel/tracing ]; then
  mount -t tracefs nodev /sys/kernel/tracing || echo "warning: cannot mount tracefs: the scheduler tests will fail" >&2
fi

setup () {
  local dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@" >/dev/null
  fi
}

echo "== ASan+UBSan build (libsysprof-capture, libsysprof, clients)"
setup build-asan -Dsystem_service=false -Db_sanitize=address,undefined -Db_lundef=false -Dcompat=enabled -Dbenchmarks=false
ninja -C build-asan
G_SLICE=always-malloc ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-asan --print-errorlogs --suite capture --suite libsysprof --suite clients --suite fuzz --suite compat
# The app's widgets on hostile captures and its charts, under ASan and UBSan
# too (leaks off: GTK keeps caches for the life of the process).
if [ -x build-asan/clients/app/tests/test-app-hostile ]; then
  G_SLICE=always-malloc ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs test-app-hostile test-chart
fi

# sysprofd itself under ASan+UBSan, confined as its unit says, in the whole
# integration suite: a use-after-free or an overflow in the root daemon fails
# the run (tools/with-sysprofd.sh fails on a sanitizer report or a daemon that
# died).  The app's recorder test needs no second run.
echo "== ASan+UBSan sysprofd, integration suite"
G_SLICE=always-malloc ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-asan --print-errorlogs --suite integration --no-suite app

echo "== libFuzzer build (clang), short runs"
CC=clang setup build-fuzz -Dsystem_service=false -Dfuzzing=true -Dcompat=disabled -Dbenchmarks=false -Dapp=disabled \
  -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link
ninja -C build-fuzz
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 meson test -C build-fuzz --print-errorlogs --suite fuzz-run

echo "== Normal build, every suite"
setup build -Dsystem_service=false -Dcompat=enabled
ninja -C build
meson test -C build --print-errorlogs
