/*
 * Apple AGX G13G GPU (t8103): ASC coprocessor with emulated firmware, SGX
 *
 * The GPU's ASC runs the firmware model of agx-fw.c on the RTKit endpoints
 * 0x20/0x21; this file is the QEMU glue: the SGX register block the driver
 * reads at probe (ID registers, core masks, FAULT_INFO), guest memory
 * access for the firmware, tracing, the firmware log chardev and
 * migration.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "hw/apple/apple-log.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "hw/display/apple-agx.h"
#include "hw/agx/agx-frag.h"
#include "hw/agx/agx-params.h"
#include "hw/agx/agx-wq.h"
#include "qapi/visitor.h"
#include "hw/agx/agx-useq.h"
#include "trace.h"

/* SGX registers the driver reads; values of a t8103 B1 part */
REG32(FAULT_INFO, 0x17030)
REG32(FAULT_INFO_HI, 0x17034)
REG32(CORE_MASK_0, 0xd01500)
REG32(CORE_MASK_1, 0xd01514)
REG32(ID_VERSION, 0xd04000)
REG32(ID_UNK08, 0xd04008)
REG32(ID_COUNTS_1, 0xd04010)
REG32(ID_COUNTS_2, 0xd04014)
REG32(ID_UNK18, 0xd04018)
REG32(ID_CLUSTERS, 0xd0401c)
/*
 * In the "Fender" block the firmware's IO map covers.  Its meaning is
 * unknown; m1n1's Python driver (after macOS) reads it, discarding the 0
 * it gets, and writes 0x70001 at start-up.  Linux never touches it.  The
 * model keeps what is written.
 */
REG32(FENDER_D14000, 0xd14000)

#define T8103_ID_VERSION        0x04021100      /* G13, variant G, B1 */
#define T8103_ID_UNK08          0x00040a04
#define T8103_ID_COUNTS_1       0x00030808      /* 8 cores per cluster */
#define T8103_ID_COUNTS_2       0x00040404      /* 4 GPs */
#define T8103_ID_UNK18          0x01320300
#define T8103_ID_CLUSTERS       0x00101311      /* 1 cluster, 1 die */

static uint64_t apple_agx_sgx_read(void *opaque, hwaddr addr, unsigned size)
{
    AppleAGXState *s = opaque;
    uint64_t val = 0;

    switch (addr) {
    case A_FAULT_INFO:
        val = size == 8 ? s->fw.fault_info : (uint32_t)s->fw.fault_info;
        break;
    case A_FAULT_INFO_HI:
        val = s->fw.fault_info >> 32;
        break;
    case A_CORE_MASK_0:
        val = s->core_mask;
        break;
    case A_CORE_MASK_1:
        val = 0;
        break;
    case A_ID_VERSION:
        val = T8103_ID_VERSION;
        break;
    case A_ID_UNK08:
        val = T8103_ID_UNK08;
        break;
    case A_ID_COUNTS_1:
        val = T8103_ID_COUNTS_1;
        break;
    case A_ID_COUNTS_2:
        val = T8103_ID_COUNTS_2;
        break;
    case A_ID_UNK18:
        val = T8103_ID_UNK18;
        break;
    case A_ID_CLUSTERS:
        val = T8103_ID_CLUSTERS;
        break;
    case A_FENDER_D14000:
        val = s->fender_d14000;
        break;
    default:
        apple_log_mask(LOG_UNIMP, OBJECT(s), "unimplemented SGX read at 0x%"
                       HWADDR_PRIx "\n",
                       addr);
        break;
    }
    trace_apple_agx_sgx_read(addr, size, val);
    return val;
}

static void apple_agx_sgx_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    AppleAGXState *s = opaque;

    trace_apple_agx_sgx_write(addr, size, val);
    if (addr == A_FENDER_D14000 && size == 4) {
        s->fender_d14000 = val;
        return;
    }
    /* Drivers write no other SGX register; the firmware owns them */
    apple_log_mask(LOG_UNIMP, OBJECT(s), "unimplemented SGX write of 0x%" PRIx64
                   " at 0x%" HWADDR_PRIx "\n", val, addr);
}

static const MemoryRegionOps apple_agx_sgx_ops = {
    .read = apple_agx_sgx_read,
    .write = apple_agx_sgx_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 8,
    .impl.min_access_size = 4,
    .impl.max_access_size = 8,
};

static bool apple_agx_phys_rw(void *opaque, uint64_t pa, void *buf,
                              uint64_t len, bool is_write)
{
    return apple_asc_ram_rw(pa, buf, len, is_write);
}

static int64_t apple_agx_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void apple_agx_guest_error(void *opaque, const char *msg)
{
    apple_log_mask(LOG_GUEST_ERROR, OBJECT(opaque), "%s\n", msg);
}

static void apple_agx_unimp(void *opaque, const char *msg)
{
    apple_log_mask(LOG_UNIMP, OBJECT(opaque), "%s\n", msg);
}

static bool apple_agx_guest_error_on(void *opaque)
{
    return qemu_loglevel_mask(LOG_GUEST_ERROR);
}

static void apple_agx_log(void *opaque, int level, const char *msg)
{
    AppleAGXState *s = opaque;
    g_autofree char *line = g_strdup_printf("agx-fw[%d]: %s\n", level, msg);

    trace_apple_agx_fw_log(level, msg);
    if (qemu_chr_fe_backend_connected(&s->fwlog)) {
        qemu_chr_fe_write_all(&s->fwlog, (const uint8_t *)line,
                              strlen(line));
    }
}

static void apple_agx_timer_mod(void *opaque, int64_t deadline_ns)
{
    AppleAGXState *s = opaque;

    if (deadline_ns < 0) {
        timer_del(s->timer);
    } else {
        timer_mod(s->timer, deadline_ns);
    }
}

static void apple_agx_timer_cb(void *opaque)
{
    AppleAGXState *s = opaque;

    /* The GPU's clock is off: what fell due waits for its return */
    if (APPLE_ASC(s)->clock_off) {
        return;
    }
    agx_fw_timer(&s->fw);
    /* Events and retired stamps are announced through the mailbox */
    apple_asc_kick(APPLE_ASC(s));
}

static const AgxFwOps apple_agx_fw_ops = {
    .phys_rw = apple_agx_phys_rw,
    .now_ns = apple_agx_now_ns,
    .timer_mod = apple_agx_timer_mod,
    .guest_error = apple_agx_guest_error,
    .unimp = apple_agx_unimp,
    .guest_error_on = apple_agx_guest_error_on,
    .log = apple_agx_log,
};

static void apple_agx_cpu_started(AppleASCState *asc)
{
    agx_fw_cpu_start(&APPLE_AGX(asc)->fw);
}

static void apple_agx_clock_resumed(AppleASCState *asc)
{
    apple_agx_timer_cb(APPLE_AGX(asc));
}

static void apple_agx_cpu_stopped(AppleASCState *asc)
{
    agx_fw_cpu_stop(&APPLE_AGX(asc)->fw);
}

/*
 * RTKit buffers: the GPU driver maps them in the kernel UAT context and
 * hands over GPU VAs, so they are translated like any firmware access.
 */
static bool apple_agx_iova_rw(AppleASCState *asc, uint64_t iova, void *buf,
                              uint64_t len, bool is_write)
{
    AppleAGXState *s = APPLE_AGX(asc);
    AgxUatFault fault;

    if (iova & (1ULL << 43)) {
        iova |= ~((1ULL << 44) - 1);
    }
    return agx_uat_rw(&s->fw.uat, 0, iova, buf, len, AGX_UAT_FW, is_write,
                      &fault);
}

static void apple_agx_setup_endpoints(AppleASCState *asc)
{
    AppleAGXState *s = APPLE_AGX(asc);

    agx_fw_init(&s->fw, &apple_agx_fw_ops, s, &asc->rtk,
                agx_abi_by_name(s->fw_version), s->handoff_base,
                s->ttbs_base);
    agx_fw_set_trace(&s->fw, &apple_agx_trace_ops, s);
    s->fw.job_ns = s->job_ns;
    s->fw.chaos_seed = s->chaos_seed;
    s->fw.chaos_fault_permille = s->chaos_fault_rate;
    s->fw.shaders_off = !s->shaders;
    s->fw.cdm_slice = s->shader_slice;
    s->fw.cdm_budget = s->shader_budget;
}

static const char *const apple_agx_inject_names[] = {
    [AGX_INJECT_NONE] = "none",
    [AGX_INJECT_GPU_FAULT] = "gpu-fault",
    [AGX_INJECT_TIMEOUT] = "timeout",
    [AGX_INJECT_CHANNEL_ERROR] = "channel-error",
    [AGX_INJECT_GROW_TVB] = "grow-tvb",
};

/* What the next job to start will do: reading tells what is still armed */
static char *apple_agx_get_inject(Object *obj, Error **errp)
{
    return g_strdup(apple_agx_inject_names[APPLE_AGX(obj)->fw.inject]);
}

static void apple_agx_set_inject(Object *obj, const char *value,
                                 Error **errp)
{
    AppleAGXState *s = APPLE_AGX(obj);

    for (int i = 0; i < ARRAY_SIZE(apple_agx_inject_names); i++) {
        if (!strcmp(value, apple_agx_inject_names[i])) {
            s->fw.inject = i;
            return;
        }
    }
    error_setg(errp, "inject-fault: '%s' is not none, gpu-fault, timeout, "
               "channel-error or grow-tvb", value);
}

static const char *const apple_agx_state_names[] = {
    [AGX_FW_OFF] = "off",
    [AGX_FW_WAIT_INIT] = "waiting-for-initdata",
    [AGX_FW_RUNNING] = "running",
    [AGX_FW_DEAD] = "crashed",
};

/* Where the firmware is: for QMP users and tests, read-only */
static char *apple_agx_get_state(Object *obj, Error **errp)
{
    AppleAGXState *s = APPLE_AGX(obj);

    return g_strdup(s->fw.halted && s->fw.state == AGX_FW_RUNNING ?
                    "halted" : apple_agx_state_names[s->fw.state]);
}

static char *apple_agx_get_params(AppleAGXState *s, unsigned pipe)
{
    return agx_params_format(&s->fw, pipe);
}

static char *apple_agx_get_vertex_params(Object *obj, Error **errp)
{
    return apple_agx_get_params(APPLE_AGX(obj), AGX_PIPE_VERTEX);
}

static char *apple_agx_get_fragment_params(Object *obj, Error **errp)
{
    return apple_agx_get_params(APPLE_AGX(obj), AGX_PIPE_FRAGMENT);
}

static char *apple_agx_get_compute_params(Object *obj, Error **errp)
{
    return apple_agx_get_params(APPLE_AGX(obj), AGX_PIPE_COMPUTE);
}

static void apple_agx_get_live_contexts(Object *obj, Visitor *v,
                                        const char *name, void *opaque,
                                        Error **errp)
{
    uint32_t n = agx_wq_live_contexts(&APPLE_AGX(obj)->fw);

    visit_type_uint32(v, name, &n, errp);
}

/* The firmware's counters: read-only uint64 properties */
static const struct {
    const char *name;
    size_t offset;              /* in AppleAGXState */
    const char *desc;
} apple_agx_counters[] = {
    { "jobs-done", offsetof(AppleAGXState, fw.jobs_done),
      "Commands the firmware has completed since it started" },
    { "tvb-grows", offsetof(AppleAGXState, fw.tvb.grows),
      "GrowTVBAck messages received for bound tiled vertex buffers" },
    { "cdm-launches", offsetof(AppleAGXState, fw.cdm.launches),
      "Launches the compute data master has bound (with at least one "
      "thread)" },
    { "usc-threadgroups", offsetof(AppleAGXState, fw.cdm.threadgroups),
      "Compute threadgroups the shader cores have run to their end" },
    { "cdm-slices", offsetof(AppleAGXState, fw.cdm.slices),
      "Slices of compute work the firmware timer has run" },
    { "cdm-suspensions", offsetof(AppleAGXState, fw.cdm.suspensions),
      "Slices of compute work that ended inside a threadgroup or a "
      "preamble, suspending it until the next" },
    { "usc-unimplemented", offsetof(AppleAGXState, fw.cdm.unimplemented),
      "Launches cut short at an instruction the shader interpreter lacks" },
    { "cdm-faults", offsetof(AppleAGXState, fw.cdm.faults),
      "Compute jobs failed by a bad stream, a GPU fault or a runaway "
      "shader" },
    { "frag-tiles", offsetof(AppleAGXState, fw.frag.tiles),
      "Tiles the fragment pipe has rendered (background, primitives, end "
      "of tile)" },
    { "frag-fragments", offsetof(AppleAGXState, fw.frag.fragments),
      "Pixels the fragment pipe has shaded for primitives" },
    { "frag-slices", offsetof(AppleAGXState, fw.frag.slices),
      "Slices of fragment work the firmware timer has run" },
    { "frag-unimplemented", offsetof(AppleAGXState, fw.frag.unimplemented),
      "Tile programs cut short at an instruction the shader interpreter "
      "lacks" },
    { "frag-suspensions", offsetof(AppleAGXState, fw.frag.suspensions),
      "Slices of fragment work that ended inside a tile, suspending it "
      "until the next" },
    { "frag-faults", offsetof(AppleAGXState, fw.frag.faults),
      "Fragment jobs failed by bad programs, a GPU fault or a runaway "
      "shader" },
    { "vdm-draws", offsetof(AppleAGXState, fw.vdm.draws),
      "Draws (Index List blocks) the vertex data master walked" },
    { "vdm-prims", offsetof(AppleAGXState, fw.vdm.prims),
      "Primitives binned into scenes" },
    { "vdm-culled", offsetof(AppleAGXState, fw.vdm.culled),
      "Triangles culled (facing, clipped away or empty)" },
    { "vdm-vertices", offsetof(AppleAGXState, fw.vdm.vertices),
      "Vertex shader invocations" },
    { "vdm-suspensions", offsetof(AppleAGXState, fw.vdm.suspensions),
      "Slices of vertex work that ended inside a batch's vertex shader, "
      "suspending it until the next" },
    { "vdm-faults", offsetof(AppleAGXState, fw.vdm.faults),
      "Vertex jobs failed by a bad stream, a GPU fault or a runaway "
      "shader" },
    { "tvb-page-waits", offsetof(AppleAGXState, fw.tvb.page_waits),
      "Vertex slices that waited for a fragment job to return TVB pages" },
    { "tvb-evictions", offsetof(AppleAGXState, fw.tvb.evictions),
      "Live scenes whose TVB pages were taken back after a long wait" },
    { "vdm-partials", offsetof(AppleAGXState, fw.vdm.partial_renders),
      "Partial renders: passes of scenes rendered when they filled their "
      "TVB pages" },
};

static void apple_agx_init(Object *obj)
{
    AppleAGXState *s = APPLE_AGX(obj);

    memory_region_init_io(&s->sgx, obj, &apple_agx_sgx_ops, s, "apple-agx.sgx",
                          APPLE_AGX_SGX_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->sgx);
    /* In the GPU's power domain, as the ASC (see hw/apple/apple-asc.c) */
    apple_asc_add_gate(APPLE_ASC(obj), &s->sgx);
    /*
     * The GPU's policy, over the generic ASC's defaults (properties can
     * still override them): the firmware it runs and what that advertises
     */
    s->fw_version = g_strdup("13.5");
    s->parent_obj.sys_eps = APPLE_AGX_SYS_EPS;
    object_property_add_str(obj, "inject-fault", apple_agx_get_inject,
                            apple_agx_set_inject);
    object_property_set_description(obj, "inject-fault",
                                    "What the next job does: none, "
                                    "gpu-fault, timeout, channel-error or "
                                    "grow-tvb (the next vertex job with a "
                                    "bound buffer asks to grow it)");
    object_property_add_str(obj, "firmware-state", apple_agx_get_state, NULL);
    object_property_set_description(obj, "firmware-state",
                                    "off, waiting-for-initdata, running, "
                                    "halted (after a fault, until resumed) "
                                    "or crashed");
    for (int i = 0; i < ARRAY_SIZE(apple_agx_counters); i++) {
        const char *name = apple_agx_counters[i].name;

        object_property_add_uint64_ptr(obj, name,
                                       (uint64_t *)((uint8_t *)s +
                                           apple_agx_counters[i].offset),
                                       OBJ_PROP_FLAG_READ);
        object_property_set_description(obj, name,
                                        apple_agx_counters[i].desc);
    }
    object_property_add_uint32_ptr(obj, "tvb-blocks", &s->fw.tvb.blocks,
                                   OBJ_PROP_FLAG_READ);
    object_property_set_description(obj, "tvb-blocks",
                                    "Block count of the tiled vertex "
                                    "buffer the firmware last read "
                                    "(InitBuffer or after a grow)");
    object_property_add(obj, "live-contexts", "uint32",
                        apple_agx_get_live_contexts, NULL, NULL, NULL);
    object_property_set_description(obj, "live-contexts",
                                    "GPU contexts of the work queues the "
                                    "firmware knows (until DestroyContext)");
    object_property_add_str(obj, "vertex-params",
                            apple_agx_get_vertex_params, NULL);
    object_property_add_str(obj, "fragment-params",
                            apple_agx_get_fragment_params, NULL);
    object_property_add_str(obj, "compute-params",
                            apple_agx_get_compute_params, NULL);
    for (int i = 0; i < AGX_NUM_PIPES; i++) {
        static const char *const names[] = {
            "vertex-params", "fragment-params", "compute-params",
        };

        object_property_set_description(obj, names[i],
                                        "What the firmware read from the "
                                        "pipe's last job when it started: "
                                        "name=0x... per parameter field");
    }
}

static void apple_agx_realize(DeviceState *dev, Error **errp)
{
    AppleAGXState *s = APPLE_AGX(dev);
    AppleASCState *asc = APPLE_ASC(dev);

    if (!agx_abi_by_name(s->fw_version)) {
        error_setg(errp, "firmware-version '%s' is not supported (13.5 or "
                   "12.3)", s->fw_version);
        return;
    }
    if (!s->core_mask || s->core_mask & ~0xffu) {
        error_setg(errp, "core-mask 0x%x: t8103 has cores 0..7",
                   s->core_mask);
        return;
    }
    if (s->chaos_fault_rate > 1000) {
        error_setg(errp, "chaos-fault-rate is per thousand jobs: 0 to 1000");
        return;
    }
    if (!s->job_ns || s->job_ns > NANOSECONDS_PER_SECOND) {
        error_setg(errp, "job-duration-ns must be between 1 and 1000000000");
        return;
    }
    if (!s->handoff_base || !s->ttbs_base) {
        error_setg(errp, "handoff-base and ttbs-base must be set (the "
                   "machine's reserved memory)");
        return;
    }
    /* Shown in RTKit's crash log */
    asc->rtk.fw_version = s->fw_version;
    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, apple_agx_timer_cb, s);
    APPLE_AGX_GET_CLASS(dev)->parent_realize(dev, errp);
}

static void apple_agx_unrealize(DeviceState *dev)
{
    AppleAGXState *s = APPLE_AGX(dev);

    timer_free(s->timer);
    APPLE_AGX_GET_CLASS(dev)->parent_unrealize(dev);
}

/*
 * A threadgroup or tile suspended in the live state gives way to the
 * stream's
 */
static int apple_agx_pre_load(void *opaque)
{
    AgxFw *fw = &APPLE_AGX(opaque)->fw;

    agx_usc_tg_free(&fw->cdm.tg);
    fw->cdm.in_preamble = false;
    agx_frag_tile_free(&fw->frag);
    agx_frag_tile_free(&fw->vdm.pfrag);
    agx_usc_tg_free(&fw->vdm.batch.group);
    return 0;
}

static int apple_agx_post_load(void *opaque, int version_id)
{
    AppleAGXState *s = opaque;
    const char *reason = agx_fw_post_load(&s->fw);

    if (reason) {
        g_autofree char *path = object_get_canonical_path(OBJECT(s));

        error_report("%s: incoming migration rejected: %s", path, reason);
        return -EINVAL;
    }
    return 0;
}

static const VMStateDescription vmstate_agx_channel = {
    .name = "agx-channel",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(state_va, AgxChannel),
        VMSTATE_UINT64(ring_va, AgxChannel),
        VMSTATE_UINT32(count, AgxChannel),
        VMSTATE_UINT32(elem_size, AgxChannel),
        VMSTATE_UINT32(rptr_off, AgxChannel),
        VMSTATE_UINT32(wptr_off, AgxChannel),
        VMSTATE_UINT32(ring_first, AgxChannel),
        VMSTATE_BOOL(tx, AgxChannel),
        VMSTATE_BOOL(valid, AgxChannel),
        VMSTATE_UINT32(fw_ptr, AgxChannel),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_queue = {
    .name = "agx-queue",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(info_va, AgxQueue),
        VMSTATE_UINT64(state_va, AgxQueue),
        VMSTATE_UINT64(ring_va, AgxQueue),
        VMSTATE_UINT64(gpu_context, AgxQueue),
        VMSTATE_UINT64(seq, AgxQueue),
        VMSTATE_UINT32(pipe, AgxQueue),
        VMSTATE_UINT32(prio, AgxQueue),
        VMSTATE_UINT32(rptr, AgxQueue),
        VMSTATE_UINT32(wptr, AgxQueue),
        VMSTATE_UINT32(event_slot, AgxQueue),
        VMSTATE_UINT32(wait, AgxQueue),
        VMSTATE_UINT64(barrier_va, AgxQueue),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_pipe = {
    .name = "agx-pipe",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(busy, AgxPipe),
        VMSTATE_UINT32(queue, AgxPipe),
        VMSTATE_UINT64(cmd_va, AgxPipe),
        VMSTATE_UINT64(useq_va, AgxPipe),
        VMSTATE_UINT32(useq_size, AgxPipe),
        VMSTATE_UINT32(useq_pos, AgxPipe),
        VMSTATE_UINT32(vm_slot, AgxPipe),
        VMSTATE_BOOL(started, AgxPipe),
        VMSTATE_BOOL(waited, AgxPipe),
        VMSTATE_BOOL(hung, AgxPipe),
        VMSTATE_INT64(done_at, AgxPipe),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_fw = {
    .name = "agx-fw",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(state, AgxFw),
        VMSTATE_UINT64(initdata_va, AgxFw),
        VMSTATE_UINT64(rp_va, AgxFw),
        VMSTATE_UINT64(globals_va, AgxFw),
        VMSTATE_UINT64(fw_status_va, AgxFw),
        VMSTATE_UINT64(hwdata_a_va, AgxFw),
        VMSTATE_UINT64(hwdata_b_va, AgxFw),
        VMSTATE_UINT64(fwlog_buf_va, AgxFw),
        VMSTATE_STRUCT_ARRAY(ch, AgxFw, AGX_NUM_CHANNELS, 1,
                             vmstate_agx_channel, AgxChannel),
        VMSTATE_BOOL(initialized, AgxFw),
        VMSTATE_UINT32(fwlog_seq, AgxFw),
        VMSTATE_UINT64(fault_info, AgxFw),
        VMSTATE_UINT32(devctrl_count, AgxFw),
        VMSTATE_UINT32(fwctl_count, AgxFw),
        VMSTATE_STRUCT_ARRAY(queues, AgxFw, AGX_MAX_QUEUES, 1,
                             vmstate_agx_queue, AgxQueue),
        VMSTATE_STRUCT_ARRAY(pipes, AgxFw, AGX_NUM_PIPES, 1,
                             vmstate_agx_pipe, AgxPipe),
        VMSTATE_UINT64(queue_seq, AgxFw),
        VMSTATE_UINT32_ARRAY(firing, AgxFw, AGX_NUM_EVENT_SLOTS / 32),
        VMSTATE_UINT64(jobs_done, AgxFw),
        VMSTATE_UINT32(inject, AgxFw),
        VMSTATE_BOOL(halted, AgxFw),
        VMSTATE_UINT64(halt_count, AgxFw),
        VMSTATE_UINT32(timeout_count, AgxFw),
        VMSTATE_INT64(flags_due, AgxFw),
        VMSTATE_UINT32(deferred_doorbells, AgxFw),
        VMSTATE_INT64(doorbells_due, AgxFw),
        VMSTATE_UINT64(chaos_state, AgxFw),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_params = {
    .name = "agx-params",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(valid, AgxParams),
        VMSTATE_UINT64(cmd_va, AgxParams),
        VMSTATE_UINT8_ARRAY(record, AgxParams, AGX_PARAMS_RECORD_MAX),
        VMSTATE_UINT8_ARRAY(op_a, AgxParams, AGX_PARAMS_BLOCK_MAX),
        VMSTATE_UINT8_ARRAY(op_b, AgxParams, AGX_PARAMS_BLOCK_MAX),
        VMSTATE_END_OF_LIST()
    }
};

/* What the pipes' last jobs started with, once any job started */
static bool apple_agx_params_needed(void *opaque)
{
    AppleAGXState *s = opaque;

    for (int i = 0; i < AGX_NUM_PIPES; i++) {
        if (s->fw.params[i].valid) {
            return true;
        }
    }
    return false;
}

static const VMStateDescription vmstate_apple_agx_params = {
    .name = TYPE_APPLE_AGX "/params",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_params_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(fw.params, AppleAGXState, AGX_NUM_PIPES, 1,
                             vmstate_agx_params, AgxParams),
        VMSTATE_END_OF_LIST()
    }
};

static bool apple_agx_contexts_needed(void *opaque)
{
    return APPLE_AGX(opaque)->fw.num_contexts > 0;
}

static const VMStateDescription vmstate_apple_agx_contexts = {
    .name = TYPE_APPLE_AGX "/contexts",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_contexts_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(fw.num_contexts, AppleAGXState),
        VMSTATE_UINT64_ARRAY(fw.contexts, AppleAGXState, AGX_MAX_CONTEXTS),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_tvb_slot = {
    .name = "agx-tvb-slot",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(info_va, AgxTvbSlot),
        VMSTATE_UINT64(gpu_context, AgxTvbSlot),
        VMSTATE_UINT32(vm_slot, AgxTvbSlot),
        VMSTATE_END_OF_LIST()
    }
};

/* The buffer manager, once a buffer was bound or a grow was asked for */
static bool apple_agx_tvb_needed(void *opaque)
{
    AgxTvb *t = &APPLE_AGX(opaque)->fw.tvb;

    if (t->pending || t->requests || t->grows || t->blocks) {
        return true;
    }
    for (int i = 0; i < AGX_TVB_NUM_SLOTS; i++) {
        if (t->slots[i].info_va) {
            return true;
        }
    }
    return false;
}

static const VMStateDescription vmstate_apple_agx_tvb = {
    .name = TYPE_APPLE_AGX "/tvb",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_tvb_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(fw.tvb.slots, AppleAGXState, AGX_TVB_NUM_SLOTS,
                             1, vmstate_agx_tvb_slot, AgxTvbSlot),
        VMSTATE_BOOL(fw.tvb.pending, AppleAGXState),
        VMSTATE_UINT32(fw.tvb.pending_slot, AppleAGXState),
        VMSTATE_UINT32(fw.tvb.pending_vm_slot, AppleAGXState),
        VMSTATE_UINT32(fw.tvb.pending_counter, AppleAGXState),
        VMSTATE_UINT64(fw.tvb.pending_cmd, AppleAGXState),
        VMSTATE_UINT32(fw.tvb.requests, AppleAGXState),
        VMSTATE_UINT64(fw.tvb.grows, AppleAGXState),
        VMSTATE_UINT32(fw.tvb.blocks, AppleAGXState),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_usc_launch = {
    .name = "agx-usc-launch",
    .version_id = 2,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(usc_base, AgxUscLaunch),
        VMSTATE_UINT32(main_pc, AgxUscLaunch),
        VMSTATE_UINT32(preamble_pc, AgxUscLaunch),
        VMSTATE_BOOL(has_preamble, AgxUscLaunch),
        VMSTATE_UINT32(gpr_halves, AgxUscLaunch),
        VMSTATE_UINT32(preamble_gpr_halves, AgxUscLaunch),
        VMSTATE_UINT32(shared_bytes, AgxUscLaunch),
        VMSTATE_UINT32(stack_bytes, AgxUscLaunch),
        VMSTATE_UINT32_ARRAY(global, AgxUscLaunch, 3),
        VMSTATE_UINT32_ARRAY(local, AgxUscLaunch, 3),
        VMSTATE_UINT64_ARRAY(tex_state_va, AgxUscLaunch, AGX_USC_TEX_STATES),
        VMSTATE_UINT64_ARRAY(sampler_state_va, AgxUscLaunch,
                             AGX_USC_SAMPLER_STATES),
        VMSTATE_UINT64(sampler_heap_va, AgxUscLaunch),
        VMSTATE_BOOL(soft_faults, AgxUscLaunch),
        VMSTATE_UINT32_ARRAY(uniforms, AgxUscLaunch, AGX_USC_UNIFORMS),
        /* the imageblock of a launch (version 2) */
        VMSTATE_UINT32_V(tile_width, AgxUscLaunch, 2),
        VMSTATE_UINT32_V(tile_height, AgxUscLaunch, 2),
        VMSTATE_UINT32_V(tile_samples, AgxUscLaunch, 2),
        VMSTATE_UINT32_V(tile_sample_bytes, AgxUscLaunch, 2),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * The compute data master, once it did anything: an in-flight dispatch
 * (its stream position, return stack, the bound launch with the uniforms
 * its preamble wrote, the next threadgroup) and its counters
 */
static bool apple_agx_cdm_needed(void *opaque)
{
    AgxCdm *c = &APPLE_AGX(opaque)->fw.cdm;

    return c->active || c->slices;
}

static const VMStateDescription vmstate_apple_agx_cdm = {
    .name = TYPE_APPLE_AGX "/cdm",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_cdm_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(fw.cdm.active, AppleAGXState),
        VMSTATE_BOOL(fw.cdm.in_launch, AppleAGXState),
        VMSTATE_UINT32(fw.cdm.vm_slot, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.usc_base, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.sampler_heap, AppleAGXState),
        VMSTATE_BOOL(fw.cdm.soft_faults, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.pos, AppleAGXState),
        VMSTATE_UINT64_ARRAY(fw.cdm.stack, AppleAGXState,
                             AGX_CDM_STACK_DEPTH),
        VMSTATE_UINT32(fw.cdm.depth, AppleAGXState),
        VMSTATE_UINT32(fw.cdm.blocks, AppleAGXState),
        VMSTATE_UINT32_ARRAY(fw.cdm.groups, AppleAGXState, 3),
        VMSTATE_UINT64(fw.cdm.next_group, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.budget, AppleAGXState),
        VMSTATE_STRUCT(fw.cdm.launch, AppleAGXState, 1,
                       vmstate_agx_usc_launch, AgxUscLaunch),
        VMSTATE_UINT64(fw.cdm.launches, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.threadgroups, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.slices, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.faults, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.unimplemented, AppleAGXState),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * A fragment group's samples (AgxUscSimd.cov, cov_in): a subsection sent
 * when they are not all samples (0xff, a compute threadgroup's and a
 * vertex group's), which pre_load sets
 */
static bool agx_usc_simd_coverage_needed(void *opaque)
{
    AgxUscSimd *s = opaque;

    for (int l = 0; l < AGX_USC_LANES; l++) {
        if (s->cov[l] != 0xff || s->cov_in[l] != 0xff) {
            return true;
        }
    }
    return false;
}

static int agx_usc_simd_pre_load(void *opaque)
{
    AgxUscSimd *s = opaque;

    memset(s->cov, 0xff, sizeof(s->cov));
    memset(s->cov_in, 0xff, sizeof(s->cov_in));
    return 0;
}

static const VMStateDescription vmstate_agx_usc_simd_coverage = {
    /* a subsection of agx-usc-simd: its name starts with that one's */
    .name = "agx-usc-simd/coverage",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = agx_usc_simd_coverage_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT8_ARRAY(cov, AgxUscSimd, AGX_USC_LANES),
        VMSTATE_UINT8_ARRAY(cov_in, AgxUscSimd, AGX_USC_LANES),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * A SIMD-group of a suspended threadgroup: its registers and stack are
 * buffers of the sizes before them (the stream allocates them)
 */
static const VMStateDescription vmstate_agx_usc_simd = {
    .name = "agx-usc-simd",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_load = agx_usc_simd_pre_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(nr, AgxUscSimd),
        VMSTATE_VARRAY_UINT32_ALLOC(r, AgxUscSimd, nr, 1, vmstate_info_uint32,
                                    uint32_t),
        VMSTATE_UINT32(exec, AgxUscSimd),
        VMSTATE_UINT32(launched, AgxUscSimd),
        VMSTATE_UINT32(index, AgxUscSimd),
        VMSTATE_INT32(pc, AgxUscSimd),
        VMSTATE_UINT32(state, AgxUscSimd),
        VMSTATE_UINT32(nstack, AgxUscSimd),
        VMSTATE_VBUFFER_ALLOC_UINT32(stack, AgxUscSimd, 1, NULL, nstack),
        VMSTATE_UINT32(stack_cap, AgxUscSimd),
        VMSTATE_UINT32(sp, AgxUscSimd),
        VMSTATE_UINT32(base_cap, AgxUscSimd),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_agx_usc_simd_coverage,
        NULL
    }
};

/*
 * A group of a pipe (agx_usc_group_start) as one struct: a threadgroup
 * of one SIMD-group (the compute one is apple-agx/compute-threadgroup's
 * fields; keep the two lists in step)
 */
static const VMStateDescription vmstate_agx_usc_group = {
    .name = "agx-usc-group",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_INT32(nsimd, AgxUscThreadgroup),
        VMSTATE_UINT32_ARRAY(tg, AgxUscThreadgroup, 3),
        VMSTATE_UINT32(cur, AgxUscThreadgroup),
        VMSTATE_UINT64(used, AgxUscThreadgroup),
        VMSTATE_UINT64(limit, AgxUscThreadgroup),
        VMSTATE_BOOL(charged, AgxUscThreadgroup),
        VMSTATE_STRUCT_VARRAY_ALLOC(simd, AgxUscThreadgroup, nsimd, 1,
                                    vmstate_agx_usc_simd, AgxUscSimd),
        VMSTATE_UINT32(nshared, AgxUscThreadgroup),
        VMSTATE_VBUFFER_ALLOC_UINT32(shared, AgxUscThreadgroup, 1, NULL,
                                     nshared),
        VMSTATE_UINT32(ntile, AgxUscThreadgroup),
        VMSTATE_VBUFFER_ALLOC_UINT32(tile, AgxUscThreadgroup, 1, NULL, ntile),
        VMSTATE_UINT32(ntex_state, AgxUscThreadgroup),
        VMSTATE_VARRAY_UINT32_ALLOC(tex_state, AgxUscThreadgroup, ntex_state,
                                    1, vmstate_info_uint64, uint64_t),
        VMSTATE_UINT32(nsampler_state, AgxUscThreadgroup),
        VMSTATE_VARRAY_UINT32_ALLOC(sampler_state, AgxUscThreadgroup,
                                    nsampler_state, 1, vmstate_info_uint64,
                                    uint64_t),
        VMSTATE_END_OF_LIST()
    }
};

/* Empty buffers were not allocated: their pointers are NULL */
static int apple_agx_cdm_tg_post_load(void *opaque, int version_id)
{
    agx_usc_tg_loaded(&APPLE_AGX(opaque)->fw.cdm.tg);
    return 0;
}

/*
 * A compute threadgroup a slice suspended in its middle (its SIMD-groups,
 * threadgroup memory, imageblock and state registers; sizes vary), and
 * the count of such suspensions
 */
static bool apple_agx_cdm_tg_needed(void *opaque)
{
    AgxCdm *c = &APPLE_AGX(opaque)->fw.cdm;

    return c->tg.nsimd || c->suspensions;
}

static const VMStateDescription vmstate_apple_agx_cdm_tg = {
    /* not "cdm-...": QEMU would take it for a subsection of "cdm" */
    .name = TYPE_APPLE_AGX "/compute-threadgroup",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_cdm_tg_needed,
    .post_load = apple_agx_cdm_tg_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(fw.cdm.suspensions, AppleAGXState),
        VMSTATE_INT32(fw.cdm.tg.nsimd, AppleAGXState),
        VMSTATE_UINT32_ARRAY(fw.cdm.tg.tg, AppleAGXState, 3),
        VMSTATE_UINT32(fw.cdm.tg.cur, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.tg.used, AppleAGXState),
        VMSTATE_UINT64(fw.cdm.tg.limit, AppleAGXState),
        VMSTATE_BOOL(fw.cdm.tg.charged, AppleAGXState),
        VMSTATE_STRUCT_VARRAY_ALLOC(fw.cdm.tg.simd, AppleAGXState,
                                    fw.cdm.tg.nsimd, 1, vmstate_agx_usc_simd,
                                    AgxUscSimd),
        VMSTATE_UINT32(fw.cdm.tg.nshared, AppleAGXState),
        VMSTATE_VBUFFER_ALLOC_UINT32(fw.cdm.tg.shared, AppleAGXState, 1, NULL,
                                     fw.cdm.tg.nshared),
        VMSTATE_UINT32(fw.cdm.tg.ntile, AppleAGXState),
        VMSTATE_VBUFFER_ALLOC_UINT32(fw.cdm.tg.tile, AppleAGXState, 1, NULL,
                                     fw.cdm.tg.ntile),
        VMSTATE_UINT32(fw.cdm.tg.ntex_state, AppleAGXState),
        VMSTATE_VARRAY_UINT32_ALLOC(fw.cdm.tg.tex_state, AppleAGXState,
                                    fw.cdm.tg.ntex_state, 1,
                                    vmstate_info_uint64, uint64_t),
        VMSTATE_UINT32(fw.cdm.tg.nsampler_state, AppleAGXState),
        VMSTATE_VARRAY_UINT32_ALLOC(fw.cdm.tg.sampler_state, AppleAGXState,
                                    fw.cdm.tg.nsampler_state, 1,
                                    vmstate_info_uint64, uint64_t),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * A compute launch's preamble that a slice suspended: its state is
 * apple-agx/compute-threadgroup's.  Not "compute-threadgroup-...": QEMU
 * would take it for a subsection of that one.
 */
static bool apple_agx_cdm_preamble_needed(void *opaque)
{
    return APPLE_AGX(opaque)->fw.cdm.in_preamble;
}

static const VMStateDescription vmstate_apple_agx_cdm_preamble = {
    .name = TYPE_APPLE_AGX "/compute-preamble",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_cdm_preamble_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(fw.cdm.in_preamble, AppleAGXState),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * The fragment pipe, once it did anything: the tiles of an in-flight job
 * (its programs, framebuffer, tile layout and next tile) and its counters
 */
static bool apple_agx_frag_needed(void *opaque)
{
    AgxFrag *f = &APPLE_AGX(opaque)->fw.frag;

    return f->active || f->slices;
}

/*
 * An in-flight fragment job's sample positions (ppp_multisamplectl), for
 * the tiles left: a subsection, so that a stream without it loads (0: the
 * standard positions).  Not "/frag-...": QEMU reads a subsection whose
 * name starts with another's as that one's own subsection.
 */
static bool apple_agx_frag_msaa_needed(void *opaque)
{
    AgxFrag *f = &APPLE_AGX(opaque)->fw.frag;

    return f->active && f->sample_positions;
}

static const VMStateDescription vmstate_apple_agx_frag_msaa = {
    .name = TYPE_APPLE_AGX "/sample-positions",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_frag_msaa_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(fw.frag.sample_positions, AppleAGXState),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_apple_agx_frag = {
    .name = TYPE_APPLE_AGX "/frag",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_frag_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(fw.frag.active, AppleAGXState),
        VMSTATE_UINT32(fw.frag.vm_slot, AppleAGXState),
        VMSTATE_UINT64(fw.frag.usc_base, AppleAGXState),
        VMSTATE_UINT64(fw.frag.sampler_heap, AppleAGXState),
        VMSTATE_BOOL(fw.frag.soft_faults, AppleAGXState),
        VMSTATE_UINT32(fw.frag.bg_pc, AppleAGXState),
        VMSTATE_UINT32(fw.frag.bg_spec, AppleAGXState),
        VMSTATE_UINT32(fw.frag.eot_pc, AppleAGXState),
        VMSTATE_UINT32(fw.frag.eot_spec, AppleAGXState),
        VMSTATE_UINT32(fw.frag.width, AppleAGXState),
        VMSTATE_UINT32(fw.frag.height, AppleAGXState),
        VMSTATE_UINT64(fw.frag.tilemap, AppleAGXState),
        VMSTATE_UINT64(fw.frag.scissor_base, AppleAGXState),
        VMSTATE_UINT64(fw.frag.zls_ctrl, AppleAGXState),
        VMSTATE_UINT64(fw.frag.z_load, AppleAGXState),
        VMSTATE_UINT64(fw.frag.z_store, AppleAGXState),
        VMSTATE_UINT32(fw.frag.bg_depth, AppleAGXState),
        VMSTATE_UINT64(fw.frag.oclqry_base, AppleAGXState),
        VMSTATE_UINT64(fw.frag.s_load, AppleAGXState),
        VMSTATE_UINT64(fw.frag.s_store, AppleAGXState),
        VMSTATE_UINT32(fw.frag.bg_vals, AppleAGXState),
        VMSTATE_UINT32(fw.frag.tile_width, AppleAGXState),
        VMSTATE_UINT32(fw.frag.tile_height, AppleAGXState),
        VMSTATE_UINT32(fw.frag.tile_samples, AppleAGXState),
        VMSTATE_UINT32(fw.frag.tile_sample_bytes, AppleAGXState),
        VMSTATE_UINT32(fw.frag.tiles_x, AppleAGXState),
        VMSTATE_UINT32(fw.frag.tiles_y, AppleAGXState),
        VMSTATE_UINT32(fw.frag.next_tile, AppleAGXState),
        VMSTATE_UINT64(fw.frag.budget, AppleAGXState),
        VMSTATE_UINT64(fw.frag.tiles, AppleAGXState),
        VMSTATE_UINT64(fw.frag.fragments, AppleAGXState),
        VMSTATE_UINT64(fw.frag.slices, AppleAGXState),
        VMSTATE_UINT64(fw.frag.faults, AppleAGXState),
        VMSTATE_UINT64(fw.frag.unimplemented, AppleAGXState),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * A fragment state as a struct: a partial render's (the fragment pipe's
 * own is the "/frag" subsection; keep the two lists in step)
 */
static const VMStateDescription vmstate_agx_frag_state = {
    .name = "agx-frag-state",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(active, AgxFrag),
        VMSTATE_UINT32(vm_slot, AgxFrag),
        VMSTATE_UINT64(usc_base, AgxFrag),
        VMSTATE_UINT64(sampler_heap, AgxFrag),
        VMSTATE_BOOL(soft_faults, AgxFrag),
        VMSTATE_UINT32(bg_pc, AgxFrag),
        VMSTATE_UINT32(bg_spec, AgxFrag),
        VMSTATE_UINT32(eot_pc, AgxFrag),
        VMSTATE_UINT32(eot_spec, AgxFrag),
        VMSTATE_UINT32(width, AgxFrag),
        VMSTATE_UINT32(height, AgxFrag),
        VMSTATE_UINT64(tilemap, AgxFrag),
        VMSTATE_UINT64(scissor_base, AgxFrag),
        VMSTATE_UINT64(zls_ctrl, AgxFrag),
        VMSTATE_UINT64(z_load, AgxFrag),
        VMSTATE_UINT64(z_store, AgxFrag),
        VMSTATE_UINT32(bg_depth, AgxFrag),
        VMSTATE_UINT64(oclqry_base, AgxFrag),
        VMSTATE_UINT64(s_load, AgxFrag),
        VMSTATE_UINT64(s_store, AgxFrag),
        VMSTATE_UINT32(bg_vals, AgxFrag),
        VMSTATE_UINT32(tile_width, AgxFrag),
        VMSTATE_UINT32(tile_height, AgxFrag),
        VMSTATE_UINT32(tile_samples, AgxFrag),
        VMSTATE_UINT32(tile_sample_bytes, AgxFrag),
        VMSTATE_UINT32(tiles_x, AgxFrag),
        VMSTATE_UINT32(tiles_y, AgxFrag),
        VMSTATE_UINT32(next_tile, AgxFrag),
        VMSTATE_UINT64(budget, AgxFrag),
        VMSTATE_UINT64(tiles, AgxFrag),
        VMSTATE_UINT64(fragments, AgxFrag),
        VMSTATE_UINT64(slices, AgxFrag),
        VMSTATE_UINT64(faults, AgxFrag),
        VMSTATE_UINT64(unimplemented, AgxFrag),
        VMSTATE_UINT64(dbias_base, AgxFrag),
        VMSTATE_UINT32(isp_ctl, AgxFrag),
        VMSTATE_UINT32(layers, AgxFrag),
        VMSTATE_UINT64(z_load_stride, AgxFrag),
        VMSTATE_UINT64(z_store_stride, AgxFrag),
        VMSTATE_UINT64(s_load_stride, AgxFrag),
        VMSTATE_UINT64(s_store_stride, AgxFrag),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * The fragment pipe's depth bias and layer state, with the pipe's.  Not
 * "/frag-...": QEMU reads a subsection whose name starts with another's
 * as that one's own subsection.
 */
static const VMStateDescription vmstate_apple_agx_frag_zs = {
    .name = TYPE_APPLE_AGX "/depth-stencil",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_frag_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(fw.frag.dbias_base, AppleAGXState),
        VMSTATE_UINT32(fw.frag.isp_ctl, AppleAGXState),
        VMSTATE_UINT32(fw.frag.layers, AppleAGXState),
        VMSTATE_UINT64(fw.frag.z_load_stride, AppleAGXState),
        VMSTATE_UINT64(fw.frag.z_store_stride, AppleAGXState),
        VMSTATE_UINT64(fw.frag.s_load_stride, AppleAGXState),
        VMSTATE_UINT64(fw.frag.s_store_stride, AppleAGXState),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_ppp_state = {
    .name = "agx-ppp-state",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(present, AgxPppState),
        VMSTATE_UINT32(frag_control, AgxPppState),
        VMSTATE_UINT32(frag_control_2, AgxPppState),
        VMSTATE_UINT32(front_face, AgxPppState),
        VMSTATE_UINT32(front_face_2, AgxPppState),
        VMSTATE_UINT32(front_stencil, AgxPppState),
        VMSTATE_UINT32(back_face, AgxPppState),
        VMSTATE_UINT32(back_face_2, AgxPppState),
        VMSTATE_UINT32(back_stencil, AgxPppState),
        VMSTATE_UINT32(dbias_scissor, AgxPppState),
        VMSTATE_UINT32(viewport_count, AgxPppState),
        VMSTATE_UINT32(viewport_control, AgxPppState),
        VMSTATE_UINT32_2DARRAY(region_clip, AgxPppState,
                               AGX_PPP_MAX_VIEWPORTS, 2),
        VMSTATE_UINT32_2DARRAY(viewport, AgxPppState, AGX_PPP_MAX_VIEWPORTS,
                               AGX_PPP_VP_WORDS),
        VMSTATE_UINT32(w_clamp, AgxPppState),
        VMSTATE_UINT32(output_select, AgxPppState),
        VMSTATE_UINT32(varying_counts_32, AgxPppState),
        VMSTATE_UINT32(varying_counts_16, AgxPppState),
        VMSTATE_UINT32(cull, AgxPppState),
        VMSTATE_UINT32(cull_2, AgxPppState),
        VMSTATE_UINT32_ARRAY(fs_word, AgxPppState, 4),
        VMSTATE_UINT32(occlusion_query, AgxPppState),
        VMSTATE_UINT32(occlusion_query_2, AgxPppState),
        VMSTATE_UINT32(output_unknown, AgxPppState),
        VMSTATE_UINT32(output_size, AgxPppState),
        VMSTATE_UINT32_ARRAY(varying_word_2, AgxPppState, 2),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_scene_writer = {
    .name = "agx-scene-writer",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(tilemap_va, AgxSceneWriter),
        VMSTATE_UINT64(page_list_va, AgxSceneWriter),
        VMSTATE_UINT32(ring_pages, AgxSceneWriter),
        VMSTATE_UINT32(first_page, AgxSceneWriter),
        VMSTATE_UINT32(max_pages, AgxSceneWriter),
        VMSTATE_UINT32(width, AgxSceneWriter),
        VMSTATE_UINT32(height, AgxSceneWriter),
        VMSTATE_UINT32(layers, AgxSceneWriter),
        VMSTATE_UINT32(used, AgxSceneWriter),
        VMSTATE_UINT32(prims, AgxSceneWriter),
        VMSTATE_UINT32(dropped, AgxSceneWriter),
        VMSTATE_UINT32(state, AgxSceneWriter),
        VMSTATE_BOOL(have_state, AgxSceneWriter),
        VMSTATE_BOOL(overflowed, AgxSceneWriter),
        VMSTATE_BOOL(tile_lists, AgxSceneWriter),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_tvb_live = {
    .name = "agx-tvb-live",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(scene_va, AgxTvbLive),
        VMSTATE_UINT32(first, AgxTvbLive),
        VMSTATE_UINT32(pages, AgxTvbLive),
        VMSTATE_END_OF_LIST()
    }
};

/* Version 2: 16 live scenes a buffer (were 8) */
static const VMStateDescription vmstate_agx_tvb_ring = {
    .name = "agx-tvb-ring",
    .version_id = 2,
    .minimum_version_id = 2,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(info_va, AgxTvbRing),
        VMSTATE_UINT32(next_page, AgxTvbRing),
        VMSTATE_UINT32(nlive, AgxTvbRing),
        VMSTATE_STRUCT_ARRAY(live, AgxTvbRing, AGX_TVB_LIVE_SCENES, 2,
                             vmstate_agx_tvb_live, AgxTvbLive),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * The vertex data master, once it did anything: a vertex job in flight
 * (stream position, return stack, the render state, the draw and its
 * bound vertex shader, the scene being written), what the last job
 * used, and its counters
 */
static bool apple_agx_vdm_needed(void *opaque)
{
    AgxVdm *v = &APPLE_AGX(opaque)->fw.vdm;

    return v->active || v->slices || v->done_scene_va;
}

static const VMStateDescription vmstate_apple_agx_vdm = {
    .name = TYPE_APPLE_AGX "/vdm",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_vdm_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(fw.vdm.active, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.vm_slot, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.usc_base, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.sampler_heap, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.soft_faults, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.pos, AppleAGXState),
        VMSTATE_UINT64_ARRAY(fw.vdm.stack, AppleAGXState,
                             AGX_VDM_STACK_DEPTH),
        VMSTATE_UINT32(fw.vdm.depth, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.blocks, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.budget, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.restart_index, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.vs_word0, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.vs_word1, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.vs_outputs, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.vs_unknown, AppleAGXState),
        VMSTATE_STRUCT(fw.vdm.ppp, AppleAGXState, 1, vmstate_agx_ppp_state,
                       AgxPppState),
        VMSTATE_BOOL(fw.vdm.ppp_stored, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.in_draw, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.topology, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.index_va, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.index_size, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.index_limit, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.restart, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.count, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.instances, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.start, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.instance, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.seg, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.k, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.prim_id, AppleAGXState),
        VMSTATE_STRUCT(fw.vdm.launch, AppleAGXState, 1,
                       vmstate_agx_usc_launch, AgxUscLaunch),
        VMSTATE_STRUCT(fw.vdm.scene, AppleAGXState, 1,
                       vmstate_agx_scene_writer, AgxSceneWriter),
        VMSTATE_UINT64(fw.vdm.scene_va, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.info_va, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.scene_ok, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.done_scene_va, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.done_pages, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.done_overflow, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.draws, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.prims, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.culled, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.vertices, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.slices, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.faults, AppleAGXState),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * Partial renders of the vertex data master, once it binned anything:
 * the pass being rendered (its fragment state and the render's fragment
 * command), the scene's passes and what the last job used
 */
static bool apple_agx_vdm_partial_needed(void *opaque)
{
    AgxVdm *v = &APPLE_AGX(opaque)->fw.vdm;

    return v->partial || v->partial_wait || v->no_partial || v->frag_cmd ||
           v->scene.passes || v->scene.full || v->scene.pass_prims ||
           v->done_total || v->partial_renders;
}

static const VMStateDescription vmstate_apple_agx_vdm_partial = {
    .name = TYPE_APPLE_AGX "/partial",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_vdm_partial_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(fw.vdm.partial, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.partial_wait, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.no_partial, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.frag_cmd, AppleAGXState),
        VMSTATE_STRUCT(fw.vdm.pfrag, AppleAGXState, 1,
                       vmstate_agx_frag_state, AgxFrag),
        VMSTATE_UINT32(fw.vdm.scene.passes, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.scene.pass_prims, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.scene.done_pages, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.scene.peak_pages, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.scene.full, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.done_total, AppleAGXState),
        VMSTATE_UINT64(fw.vdm.partial_renders, AppleAGXState),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * The buffers' pages, once a scene took some: each buffer's live scenes
 * (agx-tvb.h), and a vertex job waiting for pages
 */
static bool apple_agx_pages_needed(void *opaque)
{
    AgxFw *fw = &APPLE_AGX(opaque)->fw;

    for (int i = 0; i < AGX_TVB_RINGS; i++) {
        if (fw->tvb.rings[i].info_va) {
            return true;
        }
    }
    return fw->vdm.page_wait || fw->tvb.page_waits || fw->tvb.evictions;
}

/* Version 2: a ring per buffer-manager slot (were 8) */
static const VMStateDescription vmstate_apple_agx_pages = {
    .name = TYPE_APPLE_AGX "/pages",
    .version_id = 2,
    .minimum_version_id = 2,
    .needed = apple_agx_pages_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(fw.tvb.rings, AppleAGXState, AGX_TVB_RINGS, 2,
                             vmstate_agx_tvb_ring, AgxTvbRing),
        VMSTATE_UINT32(fw.tvb.ring_victim, AppleAGXState),
        VMSTATE_UINT64(fw.tvb.page_waits, AppleAGXState),
        VMSTATE_UINT64(fw.tvb.evictions, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.page_wait, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.waited, AppleAGXState),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_scene_cursor = {
    .name = "agx-scene-cursor",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(x0, AgxSceneCursor),
        VMSTATE_UINT32(y0, AgxSceneCursor),
        VMSTATE_UINT32(x1, AgxSceneCursor),
        VMSTATE_UINT32(y1, AgxSceneCursor),
        VMSTATE_UINT32(layer, AgxSceneCursor),
        VMSTATE_UINT32(off, AgxSceneCursor),
        VMSTATE_UINT32(index, AgxSceneCursor),
        VMSTATE_UINT32(mode, AgxSceneCursor),
        VMSTATE_UINT32(chunk, AgxSceneCursor),
        VMSTATE_UINT32(slot, AgxSceneCursor),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_frag_zs = {
    .name = "agx-frag-zs",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(func, AgxFragZs),
        VMSTATE_UINT32(func2, AgxFragZs),
        VMSTATE_UINT32(flags, AgxFragZs),
        VMSTATE_UINT32(sw, AgxFragZs),
        VMSTATE_UINT32(ref, AgxFragZs),
        VMSTATE_UINT32(zmin, AgxFragZs),
        VMSTATE_UINT32(zmax, AgxFragZs),
        VMSTATE_UINT64(bias, AgxFragZs),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * A tile in flight (AgxFragTile): its tilebuffer, depth and stencil, the
 * program or shader bound, where the scene walk and the primitive are,
 * the SIMD-group suspended
 */
static const VMStateDescription vmstate_agx_frag_tile = {
    .name = "agx-frag-tile",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(phase, AgxFragTile),
        VMSTATE_UINT32(nmem, AgxFragTile),
        VMSTATE_VBUFFER_ALLOC_UINT32(mem, AgxFragTile, 1, NULL, nmem),
        VMSTATE_UINT32(nz, AgxFragTile),
        VMSTATE_VARRAY_UINT32_ALLOC(z, AgxFragTile, nz, 1,
                                    vmstate_info_uint32, uint32_t),
        VMSTATE_UINT32(ns, AgxFragTile),
        VMSTATE_VBUFFER_ALLOC_UINT32(s, AgxFragTile, 1, NULL, ns),
        VMSTATE_UINT32(prog, AgxFragTile),
        VMSTATE_STRUCT(launch, AgxFragTile, 1, vmstate_agx_usc_launch,
                       AgxUscLaunch),
        VMSTATE_UINT32(next, AgxFragTile),
        VMSTATE_STRUCT(cur, AgxFragTile, 1, vmstate_agx_scene_cursor,
                       AgxSceneCursor),
        VMSTATE_UINT32(state, AgxFragTile),
        VMSTATE_UINT32(mode, AgxFragTile),
        VMSTATE_STRUCT(st, AgxFragTile, 1, vmstate_agx_ppp_state,
                       AgxPppState),
        VMSTATE_UINT32_ARRAY(cfb, AgxFragTile, AGX_FRAG_MAX_CF_BINDINGS),
        VMSTATE_UINT32(ncfb, AgxFragTile),
        VMSTATE_BOOL(reads_z, AgxFragTile),
        VMSTATE_BOOL(in_prim, AgxFragTile),
        VMSTATE_STRUCT(zs, AgxFragTile, 1, vmstate_agx_frag_zs, AgxFragZs),
        VMSTATE_UINT32(nquad_room, AgxFragTile),
        VMSTATE_VARRAY_UINT32_ALLOC(quads, AgxFragTile, nquad_room, 1,
                                    vmstate_info_uint32, uint32_t),
        VMSTATE_UINT32(nquads, AgxFragTile),
        VMSTATE_UINT64(passed, AgxFragTile),
        VMSTATE_STRUCT(group, AgxFragTile, 1, vmstate_agx_usc_group,
                       AgxUscThreadgroup),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * The tiles in flight, of the fragment pipe and of a partial render, once
 * a slice ended inside one: a subsection of its own, so that a stream
 * without it loads (no tile in flight)
 */
static bool apple_agx_tiles_needed(void *opaque)
{
    AgxFw *fw = &APPLE_AGX(opaque)->fw;

    return fw->frag.tile.phase || fw->vdm.pfrag.tile.phase ||
           fw->frag.suspensions || fw->vdm.pfrag.suspensions;
}

/* Empty buffers were not allocated: their pointers are NULL */
static int apple_agx_tiles_post_load(void *opaque, int version_id)
{
    AgxFw *fw = &APPLE_AGX(opaque)->fw;

    agx_frag_tile_loaded(&fw->frag);
    agx_frag_tile_loaded(&fw->vdm.pfrag);
    return 0;
}

static const VMStateDescription vmstate_apple_agx_tiles = {
    /* not "/frag-..." nor "/partial-...": see vmstate_apple_agx */
    .name = TYPE_APPLE_AGX "/tile-in-flight",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_tiles_needed,
    .post_load = apple_agx_tiles_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(fw.frag.suspensions, AppleAGXState),
        VMSTATE_STRUCT(fw.frag.tile, AppleAGXState, 1, vmstate_agx_frag_tile,
                       AgxFragTile),
        VMSTATE_UINT64(fw.vdm.pfrag.suspensions, AppleAGXState),
        VMSTATE_STRUCT(fw.vdm.pfrag.tile, AppleAGXState, 1,
                       vmstate_agx_frag_tile, AgxFragTile),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_vdm_vertex = {
    .name = "agx-vdm-vertex",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_ARRAY(out, AgxVdmVertex, AGX_VDM_OUTPUTS),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_agx_vdm_item = {
    .name = "agx-vdm-item",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(n, AgxVdmItem),
        VMSTATE_UINT32_ARRAY(lane, AgxVdmItem, 4),
        VMSTATE_UINT32(k, AgxVdmItem),
        VMSTATE_UINT32(prim_id, AgxVdmItem),
        VMSTATE_BOOL(closing, AgxVdmItem),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * The vertex data master's batch in flight, once a slice ended inside
 * one: its primitives and lanes, what its vertex shader stored so far,
 * the suspended SIMD-group
 */
static bool apple_agx_vdm_batch_needed(void *opaque)
{
    AgxVdm *v = &APPLE_AGX(opaque)->fw.vdm;

    return v->batch.active || v->batch.preamble || v->suspensions;
}

/* Empty buffers were not allocated: their pointers are NULL */
static int apple_agx_vdm_batch_post_load(void *opaque, int version_id)
{
    agx_usc_tg_loaded(&APPLE_AGX(opaque)->fw.vdm.batch.group);
    return 0;
}

static const VMStateDescription vmstate_apple_agx_vdm_batch = {
    /* not "/vdm-...": see vmstate_apple_agx */
    .name = TYPE_APPLE_AGX "/vertex-batch",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_agx_vdm_batch_needed,
    .post_load = apple_agx_vdm_batch_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(fw.vdm.suspensions, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.batch.active, AppleAGXState),
        VMSTATE_BOOL(fw.vdm.batch.preamble, AppleAGXState),
        VMSTATE_STRUCT_ARRAY(fw.vdm.batch.item, AppleAGXState,
                             AGX_VDM_BATCH, 1, vmstate_agx_vdm_item,
                             AgxVdmItem),
        VMSTATE_UINT32(fw.vdm.batch.items, AppleAGXState),
        VMSTATE_UINT32(fw.vdm.batch.lanes, AppleAGXState),
        VMSTATE_UINT32_ARRAY(fw.vdm.batch.vid, AppleAGXState, AGX_USC_LANES),
        VMSTATE_UINT32_ARRAY(fw.vdm.batch.iid, AppleAGXState, AGX_USC_LANES),
        VMSTATE_STRUCT_ARRAY(fw.vdm.batch.v, AppleAGXState, AGX_USC_LANES,
                             1, vmstate_agx_vdm_vertex, AgxVdmVertex),
        VMSTATE_UINT32(fw.vdm.batch.bad_index, AppleAGXState),
        VMSTATE_STRUCT(fw.vdm.batch.group, AppleAGXState, 1,
                       vmstate_agx_usc_group, AgxUscThreadgroup),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_apple_agx = {
    .name = TYPE_APPLE_AGX,
    .version_id = 2,
    .minimum_version_id = 1,
    .pre_load = apple_agx_pre_load,
    .post_load = apple_agx_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(parent_obj, AppleAGXState, 1, vmstate_apple_asc,
                       AppleASCState),
        VMSTATE_STRUCT(fw, AppleAGXState, 1, vmstate_agx_fw, AgxFw),
        VMSTATE_TIMER_PTR(timer, AppleAGXState),
        VMSTATE_UINT32_V(fender_d14000, AppleAGXState, 2),
        VMSTATE_END_OF_LIST()
    },
    /*
     * A subsection whose name starts with the name of the one before it
     * is loaded as that one's child: no name here may extend another's
     * (migration/vmstate.c, vmstate_subsection_load)
     */
    .subsections = (const VMStateDescription * const []) {
        &vmstate_apple_agx_params,
        &vmstate_apple_agx_contexts,
        &vmstate_apple_agx_tvb,
        &vmstate_apple_agx_cdm,
        &vmstate_apple_agx_cdm_tg,
        &vmstate_apple_agx_cdm_preamble,
        &vmstate_apple_agx_frag,
        &vmstate_apple_agx_frag_zs,
        &vmstate_apple_agx_frag_msaa,
        &vmstate_apple_agx_vdm,
        &vmstate_apple_agx_vdm_partial,
        &vmstate_apple_agx_pages,
        &vmstate_apple_agx_tiles,
        &vmstate_apple_agx_vdm_batch,
        NULL
    }
};

static const Property apple_agx_properties[] = {
    /* The firmware version, which is also its ABI: 13.5 or 12.3 */
    DEFINE_PROP_STRING("firmware-version", AppleAGXState, fw_version),
    DEFINE_PROP_UINT32("core-mask", AppleAGXState, core_mask, 0xff),
    DEFINE_PROP_UINT64("handoff-base", AppleAGXState, handoff_base, 0),
    DEFINE_PROP_UINT64("ttbs-base", AppleAGXState, ttbs_base, 0),
    /* Virtual time each job's (unexecuted) GPU work takes */
    DEFINE_PROP_UINT64("job-duration-ns", AppleAGXState, job_ns,
                       AGX_FW_DEFAULT_JOB_NS),
    /* Seeded variation of what the firmware may vary; 0 = off */
    DEFINE_PROP_UINT64("chaos-seed", AppleAGXState, chaos_seed, 0),
    /* With chaos: jobs per thousand given an injected fault */
    DEFINE_PROP_UINT32("chaos-fault-rate", AppleAGXState, chaos_fault_rate,
                       0),
    DEFINE_PROP_CHR("fwlog", AppleAGXState, fwlog),
    /* Compute jobs run their shaders (off: they only retire) */
    DEFINE_PROP_BOOL("shaders", AppleAGXState, shaders, true),
    /* Shader instructions per slice of host time, per job; 0: defaults */
    DEFINE_PROP_UINT64("shader-slice", AppleAGXState, shader_slice, 0),
    DEFINE_PROP_UINT64("shader-budget", AppleAGXState, shader_budget, 0),
};

static void apple_agx_reset_hold(Object *obj, ResetType type)
{
    AppleAGXState *s = APPLE_AGX(obj);
    AppleAGXClass *k = APPLE_AGX_GET_CLASS(obj);

    if (k->parent_phases.hold) {
        k->parent_phases.hold(obj, type);
    }
    s->fender_d14000 = 0;
}

static void apple_agx_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    AppleASCClass *ac = APPLE_ASC_CLASS(klass);
    AppleAGXClass *k = APPLE_AGX_CLASS(klass);

    dc->desc = "Apple AGX G13G GPU (t8103) with emulated firmware";
    device_class_set_parent_realize(dc, apple_agx_realize,
                                    &k->parent_realize);
    device_class_set_parent_unrealize(dc, apple_agx_unrealize,
                                      &k->parent_unrealize);
    dc->vmsd = &vmstate_apple_agx;
    device_class_set_props(dc, apple_agx_properties);
    ac->setup_endpoints = apple_agx_setup_endpoints;
    ac->cpu_started = apple_agx_cpu_started;
    ac->cpu_stopped = apple_agx_cpu_stopped;
    ac->clock_resumed = apple_agx_clock_resumed;
    ac->iova_rw = apple_agx_iova_rw;
    resettable_class_set_parent_phases(rc, NULL, apple_agx_reset_hold, NULL,
                                       &k->parent_phases);
}

static const TypeInfo apple_agx_types[] = {
    {
        .name = TYPE_APPLE_AGX,
        .parent = TYPE_APPLE_ASC,
        .instance_size = sizeof(AppleAGXState),
        .class_size = sizeof(AppleAGXClass),
        .instance_init = apple_agx_init,
        .class_init = apple_agx_class_init,
    },
};

DEFINE_TYPES(apple_agx_types)
