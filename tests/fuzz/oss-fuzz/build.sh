#!/bin/bash -eu
# Build the libFuzzer targets of the QEMU-free AGX libraries the way
# OSS-Fuzz and ClusterFuzz build a project: with the engine's $CC, $CFLAGS
# and $LIB_FUZZING_ENGINE, each target in $OUT with its seed corpus
# ($OUT/<target>_seed_corpus.zip) and dictionary ($OUT/<target>.dict)
# beside it.  An OSS-Fuzz project's Dockerfile clones this repository
# into $SRC and installs libglib2.0-dev, meson, ninja-build and python3;
# its build.sh runs this file.  Here, scripts/fuzz-oss.sh runs it with
# libFuzzer, and `make check` smoke-runs the result.
#
# Targets:
#   agx-fw-fuzzer  the firmware core (RTKit, InitData, channels, work
#                  queues, microsequences, faults) fed driver sessions
#                  (tests/fuzz/fuzz-fw.c, input format
#                  tests/lib/agx/agx-fuzz-ops.h)
#   agx-usc-fuzzer the USC shader interpreter fed launches and their code
#                  (tests/fuzz/fuzz-usc.c, input format at its top)
#
# Variables: CC, CFLAGS, LIB_FUZZING_ENGINE, OUT (required), WORK
# (scratch, default $OUT/work).

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CC=${CC:-clang}
CFLAGS=${CFLAGS:-}
LIB_FUZZING_ENGINE=${LIB_FUZZING_ENGINE:--fsanitize=fuzzer}
: "${OUT:?OUT must name the output directory}"
WORK=${WORK:-$OUT/work}
mkdir -p "$OUT" "$WORK"

# 1. The libraries, instrumented: meson builds them from their one source
# lists (generated headers included) with the engine's compiler and flags.
# The seed writer is built in the same tree without LIB_FUZZING_ENGINE.
# A build directory belongs to one source tree and one set of flags:
# another checkout (or other flags) sets it up anew.
fresh_build_dir() {             # dir what...
    local dir=$1 want
    shift
    want="$TOP $*"
    if [ "$(cat "$dir/.agx-for" 2>/dev/null)" != "$want" ]; then
        rm -rf "$dir"
        return 1
    fi
}
lib=$WORK/build
if ! fresh_build_dir "$lib" "$CC" "$CFLAGS"; then
    CC="$CC" CFLAGS="$CFLAGS" meson setup "$lib" "$TOP" \
        --buildtype=plain -Dwerror=false -Db_lundef=false >/dev/null
    echo "$TOP $CC $CFLAGS" > "$lib/.agx-for"
fi
libs=$(ninja -C "$lib" -t targets all | sed -n 's|^\(hw/[^:]*/lib[^/:]*\.a\):.*|\1|p')
# shellcheck disable=SC2086
ninja -C "$lib" $libs >/dev/null
archives=$(for a in $libs; do echo "$lib/$a"; done)
gen=$(dirname "$(find "$lib" -name agx-structs.h | head -1)")

# 2. Each target: its harness and the test bed that plays the driver,
# linked with the engine.  -DAGX_LIBFUZZER leaves out the replayer's main.
glib_cflags=$(pkg-config --cflags glib-2.0)
glib_libs=$(pkg-config --libs glib-2.0)
build_target() {                # name harness.c [more.c...]
    local name=$1 objs="" src
    shift
    mkdir -p "$WORK/$name"
    for src in "$@"; do
        # shellcheck disable=SC2086
        $CC $CFLAGS -DAGX_LIBFUZZER '-DFAKE_MAPPED=(4*1024*1024)' \
            -I"$TOP/include" -I"$TOP/tests/lib/agx" -I"$gen" $glib_cflags \
            -c "$TOP/$src" -o "$WORK/$name/$(basename "$src" .c).o"
        objs="$objs $WORK/$name/$(basename "$src" .c).o"
    done
    # shellcheck disable=SC2086
    $CC $CFLAGS $objs -Wl,--start-group $archives -Wl,--end-group \
        $LIB_FUZZING_ENGINE $glib_libs \
        -o "$OUT/$name"
}
build_target agx-fw-fuzzer tests/fuzz/fuzz-fw.c tests/lib/agx/agx-fake.c \
    tests/lib/agx/agx-cmd.c
build_target agx-usc-fuzzer tests/fuzz/fuzz-usc.c

# 3. Seeds and dictionaries.  The firmware's seeds: the committed corpus
# and the test bed's own (a booted firmware's jobs on each pipe and ABI,
# Barriers, a fault, an RTKit boot), written by the uninstrumented
# replayer of the standalone build.
seeds=$WORK/seeds/agx-fw-fuzzer
rm -rf "$seeds" && mkdir -p "$seeds"
plain=$WORK/plain
if ! fresh_build_dir "$plain" cc; then
    CC=cc CFLAGS= meson setup "$plain" "$TOP" >/dev/null
    echo "$TOP cc" > "$plain/.agx-for"
fi
ninja -C "$plain" fuzz-fw >/dev/null
"$plain/fuzz-fw" --seeds "$seeds"
cp "$TOP"/tests/fuzz/corpus/* "$seeds/"
rm -f "$OUT/agx-fw-fuzzer_seed_corpus.zip"
(cd "$seeds" && python3 -m zipfile -c "$OUT/agx-fw-fuzzer_seed_corpus.zip" ./*)
cp "$TOP/tests/fuzz/oss-fuzz/agx-fw.dict" "$OUT/agx-fw-fuzzer.dict"

# The shader interpreter's seeds: Mesa's fill shader and a loop with a
# branch, a load and an atomic, written by the plain replayer
seeds=$WORK/seeds/agx-usc-fuzzer
rm -rf "$seeds" && mkdir -p "$seeds"
ninja -C "$plain" fuzz-usc >/dev/null
"$plain/fuzz-usc" --seeds "$seeds"
rm -f "$OUT/agx-usc-fuzzer_seed_corpus.zip"
(cd "$seeds" && python3 -m zipfile -c "$OUT/agx-usc-fuzzer_seed_corpus.zip" ./*)
cp "$TOP/tests/fuzz/oss-fuzz/agx-usc.dict" "$OUT/agx-usc-fuzzer.dict"
