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
    return 0;
}
