/*
 * Unit tests for the runtime firmware ABI tables (agx-job-abi)
 *
 * The expected numbers were worked out independently of the table, by
 * laying out the drm/asahi driver's #[repr(C)] structures
 * (ah-/kernel-asahi 2cf78974b257, drivers/gpu/drm/asahi/fw/{vertex,
 * fragment,compute,microseq,workqueue,job,buffer,channels}.rs) for G13 at
 * V12_3 and V13_5 with a small layout calculator: U32, U64 and GPU
 * pointers 1-aligned, u16/u32 naturally aligned, #[ver] fields kept only
 * where their condition holds.  Every Run record, microsequence op and
 * QueueInfo number was then checked against m1n1's construct definitions
 * (proxyclient/m1n1/fw/agx/{cmdqueue,microsequence}.py, AGX_FWVER=V12_3
 * and V13_5), which agree except for m1n1's longer Run record tails.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-job-abi.h"
#include "hw/agx/agx-useq.h"

#define JOB_META_SIZE   0x2c

typedef struct Expect {
    AgxFwVersion version;
    /* by pipe: size, vm_slot, microsequence, microsequence_size, meta */
    AgxRunLayout run[3];
    AgxFinalizeLayout finalize[3];
    /* StartVertex .. FinalizeCompute, in opcode order */
    uint32_t start_vertex, finalize_vertex, start_fragment;
    uint32_t finalize_fragment, start_compute, finalize_compute;
    uint32_t timestamp, ts_cur_ts, ts_pointers, ts_user_pointers;
    uint32_t queue_info_size, qi_gpu_context;
} Expect;

static const Expect expect[] = {
    {
        /*
         * 13.5: the Run records begin with tag and U64 counter; the
         * Finalize ops and Timestamp carry their 13.0b4 tails, QueueInfo
         * its two 13.2 words (one before gpu_context).
         */
        .version = AGX_FW_V13_5,
        .run = {
            { 0x608, 0x0c, 0x474, 0x47c, 0x56c },
            { 0x96c, 0x0c, 0x014, 0x01c, 0x8d0 },
            { 0x31c, 0x10, 0x1f0, 0x1f8, 0x284 },
        },
        .finalize = { { 0x3c, 0x44 }, { 0x0c, 0x14 }, { 0x28, 0x30 } },
        .start_vertex = 0x18c,
        .finalize_vertex = 0x84,
        .start_fragment = 0x1ac,
        .finalize_fragment = 0xb4,
        .start_compute = 0x16c,
        .finalize_compute = 0x7c,
        .timestamp = 0x3c,
        .ts_cur_ts = 0x04,
        .ts_pointers = 0x0c,
        .ts_user_pointers = 0x24,
        .queue_info_size = 0xb8,
        .qi_gpu_context = 0xa4,
    }, {
        /*
         * 12.3: the same structures without any field marked V >= V13_0B4,
         * V13_2 or V13_3, and with those marked V < V13_0B4.
         */
        .version = AGX_FW_V12_3,
        .run = {
            { 0x5e0, 0x04, 0x46c, 0x474, 0x564 },
            { 0x930, 0x04, 0x00c, 0x014, 0x8b4 },
            { 0x2dc, 0x08, 0x1e8, 0x1f0, 0x27c },
        },
        .finalize = { { 0x3c, 0x44 }, { 0x0c, 0x14 }, { 0x2c, 0x34 } },
        .start_vertex = 0x17c,
        .finalize_vertex = 0x74,
        .start_fragment = 0x194,
        .finalize_fragment = 0x9c,
        .start_compute = 0x154,
        .finalize_compute = 0x64,
        .timestamp = 0x34,
        .ts_cur_ts = 0x04,
        .ts_pointers = 0x0c,
        .ts_user_pointers = 0x24,
        .queue_info_size = 0xb0,
        .qi_gpu_context = 0xa0,
    },
};

static const AgxJobAbi *abi_of(const Expect *e)
{
    const AgxJobAbi *ja = agx_job_abi_get(e->version);

    g_assert_nonnull(ja);
    return ja;
}

static void test_run_records(gconstpointer data)
{
    const Expect *e = data;
    const AgxJobAbi *ja = abi_of(e);

    for (int p = AGX_PIPE_VERTEX; p <= AGX_PIPE_COMPUTE; p++) {
        g_test_message("pipe %d", p);
        g_assert_cmphex(ja->run[p].size, ==, e->run[p].size);
        g_assert_cmphex(ja->run[p].vm_slot, ==, e->run[p].vm_slot);
        g_assert_cmphex(ja->run[p].useq_ptr, ==, e->run[p].useq_ptr);
        g_assert_cmphex(ja->run[p].useq_size, ==, e->run[p].useq_size);
        g_assert_cmphex(ja->run[p].meta, ==, e->run[p].meta);
    }
}

static void test_finalize(gconstpointer data)
{
    const Expect *e = data;
    const AgxJobAbi *ja = abi_of(e);

    for (int p = AGX_PIPE_VERTEX; p <= AGX_PIPE_COMPUTE; p++) {
        g_assert_cmphex(ja->finalize[p].fw_stamp, ==,
                        e->finalize[p].fw_stamp);
        g_assert_cmphex(ja->finalize[p].stamp_value, ==,
                        e->finalize[p].stamp_value);
    }
}

static void test_op_sizes(gconstpointer data)
{
    const Expect *e = data;
    const AgxJobAbi *ja = abi_of(e);
    uint32_t want[AGX_NUM_OPS] = {
        [AGX_OP_WAIT_FOR_IDLE] = 0x4,
        [AGX_OP_RETIRE_STAMP] = 0x4,
        [AGX_OP_TIMESTAMP] = e->timestamp,
        [AGX_OP_START_VERTEX] = e->start_vertex,
        [AGX_OP_FINALIZE_VERTEX] = e->finalize_vertex,
        [AGX_OP_START_FRAGMENT] = e->start_fragment,
        [AGX_OP_FINALIZE_FRAGMENT] = e->finalize_fragment,
        [AGX_OP_START_COMPUTE] = e->start_compute,
        [AGX_OP_FINALIZE_COMPUTE] = e->finalize_compute,
    };

    /* Every other opcode, WaitForIdle2 (G14X only) included, is rejected */
    for (int op = 0; op < AGX_NUM_OPS; op++) {
        g_test_message("opcode 0x%02x", op);
        g_assert_cmphex(ja->op_size[op], ==, want[op]);
    }
    g_assert_cmpuint(ja->op_size[AGX_OP_WAIT_FOR_IDLE2], ==, 0);
}

static void test_timestamp_and_queue_info(gconstpointer data)
{
    const Expect *e = data;
    const AgxJobAbi *ja = abi_of(e);

    g_assert_cmphex(ja->ts_cur_ts, ==, e->ts_cur_ts);
    g_assert_cmphex(ja->ts_pointers, ==, e->ts_pointers);
    g_assert_cmphex(ja->ts_user_pointers, ==, e->ts_user_pointers);
    g_assert_cmphex(ja->queue_info_size, ==, e->queue_info_size);
    g_assert_cmphex(ja->qi_gpu_context, ==, e->qi_gpu_context);
}

/* Layout invariants that hold for any correct table */
static void test_sanity(gconstpointer data)
{
    const Expect *e = data;
    const AgxJobAbi *ja = abi_of(e);
    static const uint8_t finalize_op[3] = {
        AGX_OP_FINALIZE_VERTEX, AGX_OP_FINALIZE_FRAGMENT,
        AGX_OP_FINALIZE_COMPUTE,
    };
    static const uint8_t start_op[3] = {
        AGX_OP_START_VERTEX, AGX_OP_START_FRAGMENT, AGX_OP_START_COMPUTE,
    };

    for (int p = AGX_PIPE_VERTEX; p <= AGX_PIPE_COMPUTE; p++) {
        const AgxRunLayout *r = &ja->run[p];
        const AgxFinalizeLayout *f = &ja->finalize[p];
        uint32_t fin = ja->op_size[finalize_op[p]];

        g_test_message("pipe %d", p);
        /* Run record: u32 fields aligned, past the tag, inside the record */
        g_assert_cmpuint(r->size % 4, ==, 0);
        g_assert_cmpuint(r->vm_slot % 4, ==, 0);
        g_assert_cmpuint(r->useq_size % 4, ==, 0);
        g_assert_cmpuint(r->meta % 4, ==, 0);
        g_assert_cmpuint(r->vm_slot, >=, 4);
        /* the size follows the u64 pointer directly */
        g_assert_cmpuint(r->useq_size, ==, r->useq_ptr + 8);
        g_assert_cmpuint(r->vm_slot + 4, <=, r->useq_ptr);
        g_assert_cmpuint(r->useq_size + 4, <=, r->meta);
        g_assert_cmpuint(r->meta + JOB_META_SIZE, <=, r->size);

        /* Finalize: u64 fw_stamp then u32 value, inside the op */
        g_assert_cmpuint(f->fw_stamp, >=, 4);
        g_assert_cmpuint(f->fw_stamp + 8, <=, f->stamp_value);
        g_assert_cmpuint(f->stamp_value % 4, ==, 0);
        g_assert_cmpuint(f->stamp_value + 4, <=, fin);
        g_assert_cmpuint(ja->op_size[start_op[p]], >, 4);
    }
    for (int op = 0; op < AGX_NUM_OPS; op++) {
        g_assert_cmpuint(ja->op_size[op] % 4, ==, 0);
        g_assert_cmpuint(ja->op_size[op], <=, AGX_USEQ_MAX_OP_SIZE);
    }
    g_assert_cmpuint(ja->op_size[AGX_OP_WAIT_FOR_IDLE], ==, 4);
    g_assert_cmpuint(ja->op_size[AGX_OP_RETIRE_STAMP], ==, 4);

    /*
     * Timestamp: header, u64 cur_ts, u64 start_ts (the pair), u64
     * update_ts, u64 work_queue, u64 unk_24 / user_ts_pointers, ...
     */
    g_assert_cmpuint(ja->ts_cur_ts, >=, 4);
    g_assert_cmpuint(ja->ts_cur_ts + 8, ==, ja->ts_pointers);
    g_assert_cmpuint(ja->ts_pointers + 24, ==, ja->ts_user_pointers);
    g_assert_cmpuint(ja->ts_user_pointers + 8, <=,
                     ja->op_size[AGX_OP_TIMESTAMP]);

    /* QueueInfo: fixed head, then gpu_context, all inside */
    g_assert_cmpuint(AGX_QI_RING + 8, <=, AGX_QI_BUSY);
    g_assert_cmpuint(AGX_QI_BUSY + 4, <=, ja->qi_gpu_context);
    g_assert_cmpuint(ja->qi_gpu_context + 8, <=, ja->queue_info_size);
    g_assert_cmpuint(ja->queue_info_size, <=, AGX_QI_MAX_SIZE);
}

static uint32_t round_up4(uint32_t x)
{
    return (x + 3) & ~3u;
}

/*
 * What 12.3 lacks, field by field (13.5 minus 12.3), from the #[ver]
 * attributes: this ties the two tables together independently of the
 * absolute numbers.
 */
static void test_version_deltas(void)
{
    const AgxJobAbi *n = agx_job_abi_get(AGX_FW_V13_5);
    const AgxJobAbi *o = agx_job_abi_get(AGX_FW_V12_3);
    /* U64 counter in front of every Run record */
    const uint32_t counter = 8;
    /* RunVertex and RunFragment end: unk_ts U64 + 0x1b bytes */
    const uint32_t render_tail = 8 + 0x1b;
    /* RunFragment: unk_v13_3 u32, JobParameters3's two 13.0b4 U64s */
    const uint32_t frag_meta = counter + 4 + 2 * 8;
    /* RunCompute end: unk_ts U64, 0x1c bytes, unk_flag U32, 0x10 bytes */
    const uint32_t comp_tail = 8 + 0x1c + 4 + 0x10;

    g_assert_nonnull(n);
    g_assert_nonnull(o);
    for (int p = AGX_PIPE_VERTEX; p <= AGX_PIPE_COMPUTE; p++) {
        g_assert_cmpuint(n->run[p].vm_slot - o->run[p].vm_slot, ==,
                         counter);
        g_assert_cmpuint(n->run[p].useq_ptr - o->run[p].useq_ptr, ==,
                         counter);
    }
    g_assert_cmpuint(n->run[AGX_PIPE_VERTEX].meta -
                     o->run[AGX_PIPE_VERTEX].meta, ==, counter);
    g_assert_cmpuint(n->run[AGX_PIPE_FRAGMENT].meta -
                     o->run[AGX_PIPE_FRAGMENT].meta, ==, frag_meta);
    g_assert_cmpuint(n->run[AGX_PIPE_COMPUTE].meta -
                     o->run[AGX_PIPE_COMPUTE].meta, ==, counter);
    /*
     * Record sizes: every 12.3 record ends in a lone u8 and 3 bytes of
     * padding; 13.5 appends its tail right after that u8.
     */
    g_assert_cmpuint(n->run[AGX_PIPE_VERTEX].size, ==,
                     round_up4(o->run[AGX_PIPE_VERTEX].size - 3 + counter +
                               render_tail));
    g_assert_cmpuint(n->run[AGX_PIPE_FRAGMENT].size, ==,
                     round_up4(o->run[AGX_PIPE_FRAGMENT].size - 3 +
                               frag_meta + render_tail));
    g_assert_cmpuint(n->run[AGX_PIPE_COMPUTE].size, ==,
                     round_up4(o->run[AGX_PIPE_COMPUTE].size - 3 + counter +
                               comp_tail));

    /* Start ops: U64 counter + notifier_buf; StartFragment's 13.3 U64 */
    g_assert_cmpuint(n->op_size[AGX_OP_START_VERTEX] -
                     o->op_size[AGX_OP_START_VERTEX], ==, 16);
    g_assert_cmpuint(n->op_size[AGX_OP_START_FRAGMENT] -
                     o->op_size[AGX_OP_START_FRAGMENT], ==, 24);
    /* StartCompute: unk_flag pointer too */
    g_assert_cmpuint(n->op_size[AGX_OP_START_COMPUTE] -
                     o->op_size[AGX_OP_START_COMPUTE], ==, 24);
    /* Finalize ops: 0x10-byte tail; FinalizeFragment's 13.3 U64 */
    g_assert_cmpuint(n->op_size[AGX_OP_FINALIZE_VERTEX] -
                     o->op_size[AGX_OP_FINALIZE_VERTEX], ==, 0x10);
    g_assert_cmpuint(n->op_size[AGX_OP_FINALIZE_FRAGMENT] -
                     o->op_size[AGX_OP_FINALIZE_FRAGMENT], ==, 0x18);
    /* FinalizeCompute: -unk_18 u32, +0xd bytes, pointer, 7 bytes */
    g_assert_cmpuint(n->op_size[AGX_OP_FINALIZE_COMPUTE] -
                     o->op_size[AGX_OP_FINALIZE_COMPUTE], ==,
                     0xd + 8 + 7 - 4);
    g_assert_cmpuint(o->finalize[AGX_PIPE_COMPUTE].fw_stamp -
                     n->finalize[AGX_PIPE_COMPUTE].fw_stamp, ==, 4);
    /* Timestamp: unk_ts pointer */
    g_assert_cmpuint(n->op_size[AGX_OP_TIMESTAMP] -
                     o->op_size[AGX_OP_TIMESTAMP], ==, 8);
    /* QueueInfo: one 13.2 word before gpu_context, one at the end */
    g_assert_cmpuint(n->qi_gpu_context - o->qi_gpu_context, ==, 4);
    g_assert_cmpuint(n->queue_info_size - o->queue_info_size, ==, 8);
}

/* The layouts the header keeps as version-independent enums */
static void test_common_layouts(void)
{
    /* RunWorkQueueMsg: u32, U64, u32, u32, bool, then 0x1b of padding */
    g_assert_cmphex(AGX_RWQ_PIPE_TYPE, ==, 0x00);
    g_assert_cmphex(AGX_RWQ_WORK_QUEUE, ==, 0x04);
    g_assert_cmphex(AGX_RWQ_WPTR, ==, 0x0c);
    g_assert_cmphex(AGX_RWQ_EVENT_SLOT, ==, 0x10);
    g_assert_cmphex(AGX_RWQ_IS_NEW, ==, 0x14);
    g_assert_cmphex(AGX_RWQ_IS_NEW + 1 + 0x1b, ==, 0x30);

    /* QueueInfo: four pointers, 4 u32, Priority (0x1c), 3 u32, U64 */
    g_assert_cmphex(AGX_QI_STATE, ==, 0x00);
    g_assert_cmphex(AGX_QI_RING, ==, 0x08);
    g_assert_cmphex(AGX_QI_BUSY, ==, 4 * 8 + 4 * 4 + 0x1c + 3 * 4 + 8);

    /* RingState: seven u32 cells of 16 bytes */
    g_assert_cmphex(AGX_RS_GPU_DONEPTR, ==, 0 * 16);
    g_assert_cmphex(AGX_RS_GPU_RPTR, ==, 3 * 16);
    g_assert_cmphex(AGX_RS_CPU_WPTR, ==, 4 * 16);
    g_assert_cmphex(AGX_RS_RB_SIZE, ==, 5 * 16);
    g_assert_cmphex(AGX_WQ_RING_SIZE, ==, 0x500);

    /* JobMeta: u16, u8, u8, two pointers, six u32 */
    g_assert_cmphex(AGX_META_STAMP, ==, 0x04);
    g_assert_cmphex(AGX_META_FW_STAMP, ==, 0x0c);
    g_assert_cmphex(AGX_META_STAMP_VALUE, ==, 0x14);
    g_assert_cmphex(AGX_META_STAMP_SLOT, ==, 0x18);
    g_assert_cmphex(AGX_META_FLUSH_STAMPS, ==, 0x20);
    g_assert_cmphex(AGX_META_FLUSH_STAMPS + 3 * 4, ==, JOB_META_SIZE);

    /* Barrier: tag, pointer, 5 u32, 0x20 of padding */
    g_assert_cmphex(AGX_BARRIER_WAIT_STAMP, ==, 0x04);
    g_assert_cmphex(AGX_BARRIER_WAIT_VALUE, ==, 0x0c);
    g_assert_cmphex(AGX_BARRIER_WAIT_SLOT, ==, 0x10);
    g_assert_cmphex(AGX_BARRIER_SIZE, ==, 0x20 + 0x20);

    /* InitBuffer: 5 u32, pointer, u32 */
    g_assert_cmphex(AGX_INIT_BUFFER_SIZE, ==, 5 * 4 + 8 + 4);

    /* Event: u32 tag + 0x34; Flag: u32[4] bitmap first */
    g_assert_cmphex(AGX_EVENT_TAG, ==, 0x00);
    g_assert_cmphex(AGX_EVENT_FLAG_FIRING, ==, 0x04);
    g_assert_cmphex(AGX_EVENT_SIZE, ==, 4 + 0x34);
    g_assert_cmpint(AGX_EVENT_FLAG, ==, 1);
    g_assert_cmpint(AGX_NUM_EVENT_SLOTS, ==, 4 * 32);
    g_assert_cmpuint(AGX_EVENT_FLAG_FIRING + AGX_NUM_EVENT_SLOTS / 8, <=,
                     AGX_EVENT_SIZE);

    /* Command tags and pipe types */
    g_assert_cmpint(AGX_CMD_RUN_VERTEX, ==, 0);
    g_assert_cmpint(AGX_CMD_RUN_FRAGMENT, ==, 1);
    g_assert_cmpint(AGX_CMD_RUN_COMPUTE, ==, 3);
    g_assert_cmpint(AGX_CMD_BARRIER, ==, 4);
    g_assert_cmpint(AGX_CMD_INIT_BUFFER, ==, 6);
    g_assert_cmpint(AGX_PIPE_VERTEX, ==, 0);
    g_assert_cmpint(AGX_PIPE_FRAGMENT, ==, 1);
    g_assert_cmpint(AGX_PIPE_COMPUTE, ==, 2);
}

static void test_unknown_version(void)
{
    g_assert_null(agx_job_abi_get(AGX_FW_NUM_VERSIONS));
    g_assert_null(agx_job_abi_get(AGX_FW_NUM_VERSIONS + 1));
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        GTestDataFunc fn;
    } per_version[] = {
        { "run-records", test_run_records },
        { "finalize", test_finalize },
        { "op-sizes", test_op_sizes },
        { "timestamp-queue-info", test_timestamp_and_queue_info },
        { "sanity", test_sanity },
    };

    g_test_init(&argc, &argv, NULL);
    for (size_t v = 0; v < G_N_ELEMENTS(expect); v++) {
        const char *ver = expect[v].version == AGX_FW_V12_3 ? "12.3"
                                                             : "13.5";

        for (size_t t = 0; t < G_N_ELEMENTS(per_version); t++) {
            g_autofree char *path = g_strdup_printf("/job-abi/%s/%s", ver,
                                                    per_version[t].name);

            g_test_add_data_func(path, &expect[v], per_version[t].fn);
        }
    }
    g_test_add_func("/job-abi/version-deltas", test_version_deltas);
    g_test_add_func("/job-abi/common-layouts", test_common_layouts);
    g_test_add_func("/job-abi/unknown-version", test_unknown_version);
    return g_test_run();
}
