#!/bin/bash
# Print the path of a pristine QEMU 10.0.x source tree: $QEMU_SRC if set,
# else Debian trixie's qemu source package (with Debian's patches applied).
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ -n "${QEMU_SRC:-}" ]; then
    if ! grep -qE '^10\.0\.' "$QEMU_SRC/VERSION" 2>/dev/null; then
        log "QEMU_SRC=$QEMU_SRC is not a QEMU 10.0.x tree"
        exit 1
    fi
    cd "$QEMU_SRC" && pwd
    exit 0
fi
debian_source qemu '^1:10\.0\.'
