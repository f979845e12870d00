/*
 * AGX fragment pipe: the tiles of a RunFragment job
 *
 * When a fragment job's GPU work starts, the pipe renders its framebuffer
 * tile by tile (the tile size is the tilebuffer layout of the USC Shared
 * word of its programs: 32x32, 32x16 or 16x16 pixels, 1 to 4 samples of
 * sample_size bytes): for each tile, in raster order, the background
 * program (fragment job parameters 1 "bg": a USC word list at
 * usc_exec_base_isp + its offset, clearing or loading the tilebuffer) runs
 * once per pixel, then the tile's primitives are rasterized and shaded,
 * then the end-of-tile program (parameters 2 "eot_usc") runs once and
 * stores the tile with block_image_store.  Every access goes through the
 * UAT as the GPU's, in the job's VM.
 *
 * The work runs in slices on the firmware timer as the compute data
 * master's does (agx-cdm.h): an instruction budget each, so that the
 * host's main loop is never held long, ending anywhere inside a tile (a
 * SIMD-group of its programs or shaders suspended, AgxFragTile); between
 * two slices the only state is AgxFrag with its tile in flight
 * (migrated) and guest memory.  A bad word list is
 * a guest error and fails the job as a GPU fault of the ISP; an
 * instruction the interpreter does not know skips that program for the
 * tile (logged as unimplemented); a shader that runs away leaves the job
 * hung, for the watchdog.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_FRAG_H
#define HW_AGX_AGX_FRAG_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-fw-state.h"
#include "hw/agx/agx-slice.h"

/*
 * Instructions a fragment job may run, and one SIMD-group of a tile's
 * programs or shaders (across the slices it is suspended in: then a
 * runaway).  A slice ends on an instruction count, inside a tile and a
 * SIMD-group if need be, like a compute threadgroup's.
 */
#define AGX_FRAG_JOB_BUDGET     (1ULL << 32)
#define AGX_FRAG_TILE_BUDGET    (1ULL << 22)
/*
 * What one slice runs, in instructions, unless the shader-slice property
 * says (AgxFw.cdm_slice)
 */
#define AGX_FRAG_SLICE_BUDGET   (1ULL << 13)
/*
 * What a primitive of a tile costs against the slice besides its
 * shader's instructions (the model's choice: about what rasterizing and
 * depth-testing one over a 32x32 tile takes on the host), so that a long
 * run of depth-only primitives, which run no instruction, still ends
 * slices: at most AGX_FRAG_SLICE_BUDGET / AGX_FRAG_PRIM_COST of them a
 * slice.  Not counted against the job's instructions.
 */
#define AGX_FRAG_PRIM_COST      32
/* Virtual time from one slice to the next */
#define AGX_FRAG_SLICE_NS       10000
/* Largest framebuffer the UAPI allows, pixels */
#define AGX_FRAG_MAX_SIZE       16384
/* Layers a render may have (the UAPI's limit) */
#define AGX_FRAG_MAX_LAYERS     2048

typedef enum AgxFragResult {
    /* every tile rendered */
    AGX_FRAG_DONE = AGX_SLICE_DONE,
    /* the slice is used up: go on later */
    AGX_FRAG_MORE = AGX_SLICE_MORE,
    /* a GPU fault (or bad words): *fault */
    AGX_FRAG_FAULT = AGX_SLICE_FAULT,
    /* the job's instruction budget ran out */
    AGX_FRAG_RUNAWAY = AGX_SLICE_RUNAWAY,
} AgxFragResult;

/*
 * The fragment job on @p reached its GPU work: set up its tiles from its
 * parameter blocks.  No work when shaders are off or the job names no
 * end-of-tile program (the model's own tests).  False if the firmware
 * crashed reading Globals.
 */
bool agx_frag_start(AgxFw *fw, const AgxPipe *p);

/*
 * A partial render (agx-vdm.h): set up @f for a pass of the render whose
 * fragment command is @cmd_va (not on the pipe: its RunFragment and
 * StartFragment are read here), the @first pass (the render's background
 * program, then the partial end-of-tile program and partial depth and
 * stencil stores) or a later one (the partial background program and
 * partial loads first).  The fragment job of a scene that had partial
 * renders runs its last pass: partial background program and loads, its
 * own end-of-tile program and stores.  @f->active false and *@why set if
 * the command cannot pause (no partial end-of-tile program, ...).  False
 * if the firmware crashed reading the command.
 */
bool agx_frag_partial_start(AgxFw *fw, AgxFrag *f, uint64_t cmd_va,
                            bool first, const char **why);

/* Render tiles of the partial pass @f for about @slice instructions */
AgxFragResult agx_frag_partial_run(AgxFw *fw, AgxFrag *f, uint64_t cmd_va,
                                   uint64_t slice, AgxUatFault *fault,
                                   uint64_t *used);

/* Is fragment work in flight for the job on @p? */
bool agx_frag_busy(const AgxFw *fw, const AgxPipe *p);

/* Render tiles for one slice of about @slice instructions */
AgxFragResult agx_frag_run(AgxFw *fw, uint64_t slice, AgxUatFault *fault);

/*
 * The firmware timer found the fragment job on @p due: run a slice.  True
 * if its work is over (the caller finishes the job); false if it goes on
 * later (p->done_at moved), failed (fault, hang) or the firmware crashed.
 */
bool agx_frag_job_due(AgxFw *fw, AgxPipe *p);

/* The work is gone (halt, reset, destroyed context) */
void agx_frag_stop(AgxFw *fw);

/*
 * Drop the tile in flight of @f (a partial render's, or the pipe's), if
 * any
 */
void agx_frag_tile_free(AgxFrag *f);

/*
 * After an incoming migration: the tile in flight's empty buffers (the
 * stream allocates the others) are NULL, its program dropped
 */
void agx_frag_tile_loaded(AgxFrag *f);

/* After an incoming migration: NULL, or why the state is out of range */
const char *agx_frag_check_loaded(const AgxFw *fw);

/* The same, of any fragment state (a partial render's) */
const char *agx_frag_check_state(const AgxFrag *f);

#endif
