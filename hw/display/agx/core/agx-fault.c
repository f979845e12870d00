/*
 * AGX firmware faults, timeouts and the halt/resume handshake
 *
 * The pending-stamp list holds one entry per pipe while a job runs on it
 * (the real firmware's bookkeeping is not documented; the driver only
 * reads valid entries after a fault or timeout and fails exactly those
 * commands, so listing the running jobs is what it needs).  A halt stops
 * every pipe; after the driver's resume the commands that were running
 * retire without their GPU work (their stamps are written, their slots
 * flagged): the driver has marked them in error and completes them only
 * when their stamps arrive.  A render's fragment command, behind a Barrier
 * on the faulted vertex command, then runs as usual.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-fault.h"
#include "hw/agx/agx-services.h"

/* Globals.pending_stamps[pipe]: {flags, stamp value} */
#define PENDING_STAMP_FLAGS     0
#define PENDING_STAMP_VALUE     4
#define PENDING_STAMP_VALID     1u
#define PENDING_STAMP_SLOT_MASK 0x7f

/*
 * The unit FAULT_INFO names for an injected fault, by pipe: a unit of that
 * pipe's data master (drm/asahi regs.rs FaultUnit, m1n1 hw/agx.py): VDM0,
 * ZLS0 (depth/stencil loads), dCDM_KS0.  The driver passes it to userspace.
 */
static const uint8_t agx_fault_unit[AGX_NUM_PIPES] = {
    [AGX_PIPE_VERTEX] = 0x08,
    [AGX_PIPE_FRAGMENT] = 0x0e,
    [AGX_PIPE_COMPUTE] = 0xa2,
};

static const uint32_t agx_watchdog_ms[AGX_NUM_PIPES] = {
    [AGX_PIPE_VERTEX] = AGX_WATCHDOG_VERTEX_MS,
    [AGX_PIPE_FRAGMENT] = AGX_WATCHDOG_FRAG_MS,
    [AGX_PIPE_COMPUTE] = AGX_WATCHDOG_COMP_MS,
};

static uint64_t pending_stamp_va(AgxFw *fw, unsigned pipe_type)
{
    return fw->globals_va + fw->abi->gl_pending_stamps + 8 * pipe_type;
}

bool agx_fault_job_retired(AgxFw *fw, unsigned pipe_type)
{
    return agx_fw_st64(fw, pending_stamp_va(fw, pipe_type), 0,
                       "Globals.pending_stamps");
}

/*
 * QueueInfo.error_count: the commands of the queue that ended in an error
 * (a fault, a timeout, a channel error).  drm/asahi only prints it in its
 * debug dump; its meaning is a guess from its name.
 */
static bool agx_fault_count_error(AgxFw *fw, AgxQueue *q)
{
    uint64_t va = q->info_va + fw->job_abi->qi_error_count;
    uint32_t count;

    return agx_fw_ld32(fw, va, &count, "QueueInfo") &&
           agx_fw_st32(fw, va, count + 1, "QueueInfo");
}

/*
 * Globals.fault_info: the firmware's own record of the faulting queue,
 * which m1n1 prints and drm/asahi does not read.  Only queue_uuid has a
 * known meaning; the model fills that from the QueueInfo.
 */
static bool agx_fault_note_queue(AgxFw *fw, AgxQueue *q)
{
    uint8_t rec[AGX_GL_FAULT_INFO_SIZE] = { 0 };
    uint32_t uuid;

    if (!agx_fault_count_error(fw, q) ||
        !agx_fw_ld32(fw, q->info_va + AGX_QI_UUID, &uuid, "QueueInfo")) {
        return false;
    }
    apple_st32(rec + AGX_GL_FAULT_INFO_QUEUE_UUID, uuid);
    return agx_fw_write(fw, fw->globals_va + fw->abi->gl_fault_info, rec,
                        sizeof(rec), "Globals.fault_info");
}

/* Stop every pipe, tell the driver with @event, wait for its resume */
static bool agx_fault_halt(AgxFw *fw, const uint8_t *event)
{
    bool posted;

    for (int p = 0; p < AGX_NUM_PIPES; p++) {
        AgxPipe *pipe = &fw->pipes[p];

        if (pipe->busy) {
            fw->queues[pipe->queue].wait = AGX_QUEUE_FAULTED;
            pipe->busy = false;
        }
    }
    fw->halted = true;
    fw->halt_count++;
    AGX_TRACE(&fw->trace, fault_halt, fw->halt_count);
    agx_fault_arm_resume_poll(fw);
    if (!agx_fw_st64(fw, fw->fw_status_va + AGX_FWS_HALT_COUNT,
                     fw->halt_count, "FwStatus") ||
        !agx_fw_st32(fw, fw->fw_status_va + AGX_FWS_HALTED, 1, "FwStatus")) {
        return false;
    }
    posted = agx_fw_post_event(fw, event, "reporting an error");
    return agx_fw_log(fw, AGX_FWLOG_ERR, "halted (%s), halt count %"
                      G_GINT64_MODIFIER "u",
                      apple_ld32(event + AGX_EVENT_TAG) == AGX_EVENT_FAULT ?
                      "GPU fault" : "timeout", fw->halt_count) && posted;
}

/* A read of an unmapped page of the job's own VM, by a unit of its pipe */
static bool agx_fault_gpu_fault(AgxFw *fw, unsigned pipe_type, AgxPipe *p)
{
    uint8_t ev[AGX_EVENT_SIZE] = { 0 };
    bool noted;
    AgxUatFault fault = {
        .va = AGX_FAULT_INJECT_VA,
        .slot = p->vm_slot,
        .reason = AGX_UAT_FAULT_UNMAPPED,
        .level = AGX_UAT_LEVELS - 1,
    };

    fw->fault_info = agx_uat_fault_info(&fault, agx_fault_unit[pipe_type]);
    AGX_TRACE(&fw->trace, fault_inject, "gpu-fault", pipe_type, p->cmd_va);
    /* The halt goes on without the record: the pipes must stop */
    noted = agx_fault_note_queue(fw, &fw->queues[p->queue]);
    apple_st32(ev + AGX_EVENT_TAG, AGX_EVENT_FAULT);
    AGX_TRACE(&fw->trace, event_fault, fw->fault_info);
    return agx_fault_halt(fw, ev) && noted;
}

/*
 * Only this queue stops: the job is dropped, the driver fails its command
 * and answers with RecoverChannel.  No halt.
 */
static bool agx_fault_channel_error(AgxFw *fw, unsigned pipe_type,
                                    AgxPipe *p, uint32_t slot,
                                    uint32_t value)
{
    uint8_t ev[AGX_EVENT_SIZE] = { 0 };
    bool cleared;

    p->busy = false;
    fw->queues[p->queue].wait = AGX_QUEUE_CHANNEL_ERROR;
    cleared = agx_fault_job_retired(fw, pipe_type) &&
              agx_fault_count_error(fw, &fw->queues[p->queue]);
    apple_st32(ev + AGX_EVENT_TAG, AGX_EVENT_CHANNEL_ERROR);
    apple_st32(ev + AGX_EVENT_CHANNEL_ERROR_TYPE, AGX_CHANNEL_ERROR_MEMORY);
    apple_st32(ev + AGX_EVENT_CHANNEL_ERROR_PIPE, pipe_type);
    apple_st32(ev + AGX_EVENT_CHANNEL_ERROR_SLOT, slot);
    apple_st32(ev + AGX_EVENT_CHANNEL_ERROR_VALUE, value);
    AGX_TRACE(&fw->trace, fault_inject, "channel-error", pipe_type,
              p->cmd_va);
    AGX_TRACE(&fw->trace, event_channel_error, AGX_CHANNEL_ERROR_MEMORY,
              pipe_type, slot, value);
    return agx_fw_post_event(fw, ev, "reporting an error") && cleared;
}

bool agx_fault_job_started(AgxFw *fw, unsigned pipe_type, AgxPipe *p)
{
    const AgxRunLayout *run = &fw->job_abi->run[pipe_type];
    uint8_t meta[AGX_META_SIZE], entry[8];
    uint32_t slot, value;

    if (!agx_fw_read(fw, p->cmd_va + run->meta, meta, sizeof(meta),
                     "JobMeta")) {
        return false;
    }
    slot = apple_ld32(meta + AGX_META_STAMP_SLOT) & PENDING_STAMP_SLOT_MASK;
    value = apple_ld32(meta + AGX_META_STAMP_VALUE);
    apple_st32(entry + PENDING_STAMP_FLAGS, PENDING_STAMP_VALID |
               slot << fw->abi->pending_stamp_slot_shift);
    apple_st32(entry + PENDING_STAMP_VALUE, value);
    if (!agx_fw_write(fw, pending_stamp_va(fw, pipe_type), entry,
                      sizeof(entry), "Globals.pending_stamps")) {
        return false;
    }

    switch (fw->inject) {
    case AGX_INJECT_GPU_FAULT:
        fw->inject = AGX_INJECT_NONE;
        return agx_fault_gpu_fault(fw, pipe_type, p);
    case AGX_INJECT_CHANNEL_ERROR:
        fw->inject = AGX_INJECT_NONE;
        return agx_fault_channel_error(fw, pipe_type, p, slot, value);
    case AGX_INJECT_TIMEOUT:
        fw->inject = AGX_INJECT_NONE;
        p->hung = true;
        p->done_at = fw->ops->now_ns(fw->opaque) +
                     agx_watchdog_ms[pipe_type] * 1000000LL;
        AGX_TRACE(&fw->trace, fault_inject, "timeout", pipe_type, p->cmd_va);
        return true;
    default:
        return true;
    }
}

bool agx_fault_watchdog_due(AgxFw *fw, unsigned pipe_type, int64_t now)
{
    AgxPipe *p = &fw->pipes[pipe_type];

    return p->busy && p->hung && p->done_at <= now;
}

bool agx_fault_timeout(AgxFw *fw, unsigned pipe_type)
{
    const AgxRunLayout *run = &fw->job_abi->run[pipe_type];
    AgxPipe *p = &fw->pipes[pipe_type];
    uint8_t ev[AGX_EVENT_SIZE] = { 0 };
    uint32_t slot;
    bool noted;

    if (!agx_fw_ld32(fw, p->cmd_va + run->meta + AGX_META_STAMP_SLOT, &slot,
                     "JobMeta")) {
        return false;
    }
    /*
     * The counter is the halt this timeout causes: m1n1 drops a Timeout
     * whose counter is below the halt count it last recovered from
     */
    fw->timeout_count++;
    apple_st32(ev + AGX_EVENT_TAG, AGX_EVENT_TIMEOUT);
    apple_st32(ev + AGX_EVENT_TIMEOUT_COUNTER, fw->halt_count + 1);
    apple_st32(ev + AGX_EVENT_TIMEOUT_SLOT, slot);
    AGX_TRACE(&fw->trace, fault_watchdog, pipe_type, p->cmd_va);
    AGX_TRACE(&fw->trace, event_timeout, fw->halt_count + 1, slot);
    noted = agx_fault_note_queue(fw, &fw->queues[p->queue]);
    return agx_fault_halt(fw, ev) && noted;
}

void agx_fault_arm_resume_poll(AgxFw *fw)
{
    fw->ops->timer_mod(fw->opaque, fw->ops->now_ns(fw->opaque) +
                       AGX_FAULT_RESUME_POLL_NS);
}

bool agx_fault_resume_requested(AgxFw *fw)
{
    uint32_t resume;

    if (!fw->halted ||
        !agx_fw_ld32(fw, fw->fw_status_va + AGX_FWS_RESUME, &resume,
                     "FwStatus") || !resume ||
        !agx_fw_st32(fw, fw->fw_status_va + AGX_FWS_RESUME, 0, "FwStatus")) {
        return false;
    }
    fw->halted = false;
    fw->fault_info = 0;
    return true;
}

bool agx_fault_resume_done(AgxFw *fw)
{
    bool cleared = true;

    /* Every entry, even after a failed one, as a real walk over them */
    for (int p = 0; p < AGX_NUM_PIPES; p++) {
        cleared = agx_fault_job_retired(fw, p) && cleared;
    }
    AGX_TRACE(&fw->trace, fault_resume, fw->halt_count);
    return agx_fw_log(fw, AGX_FWLOG_NOTICE, "resumed after halt %"
                      G_GINT64_MODIFIER "u", fw->halt_count) && cleared;
}
