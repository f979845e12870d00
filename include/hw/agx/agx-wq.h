/*
 * AGX firmware work queues: job scheduling, stamps and completion events
 *
 * The driver appends command records to per-queue rings and announces
 * them with RunWorkQueue messages on the 12 pipe channels.  The firmware
 * serves each pipe type (vertex, fragment, compute) with one hardware unit:
 * one job at a time per pipe, pipes in parallel, queues strictly in order,
 * higher priorities first.  A job's GPU work takes a configurable virtual
 * time; its microsequence (agx-useq.h) writes the stamps, and retired
 * commands are reported with Flag events.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_WQ_H
#define HW_AGX_AGX_WQ_H

#include <stdbool.h>
#include <stdint.h>

typedef struct AgxFw AgxFw;

#define AGX_MAX_QUEUES          128
#define AGX_NUM_PIPES           3
/* How soon to retry Flag events the full event ring refused */
#define AGX_WQ_EVENT_RETRY_NS   100000
/*
 * Work-queue entries one scheduling pass may examine before it yields the
 * main loop; the rest continues AGX_WQ_YIELD_NS of firmware time later
 */
#define AGX_WQ_BUDGET           256
#define AGX_WQ_YIELD_NS         1000

/* Only AGX_QUEUE_READY queues are picked for scheduling */
typedef enum AgxQueueWait {
    AGX_QUEUE_READY,
    /*
     * Waiting for another queue's stamp: looked at again only when the
     * firmware writes that word, or on a pipe doorbell
     */
    AGX_QUEUE_BARRIER,
    AGX_QUEUE_RUNNING,          /* its job is on a pipe */
    AGX_QUEUE_FAULTED,          /* its job was running at a halt */
    AGX_QUEUE_CHANNEL_ERROR,    /* waiting for the driver's RecoverChannel */
} AgxQueueWait;

/* A work queue the firmware is serving; info_va == 0: free entry */
typedef struct AgxQueue {
    uint64_t info_va;           /* QueueInfo */
    uint64_t state_va;          /* RingState */
    uint64_t ring_va;
    uint64_t gpu_context;
    uint64_t seq;               /* order of the last RunWorkQueue */
    uint32_t pipe;
    uint32_t prio;
    uint32_t rptr;              /* next entry to process */
    uint32_t wptr;              /* end of the announced work */
    uint32_t event_slot;
    uint32_t wait;              /* AgxQueueWait */
    uint64_t barrier_va;        /* the u32 a blocked Barrier waits on */
} AgxQueue;

/* One hardware unit (pipe type) and the job it runs */
typedef struct AgxPipe {
    bool busy;
    uint32_t queue;             /* index into the queue table */
    uint64_t cmd_va;            /* the Run* record */
    uint64_t useq_va;           /* its microsequence */
    uint32_t useq_size;
    uint32_t useq_pos;          /* next op */
    uint32_t vm_slot;
    bool started;               /* its Start op ran */
    bool waited;                /* its GPU work is over */
    bool hung;                  /* injected hang: done_at is the watchdog */
    int64_t done_at;            /* virtual ns the GPU work ends */
} AgxPipe;

/* A RunWorkQueue message arrived on pipe channel @chan */
void agx_wq_run_msg(AgxFw *fw, unsigned chan, const uint8_t *msg);
/*
 * Run whatever can run, at most AGX_WQ_BUDGET entries; arm the timer for
 * the next job end (or to go on after AGX_WQ_YIELD_NS)
 */
void agx_wq_schedule(AgxFw *fw);
/* Event slot @slot retired: report it with the next Flag event */
void agx_wq_fire(AgxFw *fw, unsigned slot);
/* The firmware wrote [va, va + len): wake the Barriers waiting on it */
void agx_wq_note_write(AgxFw *fw, uint64_t va, uint64_t len);
/* Look at every blocked Barrier again (the driver may have written) */
void agx_wq_wake_barriers(AgxFw *fw);
/* The firmware timer fired */
void agx_wq_timer(AgxFw *fw);
/* DeviceControl DestroyContext: forget every queue of @gpu_context */
void agx_wq_destroy_context(AgxFw *fw, uint64_t gpu_context);
/*
 * The command @q is on failed (fault, timeout, channel error) and the
 * driver has seen it: write its stamps, report its slot, move on
 */
void agx_wq_retire_failed(AgxFw *fw, AgxQueue *q);
/* Stop everything (firmware stop or crash) */
void agx_wq_reset(AgxFw *fw);

#endif
