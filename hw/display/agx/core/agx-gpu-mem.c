/*
 * AGX firmware: memory as a pipe's GPU work sees it (agx-gpu-mem.h)
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "hw/agx/agx-gpu-mem.h"

bool agx_gpu_mem_rw(AgxGpuMem *m, uint64_t va, void *buf, uint32_t len,
                    bool is_write)
{
    if (agx_uat_rw(m->uat, m->slot, va, buf, len, m->agent, is_write,
                   &m->fault)) {
        return true;
    }
    m->faulted = true;
    return false;
}

bool agx_gpu_mem_read(void *opaque, uint64_t va, void *buf, uint32_t len)
{
    return agx_gpu_mem_rw(opaque, va, buf, len, false);
}

bool agx_gpu_mem_write(void *opaque, uint64_t va, const void *buf,
                       uint32_t len)
{
    return agx_gpu_mem_rw(opaque, va, (void *)buf, len, true);
}

static bool gpu_mem_usc_read(void *opaque, uint64_t va, void *buf,
                             uint32_t len, uint64_t *fault_va)
{
    AgxGpuMem *m = opaque;

    if (agx_gpu_mem_rw(m, va, buf, len, false)) {
        return true;
    }
    *fault_va = m->fault.va;
    return false;
}

static bool gpu_mem_usc_write(void *opaque, uint64_t va, const void *buf,
                              uint32_t len, uint64_t *fault_va)
{
    AgxGpuMem *m = opaque;

    if (agx_gpu_mem_rw(m, va, (void *)buf, len, true)) {
        return true;
    }
    *fault_va = m->fault.va;
    return false;
}

const AgxUscMemOps agx_gpu_mem_usc_ops = {
    .read = gpu_mem_usc_read,
    .write = gpu_mem_usc_write,
};
