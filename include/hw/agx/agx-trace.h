/*
 * AGX firmware core: typed trace events
 *
 * The core is QEMU-independent, so it cannot call tracetool's trace_*()
 * functions itself.  It emits each event through a hook of AgxTraceOps
 * with the event's typed arguments; inside QEMU every hook is the
 * trace_agx_<event>() of hw/display/agx/trace-events (apple-agx-trace.c),
 * so that -trace 'agx_job_*' selects one kind and simpletrace can analyse
 * a run.  Standalone, hooks left NULL cost one test; unit tests record.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_TRACE_H
#define HW_AGX_AGX_TRACE_H

#include <stdbool.h>
#include <stdint.h>

/* One hook per event of trace-events, named without the agx_ prefix */
typedef struct AgxTraceOps {
    /* Boot: InitData (agx-fw.c) */
    void (*initdata)(void *opaque, uint64_t va, const char *abi);
    void (*initdata_accepted)(void *opaque, uint64_t rp, uint64_t globals,
                              uint64_t fw_status);
    /* Firmware crash, with its reason (agx-fw.c) */
    void (*crash)(void *opaque, const char *reason);
    /* Channel messages (agx-fw.c): doorbells, entries consumed, posted */
    void (*channel_doorbell)(void *opaque, unsigned channel);
    void (*channel_read)(void *opaque, const char *channel, uint32_t idx,
                         uint32_t tag);
    void (*channel_write)(void *opaque, const char *channel, uint32_t idx,
                          uint32_t tag);
    /* Device control and FwCtl messages (agx-fw.c) */
    void (*devctrl_initialize)(void *opaque);
    void (*devctrl_destroy_context)(void *opaque, uint64_t context);
    void (*devctrl_update_idle_ts)(void *opaque, uint64_t ticks);
    void (*devctrl_grow_tvb_ack)(void *opaque, uint32_t buffer_slot);
    void (*fwctl_flush)(void *opaque, uint32_t slot, uint64_t addr,
                        uint32_t pages);
    /* Work queues (agx-wq.c) */
    void (*queue_run)(void *opaque, unsigned pipe, unsigned prio,
                      uint64_t queue, uint32_t wptr, uint32_t slot,
                      bool is_new);
    void (*queue_barrier)(void *opaque, uint64_t queue, uint64_t stamp_va,
                          uint32_t value);
    void (*queue_forget)(void *opaque, uint64_t queue);
    void (*queue_recover_channel)(void *opaque, uint64_t queue);
    /* Jobs (agx-wq.c); GPU work of @duration_ns virtual time */
    void (*job_start)(void *opaque, unsigned pipe, uint64_t queue,
                      uint64_t cmd, uint32_t vm_slot);
    void (*job_work)(void *opaque, unsigned pipe, uint64_t cmd,
                     int64_t duration_ns);
    void (*job_retire)(void *opaque, unsigned pipe, uint64_t cmd,
                       uint32_t slot);
    void (*job_retire_failed)(void *opaque, unsigned pipe, uint64_t cmd,
                              uint32_t slot);
    /* Microsequence ops (agx-useq.c) */
    void (*useq_op)(void *opaque, unsigned pipe, uint32_t offset,
                    unsigned op, const char *name);
    /* Stamps the firmware writes (agx-useq.c, agx-wq.c) */
    void (*stamp_fw)(void *opaque, unsigned pipe, uint64_t va,
                     uint32_t value);
    void (*stamp_retire)(void *opaque, unsigned pipe, uint64_t va,
                         uint32_t value, uint32_t slot);
    void (*stamp_time)(void *opaque, unsigned pipe, uint64_t ticks,
                       bool start);
    /* The parameter blocks a job started with (agx-params.c) */
    void (*job_params)(void *opaque, unsigned pipe, uint64_t cmd);
    /* Events on the event ring (agx-wq.c, agx-fault.c) */
    void (*event_flag)(void *opaque, uint32_t w0, uint32_t w1, uint32_t w2,
                       uint32_t w3);
    void (*event_fault)(void *opaque, uint64_t fault_info);
    void (*event_timeout)(void *opaque, uint32_t counter, uint32_t slot);
    void (*event_channel_error)(void *opaque, uint32_t type, unsigned pipe,
                                uint32_t slot, uint32_t value);
    /* Faults, halts and recovery (agx-fault.c, agx-chaos.c) */
    void (*fault_inject)(void *opaque, const char *kind, unsigned pipe,
                         uint64_t cmd);
    void (*fault_watchdog)(void *opaque, unsigned pipe, uint64_t cmd);
    void (*fault_halt)(void *opaque, uint64_t halt_count);
    void (*fault_resume)(void *opaque, uint64_t halt_count);
    void (*chaos_inject)(void *opaque, const char *kind);
    /* The tiled vertex buffer manager (agx-tvb.c) */
    void (*tvb_init_buffer)(void *opaque, uint32_t slot, uint32_t vm_slot,
                            uint64_t info, uint32_t blocks);
    void (*tvb_grow_request)(void *opaque, uint32_t slot, uint32_t vm_slot,
                             uint32_t counter, uint64_t cmd);
    void (*tvb_grow_ack)(void *opaque, uint32_t slot, uint32_t counter,
                         uint32_t blocks);
    void (*tvb_grow_timeout)(void *opaque, uint32_t slot, uint32_t counter);
    void (*tvb_unbind)(void *opaque, uint32_t slot, uint64_t info);
    /*
     * A live scene's pages (agx-tvb.h): the buffer, the scene, its first
     * page and page count, the buffer's live scenes, what happened
     * ("begins", "binned", "returned", "freed", "evicted")
     */
    void (*tvb_scene)(void *opaque, uint64_t info, uint64_t scene,
                      uint32_t first, uint32_t pages, uint32_t live,
                      const char *what);
    /*
     * The compute data master (agx-cdm.c): a launch bound (@va: its
     * block; grid in threadgroups, threadgroup size in threads, USC
     * address of its pipeline), a slice of a dispatch (threadgroups and
     * instructions it ran; @done: the stream ended), a slice that ended
     * inside threadgroup @group (linear index in its launch), suspending
     * it after @insns of its instructions, a job it failed
     */
    void (*cdm_launch)(void *opaque, uint64_t va, uint32_t gx, uint32_t gy,
                       uint32_t gz, uint32_t lx, uint32_t ly, uint32_t lz,
                       uint32_t pipeline);
    void (*cdm_slice)(void *opaque, uint64_t cmd, uint64_t groups,
                      uint64_t insns, bool done);
    void (*cdm_suspend)(void *opaque, uint64_t cmd, uint64_t group,
                        uint64_t insns);
    void (*cdm_fault)(void *opaque, uint64_t cmd, const char *why,
                      uint64_t va);
    /*
     * The vertex data master (agx-vdm.c): a draw it starts (the Index
     * List's address, primitive, count, instances, whether indexed), the
     * scene a vertex job finished (primitives binned, culled, dropped to
     * overflow, TVB pages used)
     */
    void (*vdm_draw)(void *opaque, uint64_t va, uint32_t prim,
                     uint32_t count, uint32_t instances, bool indexed);
    void (*vdm_scene)(void *opaque, uint64_t cmd, uint32_t prims,
                      uint64_t culled, uint32_t dropped, uint32_t pages);
    /*
     * A partial render (agx-vdm.h): the vertex command, the fragment
     * command whose partial programs render the pass, the pass (0: the
     * first), its TVB pages
     */
    void (*vdm_partial)(void *opaque, uint64_t cmd, uint64_t frag_cmd,
                        uint32_t pass, uint32_t pages);
    /*
     * A slice of render work that ended inside tile @tile (raster order
     * over the layers) of a fragment command, in its @phase
     * (AgxFragPhase), or inside the vertex shader of a vertex command's
     * batch (the draw's instance @instance): the SIMD-group running, if
     * any, suspended after @insns of its instructions
     */
    void (*frag_suspend)(void *opaque, uint64_t cmd, uint32_t tile,
                         uint32_t phase, uint64_t insns);
    void (*vdm_suspend)(void *opaque, uint64_t cmd, uint32_t instance,
                        uint64_t insns);
    /* UAT walks (agx-uat.c) */
    void (*uat_walk)(void *opaque, unsigned slot, uint64_t va, bool is_write,
                     uint64_t pa);
    void (*uat_fault)(void *opaque, unsigned slot, uint64_t va, bool is_write,
                      unsigned reason, unsigned level);
} AgxTraceOps;

/* Where a layer sends its events; ops == NULL: tracing off */
typedef struct AgxTrace {
    const AgxTraceOps *ops;
    void *opaque;
} AgxTrace;

/* Emit @event with its typed arguments, if anybody listens */
#define AGX_TRACE(trace, event, ...)                                    \
    do {                                                                \
        const AgxTrace *trace_ = (trace);                               \
        if (trace_ && trace_->ops && trace_->ops->event) {              \
            trace_->ops->event(trace_->opaque, ##__VA_ARGS__);          \
        }                                                               \
    } while (0)

#endif
