#!/bin/bash
# Boot a test guest on -M apple-m1 with its console on this terminal.
#   run-guest.sh            the Mesa guest (scripts/build-mesa-guest.sh):
#                           the GPU firmware boots as the asahi driver
#                           loads, then vulkaninfo --summary and a GLES
#                           scene (gles-scene) run on the emulated GPU,
#                           whose image becomes $AGX_CACHE/picture.png
#                           (agx.steps= in APPEND picks other steps of
#                           its init.sh)
#   run-guest.sh --minimal  the initramfs guest of scripts/build-guest.sh
# KERNEL=, DTB=, APPEND= and QEMU_ARGS= override the defaults.  What it
# builds first prints a line per step, its output in $AGX_CACHE/logs.
set -euo pipefail
. "$(dirname "$0")/common.sh"

qemu=$(step build-qemu "$TOP/scripts/build-qemu.sh")/qemu-system-aarch64
args=(-M apple-m1 -m 2G -nographic -no-reboot)
if [ "${1:-}" = --minimal ]; then
    guest=$(step build-guest "$TOP/scripts/build-guest.sh")
    { read -r image; read -r initrd; } <<< "$guest"
    args+=(-kernel "$image" -initrd "$initrd"
           -append "console=ttyAMA0 panic=-1 ${APPEND:-}"
           # the RTKit steps of /init talk to this endpoint
           -global apple-asc.echo-endpoint=0x2f)
else
    guest=$(step build-mesa-guest "$TOP/scripts/build-mesa-guest.sh" ext4)
    { read -r image; read -r disk; } <<< "$guest"
    # The disk the picture step writes the GPU's image over
    picture=$AGX_CACHE/picture.img
    printf AGX-PICTURE-OUT > "$picture"
    truncate -s 1M "$picture"
    # (the machine gives the last virtio device the first transport: the
    # root disk comes last to be vda)
    args+=(-smp 4 -kernel "$image"
           -drive "file=$picture,if=none,format=raw,id=picture"
           -device virtio-blk-device,drive=picture
           -drive "file=$disk,if=none,format=raw,readonly=on,id=root"
           -device virtio-blk-device,drive=root
           -append "console=ttyAMA0 panic=-1 root=/dev/vda rootfstype=ext4 ro init=/init.sh agx.steps=modules,vulkaninfo,picture ${APPEND:-}")
fi
if [ -n "${DTB:-}" ]; then
    args+=(-dtb "$DTB")
fi
if [ -z "${picture:-}" ]; then
    exec "$qemu" "${args[@]}" ${QEMU_ARGS:-}
fi
"$qemu" "${args[@]}" ${QEMU_ARGS:-}
if "$TOP/scripts/picture.py" "$picture" "$AGX_CACHE/picture.png" >/dev/null; then
    echo "agx: picture: $AGX_CACHE/picture.png (the gles-scene image)"
fi
