# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the tests that need Debian's debuginfod server (test-debuginfod,
# test-symbols): start_debuginfod DIR starts it on 127.0.0.1, on a free port,
# over DIR scanned once, and waits until it has found a file there; it sets
# $port and $server (its pid), with its log in $W/debuginfod.log.  The caller
# defines fail and $W, and stops the server.
# A port nobody listens on right now.
free_port () { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# GET http://127.0.0.1:$1$2, the body on stdout; fails on errors.
http_get () { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode("latin-1"))' "http://127.0.0.1:$1$2"; }

start_debuginfod () {
  local dir=$1 started=0
  for attempt in 1 2 3; do
    port=$(free_port)
    debuginfod -p "$port" -F -t 0 -g 0 -d "$W/debuginfod-$attempt.sqlite" "$dir" > "$W/debuginfod.log" 2>&1 &
    server=$!
    for _ in $(seq 100); do
      kill -0 "$server" 2> /dev/null || break
      # Ready once its scan found a file.
      if http_get "$port" /metrics 2> /dev/null | grep -qE '^scanned_files_total\{source="file"\} [1-9]'; then
        started=1
        break
      fi
      sleep 0.1
    done
    [ $started = 1 ] && break
    kill "$server" 2> /dev/null || true
    wait "$server" 2> /dev/null || true
  done
  [ $started = 1 ] || fail "debuginfod did not start or scan: $(tail -5 "$W/debuginfod.log")"
}
