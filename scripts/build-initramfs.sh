#!/bin/bash
# Build the test guest's initramfs: our static /init (tests/guest/init.c),
# the asahi UAPI test program /bin/asahi-uapi (tests/guest/asahi-uapi),
# the UAPI fuzzer /bin/uapi-fuzz (tests/guest/uapi-fuzz) with its seed
# corpus and reproducers in /fuzz/corpus (tests/fuzz/uapi-corpus), plus
# the files named in INITRAMFS_EXTRA="src:dst src:dst" (dst absolute, no
# spaces; e.g. test modules).  Prints the path of the cpio.gz, which is
# rebuilt only when one of its inputs changed; with AGX_KDEBUG=1 (the
# debug kernel's modules) it is another file, so both stay cached.
set -euo pipefail
. "$(dirname "$0")/common.sh"

SFX=${AGX_KDEBUG:+-debug}
WORK=$AGX_CACHE/initramfs
OUT=$AGX_CACHE/initramfs$SFX.cpio.gz
INIT_SRC=$TOP/tests/guest/init.c
GEN=$WORK/gen_init_cpio
mkdir -p "$WORK"

# gen_init_cpio is a self-contained host tool in the Linux tree.
if [ ! -x "$GEN" ]; then
    SRC=$("$TOP/scripts/get-linux-src.sh")
    cc -O2 -o "$GEN.tmp" "$SRC/usr/gen_init_cpio.c"
    mv "$GEN.tmp" "$GEN"
fi

# The UAPI test program includes the Linux tree's own asahi_drm.h, as
# `make headers` exports it (once per cache), and make rebuilds it only
# when its sources changed.
UAPI=$AGX_CACHE/uapi-headers
if [ ! -e "$UAPI/.agx-stamp" ]; then
    SRC=$("$TOP/scripts/get-linux-src.sh")
    log "exporting the Linux UAPI headers into $UAPI"
    make -s -C "$SRC" O="$UAPI" ARCH=arm64 headers >&2
    touch "$UAPI/.agx-stamp"
fi
# make goes by time stamps, which lie when two checkouts share this cache:
# a change of the sources' contents forces the rebuild
for prog in asahi-uapi uapi-fuzz; do
    src_sum=$(cat "$TOP"/tests/guest/$prog/* | sha256sum)
    if [ "$(cat "$WORK/.$prog-src" 2>/dev/null)" != "$src_sum" ]; then
        rm -f "$WORK/$prog"
    fi
    make -s -C "$TOP/tests/guest/$prog" O="$WORK" \
        UAPI="$UAPI/usr/include" >&2
    echo "$src_sum" > "$WORK/.$prog-src"
done

# The list of archive entries; parent directories of extra files first.
list="dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /bin 0755 0 0
file /init $WORK/init 0755 0 0
file /bin/asahi-uapi $WORK/asahi-uapi 0755 0 0
file /bin/uapi-fuzz $WORK/uapi-fuzz 0755 0 0"
dirs="" files="" sums=""
# The fuzzer's committed corpus and reproducers
for f in "$TOP"/tests/fuzz/uapi-corpus/*.prog; do
    [ -e "$f" ] || continue
    dirs="$dirs/fuzz/corpus"$'\n'"/fuzz"$'\n'
    files="${files}file /fuzz/corpus/$(basename "$f") $f 0644 0 0"$'\n'
    sums="$sums $(sha256sum < "$f")"
done
for e in ${INITRAMFS_EXTRA:-}; do
    src=${e%%:*} dst=${e#*:}
    if [ "$src" = "$e" ] || [ "${dst#/}" = "$dst" ] || [ ! -f "$src" ]; then
        log "INITRAMFS_EXTRA: bad entry '$e' (want existing-file:/abs/path)"
        exit 1
    fi
    d=$(dirname "$dst")
    while [ "$d" != / ]; do
        dirs="$dirs$d"$'\n'
        d=$(dirname "$d")
    done
    files="${files}file $dst $(realpath "$src") $(stat -c %a "$src") 0 0"$'\n'
    sums="$sums $(sha256sum < "$src")"
done
sums="$sums $(sha256sum < "$WORK/asahi-uapi") $(sha256sum < "$WORK/uapi-fuzz")"
for d in $(echo -n "$dirs" | sort -u); do
    list="$list"$'\n'"dir $d 0755 0 0"
done
list="$list"$'\n'"$files"

# The asahi UAPI header from our Linux source (the cross toolchain's libc
# headers predate it), found after the system's; its "drm.h" is the
# system's sanitised one, through a one-line shim next to it.
SRC=$("$TOP/scripts/get-linux-src.sh")
mkdir -p "$WORK/uapi/drm"
cmp -s "$SRC/include/uapi/drm/asahi_drm.h" "$WORK/uapi/drm/asahi_drm.h" ||
    cp "$SRC/include/uapi/drm/asahi_drm.h" "$WORK/uapi/drm/asahi_drm.h"
echo '#include <drm/drm.h>' > "$WORK/uapi/drm/drm.h"

CC=aarch64-linux-gnu-gcc
CFLAGS="-static -Os -Wall -Werror -idirafter $WORK/uapi"
want=$(echo "$list $sums $CC $CFLAGS $(cat "$TOP"/tests/guest/*.c \
       "$WORK"/uapi/drm/*.h | sha256sum)" | sha256sum)
if [ -e "$OUT" ] && [ "$(cat "$WORK/.agx-stamp$SFX" 2>/dev/null)" = "$want" ]; then
    echo "$OUT"
    exit 0
fi

log "building $OUT"
rm -f "$WORK/.agx-stamp$SFX"
$CC $CFLAGS -o "$WORK/init" "$INIT_SRC" "$TOP"/tests/guest/drm-*.c
echo "$list" > "$WORK/list"
# -t 0: fixed timestamps, so the same inputs give the same archive.
"$GEN" -t 0 "$WORK/list" | gzip -9n > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$want" > "$WORK/.agx-stamp$SFX"
echo "$OUT"
