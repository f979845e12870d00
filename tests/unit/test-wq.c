/*
 * Unit tests for the firmware's work queues: RunWorkQueue handling,
 * scheduling across pipes and priorities, barriers, completion events,
 * context teardown, and every bad-input path
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
    fake_init(&fx->f, AGX_FW_V13_5);
}

static void fx_teardown(Fixture *fx, gconstpointer data)
{
    fake_free(&fx->f);
}

static uint64_t ts(Fake *f, uint64_t blk, bool end)
{
    return fake_ld64(f, blk + (end ? FAKE_TS_END : FAKE_TS_START));
}

static void send_rwq(Fake *f, unsigned chan, unsigned pipe, uint64_t info,
                     uint32_t wptr, uint32_t slot, bool is_new)
{
    uint8_t msg[0x30];

    agx_cmd_build_rwq(msg, pipe, info, wptr, slot, is_new);
    agx_wq_run_msg(&f->fw, chan, msg);
    agx_wq_schedule(&f->fw);
}

/*
 * QueueInfo words of 13.5 the driver's debug dump reads, where drm/asahi
 * (fw/workqueue.rs, the newest) puts them: 13.2's extra word sits at
 * 0x84, before unk_84_state
 */
#define QI_EVENT_ID         0x2c
#define QI_ERROR_COUNT      0x8c
#define QI_PENDING          0x9c

/*
 * QueueInfo words drm/asahi dumps after a channel error: busy, rptr1..3,
 * event_id (the queue's event slot while it has work, -1 once idle),
 * pending (commands not done), error_count (none here)
 */
static void test_queue_info_follows_progress(Fixture *fx, gconstpointer d)
{
    Fake *f = &fx->f;
    FakeQueue q;

    fake_queue_init(f, &q, AGX_PIPE_COMPUTE, 0, 2);
    fake_add_run(f, &q, NULL);
    fake_add_run(f, &q, NULL);
    fake_kick(f, &q);
    g_assert_cmpuint(fake_ld32(f, q.info_va + AGX_QI_BUSY), ==, 1);
    g_assert_cmpuint(fake_ld32(f, q.info_va + QI_PENDING), ==, 2);
    g_assert_cmpuint(fake_ld32(f, q.info_va + QI_EVENT_ID), ==, 2);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, 2), ==, q.value);
    g_assert_cmpuint(fake_ld32(f, q.info_va + AGX_QI_BUSY), ==, 0);
    g_assert_cmpuint(fake_ld32(f, q.info_va + QI_PENDING), ==, 0);
    g_assert_cmphex(fake_ld32(f, q.info_va + QI_EVENT_ID), ==, 0xffffffff);
    g_assert_cmpuint(fake_ld32(f, q.info_va + QI_ERROR_COUNT), ==, 0);
    for (int i = 0; i < 3; i++) {
        g_assert_cmpuint(fake_ld32(f, q.info_va + AGX_QI_GPU_RPTR1 + 4 * i),
                         ==, 2);
    }
}

/*
 * 128 queues x 1279 Barriers in a cycle (and its reverse): every main-loop
 * turn of the firmware examines at most AGX_WQ_BUDGET entries, and the
 * rest goes on in later timer ticks until all of it is done
 */
static void test_barrier_chain_is_bounded(Fixture *fx, gconstpointer data)
{
    enum { N = AGX_MAX_QUEUES, K = AGX_WQ_RING_SIZE - 1 };
    Fake *f = &fx->f;
    FakeQueue *q = g_new0(FakeQueue, N);
    uint64_t before, ticks = 0;

    fake_barrier_chain(f, q, N, K, data != NULL);
    for (int i = 0; i < N; i++) {
        before = fake_ring_progress(f, q, N);
        fake_kick(f, &q[i]);
        g_assert_cmpuint(fake_ring_progress(f, q, N) - before, <=,
                         AGX_WQ_BUDGET);
    }
    while (f->timer >= 0 && ticks < (uint64_t)N * K) {
        before = fake_ring_progress(f, q, N);
        f->now = MAX(f->now, f->timer);
        f->timer = -1;
        agx_fw_timer(&f->fw);
        g_assert_cmpuint(fake_ring_progress(f, q, N) - before, <=,
                         AGX_WQ_BUDGET);
        ticks++;
    }
    g_test_message("barrier chain: %" G_GUINT64_FORMAT " timer ticks, %"
                   G_GINT64_FORMAT " ns of firmware time", ticks, f->now);
    g_assert_cmpuint(fake_ring_progress(f, q, N), ==, (uint64_t)N * K);
    g_assert_false(fake_crashed(f));
    g_free(q);
}

/* The fuzzers' snapshot: restore brings back RAM and state exactly */
static void test_snapshot_restore(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    g_autofree uint8_t *ram = NULL;
    AgxFw fw_before, fw_after;
    FakeQueue q;

    fake_snapshot(f);
    ram = g_memdup2(f->ram, FAKE_RAM_SIZE);
    fw_before = f->fw;
    for (int round = 0; round < 2; round++) {
        fake_queue_init(f, &q, AGX_PIPE_FRAGMENT, 1, 6);
        fake_add_run(f, &q, NULL);
        fake_add_run(f, &q, NULL);
        fake_kick(f, &q);
        fake_run(f, 16);
        g_assert_cmphex(fake_stamp(f, 6), ==, q.value);
        if (round) {
            /* The same input from the same snapshot: the same outcome */
            g_assert_cmpmem(&f->fw, sizeof(f->fw), &fw_after,
                            sizeof(fw_after));
        }
        fw_after = f->fw;
        fake_restore(f);
        g_assert_cmpmem(f->ram, FAKE_RAM_SIZE, ram, FAKE_RAM_SIZE);
        g_assert_cmpmem(&f->fw, sizeof(f->fw), &fw_before,
                        sizeof(fw_before));
        g_assert_cmpint(f->timer, ==, -1);
    }
}

static void test_jobs_of_one_queue_run_in_order(Fixture *fx, gconstpointer d)
{
    FakeQueue q;
    uint64_t a, b;

    fake_queue_init(&fx->f, &q, AGX_PIPE_VERTEX, 0, 1);
    a = fake_add_run(&fx->f, &q, NULL);
    b = fake_add_run(&fx->f, &q, NULL);
    fake_kick(&fx->f, &q);
    fake_run(&fx->f, 8);
    g_assert_cmphex(fake_stamp(&fx->f, 1), ==, q.value);
    g_assert_cmpuint(ts(&fx->f, b, false), >=, ts(&fx->f, a, true));
    g_assert_cmpuint(fake_ld32(&fx->f, q.state_va + AGX_RS_GPU_DONEPTR), ==,
                     2);
    g_assert_cmpuint(fake_ld32(&fx->f, q.state_va + AGX_RS_GPU_RPTR), ==, 2);
    g_assert_cmpuint(fx->f.fired[1], ==, 2);
}

/*
 * A late firmware tick: the jobs queued behind the one due ran on the GPU
 * meanwhile, each job_ns after the one before, so the tick retires all
 * that ended by then, each with its Flag, their time stamps by the GPU's
 * clock; a job announced later starts no earlier than its announcement
 */
static void test_late_tick_catches_up(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    int64_t d = f->fw.job_ns, t0 = f->now;
    uint64_t blk[5];
    uint32_t four;
    FakeQueue q;

    fake_queue_init(f, &q, AGX_PIPE_VERTEX, 0, 1);
    for (int i = 0; i < 4; i++) {
        blk[i] = fake_add_run(f, &q, NULL);
    }
    fake_kick(f, &q);
    four = q.value;
    g_assert_cmpint(f->timer, ==, t0 + d);
    /* A fifth, announced a quarter job after the fourth ended */
    f->now = t0 + 4 * d + d / 4;
    blk[4] = fake_add_run(f, &q, NULL);
    fake_kick(f, &q);
    /* The tick comes at half a job after the fourth ended */
    f->now = t0 + 4 * d + d / 2;
    fake_run(f, 1);
    g_assert_cmphex(fake_stamp(f, 1), ==, four);
    g_assert_cmpuint(f->fired[1], ==, 4);
    g_assert_cmpuint(f->fw.jobs_caught_up, ==, 3);
    g_assert_cmpint(f->timer, ==, t0 + 5 * d + d / 4);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, 1), ==, q.value);
    g_assert_cmpuint(f->fired[1], ==, 5);
    /* GPU time stamps: job_ns each, back to back, the fifth from its kick */
    for (int i = 0; i < 5; i++) {
        int64_t start = i < 4 ? t0 + i * d : t0 + 4 * d + d / 4;

        g_assert_cmpuint(ts(f, blk[i], false), ==, agx_ns_to_ticks(start));
        g_assert_cmpuint(ts(f, blk[i], true), ==,
                         agx_ns_to_ticks(start + d));
    }
}

static void test_pipes_run_in_parallel(Fixture *fx, gconstpointer data)
{
    FakeQueue q[3];
    uint64_t blk[3];

    for (int p = 0; p < 3; p++) {
        fake_queue_init(&fx->f, &q[p], p, 0, 10 + p);
        blk[p] = fake_add_run(&fx->f, &q[p], NULL);
        fake_kick(&fx->f, &q[p]);
    }
    for (int p = 0; p < 3; p++) {
        g_assert_true(fx->f.fw.pipes[p].busy);
    }
    fake_run(&fx->f, 8);
    for (int p = 1; p < 3; p++) {
        g_assert_cmpuint(ts(&fx->f, blk[p], false), ==,
                         ts(&fx->f, blk[0], false));
    }
    /* All three retired on the same tick: one Flag with three bits */
    g_assert_cmpuint(fx->f.fired[10] + fx->f.fired[11] + fx->f.fired[12], ==,
                     3);
    g_assert_cmpuint(fx->f.rx_doorbells, ==, 1);
}

static void test_priority_then_arrival(Fixture *fx, gconstpointer data)
{
    FakeQueue busy, low1, low2, high;
    uint64_t l1, l2, h;

    fake_queue_init(&fx->f, &busy, AGX_PIPE_FRAGMENT, 1, 20);
    fake_queue_init(&fx->f, &low1, AGX_PIPE_FRAGMENT, 1, 21);
    fake_queue_init(&fx->f, &low2, AGX_PIPE_FRAGMENT, 1, 22);
    fake_queue_init(&fx->f, &high, AGX_PIPE_FRAGMENT, 3, 23);
    fake_add_run(&fx->f, &busy, NULL);
    fake_kick(&fx->f, &busy);
    l1 = fake_add_run(&fx->f, &low1, NULL);
    fake_kick(&fx->f, &low1);
    l2 = fake_add_run(&fx->f, &low2, NULL);
    fake_kick(&fx->f, &low2);
    h = fake_add_run(&fx->f, &high, NULL);
    fake_kick(&fx->f, &high);
    fake_run(&fx->f, 16);
    g_assert_cmpuint(ts(&fx->f, h, true), <=, ts(&fx->f, l1, false));
    g_assert_cmpuint(ts(&fx->f, l1, true), <=, ts(&fx->f, l2, false));
}

static void test_barrier_blocks_until_stamp(Fixture *fx, gconstpointer d)
{
    FakeQueue vtx, frag;

    fake_queue_init(&fx->f, &vtx, AGX_PIPE_VERTEX, 0, 30);
    fake_queue_init(&fx->f, &frag, AGX_PIPE_FRAGMENT, 0, 31);
    fake_add_barrier(&fx->f, &frag, &vtx, vtx.value + 0x100);
    fake_add_run(&fx->f, &frag, NULL);
    fake_kick(&fx->f, &frag);
    fake_run(&fx->f, 8);
    g_assert_false(fx->f.fw.pipes[AGX_PIPE_FRAGMENT].busy);
    g_assert_cmphex(fake_stamp(&fx->f, 31), !=, frag.value);
    fake_add_run(&fx->f, &vtx, NULL);
    fake_kick(&fx->f, &vtx);
    fake_run(&fx->f, 8);
    g_assert_cmphex(fake_stamp(&fx->f, 31), ==, frag.value);
}

static void test_barrier_wraps_like_the_driver(Fixture *fx, gconstpointer d)
{
    FakeQueue a, b;

    fake_queue_init(&fx->f, &a, AGX_PIPE_VERTEX, 0, 32);
    fake_queue_init(&fx->f, &b, AGX_PIPE_COMPUTE, 0, 33);
    /* a's stamp is just past a 32-bit wrap: 0x00000100 >= 0xffffff00 */
    apple_st32(fake_ptr(&fx->f, fx->f.fw_stamps_va + 4 * 32), 0x100);
    fake_add_barrier(&fx->f, &b, &a, 0xffffff00);
    fake_add_run(&fx->f, &b, NULL);
    fake_kick(&fx->f, &b);
    fake_run(&fx->f, 8);
    g_assert_cmphex(fake_stamp(&fx->f, 33), ==, b.value);
}

static void test_ring_wraps(Fixture *fx, gconstpointer data)
{
    FakeQueue q;

    fake_queue_init(&fx->f, &q, AGX_PIPE_COMPUTE, 2, 40);
    for (int batch = 0; batch < 6; batch++) {
        uint64_t mark = fx->f.next_va;

        for (int i = 0; i < 300; i++) {
            fake_add_run(&fx->f, &q, NULL);
        }
        fake_kick(&fx->f, &q);
        fake_run(&fx->f, 1000);
        g_assert_cmphex(fake_stamp(&fx->f, 40), ==, q.value);
        /* All retired: their command blocks can be reused */
        fx->f.next_va = mark;
    }
    g_assert_cmpuint(fake_ld32(&fx->f, q.state_va + AGX_RS_GPU_DONEPTR), ==,
                     (6 * 300) % 0x500);
    g_assert_false(fake_crashed(&fx->f));
}

static void test_destroy_context_drops_work(Fixture *fx, gconstpointer d)
{
    FakeQueue q, other;

    fake_queue_init(&fx->f, &q, AGX_PIPE_VERTEX, 0, 50);
    fake_queue_init(&fx->f, &other, AGX_PIPE_VERTEX, 0, 51);
    fake_add_run(&fx->f, &q, NULL);
    fake_add_run(&fx->f, &q, NULL);
    fake_kick(&fx->f, &q);
    fake_add_run(&fx->f, &other, NULL);
    fake_kick(&fx->f, &other);
    g_assert_true(fx->f.fw.pipes[AGX_PIPE_VERTEX].busy);
    g_assert_cmpuint(agx_wq_live_contexts(&fx->f.fw), ==, 2);
    agx_wq_destroy_context(&fx->f.fw, q.ctx_va);
    g_assert_cmpuint(agx_wq_live_contexts(&fx->f.fw), ==, 1);
    fake_run(&fx->f, 8);
    g_assert_cmphex(fake_stamp(&fx->f, 50), ==, 0);
    g_assert_cmphex(fake_fw_stamp(&fx->f, 50), ==, 0);
    /* The other context's work went on */
    g_assert_cmphex(fake_stamp(&fx->f, 51), ==, other.value);
}

static void test_queue_forgotten_when_idle(Fixture *fx, gconstpointer d)
{
    FakeQueue q;

    fake_queue_init(&fx->f, &q, AGX_PIPE_COMPUTE, 0, 52);
    fake_add_run(&fx->f, &q, NULL);
    fake_kick(&fx->f, &q);
    fake_run(&fx->f, 8);
    for (int i = 0; i < AGX_MAX_QUEUES; i++) {
        g_assert_cmphex(fx->f.fw.queues[i].info_va, !=, q.info_va);
    }
    /* Its context is still live: only DestroyContext ends it */
    g_assert_cmpuint(agx_wq_live_contexts(&fx->f.fw), ==, 1);
    /* Picked up again from its RingState */
    fake_add_run(&fx->f, &q, NULL);
    fake_kick(&fx->f, &q);
    fake_run(&fx->f, 8);
    g_assert_cmphex(fake_stamp(&fx->f, 52), ==, q.value);
}

static void test_event_ring_full_keeps_bits(Fixture *fx, gconstpointer d)
{
    AgxChannel *ev = &fx->f.fw.ch[AGX_CH_EVENT];
    uint8_t *state = fake_ptr(&fx->f, ev->state_va);
    FakeQueue q;

    fake_queue_init(&fx->f, &q, AGX_PIPE_COMPUTE, 0, 60);
    fake_add_run(&fx->f, &q, NULL);
    fake_kick(&fx->f, &q);
    /* The driver is a whole ring behind */
    apple_st32(state, (ev->fw_ptr + 1) % ev->count);
    fx->f.now = fx->f.timer;
    fx->f.timer = -1;
    agx_fw_timer(&fx->f.fw);
    g_assert_cmphex(fake_stamp(&fx->f, 60), ==, q.value);
    g_assert_cmphex(fx->f.fw.firing[1], ==, 1u << (60 - 32));
    /* Nothing else runs, yet a retry is armed for the kept bit */
    g_assert_cmpint(fx->f.timer, ==, fx->f.now + AGX_WQ_EVENT_RETRY_NS);
    /* It catches up; the retry posts the pending bit by itself */
    apple_st32(state, ev->fw_ptr);
    fake_run(&fx->f, 8);
    g_assert_cmphex(fx->f.fw.firing[1], ==, 0);
    g_assert_cmpuint(fx->f.fired[60], ==, 1);
    g_assert_cmpint(fx->f.timer, ==, -1);
}

/* One doorbell waiting in the outbox is enough for the driver */
static void test_doorbells_coalesce(Fixture *fx, gconstpointer data)
{
    uint64_t msg0, msg1;
    int n = 0;

    agx_fw_rx_doorbell(&fx->f.fw);
    agx_fw_rx_doorbell(&fx->f.fw);
    while (rtkit_outbox_pop(&fx->f.rtk, &msg0, &msg1)) {
        n += msg1 == AGX_EP_FIRMWARE;
    }
    g_assert_cmpint(n, ==, 1);
    agx_fw_rx_doorbell(&fx->f.fw);
    g_assert_true(rtkit_outbox_pop(&fx->f.rtk, &msg0, &msg1));
}

static void test_bad_run_messages_ignored(Fixture *fx, gconstpointer d)
{
    FakeQueue q;

    fake_queue_init(&fx->f, &q, AGX_PIPE_VERTEX, 0, 70);
    fake_add_run(&fx->f, &q, NULL);
    send_rwq(&fx->f, 1, AGX_PIPE_VERTEX, q.info_va, 1, 70, true);
    g_assert_true(fake_has_error(&fx->f, "bad RunWorkQueue on pipe channel"));
    send_rwq(&fx->f, 0, 0, q.info_va, 0x500, 70, true);
    send_rwq(&fx->f, 0, 0, q.info_va, 1, 128, true);
    send_rwq(&fx->f, 0, 0, 0, 1, 70, true);
    g_assert_cmpuint(fx->f.errors->len, ==, 4);
    fake_run(&fx->f, 8);
    g_assert_false(fake_crashed(&fx->f));
    g_assert_cmphex(fake_stamp(&fx->f, 70), ==, 0);
    /* A queue cannot change pipes while busy */
    send_rwq(&fx->f, 0, 0, q.info_va, 1, 70, true);
    send_rwq(&fx->f, 2, 2, q.info_va, 1, 70, false);
    g_assert_true(fake_has_error(&fx->f, "moved from pipe 0 to 2"));
}

static void bad_ring_size(Fake *f, FakeQueue *q)
{
    apple_st32(fake_ptr(f, q->state_va + AGX_RS_RB_SIZE), 0x400);
}

static void unmapped_queue_info(Fake *f, FakeQueue *q)
{
    fake_unmap(f, q->info_va);
}

static void unknown_command(Fake *f, FakeQueue *q)
{
    apple_st32(fake_ptr(f, fake_ld64(f, q->ring_va)), 9);
}

static void command_for_other_pipe(Fake *f, FakeQueue *q)
{
    apple_st32(fake_ptr(f, fake_ld64(f, q->ring_va)), 1);
}

static void barrier_on_unmapped_stamp(Fake *f, FakeQueue *q)
{
    uint64_t blk = fake_ld64(f, q->ring_va);

    agx_cmd_build_barrier(fake_ptr(f, blk), 0xffffffa7f0000000ULL, 1, 0, 0);
}

static void bad_vm_slot(Fake *f, FakeQueue *q)
{
    uint64_t blk = fake_ld64(f, q->ring_va);

    apple_st32(fake_ptr(f, blk + f->layout->vm_slot[AGX_PIPE_VERTEX]), 64);
}

static void unmapped_ring(Fake *f, FakeQueue *q)
{
    fake_unmap(f, q->ring_va);
}

static const struct {
    const char *name;
    void (*breakage)(Fake *f, FakeQueue *q);
    const char *why;
} bad[] = {
    { "ring-size-not-0x500", bad_ring_size, "has ring size 1024" },
    { "unmapped-queue-info", unmapped_queue_info, "QueueInfo: unmapped" },
    { "unknown-command-type", unknown_command, "unknown command type 9" },
    { "command-for-another-pipe", command_for_other_pipe,
      "command type 1 on a pipe 0 queue" },
    { "barrier-on-unmapped-stamp", barrier_on_unmapped_stamp,
      "barrier stamp: unmapped" },
    { "vm-slot-out-of-range", bad_vm_slot, "VM slot 64" },
    { "unmapped-ring", unmapped_ring, "work queue ring: unmapped" },
};

static void test_bad(Fixture *fx, gconstpointer data)
{
    int i = GPOINTER_TO_INT(data);
    FakeQueue q;

    fake_queue_init(&fx->f, &q, AGX_PIPE_VERTEX, 0, 80);
    fake_add_run(&fx->f, &q, NULL);
    bad[i].breakage(&fx->f, &q);
    fake_kick(&fx->f, &q);
    fake_run(&fx->f, 8);
    g_assert_true(fake_crashed(&fx->f));
    if (!fake_has_error(&fx->f, bad[i].why)) {
        g_test_message("errors: %s",
                       (char *)g_ptr_array_index(fx->f.errors, 0));
        g_assert_not_reached();
    }
    g_assert_cmpint(fx->f.timer, ==, -1);
}

static void test_too_many_busy_queues(Fixture *fx, gconstpointer data)
{
    FakeQueue q;

    /* Fill the table with queues blocked on a barrier that never clears */
    for (int i = 0; i <= AGX_MAX_QUEUES && !fake_crashed(&fx->f); i++) {
        FakeQueue never;

        fake_queue_init(&fx->f, &never, AGX_PIPE_VERTEX, 0, 126);
        fake_queue_init(&fx->f, &q, AGX_PIPE_COMPUTE, 0, i % 120);
        fake_add_barrier(&fx->f, &q, &never, 0x100);
        fake_kick(&fx->f, &q);
    }
    g_assert_true(fake_crashed(&fx->f));
    g_assert_true(fake_has_error(&fx->f, "more than 128 busy work queues"));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    FX_ADD("/wq/order/jobs-of-a-queue-run-in-order",
           test_jobs_of_one_queue_run_in_order);
    FX_ADD("/wq/order/pipes-run-in-parallel", test_pipes_run_in_parallel);
    FX_ADD("/wq/order/late-tick-catches-up", test_late_tick_catches_up);
    FX_ADD("/wq/queue/info-follows-progress", test_queue_info_follows_progress);
    FX_ADD("/wq/fake/snapshot-restore-is-exact", test_snapshot_restore);
    g_test_add("/wq/bounded/barrier-chain-of-128-queues", Fixture, NULL,
               fx_setup, test_barrier_chain_is_bounded, fx_teardown);
    g_test_add("/wq/bounded/reverse-barrier-chain-of-128-queues", Fixture,
               "reverse", fx_setup, test_barrier_chain_is_bounded,
               fx_teardown);
    FX_ADD("/wq/order/priority-then-arrival", test_priority_then_arrival);
    FX_ADD("/wq/barrier/blocks-until-stamp", test_barrier_blocks_until_stamp);
    FX_ADD("/wq/barrier/compares-wrap-aware",
           test_barrier_wraps_like_the_driver);
    FX_ADD("/wq/ring/wraps-around", test_ring_wraps);
    FX_ADD("/wq/context/destroy-drops-its-work",
           test_destroy_context_drops_work);
    FX_ADD("/wq/queue/forgotten-when-idle-and-resumed",
           test_queue_forgotten_when_idle);
    FX_ADD("/wq/event/full-ring-keeps-bits", test_event_ring_full_keeps_bits);
    FX_ADD("/wq/event/rx-doorbells-coalesce", test_doorbells_coalesce);
    FX_ADD("/wq/bad/run-messages-are-ignored", test_bad_run_messages_ignored);
    FX_ADD("/wq/bad/too-many-busy-queues-crashes", test_too_many_busy_queues);
    for (int i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *path = g_strdup_printf("/wq/bad/%s-crashes",
                                                bad[i].name);

        g_test_add(path, Fixture, GINT_TO_POINTER(i), fx_setup, test_bad,
                   fx_teardown);
    }
    return g_test_run();
}
