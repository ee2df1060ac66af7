#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The man pages written from --help (tools/help2man.py): groff renders each
# without a warning, each has NAME, SYNOPSIS and OPTIONS, and every long
# option the program's --help lists is in its page (and, for sysprof-report,
# every command and its options).
#
# Usage: test-man-pages.sh PAGE PROGRAM [PAGE PROGRAM...]
set -euo pipefail
n=0
fail () { echo "not ok - $*"; exit 1; }
echo "1..$(($# / 2))"
while [ $# -ge 2 ]; do
  page=$1 program=$2
  shift 2
  name=$(basename "$page")
  warnings=$(groff -man -ww -z "$page" 2>&1) || fail "$name: groff failed: $warnings"
  [ -z "$warnings" ] || fail "$name: groff warns: $(head -n 3 <<<"$warnings" | tr '\n' '|')"
  text=$(MANWIDTH=100 man -l "$page" 2>/dev/null)
  for section in NAME SYNOPSIS OPTIONS; do
    grep -q "^$section" <<<"$text" || fail "$name: no $section section"
  done
  helps=("$program --help")
  if [[ $name == sysprof-report.* ]]; then
    for verb in $("$program" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^[^ ]/ { on = 0 }'); do
      grep -q "^COMMAND: $verb\$" <<<"$text" || fail "$name: no section for the command $verb"
      helps+=("$program $verb --help")
    done
  fi
  count=0
  for help in "${helps[@]}"; do
    # shellcheck disable=SC2086
    for option in $($help | grep -oE '(^|[ ,])--[a-z][a-z0-9-]*' | sed 's/^[ ,]//' | sort -u); do
      grep -qF -- "$option" <<<"$text" || fail "$name: $option of '$help' is not in the page"
      count=$((count + 1))
    done
  done
  n=$((n + 1))
  echo "ok $n - $name: renders without warnings, $count options of --help in it"
done
