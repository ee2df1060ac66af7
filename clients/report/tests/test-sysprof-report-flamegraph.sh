#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report flamegraph's SVG (and diff --format svg's): well-formed,
# standalone and drawn as its figures say for hostile function names (a
# capture make-flame-capture writes with libsysprof-capture) and Sysprof
# 3.46's capture, and drawn by librsvg (as GTK shows an SVG: no script);
# then its script in Debian's headless Chromium, the state
# given in the address and the DOM read back with --dump-dom: #search=
# highlights exactly the frames whose name matches and shows the share of
# samples that top (or the collapsed stacks) give, #zoom= draws a frame
# full width with its callees in proportion, its callers greyed and the rest
# hidden; and driven as a user would (flame-events.html clicks a box and
# the controls, answers the prompt, hovers, presses Escape).  The script
# marks the root when it has run: a script that throws fails.  Screenshots
# in LOG_DIR.
#
# Usage: test-sysprof-report-flamegraph.sh SYSPROF_REPORT MAKE_FLAME_CAPTURE DATA_DIR LOG_DIR
set -euo pipefail
report=$1 make_capture=$2 data=$3 logs=$4
here=$(cd "$(dirname "$0")" && pwd)
check="python3 $here/check-flame.py"
perf=$data/sysprof-3.46-perf.syscap
work=$(mktemp -d /tmp/test-flamegraph.XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0
# A '#' would start a TAP directive: names and addresses lose theirs.
ok () { n=$((n + 1)); echo "ok $n - $(printf '%s' "$*" | tr '#' ' ')"; }
skip () { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }
# NAME ARGS...: sysprof-report's SVG into $work/NAME.svg, checked.
svg () {
  local name=$1
  shift
  "$report" "$@" --no-local-files -o "$work/$name.svg" > /dev/null 2> "$work/err" || fail "$name: $* : $(cat "$work/err")"
  if command -v xmllint > /dev/null; then
    xmllint --noout "$work/$name.svg" 2> "$work/err" || fail "$name: xmllint: $(head -n 3 "$work/err")"
  fi
}

echo "1..10"

# --- 1. hostile names ---------------------------------------------------------
"$make_capture" "$work/hostile.syscap" "$work/hostile.names" || fail "make-flame-capture"
svg hostile flamegraph "$work/hostile.syscap"
got=$($check static "$work/hostile.svg" "$work/hostile.names" 2>&1) || fail "hostile: $got"
svg hostile-diff diff --format svg "$work/hostile.syscap" "$work/hostile.syscap"
$check static "$work/hostile-diff.svg" "$work/hostile.names" > "$work/got" 2>&1 ||
  fail "hostile diff --format svg: $(cat "$work/got")"
ok "hostile names (<, &, ]]>, quotes, control characters, invalid UTF-8, U+FFFF): well-formed, every name shown; $got"

# --- 2. Sysprof 3.46's capture --------------------------------------------------
svg perf flamegraph "$perf"
got=$($check static "$work/perf.svg" 2>&1) || fail "perf: $got"
svg perf-diff diff --format svg "$perf" "$perf"
$check static "$work/perf-diff.svg" > "$work/got" 2>&1 || fail "perf: diff --format svg: $(cat "$work/got")"
svg perf-memory flamegraph --memory=bytes "$data/sysprof-3.46-memprof.syscap"
$check static "$work/perf-memory.svg" > "$work/got" 2>&1 || fail "memprof: flamegraph --memory=bytes: $(cat "$work/got")"
ok "Sysprof 3.46's captures: boxes where their columns say, inside their callers; $got"

# --- 3. a static picture for librsvg ----------------------------------------------
# What GTK (gdk-pixbuf's SVG loader) shows: no script runs there.
loader=$(find /usr/lib/*/gdk-pixbuf-2.0 -name 'libpixbufloader-svg.so' 2> /dev/null | head -n 1)
if ! command -v gdk-pixbuf-thumbnailer > /dev/null || [ -z "$loader" ]; then
  skip "gdk-pixbuf-thumbnailer or librsvg's gdk-pixbuf loader is not installed"
else
  mkdir -p "$logs"
  gdk-pixbuf-thumbnailer -s 1200 "$work/hostile.svg" "$logs/flamegraph-librsvg.png" 2> "$work/err" ||
    fail "gdk-pixbuf-thumbnailer: $(cat "$work/err")"
  colours=$(python3 "$here/check-screenshot.py" "$logs/flamegraph-librsvg.png")
  [ "$colours" -ge 8 ] || fail "librsvg draws a blank picture ($colours colours)"
  ok "librsvg (gdk-pixbuf) draws the static picture ($colours colours): $logs/flamegraph-librsvg.png"
fi

# --- Chromium --------------------------------------------------------------------
chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
  for _ in $(seq 7); do skip "chromium is not installed (tools/deps.sh lists it)"; done
  exit 0
fi
mkdir -p "$logs"
# Root needs --no-sandbox; no GPU on a CI machine.  A profile of its own.
browser=("$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/chromium")
# NAME.svg ADDRESS_SUFFIX OUT: the DOM after the script ran.
dom () {
  "${browser[@]}" --dump-dom "file://$work/$1$2" > "$3" 2> "$work/chromium.log" ||
    fail "chromium --dump-dom $1$2: $(tail -n 5 "$work/chromium.log")"
}

# --- 4. search: top's shares ------------------------------------------------------
"$report" top --format tsv --sort total --limit 0 --no-local-files "$perf" > "$work/top"
rows=$(($(wc -l < "$work/top") - 1))
checked=
for row in 2 3 4 $((rows / 2 + 1)); do
  fn=$(sed -n "${row}p" "$work/top" | cut -f 1) total=$(sed -n "${row}p" "$work/top" | cut -f 4)
  # A name that two libraries share matches both: top splits it.
  [ "$(cut -f 1 "$work/top" | grep -cxF -- "$fn")" -eq 1 ] || continue
  regex=$($check regex "$fn")
  dom perf.svg "#search=$regex" "$work/search.dom"
  got=$($check search "$work/perf.svg" "$work/search.dom" "$regex" "$total" 2>&1) || fail "perf #search=$regex: $got"
  checked+="$fn ($got); "
done
[ -n "$checked" ] || fail "no function of top to search for"
ok "search= of top's functions: their frames highlighted, top's total as the share: $checked"

# --- 5. search: hostile names, and unions --------------------------------------------
count=0
while IFS=$'\t' read -r regex want; do
  dom hostile.svg "#search=$regex" "$work/search.dom"
  $check search "$work/hostile.svg" "$work/search.dom" "$regex" "$want" > "$work/got" 2>&1 ||
    fail "hostile #search=$regex: $(cat "$work/got")"
  count=$((count + 1))
done < <($check searches "$work/hostile.names")
[ "$count" -gt 0 ] || fail "no hostile name to search for"
# Two functions at once: the samples with either on the stack, from the
# collapsed stacks (a sample where both are, or a recursion, counts once).
f1=$(sed -n 2p "$work/top" | cut -f 1) f2=$(sed -n 3p "$work/top" | cut -f 1)
want=$("$report" collapsed --no-local-files "$perf" | A=$f1 B=$f2 awk '{
    c = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
    for (i = 1; i <= k; i++) if (f[i] == ENVIRON["A"] || f[i] == ENVIRON["B"]) { s += c; break }
  } END { print s + 0 }')
regex=$(python3 -c 'import re, sys, urllib.parse; print(urllib.parse.quote("^(" + re.escape(sys.argv[1]) + "|" + re.escape(sys.argv[2]) + ")$", safe=""))' "$f1" "$f2")
dom perf.svg "#search=$regex" "$work/search.dom"
got=$($check search "$work/perf.svg" "$work/search.dom" "$regex" "$want" 2>&1) || fail "perf #search=$f1|$f2: $got"
ok "search= of each of the $count hostile names (the capture's own counts); $f1 or $f2: $got"

# --- 6. zoom ------------------------------------------------------------------------
zoomed=
for name in perf hostile; do
  id=$($check pick "$work/$name.svg")
  dom "$name.svg" "#zoom=$id" "$work/zoom.dom"
  got=$($check zoom "$work/$name.svg" "$work/zoom.dom" "$id" 2>&1) || fail "$name #zoom=$id: $got"
  zoomed+="$name: $got; "
done
# Nothing to zoom to: the root, an id of no frame.
for id in f0 nothing; do
  dom perf.svg "#zoom=$id" "$work/zoom.dom"
  got=$($check zoom "$work/perf.svg" "$work/zoom.dom" "$id" 2>&1) || fail "perf #zoom=$id: $got"
done
ok "zoom=: the frame full width, callees in proportion, callers greyed, the rest hidden (${zoomed}zoom=f0 and of no frame: unchanged)"

# --- 7. both, in the query; bad input -------------------------------------------------
id=$($check pick "$work/perf.svg")
regex=$($check regex "$(sed -n 2p "$work/top" | cut -f 1)")
total=$(sed -n 2p "$work/top" | cut -f 4)
dom perf.svg "?zoom=$id&search=$regex" "$work/both.dom"
$check zoom "$work/perf.svg" "$work/both.dom" "$id" > "$work/got" 2>&1 || fail "?zoom=$id&search=: $(cat "$work/got")"
$check search "$work/perf.svg" "$work/both.dom" "$regex" "$total" > "$work/got" 2>&1 || fail "?zoom=$id&search=: $(cat "$work/got")"
dom perf.svg "#search=(%5B" "$work/bad.dom"
grep -q 'data-flame-ready="true"' "$work/bad.dom" || fail "#search=([: the script did not finish"
grep -q '>Not a regular expression: (\[<' "$work/bad.dom" || fail "#search=([: no message"
! grep -q 'class="frame match' "$work/bad.dom" || fail "#search=([: frames highlighted"
dom perf.svg "#search=%E0%A4%A&zoom=%" "$work/bad.dom"
$check zoom "$work/perf.svg" "$work/bad.dom" f0 > "$work/got" 2>&1 || fail "malformed escapes: $(cat "$work/got")"
svg empty flamegraph --focus no-such-function "$perf"
dom empty.svg "#search=x&zoom=f0" "$work/empty.dom"
grep -q 'data-flame-ready="true"' "$work/empty.dom" || fail "a graph without samples: the script did not finish"
grep -q '>Matched: 0 samples, 0.00%<' "$work/empty.dom" || fail "a graph without samples: no share of 0"
ok "?zoom=ID&search=REGEX in the query; a bad regular expression is said, malformed escapes ignored, a graph without samples"

# --- 8. the diff's SVG shares the script ------------------------------------------------
fn=$(sed -n 2p "$work/top" | cut -f 1)
regex=$($check regex "$fn")
dom perf-diff.svg "#search=$regex" "$work/diff.dom"
got=$($check search "$work/perf-diff.svg" "$work/diff.dom" "$regex" "$(sed -n 2p "$work/top" | cut -f 4)" 2>&1) ||
  fail "diff --format svg #search=: $got"
id=$($check pick "$work/perf-diff.svg")
dom perf-diff.svg "#zoom=$id" "$work/diff.dom"
$check zoom "$work/perf-diff.svg" "$work/diff.dom" "$id" > "$work/got" 2>&1 || fail "diff --format svg #zoom=: $(cat "$work/got")"
ok "diff --format svg: search= and zoom= as well ($fn: $got)"

# --- 9. screenshots -----------------------------------------------------------------------
# Of the hostile names: coloured (JIT code is user code) and short.
shoot () { # PNG ADDRESS_SUFFIX
  local height
  height=$(sed -n 's/^<svg xmlns=[^>]* height="\([0-9]*\)".*/\1/p' "$work/hostile.svg")
  "${browser[@]}" --window-size="1200,$height" --screenshot="$logs/$1" "file://$work/hostile.svg$2" \
    > "$work/chromium.log" 2>&1 || fail "chromium --screenshot: $(tail -n 5 "$work/chromium.log")"
}
id=$($check pick "$work/hostile.svg")
shoot flamegraph-search.png "#search=$($check regex recurse)"
shoot flamegraph-zoom.png "#zoom=$id&search=$($check regex recurse)"
# MATCH_COLOUR of report-flame.c.
pixels=$(python3 "$here/check-screenshot.py" "$logs/flamegraph-search.png" 214,30,214)
[ "$pixels" -gt 0 ] || fail "no highlighted pixel in $logs/flamegraph-search.png"
colours=$(python3 "$here/check-screenshot.py" "$logs/flamegraph-zoom.png")
[ "$colours" -ge 8 ] || fail "the zoomed screenshot is blank ($colours colours)"
ok "screenshots: $logs/flamegraph-search.png ($pixels highlighted pixels looked at), $logs/flamegraph-zoom.png"

# --- 10. clicks, hovering, the prompt, keys -------------------------------------------------
cp "$here/flame-events.html" "$work/"
for name in hostile perf; do
  id=$($check pick "$work/$name.svg")
  regex=$($check regex "$(sed -n 2p "$work/top" | cut -f 1)")
  [ $name = perf ] || regex=$($check regex recurse)
  "${browser[@]}" --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom \
    "file://$work/flame-events.html#svg=$name.svg&zoom=$id&search=$regex" > "$work/events.dom" 2> "$work/chromium.log" ||
    fail "chromium --dump-dom flame-events.html: $(tail -n 5 "$work/chromium.log")"
  grep -q '<body data-done="true">' "$work/events.dom" || fail "$name: flame-events.html did not finish"
  ! grep -q '^not ok\|>not ok' "$work/events.dom" || fail "$name: $(grep -o 'not ok[^<]*' "$work/events.dom" | head -n 1)"
  passed=$(grep -c '^ok \|>ok ' "$work/events.dom")
  [ "$passed" -ge 16 ] || fail "$name: only $passed checks of flame-events.html passed"
done
ok "a click zooms, Reset zoom and Escape zoom out, Search asks and highlights, hovering shows the title, the address follows ($passed checks)"
