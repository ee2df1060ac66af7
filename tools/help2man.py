#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a man page from a program's --help, so the two cannot drift apart.

    help2man.py --name NAME --section N --summary TEXT --output FILE [--verbs] -- PROGRAM [ARGS...]

Runs PROGRAM ARGS --help and turns its text into roff: the usage lines become
SYNOPSIS, the paragraphs before the first heading DESCRIPTION, option lines
("  -f, --force   text", continued by deeper indented lines) tagged
paragraphs, and every other heading ("Recording:", "Options:") a section of
its own.  With --verbs, each command the help lists under "Commands:" gets a
section from `PROGRAM COMMAND --help`.  Only the text the program prints goes
in: a man page says nothing its --help does not.
"""
import argparse
import re
import subprocess
import sys


def run_help(argv):
    done = subprocess.run(argv + ['--help'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={'LANG': 'C.UTF-8', 'PATH': '/usr/bin:/bin'})
    if done.returncode != 0:
        sys.exit(f'help2man.py: {" ".join(argv)} --help exited with {done.returncode}')
    return done.stdout.decode('utf-8', 'replace')


def escape(text):
    """Roff-safe text: backslashes, and lines that would start a request."""
    text = text.replace('\\', '\\e').replace('-', '\\-')
    # Any character beyond ASCII as a named glyph: pages read anywhere.
    text = ''.join(c if ord(c) < 128 else f'\\[u{ord(c):04X}]' for c in text)
    if text.startswith(('.', "'")):
        text = '\\&' + text
    return text


OPTION = re.compile(r'^\s{1,8}(-\S.*?)(?:\s{2,}(\S.*))?$')
HEADING = re.compile(r'^(\S[^:]*):$')


def parse(text):
    """[(kind, payload)] with kind usage, heading, option, text, blank."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if line.startswith('Usage:'):
            rest = line[len('Usage:'):].strip()
            usage = [rest] if rest else []
            i += 1
            while i < len(lines) and lines[i].startswith('  ') and lines[i].strip():
                usage.append(lines[i].strip())
                i += 1
            out.append(('usage', usage))
            continue
        m = OPTION.match(line)
        if m and out and out[-1][0] in ('heading', 'option'):
            spec, desc = m.group(1), [m.group(2)] if m.group(2) else []
            i += 1
            # Continuation: deeper than the option's own indent.
            indent = len(line) - len(line.lstrip())
            while i < len(lines) and lines[i].strip() and len(lines[i]) - len(lines[i].lstrip()) > indent + 2 \
                    and not OPTION.match(lines[i]):
                desc.append(lines[i].strip())
                i += 1
            out.append(('option', (spec.strip(), ' '.join(desc))))
            continue
        m = HEADING.match(line)
        if m:
            out.append(('heading', m.group(1)))
        elif not line.strip():
            out.append(('blank', None))
        else:
            out.append(('text', line))
        i += 1
    return out


def render(items, top_level):
    """Roff for the parsed help; @top_level: its first paragraphs are the
    DESCRIPTION, headings are sections (else subsections)."""
    roff = []
    in_description = False
    para = []

    def flush():
        if para:
            # A paragraph whose lines are indented alike is filled; one with
            # deeper lines (examples, lists, tables) stays as it is.
            indents = {len(l) - len(l.lstrip()) for l in para}
            if len(indents) > 1 or re.search(r'\S {3,}\S', '\n'.join(para)):
                roff.append('.PP\n.nf\n' + '\n'.join(escape(l) for l in para) + '\n.fi')
            else:
                roff.append('.PP\n' + '\n'.join(escape(l.strip()) for l in para))
            para.clear()

    for kind, payload in items:
        if kind == 'usage':
            continue
        if kind == 'heading':
            flush()
            if payload in ('Help Options', 'Application Options', 'Options'):
                title = 'OPTIONS'
            else:
                title = payload
            macro = '.SH' if top_level else '.SS'
            heading = f'{macro} {escape(title)}'
            # "Help Options" and "Application Options": one OPTIONS section.
            if heading not in roff or title != 'OPTIONS':
                roff.append(heading)
            in_description = False
        elif kind == 'option':
            flush()
            spec, desc = payload
            roff.append('.TP\n.B ' + escape(spec) + '\n' + escape(desc))
        elif kind == 'blank':
            flush()
        else:
            if top_level and not in_description and not roff:
                roff.append('.SH DESCRIPTION')
                in_description = True
            para.append(payload)
    flush()
    return roff


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--name', required=True)
    parser.add_argument('--section', required=True)
    parser.add_argument('--summary', required=True)
    parser.add_argument('--output', required=True)
    parser.add_argument('--verbs', action='store_true')
    parser.add_argument('program', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = [a for a in args.program if a != '--']

    text = run_help(argv)
    items = parse(text)
    usage = next((p for k, p in items if k == 'usage'), [args.name])
    page = [f'.TH {args.name.upper()} {args.section} "" "sysprof" "sysprof"',
            '.SH NAME', f'{args.name} \\- {escape(args.summary)}', '.SH SYNOPSIS']
    page += ['.nf'] + [escape(u) for u in usage] + ['.fi']
    page += render(items, True)

    if args.verbs:
        verbs = []
        in_commands = False
        for line in text.splitlines():
            if line.startswith('Commands:'):
                in_commands = True
                continue
            if in_commands:
                m = re.match(r'^  (\w[\w-]*)\s{2,}', line)
                if m:
                    verbs.append(m.group(1))
                elif line and not line.startswith(' '):
                    break
        for verb in verbs:
            page.append(f'.SH COMMAND: {escape(verb)}')
            sub = parse(run_help(argv + [verb]))
            sub_usage = next((p for k, p in sub if k == 'usage'), [])
            if sub_usage:
                page += ['.nf'] + [escape(u) for u in sub_usage] + ['.fi']
            page += render(sub, False)

    with open(args.output, 'w', encoding='utf-8') as f:
        f.write('\n'.join(page) + '\n')


if __name__ == '__main__':
    main()
