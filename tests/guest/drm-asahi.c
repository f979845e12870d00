/*
 * In-guest tests of the asahi DRM driver: chained submissions over
 * several queues and VMs, and teardown with jobs in flight, on
 * /dev/dri/renderD128.  They are the DRM workload of the boots that also
 * run the driver's self-tests, under chaos firmware and on the debug
 * kernel; every ioctl's success and error paths are the UAPI suite's
 * (tests/guest/asahi-uapi).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/asahi_drm.h>

#include "drm-asahi.h"

#define MARK "AGX-TEST: drm: "
#define RENDER_NODE "/dev/dri/renderD128"
#define PAGE 0x4000ULL

/* t8103 as drm/asahi reports it */
#define VM_END 0x7fffff8000ULL
/* Mesa's kernel range: the top 32 GiB of the VM */
#define KERNEL_START (VM_END - (32ULL << 30))
#define USER_VA 0x1000000000ULL

static drm_asahi_say_fn say;
static int failures;

/* Runs an ioctl; returns 0 or the errno it failed with */
static int xioctl(int fd, unsigned long req, void *arg)
{
    int ret;

    do {
        ret = ioctl(fd, req, arg);
    } while (ret < 0 && (errno == EINTR || errno == EAGAIN));
    return ret < 0 ? errno : 0;
}

static void check_(bool ok, const char *what, int line)
{
    if (!ok) {
        say(MARK "FAILED at line %d: %s", line, what);
        failures++;
    }
}
#define CHECK(cond) check_((cond), #cond, __LINE__)

/* An ioctl that must fail with err (0: succeed) */
static void expect_(int fd, unsigned long req, void *arg, int err,
                    const char *what, int line)
{
    int got = xioctl(fd, req, arg);

    if (got != err) {
        say(MARK "FAILED at line %d: %s: got %s, want %s", line, what,
            got ? strerror(got) : "success", err ? strerror(err) : "success");
        failures++;
    }
}
#define EXPECT(fd, req, arg, err) \
    expect_((fd), (req), (arg), (err), #req " " #arg, __LINE__)

static int open_node(void)
{
    int i, fd;

    /* devtmpfs makes the node when the driver registers */
    for (i = 0; i < 50; i++) {
        fd = open(RENDER_NODE, O_RDWR | O_CLOEXEC);
        if (fd >= 0) {
            return fd;
        }
        usleep(100000);
    }
    say(MARK "cannot open " RENDER_NODE ": %s", strerror(errno));
    return -1;
}

static int finish(int fd, const char *name)
{
    if (fd >= 0) {
        close(fd);
    }
    say(MARK "%s: %d failure(s)", name, failures);
    return failures ? -1 : 0;
}

static uint32_t gem_create(int fd, uint64_t size, uint32_t flags,
                           uint32_t vm_id)
{
    struct drm_asahi_gem_create gc = {
        .size = size, .flags = flags, .vm_id = vm_id,
    };

    EXPECT(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc, 0);
    return gc.handle;
}

static void gem_close(int fd, uint32_t handle)
{
    struct drm_gem_close gcl = { .handle = handle };

    EXPECT(fd, DRM_IOCTL_GEM_CLOSE, &gcl, 0);
}

static uint32_t vm_create(int fd)
{
    struct drm_asahi_vm_create vc = {
        .kernel_start = KERNEL_START, .kernel_end = VM_END,
    };

    EXPECT(fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc, 0);
    CHECK(vc.vm_id != 0);
    return vc.vm_id;
}

static int bind(int fd, uint32_t vm, uint32_t flags, uint32_t handle,
                uint64_t offset, uint64_t range, uint64_t addr)
{
    struct drm_asahi_gem_bind_op op = {
        .flags = flags, .handle = handle, .offset = offset,
        .range = range, .addr = addr,
    };
    struct drm_asahi_vm_bind vb = {
        .vm_id = vm, .num_binds = 1, .stride = sizeof(op),
        .userptr = (uintptr_t)&op,
    };

    return xioctl(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb);
}

#define RW (DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE)
#define BIND(vm, fl, h, off, range, addr, err) \
    check_(bind(fd, (vm), (fl), (h), (off), (range), (addr)) == (err), \
           "bind " #fl " " #off " " #range " " #addr " -> " #err, __LINE__)

/* Queues and submission */

/*
 * The compute commands' control stream: a Stream Terminate at USER_VA of
 * @vm (the GPU model walks the stream; an unmapped one faults the job)
 */
static void write_terminate(int fd, uint32_t handle)
{
    struct drm_asahi_gem_mmap_offset mo = { .handle = handle };
    uint32_t *p;

    EXPECT(fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo, 0);
    p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
    CHECK(p != MAP_FAILED);
    if (p != MAP_FAILED) {
        p[0] = 2u << 29;
        p[1] = 0;
        munmap(p, PAGE);
    }
}

static void bind_empty_stream(int fd, uint32_t vm)
{
    uint32_t h = gem_create(fd, PAGE, 0, 0);

    write_terminate(fd, h);
    BIND(vm, DRM_ASAHI_BIND_READ, h, 0, PAGE, USER_VA, 0);
}

static uint32_t queue_create(int fd, uint32_t vm, uint32_t prio)
{
    struct drm_asahi_queue_create qc = {
        .vm_id = vm, .priority = prio, .usc_exec_base = USER_VA,
    };

    EXPECT(fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc, 0);
    CHECK(qc.queue_id != 0);
    return qc.queue_id;
}

static uint32_t syncobj_create(int fd)
{
    struct drm_syncobj_create sc = { 0 };

    EXPECT(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc, 0);
    return sc.handle;
}

/* A command stream: n compute commands, each waiting on all before it */
struct cmdbuf {
    unsigned char buf[4096];
    uint32_t size;
};

static void cmd_add(struct cmdbuf *cb, uint16_t type, const void *payload,
                    uint16_t size, uint16_t vdm, uint16_t cdm)
{
    struct drm_asahi_cmd_header hdr = {
        .cmd_type = type, .size = size, .vdm_barrier = vdm,
        .cdm_barrier = cdm,
    };

    memcpy(cb->buf + cb->size, &hdr, sizeof(hdr));
    memcpy(cb->buf + cb->size + sizeof(hdr), payload, size);
    cb->size += sizeof(hdr) + size;
}

static void compute_add(struct cmdbuf *cb, uint16_t cdm_barrier)
{
    struct drm_asahi_cmd_compute c = {
        .cdm_ctrl_stream_base = USER_VA,
        .cdm_ctrl_stream_end = USER_VA + 0x100,
    };

    cmd_add(cb, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c),
            DRM_ASAHI_BARRIER_NONE, cdm_barrier);
}

static int submit(int fd, uint32_t queue, const struct cmdbuf *cb,
                  const struct drm_asahi_sync *syncs, uint32_t nin,
                  uint32_t nout)
{
    struct drm_asahi_submit s = {
        .syncs = (uintptr_t)syncs, .cmdbuf = (uintptr_t)cb->buf,
        .queue_id = queue, .in_sync_count = nin, .out_sync_count = nout,
        .cmdbuf_size = cb->size,
    };

    return xioctl(fd, DRM_IOCTL_ASAHI_SUBMIT, &s);
}

/* Waits up to 10 s for a timeline point (binary: point 0) */
static int wait_point(int fd, uint32_t handle, uint64_t point)
{
    struct drm_syncobj_timeline_wait w = {
        .handles = (uintptr_t)&handle, .points = (uintptr_t)&point,
        .count_handles = 1,
        .timeout_nsec = INT64_MAX,
        .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
    };
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    w.timeout_nsec = ts.tv_sec * 1000000000LL + ts.tv_nsec + 10000000000LL;
    return xioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
}

#define SUBMIT_EXPECT(q, cb, syncs, nin, nout, err) \
    check_(submit(fd, (q), (cb), (syncs), (nin), (nout)) == (err), \
           "submit " #cb " " #syncs " -> " #err, __LINE__)

#define NQUEUES 4
#define NVMS 2

int drm_asahi_test_submit(drm_asahi_say_fn say_fn, int n)
{
    struct drm_syncobj_timeline_array ta = { 0 };
    uint32_t vm[NVMS], q[NQUEUES], tl, bin[NQUEUES];
    uint64_t value = 0;
    struct drm_asahi_sync sy[3];
    struct timespec t0, t1;
    struct cmdbuf cb;
    double secs;
    int fd, i;

    say = say_fn;
    failures = 0;
    fd = open_node();
    if (fd < 0) {
        return -1;
    }
    for (i = 0; i < NVMS; i++) {
        vm[i] = vm_create(fd);
        bind_empty_stream(fd, vm[i]);
    }
    for (i = 0; i < NQUEUES; i++) {
        q[i] = queue_create(fd, vm[i % NVMS], i % 2);
        bin[i] = syncobj_create(fd);
    }
    tl = syncobj_create(fd);
    memset(&cb, 0, sizeof(cb));
    compute_add(&cb, DRM_ASAHI_BARRIER_NONE);

    /*
     * Submission i runs on queue i % NQUEUES after point i of a shared
     * timeline (none for the first) and signals point i + 1 and its
     * queue's binary syncobj: one chain across queues and VMs.
     */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < n && !failures; i++) {
        int nin = i ? 1 : 0;

        memset(sy, 0, sizeof(sy));
        sy[0] = (struct drm_asahi_sync){
            .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ, .handle = tl,
            .timeline_value = i,
        };
        sy[nin] = (struct drm_asahi_sync){
            .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ, .handle = tl,
            .timeline_value = i + 1,
        };
        sy[nin + 1] = (struct drm_asahi_sync){
            .sync_type = DRM_ASAHI_SYNC_SYNCOBJ,
            .handle = bin[i % NQUEUES],
        };
        SUBMIT_EXPECT(q[i % NQUEUES], &cb, sy, nin, 2, 0);
    }
    CHECK(wait_point(fd, tl, n) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (i = 0; i < NQUEUES; i++) {
        CHECK(wait_point(fd, bin[i], 0) == 0);
    }
    /* Every point signalled exactly once: the payload is n */
    ta.handles = (uintptr_t)&tl;
    ta.points = (uintptr_t)&value;
    ta.count_handles = 1;
    EXPECT(fd, DRM_IOCTL_SYNCOBJ_QUERY, &ta, 0);
    CHECK(value == (uint64_t)n);
    secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    say(MARK "%d chained submissions over %d queues and %d VMs in %.3f s: "
        "%.0f submissions/s; timeline at %llu", n, NQUEUES, NVMS, secs,
        n / secs, (unsigned long long)value);
    return finish(fd, "submit");
}

/*
 * Queue destroy and file close with jobs in flight; a VM destroyed under
 * a queue's running jobs; then new work still completes.
 */
int drm_asahi_test_teardown(drm_asahi_say_fn say_fn)
{
    struct cmdbuf cb2;
    struct drm_asahi_queue_destroy qd = { 0 };
    struct drm_asahi_vm_destroy vd = { 0 };
    struct drm_asahi_sync sy = { 0 };
    uint32_t vm, q, so, bo;
    struct cmdbuf cb;
    int fd, fd2, i, round;

    say = say_fn;
    failures = 0;
    fd = open_node();
    if (fd < 0) {
        return -1;
    }
    memset(&cb, 0, sizeof(cb));
    for (i = 0; i < 16; i++) {
        compute_add(&cb, DRM_ASAHI_BARRIER_NONE);
    }
    /* The same without compute work (a zero stream base): nothing to read */
    memset(&cb2, 0, sizeof(cb2));
    for (i = 0; i < 16; i++) {
        cmd_add(&cb2, DRM_ASAHI_CMD_COMPUTE,
                &(struct drm_asahi_cmd_compute){ 0 },
                sizeof(struct drm_asahi_cmd_compute),
                DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
    }
    for (round = 0; round < 3; round++) {
        vm = vm_create(fd);
        q = queue_create(fd, vm, DRM_ASAHI_PRIORITY_MEDIUM);
        so = syncobj_create(fd);
        bo = gem_create(fd, 4 * PAGE, 0, 0);
        write_terminate(fd, bo);
        check_(bind(fd, vm, RW, bo, 0, 4 * PAGE, USER_VA) == 0, "bind",
               __LINE__);
        sy.handle = so;
        for (i = 0; i < 50; i++) {
            /*
             * Round 1's VM goes with jobs in flight: those that read a
             * control stream then fault, each halting the GPU model.
             * Only the last submission's do (16 halts, not 800, which
             * would flood the kernel log the later steps read).
             */
            SUBMIT_EXPECT(q, round == 1 && i < 49 ? &cb2 : &cb, &sy, 0, 1,
                          0);
        }
        if (round == 1) {
            /* The VM goes first, its mappings with it */
            vd.vm_id = vm;
            EXPECT(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd, 0);
        }
        qd.queue_id = q;
        EXPECT(fd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd, 0);
        /* Whatever was pushed completes (or fails), nothing hangs */
        CHECK(wait_point(fd, so, 0) == 0);
        gem_close(fd, bo);
    }

    /*
     * A file closed with queues, VMs and jobs in flight.  Their control
     * streams would go with the VM: the GPU model would fault each job
     * that reads one (800 halts, well after this step), so these have
     * no compute work
     */
    fd2 = open_node();
    if (fd2 >= 0) {
        int save = fd;

        fd = fd2;
        vm = vm_create(fd);
        q = queue_create(fd, vm, DRM_ASAHI_PRIORITY_LOW);
        for (i = 0; i < 50; i++) {
            SUBMIT_EXPECT(q, &cb2, &sy, 0, 0, 0);
        }
        close(fd2);
        fd = save;
    }

    /* Later work completes */
    vm = vm_create(fd);
    bind_empty_stream(fd, vm);
    q = queue_create(fd, vm, DRM_ASAHI_PRIORITY_MEDIUM);
    so = syncobj_create(fd);
    sy.handle = so;
    SUBMIT_EXPECT(q, &cb, &sy, 0, 1, 0);
    CHECK(wait_point(fd, so, 0) == 0);
    return finish(fd, "teardown");
}
