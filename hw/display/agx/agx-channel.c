/*
 * AGX firmware channels
 *
 * The driver never range-checks pointers the firmware writes, and the
 * firmware must not trust the driver's: every pointer read from guest
 * memory is checked against the ring size before use.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-bits.h"
#include "hw/agx/agx-channel.h"

static bool chan_ld32(AgxUat *uat, uint64_t va, uint32_t *val,
                      AgxUatFault *fault)
{
    uint8_t b[4];

    if (!agx_uat_rw(uat, 0, va, b, 4, AGX_UAT_FW, false, fault)) {
        return false;
    }
    *val = agx_ld32(b);
    return true;
}

static bool chan_st32(AgxUat *uat, uint64_t va, uint32_t val,
                      AgxUatFault *fault)
{
    uint8_t b[4];

    agx_st32(b, val);
    return agx_uat_rw(uat, 0, va, b, 4, AGX_UAT_FW, true, fault);
}

uint64_t agx_channel_elem_va(const AgxChannel *ch, uint32_t index)
{
    return ch->ring_va + (uint64_t)(ch->ring_first + index) * ch->elem_size;
}

bool agx_channel_check(AgxChannel *ch, AgxUat *uat, AgxUatFault *fault)
{
    uint64_t ring_len = (uint64_t)ch->count * ch->elem_size;
    uint64_t pa, left, off;

    if (!agx_uat_translate(uat, 0, ch->state_va + ch->rptr_off, AGX_UAT_FW,
                           true, &pa, &left, fault) ||
        !agx_uat_translate(uat, 0, ch->state_va + ch->wptr_off, AGX_UAT_FW,
                           true, &pa, &left, fault)) {
        return false;
    }
    /* One probe per page of the ring, plus its last byte */
    for (off = 0; off < ring_len; off += left) {
        if (!agx_uat_translate(uat, 0, agx_channel_elem_va(ch, 0) + off,
                               AGX_UAT_FW, !ch->tx, &pa, &left, fault)) {
            return false;
        }
    }
    return true;
}

AgxChannelResult agx_channel_peek(AgxChannel *ch, AgxUat *uat, void *elem,
                                  AgxUatFault *fault)
{
    uint32_t wptr;

    if (!chan_ld32(uat, ch->state_va + ch->wptr_off, &wptr, fault)) {
        return AGX_CHANNEL_FAULT;
    }
    if (wptr >= ch->count) {
        return AGX_CHANNEL_BAD_PTR;
    }
    if (wptr == ch->fw_ptr) {
        return AGX_CHANNEL_EMPTY;
    }
    if (!agx_uat_rw(uat, 0, agx_channel_elem_va(ch, ch->fw_ptr), elem,
                    ch->elem_size, AGX_UAT_FW, false, fault)) {
        return AGX_CHANNEL_FAULT;
    }
    return AGX_CHANNEL_OK;
}

AgxChannelResult agx_channel_consume(AgxChannel *ch, AgxUat *uat,
                                     AgxUatFault *fault)
{
    ch->fw_ptr = (ch->fw_ptr + 1) % ch->count;
    if (!chan_st32(uat, ch->state_va + ch->rptr_off, ch->fw_ptr, fault)) {
        return AGX_CHANNEL_FAULT;
    }
    return AGX_CHANNEL_OK;
}

AgxChannelResult agx_channel_produce(AgxChannel *ch, AgxUat *uat,
                                     const void *elem, AgxUatFault *fault)
{
    uint32_t rptr, next = (ch->fw_ptr + 1) % ch->count;

    if (!chan_ld32(uat, ch->state_va + ch->rptr_off, &rptr, fault)) {
        return AGX_CHANNEL_FAULT;
    }
    if (rptr >= ch->count) {
        return AGX_CHANNEL_BAD_PTR;
    }
    if (next == rptr) {
        return AGX_CHANNEL_FULL;
    }
    if (!agx_uat_rw(uat, 0, agx_channel_elem_va(ch, ch->fw_ptr),
                    (void *)elem, ch->elem_size, AGX_UAT_FW, true, fault)) {
        return AGX_CHANNEL_FAULT;
    }
    ch->fw_ptr = next;
    if (!chan_st32(uat, ch->state_va + ch->wptr_off, next, fault)) {
        return AGX_CHANNEL_FAULT;
    }
    return AGX_CHANNEL_OK;
}
