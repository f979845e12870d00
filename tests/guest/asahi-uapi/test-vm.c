/*
 * asahi-uapi: VM_CREATE, VM_DESTROY, VM_BIND and GEM_BIND_OBJECT
 * (drm/asahi file.rs, mmu.rs)
 */

#define _GNU_SOURCE
#include <unistd.h>

#include "asahi-uapi.h"

#define RW (DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE)

/* A file with a Mesa-layout VM and one shared 4-page BO */
typedef struct VmFixture {
    int fd;
    uint32_t vm;
    uint32_t bo;
    uint64_t kstart;
} VmFixture;

#define BO_SIZE (4 * GPU_PAGE)

static int fixture(VmFixture *f)
{
    f->fd = asahi_open();
    if (f->fd < 0) {
        return f->fd;
    }
    f->kstart = asahi_params.vm_end - MESA_KERNEL_SIZE;
    if (asahi_vm_create_mesa(f->fd, &f->vm) ||
        asahi_gem_create(f->fd, BO_SIZE, 0, 0, &f->bo)) {
        return -EIO;
    }
    return 0;
}

static int test_vm_create_min(void)
{
    const struct drm_asahi_params_global *p = &asahi_params;
    uint32_t a, b;
    int fd = asahi_open();

    CHECK(fd >= 0);
    /* The smallest allowed kernel range, at the top and at the bottom */
    CHECK_OK(asahi_vm_create(fd, p->vm_end - p->vm_kernel_min_size,
                             p->vm_end, &a));
    CHECK_OK(asahi_vm_create(fd, p->vm_start,
                             p->vm_start + p->vm_kernel_min_size, &b));
    CHECK(a != 0 && b != 0 && a != b);
    CHECK_OK(asahi_vm_destroy(fd, a));
    CHECK_OK(asahi_vm_destroy(fd, b));
    close(fd);
    return TEST_PASS;
}

static int test_vm_create_bad_range(void)
{
    const struct drm_asahi_params_global *p = &asahi_params;
    uint64_t min = p->vm_kernel_min_size;
    uint32_t vm;
    int fd = asahi_open();

    CHECK(fd >= 0);
    /* too small */
    CHECK_ERR(asahi_vm_create(fd, p->vm_end - min + GPU_PAGE, p->vm_end,
                              &vm), EINVAL);
    /* beyond vm_end, below vm_start */
    CHECK_ERR(asahi_vm_create(fd, p->vm_end - min + GPU_PAGE,
                              p->vm_end + GPU_PAGE, &vm), EINVAL);
    CHECK_ERR(asahi_vm_create(fd, 0, min, &vm), EINVAL);
    /* unaligned ends */
    CHECK_ERR(asahi_vm_create(fd, p->vm_end - min - 0x1000, p->vm_end,
                              &vm), EINVAL);
    CHECK_ERR(asahi_vm_create(fd, p->vm_start, p->vm_start + min + 0x100,
                              &vm), EINVAL);
    /* inverted */
    CHECK_ERR(asahi_vm_create(fd, p->vm_end, p->vm_end - min, &vm),
              EINVAL);
    close(fd);
    return TEST_PASS;
}

static int test_vm_destroy_unknown(void)
{
    uint32_t vm;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_ERR(asahi_vm_destroy(fd, 1), ENOENT);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_ERR(asahi_vm_destroy(fd, vm + 1), ENOENT);
    CHECK_OK(asahi_vm_destroy(fd, vm));
    CHECK_ERR(asahi_vm_destroy(fd, vm), ENOENT);
    close(fd);
    return TEST_PASS;
}

/* VM ids are per file: another file cannot destroy ours. */
static int test_vm_per_file(void)
{
    uint32_t vm;
    int fd = asahi_open(), fd2 = asahi_open();

    CHECK(fd >= 0 && fd2 >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_ERR(asahi_vm_destroy(fd2, vm), ENOENT);
    CHECK_OK(asahi_vm_destroy(fd, vm));
    close(fd);
    close(fd2);
    return TEST_PASS;
}

/* READ|WRITE, READ only and WRITE only are the three permissions. */
static int test_bind_permissions(void)
{
    VmFixture f;

    CHECK_OK(fixture(&f));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE, MESA_USER_VA, RW));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE,
                        MESA_USER_VA + BO_SIZE, DRM_ASAHI_BIND_READ));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE,
                        MESA_USER_VA + 2 * BO_SIZE, DRM_ASAHI_BIND_WRITE));
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE,
                         MESA_USER_VA + 3 * BO_SIZE, 0), EINVAL);
    CHECK_OK(asahi_unbind(f.fd, f.vm, MESA_USER_VA, 3 * BO_SIZE));
    close(f.fd);
    return TEST_PASS;
}

/* A part of the BO, at an offset; the last page exactly */
static int test_bind_offset(void)
{
    VmFixture f;

    CHECK_OK(fixture(&f));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, GPU_PAGE, 2 * GPU_PAGE,
                        MESA_USER_VA, RW));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, BO_SIZE - GPU_PAGE, GPU_PAGE,
                        MESA_USER_VA + BO_SIZE, RW));
    close(f.fd);
    return TEST_PASS;
}

static int test_bind_unaligned(void)
{
    VmFixture f;

    CHECK_OK(fixture(&f));
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE, MESA_USER_VA + 0x1000,
                         RW), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0x1000, GPU_PAGE, MESA_USER_VA,
                         RW), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, GPU_PAGE + 0x1000,
                         MESA_USER_VA, RW), EINVAL);
    CHECK_ERR(asahi_unbind(f.fd, f.vm, MESA_USER_VA + 4, GPU_PAGE), EINVAL);
    CHECK_ERR(asahi_unbind(f.fd, f.vm, MESA_USER_VA, 0x2000), EINVAL);
    close(f.fd);
    return TEST_PASS;
}

/*
 * "Userspace must not bind any memory on this VM into this reserved
 * range": fully inside, straddling either end
 */
static int test_bind_kernel_range(void)
{
    VmFixture f;

    CHECK_OK(fixture(&f));
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE, f.kstart, RW),
              EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE,
                         f.kstart - GPU_PAGE, RW), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, GPU_PAGE,
                         asahi_params.vm_end - GPU_PAGE, RW), EINVAL);
    CHECK_ERR(asahi_unbind(f.fd, f.vm, f.kstart, GPU_PAGE), EINVAL);
    /* Right below it is user space */
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE, f.kstart - BO_SIZE,
                        RW));
    close(f.fd);
    return TEST_PASS;
}

/* Outside [vm_start, vm_end) */
static int test_bind_outside_vm(void)
{
    VmFixture f;
    uint32_t vm2;

    CHECK_OK(fixture(&f));
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, GPU_PAGE, 0, RW), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, 2 * GPU_PAGE,
                         asahi_params.vm_start - GPU_PAGE, RW), EINVAL);
    /* A VM whose kernel range is at the bottom: test the top end */
    CHECK_OK(asahi_vm_create(f.fd, asahi_params.vm_start,
                             asahi_params.vm_start +
                             asahi_params.vm_kernel_min_size, &vm2));
    CHECK_ERR(asahi_bind(f.fd, vm2, f.bo, 0, GPU_PAGE, asahi_params.vm_end,
                         RW), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, vm2, f.bo, 0, 2 * GPU_PAGE,
                         asahi_params.vm_end - GPU_PAGE, RW), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, vm2, f.bo, 0, GPU_PAGE, 1ULL << 40, RW),
              EINVAL);
    CHECK_OK(asahi_bind(f.fd, vm2, f.bo, 0, GPU_PAGE,
                        asahi_params.vm_end - GPU_PAGE, RW));
    /* Wrap-around of addr + range */
    CHECK_ERR(asahi_bind(f.fd, vm2, f.bo, 0, 0ULL - GPU_PAGE, 2 * GPU_PAGE,
                         RW), EINVAL);
    close(f.fd);
    return TEST_PASS;
}

/* offset + range beyond the object */
static int test_bind_beyond_bo(void)
{
    VmFixture f;

    CHECK_OK(fixture(&f));
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE + GPU_PAGE,
                         MESA_USER_VA, RW), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, GPU_PAGE, BO_SIZE, MESA_USER_VA,
                         RW), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, BO_SIZE, GPU_PAGE, MESA_USER_VA,
                         RW), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0ULL - GPU_PAGE, 2 * GPU_PAGE,
                         MESA_USER_VA, RW), EINVAL);
    close(f.fd);
    return TEST_PASS;
}

static int test_bind_bad_handle_vm(void)
{
    VmFixture f;

    CHECK_OK(fixture(&f));
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo + 100, 0, GPU_PAGE, MESA_USER_VA,
                         RW), ENOENT);
    CHECK_ERR(asahi_bind(f.fd, f.vm + 100, f.bo, 0, GPU_PAGE, MESA_USER_VA,
                         RW), ENOENT);
    close(f.fd);
    return TEST_PASS;
}

static int test_bind_bad_flags(void)
{
    VmFixture f;

    CHECK_OK(fixture(&f));
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, GPU_PAGE, MESA_USER_VA,
                         RW | (1u << 4)), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, GPU_PAGE, MESA_USER_VA,
                         RW | (1u << 31)), EINVAL);
    /* UNBIND takes no other flag, handle or offset */
    CHECK_ERR(asahi_bind(f.fd, f.vm, 0, 0, GPU_PAGE, MESA_USER_VA,
                         DRM_ASAHI_BIND_UNBIND | DRM_ASAHI_BIND_READ),
              EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, 0, GPU_PAGE, MESA_USER_VA,
                         DRM_ASAHI_BIND_UNBIND), EINVAL);
    CHECK_ERR(asahi_bind(f.fd, f.vm, 0, GPU_PAGE, GPU_PAGE, MESA_USER_VA,
                         DRM_ASAHI_BIND_UNBIND), EINVAL);
    close(f.fd);
    return TEST_PASS;
}

/* The bind header: stride 0 and pad are rejected. */
static int test_bind_bad_header(void)
{
    struct drm_asahi_gem_bind_op op = {
        .flags = RW, .range = GPU_PAGE, .addr = MESA_USER_VA,
    };
    struct drm_asahi_vm_bind vb = {
        .num_binds = 1,
        .stride = sizeof(op),
        .pad = 1,
        .userptr = (uintptr_t)&op,
    };
    VmFixture f;

    CHECK_OK(fixture(&f));
    op.handle = f.bo;
    vb.vm_id = f.vm;
    CHECK_ERR(drm_ioctl(f.fd, DRM_IOCTL_ASAHI_VM_BIND, &vb), EINVAL);
    CHECK_ERR(asahi_vm_bind_ops(f.fd, f.vm, &op, 1, 0), EINVAL);
    CHECK_ERR(asahi_vm_bind_ops(f.fd, f.vm, (void *)8, 1, sizeof(op)),
              EFAULT);
    close(f.fd);
    return TEST_PASS;
}

/*
 * Extensibility: a larger stride (trailing zeros) is accepted and ops
 * are read at that stride; several ops in one call apply in order.
 */
static int test_bind_stride(void)
{
    struct {
        struct drm_asahi_gem_bind_op op;
        uint64_t future[2];
    } ops[3];
    VmFixture f;
    int i;

    CHECK_OK(fixture(&f));
    memset(ops, 0, sizeof(ops));
    for (i = 0; i < 2; i++) {
        ops[i].op.flags = RW;
        ops[i].op.handle = f.bo;
        ops[i].op.range = BO_SIZE;
        ops[i].op.addr = MESA_USER_VA + i * BO_SIZE;
    }
    ops[2].op.flags = DRM_ASAHI_BIND_UNBIND;
    ops[2].op.range = BO_SIZE;
    ops[2].op.addr = MESA_USER_VA;
    CHECK_OK(asahi_vm_bind_ops(f.fd, f.vm, &ops[0].op, 3, sizeof(ops[0])));
    close(f.fd);
    return TEST_PASS;
}

/*
 * Binding over an existing mapping replaces the overlapped part (DRM
 * GPUVM split/merge, as drm/asahi's mmu.rs); the UAPI does not forbid it and
 * Mesa's sparse binding relies on it.
 */
static int test_bind_overlap_replaces(void)
{
    VmFixture f;
    uint32_t bo2;

    CHECK_OK(fixture(&f));
    CHECK_OK(asahi_gem_create(f.fd, BO_SIZE, 0, 0, &bo2));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE, MESA_USER_VA, RW));
    /* the middle two pages, then straddling the end */
    CHECK_OK(asahi_bind(f.fd, f.vm, bo2, 0, 2 * GPU_PAGE,
                        MESA_USER_VA + GPU_PAGE, DRM_ASAHI_BIND_READ));
    CHECK_OK(asahi_bind(f.fd, f.vm, bo2, 0, BO_SIZE,
                        MESA_USER_VA + 3 * GPU_PAGE, RW));
    /* unbind across all of it and some unmapped space */
    CHECK_OK(asahi_unbind(f.fd, f.vm, MESA_USER_VA - GPU_PAGE,
                          3 * BO_SIZE));
    close(f.fd);
    return TEST_PASS;
}

/* Unbinding space nothing is bound to is not an error. */
static int test_unbind_unmapped(void)
{
    VmFixture f;

    CHECK_OK(fixture(&f));
    CHECK_OK(asahi_unbind(f.fd, f.vm, MESA_USER_VA, 1ULL << 30));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE, MESA_USER_VA, RW));
    CHECK_OK(asahi_unbind(f.fd, f.vm, MESA_USER_VA, BO_SIZE));
    CHECK_OK(asahi_unbind(f.fd, f.vm, MESA_USER_VA, BO_SIZE));
    close(f.fd);
    return TEST_PASS;
}

/*
 * SINGLE_PAGE maps the page at offset over a range much larger than the
 * BO (Mesa's sparse scratch/zero pages); the page must be in the BO.
 */
static int test_bind_single_page(void)
{
    VmFixture f;

    CHECK_OK(fixture(&f));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, 1ULL << 30, MESA_USER_VA,
                        DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_SINGLE_PAGE));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, BO_SIZE - GPU_PAGE, 64 * GPU_PAGE,
                        MESA_USER_VA + (1ULL << 30),
                        RW | DRM_ASAHI_BIND_SINGLE_PAGE));
    CHECK_ERR(asahi_bind(f.fd, f.vm, f.bo, BO_SIZE, GPU_PAGE,
                         MESA_USER_VA + (2ULL << 30),
                         RW | DRM_ASAHI_BIND_SINGLE_PAGE), EINVAL);
    /* Part of a single-page range is unbound, the rest stays */
    CHECK_OK(asahi_unbind(f.fd, f.vm, MESA_USER_VA + GPU_PAGE, GPU_PAGE));
    /* Normal binds over single-page ones */
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE, MESA_USER_VA, RW));
    close(f.fd);
    return TEST_PASS;
}

/* A VM_PRIVATE BO cannot go into another VM. */
static int test_bind_private_other_vm(void)
{
    VmFixture f;
    uint32_t vm2, priv;

    CHECK_OK(fixture(&f));
    CHECK_OK(asahi_vm_create_mesa(f.fd, &vm2));
    CHECK_OK(asahi_gem_create(f.fd, GPU_PAGE, DRM_ASAHI_GEM_VM_PRIVATE,
                              f.vm, &priv));
    CHECK_OK(asahi_bind(f.fd, f.vm, priv, 0, GPU_PAGE, MESA_USER_VA, RW));
    CHECK_ERR(asahi_bind(f.fd, vm2, priv, 0, GPU_PAGE, MESA_USER_VA, RW),
              EINVAL);
    /* A shared BO goes into both */
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, GPU_PAGE, MESA_USER_VA +
                        GPU_PAGE, RW));
    CHECK_OK(asahi_bind(f.fd, vm2, f.bo, 0, GPU_PAGE, MESA_USER_VA, RW));
    close(f.fd);
    return TEST_PASS;
}

/*
 * Closing a handle unbinds it everywhere (Mesa never unbinds before
 * closing); destroying a VM with objects bound is fine too.
 */
static int test_bind_close_and_destroy(void)
{
    VmFixture f;
    uint32_t vm2;

    CHECK_OK(fixture(&f));
    CHECK_OK(asahi_vm_create_mesa(f.fd, &vm2));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE, MESA_USER_VA, RW));
    CHECK_OK(asahi_bind(f.fd, vm2, f.bo, 0, BO_SIZE, MESA_USER_VA, RW));
    CHECK_OK(asahi_gem_close(f.fd, f.bo));
    CHECK_OK(asahi_gem_create(f.fd, BO_SIZE, 0, 0, &f.bo));
    CHECK_OK(asahi_bind(f.fd, f.vm, f.bo, 0, BO_SIZE, MESA_USER_VA, RW));
    CHECK_OK(asahi_vm_destroy(f.fd, f.vm));
    CHECK_OK(asahi_vm_destroy(f.fd, vm2));
    CHECK_OK(asahi_gem_close(f.fd, f.bo));
    close(f.fd);
    return TEST_PASS;
}

/* Ops apply one at a time: a bad op fails the call, earlier ones stay. */
static int test_bind_partial_failure(void)
{
    struct drm_asahi_gem_bind_op ops[2] = {
        { .flags = RW, .range = GPU_PAGE, .addr = MESA_USER_VA },
        { .flags = RW, .range = GPU_PAGE, .addr = MESA_USER_VA + 1 },
    };
    VmFixture f;

    CHECK_OK(fixture(&f));
    ops[0].handle = ops[1].handle = f.bo;
    CHECK_ERR(asahi_vm_bind_ops(f.fd, f.vm, ops, 2, sizeof(ops[0])),
              EINVAL);
    close(f.fd);
    return TEST_PASS;
}

/* GEM_BIND_OBJECT: a timestamp buffer mapped for the firmware */
static int test_bind_object_timestamps(void)
{
    VmFixture f;
    uint32_t o1, o2;

    CHECK_OK(fixture(&f));
    CHECK_OK(asahi_bind_object(f.fd, f.bo, 0, BO_SIZE, &o1));
    CHECK_OK(asahi_bind_object(f.fd, f.bo, GPU_PAGE, GPU_PAGE, &o2));
    CHECK(o1 != 0 && o2 != 0 && o1 != o2);
    CHECK_OK(asahi_unbind_object(f.fd, o1));
    CHECK_ERR(asahi_unbind_object(f.fd, o1), ENOENT);
    CHECK_OK(asahi_unbind_object(f.fd, o2));
    /* Still bound when the file closes: the kernel cleans up */
    CHECK_OK(asahi_bind_object(f.fd, f.bo, 0, BO_SIZE, &o1));
    close(f.fd);
    return TEST_PASS;
}

static int bind_object_raw(int fd, struct drm_asahi_gem_bind_object *bo)
{
    return drm_ioctl(fd, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, bo);
}

static int test_bind_object_errors(void)
{
    struct drm_asahi_gem_bind_object ok = {
        .op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
        .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
        .range = GPU_PAGE,
    }, bo;
    VmFixture f;
    uint32_t priv, obj;

    CHECK_OK(fixture(&f));
    ok.handle = f.bo;
    bo = ok;
    bo.flags = 0;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo = ok;
    bo.flags |= 2;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo = ok;
    bo.vm_id = f.vm;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo = ok;
    bo.pad = 1;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo = ok;
    bo.op = 2;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo = ok;
    bo.offset = 0x1000;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo = ok;
    bo.range = 0x1000;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo = ok;
    bo.offset = BO_SIZE;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo = ok;
    bo.range = BO_SIZE + GPU_PAGE;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo = ok;
    bo.handle = f.bo + 100;
    CHECK_ERR(bind_object_raw(f.fd, &bo), ENOENT);
    /* Timestamp buffers must be shareable */
    CHECK_OK(asahi_gem_create(f.fd, GPU_PAGE, DRM_ASAHI_GEM_VM_PRIVATE,
                              f.vm, &priv));
    bo = ok;
    bo.handle = priv;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    /* UNBIND takes only the object handle */
    CHECK_OK(asahi_bind_object(f.fd, f.bo, 0, GPU_PAGE, &obj));
    memset(&bo, 0, sizeof(bo));
    bo.op = DRM_ASAHI_BIND_OBJECT_OP_UNBIND;
    bo.object_handle = obj;
    bo.range = GPU_PAGE;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo.range = 0;
    bo.flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo.flags = 0;
    bo.handle = f.bo;
    CHECK_ERR(bind_object_raw(f.fd, &bo), EINVAL);
    bo.handle = 0;
    bo.object_handle = obj + 100;
    CHECK_ERR(bind_object_raw(f.fd, &bo), ENOENT);
    CHECK_OK(asahi_unbind_object(f.fd, obj));
    close(f.fd);
    return TEST_PASS;
}

const UapiTest vm_tests[] = {
    { "/asahi/vm/create-min-kernel-range", test_vm_create_min },
    { "/asahi/vm/create-bad-kernel-range", test_vm_create_bad_range },
    { "/asahi/vm/destroy-unknown", test_vm_destroy_unknown },
    { "/asahi/vm/per-file", test_vm_per_file },
    { "/asahi/vm/bind-permissions", test_bind_permissions },
    { "/asahi/vm/bind-offset", test_bind_offset },
    { "/asahi/vm/bind-unaligned", test_bind_unaligned },
    { "/asahi/vm/bind-kernel-range", test_bind_kernel_range },
    { "/asahi/vm/bind-outside-vm", test_bind_outside_vm },
    { "/asahi/vm/bind-beyond-bo", test_bind_beyond_bo },
    { "/asahi/vm/bind-bad-handle-vm", test_bind_bad_handle_vm },
    { "/asahi/vm/bind-bad-flags", test_bind_bad_flags },
    { "/asahi/vm/bind-bad-header", test_bind_bad_header },
    { "/asahi/vm/bind-stride", test_bind_stride },
    { "/asahi/vm/bind-overlap-replaces", test_bind_overlap_replaces },
    { "/asahi/vm/unbind-unmapped", test_unbind_unmapped },
    { "/asahi/vm/bind-single-page", test_bind_single_page },
    { "/asahi/vm/bind-private-other-vm", test_bind_private_other_vm },
    { "/asahi/vm/close-and-destroy-bound", test_bind_close_and_destroy },
    { "/asahi/vm/bind-partial-failure", test_bind_partial_failure },
    { "/asahi/bind-object/timestamps", test_bind_object_timestamps },
    { "/asahi/bind-object/errors", test_bind_object_errors },
    { NULL, NULL },
};
