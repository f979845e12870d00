/*
 * Unit tests for the firmware core's typed trace events: a recorder on
 * AgxTraceOps sees each kind of event, with its typed arguments, in the
 * order the firmware does things
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/agx/agx-trace.h"
#include "agx-fake.h"
#include "unit-helpers.h"

/* What the recorder saw: one line per event, "name arg arg ..." */
typedef struct Recorder {
    GPtrArray *lines;
    unsigned uat_walks;
} Recorder;

typedef struct Fixture {
    Fake f;
    Recorder rec;
} Fixture;

static void G_GNUC_PRINTF(2, 3) rec_add(void *opaque, const char *fmt, ...)
{
    Recorder *rec = opaque;
    va_list ap;

    va_start(ap, fmt);
    g_ptr_array_add(rec->lines, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}

static void rec_queue_run(void *opaque, unsigned pipe, unsigned prio,
                          uint64_t queue, uint32_t wptr, uint32_t slot,
                          bool is_new)
{
    rec_add(opaque, "queue_run %u %u %u", pipe, prio, slot);
}

static void rec_job_start(void *opaque, unsigned pipe, uint64_t queue,
                          uint64_t cmd, uint32_t vm_slot)
{
    rec_add(opaque, "job_start %u 0x%" G_GINT64_MODIFIER "x", pipe, cmd);
}

static void rec_job_work(void *opaque, unsigned pipe, uint64_t cmd,
                         int64_t duration_ns)
{
    rec_add(opaque, "job_work %u %" G_GINT64_MODIFIER "d", pipe,
            duration_ns);
}

static void rec_job_retire(void *opaque, unsigned pipe, uint64_t cmd,
                           uint32_t slot)
{
    rec_add(opaque, "job_retire %u 0x%" G_GINT64_MODIFIER "x %u", pipe, cmd,
            slot);
}

static void rec_useq_op(void *opaque, unsigned pipe, uint32_t offset,
                        unsigned op, const char *name)
{
    rec_add(opaque, "useq_op %u %s", pipe, name);
}

static void rec_stamp_fw(void *opaque, unsigned pipe, uint64_t va,
                         uint32_t value)
{
    rec_add(opaque, "stamp_fw %u 0x%x", pipe, value);
}

static void rec_stamp_retire(void *opaque, unsigned pipe, uint64_t va,
                             uint32_t value, uint32_t slot)
{
    rec_add(opaque, "stamp_retire %u 0x%x %u", pipe, value, slot);
}

static void rec_event_flag(void *opaque, uint32_t w0, uint32_t w1,
                           uint32_t w2, uint32_t w3)
{
    rec_add(opaque, "event_flag %08x %08x %08x %08x", w0, w1, w2, w3);
}

static void rec_event_fault(void *opaque, uint64_t fault_info)
{
    rec_add(opaque, "event_fault");
}

static void rec_fault_inject(void *opaque, const char *kind, unsigned pipe,
                             uint64_t cmd)
{
    rec_add(opaque, "fault_inject %s %u", kind, pipe);
}

static void rec_fault_halt(void *opaque, uint64_t halt_count)
{
    rec_add(opaque, "fault_halt %" G_GUINT64_FORMAT, halt_count);
}

static void rec_crash(void *opaque, const char *reason)
{
    rec_add(opaque, "crash");
}

static void rec_uat_walk(void *opaque, unsigned slot, uint64_t va,
                         bool is_write, uint64_t pa)
{
    ((Recorder *)opaque)->uat_walks++;
}

static void rec_uat_fault(void *opaque, unsigned slot, uint64_t va,
                          bool is_write, unsigned reason, unsigned level)
{
    rec_add(opaque, "uat_fault %u 0x%" G_GINT64_MODIFIER "x %d %u %u", slot,
            va, is_write, reason, level);
}

/* Only some hooks: the others stay NULL, which must be fine too */
static const AgxTraceOps rec_ops = {
    .queue_run = rec_queue_run,
    .job_start = rec_job_start,
    .job_work = rec_job_work,
    .job_retire = rec_job_retire,
    .useq_op = rec_useq_op,
    .stamp_fw = rec_stamp_fw,
    .stamp_retire = rec_stamp_retire,
    .event_flag = rec_event_flag,
    .event_fault = rec_event_fault,
    .fault_inject = rec_fault_inject,
    .fault_halt = rec_fault_halt,
    .crash = rec_crash,
    .uat_walk = rec_uat_walk,
    .uat_fault = rec_uat_fault,
};

static void fx_setup(Fixture *fx, gconstpointer data)
{
    fake_init(&fx->f, AGX_FW_V13_5);
    fx->rec.lines = g_ptr_array_new_with_free_func(g_free);
    fx->rec.uat_walks = 0;
    agx_fw_set_trace(&fx->f.fw, &rec_ops, &fx->rec);
}

static void fx_teardown(Fixture *fx, gconstpointer data)
{
    g_ptr_array_free(fx->rec.lines, true);
    fake_free(&fx->f);
}

/*
 * Assert that events starting with @want (NULL-terminated) were recorded
 * in this order, other events in between allowed
 */
static void assert_in_order(Recorder *rec, const char *const *want)
{
    unsigned i = 0;

    for (unsigned n = 0; n < rec->lines->len && want[i]; n++) {
        if (g_str_has_prefix(g_ptr_array_index(rec->lines, n), want[i])) {
            i++;
        }
    }
    if (want[i]) {
        for (unsigned n = 0; n < rec->lines->len; n++) {
            g_test_message("recorded: %s",
                           (char *)g_ptr_array_index(rec->lines, n));
        }
        g_test_message("missing: %s", want[i]);
        g_test_fail();
    }
}

/* A compute job: queue, job, ops, stamps and its Flag, typed and in order */
static void test_job_events_in_order(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    g_autofree char *start = NULL, *work = NULL, *fin = NULL, *ret = NULL;
    g_autofree char *retire = NULL;
    FakeQueue q;
    uint64_t cmd;

    fake_queue_init(f, &q, AGX_PIPE_COMPUTE, 1, 5);
    cmd = fake_add_run(f, &q, NULL);
    fake_kick(f, &q);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, 5), ==, q.value);

    start = g_strdup_printf("job_start 2 0x%" G_GINT64_MODIFIER "x", cmd);
    work = g_strdup_printf("job_work 2 %" G_GINT64_MODIFIER "d",
                           (int64_t)f->fw.job_ns);
    fin = g_strdup_printf("stamp_fw 2 0x%x", q.value);
    ret = g_strdup_printf("stamp_retire 2 0x%x 5", q.value);
    retire = g_strdup_printf("job_retire 2 0x%" G_GINT64_MODIFIER "x 5",
                             cmd);
    assert_in_order(&fx->rec, (const char *const[]) {
        "queue_run 2 1 5", start, "useq_op 2 StartCompute",
        "useq_op 2 WaitForIdle", work, "useq_op 2 FinalizeCompute", fin,
        "useq_op 2 RetireStamp", ret, retire,
        "event_flag 00000020 00000000 00000000 00000000", NULL,
    });
    /* Every firmware access went through the UAT */
    g_assert_cmpuint(fx->rec.uat_walks, >, 0);
}

/* An injected GPU fault: the injection, the halt, the Fault event */
static void test_fault_events(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    FakeQueue q;

    f->fw.inject = AGX_INJECT_GPU_FAULT;
    fake_queue_init(f, &q, AGX_PIPE_VERTEX, 0, 3);
    fake_add_run(f, &q, NULL);
    fake_kick(f, &q);
    fake_run(f, 8);
    g_assert_true(f->fw.halted);
    assert_in_order(&fx->rec, (const char *const[]) {
        "job_start 0", "fault_inject gpu-fault 0", "event_fault",
        "fault_halt 1", NULL,
    });
}

/* A UAT fault is traced with its slot, address, direction and reason */
static void test_uat_fault_event(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    uint64_t pa, left;
    AgxUatFault fault;

    g_assert_false(agx_uat_translate(&f->fw.uat, 0, 0x1000, AGX_UAT_FW,
                                     true, &pa, &left, &fault));
    assert_in_order(&fx->rec, (const char *const[]) {
        "uat_fault 0 0x1000 1 0 0", NULL,
    });
}

/* Without hooks nothing is recorded and the firmware works the same */
static void test_no_hooks(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    FakeQueue q;

    agx_fw_set_trace(&f->fw, NULL, NULL);
    fake_queue_init(f, &q, AGX_PIPE_FRAGMENT, 0, 7);
    fake_add_run(f, &q, NULL);
    fake_kick(f, &q);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, 7), ==, q.value);
    g_assert_cmpuint(fx->rec.lines->len, ==, 0);
    g_assert_cmpuint(fx->rec.uat_walks, ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    FX_ADD("/trace/job/events-in-order-with-their-arguments",
           test_job_events_in_order);
    FX_ADD("/trace/fault/injection-halt-and-event", test_fault_events);
    FX_ADD("/trace/uat/fault-names-slot-va-and-reason", test_uat_fault_event);
    FX_ADD("/trace/off/no-hooks-no-events", test_no_hooks);
    return g_test_run();
}
