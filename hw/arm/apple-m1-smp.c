/*
 * Apple M1 (t8103) machine: the spin table of soc=t8103
 *
 * t8103's device trees start secondary CPUs by spin-table: each cpu node's
 * cpu-release-addr, filled by the bootloader, names a 64-bit slot; Linux
 * writes its secondary entry point there and sends an event, and the CPU,
 * which has been polling the slot in the bootloader's stub, jumps to it.
 *
 * QEMU's WFE does not sleep, so seven CPUs polling in a stub in RAM would
 * take the host's CPU time from the boot CPU until Linux releases them
 * (measured: secondary CPUs brought up 2.4 s into the boot instead of
 * 0.3 s).  The slots are therefore this small MMIO block instead of RAM:
 * secondary CPUs stay powered off, and a 64-bit write of an entry point to
 * a CPU's slot starts that CPU there, with x0 = 0, at the EL Linux boots
 * in (EL1, or EL2 with el2=on), as leaving the stub would.  Reading a slot
 * gives what was written; reset empties them.
 *
 * A CPU leaves its stub once, on the first entry point it sees: later
 * writes to its slot are stored, as in RAM, but start nothing (the CPU is
 * running already, or about to).  The boot CPU has no stub and no slot:
 * writes to its slot are dropped, and it reads as zero.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "hw/arm/apple-m1.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "hw/sysbus.h"
#include "migration/vmstate.h"
#include "target/arm/arm-powerctl.h"
#include "target/arm/cpu.h"

OBJECT_DECLARE_SIMPLE_TYPE(AppleM1SpinTable, APPLE_M1_SPIN_TABLE)

struct AppleM1SpinTable {
    SysBusDevice parent_obj;

    MemoryRegion mmio;
    uint64_t slot[APPLE_M1_NUM_CPUS];
    uint32_t released;          /* CPUs that left their stub, one bit each */
    uint32_t num_cpu;
};

static uint64_t spin_table_read(void *opaque, hwaddr addr, unsigned size)
{
    AppleM1SpinTable *s = opaque;
    uint64_t val = s->slot[addr / 8];

    return size == 8 ? val : extract64(val, (addr & 4) * 8, 32);
}

static void spin_table_release(AppleM1SpinTable *s, int n)
{
    CPUState *cs = qemu_get_cpu(n);
    ARMCPU *cpu = ARM_CPU(cs);
    int el = arm_feature(&cpu->env, ARM_FEATURE_EL2) ? 2 : 1;
    int ret;

    if (s->released & BIT(n)) {
        qemu_log_mask(LOG_GUEST_ERROR, "apple-m1-spin-table: CPU %d left its "
                      "spin loop already; 0x%" PRIx64 " stored, not "
                      "jumped to\n", n, s->slot[n]);
        return;
    }
    /*
     * arm_set_cpu_on() starts the CPU later, in its own thread, and until
     * then would start it again, from a newer entry point: hence the bit
     */
    ret = arm_set_cpu_on(cpu->mp_affinity, s->slot[n], 0, el, true);
    if (ret == QEMU_ARM_POWERCTL_RET_SUCCESS) {
        s->released |= BIT(n);
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "apple-m1-spin-table: CPU %d not "
                      "started at 0x%" PRIx64 " (error %d: started "
                      "already?)\n", n, s->slot[n], ret);
    }
}

/* A write that completes a non-zero slot (its upper word) starts the CPU */
static void spin_table_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    AppleM1SpinTable *s = opaque;
    int n = addr / 8;

    if (n == 0) {
        /* The boot CPU runs already; Linux never releases it */
        qemu_log_mask(LOG_GUEST_ERROR, "apple-m1-spin-table: write to the "
                      "boot CPU's slot ignored\n");
        return;
    }
    if (size == 8) {
        s->slot[n] = val;
    } else {
        s->slot[n] = deposit64(s->slot[n], (addr & 4) * 8, 32, val);
    }
    if ((size == 8 || (addr & 4)) && s->slot[n]) {
        spin_table_release(s, n);
    }
}

static const MemoryRegionOps spin_table_ops = {
    .read = spin_table_read,
    .write = spin_table_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
        .unaligned = false,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
};

static void spin_table_realize(DeviceState *dev, Error **errp)
{
    AppleM1SpinTable *s = APPLE_M1_SPIN_TABLE(dev);

    if (!s->num_cpu || s->num_cpu > APPLE_M1_NUM_CPUS) {
        error_setg(errp, "apple-m1-spin-table: num-cpu must be 1..%d",
                   APPLE_M1_NUM_CPUS);
        return;
    }
    memory_region_init_io(&s->mmio, OBJECT(s), &spin_table_ops, s,
                          "apple-m1-spin-table", s->num_cpu * 8);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->mmio);
}

static void spin_table_reset_hold(Object *obj, ResetType type)
{
    AppleM1SpinTable *s = APPLE_M1_SPIN_TABLE(obj);

    memset(s->slot, 0, sizeof(s->slot));
    s->released = 0;
}

static const VMStateDescription vmstate_spin_table = {
    .name = "apple-m1-spin-table",
    .version_id = 2,
    .minimum_version_id = 2,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64_ARRAY(slot, AppleM1SpinTable, APPLE_M1_NUM_CPUS),
        VMSTATE_UINT32(released, AppleM1SpinTable),
        VMSTATE_END_OF_LIST()
    },
};

static const Property spin_table_props[] = {
    DEFINE_PROP_UINT32("num-cpu", AppleM1SpinTable, num_cpu, 1),
};

static void spin_table_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->realize = spin_table_realize;
    dc->vmsd = &vmstate_spin_table;
    rc->phases.hold = spin_table_reset_hold;
    device_class_set_props(dc, spin_table_props);
}

static const TypeInfo spin_table_types[] = {
    {
        .name = TYPE_APPLE_M1_SPIN_TABLE,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(AppleM1SpinTable),
        .class_init = spin_table_class_init,
    },
};

DEFINE_TYPES(spin_table_types)

hwaddr apple_m1_spin_release_addr(AppleM1MachineState *ams, int cpu)
{
    return apple_m1_memmap[APPLE_M1_SPIN].base + cpu * 8;
}

void apple_m1_create_spin_table(AppleM1MachineState *ams)
{
    DeviceState *dev = qdev_new(TYPE_APPLE_M1_SPIN_TABLE);

    object_property_add_child(OBJECT(ams), "spin-table", OBJECT(dev));
    qdev_prop_set_uint32(dev, "num-cpu", MACHINE(ams)->smp.cpus);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(dev), &error_fatal);
    sysbus_mmio_map(SYS_BUS_DEVICE(dev), 0,
                    apple_m1_memmap[APPLE_M1_SPIN].base);
}

/*
 * The boot code's hooks for a board's own secondary boot: there is no
 * code to write, and secondary CPUs stay off at reset until released
 */
void apple_m1_spin_write(ARMCPU *cpu, const struct arm_boot_info *info)
{
}

void apple_m1_spin_reset(ARMCPU *cpu, const struct arm_boot_info *info)
{
}
