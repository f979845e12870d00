/*
 * AGX G13 firmware ABI tables, runtime part (12.3 and 13.5)
 *
 * 13.5 values from drm/asahi fw/{vertex,fragment,compute,microseq,
 * workqueue}.rs as summarised in the project's reference notes and checked
 * against m1n1's fw/agx/{cmdqueue,microsequence}.py sizes.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-job-abi.h"

static const AgxJobAbi agx_job_abis[AGX_FW_NUM_VERSIONS] = {
    [AGX_FW_V13_5] = {
        .run = {
            [AGX_PIPE_VERTEX] = { 0x608, 0x0c, 0x474, 0x47c, 0x56c },
            [AGX_PIPE_FRAGMENT] = { 0x96c, 0x0c, 0x14, 0x1c, 0x8d0 },
            [AGX_PIPE_COMPUTE] = { 0x31c, 0x10, 0x1f0, 0x1f8, 0x284 },
        },
        .finalize = {
            [AGX_PIPE_VERTEX] = { 0x3c, 0x44 },
            [AGX_PIPE_FRAGMENT] = { 0x0c, 0x14 },
            [AGX_PIPE_COMPUTE] = { 0x28, 0x30 },
        },
        .op_size = {
            [AGX_OP_WAIT_FOR_IDLE] = 0x4,
            [AGX_OP_RETIRE_STAMP] = 0x4,
            [AGX_OP_TIMESTAMP] = 0x3c,
            [AGX_OP_START_VERTEX] = 0x18c,
            [AGX_OP_FINALIZE_VERTEX] = 0x84,
            [AGX_OP_START_FRAGMENT] = 0x1ac,
            [AGX_OP_FINALIZE_FRAGMENT] = 0xb4,
            [AGX_OP_START_COMPUTE] = 0x16c,
            [AGX_OP_FINALIZE_COMPUTE] = 0x7c,
        },
        .ts_cur_ts = 0x04,
        .ts_update_ts = 0x14,
        .queue_info_size = 0xb8,
        .qi_gpu_context = 0xa4,
    },
    [AGX_FW_V12_3] = {
        /* TODO(12.3): verified offsets; these are 13.5's where unknown */
        .run = {
            [AGX_PIPE_VERTEX] = { 0x608, 0x0c, 0x474, 0x47c, 0x56c },
            [AGX_PIPE_FRAGMENT] = { 0x96c, 0x0c, 0x14, 0x1c, 0x8d0 },
            [AGX_PIPE_COMPUTE] = { 0x31c, 0x10, 0x1f0, 0x1f8, 0x284 },
        },
        .finalize = {
            [AGX_PIPE_VERTEX] = { 0x3c, 0x44 },
            [AGX_PIPE_FRAGMENT] = { 0x0c, 0x14 },
            [AGX_PIPE_COMPUTE] = { 0x2c, 0x34 },
        },
        .op_size = {
            [AGX_OP_WAIT_FOR_IDLE] = 0x4,
            [AGX_OP_RETIRE_STAMP] = 0x4,
            [AGX_OP_TIMESTAMP] = 0x34,
            [AGX_OP_START_VERTEX] = 0x18c,
            [AGX_OP_FINALIZE_VERTEX] = 0x84,
            [AGX_OP_START_FRAGMENT] = 0x1ac,
            [AGX_OP_FINALIZE_FRAGMENT] = 0xb4,
            [AGX_OP_START_COMPUTE] = 0x16c,
            [AGX_OP_FINALIZE_COMPUTE] = 0x80,
        },
        .ts_cur_ts = 0x04,
        .ts_update_ts = 0x14,
        .queue_info_size = 0xb0,
        .qi_gpu_context = 0xa4,
    },
};

const AgxJobAbi *agx_job_abi_get(AgxFwVersion version)
{
    return version < AGX_FW_NUM_VERSIONS ? &agx_job_abis[version] : NULL;
}
