/*
 * usc-dump.so: an LD_PRELOAD library for the Mesa guest that records, for
 * every compute command a program submits through the asahi UAPI, what
 * the GPU would run: the CDM control stream, each launch with its USC
 * control words, the shader and preshader code bytes, the uniform source
 * memory, texture and sampler descriptors, and the GPU memory reachable
 * from those by following pointers (a few levels), all read through the
 * program's own CPU mappings of its GEM objects at the moment of the
 * SUBMIT ioctl, before the GPU saw it.  scripts/usc-corpus.py turns the
 * record into tests/unit/usc-corpus.
 *
 * For a render command it records the command's fields, the fragment
 * attachments it names, and every byte of every mapped GEM object bound
 * in the VM (the VDM stream, PPP state, shaders, vertex data and the
 * programs reach memory through pointers too many to chase), and so for
 * every submission after the first render.  The memory of the
 * submissions after the one with the render (the copies that read the
 * image back) is recorded again when the program unmaps it or exits:
 * what the program read back, as are the fragment attachments if it
 * mapped them by then (tests/unit/render-corpus).
 *
 * The record is appended to the file named by USC_DUMP (nothing is
 * recorded without it).  Lines:
 *   submit N queue Q usc-base VA
 *   compute I cdm VA end VA helper BIN CFG DATA sampler-heap VA COUNT
 *   launch K at VA
 *   words VA LEN HEX...          the launch block, a USC word list
 *   code VA LEN                  then the bytes as "data" lines
 *   mem VA LEN                   memory; its non-zero 32-byte rows follow
 *   data OFFSET HEX              a row of the region above (offset in it)
 *   note TEXT                    what could not be read, and why
 *   render I KEY VALUE...        a render command's fields (hex values)
 *   attachment VA LEN            a fragment attachment of the submission
 *   bind VA LEN HANDLE OFFSET    GEM object HANDLE from OFFSET bound at VA
 *                                (mapped or not; two binds of one object
 *                                are two views of the same memory)
 *   after VA LEN                 memory of a submission after a render,
 *                                when the program unmapped it or exited
 *                                (non-zero rows)
 *   end N
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <drm/asahi_drm.h>

#define MAX_BOS 4096
#define MAX_BINDS 8192
#define MAX_QUEUES 64
#define MAX_REGIONS 4096
#define MAX_BLOCKS 4096
#define CODE_MAX 65536
#define WINDOW 65536                /* memory dumped after a pointer */
#define PAGE 16384ull               /* the GPU's page: binds are in pages */
#define CHASE_DEPTH 3
#define DUMP_MAX (4 << 20)          /* bytes of memory per submission */
#define RENDER_DUMP_MAX (64 << 20)  /* the same for one with a render */

typedef struct Bo {
    uint32_t handle;
    uint64_t size, mmap_offset;
    uint8_t *cpu;
} Bo;

typedef struct Bind {
    uint32_t handle;
    uint64_t offset, range, addr;
} Bind;

typedef struct Region {
    uint64_t va, len;
} Region;

static Bo bos[MAX_BOS];
static int n_bos;
static Bind binds[MAX_BINDS];
static int n_binds;
static struct {
    uint32_t id;
    uint64_t usc_base;
} queues[MAX_QUEUES];
static int n_queues;
static Region regions[MAX_REGIONS];
static int n_regions;
/* Memory of the compute commands after a render, to dump again */
static Region watch[MAX_REGIONS];
static int n_watch, rendered, watching;
static FILE *out;
static unsigned submits;

static int (*real_ioctl)(int, unsigned long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);

static Bo *bo_by_handle(uint32_t handle)
{
    int i;

    for (i = 0; i < n_bos; i++) {
        if (bos[i].handle == handle) {
            return &bos[i];
        }
    }
    return NULL;
}

/* The CPU address of @len bytes at GPU VA @va, or NULL */
static uint8_t *gpu_to_cpu(uint64_t va, uint64_t len)
{
    int i;

    for (i = n_binds - 1; i >= 0; i--) {
        Bind *b = &binds[i];
        Bo *bo;

        if (va < b->addr || va - b->addr >= b->range) {
            continue;
        }
        if (len > b->range - (va - b->addr)) {
            return NULL;
        }
        bo = bo_by_handle(b->handle);
        if (!bo || !bo->cpu || b->offset + (va - b->addr) + len > bo->size) {
            return NULL;
        }
        return bo->cpu + b->offset + (va - b->addr);
    }
    return NULL;
}

/* How many bytes from @va on are bound and mapped, up to @max */
static uint64_t mapped_len(uint64_t va, uint64_t max)
{
    int i;

    for (i = n_binds - 1; i >= 0; i--) {
        Bind *b = &binds[i];
        Bo *bo = bo_by_handle(b->handle);
        uint64_t left;

        if (va < b->addr || va - b->addr >= b->range) {
            continue;
        }
        if (!bo || !bo->cpu) {
            return 0;
        }
        left = b->range - (va - b->addr);
        if (b->offset + (va - b->addr) >= bo->size) {
            return 0;
        }
        if (left > bo->size - b->offset - (va - b->addr)) {
            left = bo->size - b->offset - (va - b->addr);
        }
        return left < max ? left : max;
    }
    return 0;
}

static void note(const char *fmt, ...)
{
    va_list ap;

    fprintf(out, "note ");
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fprintf(out, "\n");
}

static void hex(const uint8_t *p, uint64_t len)
{
    uint64_t i;

    for (i = 0; i < len; i++) {
        fprintf(out, "%02x", p[i]);
    }
}

/* Rows of 32 bytes; all-zero rows left out unless @all */
static void rows(const uint8_t *p, uint64_t len, int all)
{
    static const uint8_t zero[32];
    uint64_t off, n;

    for (off = 0; off < len; off += 32) {
        n = len - off < 32 ? len - off : 32;
        if (!all && !memcmp(p + off, zero, n)) {
            continue;
        }
        fprintf(out, "data %" PRIx64 " ", off);
        hex(p + off, n);
        fprintf(out, "\n");
    }
}

/* Remember a memory range to dump at the end of the submission */
static void want_mem(uint64_t va, uint64_t len)
{
    if (len && n_regions < MAX_REGIONS) {
        regions[n_regions++] = (Region) { va, len };
    }
}

/* Code from @va to its stop and eight traps (Mesa's footer) */
static void dump_code(uint64_t va)
{
    static const uint8_t footer[] = {
        0x88, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8, 0,
    };
    uint64_t len = mapped_len(va, CODE_MAX), i;
    uint8_t *p = gpu_to_cpu(va, len);

    if (!p) {
        note("code at 0x%" PRIx64 " is not mapped", va);
        return;
    }
    for (i = 0; i + sizeof(footer) <= len; i += 2) {
        if (!memcmp(p + i, footer, sizeof(footer))) {
            len = i + sizeof(footer);
            break;
        }
    }
    fprintf(out, "code 0x%" PRIx64 " %" PRIu64 "\n", va, len);
    rows(p, len, 1);
}

/* The USC control words of a launch; false if they could not be read */
static void dump_usc_words(uint64_t usc_base, uint64_t va)
{
    uint8_t *p = gpu_to_cpu(va, 8), *start = p;
    uint64_t w, n;
    int len, done = 0, k;

    if (!p) {
        note("USC words at 0x%" PRIx64 " are not mapped", va);
        return;
    }
    for (k = 0; k < 64 && !done; k++) {
        if (!gpu_to_cpu(va + (p - start), 8)) {
            note("USC words run out of mapped memory");
            return;
        }
        memcpy(&w, p, 8);
        switch (p[0]) {
        case 0x1d:      /* uniform */
        case 0x3d:      /* uniform high */
            n = (w >> 20) & 0x3f;
            want_mem((w >> 26) << 2, 2 * (n ? n : 64));
            len = 8;
            break;
        case 0xdd:      /* texture state */
            want_mem(((w >> 27) & ((1ull << 36) - 1)) << 3,
                     24 * ((w >> 20) & 0x7f));
            len = 8;
            break;
        case 0x9d:      /* sampler state, room for extended entries */
            want_mem(((w >> 27) & ((1ull << 36) - 1)) << 3,
                     24 * ((w >> 20) & 0x7f));
            len = 8;
            break;
        case 0x0d:      /* shader */
            dump_code(usc_base + (uint32_t)(w >> 16));
            len = 6;
            break;
        case 0x38:      /* preshader */
            dump_code(usc_base + (uint32_t)(w >> 32));
            len = 8;
            done = 1;
            break;
        case 0x88:      /* no preshader */
            len = 2;
            done = 1;
            break;
        case 0x4d:      /* shared */
        case 0x8d:      /* registers */
        case 0x58:      /* fragment properties */
            len = 4;
            break;
        default:
            note("unknown USC word 0x%02x", p[0]);
            len = 0;
            done = 1;
            break;
        }
        p += len;
    }
    fprintf(out, "words 0x%" PRIx64 " %u ", va, (unsigned)(p - start));
    hex(start, p - start);
    fprintf(out, "\n");
}

/* The CDM stream from @va: its launches, their words and code */
static void walk_cdm(uint64_t usc_base, uint64_t va)
{
    uint64_t stack[16];
    int sp = 0, n, len, launches = 0;
    uint32_t w[8];
    uint8_t *p;

    for (n = 0; n < MAX_BLOCKS; n++) {
        p = gpu_to_cpu(va, 8);
        if (!p) {
            note("CDM stream at 0x%" PRIx64 " is not mapped", va);
            return;
        }
        memcpy(w, p, 8);
        switch (w[0] >> 29) {
        case 0: {       /* launch */
            int mode = (w[0] >> 27) & 3;

            len = mode == 0 ? 32 : mode == 1 ? 28 : 16;
            p = gpu_to_cpu(va, len);
            if (!p) {
                note("launch at 0x%" PRIx64 " is not mapped", va);
                return;
            }
            fprintf(out, "launch %d at 0x%" PRIx64 "\n", launches++, va);
            fprintf(out, "words 0x%" PRIx64 " %d ", va, len);
            hex(p, len);
            fprintf(out, "\n");
            if (mode != 0) {
                memcpy(w, p, 16);
                want_mem((uint64_t)(w[2] & 0xff) << 32 | w[3], 24);
            }
            dump_usc_words(usc_base, usc_base + (w[1] & ~0x3fu));
            va += len;
            break;
        }
        case 1: {       /* stream link */
            uint64_t to = (uint64_t)(w[0] & 0xff) << 32 | w[1];

            fprintf(out, "words 0x%" PRIx64 " 8 ", va);
            hex(p, 8);
            fprintf(out, "\n");
            if (w[0] & (1u << 28)) {
                if (sp == 16) {
                    note("CDM call stack overflow");
                    return;
                }
                stack[sp++] = va + 8;
            }
            va = to;
            break;
        }
        case 2:         /* terminate */
            fprintf(out, "words 0x%" PRIx64 " 8 ", va);
            hex(p, 8);
            fprintf(out, "\n");
            return;
        case 3:         /* barrier */
            fprintf(out, "words 0x%" PRIx64 " 4 ", va);
            hex(p, 4);
            fprintf(out, "\n");
            va += 4;
            break;
        case 4:         /* return */
            fprintf(out, "words 0x%" PRIx64 " 8 ", va);
            hex(p, 8);
            fprintf(out, "\n");
            if (!sp) {
                note("CDM return without a call");
                return;
            }
            va = stack[--sp];
            break;
        default:
            note("unknown CDM block 0x%08x at 0x%" PRIx64, w[0], va);
            return;
        }
    }
    note("CDM stream longer than %d blocks", MAX_BLOCKS);
}

static int by_va(const void *a, const void *b)
{
    const Region *x = a, *y = b;

    return x->va < y->va ? -1 : x->va > y->va;
}

/*
 * The memory the launches name, and what 64-bit words in it point to
 * (a window after each pointer into mapped memory), a few levels deep;
 * merged and written out.
 */
static void dump_memory(uint64_t max, int chase)
{
    uint64_t total = 0, v, len, i;
    int depth, r, first = 0, last;
    uint8_t *p;

    for (depth = 0; chase && depth < CHASE_DEPTH; depth++) {
        last = n_regions;
        for (r = first; r < last; r++) {
            len = mapped_len(regions[r].va, regions[r].len);
            p = gpu_to_cpu(regions[r].va, len);
            for (i = 0; p && i + 8 <= len; i += 4) {
                memcpy(&v, p + i, 8);
                /* from the page: a pointer may be a buffer plus offset */
                if (v > 0x10000 && mapped_len(v, 1)) {
                    want_mem(v & ~(PAGE - 1), (v & (PAGE - 1)) + WINDOW);
                }
            }
        }
        first = last;
    }
    qsort(regions, n_regions, sizeof(Region), by_va);
    for (r = 0; r < n_regions; r++) {
        uint64_t va = regions[r].va, end = va + regions[r].len;

        /* merge what overlaps or touches */
        while (r + 1 < n_regions && regions[r + 1].va <= end) {
            r++;
            if (regions[r].va + regions[r].len > end) {
                end = regions[r].va + regions[r].len;
            }
        }
        while (va < end) {
            len = mapped_len(va, end - va);
            if (!len) {
                /* a hole: what lies beyond it may be mapped */
                note("memory at 0x%" PRIx64 " is not mapped", va);
                va = (va | (PAGE - 1)) + 1;
                continue;
            }
            if (total + len > max) {
                note("memory dump capped at %" PRIu64 " bytes", max);
                return;
            }
            fprintf(out, "mem 0x%" PRIx64 " %" PRIu64 "\n", va, len);
            if (watching && n_watch < MAX_REGIONS) {
                watch[n_watch++] = (Region) { va, len };
            }
            rows(gpu_to_cpu(va, len), len, 0);
            total += len;
            va += len;
        }
    }
}

/*
 * Every mapped object bound in the VM, for a render's memory; after a
 * render, every bound object to dump again (it may be mapped by then)
 */
static void want_all_bound(void)
{
    int i;

    for (i = 0; i < n_binds; i++) {
        if (binds[i].handle) {
            fprintf(out, "bind 0x%" PRIx64 " %" PRIu64 " %u 0x%" PRIx64 "\n",
                    binds[i].addr, binds[i].range, binds[i].handle,
                    binds[i].offset);
        }
        if (binds[i].handle && mapped_len(binds[i].addr, 1)) {
            want_mem(binds[i].addr, binds[i].range);
        } else if (binds[i].handle && rendered && n_watch < MAX_REGIONS) {
            watch[n_watch++] = (Region) { binds[i].addr, binds[i].range };
        }
    }
}

static void zls(const char *name, const struct drm_asahi_zls_buffer *z)
{
    fprintf(out, " %s-base 0x%llx %s-comp-base 0x%llx %s-stride 0x%x "
            "%s-comp-stride 0x%x", name, (unsigned long long)z->base, name,
            (unsigned long long)z->comp_base, name, z->stride, name,
            z->comp_stride);
}

static void dump_render(int n, const struct drm_asahi_cmd_render *r)
{
    fprintf(out, "render %d flags 0x%x zls-pixels 0x%x vdm 0x%llx "
            "scissor 0x%llx dbias 0x%llx oclqry 0x%llx zls-ctrl 0x%llx "
            "ppp-multisamplectl 0x%llx sampler-heap 0x%llx ppp-ctrl 0x%x "
            "width 0x%x height 0x%x layers 0x%x sampler-count 0x%x "
            "utile-width 0x%x utile-height 0x%x samples 0x%x "
            "sample-size 0x%x merge-upper-x 0x%x merge-upper-y 0x%x "
            "bg-usc 0x%x bg-rsrc 0x%x eot-usc 0x%x eot-rsrc 0x%x "
            "bgobjdepth 0x%x bgobjvals 0x%x", n, r->flags,
            r->isp_zls_pixels, (unsigned long long)r->vdm_ctrl_stream_base,
            (unsigned long long)r->isp_scissor_base,
            (unsigned long long)r->isp_dbias_base,
            (unsigned long long)r->isp_oclqry_base,
            (unsigned long long)r->zls_ctrl,
            (unsigned long long)r->ppp_multisamplectl,
            (unsigned long long)r->sampler_heap, r->ppp_ctrl, r->width_px,
            r->height_px, r->layers, r->sampler_count, r->utile_width_px,
            r->utile_height_px, r->samples, r->sample_size_B,
            r->isp_merge_upper_x, r->isp_merge_upper_y, r->bg.usc,
            r->bg.rsrc_spec, r->eot.usc, r->eot.rsrc_spec, r->isp_bgobjdepth,
            r->isp_bgobjvals);
    zls("depth", &r->depth);
    zls("stencil", &r->stencil);
    fprintf(out, "\n");
}

/* The watched memory mapped at [@lo, @hi) (anywhere if @lo is NULL) */
static void dump_after(const uint8_t *lo, const uint8_t *hi)
{
    int i;

    for (i = 0; i < n_watch; i++) {
        Region *a = &watch[i];
        uint8_t *p = a->len ? gpu_to_cpu(a->va, a->len) : NULL;

        if (p && (!lo || (p >= lo && p < hi))) {
            fprintf(out, "after 0x%" PRIx64 " %" PRIu64 "\n", a->va, a->len);
            rows(p, a->len, 0);
            a->len = 0;
        }
    }
    fflush(out);
}

static void dump_submit(const struct drm_asahi_submit *s)
{
    const uint8_t *cmd = (const uint8_t *)(uintptr_t)s->cmdbuf;
    uint64_t usc_base = 0, max = DUMP_MAX;
    uint32_t off = 0;
    int i, n = 0, nr = 0;

    for (i = 0; i < n_queues; i++) {
        if (queues[i].id == s->queue_id) {
            usc_base = queues[i].usc_base;
        }
    }
    n_regions = 0;
    fprintf(out, "submit %u queue %u usc-base 0x%" PRIx64 "\n", submits,
            s->queue_id, usc_base);
    while (cmd && off + sizeof(struct drm_asahi_cmd_header) <= s->cmdbuf_size) {
        struct drm_asahi_cmd_header h;
        struct drm_asahi_cmd_compute c;

        memcpy(&h, cmd + off, sizeof(h));
        off += sizeof(h);
        if (h.cmd_type == DRM_ASAHI_CMD_COMPUTE && h.size >= sizeof(c) &&
            off + sizeof(c) <= s->cmdbuf_size) {
            memcpy(&c, cmd + off, sizeof(c));
            fprintf(out, "compute %d cdm 0x%llx end 0x%llx helper 0x%x 0x%x "
                    "0x%llx sampler-heap 0x%llx %u\n", n++,
                    (unsigned long long)c.cdm_ctrl_stream_base,
                    (unsigned long long)c.cdm_ctrl_stream_end,
                    c.helper.binary, c.helper.cfg,
                    (unsigned long long)c.helper.data,
                    (unsigned long long)c.sampler_heap, c.sampler_count);
            if (c.sampler_heap && c.sampler_count) {
                want_mem(c.sampler_heap, 8 * c.sampler_count);
            }
            walk_cdm(usc_base, c.cdm_ctrl_stream_base);
            if (rendered) {
                want_all_bound();
                max = RENDER_DUMP_MAX;
            }
        } else if (h.cmd_type == DRM_ASAHI_CMD_RENDER &&
                   h.size >= sizeof(struct drm_asahi_cmd_render) &&
                   off + sizeof(struct drm_asahi_cmd_render) <=
                   s->cmdbuf_size) {
            struct drm_asahi_cmd_render r;

            memcpy(&r, cmd + off, sizeof(r));
            dump_render(nr++, &r);
            want_all_bound();
            max = RENDER_DUMP_MAX;
            rendered = 1;
        } else if (h.cmd_type == DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS) {
            struct drm_asahi_attachment a;
            uint32_t k;

            for (k = 0; k + sizeof(a) <= h.size &&
                 off + k + sizeof(a) <= s->cmdbuf_size; k += sizeof(a)) {
                memcpy(&a, cmd + off + k, sizeof(a));
                fprintf(out, "attachment 0x%llx %llu\n",
                        (unsigned long long)a.pointer,
                        (unsigned long long)a.size);
                /* device-local: it may be mapped later, to read back */
                if (n_watch < MAX_REGIONS) {
                    watch[n_watch++] = (Region) { a.pointer, a.size };
                }
            }
        }
        off += h.size;
    }
    dump_memory(max, max == DUMP_MAX);
    watching = rendered;
    fprintf(out, "end %u\n", submits++);
    fflush(out);
}

/* What the program's ioctls tell about its GEM objects and queues */
static void track(unsigned long req, void *arg)
{
    int i;

    if (req == DRM_IOCTL_ASAHI_GEM_CREATE) {
        struct drm_asahi_gem_create *g = arg;
        Bo *bo = bo_by_handle(g->handle);

        /* a handle the kernel hands out again is a new object */
        if (!bo && n_bos < MAX_BOS) {
            bo = &bos[n_bos++];
        }
        if (bo) {
            *bo = (Bo) { .handle = g->handle, .size = g->size };
        }
    } else if (req == DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET) {
        struct drm_asahi_gem_mmap_offset *m = arg;
        Bo *bo = bo_by_handle(m->handle);

        if (bo) {
            bo->mmap_offset = m->offset;
        }
    } else if (req == DRM_IOCTL_ASAHI_VM_BIND) {
        struct drm_asahi_vm_bind *v = arg;

        for (i = 0; i < (int)v->num_binds; i++) {
            struct drm_asahi_gem_bind_op op;

            memcpy(&op, (uint8_t *)(uintptr_t)v->userptr + i * v->stride,
                   sizeof(op));
            if (op.flags & DRM_ASAHI_BIND_UNBIND) {
                /* a zero-range bind hides older ones */
                op.handle = 0;
            }
            if (n_binds < MAX_BINDS &&
                !(op.flags & DRM_ASAHI_BIND_SINGLE_PAGE)) {
                binds[n_binds++] = (Bind) { op.handle, op.offset, op.range,
                                            op.addr };
            }
        }
    } else if (req == DRM_IOCTL_ASAHI_QUEUE_CREATE && n_queues < MAX_QUEUES) {
        struct drm_asahi_queue_create *q = arg;

        queues[n_queues].id = q->queue_id;
        queues[n_queues++].usc_base = q->usc_exec_base;
    }
}

int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    void *arg;
    int ret;

    va_start(ap, req);
    arg = va_arg(ap, void *);
    va_end(ap);
    if (!real_ioctl) {
        real_ioctl = dlsym(RTLD_NEXT, "ioctl");
    }
    if (out && req == DRM_IOCTL_ASAHI_SUBMIT) {
        dump_submit(arg);
    }
    ret = real_ioctl(fd, req, arg);
    if (out && ret == 0) {
        track(req, arg);
    }
    return ret;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p;
    int i;

    if (!real_mmap) {
        real_mmap = dlsym(RTLD_NEXT, "mmap");
    }
    p = real_mmap(addr, len, prot, flags, fd, off);
    if (out && p != MAP_FAILED && fd >= 0 && off) {
        for (i = 0; i < n_bos; i++) {
            if (bos[i].mmap_offset == (uint64_t)off) {
                bos[i].cpu = p;
            }
        }
    }
    return p;
}

int munmap(void *addr, size_t len)
{
    static int (*real_munmap)(void *, size_t);
    int i;

    if (!real_munmap) {
        real_munmap = dlsym(RTLD_NEXT, "munmap");
    }
    if (out) {
        dump_after(addr, (uint8_t *)addr + len);
    }
    for (i = 0; out && i < n_bos; i++) {
        if (bos[i].cpu && bos[i].cpu >= (uint8_t *)addr &&
            bos[i].cpu < (uint8_t *)addr + len) {
            bos[i].cpu = NULL;
        }
    }
    return real_munmap(addr, len);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    __attribute__((alias("mmap")));

static void __attribute__((constructor)) dump_init(void)
{
    const char *path = getenv("USC_DUMP");

    if (path && *path) {
        out = fopen(path, "a");
    }
}

static void __attribute__((destructor)) dump_fini(void)
{
    if (out) {
        dump_after(NULL, NULL);
    }
}
