/*
 * Unit tests for the firmware's chaos mode: reproducible from the seed,
 * within what the real firmware may do, and with nothing lost
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "agx-fake.h"

#define JOBS            8

typedef struct Run {
    uint64_t start[3][JOBS];
    uint64_t end[3][JOBS];
    uint32_t flag_events;
} Run;

static void chaos_start(Fake *f, uint64_t seed, uint32_t fault_permille)
{
    fake_init(f, AGX_FW_V13_5);
    f->fw.chaos_seed = seed;
    f->fw.chaos_fault_permille = fault_permille;
    agx_chaos_reset(&f->fw);
}

/* JOBS jobs on each pipe; the time stamps of all of them */
static void run_pipes(uint64_t seed, Run *r)
{
    uint64_t blk[3][JOBS];
    FakeQueue q[3];
    Fake f;

    chaos_start(&f, seed, 0);
    memset(r, 0, sizeof(*r));
    for (int p = 0; p < 3; p++) {
        fake_queue_init(&f, &q[p], p, 0, 10 + p);
        for (int j = 0; j < JOBS; j++) {
            blk[p][j] = fake_add_run(&f, &q[p], NULL);
        }
        fake_kick(&f, &q[p]);
    }
    fake_run(&f, 1000);
    for (int p = 0; p < 3; p++) {
        /* Nothing lost: every stamp arrived and was flagged */
        g_assert_cmphex(fake_stamp(&f, 10 + p), ==, q[p].value);
        g_assert_cmpuint(f.fired[10 + p], >=, 1);
        for (int j = 0; j < JOBS; j++) {
            r->start[p][j] = fake_ld64(&f, blk[p][j] + FAKE_TS_START);
            r->end[p][j] = fake_ld64(&f, blk[p][j] + FAKE_TS_END);
        }
    }
    for (int s = 0; s < AGX_NUM_EVENT_SLOTS; s++) {
        r->flag_events = MAX(r->flag_events, f.fired[s]);
    }
    g_assert_false(fake_crashed(&f));
    fake_free(&f);
}

static void test_same_seed_same_run(void)
{
    Run a, b, c;

    run_pipes(42, &a);
    run_pipes(42, &b);
    run_pipes(43, &c);
    g_assert_cmpmem(&a, sizeof(a), &b, sizeof(b));
    g_assert_true(memcmp(a.end, c.end, sizeof(a.end)) != 0);
}

/* A job's GPU work: job-duration-ns to 4 times that, jobs in ring order */
static void test_durations_stay_legal(void)
{
    /* In ticks, each within one of the duration's (integer period) */
    const uint64_t min = agx_ns_to_ticks(AGX_FW_DEFAULT_JOB_NS);
    const uint64_t max = agx_ns_to_ticks(AGX_FW_DEFAULT_JOB_NS *
                                         AGX_CHAOS_JOB_STRETCH) + 1;
    bool varied = false;
    Run r;

    for (uint64_t seed = 1; seed <= 8; seed++) {
        run_pipes(seed, &r);
        for (int p = 0; p < 3; p++) {
            for (int j = 0; j < JOBS; j++) {
                uint64_t d = r.end[p][j] - r.start[p][j];

                g_assert_cmpuint(d, >=, min);
                g_assert_cmpuint(d, <=, max);
                varied |= d > min + 1;
                if (j) {
                    g_assert_cmpuint(r.start[p][j], >=, r.end[p][j - 1]);
                }
            }
        }
    }
    g_assert_true(varied);
}

/* Ready queues of one priority run in any order; without chaos: arrival */
static void test_pick_order_varies(void)
{
    bool second_first = false, first_first = false;

    for (uint64_t seed = 0; seed <= 32; seed++) {
        FakeQueue a, b;
        uint64_t ba, bb;
        Fake f;

        chaos_start(&f, seed, 0);
        fake_queue_init(&f, &a, AGX_PIPE_COMPUTE, 1, 1);
        fake_queue_init(&f, &b, AGX_PIPE_COMPUTE, 1, 2);
        ba = fake_add_run(&f, &a, NULL);
        bb = fake_add_run(&f, &b, NULL);
        /* Announce both before the firmware looks at either */
        apple_st32(fake_ptr(&f, a.state_va + AGX_RS_CPU_WPTR), a.wptr);
        apple_st32(fake_ptr(&f, b.state_va + AGX_RS_CPU_WPTR), b.wptr);
        {
            uint8_t msg[0x30];

            agx_cmd_build_rwq(msg, a.pipe, a.info_va, a.wptr, a.slot, true);
            agx_wq_run_msg(&f.fw, a.pipe | a.prio << 2, msg);
            agx_cmd_build_rwq(msg, b.pipe, b.info_va, b.wptr, b.slot, true);
            agx_wq_run_msg(&f.fw, b.pipe | b.prio << 2, msg);
        }
        agx_wq_schedule(&f.fw);
        fake_run(&f, 100);
        if (fake_ld64(&f, bb + FAKE_TS_START) <
            fake_ld64(&f, ba + FAKE_TS_START)) {
            g_assert_cmpuint(seed, !=, 0);
            second_first = true;
        } else {
            first_first = true;
        }
        g_assert_cmphex(fake_stamp(&f, 1), ==, a.value);
        g_assert_cmphex(fake_stamp(&f, 2), ==, b.value);
        fake_free(&f);
    }
    g_assert_true(second_first && first_first);
}

/*
 * At a rate of 1000 per thousand every job takes an injected fault,
 * timeout or channel error; a driver that recovers from each gets every
 * stamp
 */
static void test_fault_rate(void)
{
    unsigned faults = 0, timeouts = 0, channel_errors = 0;
    FakeQueue q;
    Fake f;

    chaos_start(&f, 7, 1000);
    fake_queue_init(&f, &q, AGX_PIPE_VERTEX, 0, 3);
    for (int j = 0; j < 24; j++) {
        fake_add_run(&f, &q, NULL);
        fake_kick(&f, &q);
        fake_run(&f, 64);
        if (f.fw.halted) {
            /* drm/asahi's recover() */
            apple_st32(fake_ptr(&f, f.fw.fw_status_va + AGX_FWS_HALTED), 0);
            apple_st32(fake_ptr(&f, f.fw.fw_status_va + AGX_FWS_RESUME), 1);
        } else if (f.channel_error_events > channel_errors) {
            agx_wq_recover_channel(&f.fw, q.info_va);
        }
        channel_errors = f.channel_error_events;
        fake_run(&f, 64);
        g_assert_cmphex(fake_stamp(&f, 3), ==, q.value);
    }
    faults = f.fault_events;
    timeouts = f.timeout_events;
    g_assert_cmpuint(faults + timeouts + channel_errors, ==, 24);
    g_assert_cmpuint(faults, >, 0);
    g_assert_cmpuint(timeouts, >, 0);
    g_assert_cmpuint(channel_errors, >, 0);
    g_assert_false(fake_crashed(&f));
    fake_free(&f);
}

/* Off by default: the firmware behaves exactly as without chaos */
static void test_off_is_off(void)
{
    const uint64_t d = agx_ns_to_ticks(AGX_FW_DEFAULT_JOB_NS);
    Run r;

    /* job-duration-ns each, in ticks of an integer period: d or d + 1 */
    run_pipes(0, &r);
    for (int p = 0; p < 3; p++) {
        for (int j = 0; j < JOBS; j++) {
            g_assert_cmpuint(r.end[p][j] - r.start[p][j] - d, <=, 1);
        }
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/chaos/same-seed-same-run", test_same_seed_same_run);
    g_test_add_func("/chaos/durations-stay-legal", test_durations_stay_legal);
    g_test_add_func("/chaos/pick-order-among-equals-varies",
                    test_pick_order_varies);
    g_test_add_func("/chaos/fault-rate-injects-every-kind", test_fault_rate);
    g_test_add_func("/chaos/seed-0-is-off", test_off_is_off);
    return g_test_run();
}
