#!/bin/bash
# Print benchmark figures: the standalone firmware core, then jobs end to
# end through QEMU and the qtest driver.  Figures vary with the machine;
# nothing here passes or fails on speed.
set -euo pipefail
. "$(dirname "$0")/common.sh"

core=$TOP/build/core
if [ ! -e "$core/build.ninja" ]; then
    meson setup "$core" "$TOP" >/dev/null
fi
ninja -C "$core" bench-core >/dev/null
"$core/bench-core"

qbuild=$("$TOP/scripts/build-qemu.sh")
cd "$qbuild"
for fw in 13.5 12.3; do
    QTEST_QEMU_BINARY=./qemu-system-aarch64 tests/qtest/agx-job-test -m perf \
        -p /aarch64/apple-m1/agx-job/bench/$fw/end-to-end 2>&1 |
        sed -n 's/^# min perf: //p'
    QTEST_QEMU_BINARY=./qemu-system-aarch64 tests/qtest/agx-fw-test \
        -p /aarch64/apple-m1/agx-fw/$fw/probe-reaches-initialize 2>&1 |
        sed -n 's/^# fw/qtest fw/p'
done

# The test guest: idle cost of a booted GPU, jobs inside the guest
guest=$("$TOP/scripts/build-guest.sh")
"$TOP/scripts/bench-guest.py" --qemu "$qbuild/qemu-system-aarch64" \
    --kernel "$(echo "$guest" | sed -n 1p)" \
    --initrd "$(echo "$guest" | sed -n 2p)" --idle "${BENCH_IDLE:-30}"
