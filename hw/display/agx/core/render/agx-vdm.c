/*
 * AGX vertex data master: the VDM control stream of a RunVertex job
 *
 * Block layouts: Mesa's cmdbuf.xml ("VDM commands", "PPP State") in the
 * order its decode.c reads them; the reference notes, agx-shaders.md 6.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <math.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-vdm.h"
#include "hw/agx/agx-cdm.h"
#include "hw/agx/agx-fault.h"
#include "hw/agx/agx-frag.h"
#include "hw/agx/agx-gpu-mem.h"
#include "hw/agx/agx-job-abi.h"
#include "hw/agx/agx-params.h"
#include "hw/agx/agx-pipeline.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-tvb.h"
#include "hw/agx/agx-usc.h"

/* Every block's first word */
APPLE_FIELD(VDM_BLOCK, TYPE, 29, 3);
/* PPP State */
APPLE_FIELD(VDM_PPP, ADDR_HI, 0, 8);
APPLE_FIELD(VDM_PPP, WORDS, 8, 8);
/* Barrier */
APPLE_FIELD(VDM_BARRIER, RETURNS, 27, 1);
/* VDM State: which words follow */
APPLE_FIELD(VDM_STATE, RESTART_INDEX, 0, 1);
APPLE_FIELD(VDM_STATE, VS_WORD0, 1, 1);
APPLE_FIELD(VDM_STATE, VS_WORD1, 2, 1);
APPLE_FIELD(VDM_STATE, OUTPUTS, 3, 1);
APPLE_FIELD(VDM_STATE, TESSELLATION, 4, 1);
APPLE_FIELD(VDM_STATE, UNKNOWN, 5, 1);
APPLE_FIELD(VDM_STATE, TESS_SCALE, 7, 1);
APPLE_FIELD(VDM_OUTPUT_COUNTS, COUNT1, 0, 8);
APPLE_FIELD(VDM_UNKNOWN, FLAT_SHADING, 0, 2);
/* Index List */
APPLE_FIELD(VDM_IDX, BUFFER_HI, 0, 8);
APPLE_FIELD(VDM_IDX, PRIMITIVE, 8, 8);
APPLE_FIELD(VDM_IDX, RESTART, 16, 1);
APPLE_FIELD(VDM_IDX, INDEX_SIZE, 17, 3);
APPLE_FIELD(VDM_IDX, BUFFER_SIZE, 20, 1);
APPLE_FIELD(VDM_IDX, BUFFER, 21, 1);
APPLE_FIELD(VDM_IDX, COUNT, 22, 1);
APPLE_FIELD(VDM_IDX, INSTANCES, 23, 1);
APPLE_FIELD(VDM_IDX, START, 24, 1);
APPLE_FIELD(VDM_IDX, UNK1, 25, 1);
APPLE_FIELD(VDM_IDX, INDIRECT, 26, 1);
APPLE_FIELD(VDM_IDX, UNK2, 27, 1);
/* Stream Link */
APPLE_FIELD(VDM_LINK, TARGET_HI, 0, 8);
APPLE_FIELD(VDM_LINK, WITH_RETURN, 28, 1);

#define VDM_PIPELINE_MASK       0xffffffc0u
#define VDM_TERMINATE_SIZE      32
/* A vertex keeps its position and this many more output words */
#define VDM_OUTPUTS             AGX_VDM_OUTPUTS
/* Clip planes: w > VDM_W_MIN */
#define VDM_W_MIN               0.000001f
/* User clip distances (Output Select planes) the model clips against */
#define VDM_CLIP_DISTANCES      8
/* Clip planes: w, depth near and far, the clip distances */
#define VDM_PLANE_W             (1u << 0)
#define VDM_PLANES_DEPTH        (3u << 1)
#define VDM_PLANE_DIST0         3
/* Vertices a clipped triangle may have: 3 + one per plane */
#define VDM_CLIP_MAX            (3 + VDM_PLANE_DIST0 + VDM_CLIP_DISTANCES)

/* One vertex as the shader left it */
typedef AgxVdmVertex VdmVertex;

/* The outputs of a batch's lanes: the st_var hook's target (the batch) */
static void vdm_st_var(void *opaque, uint32_t lane, uint32_t index,
                       uint32_t value)
{
    AgxVdmBatch *b = opaque;

    if (index < VDM_OUTPUTS) {
        b->v[lane].out[index] = value;
    } else {
        b->bad_index++;
    }
}

static const AgxUscStageOps vdm_stage_ops = {
    .st_var = vdm_st_var,
};

/* One slice's walk */
typedef struct VdmWalk {
    AgxFw *fw;
    AgxVdm *v;
    AgxGpuMem mem;              /* the job's VM, for the GPU */
    AgxGpuMem kmem;             /* the kernel's objects (the scene) */
    AgxSceneMem smem;
    uint64_t used;
    AgxUatFault *fault;
} VdmWalk;

static uint64_t vdm_cmd(const VdmWalk *w)
{
    return w->fw->pipes[AGX_PIPE_VERTEX].cmd_va;
}

/* How the vertex job runs in slices, and its messages */
static const AgxSliceKind vdm_kind = {
    .pipe = AGX_PIPE_VERTEX,
    .who = "GPU vertex data master",
    .command = "vertex",
    .slice_ns = AGX_CDM_SLICE_NS,
    .job_budget = AGX_CDM_JOB_BUDGET,
};

/* The stream is bad: a guest error, a GPU fault of the vertex job */
static AgxVdmResult G_GNUC_PRINTF(3, 4)
vdm_bad(VdmWalk *w, uint64_t va, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    agx_slice_vbad(w->fw, &vdm_kind, w->v->vm_slot, va, w->fault, fmt, ap);
    va_end(ap);
    return AGX_VDM_FAULT;
}

/* A read (or write) faulted: the job takes that GPU fault */
static AgxVdmResult vdm_faulted(VdmWalk *w, const AgxGpuMem *m)
{
    *w->fault = m->fault;
    return AGX_VDM_FAULT;
}

static bool vdm_read(VdmWalk *w, uint64_t va, void *buf, uint32_t len)
{
    return agx_gpu_mem_rw(&w->mem, va, buf, len, false);
}

/* --- state blocks --------------------------------------------------------- */

static AgxVdmResult vdm_ppp(VdmWalk *w, uint64_t at, uint32_t w0)
{
    AgxVdm *v = w->v;
    uint8_t blk[8], buf[AGX_PPP_MAX_UPDATE];
    uint32_t size = 4 * APPLE_FIELD_EX64(w0, VDM_PPP, WORDS);
    uint64_t va;
    const char *why;

    if (!vdm_read(w, at, blk, 8)) {
        return vdm_faulted(w, &w->mem);
    }
    va = agx_gpu_va40((uint64_t)APPLE_FIELD_EX64(w0, VDM_PPP, ADDR_HI) << 32 |
                      apple_ld32(blk + 4));
    if (size > sizeof(buf)) {
        return vdm_bad(w, at, "PPP State of %u bytes", size);
    }
    if (!vdm_read(w, va, buf, size)) {
        return vdm_faulted(w, &w->mem);
    }
    if (!agx_ppp_apply(&v->ppp, buf, size, &why)) {
        return vdm_bad(w, va, "PPP update: %s", why);
    }
    v->ppp_stored = false;
    v->pos = at + 8;
    return AGX_VDM_DONE;
}

static AgxVdmResult vdm_state(VdmWalk *w, uint64_t at, uint32_t w0)
{
    AgxVdm *v = w->v;
    uint32_t len = 4, words[8];
    unsigned n = 0;

    if (APPLE_FIELD_EX64(w0, VDM_STATE, TESSELLATION) ||
        APPLE_FIELD_EX64(w0, VDM_STATE, TESS_SCALE)) {
        agx_fw_unimp(w->fw, "GPU vertex data master: tessellation state "
                     "at 0x%" G_GINT64_MODIFIER "x", at);
    }
    for (unsigned bit = 0; bit < 8; bit++) {
        n += bit != 6 && (w0 >> bit) & 1;
    }
    if (!vdm_read(w, at + 4, words, 4 * n)) {
        return vdm_faulted(w, &w->mem);
    }
    n = 0;
#define VDM_STATE_WORD(field, dst)                                      \
    if (APPLE_FIELD_EX64(w0, VDM_STATE, field)) {                       \
        dst = apple_ld32((uint8_t *)&words[n++]);                       \
    }
    VDM_STATE_WORD(RESTART_INDEX, v->restart_index);
    VDM_STATE_WORD(VS_WORD0, v->vs_word0);
    VDM_STATE_WORD(VS_WORD1, v->vs_word1);
    VDM_STATE_WORD(OUTPUTS, v->vs_outputs);
    if (APPLE_FIELD_EX64(w0, VDM_STATE, TESSELLATION)) {
        n++;
    }
    VDM_STATE_WORD(UNKNOWN, v->vs_unknown);
#undef VDM_STATE_WORD
    if (APPLE_FIELD_EX64(w0, VDM_STATE, TESS_SCALE)) {
        n++;
    }
    len += 4 * n;
    /* Padded to 8 bytes, unless the tessellation scale ends it */
    if (!APPLE_FIELD_EX64(w0, VDM_STATE, TESS_SCALE)) {
        len = APPLE_ROUND_UP(len, 8);
    }
    v->pos = at + len;
    return AGX_VDM_DONE;
}

/* --- draws ---------------------------------------------------------------- */

/* Bind the vertex shader for a draw and run its preamble */
/*
 * Run the draw's preamble, suspended in v->batch.group, for the rest of
 * the slice (at least an instruction); when it ends, the draw's
 * primitives are shaded
 */
static AgxVdmResult vdm_preamble(VdmWalk *w, uint64_t slice)
{
    AgxVdm *v = w->v;
    AgxVdmBatch *b = &v->batch;
    uint64_t before, left;
    AgxUscFault uf;
    AgxUscStatus st;

    before = left = MAX(slice - MIN(w->used, slice), 1);
    w->mem.faulted = false;
    st = agx_usc_preamble_run(&v->launch, &b->group, &agx_gpu_mem_usc_ops,
                              &w->mem, &left, &uf);
    w->used += before - left;
    v->budget -= MIN(before - left, v->budget);
    if (st == AGX_USC_SUSPENDED) {
        v->suspensions++;
        AGX_TRACE(&w->fw->trace, vdm_suspend, vdm_cmd(w), 0, b->group.used);
        return AGX_VDM_MORE;
    }
    agx_usc_tg_free(&b->group);
    b->preamble = false;
    if (st == AGX_USC_BUDGET) {
        return AGX_VDM_RUNAWAY;
    }
    if (st != AGX_USC_OK) {
        if (w->mem.faulted) {
            return vdm_faulted(w, &w->mem);
        }
        return vdm_bad(w, uf.pc, "vertex preamble fault %u, instruction "
                       "0x%016" G_GINT64_MODIFIER "x", uf.kind, uf.insn);
    }
    v->in_draw = true;
    return AGX_VDM_DONE;
}

/*
 * Bind the draw's vertex shader, then run its preamble (a slice may
 * suspend it); the draw's primitives are shaded after it
 */
static AgxVdmResult vdm_bind_shader(VdmWalk *w, uint64_t slice)
{
    AgxVdm *v = w->v;
    AgxUscLaunch *l = &v->launch;
    AgxPipelineError err;

    l->usc_base = v->usc_base;
    l->sampler_heap_va = v->sampler_heap;
    l->soft_faults = v->soft_faults;
    switch (agx_pipeline_load(l, v->vs_word1 & VDM_PIPELINE_MASK,
                              v->vs_word0, &agx_gpu_mem_usc_ops, &w->mem,
                              &err)) {
    case AGX_PIPELINE_FAULT:
        return vdm_faulted(w, &w->mem);
    case AGX_PIPELINE_BAD:
        return vdm_bad(w, err.at, "vertex pipeline: %s", err.why);
    default:
        break;
    }
    if (!l->has_preamble) {
        v->in_draw = true;
        return AGX_VDM_DONE;
    }
    agx_usc_preamble_start(l, MIN(v->budget, AGX_VDM_GROUP_BUDGET),
                           &v->batch.group);
    v->batch.preamble = true;
    return vdm_preamble(w, slice);
}

static AgxVdmResult vdm_index_list(VdmWalk *w, uint64_t at, uint32_t w0,
                                   uint64_t slice)
{
    static const uint8_t sizes[] = { 1, 2, 4 };
    AgxVdm *v = w->v;
    uint32_t words[8] = { 0 }, n = 0, len = 4, isize;
    uint32_t count = 0, instances = 1, start = 0, limit = UINT32_MAX;
    uint64_t ib = 0, indirect = 0;
    unsigned nwords = 0;

    if (APPLE_FIELD_EX64(w0, VDM_IDX, UNK1) ||
        APPLE_FIELD_EX64(w0, VDM_IDX, UNK2)) {
        return vdm_bad(w, at, "Index List with unknown words (0x%08x)", w0);
    }
    isize = APPLE_FIELD_EX64(w0, VDM_IDX, INDEX_SIZE);
    if (isize >= G_N_ELEMENTS(sizes)) {
        return vdm_bad(w, at, "Index List with index size %u", isize);
    }
    nwords = APPLE_FIELD_EX64(w0, VDM_IDX, BUFFER) +
             APPLE_FIELD_EX64(w0, VDM_IDX, COUNT) +
             APPLE_FIELD_EX64(w0, VDM_IDX, INSTANCES) +
             APPLE_FIELD_EX64(w0, VDM_IDX, START) +
             2 * APPLE_FIELD_EX64(w0, VDM_IDX, INDIRECT) +
             APPLE_FIELD_EX64(w0, VDM_IDX, BUFFER_SIZE);
    if (!vdm_read(w, at + 4, words, 4 * nwords)) {
        return vdm_faulted(w, &w->mem);
    }
    len += 4 * nwords;
    /* decode.c's order: buffer, count, instances, start, indirect, size */
    if (APPLE_FIELD_EX64(w0, VDM_IDX, BUFFER)) {
        ib = agx_gpu_va40((uint64_t)APPLE_FIELD_EX64(w0, VDM_IDX, BUFFER_HI)
                          << 32 | apple_ld32((uint8_t *)&words[n++]));
    }
    if (APPLE_FIELD_EX64(w0, VDM_IDX, COUNT)) {
        count = apple_ld32((uint8_t *)&words[n++]);
    }
    if (APPLE_FIELD_EX64(w0, VDM_IDX, INSTANCES)) {
        instances = apple_ld32((uint8_t *)&words[n++]);
    }
    if (APPLE_FIELD_EX64(w0, VDM_IDX, START)) {
        start = apple_ld32((uint8_t *)&words[n++]);
    }
    if (APPLE_FIELD_EX64(w0, VDM_IDX, INDIRECT)) {
        uint32_t hi = apple_ld32((uint8_t *)&words[n++]);

        indirect = agx_gpu_va40((uint64_t)(hi & 0xff) << 32 |
                                apple_ld32((uint8_t *)&words[n++]));
    }
    if (APPLE_FIELD_EX64(w0, VDM_IDX, BUFFER_SIZE)) {
        /* In 4-byte units (cmdbuf.xml: shr(2)) */
        uint64_t bytes = (uint64_t)apple_ld32((uint8_t *)&words[n++]) * 4;

        limit = MIN(bytes / sizes[isize], UINT32_MAX);
    }
    v->pos = at + len;
    if (indirect) {
        uint8_t args[20];

        /*
         * The API's indirect draw: {count, instances, first index, base
         * vertex, base instance} indexed, {count, instances, first
         * vertex, base instance} otherwise
         */
        if (!vdm_read(w, indirect, args, ib ? 20 : 16)) {
            return vdm_faulted(w, &w->mem);
        }
        count = apple_ld32(args);
        instances = apple_ld32(args + 4);
        if (ib) {
            uint32_t first = apple_ld32(args + 8);

            ib += (uint64_t)first * sizes[isize];
            limit = limit > first ? limit - first : 0;
            start = apple_ld32(args + 12);
        } else {
            start = apple_ld32(args + 8);
        }
    }
    switch (APPLE_FIELD_EX64(w0, VDM_IDX, PRIMITIVE)) {
    case AGX_VDM_POINTS:
    case AGX_VDM_LINES:
    case AGX_VDM_LINE_STRIP:
    case AGX_VDM_LINE_LOOP:
    case AGX_VDM_TRIANGLES:
    case AGX_VDM_TRIANGLE_STRIP:
    case AGX_VDM_TRIANGLE_FAN:
    case AGX_VDM_QUADS:
    case AGX_VDM_QUAD_STRIP:
        break;
    default:
        return vdm_bad(w, at, "Index List of primitive %u",
                       (unsigned)APPLE_FIELD_EX64(w0, VDM_IDX, PRIMITIVE));
    }
    v->draws++;
    AGX_TRACE(&w->fw->trace, vdm_draw, at,
              (uint32_t)APPLE_FIELD_EX64(w0, VDM_IDX, PRIMITIVE), count,
              instances, ib != 0);
    if (!count || !instances || !v->scene_ok) {
        return AGX_VDM_DONE;
    }
    v->topology = APPLE_FIELD_EX64(w0, VDM_IDX, PRIMITIVE);
    v->index_va = ib;
    v->index_size = sizes[isize];
    v->index_limit = ib ? limit : UINT32_MAX;
    v->restart = ib && APPLE_FIELD_EX64(w0, VDM_IDX, RESTART);
    v->count = count;
    v->instances = instances;
    v->start = start;
    v->instance = 0;
    v->seg = 0;
    v->k = 0;
    v->prim_id = 0;
    return vdm_bind_shader(w, slice);
}

/* The index at position @pos of the draw (its raw value); false: fault */
static bool vdm_index(VdmWalk *w, uint32_t pos, uint32_t *idx)
{
    AgxVdm *v = w->v;
    uint8_t b[4] = { 0 };

    if (!v->index_va) {
        *idx = pos;
        return true;
    }
    if (pos >= v->index_limit) {
        /* Past the buffer's size: robust access reads 0 (inferred) */
        *idx = 0;
        return true;
    }
    if (!vdm_read(w, v->index_va + (uint64_t)pos * v->index_size, b,
                  v->index_size)) {
        return false;
    }
    *idx = v->index_size == 1 ? b[0] : v->index_size == 2 ? apple_ld16(b)
                                                          : apple_ld32(b);
    return true;
}

static bool vdm_is_restart(const AgxVdm *v, uint32_t idx)
{
    uint32_t mask = v->index_size == 4 ? UINT32_MAX
                                       : (1u << (8 * v->index_size)) - 1;

    return v->restart && idx == (v->restart_index & mask);
}

/*
 * The positions of primitive @k of a segment starting at @seg: how many
 * (0: the segment has no such primitive)
 */
static unsigned vdm_positions(uint32_t topo, uint32_t seg, uint32_t k,
                              uint32_t pos[4])
{
    switch (topo) {
    case AGX_VDM_POINTS:
        pos[0] = seg + k;
        return 1;
    case AGX_VDM_LINES:
        pos[0] = seg + 2 * k;
        pos[1] = pos[0] + 1;
        return 2;
    case AGX_VDM_LINE_STRIP:
    case AGX_VDM_LINE_LOOP:
        pos[0] = seg + k;
        pos[1] = pos[0] + 1;
        return 2;
    case AGX_VDM_TRIANGLES:
        pos[0] = seg + 3 * k;
        pos[1] = pos[0] + 1;
        pos[2] = pos[0] + 2;
        return 3;
    case AGX_VDM_TRIANGLE_STRIP:
        pos[0] = seg + k;
        pos[1] = pos[0] + 1;
        pos[2] = pos[0] + 2;
        return 3;
    case AGX_VDM_TRIANGLE_FAN:
        pos[0] = seg;
        pos[1] = seg + k + 1;
        pos[2] = seg + k + 2;
        return 3;
    case AGX_VDM_QUADS:
        pos[0] = seg + 4 * k;
        pos[1] = pos[0] + 1;
        pos[2] = pos[0] + 2;
        pos[3] = pos[0] + 3;
        return 4;
    default:    /* quad strip */
        pos[0] = seg + 2 * k;
        pos[1] = pos[0] + 1;
        pos[2] = pos[0] + 2;
        pos[3] = pos[0] + 3;
        return 4;
    }
}

/* A primitive of the batch, before its vertices are shaded */
typedef AgxVdmItem VdmItem;
typedef AgxVdmBatch VdmBatch;

static unsigned vdm_lane(VdmBatch *b, uint32_t vid, uint32_t iid)
{
    for (unsigned i = 0; i < b->lanes; i++) {
        if (b->vid[i] == vid && b->iid[i] == iid) {
            return i;
        }
    }
    b->vid[b->lanes] = vid;
    b->iid[b->lanes] = iid;
    return b->lanes++;
}

/*
 * Gather the next primitives of the draw into @b (not in flight), moving
 * the draw on.  False on a fault reading the index buffer.
 */
static bool vdm_gather(VdmWalk *w, VdmBatch *b)
{
    AgxVdm *v = w->v;

    memset(b, 0, sizeof(*b));
    b->active = true;
    /*
     * Bounded: a run of restart indices adds no primitive, so a batch
     * also ends after AGX_VDM_GATHER_STEPS positions (the draw goes on)
     */
    for (unsigned steps = 0;
         v->in_draw && b->items < AGX_VDM_BATCH &&
         b->lanes + 4 <= AGX_USC_LANES && steps < AGX_VDM_GATHER_STEPS;
         steps++) {
        uint32_t pos[4], idx[4], end = v->count;
        unsigned n = vdm_positions(v->topology, v->seg, v->k, pos);
        bool whole = true;
        VdmItem *it;

        for (unsigned i = 0; i < n; i++) {
            if (pos[i] >= v->count) {
                whole = false;
                break;
            }
            if (!vdm_index(w, pos[i], &idx[i])) {
                return false;
            }
            if (vdm_is_restart(v, idx[i])) {
                whole = false;
                end = pos[i];
                break;
            }
        }
        w->used += AGX_VDM_PRIM_COST;
        if (!whole) {
            /* The segment ends at @end: a loop closes, then the next */
            uint32_t last = end ? end - 1 : 0;

            if (v->topology == AGX_VDM_LINE_LOOP && end > v->seg + 1) {
                uint32_t a, z;

                if (!vdm_index(w, last, &z) || !vdm_index(w, v->seg, &a)) {
                    return false;
                }
                it = &b->item[b->items++];
                it->n = 2;
                it->closing = true;
                it->prim_id = v->prim_id++;
                it->lane[0] = vdm_lane(b, z + v->start, v->instance);
                it->lane[1] = vdm_lane(b, a + v->start, v->instance);
            }
            if (end < v->count) {
                v->seg = end + 1;
                v->k = 0;
                continue;
            }
            /* The instance is over */
            v->seg = 0;
            v->k = 0;
            v->prim_id = 0;
            if (++v->instance >= v->instances) {
                v->in_draw = false;
            }
            /* A new instance's vertices are other lanes: shade these */
            break;
        }
        it = &b->item[b->items++];
        it->n = n;
        it->k = v->k;
        it->prim_id = v->prim_id++;
        for (unsigned i = 0; i < n; i++) {
            it->lane[i] = vdm_lane(b, idx[i] + v->start, v->instance);
        }
        v->k++;
    }
    return true;
}

/* --- clipping, viewport, culling ----------------------------------------- */

/* A clipped vertex: its position and weights of the primitive's vertices */
typedef struct VdmClipVert {
    float pos[4];
    float wt[3];
    float dist[VDM_CLIP_DISTANCES];
} VdmClipVert;

/* The clip distance of @c to plane @plane: >= 0 inside */
static float vdm_plane(const VdmClipVert *c, unsigned plane)
{
    switch (plane) {
    case 0:
        return c->pos[3] - VDM_W_MIN;
    case 1:
        return c->pos[2];
    case 2:
        return c->pos[3] - c->pos[2];
    default:
        return c->dist[plane - VDM_PLANE_DIST0];
    }
}

static VdmClipVert vdm_lerp(const VdmClipVert *a, const VdmClipVert *b,
                            float t)
{
    VdmClipVert r;

    for (int i = 0; i < 4; i++) {
        r.pos[i] = a->pos[i] + t * (b->pos[i] - a->pos[i]);
    }
    for (int i = 0; i < 3; i++) {
        r.wt[i] = a->wt[i] + t * (b->wt[i] - a->wt[i]);
    }
    for (int i = 0; i < VDM_CLIP_DISTANCES; i++) {
        r.dist[i] = a->dist[i] + t * (b->dist[i] - a->dist[i]);
    }
    return r;
}

/* Clip the polygon @in (@n vertices) against @planes; its new count */
static unsigned vdm_clip(VdmClipVert *poly, unsigned n, uint32_t planes,
                         bool *clipped)
{
    VdmClipVert tmp[VDM_CLIP_MAX + 1];

    for (unsigned p = 0; p < 32 && n; p++) {
        unsigned m = 0;

        if (!(planes & (1u << p))) {
            continue;
        }
        for (unsigned i = 0; i < n; i++) {
            const VdmClipVert *a = &poly[i], *b = &poly[(i + 1) % n];
            float da = vdm_plane(a, p), db = vdm_plane(b, p);

            if (da >= 0) {
                tmp[m++] = *a;
            }
            if ((da >= 0) != (db >= 0) && m < VDM_CLIP_MAX) {
                tmp[m++] = vdm_lerp(a, b, da / (da - db));
                *clipped = true;
            }
            if (m >= VDM_CLIP_MAX) {
                break;
            }
        }
        memcpy(poly, tmp, m * sizeof(*tmp));
        n = m;
    }
    return n;
}

/* What a primitive's vertices give it beyond their positions */
typedef struct VdmPrimCtx {
    const VdmVertex *src[3];
    unsigned provoking;         /* of src[] */
    unsigned nvar;
    unsigned smooth_end;        /* var[] words interpolated: [0, smooth) */
    unsigned flat_end;          /*   then flat up to here, then linear */
    unsigned interp_end;        /*   up to here; the rest flat */
    uint32_t planes;            /* VDM_PLANE_* to clip against */
    unsigned clip_at;           /* output index of clip distance 0 */
} VdmPrimCtx;

/* Clip-space vertex @i of @pc, weight 1 on itself */
static void vdm_clip_vert(const VdmPrimCtx *pc, unsigned i, VdmClipVert *c)
{
    memset(c, 0, sizeof(*c));
    memcpy(c->pos, pc->src[i]->out, sizeof(c->pos));
    c->wt[i] = 1;
    for (unsigned k = 0; k < VDM_CLIP_DISTANCES; k++) {
        if (pc->planes & (1u << (VDM_PLANE_DIST0 + k)) &&
            pc->clip_at + k < VDM_OUTPUTS) {
            c->dist[k] = apple_bits_f32(pc->src[i]->out[pc->clip_at + k]);
        }
    }
}

/*
 * A window coordinate on the rasterizer's subpixel grid: the nearest
 * 1/2^AGX_VDM_SUBPIXEL_BITS pixel (ties to even: unconfirmed).  Edges
 * run between the snapped vertices, so that a pixel centre within half a
 * grid step of an edge falls on the side the grid gives it, as on every
 * implementation with the precision it reports.
 */
static float vdm_snap(float v)
{
    return (float)(rint((double)v * (1 << AGX_VDM_SUBPIXEL_BITS)) /
                   (1 << AGX_VDM_SUBPIXEL_BITS));
}

/* Window space for clip-space @c, its outputs blended from @pc */
static void vdm_window(const AgxVdm *v, const VdmPrimCtx *pc,
                       const VdmClipVert *c, unsigned nsrc, unsigned vp,
                       AgxSceneVertex *out)
{
    const uint32_t *t = v->ppp.viewport[vp];
    float rhw = 1.0f / c->pos[3];

    out->x = vdm_snap(apple_bits_f32(t[AGX_PPP_VP_TRANSLATE_X]) +
                      apple_bits_f32(t[AGX_PPP_VP_SCALE_X]) * c->pos[0] * rhw);
    out->y = vdm_snap(apple_bits_f32(t[AGX_PPP_VP_TRANSLATE_Y]) +
                      apple_bits_f32(t[AGX_PPP_VP_SCALE_Y]) * c->pos[1] * rhw);
    out->z = apple_bits_f32(t[AGX_PPP_VP_TRANSLATE_Z]) +
             apple_bits_f32(t[AGX_PPP_VP_SCALE_Z]) * c->pos[2] * rhw;
    out->rhw = rhw;
    for (unsigned j = 0; j < pc->nvar; j++) {
        bool interp = j < pc->interp_end &&
                      !(j >= pc->smooth_end && j < pc->flat_end);

        if (interp && nsrc > 1) {
            float f = 0;

            for (unsigned i = 0; i < nsrc; i++) {
                f += c->wt[i] * apple_bits_f32(pc->src[i]->out[4 + j]);
            }
            memcpy(&out->var[j], &f, 4);
        } else {
            /* Flat words: every vertex carries the provoking vertex's */
            out->var[j] = pc->src[pc->provoking]->out[4 + j];
        }
    }
}

static int vdm_put(VdmWalk *w, AgxScenePrim *p)
{
    AgxVdm *v = w->v;
    int r;

    if (!v->ppp_stored) {
        if (!agx_scene_put_state(&v->scene, &w->smem, &v->ppp)) {
            return -1;
        }
        v->ppp_stored = true;
    }
    r = agx_scene_put_prim(&v->scene, &w->smem, p);
    if (r == 1) {
        /* Binning is work too: a list entry per tile it touches */
        w->used += (uint64_t)((p->x1 - p->x0) / AGX_SCENE_TILE + 1) *
                   ((p->y1 - p->y0) / AGX_SCENE_TILE + 1);
        v->prims++;
    }
    return r;
}

/* A point or line: clipped by dropping (points) or cutting (lines) */
static int vdm_emit_small(VdmWalk *w, const VdmPrimCtx *pc, unsigned n,
                          unsigned vp, uint32_t layer, float size,
                          AgxScenePrim *p)
{
    VdmClipVert c[2];

    for (unsigned i = 0; i < n; i++) {
        vdm_clip_vert(pc, i, &c[i]);
    }
    for (unsigned pl = 0; pl < 32; pl++) {
        float d0, d1;

        if (!(pc->planes & (1u << pl))) {
            continue;
        }
        d0 = vdm_plane(&c[0], pl);
        d1 = n > 1 ? vdm_plane(&c[1], pl) : 0;
        if (!(d0 >= 0) && (n == 1 || !(d1 >= 0))) {
            return 0;
        }
        if (n == 2 && !(d0 >= 0)) {
            c[0] = vdm_lerp(&c[0], &c[1], d0 / (d0 - d1));
        } else if (n == 2 && !(d1 >= 0)) {
            c[1] = vdm_lerp(&c[0], &c[1], d0 / (d0 - d1));
        }
    }
    memset(p, 0, offsetof(AgxScenePrim, v));
    p->kind = n == 1 ? AGX_SCENE_POINT : AGX_SCENE_LINE;
    p->front = true;
    p->provoking = pc->provoking;
    p->layer = layer;
    p->viewport = vp;
    p->nvar = pc->nvar;
    p->size = size;
    for (unsigned i = 0; i < n; i++) {
        vdm_window(w->v, pc, &c[i], n, vp, &p->v[i]);
    }
    return 1;
}

/* A triangle: clipped into a fan, culled by facing, stored */
static int vdm_emit_tri(VdmWalk *w, VdmPrimCtx *pc, unsigned vp,
                        uint32_t layer, uint32_t prim_id, AgxScenePrim *p)
{
    AgxVdm *v = w->v;
    uint32_t cull = v->ppp.cull;
    VdmClipVert poly[VDM_CLIP_MAX + 1];
    AgxSceneVertex win[VDM_CLIP_MAX];
    bool clipped = false, ccw, front;
    float area = 0;
    unsigned n;

    for (unsigned i = 0; i < 3; i++) {
        vdm_clip_vert(pc, i, &poly[i]);
    }
    n = vdm_clip(poly, 3, pc->planes, &clipped);
    if (n < 3) {
        v->culled++;
        return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        vdm_window(v, pc, &poly[i], 3, vp, &win[i]);
    }
    for (unsigned i = 0; i < n; i++) {
        const AgxSceneVertex *a = &win[i], *b = &win[(i + 1) % n];

        area += a->x * b->y - b->x * a->y;
    }
    /*
     * Counter-clockwise as the framebuffer's rows go down: negative area
     * in these (x right, y down) coordinates.  Mesa 26 draws GL's default
     * front face (counter-clockwise in NDC) into an FBO with a viewport
     * that does not flip y and the Cull word's "front face CCW" clear:
     * that triangle has a positive area here, and is clockwise so.
     */
    if (!(area != 0)) {
        v->culled++;
        return 0;
    }
    ccw = area < 0;
    front = ccw == !!APPLE_FIELD_EX64(cull, PPP_CULL, FRONT_FACE_CCW);
    if ((front && APPLE_FIELD_EX64(cull, PPP_CULL, FRONT)) ||
        (!front && APPLE_FIELD_EX64(cull, PPP_CULL, BACK))) {
        v->culled++;
        return 0;
    }
    for (unsigned i = 1; i + 1 < n; i++) {
        int r;

        memset(p, 0, offsetof(AgxScenePrim, v));
        p->kind = AGX_SCENE_TRIANGLE;
        p->front = front;
        p->provoking = clipped ? 0 : pc->provoking;
        p->layer = layer;
        p->viewport = vp;
        p->prim_id = prim_id;
        p->nvar = pc->nvar;
        p->v[0] = win[0];
        p->v[1] = win[i];
        p->v[2] = win[i + 1];
        r = vdm_put(w, p);
        if (r < 0) {
            return r;
        }
    }
    return 1;
}

/*
 * Shade the vertices of the batch in flight for the rest of the slice (at
 * least an instruction; AGX_VDM_MORE when the shader is suspended), then
 * assemble and store its primitives
 */
static AgxVdmResult vdm_batch(VdmWalk *w, uint64_t slice)
{
    AgxVdm *v = w->v;
    VdmBatch *b = &v->batch;
    AgxUscGroup *g = g_new0(AgxUscGroup, 1);
    g_autofree AgxScenePrim *p = g_new(AgxScenePrim, 1);
    uint32_t osel = v->ppp.output_select, vc = v->ppp.varying_counts_32;
    unsigned outputs = APPLE_FIELD_EX64(v->vs_outputs, VDM_OUTPUT_COUNTS,
                                        COUNT1);
    unsigned user = APPLE_FIELD_EX64(vc, PPP_VARYING_COUNTS, SMOOTH) +
                    APPLE_FIELD_EX64(vc, PPP_VARYING_COUNTS, FLAT) +
                    APPLE_FIELD_EX64(vc, PPP_VARYING_COUNTS, LINEAR);
    unsigned psiz_at = 4 + user, layer_at = psiz_at;
    bool first = !APPLE_FIELD_EX64(v->vs_unknown, VDM_UNKNOWN, FLAT_SHADING);
    bool depth_clip = APPLE_FIELD_EX64(v->ppp.cull, PPP_CULL, DEPTH_CLIP);
    bool discard = APPLE_FIELD_EX64(v->ppp.cull, PPP_CULL,
                                    RASTERIZER_DISCARD) ||
                   APPLE_FIELD_EX64(v->ppp.cull_2, PPP_CULL2,
                                    RASTERIZER_DISCARD);
    uint64_t before, left;
    AgxUscFault uf;
    AgxUscStatus st;
    VdmPrimCtx pc = { 0 };

    if (!b->lanes) {
        g_free(g);
        return AGX_VDM_DONE;
    }
    g->launched = b->lanes == 32 ? UINT32_MAX : (1u << b->lanes) - 1;
    g->init_regs = 7;
    for (unsigned l = 0; l < b->lanes; l++) {
        g->init[5][l] = b->vid[l];
        g->init[6][l] = b->iid[l];
    }
    g->stage = &vdm_stage_ops;
    g->stage_opaque = b;
    st = AGX_USC_OK;
    w->mem.faulted = false;
    if (!b->group.nsimd) {
        st = agx_usc_group_start(&v->launch, g, MIN(v->budget,
                                                    AGX_VDM_GROUP_BUDGET),
                                 &b->group, &uf);
    }
    before = left = MAX(slice - MIN(w->used, slice), 1);
    if (st == AGX_USC_OK) {
        st = agx_usc_group_run(&v->launch, g, &b->group, &agx_gpu_mem_usc_ops,
                               &w->mem, &left, &uf);
    }
    g_free(g);
    w->used += before - left;
    v->budget -= MIN(before - left, v->budget);
    if (st == AGX_USC_SUSPENDED) {
        v->suspensions++;
        AGX_TRACE(&w->fw->trace, vdm_suspend, vdm_cmd(w), b->iid[0],
                  b->group.used);
        return AGX_VDM_MORE;
    }
    agx_usc_tg_free(&b->group);
    w->used++;
    v->vertices += b->lanes;
    if (st == AGX_USC_BUDGET) {
        return AGX_VDM_RUNAWAY;
    }
    if (st != AGX_USC_OK) {
        if (w->mem.faulted) {
            return vdm_faulted(w, &w->mem);
        }
        return vdm_bad(w, uf.pc, "vertex shader fault %u, instruction "
                       "0x%016" G_GINT64_MODIFIER "x", uf.kind, uf.insn);
    }
    if (b->bad_index) {
        agx_fw_guest_error(w->fw, "GPU vertex data master: vertex shader "
                           "stored %u outputs beyond %u", b->bad_index,
                           VDM_OUTPUTS);
    }
    if (discard) {
        return AGX_VDM_DONE;
    }
    pc.nvar = outputs > 4 ? MIN(outputs - 4, AGX_SCENE_MAX_VARYINGS) : 0;
    pc.smooth_end = APPLE_FIELD_EX64(vc, PPP_VARYING_COUNTS, SMOOTH);
    pc.flat_end = pc.smooth_end + APPLE_FIELD_EX64(vc, PPP_VARYING_COUNTS,
                                                   FLAT);
    pc.interp_end = user;
    if (APPLE_FIELD_EX64(osel, PPP_OUTPUT_SELECT, POINT_SIZE)) {
        layer_at++;
    }
    /* Clip distances follow the layer/viewport word (agx_nir_lower_uvs) */
    pc.clip_at = layer_at +
        (APPLE_FIELD_EX64(osel, PPP_OUTPUT_SELECT, RENDER_TARGET) ||
         APPLE_FIELD_EX64(osel, PPP_OUTPUT_SELECT, VIEWPORT_TARGET));
    pc.planes = VDM_PLANE_W | (depth_clip ? VDM_PLANES_DEPTH : 0) |
        (APPLE_FIELD_EX64(osel, PPP_OUTPUT_SELECT, CLIP_DISTANCES) &
         ((1u << VDM_CLIP_DISTANCES) - 1)) << VDM_PLANE_DIST0;
    for (unsigned i = 0; i < b->items; i++) {
        const VdmItem *it = &b->item[i];
        const VdmVertex *vx[4];
        uint32_t layer = 0, lv;
        unsigned vp = 0;
        float size = 1;
        int r = 0;

        for (unsigned j = 0; j < it->n; j++) {
            vx[j] = &b->v[it->lane[j]];
        }
        /* Layer and viewport: the provoking vertex's (here: the first) */
        if (APPLE_FIELD_EX64(osel, PPP_OUTPUT_SELECT, RENDER_TARGET) ||
            APPLE_FIELD_EX64(osel, PPP_OUTPUT_SELECT, VIEWPORT_TARGET)) {
            lv = layer_at < VDM_OUTPUTS ? vx[0]->out[layer_at] : 0;
            layer = lv & 0xffff;
            vp = MIN(lv >> 16, v->ppp.viewport_count ?
                     v->ppp.viewport_count - 1 : 0);
        }
        switch (it->n) {
        case 1:
            if (APPLE_FIELD_EX64(osel, PPP_OUTPUT_SELECT, POINT_SIZE) &&
                psiz_at < VDM_OUTPUTS) {
                size = apple_bits_f32(vx[0]->out[psiz_at]);
            }
            pc.src[0] = vx[0];
            pc.provoking = 0;
            r = vdm_emit_small(w, &pc, 1, vp, layer, size, p);
            break;
        case 2:
            size = (APPLE_FIELD_EX64(v->ppp.front_face, PPP_FACE,
                                     LINE_WIDTH) + 1) / 16.0f;
            pc.src[0] = vx[0];
            pc.src[1] = vx[1];
            pc.provoking = first ? 0 : 1;
            r = vdm_emit_small(w, &pc, 2, vp, layer, size, p);
            break;
        case 3:
            if (v->topology == AGX_VDM_TRIANGLE_STRIP && (it->k & 1)) {
                /* Odd strip triangles keep their winding: (1, 0, 2) */
                pc.src[0] = vx[1];
                pc.src[1] = vx[0];
                pc.src[2] = vx[2];
                pc.provoking = first ? 1 : 2;
            } else {
                pc.src[0] = vx[0];
                pc.src[1] = vx[1];
                pc.src[2] = vx[2];
                pc.provoking = !first ? 2 :
                    v->topology == AGX_VDM_TRIANGLE_FAN ? 1 : 0;
            }
            r = vdm_emit_tri(w, &pc, vp, layer, it->prim_id, p);
            break;
        default: {
            /* Quads (0 1 2, 0 2 3); quad strips (0 1 3, 0 3 2) */
            static const uint8_t quad[2][2][3] = {
                { { 0, 1, 2 }, { 0, 2, 3 } },
                { { 0, 1, 3 }, { 0, 3, 2 } },
            };
            unsigned qs = v->topology == AGX_VDM_QUAD_STRIP;

            for (unsigned t = 0; t < 2 && r >= 0; t++) {
                for (unsigned j = 0; j < 3; j++) {
                    pc.src[j] = vx[quad[qs][t][j]];
                }
                pc.provoking = 2;
                r = vdm_emit_tri(w, &pc, vp, layer, it->prim_id, p);
            }
            r = r < 0 ? r : 0;
            break;
        }
        }
        if (r == 1 && it->n < 3) {
            p->prim_id = it->prim_id;
            r = vdm_put(w, p);
        }
        if (r < 0) {
            return vdm_faulted(w, &w->kmem);
        }
    }
    return AGX_VDM_DONE;
}

/*
 * The render's fragment command.  drm/asahi gives RunVertex the stamp
 * slot and value of its fragment command's JobMeta (fragment_stamp_slot,
 * fragment_stamp_value), and both commands the same Scene: the command
 * waits in a fragment queue of the vertex queue's GPU context, behind a
 * Barrier on this vertex command, among the few renders in flight.
 * 0: none there (the vertex command's scene cannot pause); false if the
 * firmware crashed reading a queue.
 */
#define VDM_FIND_ENTRIES        64

static bool vdm_find_fragment(AgxFw *fw, uint64_t *found)
{
    static const uint32_t scene_off[AGX_FW_NUM_VERSIONS] = {
        [AGX_FW_V12_3] = AGX_V12_3_RUN_FRAGMENT_SCENE,
        [AGX_FW_V13_5] = AGX_V13_5_RUN_FRAGMENT_SCENE,
    };
    const AgxRunLayout *run = &fw->job_abi->run[AGX_PIPE_FRAGMENT];
    const AgxPipe *vp = &fw->pipes[AGX_PIPE_VERTEX];
    uint64_t ctx = fw->queues[vp->queue % AGX_MAX_QUEUES].gpu_context;
    uint64_t slot = 0, value = 0, scene = 0;

    *found = 0;
    agx_params_get(fw, AGX_PIPE_VERTEX, "fragment_stamp_slot", &slot);
    agx_params_get(fw, AGX_PIPE_VERTEX, "fragment_stamp_value", &value);
    agx_params_get(fw, AGX_PIPE_VERTEX, "scene", &scene);
    for (int i = 0; i < AGX_MAX_QUEUES; i++) {
        const AgxQueue *q = &fw->queues[i];
        uint32_t e = q->rptr % AGX_WQ_RING_SIZE;

        if (!q->info_va || q->pipe != AGX_PIPE_FRAGMENT ||
            q->gpu_context != ctx) {
            continue;
        }
        for (int n = 0; n < VDM_FIND_ENTRIES && e != q->wptr;
             n++, e = (e + 1) % AGX_WQ_RING_SIZE) {
            uint64_t cmd, sc;
            uint32_t tag, s, val;

            if (!agx_fw_ld64(fw, q->ring_va + 8ULL * e, &cmd,
                             "work queue ring") ||
                !agx_fw_ld32(fw, cmd, &tag, "command")) {
                return false;
            }
            if (tag != AGX_CMD_RUN_FRAGMENT) {
                continue;
            }
            if (!agx_fw_ld32(fw, cmd + run->meta + AGX_JOB_META_STAMP_SLOT,
                             &s, "RunFragment") ||
                !agx_fw_ld32(fw, cmd + run->meta + AGX_JOB_META_STAMP_VALUE,
                             &val, "RunFragment") ||
                !agx_fw_ld64(fw, cmd + scene_off[fw->abi->version], &sc,
                             "RunFragment")) {
                return false;
            }
            if (s == slot && val == value && sc == scene) {
                *found = cmd;
                return true;
            }
        }
    }
    return true;
}

/*
 * May the render's partial pass run now?  It is fragment work of the
 * render: on the one fragment pipe, after the fragment commands queued
 * before the render's (an earlier render of the same framebuffer).  So
 * not while the pipe runs a job, nor while a RunFragment comes before
 * @frag_cmd in its queue.  1: yes, 0: not yet, -1: the firmware crashed.
 */
static int vdm_fragment_ready(AgxFw *fw, uint64_t frag_cmd)
{
    if (fw->pipes[AGX_PIPE_FRAGMENT].busy) {
        return 0;
    }
    for (int i = 0; i < AGX_MAX_QUEUES; i++) {
        const AgxQueue *q = &fw->queues[i];
        uint32_t e = q->rptr % AGX_WQ_RING_SIZE;
        bool other = false;

        if (!q->info_va || q->pipe != AGX_PIPE_FRAGMENT) {
            continue;
        }
        for (int n = 0; n < VDM_FIND_ENTRIES && e != q->wptr;
             n++, e = (e + 1) % AGX_WQ_RING_SIZE) {
            uint64_t cmd;
            uint32_t tag;

            if (!agx_fw_ld64(fw, q->ring_va + 8ULL * e, &cmd,
                             "work queue ring") ||
                !agx_fw_ld32(fw, cmd, &tag, "command")) {
                return -1;
            }
            if (cmd == frag_cmd) {
                return !other;
            }
            other |= tag == AGX_CMD_RUN_FRAGMENT;
        }
    }
    return 1;
}

/*
 * The pass filled its pages: render it with the render's partial
 * programs (the firmware's partial render), so that its pages are free
 * for the rest of the stream, once the fragment pipe has done the work
 * queued before it (the vertex job waits for that, at most
 * AGX_VDM_PAGE_WAIT slices).  A render whose fragment command cannot be
 * found or cannot pause keeps binning into the reserve, then drops.
 */
static AgxVdmResult vdm_partial_begin(VdmWalk *w)
{
    AgxFw *fw = w->fw;
    AgxVdm *v = w->v;
    const char *why;
    int ready;

    if (!v->frag_cmd) {
        if (!vdm_find_fragment(fw, &v->frag_cmd)) {
            return AGX_VDM_CRASHED;
        }
    }
    if (v->frag_cmd) {
        ready = vdm_fragment_ready(fw, v->frag_cmd);
        if (ready < 0) {
            return AGX_VDM_CRASHED;
        }
        if (!ready && ++v->waited <= AGX_VDM_PAGE_WAIT) {
            v->partial_wait = true;
            return AGX_VDM_MORE;
        }
    }
    v->partial_wait = false;
    v->waited = 0;
    if (v->frag_cmd &&
        !agx_frag_partial_start(fw, &v->pfrag, v->frag_cmd,
                                v->scene.passes == 0, &why)) {
        return AGX_VDM_CRASHED;
    }
    if (!v->frag_cmd || !v->pfrag.active) {
        /*
         * As the firmware's overflow of a scene it cannot render, not a
         * guest error: what does not fit is dropped (the vdm_scene trace
         * counts it)
         */
        v->no_partial = true;
        return AGX_VDM_DONE;
    }
    if (!agx_scene_pass_end(&v->scene, &w->smem)) {
        return vdm_faulted(w, &w->kmem);
    }
    AGX_TRACE(&fw->trace, vdm_partial, vdm_cmd(w), v->frag_cmd,
              v->scene.passes, agx_scene_pages_used(&v->scene));
    v->partial = true;
    return AGX_VDM_DONE;
}

/* Render the pass's tiles while the slice lasts; then bin on */
static AgxVdmResult vdm_partial_run(VdmWalk *w, uint64_t slice)
{
    AgxVdm *v = w->v;
    uint64_t used;
    AgxFragResult r;

    r = agx_frag_partial_run(w->fw, &v->pfrag, v->frag_cmd,
                             slice > w->used ? slice - w->used : 1,
                             w->fault, &used);
    w->used += used;
    v->budget -= MIN(used, v->budget);
    switch (r) {
    case AGX_FRAG_DONE:
        break;
    case AGX_FRAG_MORE:
        return AGX_VDM_MORE;
    case AGX_FRAG_FAULT:
        v->partial = false;
        return AGX_VDM_FAULT;
    default:
        v->partial = false;
        return AGX_VDM_RUNAWAY;
    }
    v->partial = false;
    v->partial_renders++;
    /* The pass's pages are free: the next one needs its state again */
    v->ppp_stored = false;
    if (!agx_scene_pass_restart(&v->scene, &w->smem)) {
        return vdm_faulted(w, &w->kmem);
    }
    return AGX_VDM_DONE;
}

/* The batch or preamble in flight is gone (done, failed, stopped) */
static void vdm_batch_free(AgxVdm *v)
{
    agx_usc_tg_free(&v->batch.group);
    v->batch.active = false;
    v->batch.preamble = false;
}

/* Is a draw being shaded: primitives left, or a batch in flight? */
static bool vdm_drawing(const AgxVdm *v)
{
    return v->in_draw || v->batch.active;
}

/*
 * Run the draw's primitives while the slice lasts, from the batch in
 * flight if there is one
 */
static AgxVdmResult vdm_draw(VdmWalk *w, uint64_t slice)
{
    AgxVdm *v = w->v;

    while (vdm_drawing(v)) {
        AgxVdmResult r;

        if (!v->batch.active) {
            if (w->used >= slice) {
                return AGX_VDM_MORE;
            }
            if (!vdm_gather(w, &v->batch)) {
                vdm_batch_free(v);
                return vdm_faulted(w, &w->mem);
            }
        }
        r = vdm_batch(w, slice);
        if (r == AGX_VDM_MORE) {
            return r;
        }
        vdm_batch_free(v);
        if (r != AGX_VDM_DONE) {
            v->in_draw = false;
            return r;
        }
        v->blocks = 0;
        if (v->scene_ok && !v->no_partial &&
            agx_scene_pass_full(&v->scene)) {
            /* The walk renders the pass, then comes back to the draw */
            return vdm_partial_begin(w);
        }
    }
    return AGX_VDM_DONE;
}

/* The stream ended: the scene is complete */
static AgxVdmResult vdm_finish(VdmWalk *w)
{
    AgxVdm *v = w->v;

    v->active = false;
    if (!v->scene_ok) {
        return AGX_VDM_DONE;
    }
    if (!agx_scene_end(&v->scene, &w->smem)) {
        return vdm_faulted(w, &w->kmem);
    }
    v->scene_ok = false;
    v->done_scene_va = v->scene_va;
    v->done_pages = agx_scene_pages_used(&v->scene);
    v->done_total = agx_scene_total_pages(&v->scene);
    v->done_overflow = v->scene.overflowed;
    AGX_TRACE(&w->fw->trace, vdm_scene, vdm_cmd(w), v->scene.prims,
              v->culled, v->scene.dropped, v->done_total);
    /* The scene holds its pages until its fragment job ends */
    agx_tvb_scene_binned(w->fw, v->info_va, v->scene_va,
                         v->scene.ring_pages,
                         agx_scene_peak_pages(&v->scene));
    return AGX_VDM_DONE;
}

/* Walk blocks and run draws until the slice is used up */
static AgxVdmResult vdm_walk(VdmWalk *w, uint64_t slice)
{
    AgxVdm *v = w->v;

    for (;;) {
        uint8_t blk[8];
        uint32_t w0;
        uint64_t at = v->pos, target;
        AgxVdmResult r = AGX_VDM_DONE;

        if (v->partial_wait) {
            r = vdm_partial_begin(w);
            if (r != AGX_VDM_DONE) {
                return r;
            }
        }
        if (v->partial) {
            r = vdm_partial_run(w, slice);
            if (r != AGX_VDM_DONE) {
                return r;
            }
        }
        if (v->batch.preamble) {
            r = vdm_preamble(w, slice);
            if (r != AGX_VDM_DONE) {
                return r;
            }
        }
        if (vdm_drawing(v)) {
            r = vdm_draw(w, slice);
            if (r != AGX_VDM_DONE) {
                return r;
            }
            if (v->partial || vdm_drawing(v)) {
                /* a partial render, or a render that cannot pause */
                continue;
            }
        }
        if (w->used >= slice) {
            return AGX_VDM_MORE;
        }
        if (++v->blocks > AGX_CDM_MAX_BLOCKS) {
            return vdm_bad(w, at, "%u blocks without a primitive (a link "
                           "loop?)", AGX_CDM_MAX_BLOCKS);
        }
        w->used += AGX_CDM_BLOCK_COST;
        if (!vdm_read(w, at, blk, 4)) {
            return vdm_faulted(w, &w->mem);
        }
        w0 = apple_ld32(blk);
        switch (APPLE_FIELD_EX64(w0, VDM_BLOCK, TYPE)) {
        case AGX_VDM_BLOCK_PPP_STATE:
            r = vdm_ppp(w, at, w0);
            break;
        case AGX_VDM_BLOCK_VDM_STATE:
            r = vdm_state(w, at, w0);
            break;
        case AGX_VDM_BLOCK_INDEX_LIST:
            r = vdm_index_list(w, at, w0, slice);
            break;
        case AGX_VDM_BLOCK_BARRIER:
            if (!APPLE_FIELD_EX64(w0, VDM_BARRIER, RETURNS)) {
                v->pos = at + 4;
                break;
            }
            if (!v->depth) {
                return vdm_bad(w, at, "Barrier returning without a Link");
            }
            v->pos = v->stack[--v->depth];
            break;
        case AGX_VDM_BLOCK_LINK:
            if (!vdm_read(w, at, blk, 8)) {
                return vdm_faulted(w, &w->mem);
            }
            target = agx_gpu_va40((uint64_t)APPLE_FIELD_EX64(w0, VDM_LINK,
                                                             TARGET_HI) << 32 |
                                  apple_ld32(blk + 4));
            if (target == at) {
                return vdm_bad(w, at, "Stream Link to itself");
            }
            if (APPLE_FIELD_EX64(w0, VDM_LINK, WITH_RETURN)) {
                if (v->depth == AGX_VDM_STACK_DEPTH) {
                    return vdm_bad(w, at, "Stream Link with return nested "
                                   "more than %d deep", AGX_VDM_STACK_DEPTH);
                }
                v->stack[v->depth++] = at + 8;
            }
            v->pos = target;
            break;
        case AGX_VDM_BLOCK_TERMINATE:
            return vdm_finish(w);
        case AGX_VDM_BLOCK_TESSELLATE:
            agx_fw_unimp(w->fw, "GPU vertex data master: Tessellate block "
                         "at 0x%" G_GINT64_MODIFIER "x", at);
            return vdm_bad(w, at, "Tessellate (not modelled)");
        default:
            return vdm_bad(w, at, "unknown block 0x%08x", w0);
        }
        if (r != AGX_VDM_DONE) {
            return r;
        }
    }
}

/* The render's scene: where the records give it room */
static bool vdm_scene_begin(AgxFw *fw, AgxVdm *v)
{
    uint64_t tilemap = 0, info = 0, scene = 0, rgn = 0, unk28 = 0;
    uint64_t xmax = 0, ymax = 0, page_list;
    uint32_t pages, layers = 1;
    AgxGpuMem km = agx_gpu_mem_kernel(&fw->uat);
    AgxSceneMem sm = {
        .read = agx_gpu_mem_read, .write = agx_gpu_mem_write, .opaque = &km,
    };
    AgxSceneTarget t;
    uint32_t first = 0, max;
    const char *why;

    v->scene_ok = false;
    v->page_wait = false;
    agx_params_get(fw, AGX_PIPE_VERTEX, "params1.tvb_tilemap", &tilemap);
    agx_params_get(fw, AGX_PIPE_VERTEX, "buffer", &info);
    agx_params_get(fw, AGX_PIPE_VERTEX, "scene", &scene);
    agx_params_get(fw, AGX_PIPE_VERTEX, "tiling.rgn_size", &rgn);
    agx_params_get(fw, AGX_PIPE_VERTEX, "tiling.unk_28", &unk28);
    agx_params_get(fw, AGX_PIPE_VERTEX, "tiling.x_max", &xmax);
    agx_params_get(fw, AGX_PIPE_VERTEX, "tiling.y_max", &ymax);
    if (!tilemap || !info) {
        return true;
    }
    /* drm/asahi: 0xe000 | (layers - 1) for layered renders, else 0x8000 */
    if ((unk28 & 0xe000) == 0xe000) {
        layers = (unk28 & 0x7ff) + 1;
    }
    if (!agx_tvb_read_pages(fw, info, &page_list, &pages)) {
        return false;
    }
    /* Its key among the buffer's live scenes: the Scene, or the tilemap */
    scene = scene ? scene : tilemap;
    max = agx_tvb_scene_begin(fw, info, pages, scene, &first);
    if (pages && !max) {
        /* Every page is a scene's not yet rendered: wait for one */
        v->page_wait = true;
        v->scene_va = scene;
        v->info_va = info;
        return true;
    }
    t = (AgxSceneTarget) {
        .tilemap_va = tilemap,
        .tilemap_size = 4 * rgn * 16 * layers,
        .page_list_va = page_list,
        .ring_pages = pages,
        .first_page = first,
        .max_pages = max,
        .width = xmax + 1,
        .height = ymax + 1,
        .layers = layers,
    };
    if (!agx_scene_begin(&v->scene, &sm, &t, &why)) {
        agx_tvb_scene_free(fw, info, scene);
        if (why) {
            agx_fw_guest_error(fw, "GPU vertex data master: vertex command "
                               "0x%" G_GINT64_MODIFIER "x: %s: nothing is "
                               "binned", fw->pipes[AGX_PIPE_VERTEX].cmd_va,
                               why);
        } else {
            agx_fw_guest_error(fw, "GPU vertex data master: vertex command "
                               "0x%" G_GINT64_MODIFIER "x: its tilemap 0x%"
                               G_GINT64_MODIFIER "x faults: nothing is "
                               "binned", fw->pipes[AGX_PIPE_VERTEX].cmd_va,
                               tilemap);
        }
        return true;
    }
    v->scene_ok = true;
    v->scene_va = scene;
    v->info_va = info;
    return true;
}

/*
 * The vertex job waits for a fragment job to return pages of its buffer.
 * A scene that stays live (its fragment job failed before its Finalize,
 * or never comes) gives its pages back after AGX_VDM_PAGE_WAIT slices.
 */
static AgxVdmResult vdm_page_wait(AgxFw *fw, AgxVdm *v)
{
    if (++v->waited > AGX_VDM_PAGE_WAIT) {
        agx_tvb_scene_evict(fw, v->info_va);
        v->waited = 0;
    }
    if (!vdm_scene_begin(fw, v)) {
        return AGX_VDM_CRASHED;
    }
    if (v->page_wait) {
        fw->tvb.page_waits++;
        return AGX_VDM_MORE;
    }
    return AGX_VDM_DONE;
}

bool agx_vdm_start(AgxFw *fw, const AgxPipe *p)
{
    AgxVdm *v = &fw->vdm;
    uint64_t base = 0, usc = 0, heap = 0;
    uint32_t fault_control;

    v->active = false;
    v->in_draw = false;
    vdm_batch_free(v);
    agx_frag_tile_free(&v->pfrag);
    v->scene_ok = false;
    v->partial = false;
    v->partial_wait = false;
    v->no_partial = false;
    v->frag_cmd = 0;
    if (fw->shaders_off ||
        !agx_params_get(fw, AGX_PIPE_VERTEX, "params1.vdm_ctrl_stream_base",
                        &base) || !base) {
        return true;
    }
    agx_params_get(fw, AGX_PIPE_VERTEX, "params1.usc_exec_base_ta", &usc);
    agx_params_get(fw, AGX_PIPE_VERTEX, "encoder.sampler_array", &heap);
    if (!agx_fw_ld32(fw, fw->globals_va + fw->abi->gl_fault_control,
                     &fault_control, "Globals.fault_control")) {
        return false;
    }
    v->vm_slot = p->vm_slot;
    v->usc_base = usc;
    v->sampler_heap = heap;
    v->soft_faults = fault_control != 0;
    v->pos = base;
    v->depth = 0;
    v->blocks = 0;
    v->budget = fw->cdm_budget ?: AGX_CDM_JOB_BUDGET;
    memset(&v->ppp, 0, sizeof(v->ppp));
    v->ppp_stored = false;
    v->restart_index = 0;
    v->vs_word0 = v->vs_word1 = v->vs_outputs = v->vs_unknown = 0;
    v->waited = 0;
    if (!vdm_scene_begin(fw, v)) {
        return false;
    }
    v->active = true;
    return true;
}

bool agx_vdm_busy(const AgxFw *fw, const AgxPipe *p)
{
    return fw->vdm.active && p == &fw->pipes[AGX_PIPE_VERTEX] && p->busy;
}

AgxVdmResult agx_vdm_run(AgxFw *fw, uint64_t slice, AgxUatFault *fault)
{
    AgxVdm *v = &fw->vdm;
    VdmWalk w = {
        .fw = fw,
        .v = v,
        .mem = agx_gpu_mem_job(&fw->uat, v->vm_slot),
        .kmem = agx_gpu_mem_kernel(&fw->uat),
        .fault = fault,
    };
    AgxVdmResult r;

    if (!v->active) {
        return AGX_VDM_DONE;
    }
    if (v->page_wait) {
        r = vdm_page_wait(fw, v);
        if (r != AGX_VDM_DONE) {
            return r;
        }
    }
    w.smem = (AgxSceneMem) {
        .read = agx_gpu_mem_read, .write = agx_gpu_mem_write, .opaque = &w.kmem,
    };
    v->slices++;
    r = vdm_walk(&w, slice);
    if (r == AGX_VDM_FAULT || r == AGX_VDM_RUNAWAY || r == AGX_VDM_CRASHED) {
        if (v->scene_ok) {
            agx_tvb_scene_free(fw, v->info_va, v->scene_va);
        }
        v->active = false;
        v->in_draw = false;
        vdm_batch_free(v);
        agx_frag_tile_free(&v->pfrag);
        v->scene_ok = false;
        v->partial = false;
        v->faults += r != AGX_VDM_CRASHED;
    }
    return r;
}

bool agx_vdm_job_due(AgxFw *fw, AgxPipe *p)
{
    AgxUatFault fault;
    AgxVdmResult r;

    if (!agx_vdm_busy(fw, p)) {
        return true;
    }
    r = agx_vdm_run(fw, fw->cdm_slice ?: AGX_VDM_SLICE_BUDGET, &fault);
    if (r == AGX_VDM_CRASHED) {
        return false;
    }
    return agx_slice_end(fw, p, &vdm_kind, (AgxSliceResult)r, &fault);
}

void agx_vdm_stop(AgxFw *fw)
{
    if (fw->vdm.active && fw->vdm.scene_ok) {
        agx_tvb_scene_free(fw, fw->vdm.info_va, fw->vdm.scene_va);
    }
    fw->vdm.page_wait = false;
    fw->vdm.active = false;
    fw->vdm.in_draw = false;
    vdm_batch_free(&fw->vdm);
    agx_frag_tile_free(&fw->vdm.pfrag);
    fw->vdm.scene_ok = false;
    fw->vdm.partial = false;
}

/* NULL, or why the batch in flight of @v (active) is out of range */
static const char *vdm_check_batch(const AgxVdm *v)
{
    const VdmBatch *b = &v->batch;

    if (b->preamble) {
        if (b->active || v->in_draw || !b->group.nsimd ||
            b->group.limit > AGX_VDM_GROUP_BUDGET ||
            !agx_pipeline_launch_valid(&v->launch)) {
            return "vertex preamble in flight out of range";
        }
        return agx_usc_preamble_check_loaded(&v->launch, &b->group);
    }
    if (!b->active) {
        return b->group.nsimd ? "vertex SIMD-group without a batch" : NULL;
    }
    if (b->items > AGX_VDM_BATCH || b->lanes > AGX_USC_LANES ||
        !agx_pipeline_launch_valid(&v->launch)) {
        return "vertex batch in flight out of range";
    }
    for (uint32_t i = 0; i < b->items; i++) {
        if (b->item[i].n < 1 || b->item[i].n > 4) {
            return "vertex batch in flight: primitive out of range";
        }
        for (uint32_t j = 0; j < b->item[i].n; j++) {
            if (b->item[i].lane[j] >= b->lanes) {
                return "vertex batch in flight: primitive out of range";
            }
        }
    }
    if (b->group.nsimd) {
        if (b->group.limit > AGX_VDM_GROUP_BUDGET) {
            return "vertex SIMD-group in flight out of range";
        }
        return agx_usc_group_check_loaded(&v->launch, &b->group);
    }
    return NULL;
}

const char *agx_vdm_check_loaded(const AgxFw *fw)
{
    const AgxVdm *v = &fw->vdm;
    const AgxUscLaunch *l = &v->launch;
    const char *err;

    if (!v->active) {
        return v->batch.active || v->batch.preamble ||
               v->batch.group.nsimd ?
               "vertex batch in flight without a job" : NULL;
    }
    if (v->depth > AGX_VDM_STACK_DEPTH) {
        return "vertex data master return stack too deep";
    }
    if (v->vm_slot >= AGX_UAT_NUM_SLOTS) {
        return "vertex data master VM slot out of range";
    }
    if (v->in_draw &&
        (!agx_pipeline_launch_valid(l) ||
         (v->index_size != 1 && v->index_size != 2 && v->index_size != 4) ||
         v->instance >= v->instances)) {
        return "vertex data master draw out of range";
    }
    if (v->scene_ok &&
        (!v->scene.ring_pages || v->scene.first_page >= v->scene.ring_pages ||
         v->scene.max_pages > v->scene.ring_pages)) {
        return "vertex data master scene out of range";
    }
    if (v->page_wait && v->scene_ok) {
        return "vertex data master waits for pages it has";
    }
    if ((v->partial || v->partial_wait) && !v->scene_ok) {
        return "vertex data master partial render without a scene";
    }
    if (v->partial && !v->pfrag.active) {
        return "vertex data master partial render without its tiles";
    }
    if (!v->partial && (v->pfrag.tile.phase || v->pfrag.tile.group.nsimd)) {
        return "vertex data master tile in flight without a partial render";
    }
    err = vdm_check_batch(v);
    if (err) {
        return err;
    }
    return v->partial ? agx_frag_check_state(&v->pfrag) : NULL;
}
