/*
 * AGX data masters: a pipe's GPU work run in slices (agx-slice.h)
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-fault.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-slice.h"

bool agx_slice_end(AgxFw *fw, AgxPipe *p, const AgxSliceKind *k,
                   AgxSliceResult r, const AgxUatFault *fault)
{
    g_autofree char *unit = NULL;

    switch (r) {
    case AGX_SLICE_DONE:
        return true;
    case AGX_SLICE_MORE:
        p->done_at = fw->ops->now_ns(fw->opaque) + k->slice_ns;
        return false;
    case AGX_SLICE_FAULT:
        agx_fault_gpu_fault_at(fw, k->pipe, p, fault);
        return false;
    default:
        if (k->unit) {
            unit = g_strdup_printf(" (or one %s more than %" G_GINT64_MODIFIER
                                   "u)", k->unit, k->unit_budget);
        }
        agx_fw_guest_error(fw, "%s: %s command 0x%" G_GINT64_MODIFIER "x "
                           "ran more than %" G_GINT64_MODIFIER "u "
                           "instructions%s: it hangs", k->who, k->command,
                           p->cmd_va, k->job_budget, unit ?: "");
        agx_fault_job_hangs(fw, k->pipe, p);
        return false;
    }
}

void agx_slice_vbad(AgxFw *fw, const AgxSliceKind *k, unsigned slot,
                    uint64_t va, AgxUatFault *fault, const char *fmt,
                    va_list ap)
{
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);

    agx_fw_guest_error(fw, "%s: %s at 0x%" G_GINT64_MODIFIER "x of %s "
                       "command 0x%" G_GINT64_MODIFIER "x", k->who, msg, va,
                       k->command, fw->pipes[k->pipe].cmd_va);
    *fault = (AgxUatFault) {
        .va = va,
        .slot = slot,
        .reason = AGX_UAT_FAULT_UNMAPPED,
        .level = AGX_UAT_LEVELS - 1,
    };
}
