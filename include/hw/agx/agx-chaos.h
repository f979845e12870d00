/*
 * AGX firmware "chaos" mode: deterministic, seeded variation of what the
 * real firmware is free to vary
 *
 * With a non-zero seed the firmware model varies, reproducibly from the
 * seed, the things a correct driver must not depend on: how long each
 * job's GPU work takes (never less than job-duration-ns), which of several
 * ready queues of one priority runs first, how long retired slots wait
 * before their Flag event (so more of them coalesce), how long a pipe
 * doorbell waits before its ring is consumed, and, at a chosen rate, the
 * GPU faults, timeouts and channel errors that can also be injected by
 * hand.  A driver that breaks under some seed has a bug the seed replays.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_CHAOS_H
#define HW_AGX_AGX_CHAOS_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-fw-state.h"

/* Longest extra delays chaos adds, in firmware (virtual) time */
#define AGX_CHAOS_FLAG_DELAY_NS         50000
#define AGX_CHAOS_DOORBELL_DELAY_NS     20000
/* A job's GPU work takes 1 to this many times job-duration-ns */
#define AGX_CHAOS_JOB_STRETCH           4

/* Restart the sequence from the configured seed (firmware start) */
void agx_chaos_reset(AgxFw *fw);
/* Is chaos on? */
bool agx_chaos_on(const AgxFw *fw);
/* A uniformly distributed number in [0, n); 0 if n is 0 */
uint64_t agx_chaos_below(AgxFw *fw, uint64_t n);
/* How long the GPU work of the job starting now takes */
int64_t agx_chaos_job_ns(AgxFw *fw);
/* Extra delay before the next Flag event / before a doorbell is served */
int64_t agx_chaos_flag_delay(AgxFw *fw);
int64_t agx_chaos_doorbell_delay(AgxFw *fw);
/* At the configured rate, arm a fault for the job that starts now */
void agx_chaos_maybe_inject(AgxFw *fw);

#endif
