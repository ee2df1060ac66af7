#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report diff (issue 18) on real recordings: hot-functions run with
# hot_compute_a, _b and _c given 4, 3, 2 units a round, then 2, 3, 4 (the
# system calls one unit), recorded by our sysprof-cli through sysprofd as an
# unprivileged user.  Their shares of the process's samples go from 40, 30,
# 20 % to 20, 30, 40 %: diff must report -20, 0, +20 points (within 5), the
# biggest changes first; the same from two parts of one recording of both
# runs (--before, --after); bad command lines are usage errors.  The
# differential flame graph (diff --format svg) of the two recordings, read
# back as XML: hot_compute_a's frame blue with -20 points in its title,
# hot_compute_c's red with +20, hot_compute_b's near grey with about 0, the
# boxes as wide as AFTER's samples; a damaged capture fails cleanly.
# Run under tools/with-sysprofd.sh:
#   test-report-diff.sh SYSPROF_CLI SYSPROF_REPORT HOT_FUNCTIONS HOTLIB
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") workload=$(realpath "$3") hotlib=$(realpath "$4")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u"
install -m 755 "$cli" "$report" "$workload" "$hotlib" "$W/bin/"
chown "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" timeout 120 "$@"; }
record () { # CAPTURE COMMAND...
  (cd "$W/u" && as sysprof-cli -f "$1" -- "${@:2}") > "$W/out" 2>&1 ||
    fail "sysprof-cli $*: $(tr '\n' '|' < "$W/out")"
}
# FUNCTION COLUMN < TSV: the value of COLUMN (1-based) in FUNCTION's row.
field () { awk -F'\t' -v f="$1" -v c="$2" 'NR > 1 && $1 == f { print $c; exit }'; }
near () { # VALUE WANT TOLERANCE
  awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(v != "" && d <= t) }'
}
check_changes () { # TSV WHAT
  local a b c
  a=$(field hot_compute_a 7 < "$1") b=$(field hot_compute_b 7 < "$1") c=$(field hot_compute_c 7 < "$1")
  near "$a" -20 5 && near "$b" 0 5 && near "$c" 20 5 ||
    fail "$2: self changes a=$a b=$b c=$c, want -20, 0, +20: $(head -n 6 "$1" | tr '\n' '|')"
  # Biggest change first: the first two rows are a and c.
  [ "$(awk -F'\t' 'NR == 2 || NR == 3 { print $1 }' "$1" | sort | tr '\n' ' ')" = "hot_compute_a hot_compute_c " ] ||
    fail "$2: not sorted by change: $(head -n 4 "$1" | tr '\n' '|')"
  echo "a $a, b $b, c $c"
}

echo "1..5"

# 1. Two recordings.
record before.syscap hot-functions 2 4 3 2
record after.syscap hot-functions 2 2 3 4
as sysprof-report diff --comm hot-functions --format tsv "$W/u/before.syscap" "$W/u/after.syscap" > "$W/diff.tsv" ||
  fail "sysprof-report diff failed"
[ "$(head -n 1 "$W/diff.tsv" | cut -f1-7)" = $'function\tlibrary\tbefore_self_samples\tafter_self_samples\tbefore_self_percent\tafter_self_percent\tself_change' ] ||
  fail "tsv header: $(head -n 1 "$W/diff.tsv")"
got=$(check_changes "$W/diff.tsv" "two captures")
as sysprof-report diff --comm hot-functions "$W/u/before.syscap" "$W/u/after.syscap" > "$W/diff.txt" ||
  fail "sysprof-report diff (text) failed"
grep -q "before.syscap: [0-9]* samples; .*after.syscap: [0-9]* samples" "$W/diff.txt" || fail "text summary: $(head -n 1 "$W/diff.txt")"
ok "two recordings: self changes in points ($got), biggest first, text and tsv"

# 2. Two parts of one recording of both runs (each about 1.5 s, the second
# starting after the first).
record both.syscap sh -c 'hot-functions 1.5 4 3 2 && hot-functions 1.5 2 3 4'
as sysprof-report diff --comm hot-functions --format tsv --before 0.3:1.3 --after 2.0:2.9 \
  "$W/u/both.syscap" "$W/u/both.syscap" > "$W/parts.tsv" || fail "sysprof-report diff --before --after failed"
got=$(check_changes "$W/parts.tsv" "two parts")
ok "two parts of one recording (--before 0.3:1.3 --after 2.0:2.9): $got"

# 3. Bad command lines: exit 2; an unreadable capture: exit 1.
for args in "x.syscap" "--before 3:1 a b" "--after nonsense a b" "--sort size a b"; do
  rc=0
  # shellcheck disable=SC2086
  as sysprof-report diff $args > /dev/null 2> "$W/err" || rc=$?
  [ $rc -eq 2 ] || fail "diff $args: exit $rc, want 2: $(cat "$W/err")"
done
rc=0
as sysprof-report diff "$W/u/before.syscap" "$W/u/missing.syscap" > /dev/null 2> "$W/err" || rc=$?
[ $rc -eq 1 ] && grep -q missing.syscap "$W/err" || fail "a missing capture: exit $rc: $(cat "$W/err")"
ok "usage errors exit 2 (a capture short, a backwards range, a bad range, a bad --sort), a missing capture 1"

# 4. The differential flame graph of the two recordings.
as sysprof-report diff --comm hot-functions --format svg -o "$W/u/diff.svg" "$W/u/before.syscap" "$W/u/after.syscap" \
  > "$W/out" 2>&1 || fail "diff --format svg: $(cat "$W/out")"
grep -qx "$W/u/diff.svg" "$W/out" || fail "diff --format svg printed: $(cat "$W/out")"
got=$(python3 - "$W/u/diff.svg" <<'PY'
import re, sys
import xml.etree.ElementTree as ET

ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
frames = {}  # function -> its widest frame: (width, rgb, before, after, change)
for g in root.iter("{http://www.w3.org/2000/svg}g"):
    title = g.find("s:title", ns).text
    rect = g.find("s:rect", ns)
    m = re.search(r"before ([0-9.]+)%.*after ([0-9.]+)%, change ([-+][0-9.]+) points$", title)
    if m is None:
        sys.exit("a frame without before, after and change: " + title)
    rgb = tuple(int(v) for v in re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", rect.get("fill")).groups())
    name = title.split(" ", 1)[0]
    frame = (float(rect.get("width")), rgb, float(m[1]), float(m[2]), float(m[3]))
    if name not in frames or frame[0] > frames[name][0]:
        frames[name] = frame

def check(name, before, after, change):
    if name not in frames:
        sys.exit(f"no frame of {name} in {sorted(frames)}")
    _, rgb, b, a, c = frames[name]
    for what, got, want in (("before", b, before), ("after", a, after), ("change", c, change)):
        if abs(got - want) > 5:
            sys.exit(f"{name}: {what} {got}, want {want} within 5")
    if abs(c - (a - b)) > 0.02:
        sys.exit(f"{name}: change {c} is not after {a} minus before {b}")
    return rgb

def saturation(rgb):
    return max(rgb) - min(rgb)

a = check("hot_compute_a", 40, 20, -20)
b = check("hot_compute_b", 30, 30, 0)
c = check("hot_compute_c", 20, 40, 20)
if not (a[2] > a[0] + 60 and a[2] > a[1] + 30):
    sys.exit(f"hot_compute_a fell but is not blue: rgb{a}")
if not (c[0] > c[2] + 60 and c[0] > c[1] + 60):
    sys.exit(f"hot_compute_c grew but is not red: rgb{c}")
if not (saturation(b) * 2 < min(saturation(a), saturation(c)) and min(b) > 150):
    sys.exit(f"hot_compute_b stayed but is not near grey: rgb{b} beside rgb{a} and rgb{c}")
# Widths are AFTER's samples: c (40 %) about twice a (20 %).
ratio = frames["hot_compute_c"][0] / frames["hot_compute_a"][0]
if not 1.5 < ratio < 2.7:
    sys.exit(f"widths of c and a: ratio {ratio:.2f}, want about 2 (AFTER's 40 and 20 %)")
print(f"a {frames['hot_compute_a'][4]:+.1f} rgb{a}, b {frames['hot_compute_b'][4]:+.1f} rgb{b}, "
      f"c {frames['hot_compute_c'][4]:+.1f} rgb{c}")
PY
) || fail "differential flame graph: $got"
ok "diff --format svg: $got"

# 5. A damaged capture: exit 1 with the error, no SVG; -o without svg is a
# usage error.
# Cut off the middle of a frame: frames are 8-byte aligned, so 3 bytes past
# a multiple of 8 never falls between two (a cut there reads as a shorter,
# sound capture).
head -c "$(($(stat -c %s "$W/u/before.syscap") / 16 * 8 + 3))" "$W/u/before.syscap" > "$W/u/cut.syscap"
rc=0
as sysprof-report diff --format svg -o "$W/u/cut.svg" "$W/u/cut.syscap" "$W/u/after.syscap" > /dev/null 2> "$W/err" || rc=$?
[ $rc -eq 1 ] && grep -q "cut.syscap" "$W/err" && [ "$(wc -l < "$W/err")" -eq 1 ] && [ ! -e "$W/u/cut.svg" ] ||
  fail "a damaged capture: exit $rc: $(cat "$W/err")"
rc=0
as sysprof-report diff -o "$W/u/x.svg" "$W/u/before.syscap" "$W/u/after.syscap" > /dev/null 2> "$W/err" || rc=$?
[ $rc -eq 2 ] || fail "-o without --format svg: exit $rc: $(cat "$W/err")"
ok "a damaged capture: exit 1, one line naming it, no SVG; -o without --format svg: exit 2"
