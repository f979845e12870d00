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
#include <string.h>
#include "hw/agx/agx-bits.h"
#include "hw/agx/agx-fault.h"
#include "hw/agx/agx-services.h"

#define PENDING_STAMP_VALID     1u

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

static bool fault_st32(AgxFw *fw, uint64_t va, uint32_t v, const char *what)
{
    uint8_t b[4];

    agx_st32(b, v);
    return agx_fw_write(fw, va, b, 4, what);
}

void agx_fault_job_retired(AgxFw *fw, unsigned pipe_type)
{
    uint8_t zero[8] = { 0 };

    agx_fw_write(fw, pending_stamp_va(fw, pipe_type), zero, 8,
                 "Globals.pending_stamps");
}

/* Post an error event and ring the RX doorbell */
static void agx_fault_post(AgxFw *fw, const uint8_t *event)
{
    AgxChannel *ch = &fw->ch[AGX_CH_EVENT];
    uint32_t idx = ch->fw_ptr;
    AgxUatFault fault;
    AgxChannelResult res = agx_channel_produce(ch, &fw->uat, event, &fault);

    if (res == AGX_CHANNEL_OK) {
        AGX_TRACE(&fw->trace, channel_write, ch->name, idx, agx_ld32(event));
        agx_fw_rx_doorbell(fw);
    } else if (res != AGX_CHANNEL_FULL) {
        agx_fw_crash(fw, "GPU firmware: event ring broken while reporting "
                     "an error");
    }
}

/*
 * Globals.fault_info: the firmware's own record of the faulting queue,
 * which m1n1 prints and drm/asahi does not read.  Only queue_uuid (+8)
 * has a known meaning; the model fills that from the QueueInfo.
 */
static void agx_fault_note_queue(AgxFw *fw, AgxQueue *q)
{
    uint8_t rec[AGX_GL_FAULT_INFO_SIZE] = { 0 };
    uint8_t uuid[4];

    if (!agx_fw_read(fw, q->info_va + AGX_QI_UUID, uuid, 4, "QueueInfo")) {
        return;
    }
    memcpy(rec + AGX_GL_FAULT_INFO_QUEUE_UUID, uuid, 4);
    agx_fw_write(fw, fw->globals_va + fw->abi->gl_fault_info, rec,
                 sizeof(rec), "Globals.fault_info");
}

/* Stop every pipe, tell the driver with @event, wait for its resume */
static void agx_fault_halt(AgxFw *fw, const uint8_t *event)
{
    uint8_t b[8];

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
    agx_st64(b, fw->halt_count);
    if (!agx_fw_write(fw, fw->fw_status_va + AGX_FWS_HALT_COUNT, b, 8,
                      "FwStatus") ||
        !fault_st32(fw, fw->fw_status_va + AGX_FWS_HALTED, 1, "FwStatus")) {
        return;
    }
    agx_fault_post(fw, event);
    agx_fw_log(fw, AGX_FWLOG_ERR, "halted (%s), halt count %" G_GINT64_MODIFIER
               "u", agx_ld32(event) == AGX_EVENT_FAULT ? "GPU fault" :
               "timeout", fw->halt_count);
}

void agx_fault_job_started(AgxFw *fw, unsigned pipe_type, AgxPipe *p)
{
    const AgxRunLayout *run = &fw->job_abi->run[pipe_type];
    uint8_t meta[0x2c], entry[8], ev[AGX_EVENT_SIZE] = { 0 };
    AgxUatFault fault = { 0 };
    uint32_t slot;

    if (!agx_fw_read(fw, p->cmd_va + run->meta, meta, sizeof(meta),
                     "JobMeta")) {
        return;
    }
    slot = agx_ld32(meta + AGX_META_STAMP_SLOT) & 0x7f;
    agx_st32(entry, PENDING_STAMP_VALID |
                    slot << fw->abi->pending_stamp_slot_shift);
    agx_st32(entry + 4, agx_ld32(meta + AGX_META_STAMP_VALUE));
    if (!agx_fw_write(fw, pending_stamp_va(fw, pipe_type), entry, 8,
                      "Globals.pending_stamps")) {
        return;
    }

    switch (fw->inject) {
    case AGX_INJECT_GPU_FAULT:
        fw->inject = AGX_INJECT_NONE;
        /* A read of an unmapped page of the job's own VM */
        fault.va = AGX_FAULT_INJECT_VA;
        fault.slot = p->vm_slot;
        fault.reason = AGX_UAT_FAULT_UNMAPPED;
        fault.level = 2;
        fw->fault_info = agx_uat_fault_info(&fault,
                                            agx_fault_unit[pipe_type]);
        AGX_TRACE(&fw->trace, fault_inject, "gpu-fault", pipe_type,
                  p->cmd_va);
        agx_fault_note_queue(fw, &fw->queues[p->queue]);
        agx_st32(ev, AGX_EVENT_FAULT);
        AGX_TRACE(&fw->trace, event_fault, fw->fault_info);
        agx_fault_halt(fw, ev);
        break;
    case AGX_INJECT_CHANNEL_ERROR:
        /*
         * Only this queue stops: the job is dropped, the driver fails its
         * command and answers with RecoverChannel.  No halt.
         */
        fw->inject = AGX_INJECT_NONE;
        p->busy = false;
        fw->queues[p->queue].wait = AGX_QUEUE_CHANNEL_ERROR;
        agx_fault_job_retired(fw, pipe_type);
        agx_st32(ev, AGX_EVENT_CHANNEL_ERROR);
        agx_st32(ev + 4, AGX_CHANNEL_ERROR_MEMORY);
        agx_st32(ev + 8, pipe_type);
        agx_st32(ev + 0xc, slot);
        agx_st32(ev + 0x10, agx_ld32(meta + AGX_META_STAMP_VALUE));
        AGX_TRACE(&fw->trace, fault_inject, "channel-error", pipe_type,
                  p->cmd_va);
        AGX_TRACE(&fw->trace, event_channel_error, AGX_CHANNEL_ERROR_MEMORY,
                  pipe_type, slot, agx_ld32(meta + AGX_META_STAMP_VALUE));
        agx_fault_post(fw, ev);
        break;
    case AGX_INJECT_TIMEOUT:
        fw->inject = AGX_INJECT_NONE;
        p->hung = true;
        p->done_at = fw->ops->now_ns(fw->opaque) +
                     agx_watchdog_ms[pipe_type] * 1000000LL;
        AGX_TRACE(&fw->trace, fault_inject, "timeout", pipe_type, p->cmd_va);
        break;
    default:
        break;
    }
}

bool agx_fault_watchdog_due(AgxFw *fw, unsigned pipe_type, int64_t now)
{
    AgxPipe *p = &fw->pipes[pipe_type];

    return p->busy && p->hung && p->done_at <= now;
}

void agx_fault_timeout(AgxFw *fw, unsigned pipe_type)
{
    const AgxRunLayout *run = &fw->job_abi->run[pipe_type];
    AgxPipe *p = &fw->pipes[pipe_type];
    uint8_t ev[AGX_EVENT_SIZE] = { 0 };
    uint8_t b[4];

    if (!agx_fw_read(fw, p->cmd_va + run->meta + AGX_META_STAMP_SLOT, b, 4,
                     "JobMeta")) {
        return;
    }
    /*
     * The counter is the halt this timeout causes: m1n1 drops a Timeout
     * whose counter is below the halt count it last recovered from
     */
    fw->timeout_count++;
    agx_st32(ev, AGX_EVENT_TIMEOUT);
    agx_st32(ev + 4, fw->halt_count + 1);
    agx_st32(ev + 0xc, agx_ld32(b));            /* event slot */
    AGX_TRACE(&fw->trace, fault_watchdog, pipe_type, p->cmd_va);
    AGX_TRACE(&fw->trace, event_timeout, fw->halt_count + 1, agx_ld32(b));
    agx_fault_note_queue(fw, &fw->queues[p->queue]);
    agx_fault_halt(fw, ev);
}

void agx_fault_arm_resume_poll(AgxFw *fw)
{
    fw->ops->timer_mod(fw->opaque, fw->ops->now_ns(fw->opaque) +
                       AGX_FAULT_RESUME_POLL_NS);
}

bool agx_fault_resume_requested(AgxFw *fw)
{
    uint8_t b[4];

    if (!fw->halted) {
        return false;
    }
    if (!agx_fw_read(fw, fw->fw_status_va + AGX_FWS_RESUME, b, 4,
                     "FwStatus") || !agx_ld32(b)) {
        return false;
    }
    if (!fault_st32(fw, fw->fw_status_va + AGX_FWS_RESUME, 0, "FwStatus")) {
        return false;
    }
    fw->halted = false;
    fw->fault_info = 0;
    return true;
}

void agx_fault_resume_done(AgxFw *fw)
{
    for (int p = 0; p < AGX_NUM_PIPES; p++) {
        agx_fault_job_retired(fw, p);
    }
    AGX_TRACE(&fw->trace, fault_resume, fw->halt_count);
    agx_fw_log(fw, AGX_FWLOG_NOTICE, "resumed after halt %"
               G_GINT64_MODIFIER "u", fw->halt_count);
}
