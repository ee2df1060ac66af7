# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by tools/demo.sh and tools/test.sh: installs the Debian packages the
# build and the tests need, only those missing, quietly unless apt fails.

# libdbus-1-dev, systemd and bash-completion: their pkg-config files say
# where an installation puts sysprofd's D-Bus files, its unit and the
# completions (data/meson.build).
SYSPROF_BUILD_PACKAGES=(
  meson ninja-build pkg-config gcc g++ clang clang-format libclang-rt-14-dev
  libglib2.0-dev libsoup-3.0-dev libpolkit-gobject-1-dev libsystemd-dev libelf-dev libdw-dev libdebuginfod-dev zlib1g-dev libiberty-dev libunwind-dev
  libzstd-dev
  libgtk-4-dev libadwaita-1-dev
  libseccomp-dev
  libdbus-1-dev systemd bash-completion
)
# Debian's Sysprof 3.46: its static capture library is the oracle of the
# compatibility tests and its client/daemon are the peers of later tests.
# systemd: systemd-analyze expands the unit's SystemCallFilter= groups for
# tools/with-sysprofd.sh (libseccomp-dev above builds its filter tool).
# binutils (nm, addr2line, objdump, objcopy): the symbol tests' oracle and
# their stripped copies; xz-utils: Debian's xz, recorded by test-symbols and test-unwind;
# debuginfod: the server test-debuginfod and test-symbols fetch debug files from.
# golang-go and golang-github-google-pprof-dev: Google's pprof, built from its
# Debian source by sysprof_build_pprof, reads our pprof exports back; zsh and
# bash-completion: the completions' test and their install directory.
# The machine's own npm (Node.js comes with the machine; Debian's npm package
# conflicts with it) fetches speedscope (sysprof_fetch_speedscope): python3-jsonschema
# checks our speedscope exports against its schema, chromium loads them into
# its web app and runs the SVG flame graphs' script; libgdk-pixbuf2.0-bin and
# librsvg2-common draw those SVGs as GTK would (a static picture).
# linux-perf: test-export checks the reader of our perf-script exports
# against perf script's own output.
SYSPROF_TEST_PACKAGES=(libsysprof-4-dev sysprof dbus polkitd bubblewrap libxml2-utils systemd binutils xz-utils python3 debuginfod
  golang-go golang-github-google-pprof-dev zsh bash-completion python3-jsonschema chromium
  libgdk-pixbuf2.0-bin librsvg2-common linux-perf)
# The app's tests run under Xvfb (x11-utils: xwininfo); appstream: appstreamcli
# validates its metadata.
SYSPROF_APP_TEST_PACKAGES=(xvfb xauth x11-utils libgl1-mesa-dri fonts-cantarell desktop-file-utils shared-mime-info libglib2.0-bin
  appstream)
# The Debian package (debian/, tools/build-deb.sh; build-essential is what
# every package build assumes beside its Build-Depends) and the suite
# package, which installs it into a fresh Debian 12 made by debootstrap.
SYSPROF_PACKAGE_PACKAGES=(build-essential debhelper dpkg-dev debootstrap)
# The peers of the benchmarks in bench/ (not part of CI; the scripts install
# them): perf, heaptrack (zstd compresses its files), GNU time for the timings.
SYSPROF_BENCH_PACKAGES=(linux-perf heaptrack zstd time sysprof dbus polkitd)

# Google's pprof into /usr/local/bin (where meson finds it), built offline
# from Debian's packaged source as its README says; once.
sysprof_build_pprof () {
  local dir
  [ -x /usr/local/bin/pprof ] && return 0
  [ "$(id -u)" -eq 0 ] || { echo "pprof is not built (run as root to build it)" >&2; return 1; }
  echo "Building Google's pprof from Debian's source ..."
  dir=$(mktemp -d)
  if ! (cd "$dir" && GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE="$dir/cache" GOFLAGS=-mod=mod \
          go build -o "$dir/pprof" github.com/google/pprof) > "$dir/log" 2>&1; then
    cat "$dir/log" >&2
    rm -rf "$dir"
    echo "go build of pprof failed" >&2
    return 1
  fi
  install -m 755 "$dir/pprof" /usr/local/bin/pprof
  rm -rf "$dir"
}

# speedscope's npm package (its file-format-schema.json and its web app, in
# dist/release/), pinned, for test-sysprof-report-speedscope; once.  The
# directory is also named in clients/report/tests/meson.build.
SYSPROF_SPEEDSCOPE_VERSION=1.25.0
SYSPROF_SPEEDSCOPE_SHA256=2831f1e0d26df914b477e522d78b8485511495a6af81a0b88158f8b48f9e0d03
SYSPROF_SPEEDSCOPE_DIR=/var/cache/sysprof-tests/speedscope-$SYSPROF_SPEEDSCOPE_VERSION
sysprof_fetch_speedscope () {
  local dir tarball=speedscope-$SYSPROF_SPEEDSCOPE_VERSION.tgz
  [ -f "$SYSPROF_SPEEDSCOPE_DIR/package/dist/release/file-format-schema.json" ] && return 0
  [ "$(id -u)" -eq 0 ] || { echo "speedscope is not fetched (run as root to fetch it)" >&2; return 1; }
  command -v npm > /dev/null || { echo "npm is not installed: cannot fetch speedscope" >&2; return 1; }
  echo "Fetching speedscope $SYSPROF_SPEEDSCOPE_VERSION from the npm registry ..."
  dir=$(mktemp -d)
  if ! (cd "$dir" && npm pack --silent "speedscope@$SYSPROF_SPEEDSCOPE_VERSION") > "$dir/log" 2>&1 ||
     ! echo "$SYSPROF_SPEEDSCOPE_SHA256  $dir/$tarball" | sha256sum --check --quiet; then
    cat "$dir/log" >&2
    rm -rf "$dir"
    echo "npm pack speedscope@$SYSPROF_SPEEDSCOPE_VERSION failed or gave another tarball" >&2
    return 1
  fi
  mkdir -p "$SYSPROF_SPEEDSCOPE_DIR"
  tar -xzf "$dir/$tarball" -C "$SYSPROF_SPEEDSCOPE_DIR"
  rm -rf "$dir"
}

# A minimal Debian 12 (debootstrap's minbase from its default mirror, Debian's
# archive) for tests/package/test-deb-package.sh, which installs the package
# into a copy of it; once.  Built aside and renamed into place, so that the
# directory exists only complete.
SYSPROF_CHROOT_SUITE=bookworm
SYSPROF_CHROOT_DIR=/var/cache/sysprof-tests/$SYSPROF_CHROOT_SUITE-minbase
sysprof_make_chroot () {
  local dir
  [ -x "$SYSPROF_CHROOT_DIR/usr/bin/apt-get" ] && return 0
  [ "$(id -u)" -eq 0 ] || { echo "the $SYSPROF_CHROOT_SUITE chroot is not made (run as root to make it)" >&2; return 1; }
  command -v debootstrap > /dev/null || { echo "debootstrap is not installed: cannot make the chroot" >&2; return 1; }
  echo "Making a minimal Debian $SYSPROF_CHROOT_SUITE with debootstrap ..."
  mkdir -p "$(dirname "$SYSPROF_CHROOT_DIR")"
  dir=$(mktemp -d "$SYSPROF_CHROOT_DIR.XXXXXX")
  if ! debootstrap --variant=minbase "$SYSPROF_CHROOT_SUITE" "$dir" > "$dir.log" 2>&1; then
    tail -n 30 "$dir.log" >&2
    rm -rf "$dir" "$dir.log"
    echo "debootstrap --variant=minbase $SYSPROF_CHROOT_SUITE failed" >&2
    return 1
  fi
  rm -f "$dir.log"
  chmod 755 "$dir"
  # Another run may have made it meanwhile: keep theirs.
  mv -T "$dir" "$SYSPROF_CHROOT_DIR" 2>/dev/null || rm -rf "$dir"
}

sysprof_install_packages () {
  local missing=() pkg log
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0

  if [ "$(id -u)" -ne 0 ]; then
    echo "Missing Debian packages: ${missing[*]} (run as root to install them)" >&2
    return 1
  fi

  echo "Installing ${missing[*]} ..."
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
           -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "apt-get failed to install: ${missing[*]}" >&2
    return 1
  fi
  rm -f "$log"
}
