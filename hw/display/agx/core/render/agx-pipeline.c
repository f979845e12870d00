/*
 * AGX USC pipelines of the render path (see agx-pipeline.h)
 *
 * Word layouts: the reference notes, agx-shaders.md 1.4 (Mesa's
 * cmdbuf.xml "USC" structures).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-gpu-mem.h"
#include "hw/agx/agx-pipeline.h"

/* Stage word 0 */
APPLE_FIELD(PIPE_WORD0, SAMPLERS, 9, 3);
APPLE_FIELD(PIPE_WORD0, PRESHADER_REGS, 12, 4);
/* The words, as one little-endian integer */
APPLE_FIELD(PIPE_UNIFORM, START, 8, 8);
APPLE_FIELD(PIPE_UNIFORM, COUNT, 20, 6);
APPLE_FIELD(PIPE_UNIFORM, VA, 26, 38);          /* >> 2 */
APPLE_FIELD(PIPE_STATE, START, 8, 8);
APPLE_FIELD(PIPE_STATE, COUNT, 20, 7);
APPLE_FIELD(PIPE_STATE, VA, 27, 36);            /* >> 3 */
APPLE_FIELD(PIPE_SHARED, USES, 8, 1);
APPLE_FIELD(PIPE_SHARED, BYTES, 24, 8);         /* 256-byte units */
APPLE_FIELD(PIPE_SHADER, ADDR, 16, 32);
APPLE_FIELD(PIPE_REGISTERS, COUNT, 8, 5);       /* units of 8 halves */
APPLE_FIELD(PIPE_REGISTERS, SPILL, 18, 4);
APPLE_FIELD(PIPE_PRESHADER, ADDR, 32, 32);

#define PIPE_SAMPLERS_EXTENDED  6
#define PIPE_STACK_BYTES        4096

static bool pipe_read(const AgxUscMemOps *ops, void *opaque, uint64_t va,
                      void *buf, uint32_t len, uint64_t *at)
{
    uint64_t fault_va;

    if (ops->read(opaque, va, buf, len, &fault_va)) {
        return true;
    }
    *at = fault_va;
    return false;
}

AgxPipelineResult agx_pipeline_load(AgxUscLaunch *l, uint32_t pipeline,
                                    uint32_t word0, const AgxUscMemOps *ops,
                                    void *opaque, uint64_t *at,
                                    const char **why)
{
    uint64_t usc_base = l->usc_base, heap = l->sampler_heap_va;
    bool soft = l->soft_faults, has_shader = false;
    unsigned sampler_stride = 8;
    uint64_t va = usc_base + pipeline;

    memset(l, 0, sizeof(*l));
    l->usc_base = usc_base;
    l->sampler_heap_va = heap;
    l->soft_faults = soft;
    l->gpr_halves = 256;
    l->preamble_gpr_halves =
        (APPLE_FIELD_EX64(word0, PIPE_WORD0, PRESHADER_REGS) ?: 16) * 16;
    if (APPLE_FIELD_EX64(word0, PIPE_WORD0, SAMPLERS) >=
        PIPE_SAMPLERS_EXTENDED) {
        sampler_stride += 16;
    }
    *why = NULL;
    for (uint32_t off = 0; off < AGX_PIPELINE_MAX_WORDS;) {
        uint8_t buf[2 * 64] = { 0 };
        uint64_t word, src;
        unsigned size, start, n;

        *at = va + off;
        if (!pipe_read(ops, opaque, va + off, buf, 1, at)) {
            return AGX_PIPELINE_FAULT;
        }
        size = agx_usc_word_size(buf[0]);
        if (!size) {
            *why = "unknown USC control word";
            return AGX_PIPELINE_BAD;
        }
        if (!pipe_read(ops, opaque, va + off + 1, buf + 1, size - 1, at)) {
            return AGX_PIPELINE_FAULT;
        }
        word = apple_ld64(buf);
        off += size;
        switch (buf[0]) {
        case AGX_USC_WORD_UNIFORM:
        case AGX_USC_WORD_UNIFORM_HIGH:
            start = APPLE_FIELD_EX64(word, PIPE_UNIFORM, START) +
                    (buf[0] == AGX_USC_WORD_UNIFORM_HIGH ? 256 : 0);
            n = APPLE_FIELD_EX64(word, PIPE_UNIFORM, COUNT) ?: 64;
            src = agx_gpu_va40(APPLE_FIELD_EX64(word, PIPE_UNIFORM, VA) << 2);
            if (start + n > 2 * AGX_USC_UNIFORMS) {
                *why = "Uniform word beyond the uniform file";
                return AGX_PIPELINE_BAD;
            }
            if (!pipe_read(ops, opaque, src, buf, 2 * n, at)) {
                return AGX_PIPELINE_FAULT;
            }
            for (unsigned i = 0; i < n; i++) {
                unsigned h = start + i;
                uint32_t *u = &l->uniforms[h / 2];
                uint32_t v = apple_ld16(buf + 2 * i);

                *u = h & 1 ? (*u & 0xffff) | v << 16
                           : (*u & 0xffff0000u) | v;
            }
            break;
        case AGX_USC_WORD_TEXTURE:
        case AGX_USC_WORD_SAMPLER:
            start = APPLE_FIELD_EX64(word, PIPE_STATE, START);
            n = APPLE_FIELD_EX64(word, PIPE_STATE, COUNT);
            src = APPLE_FIELD_EX64(word, PIPE_STATE, VA) << 3;
            if (start + n > (buf[0] == AGX_USC_WORD_TEXTURE ? AGX_USC_TEX_STATES
                                                 : AGX_USC_SAMPLER_STATES)) {
                *why = "Texture or Sampler word beyond the state registers";
                return AGX_PIPELINE_BAD;
            }
            for (unsigned i = 0; i < n; i++) {
                if (buf[0] == AGX_USC_WORD_TEXTURE) {
                    l->tex_state_va[start + i] = src + 24ULL * i;
                } else {
                    l->sampler_state_va[start + i] =
                        src + (uint64_t)sampler_stride * i;
                }
            }
            break;
        case AGX_USC_WORD_SHARED:
            l->shared_bytes = APPLE_FIELD_EX64(word, PIPE_SHARED, USES) ?
                (APPLE_FIELD_EX64(word, PIPE_SHARED, BYTES) ?: 256) * 256 : 0;
            break;
        case AGX_USC_WORD_SHADER:
            l->main_pc = APPLE_FIELD_EX64(word, PIPE_SHADER, ADDR);
            has_shader = true;
            break;
        case AGX_USC_WORD_REGISTERS:
            l->gpr_halves =
                (APPLE_FIELD_EX64(word, PIPE_REGISTERS, COUNT) ?: 32) * 8;
            l->stack_bytes = APPLE_FIELD_EX64(word, PIPE_REGISTERS, SPILL) ?
                             PIPE_STACK_BYTES : 0;
            break;
        case AGX_USC_WORD_FRAGMENT_PROPERTIES:
            break;
        case AGX_USC_WORD_PRESHADER:
            l->preamble_pc = APPLE_FIELD_EX64(word, PIPE_PRESHADER, ADDR);
            l->has_preamble = true;
            /* fall through */
        default:    /* No Preshader */
            if (!has_shader) {
                *why = "USC control words without a Shader word";
                return AGX_PIPELINE_BAD;
            }
            return AGX_PIPELINE_OK;
        }
    }
    *at = va;
    *why = "USC control words too long";
    return AGX_PIPELINE_BAD;
}
