/*
 * Apple per-CPU FIQ sources (t8103): fast IPIs, timers, PMU
 *
 * On Apple cores the architectural timers, the fast IPIs and the PMU
 * interrupt arrive on the CPU's FIQ line rather than through the AIC.
 * This device ORs them per CPU and gives the guest the implementation-
 * defined system registers that raise, acknowledge and mask them.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_APPLE_APPLE_FIQ_H
#define HW_APPLE_APPLE_FIQ_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_APPLE_FIQ "apple-fiq"
OBJECT_DECLARE_SIMPLE_TYPE(AppleFIQState, APPLE_FIQ)

#define APPLE_FIQ_MAX_CPUS      32
/*
 * GPIO inputs: CPU n's timer t (GTIMER_PHYS, _VIRT, _HYP, _SEC, _HYPVIRT)
 * is input n * APPLE_FIQ_NUM_TIMERS + t.
 */
#define APPLE_FIQ_NUM_TIMERS    5

typedef struct AppleFIQCPU {
    uint32_t timers;            /* input levels, bit t = timer t */
    uint64_t ipi_sr;
    uint64_t ipi_cr;
    uint64_t pmcr0;
    uint64_t upmcr0;
    uint64_t vm_tmr_fiq_ena;
    uint64_t ich_hcr;           /* vGIC stub for EL2 kernels */
} AppleFIQCPU;

struct AppleFIQState {
    SysBusDevice parent_obj;

    qemu_irq fiq[APPLE_FIQ_MAX_CPUS];   /* to each CPU's ARM_CPU_FIQ */
    AppleFIQCPU cpu[APPLE_FIQ_MAX_CPUS];

    /* Properties */
    uint32_t num_cpu;
};

/* Timer input of CPU @cpu for architectural timer @timer */
static inline int apple_fiq_timer_input(int cpu, int timer)
{
    return cpu * APPLE_FIQ_NUM_TIMERS + timer;
}

#endif
