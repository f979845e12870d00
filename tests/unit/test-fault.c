/*
 * Unit tests for injected GPU faults and timeouts, and the halt/resume
 * handshake drm/asahi's recovery path drives
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "agx-fake.h"
#include "unit-helpers.h"

typedef struct Fixture {
    Fake f;
} Fixture;

static void fx_setup(Fixture *fx, gconstpointer data)
{
    fake_init(&fx->f, data ? AGX_FW_V12_3 : AGX_FW_V13_5);
}

static void fx_teardown(Fixture *fx, gconstpointer data)
{
    fake_free(&fx->f);
}

static uint32_t fws32(Fake *f, unsigned off)
{
    return fake_ld32(f, f->fw.fw_status_va + off);
}

static uint64_t pending(Fake *f, unsigned pipe)
{
    return fake_ld64(f, f->fw.globals_va + f->fw.abi->gl_pending_stamps +
                     8 * pipe);
}

/*
 * QueueInfo.error_count where drm/asahi (fw/workqueue.rs, the newest)
 * puts it: 13.2 added a word at 0x84, before it
 */
static uint32_t error_count(Fake *f, FakeQueue *q)
{
    return fake_ld32(f, q->info_va + (f->fw.abi->compat[0] >= 13 ?
                                      0x8c : 0x88));
}

/* What the driver does in recover(): clear halted, set resume */
static void driver_resume(Fake *f)
{
    apple_st32(fake_ptr(f, f->fw.fw_status_va + AGX_FWS_HALTED), 0);
    apple_st32(fake_ptr(f, f->fw.fw_status_va + AGX_FWS_RESUME), 1);
}

static void test_gpu_fault_halts_everything(Fixture *fx, gconstpointer d)
{
    Fake *f = &fx->f;
    unsigned shift = f->fw.abi->pending_stamp_slot_shift;
    FakeQueue vtx, comp;
    uint32_t first, second, cvalue;
    uint64_t info;

    fake_queue_init(f, &comp, AGX_PIPE_COMPUTE, 0, 9);
    fake_add_run(f, &comp, NULL);
    cvalue = comp.value;
    fake_kick(f, &comp);
    f->fw.inject = AGX_INJECT_GPU_FAULT;
    fake_queue_init(f, &vtx, AGX_PIPE_VERTEX, 0, 5);
    fake_add_run(f, &vtx, NULL);
    first = vtx.value;
    fake_add_run(f, &vtx, NULL);
    second = vtx.value;
    fake_kick(f, &vtx);
    fake_run(f, 8);

    g_assert_true(f->fw.halted);
    g_assert_cmpuint(f->fw.inject, ==, AGX_INJECT_NONE);
    g_assert_cmpuint(f->fault_events, ==, 1);
    g_assert_cmpuint(f->rx_doorbells, ==, 1);
    g_assert_cmpuint(fws32(f, AGX_FWS_HALTED), ==, 1);
    g_assert_cmpuint(fake_ld64(f, f->fw.fw_status_va + AGX_FWS_HALT_COUNT),
                     ==, 1);
    /* The faulting queue counts an error, the other queue none */
    g_assert_cmpuint(error_count(f, &vtx), ==, 1);
    g_assert_cmpuint(error_count(f, &comp), ==, 0);
    /* FAULT_INFO: valid, unmapped, read, level 2, VM slot 0, the VA */
    info = f->fw.fault_info;
    g_assert_cmphex(info & 1, ==, 1);
    g_assert_cmphex((info >> 1) & 7, ==, 0);
    g_assert_cmphex((info >> 4) & 1, ==, 1);
    g_assert_cmphex((info >> 7) & 3, ==, 2);
    g_assert_cmphex(info >> 30, ==, AGX_FAULT_INJECT_VA >> 6);
    /* Both running jobs are listed for the driver to fail */
    g_assert_cmphex(pending(f, AGX_PIPE_VERTEX), ==,
                    (uint64_t)first << 32 | 1 | 5 << shift);
    g_assert_cmphex(pending(f, AGX_PIPE_COMPUTE), ==,
                    (uint64_t)cvalue << 32 | 1 | 9 << shift);
    /* Halted: only the resume poll is armed, nothing retires */
    g_assert_cmpint(f->timer, ==, f->now + AGX_FAULT_RESUME_POLL_NS);
    g_assert_cmphex(fake_stamp(f, 5), ==, 0);
    g_assert_cmphex(fake_stamp(f, 9), ==, 0);
    fake_add_run(f, &comp, NULL);
    fake_kick(f, &comp);
    g_assert_false(f->fw.pipes[AGX_PIPE_COMPUTE].busy);

    /* Without resume nothing changes; with it the failed jobs are skipped */
    g_assert_false(agx_wq_resume(&f->fw));
    driver_resume(f);
    g_assert_true(agx_wq_resume(&f->fw));
    g_assert_cmpuint(fws32(f, AGX_FWS_RESUME), ==, 0);
    g_assert_cmphex(f->fw.fault_info, ==, 0);
    agx_wq_schedule(&f->fw);
    fake_run(f, 8);
    g_assert_false(f->fw.halted);
    g_assert_cmphex(fake_stamp(f, 5), ==, second);
    g_assert_cmphex(fake_stamp(f, 9), ==, comp.value);
    g_assert_cmphex(pending(f, AGX_PIPE_VERTEX), ==, 0);
    g_assert_cmpuint(f->fired[5], ==, 1);
    g_assert_false(fake_crashed(f));
}

static void test_timeout_after_watchdog(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    int64_t t0 = f->now;
    FakeQueue q;

    f->fw.inject = AGX_INJECT_TIMEOUT;
    fake_queue_init(f, &q, AGX_PIPE_FRAGMENT, 2, 17);
    fake_add_run(f, &q, NULL);
    fake_kick(f, &q);
    g_assert_cmpint(f->timer, ==, t0 + AGX_WATCHDOG_FRAG_MS * 1000000LL);
    fake_run(f, 8);
    g_assert_cmpuint(f->timeout_events, ==, 1);
    g_assert_cmpuint(apple_ld32(f->last_event + 4), ==, 1);      /* counter */
    g_assert_cmpuint(apple_ld32(f->last_event + 0xc), ==, 17);   /* slot */
    g_assert_true(f->fw.halted);
    g_assert_cmphex(f->fw.fault_info, ==, 0);
    g_assert_cmphex(pending(f, AGX_PIPE_FRAGMENT) >> 32, ==, q.value);
    g_assert_cmphex(fake_stamp(f, 17), ==, 0);
    /* The next job runs normally after the resume */
    driver_resume(f);
    g_assert_true(agx_wq_resume(&f->fw));
    fake_add_run(f, &q, NULL);
    fake_kick(f, &q);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, 17), ==, q.value);
    g_assert_cmpuint(f->fw.halt_count, ==, 1);
}

static void test_entries_cleared_at_retire(Fixture *fx, gconstpointer d)
{
    Fake *f = &fx->f;
    FakeQueue q;

    fake_queue_init(f, &q, AGX_PIPE_COMPUTE, 0, 3);
    fake_add_run(f, &q, NULL);
    fake_kick(f, &q);
    g_assert_cmphex(pending(f, AGX_PIPE_COMPUTE) & 1, ==, 1);
    fake_run(f, 8);
    g_assert_cmphex(pending(f, AGX_PIPE_COMPUTE), ==, 0);
    g_assert_cmpuint(f->fault_events + f->timeout_events, ==, 0);
}

static void test_channel_error_stops_one_queue(Fixture *fx, gconstpointer d)
{
    Fake *f = &fx->f;
    FakeQueue bad, other;
    uint32_t failed;

    f->fw.inject = AGX_INJECT_CHANNEL_ERROR;
    fake_queue_init(f, &bad, AGX_PIPE_COMPUTE, 0, 20);
    fake_queue_init(f, &other, AGX_PIPE_COMPUTE, 0, 21);
    fake_add_run(f, &bad, NULL);
    failed = bad.value;
    fake_add_run(f, &bad, NULL);
    fake_kick(f, &bad);
    fake_add_run(f, &other, NULL);
    fake_kick(f, &other);
    fake_run(f, 8);
    /* The event names the pipe, slot and value; no halt */
    g_assert_cmpuint(f->channel_error_events, ==, 1);
    g_assert_cmpuint(apple_ld32(f->last_event + 4), ==,
                     AGX_CHANNEL_ERROR_MEMORY);
    g_assert_cmpuint(apple_ld32(f->last_event + 8), ==, AGX_PIPE_COMPUTE);
    g_assert_cmpuint(apple_ld32(f->last_event + 0xc), ==, 20);
    g_assert_cmphex(apple_ld32(f->last_event + 0x10), ==, failed);
    g_assert_cmpuint(error_count(f, &bad), ==, 1);
    g_assert_false(f->fw.halted);
    /* That queue waits; the other one on the same pipe ran */
    g_assert_cmphex(fake_stamp(f, 20), ==, 0);
    g_assert_cmphex(fake_stamp(f, 21), ==, other.value);
    /* RecoverChannel for another queue is a guest error */
    agx_wq_recover_channel(&f->fw, other.info_va);
    g_assert_true(fake_has_error(f, "had no channel error"));
    agx_wq_recover_channel(&f->fw, bad.info_va);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, 20), ==, bad.value);
    g_assert_cmpuint(f->fired[20], ==, 1);
    g_assert_false(fake_crashed(f));
}

/* drm/asahi's recover() rings nothing: the halted firmware must notice */
static void test_resume_without_doorbell(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    FakeQueue vtx, comp;
    int64_t t0;

    fake_queue_init(f, &vtx, AGX_PIPE_VERTEX, 0, 5);
    fake_queue_init(f, &comp, AGX_PIPE_COMPUTE, 1, 9);
    f->fw.inject = AGX_INJECT_GPU_FAULT;
    fake_add_run(f, &vtx, NULL);
    fake_add_run(f, &vtx, NULL);
    fake_kick(f, &vtx);
    fake_add_run(f, &comp, NULL);
    fake_kick(f, &comp);
    g_assert_true(f->fw.halted);

    /* Left alone, it stays halted and polls at a bounded rate */
    t0 = f->now;
    fake_run(f, 5);
    g_assert_true(f->fw.halted);
    g_assert_cmpint(f->now, ==, t0 + 5 * AGX_FAULT_RESUME_POLL_NS);
    g_assert_cmpint(f->timer, ==, f->now + AGX_FAULT_RESUME_POLL_NS);

    /* The driver resumes and submits nothing more */
    driver_resume(f);
    fake_run(f, 16);
    g_assert_false(f->fw.halted);
    g_assert_cmphex(fake_stamp(f, 5), ==, vtx.value);
    g_assert_cmphex(fake_stamp(f, 9), ==, comp.value);
    g_assert_cmpint(f->timer, ==, -1);
    g_assert_false(fake_crashed(f));
}

/*
 * A render whose vertex half faults: the driver marks both in error and
 * waits for their stamps; on resume the vertex command retires without
 * its work and the fragment command behind the Barrier runs
 */
static void test_faulted_render_completes(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    FakeQueue vtx, frag;
    uint64_t vblk, fblk;
    uint64_t info, fi = f->fw.globals_va + f->fw.abi->gl_fault_info;

    fake_queue_init(f, &vtx, AGX_PIPE_VERTEX, 1, 10);
    fake_queue_init(f, &frag, AGX_PIPE_FRAGMENT, 1, 11);
    fake_add_barrier(f, &frag, &vtx, vtx.value + 0x100);
    fblk = fake_add_run(f, &frag, NULL);
    fake_kick(f, &frag);
    f->fw.inject = AGX_INJECT_GPU_FAULT;
    vblk = fake_add_run(f, &vtx, NULL);
    fake_kick(f, &vtx);
    g_assert_true(f->fw.halted);

    /* FAULT_INFO names a vertex unit (VDM0); fault_info the queue */
    info = f->fw.fault_info;
    g_assert_cmphex((info >> 9) & 0xff, ==, 0x08);
    g_assert_cmphex(fake_ld32(f, fi + 8), ==, 10);
    g_assert_cmphex(fake_stamp(f, 11), !=, frag.value);

    driver_resume(f);
    fake_run(f, 16);
    g_assert_false(f->fw.halted);
    /* Both stamps arrive, each slot is flagged once */
    g_assert_cmphex(fake_stamp(f, 10), ==, vtx.value);
    g_assert_cmphex(fake_fw_stamp(f, 10), ==, vtx.value);
    g_assert_cmphex(fake_stamp(f, 11), ==, frag.value);
    g_assert_cmpuint(f->fired[10], ==, 1);
    g_assert_cmpuint(f->fired[11], ==, 1);
    /* The faulted command never ended; the fragment ran after it */
    g_assert_cmpuint(fake_ld64(f, vblk + FAKE_TS_END), ==, 0);
    g_assert_cmpuint(fake_ld64(f, fblk + FAKE_TS_END), >, 0);
    g_assert_cmphex(f->fw.fault_info, ==, 0);
    g_assert_false(fake_crashed(f));
}

/* FAULT_INFO's unit is one of the faulting pipe's */
static void test_fault_unit_by_pipe(Fixture *fx, gconstpointer data)
{
    static const uint8_t unit[] = { 0x08, 0x0e, 0xa2 };

    for (unsigned pipe = 0; pipe < 3; pipe++) {
        Fake *f = &fx->f;
        FakeQueue q;

        fake_queue_init(f, &q, pipe, 0, 20 + pipe);
        f->fw.inject = AGX_INJECT_GPU_FAULT;
        fake_add_run(f, &q, NULL);
        fake_kick(f, &q);
        g_assert_true(f->fw.halted);
        g_assert_cmphex((f->fw.fault_info >> 9) & 0xff, ==, unit[pipe]);
        /* The VM slot of the job: drivers report KILLED otherwise */
        g_assert_cmphex((f->fw.fault_info >> 17) & 0x3f, ==, 0);
        driver_resume(f);
        fake_run(f, 8);
        g_assert_cmphex(fake_stamp(f, 20 + pipe), ==, q.value);
    }
}

/* A Timeout's counter is never below the halt count of the last recovery */
static void test_timeout_counter_follows_halts(Fixture *fx, gconstpointer d)
{
    Fake *f = &fx->f;
    FakeQueue q;

    fake_queue_init(f, &q, AGX_PIPE_COMPUTE, 0, 30);
    for (int i = 0; i < 2; i++) {
        f->fw.inject = AGX_INJECT_GPU_FAULT;
        fake_add_run(f, &q, NULL);
        fake_kick(f, &q);
        driver_resume(f);
        fake_run(f, 8);
    }
    f->fw.inject = AGX_INJECT_TIMEOUT;
    fake_add_run(f, &q, NULL);
    fake_kick(f, &q);
    fake_run(f, 8);
    g_assert_cmpuint(f->timeout_events, ==, 1);
    g_assert_cmpuint(apple_ld32(f->last_event + 4), ==, 3);
    g_assert_cmpuint(f->fw.halt_count, ==, 3);
}

static void test_resume_when_not_halted(Fixture *fx, gconstpointer data)
{
    g_assert_true(agx_wq_resume(&fx->f.fw));
    g_assert_cmpuint(fx->f.fw.halt_count, ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    FX_ADD("/fault/13.5/gpu-fault-halts-everything",
           test_gpu_fault_halts_everything);
    FX_ADD_DATA("/fault/12.3/gpu-fault-halts-everything",
                "12.3", test_gpu_fault_halts_everything);
    FX_ADD("/fault/13.5/timeout-after-watchdog", test_timeout_after_watchdog);
    FX_ADD_DATA("/fault/12.3/timeout-after-watchdog",
                "12.3", test_timeout_after_watchdog);
    FX_ADD("/fault/channel-error-stops-one-queue-until-recovered",
           test_channel_error_stops_one_queue);
    FX_ADD("/fault/pending-entry-cleared-at-retire",
           test_entries_cleared_at_retire);
    FX_ADD("/fault/13.5/resume-without-doorbell", test_resume_without_doorbell);
    FX_ADD_DATA("/fault/12.3/resume-without-doorbell",
                "12.3", test_resume_without_doorbell);
    FX_ADD("/fault/13.5/faulted-render-completes-after-resume",
           test_faulted_render_completes);
    FX_ADD_DATA("/fault/12.3/faulted-render-completes-after-resume",
                "12.3", test_faulted_render_completes);
    FX_ADD("/fault/unit-names-the-faulting-pipe", test_fault_unit_by_pipe);
    FX_ADD("/fault/timeout-counter-follows-halt-count",
           test_timeout_counter_follows_halts);
    FX_ADD("/fault/resume-when-not-halted-is-a-no-op",
           test_resume_when_not_halted);
    return g_test_run();
}
