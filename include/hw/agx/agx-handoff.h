/*
 * AGX UAT handoff: the structure the driver and the GPU firmware share to
 * agree on page-table changes (Dekker lock, active context slot, per-slot
 * flush requests), firmware side
 *
 * QEMU-independent.  The firmware never spins: if the AP holds the lock,
 * agx_handoff_try_lock() fails and the caller retries later.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_HANDOFF_H
#define HW_AGX_AGX_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-uat.h"

#define AGX_HANDOFF_SIZE        0x648
#define AGX_HANDOFF_MAGIC       0x4b1d000000000002ULL
#define AGX_HANDOFF_FLUSH_SLOTS 65     /* 64 contexts + the kernel (TTBR1) */

/* Field offsets */
enum {
    AGX_HANDOFF_MAGIC_AP = 0x000,
    AGX_HANDOFF_MAGIC_FW = 0x008,
    AGX_HANDOFF_LOCK_AP = 0x010,
    AGX_HANDOFF_LOCK_FW = 0x011,
    AGX_HANDOFF_TURN = 0x014,
    AGX_HANDOFF_CUR_SLOT = 0x018,
    AGX_HANDOFF_FLUSH = 0x020,          /* {state, addr, size} u64 each */
    AGX_HANDOFF_UNK2 = 0x638,
    AGX_HANDOFF_UNK3 = 0x640,
};

/* flush[i].state values */
enum {
    AGX_HANDOFF_FLUSH_IDLE = 0,
    AGX_HANDOFF_FLUSH_REQUESTED = 1,
    AGX_HANDOFF_FLUSH_DONE = 2,
};

typedef struct AgxHandoff {
    AgxPhys phys;
    uint64_t pa;
    bool locked;                /* the firmware holds the lock */
} AgxHandoff;

void agx_handoff_init(AgxHandoff *h, AgxPhysRW phys_rw, void *opaque,
                      uint64_t pa);

/* Firmware boot: publish the magic the driver polls for */
bool agx_handoff_boot(AgxHandoff *h);

/* Firmware side of the Dekker lock; false if the AP holds it (retry) */
bool agx_handoff_try_lock(AgxHandoff *h);
void agx_handoff_unlock(AgxHandoff *h);

/* Under the lock: make @slot the active context (0xffffffff = none) */
bool agx_handoff_set_cur_slot(AgxHandoff *h, uint32_t slot);
uint32_t agx_handoff_cur_slot(AgxHandoff *h);

/*
 * Complete the flush request of @slot if one is pending (state 1 -> 2).
 * Returns false if the state was not "requested" or memory failed.
 */
bool agx_handoff_complete_flush(AgxHandoff *h, unsigned slot,
                                uint64_t *addr, uint64_t *size);

#endif
