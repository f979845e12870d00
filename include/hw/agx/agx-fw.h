/*
 * AGX G13 GPU firmware, high-level emulation
 *
 * The firmware's side of the protocol drm/asahi speaks: the firmware (0x20)
 * and doorbell (0x21) RTKit endpoints, the UAT handoff at boot, InitData,
 * the device-control and FwCtl rings, and the firmware log.  Work queues,
 * microsequences and events build on this (agx-wq.h).
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

#include <glib.h>
#include "hw/agx/agx-abi.h"
#include "hw/agx/agx-channel.h"
#include "hw/agx/agx-chaos.h"
#include "hw/agx/agx-job-abi.h"
#include "hw/agx/agx-trace.h"
#include "hw/agx/agx-wq.h"
#include "hw/agx/agx-fault.h"
#include "hw/agx/handoff.h"
#include "hw/agx/rtkit.h"
#include "hw/agx/uat.h"

#define AGX_EP_FIRMWARE         0x20
#define AGX_EP_DOORBELL         0x21

/* Channel indices: pipes first, numbered like their doorbells */
enum {
    AGX_NUM_PIPE_TYPES = 3,             /* vertex, fragment, compute */
    AGX_NUM_PRIORITIES = 4,
    AGX_CH_PIPE0 = 0,                   /* doorbell n = type | prio << 2 */
    AGX_CH_DEVCTRL = 16,
    AGX_CH_EVENT,
    AGX_CH_FWLOG0,                      /* 6 sub-rings: debug .. crit */
    AGX_CH_KTRACE = AGX_CH_FWLOG0 + 6,
    AGX_CH_STATS,
    AGX_CH_FWCTL,
    AGX_NUM_CHANNELS,
};

#define AGX_FWLOG_LEVELS        6
/* Virtual time a job's GPU work takes unless configured */
#define AGX_FW_DEFAULT_JOB_NS   20000
#define AGX_FWLOG_MSG_LEN       0xc8

typedef enum AgxFwState {
    AGX_FW_OFF,                 /* coprocessor not running */
    AGX_FW_WAIT_INIT,           /* booted, no InitData yet */
    AGX_FW_RUNNING,
    AGX_FW_DEAD,                /* crashed */
} AgxFwState;

typedef enum AgxFwLogLevel {
    AGX_FWLOG_DEBUG,
    AGX_FWLOG_INFO,
    AGX_FWLOG_NOTICE,
    AGX_FWLOG_WARN,
    AGX_FWLOG_ERR,
    AGX_FWLOG_CRIT,
} AgxFwLogLevel;

typedef struct AgxFwOps {
    AgxPhysRW phys_rw;
    int64_t (*now_ns)(void *opaque);
    /*
     * The 24 MHz timebase the CPUs' counter also shows (optional: else
     * derived from now_ns), for GPU time stamps
     */
    uint64_t (*gpu_ticks)(void *opaque);
    /* The driver broke the protocol */
    void (*guest_error)(void *opaque, const char *msg);
    /* Firmware log lines, for the host */
    void (*log)(void *opaque, int level, const char *msg);
    /* Arm the firmware timer for @deadline_ns virtual time; -1 cancels */
    void (*timer_mod)(void *opaque, int64_t deadline_ns);
} AgxFwOps;

typedef struct AgxFw {
    /* Configuration; not migrated */
    const AgxFwOps *ops;
    void *opaque;
    RTKitState *rtk;
    const AgxAbi *abi;
    const AgxJobAbi *job_abi;
    uint64_t job_ns;            /* virtual duration of a job's GPU work */
    uint64_t chaos_seed;        /* agx-chaos.h; 0 = off */
    uint32_t chaos_fault_permille;      /* jobs given an injected fault */
    uint64_t handoff_pa;
    uint64_t ttbat_pa;
    AgxUat uat;
    AgxHandoff handoff;
    AgxTrace trace;             /* typed trace events (agx-trace.h) */

    /* State, migrated by the owner */
    uint32_t state;             /* AgxFwState */
    uint64_t initdata_va;
    uint64_t rp_va;             /* RuntimePointers */
    uint64_t globals_va;
    uint64_t fw_status_va;
    uint64_t hwdata_a_va;
    uint64_t hwdata_b_va;
    uint64_t fwlog_buf_va;
    AgxChannel ch[AGX_NUM_CHANNELS];
    bool initialized;           /* DeviceControl Initialize seen */
    uint32_t fwlog_seq;
    uint64_t fault_info;        /* the SGX FAULT_INFO register */
    uint32_t devctrl_count;     /* messages processed, for tests */
    uint32_t fwctl_count;

    /* Work queues and the hardware units */
    AgxQueue queues[AGX_MAX_QUEUES];
    AgxPipe pipes[AGX_NUM_PIPES];
    uint64_t queue_seq;
    uint32_t firing[AGX_NUM_EVENT_SLOTS / 32];  /* slots to signal */
    uint64_t jobs_done;
    int64_t flags_due;          /* not before: the next Flag event */
    uint32_t deferred_doorbells;        /* pipe channels not served yet */
    int64_t doorbells_due;
    uint64_t chaos_state;
    uint32_t wq_budget;         /* entries left in this pass; not migrated */
    bool barrier_waits;         /* a queue may wait on a Barrier (hint) */

    /* Faults (agx-fault.h) */
    uint32_t inject;            /* AgxFaultInject for the next job */
    bool halted;                /* waiting for the driver's resume */
    uint64_t halt_count;
    uint32_t timeout_count;
} AgxFw;

void agx_fw_init(AgxFw *fw, const AgxFwOps *ops, void *opaque,
                 RTKitState *rtk, const AgxAbi *abi, uint64_t handoff_pa,
                 uint64_t ttbat_pa);

/* Send the firmware's typed trace events (and the UAT's) to @ops */
void agx_fw_set_trace(AgxFw *fw, const AgxTraceOps *ops, void *opaque);

/* The coprocessor CPU started (CPU_CONTROL.RUN) or stopped */
void agx_fw_cpu_start(AgxFw *fw);
void agx_fw_cpu_stop(AgxFw *fw);

/* Crash with a crash log (RTKit) */
void agx_fw_crash(AgxFw *fw, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* Write a line to the firmware log ring the driver prints */
void agx_fw_log(AgxFw *fw, AgxFwLogLevel level, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

/* GPU time stamp: 24 MHz ticks */
uint64_t agx_fw_gpu_time(AgxFw *fw);

/* Tell the driver to poll its RX rings (EP 0x20, 0x42 << 48) */
void agx_fw_rx_doorbell(AgxFw *fw);

/* The firmware timer fired */
void agx_fw_timer(AgxFw *fw);

/* Firmware memory access in the kernel context; crash on a fault */
bool agx_fw_read(AgxFw *fw, uint64_t va, void *buf, uint64_t len,
                 const char *what);
bool agx_fw_write(AgxFw *fw, uint64_t va, const void *buf, uint64_t len,
                  const char *what);
void agx_fw_guest_error(AgxFw *fw, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* Restore derived state after migration: channel layouts, UAT, handoff */
void agx_fw_post_load(AgxFw *fw);

#endif
