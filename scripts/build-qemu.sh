#!/bin/bash
# Build qemu-system-aarch64 (and our qtests) from QEMU 10.0 + this overlay.
#
# $AGX_CACHE/qemu-tree is a hard-linked copy of the pristine source with our
# patches applied and our files copied in; $AGX_CACHE/qemu-build is the
# build directory.  Only files that changed are re-copied, so editing one of
# our .c files recompiles that file and relinks, nothing more.
set -euo pipefail
. "$(dirname "$0")/common.sh"

SRC=$("$TOP/scripts/get-qemu-src.sh")
TREE=$AGX_CACHE/qemu-tree
BUILD=$AGX_CACHE/qemu-build
OVERLAY_DIRS="hw include tests/qtest tests/lib docs"
CONFIGURE_FLAGS="--python=/usr/bin/python3 --target-list=aarch64-softmmu
    --disable-docs --disable-werror --without-default-features
    --enable-fdt=system --enable-slirp --disable-install-blobs"
# AGX_QEMU_FUZZ=1: QEMU's own fuzzer (qemu-fuzz-aarch64, clang, libFuzzer
# and ASan) in a build directory of its own, from the same tree
if [ "${AGX_QEMU_FUZZ:-}" = 1 ]; then
    BUILD=$AGX_CACHE/qemu-fuzz-build
    # clang on PATH is the version find_clang_fuzzer chose
    find_clang_fuzzer
    export PATH=$LLVM_BIN:$PATH
    CONFIGURE_FLAGS="$CONFIGURE_FLAGS --cc=clang --cxx=clang++
        --enable-fuzzing --enable-asan"
fi

# 1. The patched tree: recreated when the source or a patch changes.
want="$SRC $(cat "$TOP"/patches/qemu/*.patch | sha256sum)"
if [ "$(cat "$TREE/.agx-tree" 2>/dev/null)" != "$want" ]; then
    log "preparing $TREE from $SRC"
    rm -rf "$TREE.new"
    cp -al "$SRC" "$TREE.new"
    for p in "$TOP"/patches/qemu/*.patch; do
        # Break the hard links of patched files before touching them.
        for f in $(sed -n 's|^+++ b/||p' "$p"); do
            cp "$TREE.new/$f" "$TREE.new/$f.tmp"
            mv "$TREE.new/$f.tmp" "$TREE.new/$f"
        done
        patch -s -d "$TREE.new" -p1 < "$p"
    done
    rm -rf "$TREE"
    mv "$TREE.new" "$TREE"
    echo "$want" > "$TREE/.agx-tree"
fi

# 2. Our files: copied only when they differ; files we dropped are removed.
cd "$TOP"
files=$(find $OVERLAY_DIRS -type f ! -name '*~' ! -name '.*' | sort)
for f in $files; do
    if [ -e "$SRC/$f" ]; then
        log "$f exists in QEMU; change it with a patch in patches/qemu/"
        exit 1
    fi
    if ! cmp -s "$f" "$TREE/$f"; then
        mkdir -p "$TREE/$(dirname "$f")"
        rm -f "$TREE/$f"
        cp "$f" "$TREE/$f"
    fi
done
if [ -e "$TREE/.agx-overlay" ]; then
    for f in $(comm -23 "$TREE/.agx-overlay" <(echo "$files")); do
        rm -f "$TREE/$f"
    done
fi
echo "$files" > "$TREE/.agx-overlay"

# 3. Configure once; ninja re-runs meson by itself when a meson.build changes.
want="$TREE $(echo $CONFIGURE_FLAGS)"
if [ ! -e "$BUILD/build.ninja" ] ||
   [ "$(cat "$BUILD/.agx-configure" 2>/dev/null)" != "$want" ]; then
    log "configuring QEMU in $BUILD"
    rm -rf "$BUILD"
    mkdir -p "$BUILD"
    (cd "$BUILD" && "$TREE/configure" $CONFIGURE_FLAGS >&2)
    echo "$want" > "$BUILD/.agx-configure"
fi

# 4. Build only what we use.
targets="qemu-system-aarch64"
for t in tests/qtest/*-test.c; do
    [ -e "$t" ] && targets="$targets tests/qtest/$(basename "$t" .c)"
done
if [ "${AGX_QEMU_FUZZ:-}" = 1 ]; then
    targets="qemu-fuzz-aarch64"
fi
# QEMU is configured without -Werror; our own files must stay warning-free.
ninja -C "$BUILD" -j "$JOBS" $targets | tee "$BUILD/.agx-ninja.log" >&2
if grep -E '^\.\./qemu-tree/(hw/arm/apple-m1|hw/display/agx|hw/apple|include/hw/(agx|apple)|tests/qtest/(agx|apple))[^:]*:[0-9]+:[0-9]+: (warning|error)' \
        "$BUILD/.agx-ninja.log" >&2; then
    log "warnings in our files"
    exit 1
fi
echo "$BUILD"
