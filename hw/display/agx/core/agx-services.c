/*
 * AGX G13 GPU firmware: the services every layer uses
 *
 * Guest memory through the UAT (kernel context), crash, guest errors,
 * the firmware log, GPU time, the RX doorbell and trace events.  The
 * crash path stops the firmware through RTKit, whose endpoint stop
 * handler (agx-fw.c) stops the layers above; nothing here calls up.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-services.h"

/* FWLog ring element and the payload it points at */
enum {
    AGX_FWLOG_ELEM_TYPE = 2,
    AGX_FWLOG_ELEM_INDEX = 0x08,        /* u64: the payload's index */
    AGX_FWLOG_ELEM_SIZE = 0x38,
    AGX_FWLOG_PAYLOAD_TYPE = 3,
    AGX_FWLOG_PAYLOAD_SEQ = 0x04,
    AGX_FWLOG_PAYLOAD_TIME = 0x08,      /* u64 GPU time stamp */
    AGX_FWLOG_PAYLOAD_MSG = 0x10,
};

void agx_fw_set_trace(AgxFw *fw, const AgxTraceOps *ops, void *opaque)
{
    fw->trace.ops = ops;
    fw->trace.opaque = opaque;
}

void agx_fw_guest_error(AgxFw *fw, const char *fmt, ...)
{
    g_autofree char *msg = NULL;
    va_list ap;

    if (fw->ops->guest_error_on && !fw->ops->guest_error_on(fw->opaque)) {
        return;
    }
    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    fw->ops->guest_error(fw->opaque, msg);
}

void agx_fw_unimp(AgxFw *fw, const char *fmt, ...)
{
    g_autofree char *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    (fw->ops->unimp ?: fw->ops->guest_error)(fw->opaque, msg);
}

static const char *agx_fault_reason_name(uint32_t reason)
{
    static const char *const names[] = {
        "unmapped", "access flag", "write-only", "read-only", "no access",
    };

    return reason < G_N_ELEMENTS(names) ? names[reason] : "unknown";
}

void agx_fw_crash(AgxFw *fw, const char *fmt, ...)
{
    g_autofree char *reason = NULL;
    va_list ap;

    va_start(ap, fmt);
    reason = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (fw->state == AGX_FW_DEAD || fw->state == AGX_FW_OFF) {
        return;
    }
    AGX_TRACE(&fw->trace, crash, reason);
    fw->ops->guest_error(fw->opaque, reason);
    fw->ops->log(fw->opaque, AGX_FWLOG_CRIT, reason);
    /* RTKit stops the endpoints: agx-fw.c stops the work queues */
    rtkit_crash(fw->rtk, reason);
    fw->state = AGX_FW_DEAD;
}

void agx_fw_crash_fault(AgxFw *fw, const char *what, const AgxUatFault *f)
{
    /* What the MMU latched stays readable in the SGX FAULT_INFO register */
    fw->fault_info = agx_uat_fault_info(f, 0);
    agx_fw_crash(fw, "GPU firmware: %s: %s fault at VA 0x%" G_GINT64_MODIFIER
                 "x (level %u)%s", what, agx_fault_reason_name(f->reason),
                 f->va, f->level, f->bad_table ? ", table outside RAM" : "");
}

bool agx_fw_read(AgxFw *fw, uint64_t va, void *buf, uint64_t len,
                 const char *what)
{
    AgxUatFault fault;

    if (!agx_uat_rw(&fw->uat, 0, va, buf, len, AGX_UAT_FW, false, &fault)) {
        agx_fw_crash_fault(fw, what, &fault);
        return false;
    }
    return true;
}

bool agx_fw_write(AgxFw *fw, uint64_t va, const void *buf, uint64_t len,
                  const char *what)
{
    AgxUatFault fault;

    if (!agx_uat_rw(&fw->uat, 0, va, (void *)buf, len, AGX_UAT_FW, true,
                    &fault)) {
        agx_fw_crash_fault(fw, what, &fault);
        return false;
    }
    /* A stamp a Barrier waits on may have moved */
    if (fw->note_write) {
        fw->note_write(fw, va, len);
    }
    return true;
}

bool agx_fw_ld32(AgxFw *fw, uint64_t va, uint32_t *val, const char *what)
{
    uint8_t b[4];

    if (!agx_fw_read(fw, va, b, sizeof(b), what)) {
        return false;
    }
    *val = apple_ld32(b);
    return true;
}

bool agx_fw_ld64(AgxFw *fw, uint64_t va, uint64_t *val, const char *what)
{
    uint8_t b[8];

    if (!agx_fw_read(fw, va, b, sizeof(b), what)) {
        return false;
    }
    *val = apple_ld64(b);
    return true;
}

bool agx_fw_st32(AgxFw *fw, uint64_t va, uint32_t val, const char *what)
{
    uint8_t b[4];

    apple_st32(b, val);
    return agx_fw_write(fw, va, b, sizeof(b), what);
}

bool agx_fw_st64(AgxFw *fw, uint64_t va, uint64_t val, const char *what)
{
    uint8_t b[8];

    apple_st64(b, val);
    return agx_fw_write(fw, va, b, sizeof(b), what);
}

uint64_t agx_fw_gpu_time(AgxFw *fw)
{
    return agx_ns_to_ticks(fw->gpu_clock ? fw->gpu_clock
                                          : fw->ops->now_ns(fw->opaque));
}

void agx_fw_rx_doorbell(AgxFw *fw)
{
    uint64_t msg = APPLE_FIELD_DP64(0, AGX_MSG, TYPE, AGX_MSG_RX_DOORBELL);

    /* One pending doorbell makes the driver poll every ring: no need for two */
    if (!rtkit_outbox_pending(fw->rtk, AGX_EP_FIRMWARE, msg)) {
        rtkit_send(fw->rtk, AGX_EP_FIRMWARE, msg);
    }
}

bool agx_fw_post_event(AgxFw *fw, const uint8_t *event, const char *what)
{
    AgxChannel *ch = &fw->ch[AGX_CH_EVENT];
    uint32_t idx = ch->fw_ptr;
    AgxUatFault fault;
    AgxChannelResult res = agx_channel_produce(ch, &fw->uat, event, &fault);

    if (res == AGX_CHANNEL_OK) {
        AGX_TRACE(&fw->trace, channel_write, ch->name, idx, apple_ld32(event));
        agx_fw_rx_doorbell(fw);
    } else if (res != AGX_CHANNEL_FULL) {
        agx_fw_crash(fw, "GPU firmware: event ring broken while %s", what);
        return false;
    }
    return true;
}

bool agx_fw_log(AgxFw *fw, AgxFwLogLevel level, const char *fmt, ...)
{
    uint8_t payload[AGX_FWLOG_PAYLOAD_SIZE] = { 0 };
    uint8_t elem[AGX_FWLOG_ELEM_SIZE] = { 0 };
    g_autofree char *msg = NULL;
    AgxChannel *ch = &fw->ch[AGX_CH_FWLOG0 + level];
    AgxChannelResult res;
    AgxUatFault fault;
    uint32_t idx;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    fw->ops->log(fw->opaque, level, msg);
    if (fw->state != AGX_FW_RUNNING || !ch->valid) {
        return true;
    }

    /* The payload first, then the ring entry that points at it */
    idx = ch->fw_ptr;
    apple_st32(payload, AGX_FWLOG_PAYLOAD_TYPE);
    apple_st32(payload + AGX_FWLOG_PAYLOAD_SEQ, fw->fwlog_seq++);
    apple_st64(payload + AGX_FWLOG_PAYLOAD_TIME, agx_fw_gpu_time(fw));
    g_strlcpy((char *)payload + AGX_FWLOG_PAYLOAD_MSG, msg,
              AGX_FWLOG_MSG_LEN);
    if (!agx_fw_write(fw, fw->fwlog_buf_va +
                  (uint64_t)(level * ch->count + idx) * sizeof(payload),
                  payload, sizeof(payload), "firmware log payload")) {
        return false;
    }
    apple_st32(elem, AGX_FWLOG_ELEM_TYPE);
    apple_st64(elem + AGX_FWLOG_ELEM_INDEX, idx);
    res = agx_channel_produce(ch, &fw->uat, elem, &fault);
    if (res == AGX_CHANNEL_FAULT) {
        agx_fw_crash_fault(fw, "firmware log ring", &fault);
        return false;
    } else if (res == AGX_CHANNEL_OK) {
        AGX_TRACE(&fw->trace, channel_write, ch->name, idx,
                  AGX_FWLOG_ELEM_TYPE);
        agx_fw_rx_doorbell(fw);
    }
    /* A full ring drops the line: the driver is not reading */
    return true;
}

