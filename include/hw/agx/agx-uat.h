/*
 * AGX UAT: the G13 GPU/firmware MMU, as seen by the firmware model
 *
 * QEMU-independent.  Walks the page tables the driver builds in guest RAM
 * (16 KiB granule, 3 levels, 39-bit halves, 40-bit output) starting from
 * the TTB array (TTBAT: 64 context slots of {TTBR0, TTBR1}).  Every access
 * the firmware makes to driver memory goes through agx_uat_rw(), which
 * checks bounds and permissions and reports faults in the encoding of the
 * SGX FAULT_INFO register.  There is no translation cache: the driver
 * changes page tables without telling the firmware (CPU TLBIs only).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_UAT_H
#define HW_AGX_AGX_UAT_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-phys.h"
#include "hw/agx/agx-trace.h"

#define AGX_UAT_PAGE_BITS       14
#define AGX_UAT_LEVELS          3
#define AGX_UAT_PAGE_SIZE       (1ULL << AGX_UAT_PAGE_BITS)
#define AGX_UAT_NUM_SLOTS       64
#define AGX_UAT_TTBAT_SIZE      (AGX_UAT_NUM_SLOTS * 16)
#define AGX_UAT_IAS             39
#define AGX_UAT_OAS             40
/* Lowest VA of the upper (TTBR1) half, sign-extended */
#define AGX_UAT_UPPER_BASE      0xffffff8000000000ULL
/* The driver's kernel objects start here (pagetables root entry 2) */
#define AGX_UAT_KERNEL_BASE     0xffffffa000000000ULL

/* Who makes the access: permissions differ for firmware and GPU */
typedef enum AgxUatAgent {
    AGX_UAT_FW,
    AGX_UAT_GPU,
} AgxUatAgent;

/* FAULT_INFO reason codes (bits 3:1) */
typedef enum AgxUatFaultReason {
    AGX_UAT_FAULT_UNMAPPED = 0,
    AGX_UAT_FAULT_AF = 1,
    AGX_UAT_FAULT_WRITE_ONLY = 2,       /* read of a write-only page */
    AGX_UAT_FAULT_READ_ONLY = 3,        /* write to a read-only page */
    AGX_UAT_FAULT_NO_ACCESS = 4,
} AgxUatFaultReason;

typedef struct AgxUatFault {
    uint64_t va;
    uint32_t slot;
    uint32_t reason;            /* AgxUatFaultReason */
    uint32_t level;             /* table level that failed, 0..2 */
    bool is_write;
    bool bad_table;             /* a table pointer left guest RAM */
} AgxUatFault;

/*
 * The walker's translation cache: valid leaf descriptors, kept only while
 * the firmware handles one event (a message, a doorbell, a timer tick).
 * Like a real TLB it may hold an entry the driver has just changed; unlike
 * one it forgets everything between events, since the model cannot see
 * the AP's TLB invalidations.
 */
#define AGX_UAT_TLB_SIZE        16

typedef struct AgxUatTlbEntry {
    uint64_t page;              /* VA >> AGX_UAT_PAGE_BITS */
    uint64_t desc;              /* the leaf descriptor */
    uint32_t gen;               /* valid while equal to AgxUat.tlb_gen */
    uint8_t slot;
} AgxUatTlbEntry;

typedef struct AgxUat {
    AgxPhys phys;
    uint64_t ttbat;             /* PA of the TTB array ("ttbs" region) */
    const AgxTrace *trace;      /* walks and faults; NULL: not traced */
    unsigned tlb_depth;         /* nested events being handled; 0: no cache */
    uint32_t tlb_gen;
    AgxUatTlbEntry tlb[AGX_UAT_TLB_SIZE];
} AgxUat;

void agx_uat_init(AgxUat *uat, AgxPhysRW phys_rw, void *opaque,
                  uint64_t ttbat);

/* The firmware starts and ends handling one event (they nest) */
void agx_uat_tlb_begin(AgxUat *uat);
void agx_uat_tlb_end(AgxUat *uat);

/*
 * Translate @va in context @slot for @agent.  On success returns true and
 * the PA and the number of bytes up to the end of its page; on failure
 * fills @fault.
 */
bool agx_uat_translate(AgxUat *uat, unsigned slot, uint64_t va,
                       AgxUatAgent agent, bool is_write, uint64_t *pa,
                       uint64_t *page_left, AgxUatFault *fault);

/*
 * Read or write @len bytes at @va, page by page; false (with @fault) if
 * any page faults, in which case nothing after the fault is accessed
 */
bool agx_uat_rw(AgxUat *uat, unsigned slot, uint64_t va, void *buf,
                uint64_t len, AgxUatAgent agent, bool is_write,
                AgxUatFault *fault);

/*
 * Typed firmware accesses at @va of context @slot; false (with @fault)
 * if the UAT refuses, in which case nothing is accessed and *val is left
 * alone
 */
bool agx_uat_ld32(AgxUat *uat, unsigned slot, uint64_t va, uint32_t *val,
                  AgxUatFault *fault);
bool agx_uat_st32(AgxUat *uat, unsigned slot, uint64_t va, uint32_t val,
                  AgxUatFault *fault);

/* The FAULT_INFO register value for @fault (bit 0 set, address >> 6...) */
uint64_t agx_uat_fault_info(const AgxUatFault *fault, unsigned unit);

/* Read the TTBAT entry of @slot */
bool agx_uat_get_ttbs(AgxUat *uat, unsigned slot, uint64_t *ttb0,
                      uint64_t *ttb1);

#endif
