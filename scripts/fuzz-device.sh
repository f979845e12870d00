#!/bin/bash
# Fuzz the GPU as a QEMU device with QEMU's own generic-fuzz target
# (qemu-fuzz-aarch64: libFuzzer and ASan, built by clang in a cache
# directory of its own): MMIO of the ASC, its mailbox and the SGX block,
# every DMA read of the firmware model (UAT walks, rings, command records)
# answered from the fuzzer's input, for FUZZ_SECONDS (default 60).
#
# Then the corpus is minimised and every input is turned into a qtest
# trace (QTEST_LOG and QEMU's reorder_fuzzer_qtest_trace.py), which the
# ordinary qemu-system-aarch64 replays: scripts/replay-device-trace.py
# runs each straight and with a migration halfway (`make check` does so
# for tests/fuzz/device-traces; FUZZ_EXPORT=N copies the N largest traces
# there).  Corpus, traces and crash reproducers stay in
# $AGX_CACHE/fuzz-device.
set -euo pipefail
. "$(dirname "$0")/common.sh"

find_clang_fuzzer
export PATH=$LLVM_BIN:$PATH
qfuzz=$(AGX_QEMU_FUZZ=1 step build-qemu-fuzz "$TOP/scripts/build-qemu.sh")

OUT=$AGX_CACHE/fuzz-device
mkdir -p "$OUT/corpus"
export QEMU_FUZZ_ARGS="-M apple-m1 -smp 1"
export QEMU_FUZZ_OBJECTS="apple-agx apple-asc-mailbox"
log "QEMU_FUZZ_ARGS='$QEMU_FUZZ_ARGS' QEMU_FUZZ_OBJECTS='$QEMU_FUZZ_OBJECTS'"
cd "$OUT"
"$qfuzz/qemu-fuzz-aarch64" --fuzz-target=generic-fuzz \
    -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=4096 \
    -print_final_stats=1 corpus > fuzz.log 2>&1 || true
grep -E '^==[0-9]+==ERROR' -A20 fuzz.log || true
log "$(sed -n 's/^stat::number_of_executed_units: *//p' fuzz.log) inputs" \
    "at $(sed -n 's/^stat::average_exec_per_sec: *//p' fuzz.log)/s;" \
    "crash reproducers: $(ls crash-* timeout-* 2>/dev/null | wc -l)"

# The smallest corpus with the same coverage, as qtest traces
rm -rf min traces && mkdir -p min traces
"$qfuzz/qemu-fuzz-aarch64" --fuzz-target=generic-fuzz -merge=1 min corpus \
    >merge.log 2>&1
for f in min/* crash-* timeout-*; do
    [ -e "$f" ] || continue
    QTEST_LOG=1 FUZZ_SERIALIZE_QTEST=1 timeout 60 \
        "$qfuzz/qemu-fuzz-aarch64" --fuzz-target=generic-fuzz -runs=1 "$f" \
        >/dev/null 2>"traces/$(basename "$f").log" || true
    python3 "$AGX_CACHE/qemu-tree/scripts/oss-fuzz/reorder_fuzzer_qtest_trace.py" \
        "traces/$(basename "$f").log" > "traces/$(basename "$f")" || true
    rm -f "traces/$(basename "$f").log"
done
log "$(ls min | wc -l) minimised inputs, traces in $OUT/traces"
if [ -n "${FUZZ_EXPORT:-}" ]; then
    mkdir -p "$TOP/tests/fuzz/device-traces"
    ls -S traces | head -n "$FUZZ_EXPORT" |
        while read -r t; do cp "traces/$t" "$TOP/tests/fuzz/device-traces/"; done
fi
