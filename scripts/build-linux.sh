#!/bin/bash
# Build the test-guest kernel: arm64 allnoconfig + tests/guest/kernel.config,
# out of tree in $AGX_CACHE/linux-build, from $AGX_CACHE/linux-tree: a
# hard-linked copy of the pristine Linux source with our guest drivers
# (guest/linux/, laid out like the kernel tree) copied over it and the
# hunks of patches/linux/ applied (patched and overlaid files are real
# copies, so the shared pristine tree is never written).  Prints the path
# of the Image on stdout (all else goes to stderr).  The build dir is left
# ready for `make -C $AGX_CACHE/linux-build M=<dir> modules`; in-tree
# modules (the asahi DRM driver and the helpers it selects) are built too.
# Incremental: the config is redone when the fragment or the patches
# change, make runs when anything (overlay included) changed.
# With KERNEL=/path/to/Image set, only prints that path.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ -n "${KERNEL:-}" ]; then
    echo "$KERNEL"
    exit 0
fi

SRC=$("$TOP/scripts/get-linux-src.sh")
TREE=$AGX_CACHE/linux-tree
# AGX_KDEBUG=1: the same kernel with tests/guest/kernel-debug.config on
# top (KASAN, lockdep, kmemleak), in a build directory of its own
BUILD=$AGX_CACHE/linux-build${AGX_KDEBUG:+-debug}
OVERLAY=$TOP/guest/linux
PATCHES=$TOP/patches/linux
FRAG=$TOP/tests/guest/kernel.config
FRAGS=$FRAG
[ -n "${AGX_KDEBUG:-}" ] && FRAGS="$FRAG $TOP/tests/guest/kernel-debug.config"
IMAGE=$BUILD/arch/arm64/boot/Image
# Must end up =y after olddefconfig (a missing dependency silently drops
# a symbol from a fragment).
REQUIRED="64BIT ARM64_16K_PAGES SMP ARM_GIC_V3 ARM_ARCH_TIMER ARM_PSCI_FW
    SERIAL_AMBA_PL011 SERIAL_AMBA_PL011_CONSOLE TTY PRINTK OF PM
    SERIAL_SAMSUNG SERIAL_SAMSUNG_CONSOLE APPLE_AIC APPLE_PMGR_PWRSTATE
    BLK_DEV_INITRD RD_GZIP BINFMT_ELF PROC_FS SYSFS DEVTMPFS DEVTMPFS_MOUNT
    ARCH_APPLE APPLE_MAILBOX APPLE_RTKIT MODULES MODULE_UNLOAD
    VIRTIO_MMIO VIRTIO_BLK EXT4_FS BINFMT_SCRIPT TMPFS DEBUG_FS SW_SYNC"
# The debug kernel's sanitizers and the fuzzer's coverage too
[ -n "${AGX_KDEBUG:-}" ] && REQUIRED="$REQUIRED KASAN PROVE_LOCKING KCOV"
# Must end up =m: our DRM driver and the helpers its Kconfig selects.
REQUIRED_M="DRM_ASAHI DRM_SCHED DRM_GPUVM DRM_EXEC DRM_GEM_SHMEM_HELPER"
kmake() {
    make -C "$TREE" O="$BUILD" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
        -j"$JOBS" "$@" >&2
}

# The tree: hard links to the pristine source, made once per source.
if [ "$(cat "$TREE/.agx-src" 2>/dev/null)" != "$SRC" ]; then
    log "linking $TREE to $SRC"
    rm -rf "$TREE" "$BUILD"
    cp -al "$SRC" "$TREE.tmp"
    echo "$SRC" > "$TREE.tmp/.agx-src"
    mv "$TREE.tmp" "$TREE"
fi

# Patches: files they touch get their own copy before patch writes them;
# when the patch set changes, the files of the old set are linked back.
patches=$(ls "$PATCHES"/*.patch 2>/dev/null || true)
patch_sum=$(cat $patches /dev/null | sha256sum)
if [ "$(cat "$TREE/.agx-patches" 2>/dev/null)" != "$patch_sum" ]; then
    rm -f "$TREE/.agx-patches"
    for f in $(cat "$TREE/.agx-patched-files" 2>/dev/null); do
        ln -f "$SRC/$f" "$TREE/$f"
    done
    files=$(cat $patches /dev/null | sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' |
            sort -u)
    for f in $files; do
        cp --remove-destination "$SRC/$f" "$TREE/$f"
    done
    echo "$files" > "$TREE/.agx-patched-files"
    for p in $patches; do
        log "applying $(basename "$p")"
        patch -s -p1 -d "$TREE" --no-backup-if-mismatch < "$p" >&2
    done
    echo "$patch_sum" > "$TREE/.agx-patches"
fi

# Overlay: copy what differs (new mtime, so make rebuilds just that);
# files dropped from the overlay go back to pristine (or away).
(cd "$OVERLAY" && find . -type f | sed 's|^\./||' | sort) > "$TREE/.agx-overlay-new"
for f in $(comm -23 "$TREE/.agx-overlay-files" "$TREE/.agx-overlay-new" \
           2>/dev/null); do
    if [ -e "$SRC/$f" ]; then
        ln -f "$SRC/$f" "$TREE/$f"
    else
        rm -f "$TREE/$f"
    fi
done
while read -r f; do
    if ! cmp -s "$OVERLAY/$f" "$TREE/$f"; then
        mkdir -p "$(dirname "$TREE/$f")"
        cp --remove-destination "$OVERLAY/$f" "$TREE/$f"
    fi
done < "$TREE/.agx-overlay-new"
mv "$TREE/.agx-overlay-new" "$TREE/.agx-overlay-files"
overlay_sum=$(cd "$OVERLAY" && find . -type f | sort | xargs sha256sum |
              sha256sum)

config_want="$TREE $(cat $FRAGS | sha256sum) $patch_sum"
want="$config_want $overlay_sum"
if [ -e "$IMAGE" ] &&
   [ "$(cat "$BUILD/.agx-stamp" 2>/dev/null)" = "$want" ]; then
    echo "$IMAGE"
    exit 0
fi

# Objects built from another source tree are not worth trusting.
if [ "$(cat "$BUILD/.agx-src" 2>/dev/null)" != "$TREE" ]; then
    rm -rf "$BUILD"
fi
mkdir -p "$BUILD"
echo "$TREE" > "$BUILD/.agx-src"
rm -f "$BUILD/.agx-stamp"

if [ "$(cat "$BUILD/.agx-config" 2>/dev/null)" != "$config_want" ]; then
    rm -f "$BUILD/.agx-config"
    log "configuring $BUILD from $SRC"
    kmake allnoconfig
    # merge_config.sh leaves temporary files in the current directory.
    (cd "$BUILD" && "$SRC/scripts/kconfig/merge_config.sh" -m .config $FRAGS) >&2
    kmake olddefconfig

    bad=""
    for s in $REQUIRED; do
        grep -qx "CONFIG_$s=y" "$BUILD/.config" || bad="$bad $s"
    done
    nr_cpus=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$BUILD/.config")
    [ "${nr_cpus:-0}" -ge 8 ] || bad="$bad NR_CPUS(=${nr_cpus:-unset})"
    grep -qx 'CONFIG_CMDLINE=""' "$BUILD/.config" || bad="$bad CMDLINE(not empty)"
    for s in $REQUIRED_M; do
        grep -qx "CONFIG_$s=m" "$BUILD/.config" || bad="$bad $s(=m)"
    done
    if [ -n "$bad" ]; then
        log "kernel config lacks:$bad (see $BUILD/.config)"
        exit 1
    fi
    echo "$config_want" > "$BUILD/.agx-config"
fi

log "building Linux in $BUILD"
# "modules" also does modules_prepare and writes Module.symvers, which
# later external module builds (M=) need.
kmake Image modules
[ -e "$BUILD/Module.symvers" ] || { log "no Module.symvers"; exit 1; }

echo "$want" > "$BUILD/.agx-stamp"
echo "$IMAGE"
