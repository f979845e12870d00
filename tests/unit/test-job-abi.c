/*
 * Unit tests for the runtime firmware ABI tables (agx-job-abi)
 *
 * The tables are generated from core/agx-structs.def, whose field lists
 * already carry every offset and whose size lines fail the build when a
 * structure's size disagrees with the driver's.  What is left to test
 * here are invariants, not restated numbers:
 *  - the model agrees with the test side's own layouts, which the qtests
 *    use to play the driver and which were written down independently,
 *    from the driver's structures (tests/lib/agx/agx-cmd.c);
 *  - the fields the driver's code names lie inside their structures, in
 *    the order the driver's structures give them;
 *  - 12.3 differs from 13.5 by exactly the fields the driver marks
 *    #[ver(V >= V13_0B4)], V13_2 or V13_3.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-job-abi.h"
#include "hw/agx/agx-useq.h"
#include "agx-cmd.h"

#define JOB_META_SIZE   0x2c

static const AgxFwVersion versions[] = { AGX_FW_V13_5, AGX_FW_V12_3 };

static const AgxJobAbi *abi_of(gconstpointer data)
{
    const AgxJobAbi *ja = agx_job_abi_get(*(const AgxFwVersion *)data);

    g_assert_nonnull(ja);
    return ja;
}

/* The model and the test side's driver agree on every job layout */
static void test_matches_test_side(gconstpointer data)
{
    AgxFwVersion v = *(const AgxFwVersion *)data;
    const AgxJobAbi *ja = abi_of(data);
    const AgxCmdLayout *l = agx_cmd_layout(v == AGX_FW_V12_3);
    static const uint8_t start_op[3] = {
        AGX_OP_START_VERTEX, AGX_OP_START_FRAGMENT, AGX_OP_START_COMPUTE,
    };
    static const uint8_t finalize_op[3] = {
        AGX_OP_FINALIZE_VERTEX, AGX_OP_FINALIZE_FRAGMENT,
        AGX_OP_FINALIZE_COMPUTE,
    };

    for (int p = AGX_PIPE_VERTEX; p <= AGX_PIPE_COMPUTE; p++) {
        g_test_message("pipe %d", p);
        g_assert_cmphex(ja->run[p].size, ==, l->run_size[p]);
        g_assert_cmphex(ja->run[p].vm_slot, ==, l->vm_slot[p]);
        g_assert_cmphex(ja->run[p].useq_ptr, ==, l->useq_ptr[p]);
        g_assert_cmphex(ja->run[p].useq_size, ==, l->useq_size[p]);
        g_assert_cmphex(ja->run[p].meta, ==, l->meta[p]);
        g_assert_cmphex(ja->op_size[start_op[p]], ==, l->start_size[p]);
        g_assert_cmphex(ja->op_size[finalize_op[p]], ==, l->fin_size[p]);
        g_assert_cmphex(ja->finalize[p].fw_stamp, ==, l->fin_fw_stamp[p]);
        g_assert_cmphex(ja->finalize[p].stamp_value, ==, l->fin_value[p]);
    }
    g_assert_cmphex(ja->op_size[AGX_OP_TIMESTAMP], ==, l->ts_size);
    g_assert_cmphex(ja->queue_info_size, ==, l->qi_size);
    g_assert_cmphex(ja->qi_gpu_context, ==, l->qi_ctx);
}

/* Only the ops the driver emits for G13 are accepted */
static void test_ops_accepted(gconstpointer data)
{
    const AgxJobAbi *ja = abi_of(data);

    for (int op = 0; op < AGX_NUM_OPS; op++) {
        bool emitted = op == AGX_OP_WAIT_FOR_IDLE ||
                       op == AGX_OP_RETIRE_STAMP || op == AGX_OP_TIMESTAMP ||
                       (op >= AGX_OP_START_VERTEX &&
                        op <= AGX_OP_FINALIZE_FRAGMENT) ||
                       op == AGX_OP_START_COMPUTE ||
                       op == AGX_OP_FINALIZE_COMPUTE;

        g_test_message("opcode 0x%02x", op);
        g_assert_cmpint(ja->op_size[op] != 0, ==, emitted);
    }
    /* WaitForIdle2 is G14X only */
    g_assert_cmpuint(ja->op_size[AGX_OP_WAIT_FOR_IDLE2], ==, 0);
}

/* Layout invariants that hold for any correct table */
static void test_sanity(gconstpointer data)
{
    const AgxJobAbi *ja = abi_of(data);
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
        { "matches-test-side", test_matches_test_side },
        { "ops-accepted", test_ops_accepted },
        { "sanity", test_sanity },
    };

    g_test_init(&argc, &argv, NULL);
    for (size_t v = 0; v < G_N_ELEMENTS(versions); v++) {
        const char *ver = versions[v] == AGX_FW_V12_3 ? "12.3" : "13.5";

        for (size_t t = 0; t < G_N_ELEMENTS(per_version); t++) {
            g_autofree char *path = g_strdup_printf("/job-abi/%s/%s", ver,
                                                    per_version[t].name);

            g_test_add_data_func(path, &versions[v], per_version[t].fn);
        }
    }
    g_test_add_func("/job-abi/version-deltas", test_version_deltas);
    g_test_add_func("/job-abi/common-layouts", test_common_layouts);
    g_test_add_func("/job-abi/unknown-version", test_unknown_version);
    return g_test_run();
}
