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

/* Send the firmware's typed trace events (and the UAT's) to @ops */
void agx_fw_set_trace(AgxFw *fw, const AgxTraceOps *ops, void *opaque);

/*
 * Firmware memory access in the kernel context.  On a UAT fault the
 * firmware crashes, naming @what, and the result is false.
 */
bool agx_fw_read(AgxFw *fw, uint64_t va, void *buf, uint64_t len,
                 const char *what);
bool agx_fw_write(AgxFw *fw, uint64_t va, const void *buf, uint64_t len,
                  const char *what);

/* Crash with a crash log (RTKit); the firmware is dead until restarted */
void agx_fw_crash(AgxFw *fw, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* Crash because an access to @what faulted; FAULT_INFO latches @fault */
void agx_fw_crash_fault(AgxFw *fw, const char *what, const AgxUatFault *fault);

/* The driver broke the protocol; the firmware goes on */
void agx_fw_guest_error(AgxFw *fw, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* Write a line to the firmware log ring the driver prints */
void agx_fw_log(AgxFw *fw, AgxFwLogLevel level, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

/* GPU time stamp: 24 MHz ticks */
uint64_t agx_fw_gpu_time(AgxFw *fw);

/* Tell the driver to poll its RX rings (EP 0x20, 0x42 << 48) */
void agx_fw_rx_doorbell(AgxFw *fw);

#endif
