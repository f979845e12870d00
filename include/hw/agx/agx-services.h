/*
 * AGX G13 GPU firmware: the services every layer uses
 *
 * The bottom of the firmware's layers (agx-fw-state.h): guest memory in
 * the kernel context through the UAT, crashing with a crash log, guest
 * errors, the firmware log the driver prints, GPU time, the RX doorbell
 * and trace events.  The services call nothing above them: a crash stops
 * the firmware's RTKit endpoints, and the dispatcher, told so by RTKit,
 * stops the layers; writes are shown to the work queues through
 * AgxFw.note_write, which the dispatcher sets.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_SERVICES_H
#define HW_AGX_AGX_SERVICES_H

#include <glib.h>
#include "hw/agx/agx-fw-state.h"

/* A firmware log line as the driver reads it, per ring entry */
#define AGX_FWLOG_PAYLOAD_SIZE  0xd8
/* Entries of each level's ring; state blocks of the levels' rings */
#define AGX_FWLOG_RING_LEN      0x100
#define AGX_FWLOG_STATE_STRIDE  0x30

/* Send the firmware's typed trace events (and the UAT's) to @ops */
void agx_fw_set_trace(AgxFw *fw, const AgxTraceOps *ops, void *opaque);

/*
 * Failure, in every layer: a function that can crash the firmware returns
 * bool, false when it did.  The caller stops what it was doing and
 * returns false in turn (or just returns, if it returns nothing).  Only
 * loops over steps that return nothing (ring drains running message
 * handlers, scheduling passes) look at fw->state instead, and stop when
 * it leaves AGX_FW_RUNNING.  Guest errors the firmware survives are no
 * failure.
 */

/*
 * Firmware memory access in the kernel context: the only way the layers
 * above reach guest memory.  On a UAT fault the firmware crashes, naming
 * @what, and the result is false (*val is left alone).  Values are
 * little endian and need no alignment: drm/asahi's U64 is packed, and a
 * value may straddle two pages.
 */
bool agx_fw_read(AgxFw *fw, uint64_t va, void *buf, uint64_t len,
                 const char *what) G_GNUC_WARN_UNUSED_RESULT;
bool agx_fw_write(AgxFw *fw, uint64_t va, const void *buf, uint64_t len,
                  const char *what) G_GNUC_WARN_UNUSED_RESULT;
bool agx_fw_ld32(AgxFw *fw, uint64_t va, uint32_t *val, const char *what)
    G_GNUC_WARN_UNUSED_RESULT;
bool agx_fw_ld64(AgxFw *fw, uint64_t va, uint64_t *val, const char *what)
    G_GNUC_WARN_UNUSED_RESULT;
bool agx_fw_st32(AgxFw *fw, uint64_t va, uint32_t val, const char *what)
    G_GNUC_WARN_UNUSED_RESULT;
bool agx_fw_st64(AgxFw *fw, uint64_t va, uint64_t val, const char *what)
    G_GNUC_WARN_UNUSED_RESULT;

/* Crash with a crash log (RTKit); the firmware is dead until restarted */
void agx_fw_crash(AgxFw *fw, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* Crash because an access to @what faulted; FAULT_INFO latches @fault */
void agx_fw_crash_fault(AgxFw *fw, const char *what, const AgxUatFault *fault);

/* The driver broke the protocol; the firmware goes on */
void agx_fw_guest_error(AgxFw *fw, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* The guest needs what the model does not implement; it goes on */
void agx_fw_unimp(AgxFw *fw, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/*
 * Write a line to the firmware log ring the driver prints (and to the
 * host's log); a full ring drops it.  False if the ring crashed the
 * firmware: callers with more to do check it, a last line need not.
 */
bool agx_fw_log(AgxFw *fw, AgxFwLogLevel level, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

/*
 * The SoC timebase the CPUs' counter (CNTVCT) and the GPU's time stamps
 * both count.  QEMU's generic timer counts it with an integer period
 * (41 ns), and the firmware does the same, so that GPU and CPU time
 * stamps agree.
 */
#define AGX_TIMEBASE_HZ         24000000
#define AGX_TIMEBASE_PERIOD_NS  (1000000000 / AGX_TIMEBASE_HZ)

static inline uint64_t agx_ns_to_ticks(int64_t ns)
{
    return ns / AGX_TIMEBASE_PERIOD_NS;
}

/*
 * Timebase ticks in nanoseconds as drm/asahi converts them (GET_TIME):
 * times 1e9 / 24e6 = 125 / 3, in u64 arithmetic
 */
static inline uint64_t agx_ticks_to_ns(uint64_t ticks)
{
    return ticks * 125 / 3;
}

/* GPU time stamp: timebase ticks at the firmware's virtual time */
uint64_t agx_fw_gpu_time(AgxFw *fw);

/* Tell the driver to poll its RX rings (EP 0x20, 0x42 << 48) */
void agx_fw_rx_doorbell(AgxFw *fw);

/*
 * Post @event on the event ring and ring the RX doorbell; a full ring
 * drops it (the driver is not reading).  A broken ring crashes the
 * firmware ("... while @what"): false then.
 */
bool agx_fw_post_event(AgxFw *fw, const uint8_t *event, const char *what);

#endif
