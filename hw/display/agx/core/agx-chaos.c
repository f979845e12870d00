/*
 * AGX firmware "chaos" mode: seeded variation of what the firmware may vary
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-chaos.h"

void agx_chaos_reset(AgxFw *fw)
{
    fw->chaos_state = fw->chaos_seed;
}

bool agx_chaos_on(const AgxFw *fw)
{
    return fw->chaos_seed != 0;
}

/* splitmix64: small, fast, and its whole state is one migrated word */
static uint64_t chaos_next(AgxFw *fw)
{
    uint64_t z = (fw->chaos_state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t agx_chaos_below(AgxFw *fw, uint64_t n)
{
    return n ? chaos_next(fw) % n : 0;
}

int64_t agx_chaos_job_ns(AgxFw *fw)
{
    if (!agx_chaos_on(fw)) {
        return fw->job_ns;
    }
    return fw->job_ns +
           agx_chaos_below(fw, (AGX_CHAOS_JOB_STRETCH - 1) * fw->job_ns + 1);
}

int64_t agx_chaos_flag_delay(AgxFw *fw)
{
    return agx_chaos_on(fw) ?
           agx_chaos_below(fw, AGX_CHAOS_FLAG_DELAY_NS + 1) : 0;
}

int64_t agx_chaos_doorbell_delay(AgxFw *fw)
{
    return agx_chaos_on(fw) ?
           agx_chaos_below(fw, AGX_CHAOS_DOORBELL_DELAY_NS + 1) : 0;
}

void agx_chaos_maybe_inject(AgxFw *fw)
{
    static const AgxFaultInject kinds[] = {
        AGX_INJECT_GPU_FAULT, AGX_INJECT_TIMEOUT, AGX_INJECT_CHANNEL_ERROR,
    };
    AgxFaultInject kind;

    if (!agx_chaos_on(fw) || !fw->chaos_fault_permille ||
        fw->inject != AGX_INJECT_NONE ||
        agx_chaos_below(fw, 1000) >= fw->chaos_fault_permille) {
        return;
    }
    kind = kinds[agx_chaos_below(fw, G_N_ELEMENTS(kinds))];
    fw->inject = kind;
    AGX_TRACE(&fw->trace, chaos_inject,
              kind == AGX_INJECT_GPU_FAULT ? "gpu-fault" :
              kind == AGX_INJECT_TIMEOUT ? "timeout" : "channel-error");
}
