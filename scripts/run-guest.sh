#!/bin/bash
# Boot the test guest on -M apple-m1 with its console on this terminal.
# KERNEL=, DTB=, APPEND= and QEMU_ARGS= override the defaults.
set -euo pipefail
. "$(dirname "$0")/common.sh"

qemu=$("$TOP/scripts/build-qemu.sh")/qemu-system-aarch64
{ read -r image; read -r initrd; } < <("$TOP/scripts/build-guest.sh")
args=(-M apple-m1 -m 2G -nographic -no-reboot
      -kernel "$image" -initrd "$initrd"
      -append "console=ttyAMA0 panic=-1 ${APPEND:-}"
      # the RTKit steps of /init talk to this endpoint
      -global apple-asc.echo-endpoint=0x2f)
if [ -n "${DTB:-}" ]; then
    args+=(-dtb "$DTB")
fi
exec "$qemu" "${args[@]}" ${QEMU_ARGS:-}
