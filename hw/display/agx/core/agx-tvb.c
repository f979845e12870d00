/*
 * AGX firmware: the tiled vertex buffer (TVB) manager
 *
 * What the firmware reads of a buffer: the InitBuffer command that binds
 * it (slot, VM slot, block count, buffer::Info VA), the slot the
 * StartVertex op names, and after a GrowTVBAck the buffer's block count
 * from Info and its BlockControl.  Page and block lists are the driver's
 * layout; the model hands out no pages, so it never reads them.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-params.h"
#include "hw/agx/agx-scene.h"
#include "hw/agx/agx-tvb.h"

/* InitBuffer (tag 6) */
enum {
    TVB_IB_VM_SLOT = AGX_INIT_BUFFER_VM_SLOT,
    TVB_IB_BUFFER_SLOT = AGX_INIT_BUFFER_BUFFER_SLOT,
    TVB_IB_BLOCK_COUNT = AGX_INIT_BUFFER_BLOCK_COUNT,
    TVB_IB_BUFFER = AGX_INIT_BUFFER_BUFFER,     /* u64, unaligned */
};

/* The StartVertex op at the head of a vertex job's microsequence */
enum {
    TVB_SV_BUFFER = AGX_OP_START_VERTEX_BUFFER,
    TVB_SV_BUFFER_SLOT = AGX_OP_START_VERTEX_BUFFER_SLOT,
    TVB_SV_HEAD = TVB_SV_BUFFER_SLOT + 4,
};

/* GrowTVBAck beyond its tag */
enum {
    TVB_ACK_BUFFER_SLOT = AGX_GROW_TVB_ACK_MSG_BUFFER_SLOT,
    TVB_ACK_VM_SLOT = AGX_GROW_TVB_ACK_MSG_VM_SLOT,
    TVB_ACK_COUNTER = AGX_GROW_TVB_ACK_MSG_COUNTER,
};

/* FinalizeVertex: the render's Scene and buffer::Info */
enum {
    TVB_FV_SCENE = AGX_OP_FINALIZE_VERTEX_SCENE,        /* u64, unaligned */
    TVB_FV_BUFFER = AGX_OP_FINALIZE_VERTEX_BUFFER,      /* u64, unaligned */
    TVB_FF_SCENE = AGX_OP_FINALIZE_FRAGMENT_SCENE,      /* u64, unaligned */
    TVB_FF_BUFFER = AGX_OP_FINALIZE_FRAGMENT_BUFFER,    /* u64, unaligned */
};

/* A sane block count: the driver's largest buffer has 6579 blocks */
#define TVB_MAX_BLOCKS          0x10000
/* 128 KiB blocks of 32 KiB pages (drm/asahi buffer.rs) */
#define TVB_PAGES_PER_BLOCK     4

bool agx_tvb_init_buffer(AgxFw *fw, uint64_t cmd_va, uint64_t gpu_context)
{
    uint8_t cmd[AGX_INIT_BUFFER_SIZE];
    uint32_t slot, blocks;
    AgxTvbSlot *s;

    if (!agx_fw_read(fw, cmd_va, cmd, sizeof(cmd), "InitBuffer")) {
        return false;
    }
    slot = apple_ld32(cmd + TVB_IB_BUFFER_SLOT);
    blocks = apple_ld32(cmd + TVB_IB_BLOCK_COUNT);
    if (slot >= AGX_TVB_NUM_SLOTS || !apple_ld64(cmd + TVB_IB_BUFFER)) {
        agx_fw_guest_error(fw, "GPU firmware: InitBuffer 0x%"
                           G_GINT64_MODIFIER "x: buffer slot %u, buffer "
                           "0x%" G_GINT64_MODIFIER "x, ignored", cmd_va,
                           slot, apple_ld64(cmd + TVB_IB_BUFFER));
        return true;
    }
    s = &fw->tvb.slots[slot];
    s->info_va = apple_ld64(cmd + TVB_IB_BUFFER);
    s->vm_slot = apple_ld32(cmd + TVB_IB_VM_SLOT);
    s->gpu_context = gpu_context;
    fw->tvb.blocks = blocks;
    AGX_TRACE(&fw->trace, tvb_init_buffer, slot, s->vm_slot, s->info_va,
              blocks);
    return true;
}

/* Post the GrowTVB event (agx_fw_post_event) */
static bool tvb_post_grow(AgxFw *fw, uint32_t slot, uint32_t vm_slot,
                          uint32_t counter)
{
    uint8_t ev[AGX_EVENT_SIZE] = { 0 };

    apple_st32(ev + AGX_EVENT_GROW_TVB_MSG_TAG, AGX_EVENT_GROW_TVB);
    apple_st32(ev + AGX_EVENT_GROW_TVB_MSG_VM_SLOT, vm_slot);
    apple_st32(ev + AGX_EVENT_GROW_TVB_MSG_BUFFER_SLOT, slot);
    apple_st32(ev + AGX_EVENT_GROW_TVB_MSG_COUNTER, counter);
    return agx_fw_post_event(fw, ev, "asking to grow a buffer");
}

bool agx_tvb_job_started(AgxFw *fw, AgxPipe *p)
{
    uint8_t op[TVB_SV_HEAD];
    uint32_t slot;
    AgxTvb *t = &fw->tvb;

    if (fw->inject != AGX_INJECT_GROW_TVB || !p->busy || t->pending) {
        return true;
    }
    if (p->useq_size < sizeof(op) ||
        !agx_fw_read(fw, p->useq_va, op, sizeof(op), "StartVertex")) {
        /* Too short a sequence is the interpreter's to refuse */
        return fw->state == AGX_FW_RUNNING;
    }
    if ((apple_ld32(op) & 0x3f) != AGX_OP_START_VERTEX) {
        return true;
    }
    slot = apple_ld32(op + TVB_SV_BUFFER_SLOT);
    if (slot >= AGX_TVB_NUM_SLOTS || !t->slots[slot].info_va) {
        /* Not a buffer the manager knows: the injection waits */
        return true;
    }
    if (apple_ld64(op + TVB_SV_BUFFER) != t->slots[slot].info_va) {
        agx_fw_guest_error(fw, "GPU firmware: vertex job 0x%"
                           G_GINT64_MODIFIER "x names buffer 0x%"
                           G_GINT64_MODIFIER "x, slot %u holds 0x%"
                           G_GINT64_MODIFIER "x", p->cmd_va,
                           apple_ld64(op + TVB_SV_BUFFER), slot,
                           t->slots[slot].info_va);
    }
    fw->inject = AGX_INJECT_NONE;
    t->pending = true;
    t->pending_slot = slot;
    t->pending_vm_slot = p->vm_slot;
    t->pending_counter = ++t->requests;
    t->pending_cmd = p->cmd_va;
    /* The job's work ends only after the ack, or at the watchdog */
    p->done_at = fw->ops->now_ns(fw->opaque) +
                 AGX_TVB_WATCHDOG_MS * 1000000LL;
    AGX_TRACE(&fw->trace, fault_inject, "grow-tvb", AGX_PIPE_VERTEX,
              p->cmd_va);
    AGX_TRACE(&fw->trace, tvb_grow_request, slot, p->vm_slot,
              t->pending_counter, p->cmd_va);
    return tvb_post_grow(fw, slot, p->vm_slot, t->pending_counter);
}

/* Is the job on @p the one a pending GrowTVB holds? */
static bool tvb_holds(const AgxFw *fw, const AgxPipe *p)
{
    return fw->tvb.pending && p->busy && p == &fw->pipes[AGX_PIPE_VERTEX] &&
           p->cmd_va == fw->tvb.pending_cmd;
}

void agx_tvb_job_due(AgxFw *fw, AgxPipe *p)
{
    if (!tvb_holds(fw, p)) {
        return;
    }
    fw->tvb.pending = false;
    AGX_TRACE(&fw->trace, tvb_grow_timeout, fw->tvb.pending_slot,
              fw->tvb.pending_counter);
    agx_fw_guest_error(fw, "GPU firmware: no GrowTVBAck for buffer slot %u "
                       "within %d ms; the vertex job goes on",
                       fw->tvb.pending_slot, AGX_TVB_WATCHDOG_MS);
}

/* The buffer's block count now, or false if the firmware crashed */
static bool tvb_read_blocks(AgxFw *fw, uint64_t info_va, uint32_t *blocks)
{
    const AgxJobAbi *ja = fw->job_abi;
    uint32_t info_blocks, total = 0;
    uint64_t ctl;

    if (!agx_fw_ld32(fw, info_va + ja->bi_block_count, &info_blocks,
                     "buffer Info") ||
        !agx_fw_ld64(fw, info_va + ja->bi_block_ctl, &ctl, "buffer Info")) {
        return false;
    }
    /*
     * A sync grow adds blocks while a scene is active: the driver then
     * updates BlockControl, not Info
     */
    if (ctl && !agx_fw_ld32(fw, ctl + AGX_BUFFER_BLOCK_CONTROL_TOTAL, &total,
                            "BlockControl")) {
        return false;
    }
    *blocks = MAX(info_blocks, total);
    if (*blocks > TVB_MAX_BLOCKS) {
        agx_fw_guest_error(fw, "GPU firmware: buffer 0x%" G_GINT64_MODIFIER
                           "x has %u blocks", info_va, *blocks);
    }
    return true;
}

bool agx_tvb_read_pages(AgxFw *fw, uint64_t info_va, uint64_t *page_list,
                        uint32_t *pages)
{
    uint32_t blocks;

    if (!tvb_read_blocks(fw, info_va, &blocks) ||
        !agx_fw_ld64(fw, info_va + fw->job_abi->bi_page_list, page_list,
                     "buffer Info")) {
        return false;
    }
    *pages = MIN(blocks, TVB_MAX_BLOCKS) * TVB_PAGES_PER_BLOCK;
    return true;
}

void agx_tvb_grow_ack(AgxFw *fw, const uint8_t *msg)
{
    uint32_t slot = apple_ld32(msg + TVB_ACK_BUFFER_SLOT);
    uint32_t counter = apple_ld32(msg + TVB_ACK_COUNTER);
    AgxTvb *t = &fw->tvb;
    AgxPipe *p = &fw->pipes[AGX_PIPE_VERTEX];
    uint32_t blocks;

    AGX_TRACE(&fw->trace, devctrl_grow_tvb_ack, slot);
    if (slot >= AGX_TVB_NUM_SLOTS || !t->slots[slot].info_va) {
        agx_fw_guest_error(fw, "GPU firmware: GrowTVBAck for buffer slot %u, "
                           "which is not bound: ignored", slot);
        return;
    }
    t->grows++;
    if (t->pending && slot == t->pending_slot &&
        counter != t->pending_counter) {
        agx_fw_guest_error(fw, "GPU firmware: GrowTVBAck for slot %u echoes "
                           "counter %u, the request had %u", slot, counter,
                           t->pending_counter);
    }
    if (!tvb_read_blocks(fw, t->slots[slot].info_va, &blocks)) {
        return;
    }
    t->blocks = blocks;
    AGX_TRACE(&fw->trace, tvb_grow_ack, slot, counter, blocks);
    if (t->pending && slot == t->pending_slot) {
        if (tvb_holds(fw, p)) {
            /* The job's work resumes with the grown buffer */
            p->done_at = fw->ops->now_ns(fw->opaque) + fw->job_ns;
        }
        t->pending = false;
    }
}

bool agx_tvb_vertex_finalized(AgxFw *fw, const uint8_t *op)
{
    const AgxJobAbi *ja = fw->job_abi;
    uint64_t scene = apple_ld64(op + TVB_FV_SCENE);
    uint64_t info = apple_ld64(op + TVB_FV_BUFFER);
    uint32_t blocks, pages, total, max_pages, reset;
    uint64_t stats;

    if (!scene || !info) {
        return true;
    }
    if (!tvb_read_blocks(fw, info, &blocks) ||
        !agx_fw_ld64(fw, scene + ja->scene_stats, &stats, "Scene")) {
        return false;
    }
    pages = MIN(blocks, TVB_MAX_BLOCKS) * TVB_PAGES_PER_BLOCK / 2;
    total = pages;
    if (fw->vdm.done_scene_va == scene) {
        /*
         * The vertex data master binned this scene: the pages its last
         * pass used, and those of every pass (partial renders), one more
         * when primitives were dropped
         */
        pages = fw->vdm.done_pages;
        total = fw->vdm.done_total + fw->vdm.done_overflow;
        fw->vdm.done_scene_va = 0;
    }
    if (!agx_fw_st32(fw, scene + AGX_BUFFER_SCENE_PASS_PAGE_COUNT, pages,
                     "Scene") ||
        !agx_fw_st32(fw, scene + ja->scene_total_pages, total, "Scene")) {
        return false;
    }
    if (!stats) {
        return true;
    }
    if (!agx_fw_ld32(fw, stats + AGX_BUFFER_STATS_MAX_PAGES, &max_pages,
                     "buffer Stats") ||
        !agx_fw_ld32(fw, stats + AGX_BUFFER_STATS_RESET, &reset,
                     "buffer Stats")) {
        return false;
    }
    /* The driver asked for a new maximum when it last read this one */
    if (reset || total > max_pages) {
        max_pages = total;
    }
    if (total > pages) {
        uint32_t n;

        if (!agx_fw_ld32(fw, stats + AGX_BUFFER_STATS_OVERFLOW_COUNT, &n,
                         "buffer Stats") ||
            !agx_fw_st32(fw, stats + AGX_BUFFER_STATS_OVERFLOW_COUNT, n + 1,
                         "buffer Stats")) {
            return false;
        }
    }
    return agx_fw_st32(fw, stats + AGX_BUFFER_STATS_MAX_PAGES, max_pages,
                       "buffer Stats") &&
           (!reset || agx_fw_st32(fw, stats + AGX_BUFFER_STATS_RESET, 0,
                                  "buffer Stats"));
}

/* The scene's memory, read as the ISP reads it: a fault is no crash */
static bool tvb_scene_read(void *opaque, uint64_t va, void *buf, uint32_t len)
{
    AgxFw *fw = opaque;
    AgxUatFault fault;

    return agx_uat_rw(&fw->uat, 0, va, buf, len, AGX_UAT_FW, false, &fault);
}

static bool tvb_scene_write(void *opaque, uint64_t va, const void *buf,
                            uint32_t len)
{
    return false;
}

bool agx_tvb_fragment_started(AgxFw *fw, const uint8_t *op)
{
    uint64_t count = apple_ld64(op + AGX_OP_START_FRAGMENT_TVB_OVERFLOW_COUNT);
    AgxSceneMem m = {
        .read = tvb_scene_read, .write = tvb_scene_write, .opaque = fw,
    };
    uint64_t tilemap = 0;
    AgxSceneReader r;
    const char *why;
    uint32_t overflows = 0;

    /*
     * The vertex pass binned into the tilemap: its partial renders, and
     * one more if it dropped primitives
     */
    if (agx_params_get(fw, AGX_PIPE_FRAGMENT, "tvb_tilemap", &tilemap) &&
        tilemap && agx_scene_open(&r, &m, tilemap, &why)) {
        overflows = r.passes + r.overflowed;
    }
    return !count || agx_fw_st32(fw, count, overflows, "tvb_overflow_count");
}

/* The page ring of buffer @info_va, or NULL */
static AgxTvbRing *tvb_ring_find(AgxFw *fw, uint64_t info_va)
{
    for (int i = 0; info_va && i < AGX_TVB_RINGS; i++) {
        if (fw->tvb.rings[i].info_va == info_va) {
            return &fw->tvb.rings[i];
        }
    }
    return NULL;
}

/*
 * The page ring of buffer @info_va, a new one if it has none: an unused
 * ring, else one whose scenes are all rendered.  Only a guest rendering
 * with more buffers in flight than the buffer manager has slots finds
 * every ring holding live scenes: then the rings take turns, and the
 * buffer whose ring is taken forgets its live scenes (whose pages a later
 * scene of it may bin over)
 */
static AgxTvbRing *tvb_ring(AgxFw *fw, uint64_t info_va)
{
    AgxTvb *t = &fw->tvb;
    AgxTvbRing *r = tvb_ring_find(fw, info_va);

    for (int i = 0; !r && i < AGX_TVB_RINGS; i++) {
        if (!t->rings[i].info_va) {
            r = &t->rings[i];
        }
    }
    for (int i = 0; !r && i < AGX_TVB_RINGS; i++) {
        if (!t->rings[i].nlive) {
            r = &t->rings[i];
        }
    }
    if (!r) {
        r = &t->rings[t->ring_victim++ % AGX_TVB_RINGS];
        t->evictions += r->nlive;
        agx_fw_guest_error(fw, "GPU firmware: buffer 0x%" G_GINT64_MODIFIER
                           "x renders while %d buffers have scenes in "
                           "flight: buffer 0x%" G_GINT64_MODIFIER "x's %u "
                           "live scenes give up their pages", info_va,
                           AGX_TVB_RINGS, r->info_va, r->nlive);
    }
    if (r->info_va != info_va) {
        memset(r, 0, sizeof(*r));
        r->info_va = info_va;
    }
    return r;
}

static void tvb_trace(AgxFw *fw, const AgxTvbRing *r, const AgxTvbLive *l,
                      const char *what)
{
    AGX_TRACE(&fw->trace, tvb_scene, r->info_va, l->scene_va, l->first,
              l->pages, r->nlive, what);
}

/* Scene @i of @r returns its pages */
static void tvb_live_drop(AgxTvbRing *r, uint32_t i)
{
    memmove(&r->live[i], &r->live[i + 1],
            (r->nlive - i - 1) * sizeof(r->live[0]));
    r->nlive--;
}

static int tvb_live_find(const AgxTvbRing *r, uint64_t scene_va)
{
    for (uint32_t i = 0; i < r->nlive; i++) {
        if (r->live[i].scene_va == scene_va) {
            return i;
        }
    }
    return -1;
}

uint32_t agx_tvb_scene_begin(AgxFw *fw, uint64_t info_va, uint32_t ring,
                             uint64_t scene_va, uint32_t *first)
{
    uint32_t start, end, free;
    AgxTvbLive *l;
    AgxTvbRing *r;
    int again;

    if (!ring) {
        return 0;
    }
    r = tvb_ring(fw, info_va);
    again = tvb_live_find(r, scene_va);
    if (again >= 0) {
        /* the same scene binned again (a re-run): its pages are its own */
        tvb_live_drop(r, again);
    }
    start = r->next_page % ring;
    if (!r->nlive) {
        free = ring;
    } else {
        end = r->live[0].first % ring;
        free = (end + ring - start) % ring;
    }
    if (!free || r->nlive == AGX_TVB_LIVE_SCENES) {
        return 0;
    }
    l = &r->live[r->nlive++];
    *l = (AgxTvbLive) { .scene_va = scene_va, .first = start, .pages = free };
    tvb_trace(fw, r, l, "begins");
    *first = start;
    return free;
}

void agx_tvb_scene_binned(AgxFw *fw, uint64_t info_va, uint64_t scene_va,
                          uint32_t ring, uint32_t pages)
{
    AgxTvbRing *r = tvb_ring_find(fw, info_va);
    int i = r ? tvb_live_find(r, scene_va) : -1;

    if (i < 0) {
        return;
    }
    r->live[i].pages = MIN(pages, r->live[i].pages);
    r->next_page = ring ? (r->live[i].first + r->live[i].pages) % ring : 0;
    tvb_trace(fw, r, &r->live[i], "binned");
    if (!r->live[i].pages) {
        tvb_live_drop(r, i);
    }
}

void agx_tvb_scene_free(AgxFw *fw, uint64_t info_va, uint64_t scene_va)
{
    AgxTvbRing *r = tvb_ring_find(fw, info_va);
    int i = r ? tvb_live_find(r, scene_va) : -1;

    if (i >= 0) {
        tvb_trace(fw, r, &r->live[i], "freed");
        tvb_live_drop(r, i);
    }
}

void agx_tvb_scene_evict(AgxFw *fw, uint64_t info_va)
{
    AgxTvbRing *r = tvb_ring_find(fw, info_va);

    if (r && r->nlive) {
        fw->tvb.evictions++;
        tvb_trace(fw, r, &r->live[0], "evicted");
        tvb_live_drop(r, 0);
    }
}

void agx_tvb_fragment_finalized(AgxFw *fw, const uint8_t *op)
{
    uint64_t scene = apple_ld64(op + TVB_FF_SCENE);
    uint64_t info = apple_ld64(op + TVB_FF_BUFFER);

    for (int i = 0; scene && info && i < AGX_TVB_RINGS; i++) {
        AgxTvbRing *r = &fw->tvb.rings[i];
        int k = r->info_va == info ? tvb_live_find(r, scene) : -1;

        if (k >= 0) {
            tvb_trace(fw, r, &r->live[k], "returned");
            tvb_live_drop(r, k);
        }
    }
}

void agx_tvb_forget_context(AgxFw *fw, uint64_t gpu_context)
{
    for (int i = 0; i < AGX_TVB_NUM_SLOTS; i++) {
        AgxTvbSlot *s = &fw->tvb.slots[i];

        if (s->info_va && s->gpu_context == gpu_context) {
            AGX_TRACE(&fw->trace, tvb_unbind, i, s->info_va);
            /* its scenes' pages with it */
            for (int k = 0; k < AGX_TVB_RINGS; k++) {
                if (fw->tvb.rings[k].info_va == s->info_va) {
                    memset(&fw->tvb.rings[k], 0, sizeof(fw->tvb.rings[k]));
                }
            }
            memset(s, 0, sizeof(*s));
            if (fw->tvb.pending && fw->tvb.pending_slot == i) {
                fw->tvb.pending = false;
            }
        }
    }
}

void agx_tvb_reset(AgxFw *fw)
{
    memset(fw->tvb.slots, 0, sizeof(fw->tvb.slots));
    memset(fw->tvb.rings, 0, sizeof(fw->tvb.rings));
    fw->tvb.pending = false;
}

const char *agx_tvb_check_loaded(const AgxFw *fw)
{
    if (fw->tvb.pending && fw->tvb.pending_slot >= AGX_TVB_NUM_SLOTS) {
        return "pending TVB grow slot out of range";
    }
    for (int i = 0; i < AGX_TVB_RINGS; i++) {
        if (fw->tvb.rings[i].nlive > AGX_TVB_LIVE_SCENES) {
            return "TVB ring with too many live scenes";
        }
    }
    return NULL;
}
