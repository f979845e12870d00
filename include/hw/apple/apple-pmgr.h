/*
 * Apple PMGR power-state registers ("apple,pmgr-pwrstate"), as on t8103
 *
 * A block of 32-bit registers, one per power domain: the state written to
 * the target field is reached at once, so the actual field follows it.
 *
 * The domains named by the "watch" property (register offsets) drive two
 * named GPIO outputs each, for the devices in them: "clocked" (the domain
 * is active: powered and clocked) and "powered" (active or clock-gated,
 * so its devices keep their state).  Both are high at reset.
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
/* Domains whose state is signalled to the devices in them */
#define APPLE_PMGR_MAX_WATCH    8
#define APPLE_PMGR_GPIO_CLOCKED "clocked"
#define APPLE_PMGR_GPIO_POWERED "powered"

struct ApplePMGRState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    uint32_t *regs;
    uint32_t num_regs;
    qemu_irq clocked[APPLE_PMGR_MAX_WATCH];
    qemu_irq powered[APPLE_PMGR_MAX_WATCH];

    /* Properties */
    uint32_t size;
    uint32_t reset_value;
    uint32_t num_watch;
    uint32_t *watch;            /* register offsets */
};

#endif
