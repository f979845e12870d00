/*
 * Apple ASC mailbox (v4), as found at +0x8000 of every t8103 ASC block
 *
 * Two FIFOs of 96-bit messages: A2I (AP to coprocessor, the AP's "send")
 * and I2A (coprocessor to AP, the AP's "receive").  The AP side is the
 * MMIO region; the coprocessor side is the C API below.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_APPLE_APPLE_MBOX_H
#define HW_APPLE_APPLE_MBOX_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_APPLE_MBOX "apple-asc-mailbox"
OBJECT_DECLARE_SIMPLE_TYPE(AppleMboxState, APPLE_MBOX)

#define APPLE_MBOX_SIZE         0x4000
/* Depth of each FIFO; m1n1's 4-bit FIFO pointers agree with 16 */
#define APPLE_MBOX_FIFO_DEPTH   16

/* Interrupt outputs, in the order of the DT binding's interrupt-names */
enum {
    APPLE_MBOX_IRQ_SEND_EMPTY,
    APPLE_MBOX_IRQ_SEND_NOT_EMPTY,
    APPLE_MBOX_IRQ_RECV_EMPTY,
    APPLE_MBOX_IRQ_RECV_NOT_EMPTY,
    APPLE_MBOX_NUM_IRQS,
};

typedef struct AppleMboxFifo {
    uint64_t msg0[APPLE_MBOX_FIFO_DEPTH];
    uint64_t msg1[APPLE_MBOX_FIFO_DEPTH];
    uint32_t head;
    uint32_t count;
} AppleMboxFifo;

struct AppleMboxState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    qemu_irq irq[APPLE_MBOX_NUM_IRQS];

    AppleMboxFifo a2i;
    AppleMboxFifo i2a;
    uint64_t send0;             /* A2I_SEND0, committed by A2I_SEND1 */

    /*
     * Coprocessor side: called when the AP queued a message, or took one
     * (so there is room for more).
     */
    void (*notify)(void *opaque);
    void *opaque;
};

void apple_mbox_set_notify(AppleMboxState *s, void (*notify)(void *opaque),
                           void *opaque);
/* Take the oldest message the AP sent; false if none */
bool apple_mbox_iop_recv(AppleMboxState *s, uint64_t *msg0, uint64_t *msg1);
/* Queue a message for the AP; false if the FIFO is full */
bool apple_mbox_iop_send(AppleMboxState *s, uint64_t msg0, uint64_t msg1);
bool apple_mbox_iop_can_send(AppleMboxState *s);

#endif
