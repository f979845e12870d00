/*
 * uapi-fuzz: the executor, which carries out a program's calls
 *
 * Every value a call gets is clamped only where the fuzzer itself would
 * suffer (sizes of its own buffers and maps, timeouts of waits, which
 * files it may close); everything the kernel sees is as the program says.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "asahi_drm.h"
#include "uapi-fuzz.h"

#define GPU_PAGE 0x4000ULL
#define MAX_MAP (16ULL << 20)
#define MAX_FILL (1ULL << 20)
#define MAX_WAIT_MS 50
#define MAX_PENDING 16
#define CMDBUF_SIZE 65536
#define STRIDE_MAX 256

uint64_t exec_vm_start = 0x4000, exec_vm_end = 0x7fffff8000;
uint64_t exec_vm_kernel_min = 0x20000000;

static char node_path[300];
/* After "collide": the builders' state, shared by two threads */
static pthread_mutex_t builder_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct Slot {
    ResKind kind;       /* RES_NONE: the call made nothing (or failed) */
    uint64_t val;       /* fd, id, handle or address */
    uint64_t size;      /* BO size; for a map, the bytes the BO backs */
    uint64_t map_len;   /* the length mapped */
    bool closed;
} Slot;

typedef struct ExecState {
    Slot slots[MAX_CALLS];
    uint8_t cmdbuf[CMDBUF_SIZE];
    uint32_t cmd_len;
    uint32_t payload_off, payload_len;  /* the last command's payload */
    struct drm_asahi_sync syncs_in[MAX_PENDING], syncs_out[MAX_PENDING];
    int n_in, n_out;
    uint8_t binds[MAX_PENDING * STRIDE_MAX];
    struct drm_asahi_gem_bind_op bind_ops[MAX_PENDING];
    int n_binds;
} ExecState;

static int xioctl(int fd, unsigned long req, void *arg)
{
    int ret;

    do {
        ret = ioctl(fd, req, arg);
    } while (ret == -1 && (errno == EINTR || errno == EAGAIN));
    return ret == -1 ? -errno : 0;
}

static bool is_asahi(int fd)
{
    char name[32] = "";
    struct drm_version v = {
        .name = name,
        .name_len = sizeof(name) - 1,
    };

    if (xioctl(fd, DRM_IOCTL_VERSION, &v)) {
        return false;
    }
    return v.name_len == 5 && !memcmp(name, "asahi", 5);
}

static bool scan_nodes(void)
{
    DIR *dir = opendir("/dev/dri");
    struct dirent *de;
    bool found = false;

    if (!dir) {
        return false;
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
        found = is_asahi(fd);
        close(fd);
    }
    closedir(dir);
    return found;
}

bool exec_init(void)
{
    struct drm_asahi_params_global pg;
    struct drm_asahi_get_params gp = {
        .pointer = (uintptr_t)&pg,
        .size = sizeof(pg),
    };
    int i, fd;

    /* The driver may still be probing (firmware boot) */
    for (i = 0; i < 100 && !scan_nodes(); i++) {
        usleep(100 * 1000);
    }
    if (i == 100) {
        return false;
    }
    fd = open(node_path, O_RDWR | O_CLOEXEC);
    if (fd >= 0 && !xioctl(fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp)) {
        exec_vm_start = pg.vm_start;
        exec_vm_end = pg.vm_end;
        exec_vm_kernel_min = pg.vm_kernel_min_size;
    }
    if (fd >= 0) {
        close(fd);
    }
    return true;
}

static int64_t abs_timeout_ns(uint64_t ms)
{
    struct timespec ts;

    if (ms > MAX_WAIT_MS) {
        ms = MAX_WAIT_MS;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + ms * 1000000;
}

/* A file descriptor the program made and has not closed, or -1 */
static int live_fd(ExecState *s, const Arg *a)
{
    Slot *sl;

    if (!a->is_ref) {
        return -1;
    }
    sl = &s->slots[a->val];
    if (sl->closed || (sl->kind != RES_FD && sl->kind != RES_DMABUF &&
                       sl->kind != RES_SYNCFILE)) {
        return -1;
    }
    return sl->val;
}

/*
 * An argument's value: a reference gives what the call it names made
 * (0 if nothing, -1 for a file that is gone or never was)
 */
static uint64_t argv_of(ExecState *s, const Call *c, int j)
{
    const Arg *a = &c->args[j];
    Slot *sl;

    if (!a->is_ref) {
        /* A file is never a number: the fuzzer's own stay out of reach */
        return ops[c->op].args[j].ref == RES_FD ? (uint64_t)-1 : a->val;
    }
    sl = &s->slots[a->val];
    if (ops[c->op].args[j].ref == RES_FD || sl->kind == RES_FD ||
        sl->kind == RES_DMABUF || sl->kind == RES_SYNCFILE) {
        return live_fd(s, a) < 0 ? (uint64_t)-1 : sl->val;
    }
    return sl->val;
}

/* Appends a command header and payload bytes; returns the payload or NULL */
static uint8_t *cmd_push(ExecState *s, uint16_t type, uint16_t size,
                         uint16_t vdm, uint16_t cdm, const void *payload,
                         size_t payload_size)
{
    struct drm_asahi_cmd_header h = {
        .cmd_type = type,
        .size = size,
        .vdm_barrier = vdm,
        .cdm_barrier = cdm,
    };
    uint8_t *p;

    if (s->cmd_len + sizeof(h) + size > CMDBUF_SIZE) {
        return NULL;
    }
    memcpy(s->cmdbuf + s->cmd_len, &h, sizeof(h));
    s->cmd_len += sizeof(h);
    p = s->cmdbuf + s->cmd_len;
    memset(p, 0, size);
    if (payload) {
        memcpy(p, payload, payload_size < size ? payload_size : size);
    }
    s->payload_off = s->cmd_len;
    s->payload_len = size;
    s->cmd_len += size;
    return p;
}

static uint16_t cmd_size(uint64_t v, size_t natural)
{
    return v ? (uint16_t)v : natural;
}

static uint32_t float_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof(u));
    return u;
}

/* A render command laid out as Mesa lays one out, around base */
static void make_render(struct drm_asahi_cmd_render *r, uint64_t base,
                        uint16_t w, uint16_t h, uint16_t layers,
                        uint32_t flags)
{
    memset(r, 0, sizeof(*r));
    r->flags = flags;
    r->isp_zls_pixels = (uint32_t)((w ? w : 1) - 1) |
                        (uint32_t)((h ? h : 1) - 1) << 15;
    r->vdm_ctrl_stream_base = base;
    r->isp_scissor_base = base + 0x1000;
    r->isp_dbias_base = base + 0x1100;
    r->isp_oclqry_base = base + 0x4000;
    r->sampler_heap = base + 0x3000;
    r->sampler_count = 1;
    r->ppp_multisamplectl = 0x88;
    r->ppp_ctrl = 0x202;
    r->width_px = w;
    r->height_px = h;
    r->layers = layers;
    r->utile_width_px = 32;
    r->utile_height_px = 32;
    r->samples = 1;
    r->sample_size_B = 4;
    r->isp_merge_upper_x = float_bits(1.732051f / (w ? w : 1));
    r->isp_merge_upper_y = float_bits(1.732051f / (h ? h : 1));
    r->bg.usc = 0x100 | 4;
    r->eot.usc = 0x200 | 4;
    r->partial_bg = r->bg;
    r->partial_eot = r->eot;
}

static void add_sync(struct drm_asahi_sync *list, int *n, uint64_t handle,
                     uint64_t type, uint64_t point)
{
    if (*n < MAX_PENDING) {
        list[*n].sync_type = type;
        list[*n].handle = handle;
        list[*n].timeline_value = point;
        (*n)++;
    }
}

static int do_submit(ExecState *s, int fd, uint64_t queue, uint64_t flags,
                     uint64_t pad, uint64_t truncate)
{
    struct drm_asahi_sync syncs[2 * MAX_PENDING];
    uint8_t cmdbuf[CMDBUF_SIZE];
    struct drm_asahi_submit sub = {
        .syncs = (uintptr_t)syncs,
        .cmdbuf = (uintptr_t)cmdbuf,
        .flags = flags,
        .queue_id = queue,
        .in_sync_count = s->n_in,
        .out_sync_count = s->n_out,
        .cmdbuf_size = s->cmd_len - (truncate < s->cmd_len ? truncate :
                                     s->cmd_len),
        .pad = pad,
    };

    memcpy(cmdbuf, s->cmdbuf, s->cmd_len);
    memcpy(syncs, s->syncs_in, s->n_in * sizeof(syncs[0]));
    memcpy(syncs + s->n_in, s->syncs_out, s->n_out * sizeof(syncs[0]));
    s->cmd_len = 0;
    s->payload_len = 0;
    s->n_in = s->n_out = 0;
    return xioctl(fd, DRM_IOCTL_ASAHI_SUBMIT, &sub);
}

static int exec_call_locked(ExecState *s, const Call *c, int i);

/* Whether a call reads or writes the command, sync or bind op builders */
static bool uses_builder(const Call *c)
{
    const char *name = ops[c->op].name;

    return !strncmp(name, "cmd_", 4) || !strncmp(name, "sync_", 5) ||
           !strcmp(name, "bind_op") || !strcmp(name, "vm_bind_list") ||
           !strcmp(name, "submit");
}

/* Carries out call i; returns 0 or -errno and fills its slot */
static int exec_call(ExecState *s, const Call *c, int i)
{
    int ret;

    if (!uses_builder(c)) {
        return exec_call_locked(s, c, i);
    }
    /* A SUBMIT holds it only while it copies (do_submit) */
    pthread_mutex_lock(&builder_lock);
    ret = exec_call_locked(s, c, i);
    pthread_mutex_unlock(&builder_lock);
    return ret;
}

static int exec_call_locked(ExecState *s, const Call *c, int i)
{
    Slot *out = &s->slots[i];
    uint64_t a[MAX_ARGS];
    int fd, j, ret = 0;

    for (j = 0; j < ops[c->op].nargs; j++) {
        a[j] = argv_of(s, c, j);
    }
    fd = (int)a[0];
    memset(out, 0, sizeof(*out));

    switch (c->op) {
    case 0: /* open */
        fd = open(node_path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            return -errno;
        }
        out->kind = RES_FD;
        out->val = fd;
        return 0;
    case 1: /* close */
        fd = live_fd(s, &c->args[0]);
        if (fd < 0) {
            return -EBADF;
        }
        s->slots[c->args[0].val].closed = true;
        return close(fd) ? -errno : 0;
    case 2: { /* get_params */
        static uint8_t buf[65536];
        struct drm_asahi_get_params gp = {
            .param_group = a[1],
            .pad = a[2],
            .pointer = (uintptr_t)buf,
            .size = a[3],
        };

        return xioctl(fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp);
    }
    case 3: { /* get_time */
        struct drm_asahi_get_time gt = { .flags = a[1] };

        return xioctl(fd, DRM_IOCTL_ASAHI_GET_TIME, &gt);
    }
    case 4: { /* vm_create */
        struct drm_asahi_vm_create vc = {
            .kernel_start = a[1],
            .kernel_end = a[2],
            .pad = a[3],
        };

        ret = xioctl(fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc);
        if (!ret) {
            out->kind = RES_VM;
            out->val = vc.vm_id;
        }
        return ret;
    }
    case 5: { /* vm_destroy */
        struct drm_asahi_vm_destroy vd = { .vm_id = a[1], .pad = a[2] };

        return xioctl(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd);
    }
    case 6: { /* gem_create */
        struct drm_asahi_gem_create gc = {
            .size = a[1],
            .flags = a[2],
            .vm_id = a[3],
            .pad = a[4],
        };

        ret = xioctl(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc);
        if (!ret) {
            out->kind = RES_BO;
            out->val = gc.handle;
            out->size = a[1];
        }
        return ret;
    }
    case 7: { /* gem_close */
        struct drm_gem_close gc = { .handle = a[1] };

        return xioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc);
    }
    case 8: { /* mmap */
        struct drm_asahi_gem_mmap_offset mo = {
            .handle = a[1],
            .flags = a[2],
        };
        uint64_t size = a[3], bo_size = 0;
        void *p;

        ret = xioctl(fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo);
        if (ret) {
            return ret;
        }
        if (c->args[1].is_ref) {
            bo_size = s->slots[c->args[1].val].size;
        }
        if (size > MAX_MAP) {
            size = MAX_MAP;
        }
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                 mo.offset + (a[4] & ~(GPU_PAGE - 1)));
        if (p == MAP_FAILED) {
            return -errno;
        }
        out->kind = RES_MAP;
        out->val = (uintptr_t)p;
        /* Only what the BO backs may be touched (else SIGBUS) */
        out->size = a[4] < bo_size ? bo_size - (a[4] & ~(GPU_PAGE - 1)) : 0;
        if (out->size > size) {
            out->size = size;
        }
        out->map_len = size;
        return 0;
    }
    case 9: { /* munmap */
        Slot *m = c->args[0].is_ref ? &s->slots[c->args[0].val] : NULL;

        if (!m || m->kind != RES_MAP || m->closed) {
            return -EINVAL;
        }
        m->closed = true;
        return munmap((void *)(uintptr_t)m->val, m->map_len) ? -errno : 0;
    }
    case 10:  /* write64 */
    case 11: { /* fill */
        Slot *m = c->args[0].is_ref ? &s->slots[c->args[0].val] : NULL;
        uint64_t room, off = a[1] & ~7ULL;
        uint8_t *p;

        if (!m || m->kind != RES_MAP || m->closed) {
            return -EINVAL;
        }
        room = m->size;
        if (off >= room) {
            return -EFAULT;
        }
        p = (uint8_t *)(uintptr_t)m->val + off;
        if (c->op == 10) {
            if (off + 8 > room) {
                return -EFAULT;
            }
            memcpy(p, &a[2], 8);
        } else {
            uint64_t len = a[2] < MAX_FILL ? a[2] : MAX_FILL;

            memset(p, (int)a[3], len < room - off ? len : room - off);
        }
        return 0;
    }
    case 12: { /* vm_bind */
        struct drm_asahi_gem_bind_op op = {
            .flags = a[6],
            .handle = a[2],
            .offset = a[3],
            .range = a[4],
            .addr = a[5],
        };
        struct drm_asahi_vm_bind vb = {
            .vm_id = a[1],
            .num_binds = 1,
            .stride = sizeof(op),
            .userptr = (uintptr_t)&op,
        };

        return xioctl(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb);
    }
    case 13: /* bind_op */
        if (s->n_binds < MAX_PENDING) {
            struct drm_asahi_gem_bind_op *op = &s->bind_ops[s->n_binds++];

            op->handle = a[0];
            op->offset = a[1];
            op->range = a[2];
            op->addr = a[3];
            op->flags = a[4];
        }
        return 0;
    case 14: { /* vm_bind_list */
        uint32_t stride = a[2] <= STRIDE_MAX ? a[2] :
                          sizeof(struct drm_asahi_gem_bind_op);
        struct drm_asahi_vm_bind vb = {
            .vm_id = a[1],
            .num_binds = s->n_binds,
            .stride = stride,
            .pad = a[3],
            .userptr = (uintptr_t)s->binds,
        };

        memset(s->binds, 0, sizeof(s->binds));
        for (j = 0; j < s->n_binds; j++) {
            size_t n = stride < sizeof(s->bind_ops[j]) ? stride :
                       sizeof(s->bind_ops[j]);

            memcpy(s->binds + j * stride, &s->bind_ops[j], n);
        }
        s->n_binds = 0;
        return xioctl(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb);
    }
    case 15: { /* bind_object */
        struct drm_asahi_gem_bind_object bo = {
            .op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
            .handle = a[1],
            .offset = a[2],
            .range = a[3],
            .flags = a[4],
            .vm_id = a[5],
        };

        ret = xioctl(fd, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo);
        if (!ret) {
            out->kind = RES_TSOBJ;
            out->val = bo.object_handle;
        }
        return ret;
    }
    case 16: { /* unbind_object */
        struct drm_asahi_gem_bind_object bo = {
            .op = DRM_ASAHI_BIND_OBJECT_OP_UNBIND,
            .object_handle = a[1],
            .flags = a[2],
        };

        return xioctl(fd, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo);
    }
    case 17: { /* queue_create */
        struct drm_asahi_queue_create qc = {
            .vm_id = a[1],
            .priority = a[2],
            .usc_exec_base = a[3],
            .flags = a[4],
        };

        ret = xioctl(fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc);
        if (!ret) {
            out->kind = RES_QUEUE;
            out->val = qc.queue_id;
        }
        return ret;
    }
    case 18: { /* queue_destroy */
        struct drm_asahi_queue_destroy qd = {
            .queue_id = a[1],
            .pad = a[2],
        };

        return xioctl(fd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd);
    }
    case 19: { /* cmd_compute */
        struct drm_asahi_cmd_compute cc = {
            .cdm_ctrl_stream_base = a[3],
            .cdm_ctrl_stream_end = a[3] + a[4],
            .sampler_heap = a[5],
            .sampler_count = a[6],
        };

        return cmd_push(s, DRM_ASAHI_CMD_COMPUTE, cmd_size(a[2], sizeof(cc)),
                        a[0], a[1], &cc, sizeof(cc)) ? 0 : -ENOSPC;
    }
    case 20: { /* cmd_render */
        struct drm_asahi_cmd_render rc;

        make_render(&rc, a[3], a[4], a[5], a[6], a[7]);
        return cmd_push(s, DRM_ASAHI_CMD_RENDER, cmd_size(a[2], sizeof(rc)),
                        a[0], a[1], &rc, sizeof(rc)) ? 0 : -ENOSPC;
    }
    case 21: { /* cmd_attach */
        struct drm_asahi_attachment at[16];
        uint64_t n = a[1] < 16 ? a[1] : 16;

        for (j = 0; j < (int)n; j++) {
            at[j].pointer = a[2] + j * a[3];
            at[j].size = a[3];
            at[j].pad = 0;
            at[j].flags = a[4];
        }
        return cmd_push(s, a[0], n * sizeof(at[0]), DRM_ASAHI_BARRIER_NONE,
                        DRM_ASAHI_BARRIER_NONE, at, n * sizeof(at[0])) ?
               0 : -ENOSPC;
    }
    case 22: /* cmd_raw */
        return cmd_push(s, a[0], a[1], a[2], a[3], NULL, 0) ? 0 : -ENOSPC;
    case 23: { /* cmd_set */
        uint64_t w = a[0] == 1 || a[0] == 2 || a[0] == 4 ? a[0] : 8;

        if (a[1] + w > s->payload_len) {
            return -EINVAL;
        }
        memcpy(s->cmdbuf + s->payload_off + a[1], &a[2], w);
        return 0;
    }
    case 24: { /* cmd_ts */
        struct drm_asahi_timestamp ts = {
            .handle = a[1],
            .offset = a[2],
        };

        if (a[0] + sizeof(ts) > s->payload_len) {
            return -EINVAL;
        }
        memcpy(s->cmdbuf + s->payload_off + a[0], &ts, sizeof(ts));
        return 0;
    }
    case 25: /* sync_in */
        add_sync(s->syncs_in, &s->n_in, a[0], a[1], a[2]);
        return 0;
    case 26: /* sync_out */
        add_sync(s->syncs_out, &s->n_out, a[0], a[1], a[2]);
        return 0;
    case 27: /* submit */
        return do_submit(s, fd, a[1], a[2], a[3], a[4]);
    case 28: { /* syncobj_create */
        struct drm_syncobj_create sc = { .flags = a[1] };

        ret = xioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc);
        if (!ret) {
            out->kind = RES_SYNCOBJ;
            out->val = sc.handle;
        }
        return ret;
    }
    case 29: { /* syncobj_destroy */
        struct drm_syncobj_destroy sd = { .handle = a[1] };

        return xioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &sd);
    }
    case 30: { /* syncobj_wait */
        uint32_t handle = a[1];
        uint64_t point = a[2];

        if (point) {
            struct drm_syncobj_timeline_wait w = {
                .handles = (uintptr_t)&handle,
                .points = (uintptr_t)&point,
                .timeout_nsec = abs_timeout_ns(a[4]),
                .count_handles = 1,
                .flags = a[3],
            };

            return xioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
        } else {
            struct drm_syncobj_wait w = {
                .handles = (uintptr_t)&handle,
                .timeout_nsec = abs_timeout_ns(a[4]),
                .count_handles = 1,
                .flags = a[3],
            };

            return xioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
        }
    }
    case 31: { /* syncobj_signal */
        uint32_t handle = a[1];
        uint64_t point = a[2];
        struct drm_syncobj_timeline_array ta = {
            .handles = (uintptr_t)&handle,
            .points = (uintptr_t)&point,
            .count_handles = 1,
        };

        if (point) {
            return xioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &ta);
        }
        ta.points = 0;
        return xioctl(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &ta);
    }
    case 32: { /* syncobj_reset */
        uint32_t handle = a[1];
        struct drm_syncobj_array sa = {
            .handles = (uintptr_t)&handle,
            .count_handles = 1,
        };

        return xioctl(fd, DRM_IOCTL_SYNCOBJ_RESET, &sa);
    }
    case 33: { /* syncobj_transfer */
        struct drm_syncobj_transfer st = {
            .dst_handle = a[1],
            .dst_point = a[2],
            .src_handle = a[3],
            .src_point = a[4],
            .flags = a[5],
        };

        return xioctl(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &st);
    }
    case 34: { /* syncobj_query */
        uint32_t handle = a[1];
        uint64_t point = 0;
        struct drm_syncobj_timeline_array ta = {
            .handles = (uintptr_t)&handle,
            .points = (uintptr_t)&point,
            .count_handles = 1,
            .flags = a[2],
        };

        return xioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &ta);
    }
    case 35: { /* syncobj_export */
        struct drm_syncobj_handle h = {
            .handle = a[1],
            .flags = a[2],
            .fd = -1,
        };

        ret = xioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);
        if (!ret) {
            out->kind = RES_SYNCFILE;
            out->val = h.fd;
        }
        return ret;
    }
    case 36: { /* syncobj_import */
        struct drm_syncobj_handle h = {
            .handle = a[1],
            .flags = a[3],
            .fd = live_fd(s, &c->args[2]),
        };

        return xioctl(fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h);
    }
    case 37: { /* sync_file_wait */
        struct pollfd pfd = {
            .fd = live_fd(s, &c->args[0]),
            .events = POLLIN,
        };

        if (pfd.fd < 0) {
            return -EBADF;
        }
        ret = poll(&pfd, 1, a[1] < MAX_WAIT_MS ? a[1] : MAX_WAIT_MS);
        return ret < 0 ? -errno : ret == 0 ? -ETIME : 0;
    }
    case 38: { /* prime_export */
        struct drm_prime_handle ph = {
            .handle = a[1],
            .flags = a[2],
            .fd = -1,
        };

        ret = xioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph);
        if (!ret) {
            out->kind = RES_DMABUF;
            out->val = ph.fd;
        }
        return ret;
    }
    case 39: { /* prime_import */
        struct drm_prime_handle ph = { .fd = live_fd(s, &c->args[1]) };
        off_t size;

        ret = xioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph);
        if (!ret) {
            out->kind = RES_BO;
            out->val = ph.handle;
            size = lseek(ph.fd, 0, SEEK_END);
            out->size = size > 0 ? size : 0;
        }
        return ret;
    }
    case 40: { /* dmabuf_sync_file */
        struct dma_buf_export_sync_file es = { .flags = a[1], .fd = -1 };
        int dfd = live_fd(s, &c->args[0]);

        if (dfd < 0) {
            return -EBADF;
        }
        ret = xioctl(dfd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &es);
        if (!ret) {
            out->kind = RES_SYNCFILE;
            out->val = es.fd;
        }
        return ret;
    }
    case 41: /* sleep */
        usleep((a[0] < 50 ? a[0] : 50) * 1000);
        return 0;
    case 42: /* collide: prog_exec runs the calls after it in pairs */
        return 0;
    }
    return -ENOSYS;
}

typedef struct Pair {
    ExecState *s;
    const Call *c;
    int i, ret;
} Pair;

static void *pair_thread(void *opaque)
{
    Pair *pr = opaque;

    pr->ret = exec_call(pr->s, pr->c, pr->i);
    return NULL;
}

static void report_call(ExecState *s, const Prog *p, int i, int ret)
{
    printf("  r%d = %s: %s", i, ops[p->calls[i].op].name,
           ret ? strerror(-ret) : "ok");
    if (!ret && s->slots[i].kind != RES_NONE) {
        printf(" (0x%llx)", (unsigned long long)s->slots[i].val);
    }
    printf("\n");
    fflush(stdout);
}

int prog_exec(const Prog *p, bool verbose)
{
    static ExecState s;
    bool collide = false;
    int i, ret;

    memset(&s, 0, sizeof(s));
    for (i = 0; i < p->n; i++) {
        pthread_t t;
        Pair pr = { &s, &p->calls[i], i, 0 };

        /*
         * After "collide", calls i and i + 1 run at once, i in a thread
         * of its own: races between ioctls of one file
         */
        if (collide && i + 1 < p->n &&
            !pthread_create(&t, NULL, pair_thread, &pr)) {
            ret = exec_call(&s, &p->calls[i + 1], i + 1);
            pthread_join(t, NULL);
            if (verbose) {
                report_call(&s, p, i, pr.ret);
                report_call(&s, p, i + 1, ret);
            }
            i++;
            continue;
        }
        ret = exec_call(&s, &p->calls[i], i);
        collide |= !strcmp(ops[p->calls[i].op].name, "collide");
        if (verbose) {
            report_call(&s, p, i, ret);
        }
    }
    /* Everything the program left open goes, in the order it was made */
    for (i = 0; i < p->n; i++) {
        Slot *sl = &s.slots[i];

        if (sl->closed) {
            continue;
        }
        if (sl->kind == RES_MAP) {
            munmap((void *)(uintptr_t)sl->val, sl->map_len);
        } else if (sl->kind == RES_FD || sl->kind == RES_DMABUF ||
                   sl->kind == RES_SYNCFILE) {
            close(sl->val);
        }
    }
    return p->n;
}
