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
} AgxJobAbi;

const AgxJobAbi *agx_job_abi_get(AgxFwVersion version);

/* Layouts that are the same on every G13 ABI */
enum {
    /* RunWorkQueue pipe message */
    AGX_RWQ_PIPE_TYPE = 0x00,
    AGX_RWQ_WORK_QUEUE = 0x04,          /* u64, unaligned */
    AGX_RWQ_WPTR = 0x0c,
    AGX_RWQ_EVENT_SLOT = 0x10,
    AGX_RWQ_IS_NEW = 0x14,
    /* QueueInfo */
    AGX_QI_STATE = 0x00,
    AGX_QI_RING = 0x08,
    AGX_QI_GPU_RPTR1 = 0x20,            /* u32 x 3 */
    AGX_QI_UUID = 0x50,
    AGX_QI_BUSY = 0x60,
    AGX_QI_MAX_SIZE = 0xc0,             /* >= queue_info_size of any ABI */
    /* RingState: each field in its own 16-byte cell */
    AGX_RS_GPU_DONEPTR = 0x00,
    AGX_RS_GPU_RPTR = 0x30,
    AGX_RS_CPU_WPTR = 0x40,
    AGX_RS_RB_SIZE = 0x50,
    AGX_WQ_RING_SIZE = 0x500,
    /* JobMeta */
    AGX_META_STAMP = 0x04,              /* u64 VA of the shared stamp */
    AGX_META_FW_STAMP = 0x0c,
    AGX_META_STAMP_VALUE = 0x14,
    AGX_META_STAMP_SLOT = 0x18,
    AGX_META_FLUSH_STAMPS = 0x20,
    AGX_META_SIZE = 0x2c,
    /* Barrier */
    AGX_BARRIER_WAIT_STAMP = 0x04,      /* u64 VA of another fw_stamp */
    AGX_BARRIER_WAIT_VALUE = 0x0c,
    AGX_BARRIER_WAIT_SLOT = 0x10,
    AGX_BARRIER_SIZE = 0x40,
    /* InitBuffer */
    AGX_INIT_BUFFER_SIZE = 0x20,
    /* Globals.fault_info (packed, 0x18 bytes) */
    AGX_GL_FAULT_INFO_QUEUE_UUID = 0x08,
    AGX_GL_FAULT_INFO_SIZE = 0x18,
    /* Event ring message */
    AGX_EVENT_TAG = 0x00,
    AGX_EVENT_FLAG_FIRING = 0x04,       /* u32[4]: bit n = event slot n */
    AGX_EVENT_SIZE = 0x38,
    AGX_EVENT_FLAG = 1,
    /* Timeout event */
    AGX_EVENT_TIMEOUT_COUNTER = 0x04,   /* the halt it causes */
    AGX_EVENT_TIMEOUT_SLOT = 0x0c,
    /* ChannelError event */
    AGX_EVENT_CHANNEL_ERROR_TYPE = 0x04,
    AGX_EVENT_CHANNEL_ERROR_PIPE = 0x08,
    AGX_EVENT_CHANNEL_ERROR_SLOT = 0x0c,
    AGX_EVENT_CHANNEL_ERROR_VALUE = 0x10,
    AGX_NUM_EVENT_SLOTS = 128,
};

#endif
