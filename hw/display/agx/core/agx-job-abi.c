/*
 * AGX G13 firmware ABI tables, runtime part (12.3 and 13.5)
 *
 * Filled from the layouts generated from core/agx-structs.def (Run
 * records, microsequence ops, QueueInfo): no offset is written here.
 * The layouts agx-job-abi.h keeps as plain enums (RunWorkQueueMsg,
 * QueueInfo head, RingState, JobMeta, Barrier, InitBuffer, events) come
 * out the same on every ABI, so their generated AGX_<STRUCT>_<FIELD>
 * names exist.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-job-abi.h"

/* L(V, STRUCT, FIELD): the offset of FIELD in STRUCT on ABI V */
#define L(v, s, f)      AGX_ ## v ## _ ## s ## _ ## f

#define RUN(v, s) { \
    .size = L(v, s, SIZE), \
    .vm_slot = L(v, s, VM_SLOT), \
    .useq_ptr = L(v, s, MICROSEQUENCE), \
    .useq_size = L(v, s, MICROSEQUENCE_SIZE), \
    .meta = L(v, s, META), \
}

#define FIN(v, s) { \
    .fw_stamp = L(v, s, FW_STAMP), \
    .stamp_value = L(v, s, STAMP_VALUE), \
}

#define AGX_JOB_ABI(v) { \
    .run = { \
        [AGX_PIPE_VERTEX] = RUN(v, RUN_VERTEX), \
        [AGX_PIPE_FRAGMENT] = RUN(v, RUN_FRAGMENT), \
        [AGX_PIPE_COMPUTE] = RUN(v, RUN_COMPUTE), \
    }, \
    .finalize = { \
        [AGX_PIPE_VERTEX] = FIN(v, OP_FINALIZE_VERTEX), \
        [AGX_PIPE_FRAGMENT] = FIN(v, OP_FINALIZE_FRAGMENT), \
        [AGX_PIPE_COMPUTE] = FIN(v, OP_FINALIZE_COMPUTE), \
    }, \
    .op_size = { \
        [AGX_OP_WAIT_FOR_IDLE] = L(v, OP_WAIT_FOR_IDLE, SIZE), \
        [AGX_OP_RETIRE_STAMP] = L(v, OP_RETIRE_STAMP, SIZE), \
        [AGX_OP_TIMESTAMP] = L(v, OP_TIMESTAMP, SIZE), \
        [AGX_OP_START_VERTEX] = L(v, OP_START_VERTEX, SIZE), \
        [AGX_OP_FINALIZE_VERTEX] = L(v, OP_FINALIZE_VERTEX, SIZE), \
        [AGX_OP_START_FRAGMENT] = L(v, OP_START_FRAGMENT, SIZE), \
        [AGX_OP_FINALIZE_FRAGMENT] = L(v, OP_FINALIZE_FRAGMENT, SIZE), \
        [AGX_OP_START_COMPUTE] = L(v, OP_START_COMPUTE, SIZE), \
        [AGX_OP_FINALIZE_COMPUTE] = L(v, OP_FINALIZE_COMPUTE, SIZE), \
    }, \
    .ts_cur_ts = L(v, OP_TIMESTAMP, CUR_TS), \
    .ts_pointers = L(v, OP_TIMESTAMP, START_TS), \
    .ts_user_pointers = L(v, OP_TIMESTAMP, USER_TS_POINTERS), \
    .queue_info_size = L(v, QUEUE_INFO, SIZE), \
    .qi_gpu_context = L(v, QUEUE_INFO, GPU_CONTEXT), \
    .qi_error_count = L(v, QUEUE_INFO, ERROR_COUNT), \
    .qi_pending = L(v, QUEUE_INFO, PENDING), \
    .scene_stats = L(v, BUFFER_SCENE, STATS), \
    .scene_total_pages = L(v, BUFFER_SCENE, TOTAL_PAGE_COUNT), \
    .bi_block_count = L(v, BUFFER_INFO, BLOCK_COUNT), \
    .bi_block_ctl = L(v, BUFFER_INFO, BLOCK_CTL), \
    .bi_page_list = L(v, BUFFER_INFO, PAGE_LIST), \
}

/* The ops the driver emits for G13; any other op size is 0: rejected */
static const AgxJobAbi agx_job_abis[AGX_FW_NUM_VERSIONS] = {
    [AGX_FW_V13_5] = AGX_JOB_ABI(V13_5),
    [AGX_FW_V12_3] = AGX_JOB_ABI(V12_3),
};

const AgxJobAbi *agx_job_abi_get(AgxFwVersion version)
{
    return version < AGX_FW_NUM_VERSIONS ? &agx_job_abis[version] : NULL;
}
