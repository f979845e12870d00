#!/bin/bash
# Build the test-guest kernel: arm64 allnoconfig + tests/guest/kernel.config,
# out of tree in $AGX_CACHE/linux-build.  Prints the path of the Image on
# stdout (all else goes to stderr).  The build dir is left ready for
# `make -C $AGX_CACHE/linux-build M=<dir> modules`.
# With KERNEL=/path/to/Image set, only prints that path.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ -n "${KERNEL:-}" ]; then
    echo "$KERNEL"
    exit 0
fi

SRC=$("$TOP/scripts/get-linux-src.sh")
BUILD=$AGX_CACHE/linux-build
FRAG=$TOP/tests/guest/kernel.config
IMAGE=$BUILD/arch/arm64/boot/Image
# Must end up =y after olddefconfig (a missing dependency silently drops
# a symbol from a fragment).
REQUIRED="64BIT ARM64_16K_PAGES SMP ARM_GIC_V3 ARM_ARCH_TIMER ARM_PSCI_FW
    SERIAL_AMBA_PL011 SERIAL_AMBA_PL011_CONSOLE TTY PRINTK OF PM
    SERIAL_SAMSUNG SERIAL_SAMSUNG_CONSOLE APPLE_AIC APPLE_PMGR_PWRSTATE
    BLK_DEV_INITRD RD_GZIP BINFMT_ELF PROC_FS SYSFS DEVTMPFS DEVTMPFS_MOUNT
    ARCH_APPLE APPLE_MAILBOX APPLE_RTKIT MODULES MODULE_UNLOAD"
kmake() {
    make -C "$SRC" O="$BUILD" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
        -j"$JOBS" "$@" >&2
}

want="$SRC $(sha256sum < "$FRAG")"
if [ -e "$IMAGE" ] &&
   [ "$(cat "$BUILD/.agx-stamp" 2>/dev/null)" = "$want" ]; then
    echo "$IMAGE"
    exit 0
fi

# Objects built from another source tree are not worth trusting.
if [ "$(cat "$BUILD/.agx-src" 2>/dev/null)" != "$SRC" ]; then
    rm -rf "$BUILD"
fi
mkdir -p "$BUILD"
echo "$SRC" > "$BUILD/.agx-src"
rm -f "$BUILD/.agx-stamp"

log "configuring $BUILD from $SRC"
kmake allnoconfig
# merge_config.sh leaves temporary files in the current directory.
(cd "$BUILD" && "$SRC/scripts/kconfig/merge_config.sh" -m .config "$FRAG") >&2
kmake olddefconfig

bad=""
for s in $REQUIRED; do
    grep -qx "CONFIG_$s=y" "$BUILD/.config" || bad="$bad $s"
done
nr_cpus=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$BUILD/.config")
[ "${nr_cpus:-0}" -ge 8 ] || bad="$bad NR_CPUS(=${nr_cpus:-unset})"
grep -qx 'CONFIG_CMDLINE=""' "$BUILD/.config" || bad="$bad CMDLINE(not empty)"
if [ -n "$bad" ]; then
    log "kernel config lacks:$bad (see $BUILD/.config)"
    exit 1
fi

log "building Linux in $BUILD"
# "modules" also does modules_prepare and writes Module.symvers, which
# later external module builds (M=) need.
kmake Image modules
[ -e "$BUILD/Module.symvers" ] || { log "no Module.symvers"; exit 1; }

echo "$want" > "$BUILD/.agx-stamp"
echo "$IMAGE"
