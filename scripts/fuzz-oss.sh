#!/bin/bash
# Build the core's libFuzzer targets with tests/fuzz/oss-fuzz/build.sh as
# OSS-Fuzz would (clang, ASan + UBSan, libFuzzer) into
# $AGX_CACHE/oss-fuzz/out, then run each target on its zipped seed corpus
# with its dictionary: for FUZZ_SECONDS (default 60) each, or with
# --smoke for a bounded number of runs, printing one TAP line per target
# (make check's fuzz-oss suite).
set -euo pipefail
. "$(dirname "$0")/common.sh"

find_clang_fuzzer
export PATH=$LLVM_BIN:$PATH
D=$AGX_CACHE/oss-fuzz
export OUT=$D/out WORK=$D/work
export CC=clang
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only
    -fsanitize=address,undefined -fno-sanitize-recover=all
    -fsanitize=fuzzer-no-link"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
mkdir -p "$D"
if ! "$TOP/tests/fuzz/oss-fuzz/build.sh" > "$D/build.log" 2>&1; then
    tail -20 "$D/build.log"
    echo "not ok 1 - OSS-Fuzz build (log: $D/build.log)"
    exit 1
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=4:quarantine_size_mb=32}
n=0
targets=$(cd "$OUT" && ls *_seed_corpus.zip | sed 's/_seed_corpus\.zip$//')
echo "1..$(echo "$targets" | wc -w)"
for t in $targets; do
    n=$((n + 1))
    corpus=$D/corpus/$t
    rm -rf "$corpus" && mkdir -p "$corpus"
    python3 -m zipfile -e "$OUT/${t}_seed_corpus.zip" "$corpus"
    if [ "${1:-}" = --smoke ]; then
        limit="-runs=2000"
    else
        limit="-max_total_time=${FUZZ_SECONDS:-60}"
    fi
    if (cd "$D" && "$OUT/$t" $limit -dict="$OUT/$t.dict" -max_len=65536 \
            -print_final_stats=1 "$corpus" > "$D/$t.log" 2>&1); then
        echo "ok $n - $t: $(sed -n 's/^stat::number_of_executed_units: *//p' \
            "$D/$t.log") inputs," \
            "$(sed -n 's/^stat::average_exec_per_sec: *//p' "$D/$t.log")/s"
    else
        grep -E '^==[0-9]+==ERROR' -A12 "$D/$t.log" || tail -20 "$D/$t.log"
        echo "not ok $n - $t (log: $D/$t.log; reproducers in $D)"
    fi
done
