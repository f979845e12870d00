/*
 * AGX firmware channels: the shared-memory rings between driver and
 * firmware
 *
 * A channel is a state block (read and write pointers, element indices)
 * and a ring of fixed-size elements, both at firmware VAs translated
 * through the UAT (kernel context).  TX channels are written by the driver
 * and consumed by the firmware, RX channels the other way round.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_CHANNEL_H
#define HW_AGX_AGX_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-uat.h"

#define AGX_CHANNEL_MAX_ELEM    0x40

typedef enum AgxChannelResult {
    AGX_CHANNEL_OK,
    AGX_CHANNEL_EMPTY,          /* TX: nothing to consume */
    AGX_CHANNEL_FULL,           /* RX: the driver has not caught up */
    AGX_CHANNEL_BAD_PTR,        /* a pointer the driver wrote is >= count */
    AGX_CHANNEL_FAULT,          /* the UAT refused an access */
} AgxChannelResult;

typedef struct AgxChannel {
    /* Layout, from the channel table and InitData */
    const char *name;
    uint64_t state_va;
    uint64_t ring_va;
    uint32_t count;
    uint32_t elem_size;
    uint32_t rptr_off;          /* in the state block */
    uint32_t wptr_off;
    uint32_t ring_first;        /* first element (FWLog sub-rings) */
    bool tx;                    /* driver -> firmware */
    bool valid;                 /* set up from InitData */

    /* The firmware's own pointer: read pointer (TX) or write pointer (RX) */
    uint32_t fw_ptr;
} AgxChannel;

/* Check that the state block and ring are mapped for the firmware */
bool agx_channel_check(AgxChannel *ch, AgxUat *uat, AgxUatFault *fault);

/*
 * TX: copy the next element into @elem without consuming it.  The caller
 * acts on it, then calls agx_channel_consume(), which publishes the new
 * read pointer: the driver sees an entry as done only after its effect.
 */
AgxChannelResult agx_channel_peek(AgxChannel *ch, AgxUat *uat, void *elem,
                                  AgxUatFault *fault);
AgxChannelResult agx_channel_consume(AgxChannel *ch, AgxUat *uat,
                                     AgxUatFault *fault);

/* RX: append @elem and publish the write pointer */
AgxChannelResult agx_channel_produce(AgxChannel *ch, AgxUat *uat,
                                     const void *elem, AgxUatFault *fault);

/* Element @index (relative to ring_first) of the ring, for payloads */
uint64_t agx_channel_elem_va(const AgxChannel *ch, uint32_t index);

#endif
