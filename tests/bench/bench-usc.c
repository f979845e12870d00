/*
 * Benchmark of the USC shader interpreter: lane-instructions per second
 * of an ALU-bound loop and of Mesa's fill shader (memory-bound), on one
 * host core.  Prints figures; asserts nothing about speed.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <stdio.h>
#include <time.h>
#include "usc-asm.h"

#define USC_BASE    0x1000000000ull
#define DATA_VA     0x2000000000ull
#define DATA_SIZE   (64u << 20)

/* Flat memory: code and data in one array */
typedef struct Flat {
    uint8_t *code, *data;
    uint32_t code_size;
} Flat;

static bool flat_access(Flat *f, uint64_t va, uint32_t len, uint8_t **p)
{
    if (va >= USC_BASE && va - USC_BASE + len <= f->code_size) {
        *p = f->code + (va - USC_BASE);
        return true;
    }
    if (va >= DATA_VA && va - DATA_VA + len <= DATA_SIZE) {
        *p = f->data + (va - DATA_VA);
        return true;
    }
    return false;
}

static bool flat_read(void *opaque, uint64_t va, void *buf, uint32_t len,
                      uint64_t *fault_va)
{
    uint8_t *p;

    if (!flat_access(opaque, va, len, &p)) {
        *fault_va = va;
        return false;
    }
    memcpy(buf, p, len);
    return true;
}

static bool flat_write(void *opaque, uint64_t va, const void *buf,
                       uint32_t len, uint64_t *fault_va)
{
    uint8_t *p;

    if (!flat_access(opaque, va, len, &p)) {
        *fault_va = va;
        return false;
    }
    memcpy(p, buf, len);
    return true;
}

static const AgxUscMemOps flat_ops = { .read = flat_read,
                                       .write = flat_write };

static gint64 cpu_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static const char *only;        /* run the benchmarks whose name has it */

/* Run every threadgroup of @l; lane-instructions per second */
static double run(Flat *f, AgxUscLaunch *l, const char *what)
{
    uint32_t groups = (l->global[0] + l->local[0] - 1) / l->local[0];
    uint64_t before = agx_usc_lane_insns(), budget = UINT64_MAX;
    gint64 t = cpu_us();
    AgxUscFault fault;
    double secs, rate;

    if (only && !strstr(what, only)) {
        return 0;
    }
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t tg[3] = { g, 0, 0 };

        if (agx_usc_run_threadgroup(l, tg, &flat_ops, f, &budget, &fault) !=
            AGX_USC_OK) {
            printf("%s: failed (fault %d at 0x%" G_GINT64_MODIFIER "x)\n",
                   what, fault.kind, fault.pc);
            return 0;
        }
    }
    secs = (cpu_us() - t) / 1e6;
    rate = (agx_usc_lane_insns() - before) / secs;
    printf("%-44s %8.3g lane-instructions/s (%.2f s)\n", what, rate, secs);
    return rate;
}

/*
 * A fixed host kernel in plain C (a multiply-add chain over 32 lanes), so
 * that figures taken on a loaded machine compare as ratios to it
 */
static volatile float host_sink;

static double host_reference(void)
{
    float x[32], y[32];
    const int rounds = 40000000;
    gint64 t = cpu_us();
    double secs;

    for (int l = 0; l < 32; l++) {
        x[l] = l;
        y[l] = 1.0f / (l + 1);
    }
    for (int i = 0; i < rounds; i++) {
        for (int l = 0; l < 32; l++) {
            x[l] = x[l] * y[l] + 0.5f;
        }
        host_sink = x[i & 31];
    }
    secs = (cpu_us() - t) / 1e6;
    printf("%-44s %8.3g lane-operations/s (%.2f s)\n",
           "host reference (plain C multiply-add)", 32.0 * rounds / secs,
           secs);
    return 32.0 * rounds / secs;
}

/* An integer ALU loop: 16 iadd/imad/bitop/bitfield per iteration */
static void asm_alu_loop(Asm *a, unsigned iterations, bool fp)
{
    uint32_t body;

    mov_imm16(a, 0, 0);
    get_sr(a, 1, 51);
    mov_imm32(a, 2, 0);
    mov_imm32(a, 3, iterations);
    mov_imm32(a, 5, 0x3f800000);
    PUSH_EXEC(a, 1);
    body = a->n;
    for (int i = 0; i < 4; i++) {
        if (fp) {
            ffma(a, D32(4), R32(1), R32(5), R32(4));
            fadd(a, D32(6), R32(4), R32(5));
            fmul(a, D32(7), R32(6), R32(5));
        } else {
            iadd(a, D32(4), R32(4), R32(1), false, 0, false);
            imad(a, D32(6), R32(4), R32(1), R32(6), false, 0);
            bitop(a, D32(7), R32(6), R32(4), 0x6);
        }
        bitfield(a, 1, 0, D32(8), IMM(0), R32(7), IMM(3), 0);
    }
    iadd(a, D32(2), R32(2), IMM(1), false, 0, false);
    WHILE_ICMP(a, 1, 1, false, R32(2), R32(3));
    jmp(a, false, body - a->n);
    pop_exec(a, 1);
    footer(a);
}

static void asm_fill(Asm *a)
{
    get_sr(a, 0, 80);
    imad(a, D32(0), R32(0), IMM(1), U32(4), false, 0);
    mov(a, D32(1), U32(5));
    mov(a, D32(2), U32(6));
    mov(a, D32(3), U32(7));
    mov(a, D32(4), U32(8));
    devmem(a, true, 2, 2, true, 0, true, 0, false, 2, 0xf);
    footer(a);
}

/*
 * vk-ops' bench kernel (tests/guest/mesa/vk-ops-flow.comp: a Collatz loop,
 * a switch, nested loops with break and continue: divergent code) as
 * Mesa 26.1.6 compiled it for Honeykrisp: the main program recorded in
 * tests/unit/usc-corpus/cs--control-flow.txt, its uniforms as its
 * preamble sets them, over vk-ops' 16,384 inputs
 */
static const char flow_code[] =
    "f20510040e05c2865800000005112c0e00c0120062000000620d000000003800"
    "7e11440a800092024662190101301202481200001104520d41000000fe158812"
    "80009e19038068010000ae9100802401000012114a020048c0040e0d46160000"
    "000000c0c4ffffff520e000000001e13844219000000ae9100a0240200008e11"
    "4886640010008e11848e640000008e15847600000000921588320000a1049215"
    "0180284a00308e198446e800000092158802004ca004fe19848a590092158812"
    "004ca004fe194406400092114832004ca0047e15480a80006211000000007e19"
    "44f28000522c88c224007e194832800052094c1200007e194a0a80007e15480a"
    "8000420800000000522c8a0201009e1d48a6640000007e1d4e728000520d4e62"
    "00001e194c16028a06000e154a160000000000c0d6ffffff520e000000007e15"
    "4c0a8000520e000000000e1148160000000000c08cffffff520e000000008e05"
    "0020e40000004519200e10c012000e050120640000004529204e10c012008800"
    "08000800080008000800080008000800";

#define FLOW_THREADS    16384
#define FLOW_IN         0x100000u
#define FLOW_OUT        0x200000u

static uint32_t flow_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static uint32_t flow_input(uint32_t i)
{
    return i < 3 ? i : (flow_hash(i) & 0xfffff) + 1;
}

/* vk-ops' CPU reference of one invocation */
static void flow_ref(uint32_t x, uint32_t *steps_out, uint32_t *acc_out)
{
    uint32_t n = x, steps = 0, acc;

    while (n != 1 && steps < 500) {
        n = n & 1 ? 3 * n + 1 : n >> 1;
        steps++;
    }
    switch (x % 5) {
    case 0:
        acc = x * 3;
        break;
    case 1:
        acc = x ^ 0x5555;
        break;
    case 3:
        acc = ~x;
        break;
    default:
        acc = x + 7;
        break;
    }
    for (uint32_t a = 0; a < (x & 15); a++) {
        if ((a & 3) == 1) {
            continue;
        }
        for (uint32_t b = a; b < 16; b++) {
            if (((a * b) & 7) == 6) {
                break;
            }
            acc = acc * 33 + b;
        }
    }
    *steps_out = steps;
    *acc_out = acc;
}

static void bench_flow(Flat *f, AgxUscLaunch *l, int reps)
{
    uint32_t *in = (uint32_t *)(f->data + FLOW_IN);
    uint32_t *out = (uint32_t *)(f->data + FLOW_OUT);
    uint32_t bad = 0;
    double best = 0;

    for (size_t i = 0; i < sizeof(flow_code) / 2; i++) {
        sscanf(flow_code + 2 * i, "%2hhx", &f->code[i]);
    }
    memset(l, 0, sizeof(*l));
    l->usc_base = USC_BASE;
    l->gpr_halves = 16;
    l->global[0] = FLOW_THREADS;
    l->local[0] = 64;
    l->global[1] = l->global[2] = l->local[1] = l->local[2] = 1;
    /*
     * What its preamble and Uniform word set (32-bit uniforms): u4 the
     * first thread's index, du6 the input, du8 the output, u10..u12
     * constants (x / 5 as a multiply, the step cap, the xor mask)
     */
    l->uniforms[4] = 0;
    l->uniforms[6] = (uint32_t)(DATA_VA + FLOW_IN);
    l->uniforms[7] = (DATA_VA + FLOW_IN) >> 32;
    l->uniforms[8] = (uint32_t)(DATA_VA + FLOW_OUT);
    l->uniforms[9] = (DATA_VA + FLOW_OUT) >> 32;
    l->uniforms[10] = 0xcccccccd;
    l->uniforms[11] = 500;
    l->uniforms[12] = 0x5555;
    for (uint32_t i = 0; i < FLOW_THREADS; i++) {
        in[i] = flow_input(i);
    }
    for (int r = 0; r < reps; r++) {
        double rate = run(f, l, "USC divergent (vk-ops-flow, 16384 threads)");

        best = MAX(best, rate);
    }
    for (uint32_t i = 0; i < FLOW_THREADS; i++) {
        uint32_t steps, acc;

        flow_ref(in[i], &steps, &acc);
        bad += out[2 * i] != steps || out[2 * i + 1] != acc;
    }
    if (bad) {
        printf("  %u of %u results WRONG\n", bad, FLOW_THREADS);
    }
}

int main(int argc, char **argv)
{
    Flat f = { .code_size = 64 * 1024 };
    AgxUscLaunch *l = g_new0(AgxUscLaunch, 1);
    Asm *a = g_new0(Asm, 1);
    double ref, rate;

    only = argc > 1 ? argv[1] : NULL;
    ref = host_reference();
    f.code = g_malloc0(f.code_size);
    f.data = g_malloc0(DATA_SIZE);
    l->usc_base = USC_BASE;
    l->gpr_halves = 32;
    l->global[1] = l->global[2] = l->local[1] = l->local[2] = 1;

    asm_alu_loop(a, 10000, false);
    memcpy(f.code, a->b, a->n);
    l->global[0] = 4096;
    l->local[0] = 1024;
    rate = run(&f, l, "USC ALU-bound (integer), 1024-thread groups");
    if (rate) {
        printf("%-44s %8.3g\n", "  ratio to the host reference", rate / ref);
    }

    a->n = 0;
    asm_alu_loop(a, 4000, true);
    memcpy(f.code, a->b, a->n);
    rate = run(&f, l, "USC ALU-bound (float), 1024-thread groups");
    if (rate) {
        printf("%-44s %8.3g\n", "  ratio to the host reference", rate / ref);
    }

    a->n = 0;
    asm_fill(a);
    memcpy(f.code, a->b, a->n);
    l->uniforms[0] = (uint32_t)DATA_VA;
    l->uniforms[1] = DATA_VA >> 32;
    l->uniforms[5] = 0x11111111;
    l->global[0] = DATA_SIZE / 16;
    l->local[0] = 32;
    run(&f, l, "USC memory-bound (fill shader, 32/group)");

    bench_flow(&f, l, 3);

    g_free(f.code);
    g_free(f.data);
    g_free(l);
    g_free(a);
    return 0;
}
