#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# run-fuzzer.sh FUZZER CORPUS SECONDS: fuzz for SECONDS, starting from a copy of
# CORPUS; a crash fails the test and leaves the reproducer in the log.
set -euo pipefail
fuzzer=$(realpath "$1") corpus=$(realpath "$2") seconds=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
cp "$corpus"/* "$work/corpus/"
cd "$work"
"$fuzzer" -max_total_time="$seconds" -max_len=262144 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 corpus 2>&1 | tail -n 40
