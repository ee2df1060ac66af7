#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The layering of DESIGN.md, checked on the sources and on the built daemon.

Usage: check-layers.py SOURCE_ROOT SYSPROFD_BINARY

1. libsysprof's layers, lowest first: ipc, instruments, symbols, analysis,
   recording.  A layer's files (its tests included) include headers of its
   own layer and of lower ones only.
2. A -private.h header is included only from its own layer (its tests and
   tests/fuzz, which define the layer's macro on purpose).
3. sysprofd includes ipc's and instruments' headers, and of symbols only the
   mount tables; the binary needs neither libelf nor libdw and holds no ELF
   or demangling code.  Its unwinding helper (daemon/unwinder/, a separate
   program) may use symbols as well.
Prints TAP.
"""
import os
import re
import subprocess
import sys

LAYERS = ['ipc', 'instruments', 'symbols', 'analysis', 'recording']
DAEMON_ALLOWED = {'ipc', 'instruments'}
DAEMON_EXTRA_HEADERS = {'sysprof-mount-namespace.h'}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def sources(folder):
    for dirpath, _, files in os.walk(folder):
        for name in files:
            if name.endswith(('.c', '.h', '.cc')):
                yield os.path.join(dirpath, name)


def main():
    root, sysprofd = sys.argv[1], sys.argv[2]
    lib = os.path.join(root, 'libsysprof')
    owner = {}  # header name -> layer
    for layer in LAYERS:
        for name in os.listdir(os.path.join(lib, layer)):
            if name.endswith('.h'):
                owner[name] = layer

    problems = []

    def check_file(path, allowed, where, private_ok):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for header in INCLUDE.findall(text):
            base = os.path.basename(header)
            layer = owner.get(base)
            if layer is None:
                continue
            if layer not in allowed and not (where == 'daemon' and base in DAEMON_EXTRA_HEADERS):
                problems.append(f'{os.path.relpath(path, root)} ({where}) includes {base} of {layer}')
            if base.endswith('-private.h') and layer not in private_ok:
                problems.append(f'{os.path.relpath(path, root)} includes {base}, private to {layer}')

    for i, layer in enumerate(LAYERS):
        for path in sources(os.path.join(lib, layer)):
            check_file(path, set(LAYERS[:i + 1]), layer, {layer})
    # daemon/unwinder/ is the unwinding helper, a program of its own that
    # sysprofd execs: it may use the DWARF unwinder of symbols (sysprofd may
    # not, see 3.).
    unwinder = os.path.join(root, 'daemon', 'unwinder')
    for path in sources(os.path.join(root, 'daemon')):
        if path.startswith(unwinder + os.sep):
            check_file(path, {'ipc', 'instruments', 'symbols'}, 'daemon/unwinder', set())
        else:
            check_file(path, DAEMON_ALLOWED, 'daemon', set())
    for folder in ('clients', 'preload', 'bench', 'tests/integration', 'tests/compat', 'tests/tools'):
        for path in sources(os.path.join(root, folder)):
            check_file(path, set(LAYERS), folder, set())
    for path in sources(os.path.join(root, 'tests', 'fuzz')):
        check_file(path, set(LAYERS), 'tests/fuzz', set(LAYERS))

    print('1..2')
    if problems:
        print('not ok 1 - layers include only lower layers, private headers stay in their layer')
        for p in problems:
            print(f'# {p}')
    else:
        print('ok 1 - layers include only lower layers, private headers stay in their layer')

    needed = subprocess.run(['readelf', '-d', sysprofd], capture_output=True, text=True, check=True).stdout
    symbols = subprocess.run(['nm', '-C', sysprofd], capture_output=True, text=True).stdout
    bad = [lib for lib in ('libelf', 'libdw') if f'[{lib}.so' in needed]
    bad += [sym for sym in ('elf_begin', 'dwfl_begin', 'cplus_demangle', 'sysprof_symbolizer_new')
            if re.search(rf'\b{sym}\b', symbols)]
    if bad:
        print(f'not ok 2 - sysprofd links no ELF or DWARF code: {", ".join(bad)}')
    else:
        print('ok 2 - sysprofd links no ELF or DWARF code (no libelf, libdw, demangler, symbolizer)')
    return 1 if problems or bad else 0


if __name__ == '__main__':
    sys.exit(main())
