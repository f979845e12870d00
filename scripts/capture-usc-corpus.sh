#!/bin/bash
# Record the compute work of vk-ops on the Mesa guest and make the shader
# corpus of it: boots the guest with the steps vk-ops-dump (vk-ops under
# usc-dump.so, its record written to a scratch disk) and vk-ops-trace
# (the same under Mesa's own decoder, ASAHI_MESA_DEBUG=trace, on the
# console), then runs scripts/usc-corpus.py.
#   capture-usc-corpus.sh [OUTDIR]     (default tests/unit/usc-corpus)
#   capture-usc-corpus.sh --render [OUTDIR]
#       the render corpus instead (default tests/unit/render-corpus): the
#       step render-dump (gles-scene's and vk-draw's frames under
#       usc-dump.so), then scripts/render-corpus.py
# ONLY=name,... records only those vk-ops checks.  Leaves the record in
# $AGX_CACHE/usc-dump.txt and the console log (with the agxdecode trace)
# in $AGX_CACHE/logs/usc-dump.log.  QEMU=path: this qemu-system-aarch64
# (KERNEL= as for build-mesa-guest.sh).
set -euo pipefail
. "$(dirname "$0")/common.sh"

render=0
if [ "${1:-}" = --render ]; then
    render=1
    shift
fi
OUTDIR=${1:-$TOP/tests/unit/$([ $render = 1 ] && echo render || echo usc)-corpus}
qemu=${QEMU:-$("$TOP/scripts/build-qemu.sh")/qemu-system-aarch64}
mguest=$("$TOP/scripts/build-mesa-guest.sh" ext4)
mesa=$(sed -n 's/^MESA_VERSION=//p' "$TOP/scripts/build-rootfs.sh")
img=$AGX_CACHE/usc-dump.img
rec=$AGX_CACHE/usc-dump.txt
log=$AGX_CACHE/logs/usc-dump.log
mkdir -p "$AGX_CACHE/logs"

if [ $render = 1 ]; then
    steps=modules,render-dump
else
    steps="modules,vk-ops-dump,vk-ops-trace${ONLY:+ agx.vk-ops=$ONLY}"
fi

# The scratch disk the guest finds by its first bytes.  The machine gives
# the last virtio device the first transport: the scratch disk is vda,
# the root disk vdb (the last root= of the command line counts).
rm -f "$img"
truncate -s 256M "$img"
printf USC-DUMP-OUT | dd of="$img" conv=notrunc status=none
"$TOP/scripts/boot-test.py" --timeout 1200 --log "$log" \
    --qemu "$qemu" \
    --kernel "$(echo "$mguest" | sed -n 1p)" \
    --disk "$(echo "$mguest" | sed -n 2p)" \
    --append "agx.steps=$steps root=/dev/vdb" \
    -- -smp 4 -drive "file=$img,format=raw,if=none,id=usc-out" \
    -device virtio-blk-device,drive=usc-out ||
    { log "the capture boot failed: see $log"; exit 1; }
# The record ends at the first NUL (or where the magic still stands)
tr -d '\000' < "$img" > "$rec"
if [ "$(head -c 12 "$rec")" = USC-DUMP-OUT ]; then
    log "the guest wrote no record: see $log"
    exit 1
fi
log "record: $(wc -c < "$rec") bytes, $(grep -c '^submit ' "$rec") submissions"
if [ $render = 1 ]; then
    "$TOP/scripts/render-corpus.py" "$rec" "$OUTDIR" --mesa "$mesa"
else
    "$TOP/scripts/usc-corpus.py" "$rec" "$OUTDIR" --mesa "$mesa" --trace "$log"
fi
