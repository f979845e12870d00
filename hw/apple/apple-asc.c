/*
 * Apple ASC coprocessor: CPU control registers, mailbox, RTKit firmware
 *
 * Setting CPU_CONTROL.RUN boots the (emulated) firmware, which greets the
 * AP with RTKit's HELLO; clearing it stops the firmware.  All firmware work
 * runs in a bottom half scheduled by mailbox traffic, never by polling.
 *
 * The PMGR domain the coprocessor sits in gates it.  On a Mac a block
 * whose domain is not active does not answer on the bus; what exactly an
 * access does then is not documented (Asahi's notes speak of SErrors or
 * hangs).  The model: while the domain's clock is off (CLKGATE or
 * PWRGATE), every register block of the coprocessor answers an access
 * with a bus error (a synchronous external abort on QEMU's CPUs; reads
 * give 0 to qtest), logged as a guest error, and the firmware stands
 * still: messages stay in the mailbox, timers wait.  Work that fell due
 * meanwhile is done when the clock returns.  When power is cut (PWRGATE),
 * the coprocessor loses its state: it is reset, CPU stopped and mailbox
 * empty, as the AP finds it when power returns.  Gating a running
 * coprocessor is logged as a guest error too: a driver must quiesce it
 * first.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "hw/apple/apple-log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "exec/address-spaces.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "hw/apple/apple-asc.h"
#include "trace.h"

REG32(CPU_CONTROL, 0x44)
    FIELD(CPU_CONTROL, RUN, 4, 1)
REG32(CPU_STATUS, 0x48)
    FIELD(CPU_STATUS, RUNNING, 0, 1)
    FIELD(CPU_STATUS, STOPPED, 1, 1)

bool apple_asc_ram_rw(uint64_t addr, void *buf, uint64_t len, bool is_write)
{
    AddressSpace *as = &address_space_memory;
    MemTxAttrs attrs = MEMTXATTRS_UNSPECIFIED;
    uint8_t *p = buf;

    while (len) {
        hwaddr xlat, l = len;
        MemoryRegion *mr;
        MemTxResult res;
        bool done = false;

        /* Only RAM: a wild IOVA must never reach a device register */
        WITH_RCU_READ_LOCK_GUARD() {
            mr = address_space_translate(as, addr, &xlat, &l, is_write,
                                         attrs);
            if (!memory_access_is_direct(mr, is_write, attrs)) {
                return false;
            }
            if (!is_write) {
                /* a read of RAM: from where the translation found it */
                memcpy(p, (uint8_t *)memory_region_get_ram_ptr(mr) + xlat, l);
                done = true;
            }
        }
        /* writes mark the pages dirty and drop translated code */
        res = done ? MEMTX_OK : address_space_rw(as, addr, attrs, p, l,
                                                 is_write);
        if (res != MEMTX_OK) {
            return false;
        }
        addr += l;
        p += l;
        len -= l;
    }
    return true;
}

static bool apple_asc_phys_rw(AppleASCState *s, uint64_t iova, void *buf,
                              uint64_t len, bool is_write)
{
    return apple_asc_ram_rw(iova, buf, len, is_write);
}

static bool apple_asc_rtkit_buf_rw(void *opaque, uint64_t iova, void *buf,
                                   uint64_t len, bool is_write)
{
    AppleASCState *s = opaque;

    return APPLE_ASC_GET_CLASS(s)->iova_rw(s, iova, buf, len, is_write);
}

static void apple_asc_rtkit_outbox_notify(void *opaque)
{
    apple_asc_kick(opaque);
}

static void apple_asc_rtkit_guest_error(void *opaque, const char *msg)
{
    apple_log_mask(LOG_GUEST_ERROR, OBJECT(opaque), "%s\n", msg);
}

static int64_t apple_asc_rtkit_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static const RTKitOps apple_asc_rtkit_ops = {
    .buf_rw = apple_asc_rtkit_buf_rw,
    .outbox_notify = apple_asc_rtkit_outbox_notify,
    .guest_error = apple_asc_rtkit_guest_error,
    .now_ns = apple_asc_rtkit_now_ns,
};

static void apple_asc_trace_msg(bool to_ap, uint64_t msg0, uint64_t msg1)
{
    if (trace_event_get_state_backends(TRACE_APPLE_ASC_MSG)) {
        char desc[96];
        uint8_t ep = APPLE_FIELD_EX64(msg1, RTKIT_MSG1, EP);

        rtkit_describe(ep, msg0, to_ap, desc, sizeof(desc));
        trace_apple_asc_msg(to_ap ? "fw->ap" : "ap->fw", ep,
                            rtkit_ep_name(ep), msg0, desc);
    }
}

/* Deliver what the AP sent, then send what the firmware has queued */
static void apple_asc_bh(void *opaque)
{
    AppleASCState *s = opaque;
    uint64_t msg0, msg1;

    /* Without a clock, nothing moves; the clock's return kicks again */
    if (s->clock_off) {
        return;
    }
    /* A stopped coprocessor leaves the AP's messages in the FIFO */
    while (FIELD_EX32(s->cpu_control, CPU_CONTROL, RUN) &&
           apple_mbox_iop_recv(&s->mbox, &msg0, &msg1)) {
        apple_asc_trace_msg(false, msg0, msg1);
        rtkit_receive(&s->rtk, msg0, msg1);
    }
    while (apple_mbox_iop_can_send(&s->mbox) &&
           rtkit_outbox_pop(&s->rtk, &msg0, &msg1)) {
        apple_asc_trace_msg(true, msg0, msg1);
        apple_mbox_iop_send(&s->mbox, msg0, msg1);
    }
}

void apple_asc_kick(AppleASCState *s)
{
    qemu_bh_schedule(s->bh);
}

/*
 * The AP committed a message or took one: the coprocessor handles it at
 * once, in the vCPU's MMIO access, rather than in a bottom half of the
 * main loop.  On a loaded host the main loop can be late by milliseconds,
 * during which the 16-deep FIFO fills and the AP's driver sleeps for the
 * send-empty interrupt (issue 28: throughput of GPU submissions).
 * Nothing in here calls back into the mailbox's notify: messages the
 * firmware queues meanwhile go through apple_asc_kick().
 */
static void apple_asc_mbox_notify(void *opaque)
{
    apple_asc_bh(opaque);
}

static void apple_asc_cpu_stop(AppleASCState *s)
{
    AppleASCClass *ac = APPLE_ASC_GET_CLASS(s);

    rtkit_cpu_stop(&s->rtk);
    if (ac->cpu_stopped) {
        ac->cpu_stopped(s);
    }
}

static void apple_asc_set_cpu_control(AppleASCState *s, uint32_t val)
{
    AppleASCClass *ac = APPLE_ASC_GET_CLASS(s);
    bool was = FIELD_EX32(s->cpu_control, CPU_CONTROL, RUN);
    bool run = FIELD_EX32(val, CPU_CONTROL, RUN);

    s->cpu_control = val;
    trace_apple_asc_cpu_control(val, run);
    if (run && !was) {
        if (ac->cpu_started) {
            ac->cpu_started(s);
        }
        rtkit_cpu_start(&s->rtk);
    } else if (!run && was) {
        apple_asc_cpu_stop(s);
    }
    apple_asc_kick(s);
}

static uint64_t apple_asc_read(void *opaque, hwaddr addr, unsigned size)
{
    AppleASCState *s = opaque;
    bool run = FIELD_EX32(s->cpu_control, CPU_CONTROL, RUN);
    uint64_t val = 0;

    switch (addr) {
    case A_CPU_CONTROL:
        val = s->cpu_control;
        break;
    case A_CPU_STATUS:
        val = FIELD_DP32(val, CPU_STATUS, RUNNING, run);
        val = FIELD_DP32(val, CPU_STATUS, STOPPED, !run);
        break;
    default:
        apple_log_mask(LOG_UNIMP, OBJECT(s),
                       "unimplemented read at 0x%" HWADDR_PRIx
                       "\n", addr);
        break;
    }
    trace_apple_asc_read(addr, val);
    return val;
}

static void apple_asc_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    AppleASCState *s = opaque;

    trace_apple_asc_write(addr, val);
    switch (addr) {
    case A_CPU_CONTROL:
        apple_asc_set_cpu_control(s, val);
        break;
    case A_CPU_STATUS:
        apple_log_mask(LOG_GUEST_ERROR, OBJECT(s),
                       "write to read-only CPU_STATUS\n");
        break;
    default:
        apple_log_mask(LOG_UNIMP, OBJECT(s), "unimplemented write at 0x%"
                       HWADDR_PRIx "\n", addr);
        break;
    }
}

static const MemoryRegionOps apple_asc_ops = {
    .read = apple_asc_read,
    .write = apple_asc_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
};

static MemTxResult apple_asc_gate_read(void *opaque, hwaddr addr,
                                       uint64_t *data, unsigned size,
                                       MemTxAttrs attrs)
{
    MemoryRegion *gate = opaque;

    apple_log_mask(LOG_GUEST_ERROR, memory_region_owner(gate),
                   "%u-byte read at 0x%" HWADDR_PRIx " of %s while its "
                   "power domain is not active: no answer (bus error)\n",
                   size, addr, memory_region_name(gate));
    *data = 0;
    return MEMTX_ERROR;
}

static MemTxResult apple_asc_gate_write(void *opaque, hwaddr addr,
                                        uint64_t data, unsigned size,
                                        MemTxAttrs attrs)
{
    MemoryRegion *gate = opaque;

    apple_log_mask(LOG_GUEST_ERROR, memory_region_owner(gate),
                   "%u-byte write of 0x%" PRIx64 " at 0x%" HWADDR_PRIx
                   " of %s while its power domain is not active: dropped "
                   "(bus error)\n", size, data, addr,
                   memory_region_name(gate));
    return MEMTX_ERROR;
}

static const MemoryRegionOps apple_asc_gate_ops = {
    .read_with_attrs = apple_asc_gate_read,
    .write_with_attrs = apple_asc_gate_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 1,
    .valid.max_access_size = 8,
    .impl.min_access_size = 1,
    .impl.max_access_size = 8,
};

void apple_asc_add_gate(AppleASCState *s, MemoryRegion *mr)
{
    MemoryRegion *gate = &s->gate[s->num_gates++];
    g_autofree char *name = g_strdup(memory_region_name(mr));

    assert(s->num_gates <= APPLE_ASC_MAX_GATES);
    memory_region_init_io(gate, OBJECT(s), &apple_asc_gate_ops, gate, name,
                          memory_region_size(mr));
    memory_region_set_enabled(gate, s->clock_off);
    memory_region_add_subregion_overlap(mr, 0, gate, 100);
}

static void apple_asc_update_gates(AppleASCState *s)
{
    for (unsigned i = 0; i < s->num_gates; i++) {
        memory_region_set_enabled(&s->gate[i], s->clock_off);
    }
}

static bool apple_asc_running(AppleASCState *s)
{
    return FIELD_EX32(s->cpu_control, CPU_CONTROL, RUN);
}

static void apple_asc_set_clocked(void *opaque, int n, int level)
{
    AppleASCState *s = opaque;
    AppleASCClass *ac = APPLE_ASC_GET_CLASS(s);
    bool off = !level;

    if (off == s->clock_off) {
        return;
    }
    s->clock_off = off;
    trace_apple_asc_power(!s->clock_off, !s->power_off);
    apple_asc_update_gates(s);
    if (off) {
        if (apple_asc_running(s)) {
            apple_log_mask(LOG_GUEST_ERROR, OBJECT(s), "clock stopped while "
                           "the coprocessor runs: its firmware stands still "
                           "until the clock returns\n");
        }
        return;
    }
    if (ac->clock_resumed) {
        ac->clock_resumed(s);
    }
    apple_asc_kick(s);
}

static void apple_asc_set_powered(void *opaque, int n, int level)
{
    AppleASCState *s = opaque;
    bool off = !level;

    if (off == s->power_off) {
        return;
    }
    s->power_off = off;
    trace_apple_asc_power(!s->clock_off, !s->power_off);
    if (off) {
        if (apple_asc_running(s)) {
            apple_log_mask(LOG_GUEST_ERROR, OBJECT(s), "power cut while the "
                           "coprocessor runs: it loses its state\n");
        }
        /* What power-on finds: the coprocessor as after reset */
        device_cold_reset(DEVICE(s));
        device_cold_reset(DEVICE(&s->mbox));
    }
}

/* Reading says whether the firmware is dead; writing true crashes it */
static bool apple_asc_get_crashed(Object *obj, Error **errp)
{
    return rtkit_is_dead(&APPLE_ASC(obj)->rtk);
}

static void apple_asc_set_crashed(Object *obj, bool value, Error **errp)
{
    AppleASCState *s = APPLE_ASC(obj);

    if (!value) {
        error_setg(errp, "a crashed coprocessor restarts only when the "
                   "guest cycles CPU_CONTROL.RUN");
        return;
    }
    if (!FIELD_EX32(s->cpu_control, CPU_CONTROL, RUN)) {
        error_setg(errp, "the coprocessor is not running");
        return;
    }
    trace_apple_asc_crash_injected();
    rtkit_crash(&s->rtk, "crash injected by the host (QOM property "
                "'crashed')");
    apple_asc_kick(s);
}

static void apple_asc_reset_hold(Object *obj, ResetType type)
{
    AppleASCState *s = APPLE_ASC(obj);

    s->cpu_control = 0;
    apple_asc_cpu_stop(s);
}

static void apple_asc_init(Object *obj)
{
    AppleASCState *s = APPLE_ASC(obj);

    memory_region_init_io(&s->iomem, obj, &apple_asc_ops, s, "apple-asc",
                          APPLE_ASC_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->iomem);
    object_initialize_child(obj, "mailbox", &s->mbox, TYPE_APPLE_MBOX);
    apple_asc_add_gate(s, &s->iomem);
    qdev_init_gpio_in_named(DEVICE(obj), apple_asc_set_clocked,
                            APPLE_ASC_GPIO_CLOCKED, 1);
    qdev_init_gpio_in_named(DEVICE(obj), apple_asc_set_powered,
                            APPLE_ASC_GPIO_POWERED, 1);
    object_property_add_bool(obj, "crashed", apple_asc_get_crashed,
                             apple_asc_set_crashed);
    object_property_set_description(obj, "crashed",
                                    "The firmware has crashed; set to true "
                                    "to crash it now");
}

static void apple_asc_realize(DeviceState *dev, Error **errp)
{
    AppleASCState *s = APPLE_ASC(dev);
    AppleASCClass *ac = APPLE_ASC_GET_CLASS(s);
    SysBusDevice *mbox = SYS_BUS_DEVICE(&s->mbox);

    if (s->rtk.echo_ep && s->rtk.echo_ep < RTKIT_APP_EP_START) {
        error_setg(errp, "echo-endpoint must be 0 (off) or >= 0x%x",
                   RTKIT_APP_EP_START);
        return;
    }
    if (s->rtk.hello_min > s->rtk.hello_max) {
        error_setg(errp, "x-hello-min is above x-hello-max");
        return;
    }
    if (!sysbus_realize(mbox, errp)) {
        return;
    }
    memory_region_add_subregion_overlap(&s->iomem, APPLE_ASC_MBOX_OFFSET,
                                        sysbus_mmio_get_region(mbox, 0), 1);
    sysbus_pass_irq(SYS_BUS_DEVICE(s), mbox);
    apple_mbox_set_notify(&s->mbox, apple_asc_mbox_notify, s);

    s->bh = qemu_bh_new_guarded(apple_asc_bh, s,
                                &DEVICE(s)->mem_reentrancy_guard);
    s->rtk.sys_eps = s->sys_eps & ~1u;
    rtkit_init(&s->rtk, &apple_asc_rtkit_ops, s);
    if (ac->setup_endpoints) {
        ac->setup_endpoints(s);
    }
}

static void apple_asc_unrealize(DeviceState *dev)
{
    AppleASCState *s = APPLE_ASC(dev);

    qemu_bh_delete(s->bh);
}

static int apple_asc_post_load(void *opaque, int version_id)
{
    AppleASCState *s = opaque;
    const char *reason = rtkit_post_load(&s->rtk);

    if (reason) {
        g_autofree char *path = object_get_canonical_path(OBJECT(s));

        error_report("%s: incoming migration rejected: %s", path, reason);
        return -EINVAL;
    }
    /* Pick up where the bottom half was when the VM stopped */
    apple_asc_kick(s);
    return 0;
}

static const VMStateDescription vmstate_rtkit_buffer = {
    .name = "rtkit/buffer",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(iova, RTKitBuffer),
        VMSTATE_UINT32(size, RTKitBuffer),
        VMSTATE_UINT32(state, RTKitBuffer),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_rtkit = {
    .name = "rtkit",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(boot_state, RTKitState),
        VMSTATE_UINT32(version, RTKitState),
        VMSTATE_UINT32(iop_power, RTKitState),
        VMSTATE_UINT32(ap_power, RTKitState),
        VMSTATE_UINT32(epmap_block, RTKitState),
        VMSTATE_BOOL(iop_ack_pending, RTKitState),
        VMSTATE_UINT64_ARRAY(started, RTKitState, RTKIT_NUM_EPS / 64),
        VMSTATE_STRUCT(crashlog, RTKitState, 1, vmstate_rtkit_buffer,
                       RTKitBuffer),
        VMSTATE_STRUCT(syslog, RTKitState, 1, vmstate_rtkit_buffer,
                       RTKitBuffer),
        VMSTATE_STRUCT(ioreport, RTKitState, 1, vmstate_rtkit_buffer,
                       RTKitBuffer),
        VMSTATE_STRUCT(oslog, RTKitState, 1, vmstate_rtkit_buffer,
                       RTKitBuffer),
        VMSTATE_BOOL(syslog_init_sent, RTKitState),
        VMSTATE_UINT32(syslog_next, RTKitState),
        VMSTATE_UINT32(syslog_busy, RTKitState),
        VMSTATE_UINT32(syslog_dropped, RTKitState),
        VMSTATE_UINT64_ARRAY(outbox_msg, RTKitState, RTKIT_OUTBOX_LEN),
        VMSTATE_UINT32_ARRAY(outbox_ep, RTKitState, RTKIT_OUTBOX_LEN),
        VMSTATE_UINT32(outbox_head, RTKitState),
        VMSTATE_UINT32(outbox_count, RTKitState),
        VMSTATE_UINT32(outbox_dropped, RTKitState),
        VMSTATE_UINT64_ARRAY(history_msg0, RTKitState, RTKIT_HISTORY_LEN),
        VMSTATE_UINT64_ARRAY(history_msg1, RTKitState, RTKIT_HISTORY_LEN),
        VMSTATE_UINT32_ARRAY(history_time, RTKitState, RTKIT_HISTORY_LEN),
        VMSTATE_UINT32(history_next, RTKitState),
        VMSTATE_END_OF_LIST()
    }
};

/* The power domain's state, when it is not all on */
static bool apple_asc_power_needed(void *opaque)
{
    AppleASCState *s = opaque;

    return s->clock_off || s->power_off;
}

static int apple_asc_power_post_load(void *opaque, int version_id)
{
    apple_asc_update_gates(opaque);
    return 0;
}

static const VMStateDescription vmstate_apple_asc_power = {
    .name = TYPE_APPLE_ASC "/power",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = apple_asc_power_needed,
    .post_load = apple_asc_power_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(clock_off, AppleASCState),
        VMSTATE_BOOL(power_off, AppleASCState),
        VMSTATE_END_OF_LIST()
    }
};

const VMStateDescription vmstate_apple_asc = {
    .name = TYPE_APPLE_ASC,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = apple_asc_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(cpu_control, AppleASCState),
        VMSTATE_STRUCT(rtk, AppleASCState, 1, vmstate_rtkit, RTKitState),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_apple_asc_power,
        NULL
    }
};

static const Property apple_asc_properties[] = {
    /* System endpoints the firmware advertises besides management */
    DEFINE_PROP_UINT32("system-endpoints", AppleASCState, sys_eps, 0),
    DEFINE_PROP_UINT8("echo-endpoint", AppleASCState, rtk.echo_ep, 0),
    /* Fault injection for tests of the AP side of the handshake */
    DEFINE_PROP_UINT16("x-hello-min", AppleASCState, rtk.hello_min,
                       RTKIT_VERSION_MIN),
    DEFINE_PROP_UINT16("x-hello-max", AppleASCState, rtk.hello_max,
                       RTKIT_VERSION_MAX),
    DEFINE_PROP_BOOL("x-no-iop-power-ack", AppleASCState,
                     rtk.no_iop_power_ack, false),
};

static void apple_asc_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    AppleASCClass *ac = APPLE_ASC_CLASS(klass);

    dc->desc = "Apple ASC coprocessor running RTKit (emulated firmware)";
    dc->realize = apple_asc_realize;
    dc->unrealize = apple_asc_unrealize;
    dc->vmsd = &vmstate_apple_asc;
    device_class_set_props(dc, apple_asc_properties);
    rc->phases.hold = apple_asc_reset_hold;
    ac->iova_rw = apple_asc_phys_rw;
}

static const TypeInfo apple_asc_types[] = {
    {
        .name = TYPE_APPLE_ASC,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(AppleASCState),
        .instance_init = apple_asc_init,
        .class_size = sizeof(AppleASCClass),
        .class_init = apple_asc_class_init,
    },
};

DEFINE_TYPES(apple_asc_types)
