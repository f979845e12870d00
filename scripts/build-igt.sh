#!/bin/bash
# Build IGT's driver-independent tests (core_*, syncobj_*, sw_sync) for
# the arm64 Mesa guest, from Debian trixie's intel-gpu-tools source
# package (Debian builds it for x86 only), cross-compiled against the
# sysroot of build-rootfs.sh sysroot.  Only libigt and the tests named in
# IGT_TESTS that the source has are built (ninja targets), not the rest of
# IGT.  IGT_SRC=<unpacked intel-gpu-tools 2.x tree> builds that tree
# instead of downloading the package.  Exits 77 (skipped) when the source
# package cannot be downloaded, 1 when the build fails.
# Prints the directory holding the tests (bin/) and the libraries of IGT
# they need (lib/), and VERSION; cached in
# $AGX_CACHE/igt/<key> (key: this script, the sysroot and the source).
set -euo pipefail
. "$(dirname "$0")/common.sh"

IGT_TESTS="core_getversion core_auth core_setmaster core_getclient
           core_getstats core_sysfs core_debugfs syncobj_basic syncobj_wait
           syncobj_timeline syncobj_eventfd sw_sync core_hotunplug"

sysroot=$("$TOP/scripts/build-rootfs.sh" sysroot)
if [ -n "${IGT_SRC:-}" ]; then
    src=$(cd "$IGT_SRC" && pwd)
elif ! src=$(debian_source intel-gpu-tools '^2\.'); then
    log "cannot download Debian's intel-gpu-tools source package"
    exit 77
fi
version=$(sed -n "s/^.*version *: *'\([0-9.]*\)'.*/\1/p" "$src/meson.build" |
          head -1)
key=$( (cat "$0"; echo "$src $version"; cat "$sysroot/.agx-stamp") |
      sha256sum | cut -c1-16)
OUT=$AGX_CACHE/igt/$key
if [ -e "$OUT/.agx-done" ]; then
    echo "$OUT"
    exit 0
fi

log "building IGT $version ($src) in $OUT"
start=$(date +%s)
BUILD=$AGX_CACHE/igt/build-$key
rm -rf "$BUILD" "$OUT"
mkdir -p "$BUILD"
lib=$sysroot/usr/lib/aarch64-linux-gnu
cat > "$BUILD/cross.txt" <<EOF
[binaries]
c = 'aarch64-linux-gnu-gcc'
ar = 'aarch64-linux-gnu-gcc-ar'
strip = 'aarch64-linux-gnu-strip'
pkg-config = 'pkg-config'

[properties]
sys_root = '$sysroot'
pkg_config_libdir = ['$lib/pkgconfig', '$sysroot/usr/share/pkgconfig']

[built-in options]
c_args = ['--sysroot=$sysroot']
c_link_args = ['--sysroot=$sysroot', '-L$lib', '-Wl,-rpath-link,$lib']

[host_machine]
system = 'linux'
cpu_family = 'aarch64'
cpu = 'aarch64'
endian = 'little'
EOF
# Everything IGT can leave out, left out: the runner, tools' extras,
# documentation, the Intel (xe), Chamelium and libdrm vendor parts.
meson setup "$BUILD/b" "$src" --cross-file "$BUILD/cross.txt" \
    --buildtype=debugoptimized -Dtests=enabled -Drunner=disabled \
    -Doverlay=disabled -Dchamelium=disabled -Dman=disabled -Ddocs=disabled \
    -Dtestplan=disabled -Dsphinx=disabled -Dvalgrind=disabled \
    -Dlibunwind=disabled -Dxe_driver=disabled -Dvmtb=disabled \
    -Doping=disabled -Dlibdrm_drivers= >&2
tests=""
for t in $IGT_TESTS; do
    if [ -e "$src/tests/$t.c" ]; then
        tests="$tests $t"
    else
        log "IGT $version has no $t"
    fi
done
ninja -C "$BUILD/b" -j "$JOBS" lib/libigt.so.0 \
    $(for t in $tests; do echo "tests/$t"; done) >&2
# The tests find their libraries in ../lib (their RUNPATH)
mkdir -p "$OUT/bin" "$OUT/lib"
for t in $tests; do
    cp "$BUILD/b/tests/$t" "$OUT/bin/"
done
for so in $(aarch64-linux-gnu-readelf -d "$OUT"/bin/* |
            sed -n 's/.*NEEDED.*\[\(lib\(igt\|i915_perf\)\.so[^]]*\)\]/\1/p' |
            sort -u); do
    cp -L "$BUILD/b/lib/$so" "$OUT/lib/"
done
aarch64-linux-gnu-strip "$OUT"/bin/* "$OUT"/lib/*
echo "$version" > "$OUT/VERSION"
rm -rf "$BUILD"
touch "$OUT/.agx-done"
log "IGT $version: $(echo $tests | wc -w) tests, built in" \
    "$(($(date +%s) - start)) s"
echo "$OUT"
