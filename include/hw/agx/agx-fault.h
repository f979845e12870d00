/*
 * AGX firmware faults, timeouts and the halt/resume handshake
 *
 * What the firmware does when a job takes a GPU page fault or stops making
 * progress, as drm/asahi's recovery path expects it: latch FAULT_INFO,
 * list the in-flight stamps in Globals.pending_stamps, halt (FwStatus
 * halt_count / halted), post a Fault or Timeout event with the RX doorbell,
 * and wait until the driver sets FwStatus.resume.  Faults are injected
 * from the host, or raised by the compute data master (agx-cdm.h) for a
 * bad control stream or a shader's GPU fault, and its runaway shaders
 * hang their job.  Faults sit below the work queues: they are told when a job
 * starts, retires or hangs, halt the pipes, and leave the queues' failed
 * commands to the work queues (agx_wq_resume(), agx_wq_recover_channel()).
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_FAULT_H
#define HW_AGX_AGX_FAULT_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-fw-state.h"

/* The address a GPU fault reports, in the job's VM */
#define AGX_FAULT_INJECT_VA     0x7fdead0000ULL
/* Progress-check intervals, ms: the driver's Globals defaults per pipe */
#define AGX_WATCHDOG_VERTEX_MS  10
#define AGX_WATCHDOG_FRAG_MS    40
#define AGX_WATCHDOG_COMP_MS    250

/*
 * A halted firmware watches FwStatus.resume, which the driver sets without
 * ringing anything: this often, in virtual time, and only while halted
 */
#define AGX_FAULT_RESUME_POLL_NS 1000000

/*
 * Event ring tags of faults: AGX_EVENT_FAULT, AGX_EVENT_TIMEOUT and
 * AGX_EVENT_CHANNEL_ERROR, generated from core/agx-structs.def
 */

/* ChannelError types; the injected one is a memory error */
enum {
    AGX_CHANNEL_ERROR_MEMORY = 0,
    AGX_CHANNEL_ERROR_DM_KILL = 1,
    AGX_CHANNEL_ERROR_ABORTED = 2,
};

/*
 * A job started on @pipe: list its stamp; apply an injected fault.
 * False if the firmware crashed (agx-services.h), as for the next two.
 */
bool agx_fault_job_started(AgxFw *fw, unsigned pipe_type, AgxPipe *p);
/*
 * The job on @pipe took a GPU fault (@fault, in its VM): latch FAULT_INFO
 * with the unit of the pipe's data master, report it and halt
 */
bool agx_fault_gpu_fault_at(AgxFw *fw, unsigned pipe_type, AgxPipe *p,
                            const AgxUatFault *fault);
/*
 * The job on @pipe makes no more progress: the pipe's watchdog reports
 * it as a timeout when it fires
 */
void agx_fault_job_hangs(AgxFw *fw, unsigned pipe_type, AgxPipe *p);
/* A job retired: drop it from the list */
bool agx_fault_job_retired(AgxFw *fw, unsigned pipe_type);
/* The watchdog of @pipe fired: report a timeout and halt */
bool agx_fault_timeout(AgxFw *fw, unsigned pipe_type);
/* Whether the watchdog of @pipe has gone off at @now */
bool agx_fault_watchdog_due(AgxFw *fw, unsigned pipe_type, int64_t now);
/* Look at FwStatus.resume again after AGX_FAULT_RESUME_POLL_NS */
void agx_fault_arm_resume_poll(AgxFw *fw);
/*
 * Has the driver resumed the halted firmware (FwStatus.resume)?  If so,
 * acknowledge it and leave the halt: the caller then retires the commands
 * the halt caught and calls agx_fault_resume_done().  False if not, or
 * if the firmware crashed reading FwStatus.
 */
bool agx_fault_resume_requested(AgxFw *fw);
/*
 * After a resume: clear the pending-stamp list, log the resume; false if
 * the firmware crashed
 */
bool agx_fault_resume_done(AgxFw *fw);

#endif
