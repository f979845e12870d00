/*
 * asahi-uapi: a small client laid out the way Mesa 26 uses the UAPI
 *
 * At start-up Mesa creates a VM whose kernel range is the top 32 GiB,
 * binds a WRITEBACK printf buffer at 2^36, puts its 4 GiB shader heap
 * above it and passes that heap's base as the queue's usc_exec_base.
 * Submissions are a stream of drm_asahi_cmd_header + payload where every
 * hardware command waits on all the render and compute commands before
 * it in the same submit (agx_cmd_header(is_cdm, nr_vdm, nr_cdm)).  hk
 * sends no attachment commands; when we do, they come right before the
 * command they describe with both barriers NONE, as the UAPI asks.
 *
 * The fields are filled as hk (Mesa's Vulkan driver, hk_queue.c) fills
 * them: ppp_ctrl 0x202, USC words tagged with | 4, the triangle-merge
 * bounds as float bits of tan(60 degrees) / size (the UAPI comment says
 * times size; Mesa divides, and Mesa is what the firmware sees).  Our GPU
 * model walks control streams and runs a render's tile programs: the
 * client's compute and render streams are a Stream Terminate each, its
 * background and end-of-tile programs a lone stop.
 */

#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "asahi-uapi.h"

/* Offsets inside the client's data buffer */
#define DATA_SIZE (1ULL << 20)
#define DATA_VDM_STREAM 0x0000
#define DATA_SCISSOR 0x1000
#define DATA_DBIAS 0x1100
#define DATA_CDM_STREAM 0x2000
#define DATA_CDM_STREAM_LEN 0x40
#define DATA_SAMPLERS 0x3000
#define DATA_OCLQRY 0x4000
#define DATA_COLOUR 0x10000

/* Offsets inside the shader heap (32-bit, relative to usc_exec_base) */
#define USC_SIZE 0x10000
#define USC_BG 0x100
#define USC_EOT 0x200
#define USC_CODE 0x8000
#define USC_PROGRAMS_END (USC_PROGRAMS + 0x40 * 64)

/*
 * The programs the model runs for every tile of a render (background and
 * end of tile): as Mesa's, a USC word list (Shader, No Preshader) naming
 * code, here a lone `stop`: at USC_BG, USC_EOT and every 64 bytes of
 * USC_PROGRAMS
 */
static void usc_fill_programs(void *usc)
{
    static const uint8_t stop[] = { 0x88, 0x00 };
    uint8_t *u = usc;

    memcpy(u + USC_CODE, stop, sizeof(stop));
    for (uint32_t off = USC_BG; off < USC_PROGRAMS_END; off += 0x40) {
        if (off >= USC_EOT + 0x40 && off < USC_PROGRAMS) {
            continue;
        }
        u[off] = 0x0d;                  /* Shader, its code offset */
        u[off + 1] = 0;
        memcpy(u + off + 2, &(uint32_t){ USC_CODE }, 4);
        u[off + 6] = 0x88;              /* No Preshader */
        u[off + 7] = 0;
    }
}

int client_buf(Client *c, GpuBuf *b, uint64_t size, uint64_t va,
               uint32_t gem_flags)
{
    uint32_t vm = (gem_flags & DRM_ASAHI_GEM_VM_PRIVATE) ? c->vm_id : 0;
    int ret;

    memset(b, 0, sizeof(*b));
    ret = asahi_gem_create(c->fd, size, gem_flags, vm, &b->handle);
    if (ret) {
        return ret;
    }
    b->size = size;
    b->va = va;
    b->map = asahi_gem_map(c->fd, b->handle, size);
    if (!b->map) {
        return -errno;
    }
    if (va) {
        ret = asahi_bind(c->fd, c->vm_id, b->handle, 0, size, va,
                         DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE);
    }
    return ret;
}

/* A VM with the client's buffers and a queue on it, on the file c->fd */
static int client_setup(Client *c, uint32_t priority)
{
    uint32_t priv = DRM_ASAHI_GEM_VM_PRIVATE;
    int ret;

    ret = asahi_vm_create_mesa(c->fd, &c->vm_id);
    if (!ret) {
        ret = client_buf(c, &c->printf_buf, GPU_PAGE, MESA_PRINTF_VA,
                         priv | DRM_ASAHI_GEM_WRITEBACK);
    }
    if (!ret) {
        ret = client_buf(c, &c->usc, USC_SIZE, MESA_USC_BASE, priv);
    }
    if (!ret) {
        ret = client_buf(c, &c->data, DATA_SIZE, MESA_USER_VA, priv);
    }
    if (!ret) {
        usc_fill_programs(c->usc.map);
    }
    if (!ret) {
        /* An empty compute stream: Stream Terminate */
        uint32_t *stream = (uint32_t *)((uint8_t *)c->data.map +
                                        DATA_CDM_STREAM);

        stream[0] = 2u << 29;
        stream[1] = 0;
        /* An empty render (VDM) stream: Stream Terminate, 32 bytes */
        stream = (uint32_t *)((uint8_t *)c->data.map + DATA_VDM_STREAM);
        memset(stream, 0, 32);
        stream[0] = 6u << 29;
    }
    /* Timestamp buffers must be shareable (file.rs gem_bind_object). */
    if (!ret) {
        ret = client_buf(c, &c->ts, GPU_PAGE, 0, DRM_ASAHI_GEM_WRITEBACK);
    }
    if (!ret) {
        ret = asahi_queue_create(c->fd, c->vm_id, priority, MESA_USC_BASE,
                                 &c->queue_id);
    }
    return ret;
}

int client_open(Client *c, uint32_t priority)
{
    int ret;

    memset(c, 0, sizeof(*c));
    c->fd = asahi_open();
    if (c->fd < 0) {
        return c->fd;
    }
    ret = client_setup(c, priority);
    if (ret) {
        client_close(c);
    }
    return ret;
}

int client_open_vm(Client *c, const Client *parent, uint32_t priority)
{
    int ret;

    memset(c, 0, sizeof(*c));
    c->fd = parent->fd;
    c->shares_fd = true;
    ret = client_setup(c, priority);
    if (ret) {
        client_close(c);
    }
    return ret;
}

/* As Mesa does when it first needs timestamps: the whole BO */
int client_bind_timestamps(Client *c)
{
    return asahi_bind_object(c->fd, c->ts.handle, 0, c->ts.size,
                             &c->ts_object);
}

static void buf_unmap(GpuBuf *b)
{
    if (b->map) {
        munmap(b->map, b->size);
        b->map = NULL;
    }
}

/*
 * Closing the file tears everything down; only the CPU maps are ours.  A
 * client on another's file leaves the file (and its VM) to that one.
 */
void client_close(Client *c)
{
    buf_unmap(&c->printf_buf);
    buf_unmap(&c->usc);
    buf_unmap(&c->data);
    buf_unmap(&c->ts);
    if (c->fd >= 0 && !c->shares_fd) {
        close(c->fd);
    }
    c->fd = -1;
}

void cmdbuf_init(CmdBuf *cb)
{
    cb->len = 0;
    cb->nr_vdm = 0;
    cb->nr_cdm = 0;
}

void cmdbuf_push(CmdBuf *cb, uint16_t type, uint16_t size,
                 uint16_t vdm_barrier, uint16_t cdm_barrier,
                 const void *payload)
{
    struct drm_asahi_cmd_header h = {
        .cmd_type = type,
        .size = size,
        .vdm_barrier = vdm_barrier,
        .cdm_barrier = cdm_barrier,
    };

    if (cb->len + sizeof(h) + size > sizeof(cb->bytes)) {
        diag("cmdbuf overflow");
        return;
    }
    memcpy(cb->bytes + cb->len, &h, sizeof(h));
    cb->len += sizeof(h);
    if (payload) {
        memcpy(cb->bytes + cb->len, payload, size);
    } else {
        memset(cb->bytes + cb->len, 0, size);
    }
    cb->len += size;
}

void cmdbuf_push_compute(CmdBuf *cb, const struct drm_asahi_cmd_compute *c)
{
    cmdbuf_push(cb, DRM_ASAHI_CMD_COMPUTE, sizeof(*c), cb->nr_vdm,
                cb->nr_cdm, c);
    cb->nr_cdm++;
}

void cmdbuf_push_render(CmdBuf *cb, const struct drm_asahi_cmd_render *r)
{
    cmdbuf_push(cb, DRM_ASAHI_CMD_RENDER, sizeof(*r), cb->nr_vdm,
                cb->nr_cdm, r);
    cb->nr_vdm++;
}

void cmdbuf_push_attachments(CmdBuf *cb, uint16_t type,
                             const struct drm_asahi_attachment *a,
                             unsigned int n)
{
    cmdbuf_push(cb, type, n * sizeof(*a), DRM_ASAHI_BARRIER_NONE,
                DRM_ASAHI_BARRIER_NONE, a);
}

void client_compute(Client *c, struct drm_asahi_cmd_compute *cmd)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->cdm_ctrl_stream_base = c->data.va + DATA_CDM_STREAM;
    cmd->cdm_ctrl_stream_end = cmd->cdm_ctrl_stream_base +
                               DATA_CDM_STREAM_LEN;
    cmd->sampler_heap = c->data.va + DATA_SAMPLERS;
    cmd->sampler_count = 1;
}

static uint32_t float_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof(u));
    return u;
}

void client_render(Client *c, struct drm_asahi_cmd_render *cmd, uint16_t w,
                   uint16_t h)
{
    const float tan60 = 1.732051f;

    memset(cmd, 0, sizeof(*cmd));
    /* A clear: Mesa sets PROCESS_EMPTY_TILES when clearing targets */
    cmd->flags = DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES;
    cmd->isp_zls_pixels = (uint32_t)(w - 1) | (uint32_t)(h - 1) << 15;
    cmd->vdm_ctrl_stream_base = c->data.va + DATA_VDM_STREAM;
    cmd->isp_scissor_base = c->data.va + DATA_SCISSOR;
    cmd->isp_dbias_base = c->data.va + DATA_DBIAS;
    cmd->isp_oclqry_base = c->data.va + DATA_OCLQRY;
    cmd->sampler_heap = c->data.va + DATA_SAMPLERS;
    cmd->sampler_count = 1;
    /* One sample at the pixel centre (8/16, 8/16) */
    cmd->ppp_multisamplectl = 0x88;
    cmd->ppp_ctrl = 0x202;
    cmd->width_px = w;
    cmd->height_px = h;
    cmd->layers = 1;
    cmd->utile_width_px = 32;
    cmd->utile_height_px = 32;
    cmd->samples = 1;
    cmd->sample_size_B = 4;
    cmd->isp_merge_upper_x = float_bits(tan60 / w);
    cmd->isp_merge_upper_y = float_bits(tan60 / h);
    cmd->bg.usc = USC_BG | 4;
    cmd->eot.usc = USC_EOT | 4;
    cmd->partial_bg = cmd->bg;
    cmd->partial_eot = cmd->eot;
}

void client_attachment(Client *c, struct drm_asahi_attachment *a)
{
    memset(a, 0, sizeof(*a));
    a->pointer = c->data.va + DATA_COLOUR;
    a->size = 64 * 64 * 4;
}

int client_submit_wait(Client *c, const CmdBuf *cb, int timeout_ms)
{
    struct drm_asahi_sync out = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ };
    int ret = syncobj_create(c->fd, false, &out.handle);

    if (ret) {
        return ret;
    }
    ret = asahi_submit(c->fd, c->queue_id, cb->bytes, cb->len, NULL, 0,
                       &out, 1);
    if (!ret) {
        ret = syncobj_wait(c->fd, out.handle, timeout_ms);
    }
    if (!ret && syncobj_fence_status(c->fd, out.handle) != 1) {
        diag("job fence signalled with an error");
        ret = -EIO;
    }
    syncobj_destroy(c->fd, out.handle);
    return ret;
}
