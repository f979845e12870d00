/*
 * AGX firmware: memory as a pipe's GPU work sees it
 *
 * The compute data master, the vertex data master and the fragment pipe
 * reach guest memory through one UAT context: the job's VM (the GPU's
 * view, slot of the job's context) for streams, shaders and their data,
 * the kernel's (slot 0, the firmware's view) for the objects the kernel
 * gave the firmware, such as the binned scene.  An access that faults
 * stops at the fault and records it, for the job's GPU fault.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_GPU_MEM_H
#define HW_AGX_AGX_GPU_MEM_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-uat.h"
#include "hw/agx/agx-usc.h"

typedef struct AgxGpuMem {
    AgxUat *uat;
    unsigned slot;
    AgxUatAgent agent;
    bool faulted;               /* an access faulted: fault says where */
    AgxUatFault fault;
} AgxGpuMem;

/* The job's VM in context slot @slot, as the GPU sees it */
static inline AgxGpuMem agx_gpu_mem_job(AgxUat *uat, unsigned slot)
{
    return (AgxGpuMem) { .uat = uat, .slot = slot, .agent = AGX_UAT_GPU };
}

/* The kernel's objects, as the firmware sees them */
static inline AgxGpuMem agx_gpu_mem_kernel(AgxUat *uat)
{
    return (AgxGpuMem) { .uat = uat, .slot = 0, .agent = AGX_UAT_FW };
}

/*
 * A GPU address from a 40-bit field (stream links, indirect grids and
 * draws, Uniform words): bit 39 picks the UAT half, as the upper half's
 * addresses are the sign extension of their low 40 bits (inferred:
 * drm/asahi puts user memory in the lower half, where it makes no
 * difference)
 */
static inline uint64_t agx_gpu_va40(uint64_t va)
{
    return (uint64_t)((int64_t)(va << 24) >> 24);
}

/* Read or write @len bytes at @va: false (and @m's fault set) on a fault */
bool agx_gpu_mem_rw(AgxGpuMem *m, uint64_t va, void *buf, uint32_t len,
                    bool is_write);

/* The same as the shader interpreter's memory (opaque: the AgxGpuMem) */
extern const AgxUscMemOps agx_gpu_mem_usc_ops;

/* The same as the scene's memory (AgxSceneMem's read and write) */
bool agx_gpu_mem_read(void *opaque, uint64_t va, void *buf, uint32_t len);
bool agx_gpu_mem_write(void *opaque, uint64_t va, const void *buf,
                       uint32_t len);

#endif
