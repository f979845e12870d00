#!/bin/bash
# Build the test guest: kernel, our test modules, initramfs.
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
for dir in "$TOP"/tests/guest/modules/*/; do
    [ -e "$dir/Makefile" ] || [ -e "$dir/Kbuild" ] || continue
    name=$(basename "$dir")
    out=$AGX_CACHE/modules${AGX_KDEBUG:+-debug}/$name
    # Build out of the clone: kbuild writes objects next to the sources.
    mkdir -p "$out"
    cp -u "$dir"/* "$out/"
    make -s -C "$kbuild" M="$out" ARCH=arm64 \
        CROSS_COMPILE=aarch64-linux-gnu- -j"$JOBS" modules >&2
    for ko in "$out"/*.ko; do
        extra="$extra $ko:/lib/modules/$(basename "$ko")"
    done
done
initrd=$(INITRAMFS_EXTRA="${extra# }" "$TOP/scripts/build-initramfs.sh")
echo "$image"
echo "$initrd"
