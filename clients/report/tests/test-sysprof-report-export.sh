#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sysprof-report export (issue 19, first part): the pprof profile of Sysprof
# 3.46's captures, read back by Google's pprof (built from Debian's source
# package by tools/test.sh): `pprof -top` lists every function with the same
# flat and cum as `sysprof-report top` has self and total, for the CPU
# samples and for the allocations (--memory, --memory=bytes); each sample
# carries its process and thread as labels, which pprof filters on; bad
# command lines are usage errors.
#
# Usage: test-sysprof-report-export.sh SYSPROF_REPORT PPROF|none DATA_DIR
set -euo pipefail
report=$1 pprof=$2 data=$3
work=$(mktemp -d /tmp/test-export.XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

echo "1..5"
if [ "$pprof" = none ] || [ ! -x "$pprof" ]; then
  for _ in 1 2 3 4 5; do echo "ok - # SKIP Google's pprof is not built (tools/test.sh builds it)"; done
  exit 0
fi

# CAPTURE NAME INDEX SELF_COLUMN TOTAL_COLUMN [OPTIONS]: the export and
# pprof's table of sample type INDEX against top's tsv columns, per function
# name (names that more than one library has are summed for self and left
# out for total, which pprof merges by name).
check () {
  local capture=$1 name=$2 index=$3 self_column=$4 total_column=$5
  shift 5
  "$report" export --format pprof "$@" -o "$work/$name.pb.gz" "$capture" 2> "$work/err" || fail "$name: export: $(cat "$work/err")"
  [ "$(head -c 2 "$work/$name.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "$name: not gzipped"
  # -unit=B: bytes in bytes, not kB (counts have no unit).
  # -symbolize=none: the names the file gives.  pprof names a binary's code
  # itself when a mapping of it says it has no functions (some of its
  # addresses had no name here), from the file it finds at that path.
  "$pprof" -top -symbolize=none -unit=B -nodecount=1000000 -nodefraction=0 -edgefraction=0 -sample_index="$index" \
    "$work/$name.pb.gz" \
    > "$work/$name.pprof" 2> "$work/err" || fail "$name: pprof cannot read it: $(cat "$work/err")"
  # flat cum name, from the rows after the header.
  # pprof lists a function's inlined frames apart, as "NAME (inline)" or "(partial-inline)": their
  # flat adds to the function's, and its cum is left out (samples with both
  # would count twice).
  awk '/^ *flat  flat%/ { on = 1; next } on { name = $6; for (i = 7; i <= NF; i++) name = name " " $i;
       sub(/B$/, "", $1); sub(/B$/, "", $4); sub(/ \((partial-)?inline\)$/, "", name); flat[name] += $1; cum[name] = $4; n[name]++ }
       END { for (f in flat) print f "\t" flat[f] "\t" (n[f] == 1 ? cum[f] : "-") }' "$work/$name.pprof" | sort > "$work/$name.got"
  "$report" top --format tsv --limit 0 "$@" "$capture" > "$work/$name.tsv"
  awk -F'\t' -v s="$self_column" -v t="$total_column" 'NR > 1 { self[$1] += $s; total[$1] = $t; count[$1]++ }
       END { for (f in self) print f "\t" self[f] "\t" (count[f] == 1 ? total[f] : "-") }' "$work/$name.tsv" |
    sort > "$work/$name.want"
  join -t $'\t' -a 1 -a 2 -e none -o 0,1.2,1.3,2.2,2.3 "$work/$name.got" "$work/$name.want" |
    awk -F'\t' '$2 != $4 || ($3 != "-" && $5 != "-" && $3 != $5) { bad++; if (bad < 4) print } END { exit bad > 0 }' \
      > "$work/$name.bad" || fail "$name: pprof and top differ (function, pprof flat, cum, top self, total): $(tr '\n' '|' < "$work/$name.bad")"
  [ "$(wc -l < "$work/$name.got")" -eq "$(wc -l < "$work/$name.want")" ] ||
    fail "$name: pprof lists $(wc -l < "$work/$name.got") functions, top $(wc -l < "$work/$name.want")"
  echo "$(wc -l < "$work/$name.got") functions"
}

got=$(check "$data/sysprof-3.46-perf.syscap" cpu 0 3 4)
grep -q '^Type: samples' "$work/cpu.pprof" || fail "cpu: $(head -n 3 "$work/cpu.pprof" | tr '\n' '|')"
ok "CPU samples of Sysprof 3.46's capture: pprof -top agrees with sysprof-report top on all $got"

got=$(check "$data/sysprof-3.46-memprof.syscap" allocations 0 3 4 --memory)
grep -q '^Type: alloc_objects' "$work/allocations.pprof" || fail "allocations: $(head -n 3 "$work/allocations.pprof" | tr '\n' '|')"
got2=$(check "$data/sysprof-3.46-memprof.syscap" allocated-bytes 1 5 6 --memory)
ok "allocations (--memory): alloc_objects of $got and alloc_space of $got2 agree with top's allocations and bytes"
got=$(check "$data/sysprof-3.46-memprof.syscap" leaked 1 5 6 --memory=leaked)
grep -q '^Type: inuse_space' "$work/leaked.pprof" || fail "leaked: $(head -n 3 "$work/leaked.pprof" | tr '\n' '|')"
ok "still live (--memory=leaked): inuse_space of $got agrees"

# Labels: pid and tid as numbers, the process's name, a main thread's
# name; pprof keeps one thread's samples as top --tid counts them.
perf=$data/sysprof-3.46-perf.syscap
"$pprof" -tags "$work/cpu.pb.gz" > "$work/tags" 2> "$work/err" || fail "pprof -tags: $(cat "$work/err")"
for key in pid tid process thread; do
  grep -q "^ $key: Total" "$work/tags" || fail "no label $key: $(grep ': Total' "$work/tags" | tr '\n' '|')"
done
grep -q '^ *[0-9.]*ms ([ 0-9.]*%): sh -c ' "$work/tags" || fail "no process sh -c …: $(grep -A3 'process:' "$work/tags" | tr '\n' '|')"
for tid in 17 18 8; do
  want=$("$report" top --tid "$tid" "$perf" | head -n 1 | sed 's/.*: //' | grep -o '^[0-9]*')
  "$pprof" -top -nodecount=1000000 -nodefraction=0 -sample_index=0 -tagfocus="tid=$tid" "$work/cpu.pb.gz" > "$work/tid.pprof" 2> /dev/null ||
    fail "pprof -tagfocus tid=$tid failed"
  grep -q "accounting for $want, " "$work/tid.pprof" || fail "tid $tid: top --tid counts $want samples: $(grep total "$work/tid.pprof")"
done
"$pprof" -top -nodecount=1000000 -nodefraction=0 -sample_index=0 -tagfocus="thread=^sh$" "$work/cpu.pb.gz" > "$work/thread.pprof" 2> /dev/null ||
  fail "pprof -tagfocus thread=sh failed"
want=$("$report" top --comm sh --tid 12,17,18 "$perf" | head -n 1 | sed 's/.*: //' | grep -o '^[0-9]*')
grep -q "accounting for $want, " "$work/thread.pprof" || fail "thread sh: $(grep total "$work/thread.pprof"), top: $want"
ok "labels: pid, tid, process, thread; pprof -tagfocus keeps a thread's samples as top --tid counts them"

for args in "export $data/sysprof-3.46-perf.syscap" "export --format svg -o x $data/sysprof-3.46-perf.syscap"; do
  rc=0
  # shellcheck disable=SC2086
  "$report" $args > /dev/null 2> "$work/err" || rc=$?
  [ $rc -eq 2 ] || fail "$args: exit $rc, want 2: $(cat "$work/err")"
done
ok "usage errors: no --output, an unknown --format"
