/*
 * Apple ASC coprocessor: CPU control registers, mailbox, RTKit firmware
 *
 * The coprocessor's firmware is not executed: RTKit (hw/apple/rtkit.h) plays
 * its part of the protocol.  This device is what every Apple coprocessor
 * (GPU, ANS, DCP, SMC, SEP) has in common; subclasses bring their own
 * policy: the system endpoints their firmware advertises, their firmware
 * version, application endpoints and IOVA translation (the GPU's UAT:
 * hw/display/apple-agx.h).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_APPLE_APPLE_ASC_H
#define HW_APPLE_APPLE_ASC_H

#include "hw/sysbus.h"
#include "qom/object.h"
#include "migration/vmstate.h"
#include "hw/apple/apple-mbox.h"
#include "hw/apple/rtkit.h"

#define TYPE_APPLE_ASC "apple-asc"
OBJECT_DECLARE_TYPE(AppleASCState, AppleASCClass, APPLE_ASC)

/* The ASC block: CPU control at +0, the mailbox at +0x8000 */
#define APPLE_ASC_SIZE          0x40000
#define APPLE_ASC_MBOX_OFFSET   0x8000

/*
 * GPIO inputs from the PMGR domain the coprocessor sits in (unconnected:
 * always on).  Without its clock, none of its register blocks answers and
 * its firmware stands still; without power, it also loses its state: it
 * is reset, as the AP finds it when power returns.
 */
#define APPLE_ASC_GPIO_CLOCKED  "clocked"
#define APPLE_ASC_GPIO_POWERED  "powered"
/* The ASC block, and the subclass's register blocks (apple_asc_add_gate) */
#define APPLE_ASC_MAX_GATES     2

struct AppleASCState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;         /* whole block, CPU control registers */
    AppleMboxState mbox;
    QEMUBH *bh;

    uint32_t cpu_control;
    RTKitState rtk;

    /* The power domain: its clock or power is off */
    bool clock_off;
    bool power_off;
    /* Laid over each register block while the clock is off */
    MemoryRegion gate[APPLE_ASC_MAX_GATES];
    unsigned num_gates;

    /* Properties; subclasses set sys_eps in their instance_init */
    uint32_t sys_eps;
};

struct AppleASCClass {
    SysBusDeviceClass parent_class;

    /* Register application endpoints with RTKit before it first boots */
    void (*setup_endpoints)(AppleASCState *s);
    /* The coprocessor CPU started (RUN set) or stopped (RUN clear, reset) */
    void (*cpu_started)(AppleASCState *s);
    void (*cpu_stopped)(AppleASCState *s);
    /* Access AP memory at an IOVA the AP handed to the firmware */
    bool (*iova_rw)(AppleASCState *s, uint64_t iova, void *buf,
                    uint64_t len, bool is_write);
    /* The clock came back: resume what stood still (timers) */
    void (*clock_resumed)(AppleASCState *s);
};

/* For subclasses, whose VMState must include it */
extern const VMStateDescription vmstate_apple_asc;

/* Access guest RAM by physical address; false for anything that is not RAM */
bool apple_asc_ram_rw(uint64_t addr, void *buf, uint64_t len, bool is_write);

/* Kick the firmware: move messages between the mailbox and RTKit */
void apple_asc_kick(AppleASCState *s);

/*
 * A subclass's own register block @mr (of its realize) stops answering
 * too while the power domain's clock is off
 */
void apple_asc_add_gate(AppleASCState *s, MemoryRegion *mr);

#endif
