/*
 * In-guest tests of the asahi DRM driver: ioctls on /dev/dri/renderD128,
 * success paths and documented errors (include/uapi/drm/asahi_drm.h and
 * what drm/asahi returns for each, per our reference notes).
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
#define VM_START 0x4000ULL
#define VM_END 0x7fffff8000ULL
#define VM_KERNEL_MIN 0x20000000ULL
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

int drm_asahi_test_params(drm_asahi_say_fn say_fn)
{
    struct drm_asahi_params_global p, small;
    struct drm_asahi_get_params gp = { 0 };
    struct drm_asahi_get_time gt = { 0 };
    struct drm_version ver = { 0 };
    char name[16] = { 0 };
    uint64_t t0, t1;
    struct timespec m0, m1;
    int64_t dm, dg;
    int fd, i;

    say = say_fn;
    failures = 0;
    fd = open_node();
    if (fd < 0) {
        return -1;
    }

    /* Mesa's loader wants the name "asahi" */
    ver.name = name;
    ver.name_len = sizeof(name) - 1;
    EXPECT(fd, DRM_IOCTL_VERSION, &ver, 0);
    CHECK(!strcmp(name, "asahi"));
    CHECK(ver.version_major == 0 && ver.version_minor == 0 &&
          ver.version_patchlevel == 0);

    memset(&p, 0xaa, sizeof(p));
    gp.pointer = (uintptr_t)&p;
    gp.size = sizeof(p);
    EXPECT(fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp, 0);
    say(MARK "params: features 0x%llx G%u%c rev 0x%02x chip 0x%x, %u die, "
        "%u cluster(s) of %u cores, mask 0x%llx, %u kHz, VM [0x%llx, "
        "0x%llx) kernel >= 0x%llx, %u commands, %u attachments, "
        "timestamps %llu Hz",
        (unsigned long long)p.features, p.gpu_generation,
        (char)p.gpu_variant, p.gpu_revision, p.chip_id, p.num_dies,
        p.num_clusters_total, p.num_cores_per_cluster,
        (unsigned long long)p.core_masks[0], p.max_frequency_khz,
        (unsigned long long)p.vm_start, (unsigned long long)p.vm_end,
        (unsigned long long)p.vm_kernel_min_size,
        p.max_commands_per_submission, p.max_attachments,
        (unsigned long long)p.command_timestamp_frequency_hz);
    CHECK(p.features == DRM_ASAHI_FEATURE_SOFT_FAULTS);
    CHECK(p.gpu_generation == 13);
    CHECK(p.gpu_variant == 'G');
    CHECK(p.gpu_revision == 0x11);
    CHECK(p.chip_id == 0x8103);
    CHECK(p.num_dies == 1);
    CHECK(p.num_clusters_total == 1);
    CHECK(p.num_cores_per_cluster == 8);
    CHECK(p.max_frequency_khz == 1000000);
    CHECK(p.core_masks[0] == 0xff || p.core_masks[0] == 0xfe);
    for (i = 1; i < DRM_ASAHI_MAX_CLUSTERS; i++) {
        CHECK(p.core_masks[i] == 0);
    }
    CHECK(p.vm_start == VM_START);
    CHECK(p.vm_end == VM_END);
    CHECK(p.vm_kernel_min_size == VM_KERNEL_MIN);
    CHECK(p.max_commands_per_submission == 64);
    CHECK(p.max_attachments == 16);
    CHECK(p.command_timestamp_frequency_hz == 1000000000ULL);

    /* Older userspace: only size bytes are written, size stays */
    memset(&small, 0xaa, sizeof(small));
    gp.pointer = (uintptr_t)&small;
    gp.size = 16;
    EXPECT(fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp, 0);
    CHECK(gp.size == 16);
    CHECK(!memcmp(&small, &p, 16));
    CHECK(((unsigned char *)&small)[16] == 0xaa);
    CHECK(((unsigned char *)&small)[sizeof(small) - 1] == 0xaa);

    gp.size = sizeof(p);
    gp.param_group = 1;
    EXPECT(fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp, EINVAL);
    gp.param_group = 0;
    gp.pad = 1;
    EXPECT(fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp, EINVAL);
    gp.pad = 0;
    gp.pointer = 8;
    EXPECT(fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp, EFAULT);

    /* GET_TIME: nanoseconds of the CPU counter */
    gt.flags = 1;
    EXPECT(fd, DRM_IOCTL_ASAHI_GET_TIME, &gt, EINVAL);
    gt.flags = 0;
    clock_gettime(CLOCK_MONOTONIC, &m0);
    EXPECT(fd, DRM_IOCTL_ASAHI_GET_TIME, &gt, 0);
    t0 = gt.gpu_timestamp;
    usleep(20000);
    EXPECT(fd, DRM_IOCTL_ASAHI_GET_TIME, &gt, 0);
    t1 = gt.gpu_timestamp;
    clock_gettime(CLOCK_MONOTONIC, &m1);
    dg = (int64_t)(t1 - t0);
    dm = (m1.tv_sec - m0.tv_sec) * 1000000000LL + m1.tv_nsec - m0.tv_nsec;
    say(MARK "GET_TIME advanced %lld ns while CLOCK_MONOTONIC advanced "
        "%lld ns", (long long)dg, (long long)dm);
    CHECK(dg >= 20000000 && dg <= dm);
    return finish(fd, "params");
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

/* Writes a pattern through one mapping and reads it through another */
static void gem_cpu_access(int fd, uint32_t handle, size_t size)
{
    struct drm_asahi_gem_mmap_offset mo = { .handle = handle };
    uint32_t *p;
    size_t i;

    EXPECT(fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo, 0);
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
    CHECK(p != MAP_FAILED);
    if (p == MAP_FAILED) {
        return;
    }
    for (i = 0; i < size / 4; i++) {
        if (p[i]) {
            CHECK(!"new object not zeroed");
            break;
        }
        p[i] = i * 2654435761u;
    }
    munmap(p, size);
    p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, mo.offset);
    CHECK(p != MAP_FAILED);
    if (p == MAP_FAILED) {
        return;
    }
    for (i = 0; i < size / 4; i++) {
        if (p[i] != (uint32_t)(i * 2654435761u)) {
            CHECK(!"pattern lost between mappings");
            break;
        }
    }
    munmap(p, size);
}

int drm_asahi_test_gem(drm_asahi_say_fn say_fn)
{
    struct drm_asahi_gem_create gc = { 0 };
    struct drm_asahi_gem_mmap_offset mo = { 0 };
    struct drm_prime_handle ph = { 0 };
    uint32_t shared, wb, priv, vm;
    int fd, fd2;

    say = say_fn;
    failures = 0;
    fd = open_node();
    if (fd < 0) {
        return -1;
    }
    vm = vm_create(fd);

    /* Errors */
    gc.size = 0;
    EXPECT(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc, EINVAL);
    gc.size = PAGE;
    gc.flags = 1 << 2;
    EXPECT(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc, EINVAL);
    gc.flags = 0;
    gc.vm_id = vm;
    EXPECT(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc, EINVAL);
    gc.flags = DRM_ASAHI_GEM_VM_PRIVATE;
    gc.vm_id = vm + 100;
    EXPECT(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc, ENOENT);

    /* Shared (write-combined), writeback, VM-private; sizes round up */
    shared = gem_create(fd, 1, 0, 0);
    wb = gem_create(fd, 3 * PAGE + 5, DRM_ASAHI_GEM_WRITEBACK, 0);
    priv = gem_create(fd, PAGE, DRM_ASAHI_GEM_VM_PRIVATE, vm);
    gem_cpu_access(fd, shared, PAGE);
    gem_cpu_access(fd, wb, 4 * PAGE);
    gem_cpu_access(fd, priv, PAGE);

    mo.handle = shared;
    mo.flags = 1;
    EXPECT(fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo, EINVAL);
    mo.flags = 0;
    mo.handle = 0x7777;
    EXPECT(fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo, ENOENT);

    /* PRIME: shared objects export and import; private ones do not */
    ph.handle = wb;
    ph.flags = DRM_CLOEXEC | DRM_RDWR;
    EXPECT(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph, 0);
    fd2 = open_node();
    if (fd2 >= 0) {
        struct drm_prime_handle imp = { .fd = ph.fd };

        EXPECT(fd2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp, 0);
        CHECK(imp.handle != 0);
        /* The same pages, seen from the other file */
        if (imp.handle) {
            struct drm_asahi_gem_mmap_offset mo2 = { .handle = imp.handle };
            uint32_t *p;

            EXPECT(fd2, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo2, 0);
            p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd2, mo2.offset);
            CHECK(p != MAP_FAILED);
            if (p != MAP_FAILED) {
                CHECK(p[1] == 2654435761u);
                munmap(p, PAGE);
            }
        }
        close(fd2);
    }
    close(ph.fd);
    ph.handle = priv;
    ph.fd = -1;
    EXPECT(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph, EINVAL);

    gem_close(fd, shared);
    gem_close(fd, wb);
    /* The private object outlives its VM's id */
    {
        struct drm_asahi_vm_destroy vd = { .vm_id = vm };

        EXPECT(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd, 0);
        EXPECT(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd, ENOENT);
    }
    gem_close(fd, priv);
    return finish(fd, "gem");
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

int drm_asahi_test_vm(drm_asahi_say_fn say_fn)
{
    struct drm_asahi_vm_create vc = { 0 };
    struct drm_asahi_vm_destroy vd = { 0 };
    struct drm_asahi_vm_bind vb = { 0 };
    struct drm_asahi_gem_bind_op ops[3];
    uint32_t vm, vm2, bo, big, priv2;
    int fd;

    say = say_fn;
    failures = 0;
    fd = open_node();
    if (fd < 0) {
        return -1;
    }

    /* VM_CREATE: the kernel range must fit, be big enough, aligned */
    vc.kernel_start = KERNEL_START;
    vc.kernel_end = VM_END + PAGE;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc, EINVAL);
    vc.kernel_end = KERNEL_START + VM_KERNEL_MIN - PAGE;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc, EINVAL);
    vc.kernel_end = VM_END - 0x1000;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc, EINVAL);
    vc.kernel_start = 0;
    vc.kernel_end = VM_KERNEL_MIN;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc, EINVAL);
    vc.kernel_start = VM_START;
    vc.kernel_end = VM_START + VM_KERNEL_MIN;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc, 0);
    vd.vm_id = vc.vm_id;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd, 0);
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd, ENOENT);

    vm = vm_create(fd);
    vm2 = vm_create(fd);
    CHECK(vm != vm2);
    bo = gem_create(fd, 4 * PAGE, 0, 0);
    big = gem_create(fd, 64 * PAGE, DRM_ASAHI_GEM_WRITEBACK, 0);
    priv2 = gem_create(fd, PAGE, DRM_ASAHI_GEM_VM_PRIVATE, vm2);

    /* Binds that work: RW, RO, WO; over a mapping; a sparse page */
    BIND(vm, RW, bo, 0, 4 * PAGE, USER_VA, 0);
    BIND(vm, DRM_ASAHI_BIND_READ, bo, PAGE, 2 * PAGE, USER_VA + PAGE, 0);
    BIND(vm, DRM_ASAHI_BIND_WRITE, big, 0, 64 * PAGE, USER_VA + 8 * PAGE,
         0);
    BIND(vm, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_SINGLE_PAGE, bo, 3 * PAGE,
         256 * PAGE, USER_VA + 0x1000000, 0);
    BIND(vm, RW, bo, 0, PAGE, VM_START, 0);
    BIND(vm, RW, bo, 0, PAGE, KERNEL_START - PAGE, 0);
    BIND(vm2, RW, priv2, 0, PAGE, USER_VA, 0);
    BIND(vm2, RW, bo, 0, 4 * PAGE, USER_VA + PAGE, 0);
    /* Unbinds: a hole in a mapping, then unmapped space */
    BIND(vm, DRM_ASAHI_BIND_UNBIND, 0, 0, PAGE, USER_VA + 9 * PAGE, 0);
    BIND(vm, DRM_ASAHI_BIND_UNBIND, 0, 0, 16 * PAGE, 0x2000000000ULL, 0);

    /* Errors */
    BIND(vm, RW, bo, 0, PAGE, USER_VA + 0x1000, EINVAL);
    BIND(vm, RW, bo, 0x1000, PAGE, USER_VA, EINVAL);
    BIND(vm, RW, bo, 0, 0x1000, USER_VA, EINVAL);
    BIND(vm, RW, bo, 0, 5 * PAGE, USER_VA, EINVAL);
    BIND(vm, RW, bo, 4 * PAGE, PAGE, USER_VA, EINVAL);
    BIND(vm, 0, bo, 0, PAGE, USER_VA, EINVAL);
    BIND(vm, RW | (1 << 4), bo, 0, PAGE, USER_VA, EINVAL);
    BIND(vm, RW, 0x7777, 0, PAGE, USER_VA, ENOENT);
    BIND(vm + 100, RW, bo, 0, PAGE, USER_VA, ENOENT);
    BIND(vm, RW, bo, 0, PAGE, 0, EINVAL);
    BIND(vm, RW, bo, 0, PAGE, KERNEL_START, EINVAL);
    BIND(vm, RW, bo, 0, 2 * PAGE, KERNEL_START - PAGE, EINVAL);
    BIND(vm, RW, bo, 0, PAGE, VM_END, EINVAL);
    BIND(vm, RW, priv2, 0, PAGE, USER_VA, EINVAL);
    BIND(vm, DRM_ASAHI_BIND_UNBIND, bo, 0, PAGE, USER_VA, EINVAL);
    BIND(vm, DRM_ASAHI_BIND_UNBIND, 0, PAGE, PAGE, USER_VA, EINVAL);
    BIND(vm, DRM_ASAHI_BIND_UNBIND | DRM_ASAHI_BIND_READ, 0, 0, PAGE,
         USER_VA, EINVAL);
    BIND(vm, DRM_ASAHI_BIND_UNBIND, 0, 0, PAGE, KERNEL_START, EINVAL);

    /* VM_BIND header: stride 0, pad; ops in order, no rollback */
    memset(ops, 0, sizeof(ops));
    ops[0] = (struct drm_asahi_gem_bind_op){
        .flags = RW, .handle = big, .range = PAGE, .addr = 0x3000000000ULL,
    };
    ops[1] = ops[0];
    ops[1].addr += 0x1000;
    ops[2] = ops[0];
    vb.vm_id = vm;
    vb.num_binds = 3;
    vb.userptr = (uintptr_t)ops;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb, EINVAL);
    vb.stride = sizeof(ops[0]);
    vb.pad = 1;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb, EINVAL);
    vb.pad = 0;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb, EINVAL);
    ops[1].addr += 0x3000;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb, 0);
    vb.userptr = 8;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb, EFAULT);

    /* Closing a bound handle unbinds it; a VM goes with objects bound */
    gem_close(fd, bo);
    vd.vm_id = vm;
    EXPECT(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd, 0);
    BIND(vm, RW, big, 0, PAGE, USER_VA, ENOENT);
    gem_close(fd, big);
    /* vm2 and priv2 go with the file */
    return finish(fd, "vm");
}

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

int drm_asahi_test_queue(drm_asahi_say_fn say_fn)
{
    struct drm_asahi_queue_create qc = { 0 };
    struct drm_asahi_queue_destroy qd = { 0 };
    struct drm_asahi_submit s = { 0 };
    struct drm_asahi_sync sy[2];
    struct drm_asahi_attachment att[17];
    struct cmdbuf cb, big;
    uint32_t vm, q, q2, so, so2;
    int fd, i;

    say = say_fn;
    failures = 0;
    fd = open_node();
    if (fd < 0) {
        return -1;
    }
    vm = vm_create(fd);
    bind_empty_stream(fd, vm);

    /* QUEUE_CREATE: flags MBZ, LOW and MEDIUM only, a VM of the file */
    qc.vm_id = vm;
    qc.flags = 1;
    EXPECT(fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc, EINVAL);
    qc.flags = 0;
    qc.priority = DRM_ASAHI_PRIORITY_HIGH;
    EXPECT(fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc, EINVAL);
    qc.priority = 4;
    EXPECT(fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc, EINVAL);
    qc.priority = DRM_ASAHI_PRIORITY_LOW;
    qc.vm_id = vm + 100;
    EXPECT(fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc, ENOENT);
    q = queue_create(fd, vm, DRM_ASAHI_PRIORITY_MEDIUM);
    q2 = queue_create(fd, vm, DRM_ASAHI_PRIORITY_LOW);
    qd.queue_id = q2;
    EXPECT(fd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd, 0);
    EXPECT(fd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd, ENOENT);

    /* One compute command, a binary out-sync, waited for */
    so = syncobj_create(fd);
    so2 = syncobj_create(fd);
    memset(sy, 0, sizeof(sy));
    sy[0].handle = so;
    memset(&cb, 0, sizeof(cb));
    compute_add(&cb, DRM_ASAHI_BARRIER_NONE);
    SUBMIT_EXPECT(q, &cb, sy, 0, 1, 0);
    CHECK(wait_point(fd, so, 0) == 0);
    /* ... and as an in-sync of the next */
    sy[1].handle = so2;
    SUBMIT_EXPECT(q, &cb, sy, 1, 1, 0);
    CHECK(wait_point(fd, so2, 0) == 0);
    /* Barriers on everything before: index 0 on both subqueues */
    memset(&cb, 0, sizeof(cb));
    compute_add(&cb, 0);
    compute_add(&cb, 1);
    cmd_add(&cb, DRM_ASAHI_CMD_COMPUTE, &(struct drm_asahi_cmd_compute){ 0 },
            16, 0, 2);
    SUBMIT_EXPECT(q, &cb, sy, 0, 1, 0);
    CHECK(wait_point(fd, so, 0) == 0);

    /* Errors */
    memset(&cb, 0, sizeof(cb));
    compute_add(&cb, DRM_ASAHI_BARRIER_NONE);
    s.queue_id = q;
    s.cmdbuf = (uintptr_t)cb.buf;
    s.cmdbuf_size = cb.size;
    s.flags = 1;
    EXPECT(fd, DRM_IOCTL_ASAHI_SUBMIT, &s, EINVAL);
    s.flags = 0;
    s.pad = 1;
    EXPECT(fd, DRM_IOCTL_ASAHI_SUBMIT, &s, EINVAL);
    s.pad = 0;
    s.queue_id = q2;
    EXPECT(fd, DRM_IOCTL_ASAHI_SUBMIT, &s, ENOENT);
    s.queue_id = q;
    s.cmdbuf = 8;
    EXPECT(fd, DRM_IOCTL_ASAHI_SUBMIT, &s, EFAULT);
    s.cmdbuf = (uintptr_t)cb.buf;
    s.cmdbuf_size = 0;
    EXPECT(fd, DRM_IOCTL_ASAHI_SUBMIT, &s, EINVAL);
    s.cmdbuf_size = cb.size - 1;
    EXPECT(fd, DRM_IOCTL_ASAHI_SUBMIT, &s, EINVAL);
    s.cmdbuf_size = 4;
    EXPECT(fd, DRM_IOCTL_ASAHI_SUBMIT, &s, EINVAL);
    memset(&big, 0, sizeof(big));
    for (i = 0; i < 65; i++) {
        cmd_add(&big, DRM_ASAHI_CMD_COMPUTE,
                &(struct drm_asahi_cmd_compute){ 0 }, 8,
                DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
    }
    SUBMIT_EXPECT(q, &big, sy, 0, 0, EINVAL);
    memset(&cb, 0, sizeof(cb));
    cmd_add(&cb, 7, "", 0, DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
    SUBMIT_EXPECT(q, &cb, sy, 0, 0, EINVAL);
    memset(&cb, 0, sizeof(cb));
    cmd_add(&cb, DRM_ASAHI_CMD_COMPUTE, &(struct drm_asahi_cmd_compute){
                .flags = 1 }, sizeof(struct drm_asahi_cmd_compute),
            DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
    SUBMIT_EXPECT(q, &cb, sy, 0, 0, EINVAL);
    memset(&cb, 0, sizeof(cb));
    compute_add(&cb, 1);
    SUBMIT_EXPECT(q, &cb, sy, 0, 0, EINVAL);
    memset(&cb, 0, sizeof(cb));
    cmd_add(&cb, DRM_ASAHI_CMD_COMPUTE, &(struct drm_asahi_cmd_compute){ 0 },
            16, 1, DRM_ASAHI_BARRIER_NONE);
    SUBMIT_EXPECT(q, &cb, sy, 0, 0, EINVAL);
    /* Attachments: at most 16, flags and pad MBZ */
    memset(att, 0, sizeof(att));
    memset(&cb, 0, sizeof(cb));
    cmd_add(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, att, 16 * sizeof(att[0]),
            DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
    compute_add(&cb, DRM_ASAHI_BARRIER_NONE);
    SUBMIT_EXPECT(q, &cb, sy, 0, 0, 0);
    memset(&cb, 0, sizeof(cb));
    cmd_add(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, att, 17 * sizeof(att[0]),
            DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
    compute_add(&cb, DRM_ASAHI_BARRIER_NONE);
    SUBMIT_EXPECT(q, &cb, sy, 0, 0, EINVAL);
    att[3].flags = 1;
    memset(&cb, 0, sizeof(cb));
    cmd_add(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, att, 4 * sizeof(att[0]),
            DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE);
    compute_add(&cb, DRM_ASAHI_BARRIER_NONE);
    SUBMIT_EXPECT(q, &cb, sy, 0, 0, EINVAL);
    /* Syncs: unknown type, binary with a point, no fence, bad handle */
    memset(&cb, 0, sizeof(cb));
    compute_add(&cb, DRM_ASAHI_BARRIER_NONE);
    sy[0].sync_type = 2;
    SUBMIT_EXPECT(q, &cb, sy, 1, 0, EINVAL);
    sy[0].sync_type = DRM_ASAHI_SYNC_SYNCOBJ;
    sy[0].timeline_value = 1;
    SUBMIT_EXPECT(q, &cb, sy, 1, 0, EINVAL);
    sy[0].timeline_value = 0;
    sy[0].handle = syncobj_create(fd);
    SUBMIT_EXPECT(q, &cb, sy, 1, 0, EINVAL);
    sy[0].handle = 0x7777;
    SUBMIT_EXPECT(q, &cb, sy, 1, 0, ENOENT);
    SUBMIT_EXPECT(q, &cb, sy, 0, 1, ENOENT);
    /* Render commands: a zero size is refused, a real one runs */
    {
        struct drm_asahi_cmd_render r = {
            .width_px = 640, .height_px = 480, .layers = 1,
            .utile_width_px = 32, .utile_height_px = 32, .samples = 1,
        };

        memset(&cb, 0, sizeof(cb));
        cmd_add(&cb, DRM_ASAHI_CMD_RENDER,
                &(struct drm_asahi_cmd_render){ 0 },
                sizeof(struct drm_asahi_cmd_render), DRM_ASAHI_BARRIER_NONE,
                DRM_ASAHI_BARRIER_NONE);
        SUBMIT_EXPECT(q, &cb, sy, 0, 0, EINVAL);
        memset(&cb, 0, sizeof(cb));
        cmd_add(&cb, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), 0, 0);
        compute_add(&cb, DRM_ASAHI_BARRIER_NONE);
        cmd_add(&cb, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), 1, 1);
        sy[0].handle = so;
        SUBMIT_EXPECT(q, &cb, sy, 0, 1, 0);
        CHECK(wait_point(fd, so, 0) == 0);
        r.samples = 3;
        memset(&cb, 0, sizeof(cb));
        cmd_add(&cb, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), 0, 0);
        SUBMIT_EXPECT(q, &cb, sy, 0, 0, EINVAL);
    }

    /* Everything submitted is done: the queue's last work signalled */
    sy[0].handle = so;
    memset(&cb, 0, sizeof(cb));
    compute_add(&cb, DRM_ASAHI_BARRIER_NONE);
    SUBMIT_EXPECT(q, &cb, sy, 0, 1, 0);
    CHECK(wait_point(fd, so, 0) == 0);
    qd.queue_id = q;
    EXPECT(fd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd, 0);
    SUBMIT_EXPECT(q, &cb, sy, 0, 1, ENOENT);
    return finish(fd, "queue");
}

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
