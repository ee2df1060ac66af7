#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The app installs as `sysprof` with a valid .desktop file and the capture
# MIME type, and that type is recognized: by the .syscap name, and by the
# capture header's magic for a file without the extension.  Its AppStream
# metadata passes appstreamcli's validation and names the .desktop file;
# the icon the .desktop file names is installed, a valid SVG; the man pages
# and the shell completions are where man and the shells look.
#
# Usage: test-app-install.sh BUILD_DIR DATA_DIR

set -euo pipefail

BUILD_DIR=$1 DATA_DIR=$2
work=$(mktemp -d /tmp/test-app-install.XXXXXX)
trap 'rm -rf "$work"' EXIT

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

echo "1..7"

option () {
    meson introspect "$BUILD_DIR" --buildoptions | python3 -c \
        'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]))' "$1"
}
prefix=$(option prefix)
system_service=$(option system_service)
if ! meson install -C "$BUILD_DIR" --destdir "$work/root" --no-rebuild --quiet >"$work/install.log" 2>&1; then
    not_ok "meson install failed"
    sed 's/^/# /' "$work/install.log"
    exit 1
fi
root=$work/root$prefix
desktop=$root/share/applications/org.sysprof.Sysprof.desktop
if [ -x "$root/bin/sysprof" ] && [ -f "$desktop" ] && [ -f "$root/share/mime/packages/org.sysprof.Sysprof.xml" ]; then
    ok "installed: bin/sysprof, the .desktop file, the MIME package"
else
    not_ok "missing files under $root: $(cd "$work/root" && find . -path '*sysprof*' | head -20 | tr '\n' ' ')"
fi

if out=$(desktop-file-validate "$desktop" 2>&1) && [ -z "$out" ]; then
    ok "desktop-file-validate accepts the .desktop file"
else
    not_ok "desktop-file-validate: $out"
fi

update-mime-database "$root/share/mime" >/dev/null 2>&1
cp "$DATA_DIR/sysprof-3.46-perf.syscap" "$work/named.syscap"
cp "$DATA_DIR/sysprof-3.46-perf.syscap" "$work/no-extension"
type_of () {
    XDG_DATA_DIRS="$root/share:/usr/share" gio info -a standard::content-type "$1" | sed -n 's/^ *standard::content-type: //p'
}
named=$(type_of "$work/named.syscap")
sniffed=$(type_of "$work/no-extension")
if [ "$named" = application/x-sysprof-capture ]; then
    ok "a .syscap file is application/x-sysprof-capture"
else
    not_ok "a .syscap file is '$named'"
fi
if [ "$sniffed" = application/x-sysprof-capture ]; then
    ok "a capture without the extension is recognized by its magic"
else
    not_ok "a capture without the extension is '$sniffed'"
fi

metainfo=$root/share/metainfo/org.sysprof.Sysprof.metainfo.xml
if [ -f "$metainfo" ] && out=$(appstreamcli validate --no-net --explain "$metainfo" 2>&1) &&
    grep -q '<launchable type="desktop-id">org.sysprof.Sysprof.desktop</launchable>' "$metainfo"; then
    ok "AppStream: $(tail -n 1 <<<"$out")"
else
    not_ok "AppStream metadata: $out"
fi

icon_name=$(sed -n 's/^Icon=//p' "$desktop")
icon=$root/share/icons/hicolor/scalable/apps/$icon_name.svg
if [ "$icon_name" = org.sysprof.Sysprof ] && [ -f "$icon" ] && xmllint --noout "$icon" 2>/dev/null &&
    grep -q '<svg' "$icon"; then
    ok "the icon the .desktop file names ($icon_name) is installed, a well-formed SVG"
else
    not_ok "icon '$icon_name': $icon"
fi

missing=
for f in share/man/man1/sysprof-cli.1 share/man/man1/sysprof-report.1 \
    share/bash-completion/completions/sysprof-report share/zsh/site-functions/_sysprof-cli; do
    [ -f "$root/$f" ] || missing="$missing $f"
done
# sysprofd(8) goes with the daemon (option system_service; tools/test.sh's
# builds are never installed and leave both out).
if [ "$system_service" = True ]; then
    [ -f "$root/share/man/man8/sysprofd.8" ] || missing="$missing share/man/man8/sysprofd.8"
elif [ -e "$root/share/man/man8/sysprofd.8" ] || [ -e "$root/libexec/sysprofd" ]; then
    missing="$missing (none: but sysprofd or sysprofd.8 is installed with -Dsystem_service=false)"
fi
if [ -z "$missing" ] && MANPATH="$root/share/man" man -w sysprof-report > /dev/null 2>&1; then
    ok "man pages and completions installed; man finds sysprof-report(1) in the prefix"
else
    not_ok "missing under the prefix:$missing"
fi

[ "$failed" -eq 0 ]
