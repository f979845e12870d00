/*
 * Unit tests for the UAT page-table walker
 *
 * The test plays the driver: it builds page tables in a fake guest RAM
 * (a byte array at RAM_BASE), points TTBAT slots at them and checks what
 * the firmware and the GPU may reach through them.  Descriptors are built
 * here from the bit layout, independently of agx-uat.c.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-uat.h"
#include "unit-helpers.h"

#define PAGE            0x4000ULL
#define RAM_BASE        0x800000000ULL          /* PA bit 35: above 4 GiB */
#define RAM_PAGES       96
#define RAM_SIZE        (RAM_PAGES * PAGE)
#define OUTSIDE_RAM     0x1000000000ULL

/* Descriptor bits */
#define D_VALID         3ULL                    /* table or page */
#define D_AP(ap)        ((uint64_t)(ap) << 6)
#define D_AF            (1ULL << 10)
#define D_NG            (1ULL << 11)
#define D_PXN           (1ULL << 53)
#define D_UXN           (1ULL << 54)
#define D_OS            (1ULL << 55)
#define D_ATTR(a)       ((uint64_t)(a) << 2)
#define D_IDX(i)        ((((i) & 1) ? D_PXN : 0) | (((i) & 2) ? D_UXN : 0))
#define D_PERM(ap, i)   (D_OS | D_AP(ap) | D_IDX(i))

/* The driver's protection presets (pgtable.rs), as descriptor bits */
#define PROT_FW_PRIV_RW         (D_PERM(1, 2) | D_ATTR(0))
#define PROT_FW_SHARED_RW       (D_PERM(1, 2) | D_ATTR(2))
#define PROT_FW_SHARED_RO       (D_PERM(1, 0) | D_ATTR(2))
#define PROT_FW_MMIO_RW         (D_PERM(1, 2) | D_ATTR(1))
#define PROT_FW_MMIO_RO         (D_PERM(1, 0) | D_ATTR(1))
#define PROT_GPU_FW_SHARED_RW   (D_PERM(0, 3) | D_ATTR(2))
#define PROT_GPU_FW_PRIV_RW     (D_PERM(0, 3) | D_ATTR(0))
#define PROT_GPU_RO_FW_PRIV_RW  (D_PERM(1, 3) | D_ATTR(0))
#define PROT_GPU_SHARED_RW      (D_PERM(2, 2) | D_ATTR(2))
#define PROT_GPU_SHARED_RO      (D_PERM(2, 0) | D_ATTR(2))
#define PROT_GPU_SHARED_WO      (D_PERM(2, 1) | D_ATTR(2))

#define KVA             AGX_UAT_KERNEL_BASE     /* 0xffffffa0_00000000 */
#define UVA             0x1500000000ULL

typedef struct Fixture {
    GByteArray *ram;
    AgxUat uat;
    uint64_t ttbat;
    uint64_t next_free;
    unsigned reads, writes;
} Fixture;

static bool fx_phys_rw(void *opaque, uint64_t pa, void *buf, uint64_t len,
                       bool is_write)
{
    Fixture *fx = opaque;

    if (!flat_ram_rw(fx->ram->data, RAM_BASE, RAM_SIZE, pa, buf, len,
                     is_write)) {
        return false;
    }
    if (is_write) {
        fx->writes++;
    } else {
        fx->reads++;
    }
    return true;
}

static uint8_t *ram(Fixture *fx, uint64_t pa)
{
    g_assert_cmphex(pa, >=, RAM_BASE);
    g_assert_cmphex(pa, <, RAM_BASE + RAM_SIZE);
    return fx->ram->data + (pa - RAM_BASE);
}

static uint64_t rd64(Fixture *fx, uint64_t pa)
{
    return apple_ld64(ram(fx, pa));
}

static void wr64(Fixture *fx, uint64_t pa, uint64_t val)
{
    apple_st64(ram(fx, pa), val);
}

static uint64_t alloc_page(Fixture *fx)
{
    uint64_t pa = fx->next_free;

    g_assert_cmphex(pa, <, RAM_BASE + RAM_SIZE);
    fx->next_free += PAGE;
    memset(ram(fx, pa), 0, PAGE);
    return pa;
}

static void fx_setup(Fixture *fx, gconstpointer data)
{
    fx->ram = g_byte_array_sized_new(RAM_SIZE);
    g_byte_array_set_size(fx->ram, RAM_SIZE);
    memset(fx->ram->data, 0, RAM_SIZE);
    fx->next_free = RAM_BASE;
    fx->ttbat = alloc_page(fx);
    fx->reads = fx->writes = 0;
    agx_uat_init(&fx->uat, fx_phys_rw, fx, fx->ttbat);
}

static void fx_teardown(Fixture *fx, gconstpointer data)
{
    g_byte_array_unref(fx->ram);
}

static uint64_t ttb_addr(Fixture *fx, unsigned slot, uint64_t va)
{
    return fx->ttbat + slot * 16 + ((va >> 39) ? 8 : 0);
}

/* Give @slot a fresh, empty root table for the half @va is in */
static uint64_t bind(Fixture *fx, unsigned slot, uint64_t va)
{
    uint64_t root = alloc_page(fx);

    wr64(fx, ttb_addr(fx, slot, va), root | 1 | ((uint64_t)slot << 48));
    return root;
}

/* Physical address of the descriptor for @va at @level (0..2) */
static uint64_t desc_addr(uint64_t table, uint64_t va, unsigned level)
{
    static const unsigned shift[] = { 36, 25, 14 };
    static const uint64_t mask[] = { 7, 0x7ff, 0x7ff };

    return table + ((va >> shift[level]) & mask[level]) * 8;
}

/*
 * Map the page at @va to @pa with descriptor bits @bits (D_VALID and D_AF
 * are not implied), creating tables on the way; returns the leaf PTE's PA.
 */
static uint64_t map_raw(Fixture *fx, unsigned slot, uint64_t va, uint64_t pa,
                        uint64_t bits)
{
    uint64_t ttb = rd64(fx, ttb_addr(fx, slot, va));
    uint64_t table, d;

    if (!(ttb & 1)) {
        bind(fx, slot, va);
        ttb = rd64(fx, ttb_addr(fx, slot, va));
    }
    table = ttb & 0xffffffc000ULL;
    for (unsigned level = 0; level < 2; level++) {
        d = rd64(fx, desc_addr(table, va, level));
        if ((d & 3) != 3) {
            d = alloc_page(fx) | D_VALID;
            wr64(fx, desc_addr(table, va, level), d);
        }
        table = d & 0xffffffc000ULL;
    }
    wr64(fx, desc_addr(table, va, 2), pa | bits);
    return desc_addr(table, va, 2);
}

static uint64_t map(Fixture *fx, unsigned slot, uint64_t va, uint64_t pa,
                    uint64_t prot)
{
    return map_raw(fx, slot, va, pa, prot | D_AF | D_VALID);
}

static bool xlate(Fixture *fx, unsigned slot, uint64_t va, AgxUatAgent agent,
                  bool is_write, uint64_t *pa, AgxUatFault *fault)
{
    uint64_t left;

    return agx_uat_translate(&fx->uat, slot, va, agent, is_write, pa, &left,
                             fault);
}

static void expect_pa(Fixture *fx, unsigned slot, uint64_t va,
                      uint64_t expected)
{
    AgxUatFault fault;
    uint64_t pa = 0;

    if (!xlate(fx, slot, va, AGX_UAT_FW, false, &pa, &fault)) {
        g_test_message("VA 0x%" G_GINT64_MODIFIER "x: reason %u level %u",
                       va, fault.reason, fault.level);
        g_assert_not_reached();
    }
    g_assert_cmphex(pa, ==, expected);
}

static void expect_fault(Fixture *fx, unsigned slot, uint64_t va,
                         AgxUatAgent agent, bool is_write,
                         AgxUatFaultReason reason, unsigned level,
                         bool bad_table)
{
    AgxUatFault fault;
    uint64_t pa;

    memset(&fault, 0xa5, sizeof(fault));
    g_assert_false(xlate(fx, slot, va, agent, is_write, &pa, &fault));
    g_assert_cmpuint(fault.reason, ==, reason);
    g_assert_cmpuint(fault.level, ==, level);
    g_assert_cmphex(fault.va, ==, va);
    g_assert_cmpuint(fault.slot, ==, slot);
    g_assert_cmpuint(fault.is_write, ==, is_write);
    g_assert_cmpuint(fault.bad_table, ==, bad_table);
}

/* Translation */

static void test_lower_half_uses_ttbr0(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx);

    map(fx, 3, UVA, page, PROT_FW_PRIV_RW);
    expect_pa(fx, 3, UVA, page);
    expect_pa(fx, 3, UVA + 0x1234, page + 0x1234);
    /* The same low bits in the upper half go to TTBR1: unbound */
    expect_fault(fx, 3, AGX_UAT_UPPER_BASE | UVA, AGX_UAT_FW, false,
                 AGX_UAT_FAULT_UNMAPPED, 0, false);
}

static void test_upper_half_uses_ttbr1(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx);

    map(fx, 0, KVA + 0x8000, page, PROT_FW_PRIV_RW);
    expect_pa(fx, 0, KVA + 0x8010, page + 0x10);
    /* The lowest and highest upper-half pages */
    map(fx, 0, AGX_UAT_UPPER_BASE, page, PROT_FW_PRIV_RW);
    expect_pa(fx, 0, AGX_UAT_UPPER_BASE + 8, page + 8);
    map(fx, 0, 0xffffffffffffc000ULL, page, PROT_FW_PRIV_RW);
    expect_pa(fx, 0, 0xffffffffffffffffULL, page + 0x3fff);
    /* The lower half of slot 0 has no TTBR0 */
    expect_fault(fx, 0, KVA & ((1ULL << 39) - 1), AGX_UAT_FW, false,
                 AGX_UAT_FAULT_UNMAPPED, 0, false);
}

static void test_slots_are_independent(Fixture *fx, gconstpointer data)
{
    uint64_t a = alloc_page(fx), b = alloc_page(fx);

    map(fx, 1, UVA, a, PROT_GPU_SHARED_RW);
    map(fx, 63, UVA, b, PROT_GPU_FW_SHARED_RW);
    map(fx, 5, UVA + PAGE, b, PROT_FW_PRIV_RW);
    expect_pa(fx, 63, UVA, b);
    g_assert_true(xlate(fx, 1, UVA, AGX_UAT_GPU, true, &a, NULL));
    expect_fault(fx, 5, UVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED, 2,
                 false);
    expect_fault(fx, 2, UVA, AGX_UAT_GPU, false, AGX_UAT_FAULT_UNMAPPED, 0,
                 false);
}

static void test_page_left_counts_to_page_end(Fixture *fx,
                                              gconstpointer data)
{
    uint64_t page = alloc_page(fx), pa, left;

    map(fx, 0, KVA, page, PROT_FW_PRIV_RW);
    g_assert_true(agx_uat_translate(&fx->uat, 0, KVA, AGX_UAT_FW, false,
                                    &pa, &left, NULL));
    g_assert_cmphex(left, ==, PAGE);
    g_assert_true(agx_uat_translate(&fx->uat, 0, KVA + 0x3ff0, AGX_UAT_FW,
                                    false, &pa, &left, NULL));
    g_assert_cmphex(left, ==, 0x10);
    g_assert_cmphex(pa, ==, page + 0x3ff0);
}

/* Bits 52:40 of a descriptor are not address: the output is 40 bits */
static void test_output_address_is_40_bits(Fixture *fx, gconstpointer data)
{
    uint64_t pte = map(fx, 0, KVA, 0xffffffc000ULL, PROT_FW_PRIV_RW);

    wr64(fx, pte, rd64(fx, pte) | 0x001fff0000000000ULL);
    expect_pa(fx, 0, KVA + 4, 0xffffffc004ULL);
}

static void test_ttb_base_is_bits_39_14(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx), ttb0, ttb1;

    map(fx, 9, UVA, page, PROT_FW_PRIV_RW);
    g_assert_true(agx_uat_get_ttbs(&fx->uat, 9, &ttb0, &ttb1));
    g_assert_cmphex(ttb0 >> 48, ==, 9);
    g_assert_cmphex(ttb1, ==, 0);
    /* Only bits 39:14 (and VALID) say where the root table is */
    wr64(fx, ttb_addr(fx, 9, UVA), ttb0 | 0xabcd000000003ffeULL);
    expect_pa(fx, 9, UVA, page);
}

/* The driver changes PTEs behind the firmware's back: no stale result */
static void test_no_translation_cache(Fixture *fx, gconstpointer data)
{
    uint64_t a = alloc_page(fx), b = alloc_page(fx);
    uint64_t pte = map(fx, 0, KVA, a, PROT_FW_PRIV_RW);

    expect_pa(fx, 0, KVA, a);
    wr64(fx, pte, b | PROT_FW_PRIV_RW | D_AF | D_VALID);
    expect_pa(fx, 0, KVA, b);
    wr64(fx, pte, 0);
    expect_fault(fx, 0, KVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED, 2,
                 false);
}

/*
 * While the firmware handles one event, a page's translation is walked
 * once; the next event walks again and sees what the driver changed
 */
static void test_cache_lives_one_event(Fixture *fx, gconstpointer data)
{
    uint64_t a = alloc_page(fx), b = alloc_page(fx);
    uint64_t pte = map(fx, 0, KVA, a, PROT_FW_PRIV_RW);
    unsigned reads;

    agx_uat_tlb_begin(&fx->uat);
    expect_pa(fx, 0, KVA, a);
    reads = fx->reads;
    expect_pa(fx, 0, KVA + 0x100, a + 0x100);
    g_assert_cmpuint(fx->reads, ==, reads);
    /* Permissions still apply to a cached translation */
    expect_fault(fx, 0, KVA, AGX_UAT_GPU, false, AGX_UAT_FAULT_NO_ACCESS, 2,
                 false);
    agx_uat_tlb_end(&fx->uat);

    wr64(fx, pte, b | PROT_FW_PRIV_RW | D_AF | D_VALID);
    agx_uat_tlb_begin(&fx->uat);
    expect_pa(fx, 0, KVA, b);
    agx_uat_tlb_end(&fx->uat);
    wr64(fx, pte, 0);
    agx_uat_tlb_begin(&fx->uat);
    expect_fault(fx, 0, KVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED, 2,
                 false);
    agx_uat_tlb_end(&fx->uat);
}

static void test_ttbs_read_back(Fixture *fx, gconstpointer data)
{
    uint64_t ttb0, ttb1;

    wr64(fx, fx->ttbat + 7 * 16, 0x0007000812340001ULL);
    wr64(fx, fx->ttbat + 7 * 16 + 8, 0x0007000856780001ULL);
    g_assert_true(agx_uat_get_ttbs(&fx->uat, 7, &ttb0, &ttb1));
    g_assert_cmphex(ttb0, ==, 0x0007000812340001ULL);
    g_assert_cmphex(ttb1, ==, 0x0007000856780001ULL);
    g_assert_false(agx_uat_get_ttbs(&fx->uat, 64, &ttb0, &ttb1));
}

/* Permissions */

/*
 * Expected rights per AP row, for (UXN, PXN) = 00, 01, 10, 11, written as
 * in m1n1's uat.py ("R-", "-W", "RW", "--").  With the OS bit (bit 55)
 * set they are its OS table; AP0/index 2 is write-only for the firmware
 * as in the driver's crash-dump table (m1n1 has "-?").  With bit 55 clear
 * the GPU has no access and the firmware has the union of m1n1's EL1 and
 * GL1 tables (the driver's PROT_TO_PERMS_FW), execute counted as read.
 */
typedef struct PermRow {
    const char *name;
    bool os;
    unsigned ap;
    const char *fw[4];
    const char *gpu[4];
} PermRow;

static const PermRow perm_rows[] = {
    { "os-ap0", true, 0, { "--", "R-", "-W", "RW" },
                         { "--", "R-", "-W", "RW" } },
    { "os-ap1", true, 1, { "R-", "--", "RW", "RW" },
                         { "--", "--", "--", "R-" } },
    { "os-ap2", true, 2, { "--", "--", "--", "--" },
                         { "R-", "-W", "RW", "--" } },
    { "os-ap3", true, 3, { "--", "--", "--", "--" },
                         { "--", "--", "--", "--" } },
    { "fw-owned-ap0", false, 0, { "--", "--", "--", "RW" },
                                { "--", "--", "--", "--" } },
    { "fw-owned-ap1", false, 1, { "--", "RW", "--", "RW" },
                                { "--", "--", "--", "--" } },
    { "fw-owned-ap2", false, 2, { "R-", "R-", "--", "R-" },
                                { "--", "--", "--", "--" } },
    { "fw-owned-ap3", false, 3, { "R-", "RW", "--", "R-" },
                                { "--", "--", "--", "--" } },
};

/* Check that @agent has exactly the rights @rights on @va */
static void expect_rights(Fixture *fx, uint64_t va, AgxUatAgent agent,
                          const char *rights)
{
    bool r = rights[0] == 'R', w = rights[1] == 'W';
    AgxUatFaultReason none = AGX_UAT_FAULT_NO_ACCESS;
    uint64_t pa;

    if (r) {
        g_assert_true(xlate(fx, 0, va, agent, false, &pa, NULL));
    } else {
        expect_fault(fx, 0, va, agent, false,
                     w ? AGX_UAT_FAULT_WRITE_ONLY : none, 2, false);
    }
    if (w) {
        g_assert_true(xlate(fx, 0, va, agent, true, &pa, NULL));
    } else {
        expect_fault(fx, 0, va, agent, true,
                     r ? AGX_UAT_FAULT_READ_ONLY : none, 2, false);
    }
}

static void test_perm_row(Fixture *fx, gconstpointer data)
{
    const PermRow *row = data;
    uint64_t page = alloc_page(fx);

    for (unsigned idx = 0; idx < 4; idx++) {
        uint64_t va = KVA + idx * PAGE;

        map(fx, 0, va, page, (row->os ? D_OS : 0) | D_AP(row->ap) |
            D_IDX(idx) | D_ATTR(2) | D_NG);
        g_test_message("AP%u index %u", row->ap, idx);
        expect_rights(fx, va, AGX_UAT_FW, row->fw[idx]);
        expect_rights(fx, va, AGX_UAT_GPU, row->gpu[idx]);
    }
}

/* What the driver means by each preset, against the decode */
static void test_driver_presets(Fixture *fx, gconstpointer data)
{
    static const struct {
        uint64_t prot;
        const char *fw, *gpu;
    } presets[] = {
        { PROT_FW_PRIV_RW, "RW", "--" },
        { PROT_FW_SHARED_RW, "RW", "--" },
        { PROT_FW_SHARED_RO, "R-", "--" },
        { PROT_FW_MMIO_RW, "RW", "--" },
        { PROT_FW_MMIO_RO, "R-", "--" },
        { PROT_GPU_FW_SHARED_RW, "RW", "RW" },
        { PROT_GPU_FW_PRIV_RW, "RW", "RW" },
        { PROT_GPU_RO_FW_PRIV_RW, "RW", "R-" },
        { PROT_GPU_SHARED_RW, "--", "RW" },
        { PROT_GPU_SHARED_RO, "--", "R-" },
        { PROT_GPU_SHARED_WO, "--", "-W" },
    };
    uint64_t page = alloc_page(fx);

    for (unsigned i = 0; i < G_N_ELEMENTS(presets); i++) {
        uint64_t va = KVA + i * PAGE;

        map(fx, 0, va, page, presets[i].prot);
        g_test_message("preset %u", i);
        expect_rights(fx, va, AGX_UAT_FW, presets[i].fw);
        expect_rights(fx, va, AGX_UAT_GPU, presets[i].gpu);
    }
}

/* Faults */

static void test_af_clear_faults(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx);

    map_raw(fx, 0, KVA, page, PROT_GPU_FW_SHARED_RW | D_VALID);
    expect_fault(fx, 0, KVA, AGX_UAT_FW, false, AGX_UAT_FAULT_AF, 2, false);
    expect_fault(fx, 0, KVA, AGX_UAT_GPU, true, AGX_UAT_FAULT_AF, 2, false);
    /* Even where the access would be denied anyway */
    map_raw(fx, 0, KVA + PAGE, page, D_PERM(3, 0) | D_VALID);
    expect_fault(fx, 0, KVA + PAGE, AGX_UAT_FW, false, AGX_UAT_FAULT_AF, 2,
                 false);
}

static void test_unmapped_at_level_0(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx);

    map(fx, 0, KVA, page, PROT_FW_PRIV_RW);
    /* Another root entry (VA[38:36]) of the same table */
    expect_fault(fx, 0, KVA + (1ULL << 36), AGX_UAT_FW, false,
                 AGX_UAT_FAULT_UNMAPPED, 0, false);
}

static void test_unmapped_at_level_1(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx);

    map(fx, 0, KVA, page, PROT_FW_PRIV_RW);
    expect_fault(fx, 0, KVA + (1ULL << 25), AGX_UAT_FW, false,
                 AGX_UAT_FAULT_UNMAPPED, 1, false);
    expect_fault(fx, 0, KVA + (0x7ffULL << 25), AGX_UAT_FW, true,
                 AGX_UAT_FAULT_UNMAPPED, 1, false);
}

static void test_unmapped_at_level_2(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx);

    map(fx, 0, KVA, page, PROT_FW_PRIV_RW);
    expect_fault(fx, 0, KVA + PAGE, AGX_UAT_GPU, false,
                 AGX_UAT_FAULT_UNMAPPED, 2, false);
}

/* Only 0b11 is valid, at every level: there are no block descriptors */
static void test_type_bits_must_be_3(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx);
    uint64_t pte = map(fx, 0, KVA, page, PROT_FW_PRIV_RW);
    uint64_t ttb = rd64(fx, ttb_addr(fx, 0, KVA)) & 0xffffffc000ULL;
    uint64_t l0 = desc_addr(ttb, KVA, 0);
    uint64_t l1 = desc_addr(rd64(fx, l0) & 0xffffffc000ULL, KVA, 1);
    uint64_t l0_val = rd64(fx, l0), l1_val = rd64(fx, l1);

    for (uint64_t type = 0; type < 3; type++) {
        wr64(fx, pte, (rd64(fx, pte) & ~3ULL) | type);
        expect_fault(fx, 0, KVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED,
                     2, false);
        wr64(fx, l1, (l1_val & ~3ULL) | type);
        expect_fault(fx, 0, KVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED,
                     1, false);
        wr64(fx, l0, (l0_val & ~3ULL) | type);
        expect_fault(fx, 0, KVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED,
                     0, false);
        wr64(fx, pte, rd64(fx, pte) | 3);
        wr64(fx, l1, l1_val);
        wr64(fx, l0, l0_val);
        expect_pa(fx, 0, KVA, page);
    }
}

static void test_invalid_ttb_faults(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx);
    uint64_t ttb;

    map(fx, 4, UVA, page, PROT_GPU_SHARED_RW);
    ttb = rd64(fx, ttb_addr(fx, 4, UVA));
    wr64(fx, ttb_addr(fx, 4, UVA), ttb & ~1ULL);
    expect_fault(fx, 4, UVA, AGX_UAT_GPU, false, AGX_UAT_FAULT_UNMAPPED, 0,
                 false);
    wr64(fx, ttb_addr(fx, 4, UVA), 0);
    expect_fault(fx, 4, UVA, AGX_UAT_GPU, true, AGX_UAT_FAULT_UNMAPPED, 0,
                 false);
}

static void test_non_canonical_va_faults(Fixture *fx, gconstpointer data)
{
    static const uint64_t vas[] = {
        1ULL << 39,
        0x0000008000000000ULL | (KVA & ((1ULL << 39) - 1)),
        0xffffff7fffffc000ULL,
        0x8000000000000000ULL,
        0x7fffffa000000000ULL,
    };
    uint64_t page = alloc_page(fx);

    /* Both halves mapped with the same low bits */
    map(fx, 0, KVA, page, PROT_FW_PRIV_RW);
    map(fx, 0, KVA & ((1ULL << 39) - 1), page, PROT_FW_PRIV_RW);
    for (unsigned i = 0; i < G_N_ELEMENTS(vas); i++) {
        expect_fault(fx, 0, vas[i], AGX_UAT_FW, false,
                     AGX_UAT_FAULT_UNMAPPED, 0, false);
    }
    /* One bit of the tag flipped, from either half */
    for (unsigned i = 39; i < 64; i++) {
        expect_fault(fx, 0, KVA ^ (1ULL << i), AGX_UAT_FW, false,
                     AGX_UAT_FAULT_UNMAPPED, 0, false);
        expect_fault(fx, 0, (KVA & ((1ULL << 39) - 1)) | (1ULL << i),
                     AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED, 0, false);
    }
}

static void test_slot_out_of_range_faults(Fixture *fx, gconstpointer data)
{
    expect_fault(fx, 64, UVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED, 0,
                 false);
}

static void test_root_table_outside_ram(Fixture *fx, gconstpointer data)
{
    wr64(fx, ttb_addr(fx, 2, UVA), OUTSIDE_RAM | 1);
    expect_fault(fx, 2, UVA, AGX_UAT_GPU, false, AGX_UAT_FAULT_UNMAPPED, 0,
                 true);
}

static void test_next_table_outside_ram(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx);
    uint64_t ttb, l0, l1;

    map(fx, 0, KVA, page, PROT_FW_PRIV_RW);
    ttb = rd64(fx, ttb_addr(fx, 0, KVA)) & 0xffffffc000ULL;
    l0 = desc_addr(ttb, KVA, 0);
    l1 = desc_addr(rd64(fx, l0) & 0xffffffc000ULL, KVA, 1);
    wr64(fx, l1, OUTSIDE_RAM | D_VALID);
    expect_fault(fx, 0, KVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED, 2,
                 true);
    wr64(fx, l0, (RAM_BASE + RAM_SIZE) | D_VALID);
    expect_fault(fx, 0, KVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED, 1,
                 true);
}

static void test_ttbat_outside_ram(Fixture *fx, gconstpointer data)
{
    agx_uat_init(&fx->uat, fx_phys_rw, fx, OUTSIDE_RAM);
    expect_fault(fx, 0, KVA, AGX_UAT_FW, false, AGX_UAT_FAULT_UNMAPPED, 0,
                 true);
}

/* Accesses */

static void test_read_spans_two_pages(Fixture *fx, gconstpointer data)
{
    uint64_t a = alloc_page(fx), b = alloc_page(fx), c = alloc_page(fx);
    uint8_t buf[16];
    AgxUatFault fault;

    /* VA-contiguous, PA-backwards, different permissions */
    map(fx, 0, KVA, b, PROT_FW_SHARED_RO);
    map(fx, 0, KVA + PAGE, a, PROT_FW_PRIV_RW);
    memcpy(ram(fx, b + PAGE - 8), "ABCDEFGH", 8);
    memcpy(ram(fx, a), "ijklmnop", 8);
    memcpy(ram(fx, c), "XXXXXXXX", 8);          /* b's PA neighbour */
    g_assert_true(agx_uat_rw(&fx->uat, 0, KVA + PAGE - 8, buf, 16,
                             AGX_UAT_FW, false, &fault));
    g_assert_cmpmem(buf, 16, "ABCDEFGHijklmnop", 16);
}

static void test_write_spans_two_pages(Fixture *fx, gconstpointer data)
{
    uint64_t a = alloc_page(fx), b = alloc_page(fx);
    char text[] = "abcdef";

    map(fx, 5, UVA, b, PROT_GPU_SHARED_RW);
    map(fx, 5, UVA + PAGE, a, PROT_GPU_SHARED_WO);
    g_assert_true(agx_uat_rw(&fx->uat, 5, UVA + PAGE - 3, text, 6,
                             AGX_UAT_GPU, true, NULL));
    g_assert_cmpmem(ram(fx, b + PAGE - 3), 3, "abc", 3);
    g_assert_cmpmem(ram(fx, a), 3, "def", 3);
}

static void test_write_stops_at_fault(Fixture *fx, gconstpointer data)
{
    uint64_t a = alloc_page(fx), b = alloc_page(fx), c = alloc_page(fx);
    g_autofree uint8_t *buf = g_malloc(3 * PAGE);
    AgxUatFault fault;

    memset(buf, 0x77, 3 * PAGE);
    map(fx, 0, KVA, a, PROT_FW_PRIV_RW);
    map(fx, 0, KVA + PAGE, b, PROT_FW_SHARED_RO);   /* read-only */
    map(fx, 0, KVA + 2 * PAGE, c, PROT_FW_PRIV_RW);
    fx->writes = 0;
    g_assert_false(agx_uat_rw(&fx->uat, 0, KVA + 0x100, buf, 2 * PAGE,
                              AGX_UAT_FW, true, &fault));
    g_assert_cmpuint(fault.reason, ==, AGX_UAT_FAULT_READ_ONLY);
    g_assert_cmphex(fault.va, ==, KVA + PAGE);
    g_assert_true(fault.is_write);
    /* The first page was written, nothing from the fault on */
    g_assert_cmpuint(fx->writes, ==, 1);
    g_assert_cmphex(ram(fx, a)[0xff], ==, 0);
    g_assert_cmphex(ram(fx, a)[0x100], ==, 0x77);
    g_assert_cmphex(ram(fx, a)[PAGE - 1], ==, 0x77);
    for (uint64_t i = 0; i < PAGE; i++) {
        g_assert_cmphex(ram(fx, b)[i] | ram(fx, c)[i], ==, 0);
    }
}

static void test_read_stops_at_unmapped(Fixture *fx, gconstpointer data)
{
    uint64_t a = alloc_page(fx);
    uint8_t buf[32];
    AgxUatFault fault;

    map(fx, 0, KVA, a, PROT_FW_PRIV_RW);
    memset(ram(fx, a) + PAGE - 16, 0x11, 16);
    memset(buf, 0xee, sizeof(buf));
    g_assert_false(agx_uat_rw(&fx->uat, 0, KVA + PAGE - 16, buf, 32,
                              AGX_UAT_FW, false, &fault));
    g_assert_cmpuint(fault.reason, ==, AGX_UAT_FAULT_UNMAPPED);
    g_assert_cmpuint(fault.level, ==, 2);
    g_assert_cmphex(fault.va, ==, KVA + PAGE);
    g_assert_false(fault.is_write);
    g_assert_cmphex(buf[15], ==, 0x11);
    g_assert_cmphex(buf[16], ==, 0xee);
}

static void test_page_outside_ram_faults(Fixture *fx, gconstpointer data)
{
    uint8_t buf[8];
    AgxUatFault fault;

    map(fx, 0, KVA, OUTSIDE_RAM, PROT_FW_PRIV_RW);
    g_assert_false(agx_uat_rw(&fx->uat, 0, KVA + 8, buf, 8, AGX_UAT_FW,
                              false, &fault));
    g_assert_cmpuint(fault.reason, ==, AGX_UAT_FAULT_UNMAPPED);
    g_assert_cmpuint(fault.level, ==, 2);
    g_assert_true(fault.bad_table);
    g_assert_cmphex(fault.va, ==, KVA + 8);
}

static void test_zero_length_touches_nothing(Fixture *fx, gconstpointer data)
{
    uint8_t buf[1];

    fx->reads = 0;
    g_assert_true(agx_uat_rw(&fx->uat, 0, 0x8000000000000000ULL, buf, 0,
                             AGX_UAT_FW, false, NULL));
    g_assert_cmpuint(fx->reads, ==, 0);
}

/* 64 MiB of one page mapped over and over (the driver's REPEAT) */
static void test_large_length_terminates(Fixture *fx, gconstpointer data)
{
    const uint64_t len = 64ULL << 20;
    uint64_t page = alloc_page(fx);
    g_autofree uint8_t *buf = g_malloc(len + 1);
    AgxUatFault fault;

    for (uint64_t off = 0; off < len; off += PAGE) {
        map(fx, 3, UVA + off, page, PROT_GPU_SHARED_RO);
    }
    for (uint64_t i = 0; i < PAGE; i++) {
        ram(fx, page)[i] = i * 7;
    }
    g_assert_true(agx_uat_rw(&fx->uat, 3, UVA, buf, len, AGX_UAT_GPU, false,
                             &fault));
    g_assert_cmphex(buf[len - 1], ==, (uint8_t)((PAGE - 1) * 7));
    g_assert_cmpmem(buf + len - PAGE, PAGE, ram(fx, page), PAGE);
    g_assert_false(agx_uat_rw(&fx->uat, 3, UVA, buf, len + 1, AGX_UAT_GPU,
                              false, &fault));
    g_assert_cmphex(fault.va, ==, UVA + len);
}

static void test_wraparound_is_a_fault(Fixture *fx, gconstpointer data)
{
    const uint64_t top = 0xffffffffffffc000ULL;
    uint64_t a = alloc_page(fx), b = alloc_page(fx);
    uint8_t buf[2 * PAGE];
    AgxUatFault fault;

    map(fx, 0, top, a, PROT_FW_PRIV_RW);
    map(fx, 0, 0, b, PROT_FW_PRIV_RW);           /* where a wrap would go */
    memset(ram(fx, a), 0x5a, PAGE);
    fx->reads = 0;
    g_assert_false(agx_uat_rw(&fx->uat, 0, top, buf, 2 * PAGE, AGX_UAT_FW,
                              false, &fault));
    g_assert_cmpuint(fault.reason, ==, AGX_UAT_FAULT_UNMAPPED);
    g_assert_cmpuint(fx->reads, ==, 0);
    g_assert_false(agx_uat_rw(&fx->uat, 0, top + PAGE - 1, buf, 2,
                              AGX_UAT_FW, false, &fault));
    /* Ending exactly at the top is fine */
    g_assert_true(agx_uat_rw(&fx->uat, 0, top, buf, PAGE, AGX_UAT_FW, false,
                             &fault));
    g_assert_cmphex(buf[PAGE - 1], ==, 0x5a);
}

/* A lower-half range running into the hole stops at the hole */
static void test_lower_half_end_faults(Fixture *fx, gconstpointer data)
{
    const uint64_t last = (1ULL << 39) - PAGE;
    uint64_t a = alloc_page(fx);
    uint8_t buf[16];
    AgxUatFault fault;

    map(fx, 6, last, a, PROT_GPU_SHARED_RW);
    g_assert_false(agx_uat_rw(&fx->uat, 6, last + PAGE - 8, buf, 16,
                              AGX_UAT_GPU, false, &fault));
    g_assert_cmphex(fault.va, ==, 1ULL << 39);
    g_assert_cmpuint(fault.level, ==, 0);
}

/* FAULT_INFO */

static void test_fault_info_write(Fixture *fx, gconstpointer data)
{
    AgxUatFault f = {
        .va = 0xffffffa000012345ULL,
        .slot = 5,
        .reason = AGX_UAT_FAULT_READ_ONLY,
        .level = 2,
        .is_write = true,
    };

    /*
     * 1 | 3 << 1 | 0 (write) << 4 | 2 << 7 | 0x42 << 9 | 5 << 17
     *   | (VA[39:6] = 0x28000048d) << 30
     */
    g_assert_cmphex(agx_uat_fault_info(&f, 0x42), ==,
                    0xa0000123400a8507ULL);
}

static void test_fault_info_read(Fixture *fx, gconstpointer data)
{
    AgxUatFault f = {
        .va = 0x1500004040ULL,
        .slot = 63,
        .reason = AGX_UAT_FAULT_UNMAPPED,
        .level = 1,
        .is_write = false,
    };

    /*
     * 1 | 0 << 1 | 1 (read) << 4 | 1 << 7 | 0xff << 9 | 63 << 17
     *   | (VA[39:6] = 0x54000101) << 30
     */
    g_assert_cmphex(agx_uat_fault_info(&f, 0xff), ==,
                    0x15000040407ffe91ULL);
}

/* What a translation fault reports, through the encoder */
static void test_fault_info_from_translate(Fixture *fx, gconstpointer data)
{
    uint64_t page = alloc_page(fx), pa, info;
    AgxUatFault fault;

    map(fx, 0, KVA, page, PROT_GPU_SHARED_RO);
    g_assert_false(xlate(fx, 0, KVA + 0x80, AGX_UAT_GPU, true, &pa, &fault));
    info = agx_uat_fault_info(&fault, 0x13);
    g_assert_cmphex(info & 1, ==, 1);
    g_assert_cmphex((info >> 1) & 7, ==, AGX_UAT_FAULT_READ_ONLY);
    g_assert_cmphex((info >> 4) & 1, ==, 0);
    g_assert_cmphex((info >> 7) & 3, ==, 2);
    g_assert_cmphex((info >> 9) & 0xff, ==, 0x13);
    g_assert_cmphex((info >> 17) & 0x3f, ==, 0);
    g_assert_cmphex((info >> 30) << 6, ==, (KVA + 0x80) & 0xffffffffffULL);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    FX_ADD("/uat/translate/lower-half-uses-ttbr0", test_lower_half_uses_ttbr0);
    FX_ADD("/uat/translate/upper-half-uses-ttbr1", test_upper_half_uses_ttbr1);
    FX_ADD("/uat/translate/slots-are-independent", test_slots_are_independent);
    FX_ADD("/uat/translate/page-left-counts-to-page-end",
           test_page_left_counts_to_page_end);
    FX_ADD("/uat/translate/output-address-is-40-bits",
           test_output_address_is_40_bits);
    FX_ADD("/uat/translate/ttb-base-is-bits-39-14",
           test_ttb_base_is_bits_39_14);
    FX_ADD("/uat/translate/cache-lives-one-event",
           test_cache_lives_one_event);
    FX_ADD("/uat/translate/pte-changes-are-seen-at-once",
           test_no_translation_cache);
    FX_ADD("/uat/translate/ttbs-read-back", test_ttbs_read_back);
    for (unsigned i = 0; i < G_N_ELEMENTS(perm_rows); i++) {
        g_autofree char *path = g_strdup_printf("/uat/perm/%s",
                                                perm_rows[i].name);

        g_test_add(path, Fixture, &perm_rows[i], fx_setup, test_perm_row,
                   fx_teardown);
    }
    FX_ADD("/uat/perm/driver-presets-mean-what-they-say", test_driver_presets);
    FX_ADD("/uat/fault/af-clear-faults-before-permissions",
           test_af_clear_faults);
    FX_ADD("/uat/fault/unmapped-at-level-0", test_unmapped_at_level_0);
    FX_ADD("/uat/fault/unmapped-at-level-1", test_unmapped_at_level_1);
    FX_ADD("/uat/fault/unmapped-at-level-2", test_unmapped_at_level_2);
    FX_ADD("/uat/fault/type-bits-must-be-3-at-every-level",
           test_type_bits_must_be_3);
    FX_ADD("/uat/fault/invalid-ttb", test_invalid_ttb_faults);
    FX_ADD("/uat/fault/non-canonical-va", test_non_canonical_va_faults);
    FX_ADD("/uat/fault/slot-out-of-range", test_slot_out_of_range_faults);
    FX_ADD("/uat/fault/root-table-outside-ram", test_root_table_outside_ram);
    FX_ADD("/uat/fault/next-table-outside-ram", test_next_table_outside_ram);
    FX_ADD("/uat/fault/ttbat-outside-ram", test_ttbat_outside_ram);
    FX_ADD("/uat/rw/read-spans-two-pages", test_read_spans_two_pages);
    FX_ADD("/uat/rw/write-spans-two-pages", test_write_spans_two_pages);
    FX_ADD("/uat/rw/write-stops-at-fault", test_write_stops_at_fault);
    FX_ADD("/uat/rw/read-stops-at-unmapped", test_read_stops_at_unmapped);
    FX_ADD("/uat/rw/page-outside-ram-faults", test_page_outside_ram_faults);
    FX_ADD("/uat/rw/zero-length-touches-nothing",
           test_zero_length_touches_nothing);
    FX_ADD("/uat/rw/64-mib-terminates", test_large_length_terminates);
    FX_ADD("/uat/rw/wraparound-is-a-fault", test_wraparound_is_a_fault);
    FX_ADD("/uat/rw/lower-half-end-faults", test_lower_half_end_faults);
    FX_ADD("/uat/fault-info/write-fault-encoding", test_fault_info_write);
    FX_ADD("/uat/fault-info/read-fault-encoding", test_fault_info_read);
    FX_ADD("/uat/fault-info/from-translate", test_fault_info_from_translate);
    return g_test_run();
}
