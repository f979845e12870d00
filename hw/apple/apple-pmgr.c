/*
 * Apple PMGR power-state registers ("apple,pmgr-pwrstate"), as on t8103
 *
 * Field layout as Linux's drivers/pmdomain/apple/pmgr-pwrstate.c uses it.
 * Linux polls for the actual state to equal the target after each write;
 * here every transition completes within the write.
 *
 * A watched domain tells the devices in it whether it is clocked (actual
 * state ACTIVE) and whether it is powered (ACTIVE or CLKGATE; PWRGATE and
 * the states below CLKGATE, which Linux never asks for, count as off).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "hw/apple/apple-pmgr.h"
#include "trace.h"

/* Every register of the block has this layout */
REG32(PS, 0)
    FIELD(PS, TARGET, 0, 4)
    FIELD(PS, ACTUAL, 4, 4)
    FIELD(PS, WAS_PWRGATED, 8, 1)
    FIELD(PS, WAS_CLKGATED, 9, 1)
    FIELD(PS, DEV_DISABLE, 10, 1)
    FIELD(PS, MIN, 16, 4)
    FIELD(PS, AUTO, 24, 4)
    FIELD(PS, AUTO_ENABLE, 28, 1)
    FIELD(PS, RESET, 31, 1)

#define PS_ACTIVE           0xf
#define PS_CLKGATE          0x4

static void pmgr_update_watched(ApplePMGRState *s)
{
    for (uint32_t i = 0; i < s->num_watch; i++) {
        uint32_t actual = FIELD_EX32(s->regs[s->watch[i] / 4], PS, ACTUAL);

        qemu_set_irq(s->clocked[i], actual == PS_ACTIVE);
        qemu_set_irq(s->powered[i], actual >= PS_CLKGATE);
    }
}

static uint64_t pmgr_read(void *opaque, hwaddr addr, unsigned size)
{
    ApplePMGRState *s = opaque;
    uint32_t val = s->regs[addr / 4];

    trace_apple_pmgr_read(addr, val);
    return val;
}

static void pmgr_write(void *opaque, hwaddr addr, uint64_t val64,
                       unsigned size)
{
    ApplePMGRState *s = opaque;
    uint32_t val = val64;

    val = FIELD_DP32(val, PS, ACTUAL, FIELD_EX32(val, PS, TARGET));
    trace_apple_pmgr_write(addr, val64, val);
    s->regs[addr / 4] = val;
    pmgr_update_watched(s);
}

static const MemoryRegionOps pmgr_ops = {
    .read = pmgr_read,
    .write = pmgr_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
    .impl.min_access_size = 4,
    .impl.max_access_size = 4,
};

static void pmgr_reset_hold(Object *obj, ResetType type)
{
    ApplePMGRState *s = APPLE_PMGR(obj);

    for (uint32_t i = 0; i < s->num_regs; i++) {
        s->regs[i] = s->reset_value;
    }
}

static void pmgr_reset_exit(Object *obj, ResetType type)
{
    pmgr_update_watched(APPLE_PMGR(obj));
}

static void pmgr_realize(DeviceState *dev, Error **errp)
{
    ApplePMGRState *s = APPLE_PMGR(dev);

    if (s->size == 0 || s->size % 4 || s->size > APPLE_PMGR_MAX_SIZE) {
        error_setg(errp, "size must be a multiple of 4 in 4..0x%x",
                   APPLE_PMGR_MAX_SIZE);
        return;
    }
    if (s->num_watch > APPLE_PMGR_MAX_WATCH) {
        error_setg(errp, "at most %d watched domains", APPLE_PMGR_MAX_WATCH);
        return;
    }
    for (uint32_t i = 0; i < s->num_watch; i++) {
        if (s->watch[i] % 4 || s->watch[i] >= s->size) {
            error_setg(errp, "watch[%u] = 0x%x is no register of the block",
                       i, s->watch[i]);
            return;
        }
    }
    qdev_init_gpio_out_named(dev, s->clocked, APPLE_PMGR_GPIO_CLOCKED,
                             s->num_watch);
    qdev_init_gpio_out_named(dev, s->powered, APPLE_PMGR_GPIO_POWERED,
                             s->num_watch);
    s->num_regs = s->size / 4;
    s->regs = g_new0(uint32_t, s->num_regs);
    memory_region_init_io(&s->iomem, OBJECT(dev), &pmgr_ops, s,
                          TYPE_APPLE_PMGR, s->size);
    sysbus_init_mmio(SYS_BUS_DEVICE(dev), &s->iomem);
}

static void pmgr_unrealize(DeviceState *dev)
{
    g_free(APPLE_PMGR(dev)->regs);
}

static const VMStateDescription vmstate_apple_pmgr = {
    .name = TYPE_APPLE_PMGR,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_EQUAL(num_regs, ApplePMGRState, NULL),
        VMSTATE_VARRAY_UINT32(regs, ApplePMGRState, num_regs, 0,
                              vmstate_info_uint32, uint32_t),
        VMSTATE_END_OF_LIST()
    }
};

static const Property pmgr_properties[] = {
    DEFINE_PROP_UINT32("size", ApplePMGRState, size, 0x4000),
    /* Target and actual ACTIVE: every domain on, as the boot loader leaves */
    DEFINE_PROP_UINT32("reset-value", ApplePMGRState, reset_value, 0xff),
    DEFINE_PROP_ARRAY("watch", ApplePMGRState, num_watch, watch,
                      qdev_prop_uint32, uint32_t),
};

static void pmgr_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Apple PMGR power-state registers";
    dc->realize = pmgr_realize;
    dc->unrealize = pmgr_unrealize;
    dc->vmsd = &vmstate_apple_pmgr;
    device_class_set_props(dc, pmgr_properties);
    rc->phases.hold = pmgr_reset_hold;
    rc->phases.exit = pmgr_reset_exit;
}

static const TypeInfo pmgr_types[] = {
    {
        .name = TYPE_APPLE_PMGR,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(ApplePMGRState),
        .class_init = pmgr_class_init,
    },
};

DEFINE_TYPES(pmgr_types)
