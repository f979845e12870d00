/*
 * asahi-uapi: rules the UAPI documents that drm/asahi does not enforce
 *
 * asahi_drm.h's introduction says every padding field is checked to be
 * zero and that fields unknown to the kernel are "ignored if zero, and
 * otherwise rejected".  The Rust drm/asahi leaves several pads unchecked
 * and truncates longer bind ops (file.rs); Mesa never sends either.
 * Attachment commands "must pass NONE" as barriers; the Rust driver only
 * refuses a barrier that would have to wait (queue/mod.rs).
 * These tests hold a driver to the UAPI text; they live
 * under /asahi/strict/ so that a run can leave them out.
 */

#define _GNU_SOURCE
#include <unistd.h>

#include "asahi-uapi.h"

#define RW (DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE)

/* Padding fields drm/asahi does not look at */
static int test_strict_pads(void)
{
    struct drm_asahi_vm_create vc = {
        .kernel_end = asahi_params.vm_end,
        .pad = 1,
    };
    struct drm_asahi_vm_destroy vd = { .pad = 1 };
    struct drm_asahi_gem_create gc = { .size = GPU_PAGE, .pad = 1 };
    struct drm_asahi_queue_destroy qd = { .pad = 1 };
    uint32_t vm;
    int fd = asahi_open();

    CHECK(fd >= 0);
    vc.kernel_start = vc.kernel_end - MESA_KERNEL_SIZE;
    CHECK_ERR(drm_ioctl(fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc), EINVAL);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    vd.vm_id = vm;
    CHECK_ERR(drm_ioctl(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd), EINVAL);
    CHECK_ERR(drm_ioctl(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc), EINVAL);
    CHECK_OK(asahi_queue_create(fd, vm, DRM_ASAHI_PRIORITY_MEDIUM,
                                MESA_USC_BASE, &qd.queue_id));
    CHECK_ERR(drm_ioctl(fd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd), EINVAL);
    close(fd);
    return TEST_PASS;
}

/*
 * A longer op whose unknown tail is not zero is rejected (UAPI
 * introduction: unknown fields are "ignored if zero, and otherwise
 * rejected").
 */
static int test_bind_unknown_fields(void)
{
    struct {
        struct drm_asahi_gem_bind_op op;
        uint64_t future;
    } ext = {
        .op = { .flags = RW, .range = GPU_PAGE, .addr = MESA_USER_VA },
        .future = 1,
    };
    uint32_t vm;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_OK(asahi_gem_create(fd, GPU_PAGE, 0, 0, &ext.op.handle));
    CHECK_ERR(asahi_vm_bind_ops(fd, vm, &ext.op, 1, sizeof(ext)), EINVAL);
    close(fd);
    return TEST_PASS;
}

/*
 * "If the kernel driver is too old to know some fields, those will be
 * ignored if zero, and otherwise rejected" (UAPI introduction): a longer
 * command whose unknown tail is not zero.
 */
static int test_submit_unknown_fields(void)
{
    struct {
        struct drm_asahi_cmd_compute k;
        uint64_t future[2];
    } big;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    memset(&big, 0, sizeof(big));
    client_compute(&c, &big.k);
    big.future[1] = 1;
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, sizeof(big), 0, 0, &big);
    CHECK_ERR(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0,
                           NULL, 0), EINVAL);
    client_close(&c);
    return TEST_PASS;
}

/* A barrier of 0 on an attachment command of a fresh (idle) queue */
static int test_attachment_barrier(void)
{
    struct drm_asahi_attachment att;
    struct drm_asahi_cmd_compute k;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    client_attachment(&c, &att);
    client_compute(&c, &k);
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, sizeof(att), 0, 0,
                &att);
    cmdbuf_push_compute(&cb, &k);
    CHECK_ERR(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0,
                           NULL, 0), EINVAL);
    client_close(&c);
    return TEST_PASS;
}

const UapiTest strict_tests[] = {
    { "/asahi/strict/pads", test_strict_pads },
    { "/asahi/strict/bind-unknown-fields", test_bind_unknown_fields },
    { "/asahi/strict/submit-unknown-fields", test_submit_unknown_fields },
    { "/asahi/strict/attachment-barrier", test_attachment_barrier },
    { NULL, NULL },
};
