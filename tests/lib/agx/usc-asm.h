/*
 * A tiny assembler for USC test programs, written from the bit tables of
 * shared/reference/agx-shaders.md (§2-3), independently of the
 * interpreter's agx-isa.def, and a fake GPU memory of 4 KiB pages for
 * the interpreter's AgxUscMemOps
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_UNIT_USC_ASM_H
#define TESTS_UNIT_USC_ASM_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "hw/agx/agx-usc.h"

/* --- fake memory ------------------------------------------------------- */

#define TM_PAGE     4096

typedef struct TestMem {
    GHashTable *pages;          /* va >> 12 -> 4 KiB */
    unsigned reads, writes;
} TestMem;

static inline TestMem *tm_new(void)
{
    TestMem *m = g_new0(TestMem, 1);

    m->pages = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                     g_free);
    return m;
}

static inline void tm_free(TestMem *m)
{
    g_hash_table_destroy(m->pages);
    g_free(m);
}

static inline uint8_t *tm_page(TestMem *m, uint64_t va, bool create)
{
    uint64_t key = va / TM_PAGE;
    uint8_t *p = g_hash_table_lookup(m->pages, &key);

    if (!p && create) {
        uint64_t *k = g_new(uint64_t, 1);

        *k = key;
        p = g_malloc0(TM_PAGE);
        g_hash_table_insert(m->pages, k, p);
    }
    return p;
}

static inline void tm_map(TestMem *m, uint64_t va, uint64_t len)
{
    for (uint64_t a = va & ~(uint64_t)(TM_PAGE - 1); a < va + len;
         a += TM_PAGE) {
        tm_page(m, a, true);
    }
}

static inline bool tm_rw(TestMem *m, uint64_t va, void *buf, uint32_t len,
                         uint64_t *fault_va, bool write)
{
    for (uint32_t i = 0; i < len; i++) {
        if (!tm_page(m, va + i, false)) {
            *fault_va = va + i;
            return false;
        }
    }
    for (uint32_t i = 0; i < len; i++) {
        uint8_t *p = tm_page(m, va + i, false) + (va + i) % TM_PAGE;

        if (write) {
            *p = ((const uint8_t *)buf)[i];
        } else {
            ((uint8_t *)buf)[i] = *p;
        }
    }
    return true;
}

static inline bool tm_read(void *opaque, uint64_t va, void *buf,
                           uint32_t len, uint64_t *fault_va)
{
    ((TestMem *)opaque)->reads++;
    return tm_rw(opaque, va, buf, len, fault_va, false);
}

static inline bool tm_write(void *opaque, uint64_t va, const void *buf,
                            uint32_t len, uint64_t *fault_va)
{
    ((TestMem *)opaque)->writes++;
    return tm_rw(opaque, va, (void *)buf, len, fault_va, true);
}

static const AgxUscMemOps tm_ops = { .read = tm_read, .write = tm_write };

static inline void tm_put(TestMem *m, uint64_t va, const void *buf,
                          uint32_t len)
{
    uint64_t f;

    tm_map(m, va, len);
    tm_rw(m, va, (void *)buf, len, &f, true);
}

static inline uint32_t tm_get32(TestMem *m, uint64_t va)
{
    uint32_t v = 0xdeadbeef;
    uint64_t f;

    tm_rw(m, va, &v, 4, &f, false);
    return v;
}

/* --- assembler ----------------------------------------------------------- */

typedef struct Asm {
    uint8_t b[8192];
    uint32_t n;
} Asm;

static inline void emit(Asm *a, uint64_t lo, uint64_t hi, unsigned len)
{
    for (unsigned i = 0; i < len; i++) {
        a->b[a->n++] = i < 8 ? lo >> (8 * i) : hi >> (8 * (i - 8));
    }
}

/*
 * Operands (§3.2): a 12-bit source slot (value 5:0, type 9:6, modifiers
 * 11:10) and its 2 extension bits; a destination as its size bit 8, its
 * 8-bit half index (bit 0 doubling as the 64-bit flag) and hint bit 7
 */
typedef struct Op {
    uint16_t slot;
    uint8_t ext;
} Op;

static inline Op op_mk(unsigned value, unsigned type, unsigned mods)
{
    Op o = { (value & 63) | type << 6 | mods << 10, (value >> 6) & 3 };

    return o;
}

#define IMM(v)      op_mk((v), 0, 0)
#define R16(h)      op_mk((h), 0x1, 0)          /* half h */
#define R32(n)      op_mk(2 * (n), 0x9, 0)      /* rN */
#define R64(n)      op_mk(2 * (n), 0xd, 0)      /* rN_rN+1 */
#define U16(h)      op_mk((h), 0x4 | (((h) >> 8) & 1), 0)
#define U32(n)      op_mk(2 * (n), 0x6 | (((2 * (n)) >> 8) & 1), 0)
#define MODS(o, m)  ((Op){ (o).slot | (m) << 10, (o).ext })
#define M_ABS       1
#define M_NEG       2
#define M_SX        1           /* integer slot bit 10 */

typedef struct Dst {
    unsigned bits;              /* raw bits 8:7 and 14:9 */
    unsigned ext;
} Dst;

static inline Dst dst_mk(unsigned size_bit, unsigned v)
{
    Dst d = { size_bit << 8 | (v & 63) << 9, (v >> 6) & 3 };

    return d;
}

#define D16(h)      dst_mk(0, (h))
#define D32(n)      dst_mk(1, 2 * (n))
#define D64(n)      dst_mk(1, 2 * (n) | 1)

/*
 * ALU words with the extension group in the top two bytes: D at bits
 * 13:12 of it, source s at 11 - 2s (§3.2); @xbase is the bit the group
 * starts at
 */
static inline void alu(Asm *a, uint64_t opbits, unsigned len, unsigned xbase,
                       Dst d, const Op *src, unsigned nsrc, uint64_t extra)
{
    uint64_t lo = opbits | d.bits | extra, hi = 0;
    uint64_t x = (uint64_t)d.ext << 12;

    for (unsigned s = 0; s < nsrc; s++) {
        unsigned pos = 16 + 12 * s;

        if (pos < 64) {
            lo |= (uint64_t)src[s].slot << pos;
            if (pos + 12 > 64) {
                hi |= (uint64_t)src[s].slot >> (64 - pos);
            }
        }
        x |= (uint64_t)src[s].ext << (10 - 2 * s);
    }
    if (xbase >= 64) {
        hi |= x << (xbase - 64);
    } else {
        lo |= x << xbase;
    }
    emit(a, lo, hi, len);
}

/* 6-byte ALU (long form where there is one): extension bits 47:32 */
static inline void alu6(Asm *a, uint64_t opbits, Dst d, Op s0, Op s1,
                        uint64_t extra)
{
    Op s[2] = { s0, s1 };

    alu(a, opbits, 6, 32, d, s, 2, extra);
}

static inline void alu6_1(Asm *a, uint64_t opbits, Dst d, Op s0,
                          uint64_t extra)
{
    alu(a, opbits, 6, 32, d, &s0, 1, extra);
}

/* 8-byte 3-source ALU: extension bits 63:48 */
static inline void alu8(Asm *a, uint64_t opbits, Dst d, Op s0, Op s1, Op s2,
                        uint64_t extra)
{
    Op s[3] = { s0, s1, s2 };

    alu(a, opbits, 8, 48, d, s, 3, extra);
}

#define L15         (1ull << 15)

static inline void fadd(Asm *a, Dst d, Op x, Op y)
{
    alu6(a, 0x2a | L15, d, x, y, 0);
}

static inline void fmul(Asm *a, Dst d, Op x, Op y)
{
    alu6(a, 0x1a | L15, d, x, y, 0);
}

static inline void ffma(Asm *a, Dst d, Op x, Op y, Op z)
{
    alu8(a, 0x3a | L15, d, x, y, z, 0);
}

/* iadd: 8 bytes, extension group at bits 47:32; neg bit 27, shift 39/53:52 */
static inline void iadd(Asm *a, Dst d, Op x, Op y, bool neg, unsigned shift,
                        bool sat)
{
    Op s[2] = { x, y };

    alu(a, 0x0e | (sat ? 0x40 : 0), 8, 32, d, s, 2,
        (neg ? 1ull << 27 : 0) | (uint64_t)(shift & 1) << 39 |
        (uint64_t)(shift >> 1) << 52);
}

static inline void imad(Asm *a, Dst d, Op x, Op y, Op z, bool neg,
                        unsigned shift)
{
    alu8(a, 0x1e, d, x, y, z, (neg ? 1ull << 27 : 0) |
         (uint64_t)(shift & 1) << 39 | (uint64_t)(shift >> 1) << 52);
}

/* bitfield family: 0x2e, kind in (bit 15, bits 27:26), mask bits */
static inline void bitfield(Asm *a, unsigned b15, unsigned k, Dst d, Op x,
                            Op y, Op z, unsigned m)
{
    alu8(a, 0x2e | (uint64_t)b15 << 15 | (uint64_t)k << 26, d, x, y, z,
         (uint64_t)(m & 3) << 38 | (uint64_t)((m >> 2) & 3) << 50 |
         (uint64_t)(m >> 4) << 63);
}

/* bitop: truth table bits 26, 27, 38, 39 */
static inline void bitop(Asm *a, Dst d, Op x, Op y, unsigned tt)
{
    alu6(a, 0x7e, d, x, y, (uint64_t)(tt & 3) << 26 |
         (uint64_t)(tt >> 2) << 38);
}

static inline void mov(Asm *a, Dst d, Op x)
{
    bitop(a, d, x, IMM(0), 0xa);
}

static inline void mov_imm32(Asm *a, unsigned reg, uint32_t v)
{
    /* 6-byte form: registers below r32 */
    g_assert(reg < 32);
    emit(a, 0x62 | 1 << 8 | (2 * reg) << 9 | (uint64_t)v << 16, 0, 6);
}

static inline void mov_imm16(Asm *a, unsigned half, uint16_t v)
{
    emit(a, 0x62 | half << 9 | (uint64_t)v << 16, 0, 4);
}

/* get_sr: 4 bytes, SR bits 21:16 and 27:26; 32-bit destination rN */
static inline void get_sr(Asm *a, unsigned reg, unsigned sr)
{
    Dst d = D32(reg);

    emit(a, 0x72 | d.bits | (sr & 63) << 16 | (uint64_t)(sr >> 6) << 26 |
         (uint64_t)d.ext << 28, 0, 4);
}

/* exec-mask instructions (§2.4): 6 bytes */
static inline void cf(Asm *a, unsigned opc, unsigned kind, unsigned nest,
                      unsigned cond, bool inv, Op x, Op y)
{
    Op s[2] = { x, y };

    alu(a, opc | inv << 8 | kind << 9 | nest << 11 | cond << 13, 6, 32,
        dst_mk(0, 0), s, 2, 0);
    /* the destination bits are r0l's hint: zero */
}

#define IF_ICMP(a, n, c, inv, x, y)     cf(a, 0x52, 0, n, c, inv, x, y)
#define ELSE_FCMP_TRUE(a, n)            cf(a, 0x42, 1, n, 0, 0, IMM(0), IMM(0))
#define WHILE_ICMP(a, n, c, inv, x, y)  cf(a, 0x52, 2, n, c, inv, x, y)
#define PUSH_EXEC(a, n)                 cf(a, 0x42, 0, n, 0, 0, IMM(0), IMM(0))

static inline void pop_exec(Asm *a, unsigned n)
{
    emit(a, 0x52 | 3 << 9 | n << 11, 0, 6);
}

/* jumps: offset from the jump itself, returns the patch position */
static inline uint32_t jmp(Asm *a, bool none, int32_t off)
{
    uint32_t at = a->n;

    emit(a, (none ? 0xc020 : 0xc000) | (uint64_t)(uint32_t)off << 16, 0, 6);
    return at;
}

/* Point the jump at @at to @target */
static inline void patch_jmp(Asm *a, uint32_t at, uint32_t target)
{
    int32_t off = (int32_t)(target - at);

    memcpy(&a->b[at + 2], &off, sizeof(off));
}

static inline void stop(Asm *a)
{
    emit(a, 0x0088, 0, 2);
}

static inline void footer(Asm *a)
{
    stop(a);
    for (int i = 0; i < 8; i++) {
        emit(a, 0x0008, 0, 2);
    }
}

/*
 * device_load / device_store (§3.8), 8-byte form: format F, data register
 * half R (32-bit registers when r32), base pair A (uniform when ua), index
 * O (immediate when oimm, else a 32-bit GPR), unsigned index, shift, mask
 */
static inline void devmem(Asm *a, bool store, unsigned fmt, unsigned r,
                          bool r32, unsigned base, bool ua, unsigned o,
                          bool oimm, unsigned shift, unsigned mask)
{
    uint64_t w = (store ? 0x45 : 0x05) | (uint64_t)(fmt & 7) << 7 |
                 (uint64_t)(r & 63) << 10 | (uint64_t)(base & 15) << 16 |
                 (uint64_t)(o & 15) << 20 | (uint64_t)oimm << 24 |
                 1ull << 25 | 1ull << 26 | (uint64_t)ua << 27 |
                 (uint64_t)((o >> 4) & 15) << 32 |
                 (uint64_t)((base >> 4) & 15) << 36 |
                 (uint64_t)(r >> 6) << 40 | (uint64_t)shift << 42 |
                 4ull << 44 | 1ull << 47 | (uint64_t)(fmt >> 3) << 48 |
                 (uint64_t)r32 << 49 | (uint64_t)mask << 52 |
                 (uint64_t)(o >> 8) << 56;

    emit(a, w, 0, 8);
}

#define SR_TG_X         0
#define SR_LOCAL_INDEX  51
#define SR_LANE         52
#define SR_SIMD         53
#define SR_GRID_X       80

/*
 * The render tests' counting programs: add 1 to a 32-bit word of the
 * array whose address is in uniforms u0:u1, the word of this pixel
 * (y * @width + x, from sr80 and sr81: a fragment shader's) or word @k.
 * r1, r2, r30, r60 and r61 are theirs.
 */
static inline void asm_count_pixel(Asm *a, uint32_t width)
{
    get_sr(a, 60, 80);
    get_sr(a, 61, 81);
    mov_imm32(a, 2, width);
    imad(a, D32(60), R32(61), R32(2), R32(60), false, 0);
    devmem(a, false, 2, 2, true, 0, true, 120, false, 0, 1);
    iadd(a, D32(1), R32(1), IMM(1), false, 0, false);
    devmem(a, true, 2, 2, true, 0, true, 120, false, 0, 1);
    footer(a);
}

static inline void asm_count_word(Asm *a, unsigned k)
{
    mov_imm32(a, 30, k);
    devmem(a, false, 2, 2, true, 0, true, 60, false, 0, 1);
    iadd(a, D32(1), R32(1), IMM(1), false, 0, false);
    devmem(a, true, 2, 2, true, 0, true, 60, false, 0, 1);
    footer(a);
}

/*
 * The tests' result and input convention: the output buffer's address in
 * uniforms u0:u1, the input buffer's in u2:u3; slot s of thread (or lane,
 * with @sr SR_LANE) t is word t + 32 * s.  r30, r31, r60 and r61 are the
 * helpers'.
 */
static inline void store_result_sr(Asm *a, unsigned reg, unsigned slot,
                                   unsigned sr)
{
    get_sr(a, 60, sr);
    mov_imm32(a, 31, 32 * slot);
    iadd(a, D32(60), R32(60), R32(31), false, 0, false);
    devmem(a, true, 2, 2 * reg, true, 0, true, 120, false, 0, 1);
}

/* 32-bit rN of every thread to its output word @slot */
static inline void store_result(Asm *a, unsigned reg, unsigned slot)
{
    store_result_sr(a, reg, slot, SR_LOCAL_INDEX);
}

/* 16-bit half @half of every thread to its output half-word @slot */
static inline void store_result16(Asm *a, unsigned half, unsigned slot)
{
    get_sr(a, 60, SR_LOCAL_INDEX);
    mov_imm32(a, 31, 32 * slot);
    iadd(a, D32(60), R32(60), R32(31), false, 0, false);
    devmem(a, true, 1, half, false, 0, true, 120, false, 0, 1);
}

/* rN of every thread from its input word @slot */
static inline void load_input(Asm *a, unsigned reg, unsigned slot)
{
    get_sr(a, 61, SR_LOCAL_INDEX);
    mov_imm32(a, 30, 32 * slot);
    iadd(a, D32(61), R32(61), R32(30), false, 0, false);
    devmem(a, false, 2, 2 * reg, true, 4, true, 122, false, 0, 1);
}

#endif
