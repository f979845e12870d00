#!/bin/bash
# make fuzz-driver: fuzz the guest's asahi driver through its UAPI with
# tests/guest/uapi-fuzz on the debug kernel (KASAN, lockdep, kmemleak,
# KCOV; panic_on_warn) for FUZZ_SECONDS (default 60), then print the
# programs/s, the driver's line coverage and what was found.
#   FUZZ_SEED=S      the fuzzer's random seed (default: from the clock)
#   FUZZ_CHAOS=N     shake the firmware side too: -global apple-agx.chaos-seed=N
#   REPRO=file.prog  replay one program (a reproducer) instead, verbosely
#   FUZZ_STOP=1      stop at the first finding (else a new boot goes on)
#   QEMU_ARGS=...    more QEMU arguments
# Programs kept for new coverage go to $AGX_CACHE/fuzz-driver/corpus (the
# next run starts from them), reproducers to $AGX_CACHE/fuzz-driver/repro;
# copy those worth keeping to tests/fuzz/uapi-corpus, which make check
# replays.
set -euo pipefail
. "$(dirname "$0")/common.sh"

OUT=$AGX_CACHE/fuzz-driver
mkdir -p "$OUT/corpus" "$OUT/repro"
qemu=$("$TOP/scripts/build-qemu.sh")/qemu-system-aarch64
{ read -r image; read -r initrd; } < <(AGX_KDEBUG=1 "$TOP/scripts/build-guest.sh")
ko=$AGX_CACHE/linux-build-debug/drivers/gpu/drm/asahi/asahi.ko

chaos=()
[ -n "${FUZZ_CHAOS:-}" ] && chaos=(-global "apple-agx.chaos-seed=$FUZZ_CHAOS")

# One boot: a second archive after the initramfs (Linux unpacks both)
# holds the saved corpus as /fuzz/saved, or the program to replay as
# /fuzz/repro
boot() {                        # kernel args, timeout
    "$AGX_CACHE/initramfs/gen_init_cpio" -t 0 "$OUT/extra.list" |
        gzip -1n > "$OUT/extra.cpio.gz"
    cat "$initrd" "$OUT/extra.cpio.gz" > "$OUT/initrd.cpio.gz"
    "$TOP/scripts/fuzz-driver.py" --qemu "$qemu" --kernel "$image" \
        --initrd "$OUT/initrd.cpio.gz" --out "$OUT" --ko "$ko" \
        --timeout "$2" --append "agx.steps=kernel-alive,fuzz $1" -- \
        -smp 2 "${chaos[@]}" ${QEMU_ARGS:-}
}

if [ -n "${REPRO:-}" ]; then
    [ -f "$REPRO" ] || { log "REPRO=$REPRO: no such file"; exit 1; }
    name=$(basename "$REPRO")
    printf 'dir /fuzz 0755 0 0\ndir /fuzz/repro 0755 0 0\nfile /fuzz/repro/%s %s 0644 0 0\n' \
        "$name" "$(realpath "$REPRO")" > "$OUT/extra.list"
    boot "agx.fuzz-replay=/fuzz/repro/$name" 900
    exit
fi

# Fuzzing: a crash ends a boot; the next boot goes on from the corpus
# saved so far until FUZZ_SECONDS are spent (FUZZ_STOP=1: stop at the
# first crash)
secs=${FUZZ_SECONDS:-60}
end=$(($(date +%s) + secs))
boots=0 found=0
while :; do
    left=$((end - $(date +%s)))
    [ "$boots" = 0 ] || [ "$left" -ge 60 ] || break
    [ "$left" -ge 10 ] || left=10
    {
        echo "dir /fuzz 0755 0 0"
        echo "dir /fuzz/saved 0755 0 0"
        for f in "$OUT"/corpus/*.prog; do
            [ -e "$f" ] && echo "file /fuzz/saved/$(basename "$f") $f 0644 0 0"
        done
    } > "$OUT/extra.list"
    append="agx.fuzz-seconds=$left agx.fuzz-log=1 agx.fuzz-panic=1"
    [ -n "${FUZZ_SEED:-}" ] && append="$append agx.fuzz-seed=$((FUZZ_SEED + boots))"
    boots=$((boots + 1))
    # the boot, the saved corpus's first run, kmemleak's last scan
    if boot "$append" $((left + 900)); then
        break
    fi
    found=$((found + 1))
    [ "${FUZZ_STOP:-0}" = 1 ] && break
done
log "$boots boot(s), $found ended by a finding; reproducers in $OUT/repro"
[ "$found" = 0 ]
