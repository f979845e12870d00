/*
 * AGX G13 GPU firmware, high-level emulation
 *
 * The firmware's side of the protocol drm/asahi speaks: the firmware (0x20)
 * and doorbell (0x21) RTKit endpoints, the UAT handoff at boot, InitData,
 * the device-control and FwCtl rings.  This dispatcher is the top of the
 * firmware's layers (agx-fw-state.h): it receives every message and timer
 * tick and hands them down to the work queues (agx-wq.h), faults
 * (agx-fault.h), the TVB manager (agx-tvb.h), microsequences
 * (agx-useq.h) and services
 * (agx-services.h), and it stops the layers when RTKit stops its
 * endpoints (sleep, crash).  Its users include this header only.
 *
 * QEMU-independent: the owner provides guest memory, time and logging
 * through AgxFwOps and owns the RTKit instance the endpoints live on.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_FW_H
#define HW_AGX_AGX_FW_H

#include "hw/agx/agx-cdm.h"
#include "hw/agx/agx-frag.h"
#include "hw/agx/agx-chaos.h"
#include "hw/agx/agx-fault.h"
#include "hw/agx/agx-fw-state.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-tvb.h"
#include "hw/agx/agx-useq.h"
#include "hw/agx/agx-vdm.h"
#include "hw/agx/agx-wq.h"

void agx_fw_init(AgxFw *fw, const AgxFwOps *ops, void *opaque,
                 RTKitState *rtk, const AgxAbi *abi, uint64_t handoff_pa,
                 uint64_t ttbat_pa);

/* The coprocessor CPU started (CPU_CONTROL.RUN) or stopped */
void agx_fw_cpu_start(AgxFw *fw);
void agx_fw_cpu_stop(AgxFw *fw);

/* The firmware timer fired */
void agx_fw_timer(AgxFw *fw);

/*
 * After an incoming migration: check the migrated state (states, injected
 * fault, channel, queue and pipe indices and sizes within what the model
 * can hold), then set what it leaves out: the channels' names, and the
 * work queues' scan hints (queues_end, barrier_waits) at their safe
 * values, which the next scan narrows.  The UAT and the handoff need
 * nothing: agx_fw_init() set them up.  Returns NULL, or why the state is
 * rejected (then nothing is set: the owner fails the migration).
 */
const char *agx_fw_post_load(AgxFw *fw);

#endif
