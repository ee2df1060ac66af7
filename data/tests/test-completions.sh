#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The shell completions written from --help (tools/help2completion.py): in
# bash, every long option of the program completes from its first letters
# (and, for sysprof-report, every command as the first word and its own
# options after it; sysprof-cli's --memprof-format completes its two
# values); zsh parses each file.
#
# Usage: test-completions.sh NAME PROGRAM BASH_FILE ZSH_FILE [...]
set -euo pipefail
n=0
fail () { echo "not ok - $*"; exit 1; }
echo "1..$(($# / 4))"
# WORDS...: what bash completes for the last word.
complete_words () {
  bash -c 'source "$1"; shift; fn=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "$fn"; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$bash_file" "_${name//-/_}" "$@"
}
while [ $# -ge 4 ]; do
  name=$1 program=$2 bash_file=$3 zsh_file=$4
  shift 4
  count=0
  for option in $("$program" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z0-9-]+' | sort -u); do
    complete_words "$name" "${option:0:4}" | grep -x -- "$option" > /dev/null ||
      fail "$name: ${option:0:4} does not complete to $option"
    count=$((count + 1))
  done
  if [ "$name" = sysprof-report ]; then
    for verb in $("$program" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^[^ ]/ { on = 0 }'); do
      complete_words "$name" "${verb:0:2}" | grep -x "$verb" > /dev/null || fail "$name: ${verb:0:2} does not complete to $verb"
      for option in $("$program" "$verb" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z0-9-]+' | sort -u); do
        complete_words "$name" "$verb" "${option:0:5}" | grep -x -- "$option" > /dev/null ||
          fail "$name $verb: ${option:0:5} does not complete to $option"
        count=$((count + 1))
      done
    done
  fi
  if [ "$name" = sysprof-cli ]; then
    [ "$(complete_words "$name" --memprof-format "" | sort | tr '\n' ' ')" = "frames stream " ] ||
      fail "$name: --memprof-format completes to $(complete_words "$name" --memprof-format "" | tr '\n' ' ')"
  fi
  if command -v zsh > /dev/null; then
    zsh -n "$zsh_file" || fail "$name: zsh cannot parse $zsh_file"
    grep -q "^#compdef $name\$" "$zsh_file" || fail "$name: $zsh_file has no #compdef line"
  else
    fail "zsh is not installed (tools/deps.sh installs it)"
  fi
  n=$((n + 1))
  echo "ok $n - $name: $count options complete in bash; the zsh file parses"
done
