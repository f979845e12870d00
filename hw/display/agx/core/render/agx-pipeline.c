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

#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
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
APPLE_FIELD(PIPE_PRESHADER, MAGIC, 8, 24);
APPLE_FIELD(PIPE_PRESHADER, ADDR, 32, 32);

#define PIPE_PRESHADER_MAGIC    0xc08000
/* Word0 sampler counts 6 and 7: entries with a 16-byte border colour */
#define PIPE_SAMPLERS_EXTENDED  6
#define PIPE_SAMPLER_SIZE       8
#define PIPE_SAMPLER_BORDER     16
#define PIPE_TEXTURE_SIZE       24
/*
 * Stack per thread of a shader that spills: the Registers word's spill
 * bucket has no known size, so every bucket gets this much
 */
#define PIPE_STACK_BYTES        4096

static bool pipe_read(const AgxUscMemOps *ops, void *opaque, uint64_t va,
                      void *buf, uint32_t len, AgxPipelineError *err)
{
    uint64_t fault_va;

    if (ops->read(opaque, va, buf, len, &fault_va)) {
        return true;
    }
    err->at = fault_va;
    return false;
}

static AgxPipelineResult G_GNUC_PRINTF(2, 3)
pipe_bad(AgxPipelineError *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err->why, sizeof(err->why), fmt, ap);
    va_end(ap);
    return AGX_PIPELINE_BAD;
}

AgxPipelineResult agx_pipeline_load(AgxUscLaunch *l, uint32_t pipeline,
                                    uint32_t word0, const AgxUscMemOps *ops,
                                    void *opaque, AgxPipelineError *err)
{
    uint64_t usc_base = l->usc_base, heap = l->sampler_heap_va;
    bool soft = l->soft_faults, has_shader = false;
    unsigned sampler_stride = PIPE_SAMPLER_SIZE;
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
        sampler_stride += PIPE_SAMPLER_BORDER;
    }
    err->why[0] = 0;
    for (uint32_t off = 0; off < AGX_PIPELINE_MAX_WORDS;) {
        uint8_t buf[2 * 64] = { 0 };
        uint64_t word, src;
        unsigned size, start, n;
        bool tex;

        err->at = va + off;
        if (!pipe_read(ops, opaque, va + off, buf, 1, err)) {
            return AGX_PIPELINE_FAULT;
        }
        size = agx_usc_word_size(buf[0]);
        if (!size) {
            return pipe_bad(err, "unknown USC control word 0x%02x", buf[0]);
        }
        if (!pipe_read(ops, opaque, va + off + 1, buf + 1, size - 1, err)) {
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
                return pipe_bad(err, "Uniform word for halves %u..%u", start,
                                start + n - 1);
            }
            if (!pipe_read(ops, opaque, src, buf, 2 * n, err)) {
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
            tex = buf[0] == AGX_USC_WORD_TEXTURE;
            start = APPLE_FIELD_EX64(word, PIPE_STATE, START);
            n = APPLE_FIELD_EX64(word, PIPE_STATE, COUNT);
            src = APPLE_FIELD_EX64(word, PIPE_STATE, VA) << 3;
            if (start + n > (tex ? AGX_USC_TEX_STATES
                                 : AGX_USC_SAMPLER_STATES)) {
                return pipe_bad(err, "%s word for registers %u..%u",
                                tex ? "Texture" : "Sampler", start,
                                start + n - 1);
            }
            for (unsigned i = 0; i < n; i++) {
                if (tex) {
                    l->tex_state_va[start + i] =
                        src + (uint64_t)PIPE_TEXTURE_SIZE * i;
                } else {
                    l->sampler_state_va[start + i] =
                        src + (uint64_t)sampler_stride * i;
                }
            }
            break;
        case AGX_USC_WORD_SHARED:
            l->shared_bytes = APPLE_FIELD_EX64(word, PIPE_SHARED, USES) ?
                (APPLE_FIELD_EX64(word, PIPE_SHARED, BYTES) ?: 256) * 256 : 0;
            agx_usc_shared_tile(l, word);
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
            if (APPLE_FIELD_EX64(word, PIPE_PRESHADER, MAGIC) !=
                PIPE_PRESHADER_MAGIC) {
                snprintf(err->why, sizeof(err->why), "Preshader word "
                         "0x%016" G_GINT64_MODIFIER "x", word);
            }
            l->preamble_pc = APPLE_FIELD_EX64(word, PIPE_PRESHADER, ADDR);
            l->has_preamble = true;
            /* fall through */
        default:    /* No Preshader */
            if (!has_shader) {
                return pipe_bad(err, "USC control words without a Shader "
                                "word");
            }
            return AGX_PIPELINE_OK;
        }
    }
    err->at = va;
    return pipe_bad(err, "USC control words run over %d bytes",
                    AGX_PIPELINE_MAX_WORDS);
}

bool agx_pipeline_launch_valid(const AgxUscLaunch *l)
{
    return l->gpr_halves <= 256 && l->preamble_gpr_halves <= 256 &&
           l->shared_bytes <= AGX_USC_MAX_SHARED && l->tile_width <= 32 &&
           l->tile_height <= 32 && l->tile_samples <= 8 &&
           l->tile_sample_bytes <= 15 * 8;
}
