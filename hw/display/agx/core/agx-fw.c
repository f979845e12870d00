/*
 * AGX G13 GPU firmware, high-level emulation: boot, InitData, control rings
 *
 * What the firmware does between CPU_CONTROL.RUN and a running GPU, as the
 * drm/asahi driver drives it: publish the handoff magic at boot, take the
 * InitData pointer (EP 0x20 INIT), validate everything it points to, and
 * serve the device-control and FwCtl rings on doorbells (EP 0x21).  Any
 * structure the firmware cannot read, or that does not look like the ABI,
 * crashes the firmware with a crash log, as the real one would.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-fw.h"

/* InitData's UAT configuration: u16 page size, u8 page bits, u8 levels */
APPLE_FIELD(AGX_ID_UAT, PAGE_SIZE, 0, 16);
APPLE_FIELD(AGX_ID_UAT, PAGE_BITS, 16, 8);
APPLE_FIELD(AGX_ID_UAT, LEVELS, 24, 8);

/* A channel descriptor in RuntimePointers or FwStatus: {state, ring} */
enum {
    AGX_CHANNEL_DESC_STATE = 0x0,
    AGX_CHANNEL_DESC_RING = 0x8,
};

/* Device-control and FwCtl message fields beyond the tag */
enum {
    AGX_DC_RECOVER_CHANNEL_QUEUE = 0x08,        /* u64 QueueInfo VA */
    AGX_FWCTL_ADDR = 0x00,
    AGX_FWCTL_SLOT = 0x0c,
    AGX_FWCTL_PAGES = 0x10,                     /* u16 */
};

/* Doorbell channel numbers beyond the pipes */
enum {
    AGX_DOORBELL_KICKFW = 0x10,
    AGX_DOORBELL_DEVCTRL = 0x11,
};

/* Where each channel's descriptor is and what its ring looks like */
typedef struct AgxChannelDesc {
    const char *name;
    uint32_t desc_off;          /* in RuntimePointers (or FwStatus) */
    uint32_t count;
    uint32_t elem_size;         /* 0: the ABI's stats message size */
    uint32_t wptr_off;          /* read pointer always at 0 */
    bool tx;
    bool in_fw_status;
} AgxChannelDesc;

/* Where a ring's write pointer is, in its state */
#define WPTR            AGX_CHANNEL_STATE_WRITE_PTR
#define FWCTL_WPTR      AGX_FW_CTL_CHANNEL_STATE_WRITE_PTR

#define PIPE_DESC(prio, type, tname)                                    \
    [AGX_CH_PIPE0 + ((type) | (prio) << 2)] = {                         \
        "pipe-" tname #prio,                                            \
        AGX_RP_PIPES + ((prio) * 3 + (type)) * AGX_CHANNEL_INFO_SIZE,   \
        0x100, AGX_RUN_WORK_QUEUE_MSG_SIZE, WPTR, true, false }
static const AgxChannelDesc agx_channel_descs[AGX_NUM_CHANNELS] = {
    PIPE_DESC(0, 0, "vtx"), PIPE_DESC(0, 1, "frag"), PIPE_DESC(0, 2, "comp"),
    PIPE_DESC(1, 0, "vtx"), PIPE_DESC(1, 1, "frag"), PIPE_DESC(1, 2, "comp"),
    PIPE_DESC(2, 0, "vtx"), PIPE_DESC(2, 1, "frag"), PIPE_DESC(2, 2, "comp"),
    PIPE_DESC(3, 0, "vtx"), PIPE_DESC(3, 1, "frag"), PIPE_DESC(3, 2, "comp"),
    [AGX_CH_DEVCTRL] = { "devctrl", AGX_RP_DEVICE_CONTROL, 0x100,
                         AGX_DEVICE_CONTROL_MSG_SIZE, WPTR, true, false },
    [AGX_CH_EVENT] = { "event", AGX_RP_EVENT, 0x100, AGX_EVENT_SIZE, WPTR,
                       false, false },
    [AGX_CH_FWLOG0 ... AGX_CH_FWLOG0 + AGX_FWLOG_LEVELS - 1] = {
        "fwlog", AGX_RP_FW_LOG, AGX_FWLOG_RING_LEN, AGX_FW_LOG_MSG_SIZE,
        WPTR, false, false },
    [AGX_CH_KTRACE] = { "ktrace", AGX_RP_KTRACE, 0x200, AGX_KTRACE_MSG_SIZE,
                        WPTR, false, false },
    [AGX_CH_STATS] = { "stats", AGX_RP_STATS, 0x100, 0, WPTR, false, false },
    [AGX_CH_FWCTL] = { "fwctl", AGX_FWS_FWCTL, 0x100, AGX_FW_CTL_MSG_SIZE,
                       FWCTL_WPTR, true, true },
};

/* Is [va, va + len) mapped for the firmware?  Probes every page. */
static bool fw_check_range(AgxFw *fw, uint64_t va, uint64_t len, bool write,
                           const char *what)
{
    AgxUatFault fault;
    uint64_t pa, left;

    if (!va) {
        agx_fw_crash(fw, "GPU firmware: %s: NULL pointer", what);
        return false;
    }
    for (uint64_t off = 0; off < len; off += left) {
        if (!agx_uat_translate(&fw->uat, 0, va + off, AGX_UAT_FW, write,
                               &pa, &left, &fault)) {
            agx_fw_crash_fault(fw, what, &fault);
            return false;
        }
    }
    return true;
}

/* Fill the channel table from RuntimePointers / FwStatus */
static bool agx_fw_setup_channels(AgxFw *fw, const uint8_t *rp,
                                  const uint8_t *fws)
{
    for (int i = 0; i < AGX_NUM_CHANNELS; i++) {
        const AgxChannelDesc *d = &agx_channel_descs[i];
        const uint8_t *desc = (d->in_fw_status ? fws : rp) + d->desc_off;
        AgxChannel *ch = &fw->ch[i];
        AgxUatFault fault;

        if (!d->name) {
            continue;                   /* pipe numbers 3, 7, 11, 15 */
        }
        memset(ch, 0, sizeof(*ch));
        ch->name = d->name;
        ch->state_va = apple_ld64(desc + AGX_CHANNEL_DESC_STATE);
        ch->ring_va = apple_ld64(desc + AGX_CHANNEL_DESC_RING);
        ch->count = d->count;
        ch->elem_size = d->elem_size ?: fw->abi->stats_msg_size;
        ch->rptr_off = 0;
        ch->wptr_off = d->wptr_off;
        ch->tx = d->tx;
        if (i >= AGX_CH_FWLOG0 && i < AGX_CH_FWLOG0 + AGX_FWLOG_LEVELS) {
            ch->state_va += (i - AGX_CH_FWLOG0) * AGX_FWLOG_STATE_STRIDE;
            ch->ring_first = (i - AGX_CH_FWLOG0) * ch->count;
        }
        if (!ch->state_va || !ch->ring_va) {
            agx_fw_crash(fw, "GPU firmware: channel %s has no %s", ch->name,
                         ch->state_va ? "ring" : "state");
            return false;
        }
        if (!agx_channel_check(ch, &fw->uat, &fault)) {
            agx_fw_crash_fault(fw, ch->name, &fault);
            return false;
        }
        ch->valid = true;
    }
    return true;
}

/* EP 0x20 INIT: read and validate InitData and everything it points to */
static void agx_fw_init_msg(AgxFw *fw, uint64_t msg)
{
    const AgxAbi *abi = fw->abi;
    g_autofree uint8_t *id = g_malloc0(abi->initdata_size);
    uint8_t rp[AGX_RP_HEAD_SIZE], fws[AGX_FWS_SIZE];
    uint64_t va = APPLE_FIELD_EX64(msg, AGX_MSG_INIT, VA);
    uint64_t uat_config = 0;
    uint32_t page_size;

    if (fw->state != AGX_FW_WAIT_INIT) {
        agx_fw_guest_error(fw, "GPU firmware: second INIT message ignored");
        return;
    }
    /* A 44-bit VA; kernel objects are in the sign-extended upper half */
    if (va & (1ULL << 43)) {
        va |= ~APPLE_MAKE_64BIT_MASK(0, 44);
    }
    fw->initdata_va = va;
    AGX_TRACE(&fw->trace, initdata, va, abi->name);
    if (!agx_fw_read(fw, va, id, abi->initdata_size, "InitData")) {
        return;
    }
    page_size = apple_ld32(id + abi->id_uat_page_size);
    uat_config = APPLE_FIELD_DP64(uat_config, AGX_ID_UAT, PAGE_SIZE,
                                  AGX_UAT_PAGE_SIZE);
    uat_config = APPLE_FIELD_DP64(uat_config, AGX_ID_UAT, PAGE_BITS,
                                  AGX_UAT_PAGE_BITS);
    uat_config = APPLE_FIELD_DP64(uat_config, AGX_ID_UAT, LEVELS,
                                  AGX_UAT_LEVELS);
    if (page_size != uat_config) {
        agx_fw_crash(fw, "GPU firmware: InitData UAT config 0x%08x is not "
                     "16K pages, 3 levels (wrong firmware ABI?)", page_size);
        return;
    }
    fw->rp_va = apple_ld64(id + abi->id_runtime_pointers);
    fw->globals_va = apple_ld64(id + abi->id_globals);
    fw->fw_status_va = apple_ld64(id + abi->id_fw_status);

    if (!fw_check_range(fw, fw->rp_va, AGX_RP_SIZE, true,
                        "RuntimePointers") ||
        !agx_fw_read(fw, fw->rp_va, rp, sizeof(rp), "RuntimePointers") ||
        !fw_check_range(fw, fw->globals_va, abi->globals_size, true,
                        "Globals") ||
        !fw_check_range(fw, fw->fw_status_va, AGX_FWS_SIZE, true,
                        "FwStatus") ||
        !agx_fw_read(fw, fw->fw_status_va, fws, sizeof(fws), "FwStatus")) {
        return;
    }
    fw->hwdata_a_va = apple_ld64(rp + AGX_RP_HWDATA_A);
    fw->hwdata_b_va = apple_ld64(rp + AGX_RP_HWDATA_B);
    fw->fwlog_buf_va = apple_ld64(rp + AGX_RP_FWLOG_BUF);
    /* The model reads no HwDataA field: only the part every driver maps */
    if (!fw_check_range(fw, fw->hwdata_a_va, abi->hwdata_a_min_size, true,
                        "HwDataA") ||
        !fw_check_range(fw, fw->hwdata_b_va, abi->hwdata_b_size, false,
                        "HwDataB") ||
        !fw_check_range(fw, fw->fwlog_buf_va, AGX_FWLOG_LEVELS *
                        AGX_FWLOG_RING_LEN * AGX_FWLOG_PAYLOAD_SIZE, true,
                        "firmware log buffer") ||
        !agx_fw_setup_channels(fw, rp, fws)) {
        return;
    }
    fw->state = AGX_FW_RUNNING;
    AGX_TRACE(&fw->trace, initdata_accepted, fw->rp_va, fw->globals_va,
              fw->fw_status_va);
    agx_fw_log(fw, AGX_FWLOG_INFO, "QEMU AGX firmware %s: InitData accepted",
               abi->name);
}

static void agx_fw_devctrl_msg(AgxFw *fw, int chan, const uint8_t *m)
{
    const AgxAbi *abi = fw->abi;
    uint32_t tag = apple_ld32(m);

    fw->devctrl_count++;
    if (tag == abi->dc_initialize) {
        AGX_TRACE(&fw->trace, devctrl_initialize);
        if (fw->initialized) {
            agx_fw_guest_error(fw, "GPU firmware: second Initialize");
        }
        fw->initialized = true;
        agx_fw_log(fw, AGX_FWLOG_INFO, "device control: Initialize");
    } else if (tag == abi->dc_destroy_context) {
        uint64_t ctx = apple_ld64(m + abi->dc_destroy_gpu_context);

        AGX_TRACE(&fw->trace, devctrl_destroy_context, ctx);
        if (ctx) {
            agx_wq_destroy_context(fw, ctx);
        }
    } else if (tag == abi->dc_recover_channel) {
        agx_wq_recover_channel(fw,
                               apple_ld64(m + AGX_DC_RECOVER_CHANNEL_QUEUE));
    } else if (tag == abi->dc_update_idle_ts) {
        /*
         * Sent right after Initialize: the firmware restarts its idle
         * clock (for idle_off_delay_ms power-down), which the model, never
         * powering the GPU down, has no use for
         */
        AGX_TRACE(&fw->trace, devctrl_update_idle_ts, agx_fw_gpu_time(fw));
    } else if (tag == abi->dc_grow_tvb_ack ||
               tag == abi->dc_grow_tvb_ack_2023) {
        /* A vertex job held for a grow may go on: its end moved */
        agx_tvb_grow_ack(fw, m);
        agx_wq_schedule(fw);
    } else {
        agx_fw_guest_error(fw, "GPU firmware: device control message 0x%x "
                           "not handled, skipped", tag);
    }
}

/* Consume a TX ring entry by entry, each acked only after its effect */
static void agx_fw_drain(AgxFw *fw, int chan,
                         void (*handle)(AgxFw *, int, const uint8_t *))
{
    AgxChannel *ch = &fw->ch[chan];
    uint8_t elem[AGX_CHANNEL_MAX_ELEM];
    AgxUatFault fault;

    /* At most one ring's worth per doorbell: the driver keeps writing */
    for (uint32_t n = 0; n < ch->count && fw->state == AGX_FW_RUNNING; n++) {
        switch (agx_channel_peek(ch, &fw->uat, elem, &fault)) {
        case AGX_CHANNEL_OK:
            break;
        case AGX_CHANNEL_EMPTY:
            return;
        case AGX_CHANNEL_BAD_PTR:
            agx_fw_guest_error(fw, "GPU firmware: %s write pointer out of "
                               "range, ring ignored", ch->name);
            return;
        default:
            agx_fw_crash_fault(fw, ch->name, &fault);
            return;
        }
        AGX_TRACE(&fw->trace, channel_read, ch->name, ch->fw_ptr,
                  apple_ld32(elem));
        handle(fw, chan, elem);
        if (fw->state != AGX_FW_RUNNING) {
            return;
        }
        if (agx_channel_consume(ch, &fw->uat, &fault) != AGX_CHANNEL_OK) {
            agx_fw_crash_fault(fw, ch->name, &fault);
            return;
        }
    }
}

/* FwCtl: TLB / cache maintenance for a UAT flush slot */
static void agx_fw_fwctl_msg(AgxFw *fw, int chan, const uint8_t *m)
{
    uint64_t addr = apple_ld64(m + AGX_FWCTL_ADDR), faddr, fsize;
    uint32_t slot = apple_ld32(m + AGX_FWCTL_SLOT);

    fw->fwctl_count++;
    AGX_TRACE(&fw->trace, fwctl_flush, slot, addr,
              apple_ld32(m + AGX_FWCTL_PAGES) & 0xffff);
    if (slot >= AGX_HANDOFF_FLUSH_SLOTS) {
        agx_fw_guest_error(fw, "GPU firmware: FwCtl flush slot %u out of "
                           "range, ignored", slot);
        return;
    }
    /*
     * No cache to flush here; report the request done to the driver.
     * False means nothing was requested: nothing to report either.
     */
    agx_handoff_complete_flush(&fw->handoff, slot, &faddr, &fsize);
}

static void agx_fw_pipe_msg(AgxFw *fw, int chan, const uint8_t *m)
{
    agx_wq_run_msg(fw, chan, m);
}

/* Drain the pipe channels in @mask, then run what they brought */
static void agx_fw_serve_pipes(AgxFw *fw, uint32_t mask)
{
    for (int chan = 0; chan < AGX_DOORBELL_KICKFW; chan++) {
        if ((mask & (1u << chan)) && fw->ch[chan].valid) {
            agx_fw_drain(fw, chan, agx_fw_pipe_msg);
        }
    }
    /* The driver may have written what a Barrier waits on */
    agx_wq_wake_barriers(fw);
    agx_wq_schedule(fw);
}

static void fw_firmware_msg(AgxFw *fw, uint64_t msg)
{
    switch (APPLE_FIELD_EX64(msg, AGX_MSG, TYPE)) {
    case AGX_MSG_INIT:
        agx_fw_init_msg(fw, msg);
        break;
    default:
        agx_fw_guest_error(fw, "GPU firmware: unknown message 0x%016"
                           G_GINT64_MODIFIER "x on the firmware endpoint",
                           msg);
        break;
    }
}

static void fw_doorbell_msg(AgxFw *fw, uint64_t msg)
{
    unsigned type = APPLE_FIELD_EX64(msg, AGX_MSG, TYPE);
    unsigned chan = APPLE_FIELD_EX64(msg, AGX_MSG_DOORBELL, CHANNEL);

    if (fw->state != AGX_FW_RUNNING) {
        agx_fw_guest_error(fw, "GPU firmware: doorbell 0x%016"
                           G_GINT64_MODIFIER "x before INIT, ignored", msg);
        return;
    }
    /* The driver resumes a halted firmware by its next doorbell */
    if (fw->halted && agx_wq_resume(fw)) {
        agx_wq_wake_barriers(fw);
        agx_wq_schedule(fw);
    }
    if (type == AGX_MSG_FWCTL) {
        agx_fw_drain(fw, AGX_CH_FWCTL, agx_fw_fwctl_msg);
        return;
    }
    if (type != AGX_MSG_TX_DOORBELL) {
        agx_fw_guest_error(fw, "GPU firmware: unknown message 0x%016"
                           G_GINT64_MODIFIER "x on the doorbell endpoint",
                           msg);
        return;
    }
    AGX_TRACE(&fw->trace, channel_doorbell, chan);
    switch (chan) {
    case AGX_DOORBELL_KICKFW:
        break;
    case AGX_DOORBELL_DEVCTRL:
        agx_fw_drain(fw, AGX_CH_DEVCTRL, agx_fw_devctrl_msg);
        break;
    default:
        if (chan < AGX_DOORBELL_KICKFW && fw->ch[chan].valid) {
            if (agx_chaos_on(fw)) {
                /* Chaos: the firmware gets to the ring a little later */
                if (!fw->deferred_doorbells) {
                    fw->doorbells_due = fw->ops->now_ns(fw->opaque) +
                                        agx_chaos_doorbell_delay(fw);
                }
                fw->deferred_doorbells |= 1u << chan;
                agx_wq_schedule(fw);
                break;
            }
            agx_fw_serve_pipes(fw, 1u << chan);
            break;
        }
        agx_fw_guest_error(fw, "GPU firmware: doorbell for unknown channel "
                           "0x%x, ignored", chan);
        break;
    }
}

/* Each event the firmware handles has its own translation cache */
static void agx_fw_ep_firmware(void *opaque, uint64_t msg)
{
    AgxFw *fw = opaque;

    agx_uat_tlb_begin(&fw->uat);
    fw_firmware_msg(fw, msg);
    agx_uat_tlb_end(&fw->uat);
}

static void agx_fw_ep_doorbell(void *opaque, uint64_t msg)
{
    AgxFw *fw = opaque;

    agx_uat_tlb_begin(&fw->uat);
    fw_doorbell_msg(fw, msg);
    agx_uat_tlb_end(&fw->uat);
}

/*
 * RTKit stopped the endpoints (sleep, crash): InitData is forgotten and
 * the work stops.  A crash (agx-services.c) comes through here too.
 */
static void agx_fw_ep_stop(void *opaque)
{
    AgxFw *fw = opaque;

    if (fw->state == AGX_FW_RUNNING) {
        fw->state = AGX_FW_WAIT_INIT;
    }
    agx_wq_reset(fw);
}

void agx_fw_cpu_start(AgxFw *fw)
{
    memset(fw->ch, 0, sizeof(fw->ch));
    fw->state = AGX_FW_WAIT_INIT;
    fw->initdata_va = fw->rp_va = fw->globals_va = fw->fw_status_va = 0;
    fw->hwdata_a_va = fw->hwdata_b_va = fw->fwlog_buf_va = 0;
    fw->initialized = false;
    fw->fault_info = 0;
    fw->devctrl_count = fw->fwctl_count = 0;
    fw->queue_seq = fw->jobs_done = 0;
    memset(fw->params, 0, sizeof(fw->params));
    fw->halted = false;
    fw->halt_count = fw->timeout_count = 0;
    agx_chaos_reset(fw);
    agx_wq_reset(fw);
    /* The driver polls for this magic for up to a second after RUN */
    if (!agx_handoff_boot(&fw->handoff)) {
        agx_fw_guest_error(fw, "GPU firmware: handoff region not in RAM");
    }
}

void agx_fw_cpu_stop(AgxFw *fw)
{
    fw->state = AGX_FW_OFF;
    agx_wq_reset(fw);
}

static void fw_timer(AgxFw *fw)
{
    if (!fw->halted) {
        if (fw->deferred_doorbells &&
            fw->doorbells_due <= fw->ops->now_ns(fw->opaque)) {
            uint32_t mask = fw->deferred_doorbells;

            fw->deferred_doorbells = 0;
            agx_fw_serve_pipes(fw, mask);
        }
        agx_wq_timer(fw);
    } else if (agx_wq_resume(fw)) {
        agx_wq_wake_barriers(fw);
        agx_wq_schedule(fw);
    } else if (fw->halted && fw->state == AGX_FW_RUNNING) {
        agx_fault_arm_resume_poll(fw);
    }
}

void agx_fw_timer(AgxFw *fw)
{
    if (fw->state != AGX_FW_RUNNING) {
        return;
    }
    agx_uat_tlb_begin(&fw->uat);
    fw_timer(fw);
    agx_uat_tlb_end(&fw->uat);
}

static const char *agx_fw_check_loaded(const AgxFw *fw)
{
    const char *err;

    if (fw->state > AGX_FW_DEAD) {
        return "firmware state out of range";
    }
    if (fw->inject > AGX_INJECT_GROW_TVB) {
        return "injected fault out of range";
    }
    err = agx_tvb_check_loaded(fw);
    if (err) {
        return err;
    }
    err = agx_cdm_check_loaded(fw);
    if (err) {
        return err;
    }
    err = agx_frag_check_loaded(fw);
    if (err) {
        return err;
    }
    err = agx_vdm_check_loaded(fw);
    if (err) {
        return err;
    }
    if (fw->num_contexts > AGX_MAX_CONTEXTS) {
        return "live context count out of range";
    }
    for (int i = 0; i < AGX_NUM_CHANNELS; i++) {
        const AgxChannel *ch = &fw->ch[i];

        if (ch->valid && (!ch->count || ch->fw_ptr >= ch->count ||
                          ch->elem_size > AGX_CHANNEL_MAX_ELEM)) {
            return "channel ring pointer or element size out of range";
        }
    }
    for (int i = 0; i < AGX_MAX_QUEUES; i++) {
        const AgxQueue *q = &fw->queues[i];

        if (q->pipe >= AGX_NUM_PIPES) {
            return "work queue pipe out of range";
        }
        if (q->rptr >= AGX_WQ_RING_SIZE || q->wptr >= AGX_WQ_RING_SIZE) {
            return "work queue ring pointer out of range";
        }
    }
    for (int i = 0; i < AGX_NUM_PIPES; i++) {
        if (fw->pipes[i].queue >= AGX_MAX_QUEUES) {
            return "pipe queue out of range";
        }
        if (fw->pipes[i].useq_size > AGX_USEQ_MAX_SIZE) {
            return "pipe microsequence size out of range";
        }
    }
    return NULL;
}

const char *agx_fw_post_load(AgxFw *fw)
{
    const char *reason = agx_fw_check_loaded(fw);

    if (reason) {
        return reason;
    }
    /* Hints, not migrated: the next write and scheduling pass refine them */
    fw->barrier_waits = true;
    fw->queues_end = AGX_MAX_QUEUES;
    for (int i = 0; i < AGX_NUM_CHANNELS; i++) {
        fw->ch[i].name = agx_channel_descs[i].name;
    }
    return NULL;
}

void agx_fw_init(AgxFw *fw, const AgxFwOps *ops, void *opaque,
                 RTKitState *rtk, const AgxAbi *abi, uint64_t handoff_pa,
                 uint64_t ttbat_pa)
{
    RTKitAppEndpoint firmware = {
        .message = agx_fw_ep_firmware,
        .stop = agx_fw_ep_stop,
        .opaque = fw,
    };
    RTKitAppEndpoint doorbell = {
        .message = agx_fw_ep_doorbell,
        .opaque = fw,
    };

    memset(fw, 0, sizeof(*fw));
    fw->ops = ops;
    fw->opaque = opaque;
    fw->rtk = rtk;
    fw->abi = abi;
    fw->job_abi = agx_job_abi_get(abi->version);
    fw->job_ns = AGX_FW_DEFAULT_JOB_NS;
    fw->handoff_pa = handoff_pa;
    fw->ttbat_pa = ttbat_pa;
    agx_uat_init(&fw->uat, ops->phys_rw, opaque, ttbat_pa);
    fw->uat.trace = &fw->trace;
    fw->note_write = agx_wq_note_write;
    agx_handoff_init(&fw->handoff, ops->phys_rw, opaque, handoff_pa);
    rtkit_register_endpoint(rtk, AGX_EP_FIRMWARE, &firmware);
    rtkit_register_endpoint(rtk, AGX_EP_DOORBELL, &doorbell);
    fw->state = AGX_FW_OFF;
}
