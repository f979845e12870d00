/*
 * AGX firmware work queues: job scheduling, stamps and completion events
 *
 * The driver appends command records to per-queue rings and announces
 * them with RunWorkQueue messages on the 12 pipe channels.  The firmware
 * serves each pipe type (vertex, fragment, compute) with one hardware unit:
 * one job at a time per pipe, pipes in parallel, queues strictly in order,
 * higher priorities first.  A job's GPU work takes a configurable virtual
 * time; its microsequence (agx-useq.h) writes the stamps, and retired
 * commands are reported with Flag events.  The work queues own the queues
 * and the pipes: they call the microsequences and the faults below them
 * (a job started, retired, timed out) and the driver's recovery comes to
 * them from the dispatcher (resume after a halt, RecoverChannel).
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
#include "hw/agx/agx-fw-state.h"

/* How soon to retry Flag events the full event ring refused */
#define AGX_WQ_EVENT_RETRY_NS   100000
/*
 * Work-queue entries one scheduling pass may examine before it yields the
 * main loop; the rest continues AGX_WQ_YIELD_NS of firmware time later
 */
#define AGX_WQ_BUDGET           256
#define AGX_WQ_YIELD_NS         1000
/*
 * Rounds of one firmware timer tick that finish jobs which, started in
 * the place of the ones due, ended by the GPU's clock before the tick
 */
#define AGX_WQ_CATCH_UP         64

/* A RunWorkQueue message arrived on pipe channel @chan */
void agx_wq_run_msg(AgxFw *fw, unsigned chan, const uint8_t *msg);
/*
 * Run whatever can run, at most AGX_WQ_BUDGET entries; arm the timer for
 * the next job end (or to go on after AGX_WQ_YIELD_NS)
 */
void agx_wq_schedule(AgxFw *fw);
/* Event slot @slot retired: report it with the next Flag event */
void agx_wq_fire(AgxFw *fw, unsigned slot);
/*
 * The firmware wrote [va, va + len): wake the Barriers waiting on it.
 * The services call it for every write, as AgxFw.note_write.
 */
void agx_wq_note_write(AgxFw *fw, uint64_t va, uint64_t len);
/* Look at every blocked Barrier again (the driver may have written) */
void agx_wq_wake_barriers(AgxFw *fw);
/* The firmware timer fired */
void agx_wq_timer(AgxFw *fw);
/* DeviceControl DestroyContext: forget every queue of @gpu_context */
void agx_wq_destroy_context(AgxFw *fw, uint64_t gpu_context);

/*
 * The GPU contexts the firmware has seen queues of and not been told to
 * destroy (a queue may be forgotten while idle; its context is not)
 */
unsigned agx_wq_live_contexts(const AgxFw *fw);
/*
 * Check for the driver's resume after a halt (agx-fault.h); true if the
 * firmware runs (again), in which case the commands the halt caught have
 * retired without their GPU work; false if still halted or crashed
 */
bool agx_wq_resume(AgxFw *fw);
/* DeviceControl RecoverChannel: restart the work queue at @work_queue */
void agx_wq_recover_channel(AgxFw *fw, uint64_t work_queue);
/* Stop everything (firmware stop or crash) */
void agx_wq_reset(AgxFw *fw);

#endif
