/*
 * AGX USC pipelines: binding a list of USC control words
 *
 * A compute launch (CDM Launch words 0 and 1), a vertex shader (VDM State
 * words 0 and 1), a fragment shader (PPP fragment shader words 0 and 1)
 * and the fragment job's background and end-of-tile programs (a USC
 * address and its Counts word) each name a list of USC control words at
 * usc_exec_base + pipeline (reference notes, agx-shaders.md 1.4):
 * uniforms, texture and sampler state, shared memory or the tilebuffer
 * layout, the shader, its registers, the preamble.  This fills an
 * AgxUscLaunch from them, for agx_usc_run_preamble(),
 * agx_usc_run_threadgroup() and agx_usc_run_group().
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_PIPELINE_H
#define HW_AGX_AGX_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-usc.h"

/* USC control word tags (their first byte) */
enum {
    AGX_USC_WORD_SHADER = 0x0d,
    AGX_USC_WORD_UNIFORM = 0x1d,
    AGX_USC_WORD_PRESHADER = 0x38,
    AGX_USC_WORD_UNIFORM_HIGH = 0x3d,
    AGX_USC_WORD_SHARED = 0x4d,
    AGX_USC_WORD_FRAGMENT_PROPERTIES = 0x58,
    AGX_USC_WORD_NO_PRESHADER = 0x88,
    AGX_USC_WORD_REGISTERS = 0x8d,
    AGX_USC_WORD_SAMPLER = 0x9d,
    AGX_USC_WORD_TEXTURE = 0xdd,
};

/* A control word's size in bytes from its tag; 0 for an unknown tag */
static inline unsigned agx_usc_word_size(uint8_t tag)
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

/* The USC control words of one pipeline, bytes at most */
#define AGX_PIPELINE_MAX_WORDS  1024

typedef enum AgxPipelineResult {
    AGX_PIPELINE_OK,
    AGX_PIPELINE_FAULT,         /* reading faulted at @at */
    AGX_PIPELINE_BAD,           /* a bad word at @at: @why */
} AgxPipelineResult;

/* Where a load stopped, and why */
typedef struct AgxPipelineError {
    uint64_t at;                /* the word, or the address that faulted */
    /*
     * AGX_PIPELINE_BAD: what is wrong; AGX_PIPELINE_OK: empty, or a word
     * the model does not know but can do without (worth a log line)
     */
    char why[96];
} AgxPipelineError;

/*
 * Fill @l (zeroed first, then usc_base, soft_faults and sampler_heap_va
 * kept from @l) from the words at USC offset @pipeline; @word0 is the
 * stage's word 0 (the counts of a CDM Launch Word0: sampler kind,
 * preshader registers).  A Shared word also sets the launch's imageblock
 * (agx_usc_shared_tile()).
 */
AgxPipelineResult agx_pipeline_load(AgxUscLaunch *l, uint32_t pipeline,
                                    uint32_t word0, const AgxUscMemOps *ops,
                                    void *opaque, AgxPipelineError *err);

/*
 * Whether a bound launch's sizes are within what the interpreter takes
 * (a migration stream's, which agx_pipeline_load() did not fill)
 */
bool agx_pipeline_launch_valid(const AgxUscLaunch *l);

#endif
