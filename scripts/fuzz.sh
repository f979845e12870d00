#!/bin/bash
# Fuzz the firmware core with libFuzzer (clang), ASan and UBSan for
# FUZZ_SECONDS (default 60).  The corpus and any crash reproducers are kept
# in $AGX_CACHE/fuzz; replay one with: build/core/fuzz-fw <file>.
set -euo pipefail
. "$(dirname "$0")/common.sh"

find_clang_fuzzer
export PATH=$LLVM_BIN:$PATH

OUT=$AGX_CACHE/fuzz
mkdir -p "$OUT/corpus"
srcs=$(sed -n "s|^ *'\.\./\([a-z0-9-]*\.c\)',|hw/display/agx/\1|p" \
           "$TOP/hw/display/agx/core/meson.build")
cflags="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
        -DAGX_LIBFUZZER -DFAKE_MAPPED=(4*1024*1024) -I$TOP/include
        $(pkg-config --cflags glib-2.0)"
# The core gets libFuzzer's coverage instrumentation; the test bed that
# plays the driver and snapshots RAM does not (it is not what we fuzz)
rm -rf "$OUT/obj" && mkdir -p "$OUT/obj"
for f in $srcs; do
    clang $cflags -fsanitize=fuzzer-no-link -c "$TOP/$f" \
        -o "$OUT/obj/$(basename "$f" .c).o"
done
for f in tests/unit/agx-fake.c tests/qtest/agx/agx-cmd.c; do
    clang $cflags -c "$TOP/$f" -o "$OUT/obj/$(basename "$f" .c).o"
done
clang $cflags -fsanitize=fuzzer-no-link -c "$TOP/tests/fuzz/fuzz-fw.c" \
    -o "$OUT/obj/fuzz-fw.o"
clang -fsanitize=fuzzer,address,undefined "$OUT"/obj/*.o \
    $(pkg-config --libs glib-2.0) -o "$OUT/fuzz-fw"
# Seeds: real jobs' microsequences and an RTKit boot, from the replayer
if [ -z "$(ls -A "$OUT/corpus")" ]; then
    core=$TOP/build/core
    [ -e "$core/build.ninja" ] || meson setup "$core" "$TOP" >/dev/null
    ninja -C "$core" fuzz-fw >/dev/null
    "$core/fuzz-fw" --seeds "$OUT/corpus"
fi
cd "$OUT"
./fuzz-fw -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=4096 \
    -max_len=4096 corpus
