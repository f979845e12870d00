#!/bin/bash
# Build one of Linux's Apple device trees, unmodified, from the guest
# kernel's source tree, as the kernel's own build would (cpp, then dtc);
# prints the .dtb.  Default: t8103-j274 (Mac mini, M1).  Cached in
# $AGX_CACHE/dtb, rebuilt when the source tree changes.
set -euo pipefail
. "$(dirname "$0")/common.sh"

name=${1:-t8103-j274}
src=$("$TOP/scripts/get-linux-src.sh")
dts=$src/arch/arm64/boot/dts
out=$AGX_CACHE/dtb/$name.dtb
if [ "$(cat "$out.src" 2>/dev/null)" != "$src" ] || [ ! -e "$out" ]; then
    log "building $out"
    mkdir -p "$AGX_CACHE/dtb"
    cpp -nostdinc -undef -D__DTS__ -x assembler-with-cpp -I "$src/include" \
        -I "$dts" "$dts/apple/$name.dts" |
        dtc -q -I dts -O dtb -o "$out.tmp" -
    mv "$out.tmp" "$out"
    echo "$src" > "$out.src"
fi
echo "$out"
