#!/bin/bash
# Fuzz the firmware core with libFuzzer (clang), ASan and UBSan (or, with
# FUZZ_FAST=1, none) for FUZZ_SECONDS (default 60), then print the inputs
# per second and the core's line and branch coverage by the corpus
# (llvm-cov, per file).
# The corpora and any crash reproducers (crash-*, timeout-*) are kept in
# $AGX_CACHE/fuzz; replay one with: build/core/fuzz-fw <file>.
#
# Seeds: the committed corpus (tests/fuzz/corpus), the test bed's own
# (one real job per pipe and ABI, Barriers, a fault, an RTKit boot), and
# the qtests' recorded traffic when `make check` has left it
# ($AGX_CACHE/logs/qtest-corpus): whole driver sessions, from the RUN bit
# to jobs, that the fuzzer mutates op by op.
set -euo pipefail
. "$(dirname "$0")/common.sh"

find_clang_fuzzer
export PATH=$LLVM_BIN:$PATH

OUT=$AGX_CACHE/fuzz
MAX_LEN=262144
# The RTKit library's and the core's sources: every C file of their folders
srcs=$(cd "$TOP" && find hw/apple/rtkit hw/display/agx/core -name '*.c' |
       sort)
bed="tests/lib/agx/agx-fake.c tests/lib/agx/agx-cmd.c"
# The firmware structures' layouts, generated as the meson build does
mkdir -p "$OUT/gen"
python3 "$TOP/hw/display/agx/core/agx-structs.py" \
    "$TOP/hw/display/agx/core/agx-structs.def" "$OUT/gen/agx-structs.h"
# and the shader interpreter's decoder tables
for g in agx-isa.h agx-isa-tables.c; do
    python3 "$TOP/hw/display/agx/core/shader/agx-isa.py" \
        "$TOP/hw/display/agx/core/shader/agx-isa.def" "$OUT/gen/$g"
done
common="-g -DFAKE_MAPPED=(4*1024*1024) -I$TOP/include -I$OUT/gen
        -I$TOP/tests/lib/agx
        $(pkg-config --cflags glib-2.0)"
# FUZZ_FAST=1: no sanitizers, -O2 (about 4x the inputs/s; finds crashes,
# hangs and aborts but not silent memory errors)
if [ "${FUZZ_FAST:-0}" = 1 ]; then
    cflags="$common -O2 -DAGX_LIBFUZZER"
    lflags="-fsanitize=fuzzer"
    bin=fuzz-fw-fast
else
    cflags="$common -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
            -DAGX_LIBFUZZER"
    lflags="-fsanitize=fuzzer,address,undefined"
    bin=fuzz-fw
fi

# The core gets libFuzzer's coverage instrumentation; the test bed that
# plays the driver and snapshots RAM, and the harness, do not (they are
# not what we fuzz)
rm -rf "$OUT/obj" && mkdir -p "$OUT/obj"
for f in $srcs; do
    clang $cflags -fsanitize=fuzzer-no-link -c "$TOP/$f" \
        -o "$OUT/obj/$(basename "$f" .c).o"
done
clang $cflags -fsanitize=fuzzer-no-link -I"$TOP/hw/display/agx/core/shader" \
    -c "$OUT/gen/agx-isa-tables.c" -o "$OUT/obj/agx-isa-tables.o"
for f in $bed tests/fuzz/fuzz-fw.c; do
    clang $cflags -c "$TOP/$f" -o "$OUT/obj/$(basename "$f" .c).o"
done
clang $lflags "$OUT"/obj/*.o $(pkg-config --libs glib-2.0) -lm \
    -o "$OUT/$bin"

# Seeds, in two corpora fuzzed in turn: "linear" inputs start from a
# booted firmware snapshot and are quick; "sessions" are whole driver
# sessions (boot mode) and are slow but deep
core=$TOP/build/core
[ -e "$core/build.ninja" ] || meson setup "$core" "$TOP" >/dev/null
ninja -C "$core" fuzz-fw >/dev/null
mkdir -p "$OUT/linear" "$OUT/sessions"
"$core/fuzz-fw" --seeds "$OUT/linear"
find "$TOP/tests/fuzz/corpus" -type f -size -4k -exec cp {} "$OUT/linear/" \;
if [ -d "$AGX_CACHE/logs/qtest-corpus" ]; then
    find "$AGX_CACHE/logs/qtest-corpus" -type f -size -${MAX_LEN}c \
        -exec cp {} "$OUT/sessions/" \;
fi

# Shallow malloc stacks and a smaller quarantine: the core allocates
# little, and ASan's bookkeeping would otherwise dominate an input
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=4:quarantine_size_mb=32}
cd "$OUT"
secs=${FUZZ_SECONDS:-60}
for c in linear sessions; do
    [ -n "$(ls -A $c)" ] || continue
    # Linear inputs stay short (a few jobs' worth), sessions are whole
    len=$MAX_LEN
    [ $c = linear ] && len=4096
    ./$bin -max_total_time=$(( (secs + 1) / 2 )) -rss_limit_mb=4096 \
        -max_len=$len -print_final_stats=1 $c > fuzz-$c.log 2>&1 || true
    grep -E '^==[0-9]+==ERROR' -A12 fuzz-$c.log || true
    log "$c: $(sed -n 's/^stat::number_of_executed_units: *//p' fuzz-$c.log)" \
        "inputs at $(sed -n 's/^stat::average_exec_per_sec: *//p' \
                     fuzz-$c.log)/s, corpus $(ls $c | wc -l)"
done
log "crash reproducers in $OUT: $(ls crash-* timeout-* 2>/dev/null | wc -l)"

# Coverage of the core by the whole corpus: the replayer, built with
# clang's source-based coverage (no sanitizers), runs every input once
rm -rf cov && mkdir -p cov
clang $common -O0 -fprofile-instr-generate -fcoverage-mapping \
    $(for f in $srcs; do echo "$TOP/$f"; done) \
    $(for f in $bed tests/fuzz/fuzz-fw.c; do echo "$TOP/$f"; done) \
    -I"$TOP/hw/display/agx/core/shader" "$OUT/gen/agx-isa-tables.c" \
    $(pkg-config --libs glib-2.0) -lm -o cov/fuzz-fw-cov
LLVM_PROFILE_FILE=cov/fuzz.profraw cov/fuzz-fw-cov --no-random linear sessions \
    >/dev/null
llvm-profdata merge -o cov/fuzz.profdata cov/fuzz.profraw
llvm-cov report cov/fuzz-fw-cov -instr-profile=cov/fuzz.profdata \
    -show-region-summary=false \
    $(for f in $srcs; do echo "$TOP/$f"; done) | sed "s|$TOP/||"
