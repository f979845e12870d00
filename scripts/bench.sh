#!/bin/bash
# Print benchmark figures: the standalone firmware core, then jobs end to
# end through QEMU and the qtest driver.  Figures vary with the machine;
# nothing here passes or fails on speed.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# Builds print a line each; their output goes to $AGX_CACHE/logs
core=$TOP/build/core
build_core() {
    if [ ! -e "$core/build.ninja" ]; then
        meson setup "$core" "$TOP" >&2 || return
    fi
    ninja -C "$core" bench-core bench-usc bench-render test-vdm >&2
}
step build-core build_core
"$core/bench-core"
# The longest vertex slice: test-vdm's perf case (a vertex job whose
# shader loops, in the default slices and in one)
"$core/test-vdm" -m perf -p /vdm/perf/longest-slice 2>&1 |
    sed -n 's/^# long vertex job/core vertex long job/p'
"$core/bench-usc"
"$core/bench-render" | sed -n "/frames\/s/p"

qbuild=$(step build-qemu "$TOP/scripts/build-qemu.sh")
cd "$qbuild"
for fw in 13.5 12.3; do
    QTEST_QEMU_BINARY=./qemu-system-aarch64 tests/qtest/agx-job-test -m perf \
        -p /aarch64/apple-m1/agx-job/bench/$fw/end-to-end 2>&1 |
        sed -n 's/^# min perf: //p'
    QTEST_QEMU_BINARY=./qemu-system-aarch64 tests/qtest/agx-fw-test \
        -p /aarch64/apple-m1/agx-fw/$fw/probe-reaches-initialize 2>&1 |
        sed -n 's/^# fw/qtest fw/p'
done

# The test guest: idle cost of a booted GPU, jobs inside the guest and,
# once the guest has the asahi DRM driver, submissions/s through its UAPI
guest=$(step build-guest "$TOP/scripts/build-guest.sh")
uapi=""
if [ -d "$TOP/guest/linux/drivers/gpu/drm/asahi" ]; then
    uapi="--uapi ${BENCH_UAPI:-2000}"
fi
"$TOP/scripts/bench-guest.py" --qemu "$qbuild/qemu-system-aarch64" \
    --kernel "$(echo "$guest" | sed -n 1p)" \
    --initrd "$(echo "$guest" | sed -n 2p)" --idle "${BENCH_IDLE:-30}" $uapi

# The Mesa guest: one compute dispatch (vk-ops --bench: vk-ops-flow.comp,
# 256 workgroups of 64) timed on Honeykrisp and on lavapipe, Mesa's CPU
# driver, and the frame rate of gles-scene's scene on the GPU and on
# llvmpipe, in the same guest
if mguest=$(step build-mesa-guest "$TOP/scripts/build-mesa-guest.sh" ext4); then
    blog=$AGX_CACHE/logs/bench-vk.log
    mkdir -p "$AGX_CACHE/logs"
    if "$TOP/scripts/boot-test.py" --timeout 900 --log "$blog" \
           --qemu "$qbuild/qemu-system-aarch64" \
           --kernel "$(echo "$mguest" | sed -n 1p)" \
           --disk "$(echo "$mguest" | sed -n 2p)" \
           --append "agx.steps=modules,vk-bench,scene-bench" -- -smp 4; then
        sed -n 's/^vk-ops: bench \([a-z]*\): /vk dispatch \1: /p' "$blog"
        # best times, Honeykrisp (the model) over lavapipe (the guest's CPU)
        sed -n 's/^vk-ops: bench \([a-z]*\): .*best \([0-9.]*\) ms.*/\1 \2/p' \
            "$blog" | awk '{ t[$1] = $2 }
                END { if (t["honeykrisp"] && t["lavapipe"])
                          printf "vk dispatch: the model/lavapipe best " \
                                 "time ratio %.2f\n", \
                                 t["honeykrisp"] / t["lavapipe"] }'
        sed -n 's/^scene-bench: /gles scene /p' "$blog"
        awk '/^scene-bench: gpu / { g = $3 } /^scene-bench: software / { s = $3 }
             END { if (g + 0 > 0 && s + 0 > 0)
                       printf "gles scene: GPU model / llvmpipe = %.2f\n", g / s }' "$blog"
    else
        echo "vk dispatch: the boot failed (see $blog)"
    fi
fi

# The fuzzers' inputs per second, when make fuzz / make fuzz-device have
# built them (their builds are not part of make bench): 15 s each, on a
# scratch copy of their corpora, nothing kept
fuzz_rate() {                   # name binary args...
    local name=$1 tmp out
    shift
    tmp=$(mktemp -d)
    out=$(cd "$tmp" && "$@" -max_total_time=15 -print_final_stats=1 2>&1)
    echo "fuzz $name: $(echo "$out" |
        sed -n 's/^stat::average_exec_per_sec: *//p') inputs/s"
    rm -rf "$tmp"
}
F=$AGX_CACHE/fuzz
if [ -x "$F/fuzz-fw" ] && [ -d "$F/linear" ]; then
    cp -r "$F/linear" "$F/bench-linear"
    ASAN_OPTIONS=malloc_context_size=4:quarantine_size_mb=32 \
        fuzz_rate "core (linear, ASan+UBSan)" "$F/fuzz-fw" -max_len=4096 \
        "$F/bench-linear"
    rm -rf "$F/bench-linear"
else
    echo "fuzz core: not built (make fuzz)"
fi
if [ -x "$F/fuzz-fw-fast" ] && [ -d "$F/linear" ]; then
    cp -r "$F/linear" "$F/bench-linear"
    fuzz_rate "core (linear, no sanitizers)" "$F/fuzz-fw-fast" \
        -max_len=4096 "$F/bench-linear"
    rm -rf "$F/bench-linear"
else
    echo "fuzz core, no sanitizers: not built (FUZZ_FAST=1 make fuzz)"
fi
D=$AGX_CACHE/qemu-fuzz-build/qemu-fuzz-aarch64
if [ -x "$D" ] && [ -d "$AGX_CACHE/fuzz-device/corpus" ]; then
    cp -r "$AGX_CACHE/fuzz-device/corpus" "$AGX_CACHE/fuzz-device/bench"
    QEMU_FUZZ_ARGS="-M apple-m1 -smp 1" \
    QEMU_FUZZ_OBJECTS="apple-agx apple-asc-mailbox" \
        fuzz_rate "device (generic-fuzz, ASan)" "$D" \
        --fuzz-target=generic-fuzz "$AGX_CACHE/fuzz-device/bench"
    rm -rf "$AGX_CACHE/fuzz-device/bench"
else
    echo "fuzz device: not built (make fuzz-device)"
fi
