/*
 * AGX firmware microsequence interpreter
 *
 * A microsequence is the list of ops the driver builds for each Run*
 * command: Start, Timestamp, WaitForIdle, Timestamp, Finalize, Retire.
 * The interpreter runs a job's ops until it must wait for the (modelled)
 * GPU work, and again after it, up to the retire.  Ops are bounds-checked
 * against the sequence, the op count is bounded, and every pointer goes
 * through the UAT; anything else crashes the firmware with a crash log.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_USEQ_H
#define HW_AGX_AGX_USEQ_H

#include <stdint.h>
#include "hw/agx/agx-fw-state.h"

/* More ops than any driver-built sequence has: beyond this it loops */
#define AGX_USEQ_MAX_OPS        64
#define AGX_USEQ_MAX_SIZE       0x2000
#define AGX_USEQ_MAX_OP_SIZE    0x200

typedef enum AgxUseqResult {
    AGX_USEQ_WAIT,              /* WaitForIdle: the GPU work runs now */
    AGX_USEQ_RETIRED,           /* RetireStamp done */
    AGX_USEQ_FAILED,            /* the firmware crashed */
} AgxUseqResult;

/*
 * Run the ops of the job on @pipe (of type @pipe_type) from its current
 * position.  On AGX_USEQ_RETIRED, *slot is the event slot to signal.
 */
AgxUseqResult agx_useq_run(AgxFw *fw, unsigned pipe_type, AgxPipe *pipe,
                           uint32_t *slot);

/* Name of an opcode, for traces */
const char *agx_useq_op_name(unsigned opcode);

#endif
