/*
 * Benchmark of the standalone firmware core: no-op jobs and microsequence
 * ops per second through work queues, the interpreter and the UAT, with
 * no QEMU in the way.  Prints figures; asserts nothing about speed.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <stdio.h>
#include <time.h>
#include "agx-fake.h"
#include "hw/agx/agx-frag.h"
#include "usc-asm.h"

#define BATCH           256

/*
 * This process's CPU time in microseconds: figures that do not depend on
 * what else the machine is doing (the core is single-threaded)
 */
static gint64 cpu_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}
#define OPS_PER_JOB     6       /* Start, TS, Wait, TS, Finalize, Retire */

/*
 * No-op jobs per second of the firmware alone: the test bed builds each
 * batch of commands (the driver's work) outside the timing, then the
 * doorbells and the firmware's timer ticks that run them are timed
 */
static double run(AgxFwVersion version, int queues, int total)
{
    FakeQueue q[AGX_NUM_PIPES * 4];
    gint64 t, spent = 0;
    int done = 0;
    Fake f;

    fake_init(&f, version);
    for (int i = 0; i < queues; i++) {
        fake_queue_init(&f, &q[i], i % AGX_NUM_PIPES, i / AGX_NUM_PIPES, i);
    }
    while (done < total) {
        uint64_t mark = f.next_va;

        for (int i = 0; i < queues; i++) {
            for (int n = 0; n < BATCH / queues; n++) {
                fake_add_run(&f, &q[i], NULL);
            }
        }
        t = cpu_us();
        for (int i = 0; i < queues; i++) {
            fake_kick(&f, &q[i]);
        }
        fake_run(&f, 4 * BATCH);
        spent += cpu_us() - t;
        done += (BATCH / queues) * queues;
        f.next_va = mark;
    }
    g_assert_false(fake_crashed(&f));
    g_assert_cmpuint(f.fw.jobs_done, ==, done);
    fake_free(&f);
    return done / (MAX(spent, 1) / 1e6);
}

/*
 * The worst host time one firmware entry point (a doorbell or a timer
 * tick) takes on the 128 x 1279 Barrier chain, and the total
 */
static void chain(bool reverse)
{
    enum { N = AGX_MAX_QUEUES, K = AGX_WQ_RING_SIZE - 1 };
    FakeQueue *q = g_new0(FakeQueue, N);
    gint64 worst = 0, total = 0, t0;
    int calls = 0;
    Fake f;

    fake_init(&f, AGX_FW_V13_5);
    fake_barrier_chain(&f, q, N, K, reverse);
    for (int i = 0; i < N; i++) {
        t0 = cpu_us();
        fake_kick(&f, &q[i]);
        t0 = cpu_us() - t0;
        worst = MAX(worst, t0);
        total += t0;
        calls++;
    }
    while (f.timer >= 0 && calls < N * K) {
        f.now = MAX(f.now, f.timer);
        f.timer = -1;
        t0 = cpu_us();
        agx_fw_timer(&f.fw);
        t0 = cpu_us() - t0;
        worst = MAX(worst, t0);
        total += t0;
        calls++;
    }
    g_assert_cmpuint(fake_ring_progress(&f, q, N), ==, (uint64_t)N * K);
    printf("core barrier chain %d x %d%s: worst single doorbell or tick "
           "%" G_GINT64_FORMAT " us host CPU time, %" G_GINT64_FORMAT " us in "
           "%d calls\n", N, K, reverse ? " (reverse)" : "", worst, total,
           calls);
    fake_free(&f);
    g_free(q);
}

/*
 * A long compute dispatch through the data master on the firmware timer:
 * 8 threadgroups of 1024 threads, each thread looping @iters times (about
 * 5 instructions an iteration).  The host CPU time of the longest slice
 * (what holds QEMU's main loop), against one whole threadgroup run in one
 * slice (the least a slice took when threadgroups were not split)
 */
#define LD_VM_SLOT      1
#define LD_VA           0x1000000000ULL
#define LD_SIZE         0x100000
#define LD_BUF          0x10000
#define LD_CODE         0x80000
#define LD_PIPE         0x82000
#define LD_UNIFORMS     0x3000

/*
 * The fake firmware of a long-job benchmark: LD_SIZE bytes mapped at
 * LD_VA (returned: their kernel address), faults reported as the driver
 * sets them, one queue of @pipe
 */
static uint64_t ld_fake_init(Fake *f, FakeQueue *q, unsigned pipe)
{
    uint64_t kva;

    fake_init(f, AGX_FW_V13_5);
    kva = fake_alloc(f, LD_SIZE);
    fake_map_gpu(f, LD_VM_SLOT, LD_VA, kva, LD_SIZE, true);
    apple_st32(fake_ptr_n(f, f->fw.globals_va + f->fw.abi->gl_fault_control,
                          4), 0xb);
    fake_queue_init(f, q, pipe, 0, 3);
    return kva;
}

static void long_dispatch_setup(Fake *f, FakeQueue *q, uint32_t iters,
                                uint32_t groups)
{
    const uint32_t global[3] = { 1024 * groups, 1, 1 };
    const uint32_t local[3] = { 1024, 1, 1 };
    const AgxCmdLayout *l;
    uint64_t kva, rec, p1, p2;
    Asm *a = g_new0(Asm, 1);
    uint32_t body;

    kva = ld_fake_init(f, q, AGX_PIPE_COMPUTE);
    l = f->layout;
    apple_st64(fake_ptr_n(f, kva + LD_UNIFORMS, 8), LD_VA + LD_BUF);
    agx_cmd_grid_pipeline(fake_ptr_n(f, kva + LD_PIPE, 64),
                          LD_VA + LD_UNIFORMS, 0, 0, -1);
    get_sr(a, 1, SR_GRID_X);
    mov_imm32(a, 2, 0);
    mov_imm32(a, 3, iters);
    mov_imm32(a, 4, 1);
    PUSH_EXEC(a, 1);
    body = a->n;
    imad(a, D32(4), R32(4), R32(1), R32(2), false, 0);
    bitop(a, D32(4), R32(4), R32(2), 0x6);
    iadd(a, D32(2), R32(2), IMM(1), false, 0, false);
    WHILE_ICMP(a, 1, 1, false, R32(2), R32(3));
    jmp(a, false, body - a->n);
    pop_exec(a, 1);
    a->n += agx_cmd_op_store32(a->b + a->n, 4, 0, 1);
    a->n += agx_cmd_op_stop(a->b + a->n);
    memcpy(fake_ptr_n(f, kva + LD_CODE, a->n), a->b, a->n);
    agx_cmd_cdm_terminate(fake_ptr_n(f, kva, 64) +
                          agx_cmd_cdm_launch(fake_ptr_n(f, kva, 64), 0x1202,
                                             LD_PIPE - LD_CODE, global,
                                             local));
    rec = fake_add_run(f, q, NULL);
    p1 = rec + l->params[AGX_CMD_COMPUTE][0];
    p2 = rec + l->params[AGX_CMD_COMPUTE][1];
    apple_st32(fake_ptr_n(f, rec + l->vm_slot[AGX_CMD_COMPUTE], 4),
               LD_VM_SLOT);
    apple_st64(fake_ptr_n(f, p1 + 0x08, 8), LD_VA);
    apple_st64(fake_ptr_n(f, p1 + 0x30, 8), LD_VA + LD_CODE);
    apple_st64(fake_ptr_n(f, p2 + (l == agx_cmd_layout(true) ? 0x2c : 0x30),
                          8), LD_VA + 8);
    fake_kick(f, q);
    g_free(a);
}

/* Run the dispatch slice by slice: the longest slice's CPU time, in us */
static gint64 long_dispatch_run(Fake *f, FakeQueue *q, gint64 *total,
                                uint64_t *slices)
{
    gint64 worst = 0;

    *total = 0;
    fake_advance(f, AGX_FW_DEFAULT_JOB_NS - 1);
    for (int n = 0; n < 1000000 &&
         fake_stamp(f, q->slot) != q->value; n++) {
        gint64 t = cpu_us(), dt;

        fake_advance(f, AGX_CDM_SLICE_NS);
        dt = cpu_us() - t;
        worst = MAX(worst, dt);
        *total += dt;
    }
    g_assert_cmphex(fake_stamp(f, q->slot), ==, q->value);
    *slices = f->fw.cdm.slices;
    return worst;
}

static void long_dispatch(void)
{
    const uint32_t iters = 6000, groups = 4;
    FakeQueue q;
    Fake f;
    gint64 worst, total, one;
    uint64_t slices, one_slices;

    long_dispatch_setup(&f, &q, iters, groups);
    worst = long_dispatch_run(&f, &q, &total, &slices);
    fake_free(&f);
    /* one whole threadgroup in one slice, as before threadgroups split */
    long_dispatch_setup(&f, &q, iters, 1);
    f.fw.cdm_slice = 1ULL << 30;
    one = long_dispatch_run(&f, &q, &total, &one_slices);
    g_assert_cmpuint(one_slices, ==, 1);
    fake_free(&f);
    printf("core compute long dispatch (%u threadgroups of 1024 threads, "
           "%u-iteration loop): longest slice %.3f ms of %" G_GUINT64_FORMAT
           " slices; one threadgroup unsplit %.2f ms; ratio %.4f\n",
           groups, iters, worst / 1000.0, slices, one / 1000.0,
           (double)worst / MAX(one, 1));
}

/*
 * A long fragment job: a 64x64 framebuffer in 32x32 tiles whose
 * background program loops @iters times per pixel (4 instructions an
 * iteration, 32 SIMD-groups a tile).  The host CPU time of the longest
 * slice, against one whole tile run in one slice (the least a slice took
 * when tiles were not split)
 */
#define LT_WORDS        0x80000         /* USC offset 0 */
#define LT_BG_CODE      0x81000
#define LT_EOT_CODE     0x82000

static void lt_words(uint8_t *p, uint32_t code)
{
    /* Shared: 32x32 tiles of one 8-byte sample; Shader; Registers: 16 */
    apple_st32(p, 0x4d | 1 << 8 | 0x2f << 10 | 1 << 20 | 32u << 24);
    apple_st64(p + 4, 0x0d | (uint64_t)code << 16);
    apple_st32(p + 10, 0x8d | 2 << 8);
    p[14] = 0x88;
    p[15] = 0;
}

static void long_tiles_setup(Fake *f, FakeQueue *q, uint32_t iters,
                             uint32_t size)
{
    const AgxCmdLayout *l;
    uint64_t kva, rec, p1, p2;
    Asm *a = g_new0(Asm, 1);
    uint32_t body;

    kva = ld_fake_init(f, q, AGX_PIPE_FRAGMENT);
    l = f->layout;
    mov_imm32(a, 1, 0);
    mov_imm32(a, 2, 0);
    mov_imm32(a, 3, iters);
    PUSH_EXEC(a, 1);
    body = a->n;
    iadd(a, D32(1), R32(1), R32(2), false, 0, false);
    iadd(a, D32(2), R32(2), IMM(1), false, 0, false);
    WHILE_ICMP(a, 1, 1, false, R32(2), R32(3));
    jmp(a, false, body - a->n);
    pop_exec(a, 1);
    footer(a);
    memcpy(fake_ptr_n(f, kva + LT_BG_CODE, a->n), a->b, a->n);
    memset(a, 0, sizeof(*a));
    footer(a);
    memcpy(fake_ptr_n(f, kva + LT_EOT_CODE, a->n), a->b, a->n);
    lt_words(fake_ptr_n(f, kva + LT_WORDS, 16), LT_BG_CODE - LT_WORDS);
    lt_words(fake_ptr_n(f, kva + LT_WORDS + 0x100, 16),
             LT_EOT_CODE - LT_WORDS);
    rec = fake_add_run(f, q, NULL);
    p2 = rec + l->params[AGX_CMD_FRAGMENT][0];
    p1 = rec + l->params[AGX_CMD_FRAGMENT][1];
    apple_st32(fake_ptr_n(f, rec + l->vm_slot[AGX_CMD_FRAGMENT], 4),
               LD_VM_SLOT);
    /* bg, AuxFBInfo width and height, usc_exec_base_isp; eot_usc */
    apple_st64(fake_ptr_n(f, p1 + 0x10, 8), 0 | 4);
    apple_st32(fake_ptr_n(f, p1 + 0x30 + 8, 4), size);
    apple_st32(fake_ptr_n(f, p1 + 0x30 + 0xc, 4), size);
    apple_st64(fake_ptr_n(f, p1 + 0x140, 8), LD_VA + LT_WORDS);
    apple_st32(fake_ptr_n(f, p2 + 4, 4), 0x100 | 4);
    fake_kick(f, q);
    g_free(a);
}

/* Run the fragment job slice by slice: the longest slice's CPU time, us */
static gint64 long_tiles_run(Fake *f, FakeQueue *q, uint64_t *slices)
{
    gint64 worst = 0;

    fake_advance(f, AGX_FW_DEFAULT_JOB_NS - 1);
    for (int n = 0; n < 1000000 &&
         fake_stamp(f, q->slot) != q->value; n++) {
        gint64 t = cpu_us();

        fake_advance(f, AGX_FRAG_SLICE_NS);
        worst = MAX(worst, cpu_us() - t);
    }
    g_assert_cmphex(fake_stamp(f, q->slot), ==, q->value);
    g_assert_cmpuint(f->fw.frag.faults, ==, 0);
    *slices = f->fw.frag.slices;
    return worst;
}

static void long_tiles(void)
{
    const uint32_t iters = 6000;
    FakeQueue q;
    Fake f;
    gint64 worst, one;
    uint64_t slices, one_slices;

    long_tiles_setup(&f, &q, iters, 64);
    worst = long_tiles_run(&f, &q, &slices);
    g_assert_cmpuint(f.fw.frag.suspensions, >, 0);
    fake_free(&f);
    /* one whole tile in one slice, as before tiles split */
    long_tiles_setup(&f, &q, iters, 32);
    f.fw.cdm_slice = 1ULL << 30;
    one = long_tiles_run(&f, &q, &one_slices);
    g_assert_cmpuint(one_slices, ==, 1);
    fake_free(&f);
    printf("core render long tiles (4 tiles of 32x32 pixels, a "
           "%u-iteration loop per pixel in the background fragment "
           "program): longest render slice %.3f ms of %"
           G_GUINT64_FORMAT " slices; one tile unsplit %.2f ms; ratio %.4f\n",
           iters, worst / 1000.0, slices, one / 1000.0,
           (double)worst / MAX(one, 1));
}

int main(int argc, char **argv)
{
    int total = argc > 1 ? atoi(argv[1]) : 200000;

    for (int v = AGX_FW_V12_3; v < AGX_FW_NUM_VERSIONS; v++) {
        const char *name = agx_abi_get(v)->name;
        double one = run(v, 1, total);
        double twelve = run(v, 12, total);

        printf("core fw %s: %.0f no-op jobs/s (1 queue), %.0f jobs/s "
               "(12 queues on 3 pipes), %.0f microsequence ops/s\n", name,
               one, twelve, one * OPS_PER_JOB);
    }
    chain(false);
    chain(true);
    long_dispatch();
    long_tiles();
    return 0;
}
