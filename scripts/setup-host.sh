#!/bin/bash
# Install what building QEMU, the test kernel and our core needs on Debian 12.
# Idempotent: does nothing when every package is already present.
set -euo pipefail

PKGS="build-essential ninja-build pkg-config libglib2.0-dev libfdt-dev
      libslirp-dev libpixman-1-dev zlib1g-dev python3 python3-venv
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross flex bison bc cpio
      xz-utils dpkg-dev
      device-tree-compiler libssl-dev libelf-dev
      mmdebstrap e2fsprogs spirv-tools glslang-tools"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
        missing="$missing $p"
    fi
done

meson_ok() {
    command -v meson >/dev/null &&
        dpkg --compare-versions "$(meson --version)" ge 1.5.0
}

SUDO=""
if [ "$(id -u)" != 0 ]; then
    SUDO=sudo
fi

sources_changed=0
# bookworm-backports carries meson >= 1.5, which QEMU 10.0 requires.
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    $SUDO tee /etc/apt/sources.list.d/agx-bookworm-backports.sources >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    sources_changed=1
fi
# trixie source packages: QEMU 10.0.x.
if ! grep -rqsE '^(Types:.*deb-src|deb-src).*' /etc/apt/sources.list.d/agx-trixie-src.sources 2>/dev/null &&
   ! grep -rqsE '^deb-src .* trixie' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    $SUDO tee /etc/apt/sources.list.d/agx-trixie-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    sources_changed=1
fi

# trixie-backports binary packages: linux-source-7.3 (the test kernel's
# source tarball).  Pinned to priority 1 so that nothing from it is ever
# installed or upgraded on this Debian 12 host by accident; the scripts only
# `apt-get download` named packages from it.
if ! grep -rqs 'trixie-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    $SUDO tee /etc/apt/sources.list.d/agx-trixie-backports.sources >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    sources_changed=1
fi
if [ ! -e /etc/apt/preferences.d/agx-trixie-backports ]; then
    $SUDO tee /etc/apt/preferences.d/agx-trixie-backports >/dev/null <<'PIN'
Package: *
Pin: release n=trixie-backports
Pin-Priority: 1
PIN
fi

if [ -n "$missing" ] || ! meson_ok || [ $sources_changed = 1 ]; then
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q
fi
if [ -n "$missing" ]; then
    $SUDO apt-get install -y -q --no-install-recommends $missing
fi
if ! meson_ok; then
    $SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports meson
fi
