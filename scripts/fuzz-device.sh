#!/bin/bash
# Fuzz the GPU as a QEMU device with QEMU's own generic-fuzz target
# (qemu-fuzz-aarch64: libFuzzer and ASan, built by clang in a cache
# directory of its own): MMIO of the ASC, its mailbox and the SGX block,
# every DMA read of the firmware model (UAT walks, rings, command records)
# answered from the fuzzer's input, for FUZZ_SECONDS (default 60).  The
# corpus and crash reproducers stay in $AGX_CACHE/fuzz-device; replay one
# with: QEMU_FUZZ_ARGS=... QEMU_FUZZ_OBJECTS=... qemu-fuzz-aarch64
# --fuzz-target=generic-fuzz <file> (the values are printed below).
set -euo pipefail
. "$(dirname "$0")/common.sh"

find_clang_fuzzer
export PATH=$LLVM_BIN:$PATH
qfuzz=$(AGX_QEMU_FUZZ=1 "$TOP/scripts/build-qemu.sh")

OUT=$AGX_CACHE/fuzz-device
mkdir -p "$OUT/corpus"
export QEMU_FUZZ_ARGS="-M apple-m1 -smp 1"
export QEMU_FUZZ_OBJECTS="apple-agx"
log "QEMU_FUZZ_ARGS='$QEMU_FUZZ_ARGS' QEMU_FUZZ_OBJECTS='$QEMU_FUZZ_OBJECTS'"
cd "$OUT"
"$qfuzz/qemu-fuzz-aarch64" --fuzz-target=generic-fuzz \
    -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=4096 corpus
