#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a command with a private X server (Xvfb) for GTK tests:
#
#   tools/with-xvfb.sh CMD ARGS...
#
# CMD sees DISPLAY (the server accepts any local client, so a test user may
# connect too), GDK_BACKEND=x11, GSK_RENDERER=cairo (the same pixels with or
# without GL), GSETTINGS_BACKEND=memory, no accessibility bus, and a private
# XDG_RUNTIME_DIR, and G_SLICE=always-malloc (GObjects from malloc, so a
# use after free of one is an ASan report, not a silent reuse).  The server and the directories are removed on exit.
#
# Exit status: CMD's; 77 (meson's "skipped") when Xvfb is not installed
# (tools/deps.sh installs it); 1 when the server does not start.

set -euo pipefail

if ! command -v Xvfb >/dev/null; then
    echo "# SKIP: Xvfb is not installed (apt-get install xvfb)"
    exit 77
fi

work=$(mktemp -d /tmp/sysprof-xvfb.XXXXXX)
chmod 755 "$work"
xvfb_pid=
cleanup () {
    if [ -n "$xvfb_pid" ]; then
        kill "$xvfb_pid" 2>/dev/null || true
        wait "$xvfb_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Xvfb picks a free display itself and writes its number to the fd.
exec {display_fd}>"$work/display"
Xvfb -displayfd "$display_fd" -screen 0 1600x1000x24 -nolisten tcp -ac -noreset >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 1 100); do
    [ -s "$work/display" ] && break
    if ! kill -0 "$xvfb_pid" 2>/dev/null; then
        echo "with-xvfb: Xvfb exited:" >&2
        cat "$work/xvfb.log" >&2
        exit 1
    fi
    sleep 0.1
done
if [ ! -s "$work/display" ]; then
    echo "with-xvfb: Xvfb did not start within 10 s" >&2
    exit 1
fi
exec {display_fd}>&-

mkdir -m 700 "$work/runtime"
export DISPLAY=":$(head -n1 "$work/display")"
export GDK_BACKEND=x11
export GSK_RENDERER="${GSK_RENDERER:-cairo}"
export GSETTINGS_BACKEND=memory
export NO_AT_BRIDGE=1
export GTK_A11Y=none
export XDG_RUNTIME_DIR="$work/runtime"
export SYSPROF_XVFB_WORKDIR="$work"
export G_SLICE=always-malloc

status=0
"$@" || status=$?
exit "$status"
