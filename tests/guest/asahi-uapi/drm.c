/*
 * asahi-uapi: raw ioctl wrappers for the asahi render node and core DRM
 * syncobjs (no libdrm in the test guest)
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include "asahi-uapi.h"

struct drm_asahi_params_global asahi_params;

static char node_path[300];

/* ioctl() restarted on EINTR/EAGAIN as libdrm's drmIoctl does */
int drm_ioctl(int fd, unsigned long req, void *arg)
{
    int ret;

    do {
        ret = ioctl(fd, req, arg);
    } while (ret == -1 && (errno == EINTR || errno == EAGAIN));
    return ret == -1 ? -errno : 0;
}

/* Whether fd is a DRM device whose driver calls itself "asahi" */
static bool is_asahi(int fd)
{
    char name[32] = "";
    struct drm_version v = {
        .name = name,
        .name_len = sizeof(name) - 1,
    };

    if (drm_ioctl(fd, DRM_IOCTL_VERSION, &v)) {
        return false;
    }
    return v.name_len == 5 && !memcmp(name, "asahi", 5);
}

static const char *scan_nodes(void)
{
    DIR *dir = opendir("/dev/dri");
    const char *found = NULL;
    struct dirent *de;

    if (!dir) {
        return NULL;
    }
    while (!found && (de = readdir(dir))) {
        int fd;

        if (strncmp(de->d_name, "renderD", 7)) {
            continue;
        }
        snprintf(node_path, sizeof(node_path), "/dev/dri/%s", de->d_name);
        fd = open(node_path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            continue;
        }
        if (is_asahi(fd)) {
            found = node_path;
        }
        close(fd);
    }
    closedir(dir);
    return found;
}

const char *asahi_find_node(int wait_ms)
{
    int64_t deadline = now_ns() + (int64_t)wait_ms * 1000000;
    const char *path;

    /* The driver may still be probing (firmware boot): poll gently. */
    while (!(path = scan_nodes()) && now_ns() < deadline) {
        usleep(100 * 1000);
    }
    return path;
}

int asahi_open(void)
{
    int fd = open(node_path, O_RDWR | O_CLOEXEC);

    return fd < 0 ? -errno : fd;
}

int asahi_get_params(int fd, uint32_t group, uint32_t pad, void *buf,
                     uint64_t size)
{
    struct drm_asahi_get_params gp = {
        .param_group = group,
        .pad = pad,
        .pointer = (uintptr_t)buf,
        .size = size,
    };

    return drm_ioctl(fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp);
}

int asahi_get_time(int fd, uint64_t flags, uint64_t *ns)
{
    struct drm_asahi_get_time gt = { .flags = flags };
    int ret = drm_ioctl(fd, DRM_IOCTL_ASAHI_GET_TIME, &gt);

    if (!ret && ns) {
        *ns = gt.gpu_timestamp;
    }
    return ret;
}

int asahi_vm_create(int fd, uint64_t kstart, uint64_t kend, uint32_t *vm_id)
{
    struct drm_asahi_vm_create vc = {
        .kernel_start = kstart,
        .kernel_end = kend,
    };
    int ret = drm_ioctl(fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc);

    if (!ret && vm_id) {
        *vm_id = vc.vm_id;
    }
    return ret;
}

int asahi_vm_create_mesa(int fd, uint32_t *vm_id)
{
    uint64_t size = asahi_params.vm_kernel_min_size;

    if (size < MESA_KERNEL_SIZE) {
        size = MESA_KERNEL_SIZE;
    }
    return asahi_vm_create(fd, asahi_params.vm_end - size,
                           asahi_params.vm_end, vm_id);
}

int asahi_vm_destroy(int fd, uint32_t vm_id)
{
    struct drm_asahi_vm_destroy vd = { .vm_id = vm_id };

    return drm_ioctl(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd);
}

int asahi_vm_bind_ops(int fd, uint32_t vm_id,
                      const struct drm_asahi_gem_bind_op *ops, uint32_t n,
                      uint32_t stride)
{
    struct drm_asahi_vm_bind vb = {
        .vm_id = vm_id,
        .num_binds = n,
        .stride = stride,
        .userptr = (uintptr_t)ops,
    };

    return drm_ioctl(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb);
}

int asahi_bind(int fd, uint32_t vm_id, uint32_t handle, uint64_t offset,
               uint64_t range, uint64_t addr, uint32_t flags)
{
    struct drm_asahi_gem_bind_op op = {
        .flags = flags,
        .handle = handle,
        .offset = offset,
        .range = range,
        .addr = addr,
    };

    return asahi_vm_bind_ops(fd, vm_id, &op, 1, sizeof(op));
}

int asahi_unbind(int fd, uint32_t vm_id, uint64_t addr, uint64_t range)
{
    return asahi_bind(fd, vm_id, 0, 0, range, addr, DRM_ASAHI_BIND_UNBIND);
}

int asahi_gem_create(int fd, uint64_t size, uint32_t flags, uint32_t vm_id,
                     uint32_t *handle)
{
    struct drm_asahi_gem_create gc = {
        .size = size,
        .flags = flags,
        .vm_id = vm_id,
    };
    int ret = drm_ioctl(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc);

    if (!ret && handle) {
        *handle = gc.handle;
    }
    return ret;
}

int asahi_gem_close(int fd, uint32_t handle)
{
    struct drm_gem_close gc = { .handle = handle };

    return drm_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

int asahi_gem_mmap_offset(int fd, uint32_t handle, uint32_t flags,
                          uint64_t *offset)
{
    struct drm_asahi_gem_mmap_offset mo = {
        .handle = handle,
        .flags = flags,
    };
    int ret = drm_ioctl(fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo);

    if (!ret && offset) {
        *offset = mo.offset;
    }
    return ret;
}

void *asahi_gem_map(int fd, uint32_t handle, uint64_t size)
{
    uint64_t offset;
    void *p;

    if (asahi_gem_mmap_offset(fd, handle, 0, &offset)) {
        return NULL;
    }
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
    return p == MAP_FAILED ? NULL : p;
}

int asahi_bind_object(int fd, uint32_t handle, uint64_t offset,
                      uint64_t range, uint32_t *object)
{
    struct drm_asahi_gem_bind_object bo = {
        .op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
        .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
        .handle = handle,
        .offset = offset,
        .range = range,
    };
    int ret = drm_ioctl(fd, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo);

    if (!ret && object) {
        *object = bo.object_handle;
    }
    return ret;
}

int asahi_unbind_object(int fd, uint32_t object)
{
    struct drm_asahi_gem_bind_object bo = {
        .op = DRM_ASAHI_BIND_OBJECT_OP_UNBIND,
        .object_handle = object,
    };

    return drm_ioctl(fd, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo);
}

int asahi_queue_create(int fd, uint32_t vm_id, uint32_t priority,
                       uint64_t usc_exec_base, uint32_t *queue_id)
{
    struct drm_asahi_queue_create qc = {
        .vm_id = vm_id,
        .priority = priority,
        .usc_exec_base = usc_exec_base,
    };
    int ret = drm_ioctl(fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc);

    if (!ret && queue_id) {
        *queue_id = qc.queue_id;
    }
    return ret;
}

int asahi_queue_destroy(int fd, uint32_t queue_id)
{
    struct drm_asahi_queue_destroy qd = { .queue_id = queue_id };

    return drm_ioctl(fd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd);
}

int asahi_submit(int fd, uint32_t queue_id, const void *cmdbuf,
                 uint32_t size, const struct drm_asahi_sync *in,
                 uint32_t n_in, const struct drm_asahi_sync *out,
                 uint32_t n_out)
{
    struct drm_asahi_sync syncs[64];
    struct drm_asahi_submit s = {
        .cmdbuf = (uintptr_t)cmdbuf,
        .queue_id = queue_id,
        .in_sync_count = n_in,
        .out_sync_count = n_out,
        .cmdbuf_size = size,
    };

    /* One array: the in-syncs first, then the out-syncs. */
    if (n_in + n_out > 64) {
        return -E2BIG;
    }
    if (n_in) {
        memcpy(syncs, in, n_in * sizeof(*in));
    }
    if (n_out) {
        memcpy(syncs + n_in, out, n_out * sizeof(*out));
    }
    if (n_in + n_out) {
        s.syncs = (uintptr_t)syncs;
    }
    return drm_ioctl(fd, DRM_IOCTL_ASAHI_SUBMIT, &s);
}

int syncobj_create(int fd, bool signaled, uint32_t *handle)
{
    struct drm_syncobj_create sc = {
        .flags = signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0,
    };
    int ret = drm_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc);

    if (!ret) {
        *handle = sc.handle;
    }
    return ret;
}

int syncobj_destroy(int fd, uint32_t handle)
{
    struct drm_syncobj_destroy sd = { .handle = handle };

    return drm_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &sd);
}

/* Syncobj waits take an absolute CLOCK_MONOTONIC deadline. */
static int64_t deadline_ns(int timeout_ms)
{
    return now_ns() + (int64_t)timeout_ms * 1000000;
}

int syncobj_wait(int fd, uint32_t handle, int timeout_ms)
{
    struct drm_syncobj_wait w = {
        .handles = (uintptr_t)&handle,
        .timeout_nsec = deadline_ns(timeout_ms),
        .count_handles = 1,
        .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
    };

    return drm_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

int syncobj_timeline_wait(int fd, uint32_t handle, uint64_t point,
                          int timeout_ms)
{
    struct drm_syncobj_timeline_wait w = {
        .handles = (uintptr_t)&handle,
        .points = (uintptr_t)&point,
        .timeout_nsec = deadline_ns(timeout_ms),
        .count_handles = 1,
        .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
    };

    return drm_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
}

int syncobj_timeline_signal(int fd, uint32_t handle, uint64_t point)
{
    struct drm_syncobj_timeline_array a = {
        .handles = (uintptr_t)&handle,
        .points = (uintptr_t)&point,
        .count_handles = 1,
    };

    return drm_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a);
}

int syncobj_query(int fd, uint32_t handle, uint64_t *point)
{
    struct drm_syncobj_timeline_array a = {
        .handles = (uintptr_t)&handle,
        .points = (uintptr_t)point,
        .count_handles = 1,
    };

    return drm_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &a);
}

int syncobj_fence_status(int fd, uint32_t handle)
{
    struct drm_syncobj_handle h = {
        .handle = handle,
        .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
    };
    struct sync_file_info info = { 0 };
    int ret = drm_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);

    if (ret) {
        return ret;
    }
    ret = drm_ioctl(h.fd, SYNC_IOC_FILE_INFO, &info);
    close(h.fd);
    if (ret) {
        return ret;
    }
    return info.status;
}
