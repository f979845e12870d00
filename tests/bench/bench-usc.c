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

    g_free(f.code);
    g_free(f.data);
    g_free(l);
    g_free(a);
    return 0;
}
