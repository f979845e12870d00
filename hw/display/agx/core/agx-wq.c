/*
 * AGX firmware work queues: job scheduling, stamps and completion events
 *
 * Scheduling model (the real firmware's policy is not documented; this is
 * what the driver's ordering rules need): each pipe type has one hardware
 * unit running one job at a time; the three pipes run in parallel; entries
 * of a queue run strictly in ring order; a Barrier blocks its queue until
 * another queue's firmware stamp reaches the wanted value; among ready
 * queues of a pipe the highest priority (3) wins, then the one announced
 * first.  Completed commands are reported with one Flag event per firmware
 * timer tick covering every slot that retired, then the RX doorbell.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-cdm.h"
#include "hw/agx/agx-frag.h"
#include "hw/agx/agx-vdm.h"
#include "hw/agx/agx-chaos.h"
#include "hw/agx/agx-fault.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-tvb.h"
#include "hw/agx/agx-useq.h"
#include "hw/agx/agx-wq.h"

/* What the firmware reads of a command to know what it is (a Barrier) */
#define WQ_CMD_HEAD             0x20

/* The ring entry (a command's VA) the queue is at */
static uint64_t wq_entry_va(const AgxQueue *q)
{
    return q->ring_va + q->rptr * (uint64_t)sizeof(uint64_t);
}

/* @pipe's GPU work ended at virtual ns @at (stamps written by then) */
static void wq_pipe_free(AgxFw *fw, unsigned pipe, int64_t at)
{
    fw->pipe_free_at[pipe] = at;
    fw->last_free_at = MAX(fw->last_free_at, at);
}

static AgxQueue *wq_find(AgxFw *fw, uint64_t info_va)
{
    /* A free slot may be anywhere; queues in use lie below queues_end */
    int end = info_va ? fw->queues_end : AGX_MAX_QUEUES;

    for (int i = 0; i < end; i++) {
        if (fw->queues[i].info_va == info_va) {
            return &fw->queues[i];
        }
    }
    return NULL;
}

/* A queue names its GPU context: the firmware knows it from now on */
static void wq_note_context(AgxFw *fw, uint64_t gpu_context)
{
    if (!gpu_context) {
        return;
    }
    for (uint32_t i = 0; i < fw->num_contexts; i++) {
        if (fw->contexts[i] == gpu_context) {
            return;
        }
    }
    if (fw->num_contexts == AGX_MAX_CONTEXTS) {
        agx_fw_guest_error(fw, "GPU firmware: more than %d live GPU "
                           "contexts (no DestroyContext?): 0x%"
                           G_GINT64_MODIFIER "x not counted",
                           AGX_MAX_CONTEXTS, gpu_context);
        return;
    }
    fw->contexts[fw->num_contexts++] = gpu_context;
}

/* Start serving a queue we do not know yet (or have forgotten when idle) */
static AgxQueue *wq_track(AgxFw *fw, uint64_t info_va, bool is_new)
{
    const AgxJobAbi *ja = fw->job_abi;
    uint8_t info[AGX_QI_MAX_SIZE];
    AgxQueue *q = wq_find(fw, 0);
    uint32_t done = 0, rb_size;

    if (!q) {
        agx_fw_crash(fw, "GPU firmware: more than %d busy work queues",
                     AGX_MAX_QUEUES);
        return NULL;
    }
    if (!agx_fw_read(fw, info_va, info, ja->queue_info_size, "QueueInfo")) {
        return NULL;
    }
    memset(q, 0, sizeof(*q));
    q->state_va = apple_ld64(info + AGX_QI_STATE);
    q->ring_va = apple_ld64(info + AGX_QI_RING);
    q->gpu_context = apple_ld64(info + ja->qi_gpu_context);
    wq_note_context(fw, q->gpu_context);
    if (!agx_fw_ld32(fw, q->state_va + AGX_RS_RB_SIZE, &rb_size,
                     "RingState") ||
        (!is_new && !agx_fw_ld32(fw, q->state_va + AGX_RS_GPU_DONEPTR,
                                 &done, "RingState"))) {
        return NULL;
    }
    if (rb_size != AGX_WQ_RING_SIZE || done >= AGX_WQ_RING_SIZE) {
        agx_fw_crash(fw, "GPU firmware: work queue 0x%" G_GINT64_MODIFIER
                     "x has ring size %u, done pointer %u", info_va,
                     rb_size, done);
        return NULL;
    }
    q->info_va = info_va;
    q->rptr = done;
    fw->queues_end = MAX(fw->queues_end, q - fw->queues + 1);
    return q;
}

/*
 * The QueueInfo words only drm/asahi's debug dump reads (after a channel
 * error); their exact values are undocumented, so the model keeps them
 * plausible: busy is 1 while the queue has work, pending counts the
 * commands not yet done, event_id is the event slot the queue signals
 * while it has work (-1, as the driver leaves it, once idle).
 * error_count is agx-fault.c's.
 */
static bool wq_publish_state(AgxFw *fw, AgxQueue *q)
{
    const AgxJobAbi *ja = fw->job_abi;
    uint32_t pending = (q->wptr + AGX_WQ_RING_SIZE - q->rptr) %
                       AGX_WQ_RING_SIZE;

    return agx_fw_st32(fw, q->info_va + AGX_QI_BUSY, pending != 0,
                       "QueueInfo") &&
           agx_fw_st32(fw, q->info_va + ja->qi_pending, pending,
                       "QueueInfo") &&
           agx_fw_st32(fw, q->info_va + AGX_QI_EVENT_ID,
                       pending ? q->event_slot : UINT32_MAX, "QueueInfo");
}

/*
 * RunWorkQueue moves @q's write pointer to @wptr: the entries up to it are
 * announced now.  A full record list makes its newest record cover them
 * too, at this later time.
 */
static void wq_note_kick(AgxFw *fw, AgxQueue *q, uint32_t wptr)
{
    int64_t now = fw->ops->now_ns(fw->opaque);

    if (wptr == q->rptr) {
        q->nkicks = 0;
        return;
    }
    if (wptr == q->wptr) {
        return;
    }
    if (q->nkicks == AGX_WQ_KICKS) {
        q->nkicks--;
    }
    q->kick_wptr[q->nkicks] = wptr;
    q->kick_at[q->nkicks++] = now;
}

void agx_wq_run_msg(AgxFw *fw, unsigned chan, const uint8_t *msg)
{
    unsigned pipe = chan & 3, prio = chan >> 2;
    uint64_t info_va = apple_ld64(msg + AGX_RWQ_WORK_QUEUE);
    uint32_t wptr = apple_ld32(msg + AGX_RWQ_WPTR);
    uint32_t slot = apple_ld32(msg + AGX_RWQ_EVENT_SLOT);
    bool is_new = msg[AGX_RWQ_IS_NEW];
    AgxQueue *q;

    if (apple_ld32(msg + AGX_RWQ_PIPE_TYPE) != pipe ||
        wptr >= AGX_WQ_RING_SIZE || slot >= AGX_NUM_EVENT_SLOTS || !info_va) {
        agx_fw_guest_error(fw, "GPU firmware: bad RunWorkQueue on pipe "
                           "channel %u (type %u, queue 0x%" G_GINT64_MODIFIER
                           "x, wptr %u, slot %u), ignored", chan,
                           apple_ld32(msg + AGX_RWQ_PIPE_TYPE), info_va, wptr,
                           slot);
        return;
    }
    q = wq_find(fw, info_va);
    if (q && q->pipe != pipe) {
        agx_fw_guest_error(fw, "GPU firmware: work queue 0x%"
                           G_GINT64_MODIFIER "x moved from pipe %u to %u, "
                           "ignored", info_va, q->pipe, pipe);
        return;
    }
    if (q && is_new && q->rptr != q->wptr) {
        agx_fw_guest_error(fw, "GPU firmware: work queue 0x%"
                           G_GINT64_MODIFIER "x is new but still busy",
                           info_va);
    }
    if (!q) {
        q = wq_track(fw, info_va, is_new);
        if (!q) {
            return;
        }
        q->wptr = q->rptr;
    }
    q->pipe = pipe;
    q->prio = prio;
    wq_note_kick(fw, q, wptr);
    q->wptr = wptr;
    if (q->wait == AGX_QUEUE_BARRIER) {
        q->wait = AGX_QUEUE_READY;
    }
    q->event_slot = slot;
    q->seq = ++fw->queue_seq;
    if (!wq_publish_state(fw, q)) {
        return;
    }
    AGX_TRACE(&fw->trace, queue_run, pipe, prio, info_va, wptr, slot, is_new);
}

/*
 * Where the firmware is in the ring.  drm/asahi asserts on gpu_doneptr
 * before reusing a slot; QueueInfo's gpu_rptr1..3 get the consumed index
 * and the words of wq_publish_state() follow.
 */
static bool wq_publish_ptr(AgxFw *fw, AgxQueue *q)
{
    uint64_t info = q->info_va;
    uint8_t rptrs[12];

    for (int i = 0; i < 3; i++) {
        apple_st32(rptrs + 4 * i, q->rptr);
    }
    return agx_fw_write(fw, info + AGX_QI_GPU_RPTR1, rptrs, sizeof(rptrs),
                        "QueueInfo") &&
           wq_publish_state(fw, q) &&
           agx_fw_st32(fw, q->state_va + AGX_RS_GPU_RPTR, q->rptr,
                       "RingState") &&
           agx_fw_st32(fw, q->state_va + AGX_RS_GPU_DONEPTR, q->rptr,
                       "RingState");
}

/* Move past the current entry, telling the driver it is done */
static bool wq_advance(AgxFw *fw, AgxQueue *q)
{
    q->rptr = (q->rptr + 1) % AGX_WQ_RING_SIZE;
    /* A record whose entries are all consumed goes */
    if (q->nkicks && q->kick_wptr[0] == q->rptr) {
        q->nkicks--;
        memmove(q->kick_wptr, q->kick_wptr + 1,
                q->nkicks * sizeof(q->kick_wptr[0]));
        memmove(q->kick_at, q->kick_at + 1, q->nkicks * sizeof(q->kick_at[0]));
    }
    if (!wq_publish_ptr(fw, q)) {
        return false;
    }
    if (q->rptr == q->wptr) {
        /* Idle: forget it, RingState keeps our position */
        q->info_va = 0;
    }
    return true;
}

/*
 * The command @q is on failed (fault, timeout, channel error) and the
 * driver has seen it: write its stamps, report its slot, move on
 */
static bool wq_retire_failed(AgxFw *fw, AgxQueue *q)
{
    const AgxRunLayout *run = &fw->job_abi->run[q->pipe];
    uint8_t meta[AGX_META_SIZE];
    uint32_t slot, value;
    uint64_t cmd_va;

    if (!q->info_va || q->rptr == q->wptr) {
        return true;
    }
    /*
     * drm/asahi marks the failed command in error but completes it only
     * when its stamp arrives: write both stamps JobMeta names (the fw_stamp
     * releases Barriers on it, e.g. a render's fragment half) and report
     * the slot with the next Flag.  Its time stamps stay unwritten.
     */
    if (!agx_fw_ld64(fw, wq_entry_va(q), &cmd_va, "work queue ring") ||
        !agx_fw_read(fw, cmd_va + run->meta, meta, sizeof(meta),
                     "JobMeta")) {
        return false;
    }
    slot = apple_ld32(meta + AGX_META_STAMP_SLOT);
    value = apple_ld32(meta + AGX_META_STAMP_VALUE);
    if (slot >= AGX_NUM_EVENT_SLOTS) {
        agx_fw_crash(fw, "GPU firmware: command 0x%" G_GINT64_MODIFIER "x "
                     "retires to event slot %u", cmd_va, slot);
        return false;
    }
    if (!agx_fw_st32(fw, apple_ld64(meta + AGX_META_FW_STAMP), value,
                     "fw_stamp") ||
        !agx_fw_st32(fw, apple_ld64(meta + AGX_META_STAMP), value, "stamp")) {
        return false;
    }
    AGX_TRACE(&fw->trace, stamp_fw, q->pipe,
              apple_ld64(meta + AGX_META_FW_STAMP), value);
    AGX_TRACE(&fw->trace, stamp_retire, q->pipe,
              apple_ld64(meta + AGX_META_STAMP), value, slot);
    agx_wq_fire(fw, slot);
    fw->last_free_at = MAX(fw->last_free_at, fw->ops->now_ns(fw->opaque));
    AGX_TRACE(&fw->trace, job_retire_failed, q->pipe, cmd_va, slot);
    return wq_advance(fw, q);
}

void agx_wq_note_write(AgxFw *fw, uint64_t va, uint64_t len)
{
    bool still = false;

    if (!fw->barrier_waits) {
        return;
    }
    for (int i = 0; i < fw->queues_end; i++) {
        AgxQueue *q = &fw->queues[i];

        if (q->wait != AGX_QUEUE_BARRIER || !q->info_va) {
            continue;
        }
        if (q->barrier_va < va + len && va < q->barrier_va + 4) {
            q->wait = AGX_QUEUE_READY;
        } else {
            still = true;
        }
    }
    fw->barrier_waits = still;
}

void agx_wq_wake_barriers(AgxFw *fw)
{
    for (int i = 0; i < AGX_MAX_QUEUES; i++) {
        if (fw->queues[i].wait == AGX_QUEUE_BARRIER) {
            fw->queues[i].wait = AGX_QUEUE_READY;
        }
    }
}

/* Is the stamp a Barrier waits for reached? (wrap-aware, like the driver) */
static int wq_barrier_ready(AgxFw *fw, const uint8_t *cmd)
{
    uint32_t stamp, want = apple_ld32(cmd + AGX_BARRIER_WAIT_VALUE);

    if (!agx_fw_ld32(fw, apple_ld64(cmd + AGX_BARRIER_WAIT_STAMP), &stamp,
                     "barrier stamp")) {
        return -1;
    }
    return (int32_t)(stamp - want) >= 0;
}

/*
 * When the GPU starts the job at @q's head: when its pipe's last job
 * ended, or when it was announced or passed its Barrier if that was
 * later; never after now.  So a late firmware timer delays only the job
 * it was late for, not every job queued behind it: the GPU would not
 * have waited for the firmware's CPU.  Unknown announcements (after a
 * migration) start it now.
 */
static int64_t wq_job_start(AgxFw *fw, AgxQueue *q)
{
    int64_t now = fw->ops->now_ns(fw->opaque);
    int64_t at = q->nkicks ? q->kick_at[0] : 0;

    if (!at) {
        return now;
    }
    at = MAX(at, q->not_before);
    at = MAX(at, fw->pipe_free_at[q->pipe]);
    return MIN(at, now);
}

/* Put the Run* command of @q on its pipe and run its ops up to the wait */
static bool wq_start_job(AgxFw *fw, AgxQueue *q, uint64_t cmd_va)
{
    const AgxRunLayout *run = &fw->job_abi->run[q->pipe];
    AgxPipe *p = &fw->pipes[q->pipe];
    int64_t work_ns, start;
    AgxUseqResult step;
    uint32_t slot;

    memset(p, 0, sizeof(*p));
    p->cmd_va = cmd_va;
    p->queue = q - fw->queues;
    if (!agx_fw_ld64(fw, cmd_va + run->useq_ptr, &p->useq_va,
                     "command record") ||
        !agx_fw_ld32(fw, cmd_va + run->useq_size, &p->useq_size,
                     "command record") ||
        !agx_fw_ld32(fw, cmd_va + run->vm_slot, &p->vm_slot,
                     "command record")) {
        return false;
    }
    if (p->useq_size > AGX_USEQ_MAX_SIZE || p->vm_slot >= AGX_UAT_NUM_SLOTS) {
        agx_fw_crash(fw, "GPU firmware: command 0x%" G_GINT64_MODIFIER "x: "
                     "microsequence of 0x%x bytes, VM slot %u", cmd_va,
                     p->useq_size, p->vm_slot);
        return false;
    }
    p->busy = true;
    q->wait = AGX_QUEUE_RUNNING;
    AGX_TRACE(&fw->trace, job_start, q->pipe, q->info_va, cmd_va,
              p->vm_slot);
    start = wq_job_start(fw, q);
    fw->gpu_clock = start;
    step = agx_useq_run(fw, q->pipe, p, &slot);
    fw->gpu_clock = 0;
    switch (step) {
    case AGX_USEQ_WAIT:
        work_ns = agx_chaos_job_ns(fw);
        p->done_at = start + work_ns;
        AGX_TRACE(&fw->trace, job_work, q->pipe, cmd_va, work_ns);
        agx_chaos_maybe_inject(fw);
        if (!agx_fault_job_started(fw, q->pipe, p)) {
            return false;
        }
        if (q->pipe == AGX_PIPE_COMPUTE) {
            /* Its dispatch runs in slices, from when its work is due */
            return !p->busy || p->hung || agx_cdm_start(fw, p);
        }
        if (q->pipe == AGX_PIPE_FRAGMENT) {
            /* Its tiles render in slices, from when its work is due */
            return !p->busy || p->hung || agx_frag_start(fw, p);
        }
        if (q->pipe != AGX_PIPE_VERTEX) {
            return true;
        }
        /* Its primitives are shaded and binned in slices too */
        return agx_tvb_job_started(fw, p) &&
               (!p->busy || p->hung || agx_vdm_start(fw, p));
    default:
        /* The interpreter refuses to retire before the wait: it crashed */
        return false;
    }
}

/*
 * Process entries of @q until it blocks, empties or starts a job.
 * Returns true if anything changed.
 */
static bool wq_process(AgxFw *fw, AgxQueue *q)
{
    bool progress = false;

    /* Bounded by the ring and by this pass's budget */
    for (int n = 0; n < AGX_WQ_RING_SIZE && q->info_va && fw->wq_budget &&
         q->rptr != q->wptr && fw->state == AGX_FW_RUNNING; n++) {
        uint8_t cmd[WQ_CMD_HEAD];
        uint64_t cmd_va;
        int ready;

        fw->wq_budget--;
        if (!agx_fw_ld64(fw, wq_entry_va(q), &cmd_va, "work queue ring") ||
            !agx_fw_read(fw, cmd_va, cmd, sizeof(cmd), "command")) {
            return true;
        }
        switch (apple_ld32(cmd)) {
        case AGX_CMD_BARRIER:
            ready = wq_barrier_ready(fw, cmd);
            if (ready < 0) {
                return true;
            }
            if (!ready) {
                q->wait = AGX_QUEUE_BARRIER;
                q->barrier_va = apple_ld64(cmd + AGX_BARRIER_WAIT_STAMP);
                fw->barrier_waits = true;
                AGX_TRACE(&fw->trace, queue_barrier, q->info_va,
                          q->barrier_va,
                          apple_ld32(cmd + AGX_BARRIER_WAIT_VALUE));
                return progress;
            }
            q->wait = AGX_QUEUE_READY;
            /* The stamp it waited for was written by then at the latest */
            q->not_before = MAX(q->not_before, fw->last_free_at);
            break;
        case AGX_CMD_INIT_BUFFER:
            if (!agx_tvb_init_buffer(fw, cmd_va, q->gpu_context)) {
                return true;
            }
            break;
        case AGX_CMD_RUN_VERTEX:
        case AGX_CMD_RUN_FRAGMENT:
        case AGX_CMD_RUN_COMPUTE:
            if (apple_ld32(cmd) != (q->pipe == AGX_PIPE_COMPUTE ?
                                    AGX_CMD_RUN_COMPUTE : q->pipe)) {
                agx_fw_crash(fw, "GPU firmware: command type %u on a pipe "
                             "%u queue", apple_ld32(cmd), q->pipe);
                return true;
            }
            if (fw->pipes[q->pipe].busy) {
                q->wait = AGX_QUEUE_READY;
                return progress;
            }
            /* Progress either way; a crash ends the pass (fw->state) */
            wq_start_job(fw, q, cmd_va);
            return true;
        default:
            agx_fw_crash(fw, "GPU firmware: unknown command type %u at "
                         "0x%" G_GINT64_MODIFIER "x", apple_ld32(cmd), cmd_va);
            return true;
        }
        /* Barriers and InitBuffer retire nothing of their own */
        if (!wq_advance(fw, q)) {
            return true;
        }
        progress = true;
    }
    return progress;
}

/*
 * Highest priority first, then the queue announced earliest (with chaos:
 * any of the ready queues of that priority, at random)
 */
static AgxQueue *wq_pick(AgxFw *fw, unsigned pipe, const bool *tried)
{
    AgxQueue *best = NULL;
    unsigned ties = 0;
    int end = 0;

    for (int i = 0; i < fw->queues_end; i++) {
        AgxQueue *q = &fw->queues[i];

        if (q->info_va) {
            end = i + 1;
        }
        if (!q->info_va || q->pipe != pipe || tried[i] ||
            q->wait != AGX_QUEUE_READY || q->rptr == q->wptr) {
            continue;
        }
        if (!best || q->prio > best->prio) {
            best = q;
            ties = 1;
        } else if (q->prio == best->prio && agx_chaos_on(fw)) {
            if (!agx_chaos_below(fw, ++ties)) {
                best = q;
            }
        } else if (q->prio == best->prio && q->seq < best->seq) {
            best = q;
        }
    }
    /* Queues forgotten at the top shrink the scans */
    fw->queues_end = end;
    return best;
}

static bool wq_flags_pending(AgxFw *fw)
{
    for (int i = 0; i < G_N_ELEMENTS(fw->firing); i++) {
        if (fw->firing[i]) {
            return true;
        }
    }
    return false;
}

void agx_wq_fire(AgxFw *fw, unsigned slot)
{
    bool first = !wq_flags_pending(fw);

    fw->firing[slot / 32] |= 1u << (slot % 32);
    if (first) {
        /* Chaos: hold the Flag a little, so that more slots share it */
        fw->flags_due = fw->ops->now_ns(fw->opaque) +
                        agx_chaos_flag_delay(fw);
    }
}


static void wq_arm_timer(AgxFw *fw, bool yielded)
{
    int64_t now = fw->ops->now_ns(fw->opaque), next = -1;

    /*
     * Retired slots not reported yet: when they are due, or, if the full
     * event ring refused them, again soon
     */
    if (wq_flags_pending(fw)) {
        next = fw->flags_due > now ? fw->flags_due
                                   : now + AGX_WQ_EVENT_RETRY_NS;
    }
    if (fw->deferred_doorbells &&
        (next < 0 || fw->doorbells_due < next)) {
        next = MAX(fw->doorbells_due, now);
    }
    /* Out of budget with work left: go on a little later */
    if (yielded && (next < 0 || now + AGX_WQ_YIELD_NS < next)) {
        next = now + AGX_WQ_YIELD_NS;
    }
    for (int p = 0; p < AGX_NUM_PIPES; p++) {
        if (fw->pipes[p].busy &&
            (next < 0 || fw->pipes[p].done_at < next)) {
            next = fw->pipes[p].done_at;
        }
    }
    fw->ops->timer_mod(fw->opaque, next);
}

/*
 * Run whatever can run, within what is left of this main-loop turn's
 * budget: each round moves at least one entry, and every entry examined
 * costs budget, so this ends within AGX_WQ_BUDGET entries a turn
 */
static void wq_schedule_pass(AgxFw *fw)
{
    bool progress = true;

    while (progress && fw->wq_budget && fw->state == AGX_FW_RUNNING) {
        progress = false;
        for (int p = 0; p < AGX_NUM_PIPES; p++) {
            bool tried[AGX_MAX_QUEUES] = { 0 };
            AgxQueue *q;

            /* A job that started may have halted the firmware */
            while (!fw->pipes[p].busy && fw->state == AGX_FW_RUNNING &&
                   !fw->halted && fw->wq_budget &&
                   (q = wq_pick(fw, p, tried))) {
                tried[q - fw->queues] = true;
                progress |= wq_process(fw, q);
            }
        }
    }
}

/* The last pass of a turn, then the timer for what comes next */
static void wq_schedule_rest(AgxFw *fw)
{
    if (fw->halted) {
        /* Nothing runs until the driver resumes the firmware */
        return;
    }
    wq_schedule_pass(fw);
    if (fw->state == AGX_FW_RUNNING && !fw->halted) {
        wq_arm_timer(fw, !fw->wq_budget);
    }
}

void agx_wq_schedule(AgxFw *fw)
{
    fw->wq_budget = AGX_WQ_BUDGET;
    wq_schedule_rest(fw);
}

static void wq_post_flags(AgxFw *fw)
{
    uint8_t ev[AGX_EVENT_SIZE] = { 0 };
    uint32_t idx = fw->ch[AGX_CH_EVENT].fw_ptr;
    AgxChannelResult res;
    AgxUatFault fault;
    bool any = false;

    for (int i = 0; i < G_N_ELEMENTS(fw->firing); i++) {
        apple_st32(ev + AGX_EVENT_FLAG_FIRING + 4 * i, fw->firing[i]);
        any |= fw->firing[i] != 0;
    }
    if (!any) {
        return;
    }
    apple_st32(ev + AGX_EVENT_TAG, AGX_EVENT_FLAG);
    res = agx_channel_produce(&fw->ch[AGX_CH_EVENT], &fw->uat, ev, &fault);
    if (res == AGX_CHANNEL_FULL) {
        /* The driver is behind: keep the bits for the next tick */
        return;
    }
    if (res != AGX_CHANNEL_OK) {
        agx_fw_crash(fw, "GPU firmware: event ring %s",
                     res == AGX_CHANNEL_BAD_PTR ? "read pointer out of range"
                                                : "not accessible");
        return;
    }
    AGX_TRACE(&fw->trace, channel_write, fw->ch[AGX_CH_EVENT].name, idx,
              AGX_EVENT_FLAG);
    AGX_TRACE(&fw->trace, event_flag, fw->firing[0], fw->firing[1],
              fw->firing[2], fw->firing[3]);
    memset(fw->firing, 0, sizeof(fw->firing));
    agx_fw_rx_doorbell(fw);
}

/* The GPU work of the job on @pipe is done: run the rest of its ops */
static bool wq_finish_job(AgxFw *fw, unsigned pipe)
{
    AgxPipe *p = &fw->pipes[pipe];
    AgxQueue *q = &fw->queues[p->queue];
    int64_t work_ns;
    AgxUseqResult step;
    uint32_t slot;
    bool unlisted;

    /* Its end ops run when its GPU work ended, by the GPU's clock */
    fw->gpu_clock = p->done_at;
    step = agx_useq_run(fw, pipe, p, &slot);
    fw->gpu_clock = 0;
    switch (step) {
    case AGX_USEQ_RETIRED:
        /* Retired whatever the pending-stamp list says */
        unlisted = agx_fault_job_retired(fw, pipe);
        agx_wq_fire(fw, slot);
        fw->jobs_done++;
        wq_pipe_free(fw, pipe, p->done_at);
        AGX_TRACE(&fw->trace, job_retire, pipe, p->cmd_va, slot);
        p->busy = false;
        q->wait = AGX_QUEUE_READY;
        return wq_advance(fw, q) && unlisted;
    case AGX_USEQ_WAIT:
        /* A second WaitForIdle: more GPU work of the same job */
        work_ns = agx_chaos_job_ns(fw);
        p->done_at = fw->ops->now_ns(fw->opaque) + work_ns;
        AGX_TRACE(&fw->trace, job_work, pipe, p->cmd_va, work_ns);
        return true;
    default:
        return false;
    }
}

/* Finish the jobs whose GPU work is over by @now; false to stop there */
static bool wq_finish_due(AgxFw *fw, int64_t now)
{
    /* A timeout halts everything: the pipes after it wait */
    for (int p = 0; p < AGX_NUM_PIPES && !fw->halted; p++) {
        if (agx_fault_watchdog_due(fw, p, now)) {
            if (!agx_fault_timeout(fw, p)) {
                return false;
            }
        } else if (fw->pipes[p].busy && fw->pipes[p].done_at <= now) {
            /* A job held for GrowTVBAck that never came goes on */
            agx_tvb_job_due(fw, &fw->pipes[p]);
            /* A dispatch goes on in slices; it may fault or hang */
            if (!agx_cdm_job_due(fw, &fw->pipes[p]) ||
                !agx_frag_job_due(fw, &fw->pipes[p]) ||
                !agx_vdm_job_due(fw, &fw->pipes[p])) {
                if (fw->state != AGX_FW_RUNNING) {
                    return false;
                }
                continue;
            }
            if (!wq_finish_job(fw, p)) {
                return false;
            }
        }
    }
    return true;
}

/* Has a job that started meanwhile ended by @now already? */
static bool wq_any_due(AgxFw *fw, int64_t now)
{
    for (int p = 0; p < AGX_NUM_PIPES; p++) {
        if (fw->pipes[p].busy && !fw->pipes[p].hung &&
            fw->pipes[p].done_at <= now) {
            return true;
        }
    }
    return false;
}

void agx_wq_timer(AgxFw *fw)
{
    int64_t now = fw->ops->now_ns(fw->opaque);

    /*
     * The jobs due, then those that started in their place and, by the
     * GPU's clock (wq_job_start()), ended by now too: at most
     * AGX_WQ_CATCH_UP rounds, the rest on the next tick
     */
    fw->wq_budget = AGX_WQ_BUDGET;
    for (int round = 0; ; round++) {
        uint64_t done = fw->jobs_done;
        bool ok = wq_finish_due(fw, now);

        if (round) {
            fw->jobs_caught_up += fw->jobs_done - done;
        }
        if (!ok) {
            return;
        }
        /*
         * Report what retired right after its stamps: a driver that
         * reads a stamp ahead of its Flag (the Flag of an earlier
         * command made it look) may free the slot before this Flag
         */
        if (fw->flags_due <= now) {
            wq_post_flags(fw);
        }
        if (round == AGX_WQ_CATCH_UP - 1 || fw->halted ||
            fw->state != AGX_FW_RUNNING) {
            break;
        }
        wq_schedule_pass(fw);
        if (!fw->wq_budget || !wq_any_due(fw, now)) {
            break;
        }
    }
    /* Run what can run now (and re-arm) */
    wq_schedule_rest(fw);
}

bool agx_wq_resume(AgxFw *fw)
{
    bool retired = true;

    if (!fw->halted) {
        return true;
    }
    if (!agx_fault_resume_requested(fw)) {
        return false;
    }
    /* Nothing ran while the firmware was halted */
    for (int p = 0; p < AGX_NUM_PIPES; p++) {
        wq_pipe_free(fw, p, fw->ops->now_ns(fw->opaque));
    }
    /*
     * The driver failed what was running: move past those commands, each
     * of them (as before the layering, a crash does not stop the walk)
     */
    for (int i = 0; i < AGX_MAX_QUEUES; i++) {
        AgxQueue *q = &fw->queues[i];

        if (q->info_va && q->wait == AGX_QUEUE_FAULTED) {
            q->wait = AGX_QUEUE_READY;
            retired = wq_retire_failed(fw, q) && retired;
        }
    }
    return agx_fault_resume_done(fw) && retired;
}

void agx_wq_recover_channel(AgxFw *fw, uint64_t work_queue)
{
    for (int i = 0; i < AGX_MAX_QUEUES; i++) {
        AgxQueue *q = &fw->queues[i];

        if (q->info_va == work_queue && q->wait == AGX_QUEUE_CHANNEL_ERROR) {
            q->wait = AGX_QUEUE_READY;
            q->not_before = fw->ops->now_ns(fw->opaque);
            wq_retire_failed(fw, q);
            AGX_TRACE(&fw->trace, queue_recover_channel, work_queue);
            agx_wq_schedule(fw);
            return;
        }
    }
    agx_fw_guest_error(fw, "GPU firmware: RecoverChannel for queue 0x%"
                       G_GINT64_MODIFIER "x which had no channel error",
                       work_queue);
}

void agx_wq_destroy_context(AgxFw *fw, uint64_t gpu_context)
{
    agx_tvb_forget_context(fw, gpu_context);
    for (uint32_t i = 0; i < fw->num_contexts; i++) {
        if (fw->contexts[i] == gpu_context) {
            fw->contexts[i] = fw->contexts[--fw->num_contexts];
            fw->contexts[fw->num_contexts] = 0;
            break;
        }
    }
    for (int i = 0; i < AGX_MAX_QUEUES; i++) {
        AgxQueue *q = &fw->queues[i];

        if (!q->info_va || q->gpu_context != gpu_context) {
            continue;
        }
        if (q->wait == AGX_QUEUE_RUNNING && fw->pipes[q->pipe].busy &&
            fw->pipes[q->pipe].queue == i) {
            /* Its memory is going away: the job is dropped, not retired */
            fw->pipes[q->pipe].busy = false;
        }
        AGX_TRACE(&fw->trace, queue_forget, q->info_va);
        memset(q, 0, sizeof(*q));
    }
    agx_wq_schedule(fw);
}

unsigned agx_wq_live_contexts(const AgxFw *fw)
{
    return fw->num_contexts;
}

void agx_wq_reset(AgxFw *fw)
{
    memset(fw->queues, 0, sizeof(fw->queues));
    memset(fw->pipes, 0, sizeof(fw->pipes));
    memset(fw->firing, 0, sizeof(fw->firing));
    memset(fw->contexts, 0, sizeof(fw->contexts));
    fw->num_contexts = 0;
    fw->deferred_doorbells = 0;
    agx_tvb_reset(fw);
    agx_cdm_stop(fw);
    agx_frag_stop(fw);
    agx_vdm_stop(fw);
    if (fw->ops->timer_mod) {
        fw->ops->timer_mod(fw->opaque, -1);
    }
}
