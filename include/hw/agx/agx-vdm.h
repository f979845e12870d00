/*
 * AGX vertex data master: the VDM control stream of a RunVertex job
 *
 * When a vertex job's GPU work starts, the data master walks the control
 * stream at vdm_ctrl_stream_base (VertexJobParameters1) in the job's VM:
 * PPP State blocks (render state updates, accumulated: agx-ppp.h), VDM
 * State blocks (restart index, the vertex shader's words 0 and 1, its
 * output count, flat shading control), Index List blocks (draws: indexed
 * or not, instanced, indirect, with primitive restart), Barriers (one
 * with "returns" ends a called stream), Stream Links (with and without
 * return) up to the Stream Terminate.  For each draw it runs the vertex
 * shader (agx_usc_run_group: vertex id in r5, instance id in r6, its
 * st_vary outputs collected per lane), assembles the primitives of the
 * topology (points, lines, line strips and loops, triangles, strips,
 * fans, quads and quad strips), clips them (w > 0, 0 <= z <= w when
 * the Cull word asks for depth clipping, and the clip distances Output
 * Select enables, up to 8), applies the viewport, culls
 * by facing and stores them in the render's binned scene (agx-scene.h),
 * in guest memory: the scene's tilemap and the pages of its buffer the
 * buffer manager gives it (agx-tvb.h; when none is free the job waits
 * for a fragment job to return some).  When a pass of the scene fills
 * its pages, the data master renders it with the render's partial
 * programs (a partial render: the render's fragment command is the one
 * RunVertex names by its stamp slot and value, found in its fragment
 * queue; agx_frag_partial_start) and bins on into the freed pages.
 *
 * The work runs in slices on the firmware timer, as the compute data
 * master's does: an instruction budget each, ending inside a batch's
 * vertex shader if need be (a SIMD-group suspended and resumed as a
 * compute threadgroup is).  A bad stream is a guest error and fails the job
 * as a GPU fault of the vertex data master, as a fault reading the
 * stream, the index buffer or the scene memory, or a hard shader fault
 * does; a shader that runs out of the job's budget leaves it hung.
 * Tessellation is not modelled (the job fails).
 *
 * QEMU-independent.  Its state (AgxVdm in agx-fw-state.h) is migrated.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_VDM_H
#define HW_AGX_AGX_VDM_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-fw-state.h"
#include "hw/agx/agx-slice.h"

/* Control stream block types (bits 31:29 of their first word) */
enum {
    AGX_VDM_BLOCK_PPP_STATE = 0,
    AGX_VDM_BLOCK_BARRIER = 1,
    AGX_VDM_BLOCK_VDM_STATE = 2,
    AGX_VDM_BLOCK_INDEX_LIST = 3,
    AGX_VDM_BLOCK_LINK = 4,
    AGX_VDM_BLOCK_TESSELLATE = 5,
    AGX_VDM_BLOCK_TERMINATE = 6,
};

/* Index List primitives (cmdbuf.xml "Primitive") */
enum {
    AGX_VDM_POINTS = 0,
    AGX_VDM_LINES = 1,
    AGX_VDM_LINE_STRIP = 3,
    AGX_VDM_LINE_LOOP = 5,
    AGX_VDM_TRIANGLES = 6,
    AGX_VDM_TRIANGLE_STRIP = 9,
    AGX_VDM_TRIANGLE_FAN = 11,
    AGX_VDM_QUADS = 14,
    AGX_VDM_QUAD_STRIP = 15,
};

/*
 * Primitives shaded together (AGX_VDM_BATCH, agx-fw-state.h): a slice
 * may end inside a batch's vertex shader, which the next resumes
 * (AgxVdmBatch), the batch's primitives assembled once it finished.
 * Instructions (agx-usc.h: memory instructions count more) one batch's
 * vertex shader may run across its slices (then a runaway), and what one
 * slice runs unless the shader-slice property says
 */
#define AGX_VDM_GROUP_BUDGET    (1ULL << 20)
#define AGX_VDM_SLICE_BUDGET    (1ULL << 11)
/* What a primitive costs the slice beyond its shader's instructions */
#define AGX_VDM_PRIM_COST       16
/*
 * Slices a vertex job waits for a fragment job to return TVB pages
 * before the oldest live scene of its buffer gives them up (agx-tvb.h)
 */
#define AGX_VDM_PAGE_WAIT       20000
/*
 * Bits of subpixel precision of window coordinates: Honeykrisp reports 8
 * (subPixelPrecisionBits, viewportSubPixelBits, lineSubPixelPrecisionBits);
 * the Gallium driver leaves GL_SUBPIXEL_BITS at Gallium's default 4, a
 * lower bound GL allows
 */
#define AGX_VDM_SUBPIXEL_BITS   8
/* Positions a batch may look at (restart indices make no primitive) */
#define AGX_VDM_GATHER_STEPS    256

typedef enum AgxVdmResult {
    /* Stream Terminate: the work is over */
    AGX_VDM_DONE = AGX_SLICE_DONE,
    /* the slice is used up: go on later */
    AGX_VDM_MORE = AGX_SLICE_MORE,
    /* a GPU fault (or a bad stream): *fault */
    AGX_VDM_FAULT = AGX_SLICE_FAULT,
    /* the job's instruction budget ran out */
    AGX_VDM_RUNAWAY = AGX_SLICE_RUNAWAY,
    /* the firmware crashed (the vertex data master's own) */
    AGX_VDM_CRASHED = AGX_SLICE_RUNAWAY + 1,
} AgxVdmResult;

/*
 * The vertex job on @p reached its GPU work (its Start op read the
 * parameter blocks): set up its walk and its scene.  No walk when
 * shaders are off or the stream base is 0.  False if the firmware
 * crashed.
 */
bool agx_vdm_start(AgxFw *fw, const AgxPipe *p);

/* Is a walk in flight for the job on @p? */
bool agx_vdm_busy(const AgxFw *fw, const AgxPipe *p);

/* Walk for one slice of about @slice instructions */
AgxVdmResult agx_vdm_run(AgxFw *fw, uint64_t slice, AgxUatFault *fault);

/*
 * The firmware timer found the vertex job on @p due: run a slice.  True
 * if its vertex work is over; false if it goes on later, failed or the
 * firmware crashed.
 */
bool agx_vdm_job_due(AgxFw *fw, AgxPipe *p);

/* The walk is gone (halt, reset, destroyed context) */
void agx_vdm_stop(AgxFw *fw);

/* After an incoming migration: NULL, or why the state is out of range */
const char *agx_vdm_check_loaded(const AgxFw *fw);

#endif
