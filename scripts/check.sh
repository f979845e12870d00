#!/bin/bash
# Build everything and run every test suite: unit tests of the standalone
# firmware core, qtests in the QEMU tree, guest boots.  Prints a line per
# build step (its log in $AGX_CACHE/logs), a line per failed test, a
# summary line per suite and a final "N passed, N failed" line; exits
# non-zero if anything failed.
set -uo pipefail
. "$(dirname "$0")/common.sh"

LOGS=$AGX_LOGS
mkdir -p "$LOGS"
start=$EPOCHREALTIME
total_pass=0
total_fail=0
summary=""

record() {                      # suite passed failed
    summary="$summary$1: $2 passed, $3 failed"$'\n'
    echo "== $1: $2 passed, $3 failed"
    total_pass=$((total_pass + $2))
    total_fail=$((total_fail + $3))
}

record_skipped() {              # suite why...
    local suite=$1
    shift
    summary="$summary$suite: skipped"$'\n'
    echo "== $suite: skipped: $*"
}

# meson test, counted by subtest; a build failure counts as one failure.
# Its output goes to $LOGS/test-NAME.log; the failed tests are printed.
meson_suite() {                 # name builddir [meson test args]
    local name=$1 dir=$2 counts logf=$LOGS/test-$1.log
    shift 2
    rm -f "$dir/meson-logs/testlog.json"
    meson test -C "$dir" --no-rebuild --print-errorlogs "$@" >"$logf" 2>&1
    if [ ! -e "$dir/meson-logs/testlog.json" ]; then
        echo "not ok $name: meson test did not run, the end of $logf:"
        tail -n 20 "$logf" | sed 's/^/  | /'
        record "$name" 0 1
        return
    fi
    # The failures, then "passed failed"
    counts=$("$TOP/scripts/meson-count.py" --print-failures "$name" \
                 "$dir/meson-logs/testlog.json")
    if [ "$counts" != "${counts##*$'\n'}" ]; then
        echo "${counts%$'\n'*}"
        echo "  (meson test's output: $logf)"
        counts=${counts##*$'\n'}
    fi
    record "$name" ${counts% *} ${counts#* }
}

# 1. Unit tests of the QEMU-independent core
core=$TOP/build/core
build_core() {
    if [ ! -e "$core/build.ninja" ]; then
        meson setup "$core" "$TOP" >&2 || return
    fi
    ninja -C "$core" >&2
}
if step build-core build_core; then
    meson_suite unit "$core"
else
    record unit 0 1
fi

# A TAP program's own ok / not ok lines, counted; its output goes to
# $LOGS/test-NAME.log, its not ok lines are printed
tap_suite() {                   # name command...
    local name=$1 logf=$LOGS/test-$1.log rc=0
    shift
    "$@" >"$logf" 2>&1 || rc=$?
    grep '^not ok ' "$logf"
    local ok=$(grep -c '^ok ' "$logf")
    local nok=$(grep -c '^not ok ' "$logf")
    if [ "$rc" != 0 ] && [ "$nok" = 0 ]; then
        nok=1
        echo "not ok $name: exit $rc, the end of $logf:"
        tail -n 5 "$logf" | sed 's/^/  | /'
    elif [ "$nok" != 0 ]; then
        echo "  (output: $logf)"
    fi
    record "$name" "$ok" "$nok"
}

# Linux's device tree for the Mac mini (M1), as its build would make it
j274_dtb=$(step build-dtb "$TOP/scripts/build-dtb.sh" t8103-j274) || j274_dtb=""

# 2. qtests; the GPU qtests record their traffic as core fuzzer inputs;
# the machine's qtests fill the j274 tree as m1n1 would
corpus=$LOGS/qtest-corpus
rm -rf "$corpus" && mkdir -p "$corpus"
if qbuild=$(step build-qemu "$TOP/scripts/build-qemu.sh"); then
    names=""
    for t in "$TOP"/tests/qtest/*-test.c; do
        names="$names qtest-aarch64/$(basename "$t" .c)"
    done
    if [ -n "$j274_dtb" ]; then
        export AGX_J274_DTB=$j274_dtb
    fi
    AGX_QTEST_RECORD=$corpus meson_suite qtest "$qbuild" $names
else
    record qtest 0 1
    qbuild=""
fi

# 3. Fuzz replays: the core fed each recorded qtest session must end where
# the device's firmware ended (state, commands completed); then the core
# fuzzer's committed corpus and seeded random inputs
if [ -e "$core/fuzz-fw" ] && [ -n "$(ls -A "$corpus")" ]; then
    tap_suite fuzz-differential "$core/fuzz-fw" --differential "$corpus"
else
    record fuzz-differential 0 1
fi
if [ -e "$core/fuzz-fw" ]; then
    tap_suite fuzz-corpus "$core/fuzz-fw" "$TOP/tests/fuzz/corpus"
else
    record fuzz-corpus 0 1
fi
# The core's libFuzzer targets, built as OSS-Fuzz builds them, each run
# briefly on its seed corpus and dictionary
tap_suite fuzz-oss "$TOP/scripts/fuzz-oss.sh" --smoke
# The device fuzzer's reproducers, replayed as qtest traces on the normal
# build: straight, and with a migration halfway
if [ -n "$qbuild" ]; then
    tap_suite fuzz-device "$TOP/scripts/replay-device-trace.py" \
        --qemu "$qbuild/qemu-system-aarch64" "$TOP/tests/fuzz/device-traces"
else
    record fuzz-device 0 1
fi

# 4. QEMU coding style of our C files (guest code follows the kernel's)
pass=0 fail=0
if [ -n "$qbuild" ]; then
    for f in $(cd "$TOP" && find hw include tests/qtest tests/unit \
                   tests/lib tests/bench tests/fuzz tests/guest/asahi-uapi \
                   tests/guest/uapi-fuzz tests/guest/mesa -name '*.[ch]' |
               sort); do
        # Relative paths: checkpatch applies test rules under tests/.
        # Warnings count too: the files are meant to be clean.
        if out=$(cd "$TOP" && "$AGX_CACHE/qemu-tree/scripts/checkpatch.pl" \
                     --no-tree -f "$f" 2>&1) &&
           ! echo "$out" | grep -q '^WARNING'; then
            pass=$((pass + 1))
        else
            echo "not ok style/$f"
            echo "$out" | grep -E -A3 '^(ERROR|WARNING)'
            fail=$((fail + 1))
        fi
    done
    # Guest kernel code in kernel style, with the guest kernel's checkpatch
    if lsrc=$(step get-linux-src "$TOP/scripts/get-linux-src.sh"); then
        for f in $(cd "$TOP" && ls guest/linux/drivers/gpu/drm/asahi/*.[ch] \
                       2>/dev/null); do
            if out=$(cd "$TOP" && "$lsrc/scripts/checkpatch.pl" --no-tree \
                         -f "$f" 2>&1) &&
               ! echo "$out" | grep -q '^WARNING'; then
                pass=$((pass + 1))
            else
                echo "not ok style/$f"
                echo "$out" | grep -E -A3 '^(ERROR|WARNING)'
                fail=$((fail + 1))
            fi
        done
    else
        fail=$((fail + 1))
    fi
else
    fail=1
fi
record style $pass $fail

# 5. Guest boots on -M apple-m1: name, expectation, kernel args, QEMU args
boot_tests() {
    local rtkit=rtkit-boot,rtkit-syslog,rtkit-echo,rtkit-power,rtkit-irq
    rtkit=$rtkit,rtkit-crash,rtkit-restart
    local hello13="-global apple-asc.x-hello-min=13"
    hello13="$hello13 -global apple-asc.x-hello-max=13"
    local noack="-global apple-asc.x-no-iop-power-ack=on"
    echo "boot-smp8-to-init|pass|agx.steps=kernel-alive|-smp 8"
    # Linux's own RTKit library against the GPU coprocessor, driven by
    # the asahi driver's self-tests (loaded with manual_boot=1)
    echo "rtkit-linux|pass|agx.steps=kernel-alive,$rtkit|-smp 2" \
         "-global apple-asc.echo-endpoint=0x2f"
    # The driver's probe steps (RTKit boot, firmware init) one by one,
    # then its firmware self-tests: work submission, fault recovery
    local gpu=gpu-init,gpu-jobs,gpu-fault,gpu-jobs
    echo "gpu-linux|pass|agx.steps=kernel-alive,rtkit-boot,$gpu|-smp 4"
    # The same under seeded chaos firmware; the name carries the seed
    for seed in 1 2 3; do
        echo "gpu-linux-chaos-seed-$seed|pass|agx.steps=kernel-alive,rtkit-boot,$gpu|-smp 4 -global apple-agx.chaos-seed=$seed"
    done
    # The asahi UAPI suite (tests/guest/asahi-uapi) against the guest
    # DRM driver on both machine variants, 10,000 chained submissions
    # included.  Until the driver is in the tree, the suite must fail,
    # saying "no asahi render node".  uapi_skip names what the driver
    # does not do yet (agx.uapi-skip= path prefixes joined by +); tests
    # under /asahi/strict/ hold it to UAPI rules drm/asahi itself does
    # not enforce.
    local uapi=fail
    # Left out: /asahi/strict/.
    local uapi_skip="/asahi/strict/"
    [ -d "$TOP/guest/linux/drivers/gpu/drm/asahi" ] && uapi=pass
    uapi="$uapi|agx.steps=kernel-alive,asahi-uapi agx.uapi-skip=$uapi_skip"
    echo "asahi-uapi|$uapi agx.uapi-stress=10000|-smp 4"
    echo "t8103-asahi-uapi|$uapi console=ttySAC0|-M soc=t8103 -smp 4"
    # Firmware 12.3: the same driver with the older ABI's layouts
    local fw12="-M gpu-firmware=12.3"
    echo "fw12-asahi-uapi|$uapi|$fw12 -smp 4"
    echo "t8103-fw12-asahi-uapi|$uapi console=ttySAC0|-M soc=t8103 $fw12 -smp 4"
    # The driver's recovery from what the host injects (asahi-uapi asks
    # the harness): GPU fault, firmware timeout, channel error, crash
    echo "fw12-asahi-uapi-recovery|pass|agx.steps=kernel-alive,asahi-uapi" \
         "agx.uapi=/asahi/host/|$fw12 -smp 4"
    echo "asahi-uapi-recovery|pass|agx.steps=kernel-alive,asahi-uapi" \
         "agx.uapi=/asahi/host/|-smp 4"
    echo "t8103-asahi-uapi-recovery|pass|agx.steps=kernel-alive,asahi-uapi" \
         "agx.uapi=/asahi/host/ console=ttySAC0|-M soc=t8103 -smp 4"
    # The same kernel on t8103's AIC (timers and fast IPIs on FIQ), S5L
    # UART and PMGR; the last console= names /dev/console
    local t8103="console=ttySAC0"
    echo "t8103-smp8-to-init|pass|agx.steps=kernel-alive $t8103|-M soc=t8103 -smp 8"
    echo "t8103-rtkit-linux|pass|agx.steps=kernel-alive,$rtkit $t8103|" \
         "-M soc=t8103 -smp 2 -global apple-asc.echo-endpoint=0x2f"
    echo "t8103-gpu-linux|pass|agx.steps=kernel-alive,rtkit-boot,$gpu $t8103|" \
         "-M soc=t8103 -smp 4"
    # Booted at EL2, as on a Mac: EL2's timers on FIQ, VM_TMR_FIQ_ENA
    echo "t8103-el2-gpu-linux|pass|agx.steps=kernel-alive,rtkit-boot,$gpu" \
         "$t8103|-M soc=t8103,el2=on -smp 8"
    # Linux's own t8103-j274 tree, unchanged, filled by the machine as
    # m1n1 fills it: its 8 CPUs start by spin-table, the driver probes the
    # upstream gpu node
    echo "t8103-upstream-j274-dtb|pass|agx.steps=kernel-alive,rtkit-boot,$gpu" \
         "$t8103|-M soc=t8103 -smp 8 -dtb $j274_dtb"
    # An AIC that is only "apple,aic": Linux's IPIs go through AIC MMIO
    echo "t8103-mmio-ipi-gpu-linux|pass|agx.steps=kernel-alive,rtkit-boot,$gpu" \
         "$t8103|-M soc=t8103 -smp 8 -dtb $mmio_ipi_dtb"
    # The asahi DRM driver: probe (firmware boot), chained submissions,
    # teardown with jobs in flight, the firmware self-tests and fault
    # recovery after a full probe; no kernel splat on the way (its ioctls
    # one by one are the UAPI suite's, below)
    local drm=kernel-alive,drm-probe,drm-submit,drm-teardown,gpu-jobs
    drm=$drm,gpu-fault,no-splat
    echo "drm-asahi|pass|agx.steps=$drm|-smp 4"
    echo "t8103-drm-asahi|pass|agx.steps=$drm console=ttySAC0|-M soc=t8103 -smp 4"
    # Under seeded chaos firmware (without the self-tests' timing checks)
    local chaos=kernel-alive,drm-probe,drm-submit,drm-teardown,no-splat
    chaos="$chaos agx.submits=500"
    for seed in 1 2 3; do
        echo "drm-asahi-chaos-seed-$seed|pass|agx.steps=$chaos|-smp 4 -global apple-agx.chaos-seed=$seed"
    done
    # On firmware 12.3: the self-tests' records are the driver's, per ABI
    drm=kernel-alive,drm-probe,drm-submit,drm-teardown,gpu-jobs,gpu-fault
    drm=$drm,no-splat
    echo "fw12-drm-asahi|pass|agx.steps=$drm|-M gpu-firmware=12.3 -smp 4"
    # Firmware faults that Linux must refuse: the boot step fails, for
    # the reason after "fail:" (a kernel line: RTKit refuses the version;
    # the wait for the IOP's power state ends in ETIME)
    local why="fail:RTKit: Firmware min version 13 is too new"
    echo "rtkit-bad-hello|$why|agx.steps=rtkit-boot|$hello13"
    why="fail:rtkit: boot: error -62"
    echo "rtkit-no-power-ack|$why|agx.steps=rtkit-boot|$noack"
}
# Boots each "name|expect|append|qemu args" line of stdin with
# boot-test.py and counts the verdicts in pass and fail.  $1 names the
# suite in the ok lines; the other arguments go to boot-test.py before
# "--" (the kernel, the initramfs or disk, a timeout).  expect is pass,
# fail, or fail:LINE (fails, printing LINE).  boot_hook gives extra QEMU
# arguments for a boot ($1 name) and, called again after it with
# $2 = check and $3 = append, may fail it; the first one does nothing.
run_boots() {
    local suite=$1 name expect append qargs flags
    shift
    while IFS='|' read -r name expect append qargs; do
        flags=()
        case $expect in
        fail) flags=(--expect-fail) ;;
        fail:*) flags=(--expect-fail --expect-line "${expect#fail:}") ;;
        esac
        if "$TOP/scripts/boot-test.py" "${flags[@]}" "$@" \
               --log "$LOGS/$name.log" --qemu "$qbuild/qemu-system-aarch64" \
               --append "$append" -- $qargs $(boot_hook "$name") &&
           boot_hook "$name" check "$append" >/dev/null; then
            echo "ok $suite/$name ($(tail -1 "$LOGS/$name.log"))"
            pass=$((pass + 1))
        else
            echo "not ok $suite/$name, the end of $LOGS/$name.log:"
            tail -n 20 "$LOGS/$name.log" | sed 's/^/  | /'
            fail=$((fail + 1))
        fi
    done
}
boot_hook() {
    :
}

# The soc=t8103 tree with the AIC's compatible cut to "apple,aic", for
# the same -m and -smp as the boot test that uses it
mmio_ipi_dtb=$LOGS/t8103-mmio-ipi.dtb
make_mmio_ipi_dtb() {
    "$qbuild/qemu-system-aarch64" -display none -nodefaults -m 2G -smp 8 \
        -M "apple-m1,soc=t8103,dumpdtb=$mmio_ipi_dtb" >&2 &&
    fdtput -t s "$mmio_ipi_dtb" /soc/interrupt-controller@23b100000 \
        compatible apple,aic
}
pass=0 fail=0
if [ -n "$qbuild" ] && step mmio-ipi-dtb make_mmio_ipi_dtb &&
   [ -n "$j274_dtb" ] &&
   guest=$(step build-guest "$TOP/scripts/build-guest.sh"); then
    run_boots boot --kernel "$(echo "$guest" | sed -n 1p)" \
        --initrd "$(echo "$guest" | sed -n 2p)" < <(boot_tests)
else
    fail=1
fi
record boot $pass $fail

# 6. The DRM driver's suites again on the debug kernel (KASAN, lockdep,
# kmemleak: tests/guest/kernel-debug.config); any splat fails
boot_debug_tests() {
    local drm=kernel-alive,drm-probe,drm-submit,drm-teardown,gpu-jobs
    drm=$drm,gpu-fault,no-splat
    echo "debug-drm-asahi|pass|agx.steps=$drm agx.submits=500|-smp 4"
    # The driver's boot taken step by step (manual_boot=1): RTKit power
    # states, crash and restart, then firmware init and its self-tests
    local gpu=kernel-alive,rtkit-boot,rtkit-syslog,rtkit-echo,rtkit-power
    gpu=$gpu,rtkit-irq,rtkit-crash,rtkit-restart,gpu-init,gpu-jobs
    gpu=$gpu,gpu-fault,gpu-jobs,no-splat
    echo "debug-gpu-linux|pass|agx.steps=$gpu|-smp 4" \
         "-global apple-asc.echo-endpoint=0x2f"
    echo "debug-asahi-uapi|pass|agx.steps=kernel-alive,asahi-uapi" \
         "agx.uapi-skip=$uapi_skip|-smp 4"
    echo "debug-asahi-uapi-recovery|pass|agx.steps=kernel-alive,asahi-uapi" \
         "agx.uapi=/asahi/host/|-smp 4"
    # The UAPI fuzzer's committed corpus and reproducers
    # (tests/fuzz/uapi-corpus), each program replayed once; a splat, a
    # hang or a leak fails it
    echo "debug-uapi-fuzz-replay|pass|agx.steps=kernel-alive,fuzz" \
         "agx.fuzz-replay=1 agx.fuzz-panic=1|-smp 4"
}
pass=0 fail=0
uapi_skip=$(boot_tests |
            sed -n 's/^asahi-uapi|.*agx.uapi-skip=\([^| ]*\).*/\1/p')
if [ -n "$qbuild" ] &&
   dguest=$(AGX_KDEBUG=1 step build-guest-debug "$TOP/scripts/build-guest.sh"); then
    run_boots boot-debug --timeout 900 \
        --kernel "$(echo "$dguest" | sed -n 1p)" \
        --initrd "$(echo "$dguest" | sed -n 2p)" < <(boot_debug_tests)
else
    fail=1
fi
record boot-debug $pass $fail

# 7. The Mesa guest (scripts/build-mesa-guest.sh): Debian's Mesa, its asahi
# Vulkan and GL drivers, on our kernel and driver, from an ext4 disk.  The
# firmware model's trace must show the vertex (pipe 0), fragment (1) and
# compute (2) work Mesa submitted.  AGX_MESA=0 skips it.
# vk-ops (tests/guest/mesa/vk-ops.c) checks transfers, events, queries and
# compute shaders against CPU references, one TAP line each; the boot
# passes when the checks named here pass (scripts/tap-check.py), the
# others are counted.  Compute shaders run on the model (the compute data
# master and the interpreter, with the imageblocks of Honeykrisp's copies
# into images): every check passes but cs/float64 (skipped: no
# shaderFloat64).
VK_OPS_EXPECT=${VK_OPS_EXPECT:-fill-buffer/whole,fill-buffer/range,\
fill-buffer/offset-whole-size,update-buffer,copy-buffer,clear-color-image,\
copy-buffer-to-image,copy-image-to-image,render-pass-clear,\
render-pass-clear/compressed,\
event/set,event/reset,timestamp-query,query-reset,copy-query-results,\
cs/global-id,cs/push-constants,cs/shared-reduction,cs/atomics-global,\
cs/atomics-shared,cs/subgroup-add,cs/subgroup-ballot,cs/subgroup-shuffle,\
cs/int16,cs/int64,cs/float16,cs/control-flow,cs/image-store-load,\
cs/image-store-copy,cs/sample,cs/sample-bc1,cs/sample-bc1-srgb,cs/sample-bc2,\
cs/sample-bc3,cs/sample-bc4,cs/sample-bc4-snorm,cs/sample-bc5,\
cs/sample-bc5-snorm,cs/sample-bc6h,cs/sample-bc7,cs/sample-etc2,cs/sample-eac,\
cs/sample-astc4x4,cs/sample-astc6x6,cs/sample-astc4x4-hdr,cs/sample-bc1-mips,\
cs/sample-aniso}
# gles-scene's checks that must pass on the GPU (tests/guest/mesa/
# gles-scene.c; on llvmpipe all must): all of them, the comparison with
# llvmpipe's image, discard-keeps-depth, frag-depth, polygon-offset,
# stencil-separate and the msaa-* checks (4x and 2x renderbuffers
# resolved by glBlitFramebuffer, alpha-to-coverage, a depth resolve by
# glBlitFramebuffer) and subpixel-snap included
GLES_SCENE_EXPECT=${GLES_SCENE_EXPECT:-all}
# gles-draw's checks (GLES clears and draws against a CPU reference) that
# must pass: all of them (clears, flat and interpolated triangles, an
# indexed strip, back-face culling, a fan, a restarted strip, an
# instanced draw, points)
GLES_DRAW_EXPECT=${GLES_DRAW_EXPECT:-all}
# gles-fbo (tests/guest/mesa/gles-fbo.c) checks the pixels it reads back,
# one TAP line each; the checks named here must pass: a full clear, a
# scissored one and a draw (background and end-of-tile programs, the
# scene's primitives rasterized and shaded)
GLES_FBO_EXPECT=${GLES_FBO_EXPECT:-clear,scissored-clear,draw}
# vk-draw's checks (a Vulkan render pass) that must pass on Honeykrisp
# (on lavapipe all must): all of them, the comparison with lavapipe's
# image, depth-bias, stencil-test, stencil-export, layered-render,
# multiview and the msaa-* checks (a 4x attachment resolved by the render
# pass, its occlusion query, custom sample locations, the comparison with
# lavapipe's, depth/stencil resolve modes, alpha-to-coverage) and
# subpixel-snap included
VK_DRAW_EXPECT=${VK_DRAW_EXPECT:-all}
# gl-compute (tests/guest/mesa/gl-compute.c) checks GLES 3.1 compute
# shaders through the asahi Gallium driver the same way: all must pass
GL_COMPUTE_EXPECT=${GL_COMPUTE_EXPECT:-all}
mesa_tests() {
    local all=modules,vulkaninfo,eglinfo,vk-compute,vk-ops,gles-fbo,gles-grow
    all=$all,gles-draw,gles-scene-software,gles-scene,vk-draw-lavapipe
    all=$all,vk-draw,gl-compute,no-splat
    # vk-ops on lavapipe and gl-compute on llvmpipe, Mesa's CPU drivers,
    # in the same guest: every check must pass there, which checks the
    # checks
    echo "mesa|pass|agx.steps=$all,vk-ops-lavapipe,gl-compute-llvmpipe|-smp 4"
    echo "t8103-mesa|pass|agx.steps=$all console=ttySAC0|-M soc=t8103 -smp 4"
    # A GPU fault injected under Vulkan: the fence carries -EIO, the
    # queue's next SUBMIT is refused (the driver's lost_on_fault=1), a
    # second process keeps working
    echo "mesa-vk-fault|pass|agx.steps=modules,vk-compute,vk-fault,no-splat|-smp 4"
}
mesa_debug_tests() {
    local all=modules,vulkaninfo,eglinfo,vk-compute,vk-ops,gles-fbo,gles-grow
    all=$all,gl-compute
    echo "debug-mesa|pass|agx.steps=$all,vk-fault,no-splat|-smp 4"
}
# Each Mesa boot traces agx_job_start; the GLES ones must show all three.
# The vk-ops and gles-scene steps' checks named in VK_OPS_EXPECT and
# GLES_SCENE_EXPECT must pass (their summaries go to the end of the
# boot's log, which the ok line shows).
boot_hook() {
    local trace=$LOGS/$1.trace pipe
    if [ "${2:-}" != check ]; then
        rm -f "$trace"
        echo "-trace agx_job_start -D $trace"
        return
    fi
    if [[ "$3" == *gles-fbo* ]]; then
        for pipe in 0 1 2; do
            grep -q "agx_job_start pipe $pipe " "$trace" || return 1
        done
    fi
    if [[ " $3 " =~ [=,]gles-draw[,\ ] ]]; then
        "$TOP/scripts/tap-check.py" "$LOGS/$1.log" gles-draw \
            "$GLES_DRAW_EXPECT" >> "$LOGS/$1.log" || return 1
    fi
    if [[ " $3 " =~ [=,]gles-fbo[,\ ] ]]; then
        "$TOP/scripts/tap-check.py" "$LOGS/$1.log" gles-fbo \
            "$GLES_FBO_EXPECT" >> "$LOGS/$1.log" || return 1
    fi
    if [[ " $3 " =~ [=,]vk-ops[,\ ] ]]; then
        "$TOP/scripts/tap-check.py" "$LOGS/$1.log" vk-ops "$VK_OPS_EXPECT" \
            >> "$LOGS/$1.log" || return 1
    fi
    if [[ " $3 " =~ [=,]vk-draw[,\ ] ]]; then
        "$TOP/scripts/tap-check.py" "$LOGS/$1.log" vk-draw \
            "$VK_DRAW_EXPECT" >> "$LOGS/$1.log" || return 1
    fi
    if [[ " $3 " =~ [=,]gles-scene[,\ ] ]]; then
        "$TOP/scripts/tap-check.py" "$LOGS/$1.log" gles-scene \
            "$GLES_SCENE_EXPECT" >> "$LOGS/$1.log" || return 1
    fi
    if [[ " $3 " =~ [=,]gl-compute[,\ ] ]]; then
        "$TOP/scripts/tap-check.py" "$LOGS/$1.log" gl-compute \
            "$GL_COMPUTE_EXPECT" >> "$LOGS/$1.log" || return 1
    fi
    if [[ " $3 " =~ [=,]gl-compute-llvmpipe[,\ ] ]]; then
        "$TOP/scripts/tap-check.py" "$LOGS/$1.log" gl-compute-llvmpipe all \
            >> "$LOGS/$1.log" || return 1
    fi
}
if [ "${AGX_MESA:-1}" = 1 ]; then
    pass=0 fail=0
    if [ -n "$qbuild" ] &&
       mguest=$(step build-mesa-guest "$TOP/scripts/build-mesa-guest.sh" ext4); then
        run_boots mesa --timeout 600 \
            --kernel "$(echo "$mguest" | sed -n 1p)" \
            --disk "$(echo "$mguest" | sed -n 2p)" < <(mesa_tests)
    else
        fail=$((fail + 1))
    fi
    # Every step once more on the debug kernel (KASAN, lockdep, kmemleak)
    if [ -n "$qbuild" ] &&
       mguest=$(AGX_KDEBUG=1 step build-mesa-guest-debug \
                    "$TOP/scripts/build-mesa-guest.sh" ext4); then
        run_boots mesa --timeout 900 \
            --kernel "$(echo "$mguest" | sed -n 1p)" \
            --disk "$(echo "$mguest" | sed -n 2p)" < <(mesa_debug_tests)
    else
        fail=$((fail + 1))
    fi
    record mesa $pass $fail
fi

# 8. IGT's driver-independent tests (scripts/build-igt.sh: Debian's
# intel-gpu-tools source built for arm64) in the Mesa guest: core_*,
# syncobj_*, sw_sync, core_hotunplug (the driver unbound and rebound with
# clients open).  On the normal kernel: the debug kernel under emulation
# misses the syncobj tests' deadlines (100 and 200 ms).  Counted per
# subtest (scripts/tap-check.py --count); the failures and skips named
# in IGT_KNOWN have a reason in docs/devel/agx-guest-stack.rst, any
# other fails.  IGT_SKIP: subtests not run (agx.igt-skip).  When Debian's
# source package cannot be downloaded the suite says so and is skipped;
# AGX_IGT=0 skips it.
IGT_KNOWN=${IGT_KNOWN:-core_sysfs,core_debugfs,\
sw_sync/sync_busy_fork_unixsocket,sw_sync/sync_multi_consumer,\
sw_sync/sync_multi_consumer_producer,\
sw_sync/sync_multi_producer_single_consumer,\
core_hotunplug/unplug-rescan,core_hotunplug/hotunplug-rescan,\
core_hotunplug/hotreplug,core_hotunplug/hotreplug-lateclose,\
syncobj_*/*-snapshot,syncobj_*/*-delayed-s*,\
syncobj_*/reset-during-wait-for-submit}
IGT_SKIP=${IGT_SKIP:-sw_sync/sync_multi_consumer*,sw_sync/sync_multi_producer*}
igt_suite() {
    local rc=0 log=$LOGS/igt.log counts
    step build-igt "$TOP/scripts/build-igt.sh" >/dev/null || rc=$?
    if [ $rc = 77 ]; then
        record_skipped igt "Debian's intel-gpu-tools source package cannot" \
            "be downloaded (IGT_SRC=<unpacked tree> builds one)"
        return
    fi
    if [ $rc != 0 ] || [ -z "$qbuild" ] ||
       ! mguest=$(step build-mesa-guest "$TOP/scripts/build-mesa-guest.sh" ext4)
    then
        record igt 0 1
        return
    fi
    pass=0 fail=0
    if ! "$TOP/scripts/boot-test.py" --timeout 1200 --log "$log" \
           --qemu "$qbuild/qemu-system-aarch64" \
           --kernel "$(echo "$mguest" | sed -n 1p)" \
           --disk "$(echo "$mguest" | sed -n 2p)" \
           --append "agx.steps=modules,igt,no-splat agx.igt-skip=$IGT_SKIP" \
           -- -smp 4; then
        echo "not ok igt/igt (the boot), the end of $log:"
        tail -n 20 "$log" | sed 's/^/  | /'
        fail=1
    fi
    counts=$("$TOP/scripts/tap-check.py" --count "$log" igt "$IGT_KNOWN")
    if [ "$counts" != "${counts##*$'\n'}" ]; then
        echo "${counts%$'\n'*}"
        echo "  (the guest's console: $log)"
        counts=${counts##*$'\n'}
    fi
    record igt $((pass + ${counts% *})) $((fail + ${counts#* }))
}
if [ "${AGX_IGT:-1}" = 1 ]; then
    igt_suite
fi

echo
printf '%s' "$summary"
echo "agx: make check took $(seconds_since "$start") s; logs in $LOGS"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
