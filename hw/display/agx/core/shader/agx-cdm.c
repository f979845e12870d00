/*
 * AGX compute data master: the CDM control stream of a RunCompute job
 *
 * Block and word layouts: docs/system/agx.rst and the reference notes
 * (agx-shaders.md, sections 1.3 and 1.4).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-cdm.h"
#include "hw/agx/agx-fault.h"
#include "hw/agx/agx-gpu-mem.h"
#include "hw/agx/agx-params.h"
#include "hw/agx/agx-pipeline.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-usc.h"

/* Every block's first word */
APPLE_FIELD(CDM_BLOCK, TYPE, 29, 3);
/* Launch Word0 (its counts: agx_pipeline_load()) */
APPLE_FIELD(CDM_LAUNCH, MODE, 27, 2);
/* Stream Link */
APPLE_FIELD(CDM_LINK, TARGET_HI, 0, 8);
APPLE_FIELD(CDM_LINK, WITH_RETURN, 28, 1);
/* Indirect grid pointer (first word) */
APPLE_FIELD(CDM_INDIRECT, ADDR_HI, 0, 8);

/* Launch Word1: the pipeline's USC address, 64-byte aligned */
#define CDM_PIPELINE_MASK       0xffffffc0u
/* Internal: the launch ends early, the stream goes on */
#define AGX_CDM_SKIP    ((AgxCdmResult)-1)

/* One slice's walk */
typedef struct CdmWalk {
    AgxFw *fw;
    AgxCdm *c;
    AgxGpuMem mem;
    uint64_t used;              /* instructions and block costs so far */
    uint64_t groups;            /* threadgroups run */
    AgxUatFault *fault;
} CdmWalk;

/* How the compute job runs in slices, and its messages */
static const AgxSliceKind cdm_kind = {
    .pipe = AGX_PIPE_COMPUTE,
    .who = "GPU compute data master",
    .command = "compute",
    .slice_ns = AGX_CDM_SLICE_NS,
    .job_budget = AGX_CDM_JOB_BUDGET,
    .unit = "threadgroup",
    .unit_budget = AGX_CDM_GROUP_BUDGET,
};

/* The stream or a USC word list is bad: a guest error, a GPU fault */
static AgxCdmResult G_GNUC_PRINTF(3, 4)
cdm_bad(CdmWalk *w, uint64_t va, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    agx_slice_vbad(w->fw, &cdm_kind, w->c->vm_slot, va, w->fault, fmt, ap);
    va_end(ap);
    AGX_TRACE(&w->fw->trace, cdm_fault,
              w->fw->pipes[AGX_PIPE_COMPUTE].cmd_va, "bad stream", va);
    return AGX_CDM_FAULT;
}

/* Read the stream (or what it points at); a UAT fault fails the job */
static bool cdm_read(CdmWalk *w, uint64_t va, void *buf, uint32_t len)
{
    if (agx_gpu_mem_rw(&w->mem, va, buf, len, false)) {
        return true;
    }
    *w->fault = w->mem.fault;
    AGX_TRACE(&w->fw->trace, cdm_fault,
              w->fw->pipes[AGX_PIPE_COMPUTE].cmd_va, "stream read",
              w->mem.fault.va);
    return false;
}

/* The USC control words at USC offset @pipeline, into the launch */
static AgxCdmResult cdm_usc_words(CdmWalk *w, uint32_t pipeline, uint32_t w0)
{
    AgxPipelineError err;

    switch (agx_pipeline_load(&w->c->launch, pipeline, w0,
                              &agx_gpu_mem_usc_ops, &w->mem, &err)) {
    case AGX_PIPELINE_FAULT:
        *w->fault = w->mem.fault;
        AGX_TRACE(&w->fw->trace, cdm_fault,
                  w->fw->pipes[AGX_PIPE_COMPUTE].cmd_va, "stream read",
                  w->mem.fault.va);
        return AGX_CDM_FAULT;
    case AGX_PIPELINE_BAD:
        return cdm_bad(w, err.at, "%s", err.why);
    default:
        if (err.why[0]) {
            agx_fw_guest_error(w->fw, "GPU compute data master: %s at 0x%"
                               G_GINT64_MODIFIER "x", err.why, err.at);
        }
        return AGX_CDM_DONE;
    }
}

/* The interpreter's verdict on a preamble or threadgroup */
static AgxCdmResult cdm_usc_result(CdmWalk *w, AgxUscStatus st,
                                   const AgxUscFault *uf, uint64_t before,
                                   uint64_t left)
{
    static const char *const kinds[] = {
        [AGX_USC_FAULT_NONE] = "fault",
        [AGX_USC_FAULT_DECODE] = "invalid instruction",
        [AGX_USC_FAULT_TRAP] = "trap",
        [AGX_USC_FAULT_FETCH] = "instruction fetch",
        [AGX_USC_FAULT_LOAD] = "load",
        [AGX_USC_FAULT_STORE] = "store",
        [AGX_USC_FAULT_REGISTER] = "register out of range",
        [AGX_USC_FAULT_STACK] = "stack access out of range",
    };
    uint64_t cmd = w->fw->pipes[AGX_PIPE_COMPUTE].cmd_va;
    uint64_t ran = before - MIN(left, before);
    const char *kind;

    w->used += ran;
    w->c->budget -= MIN(ran, w->c->budget);
    switch (st) {
    case AGX_USC_OK:
        return AGX_CDM_DONE;
    case AGX_USC_FAULT:
        if (uf->kind != AGX_USC_FAULT_DECODE) {
            break;
        }
        /*
         * An instruction the interpreter does not decode: Mesa emits no
         * invalid ones, so it is one the model lacks (texture sampling,
         * for now).  The launch ends there; the job goes on, as it did
         * before the model ran shaders.
         */
        agx_fw_unimp(w->fw, "GPU shader: instruction 0x%016"
                     G_GINT64_MODIFIER "x at pc 0x%" G_GINT64_MODIFIER "x "
                     "is not implemented: the rest of the launch is "
                     "skipped (compute command 0x%" G_GINT64_MODIFIER "x)",
                     uf->insn, uf->pc, cmd);
        AGX_TRACE(&w->fw->trace, cdm_fault, cmd, "unimplemented", uf->pc);
        w->c->unimplemented++;
        return AGX_CDM_SKIP;
    case AGX_USC_BUDGET:
        AGX_TRACE(&w->fw->trace, cdm_fault, cmd, "runaway", 0);
        return AGX_CDM_RUNAWAY;
    default:
        break;
    }
    kind = uf->kind < G_N_ELEMENTS(kinds) ? kinds[uf->kind] : "fault";
    AGX_TRACE(&w->fw->trace, cdm_fault, cmd, kind, uf->va ?: uf->pc);
    if ((uf->kind == AGX_USC_FAULT_FETCH || uf->kind == AGX_USC_FAULT_LOAD ||
         uf->kind == AGX_USC_FAULT_STORE) && w->mem.faulted) {
        *w->fault = w->mem.fault;
        return AGX_CDM_FAULT;
    }
    agx_fw_guest_error(w->fw, "GPU shader fault (%s) at pc 0x%"
                       G_GINT64_MODIFIER "x, instruction 0x%016"
                       G_GINT64_MODIFIER "x, of compute command 0x%"
                       G_GINT64_MODIFIER "x", kind, uf->pc, uf->insn, cmd);
    *w->fault = (AgxUatFault) {
        .va = uf->va ?: uf->pc,
        .slot = w->c->vm_slot,
        .reason = AGX_UAT_FAULT_UNMAPPED,
        .level = AGX_UAT_LEVELS - 1,
    };
    return AGX_CDM_FAULT;
}

/* What the interpreter may run now: the job's rest, one group's cap */
static uint64_t cdm_usc_budget(const AgxCdm *c)
{
    return MIN(c->budget, AGX_CDM_GROUP_BUDGET);
}

static uint64_t cdm_total_groups(const AgxCdm *c)
{
    uint64_t n = c->groups[0];

    for (int d = 1; d < 3; d++) {
        n = c->groups[d] && n > UINT64_MAX / 2 / c->groups[d] ?
            UINT64_MAX / 2 : n * c->groups[d];
    }
    return n;
}

/* The indirect grid's buffer, from words 2 and 3 of a Launch block */
static uint64_t cdm_indirect_va(const uint8_t *blk)
{
    uint64_t hi = APPLE_FIELD_EX64(apple_ld32(blk + 8), CDM_INDIRECT,
                                   ADDR_HI);

    return agx_gpu_va40(hi << 32 | apple_ld32(blk + 12));
}

/*
 * Run the bound launch's preamble, suspended in c->tg, for the rest of
 * the slice (at least an instruction); its threadgroups run after it
 */
static AgxCdmResult cdm_preamble(CdmWalk *w, uint64_t slice)
{
    AgxCdm *c = w->c;
    uint64_t before, left;
    AgxUscFault uf = { 0 };
    AgxUscStatus st;
    AgxCdmResult r;

    before = left = MAX(slice - MIN(w->used, slice), 1);
    w->mem.faulted = false;
    st = agx_usc_preamble_run(&c->launch, &c->tg, &agx_gpu_mem_usc_ops,
                              &w->mem, &left, &uf);
    if (st == AGX_USC_SUSPENDED) {
        w->used += before - left;
        c->budget -= MIN(before - left, c->budget);
        c->suspensions++;
        AGX_TRACE(&w->fw->trace, cdm_suspend,
                  w->fw->pipes[AGX_PIPE_COMPUTE].cmd_va, AGX_CDM_PREAMBLE,
                  c->tg.used);
        return AGX_CDM_MORE;
    }
    agx_usc_tg_free(&c->tg);
    c->in_preamble = false;
    r = cdm_usc_result(w, st, &uf, before, left);
    if (r == AGX_CDM_SKIP) {
        /* the launch ends there, the stream goes on */
        c->in_launch = false;
        return AGX_CDM_DONE;
    }
    return r;
}

/* A Launch block at c->pos with first word @w0: bind it */
static AgxCdmResult cdm_launch(CdmWalk *w, uint32_t w0, uint64_t slice)
{
    AgxCdm *c = w->c;
    AgxUscLaunch *l = &c->launch;
    unsigned mode = APPLE_FIELD_EX64(w0, CDM_LAUNCH, MODE);
    static const unsigned sizes[] = { 32, 28, 16 };
    uint8_t blk[32];
    uint32_t grid[6], pipeline, threads = 1;
    uint64_t at = c->pos, indirect;
    AgxCdmResult r;

    if (mode >= G_N_ELEMENTS(sizes)) {
        return cdm_bad(w, at, "Launch with grid mode 3");
    }
    if (!cdm_read(w, at, blk, sizes[mode])) {
        return AGX_CDM_FAULT;
    }
    c->pos += sizes[mode];
    pipeline = apple_ld32(blk + 4) & CDM_PIPELINE_MASK;
    switch (mode) {
    case AGX_CDM_GRID_DIRECT:
        for (int i = 0; i < 6; i++) {
            grid[i] = apple_ld32(blk + 8 + 4 * i);
        }
        break;
    case AGX_CDM_GRID_INDIRECT_GLOBAL:
        /* The buffer holds threadgroup counts; the block the local size */
        indirect = cdm_indirect_va(blk);
        if (!cdm_read(w, indirect, blk, 12)) {
            return AGX_CDM_FAULT;
        }
        for (int i = 0; i < 3; i++) {
            uint64_t t;

            grid[3 + i] = apple_ld32(blk + 16 + 4 * i);
            t = (uint64_t)apple_ld32(blk + 4 * i) * grid[3 + i];
            grid[i] = MIN(t, UINT32_MAX);
        }
        break;
    default:
        /* The buffer holds the global size, then the local size */
        indirect = cdm_indirect_va(blk);
        if (!cdm_read(w, indirect, blk, 24)) {
            return AGX_CDM_FAULT;
        }
        for (int i = 0; i < 6; i++) {
            grid[i] = apple_ld32(blk + 4 * i);
        }
        break;
    }

    memset(l, 0, sizeof(*l));
    for (int i = 0; i < 3; i++) {
        threads = MIN((uint64_t)threads * grid[3 + i],
                      AGX_CDM_MAX_THREADS + 1);
        /* The last threadgroup of a dimension may be partial */
        c->groups[i] = grid[3 + i] ? grid[i] / grid[3 + i] +
                       !!(grid[i] % grid[3 + i]) : 0;
    }
    if (threads > AGX_CDM_MAX_THREADS) {
        return cdm_bad(w, at, "Launch of %ux%ux%u threads per threadgroup",
                       grid[3], grid[4], grid[5]);
    }
    AGX_TRACE(&w->fw->trace, cdm_launch, at, c->groups[0], c->groups[1],
              c->groups[2], grid[3], grid[4], grid[5], pipeline);
    if (!cdm_total_groups(c)) {
        /* No thread: nothing runs, not even the preamble */
        return AGX_CDM_DONE;
    }
    c->launches++;

    l->usc_base = c->usc_base;
    l->sampler_heap_va = c->sampler_heap;
    l->soft_faults = c->soft_faults;
    r = cdm_usc_words(w, pipeline, w0);
    if (r != AGX_CDM_DONE) {
        return r;
    }
    for (int i = 0; i < 3; i++) {
        l->global[i] = grid[i];
        l->local[i] = grid[3 + i];
    }
    c->next_group = 0;
    c->in_launch = true;
    if (l->has_preamble) {
        agx_usc_preamble_start(l, MIN(c->budget, AGX_CDM_PREAMBLE_BUDGET),
                               &c->tg);
        c->in_preamble = true;
        return cdm_preamble(w, slice);
    }
    return AGX_CDM_DONE;
}

/* Run the bound launch's threadgroups while the slice lasts */
static AgxCdmResult cdm_groups(CdmWalk *w, uint64_t slice)
{
    AgxCdm *c = w->c;
    uint64_t total = cdm_total_groups(c);
    uint64_t cmd = w->fw->pipes[AGX_PIPE_COMPUTE].cmd_va;

    while (c->next_group < total) {
        uint64_t i = c->next_group, before, left;
        AgxUscFault uf = { 0 };
        AgxUscStatus st;
        AgxCdmResult r;

        if (w->used >= slice) {
            return AGX_CDM_MORE;
        }
        if (!c->tg.nsimd) {
            uint32_t tg[3];

            tg[0] = i % c->groups[0];
            tg[1] = i / c->groups[0] % c->groups[1];
            tg[2] = i / c->groups[0] / c->groups[1];
            /* A threadgroup costs something, even if it runs nothing */
            w->used++;
            st = agx_usc_tg_start(&c->launch, tg, cdm_usc_budget(c), &c->tg,
                                  &uf);
            if (st != AGX_USC_OK) {
                r = cdm_usc_result(w, st, &uf, 0, 0);
                return r == AGX_CDM_SKIP ? AGX_CDM_DONE : r;
            }
        }
        /* The rest of the slice, at least an instruction */
        before = left = MAX(slice - MIN(w->used, slice), 1);
        w->mem.faulted = false;
        st = agx_usc_tg_run(&c->launch, &c->tg, &agx_gpu_mem_usc_ops,
                            &w->mem, &left, &uf);
        if (st == AGX_USC_SUSPENDED) {
            w->used += before - left;
            c->budget -= MIN(before - left, c->budget);
            c->suspensions++;
            AGX_TRACE(&w->fw->trace, cdm_suspend, cmd, i, c->tg.used);
            return AGX_CDM_MORE;
        }
        agx_usc_tg_free(&c->tg);
        r = cdm_usc_result(w, st, &uf, before, left);
        if (r == AGX_CDM_SKIP) {
            break;
        }
        if (r != AGX_CDM_DONE) {
            return r;
        }
        c->next_group++;
        c->threadgroups++;
        w->groups++;
        c->blocks = 0;
    }
    c->in_launch = false;
    return AGX_CDM_DONE;
}

/* Walk blocks and run threadgroups until the slice is used up */
static AgxCdmResult cdm_walk(CdmWalk *w, uint64_t slice)
{
    AgxCdm *c = w->c;

    for (;;) {
        uint8_t blk[8];
        uint32_t w0;
        uint64_t at = c->pos, target;
        AgxCdmResult r;

        if (c->in_preamble) {
            r = cdm_preamble(w, slice);
            if (r != AGX_CDM_DONE) {
                return r;
            }
        }
        if (c->in_launch) {
            r = cdm_groups(w, slice);
            if (r != AGX_CDM_DONE) {
                return r;
            }
        }
        if (w->used >= slice) {
            return AGX_CDM_MORE;
        }
        if (++c->blocks > AGX_CDM_MAX_BLOCKS) {
            return cdm_bad(w, at, "%u blocks without a thread (a link "
                           "loop?)", AGX_CDM_MAX_BLOCKS);
        }
        w->used += AGX_CDM_BLOCK_COST;
        if (!cdm_read(w, at, blk, 4)) {
            return AGX_CDM_FAULT;
        }
        w0 = apple_ld32(blk);
        switch (APPLE_FIELD_EX64(w0, CDM_BLOCK, TYPE)) {
        case AGX_CDM_BLOCK_LAUNCH:
            r = cdm_launch(w, w0, slice);
            if (r != AGX_CDM_DONE) {
                return r;
            }
            break;
        case AGX_CDM_BLOCK_BARRIER:
            /* Launches run one after the other: nothing to wait for */
            c->pos += 4;
            break;
        case AGX_CDM_BLOCK_LINK:
            if (!cdm_read(w, at, blk, 8)) {
                return AGX_CDM_FAULT;
            }
            target = agx_gpu_va40((uint64_t)APPLE_FIELD_EX64(w0, CDM_LINK,
                                                             TARGET_HI) << 32 |
                                  apple_ld32(blk + 4));
            if (target == at) {
                return cdm_bad(w, at, "Stream Link to itself");
            }
            if (APPLE_FIELD_EX64(w0, CDM_LINK, WITH_RETURN)) {
                if (c->depth == AGX_CDM_STACK_DEPTH) {
                    return cdm_bad(w, at, "Stream Link with return nested "
                                   "more than %d deep", AGX_CDM_STACK_DEPTH);
                }
                c->stack[c->depth++] = at + 8;
            }
            c->pos = target;
            break;
        case AGX_CDM_BLOCK_RETURN:
            if (!c->depth) {
                return cdm_bad(w, at, "Stream Return without a Link");
            }
            c->pos = c->stack[--c->depth];
            break;
        case AGX_CDM_BLOCK_TERMINATE:
            c->active = false;
            return AGX_CDM_DONE;
        default:
            return cdm_bad(w, at, "unknown block 0x%08x", w0);
        }
    }
}

bool agx_cdm_start(AgxFw *fw, const AgxPipe *p)
{
    AgxCdm *c = &fw->cdm;
    uint64_t base = 0, usc = 0, heap = 0;
    uint32_t fault_control;

    c->active = false;
    c->in_launch = false;
    c->in_preamble = false;
    agx_usc_tg_free(&c->tg);
    if (fw->shaders_off ||
        !agx_params_get(fw, AGX_PIPE_COMPUTE, "params1.cdm_ctrl_stream_base",
                        &base) || !base) {
        return true;
    }
    agx_params_get(fw, AGX_PIPE_COMPUTE, "params1.usc_exec_base_cp", &usc);
    agx_params_get(fw, AGX_PIPE_COMPUTE, "encoder.sampler_array", &heap);
    if (!agx_fw_ld32(fw, fw->globals_va + fw->abi->gl_fault_control,
                     &fault_control, "Globals.fault_control")) {
        return false;
    }
    c->vm_slot = p->vm_slot;
    c->usc_base = usc;
    c->sampler_heap = heap;
    /* drm/asahi's 0xb: soft faults; its older default 0: hard faults */
    c->soft_faults = fault_control != 0;
    c->pos = base;
    c->depth = 0;
    c->blocks = 0;
    c->next_group = 0;
    memset(c->groups, 0, sizeof(c->groups));
    c->budget = fw->cdm_budget ?: AGX_CDM_JOB_BUDGET;
    c->active = true;
    return true;
}

bool agx_cdm_busy(const AgxFw *fw, const AgxPipe *p)
{
    return fw->cdm.active && p == &fw->pipes[AGX_PIPE_COMPUTE] && p->busy;
}

AgxCdmResult agx_cdm_run(AgxFw *fw, uint64_t slice, AgxUatFault *fault)
{
    CdmWalk w = {
        .fw = fw,
        .c = &fw->cdm,
        .mem = agx_gpu_mem_job(&fw->uat, fw->cdm.vm_slot),
        .fault = fault,
    };
    AgxCdmResult r;

    if (!fw->cdm.active) {
        return AGX_CDM_DONE;
    }
    fw->cdm.slices++;
    r = cdm_walk(&w, slice);
    if (r == AGX_CDM_FAULT || r == AGX_CDM_RUNAWAY) {
        fw->cdm.active = false;
        fw->cdm.in_launch = false;
        fw->cdm.in_preamble = false;
        agx_usc_tg_free(&fw->cdm.tg);
        fw->cdm.faults++;
    }
    AGX_TRACE(&fw->trace, cdm_slice, fw->pipes[AGX_PIPE_COMPUTE].cmd_va,
              w.groups, w.used, r == AGX_CDM_DONE);
    return r;
}

bool agx_cdm_job_due(AgxFw *fw, AgxPipe *p)
{
    AgxUatFault fault;
    AgxCdmResult r;

    if (!agx_cdm_busy(fw, p)) {
        return true;
    }
    r = agx_cdm_run(fw, fw->cdm_slice ?: AGX_CDM_SLICE_BUDGET, &fault);
    return agx_slice_end(fw, p, &cdm_kind, (AgxSliceResult)r, &fault);
}

void agx_cdm_stop(AgxFw *fw)
{
    fw->cdm.active = false;
    fw->cdm.in_launch = false;
    fw->cdm.in_preamble = false;
    agx_usc_tg_free(&fw->cdm.tg);
}

const char *agx_cdm_check_loaded(const AgxFw *fw)
{
    const AgxCdm *c = &fw->cdm;
    const AgxUscLaunch *l = &c->launch;

    if (!c->active || !c->in_launch) {
        if (c->tg.nsimd || c->in_preamble) {
            return "compute threadgroup in flight without a launch";
        }
    }
    if (c->in_preamble && !c->tg.nsimd) {
        return "compute preamble in flight without its state";
    }
    if (!c->active) {
        return NULL;
    }
    if (c->depth > AGX_CDM_STACK_DEPTH) {
        return "compute data master return stack too deep";
    }
    if (c->vm_slot >= AGX_UAT_NUM_SLOTS) {
        return "compute data master VM slot out of range";
    }
    if (c->in_launch &&
        (c->next_group > cdm_total_groups(c) ||
         !agx_pipeline_launch_valid(l))) {
        return "compute data master launch out of range";
    }
    if (c->in_preamble) {
        if (c->tg.limit > AGX_CDM_PREAMBLE_BUDGET) {
            return "compute preamble in flight: limit out of range";
        }
        return agx_usc_preamble_check_loaded(l, &c->tg);
    }
    if (c->tg.nsimd) {
        if (c->tg.limit > AGX_CDM_GROUP_BUDGET) {
            return "compute threadgroup in flight: limit out of range";
        }
        return agx_usc_tg_check_loaded(l, &c->tg);
    }
    return NULL;
}
