/*
 * AGX G13 firmware ABIs, runtime part: work queues, command records,
 * microsequence ops, events
 *
 * One table per firmware version, like agx-abi.h; generic code looks up
 * every offset and size here.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_JOB_ABI_H
#define HW_AGX_AGX_JOB_ABI_H

#include <stdint.h>
#include "hw/agx/agx-abi.h"

/* Command record tags (first u32 of a work queue entry) */
enum {
    AGX_CMD_RUN_VERTEX = 0,
    AGX_CMD_RUN_FRAGMENT = 1,
    AGX_CMD_RUN_BLITTER = 2,
    AGX_CMD_RUN_COMPUTE = 3,
    AGX_CMD_BARRIER = 4,
    AGX_CMD_INIT_BUFFER = 6,
};

/* Pipe types, as in RunWorkQueue and doorbells */
enum {
    AGX_PIPE_VERTEX = 0,
    AGX_PIPE_FRAGMENT = 1,
    AGX_PIPE_COMPUTE = 2,
};

/* Microsequence opcodes (low 6 bits of an op's header) */
enum {
    AGX_OP_WAIT_FOR_IDLE = 0x01,
    AGX_OP_WAIT_FOR_IDLE2 = 0x02,
    AGX_OP_RETIRE_STAMP = 0x18,
    AGX_OP_TIMESTAMP = 0x19,
    AGX_OP_START_VERTEX = 0x22,
    AGX_OP_FINALIZE_VERTEX = 0x23,
    AGX_OP_START_FRAGMENT = 0x24,
    AGX_OP_FINALIZE_FRAGMENT = 0x25,
    AGX_OP_START_COMPUTE = 0x29,
    AGX_OP_FINALIZE_COMPUTE = 0x2a,
    AGX_NUM_OPS = 0x40,
};

/* One Run* command record type */
typedef struct AgxRunLayout {
    uint32_t size;
    uint32_t vm_slot;
    uint32_t useq_ptr;          /* u64 microsequence VA */
    uint32_t useq_size;         /* u32 bytes */
    uint32_t meta;              /* JobMeta */
} AgxRunLayout;

/* A Finalize op: where the firmware stamp and its value are */
typedef struct AgxFinalizeLayout {
    uint32_t fw_stamp;          /* u64 VA */
    uint32_t stamp_value;       /* u32 */
} AgxFinalizeLayout;

typedef struct AgxJobAbi {
    AgxRunLayout run[4];        /* by pipe type; [AGX_PIPE_*], 3 = unused */
    AgxFinalizeLayout finalize[3];      /* by pipe type */
    uint32_t op_size[AGX_NUM_OPS];      /* 0 = the firmware rejects it */
    /*
     * Timestamp op: u64 VA of the command's time slot; u64 VAs of two
     * {start, end} pairs of result VAs (the driver's TimestampPointers:
     * kernel, then user); header bit 31 picks start or end
     */
    uint32_t ts_cur_ts;
    uint32_t ts_pointers;
    uint32_t ts_user_pointers;
    uint32_t queue_info_size;
    uint32_t qi_gpu_context;
    /* QueueInfo words the firmware keeps for the driver's debug dump */
    uint32_t qi_error_count;
    uint32_t qi_pending;
    /* Scene: u64 Stats VA, u32 total page count */
    uint32_t scene_stats;
    uint32_t scene_total_pages;
    /* The TVB manager's buffer::Info: u32 block count, u64 BlockControl VA */
    uint32_t bi_block_count;
    uint32_t bi_block_ctl;
    /* ... and its u64 page list VA (u32 page numbers, VA >> 15) */
    uint32_t bi_page_list;
} AgxJobAbi;

const AgxJobAbi *agx_job_abi_get(AgxFwVersion version);

/*
 * Layouts that are the same on every G13 ABI, by the model's short names
 * (the generated AGX_<STRUCT>_<FIELD> exist only where every ABI agrees).
 * AGX_BARRIER_*, AGX_INIT_BUFFER_SIZE and the event tags AGX_EVENT_FLAG,
 * _FAULT, _TIMEOUT, _CHANNEL_ERROR are generated under those names.
 */
enum {
    /* RunWorkQueue pipe message */
    AGX_RWQ_PIPE_TYPE = AGX_RUN_WORK_QUEUE_MSG_PIPE_TYPE,
    AGX_RWQ_WORK_QUEUE = AGX_RUN_WORK_QUEUE_MSG_WORK_QUEUE, /* unaligned */
    AGX_RWQ_WPTR = AGX_RUN_WORK_QUEUE_MSG_WPTR,
    AGX_RWQ_EVENT_SLOT = AGX_RUN_WORK_QUEUE_MSG_EVENT_SLOT,
    AGX_RWQ_IS_NEW = AGX_RUN_WORK_QUEUE_MSG_IS_NEW,
    /* QueueInfo */
    AGX_QI_STATE = AGX_QUEUE_INFO_STATE,
    AGX_QI_RING = AGX_QUEUE_INFO_RING,
    AGX_QI_GPU_RPTR1 = AGX_QUEUE_INFO_GPU_RPTR1,  /* u32 x 3 */
    AGX_QI_UUID = AGX_QUEUE_INFO_UUID,
    AGX_QI_BUSY = AGX_QUEUE_INFO_BUSY,
    AGX_QI_EVENT_ID = AGX_QUEUE_INFO_EVENT_ID,  /* i32, -1: none */
    AGX_QI_MAX_SIZE = 0xc0,             /* >= queue_info_size of any ABI */
    /* RingState: each field in its own 16-byte cell */
    AGX_RS_GPU_DONEPTR = AGX_RING_STATE_GPU_DONEPTR,
    AGX_RS_GPU_RPTR = AGX_RING_STATE_GPU_RPTR,
    AGX_RS_CPU_WPTR = AGX_RING_STATE_CPU_WPTR,
    AGX_RS_RB_SIZE = AGX_RING_STATE_RB_SIZE,
    AGX_WQ_RING_SIZE = 0x500,           /* the model's ring, not an ABI */
    /* JobMeta */
    AGX_META_STAMP = AGX_JOB_META_STAMP,        /* u64 VA of the stamp */
    AGX_META_FW_STAMP = AGX_JOB_META_FW_STAMP,
    AGX_META_STAMP_VALUE = AGX_JOB_META_STAMP_VALUE,
    AGX_META_STAMP_SLOT = AGX_JOB_META_STAMP_SLOT,
    AGX_META_FLUSH_STAMPS = AGX_JOB_META_FLUSH_STAMPS,
    AGX_META_SIZE = AGX_JOB_META_SIZE,
    /* Globals.fault_info (packed) */
    AGX_GL_FAULT_INFO_QUEUE_UUID = AGX_FAULT_INFO_QUEUE_UUID,
    AGX_GL_FAULT_INFO_SIZE = AGX_FAULT_INFO_SIZE,
    /* Event ring message */
    AGX_EVENT_TAG = AGX_EVENT_FLAG_MSG_TAG,
    AGX_EVENT_FLAG_FIRING = AGX_EVENT_FLAG_MSG_FIRING, /* bit n = slot n */
    AGX_EVENT_SIZE = AGX_EVENT_FLAG_MSG_SIZE,
    /* Timeout event */
    AGX_EVENT_TIMEOUT_COUNTER = AGX_EVENT_TIMEOUT_MSG_COUNTER, /* its halt */
    AGX_EVENT_TIMEOUT_SLOT = AGX_EVENT_TIMEOUT_MSG_EVENT_SLOT,
    /* ChannelError event */
    AGX_EVENT_CHANNEL_ERROR_TYPE = AGX_EVENT_CHANNEL_ERROR_MSG_ERROR_TYPE,
    AGX_EVENT_CHANNEL_ERROR_PIPE = AGX_EVENT_CHANNEL_ERROR_MSG_PIPE_TYPE,
    AGX_EVENT_CHANNEL_ERROR_SLOT = AGX_EVENT_CHANNEL_ERROR_MSG_EVENT_SLOT,
    AGX_EVENT_CHANNEL_ERROR_VALUE = AGX_EVENT_CHANNEL_ERROR_MSG_EVENT_VALUE,
    AGX_NUM_EVENT_SLOTS = 128,
};

#endif
