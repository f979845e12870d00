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
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-channel.h"

/* Channels live in the kernel context */
#define CHAN_CTX    0

uint64_t agx_channel_elem_va(const AgxChannel *ch, uint32_t index)
{
    return ch->ring_va + (uint64_t)(ch->ring_first + index) * ch->elem_size;
}

bool agx_channel_check(AgxChannel *ch, AgxUat *uat, AgxUatFault *fault)
{
    uint64_t ring_len = (uint64_t)ch->count * ch->elem_size;
    uint64_t pa, left, off;

    if (!agx_uat_translate(uat, CHAN_CTX, ch->state_va + ch->rptr_off,
                           AGX_UAT_FW, true, &pa, &left, fault) ||
        !agx_uat_translate(uat, CHAN_CTX, ch->state_va + ch->wptr_off,
                           AGX_UAT_FW, true, &pa, &left, fault)) {
        return false;
    }
    /* One probe per page of the ring, plus its last byte */
    for (off = 0; off < ring_len; off += left) {
        if (!agx_uat_translate(uat, CHAN_CTX,
                               agx_channel_elem_va(ch, 0) + off, AGX_UAT_FW,
                               !ch->tx, &pa, &left, fault)) {
            return false;
        }
    }
    return true;
}

AgxChannelResult agx_channel_peek(AgxChannel *ch, AgxUat *uat, void *elem,
                                  AgxUatFault *fault)
{
    uint32_t wptr;

    if (!agx_uat_ld32(uat, CHAN_CTX, ch->state_va + ch->wptr_off, &wptr,
                      fault)) {
        return AGX_CHANNEL_FAULT;
    }
    if (wptr >= ch->count) {
        return AGX_CHANNEL_BAD_PTR;
    }
    if (wptr == ch->fw_ptr) {
        return AGX_CHANNEL_EMPTY;
    }
    if (!agx_uat_rw(uat, CHAN_CTX, agx_channel_elem_va(ch, ch->fw_ptr), elem,
                    ch->elem_size, AGX_UAT_FW, false, fault)) {
        return AGX_CHANNEL_FAULT;
    }
    return AGX_CHANNEL_OK;
}

AgxChannelResult agx_channel_consume(AgxChannel *ch, AgxUat *uat,
                                     AgxUatFault *fault)
{
    ch->fw_ptr = (ch->fw_ptr + 1) % ch->count;
    if (!agx_uat_st32(uat, CHAN_CTX, ch->state_va + ch->rptr_off, ch->fw_ptr,
                      fault)) {
        return AGX_CHANNEL_FAULT;
    }
    return AGX_CHANNEL_OK;
}

AgxChannelResult agx_channel_produce(AgxChannel *ch, AgxUat *uat,
                                     const void *elem, AgxUatFault *fault)
{
    uint32_t rptr, next = (ch->fw_ptr + 1) % ch->count;

    if (!agx_uat_ld32(uat, CHAN_CTX, ch->state_va + ch->rptr_off, &rptr,
                      fault)) {
        return AGX_CHANNEL_FAULT;
    }
    if (rptr >= ch->count) {
        return AGX_CHANNEL_BAD_PTR;
    }
    if (next == rptr) {
        return AGX_CHANNEL_FULL;
    }
    if (!agx_uat_rw(uat, CHAN_CTX, agx_channel_elem_va(ch, ch->fw_ptr),
                    (void *)elem, ch->elem_size, AGX_UAT_FW, true, fault)) {
        return AGX_CHANNEL_FAULT;
    }
    ch->fw_ptr = next;
    if (!agx_uat_st32(uat, CHAN_CTX, ch->state_va + ch->wptr_off, next,
                      fault)) {
        return AGX_CHANNEL_FAULT;
    }
    return AGX_CHANNEL_OK;
}
