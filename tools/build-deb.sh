#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian packages of debian/ from the work tree as it is (the files
# git tracks or would add, edited or not), in a copy, so that the checkout
# gets no build files:
#
#   tools/build-deb.sh OUTDIR
#
# OUTDIR receives sysprof-ng_VERSION_ARCH.deb, libsysprof-capture-ng-dev_...deb
# and the .buildinfo and .changes files.  It is `dpkg-buildpackage -us -uc -b`,
# offline: the Build-Depends of debian/control must be installed
# (tools/deps.sh installs them).  DEB_BUILD_OPTIONS is passed on
# (parallel=N; without it ninja builds one job at a time).
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/build-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
if git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  # Files deleted in the work tree are still listed: skipped.
  git -C "$src" ls-files -z --cached --others --exclude-standard |
    (cd "$src" && tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$work/src"
else
  (cd "$src" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -xf - -C "$work/src"
fi

if ! (cd "$work/src" && dpkg-buildpackage -us -uc -b) > "$work/build.log" 2>&1; then
  tail -n 60 "$work/build.log" >&2
  echo "dpkg-buildpackage failed (the last 60 lines of its output are above)" >&2
  exit 1
fi
find "$work" -maxdepth 1 -type f \( -name '*.deb' -o -name '*.ddeb' -o -name '*.buildinfo' -o -name '*.changes' \) \
  -exec mv -t "$out" {} +
ls "$out"/*.deb
