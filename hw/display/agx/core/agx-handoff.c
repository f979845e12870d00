/*
 * AGX UAT handoff, firmware side
 *
 * The handoff structure lives in guest RAM and is shared with the driver.
 * Its lock is Dekker's algorithm for two parties: each side raises its
 * own flag (lock_ap, lock_fw) and then looks at the other one; "turn"
 * says who yields when both want in (0: the firmware yields, 1: the AP
 * yields).  The AP yields by lowering its flag and waiting for turn to
 * become 0, which only the firmware can write.
 *
 * The firmware model may not wait for the AP, so it only ever tries once:
 * if the AP's flag is up it backs off exactly as it would unlock, lowering
 * its own flag and handing the turn to the AP (turn = 0).  The AP, if it
 * was yielding, then sees turn == 0 and lock_fw == 0 and gets in.  Mutual
 * exclusion only rests on the flags (raise own, full barrier, check
 * other), so writing turn on the way out cannot let both in.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-handoff.h"

/* flush[i]: {state, addr, size} */
#define HANDOFF_FLUSH_STRIDE    0x18
#define HANDOFF_FLUSH_STATE     0x00
#define HANDOFF_FLUSH_ADDR      0x08
#define HANDOFF_FLUSH_SIZE      0x10
#define HANDOFF_SLOT_NONE       0xffffffffu

/* Who yields when both flags are up */
enum {
    HANDOFF_TURN_FW_YIELDS = 0,
    HANDOFF_TURN_AP_YIELDS = 1,
};

void agx_handoff_init(AgxHandoff *h, AgxPhysRW phys_rw, void *opaque,
                      uint64_t pa)
{
    memset(h, 0, sizeof(*h));
    h->phys.rw = phys_rw;
    h->phys.opaque = opaque;
    h->pa = pa;
}

/*
 * The AP's side runs on other host threads: the store of our flag must be
 * visible before we read theirs (Dekker's store -> load ordering).
 */
static void handoff_barrier(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

bool agx_handoff_boot(AgxHandoff *h)
{
    /* The AP polls for this while it holds the lock: no locking here */
    h->locked = false;
    return agx_phys_st64(&h->phys, h->pa + AGX_HANDOFF_MAGIC_FW,
                         AGX_HANDOFF_MAGIC);
}

/*
 * Lower our flag, then leave the turn to the AP.  In this order: the AP
 * may be unlocking (turn = 1) and locking again right now.  Had we written
 * turn first, it could overwrite it, still see our flag up, back off and
 * wait for a turn == 0 that nobody writes any more.  Once our flag is
 * down, the AP can only back off on a turn read before our store below.
 */
static void handoff_release(AgxHandoff *h)
{
    /* A handoff that is not RAM has no lock to release: nothing to check */
    agx_phys_st8(&h->phys, h->pa + AGX_HANDOFF_LOCK_FW, 0);
    handoff_barrier();
    agx_phys_st32(&h->phys, h->pa + AGX_HANDOFF_TURN, HANDOFF_TURN_FW_YIELDS);
    handoff_barrier();
}

bool agx_handoff_try_lock(AgxHandoff *h)
{
    uint8_t lock_ap;

    if (h->locked) {
        return true;
    }
    if (!agx_phys_st8(&h->phys, h->pa + AGX_HANDOFF_LOCK_FW, 1)) {
        return false;
    }
    handoff_barrier();
    if (!agx_phys_ld8(&h->phys, h->pa + AGX_HANDOFF_LOCK_AP, &lock_ap)) {
        handoff_release(h);
        return false;
    }
    if (lock_ap) {
        /* The AP holds the lock or wants it: never wait for it */
        handoff_release(h);
        return false;
    }
    h->locked = true;
    return true;
}

void agx_handoff_unlock(AgxHandoff *h)
{
    if (!h->locked) {
        return;
    }
    h->locked = false;
    handoff_release(h);
}

bool agx_handoff_set_cur_slot(AgxHandoff *h, uint32_t slot)
{
    if (!h->locked) {
        return false;
    }
    return agx_phys_st32(&h->phys, h->pa + AGX_HANDOFF_CUR_SLOT, slot);
}

uint32_t agx_handoff_cur_slot(AgxHandoff *h)
{
    uint32_t slot;

    if (!agx_phys_ld32(&h->phys, h->pa + AGX_HANDOFF_CUR_SLOT, &slot)) {
        return HANDOFF_SLOT_NONE;
    }
    return slot;
}

bool agx_handoff_complete_flush(AgxHandoff *h, unsigned slot,
                                uint64_t *addr, uint64_t *size)
{
    unsigned off;
    uint64_t state;

    if (slot >= AGX_HANDOFF_FLUSH_SLOTS) {
        return false;
    }
    off = AGX_HANDOFF_FLUSH + slot * HANDOFF_FLUSH_STRIDE;
    if (!agx_phys_ld64(&h->phys, h->pa + off + HANDOFF_FLUSH_STATE,
                       &state) ||
        state != AGX_HANDOFF_FLUSH_REQUESTED) {
        return false;
    }
    if (!agx_phys_ld64(&h->phys, h->pa + off + HANDOFF_FLUSH_ADDR, addr) ||
        !agx_phys_ld64(&h->phys, h->pa + off + HANDOFF_FLUSH_SIZE, size)) {
        return false;
    }
    return agx_phys_st64(&h->phys, h->pa + off + HANDOFF_FLUSH_STATE,
                         AGX_HANDOFF_FLUSH_DONE);
}
