#!/bin/bash
# Print the path of a Linux 7.3.x source tree: $LINUX_SRC if set, else the
# tarball inside Debian trixie-backports' linux-source-7.3 binary package
# (binary packages download reliably where source packages do not),
# unpacked once into $AGX_CACHE/src.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ -n "${LINUX_SRC:-}" ]; then
    cd "$LINUX_SRC" && pwd
    exit 0
fi
pkg=$(debian_binary linux-source-7.3 '^7\.3\.')
dir=$pkg/linux
if [ ! -e "$dir/.unpacked" ]; then
    log "unpacking $(ls "$pkg"/usr/src/linux-source-*.tar.xz)"
    rm -rf "$dir"
    mkdir -p "$dir"
    tar -C "$dir" --strip-components=1 -xf "$pkg"/usr/src/linux-source-*.tar.xz
    touch "$dir/.unpacked"
fi
echo "$dir"
