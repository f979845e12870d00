/*
 * AGX G13 firmware ABI tables, runtime part (12.3 and 13.5)
 *
 * Every number is a byte offset or size of the drm/asahi driver's
 * #[repr(C)] firmware structures, laid out for G = G13 and V = V12_3 or
 * V13_5 (fields marked #[ver(...)] counted only where the condition holds;
 * U32, U64, GpuPointer and GpuWeakPointer are 1-aligned, u16/u32 fields
 * naturally aligned).  Source: ah-/kernel-asahi at commit 2cf78974b257,
 * drivers/gpu/drm/asahi/fw/; the newer vertex.rs/fragment.rs
 * (jannau/linux add95983eef1), compute.rs (herrnst/linux-asahi
 * 0aa73b0d547a), microseq.rs (herrnst efa808b78434) and workqueue.rs
 * (herrnst 881a8b672c7c) rename or regroup fields without moving any of
 * the ones below.  Cross-checked against m1n1's construct definitions
 * (AsahiLinux/m1n1 7c7716b6, proxyclient/m1n1/fw/agx/{cmdqueue,
 * microsequence}.py) loaded with AGX_FWVER=V12_3 and V13_5.
 *
 * The layouts agx-job-abi.h keeps as plain enums (RunWorkQueueMsg,
 * QueueInfo head, RingState, JobMeta, Barrier, InitBuffer, the Flag event)
 * come out the same for G13 at 12.3 and 13.5 in the same sources
 * (fw/channels.rs, fw/workqueue.rs, fw/job.rs, fw/buffer.rs): no #[ver]
 * field precedes or is part of them, except RunWorkQueueMsg's padding,
 * which only differs on G14.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-job-abi.h"

#define RUN(sz, vm, useq, useq_sz, meta_off) \
    { .size = (sz), .vm_slot = (vm), .useq_ptr = (useq), \
      .useq_size = (useq_sz), .meta = (meta_off) }

#define FIN(stamp, value) { .fw_stamp = (stamp), .stamp_value = (value) }

static const AgxJobAbi agx_job_abis[AGX_FW_NUM_VERSIONS] = {
    [AGX_FW_V13_5] = {
        /*
         * fw/vertex.rs RunVertex, fw/fragment.rs RunFragment,
         * fw/compute.rs RunCompute: all three start with the u32 tag and,
         * from 13.0b4 on, a U64 counter.
         */
        .run = {
            [AGX_PIPE_VERTEX] = RUN(0x608, 0x0c, 0x474, 0x47c, 0x56c),
            [AGX_PIPE_FRAGMENT] = RUN(0x96c, 0x0c, 0x14, 0x1c, 0x8d0),
            [AGX_PIPE_COMPUTE] = RUN(0x31c, 0x10, 0x1f0, 0x1f8, 0x284),
        },
        /* fw/microseq.rs Finalize{Vertex,Fragment,Compute} */
        .finalize = {
            [AGX_PIPE_VERTEX] = FIN(0x3c, 0x44),
            [AGX_PIPE_FRAGMENT] = FIN(0x0c, 0x14),
            [AGX_PIPE_COMPUTE] = FIN(0x28, 0x30),
        },
        /* fw/microseq.rs: the ops the driver emits for G13 */
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
        /*
         * fw/microseq.rs Timestamp: cur_ts, start_ts (the pair), update_ts
         * (never read: m1n1 puts 0xdeadbeef there), work_queue, unk_24
         * (newer drivers: user_ts_pointers)
         */
        .ts_cur_ts = 0x04,
        .ts_pointers = 0x0c,
        .ts_user_pointers = 0x24,
        /* fw/workqueue.rs QueueInfo: two extra words from 13.2 on */
        .queue_info_size = 0xb8,
        .qi_gpu_context = 0xa4,
    },
    [AGX_FW_V12_3] = {
        /*
         * No counter in any Run record.  RunFragment is 0x1c shorter
         * before its JobMeta: the counter, unk_v13_3 (13.3+) and the two
         * 13.0b4 U64s of JobParameters3 (the one of JobParameters1 is
         * made up for by padding).  RunCompute's JobParameters2 trades
         * its leading 13.0b4 word for a trailing one.
         */
        .run = {
            [AGX_PIPE_VERTEX] = RUN(0x5e0, 0x04, 0x46c, 0x474, 0x564),
            [AGX_PIPE_FRAGMENT] = RUN(0x930, 0x04, 0x0c, 0x14, 0x8b4),
            [AGX_PIPE_COMPUTE] = RUN(0x2dc, 0x08, 0x1e8, 0x1f0, 0x27c),
        },
        /* FinalizeCompute has an extra u32 before its job_params2 */
        .finalize = {
            [AGX_PIPE_VERTEX] = FIN(0x3c, 0x44),
            [AGX_PIPE_FRAGMENT] = FIN(0x0c, 0x14),
            [AGX_PIPE_COMPUTE] = FIN(0x2c, 0x34),
        },
        /*
         * The 13.0b4 tails are absent: counter and notifier_buf of the
         * Start ops (and StartCompute's unk_flag), the 0x10-byte pads of
         * the Finalize ops, unk_ts of Timestamp; 13.3's U64 in
         * StartFragment and FinalizeFragment too.
         */
        .op_size = {
            [AGX_OP_WAIT_FOR_IDLE] = 0x4,
            [AGX_OP_RETIRE_STAMP] = 0x4,
            [AGX_OP_TIMESTAMP] = 0x34,
            [AGX_OP_START_VERTEX] = 0x17c,
            [AGX_OP_FINALIZE_VERTEX] = 0x74,
            [AGX_OP_START_FRAGMENT] = 0x194,
            [AGX_OP_FINALIZE_FRAGMENT] = 0x9c,
            [AGX_OP_START_COMPUTE] = 0x154,
            [AGX_OP_FINALIZE_COMPUTE] = 0x64,
        },
        .ts_cur_ts = 0x04,
        .ts_pointers = 0x0c,
        .ts_user_pointers = 0x24,
        /* Neither 13.2 word: gpu_context moves down by 4 */
        .queue_info_size = 0xb0,
        .qi_gpu_context = 0xa0,
    },
};

const AgxJobAbi *agx_job_abi_get(AgxFwVersion version)
{
    return version < AGX_FW_NUM_VERSIONS ? &agx_job_abis[version] : NULL;
}
