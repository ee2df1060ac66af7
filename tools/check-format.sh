#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Fails when a C source differs from what clang-format makes of it.
# tests/compat/upstream-oracle.c is excluded: it mirrors the layout of the
# upstream headers it calls.  Usage: tools/check-format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find libsysprof-capture libsysprof preload daemon clients tests bench \
  \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) ! -path 'tests/compat/upstream-oracle.c' | sort)
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
else
  clang-format --dry-run -Werror "${files[@]}"
  echo "ok 1 - ${#files[@]} files follow .clang-format"
  echo "1..1"
fi
