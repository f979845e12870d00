/*
 * AGX compute data master: the CDM control stream of a RunCompute job
 *
 * When a compute job's GPU work starts, the data master walks the control
 * stream at cdm_ctrl_stream_base (ComputeJobParameters1) in the job's VM:
 * Launch blocks (direct, indirect global and indirect local grids),
 * Barriers, Stream Links (with and without return, on a bounded return
 * stack), Stream Returns, up to the Stream Terminate; cdm_ctrl_stream_end
 * bounds only the first segment, so it is not a stop.  Each Launch names
 * a list of USC control words at usc_exec_base + pipeline (uniforms,
 * texture and sampler state, shared memory, the shader, its registers,
 * the preamble): they fill an AgxUscLaunch, the preamble runs once, then
 * every threadgroup (agx-usc.h).  Every access goes through the UAT as
 * the GPU's, at any alignment.
 *
 * The work runs in slices on the firmware timer: a slice is an
 * instruction budget, ending between threadgroups or inside one or a
 * preamble (suspended in AgxCdm.tg and resumed by the next slice),
 * so the host's main loop is never held long, and the job completes only
 * when its stream ended.  A
 * bad stream (unknown block, a link loop, a return stack too deep or
 * empty, a bad USC word) is a guest error and fails the job as a GPU
 * fault of the compute data master, as a fault reading the stream or a
 * hard fault of a shader does; a shader that runs out of the job's
 * instruction budget leaves the job hung, for the watchdog to report as
 * a timeout.  Shader data accesses use soft faults (unmapped loads read
 * 0) unless Globals.fault_control is 0, drm/asahi's older default.
 *
 * QEMU-independent.  Its state (AgxCdm in agx-fw-state.h) is migrated.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_CDM_H
#define HW_AGX_AGX_CDM_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-fw-state.h"
#include "hw/agx/agx-slice.h"
#include "hw/agx/agx-pipeline.h"

/* Control stream block types (bits 31:29 of their first word) */
enum {
    AGX_CDM_BLOCK_LAUNCH = 0,
    AGX_CDM_BLOCK_LINK = 1,
    AGX_CDM_BLOCK_TERMINATE = 2,
    AGX_CDM_BLOCK_BARRIER = 3,
    AGX_CDM_BLOCK_RETURN = 4,
};

/* Launch Word0 grid modes (bits 28:27) */
enum {
    AGX_CDM_GRID_DIRECT = 0,
    AGX_CDM_GRID_INDIRECT_GLOBAL = 1,
    AGX_CDM_GRID_INDIRECT_LOCAL = 2,
};

/* Threads a threadgroup may have */
#define AGX_CDM_MAX_THREADS     1024
/*
 * Instructions (per SIMD-group; one that reaches memory counts two more
 * per active lane, agx-usc.h) a job may run before it counts as a
 * runaway, and one threadgroup of it (across the slices it spans: 8,000
 * memory accesses per thread of a 1024-thread group, or 16 M ALU
 * instructions of one SIMD-group)
 */
#define AGX_CDM_JOB_BUDGET      (1ULL << 32)
#define AGX_CDM_GROUP_BUDGET    (1ULL << 24)
/*
 * A launch's preamble (one lane, once, in slices as a threadgroup: its
 * state is AgxCdm.tg while AgxCdm.in_preamble) may run at most this
 */
#define AGX_CDM_PREAMBLE_BUDGET (1ULL << 20)
/* The threadgroup the cdm_suspend trace event names for a preamble */
#define AGX_CDM_PREAMBLE        UINT64_MAX
/*
 * What one slice runs, in instructions (and block costs): about a ms of
 * host time (make bench: "longest slice"), about as long for ALU and for
 * memory instructions, since those count two more per lane.  Counted,
 * not timed, so that a dispatch ends at the same virtual time on every
 * run.  A slice may end inside a threadgroup; it runs at most this plus
 * the cost of getting one program (one per instruction decoded).
 */
#define AGX_CDM_SLICE_BUDGET    (1ULL << 15)
/* Virtual time from one slice to the next */
#define AGX_CDM_SLICE_NS        10000
/*
 * Blocks a job may walk without running a threadgroup (a link loop ends
 * here; one with work in it runs out of instructions), and their cost
 */
#define AGX_CDM_MAX_BLOCKS      (1u << 16)
#define AGX_CDM_BLOCK_COST      64

typedef enum AgxCdmResult {
    /* Stream Terminate: the work is over */
    AGX_CDM_DONE = AGX_SLICE_DONE,
    /* the slice is used up: go on later */
    AGX_CDM_MORE = AGX_SLICE_MORE,
    /* a GPU fault (or a bad stream): *fault */
    AGX_CDM_FAULT = AGX_SLICE_FAULT,
    /* the job's instruction budget ran out */
    AGX_CDM_RUNAWAY = AGX_SLICE_RUNAWAY,
} AgxCdmResult;

/*
 * The compute job on @p reached its GPU work (its Start op read the
 * parameter blocks): set up its dispatch from them.  No dispatch when
 * shaders are off or the stream base is 0 (a job without compute work:
 * the driver never submits one, the model's tests do).  False if the
 * firmware crashed reading Globals.
 */
bool agx_cdm_start(AgxFw *fw, const AgxPipe *p);

/* Is a dispatch in flight for the job on @p? */
bool agx_cdm_busy(const AgxFw *fw, const AgxPipe *p);

/*
 * Run the dispatch for one slice of about @slice instructions; on
 * AGX_CDM_FAULT, @fault says where (the job's VM, its block or data)
 */
AgxCdmResult agx_cdm_run(AgxFw *fw, uint64_t slice, AgxUatFault *fault);

/*
 * The firmware timer found the compute job on @p due: run a slice.  True
 * if its compute work is over (the caller finishes the job); false if it
 * goes on later (p->done_at moved), failed (fault, hang) or the firmware
 * crashed.
 */
bool agx_cdm_job_due(AgxFw *fw, AgxPipe *p);

/* The dispatch is gone (halt, reset, destroyed context) */
void agx_cdm_stop(AgxFw *fw);

/* After an incoming migration: NULL, or why the state is out of range */
const char *agx_cdm_check_loaded(const AgxFw *fw);

#endif
