#!/bin/bash
# Build the test guest: kernel (with its modules), initramfs.
# Prints two lines: the kernel Image and the initramfs.
set -euo pipefail
. "$(dirname "$0")/common.sh"

image=$("$TOP/scripts/build-linux.sh")
extra=""
# In-tree modules of our kernel build: the asahi DRM driver and the
# helpers its Kconfig selects (/init loads them in dependency order).
kbuild=$AGX_CACHE/linux-build${AGX_KDEBUG:+-debug}
for ko in $(find "$kbuild" -name '*.ko' | sort); do
    extra="$extra $ko:/lib/modules/$(basename "$ko")"
done
initrd=$(INITRAMFS_EXTRA="${extra# }" "$TOP/scripts/build-initramfs.sh")
echo "$image"
echo "$initrd"
