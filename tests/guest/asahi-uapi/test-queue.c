/*
 * asahi-uapi: QUEUE_CREATE and QUEUE_DESTROY (drm/asahi file.rs, queue/mod.rs)
 */

#define _GNU_SOURCE
#include <unistd.h>

#include "asahi-uapi.h"

static int test_queue_priorities(void)
{
    uint32_t vm, low, med;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_OK(asahi_queue_create(fd, vm, DRM_ASAHI_PRIORITY_LOW,
                                MESA_USC_BASE, &low));
    CHECK_OK(asahi_queue_create(fd, vm, DRM_ASAHI_PRIORITY_MEDIUM,
                                MESA_USC_BASE, &med));
    CHECK(low != 0 && med != 0 && low != med);
    CHECK_OK(asahi_queue_destroy(fd, low));
    CHECK_OK(asahi_queue_destroy(fd, med));
    close(fd);
    return TEST_PASS;
}

/*
 * HIGH and REALTIME are "reserved for future extension": drm/asahi
 * refuses them (no CAP_SYS_NICE path yet), as does anything above.
 */
static int test_queue_bad_priority(void)
{
    uint32_t vm, q;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_ERR(asahi_queue_create(fd, vm, DRM_ASAHI_PRIORITY_HIGH,
                                 MESA_USC_BASE, &q), EINVAL);
    CHECK_ERR(asahi_queue_create(fd, vm, DRM_ASAHI_PRIORITY_REALTIME,
                                 MESA_USC_BASE, &q), EINVAL);
    CHECK_ERR(asahi_queue_create(fd, vm, 4, MESA_USC_BASE, &q), EINVAL);
    CHECK_ERR(asahi_queue_create(fd, vm, 0xffffffff, MESA_USC_BASE, &q),
              EINVAL);
    close(fd);
    return TEST_PASS;
}

static int test_queue_bad_flags(void)
{
    struct drm_asahi_queue_create qc = {
        .flags = 1,
        .priority = DRM_ASAHI_PRIORITY_MEDIUM,
        .usc_exec_base = MESA_USC_BASE,
    };
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &qc.vm_id));
    CHECK_ERR(drm_ioctl(fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc), EINVAL);
    close(fd);
    return TEST_PASS;
}

static int test_queue_unknown_vm(void)
{
    uint32_t vm, q;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_ERR(asahi_queue_create(fd, 1, DRM_ASAHI_PRIORITY_MEDIUM,
                                 MESA_USC_BASE, &q), ENOENT);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_OK(asahi_vm_destroy(fd, vm));
    CHECK_ERR(asahi_queue_create(fd, vm, DRM_ASAHI_PRIORITY_MEDIUM,
                                 MESA_USC_BASE, &q), ENOENT);
    close(fd);
    return TEST_PASS;
}

static int test_queue_destroy_unknown(void)
{
    uint32_t vm, q;
    int fd = asahi_open(), fd2 = asahi_open();

    CHECK(fd >= 0 && fd2 >= 0);
    CHECK_ERR(asahi_queue_destroy(fd, 1), ENOENT);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_OK(asahi_queue_create(fd, vm, DRM_ASAHI_PRIORITY_LOW, 0, &q));
    /* queue ids are per file */
    CHECK_ERR(asahi_queue_destroy(fd2, q), ENOENT);
    CHECK_OK(asahi_queue_destroy(fd, q));
    CHECK_ERR(asahi_queue_destroy(fd, q), ENOENT);
    close(fd);
    close(fd2);
    return TEST_PASS;
}

/* A queue keeps its VM alive: destroying the VM id first is fine. */
static int test_queue_outlives_vm_id(void)
{
    uint32_t vm, q;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_OK(asahi_queue_create(fd, vm, DRM_ASAHI_PRIORITY_MEDIUM,
                                MESA_USC_BASE, &q));
    CHECK_OK(asahi_vm_destroy(fd, vm));
    CHECK_OK(asahi_queue_destroy(fd, q));
    close(fd);
    return TEST_PASS;
}

/* Many queues on many VMs, some left for file close to destroy */
static int test_queue_many(void)
{
    enum { NVM = 4, NQ = 32 };
    uint32_t vm[NVM], q[NQ];
    int fd = asahi_open(), i;

    CHECK(fd >= 0);
    for (i = 0; i < NVM; i++) {
        CHECK_OK(asahi_vm_create_mesa(fd, &vm[i]));
    }
    for (i = 0; i < NQ; i++) {
        CHECK_OK(asahi_queue_create(fd, vm[i % NVM], i & 1, MESA_USC_BASE,
                                    &q[i]));
    }
    for (i = 0; i < NQ; i += 2) {
        CHECK_OK(asahi_queue_destroy(fd, q[i]));
    }
    close(fd);
    return TEST_PASS;
}

const UapiTest queue_tests[] = {
    { "/asahi/queue/priorities", test_queue_priorities },
    { "/asahi/queue/bad-priority", test_queue_bad_priority },
    { "/asahi/queue/bad-flags", test_queue_bad_flags },
    { "/asahi/queue/unknown-vm", test_queue_unknown_vm },
    { "/asahi/queue/destroy-unknown", test_queue_destroy_unknown },
    { "/asahi/queue/outlives-vm-id", test_queue_outlives_vm_id },
    { "/asahi/queue/many", test_queue_many },
    { NULL, NULL },
};
