/*
 * Apple PMGR power-state registers ("apple,pmgr-pwrstate"), as on t8103
 *
 * A block of 32-bit registers, one per power domain: the state written to
 * the target field is reached at once, so the actual field follows it.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_APPLE_APPLE_PMGR_H
#define HW_APPLE_APPLE_PMGR_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_APPLE_PMGR "apple-pmgr"
OBJECT_DECLARE_SIMPLE_TYPE(ApplePMGRState, APPLE_PMGR)

/* Largest block modelled: t8103's main PMGR is 0x14000 bytes */
#define APPLE_PMGR_MAX_SIZE     0x20000

struct ApplePMGRState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    uint32_t *regs;
    uint32_t num_regs;

    /* Properties */
    uint32_t size;
    uint32_t reset_value;
};

#endif
