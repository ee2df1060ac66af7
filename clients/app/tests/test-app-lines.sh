#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The callgraph view's source lines ("Hottest lines (self, total):") of a
# function selected in its table, on a recording of the inline workload
# (libsysprof/symbols/tests/elf/inline-workload.c: -O2 -g, no frame pointers,
# so its stacks are unwound with DWARF while recording; an always_inline
# function; lines marked LINE:… in its source, looked up here):
#   - inline_mix (inlined): the lines listed are exactly those
#     `sysprof-report top --lines` gives it, each one a marked line
#     (mix-a, mix-b, mix-c) of inline-workload.c, hottest first;
#   - its callers inline_outer and main (of inline-workload): their lines
#     include the line of their call (mix-call, middle-call);
#   - every percentage shown is the report's samples of that line over the
#     capture's samples, to the view's one decimal;
#   - a kernel function (no debug info): "NAME: no source lines (no debug
#     info for it)".
# Recorded as root with sysprof-cli in-process (no sysprofd), the unwinding
# helper of this build given by $SYSPROF_UNWINDER.
#
# Usage: test-app-lines.sh TEST_APP SYSPROF_CLI SYSPROF_REPORT UNWINDER WORKLOAD SOURCE

set -euo pipefail

TEST_APP=$1 SYSPROF_CLI=$2 SYSPROF_REPORT=$3 WORKLOAD=$5 SOURCE=$6
# $SYSPROF_UNWINDER must be absolute (libsysprof ignores it otherwise).
UNWINDER=$(realpath "$4")

if [ "$(id -u)" != 0 ]; then
    echo "1..0 # SKIP recording in-process needs root"
    exit 0
fi

work=$(mktemp -d /tmp/test-app-lines.XXXXXX)
trap 'rm -rf "$work"' EXIT

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

line_of () { grep -n "LINE:$1 " "$SOURCE" | cut -d: -f1; }
mix_a=$(line_of mix-a) mix_b=$(line_of mix-b) mix_c=$(line_of mix-c)
mix_call=$(line_of mix-call) middle_call=$(line_of middle-call)
file=$(basename "$SOURCE")

echo "1..4"

capture=$work/inline.syscap
if ! SYSPROF_UNWINDER=$UNWINDER "$SYSPROF_CLI" -f "$capture" --no-cpu --no-memory --no-disk --no-network \
    -- "$WORKLOAD" 2 >"$work/cli.log" 2>&1; then
    sed 's/^/# /' "$work/cli.log"
    echo "Bail out! recording the inline workload with sysprof-cli failed"
    exit 1
fi
# The oracle: every function's rows by source line, and the samples the
# percentages are of.
"$SYSPROF_REPORT" top --lines -n 0 --format tsv "$capture" | tail -n +2 >"$work/report.tsv"
samples=$("$SYSPROF_REPORT" top -n 1 "$capture" | sed -n '1s/^.*: \([0-9][0-9]*\) samples.*$/\1/p')
if [ -z "$samples" ] || [ "$samples" -eq 0 ]; then
    echo "Bail out! sysprof-report finds no samples in the capture"
    exit 1
fi

# check_lines NAME LIBRARY ALLOWED REQUIRED: the view's lines of NAME (of
# LIBRARY) against the report's (its 12 hottest: all of them when there are
# no more); every line listed must be one of ALLOWED
# (space-separated, empty: any) and REQUIRED must be among them.
check_lines () {
    local name=$1 library=$2 allowed=$3 required=$4 out bad
    if ! out=$("$TEST_APP" lines "$capture" "$name" "$library" 2>"$work/err"); then
        not_ok "$name: the view showed no lines"
        sed 's/^/# /' "$work/err"
        return
    fi
    printf '%s\n' "$out" >"$work/$name.label"
    # The report's rows of the function, as "FILE LINE SELF TOTAL", hottest
    # first as the view orders them.
    awk -F'\t' -v f="$name" -v l="$library" '$1 == f && $3 == l && $2 != "" {
            n = split($2, p, ":"); path = substr($2, 1, length($2) - length(p[n]) - 1)
            sub(/.*\//, "", path); print path, p[n], $4, $5 }' "$work/report.tsv" |
        sort -k3,3nr -k4,4nr >"$work/$name.want"
    # The view's rows: "  FILE:LINE  SELF%  TOTAL%".
    sed -n 's/^  \([^ :]*\):\([0-9][0-9]*\)  \([0-9.]*\)%  \([0-9.]*\)%$/\1 \2 \3 \4/p' "$work/$name.label" \
        >"$work/$name.got"
    bad=$(awk -v want="$work/$name.want" -v N="$samples" -v allowed=" $allowed " -v required="$required" \
        -v header="$(head -n 1 "$work/$name.label")" -v name="$name" -v file="$file" '
        BEGIN {
            while ((getline row < want) > 0) {
                split(row, w, " "); n_want++
                self[w[1] ":" w[2]] = w[3]; total[w[1] ":" w[2]] = w[4]
            }
            if (n_want == 0) { print "the report has no lines for " name; exit }
            if (header !~ ("^" name ", in (.*/)?" file "$"))
                print "the header is \"" header "\", not " name " in " file
        }
        function off(shown, count) { d = shown - 100 * count / N; return d > 0.051 || d < -0.051 }
        {
            n_got++; key = $1 ":" $2
            if ($1 != file) print key ": not in " file
            if (allowed != "  " && index(allowed, " " $2 " ") == 0) print key ": not a marked line (" allowed ")"
            if (!(key in self)) { print key ": not among the report'"'"'s lines (or listed twice)"; next }
            if (off($3, self[key]) || off($4, total[key]))
                printf "%s: %s%% %s%%, the report gives %d and %d of %d samples\n", key, $3, $4, self[key], total[key], N
            if (n_got > 1 && $3 > last + 0.0001) print key ": listed after a line with less self time"
            last = $3; seen[$2] = 1; delete self[key]
        }
        END {
            if (n_want == 0) exit
            # The view lists the 12 hottest.
            if (n_got != (n_want < 12 ? n_want : 12)) {
                for (key in self) print key ": in the report, not in the view"
                if (n_got > 12) print n_got " lines listed, more than 12"
            }
            split(required, r, " ")
            for (i in r) if (!(r[i] in seen)) print "line " r[i] " (marked) is not listed"
        }' "$work/$name.got")
    if [ -n "$bad" ] || [ ! -s "$work/$name.got" ]; then
        not_ok "$name: the view's lines differ from sysprof-report top --lines (${samples} samples)"
        printf '%s\n' "$bad" | sed 's/^/# /'
        sed 's/^/#   view: /' "$work/$name.label"
        sed 's/^/#   report: /' "$work/$name.want"
        return
    fi
    ok "$name: lines $(cut -d' ' -f2 "$work/$name.got" | paste -sd, -) of $file, percentages as sysprof-report's"
}

check_lines inline_mix inline-workload "$mix_a $mix_b $mix_c" "$mix_a $mix_b $mix_c"
check_lines inline_outer inline-workload "" "$mix_call"
check_lines main inline-workload "" "$middle_call"

# The hottest kernel function (never with debug info here), with a name no
# other library has, so that the table's row is the one meant.
kernel=$(awk -F'\t' '{ libs[$1] = libs[$1] == "" || libs[$1] == $3 ? $3 : "several" }
        $2 != "" { sourced[$1] = 1 }
        $3 == "kernel" && $5 > total[$1] { total[$1] = $5 }
        END { for (f in total) if (libs[f] == "kernel" && !(f in sourced) && total[f] > best) { best = total[f]; name = f }
              print name }' "$work/report.tsv")
if [ -z "$kernel" ]; then
    not_ok "no kernel function in the capture to look at"
elif ! out=$("$TEST_APP" lines "$capture" "$kernel" kernel 2>"$work/err"); then
    not_ok "$kernel (kernel): the view showed nothing"
    sed 's/^/# /' "$work/err"
elif [ "$out" != "$kernel: no source lines (no debug info for it)" ]; then
    not_ok "$kernel (kernel): the view says \"$out\""
else
    ok "$kernel (kernel, no debug info): \"$out\""
fi

[ "$failed" -eq 0 ]
