/*
 * Apple AGX G13G GPU (t8103): the GPU's ASC coprocessor with the emulated
 * GPU firmware, plus the SGX register block
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_DISPLAY_APPLE_AGX_H
#define HW_DISPLAY_APPLE_AGX_H

#include "chardev/char-fe.h"
#include "hw/apple/apple-asc.h"
#include "hw/agx/agx-fw.h"

#define TYPE_APPLE_AGX "apple-agx"
OBJECT_DECLARE_TYPE(AppleAGXState, AppleAGXClass, APPLE_AGX)

#define APPLE_AGX_SGX_SIZE      0x1000000

/* What a G13 GPU firmware advertises: crash log, syslog, ioreport (0x16) */
#define APPLE_AGX_SYS_EPS \
    ((1u << RTKIT_EP_CRASHLOG) | (1u << RTKIT_EP_SYSLOG) | \
     (1u << RTKIT_EP_IOREPORT))

/* The firmware core's trace hooks: QEMU trace events (apple-agx-trace.c) */
extern const AgxTraceOps apple_agx_trace_ops;

struct AppleAGXClass {
    AppleASCClass parent_class;
    DeviceRealize parent_realize;
    DeviceUnrealize parent_unrealize;
    ResettablePhases parent_phases;
};

struct AppleAGXState {
    AppleASCState parent_obj;

    MemoryRegion sgx;           /* sysbus MMIO region 1 */
    AgxFw fw;
    QEMUTimer *timer;           /* the firmware's job timer */
    uint32_t fender_d14000;     /* SGX +0xd14000, meaning unknown */

    /* Properties */
    char *fw_version;           /* the firmware's, and so its ABI: 13.5 */
    uint32_t core_mask;
    uint64_t handoff_base;
    uint64_t ttbs_base;
    uint64_t job_ns;
    uint64_t chaos_seed;
    uint32_t chaos_fault_rate;  /* per thousand jobs */
    CharBackend fwlog;          /* firmware log for the host */
};

#endif
