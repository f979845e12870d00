/*
 * AGX firmware core: typed access to physical guest memory
 *
 * The owner of the core (QEMU, or a test bed) gives it guest RAM as one
 * AgxPhysRW function; these accessors are the only way the core reads or
 * writes a typed value at a physical address.  Values are little endian
 * and need no alignment.  Every accessor returns false, and leaves *val
 * alone, if any byte is not RAM.  Through a UAT context: uat.h.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_PHYS_H
#define HW_AGX_AGX_PHYS_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/apple/apple-bits.h"

/* Physical guest memory: false if [pa, pa + len) is not RAM */
typedef bool (*AgxPhysRW)(void *opaque, uint64_t pa, void *buf, uint64_t len,
                          bool is_write);

/* Guest RAM as its owner gives it */
typedef struct AgxPhys {
    AgxPhysRW rw;
    void *opaque;
} AgxPhys;

static inline bool agx_phys_ld8(const AgxPhys *m, uint64_t pa, uint8_t *val)
{
    return m->rw(m->opaque, pa, val, 1, false);
}

static inline bool agx_phys_st8(const AgxPhys *m, uint64_t pa, uint8_t val)
{
    return m->rw(m->opaque, pa, &val, 1, true);
}

static inline bool agx_phys_ld32(const AgxPhys *m, uint64_t pa,
                                 uint32_t *val)
{
    uint8_t b[4];

    if (!m->rw(m->opaque, pa, b, sizeof(b), false)) {
        return false;
    }
    *val = apple_ld32(b);
    return true;
}

static inline bool agx_phys_st32(const AgxPhys *m, uint64_t pa, uint32_t val)
{
    uint8_t b[4];

    apple_st32(b, val);
    return m->rw(m->opaque, pa, b, sizeof(b), true);
}

static inline bool agx_phys_ld64(const AgxPhys *m, uint64_t pa,
                                 uint64_t *val)
{
    uint8_t b[8];

    if (!m->rw(m->opaque, pa, b, sizeof(b), false)) {
        return false;
    }
    *val = apple_ld64(b);
    return true;
}

static inline bool agx_phys_st64(const AgxPhys *m, uint64_t pa, uint64_t val)
{
    uint8_t b[8];

    apple_st64(b, val);
    return m->rw(m->opaque, pa, b, sizeof(b), true);
}

#endif
