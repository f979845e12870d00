/*
 * asahi-uapi: DRM_IOCTL_VERSION, GET_PARAMS and GET_TIME
 *
 * Expected values: what drm/asahi reports on t8103 (file.rs get_params)
 * for the machine's GPU (ID_VERSION says G13G revision B1; the core
 * mask is the apple-agx "core-mask" property, -c on our command line).
 */

#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "asahi-uapi.h"

unsigned int opt_core_mask = 0xff;

/* Mesa picks its driver by this name: it must be exactly "asahi". */
static int test_version_name(void)
{
    char name[64] = "", date[64] = "", desc[128] = "";
    struct drm_version v = {
        .name = name, .name_len = sizeof(name) - 1,
        .date = date, .date_len = sizeof(date) - 1,
        .desc = desc, .desc_len = sizeof(desc) - 1,
    };
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(drm_ioctl(fd, DRM_IOCTL_VERSION, &v));
    diag("driver %s %d.%d.%d \"%s\"", name, v.version_major,
         v.version_minor, v.version_patchlevel, desc);
    CHECK_EQ(v.name_len, 5);
    CHECK(!strcmp(name, "asahi"));
    close(fd);
    return TEST_PASS;
}

static uint64_t get_cap(int fd, uint64_t cap)
{
    struct drm_get_cap gc = { .capability = cap };

    return drm_ioctl(fd, DRM_IOCTL_GET_CAP, &gc) ? 0 : gc.value;
}

/* What Mesa relies on: syncobjs, timelines, PRIME both ways */
static int test_node_caps(void)
{
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_EQ(get_cap(fd, DRM_CAP_SYNCOBJ), 1);
    CHECK_EQ(get_cap(fd, DRM_CAP_SYNCOBJ_TIMELINE), 1);
    CHECK_EQ(get_cap(fd, DRM_CAP_PRIME),
             DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT);
    close(fd);
    return TEST_PASS;
}

static int test_params_identity(void)
{
    const struct drm_asahi_params_global *p = &asahi_params;

    diag("G%u%c rev %02X chip %04X, %u die(s), %u cluster(s) of %u cores",
         p->gpu_generation, (char)p->gpu_variant, p->gpu_revision,
         p->chip_id, p->num_dies, p->num_clusters_total,
         p->num_cores_per_cluster);
    CHECK_EQ(p->gpu_generation, 13);
    CHECK_EQ(p->gpu_variant, 'G');
    /* B1 in BCD, from the machine's ID_VERSION */
    CHECK_EQ(p->gpu_revision, 0x11);
    CHECK_EQ(p->chip_id, 0x8103);
    CHECK_EQ(p->num_dies, 1);
    CHECK_EQ(p->num_clusters_total, 1);
    CHECK_EQ(p->num_cores_per_cluster, 8);
    CHECK_EQ(p->max_frequency_khz, 1000000);
    return TEST_PASS;
}

/* Cluster 0 has the firmware's core mask; no other cluster exists. */
static int test_params_core_masks(void)
{
    int i;

    CHECK_EQ(asahi_params.core_masks[0], opt_core_mask);
    for (i = 1; i < DRM_ASAHI_MAX_CLUSTERS; i++) {
        CHECK_EQ(asahi_params.core_masks[i], 0);
    }
    return TEST_PASS;
}

static int test_params_vm_range(void)
{
    const struct drm_asahi_params_global *p = &asahi_params;

    CHECK_EQ(p->vm_start, T8103_VM_START);
    CHECK_EQ(p->vm_end, T8103_VM_END);
    CHECK_EQ(p->vm_kernel_min_size, T8103_VM_KERNEL_MIN);
    /* Mesa's layout must fit: shader heap at 2^36, 32 GiB kernel range */
    CHECK(p->vm_start <= MESA_PRINTF_VA);
    CHECK(p->vm_end - MESA_KERNEL_SIZE > MESA_USER_VA);
    return TEST_PASS;
}

static int test_params_limits(void)
{
    CHECK_EQ(asahi_params.max_commands_per_submission, 64);
    CHECK_EQ(asahi_params.max_attachments, 16);
    return TEST_PASS;
}

/* User timestamps are in nanoseconds whatever the firmware counts in */
static int test_params_timestamp_frequency(void)
{
    CHECK_EQ(asahi_params.command_timestamp_frequency_hz, 1000000000);
    return TEST_PASS;
}

/* fault_control defaults to 0xb in drm/asahi: soft faults on */
static int test_params_features(void)
{
    CHECK_EQ(asahi_params.features, DRM_ASAHI_FEATURE_SOFT_FAULTS);
    return TEST_PASS;
}

/*
 * Older userspace passes a smaller size: the kernel writes exactly that
 * many bytes and nothing after them.
 */
static int test_params_size_honoured(void)
{
    static const uint64_t sizes[] = {
        0, 1, 8, 12, offsetof(struct drm_asahi_params_global, core_masks),
        sizeof(struct drm_asahi_params_global) - 8,
    };
    uint8_t buf[sizeof(struct drm_asahi_params_global) + 64];
    int fd = asahi_open();
    size_t i, j;

    CHECK(fd >= 0);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        memset(buf, 0xa5, sizeof(buf));
        CHECK_OK(asahi_get_params(fd, 0, 0, buf, sizes[i]));
        CHECK(!memcmp(buf, &asahi_params, sizes[i]));
        for (j = sizes[i]; j < sizeof(buf); j++) {
            if (buf[j] != 0xa5) {
                diag("size %llu: byte %zu written",
                     (unsigned long long)sizes[i], j);
                return TEST_FAIL;
            }
        }
    }
    close(fd);
    return TEST_PASS;
}

/* Newer userspace passes a larger size: the tail is left alone. */
static int test_params_size_larger(void)
{
    uint8_t buf[sizeof(struct drm_asahi_params_global) + 64];
    int fd = asahi_open();
    size_t j;

    CHECK(fd >= 0);
    memset(buf, 0xa5, sizeof(buf));
    CHECK_OK(asahi_get_params(fd, 0, 0, buf, sizeof(buf)));
    CHECK(!memcmp(buf, &asahi_params, sizeof(asahi_params)));
    for (j = sizeof(asahi_params); j < sizeof(buf); j++) {
        CHECK_EQ(buf[j], 0xa5);
    }
    close(fd);
    return TEST_PASS;
}

static int test_params_bad_group(void)
{
    struct drm_asahi_params_global p;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_ERR(asahi_get_params(fd, 1, 0, &p, sizeof(p)), EINVAL);
    CHECK_ERR(asahi_get_params(fd, 0xffffffff, 0, &p, sizeof(p)), EINVAL);
    close(fd);
    return TEST_PASS;
}

static int test_params_bad_pad(void)
{
    struct drm_asahi_params_global p;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_ERR(asahi_get_params(fd, 0, 1, &p, sizeof(p)), EINVAL);
    close(fd);
    return TEST_PASS;
}

static int test_params_bad_pointer(void)
{
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_ERR(asahi_get_params(fd, 0, 0, (void *)8,
                               sizeof(asahi_params)), EFAULT);
    close(fd);
    return TEST_PASS;
}

static int test_time_bad_flags(void)
{
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_ERR(asahi_get_time(fd, 1, NULL), EINVAL);
    CHECK_ERR(asahi_get_time(fd, 1ULL << 63, NULL), EINVAL);
    close(fd);
    return TEST_PASS;
}

/* Never goes backwards, and advances */
static int test_time_monotonic(void)
{
    uint64_t prev = 0, t = 0;
    int fd = asahi_open(), i;

    CHECK(fd >= 0);
    for (i = 0; i < 1000; i++) {
        CHECK_OK(asahi_get_time(fd, 0, &t));
        CHECK(t >= prev);
        prev = t;
    }
    usleep(2000);
    CHECK_OK(asahi_get_time(fd, 0, &t));
    CHECK(t > prev);
    close(fd);
    return TEST_PASS;
}

/* The counter EL0 reads; the guest's virtual and physical agree. */
static uint64_t read_cntvct(void)
{
    uint64_t v;

    __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
    return v;
}

/*
 * The timebase: nanoseconds from the CPU counter at drm/asahi's 24 MHz
 * (raw * 125 / 3), and therefore the same rate as CLOCK_MONOTONIC.
 */
static int test_time_nanoseconds(void)
{
    uint64_t c0, c1, g0, g1;
    int64_t m0, m1;
    double rate;
    int fd = asahi_open();

    CHECK(fd >= 0);
    c0 = read_cntvct();
    CHECK_OK(asahi_get_time(fd, 0, &g0));
    c1 = read_cntvct();
    diag("GET_TIME %llu ns; counter %llu..%llu (x125/3: %llu..%llu)",
         (unsigned long long)g0, (unsigned long long)c0,
         (unsigned long long)c1, (unsigned long long)(c0 * 125 / 3),
         (unsigned long long)(c1 * 125 / 3));
    CHECK(g0 >= c0 * 125 / 3 && g0 <= c1 * 125 / 3);

    m0 = now_ns();
    CHECK_OK(asahi_get_time(fd, 0, &g0));
    usleep(200 * 1000);
    m1 = now_ns();
    CHECK_OK(asahi_get_time(fd, 0, &g1));
    rate = (double)(g1 - g0) / (double)(m1 - m0);
    diag("GET_TIME advanced %.4f x CLOCK_MONOTONIC", rate);
    CHECK(rate > 0.95 && rate < 1.05);
    close(fd);
    return TEST_PASS;
}

const UapiTest params_tests[] = {
    { "/asahi/node/version-name", test_version_name },
    { "/asahi/node/caps", test_node_caps },
    { "/asahi/params/identity", test_params_identity },
    { "/asahi/params/core-masks", test_params_core_masks },
    { "/asahi/params/vm-range", test_params_vm_range },
    { "/asahi/params/limits", test_params_limits },
    { "/asahi/params/timestamp-frequency", test_params_timestamp_frequency },
    { "/asahi/params/features", test_params_features },
    { "/asahi/params/size-honoured", test_params_size_honoured },
    { "/asahi/params/size-larger", test_params_size_larger },
    { "/asahi/params/bad-group", test_params_bad_group },
    { "/asahi/params/bad-pad", test_params_bad_pad },
    { "/asahi/params/bad-pointer", test_params_bad_pointer },
    { "/asahi/time/bad-flags", test_time_bad_flags },
    { "/asahi/time/monotonic", test_time_monotonic },
    { "/asahi/time/nanoseconds", test_time_nanoseconds },
    { NULL, NULL },
};
