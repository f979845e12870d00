/*
 * Unit tests for the microsequence interpreter: every opcode the driver
 * emits and every way a sequence can be bad
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-useq.h"
#include "agx-fake.h"
#include "unit-helpers.h"

#define JOB_NS          AGX_FW_DEFAULT_JOB_NS

/* Offsets inside a 13.5 compute microsequence as agx-cmd builds it */
#define CS_TS1          0x16c
#define CS_WAIT         (CS_TS1 + 0x3c)
#define CS_TS2          (CS_WAIT + 4)
#define CS_FIN          (CS_TS2 + 0x3c)
#define CS_RETIRE       (CS_FIN + 0x7c)

typedef struct Fixture {
    Fake f;
    FakeQueue q;
} Fixture;

static void fx_setup(Fixture *fx, gconstpointer data)
{
    fake_init(&fx->f, AGX_FW_V13_5);
    fake_queue_init(&fx->f, &fx->q, AGX_PIPE_COMPUTE, 0, 5);
}

static void fx_teardown(Fixture *fx, gconstpointer data)
{
    fake_free(&fx->f);
}

/* Run one compute job with @patch applied; returns its block VA */
static uint64_t run_job(Fixture *fx, void (*patch)(uint8_t *, uint32_t *))
{
    uint64_t blk = fake_add_run(&fx->f, &fx->q, patch);

    fake_kick(&fx->f, &fx->q);
    fake_run(&fx->f, 16);
    return blk;
}

static void expect_crash(Fixture *fx, const char *why)
{
    g_assert_true(fake_crashed(&fx->f));
    if (!fake_has_error(&fx->f, why)) {
        for (guint i = 0; i < fx->f.errors->len; i++) {
            g_test_message("error: %s",
                           (char *)g_ptr_array_index(fx->f.errors, i));
        }
        g_assert_not_reached();
    }
    /* A dead firmware retires nothing */
    g_assert_cmphex(fake_stamp(&fx->f, 5), !=, fx->q.value);
}

/* The command's time slot, inside its record (agx-cmd.h) */
static uint64_t cur_ts(Fixture *fx, uint64_t blk)
{
    return blk + fx->f.layout->cur_ts[fx->q.pipe];
}

static void test_full_sequence(Fixture *fx, gconstpointer data)
{
    int64_t t0 = fx->f.now;
    uint64_t blk = run_job(fx, NULL);
    uint64_t start = fake_ld64(&fx->f, blk + FAKE_TS_START);
    uint64_t end = fake_ld64(&fx->f, blk + FAKE_TS_END);

    g_assert_false(fake_crashed(&fx->f));
    /* Finalize wrote the firmware stamp, Retire the shared one */
    g_assert_cmphex(fake_fw_stamp(&fx->f, 5), ==, fx->q.value);
    g_assert_cmphex(fake_stamp(&fx->f, 5), ==, fx->q.value);
    /* Timestamps: 24 MHz ticks around the job's virtual duration */
    g_assert_cmpuint(start, ==, agx_ns_to_ticks(t0));
    g_assert_cmpuint(end, ==, agx_ns_to_ticks(t0 + JOB_NS));
    g_assert_cmpuint(fake_ld64(&fx->f, cur_ts(fx, blk)), ==, end);
    g_assert_cmpuint(fx->f.fired[5], ==, 1);
    g_assert_cmpuint(fx->f.rx_doorbells, ==, 1);
    g_assert_cmpuint(fx->f.fw.jobs_done, ==, 1);
}

static void test_waits_for_gpu_work(Fixture *fx, gconstpointer data)
{
    fake_add_run(&fx->f, &fx->q, NULL);
    fake_kick(&fx->f, &fx->q);
    /* Before the timer: Start ran, Finalize has not */
    g_assert_true(fx->f.fw.pipes[AGX_PIPE_COMPUTE].busy);
    g_assert_cmpint(fx->f.timer, ==, fx->f.now + JOB_NS);
    g_assert_cmphex(fake_fw_stamp(&fx->f, 5), !=, fx->q.value);
    g_assert_cmpuint(fx->f.fw.pipes[AGX_PIPE_COMPUTE].useq_pos, ==,
                     CS_TS2);
    fake_run(&fx->f, 4);
    g_assert_false(fx->f.fw.pipes[AGX_PIPE_COMPUTE].busy);
    g_assert_cmpint(fx->f.timer, ==, -1);
}

static void no_result_pointers(uint8_t *useq, uint32_t *size)
{
    apple_st64(useq + CS_TS1 + 0x0c, 0);
    apple_st64(useq + CS_TS2 + 0x0c, 0);
}

static void test_timestamp_without_result(Fixture *fx, gconstpointer data)
{
    uint64_t blk = run_job(fx, no_result_pointers);

    g_assert_false(fake_crashed(&fx->f));
    g_assert_cmpuint(fake_ld64(&fx->f, blk + FAKE_TS_START), ==, 0);
    g_assert_cmpuint(fake_ld64(&fx->f, cur_ts(fx, blk)), >, 0);
}

/* m1n1 fills update_ts with 0xdeadbeef: the firmware never reads it */
static void poisoned_update_ts(uint8_t *useq, uint32_t *size)
{
    apple_st64(useq + CS_TS1 + 0x14, 0xdeadbeef);
    apple_st64(useq + CS_TS2 + 0x14, 0xdeadbeef);
}

static void test_update_ts_never_read(Fixture *fx, gconstpointer data)
{
    uint64_t blk = run_job(fx, poisoned_update_ts);
    uint64_t start = fake_ld64(&fx->f, blk + FAKE_TS_START);

    g_assert_false(fake_crashed(&fx->f));
    g_assert_cmpuint(start, >, 0);
    g_assert_cmpuint(fake_ld64(&fx->f, blk + FAKE_TS_END), >, start);
}

/* Newer drivers name a second pair, for user-requested time stamps */
static void user_pointers(uint8_t *useq, uint32_t *size)
{
    uint64_t pair = apple_ld64(useq + CS_TS1 + 0x0c);

    /* The kernel pair's results, +0x10: a user pair pointing past them */
    apple_st64(useq + CS_TS1 + 0x24, pair + 0x20);
    apple_st64(useq + CS_TS2 + 0x24, pair + 0x20);
}

static void test_user_timestamps(Fixture *fx, gconstpointer data)
{
    uint64_t blk = fake_add_run(&fx->f, &fx->q, user_pointers);
    uint64_t pair = cur_ts(fx, blk) + 8;

    apple_st64(fake_ptr(&fx->f, pair + 0x20), blk + FAKE_TS_START + 0x40);
    apple_st64(fake_ptr(&fx->f, pair + 0x28), blk + FAKE_TS_START + 0x48);
    fake_kick(&fx->f, &fx->q);
    fake_run(&fx->f, 16);
    g_assert_false(fake_crashed(&fx->f));
    /* In nanoseconds, as GET_TIME converts the timebase */
    g_assert_cmpuint(fake_ld64(&fx->f, blk + FAKE_TS_START + 0x40), ==,
                     fake_ld64(&fx->f, blk + FAKE_TS_START) * 125 / 3);
    g_assert_cmpuint(fake_ld64(&fx->f, blk + FAKE_TS_START + 0x48), ==,
                     fake_ld64(&fx->f, blk + FAKE_TS_END) * 125 / 3);
}

/* A time slot may straddle two pages (packed U64 near a page end) */
static void straddling_cur_ts(uint8_t *useq, uint32_t *size)
{
    uint64_t rec = apple_ld64(useq + CS_TS1 + 4) - 0x2b0;

    apple_st64(useq + CS_TS1 + 4, rec + FAKE_BLOCK - 4);
    apple_st64(useq + CS_TS2 + 4, rec + FAKE_BLOCK - 4);
}

static void test_cur_ts_straddles_pages(Fixture *fx, gconstpointer data)
{
    uint64_t blk = run_job(fx, straddling_cur_ts);

    g_assert_false(fake_crashed(&fx->f));
    g_assert_cmpuint(fake_ld64(&fx->f, blk + FAKE_BLOCK - 4), ==,
                     fake_ld64(&fx->f, blk + FAKE_TS_END));
}

/*
 * Vertex records keep their time slot at 4 mod 8 (0x5b4 / 0x5ac): the
 * firmware stores there on both ABIs
 */
static void test_vertex_cur_ts_at_4_mod_8(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    FakeQueue q;
    uint64_t blk;

    fake_free(f);
    fake_init(f, data ? AGX_FW_V12_3 : AGX_FW_V13_5);
    fake_queue_init(f, &q, AGX_PIPE_VERTEX, 0, 7);
    blk = fake_add_run(f, &q, NULL);
    g_assert_cmphex((blk + f->layout->cur_ts[AGX_PIPE_VERTEX]) % 8, ==, 4);
    fake_kick(f, &q);
    fake_run(f, 16);
    g_assert_false(fake_crashed(f));
    g_assert_cmphex(fake_stamp(f, 7), ==, q.value);
    g_assert_cmpuint(fake_ld64(f, blk + f->layout->cur_ts[AGX_PIPE_VERTEX]),
                     ==, fake_ld64(f, blk + FAKE_TS_END));
}

static void two_waits(uint8_t *useq, uint32_t *size)
{
    /* WaitForIdle twice: Start, TS, Wait, Wait, TS, Finalize, Retire */
    memmove(useq + CS_TS2 + 4, useq + CS_TS2, *size - CS_TS2);
    apple_st32(useq + CS_TS2, 0x00800001);
    *size += 4;
}

static void test_second_wait_is_more_work(Fixture *fx, gconstpointer d)
{
    int64_t t0 = fx->f.now;
    uint64_t blk = run_job(fx, two_waits);

    g_assert_false(fake_crashed(&fx->f));
    g_assert_cmpuint(fake_ld64(&fx->f, blk + FAKE_TS_START), ==,
                     agx_ns_to_ticks(t0));
    g_assert_cmpuint(fake_ld64(&fx->f, blk + FAKE_TS_END), ==,
                     agx_ns_to_ticks(t0 + 2 * JOB_NS));
}

static void wrong_wait_pipe(uint8_t *useq, uint32_t *size)
{
    apple_st32(useq + CS_WAIT, 0x00000101);       /* vertex */
}

static void test_wait_for_other_pipe_logged(Fixture *fx, gconstpointer d)
{
    run_job(fx, wrong_wait_pipe);
    g_assert_false(fake_crashed(&fx->f));
    g_assert_true(fake_has_error(&fx->f, "WaitForIdle 0x00000101"));
}

static void unknown_op(uint8_t *useq, uint32_t *size)
{
    apple_st32(useq + CS_WAIT, 0x3d);
}

static void wrong_start(uint8_t *useq, uint32_t *size)
{
    apple_st32(useq, 0x22);                       /* StartVertex */
}

static void wrong_finalize(uint8_t *useq, uint32_t *size)
{
    /* FinalizeVertex is 0x84 bytes: move the retire behind it */
    apple_st32(useq + CS_FIN, 0x23);
    apple_st32(useq + CS_FIN + 0x84, 0x40000018);
    *size = CS_FIN + 0x84 + 4;
}

static void no_retire(uint8_t *useq, uint32_t *size)
{
    *size -= 4;
}

static void overrun(uint8_t *useq, uint32_t *size)
{
    *size = CS_FIN + 8;                         /* Finalize cut short */
}

static void endless(uint8_t *useq, uint32_t *size)
{
    /* 70 Timestamps after the wait: more ops than any real sequence */
    uint32_t pos = CS_TS2;

    for (int i = 0; i < 70; i++, pos += 0x3c) {
        g_assert_cmpuint(pos + 0x3c, <=, AGX_CMD_MAX_USEQ);
        memcpy(useq + pos, useq + CS_TS1, 0x3c);
    }
    *size = pos;
}

static void misaligned_fw_stamp(uint8_t *useq, uint32_t *size)
{
    apple_st64(useq + CS_FIN + 0x28, apple_ld64(useq + CS_FIN + 0x28) + 2);
}

static void unmapped_ts(uint8_t *useq, uint32_t *size)
{
    apple_st64(useq + CS_TS1 + 4, 0xffffffa7f0000000ULL);
}

static void wait_first(uint8_t *useq, uint32_t *size)
{
    /* Retire before any GPU work */
    apple_st32(useq, 0x40000018);
    *size = 4;
}

static void wait_before_start(uint8_t *useq, uint32_t *size)
{
    apple_st32(useq, 0x00800001);
    *size = 4;
}

static void finalize_first(uint8_t *useq, uint32_t *size)
{
    /* Start, Finalize, Retire: no wait for the work */
    memmove(useq + CS_TS1, useq + CS_FIN, *size - CS_FIN);
    *size -= CS_FIN - CS_TS1;
}

static const struct {
    const char *name;
    void (*patch)(uint8_t *, uint32_t *);
    const char *why;
} bad[] = {
    { "unknown-opcode", unknown_op, "unknown microsequence opcode 0x3d" },
    { "start-of-another-pipe", wrong_start, "StartVertex in a command for "
      "pipe 2" },
    { "finalize-of-another-pipe", wrong_finalize, "FinalizeVertex in a "
      "command for pipe 2" },
    { "missing-retire", no_retire, "ends without RetireStamp" },
    { "op-overruns-sequence", overrun, "overruns its sequence" },
    { "endless-sequence", endless, "runs more than 64 ops" },
    { "unmapped-timestamp-pointer", unmapped_ts, "timestamp: unmapped" },
    { "retire-without-work", wait_first, "RetireStamp before the job's "
      "work ended" },
    { "wait-before-start", wait_before_start, "WaitForIdle before the "
      "Start op" },
    { "finalize-before-wait", finalize_first, "FinalizeCompute before the "
      "job's work ended" },
};

static void test_bad(Fixture *fx, gconstpointer data)
{
    int i = GPOINTER_TO_INT(data);

    run_job(fx, bad[i].patch);
    expect_crash(fx, bad[i].why);
}

/* The firmware's CPU stores at any alignment, as drivers may place stamps */
static void test_unaligned_fw_stamp(Fixture *fx, gconstpointer data)
{
    uint64_t va = fx->f.fw_stamps_va + 4 * 5 + 2;

    run_job(fx, misaligned_fw_stamp);
    g_assert_false(fake_crashed(&fx->f));
    g_assert_cmphex(apple_ld32(fake_ptr(&fx->f, va)), ==, fx->q.value);
    g_assert_cmphex(fake_stamp(&fx->f, 5), ==, fx->q.value);
}

static void test_retire_slot_out_of_range(Fixture *fx, gconstpointer data)
{
    uint64_t blk = fake_add_run(&fx->f, &fx->q, NULL);

    apple_st32(fake_ptr(&fx->f, blk + fx->f.layout->meta[AGX_PIPE_COMPUTE] +
                        AGX_META_STAMP_SLOT), 200);
    fake_kick(&fx->f, &fx->q);
    fake_run(&fx->f, 4);
    expect_crash(fx, "retires to event slot 200");
}

static void test_huge_sequence_rejected(Fixture *fx, gconstpointer data)
{
    uint64_t blk = fake_add_run(&fx->f, &fx->q, NULL);

    apple_st32(fake_ptr(&fx->f,
                        blk + fx->f.layout->useq_size[AGX_PIPE_COMPUTE]),
               0x100000);
    fake_kick(&fx->f, &fx->q);
    expect_crash(fx, "microsequence of 0x100000 bytes");
}

static void test_op_names(Fixture *fx, gconstpointer data)
{
    g_assert_cmpstr(agx_useq_op_name(0x18), ==, "RetireStamp");
    g_assert_cmpstr(agx_useq_op_name(0x2a), ==, "FinalizeCompute");
    g_assert_cmpstr(agx_useq_op_name(0x3f), ==, "unknown");
}

/* The same job on every pipe, both ABIs: each Start/Finalize pair works */
static void test_every_pipe_both_abis(void)
{
    for (int v = 0; v < AGX_FW_NUM_VERSIONS; v++) {
        for (unsigned p = 0; p < AGX_NUM_PIPES; p++) {
            Fake f;
            FakeQueue q;

            fake_init(&f, v);
            fake_queue_init(&f, &q, p, 1, 7);
            fake_add_run(&f, &q, NULL);
            fake_kick(&f, &q);
            fake_run(&f, 4);
            g_assert_false(fake_crashed(&f));
            g_assert_cmphex(fake_stamp(&f, 7), ==, q.value);
            g_assert_cmphex(fake_fw_stamp(&f, 7), ==, q.value);
            fake_free(&f);
        }
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    FX_ADD("/useq/ops/full-sequence-writes-stamps-and-times",
           test_full_sequence);
    FX_ADD("/useq/ops/wait-for-idle-holds-until-gpu-work-ends",
           test_waits_for_gpu_work);
    FX_ADD("/useq/ops/timestamp-without-result-pointer",
           test_timestamp_without_result);
    FX_ADD("/useq/ops/second-wait-is-more-gpu-work",
           test_second_wait_is_more_work);
    FX_ADD("/useq/ops/wait-for-another-pipe-is-logged",
           test_wait_for_other_pipe_logged);
    FX_ADD("/useq/ops/names", test_op_names);
    g_test_add_func("/useq/ops/every-pipe-both-abis",
                    test_every_pipe_both_abis);
    g_test_add("/useq/unaligned-fw-stamp-is-written", Fixture, NULL,
               fx_setup, test_unaligned_fw_stamp, fx_teardown);
    g_test_add("/useq/timestamp/update-ts-is-never-read", Fixture, NULL,
               fx_setup, test_update_ts_never_read, fx_teardown);
    g_test_add("/useq/timestamp/user-pointers-get-nanoseconds", Fixture, NULL,
               fx_setup, test_user_timestamps, fx_teardown);
    g_test_add("/useq/timestamp/cur-ts-may-straddle-pages", Fixture, NULL,
               fx_setup, test_cur_ts_straddles_pages, fx_teardown);
    g_test_add("/useq/timestamp/13.5/vertex-cur-ts-at-4-mod-8", Fixture, NULL,
               fx_setup, test_vertex_cur_ts_at_4_mod_8, fx_teardown);
    g_test_add("/useq/timestamp/12.3/vertex-cur-ts-at-4-mod-8", Fixture,
               "12.3", fx_setup, test_vertex_cur_ts_at_4_mod_8, fx_teardown);
    for (int i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *path = g_strdup_printf("/useq/bad/%s-crashes",
                                                bad[i].name);

        g_test_add(path, Fixture, GINT_TO_POINTER(i), fx_setup, test_bad,
                   fx_teardown);
    }
    FX_ADD("/useq/bad/retire-slot-out-of-range-crashes",
           test_retire_slot_out_of_range);
    FX_ADD("/useq/bad/huge-sequence-crashes", test_huge_sequence_rejected);
    return g_test_run();
}
