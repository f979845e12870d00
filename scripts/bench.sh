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
done
