#!/bin/bash
# Print the path of a Linux 6.12.x source tree: $LINUX_SRC if set, else the
# upstream tarball of Debian trixie's linux source package.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ -n "${LINUX_SRC:-}" ]; then
    cd "$LINUX_SRC" && pwd
    exit 0
fi
debian_source linux '^6\.12\.' orig
