#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report export --format speedscope (issue 19): the files made from
# Sysprof 3.46's captures validate against the schema of speedscope's npm
# package (tools/deps.sh sysprof_fetch_speedscope), their weights are those
# of sysprof-report top (per function, in all, per thread) with the shared
# filters, hostile process names stay valid JSON, a damaged capture is an
# error, and speedscope's own web app opens the file in Chromium (a
# screenshot in LOG_DIR).
#
# Usage: test-sysprof-report-speedscope.sh SYSPROF_REPORT SPEEDSCOPE_DIR DATA_DIR LOG_DIR
set -euo pipefail
report=$1 speedscope=$2 data=$3 logs=$4
here=$(cd "$(dirname "$0")" && pwd)
check="python3 $here/check-speedscope.py"
schema=$speedscope/package/dist/release/file-format-schema.json
perf=$data/sysprof-3.46-perf.syscap
memprof=$data/sysprof-3.46-memprof.syscap
work=$(mktemp -d /tmp/test-speedscope.XXXXXX)
server=
cleanup () { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
skip () { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

echo "1..9"
if [ ! -f "$schema" ] || ! python3 -c 'import jsonschema' 2>/dev/null; then
  for _ in $(seq 9); do echo "ok - # SKIP speedscope's npm package or python3-jsonschema missing (tools/test.sh fetches them)"; done
  exit 0
fi

# NAME CAPTURE [OPTIONS]: the export, validated.
export_valid () {
  local name=$1 capture=$2
  shift 2
  "$report" export --format speedscope "$@" -o "$work/$name.json" "$capture" 2> "$work/err" ||
    fail "$name: export: $(cat "$work/err")"
  $check validate "$schema" "$work/$name.json" 2> "$work/err" || fail "$name: not valid: $(cat "$work/err")"
}

# The first number after "CAPTURE: " in top's first line: the total.
total_of () {
  local capture=$1
  shift
  "$report" top "$@" "$capture" | head -n 1 | sed "s|^$capture: ||" | grep -o '^[0-9]*'
}

# NAME CAPTURE SELF_COLUMN [OPTIONS]: the self weight per (function,
# library) of the export against top's tsv, and the whole weight against
# top's total.
weights_agree () {
  local name=$1 capture=$2 column=$3
  shift 3
  $check self "$work/$name.json" > "$work/$name.got"
  "$report" top --format tsv --limit 0 "$@" "$capture" |
    awk -F'\t' -v c="$column" 'NR > 1 && $c > 0 { w[$1 "\t" $2] += $c } END { for (k in w) print k "\t" w[k] }' |
    LC_ALL=C sort > "$work/$name.want"
  LC_ALL=C sort -o "$work/$name.got" "$work/$name.got"
  diff "$work/$name.want" "$work/$name.got" > "$work/$name.diff" ||
    fail "$name: self weights differ from top (< top, > speedscope): $(head -n 6 "$work/$name.diff" | tr '\n' '|')"
  [ -s "$work/$name.got" ] || fail "$name: no function"
  local total want
  total=$($check threads "$work/$name.json" | awk -F'\t' '{ s += $2 } END { print s + 0 }')
  want=$(total_of "$capture" "$@")
  [ "$total" = "$want" ] || fail "$name: total weight $total, top's total $want"
  echo "$(wc -l < "$work/$name.got") functions, $total in all"
}

# --- 1. CPU samples validate -------------------------------------------------
export_valid cpu "$perf"
[ "$($check get "$work/cpu.json" 'len(d["profiles"])')" -ge 2 ] || fail "cpu: fewer than 2 threads"
[ "$($check get "$work/cpu.json" 'sorted({p["unit"] for p in d["profiles"]})')" = "['none']" ] || fail "cpu: unit"
ok "CPU samples of Sysprof 3.46's capture validate against speedscope $(basename "$speedscope")'s schema"

# --- 2. weights: per function, in all, per thread ----------------------------
got=$(weights_agree cpu "$perf" 3)
$check threads "$work/cpu.json" > "$work/threads"
while IFS=$'\t' read -r name weight span _; do
  tid=${name##*/}
  [ "$weight" = "$span" ] || fail "$name: weights $weight, endValue - startValue $span"
  want=$(total_of "$perf" --tid "$tid")
  [ "$weight" = "$want" ] || fail "$name: weight $weight, top --tid $tid: $want"
done < "$work/threads"
grep -q $'^sh .* (17)/17\t' "$work/threads" || fail "no profile named PROCESS (PID)/TID: $(cut -f 1 "$work/threads" | tr '\n' '|')"
ok "CPU samples: self weights equal top's self on $got; each of $(wc -l < "$work/threads") threads weighs top --tid's total"

# --- 3. the shared filters -----------------------------------------------------
for options in "--no-kernel" "--comm sh --begin 0.1 --end 0.6" "--hide __strcmp_evex --no-kernel" \
  "--focus __strcmp_evex" "--pid 17,18" "--tid 17"; do
  name=filtered-$(echo "$options" | tr -c 'a-z0-9' '-')
  # shellcheck disable=SC2086
  export_valid "$name" "$perf" $options
  # shellcheck disable=SC2086
  weights_agree "$name" "$perf" 3 $options > /dev/null
done
[ "$($check get "$work/filtered---tid-17-.json" 'len(d["profiles"])')" = 1 ] || fail "--tid 17: not one profile"
ok "--no-kernel, --comm with --begin/--end, --hide, --focus, --pid, --tid: top's weights"

# --- 4. allocations -------------------------------------------------------------
export_valid memory "$memprof" --memory
got=$(weights_agree memory "$memprof" 3 --memory)
export_valid memory-bytes "$memprof" --memory=bytes
got2=$(weights_agree memory-bytes "$memprof" 3 --memory=bytes)
[ "$($check get "$work/memory-bytes.json" 'd["profiles"][0]["unit"]')" = bytes ] || fail "--memory=bytes: unit"
export_valid leaked "$memprof" --memory=leaked-bytes
weights_agree leaked "$memprof" 3 --memory=leaked-bytes > /dev/null
ok "allocations (--memory): valid; allocations $got, bytes $got2, leaked bytes as top counts them"

# --- 5. --max-threads -------------------------------------------------------------
export_valid two "$perf" --max-threads 2
others=$(($(wc -l < "$work/threads") - 2))
[ "$($check get "$work/two.json" 'len(d["profiles"])')" = 3 ] || fail "--max-threads 2: not 3 profiles"
[ "$($check get "$work/two.json" 'd["profiles"][2]["name"]')" = "$others other threads" ] ||
  fail "--max-threads 2: $($check get "$work/two.json" 'd["profiles"][2]["name"]')"
[ "$($check get "$work/two.json" 'sum(sum(p["weights"]) for p in d["profiles"])')" = "$(total_of "$perf")" ] ||
  fail "--max-threads 2: the total changed"
ok "--max-threads 2: two threads, then one profile for the $others others, the same total"

# --- 6. hostile names ---------------------------------------------------------------
# The process name "sleep 0.2" (in PROCESS frames and command lines) made
# of a control character, an invalid byte, a quote, a backslash, a line
# break, U+001F and U+2028: same length, so the frames stay sound.
python3 - "$perf" "$work/hostile.syscap" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
bad = b'\x01\xff"\\\n\x1f\xe2\x80\xa8'
assert len(bad) == len(b"sleep 0.2") and data.count(b"sleep 0.2") > 0
open(sys.argv[2], "wb").write(data.replace(b"sleep 0.2", bad))
EOF
export_valid hostile "$work/hostile.syscap"
[ "$($check get "$work/hostile.json" 'sum(p["name"] == "\x01\ufffd\"\\\n\x1f\u2028 (14)/14" for p in d["profiles"])')" = 1 ] ||
  fail "hostile: the name does not come through: $($check get "$work/hostile.json" '[p["name"] for p in d["profiles"]]')"
# As the writer spells it: escapes, and U+FFFD as UTF-8.
python3 -c 'import sys; sys.exit(b"\"\\u0001\xef\xbf\xbd\\\"\\\\\\n\\u001f\\u2028 (14)/14\"" not in open(sys.argv[1], "rb").read())' \
  "$work/hostile.json" || fail "hostile: not escaped as expected: $(grep -o '.\{0,10\}u0001.\{0,30\}' "$work/hostile.json" | head -n 1)"
ok "hostile process names: invalid bytes become U+FFFD, control characters, quotes and U+2028 are escaped"

# --- 7. damage and usage --------------------------------------------------------------
size=$(stat -c %s "$perf")
head -c $((size - 100)) "$perf" > "$work/truncated.syscap"
python3 - "$perf" "$work/garbled.syscap" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
# Frame headers from the middle on: a length and a type no frame has.
for off in range(len(data) // 2, len(data), 997):
    data[off:off + 4] = b"\xff\xff\xff\x7f"
open(sys.argv[2], "wb").write(bytes(data))
EOF
for capture in truncated garbled; do
  rc=0
  "$report" export --format speedscope -o "$work/$capture.json" "$work/$capture.syscap" > /dev/null 2> "$work/err" || rc=$?
  [ $rc -eq 1 ] || fail "$capture capture: exit $rc, want 1: $(cat "$work/err")"
  [ "$(wc -l < "$work/err")" -eq 1 ] || fail "$capture capture: not one line: $(cat "$work/err")"
  grep -q "$capture.syscap: .*offset [0-9]" "$work/err" || fail "$capture capture: no path and offset: $(cat "$work/err")"
  [ ! -e "$work/$capture.json" ] || fail "$capture capture: a file was written"
done
for args in "--format speedscope $perf" "--format speedscope --max-threads -1 -o $work/x $perf" \
  "--format pprof --max-threads 3 -o $work/x $perf" "--format json -o $work/x $perf"; do
  rc=0
  # shellcheck disable=SC2086
  "$report" export $args > /dev/null 2> "$work/err" || rc=$?
  [ $rc -eq 2 ] || fail "export $args: exit $rc, want 2: $(cat "$work/err")"
  [ ! -e "$work/x" ] || fail "export $args: a file was written"
done
ok "a truncated or garbled capture: exit 1, one line naming the offset, no file; bad command lines: exit 2"

# --- 8. to standard output -------------------------------------------------------------
"$report" export --format speedscope -o - "$perf" > "$work/stdout.json" 2> "$work/err" || fail "-o -: $(cat "$work/err")"
cmp -s "$work/stdout.json" "$work/cpu.json" || fail "-o - differs from -o FILE"
ok "-o - writes the same file to standard output"

# --- 9. speedscope's web app in Chromium ------------------------------------------------
chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
  skip "chromium is not installed (tools/deps.sh lists it)"
  exit 0
fi
mkdir -p "$work/www" "$logs"
cp -r "$speedscope/package/dist/release/." "$work/www/"
cp "$work/cpu.json" "$work/www/profile.json"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$work/www" "$port" > "$work/http.log" 2>&1 &
server=$!
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/profile.json')" 2> /dev/null && break
  sleep 0.1
done
url="http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/profile.json"
# Root needs --no-sandbox; no GPU on a CI machine.  A profile of its own.
# shellcheck disable=SC2054 # the comma is in --window-size
browser=("$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/chromium"
  --window-size=1200,800 --virtual-time-budget=10000)
"${browser[@]}" --screenshot="$logs/speedscope-export.png" "$url" > "$work/chromium.log" 2>&1 ||
  fail "chromium --screenshot: $(tail -n 5 "$work/chromium.log")"
"${browser[@]}" --dump-dom "$url" > "$work/dom.html" 2> "$work/chromium.log" ||
  fail "chromium --dump-dom: $(tail -n 5 "$work/chromium.log")"
grep -q 'GET /profile.json' "$work/http.log" || fail "speedscope did not fetch the profile: $(cat "$work/http.log")"
colours=$(python3 "$here/check-screenshot.py" "$logs/speedscope-export.png")
[ "$colours" -ge 8 ] || fail "the screenshot is blank ($colours colours): $logs/speedscope-export.png"
grep -q '<title>sysprof-3.46-perf.syscap' "$work/dom.html" ||
  fail "the page does not name the profile: $(grep -o '<title>[^<]*' "$work/dom.html")"
grep -q '(17)/17' "$work/dom.html" || fail "the page does not show the first thread's profile"
ok "speedscope $(basename "$speedscope")'s web app in Chromium shows the file ($colours colours): $logs/speedscope-export.png"
