/*
 * qtest library: job submission the way drm/asahi does it
 *
 * Work queues (QueueInfo, RingState, ring, GPU context), command records
 * with their microsequences (Start, Timestamp, WaitForIdle, Timestamp,
 * Finalize, Retire) and JobMeta, Barriers, RunWorkQueue messages and pipe
 * doorbells; then stamps and Flag events as the driver reads them.
 * Builds on agx-drv.h, after agx_drv_probe().
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_QTEST_AGX_AGX_JOB_H
#define TESTS_QTEST_AGX_AGX_JOB_H

#include "agx-drv.h"

#define AGX_JOB_SLOTS           128
#define AGX_JOB_CMD_BLOCKS      512
#define AGX_JOB_STAMP_STEP      0x100

enum { AGX_JOB_VERTEX, AGX_JOB_FRAGMENT, AGX_JOB_COMPUTE };

typedef struct AgxJobQueue {
    unsigned pipe;
    unsigned prio;
    unsigned slot;              /* event slot */
    uint64_t info_va;
    uint64_t state_va;
    uint64_t ring_va;
    uint64_t ctx_va;
    uint32_t wptr;
    uint32_t value;             /* stamp value of the newest command */
    bool kicked;
} AgxJobQueue;

typedef struct AgxJob {
    AgxDrv *drv;
    uint64_t stamps_va;         /* shared: what the driver reads */
    uint64_t fw_stamps_va;      /* private: Finalize / Barrier */
    uint64_t cmd_va;            /* AGX_JOB_CMD_BLOCKS blocks of 4 KiB */
    uint32_t next_block;
    uint32_t fired[AGX_JOB_SLOTS];      /* Flag count per slot */
    uint32_t flag_events;
    uint32_t fault_events;
    uint32_t timeout_events;
    uint32_t channel_error_events;
    uint32_t grow_events;
    uint8_t last_event[0x38];           /* the last that was not a Flag */
    bool ts_poison;             /* Timestamp update_ts as m1n1 fills it */
} AgxJob;

void agx_job_init(AgxJob *j, AgxDrv *d);
void agx_job_queue_init(AgxJob *j, AgxJobQueue *q, unsigned pipe,
                        unsigned prio, unsigned slot);

/*
 * Append a Run* command for @q's pipe; returns the block VA of the
 * command (timestamps at +0xf00 start, +0xf08 end).  @useq_patch, if set,
 * may change the microsequence before it is written.
 */
uint64_t agx_job_add_run(AgxJob *j, AgxJobQueue *q,
                         void (*useq_patch)(uint8_t *useq, uint32_t *size));
/* Append a Barrier: wait until @on's firmware stamp reaches @value */
void agx_job_add_barrier(AgxJob *j, AgxJobQueue *q, AgxJobQueue *on,
                         uint32_t value);
/*
 * Append an InitBuffer: bind buffer-manager slot @buffer_slot to the
 * buffer::Info at @info_va, with @blocks blocks
 */
void agx_job_add_init_buffer(AgxJob *j, AgxJobQueue *q, uint32_t buffer_slot,
                             uint32_t blocks, uint64_t info_va);
/* Announce everything appended to @q: RunWorkQueue + pipe doorbell */
void agx_job_kick(AgxJob *j, AgxJobQueue *q);

uint32_t agx_job_stamp(AgxJob *j, unsigned slot);
uint32_t agx_job_fw_stamp(AgxJob *j, unsigned slot);
uint32_t agx_job_doneptr(AgxJob *j, AgxJobQueue *q);
/* Drain the event ring; counts Flag bits per slot; returns events seen */
int agx_job_poll_events(AgxJob *j);
/* Step virtual time until @q's stamp reaches its newest value (bounded) */
bool agx_job_wait_queue(AgxJob *j, AgxJobQueue *q);

#endif
