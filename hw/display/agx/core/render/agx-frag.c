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
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-cdm.h"
#include "hw/agx/agx-frag.h"
#include "hw/agx/agx-fault.h"
#include "hw/agx/agx-params.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-usc.h"

/* USC control words, as one little-endian integer (cmdbuf.xml) */
APPLE_FIELD(FRAG_UNIFORM, START, 8, 8);
APPLE_FIELD(FRAG_UNIFORM, COUNT, 20, 6);
APPLE_FIELD(FRAG_UNIFORM, VA, 26, 38);          /* >> 2 */
APPLE_FIELD(FRAG_STATE, START, 8, 8);
APPLE_FIELD(FRAG_STATE, COUNT, 20, 7);
APPLE_FIELD(FRAG_STATE, VA, 27, 36);            /* >> 3 */
APPLE_FIELD(FRAG_SHARED, USES, 8, 1);
APPLE_FIELD(FRAG_SHARED, BYTES, 24, 8);         /* 256-byte units */
APPLE_FIELD(FRAG_SHADER, ADDR, 16, 32);
APPLE_FIELD(FRAG_REGISTERS, COUNT, 8, 5);       /* units of 8 halves */
APPLE_FIELD(FRAG_REGISTERS, SPILL, 18, 4);
APPLE_FIELD(FRAG_PRESHADER, ADDR, 32, 32);
/* Counts (rsrc_spec): sampler state registers, 6 and 7 with borders */
APPLE_FIELD(FRAG_COUNTS, SAMPLERS, 9, 3);
APPLE_FIELD(FRAG_COUNTS, PRESHADER_REGS, 12, 4);

/* The programs' addresses: USC offsets, 64-byte aligned (the low bits flag) */
#define FRAG_PROGRAM_MASK       0xffffffc0u
#define FRAG_SAMPLERS_EXTENDED  6
#define FRAG_UNIFORM_HALVES     (2 * AGX_USC_UNIFORMS)
/* Per-thread stack of a program that spills (as the compute one's) */
#define FRAG_STACK_BYTES        4096

/* The job's memory as the GPU sees it, and the last fault in it */
typedef struct FragMem {
    AgxFw *fw;
    unsigned slot;
    bool faulted;
    AgxUatFault fault;
} FragMem;

static bool frag_mem_rw(FragMem *m, uint64_t va, void *buf, uint32_t len,
                        bool is_write, uint64_t *fault_va)
{
    if (agx_uat_rw(&m->fw->uat, m->slot, va, buf, len, AGX_UAT_GPU,
                   is_write, &m->fault)) {
        return true;
    }
    m->faulted = true;
    *fault_va = m->fault.va;
    return false;
}

static bool frag_mem_read(void *opaque, uint64_t va, void *buf, uint32_t len,
                          uint64_t *fault_va)
{
    return frag_mem_rw(opaque, va, buf, len, false, fault_va);
}

static bool frag_mem_write(void *opaque, uint64_t va, const void *buf,
                           uint32_t len, uint64_t *fault_va)
{
    return frag_mem_rw(opaque, va, (void *)buf, len, true, fault_va);
}

static const AgxUscMemOps frag_mem_ops = {
    .read = frag_mem_read,
    .write = frag_mem_write,
};

/* Internal: the program ends early, the tile goes on */
#define AGX_FRAG_SKIP   ((AgxFragResult)-1)

/* One slice's walk */
typedef struct FragWalk {
    AgxFw *fw;
    AgxFrag *f;
    FragMem mem;
    uint64_t used;              /* instructions so far */
    uint64_t tiles;             /* tiles rendered */
    AgxUatFault *fault;
} FragWalk;

static uint64_t frag_cmd(const FragWalk *w)
{
    return w->fw->pipes[AGX_PIPE_FRAGMENT].cmd_va;
}

/* A program's words are bad: a guest error, a GPU fault */
static AgxFragResult G_GNUC_PRINTF(3, 4)
frag_bad(FragWalk *w, uint64_t va, const char *fmt, ...)
{
    g_autofree char *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    agx_fw_guest_error(w->fw, "GPU fragment pipe: %s at 0x%"
                       G_GINT64_MODIFIER "x of fragment command 0x%"
                       G_GINT64_MODIFIER "x", msg, va, frag_cmd(w));
    *w->fault = (AgxUatFault) {
        .va = va,
        .slot = w->f->vm_slot,
        .reason = AGX_UAT_FAULT_UNMAPPED,
        .level = AGX_UAT_LEVELS - 1,
    };
    return AGX_FRAG_FAULT;
}

static bool frag_read(FragWalk *w, uint64_t va, void *buf, uint32_t len)
{
    uint64_t fault_va;

    if (frag_mem_read(&w->mem, va, buf, len, &fault_va)) {
        return true;
    }
    *w->fault = w->mem.fault;
    return false;
}

static unsigned frag_usc_word_size(uint8_t tag)
{
    switch (tag) {
    case AGX_USC_WORD_UNIFORM:
    case AGX_USC_WORD_UNIFORM_HIGH:
    case AGX_USC_WORD_TEXTURE:
    case AGX_USC_WORD_SAMPLER:
    case AGX_USC_WORD_PRESHADER:
        return 8;
    case AGX_USC_WORD_SHADER:
        return 6;
    case AGX_USC_WORD_SHARED:
    case AGX_USC_WORD_REGISTERS:
    case AGX_USC_WORD_FRAGMENT_PROPERTIES:
        return 4;
    case AGX_USC_WORD_NO_PRESHADER:
        return 2;
    default:
        return 0;
    }
}

/*
 * The program whose word list is at USC offset @pc (Counts word @spec),
 * bound into @l; *@shared the Shared word (0 if none)
 */
static AgxFragResult frag_bind(FragWalk *w, uint32_t pc, uint32_t spec,
                               AgxUscLaunch *l, uint32_t *shared)
{
    AgxFrag *f = w->f;
    uint64_t va = f->usc_base + (pc & FRAG_PROGRAM_MASK);
    unsigned sampler_stride = 8;
    bool has_shader = false;

    memset(l, 0, sizeof(*l));
    *shared = 0;
    l->usc_base = f->usc_base;
    l->sampler_heap_va = f->sampler_heap;
    l->soft_faults = f->soft_faults;
    l->gpr_halves = 256;
    l->preamble_gpr_halves =
        (APPLE_FIELD_EX64(spec, FRAG_COUNTS, PRESHADER_REGS) ?: 16) * 16;
    l->local[0] = l->local[1] = l->local[2] = 1;
    if (APPLE_FIELD_EX64(spec, FRAG_COUNTS, SAMPLERS) >=
        FRAG_SAMPLERS_EXTENDED) {
        sampler_stride += 16;
    }
    for (uint32_t off = 0; off < AGX_FRAG_MAX_USC_WORDS;) {
        uint64_t at = va + off, word, uva, sva;
        uint8_t buf[8] = { 0 };
        unsigned size, start, n;

        if (!frag_read(w, at, buf, 1)) {
            return AGX_FRAG_FAULT;
        }
        size = frag_usc_word_size(buf[0]);
        if (!size) {
            return frag_bad(w, at, "unknown USC control word 0x%02x", buf[0]);
        }
        if (!frag_read(w, at + 1, buf + 1, size - 1)) {
            return AGX_FRAG_FAULT;
        }
        word = apple_ld64(buf);
        off += size;
        switch (buf[0]) {
        case AGX_USC_WORD_UNIFORM:
        case AGX_USC_WORD_UNIFORM_HIGH: {
            uint8_t u[2 * 64];

            start = APPLE_FIELD_EX64(word, FRAG_UNIFORM, START) +
                    (buf[0] == AGX_USC_WORD_UNIFORM_HIGH ? 256 : 0);
            n = APPLE_FIELD_EX64(word, FRAG_UNIFORM, COUNT) ?: 64;
            uva = APPLE_FIELD_EX64(word, FRAG_UNIFORM, VA) << 2;
            if (start + n > FRAG_UNIFORM_HALVES) {
                return frag_bad(w, at, "Uniform word for halves %u..%u",
                                start, start + n - 1);
            }
            if (!frag_read(w, uva, u, 2 * n)) {
                return AGX_FRAG_FAULT;
            }
            for (unsigned i = 0; i < n; i++) {
                uint32_t *r = &l->uniforms[(start + i) / 2];
                uint32_t h = apple_ld16(u + 2 * i);

                *r = (start + i) & 1 ? (*r & 0xffff) | h << 16
                                     : (*r & 0xffff0000u) | h;
            }
            break;
        }
        case AGX_USC_WORD_TEXTURE:
        case AGX_USC_WORD_SAMPLER: {
            bool tex = buf[0] == AGX_USC_WORD_TEXTURE;
            uint64_t *regs = tex ? l->tex_state_va : l->sampler_state_va;

            start = APPLE_FIELD_EX64(word, FRAG_STATE, START);
            n = APPLE_FIELD_EX64(word, FRAG_STATE, COUNT);
            sva = APPLE_FIELD_EX64(word, FRAG_STATE, VA) << 3;
            if (start + n > AGX_USC_TEX_STATES) {
                return frag_bad(w, at, "%s word for registers %u..%u",
                                tex ? "Texture" : "Sampler", start,
                                start + n - 1);
            }
            for (unsigned i = 0; i < n; i++) {
                regs[start + i] = sva + (uint64_t)i *
                                  (tex ? 24 : sampler_stride);
            }
            break;
        }
        case AGX_USC_WORD_SHARED:
            *shared = word;
            l->shared_bytes = 0;
            if (APPLE_FIELD_EX64(word, FRAG_SHARED, USES)) {
                l->shared_bytes =
                    (APPLE_FIELD_EX64(word, FRAG_SHARED, BYTES) ?: 256) * 256;
            }
            break;
        case AGX_USC_WORD_SHADER:
            l->main_pc = APPLE_FIELD_EX64(word, FRAG_SHADER, ADDR);
            has_shader = true;
            break;
        case AGX_USC_WORD_REGISTERS:
            l->gpr_halves =
                (APPLE_FIELD_EX64(word, FRAG_REGISTERS, COUNT) ?: 32) * 8;
            l->stack_bytes = APPLE_FIELD_EX64(word, FRAG_REGISTERS, SPILL) ?
                             FRAG_STACK_BYTES : 0;
            break;
        case AGX_USC_WORD_FRAGMENT_PROPERTIES:
            break;
        case AGX_USC_WORD_PRESHADER:
            l->preamble_pc = APPLE_FIELD_EX64(word, FRAG_PRESHADER, ADDR);
            l->has_preamble = true;
            /* fall through */
        case AGX_USC_WORD_NO_PRESHADER:
            if (!has_shader) {
                return frag_bad(w, at, "USC control words without a Shader "
                                "word");
            }
            return AGX_FRAG_DONE;
        }
    }
    return frag_bad(w, va, "USC control words run over %d bytes",
                    AGX_FRAG_MAX_USC_WORDS);
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
 * Run program @l (bound, its preamble not yet run) on @tile: once per
 * pixel (the background program: groups of 32 pixels in raster order,
 * sample 0) or once (the end-of-tile program: one lane)
 */
static AgxFragResult frag_program(FragWalk *w, AgxUscLaunch *l,
                                  AgxUscTile *tile, bool per_pixel,
                                  const char *what)
{
    uint32_t npx = tile->width * tile->height;
    AgxUscGroup *g = g_new0(AgxUscGroup, 1);
    AgxFragResult r = AGX_FRAG_DONE;
    uint64_t before, left;
    AgxUscFault uf = { 0 };
    AgxUscStatus st;

    if (l->has_preamble) {
        before = left = frag_usc_budget(w->f);
        w->mem.faulted = false;
        st = agx_usc_run_preamble(l, &frag_mem_ops, &w->mem, &left, &uf);
        r = frag_usc_result(w, st, &uf, before, left, what);
    }
    g->tile = tile;
    for (uint32_t first = 0; r == AGX_FRAG_DONE && first < npx;
         first += AGX_USC_LANES) {
        uint32_t n = per_pixel ? MIN(npx - first, AGX_USC_LANES) : 1;

        g->launched = n >= 32 ? ~0u : (1u << n) - 1;
        for (uint32_t i = 0; i < n; i++) {
            g->px[i] = (first + i) % tile->width;
            g->py[i] = (first + i) / tile->width;
        }
        before = left = frag_usc_budget(w->f);
        w->mem.faulted = false;
        st = agx_usc_run_group(l, g, &frag_mem_ops, &w->mem, &left, &uf);
        r = frag_usc_result(w, st, &uf, before, left, what);
        if (!per_pixel) {
            break;
        }
    }
    g_free(g);
    return r == AGX_FRAG_SKIP ? AGX_FRAG_DONE : r;
}

/* Render tile f->next_tile */
static AgxFragResult frag_tile(FragWalk *w)
{
    AgxFrag *f = w->f;
    uint32_t tx = f->next_tile % f->tiles_x, ty = f->next_tile / f->tiles_x;
    AgxUscLaunch *l = g_new0(AgxUscLaunch, 1);
    AgxUscTile tile = {
        .width = f->tile_width, .height = f->tile_height,
        .samples = f->tile_samples, .sample_bytes = f->tile_sample_bytes,
        .origin_x = tx * f->tile_width, .origin_y = ty * f->tile_height,
    };
    AgxFragResult r;
    uint32_t shared;

    tile.mem = g_malloc0((size_t)tile.width * tile.height * tile.samples *
                         tile.sample_bytes);
    r = frag_bind(w, f->bg_pc, f->bg_spec, l, &shared);
    if (r == AGX_FRAG_DONE) {
        r = frag_program(w, l, &tile, true, "background");
    }
    if (r == AGX_FRAG_DONE) {
        r = frag_bind(w, f->eot_pc, f->eot_spec, l, &shared);
    }
    if (r == AGX_FRAG_DONE) {
        r = frag_program(w, l, &tile, false, "end-of-tile");
    }
    /* a tile costs something, even if its programs ran nothing */
    w->used++;
    g_free(tile.mem);
    g_free(l);
    return r;
}

static AgxFragResult frag_walk(FragWalk *w, uint64_t slice)
{
    AgxFrag *f = w->f;

    while (f->next_tile < f->tiles_x * f->tiles_y) {
        AgxFragResult r;

        if (w->used >= slice) {
            return AGX_FRAG_MORE;
        }
        r = frag_tile(w);
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
    uint32_t shared = 0;

    r = frag_bind(w, f->bg_pc, f->bg_spec, l, &shared);
    if (r == AGX_FRAG_DONE) {
        agx_usc_shared_tile(l, shared);
        if (!l->tile_width) {
            r = frag_bind(w, f->eot_pc, f->eot_spec, l, &shared);
            agx_usc_shared_tile(l, shared);
        }
    }
    if (r == AGX_FRAG_DONE) {
        f->tile_width = l->tile_width ?: 32;
        f->tile_height = l->tile_height ?: 32;
        f->tile_samples = l->tile_width ? l->tile_samples
                                        : MIN(MAX(samples, 1), 4);
        f->tile_sample_bytes = l->tile_width ? l->tile_sample_bytes
                                             : MIN(MAX(sample_size, 8), 64);
    }
    g_free(l);
    return r;
}

bool agx_frag_start(AgxFw *fw, const AgxPipe *p)
{
    AgxFrag *f = &fw->frag;
    uint64_t usc = 0, bg = 0, bg_spec = 0, eot = 0, eot_spec = 0, heap = 0;
    uint64_t width = 0, height = 0, samples = 1, sample_size = 0;
    uint32_t fault_control;
    AgxUatFault fault;
    FragWalk w = {
        .fw = fw, .f = f, .mem = { .fw = fw, .slot = p->vm_slot },
        .fault = &fault,
    };

    f->active = false;
    if (fw->shaders_off ||
        !agx_params_get(fw, AGX_PIPE_FRAGMENT, "params2.eot_usc", &eot) ||
        !eot) {
        return true;
    }
    agx_params_get(fw, AGX_PIPE_FRAGMENT, "params1.usc_exec_base_isp", &usc);
    agx_params_get(fw, AGX_PIPE_FRAGMENT, "params1.bg.address", &bg);
    agx_params_get(fw, AGX_PIPE_FRAGMENT, "params1.bg.rsrc_spec", &bg_spec);
    agx_params_get(fw, AGX_PIPE_FRAGMENT, "params2.eot_rsrc_spec", &eot_spec);
    agx_params_get(fw, AGX_PIPE_FRAGMENT, "encoder.sampler_array", &heap);
    agx_params_get(fw, AGX_PIPE_FRAGMENT, "params1.aux_fb_info.width",
                   &width);
    agx_params_get(fw, AGX_PIPE_FRAGMENT, "params1.aux_fb_info.height",
                   &height);
    agx_params_get(fw, AGX_PIPE_FRAGMENT, "samples", &samples);
    agx_params_get(fw, AGX_PIPE_FRAGMENT, "params3.sample_size",
                   &sample_size);
    if (!agx_fw_ld32(fw, fw->globals_va + fw->abi->gl_fault_control,
                     &fault_control, "Globals.fault_control")) {
        return false;
    }
    if (!width || !height || width > AGX_FRAG_MAX_SIZE ||
        height > AGX_FRAG_MAX_SIZE) {
        /* the driver refuses these; the model's own tests send none */
        agx_fw_guest_error(fw, "GPU fragment pipe: a %" G_GINT64_MODIFIER
                           "ux%" G_GINT64_MODIFIER "u framebuffer: no tile "
                           "rendered", width, height);
        return true;
    }
    memset(f, 0, offsetof(AgxFrag, tiles));
    f->vm_slot = p->vm_slot;
    f->usc_base = usc;
    f->sampler_heap = heap;
    f->soft_faults = fault_control != 0;
    f->bg_pc = bg;
    f->bg_spec = bg_spec;
    f->eot_pc = eot;
    f->eot_spec = eot_spec;
    f->width = width;
    f->height = height;
    f->budget = AGX_FRAG_JOB_BUDGET;
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

bool agx_frag_busy(const AgxFw *fw, const AgxPipe *p)
{
    return fw->frag.active && p == &fw->pipes[AGX_PIPE_FRAGMENT] && p->busy;
}

AgxFragResult agx_frag_run(AgxFw *fw, uint64_t slice, AgxUatFault *fault)
{
    FragWalk w = {
        .fw = fw,
        .f = &fw->frag,
        .mem = { .fw = fw, .slot = fw->frag.vm_slot },
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
        fw->frag.faults++;
    }
    return r;
}

bool agx_frag_job_due(AgxFw *fw, AgxPipe *p)
{
    AgxUatFault fault;

    if (!agx_frag_busy(fw, p)) {
        return true;
    }
    switch (agx_frag_run(fw, AGX_FRAG_SLICE_BUDGET, &fault)) {
    case AGX_FRAG_DONE:
        return true;
    case AGX_FRAG_MORE:
        p->done_at = fw->ops->now_ns(fw->opaque) + AGX_FRAG_SLICE_NS;
        return false;
    case AGX_FRAG_FAULT:
        agx_fault_gpu_fault_at(fw, AGX_PIPE_FRAGMENT, p, &fault);
        return false;
    default:
        agx_fw_guest_error(fw, "GPU fragment pipe: fragment command 0x%"
                           G_GINT64_MODIFIER "x ran more than %"
                           G_GINT64_MODIFIER "u instructions (or one tile "
                           "more than %" G_GINT64_MODIFIER "u): it hangs",
                           p->cmd_va, (uint64_t)AGX_FRAG_JOB_BUDGET,
                           (uint64_t)AGX_FRAG_TILE_BUDGET);
        agx_fault_job_hangs(fw, AGX_PIPE_FRAGMENT, p);
        return false;
    }
}

void agx_frag_stop(AgxFw *fw)
{
    fw->frag.active = false;
}

const char *agx_frag_check_loaded(const AgxFw *fw)
{
    const AgxFrag *f = &fw->frag;

    if (!f->active) {
        return NULL;
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
        f->next_tile > f->tiles_x * f->tiles_y) {
        return "fragment pipe tiles out of range";
    }
    return NULL;
}
