/*
 * asahi-trace.so: an LD_PRELOAD library for the Mesa guest that shows how
 * a program (Mesa) uses the asahi UAPI.  Every asahi ioctl is counted; a
 * failing one is printed with its errno; each DRM_IOCTL_ASAHI_SUBMIT is
 * printed with its queue, syncs and the commands of its command buffer
 * (kind, size, barriers).  At exit, one summary line per ioctl and per
 * command kind.  Output goes to stderr, each line starting "asahi-trace:".
 * Quiet with ASAHI_TRACE=summary (only the exit summary).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <drm/asahi_drm.h>

static const char *const ioctl_names[] = {
    [DRM_ASAHI_GET_PARAMS] = "GET_PARAMS",
    [DRM_ASAHI_GET_TIME] = "GET_TIME",
    [DRM_ASAHI_VM_CREATE] = "VM_CREATE",
    [DRM_ASAHI_VM_DESTROY] = "VM_DESTROY",
    [DRM_ASAHI_VM_BIND] = "VM_BIND",
    [DRM_ASAHI_GEM_CREATE] = "GEM_CREATE",
    [DRM_ASAHI_GEM_MMAP_OFFSET] = "GEM_MMAP_OFFSET",
    [DRM_ASAHI_GEM_BIND_OBJECT] = "GEM_BIND_OBJECT",
    [DRM_ASAHI_QUEUE_CREATE] = "QUEUE_CREATE",
    [DRM_ASAHI_QUEUE_DESTROY] = "QUEUE_DESTROY",
    [DRM_ASAHI_SUBMIT] = "SUBMIT",
};
#define N_IOCTLS (sizeof(ioctl_names) / sizeof(ioctl_names[0]))

static const char *const cmd_names[] = {
    [DRM_ASAHI_CMD_RENDER] = "RENDER",
    [DRM_ASAHI_CMD_COMPUTE] = "COMPUTE",
    [DRM_ASAHI_SET_VERTEX_ATTACHMENTS] = "SET_VERTEX_ATTACHMENTS",
    [DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS] = "SET_FRAGMENT_ATTACHMENTS",
    [DRM_ASAHI_SET_COMPUTE_ATTACHMENTS] = "SET_COMPUTE_ATTACHMENTS",
};
#define N_CMDS (sizeof(cmd_names) / sizeof(cmd_names[0]))

static unsigned calls[N_IOCTLS], fails[N_IOCTLS];
static unsigned cmds[N_CMDS];
static unsigned long cmd_bytes[N_CMDS];
static int verbose = 1;

static void show_submit(const struct drm_asahi_submit *s, int ret, int err)
{
    const unsigned char *p = (const unsigned char *)(uintptr_t)s->cmdbuf;
    char line[1024];
    size_t off = 0, len = 0;

    len += snprintf(line + len, sizeof(line) - len,
                    "SUBMIT queue %u in %u out %u cmdbuf %u:", s->queue_id,
                    s->in_sync_count, s->out_sync_count, s->cmdbuf_size);
    while (p && off + sizeof(struct drm_asahi_cmd_header) <= s->cmdbuf_size) {
        struct drm_asahi_cmd_header h;

        memcpy(&h, p + off, sizeof(h));
        off += sizeof(h);
        if (h.cmd_type < N_CMDS) {
            cmds[h.cmd_type]++;
            cmd_bytes[h.cmd_type] += h.size;
        }
        if (len < sizeof(line) - 64) {
            len += snprintf(line + len, sizeof(line) - len, " %s(%u",
                            h.cmd_type < N_CMDS ? cmd_names[h.cmd_type]
                                                : "?", h.size);
            if (h.vdm_barrier || h.cdm_barrier) {
                len += snprintf(line + len, sizeof(line) - len,
                                " barriers %u/%u", h.vdm_barrier,
                                h.cdm_barrier);
            }
            len += snprintf(line + len, sizeof(line) - len, ")");
        }
        if (!h.size) {
            break;
        }
        off += h.size;
    }
    if (verbose || ret) {
        fprintf(stderr, "asahi-trace: %s = %d%s%s\n", line, ret,
                ret ? " " : "", ret ? strerror(err) : "");
    }
}

int ioctl(int fd, unsigned long req, ...)
{
    static int (*real)(int, unsigned long, void *);
    unsigned nr = (req & 0xff) - DRM_COMMAND_BASE;
    int asahi = ((req >> 8) & 0xff) == DRM_IOCTL_BASE &&
                (req & 0xff) >= DRM_COMMAND_BASE && nr < N_IOCTLS;
    va_list ap;
    void *arg;
    int ret, err;

    va_start(ap, req);
    arg = va_arg(ap, void *);
    va_end(ap);
    if (!real) {
        real = (int (*)(int, unsigned long, void *))dlsym(RTLD_NEXT,
                                                          "ioctl");
    }
    ret = real(fd, req, arg);
    err = errno;
    if (asahi) {
        calls[nr]++;
        if (ret) {
            fails[nr]++;
        }
        if (nr == DRM_ASAHI_SUBMIT) {
            show_submit(arg, ret, err);
        } else if (ret && (err != EINTR && err != EAGAIN)) {
            fprintf(stderr, "asahi-trace: %s = %d %s\n", ioctl_names[nr],
                    ret, strerror(err));
        }
    }
    errno = err;
    return ret;
}

static void __attribute__((constructor)) trace_init(void)
{
    const char *mode = getenv("ASAHI_TRACE");

    verbose = !mode || strcmp(mode, "summary");
}

static void __attribute__((destructor)) trace_summary(void)
{
    size_t i;

    for (i = 0; i < N_IOCTLS; i++) {
        if (calls[i]) {
            fprintf(stderr, "asahi-trace: [%d] %s: %u calls, %u failed\n",
                    getpid(), ioctl_names[i], calls[i], fails[i]);
        }
    }
    for (i = 0; i < N_CMDS; i++) {
        if (cmds[i]) {
            fprintf(stderr, "asahi-trace: [%d] %s: %u commands, %lu bytes\n",
                    getpid(), cmd_names[i], cmds[i], cmd_bytes[i]);
        }
    }
}
