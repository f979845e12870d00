#!/bin/busybox sh
# The Mesa guest's init (scripts/build-mesa-guest.sh puts it at /init.sh):
# loads our asahi DRM driver, then runs the steps named by agx.steps= on
# the kernel command line (default: all), each with a line
# "AGX-MESA: <step> ..." and, when one fails, "AGX-TEST: FAIL <step>";
# ends with "AGX-TEST: PASS" and powers off.  scripts/boot-test.py judges
# the markers.  agx.strace=1 runs the GPU programs under strace, showing
# every ioctl Mesa makes on the render node; agx.asahi-trace=1 (or
# =summary) preloads /usr/local/lib/asahi-trace.so into them, which
# decodes Mesa's asahi ioctls and submissions.
/bin/busybox mkdir -p /run
/bin/busybox mount -t tmpfs run /run 2>/dev/null
/bin/busybox mkdir -p /run/bin
/bin/busybox --install -s /run/bin
export PATH=/usr/bin:/usr/sbin:/run/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
# No shader cache on a read-only root; Mesa's own logging to the console.
export MESA_SHADER_CACHE_DISABLE=true MESA_LOG_FILE=/dev/console
export XDG_RUNTIME_DIR=/tmp EGL_PLATFORM=surfaceless

arg() {
    sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" /proc/cmdline
}
steps=$(arg agx.steps)
[ -n "$steps" ] || steps=modules,vulkaninfo,eglinfo,vk-compute,vk-ops,gles-fbo,gles-grow,gles-draw,gles-scene-software,gles-scene,vk-draw-lavapipe,vk-draw,gl-compute,vk-fault,no-splat
TRACE=""
[ "$(arg agx.strace)" = 1 ] && TRACE="strace -f -e trace=ioctl -X verbose"
# agx.mesa-debug=FLAGS: Mesa's asahi debug flags (e.g. trace: agxdecode
# prints every submission, its control streams and shaders, to stderr)
md=$(arg agx.mesa-debug)
[ -n "$md" ] && export ASAHI_MESA_DEBUG="$md" AGXDECODE_DUMP_FILE=stderr
case $(arg agx.asahi-trace) in
1) export LD_PRELOAD=/usr/local/lib/asahi-trace.so ;;
summary) export LD_PRELOAD=/usr/local/lib/asahi-trace.so ASAHI_TRACE=summary ;;
esac

say() {
    echo "AGX-MESA: $*" > /dev/console
}
fail() {
    echo "AGX-TEST: FAIL $*" > /dev/console
    sync
    poweroff -f
}

step_modules() {
    for m in drm_exec drm_gpuvm gpu-sched drm_shmem_helper asahi; do
        [ -e /lib/modules/agx/$m.ko ] || continue
        insmod /lib/modules/agx/$m.ko || return 1
    done
    for i in $(seq 100); do
        [ -e /dev/dri/renderD128 ] && return 0
        sleep 0.1
    done
    say "no render node"
    return 1
}

step_vulkaninfo() {
    $TRACE vulkaninfo --summary > /tmp/vulkaninfo 2>&1
    rc=$?
    cat /tmp/vulkaninfo
    [ $rc = 0 ] && grep -q 'driverID *= DRIVER_ID_MESA_HONEYKRISP' /tmp/vulkaninfo
}

step_eglinfo() {
    $TRACE eglinfo -B -p surfaceless > /tmp/eglinfo 2>&1
    rc=$?
    cat /tmp/eglinfo
    [ $rc = 0 ] && grep -qi 'renderer.*apple' /tmp/eglinfo
}

step_vk_compute() {
    $TRACE /usr/local/bin/vk-compute
}

# Transfer, event, query and compute operations checked against CPU
# references, one TAP line each ("ok N name" / "not ok N name - ..."),
# judged on the host (scripts/tap-check.py: which must pass is the
# caller's list); the step itself fails only if vk-ops could not run
# them (exit 2: no device, a Vulkan call failed outside a check, or a
# crash).  agx.vk-ops=NAME,... runs only those checks.
LVP_ICD=/usr/share/vulkan/lavapipe/lvp_icd.json
step_vk_ops() {
    only=$(arg agx.vk-ops)
    $TRACE /usr/local/bin/vk-ops ${only:+--only $only}
    rc=$?
    say "vk-ops exit $rc"
    [ $rc -le 1 ]
}

# The same checks on lavapipe (Mesa's CPU Vulkan driver): all must pass,
# which checks the checks and their CPU references.  Lavapipe runs in
# the calling thread (LP_NUM_THREADS=0; agx.lp-threads=N for a pool):
# its worker threads, spinning on 4 vCPUs that share 2 host cores, once
# left a submission unfinished for 20 s and hung the boot.
step_vk_ops_lavapipe() {
    only=$(arg agx.vk-ops)
    lp=$(arg agx.lp-threads)
    VK_ADD_DRIVER_FILES=$LVP_ICD LP_NUM_THREADS=${lp:-0} \
        /usr/local/bin/vk-ops --device lavapipe ${only:+--only $only}
}

# The same compute dispatch timed on Honeykrisp and on lavapipe
# (agx.vk-bench=N: N workgroups of 64 invocations)
step_vk_bench() {
    n=$(arg agx.vk-bench)
    VK_ADD_DRIVER_FILES=$LVP_ICD /usr/local/bin/vk-ops --bench ${n:+--groups $n}
}

# vk-ops under Mesa's own decoder: every submission's control stream,
# USC words, uniforms and shader disassembly on the console, for
# scripts/capture-usc-corpus.sh
step_vk_ops_trace() {
    only=$(arg agx.vk-ops)
    ASAHI_MESA_DEBUG=trace AGXDECODE_DUMP_FILE=stderr \
        /usr/local/bin/vk-ops ${only:+--only $only} 2>&1
    [ $? -le 1 ]
}

# Write record $1 to the disk whose first bytes are "USC-DUMP-OUT"
# (scripts/capture-usc-corpus.sh)
write_dump() {
    for d in /dev/vd?; do
        [ "$(head -c 12 $d 2>/dev/null)" = USC-DUMP-OUT ] || continue
        say "usc-dump: $(wc -c < $1) bytes to $d"
        cat $1 > $d && sync
        return
    done
    say "usc-dump: no output disk"
    return 1
}

# vk-ops under usc-dump.so: the record of every compute submission (CDM
# stream, USC words, code, memory) and the CPU references, to the disk
step_vk_ops_dump() {
    f=/tmp/usc-dump.txt
    only=$(arg agx.vk-ops)
    LD_PRELOAD=/usr/local/lib/usc-dump.so USC_DUMP=$f \
        /usr/local/bin/vk-ops --corpus $f ${only:+--only $only}
    [ $? -le 1 ] || return 1
    write_dump $f
}

# gles-scene's frame and vk-draw's under usc-dump.so: the record of
# their render commands (fields, attachments, binds, all bound memory)
# and of what they read back, each after a "program NAME" line, to the
# disk (capture-usc-corpus.sh --render); each program's checks as usual
step_render_dump() {
    f=/tmp/render-dump.txt
    rm -f $f
    /usr/local/bin/gles-scene --software -o /tmp/scene-ref.ppm > /dev/null
    echo "program gles-scene" > $f
    LD_PRELOAD=/usr/local/lib/usc-dump.so USC_DUMP=$f \
        /usr/local/bin/gles-scene --ref /tmp/scene-ref.ppm
    [ $? -le 1 ] || return 1
    echo "program vk-draw" >> $f
    LD_PRELOAD=/usr/local/lib/usc-dump.so USC_DUMP=$f \
        VK_ADD_DRIVER_FILES=$LVP_ICD LP_NUM_THREADS=0 /usr/local/bin/vk-draw
    [ $? -le 1 ] || return 1
    write_dump $f
}

step_gles_fbo() {
    $TRACE /usr/local/bin/gles-fbo
}

# A Vulkan render pass (load-op clear, vkCmdClearAttachments, a smooth
# triangle, a flat quad, the depth test) checked against computed values
# and against lavapipe's image of it, one TAP line each, judged on the
# host (VK_DRAW_EXPECT in scripts/check.sh)
step_vk_draw() {
    VK_ADD_DRIVER_FILES=$LVP_ICD LP_NUM_THREADS=0 $TRACE \
        /usr/local/bin/vk-draw --host-checks
    rc=$?
    say "vk-draw exit $rc"
    [ $rc -le 1 ]
}

# The same on lavapipe alone: every check must pass, which checks them
step_vk_draw_lavapipe() {
    VK_ADD_DRIVER_FILES=$LVP_ICD LP_NUM_THREADS=0 \
        /usr/local/bin/vk-draw --device lavapipe
}

# A GLES scene (clears, a smooth triangle, depth test, a texture,
# blending; then many small draws that overflow the first tiled vertex
# buffer, whose partial renders the host sees counted) drawn by llvmpipe, Mesa's CPU driver (all its checks must
# pass: that checks the checks), then by the GPU, checked against the
# same values and compared with llvmpipe's image: one TAP line each,
# judged on the host (GLES_SCENE_EXPECT in scripts/check.sh)
step_gles_scene_software() {
    /usr/local/bin/gles-scene --software -o /tmp/scene-ref.ppm
}

step_gles_scene() {
    [ -e /tmp/scene-ref.ppm ] ||
        /usr/local/bin/gles-scene --software -o /tmp/scene-ref.ppm >/dev/null
    $TRACE /usr/local/bin/gles-scene --ref /tmp/scene-ref.ppm \
        -o /tmp/scene.ppm --host-checks
    rc=$?
    say "gles-scene exit $rc"
    [ $rc -le 1 ]
}

# The picture make run shows: the GPU's gles-scene image, written over
# the disk whose first bytes are "AGX-PICTURE-OUT" (scripts/run-guest.sh
# turns it into a PNG on the host); agx.picture=software draws it with
# llvmpipe instead, to see what the GPU should have drawn
step_picture() {
    sw=
    [ "$(arg agx.picture)" = software ] && sw=--software
    /usr/local/bin/gles-scene $sw -o /tmp/picture.ppm
    [ $? -le 1 ] || return 1
    for d in /dev/vd?; do
        [ "$(head -c 15 $d 2>/dev/null)" = AGX-PICTURE-OUT ] || continue
        cat /tmp/picture.ppm > $d && sync
        say "picture: $(head -c 20 /tmp/picture.ppm | head -2 | tr '\n' ' ')to $d"
        return
    done
    say "picture: no output disk"
    return 1
}

# The scene's frame rate on the GPU and on llvmpipe, Mesa's CPU driver
# (agx.scene-frames=N frames each, default 20)
step_scene_bench() {
    n=$(arg agx.scene-frames)
    for dev in gpu software; do
        flag=
        [ $dev = software ] && flag=--software
        fps=$(/usr/local/bin/gles-scene $flag -n ${n:-20} |
              sed -n 's/.*: \([0-9.]*\) frames\/s$/\1/p')
        echo "scene-bench: $dev ${fps:-none} frames/s"
    done
}

# GLES draws read back and checked against a CPU reference, one TAP line
# each (scripts/check.sh judges them with tap-check.py)
step_gles_draw() {
    $TRACE /usr/local/bin/gles-draw $(arg agx.gles-draw)
}

# gles-draw under Mesa's own decoder: every render submission's VDM and
# PPP words, USC words and shader disassembly on the console
step_gles_draw_trace() {
    ASAHI_MESA_DEBUG=trace AGXDECODE_DUMP_FILE=stderr \
        /usr/local/bin/gles-draw 2>&1
}

# GLES 3.1 compute shaders on the asahi Gallium driver (SSBOs, shared
# memory, barriers, atomics, images, indirect dispatch) checked against
# CPU references, one TAP line each, judged on the host like vk-ops'
# (GL_COMPUTE_EXPECT); the step fails only if gl-compute could not run
# them.  agx.gl-compute=NAME,... runs only those checks.
step_gl_compute() {
    only=$(arg agx.gl-compute)
    $TRACE /usr/local/bin/gl-compute ${only:+--only $only}
    rc=$?
    say "gl-compute exit $rc"
    [ $rc -le 1 ]
}

# The same checks on llvmpipe (Mesa's CPU Gallium driver): all must pass,
# which checks the checks and their CPU references
step_gl_compute_llvmpipe() {
    only=$(arg agx.gl-compute)
    LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe LP_NUM_THREADS=0 \
        /usr/local/bin/gl-compute ${only:+--only $only}
}

# The same under a synchronous TVB grow the host injects after frame 0
step_gles_grow() {
    $TRACE /usr/local/bin/gles-fbo --grow
}

# A GPU fault injected while the Vulkan program runs: its fence signals
# with -EIO and, with the driver's opt-in lost_on_fault, its next
# submission is refused and never completes; a second process, whose
# device was open across the fault, gets its work done before and after
# it.
step_vk_fault() {
    lost=/sys/module/asahi/parameters/lost_on_fault
    echo 1 > $lost || return 1
    rm -f /tmp/faulted /tmp/faulted.ready
    /usr/local/bin/vk-compute -n 2 --after /tmp/faulted &
    pid=$!
    for i in $(seq 200); do
        [ -e /tmp/faulted.ready ] && break
        sleep 0.1
    done
    /usr/local/bin/vk-compute --fault || return 1
    echo 0 > $lost
    touch /tmp/faulted
    wait $pid
}

# IGT's driver-independent tests (scripts/build-igt.sh puts them in
# /usr/local/igt), each binary in turn, core_hotunplug last (it unbinds
# and rebinds the driver); agx.igt=NAME,... runs only those,
# agx.igt-skip=NAME/GLOB,... leaves those subtests out.  Each
# subtest's result becomes a TAP line "ok N test/subtest", "ok N
# test/subtest # SKIP requirement" or "not ok N test/subtest - FAIL:
# assertion" (a test without subtests is one line, judged by its exit
# status: 0 pass, 77 skip); a failed test's output follows as "# "
# lines.  The host judges the lines (scripts/tap-check.py --count); the
# step fails only when IGT is not in the image.
IGT=/usr/local/igt
IGT_TESTS="core_getversion core_auth core_setmaster core_getclient
           core_getstats core_sysfs core_debugfs syncobj_basic syncobj_wait
           syncobj_timeline syncobj_eventfd sw_sync core_hotunplug"
igt_tap() {
    awk -v t="$1" -v rc="$2" -v n="$3" '
    function line(verdict, name, why) {
        n++
        if (verdict == "ok")
            print "ok " n " " name
        else if (verdict == "skip")
            print "ok " n " " name " # SKIP " why
        else {
            print "not ok " n " " name " - " why
            failed++
        }
    }
    more {
        more = 0
        if ($0 !~ /^(Subtest|Last errno|Stack trace|Starting)/)
            extra = $0
    }
    /^Starting subtest: / { req = ""; extra = ""; fa = ""; next }
    /^Test requirement: / { req = substr($0, 19); more = 1; next }
    /Failed assertion: / && fa == "" {
        fa = substr($0, index($0, "Failed assertion: ") + 18)
    }
    /^Subtest [^ ]+: [A-Z]+ / {
        name = $2
        sub(/:$/, "", name)
        subtests++
        why = req
        if (extra != "")
            why = why " (" extra ")"
        if ($3 == "SUCCESS")
            line("ok", t "/" name)
        else if ($3 == "SKIP")
            line("skip", t "/" name, why == "" ? "no reason given" : why)
        else
            line("fail", t "/" name, $3 (fa == "" ? "" : ": " fa))
        req = ""; extra = ""; fa = ""
        next
    }
    END {
        if (!subtests && rc == 0)
            line("ok", t)
        else if (!subtests && rc == 77)
            line("skip", t, req == "" ? "exit 77" : req)
        else if (rc != 0 && rc != 77 && !failed)
            line("fail", t, "exit " rc (fa == "" ? "" : ": " fa))
    }' /tmp/igt.out
}
step_igt() {
    [ -d $IGT/bin ] || { say "igt: IGT is not in this image"; return 1; }
    mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
    only=$(arg agx.igt | tr , ' ')
    n=0
    set -f
    say "igt: IGT $(cat $IGT/VERSION)"
    for t in ${only:-$IGT_TESTS}; do
        if [ ! -x $IGT/bin/$t ]; then
            echo "ok $((n + 1)) $t # SKIP not in IGT $(cat $IGT/VERSION)"
            n=$((n + 1))
            continue
        fi
        # Subtests named by agx.igt-skip=test/glob,... are not run
        run="*"
        for sub in $($IGT/bin/$t --list-subtests 2>/dev/null); do
            for pat in $(arg agx.igt-skip | tr , ' '); do
                case $t/$sub in
                $pat)
                    n=$((n + 1))
                    echo "ok $n $t/$sub # SKIP agx.igt-skip=$pat"
                    run="$run,!$sub"
                    break
                    ;;
                esac
            done
        done
        if [ "$run" = "*" ]; then
            timeout 600 $IGT/bin/$t > /tmp/igt.out 2>&1
        else
            timeout 600 $IGT/bin/$t --run-subtest "$run" > /tmp/igt.out 2>&1
        fi
        rc=$?
        igt_tap $t $rc $n > /tmp/igt.tap
        cat /tmp/igt.tap
        n=$((n + $(wc -l < /tmp/igt.tap)))
        if grep -q '^not ok' /tmp/igt.tap; then
            tail -n 40 /tmp/igt.out | sed 's/^/# /'
        fi
    done
    set +f
}

# No kernel warning, oops or GPU timeout in the whole run, nothing the
# debug kernel (KASAN, lockdep, kmemleak: asked to scan first) reports;
# the only GPU fault is the one vk-fault injected.
step_no_splat() {
    kml=/sys/kernel/debug/kmemleak
    mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
    [ -w $kml ] && echo scan > $kml
    dmesg > /tmp/dmesg
    ! grep -E 'WARNING:|BUG:|Oops|Unable to handle|KASAN|UBSAN|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|unreferenced object|INFO: task|refcount_t:|list_(add|del) corruption|timed out|Call trace' /tmp/dmesg || return 1
    faults=$(grep -c 'GPU fault:' /tmp/dmesg)
    case ",$steps," in
    *,vk-fault,*) [ "$faults" -le 1 ] ;;
    *) [ "$faults" = 0 ] ;;
    esac
}

say "steps $steps"
for s in $(echo "$steps" | tr , ' '); do
    t0=$(cut -d' ' -f1 /proc/uptime)
    say "step $s"
    fn=step_$(echo "$s" | tr - _)
    $fn || fail "$s"
    say "step $s done ($(cut -d' ' -f1 /proc/uptime)s since boot, began at ${t0}s)"
done
echo "AGX-TEST: PASS" > /dev/console
sync
poweroff -f
