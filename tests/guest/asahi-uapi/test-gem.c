/*
 * asahi-uapi: GEM_CREATE, GEM_MMAP_OFFSET, CPU mappings and PRIME
 * (drm/asahi file.rs gem_create, gem.rs)
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "asahi-uapi.h"

/* Writes a pattern through one mapping, reads it through another. */
static int check_rw(int fd, uint32_t handle, uint64_t size)
{
    uint32_t *a = asahi_gem_map(fd, handle, size), *b;
    uint64_t i, n = size / 4;

    CHECK(a);
    b = asahi_gem_map(fd, handle, size);
    CHECK(b);
    /* New objects read as zero */
    for (i = 0; i < n; i++) {
        CHECK_EQ(a[i], 0);
    }
    for (i = 0; i < n; i++) {
        a[i] = (uint32_t)(i * 2654435761u);
    }
    for (i = 0; i < n; i++) {
        CHECK_EQ(b[i], (uint32_t)(i * 2654435761u));
    }
    munmap(a, size);
    munmap(b, size);
    return TEST_PASS;
}

static int test_gem_create_default(void)
{
    uint32_t h;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_gem_create(fd, 4 * GPU_PAGE, 0, 0, &h));
    CHECK(h != 0);
    CHECK(check_rw(fd, h, 4 * GPU_PAGE) == TEST_PASS);
    CHECK_OK(asahi_gem_close(fd, h));
    close(fd);
    return TEST_PASS;
}

static int test_gem_create_writeback(void)
{
    uint32_t h;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_gem_create(fd, GPU_PAGE, DRM_ASAHI_GEM_WRITEBACK, 0, &h));
    CHECK(check_rw(fd, h, GPU_PAGE) == TEST_PASS);
    CHECK_OK(asahi_gem_close(fd, h));
    close(fd);
    return TEST_PASS;
}

static int test_gem_create_vm_private(void)
{
    uint32_t vm, h;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_OK(asahi_gem_create(fd, 2 * GPU_PAGE,
                              DRM_ASAHI_GEM_VM_PRIVATE |
                              DRM_ASAHI_GEM_WRITEBACK, vm, &h));
    CHECK(check_rw(fd, h, 2 * GPU_PAGE) == TEST_PASS);
    CHECK_OK(asahi_bind(fd, vm, h, 0, 2 * GPU_PAGE, MESA_USER_VA,
                        DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE));
    CHECK_OK(asahi_gem_close(fd, h));
    CHECK_OK(asahi_vm_destroy(fd, vm));
    close(fd);
    return TEST_PASS;
}

/* Sizes round up to the 16 KiB page: the whole page can be mapped. */
static int test_gem_size_rounded(void)
{
    uint32_t h;
    uint64_t off;
    uint8_t *p;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_gem_create(fd, 1, 0, 0, &h));
    CHECK_OK(asahi_gem_mmap_offset(fd, h, 0, &off));
    p = mmap(NULL, GPU_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
    CHECK(p != MAP_FAILED);
    p[GPU_PAGE - 1] = 0x5a;
    CHECK_EQ(p[GPU_PAGE - 1], 0x5a);
    munmap(p, GPU_PAGE);
    close(fd);
    return TEST_PASS;
}

static int test_gem_bad_flags(void)
{
    uint32_t h;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_ERR(asahi_gem_create(fd, GPU_PAGE, 1u << 2, 0, &h), EINVAL);
    CHECK_ERR(asahi_gem_create(fd, GPU_PAGE, 1u << 31, 0, &h), EINVAL);
    close(fd);
    return TEST_PASS;
}

static int test_gem_size_zero(void)
{
    uint32_t h;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_ERR(asahi_gem_create(fd, 0, 0, 0, &h), EINVAL);
    close(fd);
    return TEST_PASS;
}

/* vm_id is only meaningful with VM_PRIVATE */
static int test_gem_vm_id_without_private(void)
{
    uint32_t vm, h;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_ERR(asahi_gem_create(fd, GPU_PAGE, 0, vm, &h), EINVAL);
    close(fd);
    return TEST_PASS;
}

static int test_gem_private_unknown_vm(void)
{
    uint32_t vm, h;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_ERR(asahi_gem_create(fd, GPU_PAGE, DRM_ASAHI_GEM_VM_PRIVATE,
                               vm + 100, &h), ENOENT);
    CHECK_OK(asahi_vm_destroy(fd, vm));
    CHECK_ERR(asahi_gem_create(fd, GPU_PAGE, DRM_ASAHI_GEM_VM_PRIVATE,
                               vm, &h), ENOENT);
    close(fd);
    return TEST_PASS;
}

static int test_gem_mmap_offset_errors(void)
{
    uint32_t h;
    uint64_t off;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_gem_create(fd, GPU_PAGE, 0, 0, &h));
    CHECK_ERR(asahi_gem_mmap_offset(fd, h, 1, &off), EINVAL);
    CHECK_ERR(asahi_gem_mmap_offset(fd, h + 1000, 0, &off), ENOENT);
    CHECK_OK(asahi_gem_close(fd, h));
    CHECK_ERR(asahi_gem_mmap_offset(fd, h, 0, &off), ENOENT);
    close(fd);
    return TEST_PASS;
}

/* The mapping outlives the handle and the file (GEM core semantics). */
static int test_gem_mmap_outlives_handle(void)
{
    uint32_t h, *p;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_gem_create(fd, GPU_PAGE, 0, 0, &h));
    p = asahi_gem_map(fd, h, GPU_PAGE);
    CHECK(p);
    CHECK_OK(asahi_gem_close(fd, h));
    close(fd);
    p[17] = 0xfeedf00d;
    CHECK_EQ(p[17], 0xfeedf00d);
    munmap(p, GPU_PAGE);
    return TEST_PASS;
}

static int prime_export(int fd, uint32_t h, int *dmabuf)
{
    struct drm_prime_handle ph = {
        .handle = h,
        .flags = DRM_CLOEXEC | DRM_RDWR,
        .fd = -1,
    };
    int ret = drm_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph);

    *dmabuf = ph.fd;
    return ret;
}

static int prime_import(int fd, int dmabuf, uint32_t *h)
{
    struct drm_prime_handle ph = { .fd = dmabuf };
    int ret = drm_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph);

    *h = ph.handle;
    return ret;
}

/*
 * A shared BO goes to another file through a dma-buf and shows the same
 * memory there; importing into the same file gives the same handle.
 */
static int test_gem_prime_shared(void)
{
    uint32_t h, h_same, h2, vm, *a, *b;
    int fd = asahi_open(), fd2 = asahi_open(), dmabuf;

    CHECK(fd >= 0 && fd2 >= 0);
    CHECK_OK(asahi_gem_create(fd, GPU_PAGE, 0, 0, &h));
    CHECK_OK(prime_export(fd, h, &dmabuf));
    CHECK_OK(prime_import(fd, dmabuf, &h_same));
    CHECK_EQ(h_same, h);
    CHECK_OK(prime_import(fd2, dmabuf, &h2));
    a = asahi_gem_map(fd, h, GPU_PAGE);
    b = asahi_gem_map(fd2, h2, GPU_PAGE);
    CHECK(a && b);
    a[5] = 0x12345678;
    CHECK_EQ(b[5], 0x12345678);
    /* the importer binds it into its own VM, as Mesa does */
    CHECK_OK(asahi_vm_create_mesa(fd2, &vm));
    CHECK_OK(asahi_bind(fd2, vm, h2, 0, GPU_PAGE, MESA_USER_VA,
                        DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE));
    close(dmabuf);
    close(fd);
    close(fd2);
    return TEST_PASS;
}

/* VM_PRIVATE: "private to this GPU VM (no exports)" */
static int test_gem_prime_private(void)
{
    uint32_t vm, h;
    int fd = asahi_open(), dmabuf;

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_OK(asahi_gem_create(fd, GPU_PAGE, DRM_ASAHI_GEM_VM_PRIVATE, vm,
                              &h));
    CHECK_ERR(prime_export(fd, h, &dmabuf), EINVAL);
    close(fd);
    return TEST_PASS;
}

/* A VM-private object outlives its VM's id: destroyed first, then closed */
static int test_gem_private_outlives_vm_id(void)
{
    uint32_t vm, h;
    int fd = asahi_open();

    CHECK(fd >= 0);
    CHECK_OK(asahi_vm_create_mesa(fd, &vm));
    CHECK_OK(asahi_gem_create(fd, GPU_PAGE, DRM_ASAHI_GEM_VM_PRIVATE, vm,
                              &h));
    CHECK_OK(asahi_bind(fd, vm, h, 0, GPU_PAGE, MESA_USER_VA,
                        DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE));
    CHECK_OK(asahi_vm_destroy(fd, vm));
    CHECK_ERR(asahi_vm_destroy(fd, vm), ENOENT);
    CHECK_OK(asahi_gem_close(fd, h));
    close(fd);
    return TEST_PASS;
}

/* Many objects, closed in a scrambled order */
static int test_gem_many(void)
{
    enum { N = 256 };
    uint32_t h[N];
    int fd = asahi_open(), i;

    CHECK(fd >= 0);
    for (i = 0; i < N; i++) {
        CHECK_OK(asahi_gem_create(fd, GPU_PAGE * (1 + i % 4),
                                  i & 1 ? DRM_ASAHI_GEM_WRITEBACK : 0, 0,
                                  &h[i]));
    }
    for (i = 0; i < N; i++) {
        CHECK_OK(asahi_gem_close(fd, h[(i * 97) % N]));
    }
    CHECK_ERR(asahi_gem_close(fd, h[0]), EINVAL);
    close(fd);
    return TEST_PASS;
}

const UapiTest gem_tests[] = {
    { "/asahi/gem/create-default", test_gem_create_default },
    { "/asahi/gem/create-writeback", test_gem_create_writeback },
    { "/asahi/gem/create-vm-private", test_gem_create_vm_private },
    { "/asahi/gem/size-rounded", test_gem_size_rounded },
    { "/asahi/gem/bad-flags", test_gem_bad_flags },
    { "/asahi/gem/size-zero", test_gem_size_zero },
    { "/asahi/gem/vm-id-without-private", test_gem_vm_id_without_private },
    { "/asahi/gem/private-unknown-vm", test_gem_private_unknown_vm },
    { "/asahi/gem/mmap-offset-errors", test_gem_mmap_offset_errors },
    { "/asahi/gem/mmap-outlives-handle", test_gem_mmap_outlives_handle },
    { "/asahi/gem/prime-shared", test_gem_prime_shared },
    { "/asahi/gem/prime-private", test_gem_prime_private },
    { "/asahi/gem/private-outlives-vm-id", test_gem_private_outlives_vm_id },
    { "/asahi/gem/many", test_gem_many },
    { NULL, NULL },
};
