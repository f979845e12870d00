/*
 * AGX UAT: the G13 GPU/firmware MMU, as seen by the firmware model
 *
 * A page-table walker over guest RAM.  Descriptors are 64-bit little
 * endian; tables and pages are 16 KiB; a 39-bit half of the address space
 * is resolved in three levels (VA[38:36], VA[35:25], VA[24:14]).  Every
 * table read goes through phys_rw(), so a table pointer that leaves guest
 * RAM becomes a fault, never a host access.  Nothing is cached: the driver
 * edits live page tables and only tells the CPU TLBs about it.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-uat.h"

/* TTBAT entry (TTBR0 or TTBR1 of a context slot) */
APPLE_FIELD(UAT_TTB, VALID, 0, 1);
APPLE_FIELD(UAT_TTB, BASE, 14, 26);
APPLE_FIELD(UAT_TTB, ASID, 48, 16);

/* Table and page descriptors */
APPLE_FIELD(UAT_PTE, TYPE, 0, 2);
APPLE_FIELD(UAT_PTE, ATTR, 2, 3);
APPLE_FIELD(UAT_PTE, AP, 6, 2);
APPLE_FIELD(UAT_PTE, AF, 10, 1);
APPLE_FIELD(UAT_PTE, NG, 11, 1);
APPLE_FIELD(UAT_PTE, OUT, 14, 26);        /* output address bits 39:14 */
APPLE_FIELD(UAT_PTE, PXN, 53, 1);
APPLE_FIELD(UAT_PTE, UXN, 54, 1);
APPLE_FIELD(UAT_PTE, OS, 55, 1);          /* "GPU access", OS-owned */

/* SGX FAULT_INFO */
APPLE_FIELD(UAT_FAULT_INFO, VALID, 0, 1);
APPLE_FIELD(UAT_FAULT_INFO, REASON, 1, 3);
APPLE_FIELD(UAT_FAULT_INFO, READ, 4, 1);
APPLE_FIELD(UAT_FAULT_INFO, LEVEL, 7, 2);
APPLE_FIELD(UAT_FAULT_INFO, UNIT, 9, 8);
APPLE_FIELD(UAT_FAULT_INFO, SLOT, 17, 6);
APPLE_FIELD(UAT_FAULT_INFO, SIDEBAND, 23, 7);
APPLE_FIELD(UAT_FAULT_INFO, ADDR, 30, 34);        /* address bits 39:6 */

#define UAT_PTE_TYPE_TABLE_OR_PAGE      3
#define UAT_HALF_SHIFT                  AGX_UAT_IAS
/* VA bits 63:39 of an upper-half address: all ones */
#define UAT_UPPER_TAG                   (~0ULL >> UAT_HALF_SHIFT)

/* Shift and entry count of each level's index into the VA */
static const struct {
    unsigned shift;
    unsigned entries;
} uat_levels[AGX_UAT_LEVELS] = {
    { 36, 8 },
    { 25, 2048 },
    { 14, 2048 },
};

enum {
    PERM_R = 1,
    PERM_W = 2,
    PERM_RW = PERM_R | PERM_W,
};

/*
 * Access rights, indexed by [AP][(UXN << 1) | PXN].  With the OS bit set
 * (every page the driver maps) the firmware and the GPU each have their
 * own table.  AP0 with index 2 is the driver's unused "FW_GPU_WO": write
 * only for both agents.
 */
static const uint8_t uat_perm_os_fw[4][4] = {
    { 0, PERM_R, PERM_W, PERM_RW },
    { PERM_R, 0, PERM_RW, PERM_RW },
    { 0, 0, 0, 0 },
    { 0, 0, 0, 0 },
};

static const uint8_t uat_perm_os_gpu[4][4] = {
    { 0, PERM_R, PERM_W, PERM_RW },
    { 0, 0, 0, PERM_R },
    { PERM_R, PERM_W, PERM_RW, 0 },
    { 0, 0, 0, 0 },
};

/*
 * Without the OS bit the page belongs to the firmware's own SPRR setup:
 * the GPU gets nothing and the firmware whatever either of its exception
 * levels may do (execute rights count as reads).
 */
static const uint8_t uat_perm_fw_owned[4][4] = {
    { 0, 0, 0, PERM_RW },
    { 0, PERM_RW, 0, PERM_RW },
    { PERM_R, PERM_R, 0, PERM_R },
    { PERM_R, PERM_RW, 0, PERM_R },
};

void agx_uat_init(AgxUat *uat, AgxPhysRW phys_rw, void *opaque,
                  uint64_t ttbat)
{
    memset(uat, 0, sizeof(*uat));
    uat->phys.rw = phys_rw;
    uat->phys.opaque = opaque;
    uat->ttbat = ttbat;
}

void agx_uat_tlb_begin(AgxUat *uat)
{
    if (!uat->tlb_depth++) {
        uat->tlb_gen++;
    }
}

void agx_uat_tlb_end(AgxUat *uat)
{
    if (uat->tlb_depth && !--uat->tlb_depth) {
        uat->tlb_gen++;
    }
}

static AgxUatTlbEntry *uat_tlb_entry(AgxUat *uat, unsigned slot,
                                     uint64_t page)
{
    return &uat->tlb[(page ^ slot) % AGX_UAT_TLB_SIZE];
}

static bool uat_tlb_lookup(AgxUat *uat, unsigned slot, uint64_t va,
                           uint64_t *desc)
{
    uint64_t page = va >> AGX_UAT_PAGE_BITS;
    AgxUatTlbEntry *e = uat_tlb_entry(uat, slot, page);

    if (!uat->tlb_depth || e->gen != uat->tlb_gen || e->page != page ||
        e->slot != slot) {
        return false;
    }
    *desc = e->desc;
    return true;
}

static void uat_tlb_fill(AgxUat *uat, unsigned slot, uint64_t va,
                         uint64_t desc)
{
    uint64_t page = va >> AGX_UAT_PAGE_BITS;
    AgxUatTlbEntry *e = uat_tlb_entry(uat, slot, page);

    if (uat->tlb_depth) {
        *e = (AgxUatTlbEntry) {
            .page = page, .desc = desc, .gen = uat->tlb_gen, .slot = slot,
        };
    }
}

bool agx_uat_get_ttbs(AgxUat *uat, unsigned slot, uint64_t *ttb0,
                      uint64_t *ttb1)
{
    uint64_t base = uat->ttbat + (uint64_t)slot * 16;

    if (slot >= AGX_UAT_NUM_SLOTS) {
        return false;
    }
    return agx_phys_ld64(&uat->phys, base, ttb0) &&
           agx_phys_ld64(&uat->phys, base + 8, ttb1);
}

static unsigned uat_perms(uint64_t pte, AgxUatAgent agent)
{
    unsigned ap = APPLE_FIELD_EX64(pte, UAT_PTE, AP);
    unsigned idx = (APPLE_FIELD_EX64(pte, UAT_PTE, UXN) << 1) |
                   APPLE_FIELD_EX64(pte, UAT_PTE, PXN);

    if (!APPLE_FIELD_EX64(pte, UAT_PTE, OS)) {
        return agent == AGX_UAT_FW ? uat_perm_fw_owned[ap][idx] : 0;
    }
    return agent == AGX_UAT_FW ? uat_perm_os_fw[ap][idx]
                               : uat_perm_os_gpu[ap][idx];
}

static bool uat_fail(AgxUatFault *fault, AgxUatFaultReason reason,
                     unsigned level, bool bad_table)
{
    fault->reason = reason;
    fault->level = level;
    fault->bad_table = bad_table;
    return false;
}

/* The tables, from the context's TTB down to the leaf descriptor */
static bool uat_table_walk(AgxUat *uat, unsigned slot, uint64_t va,
                           uint64_t *leaf, AgxUatFault *fault)
{
    uint64_t ttb0, ttb1, ttb, table, desc = 0;

    if (!agx_uat_get_ttbs(uat, slot, &ttb0, &ttb1)) {
        return uat_fail(fault, AGX_UAT_FAULT_UNMAPPED, 0, true);
    }
    if ((va >> UAT_HALF_SHIFT) == 0) {
        ttb = ttb0;
    } else if ((va >> UAT_HALF_SHIFT) == UAT_UPPER_TAG) {
        ttb = ttb1;
    } else {
        /* Non-canonical: neither half */
        return uat_fail(fault, AGX_UAT_FAULT_UNMAPPED, 0, false);
    }
    if (!APPLE_FIELD_EX64(ttb, UAT_TTB, VALID)) {
        return uat_fail(fault, AGX_UAT_FAULT_UNMAPPED, 0, false);
    }

    /*
     * The one alignment the hardware imposes: page tables are 16K pages
     * (the low bits of a TTB or table descriptor are not address bits),
     * and the walker reads naturally aligned 8-byte descriptors.
     */
    table = ttb & APPLE_FIELD_MASK(UAT_TTB, BASE);
    for (unsigned level = 0; level < AGX_UAT_LEVELS; level++) {
        uint64_t idx = (va >> uat_levels[level].shift) &
                       (uat_levels[level].entries - 1);

        if (!agx_phys_ld64(&uat->phys, table + idx * 8, &desc)) {
            return uat_fail(fault, AGX_UAT_FAULT_UNMAPPED, level, true);
        }
        /* No block descriptors: anything but 0b11 is invalid */
        if (APPLE_FIELD_EX64(desc, UAT_PTE, TYPE) !=
            UAT_PTE_TYPE_TABLE_OR_PAGE) {
            return uat_fail(fault, AGX_UAT_FAULT_UNMAPPED, level, false);
        }
        table = desc & APPLE_FIELD_MASK(UAT_PTE, OUT);
    }
    *leaf = desc;
    return true;
}

static bool uat_walk(AgxUat *uat, unsigned slot, uint64_t va,
                     AgxUatAgent agent, bool is_write, uint64_t *pa,
                     uint64_t *page_left, AgxUatFault *fault)
{
    uint64_t desc;
    unsigned level = AGX_UAT_LEVELS - 1, perms;

    memset(fault, 0, sizeof(*fault));
    fault->va = va;
    fault->slot = slot;
    fault->is_write = is_write;

    if (slot >= AGX_UAT_NUM_SLOTS) {
        return uat_fail(fault, AGX_UAT_FAULT_UNMAPPED, 0, false);
    }
    if (!uat_tlb_lookup(uat, slot, va, &desc)) {
        if (!uat_table_walk(uat, slot, va, &desc, fault)) {
            return false;
        }
        uat_tlb_fill(uat, slot, va, desc);
    }

    /* Access flag before permissions, as on Arm */
    if (!APPLE_FIELD_EX64(desc, UAT_PTE, AF)) {
        return uat_fail(fault, AGX_UAT_FAULT_AF, level, false);
    }
    perms = uat_perms(desc, agent);
    if (!perms) {
        return uat_fail(fault, AGX_UAT_FAULT_NO_ACCESS, level, false);
    }
    if (is_write && !(perms & PERM_W)) {
        return uat_fail(fault, AGX_UAT_FAULT_READ_ONLY, level, false);
    }
    if (!is_write && !(perms & PERM_R)) {
        return uat_fail(fault, AGX_UAT_FAULT_WRITE_ONLY, level, false);
    }

    *pa = (desc & APPLE_FIELD_MASK(UAT_PTE, OUT)) |
          (va & (AGX_UAT_PAGE_SIZE - 1));
    if (page_left) {
        *page_left = AGX_UAT_PAGE_SIZE - (va & (AGX_UAT_PAGE_SIZE - 1));
    }
    return true;
}

bool agx_uat_translate(AgxUat *uat, unsigned slot, uint64_t va,
                       AgxUatAgent agent, bool is_write, uint64_t *pa,
                       uint64_t *page_left, AgxUatFault *fault)
{
    AgxUatFault dummy;

    if (!fault) {
        fault = &dummy;
    }
    if (!uat_walk(uat, slot, va, agent, is_write, pa, page_left, fault)) {
        AGX_TRACE(uat->trace, uat_fault, slot, va, is_write, fault->reason,
                  fault->level);
        return false;
    }
    AGX_TRACE(uat->trace, uat_walk, slot, va, is_write, *pa);
    return true;
}

bool agx_uat_rw(AgxUat *uat, unsigned slot, uint64_t va, void *buf,
                uint64_t len, AgxUatAgent agent, bool is_write,
                AgxUatFault *fault)
{
    AgxUatFault dummy;
    uint8_t *p = buf;

    if (!fault) {
        fault = &dummy;
    }
    if (len && va + (len - 1) < va) {
        /* The range wraps past the top of the address space */
        memset(fault, 0, sizeof(*fault));
        fault->va = va;
        fault->slot = slot;
        fault->is_write = is_write;
        return uat_fail(fault, AGX_UAT_FAULT_UNMAPPED, 0, false);
    }

    /* Each round consumes at least one byte and at most one page */
    while (len) {
        uint64_t pa, left, chunk;

        if (!agx_uat_translate(uat, slot, va, agent, is_write, &pa, &left,
                               fault)) {
            return false;
        }
        chunk = MIN(len, left);
        if (!uat->phys.rw(uat->phys.opaque, pa, p, chunk, is_write)) {
            /* The page itself is not RAM */
            return uat_fail(fault, AGX_UAT_FAULT_UNMAPPED, AGX_UAT_LEVELS - 1,
                            true);
        }
        va += chunk;
        p += chunk;
        len -= chunk;
    }
    return true;
}

bool agx_uat_ld32(AgxUat *uat, unsigned slot, uint64_t va, uint32_t *val,
                  AgxUatFault *fault)
{
    uint8_t b[4];

    if (!agx_uat_rw(uat, slot, va, b, sizeof(b), AGX_UAT_FW, false, fault)) {
        return false;
    }
    *val = apple_ld32(b);
    return true;
}

bool agx_uat_st32(AgxUat *uat, unsigned slot, uint64_t va, uint32_t val,
                  AgxUatFault *fault)
{
    uint8_t b[4];

    apple_st32(b, val);
    return agx_uat_rw(uat, slot, va, b, sizeof(b), AGX_UAT_FW, true, fault);
}

uint64_t agx_uat_fault_info(const AgxUatFault *fault, unsigned unit)
{
    uint64_t v = 0;

    v = APPLE_FIELD_DP64(v, UAT_FAULT_INFO, VALID, 1);
    v = APPLE_FIELD_DP64(v, UAT_FAULT_INFO, REASON, fault->reason);
    v = APPLE_FIELD_DP64(v, UAT_FAULT_INFO, READ, !fault->is_write);
    v = APPLE_FIELD_DP64(v, UAT_FAULT_INFO, LEVEL, fault->level);
    v = APPLE_FIELD_DP64(v, UAT_FAULT_INFO, UNIT, unit);
    v = APPLE_FIELD_DP64(v, UAT_FAULT_INFO, SLOT, fault->slot);
    v = APPLE_FIELD_DP64(v, UAT_FAULT_INFO, SIDEBAND, 0);
    v = APPLE_FIELD_DP64(v, UAT_FAULT_INFO, ADDR, fault->va >> 6);
    return v;
}
