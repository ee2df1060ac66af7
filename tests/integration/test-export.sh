#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report export on a real recording (issue 19): the unprivileged
# user records, through sysprofd, the inline workload (-O2 -g, no frame
# pointers, an always_inline function, its library of static functions)
# and Debian's xz (liblzma), then:
#   - pprof (Google's, when built): in `pprof -raw` every mapping's
#     has_functions, has_filenames, has_line_numbers and has_inline_frames
#     say what its locations show; the mappings of those files have the
#     build-id `readelf -n` prints for it; the inlined function is the
#     first line of a location of its caller, at the lines the source marks;
#     `pprof -traces` shows it inlined; the thread labels filter as top
#     --comm does; `pprof -top` agrees with top;
#   - perf-script: the strict reader (check-perf-script.py) accepts perf's
#     own `perf script` output (when linux-perf is installed), and reads ours:
#     top's self and total per function, the inlined function on the line
#     before its caller at the same address, the addresses of the workload's
#     functions as offsets in its file (where nm puts them).
# Run under tools/with-sysprofd.sh:
#   test-export.sh SYSPROF_CLI SYSPROF_REPORT WORKLOAD LIBGROUPED SOURCE CHECK_PERF_SCRIPT PPROF|none
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") workload=$(realpath "$3") lib=$(realpath "$4") source=$(realpath "$5")
check="python3 $(realpath "$6")" pprof=$7
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
skip () { n=$((n + 1)); echo "ok $n # SKIP $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

mkdir -p "$W/bin" "$W/u/work"
install -m 755 "$cli" "$report" "$W/bin/"
install -m 755 "$workload" "$W/u/work/inline-workload"
install -m 755 "$lib" "$W/u/work/libgrouped.so"
chown -R "$U" "$W/u"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
line_of () { grep -n "LINE:$1 " "$source" | cut -d: -f1; }
mix_lines="$(line_of mix-a)|$(line_of mix-b)|$(line_of mix-c)"
call_line=$(line_of mix-call)
build_id () { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }

python3 -c "
import random
random.seed(1)
w = [''.join(random.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(random.randint(2, 9))) for _ in range(5000)]
print(' '.join(random.choice(w) for _ in range(200000)))" > "$W/u/input.txt"
chown "$U" "$W/u/input.txt"
cd "$W/u"
as "$W/bin/sysprof-cli" --force "$W/u/export.syscap" -- \
  sh -c "'$W/u/work/inline-workload' 2 && xz -9 -T1 -c '$W/u/input.txt' > /dev/null" > "$W/cli.out" 2>&1 ||
  fail "sysprof-cli failed: $(cat "$W/cli.out")"
report () { as "$W/bin/sysprof-report" "$@"; }

# The files the processes mapped, as the capture names them (the loader's
# real paths), with the build-ids readelf prints.
xz_bin=$(readlink -f "$(command -v xz)")
lzma=$(readlink -f /lib/x86_64-linux-gnu/liblzma.so.5)
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
files=("$W/u/work/inline-workload" "$W/u/work/libgrouped.so" "$xz_bin" "$lzma" "$libc")
for f in "${files[@]}"; do
  [ -n "$(build_id "$f")" ] || fail "readelf -n shows no build-id for $f"
done

# --- pprof ------------------------------------------------------------------------
if [ "$pprof" = none ] || [ ! -x "$pprof" ]; then
  skip "Google's pprof is not built (tools/test.sh builds it)"
  skip "Google's pprof is not built"
else
  report export --format pprof -o "$W/u/cpu.pb.gz" "$W/u/export.syscap" 2> "$W/err" ||
    fail "export --format pprof: $(cat "$W/err")"
  # -symbolize=none: what the file says.  By default pprof names the code of
  # a mapping that says it has no functions from the binaries it finds
  # here, which a system-wide recording can have from other namespaces
  # (another machine's files at the same paths), unverified without a
  # build-id.
  "$pprof" -raw -symbolize=none "$W/u/cpu.pb.gz" > "$W/raw" 2> "$W/err" || fail "pprof -raw: $(cat "$W/err")"
  # What each mapping says is what its locations show: [FL] when every line
  # has a file, [LN] a line number, [IN] when the outermost line of every
  # location has a file (the debug info was read there, inlines with it),
  # [FN] when no function is an address.  A location is "ID: ADDRESS
  # M=MAPPING FUNCTION FILE:LINE s=0", each further line of it indented.
  python3 - "$W/raw" <<'EOF' > "$W/flags" || fail "mappings that say what their locations do not show: $(head -n 5 "$W/flags" | tr '\n' '|')"
import re, sys
text = open(sys.argv[1]).read()
locations = text.split("\nLocations\n", 1)[1].split("\nMappings\n", 1)[0]
mappings = text.split("\nMappings\n", 1)[1]
lines_of = {}
for block in re.split(r"\n(?= *\d+: 0x)", locations.strip("\n")):
    m = re.match(r" *\d+: 0x[0-9a-f]+ M=(\d+) ", block)
    if not m:
        continue
    lines_of.setdefault(int(m.group(1)), []).append(
        [re.match(r"^(.*) (\S*):(\d+) s=\d+(?:\(.*\))?$", l.strip()).groups() for l in block[m.end():].split("\n")])
bad = 0
for line in mappings.strip("\n").split("\n"):
    m = re.match(r"(\d+): \S+ (.*?) ?(\[[A-Z\[\]]*\])?$", line)
    flags, locs = m.group(3) or "", lines_of.get(int(m.group(1)), [])
    if not locs:
        continue
    lines = [l for loc in locs for l in loc]
    want = {"[FL]": all(f for _, f, _ in lines), "[LN]": all(n != "0" for _, _, n in lines),
            "[IN]": all(loc[-1][1] for loc in locs)}
    if "kernel.kallsyms" not in line:
        want["[FN]"] = not any(re.fullmatch(r"(0x[0-9a-f]+|.+\+0x[0-9a-f]+)", name) for name, _, _ in lines)
    for flag, has in want.items():
        if (flag in flags) != has:
            bad += 1
            odd = [l for l in lines if not l[1] or l[2] == "0"] or [l for l in lines if "+0x" in l[0]]
            print(f"{line}: {flag} {'missing' if has else 'wrong'}: {odd[:4]}")
print(f"{len(lines_of)} mappings")
sys.exit(bad > 0)
EOF
  # Only the workload's and xz's processes: every mapping of their files
  # has the build-id readelf -n prints.
  report export --format pprof --comm inline-workload --comm xz -o "$W/u/ours.pb.gz" "$W/u/export.syscap" 2> "$W/err" ||
    fail "export --format pprof --comm: $(cat "$W/err")"
  "$pprof" -raw -symbolize=none "$W/u/ours.pb.gz" 2> /dev/null | sed -n '/^Mappings/,$p' > "$W/mappings"
  # "ID: START/LIMIT/OFFSET FILE BUILD_ID FLAGS", one line per mapping.
  for f in "${files[@]}"; do
    want=$(build_id "$f")
    got=$(awk -v f="$f" '$3 == f { print ($4 ~ /^\[/ ? "none" : $4) }' "$W/mappings" | sort -u | tr '\n' ' ')
    [ "$got" = "$want " ] || fail "pprof -raw: the mappings of $f have build-ids '$got', readelf -n says $want: $(grep -F "$f" "$W/mappings" | head -n 3 | tr '\n' '|')"
  done
  # inline_mix is the first line of a location of inline_outer, at a line
  # the source marks, inline_outer at the line of its call.
  python3 - "$W/raw" "$mix_lines" "$call_line" <<'EOF' || fail "no location of inline_outer with inline_mix inlined at the marked lines"
import re, sys
text = open(sys.argv[1]).read()
locations = text.split("\nLocations\n", 1)[1].split("\nMappings\n", 1)[0]
found = re.findall(r"\n *\d+: 0x[0-9a-f]+ M=\d+ inline_mix \S*inline-workload\.c:(\d+) s=0\n +inline_outer \S*inline-workload\.c:(\d+) s=0\n",
                   "\n" + locations + "\n")
sys.exit(not found or any(not re.fullmatch(sys.argv[2], mix) or call != sys.argv[3] for mix, call in found))
EOF
  "$pprof" -traces -symbolize=none "$W/u/cpu.pb.gz" > "$W/traces" 2> /dev/null || fail "pprof -traces failed"
  grep -A1 'inline_mix' "$W/traces" > "$W/mix.traces" || true
  grep -q 'inline_outer' "$W/mix.traces" || fail "pprof -traces: inline_mix is not under inline_outer"
  grep -q 'inline_mix.*(inline)' "$W/traces" || fail "pprof -traces: inline_mix is not shown inlined: $(grep -m 3 inline_mix "$W/traces")"
  ok "pprof: $(tail -n 1 "$W/flags") say what their locations show; the build-ids of inline-workload, libgrouped.so, xz, liblzma and libc are readelf's; inline_mix is inlined in inline_outer's locations at its lines"

  # The thread labels, and top's figures.
  "$pprof" -tags -symbolize=none "$W/u/cpu.pb.gz" > "$W/tags" 2> /dev/null || fail "pprof -tags failed"
  grep -q '): inline-workload$' "$W/tags" || fail "no thread inline-workload: $(grep -A4 'thread:' "$W/tags" | tr '\n' '|')"
  want=$(report top --comm inline-workload "$W/u/export.syscap" | head -n 1 | sed 's/.*: //' | grep -o '^[0-9]*')
  "$pprof" -top -symbolize=none -nodecount=1000000 -nodefraction=0 -sample_index=0 -tagfocus='thread=^inline-workload$' \
    "$W/u/cpu.pb.gz" > "$W/thread.pprof" 2> /dev/null || fail "pprof -tagfocus failed"
  grep -q "accounting for $want, " "$W/thread.pprof" || fail "thread inline-workload: $(grep total "$W/thread.pprof"), top: $want"
  "$pprof" -top -symbolize=none -nodecount=1000000 -nodefraction=0 -edgefraction=0 -sample_index=0 "$W/u/cpu.pb.gz" > "$W/top.pprof" 2> /dev/null ||
    fail "pprof -top failed"
  # "NAME (inline)" (or "(partial-inline)") is a function's inlined frames: their flat adds to its
  # own, and its cum is left out (samples with both would count twice).
  awk '/^ *flat  flat%/ { on = 1; next } on { name = $6; for (i = 7; i <= NF; i++) name = name " " $i;
       sub(/ \((partial-)?inline\)$/, "", name); flat[name] += $1; cum[name] = $4; n[name]++ }
       END { for (f in flat) print f "\t" flat[f] "\t" (n[f] == 1 ? cum[f] : "-") }' "$W/top.pprof" | LC_ALL=C sort > "$W/pprof.got"
  report top --format tsv --limit 0 "$W/u/export.syscap" |
    awk -F'\t' 'NR > 1 { self[$1] += $3; total[$1] = $4; count[$1]++ }
         END { for (f in self) print f "\t" self[f] "\t" (count[f] == 1 ? total[f] : "-") }' | LC_ALL=C sort > "$W/top.want"
  LC_ALL=C join -t $'\t' -a 1 -a 2 -e none -o 0,1.2,1.3,2.2,2.3 "$W/pprof.got" "$W/top.want" |
    awk -F'\t' '$2 != $4 || ($3 != "-" && $5 != "-" && $3 != $5) { bad++; if (bad < 4) print } END { exit bad > 0 }' > "$W/bad" ||
    fail "pprof -top and top differ (function, flat, cum; self, total): $(tr '\n' '|' < "$W/bad")"
  ok "pprof: thread labels (-tagfocus thread=inline-workload: $want samples, as top --comm), -top agrees with top on $(wc -l < "$W/pprof.got") functions"
fi

# --- perf-script -----------------------------------------------------------------------
# The reader against perf's own text first: it must take what perf prints.
if command -v perf > /dev/null && perf record -e cpu-clock -g -o "$W/perf.data" -- "$W/u/work/inline-workload" 1 \
  > "$W/perf.out" 2>&1; then
  perf script -F +pid -i "$W/perf.data" > "$W/perf.txt" 2> "$W/perf.err" || fail "perf script: $(tail -n 3 "$W/perf.err")"
  $check stats "$W/perf.txt" > "$W/perf.stats" 2> "$W/err" || fail "the reader refuses perf's own output: $(cat "$W/err")"
  grep -q '^samples=[1-9]' "$W/perf.stats" || fail "perf's output has no sample: $(tr '\n' ' ' < "$W/perf.stats")"
  grep -q "^events=cpu-clock$" "$W/perf.stats" || fail "perf's output: $(tr '\n' ' ' < "$W/perf.stats")"
  ok "the reader takes perf $(perf --version | awk '{ print $3 }')'s own perf script output ($(grep samples= "$W/perf.stats"))"
else
  skip "perf (linux-perf) cannot record here: $(tail -n 1 "$W/perf.out" 2> /dev/null || echo missing)"
fi

report export --format perf-script -o "$W/u/cpu.txt" "$W/u/export.syscap" 2> "$W/err" ||
  fail "export --format perf-script: $(cat "$W/err")"
$check functions "$W/u/cpu.txt" > "$W/script.got" 2> "$W/err" || fail "the reader refuses our output: $(cat "$W/err")"
LC_ALL=C sort -o "$W/script.got" "$W/script.got"
report top --format tsv --limit 0 "$W/u/export.syscap" |
  awk -F'\t' 'NR > 1 { self[$1] += $3; total[$1] = $4; count[$1]++ }
       END { for (f in self) { context = f ~ /^- - .* - -$/; if (context && self[f] == 0) continue
             print f "\t" self[f] "\t" (count[f] == 1 && !context ? total[f] : "-") } }' | LC_ALL=C sort > "$W/script.want"
LC_ALL=C join -t $'\t' -a 1 -a 2 -e none -o 0,1.2,1.3,2.2,2.3 "$W/script.got" "$W/script.want" |
  awk -F'\t' '$2 != $4 || ($5 != "-" && $3 != $5) { bad++; if (bad < 4) print } END { exit bad > 0 }' > "$W/bad" ||
  fail "perf-script and top differ (function, self, total; top's self, total): $(tr '\n' '|' < "$W/bad")"
$check stacks "$W/u/cpu.txt" > "$W/stacks"
# inline_outer at an address, then inline_mix at the same one, inlined.
grep -qE ';inline_outer@(0x[0-9a-f]+) \([^)]*inline-workload\);inline_mix@\1 \(inlined\)$' "$W/stacks" ||
  fail "no stack ending in inline_mix inlined into inline_outer: $(grep -m 3 inline_mix "$W/stacks" | tr '\n' '|')"
# The workload's addresses are offsets in its file (PIE: where nm puts
# its functions).
read -r start size < <(nm -S "$W/u/work/inline-workload" | awk '$4 == "inline_outer" { print $1, $2 }')
python3 - "$W/stacks" "$start" "$size" <<'EOF' || fail "inline_outer's addresses are not in the file's inline_outer ($start, $size bytes)"
import re, sys
start, size = int(sys.argv[2], 16), int(sys.argv[3], 16)
addresses = {int(a, 16) for a in re.findall(r";inline_outer@(0x[0-9a-f]+) ", open(sys.argv[1]).read())}
sys.exit(not addresses or not all(start <= a < start + size for a in addresses))
EOF
grep -qE '^xz [0-9]+/[0-9]+;.*\(/[^)]*liblzma[^)]*\)' "$W/stacks" || fail "no xz stack through liblzma"
# --lines: perf's source lines, the inlined function's at a marked line.
report export --format perf-script --lines -o "$W/u/lines.txt" "$W/u/export.syscap" 2> "$W/err" ||
  fail "export --format perf-script --lines: $(cat "$W/err")"
$check stats "$W/u/lines.txt" > /dev/null 2> "$W/err" || fail "the reader refuses our --lines output: $(cat "$W/err")"
# (Through files: grep -q would stop reading early, and pipefail take the
# writer's SIGPIPE for a failure.)
grep -A1 -E $'^\t +[0-9a-f]+ inline_mix\\+0x[0-9a-f]+$' "$W/u/lines.txt" > "$W/mix.lines" || true
grep -qE "^  inline-workload\.c:($mix_lines) \(inlined\)$" "$W/mix.lines" ||
  fail "--lines: no inline_mix frame with its line: $(grep -m 2 -A1 'inline_mix' "$W/u/lines.txt" | tr '\n' '|')"
ok "perf-script: the reader finds top's self and total on $(wc -l < "$W/script.got") functions, inline_mix inlined at inline_outer's address, addresses in the file, source lines"

echo "1..$n"
