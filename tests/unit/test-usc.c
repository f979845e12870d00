/*
 * Unit tests of the USC shader interpreter: programs assembled by hand
 * from the bit tables (tests/lib/agx/usc-asm.h) or taken from Mesa's and
 * applegpu's own encodings, run against a fake memory and checked
 * against values computed here, independently
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <math.h>
#include "usc-asm.h"
#include "agx-usc-internal.h"

#define USC_BASE        0x1000000000ull
#define CODE_OFF        0x10000
#define OUT_VA          0x2000000000ull
#define IN_VA           0x3000000000ull

typedef struct Run {
    TestMem *m;
    AgxUscLaunch l;
    AgxUscFault fault;
    uint64_t budget;
} Run;

static void set_u64(AgxUscLaunch *l, unsigned half, uint64_t v)
{
    l->uniforms[half / 2] = v;
    l->uniforms[half / 2 + 1] = v >> 32;
}

/*
 * A launch of @a at CODE_OFF, @threads threads in threadgroups of @local:
 * uniforms u0_u1 = OUT_VA, u2_u3 = IN_VA
 */
static Run *run_new(Asm *a, uint32_t threads, uint32_t local)
{
    Run *r = g_new0(Run, 1);

    r->m = tm_new();
    tm_put(r->m, USC_BASE + CODE_OFF, a->b, a->n);
    tm_map(r->m, OUT_VA, 64 * 1024);
    tm_map(r->m, IN_VA, 64 * 1024);
    r->l.usc_base = USC_BASE;
    r->l.main_pc = CODE_OFF;
    r->l.gpr_halves = 256;
    r->l.global[0] = threads;
    r->l.global[1] = r->l.global[2] = 1;
    r->l.local[0] = local;
    r->l.local[1] = r->l.local[2] = 1;
    r->l.soft_faults = true;
    set_u64(&r->l, 0, OUT_VA);
    set_u64(&r->l, 4, IN_VA);
    r->budget = 1000000;
    return r;
}

static void run_free(Run *r)
{
    tm_free(r->m);
    g_free(r);
}

static AgxUscStatus run_all(Run *r)
{
    uint32_t groups = (r->l.global[0] + r->l.local[0] - 1) / r->l.local[0];
    AgxUscStatus st = agx_usc_run_preamble(&r->l, &tm_ops, r->m, &r->budget,
                                           &r->fault);

    for (uint32_t g = 0; g < groups && st == AGX_USC_OK; g++) {
        uint32_t tg[3] = { g, 0, 0 };

        st = agx_usc_run_threadgroup(&r->l, tg, &tm_ops, r->m, &r->budget,
                                     &r->fault);
    }
    return st;
}

static void put_inputs(Run *r, unsigned slot, const uint32_t *v, unsigned n)
{
    tm_put(r->m, IN_VA + 4 * 32 * slot, v, 4 * n);
}

static uint32_t out32(Run *r, unsigned slot, unsigned lane)
{
    return tm_get32(r->m, OUT_VA + 4 * (32 * slot + lane));
}

static uint16_t out16(Run *r, unsigned slot, unsigned lane)
{
    uint16_t v;
    uint64_t f;

    tm_rw(r->m, OUT_VA + 2 * (32 * slot + lane), &v, 2, &f, false);
    return v;
}

static uint32_t fbits(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

/* --- decoding Mesa's own words ------------------------------------------- */

/* agx-shaders.md §3.1: bytes from Mesa's linker (lib/agx_linker.c) */
static void test_decode_mesa_vectors(void)
{
    static const struct {
        uint8_t b[8];
        unsigned len, op;
    } v[] = {
        { { 0x62, 0x00, 0x00, 0x00 }, 4, AGX_USC_OP_MOV_IMM16 },
        { { 0x62, 0x04, 0x01, 0x00 }, 4, AGX_USC_OP_MOV_IMM16 },
        { { 0x0e, 0x04, 0x00, 0x20, 0x84, 0x00, 0x00, 0x00 }, 8,
          AGX_USC_OP_IADD },
        { { 0x52, 0x2c, 0x42, 0x00, 0x00, 0x00 }, 6, AGX_USC_OP_WHILE_ICMP },
        { { 0x00, 0xc0, 0x10, 0x00, 0x00, 0x00 }, 6, AGX_USC_OP_JMP_ANY },
        { { 0x52, 0x0e, 0x00, 0x00, 0x00, 0x00 }, 6, AGX_USC_OP_POP_EXEC },
        { { 0x88, 0x00 }, 2, AGX_USC_OP_STOP },
        { { 0x08, 0x00 }, 2, AGX_USC_OP_TRAP },
        /* applegpu hwtest.py: fmadd32 r3l, r0, r1, r2 */
        { { 0x3a, 0x8c, 0x40, 0x22, 0x24, 0x44, 0x02, 0x00 }, 8,
          AGX_USC_OP_FFMA },
        { { 0x2a, 0x8c, 0x40, 0x42, 0x24, 0x00 }, 6, AGX_USC_OP_FADD },
        { { 0x7e, 0x2d, 0x50, 0xee, 0x64, 0x05 }, 6, AGX_USC_OP_BITOP },
    };
    AgxUscInsn insn;

    for (unsigned i = 0; i < G_N_ELEMENTS(v); i++) {
        g_assert_true(agx_usc_decode_one(v[i].b, 8, &insn));
        g_assert_cmpstr(agx_usc_op_names[insn.op], ==,
                        agx_usc_op_names[v[i].op]);
        g_assert_cmpuint(insn.len, ==, v[i].len);
    }
    /* mov_imm r1l, 1 */
    agx_usc_decode_one(v[1].b, 8, &insn);
    g_assert_cmpuint(insn.o[0].idx, ==, 2);
    g_assert_cmpuint(insn.o[0].size, ==, 16);
    g_assert_cmpuint(insn.f[AGX_USC_F_IMM], ==, 1);
    /* iadd r1l, 0, r1l << 1 */
    agx_usc_decode_one(v[2].b, 8, &insn);
    g_assert_cmpuint(insn.o[0].idx, ==, 2);
    g_assert_cmpuint(insn.o[1].type, ==, AGX_OPND_IMM);
    g_assert_cmpuint(insn.o[2].type, ==, AGX_OPND_GPR);
    g_assert_cmpuint(insn.o[2].idx, ==, 2);
    g_assert_cmpuint(insn.f[AGX_USC_F_SHIFT], ==, 1);
    /* while_icmp: nest 1, ult, A = r1l, B = 0 */
    agx_usc_decode_one(v[3].b, 8, &insn);
    g_assert_cmpuint(insn.f[AGX_USC_F_NEST], ==, 1);
    g_assert_cmpuint(insn.f[AGX_USC_F_COND], ==, 1);
    g_assert_cmpuint(insn.o[1].idx, ==, 2);
    g_assert_cmpuint(insn.o[2].type, ==, AGX_OPND_IMM);
    /* jmp_exec_any +16 */
    agx_usc_decode_one(v[4].b, 8, &insn);
    g_assert_cmpint((int32_t)insn.f[AGX_USC_F_OFF], ==, 16);
    /* ffma r3l, r0, r1, r2 */
    agx_usc_decode_one(v[8].b, 8, &insn);
    g_assert_cmpuint(insn.o[0].idx, ==, 6);
    g_assert_cmpuint(insn.o[0].size, ==, 16);
    g_assert_cmpuint(insn.o[3].idx, ==, 4);
    g_assert_cmpuint(insn.o[3].size, ==, 32);
    /* a short mov_imm followed by nothing readable: not enough bytes */
    g_assert_false(agx_usc_decode_one(v[8].b, 2, &insn));
    /* an opcode nobody defines */
    g_assert_false(agx_usc_decode_one((const uint8_t[8]) { 0x7f, 0xff }, 8,
                                      &insn));
}

/* --- the fill shader ----------------------------------------------------- */

/*
 * What Mesa emits for vkCmdFillBuffer (agx-shaders.md §7): the thread's x
 * in the grid, an imad to its first element, four movs of the pattern
 * from uniforms and one 4-component store at base + (r0 << 2) * 4
 */
static void asm_fill(Asm *a)
{
    get_sr(a, 0, SR_GRID_X);
    imad(a, D32(0), R32(0), IMM(1), U32(4), false, 0);     /* + start */
    mov(a, D32(1), U32(5));
    mov(a, D32(2), U32(6));
    mov(a, D32(3), U32(7));
    mov(a, D32(4), U32(8));
    devmem(a, true, 2, 2, true, 0, true, 0, false, 2, 0xf);
    footer(a);
}

/* A SIMD-group a vertex or fragment pipe launches: presets, its lanes only */
static void test_run_group(void)
{
    AgxUscGroup *g = g_new0(AgxUscGroup, 1);
    Asm a = { 0 };
    Run *r;

    /* out[lane] = r5 + r6 (a vertex shader's vertex and instance ids) */
    iadd(&a, D32(7), R32(5), R32(6), false, 0, false);
    store_result(&a, 7, 0);
    footer(&a);
    r = run_new(&a, 32, 32);
    g->launched = 0x0000ffff;
    g->init_regs = 7;
    for (int lane = 0; lane < 32; lane++) {
        g->init[5][lane] = 100 + lane;
        g->init[6][lane] = 1000;
    }
    g_assert_cmpint(agx_usc_run_group(&r->l, g, &tm_ops, r->m, &r->budget,
                                      &r->fault), ==, AGX_USC_OK);
    for (int lane = 0; lane < 32; lane++) {
        g_assert_cmphex(out32(r, 0, lane), ==, lane < 16 ? 1100 + lane : 0);
    }
    /* presets beyond the declared registers are dropped, not written */
    r->l.gpr_halves = 8;
    g_assert_cmpint(agx_usc_run_group(&r->l, g, &tm_ops, r->m, &r->budget,
                                      &r->fault), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_REGISTER);
    run_free(r);
    g_free(g);
}

/*
 * Groups one after another: each starts with zeroed registers, though
 * the last one's register file is reused (the general path's is new)
 */
static void test_group_regs_zero(void)
{
    AgxUscGroup *g = g_new0(AgxUscGroup, 1);
    Asm a = { 0 };
    Run *r;

    /* out[lane] = r9, read before written; then r9 and r20 set */
    store_result_sr(&a, 9, 0, SR_LANE);
    mov_imm32(&a, 9, 0x1234567);
    mov_imm32(&a, 20, 0x89abcdef);
    store_result_sr(&a, 20, 1, SR_LANE);
    footer(&a);
    r = run_new(&a, 32, 32);
    r->l.gpr_halves = 128;
    g->launched = ~0u;
    for (int k = 0; k < 6; k++) {
        agx_usc_general_paths = k >= 3;
        tm_put(r->m, OUT_VA, (uint32_t[32]) { [0 ... 31] = 0xdead }, 128);
        g_assert_cmpint(agx_usc_run_group(&r->l, g, &tm_ops, r->m,
                                          &r->budget, &r->fault),
                        ==, AGX_USC_OK);
        agx_usc_general_paths = false;
        for (int lane = 0; lane < 32; lane++) {
            g_assert_cmphex(out32(r, 0, lane), ==, 0);
            g_assert_cmphex(out32(r, 1, lane), ==, 0x89abcdef);
        }
        /* a smaller register file next: the first rows only */
        r->l.gpr_halves = k & 1 ? 256 : 128;
    }
    run_free(r);
    g_free(g);
}

static void test_fill_shader(void)
{
    static const uint32_t pat[4] = { 0x11111111, 0x22222222, 0xcafef00d, 0 };
    Asm a = { 0 };
    Run *r;
    const uint32_t n = 100, start = 3;

    asm_fill(&a);
    r = run_new(&a, n, 32);
    r->l.gpr_halves = 16;
    r->l.uniforms[4] = start;
    memcpy(&r->l.uniforms[5], pat, sizeof(pat));
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (uint32_t w = 0; w < 4 * (n + start + 8); w++) {
        uint32_t e = 0;

        if (w >= 4 * start && w < 4 * (start + n)) {
            e = pat[w % 4];
        }
        g_assert_cmphex(tm_get32(r->m, OUT_VA + 4 * w), ==, e);
    }
    /* a decoded program is reused, and agrees */
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    g_assert_cmphex(tm_get32(r->m, OUT_VA + 16 * start + 8), ==, pat[2]);
    run_free(r);
}

static void test_fill_register_limit(void)
{
    Asm a = { 0 };
    Run *r;

    asm_fill(&a);
    r = run_new(&a, 32, 32);
    r->l.gpr_halves = 8;            /* r0..r3: r4 is beyond */
    g_assert_cmpint(run_all(r), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_REGISTER);
    g_assert_cmphex(r->fault.pc, ==, USC_BASE + CODE_OFF + 4 + 8 + 3 * 6);
    run_free(r);
}

static void test_fill_faults(void)
{
    Asm a = { 0 };
    Run *r;

    asm_fill(&a);
    r = run_new(&a, 64, 32);
    set_u64(&r->l, 0, 0x5000000000ull);     /* unmapped */
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);    /* soft: dropped */
    g_assert_null(tm_page(r->m, 0x5000000000ull, false));
    r->l.soft_faults = false;
    g_assert_cmpint(run_all(r), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_STORE);
    g_assert_cmphex(r->fault.va, ==, 0x5000000000ull);
    g_assert_cmphex(r->fault.pc, ==, USC_BASE + CODE_OFF + 4 + 8 + 4 * 6);
    run_free(r);
}

/* --- control flow -------------------------------------------------------- */

static void test_if_else(void)
{
    Asm a = { 0 };
    Run *r;

    mov_imm16(&a, 0, 0);                            /* r0l = 0 */
    get_sr(&a, 1, SR_LANE);
    /* if (lane < 16): ult, inverted "not taken" form as Mesa: if !(x >= 16) */
    IF_ICMP(&a, 1, 1, false, R16(2), IMM(16));
    mov_imm32(&a, 2, 111);
    /* nested: if (lane < 4) r2 = 7 */
    IF_ICMP(&a, 1, 1, false, R16(2), IMM(4));
    mov_imm32(&a, 2, 7);
    pop_exec(&a, 1);
    ELSE_FCMP_TRUE(&a, 1);
    mov_imm32(&a, 2, 222);
    pop_exec(&a, 1);
    store_result(&a, 2, 0);
    footer(&a);
    r = run_new(&a, 32, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        g_assert_cmpuint(out32(r, 0, l), ==, l < 4 ? 7 : l < 16 ? 111 : 222);
    }
    run_free(r);
}

static void test_loop(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t body, j;

    mov_imm16(&a, 0, 0);
    get_sr(&a, 1, SR_LANE);
    mov_imm32(&a, 2, 0);
    PUSH_EXEC(&a, 1);
    body = a.n;
    iadd(&a, D32(2), R32(2), IMM(1), false, 0, false);
    /* keep looping while r2 < lane */
    WHILE_ICMP(&a, 1, 1, false, R32(2), R32(1));
    j = a.n;
    jmp(&a, false, body - j);
    pop_exec(&a, 1);
    store_result(&a, 2, 0);
    footer(&a);
    r = run_new(&a, 32, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        g_assert_cmpuint(out32(r, 0, l), ==, l ? l : 1);
    }
    run_free(r);
}

static void test_budget_and_faults(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t at;

    /* an endless loop ends with the budget */
    at = a.n;
    iadd(&a, D32(2), R32(2), IMM(1), false, 0, false);
    jmp(&a, false, at - a.n);
    footer(&a);
    r = run_new(&a, 32, 32);
    r->budget = 1000;
    g_assert_cmpint(run_all(r), ==, AGX_USC_BUDGET);
    g_assert_cmpuint(r->budget, ==, 0);
    run_free(r);

    /* trap */
    a.n = 0;
    emit(&a, 0x0008, 0, 2);
    r = run_new(&a, 1, 1);
    g_assert_cmpint(run_all(r), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_TRAP);
    run_free(r);

    /* an undefined word */
    a.n = 0;
    mov_imm32(&a, 2, 5);
    emit(&a, 0xff7f, 0, 2);
    r = run_new(&a, 1, 1);
    g_assert_cmpint(run_all(r), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_DECODE);
    g_assert_cmphex(r->fault.pc, ==, USC_BASE + CODE_OFF + 6);
    run_free(r);

    /* code running off its page */
    a.n = 0;
    r = run_new(&a, 1, 1);
    r->l.main_pc = 0x7ffffa;
    tm_put(r->m, USC_BASE + 0x7ffffa, (const uint8_t[6]) { 0x62, 0x01, 0, 0,
                                                        0, 0 }, 6);
    g_assert_cmpint(run_all(r), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_FETCH);
    g_assert_cmphex(r->fault.pc, ==, USC_BASE + 0x800000);
    run_free(r);

    /* a threadgroup the hardware cannot have */
    a.n = 0;
    footer(&a);
    r = run_new(&a, 4096, 2048);
    g_assert_cmpint(run_all(r), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_LAUNCH);
    run_free(r);
}

/* --- integer ALU --------------------------------------------------------- */

static void test_integer(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t x[32], y[32];

    for (int l = 0; l < 32; l++) {
        x[l] = 0x9e3779b9u * (l + 1);
        y[l] = 0x7f4a7c15u ^ (l * 0x01010101u);
    }
    load_input(&a, 1, 0);
    load_input(&a, 2, 1);
    iadd(&a, D32(3), R32(1), R32(2), true, 3, false);       /* x - (y << 3) */
    store_result(&a, 3, 0);
    imad(&a, D32(3), R32(1), R32(2), R32(1), true, 1);      /* x*y - (x<<1) */
    store_result(&a, 3, 1);
    /* 64-bit: r4_r5 = sext(x) + (y << 2), as address arithmetic */
    iadd(&a, D64(4), MODS(R32(1), M_SX), R32(2), false, 2, false);
    store_result(&a, 4, 2);
    store_result(&a, 5, 3);
    /* unsigned saturating add */
    iadd(&a, D32(3), R32(1), R32(2), false, 0, true);
    store_result(&a, 3, 4);
    /* 32x32 -> 64 signed product, high half (imul_high) */
    imad(&a, D64(6), MODS(R32(1), M_SX), MODS(R32(2), M_SX), IMM(0), false, 0);
    store_result(&a, 7, 5);
    /* 16-bit: x.l + x.h */
    iadd(&a, D16(6), R16(2), R16(3), false, 0, false);
    store_result16(&a, 6, 12);
    footer(&a);
    r = run_new(&a, 32, 32);
    put_inputs(r, 0, x, 32);
    put_inputs(r, 1, y, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        uint64_t w = (uint64_t)(int64_t)(int32_t)x[l] + ((uint64_t)y[l] << 2);
        uint64_t sum = (uint64_t)x[l] + y[l];
        int64_t prod = (int64_t)(int32_t)x[l] * (int32_t)y[l];

        g_assert_cmphex(out32(r, 0, l), ==, x[l] - (y[l] << 3));
        g_assert_cmphex(out32(r, 1, l), ==, x[l] * y[l] - (x[l] << 1));
        g_assert_cmphex(out32(r, 2, l), ==, (uint32_t)w);
        g_assert_cmphex(out32(r, 3, l), ==, (uint32_t)(w >> 32));
        g_assert_cmphex(out32(r, 4, l), ==,
                        sum > 0xffffffff ? 0xffffffff : sum);
        g_assert_cmphex(out32(r, 5, l), ==, (uint32_t)((uint64_t)prod >> 32));
        g_assert_cmphex(out16(r, 12, l), ==, (uint16_t)(x[l] + (x[l] >> 16)));
    }
    run_free(r);
}

static void test_bitops(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t x[32], y[32];
    static const unsigned tts[] = { 0x8, 0xe, 0x6, 0x1, 0x7, 0x9, 0x5, 0xa,
                                    0x2, 0x4, 0xb, 0xd };

    for (int l = 0; l < 32; l++) {
        x[l] = 0xdeadbeefu * (l + 3) + l;
        y[l] = l * 3;               /* shift counts, some past 32 */
    }
    load_input(&a, 1, 0);
    load_input(&a, 2, 1);
    for (unsigned i = 0; i < G_N_ELEMENTS(tts); i++) {
        bitop(&a, D32(3), R32(1), R32(2), tts[i]);
        store_result(&a, 3, i);
    }
    /* ushr = bfeil(0, x, s, 0); ishl = bfi(0, x, s, 0); ubfe(x, 4, 7) */
    bitfield(&a, 1, 0, D32(3), IMM(0), R32(1), R32(2), 0);
    store_result(&a, 3, 12);
    bitfield(&a, 0, 0, D32(3), IMM(0), R32(1), R32(2), 0);
    store_result(&a, 3, 13);
    bitfield(&a, 1, 0, D32(3), IMM(0), R32(1), IMM(4), 7);
    store_result(&a, 3, 14);
    /* asr x, s */
    bitfield(&a, 1, 1, D32(3), R32(1), R32(2), IMM(0), 0);
    store_result(&a, 3, 15);
    /* extr: (y:x) >> 8 */
    bitfield(&a, 0, 1, D32(3), R32(1), R32(2), IMM(8), 0);
    store_result(&a, 3, 16);
    /* popcount, bitrev, ffs (the most significant bit) */
    alu6_1(&a, 0x3e | 2 << 26, D32(3), R32(1), 0);
    store_result(&a, 3, 17);
    alu6_1(&a, 0x3e | 1 << 26, D32(3), R32(1), 0);
    store_result(&a, 3, 18);
    alu6_1(&a, 0x3e | 3 << 26, D32(3), R32(2), 0);
    store_result(&a, 3, 19);
    footer(&a);
    r = run_new(&a, 32, 32);
    put_inputs(r, 0, x, 32);
    put_inputs(r, 1, y, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        uint32_t s = y[l], xv = x[l], rev = 0;

        for (unsigned i = 0; i < G_N_ELEMENTS(tts); i++) {
            uint32_t e = 0;

            for (int bit = 0; bit < 32; bit++) {
                unsigned idx = ((s >> bit) & 1) << 1 | ((xv >> bit) & 1);

                e |= ((tts[i] >> idx) & 1u) << bit;
            }
            g_assert_cmphex(out32(r, i, l), ==, e);
        }
        for (int bit = 0; bit < 32; bit++) {
            rev |= ((xv >> bit) & 1) << (31 - bit);
        }
        g_assert_cmphex(out32(r, 12, l), ==, s < 32 ? xv >> s : 0);
        g_assert_cmphex(out32(r, 13, l), ==, s < 32 ? xv << s : 0);
        g_assert_cmphex(out32(r, 14, l), ==, (xv >> 4) & 0x7f);
        g_assert_cmphex(out32(r, 15, l), ==,
                        (uint32_t)((int32_t)xv >> (s < 31 ? s : 31)));
        g_assert_cmphex(out32(r, 16, l), ==, (xv >> 8) | (s << 24));
        g_assert_cmpuint(out32(r, 17, l), ==, __builtin_popcount(xv));
        g_assert_cmphex(out32(r, 18, l), ==, rev);
        g_assert_cmpuint(out32(r, 19, l), ==, s ? 31 - __builtin_clz(s)
                                                : 0xffffffffu);
    }
    run_free(r);
}

/* icmpsel / fcmpsel, 10-byte form (X/Y slots: 3-bit types, §3.2) */
static void cmpsel(Asm *a, bool f, unsigned cond, Dst d, Op x, Op y,
                   unsigned xr, unsigned yr)
{
    /* X, Y: 32-bit GPRs by destination size: type 001 (hint) */
    Op s[4] = { x, y, op_mk(2 * xr, 1, 0), op_mk(2 * yr, 1, 0) };

    alu(a, (f ? 0x02 : 0x12) | L15, 10, 64, d, s, 4,
        (uint64_t)cond << 61);
}

static void test_cmpsel(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t x[32], y[32];

    for (int l = 0; l < 32; l++) {
        x[l] = (uint32_t)(l - 16);
        y[l] = fbits(l == 3 ? NAN : (float)(l % 7) - 3);
    }
    load_input(&a, 1, 0);
    load_input(&a, 2, 1);
    mov_imm32(&a, 5, 0xaaaa);
    mov_imm32(&a, 6, 0xbbbb);
    cmpsel(&a, false, 5, D32(3), R32(1), IMM(0), 5, 6);      /* slt */
    store_result(&a, 3, 0);
    cmpsel(&a, false, 1, D32(3), R32(1), IMM(0), 5, 6);      /* ult */
    store_result(&a, 3, 1);
    /* fmin: fcmpsel ltn y, 0.0 ? y : 0.0 (NaN loses) */
    mov_imm32(&a, 7, 0);
    cmpsel(&a, true, 3, D32(3), R32(2), IMM(0), 2, 7);
    store_result(&a, 3, 2);
    /* ballot(lane x < 0 signed) */
    alu(&a, 0x32, 8, 32, D32(3), (Op[2]) { R32(1), IMM(0) }, 2,
        1ull << 48 | 5ull << 61);
    store_result(&a, 3, 3);
    footer(&a);
    r = run_new(&a, 32, 32);
    put_inputs(r, 0, x, 32);
    put_inputs(r, 1, y, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        float fy;

        memcpy(&fy, &y[l], 4);
        g_assert_cmphex(out32(r, 0, l), ==, l < 16 ? 0xaaaa : 0xbbbb);
        g_assert_cmphex(out32(r, 1, l), ==, 0xbbbb);
        g_assert_cmphex(out32(r, 2, l), ==, l == 3 ? 0 :
                        fy < 0 ? y[l] : 0);
        g_assert_cmphex(out32(r, 3, l), ==, 0xffff);
    }
    run_free(r);
}

/* --- floating point ------------------------------------------------------ */

static void test_float(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t x[32], y[32], z[32];

    for (int l = 0; l < 32; l++) {
        x[l] = fbits(1.5f * l - 7.25f);
        y[l] = fbits(0.1f * (l + 1));
        z[l] = fbits(3.0f - l);
    }
    x[0] = 0x00400000;          /* an f32 denormal: flushed */
    y[1] = 0x7f800000;          /* inf * 0 = NaN */
    x[1] = 0;
    /* applegpu hwtest.py DOUBLE_ROUND_INITIAL_STATE, lanes 0 and 3 */
    x[30] = 0x3f800000;
    y[30] = 0x3f802fff;
    z[30] = 0;
    x[31] = 0x3f800800;
    y[31] = 0x3f800800;
    z[31] = 0;
    load_input(&a, 0, 0);
    load_input(&a, 1, 1);
    load_input(&a, 2, 2);
    fadd(&a, D32(3), R32(0), R32(1));
    store_result(&a, 3, 0);
    fmul(&a, D32(3), R32(0), R32(1));
    store_result(&a, 3, 1);
    ffma(&a, D32(3), R32(0), R32(1), R32(2));
    store_result(&a, 3, 2);
    /* fsat(x): fadd x, -0.0 with saturate */
    alu6(&a, 0x2a | 0x40 | L15, D32(3), R32(0), IMM(0x80), 0);
    store_result(&a, 3, 3);
    /* fneg(abs(x)) * 2.0 (minifloat 0x40: (16+0) * 2^(4-7) = 2) */
    fmul(&a, D32(3), MODS(R32(0), M_ABS | M_NEG), IMM(0x40));
    store_result(&a, 3, 4);
    /* the applegpu vector itself: fmadd32 r3l, r0, r1, r2 (f16 result) */
    emit(&a, 0x0002442422408c3aull, 0, 8);
    store_result16(&a, 6, 10);
    /* dfdx, dfdy of y: quads as 2x2 blocks, rows first */
    alu6_1(&a, 0x0a | L15, D32(3), R32(1), 4ull << 28);
    store_result(&a, 3, 8);
    alu6_1(&a, 0x0a | L15, D32(3), R32(1), 6ull << 28);
    store_result(&a, 3, 9);
    /* floor, rcp */
    alu6_1(&a, 0x0a | L15, D32(3), R32(0), 0ull << 28);
    store_result(&a, 3, 6);
    alu6_1(&a, 0x0a | L15, D32(3), R32(2), 8ull << 28);
    store_result(&a, 3, 7);
    footer(&a);
    r = run_new(&a, 32, 32);
    put_inputs(r, 0, x, 32);
    put_inputs(r, 1, y, 32);
    put_inputs(r, 2, z, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 30; l++) {
        float fx, fy, fz, e;

        memcpy(&fx, &x[l], 4);
        memcpy(&fy, &y[l], 4);
        memcpy(&fz, &z[l], 4);
        if (l == 0) {
            fx = 0;             /* flushed on input */
        }
        g_assert_cmphex(out32(r, 0, l), ==, fbits(fx + fy));
        e = fx * fy;
        g_assert_cmphex(out32(r, 1, l), ==, isnan(e) ? 0x7fc00000 : fbits(e));
        e = fmaf(fx, fy, fz);
        g_assert_cmphex(out32(r, 2, l), ==, isnan(e) ? 0x7fc00000 : fbits(e));
        e = fx < 0 ? 0 : fx > 1 ? 1 : fx;
        g_assert_cmphex(out32(r, 3, l), ==, fbits(e));
        g_assert_cmphex(out32(r, 4, l), ==, fbits(-2 * fabsf(fx)));
        g_assert_cmphex(out32(r, 6, l), ==, fbits(floorf(fx)));
        g_assert_cmphex(out32(r, 7, l), ==, fbits(1 / fz));
    }
    for (int l = 0; l < 32; l++) {
        float y0, y1, y2, y3;

        memcpy(&y0, &y[l & ~1], 4);
        memcpy(&y1, &y[l | 1], 4);
        memcpy(&y2, &y[l & ~2], 4);
        memcpy(&y3, &y[l | 2], 4);
        if (l / 4 != 0 && l / 4 != 7) {     /* quads with inf/denormals */
            g_assert_cmphex(out32(r, 8, l), ==, fbits(y1 - y0));
            g_assert_cmphex(out32(r, 9, l), ==, fbits(y3 - y2));
        }
    }
    /* 1.0 * (1 + 0x2fff * 2^-23) to f16: 1 + 1.49988 * 2^-10: 0x3c01 */
    g_assert_cmphex(out16(r, 10, 30), ==, 0x3c01);
    /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: to f32 a tie, even: 1 + 2^-11, */
    /* then to f16 a tie again, even: 1.0 (a single rounding gives 0x3c01) */
    g_assert_cmphex(out16(r, 10, 31), ==, 0x3c00);
    run_free(r);
}

/*
 * The f32 rules (§4) on many inputs that reach their corners: sources
 * below 2^-126 flush keeping the sign, results whose exact value is below
 * 2^-126 flush keeping its sign, NaN is 0x7fc00000, ffma rounds once.
 * Operands with 12-bit mantissas make products whose f32 rounding is a tie,
 * and a tiny addend then makes a double sum that lies on the tie although
 * the exact sum does not.  The reference is the host's fmaf (correctly
 * rounded) and, for the flushing test, the exact error of the double sum.
 */
static uint32_t corner_f32(GRand *g)
{
    uint32_t sign = g_rand_int(g) & 0x80000000;

    switch (g_rand_int_range(g, 0, 8)) {
    case 0:                     /* anything, NaN and inf included */
        return g_rand_int(g);
    case 1:                     /* denormals and the smallest normals */
        return sign | g_rand_int_range(g, 0, 0x01000000);
    case 2:                     /* 12-bit mantissas near 1 */
        return sign | 0x3f800000 | (g_rand_int(g) & 0x7ff800);
    case 3:                     /* 12-bit mantissas near 2^-63 */
        return sign | 0x20000000 | (g_rand_int(g) & 0x7ff800);
    case 4:                     /* tiny addends */
        return sign | g_rand_int_range(g, 0x02000000, 0x1a000000);
    case 5:
        return sign | (g_rand_int(g) & 1 ? 0x7f800000 : 0);
    default:                    /* ordinary values */
        return sign | g_rand_int_range(g, 0x30000000, 0x50000000);
    }
}

static float f32_src_value(uint32_t b)
{
    float f;

    if (!(b & 0x7f800000)) {
        b &= 0x80000000;
    }
    memcpy(&f, &b, 4);
    return f;
}

/* The f32 result of exact value x * y + z, where r = fmaf(x, y, z) */
static uint32_t f32_expect(float r, double x, double y, double z)
{
    const double min_normal = ldexp(1, -126);
    double p = x * y, s = p + z, t = s - p;
    double err = (p - (s - t)) + (z - t);     /* exact: x * y + z = s + err */
    bool tiny = fabs(s) < min_normal ||
                (fabs(s) == min_normal && err != 0 && (err < 0) == (s > 0));

    if (isnan(r)) {
        return 0x7fc00000;
    }
    if (isfinite(s) && tiny) {
        return fbits(r) & 0x80000000;
    }
    return fbits(r);
}

static void test_float_corners(void)
{
    GRand *g = g_rand_new_with_seed(26);
    uint32_t x[32], y[32], z[32];
    Asm a = { 0 };

    load_input(&a, 0, 0);
    load_input(&a, 1, 1);
    load_input(&a, 2, 2);
    fadd(&a, D32(3), R32(0), R32(1));
    store_result(&a, 3, 0);
    fmul(&a, D32(3), R32(0), R32(1));
    store_result(&a, 3, 1);
    ffma(&a, D32(3), R32(0), R32(1), R32(2));
    store_result(&a, 3, 2);
    ffma(&a, D32(3), R32(0), IMM(0x30), R32(2));   /* x * 1.0 + z */
    store_result(&a, 3, 3);
    footer(&a);
    for (int round = 0; round < 400; round++) {
        Run *r = run_new(&a, 32, 32);

        for (int l = 0; l < 32; l++) {
            x[l] = corner_f32(g);
            y[l] = corner_f32(g);
            z[l] = corner_f32(g);
        }
        if (round == 0) {
            /* -2^-100 * 2^-100 + 2^-126: the double sum is 2^-126 */
            x[0] = 0x8d800000;
            y[0] = 0x0d800000;
            z[0] = 0x00800000;
            x[1] = 0x0d800000;
            y[1] = 0x0d800000;
            z[1] = 0x80800000;
            /* (1 - 2^-24) * 2^-126 rounds to 2^-126 (a tie, even) */
            x[2] = 0x3f7fffff;
            y[2] = 0x00800000;
            x[3] = 0x00800000;
            y[3] = 0xbf7fffff;
        }
        put_inputs(r, 0, x, 32);
        put_inputs(r, 1, y, 32);
        put_inputs(r, 2, z, 32);
        g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
        for (int l = 0; l < 32; l++) {
            float fx = f32_src_value(x[l]), fy = f32_src_value(y[l]);
            float fz = f32_src_value(z[l]);

            g_assert_cmphex(out32(r, 0, l), ==,
                            f32_expect(fx + fy, fx, 1, fy));
            g_assert_cmphex(out32(r, 1, l), ==,
                            f32_expect(fx * fy, fx, fy, 0));
            g_assert_cmphex(out32(r, 2, l), ==,
                            f32_expect(fmaf(fx, fy, fz), fx, fy, fz));
            g_assert_cmphex(out32(r, 3, l), ==,
                            f32_expect(fx + fz, fx, 1, fz));
        }
        run_free(r);
    }
    g_rand_free(g);
}

/*
 * Every condition of icmpsel and fcmpsel on 32-bit, 16-bit (low halves)
 * and immediate sources, against the conditions written out here: 16-bit
 * sources and immediates are sign-extended for the signed conditions,
 * f32 denormals compare as zero, ltn/gtn let a NaN operand lose
 */
static bool icond_ref(unsigned cond, uint32_t a, uint32_t b)
{
    switch (cond & 3) {
    case 0:
        return a == b;
    case 1:
        return (cond & 4) ? (int32_t)a < (int32_t)b : a < b;
    default:
        return (cond & 4) ? (int32_t)a > (int32_t)b : a > b;
    }
}

static bool fcond_ref(unsigned cond, float a, float b)
{
    switch (cond) {
    case 0:
        return a == b;
    case 1:
        return a < b;
    case 2:
        return a > b;
    case 3:
        return !isnan(a) && (isnan(b) || a < b);
    case 5:
        return a >= b;
    case 6:
        return a <= b;
    case 7:
        return !isnan(a) && (isnan(b) || a > b);
    default:
        return false;
    }
}

static void test_compare_conditions(void)
{
    static const uint32_t special[] = {
        0, 0x80000000, 0x00000001, 0x80000001, 0x7f800000, 0xff800000,
        0x7fc00000, 0x3f800000, 0xbf800000, 0x00800000, 0x0000ffff,
        0x00008000, 0x00007fff, 0xffff8001, 0x12345678, 0xfffffffe,
    };
    GRand *g = g_rand_new_with_seed(0xc0);
    uint32_t x[32], y[32];
    Asm a = { 0 };
    Run *r;
    int slot = 0;

    for (int l = 0; l < 32; l++) {
        x[l] = l < 16 ? special[l] : g_rand_int(g);
        y[l] = l < 16 ? special[(l * 7 + 3) & 15] : g_rand_int(g);
        if (l >= 24) {
            y[l] = x[l];
        }
    }
    load_input(&a, 1, 0);
    load_input(&a, 2, 1);
    mov_imm32(&a, 5, 0xaaaa);
    mov_imm32(&a, 6, 0xbbbb);
    for (unsigned cond = 0; cond < 8; cond++) {
        if ((cond & 3) != 3) {
            cmpsel(&a, false, cond, D32(3), R32(1), R32(2), 5, 6);
            store_result(&a, 3, slot++);
            cmpsel(&a, false, cond, D32(3), R16(2), R16(4), 5, 6);
            store_result(&a, 3, slot++);
            cmpsel(&a, false, cond, D32(3), R32(1), IMM(0x80), 5, 6);
            store_result(&a, 3, slot++);
        }
        if (cond != 4) {
            cmpsel(&a, true, cond, D32(3), R32(1), R32(2), 5, 6);
            store_result(&a, 3, slot++);
        }
    }
    footer(&a);
    r = run_new(&a, 32, 32);
    put_inputs(r, 0, x, 32);
    put_inputs(r, 1, y, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        uint32_t x16 = x[l] & 0xffff, y16 = y[l] & 0xffff;
        float fx = f32_src_value(x[l]), fy = f32_src_value(y[l]);

        slot = 0;
        for (unsigned cond = 0; cond < 8; cond++) {
            if ((cond & 3) != 3) {
                bool sx = cond & 4;

                g_assert_cmphex(out32(r, slot++, l), ==,
                                icond_ref(cond, x[l], y[l]) ? 0xaaaa :
                                0xbbbb);
                g_assert_cmphex(out32(r, slot++, l), ==,
                                icond_ref(cond,
                                          sx ? (uint32_t)(int16_t)x16 : x16,
                                          sx ? (uint32_t)(int16_t)y16 : y16)
                                ? 0xaaaa : 0xbbbb);
                g_assert_cmphex(out32(r, slot++, l), ==,
                                icond_ref(cond, x[l], 0x80) ? 0xaaaa :
                                0xbbbb);
            }
            if (cond != 4) {
                g_assert_cmphex(out32(r, slot++, l), ==,
                                fcond_ref(cond, fx, fy) ? 0xaaaa : 0xbbbb);
            }
        }
    }
    run_free(r);
    g_rand_free(g);
}

/* --- SIMD-group operations ----------------------------------------------- */

static void test_simd(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t x[32];

    for (int l = 0; l < 32; l++) {
        x[l] = l * l + 5;
    }
    load_input(&a, 1, 0);
    get_sr(&a, 2, SR_LANE);
    /* simd_reduce iadd: op 16 = bit 47 */
    alu6_1(&a, 0x6f | L15 | 1ull << 29 | 1ull << 47, D32(3), R32(1), 0);
    store_result(&a, 3, 0);
    /* simd_prefix (exclusive) iadd */
    alu6_1(&a, 0x6f | L15 | 3ull << 29 | 1ull << 47, D32(3), R32(1), 0);
    store_result(&a, 3, 1);
    /* quad_reduce umax: op 30 = bit 47 | 7 << 38 */
    alu6_1(&a, 0x6f | L15 | 7ull << 38 | 1ull << 47, D32(3), R32(1), 0);
    store_result(&a, 3, 2);
    /* simd_shuffle_down x, 1 and simd_shuffle_xor x, 5 */
    alu6(&a, 0x6f | 1 << 26 | 3ull << 38, D32(3), R32(1), IMM(1), 0);
    store_result(&a, 3, 3);
    alu6(&a, 0x6f | 1 << 26 | 1ull << 38, D32(3), R32(1), IMM(5), 0);
    store_result(&a, 3, 4);
    /* simd_shuffle x, 7 (broadcast) */
    alu6(&a, 0x6f | 1 << 26, D32(3), R32(1), IMM(7), 0);
    store_result(&a, 3, 5);
    /*
     * simd_shuffle x, lane ^ 1: quad-divergent low index bits are OR-ed
     * over the quad (applegpu's hardware-tested model): lane 3 of each quad
     */
    bitop(&a, D32(4), R32(2), IMM(1), 0x6);
    alu6(&a, 0x6f | 1 << 26, D32(3), R32(1), R32(4), 0);
    store_result(&a, 3, 8);
    /* active_thread_index_in_subgroup after disabling odd lanes */
    mov_imm16(&a, 0, 0);
    bitop(&a, D32(4), R32(2), IMM(1), 0x8);     /* lane & 1 */
    IF_ICMP(&a, 1, 0, false, R32(4), IMM(0));   /* if ((lane & 1) == 0) */
    get_sr(&a, 3, 58);
    alu6_1(&a, 0x6f | L15 | 1ull << 29 | 1ull << 47, D32(5), R32(1), 0);
    pop_exec(&a, 1);
    store_result(&a, 3, 6);
    store_result(&a, 5, 7);
    footer(&a);
    r = run_new(&a, 32, 32);
    put_inputs(r, 0, x, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        uint32_t sum = 0, pre = 0, even = 0, q = 0;

        for (int k = 0; k < 32; k++) {
            sum += x[k];
            pre += k < l ? x[k] : 0;
            even += k % 2 ? 0 : x[k];
        }
        for (int k = l & ~3; k < (l & ~3) + 4; k++) {
            q = MAX(q, x[k]);
        }
        g_assert_cmpuint(out32(r, 0, l), ==, sum);
        g_assert_cmpuint(out32(r, 1, l), ==, pre);
        g_assert_cmpuint(out32(r, 2, l), ==, q);
        g_assert_cmpuint(out32(r, 3, l), ==, l < 31 ? x[l + 1] : x[l]);
        g_assert_cmpuint(out32(r, 4, l), ==, x[l ^ 5]);
        g_assert_cmpuint(out32(r, 5, l), ==, x[7]);
        g_assert_cmpuint(out32(r, 8, l), ==, x[(l & ~3) | 3]);
        if (l % 2 == 0) {
            g_assert_cmpuint(out32(r, 6, l), ==, l / 2);
            g_assert_cmpuint(out32(r, 7, l), ==, even);
        }
    }
    run_free(r);
}

/* --- memory -------------------------------------------------------------- */

static void test_device_formats(void)
{
    Asm a = { 0 };
    Run *r;
    const uint8_t bytes[8] = { 0, 51, 255, 128, 0x80, 0x81, 0x7f, 0x01 };

    /* unorm8 x4 into 32-bit registers at IN_VA + 0 */
    devmem(&a, false, 4, 2, true, 4, true, 0, true, 0, 0xf);
    /* snorm8 x4 into 16-bit registers r10l..r11h from IN_VA + 4 */
    devmem(&a, false, 5, 20, false, 4, true, 1, true, 2, 0xf);
    /* i8 with a holed mask 0b0101 from IN_VA + 0: components 0 and 2 */
    devmem(&a, false, 0, 10, true, 4, true, 0, true, 0, 0x5);
    for (int i = 0; i < 4; i++) {
        store_result(&a, 1 + i, i);
    }
    store_result(&a, 5, 4);
    store_result(&a, 6, 5);
    store_result(&a, 10, 6);
    store_result(&a, 11, 7);
    footer(&a);
    r = run_new(&a, 1, 1);
    tm_put(r->m, IN_VA, bytes, sizeof(bytes));
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    g_assert_cmphex(out32(r, 0, 0), ==, fbits(0));
    g_assert_cmphex(out32(r, 1, 0), ==, fbits(0.2f));
    g_assert_cmphex(out32(r, 2, 0), ==, fbits(1));
    g_assert_cmphex(out32(r, 3, 0), ==, fbits(128 / 255.0f));
    g_assert_cmphex(out32(r, 4, 0), ==, 0);
    g_assert_cmphex(out32(r, 5, 0), ==, 255);
    /* snorm8 -128 -> -1 (clamped at -127), -127 -> -1, 127 -> 1, 1 */
    g_assert_cmphex(out32(r, 6, 0), ==, 0xbc00bc00);
    g_assert_cmphex(out32(r, 7, 0) & 0xffff, ==, 0x3c00);
    run_free(r);
}

/* uniform_store from a preamble, read by the main program */
static void test_preamble(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t pre;

    mov_imm32(&a, 2, 40);
    get_sr(&a, 1, SR_LOCAL_INDEX);
    iadd(&a, D32(2), R32(2), R32(1), false, 0, false);   /* 40 + tid */
    iadd(&a, D32(2), R32(2), U32(20), false, 0, false);  /* + u20 */
    store_result(&a, 2, 0);
    footer(&a);
    pre = a.n;
    /* r1 = 0x12345 (as halves r1l/r1h); uniform_store r1l,r1h -> u20 */
    mov_imm32(&a, 1, 0x12345);
    emit(&a, 0x45 | 1ull << 7 | 2ull << 10 | (40ull & 15) << 20 | 1ull << 24 |
         2ull << 25 | 7ull << 27 | (40ull >> 4) << 32 | 1ull << 47 |
         3ull << 52, 0, 8);
    footer(&a);
    r = run_new(&a, 8, 8);
    r->l.has_preamble = true;
    r->l.preamble_pc = CODE_OFF + pre;
    r->l.preamble_gpr_halves = 8;
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    g_assert_cmphex(r->l.uniforms[20], ==, 0x12345);
    for (int l = 0; l < 8; l++) {
        g_assert_cmpuint(out32(r, 0, l), ==, 40 + l + 0x12345);
    }
    run_free(r);
}

static void test_atomics(void)
{
    Asm a = { 0 };
    Run *r;
    bool seen[64] = { false };

    /* atomic add r1 <- [u2 + 0] += 2, returning the old value */
    mov_imm32(&a, 2, 2);
    emit(&a, 0x15 | 0ull << 6 | 2ull << 10 | 4ull << 16 | 1ull << 24 |
         1ull << 26 | 1ull << 27 | 1ull << 31 | 5ull << 44 | 1ull << 47 |
         4ull << 48, 0, 8);
    store_result(&a, 1, 0);
    /* umax with lane index at [u2 + 4] */
    get_sr(&a, 3, SR_LANE);
    emit(&a, 0x15 | 6ull << 6 | 4ull << 16 | 1ull << 20 | 1ull << 24 |
         1ull << 26 | 1ull << 27 | 1ull << 31 | 5ull << 44 | 6ull << 48, 0,
         8);
    footer(&a);
    r = run_new(&a, 32, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    g_assert_cmpuint(tm_get32(r->m, IN_VA), ==, 64);
    g_assert_cmpuint(tm_get32(r->m, IN_VA + 4), ==, 31);
    for (int l = 0; l < 32; l++) {
        uint32_t old = out32(r, 0, l);

        g_assert_cmpuint(old, <, 64);
        g_assert_false(seen[old]);
        seen[old] = true;
    }
    run_free(r);
}

/*
 * Threadgroup memory across two SIMD-groups and a barrier: each thread
 * writes its index, then reads the one of thread 63 - i
 */
static void local_mem(Asm *a, bool load, unsigned r32reg, unsigned base_half)
{
    /* 8-byte form: i32, 32-bit register, base = 16-bit GPR, index imm 0 */
    emit(a, (load ? 0x69 : 0x29) | 1 << 8 | (2ull * r32reg & 63) << 9 |
         L15 | (uint64_t)(base_half & 63) << 16 | 2ull << 24 |
         1ull << 34 | 1ull << 36, 0, 8);
}

/*
 * A pipe's group with threadgroup memory, run in slices of @slice
 * instructions (0: one call): each lane reads its word before any write
 * (slot 0), writes 200 + lane, reads it back (slot 1).  Each suspended
 * group holds its memory, zero until the first store, as a migration
 * saves it.  Outputs in @out (64 words).
 */
static void group_local_run(uint64_t slice, bool general, uint32_t *out)
{
    AgxUscGroup *g = g_new0(AgxUscGroup, 1);
    AgxUscThreadgroup t;
    AgxUscStatus st;
    unsigned calls = 0, stores = 0;
    Asm a = { 0 };
    Run *r;

    get_sr(&a, 1, SR_LANE);
    iadd(&a, D16(4), IMM(0), R16(2), false, 2, false);      /* r2l = 4i */
    local_mem(&a, true, 5, 4);
    store_result_sr(&a, 5, 0, SR_LANE);
    iadd(&a, D32(3), R32(1), IMM(200), false, 0, false);
    local_mem(&a, false, 3, 4);
    local_mem(&a, true, 6, 4);
    store_result_sr(&a, 6, 1, SR_LANE);
    footer(&a);
    r = run_new(&a, 32, 32);
    r->l.shared_bytes = 256;
    g->launched = 0x7fffffff;
    agx_usc_general_paths = general;
    g_assert_cmpint(agx_usc_group_start(&r->l, g, 100000, &t, &r->fault),
                    ==, AGX_USC_OK);
    do {
        uint64_t left = slice ? slice : UINT64_MAX;

        st = agx_usc_group_run(&r->l, g, &t, &tm_ops, r->m, &left,
                               &r->fault);
        calls++;
        if (st == AGX_USC_SUSPENDED) {
            g_assert_nonnull(t.shared);
            g_assert_cmpuint(t.nshared, ==, 256);
            /* each word zero until its lane's store */
            for (uint32_t i = 0; i < t.nshared / 4; i++) {
                uint32_t v;

                memcpy(&v, t.shared + 4 * i, 4);
                g_assert_true(v == 0 || (i < 31 && v == 200 + i));
                stores += v != 0;
            }
        }
    } while (st == AGX_USC_SUSPENDED && calls < 100000);
    agx_usc_general_paths = false;
    g_assert_cmpint(st, ==, AGX_USC_OK);
    g_assert_true(slice == 0 || calls > 1);
    /* some slice ended before the stores and some after */
    g_assert_true(slice == 0 || stores > 0);
    agx_usc_tg_free(&t);
    for (int i = 0; i < 64; i++) {
        out[i] = out32(r, i / 32, i % 32);
    }
    run_free(r);
    g_free(g);
}

/*
 * The fast path allocates a group's threadgroup memory when it is first
 * accessed or the group suspends; the general path for every group: the
 * same stores either way, in one call or in slices
 */
static void test_group_local(void)
{
    uint32_t want[64], got[64];

    group_local_run(0, true, want);
    for (int lane = 0; lane < 32; lane++) {
        g_assert_cmphex(want[lane], ==, 0);
        g_assert_cmphex(want[32 + lane], ==, lane < 31 ? 200 + lane : 0);
    }
    for (uint64_t slice = 0; slice < 12; slice++) {
        for (int general = 0; general < 2; general++) {
            group_local_run(slice, general, got);
            g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
        }
    }
}

static void test_local_barrier(void)
{
    Asm a = { 0 };
    Run *r;

    get_sr(&a, 1, SR_LOCAL_INDEX);
    iadd(&a, D16(4), IMM(0), R16(2), false, 2, false);      /* r2l = 4i */
    iadd(&a, D32(3), R32(1), IMM(200), false, 0, false);
    local_mem(&a, false, 3, 4);
    emit(&a, 0x0068, 0, 2);                                 /* barrier */
    iadd(&a, D16(4), IMM(252), R16(4), true, 0, false);     /* 4 (63 - i) */
    local_mem(&a, true, 5, 4);
    store_result(&a, 5, 0);
    footer(&a);
    r = run_new(&a, 64, 64);
    r->l.shared_bytes = 256;
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int t = 0; t < 64; t++) {
        g_assert_cmpuint(tm_get32(r->m, OUT_VA + 4 * t), ==, 200 + 63 - t);
    }
    run_free(r);
}

/*
 * The same threadgroup (two SIMD-groups meeting at a barrier through
 * threadgroup memory) run in slices of @slice instructions, suspended
 * and resumed in the middle of a round and at the barrier: what it
 * stores is what it stores in one call
 */
static void run_sliced(uint64_t slice)
{
    Asm a = { 0 };
    AgxUscThreadgroup t;
    const uint32_t tg[3] = { 0, 0, 0 };
    AgxUscStatus st;
    unsigned calls = 0;
    Run *r;

    get_sr(&a, 1, SR_LOCAL_INDEX);
    iadd(&a, D16(4), IMM(0), R16(2), false, 2, false);      /* r2l = 4i */
    iadd(&a, D32(3), R32(1), IMM(200), false, 0, false);
    local_mem(&a, false, 3, 4);
    emit(&a, 0x0068, 0, 2);                                 /* barrier */
    iadd(&a, D16(4), IMM(252), R16(4), true, 0, false);     /* 4 (63 - i) */
    local_mem(&a, true, 5, 4);
    store_result(&a, 5, 0);
    footer(&a);
    r = run_new(&a, 64, 64);
    r->l.shared_bytes = 256;
    g_assert_cmpint(agx_usc_tg_start(&r->l, tg, 100000, &t, &r->fault), ==,
                    AGX_USC_OK);
    do {
        uint64_t left = slice;

        st = agx_usc_tg_run(&r->l, &t, &tm_ops, r->m, &left, &r->fault);
        calls++;
        g_assert_true(st != AGX_USC_SUSPENDED || left == 0);
    } while (st == AGX_USC_SUSPENDED && calls < 100000);
    g_assert_cmpint(st, ==, AGX_USC_OK);
    /* two SIMD-groups of a dozen instructions */
    g_assert_cmpuint(calls, >=, 24 / slice);
    for (int i = 0; i < 64; i++) {
        g_assert_cmpuint(tm_get32(r->m, OUT_VA + 4 * i), ==, 200 + 63 - i);
    }
    agx_usc_tg_free(&t);
    run_free(r);
}

static void test_resume_sliced(void)
{
    for (uint64_t slice = 1; slice <= 9; slice += 4) {
        run_sliced(slice);
    }
}

static void test_stack(void)
{
    Asm a = { 0 };
    Run *r;

    /* stack_adjust +8 words; store r1 at byte 12, reload into r2 */
    emit(&a, 0xb5 | 1ull << 16 | (8ull & 15) << 20 | 1ull << 24 |
         1ull << 26 | 2ull << 36 | 1ull << 47, 0, 8);
    get_sr(&a, 1, SR_LANE);
    iadd(&a, D32(1), R32(1), IMM(77), false, 0, false);
    emit(&a, 0xb5 | 2ull << 8 | 2ull << 10 | 12ull << 20 | 1ull << 24 |
         1ull << 26 | 4ull << 44 | 1ull << 47 | 1ull << 49 | 1ull << 52, 0,
         8);
    emit(&a, 0x35 | 2ull << 8 | 4ull << 10 | 12ull << 20 | 1ull << 24 |
         1ull << 26 | 4ull << 44 | 1ull << 47 | 1ull << 49 | 1ull << 52, 0,
         8);
    store_result(&a, 2, 0);
    /* beyond the 32 bytes allocated */
    emit(&a, 0x35 | 2ull << 8 | 4ull << 10 | 8ull << 20 | 1ull << 24 |
         2ull << 32 |
         1ull << 26 | 4ull << 44 | 1ull << 47 | 1ull << 49 | 1ull << 52, 0,
         8);
    footer(&a);
    r = run_new(&a, 32, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_STACK);
    for (int l = 0; l < 32; l++) {
        g_assert_cmpuint(out32(r, 0, l), ==, 77 + l);
    }
    run_free(r);
}

/* convert (§3.6): mode in the A slot, rounding at bits 27:26 */
static void convert(Asm *a, Dst d, unsigned mode, unsigned round, Op src)
{
    alu6(a, 0x3e | L15, d, IMM(mode), src, (uint64_t)round << 26);
}

static void test_convert(void)
{
    static const uint32_t x[8] = {
        0xffffffff, (uint32_t)-16777217, 0x40733333 /* 3.8 */,
        0xc0733333 /* -3.8 */, 0x4f32d05e /* 3e9 */, 0x7fc00000,
        0xff800000 /* -inf */, 65519,
    };
    Asm a = { 0 };
    Run *r;

    load_input(&a, 1, 0);
    convert(&a, D32(2), 10, 1, R32(1));         /* u32 -> f32, rte */
    store_result(&a, 2, 0);
    convert(&a, D32(2), 10, 0, R32(1));         /* u32 -> f32, rtz */
    store_result(&a, 2, 1);
    convert(&a, D32(2), 11, 1, R32(1));         /* s32 -> f32, rte */
    store_result(&a, 2, 2);
    convert(&a, D32(2), 9, 0, R32(1));          /* f32 -> s32, rtz */
    store_result(&a, 2, 3);
    convert(&a, D32(2), 8, 1, R32(1));          /* f32 -> u32, rte */
    store_result(&a, 2, 4);
    convert(&a, D16(4), 10, 1, R32(1));         /* u32 -> f16, rte */
    store_result16(&a, 4, 12);
    convert(&a, D16(4), 1, 1, R32(1));          /* s8 -> f16 */
    store_result16(&a, 4, 13);
    footer(&a);
    r = run_new(&a, 8, 8);
    put_inputs(r, 0, x, 8);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    /* 2^32 - 1 to nearest is 2^32; toward zero 2^32 - 256 */
    g_assert_cmphex(out32(r, 0, 0), ==, 0x4f800000);
    g_assert_cmphex(out32(r, 1, 0), ==, 0x4f7fffff);
    /* -(2^24 + 1): a tie, to even 2^24 */
    g_assert_cmphex(out32(r, 2, 1), ==, 0xcb800000);
    g_assert_cmpint(out32(r, 3, 2), ==, 3);
    g_assert_cmpint((int32_t)out32(r, 3, 3), ==, -3);
    g_assert_cmpint(out32(r, 3, 4), ==, 2147483647);     /* saturated */
    g_assert_cmpint(out32(r, 3, 5), ==, 0);              /* NaN */
    g_assert_cmphex(out32(r, 3, 6), ==, 0x80000000);     /* -inf */
    g_assert_cmpint(out32(r, 4, 2), ==, 4);              /* 3.8 rte */
    g_assert_cmpint(out32(r, 4, 3), ==, 0);              /* negative */
    g_assert_cmpint(out32(r, 4, 4), ==, 3000000000u);
    /* 65519 rounds down to 65504, the largest f16; 2^32 - 1 overflows */
    g_assert_cmphex(out16(r, 12, 7), ==, 0x7bff);
    g_assert_cmphex(out16(r, 12, 0), ==, 0x7c00);
    /* s8 of 0x...ef (-17) and 0x...ff (-1) */
    g_assert_cmphex(out16(r, 13, 7), ==, 0xcc40);
    g_assert_cmphex(out16(r, 13, 0), ==, 0xbc00);
    run_free(r);
}

/* 16-bit floats: denormals kept (§4), f32 <-> f16 through fadd */
static void test_half(void)
{
    static const uint32_t x[4] = {
        0x00010001,             /* two smallest f16 denormals */
        0x3c003c00,             /* 1.0, 1.0 */
        0x7bff7bff,             /* 65504 */
        0x00000001,             /* f32 denormal */
    };
    Asm a = { 0 };
    Run *r;

    load_input(&a, 1, 0);
    /* hadd r2l = r1l + r1h */
    alu6(&a, 0x26 | L15, D16(4), op_mk(2, 1, 0), op_mk(3, 1, 0), 0);
    store_result16(&a, 4, 0);
    /* hfma r2l = r1l * r1h + 1.0 (minifloat 0x30 = 16 * 2^-4) */
    alu8(&a, 0x36 | L15, D16(4), op_mk(2, 1, 0), op_mk(3, 1, 0), IMM(0x30),
         0);
    store_result16(&a, 4, 1);
    /* fadd r2 (f32) = r1l (f16) + -0.0: f16 -> f32 */
    fadd(&a, D32(2), R16(2), IMM(0x80));
    store_result(&a, 2, 1);
    /* fadd r2l (f16) = r1 (f32) + -0.0: f32 -> f16 */
    fadd(&a, D16(4), R32(1), IMM(0x80));
    store_result16(&a, 4, 4);
    footer(&a);
    r = run_new(&a, 4, 4);
    put_inputs(r, 0, x, 4);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    g_assert_cmphex(out16(r, 0, 0), ==, 0x0002);    /* kept */
    g_assert_cmphex(out16(r, 0, 1), ==, 0x4000);
    g_assert_cmphex(out16(r, 0, 2), ==, 0x7c00);    /* overflow: inf */
    g_assert_cmphex(out16(r, 1, 1), ==, 0x4000);    /* 1 * 1 + 1 */
    /* 2^-48 + 1: one rounding, to 1 */
    g_assert_cmphex(out16(r, 1, 0), ==, 0x3c00);
    g_assert_cmphex(out32(r, 1, 0), ==, 0x33800000);        /* 2^-24 */
    g_assert_cmphex(out32(r, 1, 2), ==, fbits(65504));
    /*
     * f32 to f16: 0x3c003c00 = 2^-7 * (1 + 15360 / 2^23), whose f16
     * mantissa 1.875 rounds to 2; 0x7bff7bff overflows; a denormal flushes
     */
    g_assert_cmphex(out16(r, 4, 1), ==, 0x2002);
    g_assert_cmphex(out16(r, 4, 2), ==, 0x7c00);
    g_assert_cmphex(out16(r, 4, 3), ==, 0x0000);
    run_free(r);
}

/* Quad operations, a local atomic and jmp_exec_none */
static void test_quad_local_jump(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t x[32], j;

    for (int l = 0; l < 32; l++) {
        x[l] = 1000 + 7 * l;
    }
    load_input(&a, 1, 0);
    /* quad_shuffle x, 2 and quad_shuffle_xor x, 3 */
    alu6(&a, 0x6f, D32(2), R32(1), IMM(2), 0);
    store_result(&a, 2, 0);
    alu6(&a, 0x6f | 1ull << 38, D32(2), R32(1), IMM(3), 0);
    store_result(&a, 2, 1);
    /* quad_prefix iadd (exclusive) */
    alu6_1(&a, 0x6f | L15 | 2ull << 29 | 1ull << 47, D32(2), R32(1), 0);
    store_result(&a, 2, 2);
    /* local atomic add of 1 at byte 8, returning the old value */
    mov_imm32(&a, 3, 1);
    emit(&a, 0x19 | 1 << 8 | 4 << 9 | L15 | 2ull << 22 | 0ull << 24 |
         2ull << 28 | 1ull << 34 | 1ull << 36 | 1ull << 38 | 1ull << 47,
         6, 10);
    store_result(&a, 2, 3);
    /* jmp_exec_none over a store when no lane is active */
    mov_imm16(&a, 0, 0);
    IF_ICMP(&a, 1, 2, false, R32(1), IMM(0));  /* ugt: x > 0: all lanes */
    IF_ICMP(&a, 1, 1, false, R32(1), IMM(0));  /* ult: x < 0: none */
    j = jmp(&a, true, 0);
    mov_imm32(&a, 2, 5);
    store_result(&a, 2, 4);
    patch_jmp(&a, j, a.n);
    pop_exec(&a, 2);
    footer(&a);
    r = run_new(&a, 32, 32);
    r->l.shared_bytes = 64;
    put_inputs(r, 0, x, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        uint32_t q = l & ~3, pre = 0;

        for (int k = q; k < l; k++) {
            pre += x[k];
        }
        g_assert_cmpuint(out32(r, 0, l), ==, x[q + 2]);
        g_assert_cmpuint(out32(r, 1, l), ==, x[l ^ 3]);
        g_assert_cmpuint(out32(r, 2, l), ==, pre);
        g_assert_cmpuint(out32(r, 3, l), ==, l);       /* lane order */
        g_assert_cmphex(out32(r, 4, l), ==, 0);        /* skipped */
    }
    run_free(r);
}

/* 64-bit and 16-bit operands, high uniforms, high registers */
static void test_widths(void)
{
    Asm a = { 0 };
    Run *r;
    uint32_t x[32], y[32];

    for (int l = 0; l < 32; l++) {
        x[l] = 0x80000000u + 0x10001u * l;
        y[l] = 0xfffffff0u + l;
    }
    load_input(&a, 2, 0);
    load_input(&a, 3, 1);
    /* r4_r5 = (r2_r3 64-bit) + ((r2_r3) << 1) */
    iadd(&a, D64(4), R64(2), R64(2), false, 1, false);
    store_result(&a, 4, 0);
    store_result(&a, 5, 1);
    /* high uniforms: u200 (halves 400, 401) and u255h (half 511) */
    iadd(&a, D32(6), U32(200), U16(511), false, 0, false);
    store_result(&a, 6, 2);
    /* a register past r31, through the extension bits: r40 = x + 1 */
    iadd(&a, D32(40), R32(2), IMM(1), false, 0, false);
    iadd(&a, D32(6), R32(40), IMM(0), false, 0, false);
    store_result(&a, 6, 3);
    /* 16-bit icmpsel: r7l = (x.l < y.l signed) ? x.h : y.h */
    alu(&a, 0x12 | L15, 10, 64, D16(14), (Op[4]) { op_mk(4, 1, 0),
        op_mk(6, 1, 0), op_mk(5, 1, 0), op_mk(7, 1, 0) }, 4, 5ull << 61);
    store_result16(&a, 14, 8);
    /* 16-bit imad: r7l = x.l * y.l + 3 */
    imad(&a, D16(14), R16(4), R16(6), IMM(3), false, 0);
    store_result16(&a, 14, 9);
    footer(&a);
    r = run_new(&a, 32, 32);
    r->l.uniforms[200] = 0x01020304;
    r->l.uniforms[255] = 0xbeef0000;
    put_inputs(r, 0, x, 32);
    put_inputs(r, 1, y, 32);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        uint64_t v = x[l] | (uint64_t)y[l] << 32;
        uint64_t e = v + (v << 1);
        uint16_t xl = x[l], xh = x[l] >> 16, yl = y[l], yh = y[l] >> 16;

        g_assert_cmphex(out32(r, 0, l), ==, (uint32_t)e);
        g_assert_cmphex(out32(r, 1, l), ==, (uint32_t)(e >> 32));
        g_assert_cmphex(out32(r, 2, l), ==, 0x01020304 + 0xbeef);
        g_assert_cmphex(out32(r, 3, l), ==, x[l] + 1);
        g_assert_cmphex(out16(r, 8, l), ==, (int16_t)xl < (int16_t)yl ? xh
                                                                     : yh);
        g_assert_cmphex(out16(r, 9, l), ==, (uint16_t)(xl * yl + 3));
    }
    run_free(r);
}

/* --- images ----------------------------------------------------------- */

static void put_field(uint8_t *d, unsigned start, unsigned width, uint64_t v)
{
    for (unsigned i = 0; i < width; i++) {
        unsigned b = start + i;

        d[b / 8] = (d[b / 8] & ~(1 << (b % 8))) | ((v >> i) & 1) << (b % 8);
    }
}

/* A Texture descriptor (cmdbuf.xml "Texture"), swizzle 3 bits a channel */
static void texture_desc(uint8_t *d, unsigned dim, unsigned layout,
                         unsigned channels, unsigned type,
                         const unsigned swz[4], uint32_t w, uint32_t h,
                         uint64_t va, uint32_t stride_or_layers)
{
    memset(d, 0, 24);
    put_field(d, 0, 4, dim);
    put_field(d, 4, 2, layout);
    put_field(d, 6, 7, channels);
    put_field(d, 13, 3, type);
    for (int c = 0; c < 4; c++) {
        put_field(d, 16 + 3 * c, 3, swz[c]);
    }
    put_field(d, 28, 14, w - 1);
    put_field(d, 42, 14, h - 1);
    put_field(d, 66, 36, va >> 4);
    if (layout == 0) {
        put_field(d, 110, 18, (stride_or_layers - 16) >> 4);
    } else {
        put_field(d, 110, 14, stride_or_layers - 1);
        put_field(d, 126, 1, 1);                /* page-aligned layers */
    }
}

/* A PBE descriptor (cmdbuf.xml "PBE"), twiddled, one level */
static void pbe_desc(uint8_t *d, unsigned dim, unsigned channels,
                     unsigned type, uint32_t w, uint32_t h, uint64_t va,
                     uint32_t layers)
{
    memset(d, 0, 24);
    put_field(d, 0, 4, dim);
    put_field(d, 4, 2, 2);
    put_field(d, 6, 7, channels);
    put_field(d, 13, 3, type);
    for (int c = 0; c < 4; c++) {
        put_field(d, 16 + 2 * c, 2, c);
    }
    put_field(d, 24, 14, w - 1);
    put_field(d, 38, 14, h - 1);
    put_field(d, 64, 36, va >> 4);
    put_field(d, 108, 14, layers - 1);
    put_field(d, 124, 1, 1);
}

/* texture_load (§3.9): R, C, lod mode with D, T of kind Tt, U, mask */
static void tex_load(Asm *a, bool r32, unsigned r, unsigned c, unsigned dim,
                     unsigned tt, unsigned t, unsigned u, unsigned mask)
{
    uint64_t w = 0x71 | (uint64_t)r32 << 8 | (uint64_t)(r & 63) << 9 |
                 (uint64_t)(c & 63) << 16 | (uint64_t)(t & 63) << 32 |
                 (uint64_t)tt << 38 | (uint64_t)(dim & 7) << 40 |
                 0xcull << 43 | (uint64_t)mask << 48;
    uint32_t ext = u | (dim >> 3) << 7 | (r >> 6) << 8 | (c >> 6) << 10 |
                   (t >> 6) << 14;

    if (ext) {
        emit(a, w | L15, ext, 12);
    } else {
        emit(a, w, 0, 8);
    }
}

/* image_write (§3.9): data R, coordinates C, immediate LOD 0, T of kind Tt */
static void img_write(Asm *a, bool r32, unsigned r, unsigned c, unsigned dim,
                      unsigned tt, unsigned t)
{
    uint64_t w = 0xf1 | (uint64_t)r32 << 8 | (uint64_t)(r & 63) << 9 |
                 (uint64_t)(c & 63) << 16 | 1ull << 23 | 1ull << 31 |
                 (uint64_t)(t & 63) << 32 | (uint64_t)tt << 38 |
                 (uint64_t)(dim & 7) << 40 | 9ull << 43;

    emit(a, w, 0, 6);
}

#define HEAP_VA     (IN_VA + 0x8000)
#define IMG_VA      0x4000000000ull

/* A linear RGBA8 unorm image read bindlessly, with a BGR1 swizzle */
static void test_image_linear(void)
{
    static const unsigned swz[4] = { 2, 1, 0, 4 };
    uint8_t desc[24], px[32 * 5];
    Asm a = { 0 };
    Run *r;

    /* r1 = x = lane % 8, r2 = y = lane / 8 (x = 7 is outside) */
    get_sr(&a, 3, SR_LANE);
    bitop(&a, D32(1), R32(3), IMM(7), 0x8);
    bitfield(&a, 1, 0, D32(2), IMM(0), R32(3), IMM(3), 0);
    mov_imm32(&a, 3, 24);                   /* the descriptor's offset */
    tex_load(&a, true, 8, 2, 2, 3, 6, 2, 0xf);
    for (int i = 0; i < 4; i++) {
        store_result(&a, 4 + i, i);
    }
    footer(&a);
    r = run_new(&a, 32, 32);
    for (unsigned i = 0; i < sizeof(px); i++) {
        px[i] = i * 7 + 3;
    }
    tm_put(r->m, IMG_VA, px, sizeof(px));
    texture_desc(desc, 2, 0, 0x28, 0, swz, 7, 4, IMG_VA, 32);
    tm_put(r->m, HEAP_VA + 24, desc, 24);
    set_u64(&r->l, 8, HEAP_VA);             /* U = 2: halves 8..11 */
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        int x = l % 8, y = l / 8;
        const uint8_t *p = px + y * 32 + x * 4;

        for (int c = 0; c < 3; c++) {
            float e = x < 7 ? (float)(p[2 - c] / 255.0) : 0;

            g_assert_cmphex(out32(r, c, l), ==, fbits(e));
        }
        g_assert_cmphex(out32(r, 3, l), ==, fbits(1));
    }
    run_free(r);
}

/* Morton order inside a tile: x in the even bits, y in the odd ones */
static uint32_t morton(uint32_t x, uint32_t y)
{
    uint32_t v = 0;

    for (int i = 0; i < 16; i++) {
        v |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1);
    }
    return v;
}

/*
 * A twiddled 100x70 R32 uint 2D array of 2 layers: image_write through a
 * PBE in texture state register 0, read back through a Texture in
 * register 1; the texels land where libagx's texture.cl says (64x64 tiles
 * of one page, 2x2 tiles a layer)
 */
static void test_image_twiddled(void)
{
    static const unsigned swz[4] = { 0, 5, 5, 4 };
    uint8_t pbe[24], tex[24];
    Asm a = { 0 };
    Run *r;

    get_sr(&a, 3, SR_LANE);
    imad(&a, D32(8), R32(3), IMM(3), IMM(0), false, 0);    /* x = 3 lane */
    imad(&a, D32(9), R32(3), IMM(2), IMM(1), false, 0);    /* y = 2 lane + 1 */
    bitop(&a, D32(10), R32(3), IMM(1), 0x8);               /* layer */
    imad(&a, D32(4), R32(3), R32(3), IMM(100), false, 0);  /* the value */
    img_write(&a, true, 8, 16, 3, 0, 0);
    tex_load(&a, true, 24, 16, 3, 0, 1, 0, 0x3);
    store_result(&a, 12, 0);
    store_result(&a, 13, 1);
    footer(&a);
    r = run_new(&a, 32, 32);
    tm_map(r->m, IMG_VA, 2 * 65536);
    pbe_desc(pbe, 3, 0x21, 2, 100, 70, IMG_VA, 2);
    texture_desc(tex, 3, 2, 0x21, 2, swz, 100, 70, IMG_VA, 2);
    tm_put(r->m, HEAP_VA, pbe, 24);
    tm_put(r->m, HEAP_VA + 24, tex, 24);
    r->l.tex_state_va[0] = HEAP_VA;
    r->l.tex_state_va[1] = HEAP_VA + 24;
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t x = 3 * l, y = 2 * l + 1, layer = l & 1, v = l * l + 100;
        bool in = x < 100 && y < 70;
        uint64_t px = (uint64_t)(y & ~63u) * 128 + (x & ~63u) * 64 +
                      morton(x & 63, y & 63);

        if (in) {
            g_assert_cmpuint(tm_get32(r->m, IMG_VA + layer * 65536 + 4 * px),
                             ==, v);
        }
        g_assert_cmpuint(out32(r, 0, l), ==, in ? v : 0);
        g_assert_cmpuint(out32(r, 1, l), ==, 0);        /* swizzle 0 */
    }
    run_free(r);
}

/*
 * Mesa 26's tex_state_store: the preamble loads a descriptor into texture
 * state register 5, the main program fetches through it.  The operands as
 * Mesa 26.1.6's disassembler reads a recorded word: ed0010600100000c is
 * "load ts0, du2, 88" (bit 58 uniform base, 59.. its 64-bit pair index,
 * 27.. the byte offset / 2)
 */
static void test_tex_state_store(void)
{
    static const unsigned swz[4] = { 0, 1, 2, 3 };
    uint8_t desc[24];
    uint32_t texels[4] = { 11, 22, 33, 44 };
    Asm a = { 0 };
    Run *r;
    uint32_t pre;

    get_sr(&a, 1, SR_LANE);
    bitop(&a, D32(1), R32(1), IMM(3), 0x8);        /* x = lane & 3 */
    tex_load(&a, true, 8, 2, 0, 0, 5, 0, 0x1);     /* 1D, ts5 */
    store_result(&a, 4, 0);
    footer(&a);
    pre = a.n;
    /* tex_state_store ts5 <- [du2 (u2_u3: halves 4..7) + 48] */
    emit(&a, 0xed | 5 << 8 | 1 << 20 | 24ull << 27 | 1ull << 58 | 1ull << 59,
         0, 8);
    footer(&a);
    r = run_new(&a, 32, 32);
    r->l.has_preamble = true;
    r->l.preamble_pc = CODE_OFF + pre;
    r->l.preamble_gpr_halves = 8;
    texture_desc(desc, 0, 0, 0x21, 2, swz, 4, 1, IMG_VA, 16);
    tm_put(r->m, IN_VA + 48, desc, 24);
    tm_put(r->m, IMG_VA, texels, sizeof(texels));
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    g_assert_cmphex(r->l.tex_state_va[5], ==, IN_VA + 48);
    for (int l = 0; l < 32; l++) {
        g_assert_cmpuint(out32(r, 0, l), ==, texels[l & 3]);
    }
    run_free(r);
}

/*
 * Special registers of a 2D dispatch: 7x5 threadgroups over a 16x12 grid
 * (partial groups on both edges), written as one word per thread at
 * OUT_VA + 4 * (gy * 16 + gx)
 */
static void test_sr_2d(void)
{
    Asm a = { 0 };
    Run *r;

    get_sr(&a, 1, SR_GRID_X);
    get_sr(&a, 2, SR_GRID_X + 1);
    /* r3 = gy * 16 + gx: the word index */
    imad(&a, D32(3), R32(2), IMM(16), R32(1), false, 0);
    /*
     * r4 = local x | local y << 4 | index << 8 | simd << 16 | tg x << 20 |
     * tg y << 24
     */
    get_sr(&a, 5, 48);
    get_sr(&a, 6, 49);
    iadd(&a, D32(4), R32(5), R32(6), false, 4, false);
    get_sr(&a, 6, SR_LOCAL_INDEX);
    bitfield(&a, 0, 0, D32(4), R32(4), R32(6), IMM(8), 8);
    get_sr(&a, 6, SR_SIMD);
    bitfield(&a, 0, 0, D32(4), R32(4), R32(6), IMM(16), 4);
    get_sr(&a, 6, SR_TG_X);
    bitfield(&a, 0, 0, D32(4), R32(4), R32(6), IMM(20), 4);
    get_sr(&a, 6, SR_TG_X + 1);
    bitfield(&a, 0, 0, D32(4), R32(4), R32(6), IMM(24), 4);
    devmem(&a, true, 2, 8, true, 0, true, 6, false, 0, 1);
    footer(&a);
    r = run_new(&a, 16, 7);
    r->l.global[1] = 12;
    r->l.local[1] = 5;
    for (uint32_t ty = 0; ty < 3; ty++) {
        for (uint32_t tx = 0; tx < 3; tx++) {
            uint32_t tg[3] = { tx, ty, 0 };

            g_assert_cmpint(agx_usc_run_threadgroup(&r->l, tg, &tm_ops, r->m,
                                                    &r->budget, &r->fault),
                            ==, AGX_USC_OK);
        }
    }
    for (uint32_t gy = 0; gy < 12; gy++) {
        for (uint32_t gx = 0; gx < 16; gx++) {
            uint32_t v = tm_get32(r->m, OUT_VA + 4 * (gy * 16 + gx));
            uint32_t lx = gx % 7, ly = gy % 5, i = ly * 7 + lx;

            g_assert_cmphex(v, ==, lx | ly << 4 | i << 8 | (i / 32) << 16 |
                            (gx / 7) << 20 | (gy / 5) << 24);
        }
    }
    /* nothing beyond the grid (a 21x15 cover of it) was written */
    g_assert_cmphex(tm_get32(r->m, OUT_VA + 4 * 16 * 12), ==, 0);
    run_free(r);
}

/*
 * Memory corners: a negative signed index, 8-bit stores from 16-bit
 * registers with a holed mask, a stack offset from a register
 */
static void test_mem_corners(void)
{
    Asm a = { 0 };
    Run *r;

    get_sr(&a, 1, SR_LANE);
    /* r2 = -1 - lane; r3 = i32 at u20_u21 (IN_VA + 256) + 4 * r2, signed */
    iadd(&a, D32(2), IMM(1), R32(1), true, 0, false);
    iadd(&a, D32(2), R32(2), IMM(2), true, 0, false);
    emit(&a, 0x05 | 2ull << 7 | 6ull << 10 | (40ull & 15) << 16 |
         4ull << 20 | 1ull << 26 | 1ull << 27 | (40ull >> 4) << 36 |
         4ull << 44 | 1ull << 47 | 1ull << 49 | 1ull << 52, 0, 8);
    store_result(&a, 3, 0);
    /* i8 stores of r4l, r4h (mask 0b0101) at u22_u23 + 4 lane */
    mov_imm32(&a, 4, 0x00220011);
    bitfield(&a, 0, 0, D32(5), IMM(0), R32(1), IMM(2), 0);
    emit(&a, 0x45 | 8ull << 10 | (44ull & 15) << 16 | 10ull << 20 |
         1ull << 25 | 1ull << 26 | 1ull << 27 | (44ull >> 4) << 36 |
         4ull << 44 | 1ull << 47 | 5ull << 52, 0, 8);
    /* stack_adjust +16 words; r1 to byte 8 + 4 (lane & 3), back into r7 */
    emit(&a, 0xb5 | 1ull << 16 | 1ull << 24 | 1ull << 26 | 1ull << 32 |
         2ull << 36 | 1ull << 47, 0, 8);
    bitop(&a, D32(6), R32(1), IMM(3), 0x8);
    iadd(&a, D32(6), IMM(8), R32(6), false, 2, false);
    emit(&a, 0xb5 | 2ull << 8 | 2ull << 10 | 12ull << 20 | 1ull << 26 |
         4ull << 44 | 1ull << 47 | 1ull << 49 | 1ull << 52, 0, 8);
    emit(&a, 0x35 | 2ull << 8 | 14ull << 10 | 12ull << 20 | 1ull << 26 |
         4ull << 44 | 1ull << 47 | 1ull << 49 | 1ull << 52, 0, 8);
    store_result(&a, 7, 1);
    footer(&a);
    r = run_new(&a, 32, 32);
    set_u64(&r->l, 40, IN_VA + 256);
    set_u64(&r->l, 44, OUT_VA + 1024);
    for (int i = 0; i < 64; i++) {
        uint32_t v = 0x1000 + i;

        tm_put(r->m, IN_VA + 4 * i, &v, 4);
    }
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        uint32_t w = tm_get32(r->m, OUT_VA + 1024 + 4 * l);

        g_assert_cmphex(out32(r, 0, l), ==, 0x1000 + 63 - l);
        g_assert_cmphex(w, ==, 0x00220011);
        g_assert_cmpuint(out32(r, 1, l), ==, l);
    }
    run_free(r);
}

/* The cache notices code that changed at the same address */
static void test_code_change(void)
{
    Asm a = { 0 };
    Run *r;

    mov_imm32(&a, 1, 5);
    store_result(&a, 1, 0);
    footer(&a);
    r = run_new(&a, 1, 1);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    g_assert_cmpuint(out32(r, 0, 0), ==, 5);
    a.b[2] = 6;                     /* mov_imm32 r1, 6 */
    tm_put(r->m, USC_BASE + CODE_OFF, a.b, a.n);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    g_assert_cmpuint(out32(r, 0, 0), ==, 6);
    run_free(r);
}

/*
 * ... and code that became unreadable (whose bytes read as 0 now, a
 * chunk of it unfetched): a program that ran from the cache once faults
 * at its fetch the next time; and runs again when its page is back
 */
static void test_code_unmapped(void)
{
    uint64_t key = (USC_BASE + CODE_OFF) / TM_PAGE;
    Asm a = { 0 };
    Run *r;

    mov_imm32(&a, 1, 5);
    store_result(&a, 1, 0);
    footer(&a);
    r = run_new(&a, 1, 1);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    g_assert_cmpuint(out32(r, 0, 0), ==, 5);
    g_assert_true(g_hash_table_remove(r->m->pages, &key));
    g_assert_cmpint(run_all(r), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_FETCH);
    tm_put(r->m, USC_BASE + CODE_OFF, a.b, a.n);
    g_assert_cmpint(run_all(r), ==, AGX_USC_OK);
    run_free(r);
}

/* usc_f64_to_f16 to nearest even, its fast path against the general code */
static void f16_rte_same(double d)
{
    uint16_t fast, slow;

    fast = usc_f64_to_f16(d, AGX_ROUND_RTE);
    agx_usc_general_paths = true;
    slow = usc_f64_to_f16(d, AGX_ROUND_RTE);
    agx_usc_general_paths = false;
    if (fast != slow) {
        g_error("f16 of %a: 0x%04x, the general code 0x%04x", d, fast, slow);
    }
}

/*
 * The f16 conversions: every f16 to a double as ldexp gives it, and
 * doubles to f16 to nearest even as the general code rounds them: every
 * f16 value, the midpoints between neighbours (ties) and the doubles
 * next to all of those, both signs; the overflow edge, the denormal
 * edge, specials, and random doubles of every exponent near the range
 */
static void test_f16_conversions(void)
{
    const double edges[] = {
        65504, 65519.999, 65520, 65536, 1e5, 1e300, ldexp(1, -24),
        ldexp(1, -25), ldexp(1, -26), ldexp(3, -26), ldexp(1, -1074),
        ldexp(1, -1022), 0, INFINITY, NAN,
    };
    GRand *rng = g_rand_new_with_seed(0xf16);

    for (uint32_t h = 0; h < 0x10000; h++) {
        int e = (h >> 10) & 0x1f;
        double m = h & 0x3ff, v = e == 0x1f ? (m ? NAN : INFINITY)
                                 : e ? ldexp(m + 1024, e - 25)
                                     : ldexp(m, -24);
        double got = usc_f16_to_f64(h);

        v = h & 0x8000 ? -v : v;
        g_assert_cmpmem(&got, 8, &v, 8);
    }
    for (uint32_t h = 0; h < 0x7c00; h++) {
        double a = usc_f16_to_f64(h), b = usc_f16_to_f64(h + 1);
        double mid = (a + b) / 2;
        const double pts[] = {
            a, nextafter(a, 0), nextafter(a, INFINITY), mid,
            nextafter(mid, 0), nextafter(mid, INFINITY),
        };

        for (int i = 0; i < 6; i++) {
            f16_rte_same(pts[i]);
            f16_rte_same(-pts[i]);
        }
    }
    for (size_t i = 0; i < G_N_ELEMENTS(edges); i++) {
        const double pts[] = {
            edges[i], nextafter(edges[i], 0), nextafter(edges[i], INFINITY),
        };

        for (int k = 0; k < 3; k++) {
            f16_rte_same(pts[k]);
            f16_rte_same(-pts[k]);
        }
    }
    for (int i = 0; i < 200000; i++) {
        double d = ldexp(g_rand_double(rng) + 1,
                         g_rand_int_range(rng, -1080, 24));

        f16_rte_same(g_rand_boolean(rng) ? -d : d);
    }
    g_rand_free(rng);
}

/*
 * Random and mutated programs never crash, hang or read outside what they
 * may: thousands of seeded runs with a small budget
 */
static void test_fuzz(void)
{
    GRand *rng = g_rand_new_with_seed(0x5eed);
    Asm seed_prog = { 0 };
    const uint32_t n_runs = g_test_slow() ? 200000 : 20000;

    asm_fill(&seed_prog);
    for (uint32_t i = 0; i < n_runs; i++) {
        Asm a = { 0 };
        Run *r;
        uint32_t len = g_rand_int_range(rng, 2, 200);

        if (i % 2) {
            memcpy(a.b, seed_prog.b, seed_prog.n);
            a.n = seed_prog.n;
            for (int k = g_rand_int_range(rng, 1, 6); k > 0; k--) {
                int at = g_rand_int_range(rng, 0, a.n);

                a.b[at] ^= 1 << g_rand_int_range(rng, 0, 8);
            }
        } else {
            for (uint32_t k = 0; k < len; k++) {
                a.b[k] = g_rand_int(rng);
            }
            a.n = len;
        }
        r = run_new(&a, g_rand_int_range(rng, 1, 200),
                    g_rand_int_range(rng, 1, 129));
        r->l.gpr_halves = g_rand_int_range(rng, 0, 257);
        r->l.shared_bytes = g_rand_int_range(rng, 0, 1024);
        r->l.soft_faults = g_rand_boolean(rng);
        r->l.has_preamble = g_rand_boolean(rng);
        r->l.preamble_pc = CODE_OFF;
        r->l.preamble_gpr_halves = g_rand_int_range(rng, 0, 257);
        for (int k = 8; k < 32; k++) {
            r->l.uniforms[k] = g_rand_int(rng);
        }
        r->budget = 2000;
        run_all(r);
        run_free(r);
    }
    g_rand_free(rng);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/usc/decode/mesa-and-applegpu-words",
                    test_decode_mesa_vectors);
    g_test_add_func("/usc/fill/writes-the-pattern", test_fill_shader);
    g_test_add_func("/usc/fill/register-beyond-the-count-faults",
                    test_fill_register_limit);
    g_test_add_func("/usc/fill/unmapped-store-soft-or-hard",
                    test_fill_faults);
    g_test_add_func("/usc/control/if-else-nested", test_if_else);
    g_test_add_func("/usc/control/loop", test_loop);
    g_test_add_func("/usc/control/budget-trap-decode-fetch",
                    test_budget_and_faults);
    g_test_add_func("/usc/alu/integer", test_integer);
    g_test_add_func("/usc/alu/bitops-and-shifts", test_bitops);
    g_test_add_func("/usc/alu/cmpsel-and-ballot", test_cmpsel);
    g_test_add_func("/usc/alu/compare-conditions", test_compare_conditions);
    g_test_add_func("/usc/alu/float", test_float);
    g_test_add_func("/usc/alu/float-f32-corners", test_float_corners);
    g_test_add_func("/usc/simd/reduce-prefix-shuffle", test_simd);
    g_test_add_func("/usc/mem/device-load-formats", test_device_formats);
    g_test_add_func("/usc/mem/preamble-uniform-store", test_preamble);
    g_test_add_func("/usc/mem/global-atomics", test_atomics);
    g_test_add_func("/usc/mem/local-across-a-barrier", test_local_barrier);
    g_test_add_func("/usc/resume/slices-across-a-barrier",
                    test_resume_sliced);
    g_test_add_func("/usc/mem/stack", test_stack);
    g_test_add_func("/usc/alu/convert", test_convert);
    g_test_add_func("/usc/alu/half-floats", test_half);
    g_test_add_func("/usc/simd/quad-local-atomic-jmp-none",
                    test_quad_local_jump);
    g_test_add_func("/usc/alu/widths-and-high-registers", test_widths);
    g_test_add_func("/usc/image/linear-bindless-swizzled", test_image_linear);
    g_test_add_func("/usc/image/twiddled-write-then-load",
                    test_image_twiddled);
    g_test_add_func("/usc/image/preamble-tex-state-store",
                    test_tex_state_store);
    g_test_add_func("/usc/sr/2d-dispatch-with-partial-groups", test_sr_2d);
    g_test_add_func("/usc/mem/corners", test_mem_corners);
    g_test_add_func("/usc/float/f16-conversions-as-the-general-code",
                    test_f16_conversions);
    g_test_add_func("/usc/cache/code-change-is-seen", test_code_change);
    g_test_add_func("/usc/cache/unmapped-code-is-seen", test_code_unmapped);
    g_test_add_func("/usc/fuzz/random-programs", test_fuzz);
    g_test_add_func("/usc/group/presets-and-lanes", test_run_group);
    g_test_add_func("/usc/group/registers-start-at-zero",
                    test_group_regs_zero);
    g_test_add_func("/usc/group/local-memory-in-slices", test_group_local);
    return g_test_run();
}
