#!/bin/bash
# Build the Mesa guest: the Debian root filesystem of build-rootfs.sh guest
# plus our kernel's modules (the asahi DRM driver and its helpers, in
# /lib/modules/agx), the test programs of tests/guest/mesa (in
# /usr/local/bin, cross-compiled against build-rootfs.sh sysroot), the
# asahi-trace.so and usc-dump.so preload libraries (/usr/local/lib), IGT's
# driver-independent tests (build-igt.sh; /usr/local/igt, left out with a
# log line when IGT cannot be built) and the init script (/init.sh), as
#   build-mesa-guest.sh [ext4]  a read-only ext4 disk image for virtio-blk
#                               (boot with root=/dev/vda init=/init.sh)
#   build-mesa-guest.sh cpio    an uncompressed initramfs (/init)
# Prints two lines: the kernel Image and the image.  AGX_KDEBUG=1: the
# debug kernel (tests/guest/kernel-debug.config) and its modules, in an
# image of its own.  The image is
# reproducible on one host (fixed UUID, hash seed and time stamps; the
# order of files follows the host's directory order) and rebuilt only
# when an input changed.
set -euo pipefail
. "$(dirname "$0")/common.sh"

FORMAT=${1:-ext4}
case $FORMAT in
ext4|cpio) ;;
*) log "usage: build-mesa-guest.sh [ext4|cpio]"; exit 1 ;;
esac

image=$("$TOP/scripts/build-linux.sh")
rootfs=$("$TOP/scripts/build-rootfs.sh" guest)
sysroot=$("$TOP/scripts/build-rootfs.sh" sysroot)
rc=0
igt=$("$TOP/scripts/build-igt.sh") || rc=$?
if [ $rc = 77 ]; then
    log "IGT left out of the image: its source cannot be downloaded"
    igt=""
elif [ $rc != 0 ]; then
    log "IGT left out of the image: build-igt.sh failed"
    igt=""
fi
SFX=${AGX_KDEBUG:+-debug}
WORK=$AGX_CACHE/mesa-guest
OUT=$AGX_CACHE/mesa-guest$SFX.$FORMAT
PROGS=$WORK/progs
# The programs tests/guest/mesa/Makefile builds, for /usr/local/bin
BINS="vk-compute vk-ops vk-draw gles-fbo gles-scene gles-draw gl-compute"
mkdir -p "$PROGS"
# make goes by time stamps, which lie when two checkouts share this cache:
# a change of the sources' contents forces the rebuild
src_sum=$(cat "$TOP"/tests/guest/mesa/* | sha256sum)
if [ "$(cat "$PROGS/.agx-src" 2>/dev/null)" != "$src_sum" ]; then
    rm -f "$PROGS"/vk-* "$PROGS"/gl-* "$PROGS"/gles-* \
        "$PROGS"/asahi-trace.so "$PROGS"/usc-dump.so
fi
make -s -C "$TOP/tests/guest/mesa" SYSROOT="$sysroot" O="$PROGS" >&2
echo "$src_sum" > "$PROGS/.agx-src"

# Modules of the kernel the image boots (vermagic must match).
kbuild=$AGX_CACHE/linux-build$SFX
if [ -n "${KERNEL:-}" ]; then
    kbuild=$(cd "$(dirname "$KERNEL")/../../.." && pwd)
fi
mods=$(find "$kbuild" -name '*.ko' | sort)

want=$( (echo "$FORMAT $rootfs $(cat "$rootfs/.agx-stamp")"
         sha256sum $mods $(printf "$PROGS/%s " $BINS) \
             "$PROGS/asahi-trace.so" "$PROGS/usc-dump.so" \
             ${igt:+$(find "$igt" -type f | sort)} \
             "$TOP/tests/guest/mesa/init.sh" "$0" | cut -d' ' -f1) |
        sha256sum)
if [ -e "$OUT" ] && [ "$(cat "$WORK/.agx-stamp$SFX-$FORMAT" 2>/dev/null)" = "$want" ]; then
    echo "$image"
    echo "$OUT"
    exit 0
fi

log "building $OUT"
start=$(date +%s)
rm -f "$WORK/.agx-stamp$SFX-$FORMAT"
# The tree: hard links into the cached root filesystem (never written),
# our files copied in.
STAGE=$WORK/stage
rm -rf "$STAGE"
cp -al "$rootfs" "$STAGE"
rm -f "$STAGE/.agx-stamp"
mkdir -p "$STAGE/lib/modules/agx" "$STAGE/usr/local/bin" "$STAGE/usr/local/lib"
for ko in $mods; do
    cp "$ko" "$STAGE/lib/modules/agx/"
done
for b in $BINS; do
    cp "$PROGS/$b" "$STAGE/usr/local/bin/"
done
cp "$PROGS/asahi-trace.so" "$PROGS/usc-dump.so" "$STAGE/usr/local/lib/"
if [ -n "$igt" ]; then
    cp -r "$igt" "$STAGE/usr/local/igt"
    rm -f "$STAGE/usr/local/igt/.agx-done"
fi
cp "$TOP/tests/guest/mesa/init.sh" "$STAGE/init.sh"
chmod 755 "$STAGE/init.sh"
# Fixed time stamps on everything we put in (the packages' own are fixed).
find "$STAGE/lib/modules/agx" "$STAGE/usr/local" "$STAGE/init.sh" \
    -exec touch -h -d @0 {} +

if [ "$FORMAT" = cpio ]; then
    ln -s init.sh "$STAGE/init"
    touch -h -d @0 "$STAGE/init"
    (cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort |
     cpio -o -H newc -R 0:0 --quiet --reproducible) > "$OUT.tmp"
else
    # Room for the files plus ext4's metadata; a read-only root needs no
    # more.
    mb=$(( $(du -sm "$STAGE" | cut -f1) * 11 / 10 + 32 ))
    rm -f "$OUT.tmp"
    E2FSPROGS_FAKE_TIME=1 mke2fs -q -t ext4 -d "$STAGE" -L agx-mesa \
        -U 6d657361-6167-7800-0000-000000000001 \
        -E root_owner=0:0,hash_seed=6d657361-6167-7800-0000-000000000002 \
        -O ^has_journal -m 0 -N 16384 "$OUT.tmp" "${mb}M" >&2
    # mke2fs -d copies each file's change and access times, which no one
    # can set on the host: zero every inode's times (all of them, in use
    # or not, so the list is fixed).
    inodes=$(dumpe2fs -h "$OUT.tmp" 2>/dev/null | sed -n 's/^Inode count: *//p')
    for i in $(seq 1 "$inodes"); do
        printf 'sif <%d> atime 0\nsif <%d> ctime 0\nsif <%d> mtime 0\n' \
            "$i" "$i" "$i"
        printf 'sif <%d> crtime 0\n' "$i"
    done > "$WORK/times.debugfs"
    E2FSPROGS_FAKE_TIME=1 debugfs -w -f "$WORK/times.debugfs" "$OUT.tmp" \
        >/dev/null 2>&1
fi
mv "$OUT.tmp" "$OUT"
rm -rf "$STAGE"
log "$OUT: $(du -m --apparent-size "$OUT" | cut -f1) MB," \
    "built in $(($(date +%s) - start)) s"
echo "$want" > "$WORK/.agx-stamp$SFX-$FORMAT"
echo "$image"
echo "$OUT"
