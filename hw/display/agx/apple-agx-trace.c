/*
 * Apple AGX GPU: the firmware core's typed trace events, as QEMU trace
 * events
 *
 * The core (agx-trace.h) emits each event through a hook; every hook here
 * is the tracetool-generated trace_agx_<event>() of the same name and
 * arguments (trace-events), so -trace 'agx_job_*' and simpletrace work as
 * for any QEMU device.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/display/apple-agx.h"
#include "trace.h"

static void apple_agx_trace_initdata(void *opaque, uint64_t va,
                                     const char *abi)
{
    trace_agx_initdata(va, abi);
}

static void apple_agx_trace_initdata_accepted(void *opaque, uint64_t rp,
                                              uint64_t globals,
                                              uint64_t fw_status)
{
    trace_agx_initdata_accepted(rp, globals, fw_status);
}

static void apple_agx_trace_crash(void *opaque, const char *reason)
{
    trace_agx_crash(reason);
}

static void apple_agx_trace_channel_doorbell(void *opaque, unsigned channel)
{
    trace_agx_channel_doorbell(channel);
}

static void apple_agx_trace_channel_read(void *opaque, const char *channel,
                                         uint32_t idx, uint32_t tag)
{
    trace_agx_channel_read(channel, idx, tag);
}

static void apple_agx_trace_channel_write(void *opaque, const char *channel,
                                          uint32_t idx, uint32_t tag)
{
    trace_agx_channel_write(channel, idx, tag);
}

static void apple_agx_trace_devctrl_initialize(void *opaque)
{
    trace_agx_devctrl_initialize();
}

static void apple_agx_trace_devctrl_destroy_context(void *opaque,
                                                    uint64_t context)
{
    trace_agx_devctrl_destroy_context(context);
}

static void apple_agx_trace_devctrl_update_idle_ts(void *opaque,
                                                   uint64_t ticks)
{
    trace_agx_devctrl_update_idle_ts(ticks);
}

static void apple_agx_trace_devctrl_grow_tvb_ack(void *opaque,
                                                 uint32_t buffer_slot)
{
    trace_agx_devctrl_grow_tvb_ack(buffer_slot);
}

static void apple_agx_trace_fwctl_flush(void *opaque, uint32_t slot,
                                        uint64_t addr, uint32_t pages)
{
    trace_agx_fwctl_flush(slot, addr, pages);
}

static void apple_agx_trace_queue_run(void *opaque, unsigned pipe,
                                      unsigned prio, uint64_t queue,
                                      uint32_t wptr, uint32_t slot,
                                      bool is_new)
{
    trace_agx_queue_run(pipe, prio, queue, wptr, slot, is_new);
}

static void apple_agx_trace_queue_barrier(void *opaque, uint64_t queue,
                                          uint64_t stamp_va, uint32_t value)
{
    trace_agx_queue_barrier(queue, stamp_va, value);
}

static void apple_agx_trace_queue_forget(void *opaque, uint64_t queue)
{
    trace_agx_queue_forget(queue);
}

static void apple_agx_trace_queue_recover_channel(void *opaque, uint64_t queue)
{
    trace_agx_queue_recover_channel(queue);
}

static void apple_agx_trace_job_start(void *opaque, unsigned pipe,
                                      uint64_t queue, uint64_t cmd,
                                      uint32_t vm_slot)
{
    trace_agx_job_start(pipe, queue, cmd, vm_slot);
}

static void apple_agx_trace_job_work(void *opaque, unsigned pipe, uint64_t cmd,
                                     int64_t duration_ns)
{
    trace_agx_job_work(pipe, cmd, duration_ns);
}

static void apple_agx_trace_job_retire(void *opaque, unsigned pipe,
                                       uint64_t cmd, uint32_t slot)
{
    trace_agx_job_retire(pipe, cmd, slot);
}

static void apple_agx_trace_job_retire_failed(void *opaque, unsigned pipe,
                                              uint64_t cmd, uint32_t slot)
{
    trace_agx_job_retire_failed(pipe, cmd, slot);
}

static void apple_agx_trace_useq_op(void *opaque, unsigned pipe,
                                    uint32_t offset, unsigned op,
                                    const char *name)
{
    trace_agx_useq_op(pipe, offset, op, name);
}

static void apple_agx_trace_stamp_fw(void *opaque, unsigned pipe, uint64_t va,
                                     uint32_t value)
{
    trace_agx_stamp_fw(pipe, va, value);
}

static void apple_agx_trace_stamp_retire(void *opaque, unsigned pipe,
                                         uint64_t va, uint32_t value,
                                         uint32_t slot)
{
    trace_agx_stamp_retire(pipe, va, value, slot);
}

static void apple_agx_trace_stamp_time(void *opaque, unsigned pipe,
                                       uint64_t ticks, bool start)
{
    trace_agx_stamp_time(pipe, ticks, start);
}

static void apple_agx_trace_job_params(void *opaque, unsigned pipe,
                                       uint64_t cmd)
{
    trace_agx_job_params(pipe, cmd);
}

static void apple_agx_trace_event_flag(void *opaque, uint32_t w0, uint32_t w1,
                                       uint32_t w2, uint32_t w3)
{
    trace_agx_event_flag(w0, w1, w2, w3);
}

static void apple_agx_trace_event_fault(void *opaque, uint64_t fault_info)
{
    trace_agx_event_fault(fault_info);
}

static void apple_agx_trace_event_timeout(void *opaque, uint32_t counter,
                                          uint32_t slot)
{
    trace_agx_event_timeout(counter, slot);
}

static void apple_agx_trace_event_channel_error(void *opaque, uint32_t type,
                                                unsigned pipe, uint32_t slot,
                                                uint32_t value)
{
    trace_agx_event_channel_error(type, pipe, slot, value);
}

static void apple_agx_trace_fault_inject(void *opaque, const char *kind,
                                         unsigned pipe, uint64_t cmd)
{
    trace_agx_fault_inject(kind, pipe, cmd);
}

static void apple_agx_trace_fault_watchdog(void *opaque, unsigned pipe,
                                           uint64_t cmd)
{
    trace_agx_fault_watchdog(pipe, cmd);
}

static void apple_agx_trace_fault_halt(void *opaque, uint64_t halt_count)
{
    trace_agx_fault_halt(halt_count);
}

static void apple_agx_trace_fault_resume(void *opaque, uint64_t halt_count)
{
    trace_agx_fault_resume(halt_count);
}

static void apple_agx_trace_chaos_inject(void *opaque, const char *kind)
{
    trace_agx_chaos_inject(kind);
}

static void apple_agx_trace_tvb_init_buffer(void *opaque, uint32_t slot,
                                            uint32_t vm_slot, uint64_t info,
                                            uint32_t blocks)
{
    trace_agx_tvb_init_buffer(slot, vm_slot, info, blocks);
}

static void apple_agx_trace_tvb_grow_request(void *opaque, uint32_t slot,
                                             uint32_t vm_slot,
                                             uint32_t counter, uint64_t cmd)
{
    trace_agx_tvb_grow_request(slot, vm_slot, counter, cmd);
}

static void apple_agx_trace_tvb_grow_ack(void *opaque, uint32_t slot,
                                         uint32_t counter, uint32_t blocks)
{
    trace_agx_tvb_grow_ack(slot, counter, blocks);
}

static void apple_agx_trace_tvb_grow_timeout(void *opaque, uint32_t slot,
                                             uint32_t counter)
{
    trace_agx_tvb_grow_timeout(slot, counter);
}

static void apple_agx_trace_tvb_scene(void *opaque, uint64_t info,
                                      uint64_t scene, uint32_t first,
                                      uint32_t pages, uint32_t live,
                                      const char *what)
{
    trace_agx_tvb_scene(info, scene, first, pages, live, what);
}

static void apple_agx_trace_tvb_unbind(void *opaque, uint32_t slot,
                                       uint64_t info)
{
    trace_agx_tvb_unbind(slot, info);
}

static void apple_agx_trace_cdm_launch(void *opaque, uint64_t va, uint32_t gx,
                                       uint32_t gy, uint32_t gz, uint32_t lx,
                                       uint32_t ly, uint32_t lz,
                                       uint32_t pipeline)
{
    trace_agx_cdm_launch(va, gx, gy, gz, lx, ly, lz, pipeline);
}

static void apple_agx_trace_cdm_slice(void *opaque, uint64_t cmd,
                                      uint64_t groups, uint64_t insns,
                                      bool done)
{
    trace_agx_cdm_slice(cmd, groups, insns, done);
}

static void apple_agx_trace_cdm_suspend(void *opaque, uint64_t cmd,
                                        uint64_t group, uint64_t insns)
{
    trace_agx_cdm_suspend(cmd, group, insns);
}

static void apple_agx_trace_vdm_draw(void *opaque, uint64_t va,
                                     uint32_t prim, uint32_t count,
                                     uint32_t instances, bool indexed)
{
    trace_agx_vdm_draw(va, prim, count, instances, indexed);
}

static void apple_agx_trace_vdm_scene(void *opaque, uint64_t cmd,
                                      uint32_t prims, uint64_t culled,
                                      uint32_t dropped, uint32_t pages)
{
    trace_agx_vdm_scene(cmd, prims, culled, dropped, pages);
}

static void apple_agx_trace_vdm_partial(void *opaque, uint64_t cmd,
                                        uint64_t frag_cmd, uint32_t pass,
                                        uint32_t pages)
{
    trace_agx_vdm_partial(cmd, frag_cmd, pass, pages);
}

static void apple_agx_trace_frag_suspend(void *opaque, uint64_t cmd,
                                         uint32_t tile, uint32_t phase,
                                         uint64_t insns)
{
    trace_agx_frag_suspend(cmd, tile, phase, insns);
}

static void apple_agx_trace_vdm_suspend(void *opaque, uint64_t cmd,
                                        uint32_t instance, uint64_t insns)
{
    trace_agx_vdm_suspend(cmd, instance, insns);
}

static void apple_agx_trace_cdm_fault(void *opaque, uint64_t cmd,
                                      const char *why, uint64_t va)
{
    trace_agx_cdm_fault(cmd, why, va);
}

static void apple_agx_trace_uat_walk(void *opaque, unsigned slot, uint64_t va,
                                     bool is_write, uint64_t pa)
{
    trace_agx_uat_walk(slot, va, is_write, pa);
}

static void apple_agx_trace_uat_fault(void *opaque, unsigned slot, uint64_t va,
                                      bool is_write, unsigned reason,
                                      unsigned level)
{
    trace_agx_uat_fault(slot, va, is_write, reason, level);
}

const AgxTraceOps apple_agx_trace_ops = {
    .initdata = apple_agx_trace_initdata,
    .initdata_accepted = apple_agx_trace_initdata_accepted,
    .crash = apple_agx_trace_crash,
    .channel_doorbell = apple_agx_trace_channel_doorbell,
    .channel_read = apple_agx_trace_channel_read,
    .channel_write = apple_agx_trace_channel_write,
    .devctrl_initialize = apple_agx_trace_devctrl_initialize,
    .devctrl_destroy_context = apple_agx_trace_devctrl_destroy_context,
    .devctrl_update_idle_ts = apple_agx_trace_devctrl_update_idle_ts,
    .devctrl_grow_tvb_ack = apple_agx_trace_devctrl_grow_tvb_ack,
    .fwctl_flush = apple_agx_trace_fwctl_flush,
    .queue_run = apple_agx_trace_queue_run,
    .queue_barrier = apple_agx_trace_queue_barrier,
    .queue_forget = apple_agx_trace_queue_forget,
    .queue_recover_channel = apple_agx_trace_queue_recover_channel,
    .job_start = apple_agx_trace_job_start,
    .job_work = apple_agx_trace_job_work,
    .job_retire = apple_agx_trace_job_retire,
    .job_retire_failed = apple_agx_trace_job_retire_failed,
    .useq_op = apple_agx_trace_useq_op,
    .stamp_fw = apple_agx_trace_stamp_fw,
    .stamp_retire = apple_agx_trace_stamp_retire,
    .stamp_time = apple_agx_trace_stamp_time,
    .job_params = apple_agx_trace_job_params,
    .event_flag = apple_agx_trace_event_flag,
    .event_fault = apple_agx_trace_event_fault,
    .event_timeout = apple_agx_trace_event_timeout,
    .event_channel_error = apple_agx_trace_event_channel_error,
    .fault_inject = apple_agx_trace_fault_inject,
    .fault_watchdog = apple_agx_trace_fault_watchdog,
    .fault_halt = apple_agx_trace_fault_halt,
    .fault_resume = apple_agx_trace_fault_resume,
    .chaos_inject = apple_agx_trace_chaos_inject,
    .tvb_init_buffer = apple_agx_trace_tvb_init_buffer,
    .tvb_grow_request = apple_agx_trace_tvb_grow_request,
    .tvb_grow_ack = apple_agx_trace_tvb_grow_ack,
    .tvb_grow_timeout = apple_agx_trace_tvb_grow_timeout,
    .tvb_unbind = apple_agx_trace_tvb_unbind,
    .tvb_scene = apple_agx_trace_tvb_scene,
    .cdm_launch = apple_agx_trace_cdm_launch,
    .cdm_slice = apple_agx_trace_cdm_slice,
    .cdm_suspend = apple_agx_trace_cdm_suspend,
    .cdm_fault = apple_agx_trace_cdm_fault,
    .vdm_draw = apple_agx_trace_vdm_draw,
    .vdm_scene = apple_agx_trace_vdm_scene,
    .vdm_partial = apple_agx_trace_vdm_partial,
    .frag_suspend = apple_agx_trace_frag_suspend,
    .vdm_suspend = apple_agx_trace_vdm_suspend,
    .uat_walk = apple_agx_trace_uat_walk,
    .uat_fault = apple_agx_trace_uat_fault,
};
