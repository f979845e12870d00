#!/bin/bash
# Build a Debian arm64 root filesystem from Debian packages only, with
# mmdebstrap in extract mode: packages are unpacked, no maintainer script
# runs, so no arm64 emulation (qemu-user, binfmt) is needed on the host.
#   build-rootfs.sh guest    - what the Mesa guest runs: Mesa's asahi GL and
#                              Vulkan drivers, vulkaninfo, eglinfo, busybox
#   build-rootfs.sh sysroot  - headers and libraries our test programs are
#                              cross-compiled and linked against
# Debian trixie plus trixie-backports, whose Mesa (MESA_VERSION below, pinned
# here so a new upload never changes the guest silently) implements the
# upstream asahi UAPI.  The tree is cached in $AGX_CACHE/rootfs-<variant>
# and rebuilt only when this script or the package list changes; prints its
# path.
set -euo pipefail
. "$(dirname "$0")/common.sh"

VARIANT=${1:-guest}
MESA_VERSION=26.1.6-1~bpo13+1
MIRROR=http://deb.debian.org/debian
# Mesa's packages we name; mesa-libgallium, libglx-mesa0 and the rest of
# its source come along through their exact-version dependencies.
MESA_PKGS="libgl1-mesa-dri libegl-mesa0 libgbm1 mesa-vulkan-drivers"
case $VARIANT in
guest)
    # busybox-static: the shell and tools of the init script; libegl1,
    # libgles2, libvulkan1: the dispatch libraries the programs link to.
    # strace: to see which ioctls of the driver Mesa uses and what fails.
    # libkmod2 ... libpciaccess0: what IGT's libigt.so links to
    # (scripts/build-igt.sh).
    PKGS="busybox-static strace libegl1 libgles2 libvulkan1 vulkan-tools
          mesa-utils-bin libgl1-mesa-dri libegl-mesa0 libgbm1
          mesa-vulkan-drivers
          libkmod2 libproc2-0 libdw1t64 libcairo2 libpixman-1-0
          libglib2.0-0t64 libudev1 libpciaccess0"
    ;;
sysroot)
    # libkmod-dev ... libpciaccess-dev: what IGT's library needs
    # (scripts/build-igt.sh)
    PKGS="libc6-dev libvulkan-dev libegl-dev libgles-dev libdrm-dev
          libkmod-dev libproc2-dev libdw-dev libcairo2-dev libpixman-1-dev
          libglib2.0-dev libudev-dev libpciaccess-dev"
    ;;
*)
    log "usage: build-rootfs.sh guest|sysroot"
    exit 1
    ;;
esac

OUT=$AGX_CACHE/rootfs-$VARIANT
want=$(cat "$0" "$TOP/scripts/finish-rootfs.sh" | sha256sum)
if [ -e "$OUT/.agx-stamp" ] && [ "$(cat "$OUT/.agx-stamp")" = "$want" ]; then
    echo "$OUT"
    exit 0
fi

# Mesa's packages at exactly MESA_VERSION.
include=""
for p in $PKGS; do
    case " $(echo $MESA_PKGS) " in
    *" $p "*) include="$include,$p=$MESA_VERSION" ;;
    *) include="$include,$p" ;;
    esac
done

log "building the $VARIANT root filesystem in $OUT (Mesa $MESA_VERSION)"
rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp"
start=$(date +%s)
# Backports at the default priority: Mesa's newer dependencies (libdrm,
# LLVM) come from there too; everything else stays plain trixie.
mmdebstrap --variant=extract --arch=arm64 --mode=root --format=directory \
    --include="${include#,}" \
    --aptopt='Acquire::Languages "none"' \
    --setup-hook='mkdir -p "$1/etc/apt/preferences.d" && printf "Package: *\nPin: release n=trixie-backports\nPin-Priority: 500\n" > "$1/etc/apt/preferences.d/backports"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' \
    trixie "$OUT.tmp" \
    "deb $MIRROR trixie main" "deb $MIRROR trixie-backports main" >&2
"$TOP/scripts/finish-rootfs.sh" "$VARIANT" "$OUT.tmp"
log "$VARIANT root filesystem: $(du -sm "$OUT.tmp" | cut -f1) MB," \
    "built in $(($(date +%s) - start)) s"
echo "$want" > "$OUT.tmp/.agx-stamp"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "$OUT"
