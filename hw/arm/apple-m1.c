/*
 * Apple M1 (t8103) machine for running the drm/asahi GPU driver
 *
 * The blocks that matter to the GPU (RAM, the AGX GPU, its ASC coprocessor
 * and mailbox) sit at their t8103 addresses.  By default the parts of the
 * SoC a stock arm64 kernel cannot use (AIC, S5L UART, PMGR) are replaced by
 * a GICv3 and a PL011 at addresses that are free on t8103; GIC SPI numbers
 * equal AIC line numbers, so the interrupt numbers in the device tree
 * match t8103's.  With soc=t8103 the machine has t8103's own AIC (with the
 * timers and fast IPIs on each CPU's FIQ), S5L UART and PMGR instead, and
 * its secondary CPUs start by spin-table (apple-m1-smp.c); with the GIC
 * through PSCI.
 *
 * The machine also does what m1n1 does on a real Mac: it reserves the UAT
 * and calibration memory at the top of RAM and fills the calibration blobs
 * for the firmware ABI chosen with gpu-firmware here, and fills the device
 * tree the guest boots with (apple-m1-m1n1.c), be it the one it generates
 * (apple-m1-fdt.c) or one given with -dtb.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qobject/qlist.h"
#include "exec/address-spaces.h"
#include "hw/arm/apple-m1.h"
#include "hw/arm/bsa.h"
#include "hw/char/pl011.h"
#include "hw/intc/arm_gicv3_common.h"
#include "hw/loader.h"
#include "hw/misc/unimp.h"
#include "hw/arm/m1n1/agx-calib-fill.h"
#include "hw/arm/m1n1/agx-calib-t8103.h"
#include "hw/apple/apple-aic.h"
#include "hw/apple/apple-fiq.h"
#include "hw/apple/apple-pmgr.h"
#include "hw/apple/apple-s5l-uart.h"
#include "hw/qdev-properties.h"
#include "hw/sysbus.h"
#include "system/device_tree.h"
#include "system/system.h"
#include "target/arm/cpu.h"
#include "target/arm/gtimer.h"
#include <libfdt.h>

#define APPLE_M1_DEFAULT_RAM    (8 * GiB)
#define APPLE_M1_MAX_RAM        (16 * GiB)
#define APPLE_M1_MIN_RAM        (128 * MiB)
#define APPLE_M1_GPU_FIRMWARE   "13.5"

/*
 * t8103 places every device at or above 0x2_0000_0000, so the GIC, the
 * UART, the virtio-mmio transports and the spin table, which t8103 does not
 * have as such, live in the empty space below 4 GiB.
 */
const MemMapEntry apple_m1_memmap[APPLE_M1_NUM_MAP] = {
    [APPLE_M1_GIC_DIST] =   { 0x008000000, 0x10000 },
    [APPLE_M1_GIC_REDIST] = { 0x0080a0000, 0xf60000 },
    [APPLE_M1_UART] =       { 0x009000000, 0x1000 },
    [APPLE_M1_SGX] =        { 0x204000000, 0x1000000 },
    [APPLE_M1_GPU_ASC] =    { 0x206400000, 0x40000 },
    [APPLE_M1_S5L_UART0] =  { 0x235200000, APPLE_S5L_UART_SIZE },
    [APPLE_M1_S5L_UART2] =  { 0x235208000, APPLE_S5L_UART_SIZE },
    [APPLE_M1_AIC] =        { 0x23b100000, APPLE_AIC_SIZE },
    [APPLE_M1_PMGR] =       { 0x23b700000, 0x14000 },
    [APPLE_M1_PMGR_MINI] =  { 0x23d280000, 0x4000 },
    [APPLE_M1_SOC_MMIO] =   { 0x200000000, 0x100000000 },
    /* One transport; APPLE_M1_NUM_VIRTIO of them follow each other */
    [APPLE_M1_VIRTIO] =     { 0x00a000000, 0x200 },
    /* soc=t8103: the CPUs' spin-table release slots (apple-m1-smp.c) */
    [APPLE_M1_SPIN] =       { 0x00b000000, 0x1000 },
    [APPLE_M1_RAM] =        { 0x800000000, APPLE_M1_MAX_RAM },
};

/*
 * SPI numbers: t8103 AIC line numbers where t8103 has the device.  The
 * virtio-mmio transports, which t8103 does not have, take the top 32 of
 * AIC's 896 lines: Linux's t8103 device trees use none above 861.
 */
const int apple_m1_irqmap[APPLE_M1_NUM_MAP] = {
    [APPLE_M1_UART] = 605,      /* t8103 serial0 */
    [APPLE_M1_S5L_UART0] = 605,
    [APPLE_M1_S5L_UART2] = 607, /* t8103 serial2, Bluetooth's on a Mac */
    [APPLE_M1_GPU_ASC] = 575,   /* agx_mbox: 575..578 */
    [APPLE_M1_VIRTIO] = 864,    /* 864..895 */
};

/*
 * The UAT regions are one GPU page each (the driver needs 0x400 of ttbs,
 * one page of pagetables, 0x648 of handoff); the blobs are rounded up to
 * whole pages.  None is no-map: m1n1 leaves that to the tree, and
 * t8103.dtsi sets it on none (newer drivers use pagetables as a page table
 * through struct pages, and map the others write-back).
 */
const AppleM1GpuMem apple_m1_gpu_mem[APPLE_M1_GPU_NUM_MEM] = {
    [APPLE_M1_GPU_TTBS] = { "uat-ttbs", "ttbs", -1 },
    [APPLE_M1_GPU_PAGETABLES] = { "uat-pagetables", "pagetables", -1 },
    [APPLE_M1_GPU_HANDOFF] = { "uat-handoff", "handoff", -1 },
    [APPLE_M1_GPU_HW_CAL_A] = { "hw-cal-a", "hw-cal-a", AGX_CALIB_HWDATA_A },
    [APPLE_M1_GPU_HW_CAL_B] = { "hw-cal-b", "hw-cal-b", AGX_CALIB_HWDATA_B },
    [APPLE_M1_GPU_GLOBALS] = { "globals", "globals", AGX_CALIB_GLOBALS },
};

/* With their parents, as in Linux's t8103-pmgr.dtsi */
const AppleM1PowerState apple_m1_pmgr_ps[APPLE_M1_NUM_PS] = {
    [APPLE_M1_PS_AIC] = { "aic", 0x108, -1, true },
    [APPLE_M1_PS_SIO_BUSIF] = { "sio_busif", 0x1c0, -1, false },
    [APPLE_M1_PS_SIO] = { "sio", 0x1c8, APPLE_M1_PS_SIO_BUSIF, false },
    [APPLE_M1_PS_UART_P] = { "uart_p", 0x220, APPLE_M1_PS_SIO, false },
    [APPLE_M1_PS_UART0] = { "uart0", 0x270, APPLE_M1_PS_UART_P, false },
    [APPLE_M1_PS_UART2] = { "uart2", 0x280, APPLE_M1_PS_UART_P, false },
    [APPLE_M1_PS_GFX] = { "gfx", 0x3f8, -1, false },
};

/* GIC SPI n and AIC line n are both the controller's GPIO input n */
static qemu_irq apple_m1_spi(AppleM1MachineState *ams, int spi)
{
    return qdev_get_gpio_in(ams->intc, spi);
}

uint64_t apple_m1_cpu_mpidr(int n)
{
    int cluster = n / APPLE_M1_CPUS_PER_CLUSTER;
    int core = n % APPLE_M1_CPUS_PER_CLUSTER;

    return ((uint64_t)cluster << ARM_AFF2_SHIFT) |
           ((uint64_t)cluster << ARM_AFF1_SHIFT) | core;
}

static void create_cpus(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);

    for (int n = 0; n < ms->smp.cpus; n++) {
        Object *cpuobj = object_new(ms->cpu_type);

        object_property_set_int(cpuobj, "mp-affinity",
                                apple_m1_cpu_mpidr(n), &error_abort);
        /* Linux boots at EL1; with el2=on at EL2, as on a Mac */
        if (object_property_find(cpuobj, "has_el3")) {
            object_property_set_bool(cpuobj, "has_el3", false, &error_abort);
        }
        if (object_property_find(cpuobj, "has_el2")) {
            object_property_set_bool(cpuobj, "has_el2", ams->el2,
                                     &error_abort);
        }
        object_property_set_int(cpuobj, "cntfrq", APPLE_M1_CNTFRQ_HZ,
                                &error_abort);
        /* soc=t8103: secondary CPUs are off until the spin table starts them */
        if (n && ams->soc == APPLE_M1_SOC_T8103) {
            object_property_set_bool(cpuobj, "start-powered-off", true,
                                     &error_abort);
        }
        object_property_set_link(cpuobj, "memory",
                                 OBJECT(get_system_memory()), &error_abort);
        qdev_realize(DEVICE(cpuobj), NULL, &error_fatal);
        object_unref(cpuobj);
    }
    apple_m1_fdt_add_cpus(ams);
}

static void create_gic(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    const MemMapEntry *dist = &apple_m1_memmap[APPLE_M1_GIC_DIST];
    const MemMapEntry *redist = &apple_m1_memmap[APPLE_M1_GIC_REDIST];
    int ncpus = ms->smp.cpus;
    SysBusDevice *sbd;
    QList *redist_counts;

    ams->intc = qdev_new(gicv3_class_name());
    qdev_prop_set_uint32(ams->intc, "revision", 3);
    qdev_prop_set_uint32(ams->intc, "num-cpu", ncpus);
    qdev_prop_set_uint32(ams->intc, "num-irq",
                         APPLE_M1_NUM_SPIS + GIC_INTERNAL);
    redist_counts = qlist_new();
    qlist_append_int(redist_counts, ncpus);
    qdev_prop_set_array(ams->intc, "redist-region-count", redist_counts);

    sbd = SYS_BUS_DEVICE(ams->intc);
    sysbus_realize_and_unref(sbd, &error_fatal);
    sysbus_mmio_map(sbd, 0, dist->base);
    sysbus_mmio_map(sbd, 1, redist->base);

    for (int n = 0; n < ncpus; n++) {
        DeviceState *cpudev = DEVICE(qemu_get_cpu(n));
        int ppibase = APPLE_M1_NUM_SPIS + n * GIC_INTERNAL;
        static const int timer_ppi[] = {
            [GTIMER_PHYS] = ARCH_TIMER_NS_EL1_IRQ,
            [GTIMER_VIRT] = ARCH_TIMER_VIRT_IRQ,
            [GTIMER_HYP] = ARCH_TIMER_NS_EL2_IRQ,
            [GTIMER_SEC] = ARCH_TIMER_S_EL1_IRQ,
        };

        for (int t = 0; t < ARRAY_SIZE(timer_ppi); t++) {
            qdev_connect_gpio_out(cpudev, t,
                                  qdev_get_gpio_in(ams->intc,
                                                   ppibase + timer_ppi[t]));
        }
        sysbus_connect_irq(sbd, n, qdev_get_gpio_in(cpudev, ARM_CPU_IRQ));
        sysbus_connect_irq(sbd, n + ncpus,
                           qdev_get_gpio_in(cpudev, ARM_CPU_FIQ));
        sysbus_connect_irq(sbd, n + 2 * ncpus,
                           qdev_get_gpio_in(cpudev, ARM_CPU_VIRQ));
        sysbus_connect_irq(sbd, n + 3 * ncpus,
                           qdev_get_gpio_in(cpudev, ARM_CPU_VFIQ));
    }
    apple_m1_fdt_add_gic(ams);
}

static void create_uart(AppleM1MachineState *ams)
{
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_UART];
    DeviceState *dev;

    dev = qdev_new(TYPE_PL011);
    qdev_prop_set_chr(dev, "chardev", serial_hd(0));
    sysbus_realize_and_unref(SYS_BUS_DEVICE(dev), &error_fatal);
    sysbus_mmio_map(SYS_BUS_DEVICE(dev), 0, map->base);
    sysbus_connect_irq(SYS_BUS_DEVICE(dev), 0,
                       apple_m1_spi(ams, apple_m1_irqmap[APPLE_M1_UART]));
    apple_m1_fdt_add_pl011(ams);
}

/*
 * t8103's interrupt wiring: the AIC drives each CPU's IRQ; the timers and
 * fast IPIs reach each CPU's FIQ through the FIQ device.
 */
static void create_aic(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_AIC];
    int ncpus = ms->smp.cpus;
    DeviceState *fiq;

    ams->intc = qdev_new(TYPE_APPLE_AIC);
    object_property_add_child(OBJECT(ams), "aic", OBJECT(ams->intc));
    qdev_prop_set_uint32(ams->intc, "num-irq", APPLE_M1_NUM_SPIS);
    qdev_prop_set_uint32(ams->intc, "num-cpu", ncpus);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(ams->intc), &error_fatal);
    sysbus_mmio_map(SYS_BUS_DEVICE(ams->intc), 0, map->base);

    fiq = qdev_new(TYPE_APPLE_FIQ);
    object_property_add_child(OBJECT(ams), "fiq", OBJECT(fiq));
    qdev_prop_set_uint32(fiq, "num-cpu", ncpus);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(fiq), &error_fatal);

    for (int n = 0; n < ncpus; n++) {
        DeviceState *cpudev = DEVICE(qemu_get_cpu(n));

        sysbus_connect_irq(SYS_BUS_DEVICE(ams->intc), n,
                           qdev_get_gpio_in(cpudev, ARM_CPU_IRQ));
        for (int t = 0; t < APPLE_FIQ_NUM_TIMERS; t++) {
            qdev_connect_gpio_out(cpudev, t,
                                  qdev_get_gpio_in(fiq,
                                      apple_fiq_timer_input(n, t)));
        }
        sysbus_connect_irq(SYS_BUS_DEVICE(fiq), n,
                           qdev_get_gpio_in(cpudev, ARM_CPU_FIQ));
    }
    apple_m1_fdt_add_aic(ams);
}

/*
 * serial0 on -serial's first chardev, serial2 (which the Macs' trees
 * enable for Bluetooth; a port that reads as zero stalls Linux's driver
 * for seconds at probe) on the second, if any
 */
static void create_s5l_uart(AppleM1MachineState *ams, int which,
                            const char *name, int serial)
{
    const MemMapEntry *map = &apple_m1_memmap[which];
    int irq = apple_m1_irqmap[which];
    DeviceState *dev;

    dev = qdev_new(TYPE_APPLE_S5L_UART);
    object_property_add_child(OBJECT(ams), name, OBJECT(dev));
    qdev_prop_set_chr(dev, "chardev", serial_hd(serial));
    sysbus_realize_and_unref(SYS_BUS_DEVICE(dev), &error_fatal);
    sysbus_mmio_map(SYS_BUS_DEVICE(dev), 0, map->base);
    sysbus_connect_irq(SYS_BUS_DEVICE(dev), 0, apple_m1_spi(ams, irq));
    apple_m1_fdt_add_s5l_uart(ams, which);
}

static DeviceState *create_pmgr_block(AppleM1MachineState *ams, int which,
                                      const char *name, QList *watch)
{
    const MemMapEntry *map = &apple_m1_memmap[which];
    DeviceState *dev = qdev_new(TYPE_APPLE_PMGR);

    object_property_add_child(OBJECT(ams), name, OBJECT(dev));
    qdev_prop_set_uint32(dev, "size", map->size);
    if (watch) {
        qdev_prop_set_array(dev, "watch", watch);
    }
    sysbus_realize_and_unref(SYS_BUS_DEVICE(dev), &error_fatal);
    sysbus_mmio_map(SYS_BUS_DEVICE(dev), 0, map->base);
    return dev;
}

/* The main PMGR tells the GPU the state of ps_gfx (its GPIO line 0) */
static void create_pmgr(AppleM1MachineState *ams)
{
    QList *watch = qlist_new();

    qlist_append_int(watch, apple_m1_pmgr_ps[APPLE_M1_PS_GFX].offset);
    ams->pmgr = create_pmgr_block(ams, APPLE_M1_PMGR, "pmgr", watch);
    create_pmgr_block(ams, APPLE_M1_PMGR_MINI, "pmgr-mini", NULL);
    apple_m1_fdt_add_pmgr(ams);
}

/* Carve the GPU's reserved memory from the top of RAM */
static void apple_m1_place_gpu_mem(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    hwaddr top = apple_m1_memmap[APPLE_M1_RAM].base + ms->ram_size;

    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        int blob = apple_m1_gpu_mem[i].blob;
        hwaddr size = blob < 0 ? APPLE_M1_GPU_PAGE :
                      agx_calib_size(ams->gpu_abi, blob);

        size = QEMU_ALIGN_UP(size, APPLE_M1_GPU_PAGE);
        top = QEMU_ALIGN_DOWN(top - size, APPLE_M1_GPU_PAGE);
        ams->gpu_mem[i].base = top;
        ams->gpu_mem[i].size = size;
    }
}

/*
 * The regions' contents, as ROM blobs in RAM so that every reset restores
 * them: zeroed UAT regions, and the calibration blobs.
 */
static void apple_m1_load_gpu_mem(AppleM1MachineState *ams)
{
    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        const MemMapEntry *mem = &ams->gpu_mem[i];
        int blob = apple_m1_gpu_mem[i].blob;
        g_autofree uint8_t *data = g_malloc0(mem->size);
        g_autofree char *name = g_strdup_printf("apple-m1.gpu-%s",
                                                apple_m1_gpu_mem[i].name);

        if (blob >= 0) {
            agx_calib_fill(ams->gpu_abi, blob, &ams->gpu_cal, data);
        }
        rom_add_blob_fixed(name, data, mem->size, mem->base);
    }
}

static void create_gpu(AppleM1MachineState *ams)
{
    const MemMapEntry *sgx = &apple_m1_memmap[APPLE_M1_SGX];
    const MemMapEntry *asc = &apple_m1_memmap[APPLE_M1_GPU_ASC];
    int spi = apple_m1_irqmap[APPLE_M1_GPU_ASC];
    uint32_t core_mask = ams->gpu_cores == 8 ? 0xff : 0xfe;
    SysBusDevice *sbd;
    DeviceState *dev;

    ams->gpu_abi = agx_abi_by_name(ams->gpu_firmware);
    g_assert(ams->gpu_abi);
    apple_m1_place_gpu_mem(ams);
    agx_calib_t8103_params(&ams->gpu_cal, core_mask,
                           ams->gpu_mem[APPLE_M1_GPU_TTBS].base);
    apple_m1_load_gpu_mem(ams);

    object_initialize_child(OBJECT(ams), "gpu-asc", &ams->gpu,
                            TYPE_APPLE_AGX);
    dev = DEVICE(&ams->gpu);
    qdev_prop_set_string(dev, "firmware-version", ams->gpu_firmware);
    qdev_prop_set_uint32(dev, "core-mask", core_mask);
    qdev_prop_set_uint64(dev, "handoff-base",
                         ams->gpu_mem[APPLE_M1_GPU_HANDOFF].base);
    qdev_prop_set_uint64(dev, "ttbs-base",
                         ams->gpu_mem[APPLE_M1_GPU_TTBS].base);
    sbd = SYS_BUS_DEVICE(dev);
    sysbus_realize(sbd, &error_fatal);
    sysbus_mmio_map(sbd, 0, asc->base);
    sysbus_mmio_map(sbd, 1, sgx->base);
    for (int i = 0; i < APPLE_MBOX_NUM_IRQS; i++) {
        sysbus_connect_irq(sbd, i, apple_m1_spi(ams, spi + i));
    }
    if (ams->pmgr) {
        qdev_connect_gpio_out_named(ams->pmgr, APPLE_PMGR_GPIO_CLOCKED, 0,
                qdev_get_gpio_in_named(dev, APPLE_ASC_GPIO_CLOCKED, 0));
        qdev_connect_gpio_out_named(ams->pmgr, APPLE_PMGR_GPIO_POWERED, 0,
                qdev_get_gpio_in_named(dev, APPLE_ASC_GPIO_POWERED, 0));
    }
    apple_m1_fdt_add_gpu(ams);
}

/*
 * virtio-mmio transports, as on virt: created in forward order, and since
 * each new bus goes first in the list -device searches, -device
 * virtio-*-device fills the highest address first
 */
static void create_virtio_mmio(AppleM1MachineState *ams)
{
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_VIRTIO];
    int irq = apple_m1_irqmap[APPLE_M1_VIRTIO];

    for (int i = 0; i < APPLE_M1_NUM_VIRTIO; i++) {
        sysbus_create_simple("virtio-mmio", map->base + i * map->size,
                             apple_m1_spi(ams, irq + i));
    }
}

/*
 * How CPUs start.  With the GIC, secondary CPUs start through QEMU's PSCI
 * (HVC).  soc=t8103 starts them by spin-table as its device trees say,
 * through the release slots of apple-m1-smp.c.  Its CPUs still have QEMU's
 * PSCI (HVC, or SMC from EL2), and the tree a /psci node, for power-off
 * and reset only: a Mac has neither.
 */
static void apple_m1_setup_boot(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    struct arm_boot_info *info = &ams->bootinfo;
    int conduit = ams->el2 ? QEMU_PSCI_CONDUIT_SMC : QEMU_PSCI_CONDUIT_HVC;
    CPUState *cs;

    info->ram_size = ms->ram_size;
    info->loader_start = apple_m1_memmap[APPLE_M1_RAM].base;
    info->board_id = -1;
    if (ams->soc != APPLE_M1_SOC_T8103) {
        info->psci_conduit = conduit;
        return;
    }
    apple_m1_create_spin_table(ams);
    info->psci_conduit = QEMU_PSCI_CONDUIT_DISABLED;
    info->write_secondary_boot = apple_m1_spin_write;
    info->secondary_cpu_reset_hook = apple_m1_spin_reset;
    CPU_FOREACH(cs) {
        object_property_set_int(OBJECT(cs), "psci-conduit", conduit,
                                &error_abort);
    }
}

static void apple_m1_check_ram_size(ram_addr_t size)
{
    if (size > APPLE_M1_MAX_RAM) {
        error_report("apple-m1: RAM size 0x%" PRIx64 " is larger than the "
                     "%" PRId64 " GiB that t8103 can address",
                     (uint64_t)size, APPLE_M1_MAX_RAM / GiB);
        exit(1);
    }
    if (size < APPLE_M1_MIN_RAM) {
        error_report("apple-m1: RAM size 0x%" PRIx64 " is below the "
                     "minimum of %" PRId64 " MiB",
                     (uint64_t)size, APPLE_M1_MIN_RAM / MiB);
        exit(1);
    }
}

/* Called while -m is parsed, so a bad size fails before it is allocated */
static ram_addr_t apple_m1_fixup_ram_size(ram_addr_t size)
{
    apple_m1_check_ram_size(size);
    return size;
}

static void *apple_m1_get_dtb(const struct arm_boot_info *binfo, int *size)
{
    AppleM1MachineState *ams = container_of(binfo, AppleM1MachineState,
                                            bootinfo);
    MachineState *ms = MACHINE(ams);

    *size = fdt_totalsize(ms->fdt);
    return ms->fdt;
}

/* Called on the tree the guest boots with, generated or given with -dtb */
static void apple_m1_modify_dtb(const struct arm_boot_info *binfo, void *fdt)
{
    AppleM1MachineState *ams = container_of(binfo, AppleM1MachineState,
                                            bootinfo);

    apple_m1_m1n1_fill(ams, fdt, &error_fatal);
}

static void apple_m1_init(MachineState *ms)
{
    AppleM1MachineState *ams = APPLE_M1_MACHINE(ms);
    const MemMapEntry *ram = &apple_m1_memmap[APPLE_M1_RAM];

    apple_m1_check_ram_size(ms->ram_size);
    /* EL2 needs the FIQ-routed timers and vGIC stubs only soc=t8103 has */
    if (ams->el2 && ams->soc != APPLE_M1_SOC_T8103) {
        error_report("apple-m1: el2=on needs soc=t8103");
        exit(1);
    }
    apple_m1_fdt_create(ams);
    create_cpus(ams);
    memory_region_add_subregion(get_system_memory(), ram->base, ms->ram);
    if (ams->soc == APPLE_M1_SOC_T8103) {
        /*
         * t8103's other blocks read as zero and ignore writes, so that
         * a device tree describing more of the SoC (Linux's own) boots
         */
        create_unimplemented_device("t8103-soc",
                                    apple_m1_memmap[APPLE_M1_SOC_MMIO].base,
                                    apple_m1_memmap[APPLE_M1_SOC_MMIO].size);
        create_pmgr(ams);
        create_aic(ams);
        create_s5l_uart(ams, APPLE_M1_S5L_UART2, "uart2", 1);
        create_s5l_uart(ams, APPLE_M1_S5L_UART0, "uart0", 0);
    } else {
        create_gic(ams);
        create_uart(ams);
    }
    create_gpu(ams);
    create_virtio_mmio(ams);

    apple_m1_setup_boot(ams);
    ams->bootinfo.get_dtb = apple_m1_get_dtb;
    ams->bootinfo.modify_dtb = apple_m1_modify_dtb;
    arm_load_kernel(ARM_CPU(first_cpu), ms, &ams->bootinfo);
}

static char *apple_m1_get_gpu_firmware(Object *obj, Error **errp)
{
    return g_strdup(APPLE_M1_MACHINE(obj)->gpu_firmware);
}

static void apple_m1_set_gpu_firmware(Object *obj, const char *value,
                                      Error **errp)
{
    AppleM1MachineState *ams = APPLE_M1_MACHINE(obj);

    if (!agx_abi_by_name(value)) {
        error_setg(errp, "gpu-firmware '%s' is not supported: the GPU "
                   "firmware ABIs are 13.5 and 12.3", value);
        return;
    }
    g_free(ams->gpu_firmware);
    ams->gpu_firmware = g_strdup(value);
}

static void apple_m1_get_gpu_cores(Object *obj, Visitor *v, const char *name,
                                   void *opaque, Error **errp)
{
    uint32_t value = APPLE_M1_MACHINE(obj)->gpu_cores;

    visit_type_uint32(v, name, &value, errp);
}

static void apple_m1_set_gpu_cores(Object *obj, Visitor *v, const char *name,
                                   void *opaque, Error **errp)
{
    uint32_t value;

    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value != 7 && value != 8) {
        error_setg(errp, "gpu-cores must be 7 or 8 (t8103 ships with both)");
        return;
    }
    APPLE_M1_MACHINE(obj)->gpu_cores = value;
}

static const char *const apple_m1_soc_names[] = {
    [APPLE_M1_SOC_GIC] = "gic",
    [APPLE_M1_SOC_T8103] = "t8103",
};

static char *apple_m1_get_soc(Object *obj, Error **errp)
{
    return g_strdup(apple_m1_soc_names[APPLE_M1_MACHINE(obj)->soc]);
}

static void apple_m1_set_soc(Object *obj, const char *value, Error **errp)
{
    for (int i = 0; i < ARRAY_SIZE(apple_m1_soc_names); i++) {
        if (!strcmp(value, apple_m1_soc_names[i])) {
            APPLE_M1_MACHINE(obj)->soc = i;
            return;
        }
    }
    error_setg(errp, "soc '%s' is not supported: it is gic (GICv3 and "
               "PL011) or t8103 (AIC, S5L UART and PMGR)", value);
}

static bool apple_m1_get_el2(Object *obj, Error **errp)
{
    return APPLE_M1_MACHINE(obj)->el2;
}

static void apple_m1_set_el2(Object *obj, bool value, Error **errp)
{
    APPLE_M1_MACHINE(obj)->el2 = value;
}

static void apple_m1_instance_init(Object *obj)
{
    AppleM1MachineState *ams = APPLE_M1_MACHINE(obj);

    ams->gpu_firmware = g_strdup(APPLE_M1_GPU_FIRMWARE);
    ams->gpu_cores = 8;
}

static void apple_m1_instance_finalize(Object *obj)
{
    g_free(APPLE_M1_MACHINE(obj)->gpu_firmware);
}

static void apple_m1_class_init(ObjectClass *oc, void *data)
{
    MachineClass *mc = MACHINE_CLASS(oc);
    static const char * const valid_cpu_types[] = {
        ARM_CPU_TYPE_NAME("max"),
        NULL
    };

    mc->desc = "Apple M1 (t8103) with an AGX G13G GPU";
    mc->init = apple_m1_init;
    mc->max_cpus = APPLE_M1_NUM_CPUS;
    mc->default_cpus = APPLE_M1_NUM_CPUS;
    mc->min_cpus = 1;
    mc->default_cpu_type = ARM_CPU_TYPE_NAME("max");
    mc->valid_cpu_types = valid_cpu_types;
    mc->default_ram_size = APPLE_M1_DEFAULT_RAM;
    mc->default_ram_id = "apple-m1.ram";
    mc->fixup_ram_size = apple_m1_fixup_ram_size;
    mc->no_cdrom = 1;
    mc->no_floppy = 1;
    mc->no_parallel = 1;

    object_class_property_add_str(oc, "gpu-firmware",
                                  apple_m1_get_gpu_firmware,
                                  apple_m1_set_gpu_firmware);
    object_class_property_set_description(oc, "gpu-firmware",
        "GPU firmware ABI the device tree names and the GPU speaks: "
        "13.5 (default) or 12.3");
    object_class_property_add(oc, "gpu-cores", "uint32",
                              apple_m1_get_gpu_cores, apple_m1_set_gpu_cores,
                              NULL, NULL);
    object_class_property_set_description(oc, "gpu-cores",
        "GPU cores: 8 (default) or 7, the binned part (core mask 0xfe)");
    object_class_property_add_str(oc, "soc", apple_m1_get_soc,
                                  apple_m1_set_soc);
    object_class_property_add_bool(oc, "el2", apple_m1_get_el2,
                                   apple_m1_set_el2);
    object_class_property_set_description(oc, "el2",
        "Boot Linux at EL2 as on a Mac (default off: EL1); needs soc=t8103");
    object_class_property_set_description(oc, "soc",
        "SoC devices: gic (default: GICv3 and PL011) or t8103 (t8103's "
        "AIC with FIQ timers and fast IPIs, S5L UART and PMGR)");
}

static const TypeInfo apple_m1_machine_types[] = {
    {
        .name = TYPE_APPLE_M1_MACHINE,
        .parent = TYPE_MACHINE,
        .instance_size = sizeof(AppleM1MachineState),
        .instance_init = apple_m1_instance_init,
        .instance_finalize = apple_m1_instance_finalize,
        .class_init = apple_m1_class_init,
    },
};

DEFINE_TYPES(apple_m1_machine_types)
