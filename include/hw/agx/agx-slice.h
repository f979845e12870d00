/*
 * AGX data masters: a pipe's GPU work run in slices
 *
 * The compute and vertex data masters and the fragment pipe run a job's
 * work on the firmware timer in slices of an instruction budget, so the
 * host's main loop is never held long.  After each slice the job retires
 * (its work is over), waits for the next slice, takes a GPU fault, or
 * hangs (it ran out of its job's budget, or one threadgroup or tile of
 * its own) for the watchdog to report as a timeout.  This is that step,
 * the same for the three.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_SLICE_H
#define HW_AGX_AGX_SLICE_H

#include <glib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-fw-state.h"

/* How a slice ended (AgxCdmResult, AgxVdmResult, AgxFragResult) */
typedef enum AgxSliceResult {
    AGX_SLICE_DONE,             /* the work is over */
    AGX_SLICE_MORE,             /* the slice is used up: go on later */
    AGX_SLICE_FAULT,            /* a GPU fault (or bad words) */
    AGX_SLICE_RUNAWAY,          /* the job's instruction budget ran out */
} AgxSliceResult;

/* One data master's slicing */
typedef struct AgxSliceKind {
    unsigned pipe;              /* AGX_PIPE_* */
    const char *who;            /* "GPU compute data master" */
    const char *command;        /* "compute" */
    uint64_t slice_ns;          /* from one slice to the next */
    uint64_t job_budget;        /* instructions of a job */
    const char *unit;           /* "threadgroup", "tile", or NULL */
    uint64_t unit_budget;       /* instructions of one unit */
} AgxSliceKind;

/*
 * After a slice of @k's job on @p ended with @r: true when the job may
 * retire; MORE: its next slice is due in k->slice_ns; FAULT: a GPU fault
 * at *@fault; RUNAWAY: a guest error, and the job hangs.
 */
bool agx_slice_end(AgxFw *fw, AgxPipe *p, const AgxSliceKind *k,
                   AgxSliceResult r, const AgxUatFault *fault);

/*
 * @k's job met bad words (or state) at @va of VM slot @slot: a guest
 * error "WHO: MESSAGE at VA of COMMAND command CMD_VA", and *@fault a GPU
 * fault at @va, as the hardware would take reading them
 */
void agx_slice_vbad(AgxFw *fw, const AgxSliceKind *k, unsigned slot,
                    uint64_t va, AgxUatFault *fault, const char *fmt,
                    va_list ap) G_GNUC_PRINTF(6, 0);

#endif
