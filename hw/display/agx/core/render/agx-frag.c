/*
 * AGX fragment pipe: the tiles of a RunFragment job (agx-frag.h)
 *
 * Facts: the UAPI's bg/eot programs land in fragment job parameters 1
 * (bg) and 2 (eot_usc, eot_rsrc_spec) (shared/reference/agx-driver.md
 * §4.4); a program is a list of USC control words as for compute
 * (agx-shaders.md §1.4), whose Shared word lays out the tilebuffer (Mesa
 * agx_tilebuffer.c, hk_cmd_draw.c hk_build_bg_eot); the background
 * program is a fragment shader, the end-of-tile program a compute-like
 * one storing the tile with block_image_store (agx_bg_eot.c).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-cdm.h"
#include "hw/agx/agx-frag.h"
#include "hw/agx/agx-fault.h"
#include "hw/agx/agx-gpu-mem.h"
#include "hw/agx/agx-params.h"
#include "hw/agx/agx-pipeline.h"
#include "hw/agx/agx-scene.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-usc.h"

/* The programs' addresses: USC offsets, 64-byte aligned (the low bits flag) */
#define FRAG_PROGRAM_MASK       0xffffffc0u

/* Internal: the program ends early, the tile goes on */
#define AGX_FRAG_SKIP   ((AgxFragResult)-1)

/* One slice's walk */
typedef struct FragWalk {
    AgxFw *fw;
    AgxFrag *f;
    AgxGpuMem mem;
    AgxGpuMem kmem;             /* the scene, in the kernel's context */
    uint64_t used;              /* instructions so far */
    uint64_t tiles;             /* tiles rendered */
    uint32_t layer;             /* the layer of the tile being rendered */
    AgxUatFault *fault;
    uint64_t cmd;               /* the fragment command (messages) */
} FragWalk;

static uint64_t frag_cmd(const FragWalk *w)
{
    return w->cmd ? w->cmd : w->fw->pipes[AGX_PIPE_FRAGMENT].cmd_va;
}

/* How the fragment job runs in slices, and its messages */
static const AgxSliceKind frag_kind = {
    .pipe = AGX_PIPE_FRAGMENT,
    .who = "GPU fragment pipe",
    .command = "fragment",
    .slice_ns = AGX_FRAG_SLICE_NS,
    .job_budget = AGX_FRAG_JOB_BUDGET,
    .unit = "SIMD-group of a tile",
    .unit_budget = AGX_FRAG_TILE_BUDGET,
};

/* A program's words are bad: a guest error, a GPU fault */
static AgxFragResult G_GNUC_PRINTF(3, 4)
frag_bad(FragWalk *w, uint64_t va, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    agx_slice_vbad(w->fw, &frag_kind, w->f->vm_slot, va, w->fault, fmt, ap);
    va_end(ap);
    return AGX_FRAG_FAULT;
}

static bool frag_read(FragWalk *w, uint64_t va, void *buf, uint32_t len)
{
    if (agx_gpu_mem_read(&w->mem, va, buf, len)) {
        return true;
    }
    *w->fault = w->mem.fault;
    return false;
}

/*
 * The program whose word list is at USC offset @pc (Counts word @spec),
 * bound into @l (its Shared word's tilebuffer layout in its tile_*)
 */
static AgxFragResult frag_bind(FragWalk *w, uint32_t pc, uint32_t spec,
                               AgxUscLaunch *l)
{
    AgxFrag *f = w->f;
    AgxPipelineError err;

    l->usc_base = f->usc_base;
    l->sampler_heap_va = f->sampler_heap;
    l->soft_faults = f->soft_faults;
    switch (agx_pipeline_load(l, pc & FRAG_PROGRAM_MASK, spec,
                              &agx_gpu_mem_usc_ops, &w->mem, &err)) {
    case AGX_PIPELINE_FAULT:
        *w->fault = w->mem.fault;
        return AGX_FRAG_FAULT;
    case AGX_PIPELINE_BAD:
        return frag_bad(w, err.at, "%s", err.why);
    default:
        break;
    }
    l->local[0] = l->local[1] = l->local[2] = 1;
    return AGX_FRAG_DONE;
}

/* The interpreter's verdict on a program of the tile */
static AgxFragResult frag_usc_result(FragWalk *w, AgxUscStatus st,
                                     const AgxUscFault *uf, uint64_t before,
                                     uint64_t left, const char *what)
{
    uint64_t ran = before - MIN(left, before);

    w->used += ran;
    w->f->budget -= MIN(ran, w->f->budget);
    switch (st) {
    case AGX_USC_OK:
        return AGX_FRAG_DONE;
    case AGX_USC_BUDGET:
        return AGX_FRAG_RUNAWAY;
    default:
        break;
    }
    if (uf->kind == AGX_USC_FAULT_DECODE) {
        /* an instruction the model lacks: as agx-cdm.c, skip the program */
        agx_fw_unimp(w->fw, "GPU shader: instruction 0x%016"
                     G_GINT64_MODIFIER "x at pc 0x%" G_GINT64_MODIFIER "x "
                     "is not implemented: the %s program of a tile is "
                     "skipped (fragment command 0x%" G_GINT64_MODIFIER "x)",
                     uf->insn, uf->pc, what, frag_cmd(w));
        w->f->unimplemented++;
        return AGX_FRAG_SKIP;
    }
    if ((uf->kind == AGX_USC_FAULT_FETCH || uf->kind == AGX_USC_FAULT_LOAD ||
         uf->kind == AGX_USC_FAULT_STORE) && w->mem.faulted) {
        *w->fault = w->mem.fault;
        return AGX_FRAG_FAULT;
    }
    agx_fw_guest_error(w->fw, "GPU shader fault (kind %d) at pc 0x%"
                       G_GINT64_MODIFIER "x, instruction 0x%016"
                       G_GINT64_MODIFIER "x, in the %s program of fragment "
                       "command 0x%" G_GINT64_MODIFIER "x", uf->kind, uf->pc,
                       uf->insn, what, frag_cmd(w));
    *w->fault = (AgxUatFault) {
        .va = uf->va ?: uf->pc,
        .slot = w->f->vm_slot,
        .reason = AGX_UAT_FAULT_UNMAPPED,
        .level = AGX_UAT_LEVELS - 1,
    };
    return AGX_FRAG_FAULT;
}

static uint64_t frag_usc_budget(const AgxFrag *f)
{
    return MIN(f->budget, AGX_FRAG_TILE_BUDGET);
}

/*
 * Run the preamble of the program bound in the tile in flight for the
 * rest of the slice (at least an instruction): started unless a slice
 * suspended it, suspended again (AGX_FRAG_MORE) when the slice runs out
 */
static AgxFragResult frag_preamble(FragWalk *w, const char *what,
                                   uint64_t slice)
{
    AgxFrag *f = w->f;
    AgxFragTile *t = &f->tile;
    AgxUscFault uf = { 0 };
    uint64_t before, left;
    AgxUscStatus st;

    if (!t->group.nsimd) {
        if (w->used >= slice) {
            return AGX_FRAG_MORE;
        }
        agx_usc_preamble_start(&t->launch, frag_usc_budget(f), &t->group);
    }
    before = left = MAX(slice - MIN(w->used, slice), 1);
    w->mem.faulted = false;
    st = agx_usc_preamble_run(&t->launch, &t->group, &agx_gpu_mem_usc_ops,
                              &w->mem, &left, &uf);
    if (st == AGX_USC_SUSPENDED) {
        w->used += before - left;
        f->budget -= MIN(before - left, f->budget);
        return AGX_FRAG_MORE;
    }
    agx_usc_tg_free(&t->group);
    return frag_usc_result(w, st, &uf, before, left, what);
}

/*
 * Run SIMD-group @g of the tile's program or shader for the rest of the
 * slice (at least an instruction): started unless a slice suspended it,
 * suspended again (AGX_FRAG_MORE) when the slice runs out
 */
static AgxFragResult frag_group(FragWalk *w, const AgxUscGroup *g,
                                uint64_t slice, const char *what)
{
    AgxFrag *f = w->f;
    AgxFragTile *t = &f->tile;
    AgxUscFault uf = { 0 };
    uint64_t before, left;
    AgxUscStatus st;

    if (!t->group.nsimd) {
        st = agx_usc_group_start(&t->launch, g, frag_usc_budget(f),
                                 &t->group, &uf);
        if (st != AGX_USC_OK) {
            return frag_usc_result(w, st, &uf, 0, 0, what);
        }
    }
    before = left = MAX(slice - MIN(w->used, slice), 1);
    w->mem.faulted = false;
    st = agx_usc_group_run(&t->launch, g, &t->group, &agx_gpu_mem_usc_ops,
                           &w->mem, &left, &uf);
    if (st == AGX_USC_SUSPENDED) {
        w->used += before - left;
        f->budget -= MIN(before - left, f->budget);
        return AGX_FRAG_MORE;
    }
    agx_usc_tg_free(&t->group);
    return frag_usc_result(w, st, &uf, before, left, what);
}

/*
 * Run the program whose word list is at USC offset @pc (Counts word
 * @spec) on @tile: once per pixel (the background program: groups of 32
 * pixels in raster order, sample 0) or once (the end-of-tile program: one
 * lane), from where the tile in flight is
 */
static AgxFragResult frag_program(FragWalk *w, AgxUscTile *tile, uint32_t pc,
                                  uint32_t spec, bool per_pixel,
                                  const char *what, uint64_t slice)
{
    AgxFragTile *t = &w->f->tile;
    uint32_t npx = tile->width * tile->height;
    g_autofree AgxUscGroup *g = NULL;
    AgxFragResult r;

    if (t->prog == AGX_FRAG_PROG_NONE) {
        r = frag_bind(w, pc, spec, &t->launch);
        if (r != AGX_FRAG_DONE) {
            return r;
        }
        t->prog = t->launch.has_preamble ? AGX_FRAG_PROG_PREAMBLE
                                         : AGX_FRAG_PROG_READY;
        t->next = 0;
    }
    if (t->prog == AGX_FRAG_PROG_PREAMBLE) {
        r = frag_preamble(w, what, slice);
        if (r == AGX_FRAG_MORE) {
            return r;
        }
        if (r != AGX_FRAG_DONE) {
            /* an unimplemented instruction skips the program */
            t->prog = AGX_FRAG_PROG_NONE;
            return r == AGX_FRAG_SKIP ? AGX_FRAG_DONE : r;
        }
        t->prog = AGX_FRAG_PROG_READY;
    }
    g = g_new0(AgxUscGroup, 1);
    g->tile = tile;
    g->layer = w->layer;
    while (t->next < npx) {
        uint32_t n = per_pixel ? MIN(npx - t->next, AGX_USC_LANES) : 1;

        if (!t->group.nsimd && w->used >= slice) {
            return AGX_FRAG_MORE;
        }
        g->launched = n >= 32 ? ~0u : (1u << n) - 1;
        for (uint32_t i = 0; i < n; i++) {
            g->px[i] = (t->next + i) % tile->width;
            g->py[i] = (t->next + i) / tile->width;
        }
        r = frag_group(w, g, slice, what);
        if (r == AGX_FRAG_SKIP) {
            break;
        }
        if (r != AGX_FRAG_DONE) {
            return r;
        }
        t->next = per_pixel ? t->next + AGX_USC_LANES : npx;
    }
    t->prog = AGX_FRAG_PROG_NONE;
    return AGX_FRAG_DONE;
}

/* --- primitives ---------------------------------------------------------- */

/* CF binding words (cmdbuf.xml "CF binding header", "CF binding") */
APPLE_FIELD(FRAG_CFB, COMPONENTS, 0, 2);        /* minus 1 */
APPLE_FIELD(FRAG_CFB, SHADE, 2, 3);
APPLE_FIELD(FRAG_CFB, SOURCE, 5, 3);
APPLE_FIELD(FRAG_CFB, SLOT, 8, 8);
APPLE_FIELD(FRAG_CFB, CF, 16, 8);

enum {
    FRAG_SHADE_FLAT0 = 0, FRAG_SHADE_FLAT2 = 2, FRAG_SHADE_LINEAR = 3,
    FRAG_SHADE_FLAT1 = 6, FRAG_SHADE_PERSPECTIVE = 7,
};
enum {
    FRAG_CF_VARYING, FRAG_CF_Z, FRAG_CF_POINT_COORD, FRAG_CF_PRIM_ID,
};

#define FRAG_MAX_CF_BINDINGS    AGX_FRAG_MAX_CF_BINDINGS
/* Scissor records (cmdbuf.xml "Scissor"): 16 bytes */
#define FRAG_SCISSOR_SIZE       16

/*
 * What the depth and stencil tests of one primitive need, from its state
 * record: the face words of its facing (depth function, write disable,
 * stencil reference), its stencil word, the scissor's depth range, and
 * whether the tests run before the shader or when the shader triggers
 * them.  Fragment control's pass type (Mesa agx_linker.c: "punch
 * through" for a shader that writes the sample mask or depth/stencil,
 * i.e. that has sample_mask or zs_emit; Mesa packs it into the second
 * fragment control word, and sets the USC Fragment Properties word's
 * early-Z bit to the opposite) makes them late.  A tile in flight keeps
 * it as AgxFragZs.
 */
typedef struct FragZs {
    unsigned func, func2;       /* the face words' depth functions */
    bool zwrite;
    bool stencil;               /* the stencil test is on */
    uint32_t sw;                /* the stencil word */
    uint8_t ref;                /* the face's stencil reference */
    bool late;                  /* the shader triggers the tests */
    bool unorm16;               /* depth is 16-bit unorm (ZLS Z format) */
    bool clamp;                 /* depth is clamped to [zmin, zmax] */
    float zmin, zmax;
    double bias;                /* depth bias of the primitive's depth */
} FragZs;

/* AgxFragZs.flags */
#define FRAG_ZS_ZWRITE          (1u << 0)
#define FRAG_ZS_STENCIL         (1u << 1)
#define FRAG_ZS_LATE            (1u << 2)
#define FRAG_ZS_UNORM16         (1u << 3)
#define FRAG_ZS_CLAMP           (1u << 4)

static void frag_zs_pack(const FragZs *zs, AgxFragZs *out)
{
    *out = (AgxFragZs) {
        .func = zs->func, .func2 = zs->func2, .sw = zs->sw, .ref = zs->ref,
        .flags = (zs->zwrite ? FRAG_ZS_ZWRITE : 0) |
                 (zs->stencil ? FRAG_ZS_STENCIL : 0) |
                 (zs->late ? FRAG_ZS_LATE : 0) |
                 (zs->unorm16 ? FRAG_ZS_UNORM16 : 0) |
                 (zs->clamp ? FRAG_ZS_CLAMP : 0),
    };
    memcpy(&out->zmin, &zs->zmin, 4);
    memcpy(&out->zmax, &zs->zmax, 4);
    memcpy(&out->bias, &zs->bias, 8);
}

static void frag_zs_unpack(const AgxFragZs *in, FragZs *zs)
{
    *zs = (FragZs) {
        .func = in->func & 7, .func2 = in->func2 & 7, .sw = in->sw,
        .ref = in->ref, .zwrite = in->flags & FRAG_ZS_ZWRITE,
        .stencil = in->flags & FRAG_ZS_STENCIL,
        .late = in->flags & FRAG_ZS_LATE,
        .unorm16 = in->flags & FRAG_ZS_UNORM16,
        .clamp = in->flags & FRAG_ZS_CLAMP,
    };
    memcpy(&zs->zmin, &in->zmin, 4);
    memcpy(&zs->zmax, &in->zmax, 4);
    memcpy(&zs->bias, &in->bias, 8);
}

/*
 * The primitive being shaded: what the cf hook interpolates, and the
 * late depth and stencil tests (frag_zs_hook) of the tile in flight @t
 * (its CF bindings, tests, depth and stencil, samples that passed)
 */
typedef struct FragShade {
    const AgxScenePrim *p;
    double ox, oy;              /* the tile's corner, window pixels */
    const AgxUscGroup *g;
    const AgxUscTile *tile;
    AgxFragTile *t;
    FragZs zs;                  /* t->zs */
} FragShade;

static float frag_vertex_value(const FragShade *sh, unsigned i,
                               unsigned source, unsigned slot)
{
    const AgxSceneVertex *v = &sh->p->v[MIN(i, sh->p->kind - 1)];
    float f;

    switch (source) {
    case FRAG_CF_Z:
        return v->z;
    case FRAG_CF_PRIM_ID:
        f = sh->p->prim_id;
        return f;
    case FRAG_CF_VARYING:
        if (slot == 0) {
            return v->rhw;
        }
        if (slot == 1 && sh->t->reads_z) {
            return v->z;
        }
        slot -= 1 + sh->t->reads_z;
        if (slot < sh->p->nvar) {
            memcpy(&f, &v->var[slot], 4);
            return f;
        }
        return 0;
    default:
        return 0;       /* point coordinates, barycentrics: not modelled */
    }
}

/*
 * The plane of coefficient register @reg over the primitive, in pixels
 * from the tile's corner: flat bindings the named vertex's value, linear
 * ones the value, perspective ones the value times 1/w (iterproj divides
 * by the W plane)
 */
static bool frag_cf(void *opaque, uint32_t reg, float c[3])
{
    const FragShade *sh = opaque;
    const AgxScenePrim *p = sh->p;

    for (unsigned b = 0; b < sh->t->ncfb; b++) {
        uint32_t w = sh->t->cfb[b];
        unsigned base = APPLE_FIELD_EX64(w, FRAG_CFB, CF);
        unsigned n = APPLE_FIELD_EX64(w, FRAG_CFB, COMPONENTS) + 1;
        unsigned shade = APPLE_FIELD_EX64(w, FRAG_CFB, SHADE);
        unsigned src = APPLE_FIELD_EX64(w, FRAG_CFB, SOURCE);
        unsigned slot = APPLE_FIELD_EX64(w, FRAG_CFB, SLOT) + reg - base;
        double val[3], x[3], y[3], det;

        if (reg < base || reg >= base + n) {
            continue;
        }
        if (shade != FRAG_SHADE_LINEAR && shade != FRAG_SHADE_PERSPECTIVE) {
            unsigned vtx = shade == FRAG_SHADE_FLAT0 ? 0 :
                           shade == FRAG_SHADE_FLAT1 ? 1 : 2;

            c[0] = c[1] = 0;
            c[2] = frag_vertex_value(sh, vtx, src, slot);
            return true;
        }
        for (unsigned i = 0; i < 3; i++) {
            const AgxSceneVertex *v = &p->v[MIN(i, p->kind - 1)];

            val[i] = frag_vertex_value(sh, i, src, slot);
            if (shade == FRAG_SHADE_PERSPECTIVE) {
                val[i] *= v->rhw;
            }
            x[i] = v->x - sh->ox;
            y[i] = v->y - sh->oy;
        }
        if (p->kind == AGX_SCENE_LINE) {
            /* a third point off the line, with the first one's value */
            x[2] = x[0] - (y[1] - y[0]);
            y[2] = y[0] + (x[1] - x[0]);
            val[2] = val[0];
        }
        det = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
        if (p->kind == AGX_SCENE_POINT || det == 0) {
            c[0] = c[1] = 0;
            c[2] = val[0];
            return true;
        }
        {
            double a = ((val[1] - val[0]) * (y[2] - y[0]) -
                        (val[2] - val[0]) * (y[1] - y[0])) / det;
            double bb = ((x[1] - x[0]) * (val[2] - val[0]) -
                         (x[2] - x[0]) * (val[1] - val[0])) / det;

            c[0] = a;
            c[1] = bb;
            c[2] = val[0] - a * x[0] - bb * y[0];
        }
        return true;
    }
    return false;
}

/* A triangle's edges, for the inside tests of its pixels and samples */
typedef struct FragEdges {
    bool empty;                 /* no area: nothing is inside */
    double ax[3], ay[3];        /* edge i starts at (ax, ay) */
    double dx[3], dy[3];        /* and goes (dx, dy) */
    bool top_left[3];           /* a point on it is inside */
} FragEdges;

/* Triangle @p's edges, counter-clockwise in window space */
static void frag_edges(const AgxScenePrim *p, FragEdges *e)
{
    const AgxSceneVertex *v0 = &p->v[0], *v1 = &p->v[1], *v2 = &p->v[2];
    double area = ((double)v1->x - v0->x) * ((double)v2->y - v0->y) -
                  ((double)v2->x - v0->x) * ((double)v1->y - v0->y);
    const AgxSceneVertex *t[3] = { v0, area > 0 ? v1 : v2,
                                   area > 0 ? v2 : v1 };

    e->empty = area == 0;
    for (int i = 0; i < 3; i++) {
        const AgxSceneVertex *a = t[i], *b = t[(i + 1) % 3];

        e->ax[i] = a->x;
        e->ay[i] = a->y;
        e->dx[i] = (double)b->x - a->x;
        e->dy[i] = (double)b->y - a->y;
        e->top_left[i] = (e->dy[i] == 0 && e->dx[i] > 0) || e->dy[i] < 0;
    }
}

/*
 * Whether pixel centre (@px, @py) (window pixels) is inside the triangle
 * of edges @e: edge functions with the top-left rule (window y grows
 * downwards: a top edge is horizontal with the inside below, a left edge
 * has the inside on its right), so that pixels on an edge shared by two
 * triangles are shaded once
 */
static bool frag_edges_inside(const FragEdges *e, double px, double py)
{
    if (e->empty) {
        return false;
    }
    for (int i = 0; i < 3; i++) {
        double d = e->dx[i] * (py - e->ay[i]) - e->dy[i] * (px - e->ax[i]);

        if (d < 0 || (d == 0 && !e->top_left[i])) {
            return false;
        }
    }
    return true;
}

/* Points and lines: the square or rectangle around them (pixel centres) */
static bool frag_inside_small(const AgxScenePrim *p, double px, double py)
{
    double h = MAX(p->size, 1.0f) / 2;

    if (p->kind == AGX_SCENE_POINT) {
        return px >= p->v[0].x - h && px < p->v[0].x + h &&
               py >= p->v[0].y - h && py < p->v[0].y + h;
    }
    {
        double dx = (double)p->v[1].x - p->v[0].x;
        double dy = (double)p->v[1].y - p->v[0].y;
        double len2 = dx * dx + dy * dy, t, d;

        if (len2 == 0) {
            return false;
        }
        t = ((px - p->v[0].x) * dx + (py - p->v[0].y) * dy) / len2;
        d = fabs((px - p->v[0].x) * dy - (py - p->v[0].y) * dx) / sqrt(len2);
        return t >= 0 && t < 1 && d <= h;
    }
}

/* --- depth ------------------------------------------------------------ */

/* ZLS Control (cmdbuf.xml) */
APPLE_FIELD(FRAG_ZLS, S_LOAD, 14, 1);
APPLE_FIELD(FRAG_ZLS, Z_LOAD, 15, 1);
APPLE_FIELD(FRAG_ZLS, S_STORE, 18, 1);
APPLE_FIELD(FRAG_ZLS, Z_STORE, 19, 1);
APPLE_FIELD(FRAG_ZLS, Z_FORMAT, 25, 2);
#define FRAG_ZLS_FORMAT_16      2

static uint32_t frag_next_pow2(uint32_t v)
{
    return v <= 1 ? 1 : 1u << (32 - __builtin_clz(v - 1));
}

/* The depth or stencil buffer's layout (frag_z_addr) */
typedef struct FragZLayout {
    uint32_t tw, th;            /* the tile, pixels */
    uint32_t aw;                /* the width, whole tiles */
    uint32_t block, bpp;        /* bytes: a pixel's samples, a sample */
} FragZLayout;

static void frag_z_layout(const AgxFrag *f, unsigned bpp, FragZLayout *z)
{
    static const uint8_t tile_log2[5][2] = {
        { 7, 7 }, { 7, 6 }, { 6, 6 }, { 6, 5 }, { 5, 5 },
    };
    uint32_t samples = MAX(f->tile_samples, 1), block = bpp * samples;
    unsigned b = MIN(__builtin_ctz(block), 4);

    z->tw = 1u << tile_log2[b][0];
    z->th = 1u << tile_log2[b][1];
    if (f->width < z->tw || f->height < z->th) {
        z->tw = z->th = frag_next_pow2(MIN(f->width, f->height));
    }
    z->aw = (f->width + z->tw - 1) / z->tw * z->tw;
    z->block = block;
    z->bpp = bpp;
}

/* Bits 0..15 of @v spread to the even bits */
static uint32_t frag_spread(uint32_t v)
{
    v &= 0xffff;
    v = (v | v << 8) & 0x00ff00ff;
    v = (v | v << 4) & 0x0f0f0f0f;
    v = (v | v << 2) & 0x33333333;
    return (v | v << 1) & 0x55555555;
}

/*
 * A pixel's index is a term of its column plus a term of its row (Morton
 * order inside the tile: x on the even bits, y on the odd)
 */
static uint64_t frag_z_col(const FragZLayout *z, uint32_t x)
{
    return (uint64_t)(x & ~(z->tw - 1)) * z->th + frag_spread(x & (z->tw - 1));
}

static uint64_t frag_z_row(const FragZLayout *z, uint32_t y)
{
    return (uint64_t)(y & ~(z->th - 1)) * z->aw +
           ((uint64_t)frag_spread(y & (z->th - 1)) << 1);
}

/*
 * Sample @s of pixel (@x, @y) of the depth buffer at @base: a twiddled
 * image of the framebuffer's size, one level (Mesa's ail layout as
 * agx-usc-image.c addresses it): a pixel is one block of its samples,
 * @bpp bytes each, and the tile size follows the block's size: 128x128
 * pixels of 1 byte (the stencil buffer), 128x64 of 2, 64x64 of 4, 64x32
 * of 8, 32x32 of 16; or one power-of-two square tile for an image
 * smaller than that
 */
static uint64_t frag_z_addr(const AgxFrag *f, uint64_t base, uint32_t x,
                            uint32_t y, uint32_t s, unsigned bpp)
{
    FragZLayout z;

    frag_z_layout(f, bpp, &z);
    return base + (frag_z_row(&z, y) + frag_z_col(&z, x)) * z.block +
           (uint64_t)s * bpp;
}

static float frag_z_decode(const AgxFrag *f, uint32_t v)
{
    float z;

    if (APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, Z_FORMAT) ==
        FRAG_ZLS_FORMAT_16) {
        return (v & 0xffff) / 65535.0f;
    }
    memcpy(&z, &v, 4);
    return z;
}

static uint32_t frag_z_encode(const AgxFrag *f, float z)
{
    uint32_t v;

    if (APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, Z_FORMAT) ==
        FRAG_ZLS_FORMAT_16) {
        z = isnan(z) ? 0 : z < 0 ? 0 : z > 1 ? 1 : z;
        return (uint32_t)lrintf(z * 65535.0f);
    }
    memcpy(&v, &z, 4);
    return v;
}

/*
 * Layer w->layer of the depth or stencil buffer at @base: the layers are
 * @stride apart, the stride word as Mesa packs it (Gallium and
 * Honeykrisp: (16 KiB pages - 1) << 14, bit 0 set); one without bit 0 is
 * taken as bytes (the UAPI documents a byte stride)
 */
#define FRAG_ZLS_STRIDE_PAGE    0x4000

static uint64_t frag_zls_base(const FragWalk *w, uint64_t base,
                              uint64_t stride)
{
    if (stride & 1) {
        stride = ((stride >> 14) + 1) * FRAG_ZLS_STRIDE_PAGE;
    }
    return base + w->layer * stride;
}

/*
 * The tile's depth or stencil samples (@bpp bytes each, in the order of
 * the tile's buffers: pixel after pixel, sample after sample) as one
 * range of the buffer at @base: when the tile lies inside the
 * framebuffer and its samples fill [*@lo, *@lo + n x @bpp) exactly (a
 * tile of a twiddled buffer does: it is an aligned square or half square
 * of Morton order), each sample's offset in the range (g_free them);
 * else NULL, and the callers take sample after sample.  One access then
 * moves what n would: the same bytes, the same faults.
 */
static uint32_t *frag_zs_range(const AgxFrag *f, const AgxUscTile *tile,
                               uint64_t base, unsigned bpp, uint64_t *lo)
{
    uint32_t n = tile->width * tile->height * tile->samples;
    uint64_t min = UINT64_MAX, max = 0;
    g_autofree uint64_t *a = NULL, *col = NULL, *row = NULL;
    FragZLayout z;
    uint32_t *off;

    if (agx_usc_general_paths || !n ||
        tile->origin_x + tile->width > f->width ||
        tile->origin_y + tile->height > f->height) {
        return NULL;
    }
    /* frag_z_addr()'s sums, their terms once per column and per row */
    frag_z_layout(f, bpp, &z);
    col = g_new(uint64_t, tile->width);
    row = g_new(uint64_t, tile->height);
    for (uint32_t x = 0; x < tile->width; x++) {
        col[x] = frag_z_col(&z, tile->origin_x + x);
    }
    for (uint32_t y = 0; y < tile->height; y++) {
        row[y] = frag_z_row(&z, tile->origin_y + y);
    }
    a = g_new(uint64_t, n);
    for (uint32_t y = 0, i = 0; y < tile->height; y++) {
        for (uint32_t x = 0; x < tile->width; x++) {
            uint64_t pa = base + (row[y] + col[x]) * z.block;

            for (uint32_t sm = 0; sm < tile->samples; sm++, i++) {
                a[i] = pa + (uint64_t)sm * bpp;
                min = MIN(min, a[i]);
                max = MAX(max, a[i]);
            }
        }
    }
    /* n distinct addresses, @bpp apart from one another at least */
    if (max - min != (uint64_t)(n - 1) * bpp) {
        return NULL;
    }
    off = g_new(uint32_t, n);
    for (uint32_t i = 0; i < n; i++) {
        off[i] = a[i] - min;
    }
    *lo = min;
    return off;
}

/*
 * The tile's depth: loaded from the depth buffer when zls_ctrl says so,
 * else the background object's depth (isp_bgobjdepth)
 */
static void frag_z_begin(FragWalk *w, const AgxUscTile *tile, uint32_t *z)
{
    AgxFrag *f = w->f;
    unsigned bpp = APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, Z_FORMAT) ==
                   FRAG_ZLS_FORMAT_16 ? 2 : 4;
    bool load = APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, Z_LOAD) && f->z_load;
    uint64_t base = frag_zls_base(w, f->z_load, f->z_load_stride), lo;
    uint32_t n = tile->width * tile->height * tile->samples;
    g_autofree uint32_t *off = NULL;

    off = load ? frag_zs_range(f, tile, base, bpp, &lo) : NULL;
    if (off) {
        g_autofree uint8_t *buf = g_malloc((size_t)n * bpp);

        if (agx_gpu_mem_read(&w->mem, lo, buf, n * bpp)) {
            for (uint32_t i = 0; i < n; i++) {
                const uint8_t *b = buf + off[i];

                z[i] = apple_f32_bits(frag_z_decode(f, bpp == 2 ? apple_ld16(b)
                                                           : apple_ld32(b)));
            }
            return;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t px = i / tile->samples, sm = i % tile->samples;
        uint32_t gx = tile->origin_x + px % tile->width;
        uint32_t gy = tile->origin_y + px / tile->width;
        uint32_t v = f->bg_depth;
        uint8_t b[4] = { 0 };

        if (load && gx < f->width && gy < f->height &&
            agx_gpu_mem_read(&w->mem, frag_z_addr(f, base, gx, gy, sm, bpp),
                             b, bpp)) {
            v = bpp == 2 ? apple_ld16(b) : apple_ld32(b);
        }
        z[i] = apple_f32_bits(frag_z_decode(f, v));
    }
}

/* ... and stored at the end of the tile when zls_ctrl says so */
static void frag_z_end(FragWalk *w, const AgxUscTile *tile,
                       const uint32_t *z)
{
    AgxFrag *f = w->f;
    unsigned bpp = APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, Z_FORMAT) ==
                   FRAG_ZLS_FORMAT_16 ? 2 : 4;
    uint64_t base = frag_zls_base(w, f->z_store, f->z_store_stride), lo;
    uint32_t n = tile->width * tile->height * tile->samples;
    g_autofree uint32_t *off = NULL;

    if (!APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, Z_STORE) || !f->z_store) {
        return;
    }
    off = frag_zs_range(f, tile, base, bpp, &lo);
    if (off) {
        g_autofree uint8_t *buf = g_malloc((size_t)n * bpp);

        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = frag_z_encode(f, apple_bits_f32(z[i]));

            if (bpp == 2) {
                buf[off[i]] = v;
                buf[off[i] + 1] = v >> 8;
            } else {
                apple_st32(buf + off[i], v);
            }
        }
        /* a write that faults leaves it to the stores one by one */
        if (agx_gpu_mem_write(&w->mem, lo, buf, n * bpp)) {
            return;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t px = i / tile->samples, sm = i % tile->samples;
        uint32_t gx = tile->origin_x + px % tile->width;
        uint32_t gy = tile->origin_y + px / tile->width;
        uint8_t b[4];

        if (gx >= f->width || gy >= f->height) {
            continue;
        }
        apple_st32(b, frag_z_encode(f, apple_bits_f32(z[i])));
        /* stores follow soft faults: an unmapped one is dropped */
        agx_gpu_mem_write(&w->mem, frag_z_addr(f, base, gx, gy, sm, bpp), b,
                          bpp);
    }
}

/*
 * The tile's stencil: the background object's (isp_bgobjvals bits 7:0)
 * or loaded from the stencil buffer (8 bits, twiddled), and stored back,
 * as zls_ctrl says
 */
static void frag_s_begin(FragWalk *w, const AgxUscTile *tile, uint8_t *sb)
{
    AgxFrag *f = w->f;
    bool load = APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, S_LOAD) && f->s_load;
    uint64_t base = frag_zls_base(w, f->s_load, f->s_load_stride), lo;
    uint32_t n = tile->width * tile->height * tile->samples;
    g_autofree uint32_t *off = NULL;

    off = load ? frag_zs_range(f, tile, base, 1, &lo) : NULL;
    if (off) {
        g_autofree uint8_t *buf = g_malloc(n);

        if (agx_gpu_mem_read(&w->mem, lo, buf, n)) {
            for (uint32_t i = 0; i < n; i++) {
                sb[i] = buf[off[i]];
            }
            return;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t px = i / tile->samples, sm = i % tile->samples;
        uint32_t gx = tile->origin_x + px % tile->width;
        uint32_t gy = tile->origin_y + px / tile->width;
        uint8_t v = f->bg_vals & 0xff;

        if (load && gx < f->width && gy < f->height) {
            agx_gpu_mem_read(&w->mem, frag_z_addr(f, base, gx, gy, sm, 1),
                             &v, 1);
        }
        sb[i] = v;
    }
}

static void frag_s_end(FragWalk *w, const AgxUscTile *tile,
                       const uint8_t *sb)
{
    AgxFrag *f = w->f;
    uint64_t base = frag_zls_base(w, f->s_store, f->s_store_stride), lo;
    uint32_t n = tile->width * tile->height * tile->samples;
    g_autofree uint32_t *off = NULL;

    if (!APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, S_STORE) || !f->s_store) {
        return;
    }
    off = frag_zs_range(f, tile, base, 1, &lo);
    if (off) {
        g_autofree uint8_t *buf = g_malloc(n);

        for (uint32_t i = 0; i < n; i++) {
            buf[off[i]] = sb[i];
        }
        if (agx_gpu_mem_write(&w->mem, lo, buf, n)) {
            return;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t px = i / tile->samples, sm = i % tile->samples;
        uint32_t gx = tile->origin_x + px % tile->width;
        uint32_t gy = tile->origin_y + px / tile->width;

        if (gx < f->width && gy < f->height) {
            agx_gpu_mem_write(&w->mem, frag_z_addr(f, base, gx, gy, sm, 1),
                              &sb[i], 1);
        }
    }
}

/* A stencil operation (cmdbuf.xml "Stencil Op") on value @s */
static uint8_t frag_s_op(unsigned op, uint8_t s, uint8_t ref)
{
    switch (op & 7) {
    case 1:
        return 0;
    case 2:
        return ref;
    case 3:
        return s == 0xff ? s : s + 1;
    case 4:
        return s ? s - 1 : 0;
    case 5:
        return ~s;
    case 6:
        return s + 1;
    case 7:
        return s - 1;
    default:
        return s;
    }
}

static bool frag_z_test(unsigned func, float z, float ref)
{
    switch (func & 7) {
    case 0:
        return false;
    case 1:
        return z < ref;
    case 2:
        return z == ref;
    case 3:
        return z <= ref;
    case 4:
        return z > ref;
    case 5:
        return z != ref;
    case 6:
        return z >= ref;
    default:
        return true;
    }
}

/* A primitive's z plane: z0 + a (x - x0) + b (y - y0), or flat z0 */
typedef struct FragZPlane {
    bool flat;
    float z0, x0, y0;
    double a, b;
} FragZPlane;

static void frag_zplane(const AgxScenePrim *p, FragZPlane *zp)
{
    const AgxSceneVertex *v = p->v;
    double x1 = v[1].x - v[0].x, y1 = v[1].y - v[0].y;
    double x2 = v[2].x - v[0].x, y2 = v[2].y - v[0].y;
    double det = x1 * y2 - x2 * y1;

    zp->z0 = v[0].z;
    zp->x0 = v[0].x;
    zp->y0 = v[0].y;
    zp->flat = p->kind != AGX_SCENE_TRIANGLE || det == 0;
    if (!zp->flat) {
        zp->a = ((v[1].z - v[0].z) * y2 - (v[2].z - v[0].z) * y1) / det;
        zp->b = (x1 * (v[2].z - v[0].z) - x2 * (v[1].z - v[0].z)) / det;
    }
}

static float frag_zplane_at(const FragZPlane *zp, double cx, double cy)
{
    if (zp->flat) {
        return zp->z0;
    }
    return zp->z0 + zp->a * (cx - zp->x0) + zp->b * (cy - zp->y0);
}

/* The primitive's depth at pixel centre (@cx, @cy): its z plane */
static float frag_prim_z(const AgxScenePrim *p, double cx, double cy)
{
    FragZPlane zp;

    frag_zplane(p, &zp);
    return frag_zplane_at(&zp, cx, cy);
}

/* Pass types (cmdbuf.xml "Pass type"): bit 1, punch through */
#define FRAG_PASS_PUNCH_THROUGH 2

/* The fragment control word saying pass type and tag writes: the second */
static uint32_t frag_control_2(const AgxPppState *st)
{
    return st->present & AGX_PPP_FRAG_CONTROL_2 ? st->frag_control_2
                                                : st->frag_control;
}

/*
 * Depth bias (polygon offset): when the fragment control word enables it,
 * record Depth bias/scissor's index of the isp_dbias_base array (Mesa's
 * "Depth bias" records: 12 bytes, constant, slope scale and clamp as
 * floats) gives o = constant x r + slope scale x m, clamped to the clamp
 * when it is not 0 (a positive clamp bounds o above, a negative one
 * below), m the largest of the primitive's |dz/dx| and |dz/dy| (the
 * approximation GL and Vulkan allow, llvmpipe's).  r: with isp_ctl bit
 * 18 (the UAPI's DBIAS_IS_INT, Honeykrisp's choice for 16-bit unorm and
 * forced-unorm representations, which it pays by dividing the constant
 * by 2^16 or 2^24 itself) 1, the constant being a depth; else the float
 * formula's 2^(e - 23), e the exponent of the largest |z| of the
 * primitive (Gallium gives twice GL's units for it).  Unreadable records
 * bias nothing (soft faults).
 */
APPLE_FIELD(FRAG_ISP_CTL, DBIAS_IS_INT, 18, 1);
#define FRAG_DBIAS_SIZE         12

static double frag_dbias(FragWalk *w, const AgxScenePrim *p,
                         const AgxPppState *st)
{
    const AgxSceneVertex *v = p->v;
    AgxFrag *f = w->f;
    double r, m = 0, o, zmax = 0, x1, y1, x2, y2, det;
    float constant, slope, clamp;
    uint8_t rec[FRAG_DBIAS_SIZE];
    uint32_t idx;
    int e;

    if (!APPLE_FIELD_EX64(st->frag_control, PPP_FRAG_CONTROL, DBIAS_ENABLE) ||
        !f->dbias_base) {
        return 0;
    }
    idx = APPLE_FIELD_EX64(st->dbias_scissor, PPP_DBIAS_SCISSOR, DBIAS);
    if (!agx_gpu_mem_read(&w->mem, f->dbias_base +
                          (uint64_t)idx * FRAG_DBIAS_SIZE, rec, sizeof(rec))) {
        return 0;
    }
    constant = apple_bits_f32(apple_ld32(rec));
    slope = apple_bits_f32(apple_ld32(rec + 4));
    clamp = apple_bits_f32(apple_ld32(rec + 8));
    x1 = v[1].x - v[0].x;
    y1 = v[1].y - v[0].y;
    x2 = v[2].x - v[0].x;
    y2 = v[2].y - v[0].y;
    det = x1 * y2 - x2 * y1;
    if (p->kind == AGX_SCENE_TRIANGLE && det != 0) {
        double dzdx = ((v[1].z - v[0].z) * y2 - (v[2].z - v[0].z) * y1) / det;
        double dzdy = (x1 * (v[2].z - v[0].z) - x2 * (v[1].z - v[0].z)) / det;

        m = MAX(fabs(dzdx), fabs(dzdy));
    }
    for (unsigned i = 0; i < MIN(p->kind, 3); i++) {
        zmax = MAX(zmax, fabs(v[i].z));
    }
    if (APPLE_FIELD_EX64(f->isp_ctl, FRAG_ISP_CTL, DBIAS_IS_INT)) {
        r = 1;
    } else {
        /* frexp: zmax = f x 2^e, f in [0.5, 1): the exponent is e - 1 */
        frexp(zmax ? zmax : FLT_MIN, &e);
        r = ldexp(1, e - 1 - 23);
    }
    o = constant * r + slope * m;
    if (isnan(o)) {
        return 0;
    }
    if (clamp > 0) {
        o = MIN(o, clamp);
    } else if (clamp < 0) {
        o = MAX(o, clamp);
    }
    return o;
}

static void frag_zs_setup(FragWalk *w, const AgxScenePrim *p,
                          const AgxPppState *st, FragZs *zs)
{
    uint32_t face = p->front ? st->front_face : st->back_face;
    uint32_t face2 = p->front ? st->front_face_2 : st->back_face_2;
    bool has_face = st->present & (p->front ? AGX_PPP_FRONT_FACE
                                            : AGX_PPP_BACK_FACE);
    bool has_face2 = st->present & (p->front ? AGX_PPP_FRONT_FACE_2
                                             : AGX_PPP_BACK_FACE_2);
    /* one-sided stencil: back faces test with the front words */
    bool back = !p->front && APPLE_FIELD_EX64(st->frag_control,
                                              PPP_FRAG_CONTROL,
                                              TWO_SIDED_STENCIL);

    memset(zs, 0, sizeof(*zs));
    /*
     * The two face words' depth functions must both pass and depth is
     * written unless both disable it (cmdbuf.xml; Mesa's second word says
     * Always and disabled, "ANDed in the hardware"); a word the state
     * lacks constrains nothing, and without the first there is no depth
     * test (a choice)
     */
    zs->func = has_face ? APPLE_FIELD_EX64(face, PPP_FACE, DEPTH_FUNC) : 7;
    zs->func2 = has_face2 ? APPLE_FIELD_EX64(face2, PPP_FACE2, DEPTH_FUNC)
                          : 7;
    zs->zwrite = has_face &&
                 (!APPLE_FIELD_EX64(face, PPP_FACE, DISABLE_DEPTH_WRITE) ||
                  (has_face2 &&
                   !APPLE_FIELD_EX64(face2, PPP_FACE2, DISABLE_DEPTH_WRITE)));
    zs->stencil = APPLE_FIELD_EX64(st->frag_control, PPP_FRAG_CONTROL,
                                   STENCIL_ENABLE) &&
                  (st->present & (back ? AGX_PPP_BACK_STENCIL
                                       : AGX_PPP_FRONT_STENCIL));
    zs->sw = back ? st->back_stencil : st->front_stencil;
    zs->ref = APPLE_FIELD_EX64(back || p->front ? face : st->front_face,
                               PPP_FACE, STENCIL_REF);
    zs->late = APPLE_FIELD_EX64(frag_control_2(st), PPP_FRAG_CONTROL,
                                PASS_TYPE) & FRAG_PASS_PUNCH_THROUGH;
    zs->unorm16 = APPLE_FIELD_EX64(w->f->zls_ctrl, FRAG_ZLS, Z_FORMAT) ==
                  FRAG_ZLS_FORMAT_16;
    zs->bias = frag_dbias(w, p, st);
}

/*
 * A fragment's depth as the test sees it: clamped to the scissor's depth
 * range (Mesa puts the viewport's there: GL clamps to the depth range,
 * Vulkan with depth clamp), then as the depth buffer's format holds it
 * (16-bit unorm: rounded to 1/65535, as the APIs convert before testing)
 */
static float frag_zs_depth(const FragZs *zs, float z)
{
    if (zs->clamp && !isnan(z)) {
        z = z < zs->zmin ? zs->zmin : z > zs->zmax ? zs->zmax : z;
    }
    if (zs->unorm16) {
        z = isnan(z) ? 0 : z < 0 ? 0 : z > 1 ? 1 : z;
        return lrintf(z * 65535.0f) / 65535.0f;
    }
    return z;
}

/*
 * The depth and stencil tests of a fragment of depth @z (as
 * frag_zs_depth gives it) and stencil reference @ref against the tile's
 * values at @zp, @sp, and their updates: the stencil word's compare
 * ("ref op stencil" under the read mask, as GL reads it), its fail,
 * depth-fail and pass operations under the write mask, the depth
 * function and write.  Whether the fragment passes both.
 */
static bool frag_zs_test(const FragZs *zs, float z, uint8_t ref,
                         uint32_t *zp, uint8_t *sp)
{
    bool zpass = frag_z_test(zs->func, z, apple_bits_f32(*zp)) &&
                 frag_z_test(zs->func2, z, apple_bits_f32(*zp));

    if (zs->stencil) {
        uint8_t rmask = APPLE_FIELD_EX64(zs->sw, PPP_STENCIL, READ_MASK);
        uint8_t wmask = APPLE_FIELD_EX64(zs->sw, PPP_STENCIL, WRITE_MASK);
        bool spass = frag_z_test(APPLE_FIELD_EX64(zs->sw, PPP_STENCIL,
                                                  COMPARE),
                                 ref & rmask, *sp & rmask);
        unsigned op = !spass ? APPLE_FIELD_EX64(zs->sw, PPP_STENCIL,
                                                STENCIL_FAIL)
                      : !zpass ? APPLE_FIELD_EX64(zs->sw, PPP_STENCIL,
                                                  DEPTH_FAIL)
                      : APPLE_FIELD_EX64(zs->sw, PPP_STENCIL, DEPTH_PASS);

        *sp = (*sp & ~wmask) | (frag_s_op(op, *sp, ref) & wmask);
        zpass &= spass;
    }
    if (zpass && zs->zwrite) {
        *zp = apple_f32_bits(z);
    }
    return zpass;
}

/*
 * Occlusion queries: a primitive drawn with a visibility mode (PPP
 * fragment control: 2 counting, 3 boolean) adds the samples that passed
 * the depth and stencil tests (GL's SAMPLES_PASSED and Vulkan's precise
 * occlusion queries count samples; Mesa scales nothing) to the 64-bit
 * result at isp_oclqry_base + 8 x its query index (counting), or makes
 * it nonzero (boolean): the tests before the shader, or the ones the
 * shader triggered.
 */
static void frag_occlusion(FragWalk *w, const AgxPppState *st, uint64_t n)
{
    AgxFrag *f = w->f;
    unsigned mode = APPLE_FIELD_EX64(st->frag_control, PPP_FRAG_CONTROL,
                                     VISIBILITY_MODE);
    uint64_t va, v;
    uint8_t b[8];

    if (mode < 2 || !n || !f->oclqry_base ||
        !(st->present & AGX_PPP_OCCLUSION_QUERY)) {
        return;
    }
    va = f->oclqry_base + 8ull * APPLE_FIELD_EX64(st->occlusion_query,
                                                  PPP_OCCLUSION_QUERY, INDEX);
    if (!agx_gpu_mem_read(&w->mem, va, b, 8)) {
        return;         /* soft faults: an unmapped result is dropped */
    }
    v = mode == 3 ? 1 : apple_ld64(b) + n;
    apple_st64(b, v);
    agx_gpu_mem_write(&w->mem, va, b, 8);
}

/*
 * The scissor of @p (the state's index plus its viewport: Mesa allocates
 * one per viewport) clips its pixels to [*x0, *x1) x [*y0, *y1) and sets
 * the depth range of @zs.  False if it is unreadable (nothing passes).
 */
static bool frag_scissor(FragWalk *w, const AgxScenePrim *p,
                         const AgxPppState *st, FragZs *zs, uint32_t *x0,
                         uint32_t *y0, uint32_t *x1, uint32_t *y1)
{
    AgxFrag *f = w->f;
    uint32_t idx;
    uint8_t sc[FRAG_SCISSOR_SIZE];

    if (!APPLE_FIELD_EX64(st->frag_control, PPP_FRAG_CONTROL,
                          SCISSOR_ENABLE) || !f->scissor_base) {
        return true;
    }
    idx = APPLE_FIELD_EX64(st->dbias_scissor, PPP_DBIAS_SCISSOR, SCISSOR) +
          p->viewport;
    if (!agx_gpu_mem_read(&w->mem, f->scissor_base +
                          (uint64_t)idx * FRAG_SCISSOR_SIZE, sc, sizeof(sc))) {
        return false;
    }
    *x0 = MAX(*x0, apple_ld16(sc + 2));
    *x1 = MIN(*x1, apple_ld16(sc));
    *y0 = MAX(*y0, apple_ld16(sc + 6));
    *y1 = MIN(*y1, apple_ld16(sc + 4));
    zs->zmin = apple_bits_f32(apple_ld32(sc + 8));
    zs->zmax = apple_bits_f32(apple_ld32(sc + 12));
    zs->clamp = zs->zmin <= zs->zmax;
    return true;
}

/* What frag_coverage() and the early tests need of a primitive, once */
typedef struct FragRaster {
    const AgxScenePrim *p;
    bool whole;                 /* every sample takes the centre's coverage */
    FragEdges edges;            /* triangles */
    FragZPlane zp;
    double sx[8], sy[8];        /* the tile's sample positions */
} FragRaster;

static void frag_raster(const AgxUscTile *tile, const AgxScenePrim *p,
                        const AgxPppState *st, FragRaster *ra)
{
    ra->p = p;
    ra->whole = APPLE_FIELD_EX64(st->cull, PPP_CULL, PRIMITIVE_MSAA);
    if (p->kind == AGX_SCENE_TRIANGLE) {
        frag_edges(p, &ra->edges);
    }
    frag_zplane(p, &ra->zp);
    for (uint32_t sm = 0; sm < MIN(tile->samples, 8); sm++) {
        agx_usc_sample_position(tile->sample_positions, tile->samples, sm,
                                &ra->sx[sm], &ra->sy[sm]);
    }
}

/*
 * The samples of window pixel (@x, @y) primitive ra->p covers (bit s: sample
 * s): each sample's position in the pixel (the render's sample positions,
 * agx_usc_sample_position) inside the triangle, or the point's or line's
 * rectangle.  With the Cull word's Primitive MSAA bit (Honeykrisp sets it
 * for Bresenham lines, whose samples the APIs cover all or none) every
 * sample takes the pixel centre's coverage (the model's reading of the
 * bit).
 */
static uint32_t frag_coverage(const AgxUscTile *tile, const FragRaster *ra,
                              uint32_t x, uint32_t y)
{
    const AgxScenePrim *p = ra->p;
    uint32_t cov = 0;

    for (uint32_t sm = 0; sm < tile->samples; sm++) {
        double sx = 0.5, sy = 0.5;

        if (!ra->whole) {
            if (sm < 8) {
                sx = ra->sx[sm];
                sy = ra->sy[sm];
            } else {
                agx_usc_sample_position(tile->sample_positions,
                                        tile->samples, sm, &sx, &sy);
            }
        }
        if (p->kind == AGX_SCENE_TRIANGLE ?
            frag_edges_inside(&ra->edges, x + sx, y + sy) :
            frag_inside_small(p, x + sx, y + sy)) {
            cov |= 1u << sm;
        }
    }
    return cov;
}

/*
 * The pixels of @p this tile covers, clipped by the scissor; their count,
 * each with the samples it covers (@pc).  With early tests (@zs not
 * late) each covered sample runs the depth and stencil tests at its
 * position against its own depth and stencil (@zbuf, @sbuf: a value per
 * sample, pixel-major), which they update: a pixel is shaded when any
 * sample passes, with those as its coverage; *@passed counts them.
 */
static unsigned frag_cover(FragWalk *w, const AgxUscTile *tile,
                           const AgxScenePrim *p, const AgxPppState *st,
                           FragZs *zs, uint32_t *zbuf, uint8_t *sbuf,
                           uint16_t *px, uint16_t *py, uint8_t *pc,
                           uint64_t *passed)
{
    AgxFrag *f = w->f;
    uint32_t x0 = MAX(p->x0, tile->origin_x), y0 = MAX(p->y0, tile->origin_y);
    uint32_t x1 = MIN(MIN(p->x1, tile->origin_x + tile->width), f->width);
    uint32_t y1 = MIN(MIN(p->y1, tile->origin_y + tile->height), f->height);
    unsigned n = 0;
    FragRaster ra;

    *passed = 0;
    if (!frag_scissor(w, p, st, zs, &x0, &y0, &x1, &y1)) {
        return 0;       /* an unreadable scissor: nothing passes */
    }
    frag_raster(tile, p, st, &ra);
    for (uint32_t y = y0; y < y1; y++) {
        for (uint32_t x = x0; x < x1; x++) {
            uint32_t cov = frag_coverage(tile, &ra, x, y), pass = cov;
            unsigned i = (y - tile->origin_y) * tile->width +
                         (x - tile->origin_x);

            for (uint32_t sm = 0; cov && !zs->late && sm < tile->samples;
                 sm++) {
                unsigned k = i * tile->samples + sm;
                double sx, sy;

                if (!((cov >> sm) & 1)) {
                    continue;
                }
                if (sm < 8) {
                    sx = ra.sx[sm];
                    sy = ra.sy[sm];
                } else {
                    agx_usc_sample_position(tile->sample_positions,
                                            tile->samples, sm, &sx, &sy);
                }
                if (!frag_zs_test(zs, frag_zs_depth(zs,
                                                    frag_zplane_at(&ra.zp,
                                                                   x + sx,
                                                                   y + sy) +
                                                    zs->bias),
                                  zs->ref, &zbuf[k], &sbuf[k])) {
                    pass &= ~(1u << sm);
                }
            }
            if (!pass) {
                continue;
            }
            px[n] = x - tile->origin_x;
            py[n] = y - tile->origin_y;
            pc[n] = pass;
            *passed += __builtin_popcount(pass);
            n++;
        }
    }
    return n;
}

/*
 * Late tests: the shader's sample_mask or zs_emit triggers the tests of
 * samples @samples of its lane's pixel, each at its position, with the
 * shader's depth or stencil reference or the primitive's (a shader that
 * writes depth is not biased); the samples that fail are killed.  Mesa
 * triggers them once per sample; a sample the shader neither tests nor
 * kills leaves depth and stencil as they were.
 */
static uint32_t frag_zs_hook(void *opaque, uint32_t lane, uint32_t samples,
                             unsigned which, float z, uint32_t sref)
{
    FragShade *sh = opaque;
    const AgxUscGroup *g = sh->g;
    const AgxUscTile *t = sh->tile;
    AgxFragTile *ft = sh->t;
    unsigned i = g->py[lane] * t->width + g->px[lane];
    uint32_t pass = 0;

    if (!sh->zs.late) {
        return samples;         /* tested before the shader ran */
    }
    for (uint32_t sm = 0; sm < t->samples; sm++) {
        unsigned k = i * t->samples + sm;
        double sx, sy;
        float zs = z;

        if (!((samples >> sm) & 1)) {
            continue;
        }
        if (!(which & 1)) {
            agx_usc_sample_position(t->sample_positions, t->samples, sm,
                                    &sx, &sy);
            zs = frag_prim_z(sh->p, sh->ox + g->px[lane] + sx,
                             sh->oy + g->py[lane] + sy) + sh->zs.bias;
        }
        if (frag_zs_test(&sh->zs, frag_zs_depth(&sh->zs, zs),
                         which & 2 ? sref : sh->zs.ref, &ft->z[k],
                         &ft->s[k])) {
            pass |= 1u << sm;
        }
    }
    ft->passed += __builtin_popcount(pass);
    return pass;
}

static const AgxUscStageOps frag_stage_ops = {
    .cf = frag_cf,
    .zs = frag_zs_hook,
};

/* A lane of AgxFragTile.quads */
#define FRAG_QUAD(x, y, samples, helper) \
    ((x) | (y) << 8 | (samples) << 16 | (uint32_t)(helper) << 24)
#define FRAG_QUAD_X(q)          ((q) & 0xff)
#define FRAG_QUAD_Y(q)          (((q) >> 8) & 0xff)
#define FRAG_QUAD_SAMPLES(q)    (((q) >> 16) & 0xff)
#define FRAG_QUAD_HELPER(q)     (((q) >> 24) & 1)

/*
 * The lanes that shade @n covered pixels (@quads, FRAG_QUAD): whole 2x2
 * quads, lanes 4k to 4k + 3 the quad's pixels rows first (the layout
 * quad derivatives and implicit LODs assume: agx-usc-sample.c), the
 * quad's uncovered pixels as helper lanes; their count.  @pc: each
 * pixel's samples, which its lane takes (0 for helpers).
 */
static unsigned frag_quads(const AgxUscTile *tile, const uint16_t *px,
                           const uint16_t *py, const uint8_t *pc, unsigned n,
                           uint8_t *cov, uint32_t *quads)
{
    uint32_t w = tile->width;
    unsigned k = 0;

    memset(cov, 0, (size_t)w * tile->height);
    for (unsigned i = 0; i < n; i++) {
        /* bit 0: covered, bit 1: its quad is listed, bits 7:4 samples */
        cov[py[i] * w + px[i]] |= 1 | pc[i] << 4;
    }
    for (unsigned i = 0; i < n; i++) {
        uint32_t x0 = px[i] & ~1u, y0 = py[i] & ~1u;

        if (cov[y0 * w + x0] & 2) {
            continue;
        }
        cov[y0 * w + x0] |= 2;
        for (unsigned j = 0; j < 4; j++, k++) {
            uint32_t x = x0 + (j & 1), y = y0 + (j >> 1);
            uint8_t c = cov[y * w + x];

            quads[k] = FRAG_QUAD(x, y, c >> 4, !(c & 1));
        }
    }
    return k;
}

/*
 * What the primitives of a state record need: its fragment shader bound
 * and run, or only the depth and stencil tests: without a fragment shader
 * or with tag writes disabled (Mesa disables them for a shader that
 * writes nothing, neither tilebuffer, memory, sample mask nor depth;
 * Honeykrisp for draws without a fragment shader; Gallium for rasterizer
 * discard, whose primitives the vertex pipe has dropped already)
 */
typedef enum FragPrimMode {
    FRAG_PRIM_SKIP,             /* nothing (the shader could not run) */
    FRAG_PRIM_ZS_ONLY,
    FRAG_PRIM_BIND,             /* bind the shader, then shade */
    FRAG_PRIM_SHADE,
} FragPrimMode;

static FragPrimMode frag_prim_mode(const AgxPppState *st)
{
    if (!(st->present & AGX_PPP_FRAGMENT_SHADER) ||
        APPLE_FIELD_EX64(st->frag_control | frag_control_2(st),
                         PPP_FRAG_CONTROL, TAG_WRITE_DISABLE)) {
        return FRAG_PRIM_ZS_ONLY;
    }
    return FRAG_PRIM_BIND;
}

/*
 * Load the fragment shader of state record t->st (its pipeline, CF
 * bindings): t->prog then says whether its preamble is to run; t->mode
 * FRAG_PRIM_SKIP if it cannot
 */
static AgxFragResult frag_load_shader(FragWalk *w)
{
    AgxFrag *f = w->f;
    AgxFragTile *t = &f->tile;
    const AgxPppState *st = &t->st;
    AgxUscLaunch *l = &t->launch;
    AgxPipelineError err;
    uint8_t buf[4 * FRAG_MAX_CF_BINDINGS];
    unsigned nb;

    t->mode = FRAG_PRIM_SKIP;
    l->usc_base = f->usc_base;
    l->sampler_heap_va = f->sampler_heap;
    l->soft_faults = f->soft_faults;
    switch (agx_pipeline_load(l, agx_ppp_fs_pipeline(st), st->fs_word[0],
                              &agx_gpu_mem_usc_ops, &w->mem, &err)) {
    case AGX_PIPELINE_FAULT:
        *w->fault = w->mem.fault;
        return AGX_FRAG_FAULT;
    case AGX_PIPELINE_BAD:
        return frag_bad(w, err.at, "fragment pipeline: %s", err.why);
    default:
        break;
    }
    nb = MIN(APPLE_FIELD_EX64(st->fs_word[0], PPP_FS_WORD0, CF_BINDING_COUNT),
             FRAG_MAX_CF_BINDINGS);
    if (nb && !frag_read(w, f->usc_base + agx_ppp_cf_bindings(st) + 4, buf,
                         4 * nb)) {
        return AGX_FRAG_FAULT;
    }
    for (unsigned b = 0; b < nb; b++) {
        t->cfb[b] = apple_ld32(buf + 4 * b);
    }
    t->ncfb = nb;
    t->reads_z = APPLE_FIELD_EX64(st->output_select, PPP_OUTPUT_SELECT,
                                  FRAG_COORD_Z);
    t->mode = FRAG_PRIM_BIND;
    t->prog = l->has_preamble ? AGX_FRAG_PROG_PREAMBLE : AGX_FRAG_PROG_READY;
    return AGX_FRAG_DONE;
}

/*
 * Bind the fragment shader of state record t->st: loaded, then its
 * preamble run (a slice may suspend it: t->mode stays FRAG_PRIM_BIND);
 * t->mode FRAG_PRIM_SHADE if it can run
 */
static AgxFragResult frag_bind_shader(FragWalk *w, uint64_t slice)
{
    AgxFragTile *t = &w->f->tile;
    AgxFragResult r;

    if (t->prog == AGX_FRAG_PROG_NONE) {
        r = frag_load_shader(w);
        if (r != AGX_FRAG_DONE) {
            return r;
        }
    }
    if (t->prog == AGX_FRAG_PROG_PREAMBLE) {
        r = frag_preamble(w, "fragment", slice);
        if (r == AGX_FRAG_MORE) {
            return r;
        }
        if (r != AGX_FRAG_DONE) {
            /* an unimplemented instruction skips the state's primitives */
            t->prog = AGX_FRAG_PROG_NONE;
            t->mode = FRAG_PRIM_SKIP;
            return r == AGX_FRAG_SKIP ? AGX_FRAG_DONE : r;
        }
    }
    t->prog = AGX_FRAG_PROG_NONE;
    t->mode = FRAG_PRIM_SHADE;
    return AGX_FRAG_DONE;
}

/*
 * Primitive @p, read from the scene (@rd): its state bound, its pixels
 * rasterized with the tests before the shader; t->in_prim if its
 * fragment shader is to run for its lanes (t->quads)
 */
static AgxFragResult frag_prim_begin(FragWalk *w, const AgxSceneReader *rd,
                                     const AgxSceneMem *sm, AgxUscTile *tile,
                                     const AgxScenePrim *p, uint64_t slice)
{
    AgxFrag *f = w->f;
    AgxFragTile *t = &f->tile;
    uint32_t npx = tile->width * tile->height;
    g_autofree uint16_t *px = g_new(uint16_t, npx);
    g_autofree uint16_t *py = g_new(uint16_t, npx);
    g_autofree uint8_t *cov = g_new(uint8_t, npx);
    g_autofree uint8_t *pc = g_new(uint8_t, npx);
    const char *why = NULL;
    AgxFragResult r;
    uint64_t passed;
    FragZs zs;
    unsigned n;

    if (p->state != t->state) {
        t->state = p->state;
        t->mode = FRAG_PRIM_SKIP;
        if (!agx_scene_get_state(rd, sm, p->state, &t->st, &why)) {
            return frag_bad(w, f->tilemap, "scene state: %s",
                            why ? why : "unreadable");
        }
        t->mode = frag_prim_mode(&t->st);
    }
    if (t->mode == FRAG_PRIM_BIND) {
        r = frag_bind_shader(w, slice);
        if (r != AGX_FRAG_DONE) {
            return r;
        }
    }
    if (t->mode == FRAG_PRIM_SKIP) {
        return AGX_FRAG_DONE;
    }
    frag_zs_setup(w, p, &t->st, &zs);
    if (t->mode == FRAG_PRIM_ZS_ONLY) {
        zs.late = false;
    }
    n = frag_cover(w, tile, p, &t->st, &zs, t->z, t->s, px, py, pc,
                   &passed);
    f->fragments += n;
    if (!zs.late) {
        frag_occlusion(w, &t->st, passed);
    }
    frag_zs_pack(&zs, &t->zs);
    if (t->mode == FRAG_PRIM_ZS_ONLY) {
        return AGX_FRAG_DONE;
    }
    t->passed = 0;
    t->nquads = frag_quads(tile, px, py, pc, n, cov, t->quads);
    t->next = 0;
    t->in_prim = true;
    return AGX_FRAG_DONE;
}

/* Shade primitive @p's lanes, from t->next, 32 at a time */
static AgxFragResult frag_prim_shade(FragWalk *w, AgxUscTile *tile,
                                     const AgxScenePrim *p, uint64_t slice)
{
    AgxFragTile *t = &w->f->tile;
    g_autofree AgxUscGroup *g = g_new0(AgxUscGroup, 1);
    FragShade sh = {
        .p = p, .ox = tile->origin_x, .oy = tile->origin_y, .g = g,
        .tile = tile, .t = t,
    };
    AgxFragResult r;

    g->tile = tile;
    g->layer = w->layer;
    g->stage = &frag_stage_ops;
    g->stage_opaque = &sh;
    g->back_facing = !p->front;
    frag_zs_unpack(&t->zs, &sh.zs);
    while (t->next < t->nquads) {
        unsigned k = MIN(t->nquads - t->next, AGX_USC_LANES);

        if (!t->group.nsimd && w->used >= slice) {
            return AGX_FRAG_MORE;
        }
        g->launched = k >= 32 ? ~0u : (1u << k) - 1;
        g->helper = 0;
        for (unsigned i = 0; i < k; i++) {
            uint32_t q = t->quads[t->next + i];

            g->px[i] = FRAG_QUAD_X(q);
            g->py[i] = FRAG_QUAD_Y(q);
            g->helper |= FRAG_QUAD_HELPER(q) << i;
            g->coverage[i] = FRAG_QUAD_SAMPLES(q);
        }
        r = frag_group(w, g, slice, "fragment");
        if (r == AGX_FRAG_SKIP) {
            /* the rest of this primitive is skipped */
            break;
        }
        if (r != AGX_FRAG_DONE) {
            return r;
        }
        t->next += k;
    }
    if (sh.zs.late) {
        frag_occlusion(w, &t->st, t->passed);
    }
    return AGX_FRAG_DONE;
}

/*
 * Rasterize and shade the primitives the scene has for @tile, from where
 * the tile in flight is: the primitive at t->cur being shaded
 * (t->in_prim), else the next one there
 */
static AgxFragResult frag_prims(FragWalk *w, AgxUscTile *tile, uint64_t slice)
{
    AgxFrag *f = w->f;
    AgxFragTile *t = &f->tile;
    AgxSceneMem sm = {
        .read = agx_gpu_mem_read, .write = agx_gpu_mem_write,
        .opaque = &w->kmem,
    };
    AgxSceneReader rd;
    g_autofree AgxScenePrim *p = g_new(AgxScenePrim, 1);
    const char *why;
    int got;

    if (!f->tilemap || !agx_scene_open(&rd, &sm, f->tilemap, &why)) {
        /* no scene: the vertex half drew nothing (or did not run) */
        return AGX_FRAG_DONE;
    }
    for (;;) {
        AgxSceneCursor at = t->cur;
        AgxFragResult r;

        if (!t->in_prim && w->used >= slice) {
            return AGX_FRAG_MORE;
        }
        got = agx_scene_next(&rd, &sm, &at, p, &why);
        if (got != 1) {
            break;
        }
        r = AGX_FRAG_DONE;
        if (!t->in_prim) {
            r = frag_prim_begin(w, &rd, &sm, tile, p, slice);
        }
        if (r == AGX_FRAG_DONE && t->in_prim) {
            r = frag_prim_shade(w, tile, p, slice);
        }
        if (r != AGX_FRAG_DONE) {
            return r;
        }
        t->in_prim = false;
        t->cur = at;
        /* a primitive costs something, even if it runs no shader */
        w->used += AGX_FRAG_PRIM_COST;
    }
    if (got < 0 || t->in_prim) {
        if (!why && got < 0) {
            *w->fault = w->kmem.fault;
            return AGX_FRAG_FAULT;
        }
        return frag_bad(w, f->tilemap, "scene: %s",
                        why ? why : "its primitive is gone");
    }
    return AGX_FRAG_DONE;
}

void agx_frag_tile_free(AgxFrag *f)
{
    AgxFragTile *t = &f->tile;

    g_free(t->mem);
    g_free(t->z);
    g_free(t->s);
    g_free(t->quads);
    agx_usc_tg_free(&t->group);
    memset(t, 0, sizeof(*t));
}

/*
 * Tile f->next_tile comes in flight: its tilebuffer, its depth and
 * stencil as loaded or cleared
 */
static void frag_tile_begin(FragWalk *w, const AgxUscTile *tile)
{
    AgxFrag *f = w->f;
    AgxFragTile *t = &f->tile;
    uint32_t npx = tile->width * tile->height;

    agx_frag_tile_free(f);
    t->nmem = npx * tile->samples * tile->sample_bytes;
    t->mem = g_malloc0(t->nmem);
    t->nz = t->ns = npx * tile->samples;
    t->z = g_new(uint32_t, t->nz);
    t->s = g_new(uint8_t, t->ns);
    t->nquad_room = 4 * npx;
    t->quads = g_new0(uint32_t, t->nquad_room);
    t->state = UINT32_MAX;
    t->mode = FRAG_PRIM_SKIP;
    agx_scene_cursor_rect(&t->cur, tile->origin_x, tile->origin_y,
                          tile->origin_x + tile->width,
                          tile->origin_y + tile->height, w->layer);
    frag_z_begin(w, tile, t->z);
    frag_s_begin(w, tile, t->s);
    t->phase = AGX_FRAG_PHASE_BACKGROUND;
}

/*
 * Render tile f->next_tile (layer after layer, each in raster order) for
 * the rest of the slice: the background program, the primitives, the
 * end-of-tile program, the depth and stencil stores; AGX_FRAG_MORE when
 * the slice ends in the middle, the tile staying in flight
 */
static AgxFragResult frag_tile(FragWalk *w, uint64_t slice)
{
    AgxFrag *f = w->f;
    AgxFragTile *t = &f->tile;
    uint32_t n = f->next_tile % (f->tiles_x * f->tiles_y);
    uint32_t tx = n % f->tiles_x, ty = n / f->tiles_x;
    AgxUscTile tile = {
        .width = f->tile_width, .height = f->tile_height,
        .samples = f->tile_samples, .sample_bytes = f->tile_sample_bytes,
        .origin_x = tx * f->tile_width, .origin_y = ty * f->tile_height,
        .sample_positions = f->sample_positions,
    };
    AgxFragResult r = AGX_FRAG_DONE;

    w->layer = f->next_tile / (f->tiles_x * f->tiles_y);
    if (t->phase == AGX_FRAG_PHASE_NONE) {
        frag_tile_begin(w, &tile);
    }
    tile.mem = t->mem;
    if (t->phase == AGX_FRAG_PHASE_BACKGROUND) {
        r = frag_program(w, &tile, f->bg_pc, f->bg_spec, true, "background",
                         slice);
        if (r == AGX_FRAG_DONE) {
            t->phase = AGX_FRAG_PHASE_PRIMITIVES;
        }
    }
    if (r == AGX_FRAG_DONE && t->phase == AGX_FRAG_PHASE_PRIMITIVES) {
        r = frag_prims(w, &tile, slice);
        if (r == AGX_FRAG_DONE) {
            t->phase = AGX_FRAG_PHASE_END_OF_TILE;
        }
    }
    if (r == AGX_FRAG_DONE) {
        r = frag_program(w, &tile, f->eot_pc, f->eot_spec, false,
                         "end-of-tile", slice);
    }
    if (r == AGX_FRAG_MORE) {
        return r;
    }
    if (r == AGX_FRAG_DONE) {
        frag_z_end(w, &tile, t->z);
        frag_s_end(w, &tile, t->s);
    }
    /* a tile costs something, even if its programs ran nothing */
    w->used++;
    agx_frag_tile_free(f);
    return r;
}

static AgxFragResult frag_walk(FragWalk *w, uint64_t slice)
{
    AgxFrag *f = w->f;

    while (f->next_tile < f->tiles_x * f->tiles_y * f->layers) {
        AgxFragResult r;

        if (f->tile.phase == AGX_FRAG_PHASE_NONE && w->used >= slice) {
            return AGX_FRAG_MORE;
        }
        r = frag_tile(w, slice);
        if (r == AGX_FRAG_MORE) {
            /* the tile stays in flight, its SIMD-group suspended if any */
            f->suspensions++;
            AGX_TRACE(&w->fw->trace, frag_suspend, frag_cmd(w),
                      f->next_tile, f->tile.phase, f->tile.group.used);
        }
        if (r != AGX_FRAG_DONE) {
            return r;
        }
        f->next_tile++;
        f->tiles++;
        w->tiles++;
    }
    f->active = false;
    return AGX_FRAG_DONE;
}

/*
 * The tilebuffer layout: the background program's Shared word, else the
 * end-of-tile program's; without one (attachmentless rendering) 32x32
 * pixels of the job's samples and sample size
 */
static AgxFragResult frag_layout(FragWalk *w, uint32_t samples,
                                 uint32_t sample_size)
{
    AgxFrag *f = w->f;
    AgxUscLaunch *l = g_new0(AgxUscLaunch, 1);
    AgxFragResult r;

    r = frag_bind(w, f->bg_pc, f->bg_spec, l);
    if (r == AGX_FRAG_DONE && !l->tile_width) {
        r = frag_bind(w, f->eot_pc, f->eot_spec, l);
    }
    if (r == AGX_FRAG_DONE) {
        f->tile_width = l->tile_width ?: 32;
        f->tile_height = l->tile_height ?: 32;
        /*
         * 1, 2 or 4 samples (the UAPI's and cmdbuf.xml's Sample Count);
         * the Shared word's 2-bit log2 could say 8: 4 (a choice)
         */
        f->tile_samples = MIN(l->tile_width ? l->tile_samples
                                            : MAX(samples, 1), 4);
        f->tile_sample_bytes = l->tile_width ? l->tile_sample_bytes
                                             : MIN(MAX(sample_size, 8), 64);
    }
    g_free(l);
    return r;
}

/* Which pass of a render a fragment pass is (partial renders) */
typedef enum FragPass {
    FRAG_PASS_ONLY,             /* the whole scene: bg, eot */
    FRAG_PASS_FIRST,            /* the first partial: bg, partial eot */
    FRAG_PASS_MIDDLE,           /* a later partial: partial bg and eot */
    FRAG_PASS_LAST,             /* after partials: partial bg, eot */
} FragPass;

static bool frag_param(const FragWalk *w, const AgxParams *pa,
                       const char *name, uint64_t *val)
{
    return agx_params_get_in(w->fw, pa, AGX_PIPE_FRAGMENT, name, val);
}

/*
 * The passes of a render the vertex pipe paused (agx-vdm.h): a pass that
 * resumes one before it loads the tile with the partial background
 * program and the depth and stencil buffers from their partial
 * addresses; one that pauses stores the tile with the partial end-of-tile
 * program and the depth and stencil buffers to their partial addresses
 * (drm/asahi sets those to the buffers themselves).  A buffer takes part
 * when zls_ctrl loads or stores it.
 */
static void frag_pass_programs(FragWalk *w, const AgxParams *pa,
                               FragPass pass)
{
    AgxFrag *f = w->f;
    bool resumes = pass == FRAG_PASS_MIDDLE || pass == FRAG_PASS_LAST;
    bool pauses = pass == FRAG_PASS_FIRST || pass == FRAG_PASS_MIDDLE;
    bool z = APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, Z_LOAD) ||
             APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, Z_STORE);
    bool s = APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, S_LOAD) ||
             APPLE_FIELD_EX64(f->zls_ctrl, FRAG_ZLS, S_STORE);
    uint64_t v = 0, zp = 0, sp = 0, zstride = 0, sstride = 0;

    frag_param(w, pa, "params3.z_partial", &zp);
    frag_param(w, pa, "params3.s_partial", &sp);
    frag_param(w, pa, "params3.z_partial_stride", &zstride);
    frag_param(w, pa, "params3.s_partial_stride", &sstride);
    if (resumes) {
        /* without a partial background program, the render's own */
        if (frag_param(w, pa, "params3.partial_bg.address", &v) && v) {
            f->bg_pc = v;
            v = 0;
            frag_param(w, pa, "params3.partial_bg.rsrc_spec", &v);
            f->bg_spec = v;
        }
        if (z && zp) {
            f->zls_ctrl = APPLE_FIELD_DP64(f->zls_ctrl, FRAG_ZLS, Z_LOAD, 1);
            f->z_load = zp;
            f->z_load_stride = zstride;
        }
        if (s && sp) {
            f->zls_ctrl = APPLE_FIELD_DP64(f->zls_ctrl, FRAG_ZLS, S_LOAD, 1);
            f->s_load = sp;
            f->s_load_stride = sstride;
        }
    }
    if (pauses) {
        v = 0;
        frag_param(w, pa, "params3.partial_eot.address", &v);
        f->eot_pc = v;
        v = 0;
        frag_param(w, pa, "params3.partial_eot.rsrc_spec", &v);
        f->eot_spec = v;
        if (z && zp) {
            f->zls_ctrl = APPLE_FIELD_DP64(f->zls_ctrl, FRAG_ZLS, Z_STORE, 1);
            f->z_store = zp;
            f->z_store_stride = zstride;
        }
        if (s && sp) {
            f->zls_ctrl = APPLE_FIELD_DP64(f->zls_ctrl, FRAG_ZLS, S_STORE, 1);
            f->s_store = sp;
            f->s_store_stride = sstride;
        }
    }
}

/*
 * The render's layers: the scene's (the vertex job's, from the tiling
 * parameters drm/asahi fills from the UAPI's layer count); 1 without one
 */
static uint32_t frag_layers(AgxFw *fw, uint64_t tilemap)
{
    AgxGpuMem kmem = agx_gpu_mem_kernel(&fw->uat);
    AgxSceneMem sm = {
        .read = agx_gpu_mem_read, .write = agx_gpu_mem_write,
        .opaque = &kmem,
    };
    AgxSceneReader rd;
    const char *why;

    if (!tilemap || !agx_scene_open(&rd, &sm, tilemap, &why) ||
        !rd.layers) {
        return 1;
    }
    return MIN(rd.layers, AGX_FRAG_MAX_LAYERS);
}

/*
 * Set up @f for a pass of the render whose fragment command @pa was read
 * from.  False (nothing to render) when shaders are off, the pass has no
 * end-of-tile program or the framebuffer is out of range (*@why says
 * which, NULL: shaders off or the firmware crashed, *@crashed).
 */
static bool frag_setup(AgxFw *fw, AgxFrag *f, const AgxParams *pa,
                       uint32_t vm_slot, FragPass pass, const char **why,
                       bool *crashed)
{
    uint64_t usc = 0, bg = 0, bg_spec = 0, eot = 0, eot_spec = 0, heap = 0;
    uint64_t width = 0, height = 0, samples = 1, sample_size = 0;
    uint64_t tilemap = 0, scissor = 0, zls = 0, z_load = 0, z_store = 0;
    uint64_t bg_depth = 0, oclqry = 0, s_load = 0, s_store = 0, bg_vals = 0;
    uint64_t positions = 0;
    uint64_t dbias = 0, isp_ctl = 0;
    uint32_t fault_control;
    AgxUatFault fault;
    FragWalk w = {
        .fw = fw, .f = f, .mem = agx_gpu_mem_job(&fw->uat, vm_slot),
        .fault = &fault, .cmd = pa->cmd_va,
    };

    *why = NULL;
    *crashed = false;
    f->active = false;
    agx_frag_tile_free(f);
    if (fw->shaders_off) {
        return false;
    }
    frag_param(&w, pa, "params2.eot_usc", &eot);
    frag_param(&w, pa, "params1.usc_exec_base_isp", &usc);
    frag_param(&w, pa, "params1.bg.address", &bg);
    frag_param(&w, pa, "params1.bg.rsrc_spec", &bg_spec);
    frag_param(&w, pa, "params2.eot_rsrc_spec", &eot_spec);
    frag_param(&w, pa, "encoder.sampler_array", &heap);
    frag_param(&w, pa, "params1.aux_fb_info.width", &width);
    frag_param(&w, pa, "params1.aux_fb_info.height", &height);
    frag_param(&w, pa, "samples", &samples);
    frag_param(&w, pa, "params3.sample_size", &sample_size);
    frag_param(&w, pa, "tvb_tilemap", &tilemap);
    frag_param(&w, pa, "params1.isp_scissor_base", &scissor);
    frag_param(&w, pa, "params1.zls_ctrl", &zls);
    frag_param(&w, pa, "params1.z_load", &z_load);
    frag_param(&w, pa, "params1.z_store", &z_store);
    frag_param(&w, pa, "params2.isp_bgobjdepth", &bg_depth);
    frag_param(&w, pa, "params1.isp_oclqry_base", &oclqry);
    frag_param(&w, pa, "params1.s_load", &s_load);
    frag_param(&w, pa, "params1.s_store", &s_store);
    frag_param(&w, pa, "params3.isp_bgobjvals", &bg_vals);
    frag_param(&w, pa, "ppp_multisamplectl", &positions);
    frag_param(&w, pa, "params1.isp_dbias_base", &dbias);
    frag_param(&w, pa, "params1.aux_fb_info.isp_ctl", &isp_ctl);
    if (!eot) {
        /* the model's own tests: a job without programs */
        *why = "no end-of-tile program";
        return false;
    }
    if (!agx_fw_ld32(fw, fw->globals_va + fw->abi->gl_fault_control,
                     &fault_control, "Globals.fault_control")) {
        *crashed = true;
        return false;
    }
    if (!width || !height || width > AGX_FRAG_MAX_SIZE ||
        height > AGX_FRAG_MAX_SIZE) {
        /* the driver refuses these; the model's own tests send none */
        *why = "framebuffer size out of range";
        return false;
    }
    memset(f, 0, offsetof(AgxFrag, tiles));
    f->vm_slot = vm_slot;
    f->usc_base = usc;
    f->sampler_heap = heap;
    f->soft_faults = fault_control != 0;
    f->bg_pc = bg;
    f->bg_spec = bg_spec;
    f->eot_pc = eot;
    f->eot_spec = eot_spec;
    f->width = width;
    f->height = height;
    f->tilemap = tilemap;
    f->scissor_base = scissor;
    f->zls_ctrl = zls;
    f->z_load = z_load;
    f->z_store = z_store;
    f->bg_depth = bg_depth;
    f->oclqry_base = oclqry;
    f->s_load = s_load;
    f->s_store = s_store;
    f->bg_vals = bg_vals;
    f->sample_positions = positions;
    f->dbias_base = dbias;
    f->isp_ctl = isp_ctl;
    frag_param(&w, pa, "params1.z_load_stride", &f->z_load_stride);
    frag_param(&w, pa, "params1.z_store_stride", &f->z_store_stride);
    frag_param(&w, pa, "params1.s_load_stride", &f->s_load_stride);
    frag_param(&w, pa, "params1.s_store_stride", &f->s_store_stride);
    f->layers = frag_layers(fw, tilemap);
    f->budget = AGX_FRAG_JOB_BUDGET;
    frag_pass_programs(&w, pa, pass);
    if (!f->eot_pc) {
        *why = "no partial end-of-tile program";
        return false;
    }
    if (frag_layout(&w, samples, sample_size) != AGX_FRAG_DONE) {
        /* reported again, as a fault of the job, by the first slice */
        f->tile_width = f->tile_height = 32;
        f->tile_samples = 1;
        f->tile_sample_bytes = 8;
    }
    f->tiles_x = (f->width + f->tile_width - 1) / f->tile_width;
    f->tiles_y = (f->height + f->tile_height - 1) / f->tile_height;
    f->active = true;
    return true;
}

/* Partial renders of the scene at @tilemap before this, read as the ISP */
static uint32_t frag_scene_passes(AgxFw *fw, uint64_t tilemap)
{
    AgxGpuMem km = agx_gpu_mem_kernel(&fw->uat);
    AgxSceneMem sm = {
        .read = agx_gpu_mem_read, .write = agx_gpu_mem_write, .opaque = &km,
    };
    AgxSceneReader r;
    const char *why;

    return tilemap && agx_scene_open(&r, &sm, tilemap, &why) ? r.passes : 0;
}

bool agx_frag_start(AgxFw *fw, const AgxPipe *p)
{
    const AgxParams *pa = &fw->params[AGX_PIPE_FRAGMENT];
    uint64_t tilemap = 0;
    const char *why;
    bool crashed;

    agx_params_get(fw, AGX_PIPE_FRAGMENT, "tvb_tilemap", &tilemap);
    if (frag_setup(fw, &fw->frag, pa, p->vm_slot,
                   frag_scene_passes(fw, tilemap) ? FRAG_PASS_LAST
                                                  : FRAG_PASS_ONLY,
                   &why, &crashed)) {
        return true;
    }
    if (why && strcmp(why, "no end-of-tile program")) {
        agx_fw_guest_error(fw, "GPU fragment pipe: fragment command 0x%"
                           G_GINT64_MODIFIER "x: %s: no tile rendered",
                           p->cmd_va, why);
    }
    return !crashed;
}

bool agx_frag_partial_start(AgxFw *fw, AgxFrag *f, uint64_t cmd_va,
                            bool first, const char **why)
{
    const AgxRunLayout *run = &fw->job_abi->run[AGX_PIPE_FRAGMENT];
    uint32_t op_size = fw->job_abi->op_size[AGX_OP_START_FRAGMENT];
    g_autofree AgxParams *pa = g_new0(AgxParams, 1);
    uint8_t op[AGX_PARAMS_BLOCK_MAX];
    uint64_t useq = 0, vm_slot = 0;
    bool crashed;

    *why = NULL;
    f->active = false;
    if (!op_size || op_size > sizeof(op)) {
        *why = "no StartFragment op in this firmware";
        return true;
    }
    /* drm/asahi's fragment microsequence starts with StartFragment */
    if (!agx_fw_ld64(fw, cmd_va + run->useq_ptr, &useq, "RunFragment") ||
        !agx_fw_read(fw, useq, op, op_size, "StartFragment")) {
        return false;
    }
    if ((apple_ld32(op) & 0x3f) != AGX_OP_START_FRAGMENT) {
        *why = "its microsequence does not start with StartFragment";
        return true;
    }
    if (!agx_params_load(fw, AGX_PIPE_FRAGMENT, cmd_va, op, pa)) {
        return false;
    }
    agx_params_get_in(fw, pa, AGX_PIPE_FRAGMENT, "vm_slot", &vm_slot);
    if (vm_slot >= AGX_UAT_NUM_SLOTS) {
        *why = "VM slot out of range";
        return true;
    }
    frag_setup(fw, f, pa, vm_slot, first ? FRAG_PASS_FIRST : FRAG_PASS_MIDDLE,
               why, &crashed);
    return !crashed;
}

AgxFragResult agx_frag_partial_run(AgxFw *fw, AgxFrag *f, uint64_t cmd_va,
                                   uint64_t slice, AgxUatFault *fault,
                                   uint64_t *used)
{
    FragWalk w = {
        .fw = fw,
        .f = f,
        .mem = agx_gpu_mem_job(&fw->uat, f->vm_slot),
        .kmem = agx_gpu_mem_kernel(&fw->uat),
        .fault = fault,
        .cmd = cmd_va,
    };
    AgxFragResult r;

    *used = 0;
    if (!f->active) {
        return AGX_FRAG_DONE;
    }
    f->slices++;
    r = frag_walk(&w, slice);
    *used = w.used;
    if (r == AGX_FRAG_FAULT || r == AGX_FRAG_RUNAWAY) {
        f->active = false;
        agx_frag_tile_free(f);
        f->faults++;
    }
    return r;
}

bool agx_frag_busy(const AgxFw *fw, const AgxPipe *p)
{
    return fw->frag.active && p == &fw->pipes[AGX_PIPE_FRAGMENT] && p->busy;
}

AgxFragResult agx_frag_run(AgxFw *fw, uint64_t slice, AgxUatFault *fault)
{
    FragWalk w = {
        .fw = fw,
        .f = &fw->frag,
        .mem = agx_gpu_mem_job(&fw->uat, fw->frag.vm_slot),
        .kmem = agx_gpu_mem_kernel(&fw->uat),
        .fault = fault,
    };
    AgxFragResult r;

    if (!fw->frag.active) {
        return AGX_FRAG_DONE;
    }
    fw->frag.slices++;
    r = frag_walk(&w, slice);
    if (r == AGX_FRAG_FAULT || r == AGX_FRAG_RUNAWAY) {
        fw->frag.active = false;
        agx_frag_tile_free(&fw->frag);
        fw->frag.faults++;
    }
    return r;
}

bool agx_frag_job_due(AgxFw *fw, AgxPipe *p)
{
    AgxUatFault fault;
    AgxFragResult r;

    if (!agx_frag_busy(fw, p)) {
        return true;
    }
    r = agx_frag_run(fw, fw->cdm_slice ?: AGX_FRAG_SLICE_BUDGET, &fault);
    return agx_slice_end(fw, p, &frag_kind, (AgxSliceResult)r, &fault);
}

void agx_frag_stop(AgxFw *fw)
{
    fw->frag.active = false;
    agx_frag_tile_free(&fw->frag);
}

void agx_frag_tile_loaded(AgxFrag *f)
{
    AgxFragTile *t = &f->tile;

    /* buffers the stream had no bytes for were never allocated */
    t->mem = t->nmem ? t->mem : NULL;
    t->z = t->nz ? t->z : NULL;
    t->s = t->ns ? t->s : NULL;
    t->quads = t->nquad_room ? t->quads : NULL;
    agx_usc_tg_loaded(&t->group);
}

/* NULL, or why the tile in flight of @f (active) is out of range */
static const char *frag_check_tile(const AgxFrag *f)
{
    const AgxFragTile *t = &f->tile;
    uint32_t npx = f->tile_width * f->tile_height;

    if (t->phase == AGX_FRAG_PHASE_NONE) {
        return t->group.nsimd ? "fragment SIMD-group without a tile" : NULL;
    }
    if (t->phase > AGX_FRAG_PHASE_END_OF_TILE ||
        f->next_tile >= f->tiles_x * f->tiles_y * f->layers ||
        t->nmem != npx * f->tile_samples * f->tile_sample_bytes ||
        t->nz != npx * f->tile_samples || t->ns != t->nz ||
        t->nquad_room != 4 * npx || t->nquads > t->nquad_room ||
        t->ncfb > AGX_FRAG_MAX_CF_BINDINGS || t->mode > FRAG_PRIM_SHADE) {
        return "fragment tile in flight out of range";
    }
    if (t->in_prim && (t->phase != AGX_FRAG_PHASE_PRIMITIVES ||
                       t->mode != FRAG_PRIM_SHADE ||
                       t->next >= t->nquads)) {
        return "fragment tile in flight: primitive out of range";
    }
    for (uint32_t i = 0; i < t->nquads; i++) {
        if (FRAG_QUAD_X(t->quads[i]) >= f->tile_width ||
            FRAG_QUAD_Y(t->quads[i]) >= f->tile_height) {
            return "fragment tile in flight: lanes out of range";
        }
    }
    if (t->prog > AGX_FRAG_PROG_READY ||
        (t->prog == AGX_FRAG_PROG_READY && t->next >= npx) ||
        (t->prog && t->in_prim)) {
        return "fragment tile in flight: program out of range";
    }
    if ((t->prog || t->in_prim) &&
        !agx_pipeline_launch_valid(&t->launch)) {
        return "fragment tile in flight: program out of range";
    }
    if (t->group.nsimd) {
        if (t->group.limit > AGX_FRAG_TILE_BUDGET) {
            return "fragment SIMD-group in flight out of range";
        }
        if (t->prog == AGX_FRAG_PROG_PREAMBLE) {
            return agx_usc_preamble_check_loaded(&t->launch, &t->group);
        }
        if (t->prog != AGX_FRAG_PROG_READY && !t->in_prim) {
            return "fragment SIMD-group in flight out of range";
        }
        return agx_usc_group_check_loaded(&t->launch, &t->group);
    }
    return NULL;
}

const char *agx_frag_check_loaded(const AgxFw *fw)
{
    return agx_frag_check_state(&fw->frag);
}

const char *agx_frag_check_state(const AgxFrag *f)
{
    if (!f->active) {
        return f->tile.phase || f->tile.group.nsimd ?
               "fragment tile in flight without a job" : NULL;
    }
    if (f->vm_slot >= AGX_UAT_NUM_SLOTS) {
        return "fragment pipe VM slot out of range";
    }
    if (!f->width || f->width > AGX_FRAG_MAX_SIZE || !f->height ||
        f->height > AGX_FRAG_MAX_SIZE || !f->tile_width ||
        f->tile_width > 32 || !f->tile_height || f->tile_height > 32 ||
        !f->tile_samples || f->tile_samples > 4 ||
        f->tile_sample_bytes > 15 * 8 ||
        f->tiles_x != (f->width + f->tile_width - 1) / f->tile_width ||
        f->tiles_y != (f->height + f->tile_height - 1) / f->tile_height ||
        !f->layers || f->layers > AGX_FRAG_MAX_LAYERS ||
        f->next_tile > f->tiles_x * f->tiles_y * f->layers) {
        return "fragment pipe tiles out of range";
    }
    return frag_check_tile(f);
}
