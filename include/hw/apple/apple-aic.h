/*
 * Apple Interrupt Controller, version 1 (AIC on t8103)
 *
 * One event register per CPU that hands out the lowest-numbered pending,
 * unmasked line routed to that CPU and masks it as it does; per-line
 * target CPU masks; software-set lines ORed with the hardware lines; and
 * two MMIO IPIs per CPU ("other" and "self").
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_APPLE_APPLE_AIC_H
#define HW_APPLE_APPLE_AIC_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_APPLE_AIC "apple-aic"
OBJECT_DECLARE_SIMPLE_TYPE(AppleAICState, APPLE_AIC)

#define APPLE_AIC_SIZE          0x8000
/* The register arrays are sized for this many lines, whatever INFO says */
#define APPLE_AIC_MAX_IRQ       1024
#define APPLE_AIC_IRQ_WORDS     (APPLE_AIC_MAX_IRQ / 32)
/* t8103's line count */
#define APPLE_AIC_T8103_IRQS    896
/* One bit per CPU in TARGET_CPU and IPI_SEND */
#define APPLE_AIC_MAX_CPUS      32

/* Bits of the IPI registers */
#define APPLE_AIC_IPI_OTHER     (1U << 0)
#define APPLE_AIC_IPI_SELF      (1U << 31)

struct AppleAICState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    qemu_irq irq[APPLE_AIC_MAX_CPUS];   /* one IRQ output per CPU */

    uint32_t target[APPLE_AIC_MAX_IRQ];
    uint32_t hw_level[APPLE_AIC_IRQ_WORDS];
    uint32_t sw_pending[APPLE_AIC_IRQ_WORDS];
    uint32_t mask[APPLE_AIC_IRQ_WORDS];
    uint32_t ipi_pending[APPLE_AIC_MAX_CPUS];
    uint32_t ipi_mask[APPLE_AIC_MAX_CPUS];

    /* Properties */
    uint32_t num_irq;
    uint32_t num_cpu;
};

#endif
