#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a bash or zsh completion for a program from its --help, so the two
cannot drift apart.

    help2completion.py --shell bash|zsh --name NAME --output FILE [--verbs] -- PROGRAM [ARGS...]

Completes the long options --help lists (those taking a value get files, or
the values the help names as "a|b|c"), with --verbs the commands listed under
"Commands:" as the first word and each command's own options after it, and
files for the rest (captures).
"""
import argparse
import re
import subprocess
import sys

OPTION = re.compile(r'^\s{1,8}(?:-\w, )?(--[a-z][a-z0-9-]*)(?:[= ]([^\s]+))?(?:\s{2,}(.*))?$')


def run_help(argv):
    done = subprocess.run(argv + ['--help'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={'LANG': 'C.UTF-8', 'PATH': '/usr/bin:/bin'})
    if done.returncode != 0:
        sys.exit(f'help2completion.py: {" ".join(argv)} --help exited with {done.returncode}')
    return done.stdout.decode('utf-8', 'replace')


def options(text):
    """[(option, takes_value, choices)] of a --help text."""
    found = {}
    for line in text.splitlines():
        m = OPTION.match(line)
        if not m:
            continue
        name, value, desc = m.group(1), m.group(2), m.group(3) or ''
        choices = []
        if value and '|' in value:
            choices = [c for c in value.strip('[]').split('|') if re.fullmatch(r'[\w.-]+', c)]
        found.setdefault(name, (bool(value), choices))
    return [(n, v, c) for n, (v, c) in found.items()]


def verbs(text):
    out, on = [], False
    for line in text.splitlines():
        if line.startswith('Commands:'):
            on = True
            continue
        if on:
            m = re.match(r'^  (\w[\w-]*)\s{2,}', line)
            if m:
                out.append(m.group(1))
            elif line and not line.startswith(' '):
                break
    return out


def bash(name, top, per_verb):
    fn = '_' + re.sub(r'\W', '_', name)
    lines = [f'# bash completion for {name}, written from its --help by tools/help2completion.py',
             f'{fn} ()', '{',
             '  local cur prev verb i',
             '  cur=${COMP_WORDS[COMP_CWORD]}',
             '  prev=${COMP_WORDS[COMP_CWORD-1]}',
             '  verb=']
    if per_verb:
        lines += ['  for ((i = 1; i < COMP_CWORD; i++)); do',
                  '    case ${COMP_WORDS[i]} in',
                  '      ' + '|'.join(per_verb) + ') verb=${COMP_WORDS[i]}; break ;;',
                  '    esac',
                  '  done']
    lines += ['  case $verb in']
    for verb, opts in [('', top)] + [(v, o) for v, o in per_verb.items()]:
        names = ' '.join(o[0] for o in opts)
        lines.append(f'    "{verb}")')
        lines.append('      case $prev in')
        for o, value, choices in opts:
            if value and choices:
                lines.append(f'        {o}) COMPREPLY=($(compgen -W "{" ".join(choices)}" -- "$cur")); return ;;')
            elif value:
                lines.append(f'        {o}) COMPREPLY=($(compgen -f -- "$cur")); return ;;')
        lines.append('      esac')
        lines.append('      if [[ $cur == -* ]]; then')
        lines.append(f'        COMPREPLY=($(compgen -W "{names}" -- "$cur"))')
        if verb == '' and per_verb:
            lines.append('      elif [ -z "$verb" ] && [ "$COMP_CWORD" -eq 1 ]; then')
            lines.append(f'        COMPREPLY=($(compgen -W "{" ".join(per_verb)}" -- "$cur") $(compgen -f -- "$cur"))')
        lines.append('      else')
        lines.append('        COMPREPLY=($(compgen -f -- "$cur"))')
        lines.append('      fi')
        lines.append('      ;;')
    lines += ['  esac', '}', f'complete -o filenames -F {fn} {name}', '']
    return '\n'.join(lines)


def zsh(name, top, per_verb):
    def spec(opts):
        out = []
        for o, value, choices in opts:
            if value and choices:
                out.append(f"'{o}=[]:value:({' '.join(choices)})'")
            elif value:
                out.append(f"'{o}=[]:value:_files'")
            else:
                out.append(f"'{o}[]'")
        return out

    fn = '_' + re.sub(r'\W', '_', name)
    lines = [f'#compdef {name}', f'# zsh completion for {name}, written from its --help by tools/help2completion.py',
             f'{fn} () {{']
    if per_verb:
        lines.append('  local verb=${words[2]}')
        lines.append('  case $verb in')
        for verb, opts in per_verb.items():
            lines.append(f'    {verb}) _arguments -s {" ".join(spec(opts))} "*:capture:_files" ;;')
        lines.append(f'    *) _arguments -s {" ".join(spec(top))} "1:command:({" ".join(per_verb)})" "*:capture:_files" ;;')
        lines.append('  esac')
    else:
        lines.append(f'  _arguments -s {" ".join(spec(top))} "*:file:_files"')
    lines += ['}', f'{fn} "$@"', '']
    return '\n'.join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--shell', choices=['bash', 'zsh'], required=True)
    parser.add_argument('--name', required=True)
    parser.add_argument('--output', required=True)
    parser.add_argument('--verbs', action='store_true')
    parser.add_argument('program', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = [a for a in args.program if a != '--']
    text = run_help(argv)
    per_verb = {v: options(run_help(argv + [v])) for v in verbs(text)} if args.verbs else {}
    out = (bash if args.shell == 'bash' else zsh)(args.name, options(text), per_verb)
    with open(args.output, 'w', encoding='utf-8') as f:
        f.write(out)


if __name__ == '__main__':
    main()
